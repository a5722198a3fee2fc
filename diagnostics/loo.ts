/**
 * Leave-one-out cross-validation by Pareto-smoothed importance sampling
 * (PSIS-LOO) from a matrix of pointwise log-likelihoods, with the Pareto k̂
 * diagnostics, relative efficiencies from chain ids, and a paired comparison
 * of several models.
 *
 * For each observation i the raw importance ratios are rₛ = 1 / p(yᵢ | θˢ).
 * The M = ⌈min(0.2 S, 3 √(S / r_eff))⌉ largest are replaced by the expected
 * order statistics of a generalized Pareto distribution fitted to their
 * exceedances over the (M+1)-th largest, the fit being the Zhang & Stephens
 * (2009) profile-posterior estimator with the weakly informative prior that
 * shrinks k̂ towards 0.5 as (M k̂ + 10 · 0.5) / (M + 10); the smoothed weights
 * are then truncated at the largest raw ratio. elpd_loo,i = log Σₛ w̃ₛ p(yᵢ|θˢ)
 * with normalized weights w̃, p_loo,i = lpdᵢ − elpd_loo,i, looicᵢ = −2 elpd_loo,i;
 * totals are sums and their standard errors √(n · var(pointwise)).
 *
 * References: Vehtari, Gelman & Gabry (2017) "Practical Bayesian model
 * evaluation using leave-one-out cross-validation and WAIC", Statistics and
 * Computing 27; Vehtari, Simpson, Gelman, Yao & Gabry (2024) "Pareto smoothed
 * importance sampling", JMLR 25(72); Zhang & Stephens (2009) "A new and
 * efficient estimation method for the generalized Pareto distribution",
 * Technometrics 51(3).
 *
 * @module
 */

import { _autocovariance } from "./fft.ts";
import { _normalQuantile } from "./_special.ts";
import { _describe } from "./_util.ts";

/** A pointwise log-likelihood matrix: S draws, each an array of n observations. */
export type LogLikMatrix = readonly ArrayLike<number>[];

/** Options for {@linkcode loo}. */
export interface LooOptions {
  /**
   * Chain id (any integer label) of each of the S draws, to compute relative
   * efficiencies r_eff per observation as {@linkcode relativeEff}. Every chain
   * must hold the same number of draws.
   */
  chainIds?: ArrayLike<number>;
  /** Relative efficiency per observation, or one for all (default 1, or from `chainIds`). */
  rEff?: number | ArrayLike<number>;
}

/** Pointwise values, one per observation. */
export interface LooPointwise {
  /** elpd_loo,i = log Σₛ w̃ₛ p(yᵢ | θˢ). */
  elpdLoo: Float64Array;
  /** p_loo,i = lpdᵢ − elpd_loo,i, with lpdᵢ = log(mean over draws of p(yᵢ | θˢ)). */
  pLoo: Float64Array;
  /** −2 elpd_loo,i. */
  looic: Float64Array;
  /** Pareto k̂ of each observation's importance ratios (Infinity when the tail is too short). */
  paretoK: Float64Array;
  /**
   * Monte Carlo SE of elpd_loo,i: the SD of log z over z = E ± SD at the 1000
   * normal scores (r − 3/8)/(1000 + 1/4), E = exp(elpd_loo,i) and SD² = Σ w̃ₛ² (p(yᵢ|θˢ) − E)²,
   * divided by √r_eff (as R loo 2.5.1; Infinity when fewer than 2 such z are positive).
   */
  mcseElpdLoo: Float64Array;
  /** Relative efficiency used for each observation's tail length. */
  rEff: Float64Array;
}

/** An estimate with its standard error. */
export interface LooEstimate {
  /** Sum over observations. */
  estimate: number;
  /** √(n · var(pointwise)), var with divisor n − 1. */
  se: number;
}

/** Counts of observations by Pareto k̂ band. */
export interface ParetoKBands {
  /** k̂ ≤ min(1 − 1/log₁₀ S, 0.7): the estimate is reliable. */
  good: number;
  /** min(1 − 1/log₁₀ S, 0.7) < k̂ ≤ 1. */
  bad: number;
  /** k̂ > 1 (including a tail too short to fit). */
  veryBad: number;
  /** k̂ > 0.7, the sample-size-free threshold. */
  above07: number;
}

/** The result of {@linkcode loo}. */
export interface LooResult {
  /** Expected log pointwise predictive density, by PSIS-LOO. */
  elpdLoo: LooEstimate;
  /** Effective number of parameters. */
  pLoo: LooEstimate;
  /** −2 elpd_loo. */
  looic: LooEstimate;
  /** Values per observation. */
  pointwise: LooPointwise;
  /** Number of draws S. */
  numDraws: number;
  /** Number of observations n. */
  numObservations: number;
  /** min(1 − 1/log₁₀ S, 0.7), the sample-size-dependent k̂ threshold. */
  kThreshold: number;
  /** Observations counted by Pareto k̂ band. */
  bands: ParetoKBands;
  /**
   * Monte Carlo SE of the elpd_loo estimate, √(Σ mcse²ᵢ); null when any k̂ > 0.7,
   * where it is not reliable (R's `mcse_loo` gives NA).
   */
  mcseElpdLoo: number | null;
}

/** Result of {@linkcode psis} for one vector of log importance ratios. */
export interface PsisResult {
  /** Smoothed, truncated log weights, normalized so that Σ exp = 1. */
  logWeights: Float64Array;
  /** Pareto k̂ (Infinity when the tail has fewer than 5 draws). */
  paretoK: number;
  /** Tail length M. */
  tailLength: number;
}

/** Normal scores used for the Monte Carlo SE of elpd_loo,i (as R loo). */
const MCSE_POINTS = 1000;

/** ⌈min(0.2 S, 3 √(S / r_eff))⌉, the number of ratios smoothed. */
export function psisTailLength(numDraws: number, rEff = 1): number {
  return Math.ceil(Math.min(0.2 * numDraws, 3 * Math.sqrt(numDraws / rEff)));
}

/** min(1 − 1/log₁₀ S, 0.7). */
export function paretoKThreshold(numDraws: number): number {
  return Math.min(1 - 1 / Math.log10(numDraws), 0.7);
}

function _logSumExp(x: ArrayLike<number>): number {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) if (x[i] > m) m = x[i];
  if (m === -Infinity || m === Infinity) return m;
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - m);
  return m + Math.log(s);
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

/** Smallest integer ≥ n (and ≥ 2) with no prime factor other than 2, 3 and 5. */
function _nextGoodSize(n: number): number {
  if (n <= 2) return 2;
  for (;; n++) {
    let m = n;
    while (m % 2 === 0) m /= 2;
    while (m % 3 === 0) m /= 3;
    while (m % 5 === 0) m /= 5;
    if (m <= 1) return n;
  }
}

/**
 * ESS of one quantity from equally long chains, by Geyer's initial positive
 * and monotone sequences without chain splitting (the estimator loo uses for
 * r_eff), capped below by τ ≥ 1/log₁₀(total draws).
 */
function _essGeyer(chains: readonly Float64Array[]): number {
  const m = chains.length, n = chains[0].length;
  // loo's FFT autocovariance divides by 2n² after padding to 2M, M ≥ n the
  // next 2ᵃ3ᵇ5ᶜ: the divisor-n autocovariance scaled by M/n.
  const scale = _nextGoodSize(n) / n;
  const acov = chains.map((c) => _autocovariance(c).map((v) => v * scale));
  const means = chains.map((c) => {
    let t = 0;
    for (let i = 0; i < n; i++) t += c[i];
    return t / n;
  });
  const meanAcov = (t: number) => {
    let a = 0;
    for (let j = 0; j < m; j++) a += acov[j][t];
    return a / m;
  };
  const meanVar = (meanAcov(0) * n) / (n - 1);
  let varPlus = (meanVar * (n - 1)) / n;
  if (m > 1) {
    let mu = 0;
    for (const v of means) mu += v;
    mu /= m;
    let ss = 0;
    for (const v of means) ss += (v - mu) * (v - mu);
    varPlus += ss / (m - 1);
  }
  const rho = new Float64Array(n);
  let t = 0;
  let even = 1;
  rho[0] = even;
  let odd = 1 - (meanVar - meanAcov(1)) / varPlus;
  rho[1] = odd;
  while (t < n - 5 && !Number.isNaN(even + odd) && even + odd > 0) {
    t += 2;
    even = 1 - (meanVar - meanAcov(t)) / varPlus;
    odd = 1 - (meanVar - meanAcov(t + 1)) / varPlus;
    if (even + odd >= 0) {
      rho[t] = even;
      rho[t + 1] = odd;
    }
  }
  const maxT = t;
  if (even > 0) rho[maxT] = even;
  t = 0;
  while (t <= maxT - 4) {
    t += 2;
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) {
      rho[t] = (rho[t - 2] + rho[t - 1]) / 2;
      rho[t + 1] = rho[t];
    }
  }
  const total = m * n;
  let sum = 0;
  for (let i = 0; i < maxT; i++) sum += rho[i];
  const tau = Math.max(-1 + 2 * sum + rho[maxT], 1 / Math.log10(total));
  return total / tau;
}

function _checkMatrix(logLik: unknown, what: string): { s: number; n: number } {
  if (!Array.isArray(logLik) || logLik.length < 2) {
    throw new TypeError(
      `${what}: logLik must be an array of at least 2 draws (each an array of observations), got ${
        _describe(logLik)
      }`,
    );
  }
  const n = (logLik[0] as ArrayLike<number>)?.length;
  if (!(typeof n === "number" && n >= 1)) {
    throw new TypeError(
      `${what}: logLik[0] must be a non-empty array, got ${_describe(logLik[0])}`,
    );
  }
  for (let s = 0; s < logLik.length; s++) {
    const row = logLik[s] as ArrayLike<number>;
    if (row?.length !== n) {
      throw new RangeError(
        `${what}: every draw must have ${n} observations; draw ${s + 1} has ${row?.length}`,
      );
    }
    for (let i = 0; i < n; i++) {
      if (typeof row[i] !== "number" || !(row[i] < Infinity) || Number.isNaN(row[i])) {
        throw new RangeError(
          `${what}: logLik[${s}][${i}] must be a number below +Infinity, got ${_describe(row[i])}`,
        );
      }
    }
  }
  return { s: logLik.length, n };
}

/** Draw indices grouped by chain (in order of first appearance of each label). */
function _chainGroups(chainIds: ArrayLike<number>, s: number, what: string): number[][] {
  if (chainIds.length !== s) {
    throw new RangeError(
      `${what}: chainIds must have one id per draw (${s}), got ${chainIds.length}`,
    );
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < s; i++) {
    const id = chainIds[i];
    if (typeof id !== "number" || !Number.isFinite(id)) {
      throw new TypeError(`${what}: chainIds[${i}] must be a finite number, got ${_describe(id)}`);
    }
    let g = groups.get(id);
    if (g === undefined) groups.set(id, g = []);
    g.push(i);
  }
  const list = [...groups.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
  const len = list[0].length;
  for (const g of list) {
    if (g.length !== len) {
      throw new RangeError(
        `${what}: every chain must have the same number of draws; got ${
          list.map((x) => x.length).join(", ")
        }`,
      );
    }
  }
  if (len < 4) throw new RangeError(`${what}: each chain needs at least 4 draws, got ${len}`);
  return list;
}

/**
 * Relative efficiency of exp(log-likelihood) per observation: its ESS over
 * the chains (Geyer's initial monotone sequence, no splitting) divided by S.
 *
 * @param logLik S × n pointwise log-likelihoods.
 * @param chainIds Chain label of each draw.
 */
export function relativeEff(logLik: LogLikMatrix, chainIds: ArrayLike<number>): Float64Array {
  const { s, n } = _checkMatrix(logLik, "relativeEff");
  const groups = _chainGroups(chainIds, s, "relativeEff");
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const chains = groups.map((g) => Float64Array.from(g, (d) => Math.exp(logLik[d][i])));
    out[i] = _essGeyer(chains) / s;
  }
  return out;
}

function _estimate(x: Float64Array): LooEstimate {
  const n = x.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += x[i];
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
  return { estimate: sum, se: n > 1 ? Math.sqrt((n * ss) / (n - 1)) : NaN };
}

/**
 * PSIS-LOO from an S × n matrix of pointwise log-likelihoods.
 *
 * @example
 * ```ts
 * import { loo } from "./loo.ts";
 * import { strict as assert } from "node:assert";
 *
 * // y = 0.3 under a N(μ, 1) likelihood with μ drawn from N(0, 0.1²)
 * const draws = Array.from({ length: 400 }, (_, s) => {
 *   const mu = 0.1 * Math.cos(s * 2.4);
 *   return [-0.5 * Math.log(2 * Math.PI) - 0.5 * (0.3 - mu) ** 2];
 * });
 * const r = loo(draws);
 * assert.ok(r.pointwise.paretoK[0] < 0.7 && r.pLoo.estimate > 0);
 * ```
 */
export function loo(logLik: LogLikMatrix, options: LooOptions = {}): LooResult {
  const { s, n } = _checkMatrix(logLik, "loo");
  let rEff: Float64Array;
  if (options.rEff !== undefined) {
    if (options.chainIds !== undefined) {
      throw new TypeError("loo: give either rEff or chainIds, not both");
    }
    const r = options.rEff;
    rEff = typeof r === "number" ? new Float64Array(n).fill(r) : Float64Array.from(r);
    if (rEff.length !== n) {
      throw new RangeError(
        `loo: rEff must have one value per observation (${n}), got ${rEff.length}`,
      );
    }
    for (let i = 0; i < n; i++) {
      if (!(rEff[i] > 0 && Number.isFinite(rEff[i]))) {
        throw new RangeError(`loo: rEff[${i}] must be positive and finite, got ${rEff[i]}`);
      }
    }
  } else if (options.chainIds !== undefined) {
    rEff = relativeEff(logLik, options.chainIds);
  } else rEff = new Float64Array(n).fill(1);

  const elpd = new Float64Array(n), pLoo = new Float64Array(n), looic = new Float64Array(n);
  const k = new Float64Array(n), mcse = new Float64Array(n);
  const zn = Float64Array.from(
    { length: MCSE_POINTS },
    (_, r) => _normalQuantile((r + 1 - 3 / 8) / (MCSE_POINTS - 3 / 4 + 1)),
  );
  const logZ = new Float64Array(MCSE_POINTS);
  const col = new Float64Array(s), neg = new Float64Array(s), tmp = new Float64Array(s);
  for (let i = 0; i < n; i++) {
    for (let d = 0; d < s; d++) {
      col[d] = logLik[d][i];
      neg[d] = -col[d];
    }
    const p = psis(neg, rEff[i]);
    k[i] = p.paretoK;
    for (let d = 0; d < s; d++) tmp[d] = col[d] + p.logWeights[d];
    elpd[i] = _logSumExp(tmp);
    pLoo[i] = _logSumExp(col) - Math.log(s) - elpd[i];
    looic[i] = -2 * elpd[i];
    const e = Math.exp(elpd[i]);
    let v = 0;
    for (let d = 0; d < s; d++) v += Math.exp(2 * p.logWeights[d]) * (Math.exp(col[d]) - e) ** 2;
    const sd = Math.sqrt(v);
    let m = 0;
    for (let r = 0; r < MCSE_POINTS; r++) {
      const z = e + sd * zn[r];
      if (z > 0) logZ[m++] = Math.log(z);
    }
    mcse[i] = m < 2 ? Infinity : Math.sqrt(_estimate(logZ.subarray(0, m)).se ** 2 / m / rEff[i]);
  }
  const kThreshold = paretoKThreshold(s);
  const bands: ParetoKBands = { good: 0, bad: 0, veryBad: 0, above07: 0 };
  for (let i = 0; i < n; i++) {
    if (k[i] <= kThreshold) bands.good++;
    else if (k[i] <= 1) bands.bad++;
    else bands.veryBad++;
    if (k[i] > 0.7) bands.above07++;
  }
  return {
    elpdLoo: _estimate(elpd),
    pLoo: _estimate(pLoo),
    looic: _estimate(looic),
    pointwise: { elpdLoo: elpd, pLoo, looic, paretoK: k, mcseElpdLoo: mcse, rEff },
    numDraws: s,
    numObservations: n,
    kThreshold,
    bands,
    mcseElpdLoo: bands.above07 > 0 ? null : Math.sqrt(mcse.reduce((a, b) => a + b * b, 0)),
  };
}

/** A model that returns per-row log-likelihoods (as `GlmModel` in models/glm.ts). */
export interface PointwiseLogLikModel {
  /** Length of a parameter vector θ. */
  readonly dim: number;
  /** Number of data rows n. */
  readonly numRows: number;
  /** Σ over `rows` of ℓᵢ(θ), writing each row's ℓᵢ(θ) into `perRow`. */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options: { perRow?: Float64Array },
  ): number;
}

/**
 * The S × n matrix of pointwise log-likelihoods ℓᵢ(θˢ) of a model at every
 * draw, for {@linkcode loo}: works for every GLM family, since each family's
 * per-row log density (normalizing constants included) comes from the model.
 *
 * @param model The model (e.g. a `GlmModel`).
 * @param draws S parameter vectors of length `model.dim`.
 * @param rows Rows to evaluate (default all n, in order).
 */
export function pointwiseLogLik(
  model: PointwiseLogLikModel,
  draws: readonly ArrayLike<number>[],
  rows?: Int32Array,
): Float64Array[] {
  const r = rows ?? Int32Array.from({ length: model.numRows }, (_, i) => i);
  const out: Float64Array[] = [];
  for (let s = 0; s < draws.length; s++) {
    const d = draws[s];
    if (d?.length !== model.dim) {
      throw new RangeError(
        `pointwiseLogLik: draw ${s + 1} must have ${model.dim} parameters, got ${d?.length}`,
      );
    }
    const perRow = new Float64Array(r.length);
    model.logLikelihoodRows(Float64Array.from(d), r, { perRow });
    for (let i = 0; i < r.length; i++) {
      if (Number.isNaN(perRow[i]) || perRow[i] === Infinity) {
        throw new RangeError(
          `pointwiseLogLik: row ${r[i] + 1} has log-likelihood ${perRow[i]} at draw ${s + 1}`,
        );
      }
    }
    out.push(perRow);
  }
  return out;
}

/** One row of {@linkcode looCompare}, best model first. */
export interface LooCompareRow {
  /** The model's name (its key or index in the input). */
  name: string;
  /** elpd_loo of this model minus that of the best (0 for the best). */
  elpdDiff: number;
  /** SE of the difference: √(n · var(pointwise differences)) (0 for the best). */
  seDiff: number;
  /** The model's elpd_loo. */
  elpdLoo: LooEstimate;
  /** The model's p_loo. */
  pLoo: LooEstimate;
  /** The model's looic. */
  looic: LooEstimate;
}

/**
 * Ranks models by elpd_loo, as R's `loo_compare`: each row's difference from
 * the best model with the standard error of the paired pointwise differences.
 *
 * @param fits Two or more {@linkcode loo} results on the same observations, by name.
 */
export function looCompare(fits: Readonly<Record<string, LooResult>>): LooCompareRow[] {
  const names = Object.keys(fits);
  if (names.length < 2) {
    throw new RangeError(`looCompare: needs at least 2 models, got ${names.length}`);
  }
  const n = fits[names[0]].numObservations;
  for (const name of names) {
    const f = fits[name];
    if (f?.pointwise?.elpdLoo?.length !== n) {
      throw new RangeError(
        `looCompare: every model must have the same ${n} observations; ${
          JSON.stringify(name)
        } has ${f?.pointwise?.elpdLoo?.length}`,
      );
    }
  }
  const order = names.map((name, i) => ({ name, i })).sort((a, b) =>
    fits[b.name].elpdLoo.estimate - fits[a.name].elpdLoo.estimate || a.i - b.i
  );
  const best = fits[order[0].name].pointwise.elpdLoo;
  const diff = new Float64Array(n);
  return order.map(({ name }, j) => {
    const f = fits[name];
    let seDiff = 0, elpdDiff = 0;
    if (j > 0) {
      for (let i = 0; i < n; i++) diff[i] = f.pointwise.elpdLoo[i] - best[i];
      const e = _estimate(diff);
      elpdDiff = e.estimate;
      seDiff = e.se;
    }
    return { name, elpdDiff, seDiff, elpdLoo: f.elpdLoo, pLoo: f.pLoo, looic: f.looic };
  });
}

export {
  elpdLooApproximation,
  type LooApproximation,
  looCombine,
  looCompareSubsample,
  type LooFit,
  looFromModel,
  looSubsample,
  type LooSubsampleCompareRow,
  type LooSubsampleEstimate,
  looSubsampleFromPointwise,
  type LooSubsampleOptions,
  type LooSubsampleResult,
  subsampleIndices,
} from "./loo_subsample.ts";
