// AssemblyScript: fused log-likelihood, gradient and Hessian of the extended
// families (family_ext.ts), whose rows carry an aux column and whose θ may end
// with a scale parameter τ (part of the tallmc core; entry file kernels.ts).
//
//   x ─► n × d rows (f64, or f32 when f32 ≠ 0)   y ─► n f64   aux ─► n f64 or 0
//   θ ─► d + e f64 (β, then τ when e ≥ 1, then ω when e = 2)
//   grad ─► d + e f64: ACCUMULATED: Σℓ_η xᵢ, then Σℓ_τ, then Σℓ_ω
//   derivs ─► per row k (list position): ℓ, ℓ_η, ℓ_ηη, ℓ_τ, ℓ_ητ, ℓ_ττ  (6 f64, 48 B);
//             e = 2: then ℓ_ω, ℓ_ηω, ℓ_τω, ℓ_ωω (10 f64, 80 B)
//   hess ─► d × d f64: ACCUMULATED Σℓ_ηη xᵢxᵢᵀ
//   cross ─► d + 1 f64: ACCUMULATED Σℓ_ητ xᵢ, then Σℓ_ττ (e ≥ 1; 0 = none);
//            e = 2: 2d + 3 f64, then Σℓ_ηω xᵢ, Σℓ_τω, Σℓ_ωω
//   idx ─► m i32 row indices (or 0: rows start … start + m − 1)
//
// Two rows per f64x2 as in likelihood.ts; the family branch is on a constant
// per call (well predicted), the row loops are shared by all five families.

import {
  _e1, _e2, _e3, _e4, _e5, _e6, _e7, _e8, _e9, _famExt, _numExtra, _setupExt,
} from "./family_ext";
import { _axpy2, _dot2, _mirrorPost, _mirrorPre, _outer2, _row } from "./rows";
import { ZERO } from "./vmath";

/** η, y, aux of rows r0, r1 (r1 = r0 with lane 1 zero-weighted for a single row). */
// @ts-ignore: decorator
@inline function _lane2(p: usize, r0: i32, r1: i32): v128 {
  return f64x2.replace_lane(f64x2.splat(load<f64>(p + (<usize>r0 << 3))), 1, load<f64>(p + (<usize>r1 << 3)));
}

function _llExt<T>(
  fam: i32,
  x: usize,
  y: usize,
  aux: usize,
  d: i32,
  start: i32,
  idx: usize,
  m: i32,
  theta: usize,
  grad: usize,
  derivs: usize,
): f64 {
  const rowBytes = <usize>d * sizeof<T>();
  const extra = _numExtra(fam);
  const offset = aux != 0 && (fam == 5 || fam == 6);
  const stride: usize = extra == 2 ? 80 : 48;
  let sum = ZERO, sumTau = ZERO, sumOm = ZERO;
  for (let k = 0; k < m; k += 2) {
    const single = k + 1 == m;
    const r0 = _row(idx, start, k);
    const r1 = single ? r0 : _row(idx, start, k + 1);
    const p0 = x + <usize>r0 * rowBytes;
    const p1 = x + <usize>r1 * rowBytes;
    let eta = _dot2<T>(p0, p1, theta, d);
    const a = aux != 0 ? _lane2(aux, r0, r1) : ZERO;
    if (offset) eta = f64x2.add(eta, a);
    let l = _famExt(fam, eta, _lane2(y, r0, r1), a);
    let d1 = _e1, d3 = _e3, d6 = _e6;
    if (single) {
      l = f64x2.replace_lane(l, 1, 0.0);
      d1 = f64x2.replace_lane(d1, 1, 0.0);
      d3 = f64x2.replace_lane(d3, 1, 0.0);
      d6 = f64x2.replace_lane(d6, 1, 0.0);
    }
    sum = f64x2.add(sum, l);
    sumTau = f64x2.add(sumTau, d3);
    if (extra == 2) sumOm = f64x2.add(sumOm, d6);
    if (grad != 0) _axpy2<T>(grad, p0, p1, d1, d);
    if (derivs != 0) {
      const o = derivs + <usize>k * stride;
      store<f64>(o, f64x2.extract_lane(l, 0));
      store<f64>(o, f64x2.extract_lane(_e1, 0), 8);
      store<f64>(o, f64x2.extract_lane(_e2, 0), 16);
      store<f64>(o, f64x2.extract_lane(_e3, 0), 24);
      store<f64>(o, f64x2.extract_lane(_e4, 0), 32);
      store<f64>(o, f64x2.extract_lane(_e5, 0), 40);
      if (extra == 2) {
        store<f64>(o, f64x2.extract_lane(_e6, 0), 48);
        store<f64>(o, f64x2.extract_lane(_e7, 0), 56);
        store<f64>(o, f64x2.extract_lane(_e8, 0), 64);
        store<f64>(o, f64x2.extract_lane(_e9, 0), 72);
      }
      if (!single) {
        const o1 = o + stride;
        store<f64>(o1, f64x2.extract_lane(l, 1));
        store<f64>(o1, f64x2.extract_lane(_e1, 1), 8);
        store<f64>(o1, f64x2.extract_lane(_e2, 1), 16);
        store<f64>(o1, f64x2.extract_lane(_e3, 1), 24);
        store<f64>(o1, f64x2.extract_lane(_e4, 1), 32);
        store<f64>(o1, f64x2.extract_lane(_e5, 1), 40);
        if (extra == 2) {
          store<f64>(o1, f64x2.extract_lane(_e6, 1), 48);
          store<f64>(o1, f64x2.extract_lane(_e7, 1), 56);
          store<f64>(o1, f64x2.extract_lane(_e8, 1), 64);
          store<f64>(o1, f64x2.extract_lane(_e9, 1), 72);
        }
      }
    }
  }
  if (grad != 0 && extra >= 1) {
    const q = grad + (<usize>d << 3);
    store<f64>(q, load<f64>(q) + (f64x2.extract_lane(sumTau, 0) + f64x2.extract_lane(sumTau, 1)));
    if (extra == 2) {
      store<f64>(q, load<f64>(q, 8) + (f64x2.extract_lane(sumOm, 0) + f64x2.extract_lane(sumOm, 1)), 8);
    }
  }
  return f64x2.extract_lane(sum, 0) + f64x2.extract_lane(sum, 1);
}

/**
 * Σℓᵢ over m rows (idx list, or start … start + m − 1 when idx = 0) of an
 * extended family (codes 3–8); grad += (Σℓ_η xᵢ, Σℓ_τ[, Σℓ_ω]) if grad ≠ 0; per-row
 * (ℓ, ℓ_η, ℓ_ηη, ℓ_τ, ℓ_ητ, ℓ_ττ[, ℓ_ω, ℓ_ηω, ℓ_τω, ℓ_ωω]) to derivs if ≠ 0.
 * f32 ≠ 0: X stored as f32.
 */
export function llExt(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  aux: usize,
  d: i32,
  start: i32,
  idx: usize,
  m: i32,
  theta: usize,
  grad: usize,
  derivs: usize,
  f32: i32,
): f64 {
  const extra = _numExtra(family);
  const tau = extra >= 1 ? load<f64>(theta + (<usize>d << 3)) : 0.0;
  const omega = extra == 2 ? load<f64>(theta + (<usize>d << 3), 8) : 0.0;
  if (!_setupExt(family, famParam, tau, omega)) return NaN;
  if (f32 != 0) return _llExt<f32>(family, x, y, aux, d, start, idx, m, theta, grad, derivs);
  return _llExt<f64>(family, x, y, aux, d, start, idx, m, theta, grad, derivs);
}

function _hessExt<T>(
  fam: i32,
  x: usize,
  y: usize,
  aux: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  h: usize,
  cross: usize,
): void {
  const rowBytes = <usize>d * sizeof<T>();
  const offset = aux != 0 && (fam == 5 || fam == 6);
  const two = _numExtra(fam) == 2;
  const cross2 = cross + ((<usize>d + 1) << 3);
  let sumTT = ZERO, sumTO = ZERO, sumOO = ZERO;
  for (let i = start; i < end; i += 2) {
    const single = i + 1 == end;
    const r1 = single ? i : i + 1;
    const p0 = x + <usize>i * rowBytes;
    const p1 = x + <usize>r1 * rowBytes;
    let eta = _dot2<T>(p0, p1, theta, d);
    const a = aux != 0 ? _lane2(aux, i, r1) : ZERO;
    if (offset) eta = f64x2.add(eta, a);
    _famExt(fam, eta, _lane2(y, i, r1), a);
    let w = _e2, c = _e4, tt = _e5, co = _e7, to = _e8, oo = _e9;
    if (single) {
      w = f64x2.replace_lane(w, 1, 0.0);
      c = f64x2.replace_lane(c, 1, 0.0);
      tt = f64x2.replace_lane(tt, 1, 0.0);
      co = f64x2.replace_lane(co, 1, 0.0);
      to = f64x2.replace_lane(to, 1, 0.0);
      oo = f64x2.replace_lane(oo, 1, 0.0);
    }
    _outer2<T>(h, p0, p1, w, d);
    if (cross != 0) {
      _axpy2<T>(cross, p0, p1, c, d);
      sumTT = f64x2.add(sumTT, tt);
      if (two) {
        _axpy2<T>(cross2, p0, p1, co, d);
        sumTO = f64x2.add(sumTO, to);
        sumOO = f64x2.add(sumOO, oo);
      }
    }
  }
  if (cross != 0) {
    const q = cross + (<usize>d << 3);
    store<f64>(q, load<f64>(q) + (f64x2.extract_lane(sumTT, 0) + f64x2.extract_lane(sumTT, 1)));
    if (two) {
      const q2 = cross2 + (<usize>d << 3);
      store<f64>(q2, load<f64>(q2) + (f64x2.extract_lane(sumTO, 0) + f64x2.extract_lane(sumTO, 1)));
      store<f64>(q2, load<f64>(q2, 8) + (f64x2.extract_lane(sumOO, 0) + f64x2.extract_lane(sumOO, 1)), 8);
    }
  }
}

/**
 * hess += Σℓ_ηη xᵢxᵢᵀ over rows [start, end) (full d × d); for families with
 * τ and cross ≠ 0, cross += (Σℓ_ητ xᵢ, Σℓ_ττ), and for code 8 (2d + 3
 * values) then += (Σℓ_ηω xᵢ, Σℓ_τω, Σℓ_ωω).
 */
export function hessExt(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  aux: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  hess: usize,
  cross: usize,
  f32: i32,
): void {
  const extra = _numExtra(family);
  const tau = extra >= 1 ? load<f64>(theta + (<usize>d << 3)) : 0.0;
  const omega = extra == 2 ? load<f64>(theta + (<usize>d << 3), 8) : 0.0;
  if (!_setupExt(family, famParam, tau, omega) || end <= start) return;
  const c = extra >= 1 ? cross : 0;
  _mirrorPre(hess, d);
  if (f32 != 0) _hessExt<f32>(family, x, y, aux, d, start, end, theta, hess, c);
  else _hessExt<f64>(family, x, y, aux, d, start, end, theta, hess, c);
  _mirrorPost(hess, d);
}
