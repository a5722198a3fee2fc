/**
 * Sign-corrected estimates of posterior expectations from signed draws.
 *
 * Signed HMC-ECS (and any pseudo-marginal sampler whose likelihood estimator
 * can be negative) samples from the posterior with |L̂| in place of L and
 * records the sign s⁽ʲ⁾ ∈ {−1, +1} of every draw. A posterior expectation
 * E[ψ(θ)] is then estimated by the importance-sampling ratio
 *
 * ```
 *  Î_R = Σⱼ ψ(θ⁽ʲ⁾) s⁽ʲ⁾ / Σⱼ s⁽ʲ⁾                       (eq. 17)
 * ```
 *
 * With ψ(θ) = θ and ψ(θ) = θ² this gives the sign-corrected mean and, as
 * E[θ²] − E[θ]², the variance. When every sign is +1 they are the plain mean
 * and the population variance (divisor R).
 *
 * References: Dang, Quiroz, Kohn, Tran & Villani (2019) "Hamiltonian Monte
 * Carlo with energy conserving subsampling", JMLR 20, eq. 17 and the display
 * after it; Lyne, Girolami, Atchadé, Strathmann & Simpson (2015) "On Russian
 * roulette estimates for Bayesian inference with doubly-intractable
 * likelihoods", Statistical Science 30(4), §3.
 *
 * @module
 */

import { _describe } from "./_util.ts";

/** Sign-corrected mean, variance and standard deviation of one quantity. */
export interface SignCorrectedSummary {
  /** Î_R for ψ(θ) = θ: Σ θs / Σ s. */
  mean: number;
  /** Σ θ²s / Σ s − mean², floored at 0. */
  variance: number;
  /** √variance. */
  sd: number;
}

/** Σs, Σθs and Σθ²s of validated values and signs (every sign +1 when omitted). */
function _signedSums(
  values: ArrayLike<number>,
  signs: ArrayLike<number> | undefined,
): { s0: number; s1: number; s2: number } {
  if (values === null || typeof values !== "object" || typeof values.length !== "number") {
    throw new TypeError(`values must be an array of numbers, got ${_describe(values)}`);
  }
  const n = values.length;
  if (n === 0) throw new RangeError("values must not be empty, got 0 values");
  if (signs !== undefined && signs.length !== n) {
    throw new RangeError(
      `values and signs must have the same length, got ${n} and ${signs.length}`,
    );
  }
  let s0 = 0, s1 = 0, s2 = 0;
  for (let j = 0; j < n; j++) {
    const x = values[j];
    if (!Number.isFinite(x)) throw new RangeError(`values[${j}] must be finite, got ${x}`);
    const s = signs === undefined ? 1 : signs[j];
    if (s !== 1 && s !== -1) throw new RangeError(`signs[${j}] must be −1 or +1, got ${s}`);
    s0 += s;
    s1 += s * x;
    s2 += s * x * x;
  }
  if (s0 === 0) {
    throw new RangeError(
      "the signs sum to zero (as many negative as positive draws): the sign-corrected estimate is undefined",
    );
  }
  return { s0, s1, s2 };
}

/**
 * The sign-corrected estimate Î_R = Σⱼ ψⱼ sⱼ / Σⱼ sⱼ of a posterior expectation
 * from signed draws; the plain mean when every sign is +1.
 *
 * References: Dang et al. (2019) JMLR 20, eq. 17; Lyne et al. (2015).
 *
 * @param values ψ(θ⁽ʲ⁾), j = 1…R (finite).
 * @param signs s⁽ʲ⁾ ∈ {−1, +1}, one per value; omitted means every sign is +1.
 * @returns Î_R.
 * @throws {RangeError} If the lengths differ, `values` is empty or not
 * finite, a sign is not ±1, or the signs sum to zero.
 *
 * @example
 * ```ts
 * import { signCorrectedMean } from "./sign_corrected.ts";
 * import { strict as assert } from "node:assert";
 *
 * assert.equal(signCorrectedMean([1, 2, 3], [1, 1, -1]), 0); // (1 + 2 − 3) / (1 + 1 − 1)
 * assert.equal(signCorrectedMean([1, 2, 3]), 2);
 * ```
 */
export function signCorrectedMean(values: ArrayLike<number>, signs?: ArrayLike<number>): number {
  const { s0, s1 } = _signedSums(values, signs);
  return s1 / s0;
}

/**
 * Sign-corrected mean, variance and sd in one pass: eq. 17 applied to θ and
 * θ², variance = Î_R(θ²) − Î_R(θ)² floored at 0 (with negative signs the
 * difference of two estimates can be negative). With every sign +1 these are
 * the plain mean and the population variance (divisor R, not R − 1).
 *
 * References: Dang et al. (2019) JMLR 20, eq. 17; Lyne et al. (2015).
 *
 * @param values θ⁽ʲ⁾, j = 1…R (finite).
 * @param signs s⁽ʲ⁾ ∈ {−1, +1}, one per value; omitted means every sign is +1.
 * @returns `{ mean, variance, sd }`.
 * @throws {RangeError} As {@linkcode signCorrectedMean}.
 *
 * @example
 * ```ts
 * import { signCorrectedSummary } from "./sign_corrected.ts";
 * import { strict as assert } from "node:assert";
 *
 * // Σs = 2, Σθs = 1 + 3 − 2 = 2, Σθ²s = 1 + 9 − 4 = 6: mean 1, variance 6/2 − 1 = 2.
 * const s = signCorrectedSummary([1, 3, 2, 0], [1, 1, -1, 1]);
 * assert.deepEqual([s.mean, s.variance, s.sd], [1, 2, Math.SQRT2]);
 * ```
 */
export function signCorrectedSummary(
  values: ArrayLike<number>,
  signs?: ArrayLike<number>,
): SignCorrectedSummary {
  const { s0, s1, s2 } = _signedSums(values, signs);
  const mean = s1 / s0;
  const variance = Math.max(s2 / s0 - mean * mean, 0);
  return { mean, variance, sd: Math.sqrt(variance) };
}

/**
 * Sign-corrected variance Î_R(θ²) − Î_R(θ)², floored at 0; see
 * {@linkcode signCorrectedSummary}.
 *
 * References: Dang et al. (2019) JMLR 20, eq. 17.
 *
 * @param values θ⁽ʲ⁾, j = 1…R (finite).
 * @param signs s⁽ʲ⁾ ∈ {−1, +1}, one per value; omitted means every sign is +1.
 * @returns The variance.
 * @throws {RangeError} As {@linkcode signCorrectedMean}.
 *
 * @example
 * ```ts
 * import { signCorrectedVariance } from "./sign_corrected.ts";
 * import { strict as assert } from "node:assert";
 *
 * assert.equal(signCorrectedVariance([1, 2, 3, 4]), 1.25); // population variance of 1..4
 * ```
 */
export function signCorrectedVariance(
  values: ArrayLike<number>,
  signs?: ArrayLike<number>,
): number {
  return signCorrectedSummary(values, signs).variance;
}
