// AssemblyScript: control-variate cache prepare and Taylor differences
// (part of the tallmc core; entry file kernels.ts).
//
//   cv ─► per row [η*, ℓ*, a = dℓ/dη(η*), b = d²ℓ/dη²(η*)]  f64 × 4 (32 B),
//         indexed from `start` like the per-row outputs
//   x ─► rows (f64 or f32), y ─► f64, θ ─► d f64
//   diff, r ─► per-row f64 outputs at k = i − start; 0 = not wanted

import { _d1, _d2, _fam, _invalidArgument, _setup, Gaussian, Logistic, Poisson } from "./family";
import { _dot1, _dot2 } from "./rows";
import { C_HALF, kc, madd, ZERO } from "./vmath";

// ─── control variates ───────────────────────────────────────────────────────

function _cvPrepare<F, T>(
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  cv: usize,
): void {
  const rowBytes = <usize>d * sizeof<T>();
  let i = start;
  for (; i + 2 <= end; i += 2) {
    const p0 = x + <usize>i * rowBytes;
    const eta = _dot2<T>(p0, p0 + rowBytes, theta, d);
    const l = _fam<F>(eta, v128.load(y + (<usize>i << 3)));
    const c = cv + (<usize>(i - start) << 5);
    v128.store(c, f64x2.shuffle(eta, l, 0, 2));
    v128.store(c, f64x2.shuffle(_d1, _d2, 0, 2), 16);
    v128.store(c, f64x2.shuffle(eta, l, 1, 3), 32);
    v128.store(c, f64x2.shuffle(_d1, _d2, 1, 3), 48);
  }
  if (i < end) {
    const eta = f64x2.splat(_dot1<T>(x + <usize>i * rowBytes, theta, d));
    const l = _fam<F>(eta, f64x2.splat(load<f64>(y + (<usize>i << 3))));
    const c = cv + (<usize>(i - start) << 5);
    v128.store(c, f64x2.shuffle(eta, l, 0, 2));
    v128.store(c, f64x2.shuffle(_d1, _d2, 0, 2), 16);
  }
}

function _cvPrepareDispatch<T>(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  cv: usize,
): void {
  if (!_setup(family, famParam)) return;
  if (family == 0) _cvPrepare<Logistic, T>(x, y, d, start, end, theta, cv);
  else if (family == 1) _cvPrepare<Gaussian, T>(x, y, d, start, end, theta, cv);
  else _cvPrepare<Poisson, T>(x, y, d, start, end, theta, cv);
}

/** cv[4(i−start)..] = (η*ᵢ, ℓᵢ(η*ᵢ), dℓ/dη(η*ᵢ), d²ℓ/dη²(η*ᵢ)) for rows [start, end). */
export function cvPrepareRange(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  thetaStar: usize,
  cv: usize,
): void {
  _cvPrepareDispatch<f64>(family, famParam, x, y, d, start, end, thetaStar, cv);
}

/** cvPrepareRange with X stored as f32 (rows promoted on load, same operation order). */
export function cvPrepareRangeF32(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  thetaStar: usize,
  cv: usize,
): void {
  _cvPrepareDispatch<f32>(family, famParam, x, y, d, start, end, thetaStar, cv);
}

/** dᵢ and rᵢ for two lanes given ℓ, ℓ' (in _d1) and the two cv records at c. */
// @ts-ignore: decorator
@inline function _cvTerms(l: v128, eta: v128, c0: v128, c1: v128, c2: v128, c3: v128, order: i32): v128 {
  // c0 = (η*₀, ℓ*₀), c1 = (a₀, b₀), c2 = (η*₁, ℓ*₁), c3 = (a₁, b₁)
  const de = f64x2.sub(eta, f64x2.shuffle(c0, c2, 0, 2));
  let q = f64x2.shuffle(c0, c2, 1, 3);
  let dq = ZERO;
  if (order >= 1) {
    const a = f64x2.shuffle(c1, c3, 0, 2);
    q = madd(a, de, q);
    dq = a;
    if (order == 2) {
      const b = f64x2.shuffle(c1, c3, 1, 3);
      q = madd(f64x2.mul(f64x2.mul(kc(C_HALF), b), de), de, q);
      dq = madd(b, de, dq);
    }
  }
  _d2 = f64x2.sub(_d1, dq); // rᵢ = ℓ'(η) − dq/dη; reuses the global as a second output
  return f64x2.sub(l, q);
}

export function _cvDiff<F>(
  x: usize,
  y: usize,
  cv: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  order: i32,
  diffOut: usize,
  rOut: usize,
): f64 {
  const rowBytes = <usize>d << 3;
  let sum = ZERO;
  let i = start;
  for (; i + 4 <= end; i += 4) {
    const p0 = x + <usize>i * rowBytes;
    const etaA = _dot2<f64>(p0, p0 + rowBytes, theta, d);
    const etaB = _dot2<f64>(p0 + 2 * rowBytes, p0 + 3 * rowBytes, theta, d);
    const lA = _fam<F>(etaA, v128.load(y + (<usize>i << 3)));
    const d1A = _d1;
    const lB = _fam<F>(etaB, v128.load(y + (<usize>i << 3), 16));
    const d1B = _d1;
    const c = cv + (<usize>(i - start) << 5);
    _d1 = d1A;
    const dA = _cvTerms(
      lA,
      etaA,
      v128.load(c),
      v128.load(c, 16),
      v128.load(c, 32),
      v128.load(c, 48),
      order,
    );
    const rA = _d2;
    _d1 = d1B;
    const dB = _cvTerms(
      lB,
      etaB,
      v128.load(c, 64),
      v128.load(c, 80),
      v128.load(c, 96),
      v128.load(c, 112),
      order,
    );
    sum = f64x2.add(sum, f64x2.add(dA, dB));
    const o = <usize>(i - start) << 3;
    if (diffOut != 0) {
      v128.store(diffOut + o, dA);
      v128.store(diffOut + o, dB, 16);
    }
    if (rOut != 0) {
      v128.store(rOut + o, rA);
      v128.store(rOut + o, _d2, 16);
    }
  }
  for (; i + 2 <= end; i += 2) {
    const p0 = x + <usize>i * rowBytes;
    const eta = _dot2<f64>(p0, p0 + rowBytes, theta, d);
    const l = _fam<F>(eta, v128.load(y + (<usize>i << 3)));
    const c = cv + (<usize>(i - start) << 5);
    const dv = _cvTerms(
      l,
      eta,
      v128.load(c),
      v128.load(c, 16),
      v128.load(c, 32),
      v128.load(c, 48),
      order,
    );
    sum = f64x2.add(sum, dv);
    const o = <usize>(i - start) << 3;
    if (diffOut != 0) v128.store(diffOut + o, dv);
    if (rOut != 0) v128.store(rOut + o, _d2);
  }
  let total = f64x2.extract_lane(sum, 0) + f64x2.extract_lane(sum, 1);
  if (i < end) {
    const eta = f64x2.splat(_dot1<f64>(x + <usize>i * rowBytes, theta, d));
    const l = _fam<F>(eta, f64x2.splat(load<f64>(y + (<usize>i << 3))));
    const c = cv + (<usize>(i - start) << 5);
    const c0 = v128.load(c);
    const c1 = v128.load(c, 16);
    const dv = f64x2.extract_lane(_cvTerms(l, eta, c0, c1, c0, c1, order), 0);
    total += dv;
    const o = <usize>(i - start) << 3;
    if (diffOut != 0) store<f64>(diffOut + o, dv);
    if (rOut != 0) store<f64>(rOut + o, f64x2.extract_lane(_d2, 0));
  }
  return total;
}

/** Σdᵢ with dᵢ = ℓᵢ − qᵢ (Taylor order 0, 1, 2 around η*ᵢ); per-row dᵢ, rᵢ if ≠ 0. */
export function cvDiffRange(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  cv: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  order: i32,
  diffOut: usize,
  rOut: usize,
): f64 {
  if (!_setup(family, famParam)) return NaN;
  if (order < 0 || order > 2) {
    _invalidArgument(1, <f64>order);
    return NaN;
  }
  if (family == 0) return _cvDiff<Logistic>(x, y, cv, d, start, end, theta, order, diffOut, rOut);
  if (family == 1) return _cvDiff<Gaussian>(x, y, cv, d, start, end, theta, order, diffOut, rOut);
  return _cvDiff<Poisson>(x, y, cv, d, start, end, theta, order, diffOut, rOut);
}
