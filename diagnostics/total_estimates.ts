/**
 * Estimates of a total Σᵢ yᵢ over n observations with their standard errors,
 * as PSIS-LOO reports its sums (diagnostics/loo.ts) and subsampling LOO
 * estimates them from m of the n (diagnostics/loo_subsample.ts):
 *
 * - from all n: the sum, with SE √(n · var(y)) (var with divisor n − 1);
 * - by simple random sampling of m: n · mean(y), SE √(n var) and subsampling
 *   SE √(n²(1 − m/n) var / m) (R loo 2.5.1's `srs_est`);
 * - by the difference estimator with an approximation π̃ᵢ of every yᵢ
 *   (R loo 2.5.1's `srs_diff_est`; the formulas are in loo_subsample.ts).
 *
 * References: Magnusson, Andersen, Jonasson & Vehtari (2020) "Leave-one-out
 * cross-validation for Bayesian model comparison in large data", AISTATS.
 *
 * @module
 */

/** A total with its SE from the data. */
export interface TotalEstimate {
  /** Σᵢ yᵢ. */
  estimate: number;
  /** √(n · var(y)). */
  se: number;
}

/** A total estimated from a subsample, with its two SEs. */
export interface SubsampledTotalEstimate extends TotalEstimate {
  /** SE from using m of the n observations (0 when m = n). */
  subsamplingSe: number;
}

/**
 * The sum of `x` and its SE √(n · var(x)) (var with divisor n − 1; NaN for n = 1).
 *
 * @param x The n pointwise values.
 * @returns The total and its SE.
 */
export function totalEstimate(x: Float64Array): TotalEstimate {
  const n = x.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += x[i];
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
  return { estimate: sum, se: n > 1 ? Math.sqrt((n * ss) / (n - 1)) : NaN };
}

/**
 * The mean of `x`.
 *
 * @param x Values.
 * @returns Σ x / length.
 */
export function sampleMean(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s / x.length;
}

/**
 * The variance of `x` with divisor length − 1.
 *
 * @param x Values (at least 2 for a finite result).
 * @returns The sample variance.
 */
export function sampleVariance(x: ArrayLike<number>): number {
  const m = sampleMean(x);
  let ss = 0;
  for (let i = 0; i < x.length; i++) ss += (x[i] - m) ** 2;
  return ss / (x.length - 1);
}

/**
 * The difference estimator of Σₙ yᵢ from y on the sampled rows `idx` and an
 * approximation of every yᵢ (R loo's `srs_diff_est`).
 *
 * @param approx π̃ᵢ for all n observations.
 * @param y yᵢ of the m sampled observations, in the order of `idx`.
 * @param idx The sampled observations (0-based).
 * @returns The estimate, its SE from the data and its subsampling SE.
 */
export function differenceEstimate(
  approx: ArrayLike<number>,
  y: ArrayLike<number>,
  idx: ArrayLike<number>,
): SubsampledTotalEstimate {
  const n = approx.length, m = y.length;
  let tPi = 0, tPi2 = 0;
  for (let i = 0; i < n; i++) {
    tPi += approx[i];
    tPi2 += approx[i] * approx[i];
  }
  const e = new Float64Array(m);
  let sq = 0;
  for (let j = 0; j < m; j++) {
    const a = approx[idx[j]];
    e[j] = y[j] - a;
    sq += y[j] * y[j] - a * a;
  }
  const tE = n * sampleMean(e);
  const tEps = (n * sq) / m;
  const estimate = tPi + tE;
  const vHat = m > 1 ? (n * n * (1 - m / n) * sampleVariance(e)) / m : NaN;
  const sigma2 = tPi2 + tEps - (tE * tE - vHat + 2 * tPi * estimate - tPi * tPi) / n;
  return { estimate, se: Math.sqrt(Math.max(sigma2, 0)), subsamplingSe: Math.sqrt(vHat) };
}

/**
 * Simple random sampling estimate of Σₙ yᵢ (R loo's `srs_est`).
 *
 * @param y yᵢ of the m sampled observations.
 * @param n Number of observations.
 * @returns n · mean(y), its SE from the data and its subsampling SE.
 */
export function srsEstimate(y: ArrayLike<number>, n: number): SubsampledTotalEstimate {
  const m = y.length, v = m > 1 ? sampleVariance(y) : NaN;
  return {
    estimate: n * sampleMean(y),
    se: Math.sqrt(n * v),
    subsamplingSe: Math.sqrt((n * n * (1 - m / n) * v) / m),
  };
}
