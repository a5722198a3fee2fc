// AssemblyScript: weighted row sums Xᵀw and per-row gradient moments
// (part of the tallmc core; entry file kernels.ts).
//
//   x ─► rows (f64 or f32), w ─► f64 weights at k = i − start
//   out, grad, sq ─► d f64 and outer ─► d × d f64: ACCUMULATED into

import { _d1, _fam, _setup, Gaussian, Logistic, Poisson } from "./family";
import {
  _axpy1,
  _axpy2,
  _axpy4,
  _dot1,
  _dot2,
  _mirrorPost,
  _mirrorPre,
  _outer2,
  _outer4,
  _sq2,
} from "./rows";

// ─── weighted sums and gradient moments ─────────────────────────────────────

function _xtw<T>(x: usize, d: i32, start: i32, end: i32, w: usize, out: usize): void {
  const rowBytes = <usize>d * sizeof<T>();
  let i = start;
  for (; i + 2 <= end; i += 2) {
    const p0 = x + <usize>i * rowBytes;
    _axpy2<T>(out, p0, p0 + rowBytes, v128.load(w + (<usize>(i - start) << 3)), d);
  }
  if (i < end) {
    _axpy1<T>(out, x + <usize>i * rowBytes, load<f64>(w + (<usize>(i - start) << 3)), d);
  }
}

/** out += Σ w[i−start]·xᵢ over rows [start, end). */
export function xtwRange(x: usize, d: i32, start: i32, end: i32, w: usize, out: usize): void {
  _xtw<f64>(x, d, start, end, w, out);
}

/** xtwRange with X stored as f32 (rows promoted on load, same operation order). */
export function xtwRangeF32(x: usize, d: i32, start: i32, end: i32, w: usize, out: usize): void {
  _xtw<f32>(x, d, start, end, w, out);
}

function _gradMoments<F>(
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  grad: usize,
  sq: usize,
  outer: usize,
): void {
  const rowBytes = <usize>d << 3;
  let i = start;
  for (; i + 4 <= end; i += 4) {
    const p0 = x + <usize>i * rowBytes;
    const p1 = p0 + rowBytes;
    const p2 = p1 + rowBytes;
    const p3 = p2 + rowBytes;
    const etaA = _dot2<f64>(p0, p1, theta, d);
    const etaB = _dot2<f64>(p2, p3, theta, d);
    _fam<F>(etaA, v128.load(y + (<usize>i << 3)));
    const aA = _d1;
    _fam<F>(etaB, v128.load(y + (<usize>i << 3), 16));
    const aB = _d1;
    _axpy4<f64>(grad, p0, p1, p2, p3, aA, aB, d);
    if (sq != 0) {
      _sq2(sq, p0, p1, aA, d);
      _sq2(sq, p2, p3, aB, d);
    }
    if (outer != 0) _outer4<f64>(outer, p0, p1, p2, p3, f64x2.mul(aA, aA), f64x2.mul(aB, aB), d);
  }
  for (; i + 2 <= end; i += 2) {
    const p0 = x + <usize>i * rowBytes;
    const p1 = p0 + rowBytes;
    _fam<F>(_dot2<f64>(p0, p1, theta, d), v128.load(y + (<usize>i << 3)));
    const a = _d1;
    _axpy2<f64>(grad, p0, p1, a, d);
    if (sq != 0) _sq2(sq, p0, p1, a, d);
    if (outer != 0) _outer2<f64>(outer, p0, p1, f64x2.mul(a, a), d);
  }
  if (i < end) {
    const p0 = x + <usize>i * rowBytes;
    const eta = f64x2.splat(_dot1<f64>(p0, theta, d));
    _fam<F>(eta, f64x2.splat(load<f64>(y + (<usize>i << 3))));
    const a = f64x2.replace_lane(_d1, 1, 0.0);
    _axpy1<f64>(grad, p0, f64x2.extract_lane(a, 0), d);
    if (sq != 0) _sq2(sq, p0, p0, a, d);
    if (outer != 0) _outer2<f64>(outer, p0, p0, f64x2.mul(a, a), d);
  }
}

/** gᵢ = ℓ'(ηᵢ)xᵢ: grad += Σgᵢ, sq += Σgᵢ⊙gᵢ (sq ≠ 0), outer += Σgᵢgᵢᵀ (outer ≠ 0). */
export function gradMomentsRange(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  grad: usize,
  sq: usize,
  outer: usize,
): void {
  if (!_setup(family, famParam)) return;
  const doOuter = outer != 0 && end > start;
  if (doOuter) _mirrorPre(outer, d);
  if (family == 0) _gradMoments<Logistic>(x, y, d, start, end, theta, grad, sq, outer);
  else if (family == 1) _gradMoments<Gaussian>(x, y, d, start, end, theta, grad, sq, outer);
  else _gradMoments<Poisson>(x, y, d, start, end, theta, grad, sq, outer);
  if (doOuter) _mirrorPost(outer, d);
}
