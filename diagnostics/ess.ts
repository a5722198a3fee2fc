/**
 * Effective sample size (ESS) of several chains of one parameter, following
 * Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021) "Rank-normalization,
 * folding, and localization: an improved R̂ for assessing convergence of
 * MCMC", Bayesian Analysis 16(2), §3.2 (eqs. 10–13) and §4.3, with the exact
 * conventions of the `posterior` R package (`.ess`, `ess_bulk`, `ess_tail`,
 * `ess_quantile`, `ess_mean`, `ess_sd`):
 *
 * - chains are split in halves (middle draw dropped for odd lengths);
 * - per-chain autocovariances are the biased estimates (divisor n): direct
 *   sums for the first 16 lags, which end Geyer's sequence of a chain that
 *   mixes, the FFT for all lags when the sequence goes further (the two agree
 *   to round-off, so an ESS may differ from an all-FFT one in its last bits);
 * - var⁺ = (n−1)/n · W + B/n, with W the mean within-chain variance and B/n the
 *   sample variance of the chain means (eq. 3 of the paper);
 * - ρ̂_t = 1 − (W − mean_m γ̂_{t,m}) / var⁺ (eq. 10);
 * - Geyer's initial positive sequence truncates at the first pair with
 *   ρ̂_{2k} + ρ̂_{2k+1} < 0, his initial monotone sequence makes pair sums
 *   non-increasing, and τ̂ = −1 + 2 Σ_{t<T} ρ̂_t + ρ̂_T (the antithetic
 *   correction of posterior) floored at 1/log₁₀(S), so ESS ≤ S·log₁₀(S).
 *
 * Undefined cases follow posterior 1.7.1 (`R/convergence.R`: `.ess`,
 * `.ess_quantile`, `should_return_NA`; `R/misc.R`: `is_constant`): NaN (R's
 * NA) when fewer than 3 draws per (split) chain remain or when all draws are
 * equal within machine ε (max − min < 2.2·10⁻¹⁶, pooled over chains — a
 * single constant chain does not make the ESS NA; its autocovariances are
 * zero). The quantile and tail ESS are NaN when the draws are constant or
 * when the indicator I(x ≤ q̂) is; chains that are each constant at different
 * values give a small finite ESS. These functions reject NaN/±Infinity with
 * a RangeError; {@linkcode summarize} maps them to NaN with a reason.
 *
 * The autocovariances are exact (divisor n); very old posterior releases
 * scaled them by (next FFT size)/n for lengths that were not 2·3·5-smooth,
 * which this implementation does not reproduce.
 *
 * @module
 */

import { _indicator, _splitChains, _zScale } from "./_chains.ts";
import { _chains, _mean, _pool, _probability, _varianceF64 } from "./_util.ts";
import { _autocovariances, _directAutocovarianceInto } from "./fft.ts";
import { _quantileSorted } from "./quantile.ts";

/** Options for {@linkcode essBasic}. */
export interface EssBasicOptions {
  /** Split every chain in halves first (default true, as posterior). */
  split?: boolean;
}

/** Fewest draws per chain the split estimators accept (two halves of 3). */
export const _MIN_SPLIT_DRAWS = 6;

/**
 * ESS of validated, already split (or deliberately unsplit) chains: the
 * `.ess` computation of posterior. Returns NaN for fewer than 3 draws per
 * chain or constant draws.
 */
export function _ess(chains: readonly Float64Array[]): number {
  const m = chains.length;
  const n = chains[0].length;
  if (n < 3) return NaN;
  // One pass per chain: its mean (the sum of _meanF64), the range of all
  // draws (_isConstant) and whether the chain varies.
  const chainMeans = new Float64Array(m);
  // A chain whose draws are all equal has zero autocovariance at every lag
  // (posterior sets these exactly; the FFT would leave round-off).
  // When every chain is constant but the chains differ (stuck chains, or
  // indicator chains that are all 0 in one chain and all 1 in another) there
  // is nothing to transform: all autocovariances are zero, var⁺ = B/n > 0,
  // every ρ̂_t is 1 and the ESS is small, as in posterior.
  const varying: Float64Array[] = [];
  const varyingMeans: number[] = [];
  let min = Infinity, max = -Infinity;
  for (let c = 0; c < m; c++) {
    const chain = chains[c];
    const first = chain[0];
    let s = 0, lo = first, hi = first, same = true;
    for (let i = 0; i < n; i++) {
      const v = chain[i];
      s += v;
      if (v < lo) lo = v;
      else if (v > hi) hi = v;
      if (v !== first) same = false;
    }
    chainMeans[c] = s / n;
    if (lo < min) min = lo;
    if (hi > max) max = hi;
    if (!same) {
      varying.push(chain);
      varyingMeans.push(chainMeans[c]);
    }
  }
  if (Math.abs(max - min) < Number.EPSILON) return NaN;
  // Geyer's sequence of a chain that mixes stops after a few lags: first the
  // direct sums of the first 8 lags, then of 16 (cheaper than two FFTs per
  // pair of chains), all lags by FFT only when the sequence reaches past them.
  // Each lag is summed on its own, so the stages give the 16-lag values.
  if (n > _FIRST_LAGS) {
    const acovMeans = new Float64Array(_FIRST_LAGS);
    for (const lags of [_FIRST_LAGS / 2, _FIRST_LAGS]) {
      _firstMeanAutocovariances(varying, varyingMeans, m, acovMeans, lags);
      const few = _geyerEss(acovMeans.subarray(0, lags), chainMeans, n);
      if (few !== undefined) return few;
    }
  }
  return _geyerEss(_meanAutocovariances(varying, m, n, n), chainMeans, n)!;
}

/** Lags whose autocovariances {@link _ess} sums directly before it tries the FFT. */
const _FIRST_LAGS = 16;

/** Scratch of {@link _firstMeanAutocovariances}. */
const _acov = new Float64Array(_FIRST_LAGS);

/**
 * {@link _meanAutocovariances} at the lags from the first not yet in
 * `acovMeans` (which holds lags 0 … from − 1, from = lags / 2 or 0) up to
 * `lags`, bit for bit (direct sums, which `_autocovariances` uses for so
 * few lags), with the chain means already at hand.
 */
function _firstMeanAutocovariances(
  varying: readonly Float64Array[],
  means: readonly number[],
  m: number,
  acovMeans: Float64Array,
  lags: number,
): void {
  const from = lags === _FIRST_LAGS ? _FIRST_LAGS / 2 : 0;
  const acov = _acov.subarray(0, lags);
  for (let c = 0; c < varying.length; c++) {
    _directAutocovarianceInto(varying[c], means[c], acov, from);
    for (let t = from; t < lags; t++) acovMeans[t] += acov[t] / m;
  }
}

/** The chains' autocovariances at lags 0 … lags − 1 averaged over all m chains (zero for constant chains). */
function _meanAutocovariances(
  varying: readonly Float64Array[],
  m: number,
  n: number,
  lags: number,
): Float64Array {
  const acovMeans = new Float64Array(lags);
  if (varying.length > 0) {
    for (const acov of _autocovariances(varying, lags === n ? undefined : lags - 1)) {
      for (let t = 0; t < lags; t++) acovMeans[t] += acov[t] / m;
    }
  }
  return acovMeans;
}

/**
 * The ESS from the mean autocovariances by Geyer's initial positive and
 * monotone sequences; undefined when the sequence needs a lag past
 * `acovMeans` (which holds every lag when its length is n).
 */
function _geyerEss(
  acovMeans: Float64Array,
  chainMeans: Float64Array,
  n: number,
): number | undefined {
  const m = chainMeans.length;
  const lags = acovMeans.length;
  const meanVar = (acovMeans[0] * n) / (n - 1); // W
  let varPlus = (meanVar * (n - 1)) / n;
  if (m > 1) varPlus += _varianceF64(chainMeans);

  const rho = new Float64Array(lags);
  const rhoAt = (t: number): number => 1 - (meanVar - acovMeans[t]) / varPlus;
  // Geyer's initial positive sequence over pairs (ρ_{2k}, ρ_{2k+1}).
  let t = 0;
  let even = 1;
  let odd = rhoAt(1);
  rho[0] = even;
  rho[1] = odd;
  while (t < n - 5 && !Number.isNaN(even + odd) && even + odd > 0) {
    t += 2;
    if (t + 1 >= lags) return undefined;
    even = rhoAt(t);
    odd = rhoAt(t + 1);
    if (even + odd >= 0) {
      rho[t] = even;
      rho[t + 1] = odd;
    }
  }
  const maxT = t;
  // Used by the improved (antithetic) estimate below.
  if (even > 0) rho[maxT] = even;
  // Geyer's initial monotone sequence.
  t = 0;
  while (t <= maxT - 4) {
    t += 2;
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) {
      rho[t] = (rho[t - 2] + rho[t - 1]) / 2;
      rho[t + 1] = rho[t];
    }
  }
  const total = m * n;
  // τ̂ = −1 + 2 Σ_{t=0}^{T−1} ρ̂_t + ρ̂_T. (posterior sums rho[1:max_t] in R,
  // which for T = 0 selects lag 0 alone.)
  let sum = 0;
  for (let k = 0; k < Math.max(maxT, 1); k++) sum += rho[k];
  const tau = Math.max(-1 + 2 * sum + rho[maxT], 1 / Math.log10(total));
  return total / tau;
}

/**
 * posterior's `.ess_quantile` on validated chains; `sorted` (all draws in
 * ascending order) may be passed when the caller already has it.
 */
export function _essQuantile(
  chains: readonly Float64Array[],
  p: number,
  sorted: Float64Array = _pool(chains).sort(),
): number {
  // posterior's `.ess_quantile` returns NA for constant draws before it
  // looks at the indicator (which may vary for draws within ε of each other).
  if (sorted[sorted.length - 1] - sorted[0] < Number.EPSILON) return NaN;
  const prob = p === 1 ? (sorted.length - 0.5) / sorted.length : p;
  const q = _quantileSorted(sorted, prob);
  return _ess(_splitChains(_indicator(chains, q)));
}

/**
 * Basic multi-chain effective sample size: Geyer's initial positive and
 * monotone sequence estimator applied to the combined autocorrelation
 * ρ̂_t = 1 − (W − mean of chain autocovariances)/var⁺, on split chains by
 * default. Estimates how many independent draws would give the same Monte
 * Carlo error for the mean.
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) §3.2, eqs. 10–13;
 * Geyer (1992) Statistical Science 7(4) §3.3; posterior's `ess_basic`.
 *
 * @param chains Draws of one parameter, `chains[c][i]`; equal lengths, at
 * least 6 draws per chain (3 with `split: false`).
 * @param options `split` (default true): split chains in halves first.
 * @returns The ESS, at most S·log₁₀(S) for S draws in total; NaN when all
 * draws are equal.
 * @throws {TypeError} If chains is not an array of arrays of numbers.
 * @throws {RangeError} For no chains, too-short or unequal chains, or NaN/Inf.
 *
 * @example Independent draws have an ESS close to their number
 * ```ts
 * import { essBasic } from "./ess.ts";
 * import { strict as assert } from "node:assert";
 *
 * // four chains of 200 independent uniforms from a Park–Miller generator
 * let seed = 42;
 * const chain = () =>
 *   Array.from({ length: 200 }, () => (seed = (seed * 16807) % 2147483647) / 2147483647);
 * const ess = essBasic([chain(), chain(), chain(), chain()]);
 * assert.ok(ess > 400 && ess < 1600);
 * ```
 */
export function essBasic(
  chains: readonly ArrayLike<number>[],
  options: EssBasicOptions = {},
): number {
  const split = options.split ?? true;
  const valid = _chains(chains, "chains", split ? _MIN_SPLIT_DRAWS : 3);
  return _ess(split ? _splitChains(valid) : valid);
}

/**
 * Bulk effective sample size: the ESS of rank-normalised split chains. Robust
 * to heavy tails and a diagnostic of sampling efficiency in the bulk of the
 * distribution.
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) §4.1 (eq. 14) and
 * §4.3; posterior's `ess_bulk`.
 *
 * @param chains Draws of one parameter, `chains[c][i]`; equal lengths, at
 * least 6 draws per chain.
 * @returns Bulk-ESS; NaN when all draws are equal.
 * @throws {TypeError} If chains is not an array of arrays of numbers.
 * @throws {RangeError} For no chains, too-short or unequal chains, or NaN/Inf.
 *
 * @example Rank normalisation makes bulk-ESS invariant to monotone maps
 * ```ts
 * import { essBulk } from "./ess.ts";
 * import { strict as assert } from "node:assert";
 *
 * const a = Array.from({ length: 50 }, (_, i) => Math.sin(i * 1.3));
 * const b = Array.from({ length: 50 }, (_, i) => Math.cos(i * 0.7));
 * const exp = (x: number[]) => x.map(Math.exp);
 * assert.equal(essBulk([a, b]), essBulk([exp(a), exp(b)]));
 * ```
 */
export function essBulk(chains: readonly ArrayLike<number>[]): number {
  return _ess(_zScale(_splitChains(_chains(chains, "chains", _MIN_SPLIT_DRAWS))));
}

/**
 * Effective sample size for estimating the p-quantile: the ESS of the split
 * indicator chains I(x ≤ q̂_p), with q̂_p the type-7 quantile of all draws
 * (p = 1 is replaced by (S − ½)/S, as posterior does).
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) §4.3;
 * posterior's `ess_quantile`.
 *
 * @param chains Draws of one parameter, `chains[c][i]`; equal lengths, at
 * least 6 draws per chain.
 * @param p Probability in [0, 1].
 * @returns The quantile ESS; NaN when the indicator is constant.
 * @throws {TypeError} If chains is not an array of arrays of numbers.
 * @throws {RangeError} For bad chains or p outside [0, 1].
 *
 * @example ESS of the median
 * ```ts
 * import { essQuantile } from "./ess.ts";
 * import { strict as assert } from "node:assert";
 *
 * const chain = (k: number) => Array.from({ length: 100 }, (_, i) => Math.sin(i * k));
 * assert.ok(essQuantile([chain(1.1), chain(2.3)], 0.5) > 0);
 * ```
 */
export function essQuantile(chains: readonly ArrayLike<number>[], p: number): number {
  _probability(p, "p");
  return _essQuantile(_chains(chains, "chains", _MIN_SPLIT_DRAWS), p);
}

/**
 * Tail effective sample size: the smaller of the quantile ESS at 5% and 95%,
 * a diagnostic of sampling efficiency in the tails (and of chains that differ
 * in scale).
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) §4.3;
 * posterior's `ess_tail`.
 *
 * @param chains Draws of one parameter, `chains[c][i]`; equal lengths, at
 * least 6 draws per chain.
 * @returns min(ESS(q₀.₀₅), ESS(q₀.₉₅)).
 * @throws {TypeError} If chains is not an array of arrays of numbers.
 * @throws {RangeError} For no chains, too-short or unequal chains, or NaN/Inf.
 *
 * @example
 * ```ts
 * import { essTail } from "./ess.ts";
 * import { strict as assert } from "node:assert";
 *
 * const chain = (k: number) => Array.from({ length: 400 }, (_, i) => Math.sin(i * k));
 * assert.ok(essTail([chain(1.1), chain(2.3)]) > 0);
 * ```
 */
export function essTail(chains: readonly ArrayLike<number>[]): number {
  return _essTail(_chains(chains, "chains", _MIN_SPLIT_DRAWS));
}

/** Tail-ESS of validated chains (`sorted`: all draws ascending, if at hand). */
export function _essTail(
  chains: readonly Float64Array[],
  sorted: Float64Array = _pool(chains).sort(),
): number {
  return Math.min(_essQuantile(chains, 0.05, sorted), _essQuantile(chains, 0.95, sorted));
}

/**
 * Effective sample size for the mean: the basic ESS of the split chains
 * (identical to {@linkcode essBasic} with its default options).
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) §3.2;
 * posterior's `ess_mean`.
 *
 * @param chains Draws of one parameter, `chains[c][i]`; equal lengths, at
 * least 6 draws per chain.
 * @returns The ESS for the mean; NaN when all draws are equal.
 * @throws {TypeError} If chains is not an array of arrays of numbers.
 * @throws {RangeError} For no chains, too-short or unequal chains, or NaN/Inf.
 *
 * @example
 * ```ts
 * import { essBasic, essMean } from "./ess.ts";
 * import { strict as assert } from "node:assert";
 *
 * const chains = [[1, 3, 2, 5, 4, 6, 2, 1], [2, 2, 4, 1, 3, 5, 6, 1]];
 * assert.equal(essMean(chains), essBasic(chains));
 * ```
 */
export function essMean(chains: readonly ArrayLike<number>[]): number {
  return _ess(_splitChains(_chains(chains, "chains", _MIN_SPLIT_DRAWS)));
}

/**
 * Effective sample size for the standard deviation: the ESS of the split
 * chains of (x − x̄)² (x̄ the mean of all draws), as in posterior ≥ 1.6.1
 * (1.5 used |x − x̄|); the same quantity {@linkcode mcseSd} uses.
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) §4.3;
 * posterior's `ess_sd` (stan-dev/posterior commit b962b63, "use the same
 * equation in ess_sd as in mcse_sd").
 *
 * @param chains Draws of one parameter, `chains[c][i]`; equal lengths, at
 * least 6 draws per chain.
 * @returns The ESS for the standard deviation.
 * @throws {TypeError} If chains is not an array of arrays of numbers.
 * @throws {RangeError} For no chains, too-short or unequal chains, or NaN/Inf.
 *
 * @example
 * ```ts
 * import { essSd } from "./ess.ts";
 * import { strict as assert } from "node:assert";
 *
 * const chain = (k: number) => Array.from({ length: 100 }, (_, i) => Math.sin(i * k));
 * assert.ok(essSd([chain(1.1), chain(2.3)]) > 0);
 * ```
 */
export function essSd(chains: readonly ArrayLike<number>[]): number {
  const valid = _chains(chains, "chains", _MIN_SPLIT_DRAWS);
  const pooled = _pool(valid);
  const mean = _mean(pooled);
  return _ess(_splitChains(valid.map((chain) => chain.map((v) => (v - mean) * (v - mean)))));
}
