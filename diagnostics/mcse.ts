/**
 * Monte Carlo standard errors (MCSE) of posterior summaries from several
 * chains of one parameter, as defined by Vehtari et al. (2021) and the
 * `posterior` R package (`mcse_mean`, `mcse_quantile`, `mcse_sd`).
 *
 * References: Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021)
 * "Rank-normalization, folding, and localization: an improved R̂", Bayesian
 * Analysis 16(2), §4.3 (MCSE of the mean and of quantiles via the Beta
 * distribution of the indicator mean); Kenney & Keeping (1951) "Mathematics of
 * Statistics" Part 2, p. 141 (variance of the sample variance).
 *
 * @module
 */

import { _betaQuantile } from "./_special.ts";
import { _chains, _mean, _pool, _probability, _variance } from "./_util.ts";
import { _ess, _essQuantile, _MIN_SPLIT_DRAWS } from "./ess.ts";
import { _splitChains } from "./_chains.ts";

/** Φ(−1) and Φ(1): the central ±1 sd interval of the Beta posterior. */
const ONE_SD_INTERVAL = [0.1586553, 0.8413447] as const;

/**
 * MCSE of the posterior mean estimate: sd / √ESS_mean, with sd the standard
 * deviation of all draws (divisor S − 1) and ESS_mean from
 * {@linkcode essMean}.
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) §3.2 and §4.3;
 * posterior's `mcse_mean`.
 *
 * @param chains Draws of one parameter, `chains[c][i]`; equal lengths, at
 * least 6 draws per chain.
 * @returns The MCSE of the mean; NaN when all draws are equal.
 * @throws {TypeError} If chains is not an array of arrays of numbers.
 * @throws {RangeError} For no chains, too-short or unequal chains, or NaN/Inf.
 *
 * @example
 * ```ts
 * import { mcseMean } from "./mcse.ts";
 * import { strict as assert } from "node:assert";
 *
 * const chain = (k: number) => Array.from({ length: 100 }, (_, i) => Math.sin(i * k));
 * const se = mcseMean([chain(1.1), chain(2.3)]);
 * assert.ok(se > 0 && se < 0.2);
 * ```
 */
export function mcseMean(chains: readonly ArrayLike<number>[]): number {
  return _mcseMean(_chains(chains, "chains", _MIN_SPLIT_DRAWS));
}

/** MCSE of the mean of validated chains. */
export function _mcseMean(chains: readonly Float64Array[]): number {
  return Math.sqrt(_variance(_pool(chains)) / _ess(_splitChains(chains)));
}

/**
 * MCSE of the p-quantile estimate. The quantile ESS (see
 * {@linkcode essQuantile}) gives a Beta(ESS·p + 1, ESS·(1 − p) + 1)
 * distribution for the probability level actually hit; the draws at its
 * 15.87% and 84.13% points (order statistics ⌊a₁S⌋ and ⌈a₂S⌉, clamped to
 * 1..S) are half an interval of ±1 sd apart.
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) §4.3;
 * posterior's `mcse_quantile`.
 *
 * @param chains Draws of one parameter, `chains[c][i]`; equal lengths, at
 * least 6 draws per chain.
 * @param p Probability in [0, 1].
 * @returns The MCSE of the p-quantile; NaN when the quantile ESS is.
 * @throws {TypeError} If chains is not an array of arrays of numbers.
 * @throws {RangeError} For bad chains or p outside [0, 1].
 *
 * @example MCSE of the median
 * ```ts
 * import { mcseQuantile } from "./mcse.ts";
 * import { strict as assert } from "node:assert";
 *
 * const chain = (k: number) => Array.from({ length: 200 }, (_, i) => Math.sin(i * k));
 * assert.ok(mcseQuantile([chain(1.1), chain(2.3)], 0.5) > 0);
 * ```
 */
export function mcseQuantile(chains: readonly ArrayLike<number>[], p: number): number {
  _probability(p, "p");
  const valid = _chains(chains, "chains", _MIN_SPLIT_DRAWS);
  const sorted = _pool(valid).sort();
  const ess = _essQuantile(valid, p, sorted);
  if (Number.isNaN(ess)) return NaN;
  const a = ess * p + 1;
  const b = ess * (1 - p) + 1;
  const total = sorted.length;
  const lo = Math.max(Math.floor(_betaQuantile(ONE_SD_INTERVAL[0], a, b) * total), 1);
  const hi = Math.min(Math.ceil(_betaQuantile(ONE_SD_INTERVAL[1], a, b) * total), total);
  return (sorted[hi - 1] - sorted[lo - 1]) / 2;
}

/**
 * MCSE of the posterior standard deviation estimate, without assuming
 * normality: with centred draws d = x − x̄, Var(s²) ≈ (mean(d⁴) − mean(d²)²)/ESS
 * (ESS of the split chains of d²), and the first-order Taylor (delta method)
 * step Var(s) ≈ Var(s²)/(4 s²).
 *
 * References: Kenney & Keeping (1951) Mathematics of Statistics, Part 2,
 * p. 141; Vehtari et al. (2021) Bayesian Analysis 16(2) §4.3; posterior's
 * `mcse_sd`.
 *
 * @param chains Draws of one parameter, `chains[c][i]`; equal lengths, at
 * least 6 draws per chain.
 * @returns The MCSE of the standard deviation; NaN when all draws are equal.
 * @throws {TypeError} If chains is not an array of arrays of numbers.
 * @throws {RangeError} For no chains, too-short or unequal chains, or NaN/Inf.
 *
 * @example
 * ```ts
 * import { mcseSd } from "./mcse.ts";
 * import { strict as assert } from "node:assert";
 *
 * const chain = (k: number) => Array.from({ length: 200 }, (_, i) => Math.sin(i * k));
 * assert.ok(mcseSd([chain(1.1), chain(2.3)]) > 0);
 * ```
 */
export function mcseSd(chains: readonly ArrayLike<number>[]): number {
  const valid = _chains(chains, "chains", _MIN_SPLIT_DRAWS);
  const pooled = _pool(valid);
  const mean = _mean(pooled);
  const squares = valid.map((chain) => chain.map((v) => (v - mean) * (v - mean)));
  const ess = _ess(_splitChains(squares));
  let m2 = 0;
  let m4 = 0;
  for (let i = 0; i < pooled.length; i++) {
    const d2 = (pooled[i] - mean) * (pooled[i] - mean);
    m2 += d2;
    m4 += d2 * d2;
  }
  m2 /= pooled.length;
  m4 /= pooled.length;
  const varianceOfVariance = (m4 - m2 * m2) / ess;
  return Math.sqrt(varianceOfVariance / m2 / 4);
}
