// AssemblyScript: fused log-likelihood + gradient, and the Hessian XᵀWX
// (part of the tallmc core; entry file kernels.ts).
//
//   x ─► n × d rows (f64 or f32)   y ─► n f64   θ ─► d f64
//   grad ─► d f64, hess ─► d × d f64: ACCUMULATED into
//   idx ─► m i32 row indices (or 0: rows start … start + m − 1)
//   outs ─► per-row f64 at list position k; pointer 0 = not wanted

import { _d1, _d2, _fam, _famD1, _setup, Gaussian, Logistic, Poisson } from "./family";
import {
  _axpy1,
  _axpy2,
  _axpy4,
  _dot1,
  _dot2,
  _dot4,
  _etaB,
  _mirrorPost,
  _mirrorPre,
  _outer2,
  _outer4,
  _row,
} from "./rows";
import { ZERO } from "./vmath";

// ─── fused likelihood + gradient ────────────────────────────────────────────

// Row-list markers (compile-time): sizeof 1 = rows start … start + m − 1
// (neighbours in memory, y pairs loaded as one v128), 2 = rows listed in idx,
// 4 = rows as for 1 with the gradient only: the same blocks (four rows, a
// pair, an odd last row), the same η and dℓ/dη and the same updates of grad,
// so grad ends with the bits the full pass gives it, but ℓ is not computed
// (for the logistic family that skips log1p, for Poisson log Γ(y + 1)) and
// nothing else is written: what a leapfrog step between the two ends of a
// trajectory needs.
type Contiguous = u8;
type Listed = u16;
type GradOnly = u32;

function _ll<F, T, L>(
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  idx: usize,
  m: i32,
  theta: usize,
  grad: usize,
  llOut: usize,
  dOut: usize,
  d2Out: usize,
): f64 {
  const rowBytes = <usize>d * sizeof<T>();
  let sum = ZERO;
  let k = 0;
  // Four rows per step: two independent pairs keep the CPU busy while each
  // pair waits on its exp/log chain; one pass over grad adds all four rows.
  for (; k + 4 <= m; k += 4) {
    let p0: usize, p1: usize, p2: usize, p3: usize, yA: v128, yB: v128;
    if (sizeof<L>() != 2) {
      const r0 = start + k;
      p0 = x + <usize>r0 * rowBytes;
      p1 = p0 + rowBytes;
      p2 = p1 + rowBytes;
      p3 = p2 + rowBytes;
      yA = v128.load(y + (<usize>r0 << 3));
      yB = v128.load(y + (<usize>r0 << 3), 16);
    } else {
      const r0 = load<i32>(idx + (<usize>k << 2));
      const r1 = load<i32>(idx + (<usize>k << 2), 4);
      const r2 = load<i32>(idx + (<usize>k << 2), 8);
      const r3 = load<i32>(idx + (<usize>k << 2), 12);
      p0 = x + <usize>r0 * rowBytes;
      p1 = x + <usize>r1 * rowBytes;
      p2 = x + <usize>r2 * rowBytes;
      p3 = x + <usize>r3 * rowBytes;
      yA = f64x2.replace_lane(
        f64x2.splat(load<f64>(y + (<usize>r0 << 3))),
        1,
        load<f64>(y + (<usize>r1 << 3)),
      );
      yB = f64x2.replace_lane(
        f64x2.splat(load<f64>(y + (<usize>r2 << 3))),
        1,
        load<f64>(y + (<usize>r3 << 3)),
      );
    }
    const etaA = _dot4<T>(p0, p1, p2, p3, theta, d);
    const etaB = _etaB;
    if (sizeof<L>() == 4) {
      _famD1<F>(etaA, yA);
      const d1A = _d1;
      _famD1<F>(etaB, yB);
      _axpy4<T>(grad, p0, p1, p2, p3, d1A, _d1, d);
      continue;
    }
    const lA = _fam<F>(etaA, yA);
    const d1A = _d1;
    const d2A = _d2;
    const lB = _fam<F>(etaB, yB);
    sum = f64x2.add(sum, f64x2.add(lA, lB));
    if (grad != 0) _axpy4<T>(grad, p0, p1, p2, p3, d1A, _d1, d);
    const o = <usize>k << 3;
    if (llOut != 0) {
      v128.store(llOut + o, lA);
      v128.store(llOut + o, lB, 16);
    }
    if (dOut != 0) {
      v128.store(dOut + o, d1A);
      v128.store(dOut + o, _d1, 16);
    }
    if (d2Out != 0) {
      v128.store(d2Out + o, d2A);
      v128.store(d2Out + o, _d2, 16);
    }
  }
  for (; k + 2 <= m; k += 2) {
    const r0 = sizeof<L>() == 4 ? start + k : _row(idx, start, k);
    const p0 = x + <usize>r0 * rowBytes;
    const r1 = sizeof<L>() == 4 ? r0 + 1 : _row(idx, start, k + 1);
    const p1 = sizeof<L>() == 4 ? p0 + rowBytes : x + <usize>r1 * rowBytes;
    const eta = _dot2<T>(p0, p1, theta, d);
    const yv = f64x2.replace_lane(
      f64x2.splat(load<f64>(y + (<usize>r0 << 3))),
      1,
      load<f64>(y + (<usize>r1 << 3)),
    );
    if (sizeof<L>() == 4) {
      _famD1<F>(eta, yv);
      _axpy2<T>(grad, p0, p1, _d1, d);
      continue;
    }
    const l = _fam<F>(eta, yv);
    sum = f64x2.add(sum, l);
    if (grad != 0) _axpy2<T>(grad, p0, p1, _d1, d);
    const o = <usize>k << 3;
    if (llOut != 0) v128.store(llOut + o, l);
    if (dOut != 0) v128.store(dOut + o, _d1);
    if (d2Out != 0) v128.store(d2Out + o, _d2);
  }
  let total = sizeof<L>() == 4 ? 0 : f64x2.extract_lane(sum, 0) + f64x2.extract_lane(sum, 1);
  if (k < m) {
    const r0 = sizeof<L>() == 4 ? start + k : _row(idx, start, k);
    const p0 = x + <usize>r0 * rowBytes;
    const eta = f64x2.splat(_dot1<T>(p0, theta, d));
    const yv = f64x2.splat(load<f64>(y + (<usize>r0 << 3)));
    if (sizeof<L>() == 4) {
      _famD1<F>(eta, yv);
      _axpy1<T>(grad, p0, f64x2.extract_lane(_d1, 0), d);
      return 0;
    }
    const l = f64x2.extract_lane(_fam<F>(eta, yv), 0);
    const d1 = f64x2.extract_lane(_d1, 0);
    total += l;
    if (grad != 0) _axpy1<T>(grad, p0, d1, d);
    const o = <usize>k << 3;
    if (llOut != 0) store<f64>(llOut + o, l);
    if (dOut != 0) store<f64>(dOut + o, d1);
    if (d2Out != 0) store<f64>(d2Out + o, f64x2.extract_lane(_d2, 0));
  }
  return total;
}

function _llDispatch<T>(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  idx: usize,
  m: i32,
  theta: usize,
  grad: usize,
  llOut: usize,
  dOut: usize,
  d2Out: usize,
): f64 {
  if (!_setup(family, famParam)) return NaN;
  if (idx == 0) {
    if (family == 0) {
      return _ll<Logistic, T, Contiguous>(x, y, d, start, 0, m, theta, grad, llOut, dOut, d2Out);
    }
    if (family == 1) {
      return _ll<Gaussian, T, Contiguous>(x, y, d, start, 0, m, theta, grad, llOut, dOut, d2Out);
    }
    return _ll<Poisson, T, Contiguous>(x, y, d, start, 0, m, theta, grad, llOut, dOut, d2Out);
  }
  if (family == 0) {
    return _ll<Logistic, T, Listed>(x, y, d, 0, idx, m, theta, grad, llOut, dOut, d2Out);
  }
  if (family == 1) {
    return _ll<Gaussian, T, Listed>(x, y, d, 0, idx, m, theta, grad, llOut, dOut, d2Out);
  }
  return _ll<Poisson, T, Listed>(x, y, d, 0, idx, m, theta, grad, llOut, dOut, d2Out);
}

/** Σℓᵢ over rows [start, end); grad += Σℓ'xᵢ if grad ≠ 0; per-row outputs if ≠ 0. */
export function llRange(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  grad: usize,
  llOut: usize,
  dOut: usize,
  d2Out: usize,
): f64 {
  return _llDispatch<f64>(
    family,
    famParam,
    x,
    y,
    d,
    start,
    0,
    end - start,
    theta,
    grad,
    llOut,
    dOut,
    d2Out,
  );
}

/** As llRange over the m rows listed in idx. */
export function llIdx(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  idx: usize,
  m: i32,
  theta: usize,
  grad: usize,
  llOut: usize,
  dOut: usize,
  d2Out: usize,
): f64 {
  return _llDispatch<f64>(family, famParam, x, y, d, 0, idx, m, theta, grad, llOut, dOut, d2Out);
}

/** llRange with X stored as f32. */
export function llRangeF32(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  grad: usize,
  llOut: usize,
  dOut: usize,
  d2Out: usize,
): f64 {
  return _llDispatch<f32>(
    family,
    famParam,
    x,
    y,
    d,
    start,
    0,
    end - start,
    theta,
    grad,
    llOut,
    dOut,
    d2Out,
  );
}

/** llIdx with X stored as f32. */
export function llIdxF32(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  idx: usize,
  m: i32,
  theta: usize,
  grad: usize,
  llOut: usize,
  dOut: usize,
  d2Out: usize,
): f64 {
  return _llDispatch<f32>(family, famParam, x, y, d, 0, idx, m, theta, grad, llOut, dOut, d2Out);
}

// ─── gradient only ──────────────────────────────────────────────────────────

// The gradient-only pass is _ll's GradOnly instantiation (see the row-list
// markers above).
function _gradDispatch<T>(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  grad: usize,
): f64 {
  if (!_setup(family, famParam) || end <= start) return 0;
  const m = end - start;
  if (family == 0) return _ll<Logistic, T, GradOnly>(x, y, d, start, 0, m, theta, grad, 0, 0, 0);
  if (family == 1) return _ll<Gaussian, T, GradOnly>(x, y, d, start, 0, m, theta, grad, 0, 0, 0);
  return _ll<Poisson, T, GradOnly>(x, y, d, start, 0, m, theta, grad, 0, 0, 0);
}

/** grad += Σℓ'(ηᵢ)xᵢ over rows [start, end): llRange's gradient, bit for bit, without Σℓᵢ. */
export function gradRange(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  grad: usize,
): void {
  _gradDispatch<f64>(family, famParam, x, y, d, start, end, theta, grad);
}

/** gradRange with X stored as f32 (llRangeF32's gradient, bit for bit). */
export function gradRangeF32(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  grad: usize,
): void {
  _gradDispatch<f32>(family, famParam, x, y, d, start, end, theta, grad);
}

// ─── Hessian ────────────────────────────────────────────────────────────────

function _hess<F, T>(
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  h: usize,
): void {
  const rowBytes = <usize>d * sizeof<T>();
  let i = start;
  for (; i + 4 <= end; i += 4) {
    const p0 = x + <usize>i * rowBytes;
    const p1 = p0 + rowBytes;
    const p2 = p1 + rowBytes;
    const p3 = p2 + rowBytes;
    const etaA = _dot2<T>(p0, p1, theta, d);
    const etaB = _dot2<T>(p2, p3, theta, d);
    _fam<F>(etaA, v128.load(y + (<usize>i << 3)));
    const wA = _d2;
    _fam<F>(etaB, v128.load(y + (<usize>i << 3), 16));
    _outer4<T>(h, p0, p1, p2, p3, wA, _d2, d);
  }
  for (; i + 2 <= end; i += 2) {
    const p0 = x + <usize>i * rowBytes;
    const p1 = p0 + rowBytes;
    _fam<F>(_dot2<T>(p0, p1, theta, d), v128.load(y + (<usize>i << 3)));
    _outer2<T>(h, p0, p1, _d2, d);
  }
  if (i < end) {
    const p0 = x + <usize>i * rowBytes;
    const eta = f64x2.splat(_dot1<T>(p0, theta, d));
    _fam<F>(eta, f64x2.splat(load<f64>(y + (<usize>i << 3))));
    _outer2<T>(h, p0, p0, f64x2.replace_lane(_d2, 1, 0.0), d);
  }
}

function _hessDispatch<T>(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  h: usize,
): void {
  if (!_setup(family, famParam) || end <= start) return;
  _mirrorPre(h, d);
  if (family == 0) _hess<Logistic, T>(x, y, d, start, end, theta, h);
  else if (family == 1) _hess<Gaussian, T>(x, y, d, start, end, theta, h);
  else _hess<Poisson, T>(x, y, d, start, end, theta, h);
  _mirrorPost(h, d);
}

/** hess += Σᵢ d²ℓ/dη²(ηᵢ) xᵢxᵢᵀ over rows [start, end), full d × d. */
export function hessRange(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  hess: usize,
): void {
  _hessDispatch<f64>(family, famParam, x, y, d, start, end, theta, hess);
}

/** hessRange with X stored as f32. */
export function hessRangeF32(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  hess: usize,
): void {
  _hessDispatch<f32>(family, famParam, x, y, d, start, end, theta, hess);
}
