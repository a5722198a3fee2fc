// AssemblyScript: row primitives — dot products, axpy, outer products over X rows
// (part of the tallmc core; entry file kernels.ts).
//
//   p ──► one row of X: d entries, f64 (T = f64, 8 B) or f32 (T = f32, 4 B,
//         promoted to f64 on load); rows are unaligned for odd d
//   θ, g ─► d f64;  h ─► d × d f64 row-major
//
// Every primitive is @inline and generic in the storage type T, so one source
// serves the f64 and f32 kernels with the same operation order (an f32 row
// promoted on load gives bit-for-bit the result of the same row widened first).

import { madd, smadd, ZERO } from "./vmath";

// ─── row primitives ─────────────────────────────────────────────────────────

/** Two f64 lanes from X at element j of the row at p (f32 rows are promoted). */
// @ts-ignore: decorator
@inline export function _x2<T>(p: usize, j: i32): v128 {
  if (sizeof<T>() == 8) {
    return v128.load(p + (<usize>j << 3));
  } else {
    return f64x2.promote_low_f32x4(v128.load64_zero(p + (<usize>j << 2)));
  }
}

/** One X element as f64. */
// @ts-ignore: decorator
@inline export function _x1<T>(p: usize, j: i32): f64 {
  if (sizeof<T>() == 8) {
    return load<f64>(p + (<usize>j << 3));
  } else {
    return <f64>load<f32>(p + (<usize>j << 2));
  }
}

/** (x_p0ᵀθ, x_p1ᵀθ) — two rows, two accumulators each, shared θ loads. */
// @ts-ignore: decorator
@inline export function _dot2<T>(p0: usize, p1: usize, th: usize, d: i32): v128 {
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

/** Second output of {@link _dot4}: (x_p2ᵀθ, x_p3ᵀθ). */
export let _etaB: v128 = ZERO;

/**
 * (x_p0ᵀθ, x_p1ᵀθ), and (x_p2ᵀθ, x_p3ᵀθ) in _etaB: four rows sharing each θ
 * load; every row keeps exactly _dot2's accumulators and order.
 */
// @ts-ignore: decorator
@inline export function _dot4<T>(
  p0: usize,
  p1: usize,
  p2: usize,
  p3: usize,
  th: usize,
  d: i32,
): v128 {
  let a0 = ZERO, a1 = ZERO, b0 = ZERO, b1 = ZERO;
  let c0 = ZERO, c1 = ZERO, e0 = ZERO, e1 = ZERO;
  let j = 0;
  for (; j + 4 <= d; j += 4) {
    const t0 = v128.load(th + (<usize>j << 3));
    const t1 = v128.load(th + (<usize>j << 3), 16);
    a0 = madd(_x2<T>(p0, j), t0, a0);
    b0 = madd(_x2<T>(p1, j), t0, b0);
    c0 = madd(_x2<T>(p2, j), t0, c0);
    e0 = madd(_x2<T>(p3, j), t0, e0);
    a1 = madd(_x2<T>(p0, j + 2), t1, a1);
    b1 = madd(_x2<T>(p1, j + 2), t1, b1);
    c1 = madd(_x2<T>(p2, j + 2), t1, c1);
    e1 = madd(_x2<T>(p3, j + 2), t1, e1);
  }
  if (j + 2 <= d) {
    const t0 = v128.load(th + (<usize>j << 3));
    a0 = madd(_x2<T>(p0, j), t0, a0);
    b0 = madd(_x2<T>(p1, j), t0, b0);
    c0 = madd(_x2<T>(p2, j), t0, c0);
    e0 = madd(_x2<T>(p3, j), t0, e0);
    j += 2;
  }
  a0 = f64x2.add(a0, a1);
  b0 = f64x2.add(b0, b1);
  c0 = f64x2.add(c0, c1);
  e0 = f64x2.add(e0, e1);
  let etaA = f64x2.add(f64x2.shuffle(a0, b0, 0, 2), f64x2.shuffle(a0, b0, 1, 3));
  let etaB = f64x2.add(f64x2.shuffle(c0, e0, 0, 2), f64x2.shuffle(c0, e0, 1, 3));
  if (j < d) {
    const tj = f64x2.splat(load<f64>(th + (<usize>j << 3)));
    etaA = madd(f64x2.replace_lane(f64x2.splat(_x1<T>(p0, j)), 1, _x1<T>(p1, j)), tj, etaA);
    etaB = madd(f64x2.replace_lane(f64x2.splat(_x1<T>(p2, j)), 1, _x1<T>(p3, j)), tj, etaB);
  }
  _etaB = etaB;
  return etaA;
}

/** x_pᵀθ for one row. */
// @ts-ignore: decorator
@inline export function _dot1<T>(p: usize, th: usize, d: i32): f64 {
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
@inline export function _axpy2<T>(g: usize, p0: usize, p1: usize, w: v128, d: i32): void {
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
@inline export function _axpy4<T>(
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
  // Two column pairs per step: two independent chains of four multiply-adds
  // (each g pair still takes rows 0, 1, 2, 3 in that order).
  for (; j + 4 <= d; j += 4) {
    const q = g + (<usize>j << 3);
    let a = madd(_x2<T>(p0, j), w0, v128.load(q));
    let b = madd(_x2<T>(p0, j + 2), w0, v128.load(q, 16));
    a = madd(_x2<T>(p1, j), w1, a);
    b = madd(_x2<T>(p1, j + 2), w1, b);
    a = madd(_x2<T>(p2, j), w2, a);
    b = madd(_x2<T>(p2, j + 2), w2, b);
    v128.store(q, madd(_x2<T>(p3, j), w3, a));
    v128.store(q, madd(_x2<T>(p3, j + 2), w3, b), 16);
  }
  if (j + 2 <= d) {
    const q = g + (<usize>j << 3);
    let acc = madd(_x2<T>(p0, j), w0, v128.load(q));
    acc = madd(_x2<T>(p1, j), w1, acc);
    acc = madd(_x2<T>(p2, j), w2, acc);
    v128.store(q, madd(_x2<T>(p3, j), w3, acc));
    j += 2;
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
@inline export function _axpy1<T>(g: usize, p: usize, w: f64, d: i32): void {
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
@inline export function _sq2(g: usize, p0: usize, p1: usize, w: v128, d: i32): void {
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
@inline export function _outer2<T>(h: usize, p0: usize, p1: usize, w: v128, d: i32): void {
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

/**
 * _outer2 for four rows: each loaded h pair takes four multiply-adds, and
 * rows j, j + 1 of h (j even; both start at column j) share each load of
 * the four rows' columns k, k + 1. Every h entry gets the same multiply-adds
 * in the same order as one row of h at a time.
 */
// @ts-ignore: decorator
@inline export function _outer4<T>(
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
  const rowBytes = <usize>d << 3;
  let j = 0;
  for (; j + 2 <= d; j += 2) {
    const a0 = f64x2.splat(w0 * _x1<T>(p0, j));
    const a1 = f64x2.splat(w1 * _x1<T>(p1, j));
    const a2 = f64x2.splat(w2 * _x1<T>(p2, j));
    const a3 = f64x2.splat(w3 * _x1<T>(p3, j));
    const b0 = f64x2.splat(w0 * _x1<T>(p0, j + 1));
    const b1 = f64x2.splat(w1 * _x1<T>(p1, j + 1));
    const b2 = f64x2.splat(w2 * _x1<T>(p2, j + 1));
    const b3 = f64x2.splat(w3 * _x1<T>(p3, j + 1));
    const hr = h + <usize>j * rowBytes;
    let k = j;
    for (; k + 2 <= d; k += 2) {
      const q = hr + (<usize>k << 3);
      const x0 = _x2<T>(p0, k), x1 = _x2<T>(p1, k), x2 = _x2<T>(p2, k), x3 = _x2<T>(p3, k);
      let acc = madd(x0, a0, v128.load(q));
      acc = madd(x1, a1, acc);
      acc = madd(x2, a2, acc);
      v128.store(q, madd(x3, a3, acc));
      const r = q + rowBytes;
      let bcc = madd(x0, b0, v128.load(r));
      bcc = madd(x1, b1, bcc);
      bcc = madd(x2, b2, bcc);
      v128.store(r, madd(x3, b3, bcc));
    }
    if (k < d) {
      const q = hr + (<usize>k << 3);
      const x0 = _x1<T>(p0, k), x1 = _x1<T>(p1, k), x2 = _x1<T>(p2, k), x3 = _x1<T>(p3, k);
      let acc = smadd(x0, f64x2.extract_lane(a0, 0), load<f64>(q));
      acc = smadd(x1, f64x2.extract_lane(a1, 0), acc);
      acc = smadd(x2, f64x2.extract_lane(a2, 0), acc);
      store<f64>(q, smadd(x3, f64x2.extract_lane(a3, 0), acc));
      const r = q + rowBytes;
      let bcc = smadd(x0, f64x2.extract_lane(b0, 0), load<f64>(r));
      bcc = smadd(x1, f64x2.extract_lane(b1, 0), bcc);
      bcc = smadd(x2, f64x2.extract_lane(b2, 0), bcc);
      store<f64>(r, smadd(x3, f64x2.extract_lane(b3, 0), bcc));
    }
  }
  if (j < d) {
    // The last row of h when d is odd: from column j − 1 (= j & ~1) on.
    const a0 = f64x2.splat(w0 * _x1<T>(p0, j));
    const a1 = f64x2.splat(w1 * _x1<T>(p1, j));
    const a2 = f64x2.splat(w2 * _x1<T>(p2, j));
    const a3 = f64x2.splat(w3 * _x1<T>(p3, j));
    const hr = h + <usize>j * rowBytes;
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
export function _mirrorPre(h: usize, d: i32): void {
  for (let j = 2; j < d; j++) {
    const kEnd = j & ~1;
    for (let k = 0; k < kEnd; k++) {
      const q = h + ((<usize>j * <usize>d + <usize>k) << 3);
      store<f64>(q, load<f64>(q) - load<f64>(h + ((<usize>k * <usize>d + <usize>j) << 3)));
    }
  }
}

/** After an _outer2 pass: h[j,k] += h[k,j] for k < (j & ~1), completing the accumulation. */
export function _mirrorPost(h: usize, d: i32): void {
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
@inline export function _row(idx: usize, start: i32, k: i32): i32 {
  return idx != 0 ? load<i32>(idx + (<usize>k << 2)) : start + k;
}
