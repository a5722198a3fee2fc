/**
 * Potential scale reduction factor R̂ of several chains of one parameter.
 *
 * With M chains of N draws, chain means θ̄_m and variances s²_m (divisor
 * N − 1): B/N = var(θ̄_m), W = mean(s²_m), var⁺ = (N − 1)/N · W + B/N and
 * R̂ = √(var⁺ / W). The improved R̂ is the larger of R̂ on rank-normalised split
 * chains (bulk) and on rank-normalised split chains folded around the median
 * (tails), which also detects chains that differ in scale.
 *
 * References: Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021)
 * "Rank-normalization, folding, and localization: an improved R̂", Bayesian
 * Analysis 16(2), eqs. 1–4 (split-R̂) and §4.1–4.2, eqs. 14–15 (rank
 * normalisation, folding); Gelman et al. (2013) BDA3 §11.4; posterior's
 * `rhat_basic` and `rhat`.
 *
 * Undefined cases follow posterior 1.7.1 (`R/convergence.R`: `.rhat`,
 * `should_return_NA`): R̂ is NaN (R's NA) when all draws (after rank
 * normalisation or folding) are equal within machine ε, or when a split chain
 * has a single draw (its variance is undefined); chains that are each
 * constant at different values have zero within-chain variance and give
 * R̂ = +Infinity. The improved R̂ is NaN if either its bulk or its folded part
 * is (R's `max` propagates NA), e.g. for draws taking two values placed
 * symmetrically about the median.
 *
 * @module
 */

import { _fold, _splitChains, _zScale } from "./_chains.ts";
import { _chains, _meanF64, _varianceF64 } from "./_util.ts";

/** Options for {@linkcode rhatBasic}. */
export interface RhatBasicOptions {
  /** Split every chain in halves first (default true). */
  split?: boolean;
}

/** R̂ of validated chains (posterior's `.rhat`); NaN for constant draws. */
export function _rhat(chains: readonly Float64Array[]): number {
  const n = chains[0].length;
  const m = chains.length;
  const means = new Float64Array(m);
  const variances = new Float64Array(m);
  // Per chain: the mean and variance of _meanF64 / _varianceF64 (the same
  // sums in the same order) and the range of all draws (_isConstant).
  let min = Infinity, max = -Infinity;
  for (let c = 0; c < m; c++) {
    const x = chains[c];
    const first = x[0];
    let s = 0, lo = first, hi = first;
    for (let i = 0; i < n; i++) {
      const v = x[i];
      s += v;
      if (v < lo) lo = v;
      else if (v > hi) hi = v;
    }
    if (lo < min) min = lo;
    if (hi > max) max = hi;
    const mean = s / n;
    let d2 = 0;
    for (let i = 0; i < n; i++) {
      const d = x[i] - mean;
      d2 += d * d;
    }
    means[c] = mean;
    variances[c] = lo === hi && n > 1 ? 0 : d2 / (n - 1);
  }
  if (Math.abs(max - min) < Number.EPSILON) return NaN;
  const varBetween = n * _varianceF64(means); // B
  const varWithin = _meanF64(variances); // W
  return Math.sqrt((varBetween / varWithin + n - 1) / n);
}

/**
 * Basic (split) R̂ of Gelman et al. (2013), computed on the draws themselves:
 * √(((N − 1)/N · W + B/N) / W).
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) eqs. 1–4;
 * Gelman et al. (2013) BDA3 §11.4; posterior's `rhat_basic`.
 *
 * @param chains Draws of one parameter, `chains[c][i]`; equal lengths, at
 * least 4 draws per chain (2 with `split: false`, which also needs 2 chains).
 * @param options `split` (default true): split chains in halves first.
 * @returns R̂ (≥ 1 up to sampling noise); NaN when all draws are equal.
 * @throws {TypeError} If chains is not an array of arrays of numbers.
 * @throws {RangeError} For no chains, too-short or unequal chains, or NaN/Inf.
 *
 * @example Two chains stuck at different values
 * ```ts
 * import { rhatBasic } from "./rhat.ts";
 * import { strict as assert } from "node:assert";
 *
 * const r = rhatBasic([[0, 1, 0, 1], [10, 11, 10, 11]], { split: false });
 * // B/N = 50, W = 1/3, var⁺ = 3/4 · 1/3 + 50
 * assert.ok(Math.abs(r - Math.sqrt((0.25 + 50) * 3)) < 1e-12);
 * ```
 */
export function rhatBasic(
  chains: readonly ArrayLike<number>[],
  options: RhatBasicOptions = {},
): number {
  const split = options.split ?? true;
  const valid = _chains(chains, "chains", split ? 4 : 2);
  if (!split && valid.length < 2) {
    throw new RangeError(
      `chains must contain at least 2 chains when split is false, got ${valid.length}`,
    );
  }
  return _rhat(split ? _splitChains(valid) : valid);
}

/**
 * Improved R̂: the maximum of rank-normalised split-R̂ (bulk) and
 * rank-normalised folded split-R̂ (tails). Values above 1.01 signal chains
 * that have not mixed.
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) §4.1–4.2,
 * eqs. 14–15; posterior's `rhat`.
 *
 * @param chains Draws of one parameter, `chains[c][i]`; equal lengths, at
 * least 4 draws per chain.
 * @returns R̂; NaN when all draws are equal.
 * @throws {TypeError} If chains is not an array of arrays of numbers.
 * @throws {RangeError} For no chains, too-short or unequal chains, or NaN/Inf.
 *
 * @example Separated chains give a large R̂
 * ```ts
 * import { rhat } from "./rhat.ts";
 * import { strict as assert } from "node:assert";
 *
 * const a = [0.1, 0.5, 0.3, 0.2, 0.4, 0.6];
 * const b = a.map((v) => v + 5);
 * assert.ok(rhat([a, b]) > 1.5);
 * ```
 */
export function rhat(chains: readonly ArrayLike<number>[]): number {
  return _rhatRank(_chains(chains, "chains", 4));
}

/**
 * Improved (rank-normalised, folded) R̂ of validated chains; `zSplit`, the
 * rank-normalised split chains, may be passed when the caller has them.
 */
export function _rhatRank(
  chains: readonly Float64Array[],
  zSplit: readonly Float64Array[] = _zScale(_splitChains(chains)),
): number {
  const bulk = _rhat(zSplit);
  const tail = _rhat(_zScale(_splitChains(_fold(chains))));
  return Math.max(bulk, tail);
}
