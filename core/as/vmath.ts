// AssemblyScript: f64x2 elementary functions for the tallmc core.
//
// Layout: constants live in one static table (read only, below __heap_base):
//
//   K ──► ┌ f64 │ f64 │ … ┐  one f64 per constant, loaded with
//         └─────┴─────┴───┘  v128.load64_splat (1 instruction), which is far
//                            cheaper in V8 than materialising a v128.const.
//
//   v128 = ┌ lane 0: f64 (row i) ┬ lane 1: f64 (row i+1) ┐
//          └──────────────────────┴───────────────────────┘
//
// Two rows are evaluated in one vector. `madd` is the multiply-add: fused
// (f64x2.relaxed_madd) when the build enables relaxed-simd, mul + add
// otherwise; the switch is the compile-time constant ASC_FEATURE_RELAXED_SIMD.
// Accuracy: vexp, vlog ≈ 1 ulp; vlog1p ≈ 2 ulp; vlgamma ≈ 1e-15 relative
// (same Lanczos formula as core/reference.ts).

// Constant table: name → index. Values below, in the same order.
// @ts-ignore: decorator
@inline export const C_ONE = 0;
// @ts-ignore: decorator
@inline export const C_HALF = 1;
// @ts-ignore: decorator
@inline const C_TWO = 2;
// @ts-ignore: decorator
@inline const C_LOG2E = 3;
// @ts-ignore: decorator
@inline const C_NEG_LN2_HI = 4;
// @ts-ignore: decorator
@inline const C_NEG_LN2_LO = 5;
// @ts-ignore: decorator
@inline const C_LN2_HI = 6;
// @ts-ignore: decorator
@inline const C_LN2_LO = 7;
// @ts-ignore: decorator
@inline const C_MAGIC = 8;
// @ts-ignore: decorator
@inline const C_EXP_LO = 9;
// @ts-ignore: decorator
@inline const C_EXP_HI = 10;
// @ts-ignore: decorator
@inline const C_E2 = 11; // 1/2! … 1/13! at 11 … 22
// @ts-ignore: decorator
@inline const C_LG1 = 23; // Lg1 … Lg7 at 23 … 29
// @ts-ignore: decorator
@inline const C_HALF_LOG_2PI = 30;
// @ts-ignore: decorator
@inline const C_LANCZOS = 31; // c0 … c8 at 31 … 39
// @ts-ignore: decorator
@inline const C_SEVEN_HALF = 40;
// @ts-ignore: decorator
@inline const C_THREE = 41;
// @ts-ignore: decorator
@inline const C_FOUR = 42;
// @ts-ignore: decorator
@inline const C_FIVE = 43;
// @ts-ignore: decorator
@inline const C_SIX = 44;
// @ts-ignore: decorator
@inline const C_SEVEN = 45;
// @ts-ignore: decorator
@inline const C_EIGHT = 46;
// @ts-ignore: decorator
@inline export const C_LOG_2PI = 47;
// @ts-ignore: decorator
@inline const C_SQRT2 = 48;

const K: usize = memory.data<f64>([
  1.0,
  0.5,
  2.0,
  1.4426950408889634, // log2 e
  -6.93147180369123816490e-01, // −ln2_hi (fdlibm; trailing 32 bits zero)
  -1.90821492927058770002e-10, // −ln2_lo
  6.93147180369123816490e-01,
  1.90821492927058770002e-10,
  6755399441055744.0, // 1.5·2^52: adding it rounds to an integer in the low bits
  -746.0,
  710.0,
  0.5, // 1/2!
  0.16666666666666666,
  4.1666666666666664e-2,
  8.333333333333333e-3,
  1.3888888888888889e-3,
  1.984126984126984e-4,
  2.48015873015873e-5,
  2.755731922398589e-6,
  2.755731922398589e-7,
  2.505210838544172e-8,
  2.08767569878681e-9,
  1.6059043836821613e-10, // 1/13!
  6.666666666666735130e-01, // Lg1 (fdlibm log, |error| < 2^-58.45)
  3.999999999940941908e-01,
  2.857142874366239149e-01,
  2.222219843214978396e-01,
  1.818357216161805012e-01,
  1.531383769920937332e-01,
  1.479819860511658591e-01, // Lg7
  0.9189385332046728, // ½log 2π
  0.99999999999980993, // Lanczos g = 7, n = 9 (as core/reference.ts)
  676.5203681218851,
  -1259.1392167224028,
  771.32342877765313,
  -176.61502916214059,
  12.507343278686905,
  -0.13857109526572012,
  9.9843695780195716e-6,
  1.5056327351493116e-7,
  7.5,
  3.0,
  4.0,
  5.0,
  6.0,
  7.0,
  8.0,
  1.8378770664093453, // log 2π
  1.4142135623730951, // √2
], 16);

/** Constant `i` of the table on both lanes. */
// @ts-ignore: decorator
@inline export function kc(i: i32): v128 {
  return v128.load64_splat(K + (<usize>i << 3));
}

/** Scalar constant `i` of the table. */
// @ts-ignore: decorator
@inline export function ks(i: i32): f64 {
  return load<f64>(K + (<usize>i << 3));
}

export const ZERO: v128 = f64x2(0.0, 0.0);

/** a·b + c on both lanes (FMA in the relaxed build). */
// @ts-ignore: decorator
@inline export function madd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) {
    return f64x2.relaxed_madd(a, b, c);
  } else {
    return f64x2.add(f64x2.mul(a, b), c);
  }
}

/** a·b + c on scalars (FMA-free in both builds, matching the reference). */
// @ts-ignore: decorator
@inline export function smadd(a: f64, b: f64, c: f64): f64 {
  return a * b + c;
}

// Bit patterns (integer v128 consts, used once per call).
const MAGIC_BITS: v128 = i64x2(0x4338000000000000, 0x4338000000000000);

/**
 * e^x on both lanes. Inputs are clamped to [−746, 710] (e^x is 0 below, +∞
 * above, as for scalar exp); NaN stays NaN. 2^k is applied in two halves so
 * results in the subnormal range round gradually.
 */
// @ts-ignore: decorator
@inline export function vexp(x: v128): v128 {
  // pmax/pmin are single instructions (maxpd/minpd) and keep NaN (first operand)
  x = f64x2.pmin(f64x2.pmax(x, kc(C_EXP_LO)), kc(C_EXP_HI));
  const kf = f64x2.nearest(f64x2.mul(x, kc(C_LOG2E)));
  // r = x − k·ln2 (k·ln2_hi is exact), |r| ≤ 0.347
  const r = madd(kf, kc(C_NEG_LN2_LO), madd(kf, kc(C_NEG_LN2_HI), x));
  // Taylor polynomial of degree 13 (truncation < 5e-18 relative), Estrin's
  // scheme: four levels of multiply-adds instead of a 13-long Horner chain.
  const r2 = f64x2.mul(r, r);
  const r4 = f64x2.mul(r2, r2);
  const r8 = f64x2.mul(r4, r4);
  const one = kc(C_ONE);
  const q0 = madd(r, one, one);
  const q1 = madd(r, kc(C_E2 + 1), kc(C_E2));
  const q2 = madd(r, kc(C_E2 + 3), kc(C_E2 + 2));
  const q3 = madd(r, kc(C_E2 + 5), kc(C_E2 + 4));
  const q4 = madd(r, kc(C_E2 + 7), kc(C_E2 + 6));
  const q5 = madd(r, kc(C_E2 + 9), kc(C_E2 + 8));
  const q6 = madd(r, kc(C_E2 + 11), kc(C_E2 + 10));
  const s0 = madd(q1, r2, q0);
  const s1 = madd(q3, r2, q2);
  const s2 = madd(q5, r2, q4);
  const t0 = madd(s1, r4, s0);
  const t1 = madd(q6, r4, s2);
  const p = madd(t1, r8, t0);
  // 2^k as two factors 2^k1·2^k2 (k1 = ⌊k/2⌋, exact in f64) so that each is a
  // normal number; integer bits via the MAGIC shift (no i64 shr_s: slow on x64)
  const magic = kc(C_MAGIC);
  const k1f = f64x2.floor(f64x2.mul(kf, kc(C_HALF)));
  // bits(2^k) = (k + 1023) << 52 with k = bits(k + MAGIC) − bits(MAGIC); mod
  // 2^64 that is (bits(k + MAGIC) << 52) + (1023 << 52) (the low 12 bits of
  // bits(MAGIC) are zero) = (bits(k + MAGIC) << 52) + bits(1.0): the same
  // integers with two operations and two v128 constants fewer.
  const scale1 = i64x2.add(i64x2.shl(f64x2.add(k1f, magic), 52), one);
  const scale2 = i64x2.add(i64x2.shl(f64x2.add(f64x2.sub(kf, k1f), magic), 52), one);
  return f64x2.mul(f64x2.mul(p, scale1), scale2);
}

/**
 * log x on both lanes for positive, finite, normal x (the kernels only call it
 * with x ≥ 1). The fdlibm/musl algorithm: x = 2^k·m, m ∈ [√½, √2).
 */
// @ts-ignore: decorator
@inline export function vlog(x: v128): v128 {
  // shift so that the exponent split puts m in [√½, √2)
  const ix = i64x2.add(x, i64x2(0x0009_5F62_0000_0000, 0x0009_5F62_0000_0000));
  const k = i64x2.sub(i64x2.shr_u(ix, 52), i64x2(0x3FF, 0x3FF)); // x > 0: logical shift
  const m = i64x2.add(
    v128.and(ix, i64x2(0x000F_FFFF_FFFF_FFFF, 0x000F_FFFF_FFFF_FFFF)),
    i64x2(0x3FE6_A09E_0000_0000, 0x3FE6_A09E_0000_0000),
  );
  const f = f64x2.sub(m, kc(C_ONE));
  const magic = kc(C_MAGIC);
  const dk = f64x2.sub(i64x2.add(k, MAGIC_BITS), magic); // k → f64
  return _vlogTail(f, dk);
}

/**
 * log u on both lanes for u ∈ [1, 2] (1 + e^{−|η|} in the logistic family):
 * the exponent split of vlog reduces to one comparison, k ∈ {0, 1}.
 */
// @ts-ignore: decorator
@inline export function vlog12(u: v128): v128 {
  const big = f64x2.ge(u, kc(C_SQRT2));
  const m = v128.bitselect(f64x2.mul(u, kc(C_HALF)), u, big); // m ∈ [√½, √2)
  return _vlogTail(f64x2.sub(m, kc(C_ONE)), v128.and(big, kc(C_ONE)));
}

/** log(1 + f) + k·ln 2 for f = m − 1, m ∈ [√½, √2) (fdlibm polynomial). */
// @ts-ignore: decorator
@inline function _vlogTail(f: v128, dk: v128): v128 {
  const hfsq = f64x2.mul(kc(C_HALF), f64x2.mul(f, f));
  const s = f64x2.div(f, f64x2.add(kc(C_TWO), f));
  const z = f64x2.mul(s, s);
  const w = f64x2.mul(z, z);
  const t1 = f64x2.mul(w, madd(w, madd(w, kc(C_LG1 + 5), kc(C_LG1 + 3)), kc(C_LG1 + 1)));
  const t2 = f64x2.mul(
    z,
    madd(w, madd(w, madd(w, kc(C_LG1 + 6), kc(C_LG1 + 4)), kc(C_LG1 + 2)), kc(C_LG1)),
  );
  const R = f64x2.add(t2, t1);
  // s·(hfsq + R) + k·ln2_lo − hfsq + f + k·ln2_hi
  let r = madd(s, f64x2.add(hfsq, R), f64x2.mul(dk, kc(C_LN2_LO)));
  r = f64x2.add(f64x2.sub(r, hfsq), f);
  return madd(dk, kc(C_LN2_HI), r);
}

/**
 * log(1 + e) on both lanes for e ∈ [0, 1], given u = 1 + e (rounded) and
 * p = 1/u: log(u) corrected by the exact rounding error c = e − (u − 1) of u,
 * log1p(e) ≈ log(u) + c/u.
 */
// @ts-ignore: decorator
@inline export function vlog1p(e: v128, u: v128, p: v128): v128 {
  const c = f64x2.sub(e, f64x2.sub(u, kc(C_ONE)));
  return madd(c, p, vlog12(u));
}

/**
 * log Γ(x) on both lanes for x ≥ 1 (log y! = log Γ(y + 1)); Lanczos g = 7,
 * n = 9, exactly as core/reference.ts; exact 0 at x = 1 and 2.
 */
export function vlgamma(x: v128): v128 {
  const one = kc(C_ONE);
  const two = kc(C_TWO);
  const z = f64x2.sub(x, one);
  let a = kc(C_LANCZOS);
  a = f64x2.add(a, f64x2.div(kc(C_LANCZOS + 1), f64x2.add(z, one)));
  a = f64x2.add(a, f64x2.div(kc(C_LANCZOS + 2), f64x2.add(z, two)));
  a = f64x2.add(a, f64x2.div(kc(C_LANCZOS + 3), f64x2.add(z, kc(C_THREE))));
  a = f64x2.add(a, f64x2.div(kc(C_LANCZOS + 4), f64x2.add(z, kc(C_FOUR))));
  a = f64x2.add(a, f64x2.div(kc(C_LANCZOS + 5), f64x2.add(z, kc(C_FIVE))));
  a = f64x2.add(a, f64x2.div(kc(C_LANCZOS + 6), f64x2.add(z, kc(C_SIX))));
  a = f64x2.add(a, f64x2.div(kc(C_LANCZOS + 7), f64x2.add(z, kc(C_SEVEN))));
  a = f64x2.add(a, f64x2.div(kc(C_LANCZOS + 8), f64x2.add(z, kc(C_EIGHT))));
  const t = f64x2.add(z, kc(C_SEVEN_HALF));
  const lt = vlog(t);
  const la = vlog(a);
  // ½log 2π + (z + ½)·log t − t + log a, in the reference's order
  const r = f64x2.add(
    f64x2.sub(madd(f64x2.add(z, kc(C_HALF)), lt, kc(C_HALF_LOG_2PI)), t),
    la,
  );
  const exact = v128.or(f64x2.eq(x, one), f64x2.eq(x, two));
  return v128.andnot(r, exact);
}
