/**
 * Leave-one-out cross-validation by Pareto-smoothed importance sampling
 * (PSIS-LOO) from a matrix of pointwise log-likelihoods, with the Pareto k̂
 * diagnostics and relative efficiencies from chain ids. This module is the
 * `./diagnostics/loo` entry point: it also exports PSIS itself (psis.ts), the
 * comparison of models (loo_compare.ts) and subsampling LOO for tall data
 * (loo_subsample.ts).
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
import { paretoKThreshold, psis } from "./psis.ts";
import { totalEstimate } from "./total_estimates.ts";
import { _normalQuantile } from "./_special.ts";
import { _describe, _logSumExp } from "./_util.ts";

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

/** Normal scores used for the Monte Carlo SE of elpd_loo,i (as R loo). */
const MCSE_POINTS = 1000;

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
    mcse[i] = m < 2
      ? Infinity
      : Math.sqrt(totalEstimate(logZ.subarray(0, m)).se ** 2 / m / rEff[i]);
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
    elpdLoo: totalEstimate(elpd),
    pLoo: totalEstimate(pLoo),
    looic: totalEstimate(looic),
    pointwise: { elpdLoo: elpd, pLoo, looic, paretoK: k, mcseElpdLoo: mcse, rEff },
    numDraws: s,
    numObservations: n,
    kThreshold,
    bands,
    mcseElpdLoo: bands.above07 > 0 ? null : Math.sqrt(mcse.reduce((a, b) => a + b * b, 0)),
  };
}

/**
 * One PSIS-LOO result from results on disjoint sets of observations (PSIS is
 * done observation by observation, so this is the result of all of them at
 * once): pointwise values concatenated in order, totals, SEs, bands and the
 * Monte Carlo SE recomputed.
 *
 * @param parts {@linkcode loo} results with the same number of draws.
 */
export function looCombine(parts: readonly LooResult[]): LooResult {
  if (parts.length === 0) throw new RangeError("looCombine: needs at least 1 result, got 0");
  if (parts.length === 1) return parts[0];
  const s = parts[0].numDraws;
  if (parts.some((p) => p.numDraws !== s)) {
    throw new RangeError(
      `looCombine: every result must have the same draws; got ${parts.map((p) => p.numDraws)}`,
    );
  }
  const keys = ["elpdLoo", "pLoo", "looic", "paretoK", "mcseElpdLoo", "rEff"] as const;
  const total = parts.reduce((a, p) => a + p.numObservations, 0);
  const pointwise = {} as LooPointwise;
  for (const k of keys) {
    const x = new Float64Array(total);
    let off = 0;
    for (const p of parts) {
      x.set(p.pointwise[k], off);
      off += p.numObservations;
    }
    pointwise[k] = x;
  }
  const bands: ParetoKBands = { good: 0, bad: 0, veryBad: 0, above07: 0 };
  for (const p of parts) {
    for (const b of ["good", "bad", "veryBad", "above07"] as const) bands[b] += p.bands[b];
  }
  return {
    elpdLoo: totalEstimate(pointwise.elpdLoo),
    pLoo: totalEstimate(pointwise.pLoo),
    looic: totalEstimate(pointwise.looic),
    pointwise,
    numDraws: s,
    numObservations: total,
    kThreshold: parts[0].kThreshold,
    bands,
    mcseElpdLoo: bands.above07 > 0
      ? null
      : Math.sqrt(pointwise.mcseElpdLoo.reduce((a, b) => a + b * b, 0)),
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

export { gpdFit, paretoKThreshold, psis, type PsisResult, psisTailLength } from "./psis.ts";
export {
  looCompare,
  type LooCompareRow,
  looCompareSubsample,
  type LooFit,
  type LooSubsampleCompareRow,
} from "./loo_compare.ts";
export {
  elpdLooApproximation,
  type LooApproximation,
  looFromModel,
  looSubsample,
  type LooSubsampleEstimate,
  looSubsampleFromPointwise,
  type LooSubsampleOptions,
  type LooSubsampleResult,
  subsampleIndices,
} from "./loo_subsample.ts";
