// AssemblyScript: per-row log-likelihood differences ℓ(xᵢᵀθ', yᵢ) − ℓ(xᵢᵀθ, yᵢ)
// for a list of rows in one pass (part of the tallmc core; entry file kernels.ts).
//
//   x ─► n × d rows (f64 or f32)   y ─► n f64   θ, θ' ─► d f64 each
//   idx ─► m i32 row indices        diff ─► m f64 at list position k
//
// Rows go in pairs like llIdx: the four dot products (two rows × two θ) share
// the X loads, and each one keeps exactly _dot2's (or, for an odd last row,
// _dot1's) accumulation order, so every η — and hence every ℓ and difference —
// is bit-identical to two llIdx calls subtracted. ℓ at θ and at θ' are two
// independent _fam chains, which overlap.

import { _fam, _setup, Gaussian, Logistic, Poisson } from "./family";
import { _dot1, _row, _x1, _x2 } from "./rows";
import { madd, ZERO } from "./vmath";

// Second output of _dot2x2: (x_p0ᵀθ', x_p1ᵀθ').
let _etaP: v128 = ZERO;

/** (x_p0ᵀθ, x_p1ᵀθ); sets _etaP = (x_p0ᵀθ', x_p1ᵀθ'). Same order as _dot2 per θ. */
// @ts-ignore: decorator
@inline function _dot2x2<T>(p0: usize, p1: usize, th: usize, tp: usize, d: i32): v128 {
  let a0 = ZERO, a1 = ZERO, b0 = ZERO, b1 = ZERO;
  let c0 = ZERO, c1 = ZERO, e0 = ZERO, e1 = ZERO;
  let j = 0;
  for (; j + 4 <= d; j += 4) {
    const t0 = v128.load(th + (<usize>j << 3));
    const t1 = v128.load(th + (<usize>j << 3), 16);
    const u0 = v128.load(tp + (<usize>j << 3));
    const u1 = v128.load(tp + (<usize>j << 3), 16);
    const x00 = _x2<T>(p0, j);
    const x10 = _x2<T>(p1, j);
    const x01 = _x2<T>(p0, j + 2);
    const x11 = _x2<T>(p1, j + 2);
    a0 = madd(x00, t0, a0);
    b0 = madd(x10, t0, b0);
    a1 = madd(x01, t1, a1);
    b1 = madd(x11, t1, b1);
    c0 = madd(x00, u0, c0);
    e0 = madd(x10, u0, e0);
    c1 = madd(x01, u1, c1);
    e1 = madd(x11, u1, e1);
  }
  if (j + 2 <= d) {
    const t0 = v128.load(th + (<usize>j << 3));
    const u0 = v128.load(tp + (<usize>j << 3));
    const x00 = _x2<T>(p0, j);
    const x10 = _x2<T>(p1, j);
    a0 = madd(x00, t0, a0);
    b0 = madd(x10, t0, b0);
    c0 = madd(x00, u0, c0);
    e0 = madd(x10, u0, e0);
    j += 2;
  }
  a0 = f64x2.add(a0, a1);
  b0 = f64x2.add(b0, b1);
  c0 = f64x2.add(c0, c1);
  e0 = f64x2.add(e0, e1);
  let eta = f64x2.add(f64x2.shuffle(a0, b0, 0, 2), f64x2.shuffle(a0, b0, 1, 3));
  let etaP = f64x2.add(f64x2.shuffle(c0, e0, 0, 2), f64x2.shuffle(c0, e0, 1, 3));
  if (j < d) {
    const xv = f64x2.replace_lane(f64x2.splat(_x1<T>(p0, j)), 1, _x1<T>(p1, j));
    eta = madd(xv, f64x2.splat(load<f64>(th + (<usize>j << 3))), eta);
    etaP = madd(xv, f64x2.splat(load<f64>(tp + (<usize>j << 3))), etaP);
  }
  _etaP = etaP;
  return eta;
}

function _diff<F, T>(
  x: usize,
  y: usize,
  d: i32,
  idx: usize,
  m: i32,
  theta: usize,
  thetaP: usize,
  diff: usize,
): f64 {
  const rowBytes = <usize>d * sizeof<T>();
  let sum = ZERO;
  let k = 0;
  for (; k + 2 <= m; k += 2) {
    const r0 = _row(idx, 0, k);
    const r1 = _row(idx, 0, k + 1);
    const eta = _dot2x2<T>(x + <usize>r0 * rowBytes, x + <usize>r1 * rowBytes, theta, thetaP, d);
    const etaP = _etaP;
    const yv = f64x2.replace_lane(
      f64x2.splat(load<f64>(y + (<usize>r0 << 3))),
      1,
      load<f64>(y + (<usize>r1 << 3)),
    );
    const l = f64x2.sub(_fam<F>(etaP, yv), _fam<F>(eta, yv));
    sum = f64x2.add(sum, l);
    if (diff != 0) v128.store(diff + (<usize>k << 3), l);
  }
  let total = f64x2.extract_lane(sum, 0) + f64x2.extract_lane(sum, 1);
  if (k < m) {
    const r0 = _row(idx, 0, k);
    const p0 = x + <usize>r0 * rowBytes;
    const yv = f64x2.splat(load<f64>(y + (<usize>r0 << 3)));
    const lP = _fam<F>(f64x2.splat(_dot1<T>(p0, thetaP, d)), yv);
    const l = f64x2.extract_lane(f64x2.sub(lP, _fam<F>(f64x2.splat(_dot1<T>(p0, theta, d)), yv)), 0);
    total += l;
    if (diff != 0) store<f64>(diff + (<usize>k << 3), l);
  }
  return total;
}

function _diffDispatch<T>(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  idx: usize,
  m: i32,
  theta: usize,
  thetaP: usize,
  diff: usize,
): f64 {
  if (!_setup(family, famParam)) return NaN;
  if (family == 0) return _diff<Logistic, T>(x, y, d, idx, m, theta, thetaP, diff);
  if (family == 1) return _diff<Gaussian, T>(x, y, d, idx, m, theta, thetaP, diff);
  return _diff<Poisson, T>(x, y, d, idx, m, theta, thetaP, diff);
}

/** diff[k] = ℓ(x_{idx[k]}ᵀθ', y) − ℓ(x_{idx[k]}ᵀθ, y) for k < m (if diff ≠ 0); returns Σ. */
export function llDiffIdx(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  idx: usize,
  m: i32,
  theta: usize,
  thetaProposed: usize,
  diffOut: usize,
): f64 {
  return _diffDispatch<f64>(family, famParam, x, y, d, idx, m, theta, thetaProposed, diffOut);
}

/** llDiffIdx with X stored as f32. */
export function llDiffIdxF32(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  idx: usize,
  m: i32,
  theta: usize,
  thetaProposed: usize,
  diffOut: usize,
): f64 {
  return _diffDispatch<f32>(family, famParam, x, y, d, idx, m, theta, thetaProposed, diffOut);
}
