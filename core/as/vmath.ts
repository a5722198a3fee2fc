// AssemblyScript: f64x2 elementary functions for the tallmc core.
//
// Layout: pure register code, touches no memory.
//
//   v128 = ┌ lane 0: f64 (row i) ┬ lane 1: f64 (row i+1) ┐
//          └──────────────────────┴───────────────────────┘
//
// Two rows are evaluated in one vector. `madd` is the multiply-add: fused
// (f64x2.relaxed_madd) when the build enables relaxed-simd, mul + add
// otherwise; the switch is the compile-time constant ASC_FEATURE_RELAXED_SIMD.
// Accuracy: vexp, vlog ≈ 1 ulp; vlog1p ≈ 2 ulp; vlgamma ≈ 1e-15 relative
// (same Lanczos formula as core/reference.ts).

export const ZERO: v128 = f64x2(0.0, 0.0);
export const ONE: v128 = f64x2(1.0, 1.0);
export const HALF: v128 = f64x2(0.5, 0.5);

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

const LOG2E: v128 = f64x2(1.4426950408889634, 1.4426950408889634);
const NEG_LN2_HI: v128 = f64x2(-6.93147180369123816490e-01, -6.93147180369123816490e-01);
const NEG_LN2_LO: v128 = f64x2(-1.90821492927058770002e-10, -1.90821492927058770002e-10);
const LN2_HI: v128 = f64x2(6.93147180369123816490e-01, 6.93147180369123816490e-01);
const LN2_LO: v128 = f64x2(1.90821492927058770002e-10, 1.90821492927058770002e-10);
/** 1.5·2^52: adding it rounds to an integer kept in the low mantissa bits. */
const MAGIC: v128 = f64x2(6755399441055744.0, 6755399441055744.0);
const MAGIC_BITS: v128 = i64x2(0x4338000000000000, 0x4338000000000000);
const EXP_BIAS: v128 = i64x2(1023, 1023);

/**
 * e^x on both lanes. Inputs are clamped to [−746, 710] (e^x is 0 below, +∞
 * above, as for scalar exp); NaN stays NaN. 2^k is applied in two halves so
 * results in the subnormal range round gradually.
 */
export function vexp(x: v128): v128 {
  x = f64x2.min(f64x2.max(x, f64x2(-746.0, -746.0)), f64x2(710.0, 710.0));
  const kf = f64x2.nearest(f64x2.mul(x, LOG2E));
  // r = x − k·ln2 (k·ln2_hi is exact), |r| ≤ 0.347
  const r = madd(kf, NEG_LN2_LO, madd(kf, NEG_LN2_HI, x));
  // Taylor polynomial of degree 13 (truncation < 5e-18 relative)
  let p = f64x2(1.6059043836821613e-10, 1.6059043836821613e-10); // 1/13!
  p = madd(p, r, f64x2(2.08767569878681e-9, 2.08767569878681e-9)); // 1/12!
  p = madd(p, r, f64x2(2.505210838544172e-8, 2.505210838544172e-8)); // 1/11!
  p = madd(p, r, f64x2(2.755731922398589e-7, 2.755731922398589e-7)); // 1/10!
  p = madd(p, r, f64x2(2.755731922398589e-6, 2.755731922398589e-6)); // 1/9!
  p = madd(p, r, f64x2(2.48015873015873e-5, 2.48015873015873e-5)); // 1/8!
  p = madd(p, r, f64x2(1.984126984126984e-4, 1.984126984126984e-4)); // 1/7!
  p = madd(p, r, f64x2(1.3888888888888889e-3, 1.3888888888888889e-3)); // 1/6!
  p = madd(p, r, f64x2(8.333333333333333e-3, 8.333333333333333e-3)); // 1/5!
  p = madd(p, r, f64x2(4.1666666666666664e-2, 4.1666666666666664e-2)); // 1/4!
  p = madd(p, r, f64x2(0.16666666666666666, 0.16666666666666666)); // 1/3!
  p = madd(p, r, HALF);
  p = madd(p, r, ONE);
  p = madd(p, r, ONE);
  // k as i64 lanes, split in two halves so each 2^half is a normal number
  const k = i64x2.sub(f64x2.add(kf, MAGIC), MAGIC_BITS);
  const k1 = i64x2.shr_s(k, 1);
  const k2 = i64x2.sub(k, k1);
  const s1 = i64x2.shl(i64x2.add(k1, EXP_BIAS), 52);
  const s2 = i64x2.shl(i64x2.add(k2, EXP_BIAS), 52);
  return f64x2.mul(f64x2.mul(p, s1), s2);
}

// fdlibm log coefficients (|error| < 2^-58.45 on the reduced interval)
const LG1: v128 = f64x2(6.666666666666735130e-01, 6.666666666666735130e-01);
const LG2: v128 = f64x2(3.999999999940941908e-01, 3.999999999940941908e-01);
const LG3: v128 = f64x2(2.857142874366239149e-01, 2.857142874366239149e-01);
const LG4: v128 = f64x2(2.222219843214978396e-01, 2.222219843214978396e-01);
const LG5: v128 = f64x2(1.818357216161805012e-01, 1.818357216161805012e-01);
const LG6: v128 = f64x2(1.531383769920937332e-01, 1.531383769920937332e-01);
const LG7: v128 = f64x2(1.479819860511658591e-01, 1.479819860511658591e-01);

/**
 * log x on both lanes for positive, finite, normal x (the kernels only call it
 * with x ≥ 1). The fdlibm/musl algorithm: x = 2^k·m, m ∈ [√½, √2).
 */
export function vlog(x: v128): v128 {
  // shift so that the exponent split puts m in [√½, √2)
  const ix = i64x2.add(x, i64x2(0x0009_5F62_0000_0000, 0x0009_5F62_0000_0000));
  const k = i64x2.sub(i64x2.shr_s(ix, 52), i64x2(0x3FF, 0x3FF));
  const m = i64x2.add(
    v128.and(ix, i64x2(0x000F_FFFF_FFFF_FFFF, 0x000F_FFFF_FFFF_FFFF)),
    i64x2(0x3FE6_A09E_0000_0000, 0x3FE6_A09E_0000_0000),
  );
  const f = f64x2.sub(m, ONE);
  const hfsq = f64x2.mul(HALF, f64x2.mul(f, f));
  const s = f64x2.div(f, f64x2.add(f64x2(2.0, 2.0), f));
  const z = f64x2.mul(s, s);
  const w = f64x2.mul(z, z);
  const t1 = f64x2.mul(w, madd(w, madd(w, LG6, LG4), LG2));
  const t2 = f64x2.mul(z, madd(w, madd(w, madd(w, LG7, LG5), LG3), LG1));
  const R = f64x2.add(t2, t1);
  const dk = f64x2.sub(i64x2.add(k, MAGIC_BITS), MAGIC); // k → f64
  // s·(hfsq + R) + k·ln2_lo − hfsq + f + k·ln2_hi
  let r = madd(s, f64x2.add(hfsq, R), f64x2.mul(dk, LN2_LO));
  r = f64x2.add(f64x2.sub(r, hfsq), f);
  return madd(dk, LN2_HI, r);
}

/** log(1 + e) on both lanes for e ∈ [0, 1], with the rounding of 1 + e corrected. */
export function vlog1p(e: v128): v128 {
  const u = f64x2.add(ONE, e);
  const c = f64x2.sub(e, f64x2.sub(u, ONE)); // exact rounding error of 1 + e
  return f64x2.add(vlog(u), f64x2.div(c, u));
}

const HALF_LOG_2PI: v128 = f64x2(0.9189385332046728, 0.9189385332046728);

/**
 * log Γ(x) on both lanes for x ≥ 1 (log y! = log Γ(y + 1)); Lanczos g = 7,
 * n = 9, exactly as core/reference.ts; exact 0 at x = 1 and 2.
 */
export function vlgamma(x: v128): v128 {
  const z = f64x2.sub(x, ONE);
  let a = f64x2(0.99999999999980993, 0.99999999999980993);
  a = f64x2.add(a, f64x2.div(f64x2(676.5203681218851, 676.5203681218851), f64x2.add(z, ONE)));
  a = f64x2.add(
    a,
    f64x2.div(f64x2(-1259.1392167224028, -1259.1392167224028), f64x2.add(z, f64x2(2.0, 2.0))),
  );
  a = f64x2.add(
    a,
    f64x2.div(f64x2(771.32342877765313, 771.32342877765313), f64x2.add(z, f64x2(3.0, 3.0))),
  );
  a = f64x2.add(
    a,
    f64x2.div(f64x2(-176.61502916214059, -176.61502916214059), f64x2.add(z, f64x2(4.0, 4.0))),
  );
  a = f64x2.add(
    a,
    f64x2.div(f64x2(12.507343278686905, 12.507343278686905), f64x2.add(z, f64x2(5.0, 5.0))),
  );
  a = f64x2.add(
    a,
    f64x2.div(f64x2(-0.13857109526572012, -0.13857109526572012), f64x2.add(z, f64x2(6.0, 6.0))),
  );
  a = f64x2.add(
    a,
    f64x2.div(f64x2(9.9843695780195716e-6, 9.9843695780195716e-6), f64x2.add(z, f64x2(7.0, 7.0))),
  );
  a = f64x2.add(
    a,
    f64x2.div(f64x2(1.5056327351493116e-7, 1.5056327351493116e-7), f64x2.add(z, f64x2(8.0, 8.0))),
  );
  const t = f64x2.add(z, f64x2(7.5, 7.5));
  const lt = vlog(t);
  const la = vlog(a);
  // ½log 2π + (z + ½)·log t − t + log a, in the reference's order
  const r = f64x2.add(f64x2.sub(madd(f64x2.add(z, HALF), lt, HALF_LOG_2PI), t), la);
  const exact = v128.or(f64x2.eq(x, ONE), f64x2.eq(x, f64x2(2.0, 2.0)));
  return v128.andnot(r, exact);
}
