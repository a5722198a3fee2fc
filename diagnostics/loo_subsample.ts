/**
 * Subsampling PSIS-LOO for tall data (Magnusson, Andersen, Jonasson &
 * Vehtari 2019 "Bayesian leave-one-out cross-validation for large data",
 * ICML; Magnusson, Andersen, Jonasson & Vehtari 2020 "Leave-one-out
 * cross-validation for Bayesian model comparison in large data", AISTATS).
 *
 * ```
 *  all n rows ── one pass at θ̄ (plpd) or K passes (lpd) ──→ π̃ᵢ ≈ elpd_loo,i
 *  m rows (simple random sample) × S draws → PSIS-LOO (loo.ts) → elpd_loo,i
 *  difference estimator:  Σᵢ π̃ᵢ + (n/m) Σ_{i∈sample} (elpd_loo,i − π̃ᵢ)
 * ```
 *
 * The approximation π̃ᵢ is log p(yᵢ | θ̄) at the posterior mean θ̄ ("plpd",
 * one data pass) or log of the mean of p(yᵢ | θˢ) over K thinned draws
 * ("lpd", K passes). With eᵢ = elpd_loo,i − π̃ᵢ on the m sampled rows:
 *
 * - estimate  ŷ = t_π + t_e, t_π = Σₙ π̃ᵢ, t_e = n · mean(e);
 * - subsampling variance  v̂ = n² (1 − m/n) var(e) / m (var with divisor m − 1);
 * - the variance of elpd_loo over the data (the square of full PSIS-LOO's SE),
 *   σ̂² = t_π² + n · mean(elpd² − π̃²) − (t_e² − v̂ + 2 t_π ŷ − t_π²) / n, with
 *   t_π² = Σₙ π̃ᵢ² (the 2020 paper's estimator, as R loo 2.5.1's `srs_diff_est`).
 *
 * p_loo is estimated by simple random sampling, n · mean(p_loo,i), with
 * SE √(n var) and subsampling SE √(n²(1 − m/n) var / m) (as R loo 2.5.1).
 * A requested subsampling SE sets m: after each batch m grows to
 * ⌈n² s² / (SE² + n s²)⌉ (s² = var(e)), the m for which v̂ = SE², until v̂ ≤ SE²
 * or m = n. The estimators of a total are in total_estimates.ts; the
 * comparison of subsampled fits is in loo_compare.ts.
 *
 * @module
 */

import {
  type LogLikMatrix,
  loo,
  looCombine,
  type LooPointwise,
  type LooResult,
  type ParetoKBands,
  pointwiseLogLik,
  type PointwiseLogLikModel,
} from "./loo.ts";
import { differenceEstimate, sampleVariance, srsEstimate } from "./total_estimates.ts";
import { _describe } from "./_util.ts";

/** How each observation's elpd_loo is approximated from all n rows. */
export type LooApproximation = "plpd" | "lpd";

/** Options for {@linkcode looSubsample}. */
export interface LooSubsampleOptions {
  /**
   * The subsample: a size m (default 400, at most n), drawn uniformly
   * without replacement from `seed`, or the 0-based row indices themselves
   * (distinct).
   */
  observations?: number | ArrayLike<number>;
  /**
   * Subsampling SE of elpd_loo to reach: m grows from `observations` (a size)
   * until the estimated subsampling SE is at most this (or m = n).
   */
  targetSe?: number;
  /**
   * `"plpd"` (default): log p(yᵢ | θ̄), θ̄ the mean of the (thinned) draws, one
   * data pass; `"lpd"`: log of the mean over the thinned draws of p(yᵢ | θˢ),
   * one pass per draw.
   */
  approximation?: LooApproximation;
  /**
   * Draws used by the approximation, taken as R loo's `.thin_draws`: draw
   * j · ⌊S / K⌋ (1-based) for j = 1 … K. Default: all S for plpd, min(S, 100)
   * for lpd.
   */
  approximationDraws?: number;
  /** Chain id of each draw, for the relative efficiencies of the sampled rows. */
  chainIds?: ArrayLike<number>;
  /** Relative efficiency: one for all, or one per row (n values; default 1 or from `chainIds`). */
  rEff?: number | ArrayLike<number>;
  /** Seed of the subsample (default 1). */
  seed?: number;
  /**
   * π̃ already computed (n values, e.g. by {@linkcode elpdLooApproximation}):
   * skips the data pass; reported as `approximation`.
   */
  elpdLooApprox?: ArrayLike<number>;
}

/** An estimate with its two standard errors. */
export interface LooSubsampleEstimate {
  /** Estimate of the sum over all n observations. */
  estimate: number;
  /**
   * SE from the data: the estimate of √(n · var(pointwise)), what full
   * PSIS-LOO reports as its SE.
   */
  se: number;
  /** SE from using m of the n observations (0 when m = n). */
  subsamplingSe: number;
}

/** The result of {@linkcode looSubsample} or {@linkcode looSubsampleFromPointwise}. */
export interface LooSubsampleResult {
  /** elpd_loo by the difference estimator. */
  elpdLoo: LooSubsampleEstimate;
  /** p_loo by simple random sampling. */
  pLoo: LooSubsampleEstimate;
  /** −2 elpd_loo (SEs doubled). */
  looic: LooSubsampleEstimate;
  /** Number of observations n. */
  numObservations: number;
  /** Number of draws S. */
  numDraws: number;
  /** The sampled rows, 0-based, increasing (m of them). */
  indices: Int32Array;
  /** The approximation π̃ᵢ of every observation's elpd_loo (n values). */
  elpdLooApprox: Float64Array;
  /** How π̃ was made (`"given"` when passed in by the caller). */
  approximation: LooApproximation | "given";
  /** PSIS-LOO values of the sampled rows, in the order of `indices`. */
  pointwise: LooPointwise;
  /** min(1 − 1/log₁₀ S, 0.7). */
  kThreshold: number;
  /** The sampled rows counted by Pareto k̂ band. */
  bands: ParetoKBands;
}

/** Rows per kernel call in the approximation's data pass. */
const _BLOCK = 1 << 16;

/** A uniform 32-bit generator (mulberry32) for the subsample's row draws. */
function _uniform(seed: number): () => number {
  let a = (seed >>> 0) ^ 0x9e3779b9;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A random permutation of 0 … n − 1 revealed one element at a time (a
 * Fisher–Yates shuffle whose swaps are kept in a map), so a simple random
 * sample can grow without replacement in O(m) memory.
 */
class _LazyPermutation {
  #swaps = new Map<number, number>();
  #next = 0;
  readonly #n: number;
  readonly #u: () => number;
  constructor(n: number, seed: number) {
    this.#n = n;
    this.#u = _uniform(seed);
  }
  take(k: number): number[] {
    const out: number[] = [];
    for (let c = 0; c < k && this.#next < this.#n; c++, this.#next++) {
      const j = this.#next;
      const t = j + Math.floor(this.#u() * (this.#n - j));
      const vt = this.#swaps.get(t) ?? t;
      this.#swaps.set(t, this.#swaps.get(j) ?? j);
      this.#swaps.delete(j);
      out.push(vt);
    }
    return out;
  }
}

function _checkIndices(idx: ArrayLike<number>, n: number, what: string): Int32Array {
  const out = new Int32Array(idx.length);
  for (let j = 0; j < idx.length; j++) {
    const v = idx[j];
    if (!Number.isInteger(v) || v < 0 || v >= n) {
      throw new RangeError(
        `${what}: observation index ${j + 1} must be an integer in 0 … ${n - 1}, got ${
          _describe(v)
        }`,
      );
    }
    out[j] = v;
  }
  out.sort();
  for (let j = 1; j < out.length; j++) {
    if (out[j] === out[j - 1]) {
      throw new RangeError(`${what}: observation index ${out[j]} is listed twice`);
    }
  }
  if (out.length < 2) {
    throw new RangeError(`${what}: needs at least 2 observations, got ${out.length}`);
  }
  return out;
}

/**
 * Subsampling estimates from PSIS-LOO of the sampled rows and an
 * approximation of every row's elpd_loo: the arithmetic of
 * {@linkcode looSubsample} without a model.
 *
 * @param elpdLooApprox π̃ᵢ for all n observations.
 * @param indices The m sampled observations (0-based, distinct).
 * @param subsample {@linkcode loo} of those m observations, in the order of `indices`.
 * @param approximation What π̃ is (reported back; default `"given"`).
 */
export function looSubsampleFromPointwise(
  elpdLooApprox: ArrayLike<number>,
  indices: ArrayLike<number>,
  subsample: LooResult,
  approximation: LooSubsampleResult["approximation"] = "given",
): LooSubsampleResult {
  const n = elpdLooApprox.length;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(elpdLooApprox[i])) {
      throw new RangeError(
        `looSubsample: the approximation of observation ${i} is ${elpdLooApprox[i]}`,
      );
    }
  }
  if (subsample.numObservations !== indices.length) {
    throw new RangeError(
      `looSubsample: the loo result has ${subsample.numObservations} observations, ` +
        `the indices ${indices.length}`,
    );
  }
  // Sort the indices and the pointwise values together.
  const order = Array.from({ length: indices.length }, (_, j) => j).sort((a, b) =>
    indices[a] - indices[b]
  );
  const idx = _checkIndices(order.map((j) => indices[j]), n, "looSubsample");
  const p = subsample.pointwise;
  const pick = (x: Float64Array) => Float64Array.from(order, (j) => x[j]);
  const pointwise: LooPointwise = {
    elpdLoo: pick(p.elpdLoo),
    pLoo: pick(p.pLoo),
    looic: pick(p.looic),
    paretoK: pick(p.paretoK),
    mcseElpdLoo: pick(p.mcseElpdLoo),
    rEff: pick(p.rEff),
  };
  const elpdLoo = differenceEstimate(elpdLooApprox, pointwise.elpdLoo, idx);
  return {
    elpdLoo,
    pLoo: srsEstimate(pointwise.pLoo, n),
    looic: {
      estimate: -2 * elpdLoo.estimate,
      se: 2 * elpdLoo.se,
      subsamplingSe: 2 * elpdLoo.subsamplingSe,
    },
    numObservations: n,
    numDraws: subsample.numDraws,
    indices: idx,
    elpdLooApprox: Float64Array.from(elpdLooApprox),
    approximation,
    pointwise,
    kThreshold: subsample.kThreshold,
    bands: subsample.bands,
  };
}

/** R loo's `.thin_draws`: draws j · ⌊S/K⌋ − 1 (0-based), j = 1 … K. */
function _thin<T>(draws: readonly T[], k: number): T[] {
  const step = Math.floor(draws.length / k);
  return Array.from({ length: k }, (_, j) => draws[(j + 1) * step - 1]);
}

/**
 * π̃ᵢ for all n rows of `model`: log p(yᵢ | θ̄) (plpd) or the log mean of
 * p(yᵢ | θˢ) over the draws (lpd), in blocks of rows.
 *
 * @param model The model.
 * @param draws The draws to use (already thinned).
 * @param approximation `"plpd"` or `"lpd"`.
 */
export function elpdLooApproximation(
  model: PointwiseLogLikModel,
  draws: readonly ArrayLike<number>[],
  approximation: LooApproximation = "plpd",
): Float64Array {
  const n = model.numRows, d = model.dim;
  for (let s = 0; s < draws.length; s++) {
    if (draws[s]?.length !== d) {
      throw new RangeError(
        `looSubsample: draw ${s + 1} must have ${d} parameters, got ${draws[s]?.length}`,
      );
    }
  }
  const thetas: Float64Array[] = [];
  if (approximation === "plpd") {
    const mean = new Float64Array(d);
    for (const th of draws) for (let j = 0; j < d; j++) mean[j] += th[j];
    for (let j = 0; j < d; j++) mean[j] /= draws.length;
    thetas.push(mean);
  } else if (approximation === "lpd") {
    for (const th of draws) thetas.push(Float64Array.from(th));
  } else {
    throw new RangeError(
      `looSubsample: approximation must be "plpd" or "lpd", got ${_describe(approximation)}`,
    );
  }
  const out = new Float64Array(n);
  const block = Math.min(_BLOCK, n);
  const rows = new Int32Array(block), perRow = new Float64Array(block);
  // lpd: a running log-sum-exp per row (max in `out`, scaled sum in `acc`).
  const acc = thetas.length > 1 ? new Float64Array(n) : null;
  for (let start = 0; start < n; start += block) {
    const len = Math.min(block, n - start);
    const r = len === block ? rows : rows.subarray(0, len);
    const pr = len === block ? perRow : perRow.subarray(0, len);
    for (let i = 0; i < len; i++) r[i] = start + i;
    for (let t = 0; t < thetas.length; t++) {
      model.logLikelihoodRows(thetas[t], r, { perRow: pr });
      for (let i = 0; i < len; i++) {
        const v = pr[i], k = start + i;
        if (Number.isNaN(v) || v === Infinity) {
          throw new RangeError(`looSubsample: row ${k + 1} has log-likelihood ${v}`);
        }
        if (acc === null) out[k] = v;
        else if (t === 0) {
          out[k] = v;
          acc[k] = 1;
        } else if (v <= out[k]) acc[k] += Math.exp(v - out[k]);
        else {
          acc[k] = acc[k] * Math.exp(out[k] - v) + 1;
          out[k] = v;
        }
      }
    }
  }
  if (acc !== null) {
    const logK = Math.log(thetas.length);
    for (let k = 0; k < n; k++) out[k] += Math.log(acc[k]) - logK;
  }
  for (let k = 0; k < n; k++) {
    if (out[k] === -Infinity) {
      throw new RangeError(
        `looSubsample: row ${k + 1} has zero likelihood at the ${
          approximation === "plpd" ? "posterior mean" : "draws"
        } (approximation ${approximation}); it cannot be approximated`,
      );
    }
  }
  return out;
}

/**
 * A simple random sample of m of the n rows (0-based, increasing), drawn
 * without replacement from `seed`: the first m of a seeded random
 * permutation, so that the sample of a larger m with the same seed contains
 * that of a smaller m.
 *
 * @param n Number of rows.
 * @param m Sample size (0 … n).
 * @param seed Non-negative integer.
 */
export function subsampleIndices(n: number, m: number, seed = 1): Int32Array {
  if (!Number.isInteger(n) || n < 0) {
    throw new RangeError(`subsampleIndices: n must be a non-negative integer, got ${_describe(n)}`);
  }
  if (!Number.isInteger(m) || m < 0 || m > n) {
    throw new RangeError(`subsampleIndices: m must be an integer in 0 … ${n}, got ${_describe(m)}`);
  }
  if (!Number.isInteger(seed) || seed < 0) {
    throw new RangeError(`subsampleIndices: seed must be a non-negative integer, got ${seed}`);
  }
  return Int32Array.from(new _LazyPermutation(n, seed).take(m)).sort();
}

/** Log-likelihood values held at once by {@linkcode looFromModel} (S × rows per block). */
const _CELLS_PER_BLOCK = 1 << 22;

/**
 * PSIS-LOO of a model's rows at the draws, computed in blocks of rows so that
 * the S × n log-likelihood matrix is never held whole.
 *
 * @param model A model with per-row log-likelihoods (e.g. a `GlmModel`).
 * @param draws S parameter vectors.
 * @param options `rows` (default all, in order), and `chainIds` or `rEff`
 *   (one for all, or one per row of the model) as {@linkcode loo}.
 */
export function looFromModel(
  model: PointwiseLogLikModel,
  draws: readonly ArrayLike<number>[],
  options: {
    rows?: ArrayLike<number>;
    chainIds?: ArrayLike<number>;
    rEff?: number | ArrayLike<number>;
  } = {},
): LooResult {
  const n = model.numRows;
  const rows = options.rows === undefined
    ? Int32Array.from({ length: n }, (_, i) => i)
    : Int32Array.from(options.rows);
  const r = options.rEff;
  if (r !== undefined && options.chainIds !== undefined) {
    throw new TypeError("looSubsample: give either rEff or chainIds, not both");
  }
  if (r !== undefined && typeof r !== "number" && r.length !== n) {
    throw new RangeError(`looSubsample: rEff must have one value per row (${n}), got ${r.length}`);
  }
  const block = Math.max(1, Math.floor(_CELLS_PER_BLOCK / Math.max(1, draws.length)));
  const parts: LooResult[] = [];
  for (let start = 0; start < rows.length; start += block) {
    const b = rows.subarray(start, Math.min(rows.length, start + block));
    const ll: LogLikMatrix = pointwiseLogLik(model, draws, b);
    if (r === undefined) parts.push(loo(ll, { chainIds: options.chainIds }));
    else if (typeof r === "number") parts.push(loo(ll, { rEff: r }));
    else parts.push(loo(ll, { rEff: Array.from(b, (i) => r[i]) }));
  }
  return looCombine(parts);
}

/**
 * Subsampling PSIS-LOO of a model with per-row log-likelihoods: the
 * approximation π̃ᵢ of every row (one data pass for plpd), PSIS-LOO on m rows
 * drawn by simple random sampling (m × S row evaluations), and the
 * difference estimator. With `targetSe`, m grows until the subsampling SE of
 * elpd_loo is at most `targetSe`.
 *
 * @param model A model with `dim`, `numRows` and `logLikelihoodRows` (e.g. a `GlmModel`).
 * @param draws S parameter vectors of length `model.dim`.
 * @param options Subsample size or rows, approximation, relative efficiency, seed.
 *
 * @example
 * ```ts ignore
 * const ss = looSubsample(model, draws, { observations: 400, chainIds });
 * ss.elpdLoo; // { estimate, se, subsamplingSe }
 * ```
 */
export function looSubsample(
  model: PointwiseLogLikModel,
  draws: readonly ArrayLike<number>[],
  options: LooSubsampleOptions = {},
): LooSubsampleResult {
  const n = model.numRows, s = draws.length;
  if (!Array.isArray(draws) || s < 2) {
    throw new TypeError(`looSubsample: needs at least 2 draws, got ${_describe(draws)}`);
  }
  const approximation = options.approximation ?? "plpd";
  const k = options.approximationDraws ?? (approximation === "lpd" ? Math.min(s, 100) : s);
  if (!Number.isInteger(k) || k < 1 || k > s) {
    throw new RangeError(
      `looSubsample: approximationDraws must be an integer in 1 … ${s}, got ${_describe(k)}`,
    );
  }
  const target = options.targetSe;
  if (target !== undefined && !(target > 0 && Number.isFinite(target))) {
    throw new RangeError(`looSubsample: targetSe must be positive, got ${_describe(target)}`);
  }
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0) {
    throw new RangeError(`looSubsample: seed must be a non-negative integer, got ${seed}`);
  }
  const obs = options.observations ?? Math.min(400, n);
  const approx = options.elpdLooApprox !== undefined
    ? Float64Array.from(options.elpdLooApprox)
    : elpdLooApproximation(model, k === s ? draws : _thin(draws, k), approximation);
  if (approx.length !== n) {
    throw new RangeError(
      `looSubsample: elpdLooApprox must have one value per row (${n}), got ${approx.length}`,
    );
  }
  const looOf = (rows: Int32Array): LooResult =>
    looFromModel(model, draws, { rows, chainIds: options.chainIds, rEff: options.rEff });
  if (typeof obs !== "number") {
    if (target !== undefined) {
      throw new TypeError("looSubsample: give targetSe with a subsample size, not with indices");
    }
    const idx = _checkIndices(obs, n, "looSubsample");
    return looSubsampleFromPointwise(approx, idx, looOf(idx), approximation);
  }
  if (!Number.isInteger(obs) || obs < 2 || obs > n) {
    throw new RangeError(
      `looSubsample: observations must be an integer in 2 … ${n} (the rows), got ${_describe(obs)}`,
    );
  }
  const perm = new _LazyPermutation(n, seed);
  const indices: number[] = [];
  const parts: LooResult[] = [];
  let want = obs;
  for (;;) {
    const fresh = Int32Array.from(perm.take(want - indices.length));
    indices.push(...fresh);
    parts.push(looOf(fresh));
    const r = looSubsampleFromPointwise(approx, indices, looCombine(parts), approximation);
    const m = indices.length;
    if (target === undefined || m === n || r.elpdLoo.subsamplingSe <= target) return r;
    const e = Float64Array.from(r.indices, (i, j) => r.pointwise.elpdLoo[j] - approx[i]);
    const s2 = sampleVariance(e);
    const need = Math.ceil((n * n * s2) / (target * target + n * s2));
    // At least 10 % more per round: var(e) is itself estimated.
    want = Math.min(n, Math.max(need, Math.ceil(m * 1.1), m + 1));
  }
}
