// AssemblyScript source of the tallmc compute core (entry file of both builds).
//
// Memory layout (byte offsets into the imported env.memory; see core/exports.ts):
//
//   x ──► ┌ row 0 : x00 x01 … x0,d-1 ┐  f64 (w = 8) or f32 (w = 4) entries,
//         │ row 1 : …                │  row i at x + i·d·w (unaligned for
//         └ row n-1                  ┘  odd d: loads are unaligned v128)
//   y ──► y0 … yn-1                       f64
//   θ ──► θ0 … θd-1                       f64   (cache resident)
//   grad ─► g0 … gd-1                     f64   ACCUMULATED into
//   hess ─► d × d row-major               f64   ACCUMULATED into
//   cv ──► [η*, ℓ*, a, b] per row         f64 × 4 (32 B), indexed from start
//   idx ─► i0 … im-1                      i32
//   outs ─► per-row f64 at position k (k = i − start or list position); 0 = none
//
// Row pairs: rows (i, i+1) are processed together: two dot products share the
// θ loads, their η land in one f64x2 (lane 0 = row i, lane 1 = row i+1), the
// family's ℓ, dℓ/dη, d²ℓ/dη² are evaluated for both lanes at once, and the
// gradient update adds both rows' contributions in one pass over grad. The
// row-streaming kernels take two pairs (four rows) per step so that one pair's
// exp/log chain overlaps the other's, and fold all four rows into one pass over
// grad (or hess); leftover pairs, an odd last row and an odd last feature take
// shorter tails.
//
// Two builds come from this one source: `simd` (mul + add) and `relaxed`
// (relaxed-simd FMA); vmath.ts `madd` switches on ASC_FEATURE_RELAXED_SIMD.

import {
  C_HALF,
  C_LOG_2PI,
  C_ONE,
  kc,
  ks,
  madd,
  smadd,
  vexp,
  vlgamma,
  vlog1p,
  ZERO,
} from "./vmath";

/** Thrown in JS by the loader: what = 0 family, 1 order, 2 Gaussian σ. */
// @ts-ignore: decorator
@external("env", "invalidArgument")
declare function _invalidArgument(what: i32, value: f64): void;

// Family markers (compile-time): sizeof 1 = logistic, 2 = Gaussian, 4 = Poisson.
type Logistic = u8;
type Gaussian = u16;
type Poisson = u32;

// Secondary outputs of _fam: dℓ/dη and d²ℓ/dη² for the two lanes.
let _d1: v128 = ZERO;
let _d2: v128 = ZERO;
// Gaussian constants for the current call: −½log(2πσ²) and 1/σ².
let _c0: v128 = ZERO;
let _inv: v128 = ZERO;

/** First free byte above static data. */
export function heapBase(): usize {
  return __heap_base;
}

// ─── families ───────────────────────────────────────────────────────────────

/** Validate family/σ and set the per-call constants; false = do nothing. */
function _setup(family: i32, famParam: f64): bool {
  if (family < 0 || family > 2) {
    _invalidArgument(0, <f64>family);
    return false;
  }
  if (family == 1) {
    if (!(famParam > 0.0 && famParam < Infinity)) {
      _invalidArgument(2, famParam);
      return false;
    }
    const s2 = famParam * famParam;
    _inv = f64x2.splat(1.0 / s2);
    _c0 = f64x2.splat(-0.5 * (ks(C_LOG_2PI) + Math.log(s2)));
  }
  return true;
}

/** ℓ for both lanes; sets _d1 = dℓ/dη and _d2 = d²ℓ/dη². */
// @ts-ignore: decorator
@inline function _fam<F>(eta: v128, y: v128): v128 {
  if (sizeof<F>() == 1) {
    // ℓ = (yη − max(η,0)) − log1p(e^{−|η|}); σ(η) from e = e^{−|η|}
    const e = vexp(f64x2.neg(f64x2.abs(eta)));
    const u = f64x2.add(kc(C_ONE), e);
    const p = f64x2.div(kc(C_ONE), u);
    const ep = f64x2.mul(e, p);
    const sig = v128.bitselect(p, ep, f64x2.ge(eta, ZERO));
    _d1 = f64x2.sub(y, sig);
    _d2 = f64x2.neg(f64x2.mul(ep, p));
    return f64x2.sub(f64x2.sub(f64x2.mul(y, eta), f64x2.pmax(eta, ZERO)), vlog1p(e, u, p));
  } else if (sizeof<F>() == 2) {
    // ℓ = −½log(2πσ²) − (y − η)²/(2σ²)
    const r = f64x2.sub(y, eta);
    _d1 = f64x2.mul(r, _inv);
    _d2 = f64x2.neg(_inv);
    return f64x2.sub(_c0, f64x2.mul(f64x2.mul(kc(C_HALF), f64x2.mul(r, r)), _inv));
  } else {
    // ℓ = yη − e^η − log Γ(y + 1)
    const mu = vexp(eta);
    _d1 = f64x2.sub(y, mu);
    _d2 = f64x2.neg(mu);
    return f64x2.sub(f64x2.sub(f64x2.mul(y, eta), mu), vlgamma(f64x2.add(y, kc(C_ONE))));
  }
}

// ─── row primitives ─────────────────────────────────────────────────────────

/** Two f64 lanes from X at element j of the row at p (f32 rows are promoted). */
// @ts-ignore: decorator
@inline function _x2<T>(p: usize, j: i32): v128 {
  if (sizeof<T>() == 8) {
    return v128.load(p + (<usize>j << 3));
  } else {
    return f64x2.promote_low_f32x4(v128.load64_zero(p + (<usize>j << 2)));
  }
}

/** One X element as f64. */
// @ts-ignore: decorator
@inline function _x1<T>(p: usize, j: i32): f64 {
  if (sizeof<T>() == 8) {
    return load<f64>(p + (<usize>j << 3));
  } else {
    return <f64>load<f32>(p + (<usize>j << 2));
  }
}

/** (x_p0ᵀθ, x_p1ᵀθ) — two rows, two accumulators each, shared θ loads. */
// @ts-ignore: decorator
@inline function _dot2<T>(p0: usize, p1: usize, th: usize, d: i32): v128 {
  let a0 = ZERO, a1 = ZERO, b0 = ZERO, b1 = ZERO;
  let j = 0;
  for (; j + 4 <= d; j += 4) {
    const t0 = v128.load(th + (<usize>j << 3));
    const t1 = v128.load(th + (<usize>j << 3), 16);
    a0 = madd(_x2<T>(p0, j), t0, a0);
    b0 = madd(_x2<T>(p1, j), t0, b0);
    a1 = madd(_x2<T>(p0, j + 2), t1, a1);
    b1 = madd(_x2<T>(p1, j + 2), t1, b1);
  }
  if (j + 2 <= d) {
    const t0 = v128.load(th + (<usize>j << 3));
    a0 = madd(_x2<T>(p0, j), t0, a0);
    b0 = madd(_x2<T>(p1, j), t0, b0);
    j += 2;
  }
  a0 = f64x2.add(a0, a1);
  b0 = f64x2.add(b0, b1);
  let eta = f64x2.add(f64x2.shuffle(a0, b0, 0, 2), f64x2.shuffle(a0, b0, 1, 3));
  if (j < d) {
    const xv = f64x2.replace_lane(f64x2.splat(_x1<T>(p0, j)), 1, _x1<T>(p1, j));
    eta = madd(xv, f64x2.splat(load<f64>(th + (<usize>j << 3))), eta);
  }
  return eta;
}

/** x_pᵀθ for one row. */
// @ts-ignore: decorator
@inline function _dot1<T>(p: usize, th: usize, d: i32): f64 {
  let a0 = ZERO, a1 = ZERO;
  let j = 0;
  for (; j + 4 <= d; j += 4) {
    a0 = madd(_x2<T>(p, j), v128.load(th + (<usize>j << 3)), a0);
    a1 = madd(_x2<T>(p, j + 2), v128.load(th + (<usize>j << 3), 16), a1);
  }
  if (j + 2 <= d) {
    a0 = madd(_x2<T>(p, j), v128.load(th + (<usize>j << 3)), a0);
    j += 2;
  }
  a0 = f64x2.add(a0, a1);
  let s = f64x2.extract_lane(a0, 0) + f64x2.extract_lane(a0, 1);
  if (j < d) s = smadd(_x1<T>(p, j), load<f64>(th + (<usize>j << 3)), s);
  return s;
}

/** g += w₀·x_p0 + w₁·x_p1 (one pass over g). */
// @ts-ignore: decorator
@inline function _axpy2<T>(g: usize, p0: usize, p1: usize, w: v128, d: i32): void {
  const w0 = f64x2.splat(f64x2.extract_lane(w, 0));
  const w1 = f64x2.splat(f64x2.extract_lane(w, 1));
  let j = 0;
  for (; j + 4 <= d; j += 4) {
    const q = g + (<usize>j << 3);
    const g0 = madd(_x2<T>(p1, j), w1, madd(_x2<T>(p0, j), w0, v128.load(q)));
    const g1 = madd(_x2<T>(p1, j + 2), w1, madd(_x2<T>(p0, j + 2), w0, v128.load(q, 16)));
    v128.store(q, g0);
    v128.store(q, g1, 16);
  }
  if (j + 2 <= d) {
    const q = g + (<usize>j << 3);
    v128.store(q, madd(_x2<T>(p1, j), w1, madd(_x2<T>(p0, j), w0, v128.load(q))));
    j += 2;
  }
  if (j < d) {
    const q = g + (<usize>j << 3);
    const s = smadd(_x1<T>(p0, j), f64x2.extract_lane(w, 0), load<f64>(q));
    store<f64>(q, smadd(_x1<T>(p1, j), f64x2.extract_lane(w, 1), s));
  }
}

/** g += w₀x_p0 + w₁x_p1 + w₂x_p2 + w₃x_p3 (wA = (w₀, w₁), wB = (w₂, w₃)), one pass. */
// @ts-ignore: decorator
@inline function _axpy4<T>(
  g: usize,
  p0: usize,
  p1: usize,
  p2: usize,
  p3: usize,
  wA: v128,
  wB: v128,
  d: i32,
): void {
  const w0 = f64x2.splat(f64x2.extract_lane(wA, 0));
  const w1 = f64x2.splat(f64x2.extract_lane(wA, 1));
  const w2 = f64x2.splat(f64x2.extract_lane(wB, 0));
  const w3 = f64x2.splat(f64x2.extract_lane(wB, 1));
  let j = 0;
  for (; j + 2 <= d; j += 2) {
    const q = g + (<usize>j << 3);
    let acc = madd(_x2<T>(p0, j), w0, v128.load(q));
    acc = madd(_x2<T>(p1, j), w1, acc);
    acc = madd(_x2<T>(p2, j), w2, acc);
    v128.store(q, madd(_x2<T>(p3, j), w3, acc));
  }
  if (j < d) {
    const q = g + (<usize>j << 3);
    let s = smadd(_x1<T>(p0, j), f64x2.extract_lane(wA, 0), load<f64>(q));
    s = smadd(_x1<T>(p1, j), f64x2.extract_lane(wA, 1), s);
    s = smadd(_x1<T>(p2, j), f64x2.extract_lane(wB, 0), s);
    store<f64>(q, smadd(_x1<T>(p3, j), f64x2.extract_lane(wB, 1), s));
  }
}

/** g += w·x_p for one row. */
// @ts-ignore: decorator
@inline function _axpy1<T>(g: usize, p: usize, w: f64, d: i32): void {
  const wv = f64x2.splat(w);
  let j = 0;
  for (; j + 2 <= d; j += 2) {
    const q = g + (<usize>j << 3);
    v128.store(q, madd(_x2<T>(p, j), wv, v128.load(q)));
  }
  if (j < d) {
    const q = g + (<usize>j << 3);
    store<f64>(q, smadd(_x1<T>(p, j), w, load<f64>(q)));
  }
}

/** g += (w₀x_p0)⊙(w₀x_p0) + (w₁x_p1)⊙(w₁x_p1). */
// @ts-ignore: decorator
@inline function _sq2(g: usize, p0: usize, p1: usize, w: v128, d: i32): void {
  const w0 = f64x2.splat(f64x2.extract_lane(w, 0));
  const w1 = f64x2.splat(f64x2.extract_lane(w, 1));
  let j = 0;
  for (; j + 2 <= d; j += 2) {
    const q = g + (<usize>j << 3);
    const u0 = f64x2.mul(_x2<f64>(p0, j), w0);
    const u1 = f64x2.mul(_x2<f64>(p1, j), w1);
    v128.store(q, madd(u1, u1, madd(u0, u0, v128.load(q))));
  }
  if (j < d) {
    const q = g + (<usize>j << 3);
    const u0 = load<f64>(p0 + (<usize>j << 3)) * f64x2.extract_lane(w, 0);
    const u1 = load<f64>(p1 + (<usize>j << 3)) * f64x2.extract_lane(w, 1);
    store<f64>(q, smadd(u1, u1, smadd(u0, u0, load<f64>(q))));
  }
}

/**
 * Upper part of h += w₀x_p0x_p0ᵀ + w₁x_p1x_p1ᵀ: row j from column (j & ~1).
 * The rest is mirrored by _mirrorPre/_mirrorPost. Pass p1 = p0, w₁ = 0 for
 * one row.
 */
// @ts-ignore: decorator
@inline function _outer2<T>(h: usize, p0: usize, p1: usize, w: v128, d: i32): void {
  const w0 = f64x2.extract_lane(w, 0);
  const w1 = f64x2.extract_lane(w, 1);
  for (let j = 0; j < d; j++) {
    const a0 = f64x2.splat(w0 * _x1<T>(p0, j));
    const a1 = f64x2.splat(w1 * _x1<T>(p1, j));
    const hr = h + (<usize>j * <usize>d << 3);
    let k = j & ~1;
    for (; k + 2 <= d; k += 2) {
      const q = hr + (<usize>k << 3);
      v128.store(q, madd(_x2<T>(p1, k), a1, madd(_x2<T>(p0, k), a0, v128.load(q))));
    }
    if (k < d) {
      const q = hr + (<usize>k << 3);
      const s = smadd(_x1<T>(p0, k), f64x2.extract_lane(a0, 0), load<f64>(q));
      store<f64>(q, smadd(_x1<T>(p1, k), f64x2.extract_lane(a1, 0), s));
    }
  }
}

/** _outer2 for four rows: each loaded h pair takes four multiply-adds. */
// @ts-ignore: decorator
@inline function _outer4<T>(
  h: usize,
  p0: usize,
  p1: usize,
  p2: usize,
  p3: usize,
  wA: v128,
  wB: v128,
  d: i32,
): void {
  const w0 = f64x2.extract_lane(wA, 0);
  const w1 = f64x2.extract_lane(wA, 1);
  const w2 = f64x2.extract_lane(wB, 0);
  const w3 = f64x2.extract_lane(wB, 1);
  for (let j = 0; j < d; j++) {
    const a0 = f64x2.splat(w0 * _x1<T>(p0, j));
    const a1 = f64x2.splat(w1 * _x1<T>(p1, j));
    const a2 = f64x2.splat(w2 * _x1<T>(p2, j));
    const a3 = f64x2.splat(w3 * _x1<T>(p3, j));
    const hr = h + (<usize>j * <usize>d << 3);
    let k = j & ~1;
    for (; k + 2 <= d; k += 2) {
      const q = hr + (<usize>k << 3);
      let acc = madd(_x2<T>(p0, k), a0, v128.load(q));
      acc = madd(_x2<T>(p1, k), a1, acc);
      acc = madd(_x2<T>(p2, k), a2, acc);
      v128.store(q, madd(_x2<T>(p3, k), a3, acc));
    }
    if (k < d) {
      const q = hr + (<usize>k << 3);
      let acc = smadd(_x1<T>(p0, k), f64x2.extract_lane(a0, 0), load<f64>(q));
      acc = smadd(_x1<T>(p1, k), f64x2.extract_lane(a1, 0), acc);
      acc = smadd(_x1<T>(p2, k), f64x2.extract_lane(a2, 0), acc);
      store<f64>(q, smadd(_x1<T>(p3, k), f64x2.extract_lane(a3, 0), acc));
    }
  }
}

/** Before an _outer2 pass: h[j,k] −= h[k,j] for k < (j & ~1). */
function _mirrorPre(h: usize, d: i32): void {
  for (let j = 2; j < d; j++) {
    const kEnd = j & ~1;
    for (let k = 0; k < kEnd; k++) {
      const q = h + ((<usize>j * <usize>d + <usize>k) << 3);
      store<f64>(q, load<f64>(q) - load<f64>(h + ((<usize>k * <usize>d + <usize>j) << 3)));
    }
  }
}

/** After an _outer2 pass: h[j,k] += h[k,j] for k < (j & ~1), completing the accumulation. */
function _mirrorPost(h: usize, d: i32): void {
  for (let j = 2; j < d; j++) {
    const kEnd = j & ~1;
    for (let k = 0; k < kEnd; k++) {
      const q = h + ((<usize>j * <usize>d + <usize>k) << 3);
      store<f64>(q, load<f64>(q) + load<f64>(h + ((<usize>k * <usize>d + <usize>j) << 3)));
    }
  }
}

/** Row index of list position k: idx[k] if a list is given, else start + k. */
// @ts-ignore: decorator
@inline function _row(idx: usize, start: i32, k: i32): i32 {
  return idx != 0 ? load<i32>(idx + (<usize>k << 2)) : start + k;
}

// ─── fused likelihood + gradient ────────────────────────────────────────────

function _ll<F, T>(
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
    const r0 = _row(idx, start, k);
    const r1 = _row(idx, start, k + 1);
    const r2 = _row(idx, start, k + 2);
    const r3 = _row(idx, start, k + 3);
    const p0 = x + <usize>r0 * rowBytes;
    const p1 = x + <usize>r1 * rowBytes;
    const p2 = x + <usize>r2 * rowBytes;
    const p3 = x + <usize>r3 * rowBytes;
    const etaA = _dot2<T>(p0, p1, theta, d);
    const etaB = _dot2<T>(p2, p3, theta, d);
    const yA = f64x2.replace_lane(
      f64x2.splat(load<f64>(y + (<usize>r0 << 3))),
      1,
      load<f64>(y + (<usize>r1 << 3)),
    );
    const yB = f64x2.replace_lane(
      f64x2.splat(load<f64>(y + (<usize>r2 << 3))),
      1,
      load<f64>(y + (<usize>r3 << 3)),
    );
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
    const r0 = _row(idx, start, k);
    const r1 = _row(idx, start, k + 1);
    const p0 = x + <usize>r0 * rowBytes;
    const p1 = x + <usize>r1 * rowBytes;
    const eta = _dot2<T>(p0, p1, theta, d);
    const yv = f64x2.replace_lane(
      f64x2.splat(load<f64>(y + (<usize>r0 << 3))),
      1,
      load<f64>(y + (<usize>r1 << 3)),
    );
    const l = _fam<F>(eta, yv);
    sum = f64x2.add(sum, l);
    if (grad != 0) _axpy2<T>(grad, p0, p1, _d1, d);
    const o = <usize>k << 3;
    if (llOut != 0) v128.store(llOut + o, l);
    if (dOut != 0) v128.store(dOut + o, _d1);
    if (d2Out != 0) v128.store(d2Out + o, _d2);
  }
  let total = f64x2.extract_lane(sum, 0) + f64x2.extract_lane(sum, 1);
  if (k < m) {
    const r0 = _row(idx, start, k);
    const p0 = x + <usize>r0 * rowBytes;
    const eta = f64x2.splat(_dot1<T>(p0, theta, d));
    const l = f64x2.extract_lane(_fam<F>(eta, f64x2.splat(load<f64>(y + (<usize>r0 << 3)))), 0);
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
  if (family == 0) {
    return _ll<Logistic, T>(x, y, d, start, idx, m, theta, grad, llOut, dOut, d2Out);
  }
  if (family == 1) {
    return _ll<Gaussian, T>(x, y, d, start, idx, m, theta, grad, llOut, dOut, d2Out);
  }
  return _ll<Poisson, T>(x, y, d, start, idx, m, theta, grad, llOut, dOut, d2Out);
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

// ─── control variates ───────────────────────────────────────────────────────

function _cvPrepare<F>(
  x: usize,
  y: usize,
  d: i32,
  start: i32,
  end: i32,
  theta: usize,
  cv: usize,
): void {
  const rowBytes = <usize>d << 3;
  let i = start;
  for (; i + 2 <= end; i += 2) {
    const p0 = x + <usize>i * rowBytes;
    const eta = _dot2<f64>(p0, p0 + rowBytes, theta, d);
    const l = _fam<F>(eta, v128.load(y + (<usize>i << 3)));
    const c = cv + (<usize>(i - start) << 5);
    v128.store(c, f64x2.shuffle(eta, l, 0, 2));
    v128.store(c, f64x2.shuffle(_d1, _d2, 0, 2), 16);
    v128.store(c, f64x2.shuffle(eta, l, 1, 3), 32);
    v128.store(c, f64x2.shuffle(_d1, _d2, 1, 3), 48);
  }
  if (i < end) {
    const eta = f64x2.splat(_dot1<f64>(x + <usize>i * rowBytes, theta, d));
    const l = _fam<F>(eta, f64x2.splat(load<f64>(y + (<usize>i << 3))));
    const c = cv + (<usize>(i - start) << 5);
    v128.store(c, f64x2.shuffle(eta, l, 0, 2));
    v128.store(c, f64x2.shuffle(_d1, _d2, 0, 2), 16);
  }
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
  if (!_setup(family, famParam)) return;
  if (family == 0) _cvPrepare<Logistic>(x, y, d, start, end, thetaStar, cv);
  else if (family == 1) _cvPrepare<Gaussian>(x, y, d, start, end, thetaStar, cv);
  else _cvPrepare<Poisson>(x, y, d, start, end, thetaStar, cv);
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

function _cvDiff<F>(
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

// ─── weighted sums and gradient moments ─────────────────────────────────────

/** out += Σ w[i−start]·xᵢ over rows [start, end). */
export function xtwRange(x: usize, d: i32, start: i32, end: i32, w: usize, out: usize): void {
  const rowBytes = <usize>d << 3;
  let i = start;
  for (; i + 2 <= end; i += 2) {
    const p0 = x + <usize>i * rowBytes;
    _axpy2<f64>(out, p0, p0 + rowBytes, v128.load(w + (<usize>(i - start) << 3)), d);
  }
  if (i < end) {
    _axpy1<f64>(out, x + <usize>i * rowBytes, load<f64>(w + (<usize>(i - start) << 3)), d);
  }
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

// ─── gathers and vector kernels ─────────────────────────────────────────────

/** dst row k = src row idx[k], rows of `stride` f64. */
export function gatherF64(src: usize, stride: i32, idx: usize, m: i32, dst: usize): void {
  const rowBytes = <usize>stride << 3;
  for (let k = 0; k < m; k++) {
    const i = load<i32>(idx + (<usize>k << 2));
    memory.copy(dst + <usize>k * rowBytes, src + <usize>i * rowBytes, rowBytes);
  }
}

/** dst row k = src row idx[k], rows of `stride` f32. */
export function gatherF32(src: usize, stride: i32, idx: usize, m: i32, dst: usize): void {
  const rowBytes = <usize>stride << 2;
  for (let k = 0; k < m; k++) {
    const i = load<i32>(idx + (<usize>k << 2));
    memory.copy(dst + <usize>k * rowBytes, src + <usize>i * rowBytes, rowBytes);
  }
}

/** y += a·x over n f64. */
export function axpy(n: i32, a: f64, x: usize, y: usize): void {
  _axpy1<f64>(y, x, a, n);
}

/** Σ xᵢyᵢ over n f64. */
export function dot(n: i32, x: usize, y: usize): f64 {
  return _dot1<f64>(x, y, n);
}

/** y = A·x, A r × c row-major (two rows per step). */
export function matvec(r: i32, c: i32, a: usize, x: usize, y: usize): void {
  const rowBytes = <usize>c << 3;
  let i = 0;
  for (; i + 2 <= r; i += 2) {
    const p0 = a + <usize>i * rowBytes;
    v128.store(y + (<usize>i << 3), _dot2<f64>(p0, p0 + rowBytes, x, c));
  }
  if (i < r) store<f64>(y + (<usize>i << 3), _dot1<f64>(a + <usize>i * rowBytes, x, c));
}

/** y = v⊙x over n f64. */
export function mulElem(n: i32, v: usize, x: usize, y: usize): void {
  let j = 0;
  for (; j + 2 <= n; j += 2) {
    const o = <usize>j << 3;
    v128.store(y + o, f64x2.mul(v128.load(v + o), v128.load(x + o)));
  }
  if (j < n) {
    const o = <usize>j << 3;
    store<f64>(y + o, load<f64>(v + o) * load<f64>(x + o));
  }
}
