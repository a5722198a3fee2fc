/**
 * Pareto-smoothed importance sampling (PSIS) of one vector of log importance
 * ratios: the M = ⌈min(0.2 S, 3 √(S / r_eff))⌉ largest ratios are replaced by
 * the expected order statistics of a generalized Pareto distribution fitted to
 * their exceedances over the (M+1)-th largest (the Zhang & Stephens (2009)
 * profile-posterior estimator, k̂ shrunk towards 0.5 as (M k̂ + 10 · 0.5) /
 * (M + 10)), and the smoothed weights are truncated at the largest raw ratio.
 * The Pareto k̂ says how far the weights can be trusted.
 *
 * References: Vehtari, Simpson, Gelman, Yao & Gabry (2024) "Pareto smoothed
 * importance sampling", JMLR 25(72); Zhang & Stephens (2009) "A new and
 * efficient estimation method for the generalized Pareto distribution",
 * Technometrics 51(3).
 *
 * @module
 */

import { _describe, _logSumExp } from "./_util.ts";

/** Result of {@linkcode psis} for one vector of log importance ratios. */
export interface PsisResult {
  /** Smoothed, truncated log weights, normalized so that Σ exp = 1. */
  logWeights: Float64Array;
  /** Pareto k̂ (Infinity when the tail has fewer than 5 draws). */
  paretoK: number;
  /** Tail length M. */
  tailLength: number;
}

/** ⌈min(0.2 S, 3 √(S / r_eff))⌉, the number of ratios smoothed. */
export function psisTailLength(numDraws: number, rEff = 1): number {
  return Math.ceil(Math.min(0.2 * numDraws, 3 * Math.sqrt(numDraws / rEff)));
}

/** min(1 − 1/log₁₀ S, 0.7). */
export function paretoKThreshold(numDraws: number): number {
  return Math.min(1 - 1 / Math.log10(numDraws), 0.7);
}

/**
 * Generalized Pareto fit to exceedances `x` (sorted increasingly, all ≥ 0) by
 * the Zhang & Stephens (2009) estimator with 30 + ⌊√N⌋ grid points and the
 * weakly informative prior on k (shrinkage towards 0.5 with 10 pseudo-draws).
 */
export function gpdFit(x: ArrayLike<number>): { k: number; sigma: number } {
  const n = x.length;
  const prior = 3;
  const m = 30 + Math.floor(Math.sqrt(n));
  const xStar = x[Math.floor(n / 4 + 0.5) - 1]; // first quartile
  const theta = new Float64Array(m), lTheta = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    theta[j] = 1 / x[n - 1] + (1 - Math.sqrt(m / (j + 0.5))) / prior / xStar;
    let k = 0;
    for (let i = 0; i < n; i++) k += Math.log1p(-theta[j] * x[i]);
    k /= n;
    lTheta[j] = n * (Math.log(-theta[j] / k) - k - 1);
  }
  const lse = _logSumExp(lTheta);
  let thetaHat = 0;
  for (let j = 0; j < m; j++) thetaHat += theta[j] * Math.exp(lTheta[j] - lse);
  let k = 0;
  for (let i = 0; i < n; i++) k += Math.log1p(-thetaHat * x[i]);
  k /= n;
  const sigma = -k / thetaHat;
  k = (k * n) / (n + 10) + (10 * 0.5) / (n + 10);
  return { k: Number.isNaN(k) ? Infinity : k, sigma };
}

/**
 * Indices of the `tail` largest values in increasing order, ties by index (as
 * a stable sort of all values would place them), and the largest value below
 * them; one typed-array sort instead of an index sort of all S values.
 */
function _tail(lw: Float64Array, tail: number): { order: number[]; cutoff: number } {
  const s = lw.length, first = s - tail;
  const sorted = Float64Array.from(lw).sort();
  const tailMin = sorted[first];
  let ties = 0;
  for (let j = first; j < s && sorted[j] === tailMin; j++) ties++;
  const order: number[] = [], equal: number[] = [];
  for (let i = 0; i < s; i++) {
    if (lw[i] > tailMin) order.push(i);
    else if (lw[i] === tailMin) equal.push(i);
  }
  for (let j = equal.length - ties; j < equal.length; j++) order.push(equal[j]);
  order.sort((a, b) => lw[a] - lw[b] || a - b);
  return { order, cutoff: sorted[first - 1] };
}

/**
 * Pareto-smoothed importance sampling of one vector of log importance ratios.
 *
 * @param logRatios S log ratios (for LOO: minus the observation's log-likelihoods).
 * @param rEff Relative efficiency of the ratios (sets the tail length).
 */
export function psis(logRatios: ArrayLike<number>, rEff = 1): PsisResult {
  const s = logRatios.length;
  let max = -Infinity;
  for (let i = 0; i < s; i++) {
    if (!Number.isFinite(logRatios[i])) {
      throw new RangeError(`psis: log ratio ${i + 1} must be finite, got ${logRatios[i]}`);
    }
    if (logRatios[i] > max) max = logRatios[i];
  }
  if (!(rEff > 0 && Number.isFinite(rEff))) {
    throw new RangeError(`psis: rEff must be positive and finite, got ${_describe(rEff)}`);
  }
  const lw = new Float64Array(s);
  for (let i = 0; i < s; i++) lw[i] = logRatios[i] - max;
  const tail = psisTailLength(s, rEff);
  let k = Infinity;
  if (tail >= 5) {
    const { order, cutoff } = _tail(lw, tail);
    const lo = lw[order[0]], hi = lw[order[tail - 1]];
    if (Math.abs(hi - lo) >= Number.EPSILON / 100) {
      const expCutoff = Math.exp(cutoff);
      const exceed = new Float64Array(tail);
      for (let j = 0; j < tail; j++) exceed[j] = Math.exp(lw[order[j]]) - expCutoff;
      const fit = gpdFit(exceed);
      k = fit.k;
      if (Number.isFinite(k) && fit.sigma > 0) {
        for (let j = 0; j < tail; j++) {
          const p = (j + 0.5) / tail;
          const q = (fit.sigma * Math.expm1(-k * Math.log1p(-p))) / k;
          lw[order[j]] = Math.log(q + expCutoff);
        }
      }
    }
  }
  for (let i = 0; i < s; i++) if (lw[i] > 0) lw[i] = 0; // truncate at the largest raw ratio
  const lse = _logSumExp(lw);
  for (let i = 0; i < s; i++) lw[i] -= lse;
  return { logWeights: lw, paretoK: k, tailLength: tail };
}
