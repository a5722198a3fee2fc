/**
 * Tuning of HMC-ECS (Dang et al. 2019, §6.3 and §5.1): a cheap initial θ*,
 * the subsample size m of the perturbed variant and (λ, a) of the signed
 * variant.
 *
 * **θ\* from a subset** ({@link subsetMap}): the MAP of
 * log p(θ) + (n/ñ) Σ_{k ∈ S} ℓₖ(θ) on a random subset S of ñ = ⌈f·n⌉ rows
 * (f = 1 %), by damped Newton. Its negative Hessian (n/ñ)·(−ΣHₖ) − ∇²log p is
 * the Laplace precision, used for the first mass matrix and for the pilot θ
 * draws below. Cost: ñ rows per gradient and per Hessian evaluation.
 *
 * **Pilot** ({@link pilotDifferences}): at K draws θ₁…θ_K from a Gaussian
 * around θ* (the Laplace approximation, inflated by √(n/ñ) before θ* has been
 * re-centred on the full-data posterior, because the subset MAP is then about
 * √(n/ñ) posterior sds off), the mean d̄(θ) and variance s²(θ) of
 * dₖ(θ) = ℓₖ(θ) − qₖ(θ) over a pilot sample of rows.
 *
 * **Perturbed m** ({@link chooseSubsampleSize}): with ωₖ = 1/n,
 * Var ℓ̂ₘ(θ) = n² s²(θ)/m, so the smallest m with mean_K Var ℓ̂ₘ ≤ σ²_target
 * (default 1, Pitt et al. 2012) is m = ⌈n² s̄²/σ²_target⌉.
 *
 * **Signed λ and a** ({@link blockPoissonTuning}): each mini-batch estimate
 * d̂ of eq. 15 has mean D(θ) = Σₖdₖ(θ) and sd σ = n s/√m. With a = D̃ − λ,
 * D̃ the pilot mean of D over the θ draws, each factor is
 * (d̂ − a)/λ = 1 + Z/λ with Z = (d̂ − D(θ)) + (D(θ) − D̃) ≈ N(0, σ² + s_D²),
 * s_D the spread of D(θ) over the posterior (a is fixed while θ moves):
 *
 * ```
 *  P(factor < 0)   = Φ(−λ/σ_tot),  σ_tot² = σ² + s_D²                (normal approx.)
 *  #negative factors ~ Pois(λ Φ(−λ/σ_tot))  ⇒  τ = P(L̂ ≥ 0) = (1 + exp(−2λΦ(−λ/σ_tot)))/2
 *  Var log|L̂| | θ  = λ E[log²|1 + Z/λ|] ≈ σ²/λ                    (compound Poisson, σ ≪ λ)
 * ```
 *
 * For CT = IF/(2τ−1)² × cost (eq. 18) we take the cost per iteration ∝ λm
 * and, conservatively ignoring the correlation of u over iterations, the
 * inefficiency of an independence pseudo-marginal step whose log-estimate
 * has variance s² = σ²/λ: acceptance 2Φ(−s/√2), IF(s) = Φ(s/√2)/Φ(−s/√2)
 * (Pitt et al. 2012's perfect-proposal model). Then
 *
 * ```
 *  CT(λ) ∝ λ · Φ(s/√2)/Φ(−s/√2) · exp(4λΦ(−λ/σ)),   s² = σ²/λ
 * ```
 *
 * which for σ ≫ 1 is minimised near Var log|L̂| = s² ≈ 2.5 (λ ≈ 0.4σ²), and
 * moves to larger λ when λ/σ is small enough for negative factors to matter.
 *
 * References: Dang et al. (2019) §4.1, §5.1, §6.3, eq. 18; Quiroz et al.
 * (2019, 2018b); Pitt et al. (2012); Lyne et al. (2015).
 *
 * @module
 */
import { valueOrMinusInfinity } from "../core/reference.ts";
import type { GlmKernels } from "../core/glm_kernels.ts";
import { LoadedRowBuffer, type RowBuffer } from "../core/row_buffer.ts";
import type { ExternalGlmModel } from "../models/external_glm.ts";
import type { GlmModel } from "../models/glm.ts";
import {
  type CompactGlmRows,
  type ExternalGlmRows,
  subsamplingSupport,
} from "../models/subsampling_support.ts";
import type { Rng } from "../random/rng.ts";
import type { SubsampleControlVariates } from "./control_variates.ts";
import {
  EXTERNAL_CHUNK_ROWS,
  externalKernels,
  externalSubsetHessianSum,
  loadExternalRows,
} from "./external_rows.ts";
import { GatheredRows } from "./gathered_rows.ts";

/** Options of {@link subsetMap}. */
export interface SubsetMapOptions {
  /** Fraction f of rows in the subset (default 0.01). */
  fraction?: number;
  /** Minimum subset size (default 1000, capped at n). */
  minRows?: number;
  /** Maximum Newton iterations (default 50). */
  maxIterations?: number;
  /** Stop when the Newton decrement ½gᵀ(−H)⁻¹g falls below this (default 1e-10). */
  tolerance?: number;
  /** Starting point (default zeros). */
  initialPosition?: Float64Array;
  /**
   * Called once the subset is drawn, before any row is read: the generator
   * is not used again by the fit (for a caller that starts the next draws
   * elsewhere meanwhile).
   */
  afterDraw?: () => void;
}

/**
 * {@link SubsetMapOptions} with their defaults, checked, for n rows: the
 * Newton settings, the subset size ñ = min(n, max(minRows, ⌈f·n⌉)) and the
 * scale n/ñ of its log-likelihood.
 *
 * @internal Shared by the subset fits (glmSubsetMap here, rowsSubsetMap in ./subset_fit.ts).
 */
export function resolveSubsetMapOptions(
  n: number,
  options: SubsetMapOptions,
): { maxIt: number; tol: number; sub: number; scale: number } {
  const fraction = options.fraction ?? 0.01;
  if (!(fraction > 0 && fraction <= 1)) {
    throw new RangeError(`fraction must be in (0, 1], got ${fraction}`);
  }
  const maxIt = options.maxIterations ?? 50, tol = options.tolerance ?? 1e-10;
  const sub = Math.min(n, Math.max(options.minRows ?? 1000, Math.ceil(fraction * n)));
  return { maxIt, tol, sub, scale: n / sub };
}

/** Result of {@link subsetMap}. */
export interface SubsetMapResult {
  /** The subset MAP, used as θ*. */
  thetaStar: Float64Array;
  /** −∇² of the scaled subset log posterior at θ* (d × d, positive definite). */
  precision: Float64Array;
  /** Subset size ñ. */
  numSubsetRows: number;
  /** Newton iterations made. */
  numIterations: number;
  /** Rows whose Hessian contribution Hₖ was evaluated (ñ per Hessian; for pass accounting). */
  numHessianRows: number;
}

/**
 * θ* as the MAP of the prior plus the likelihood of a random ñ-row subset
 * scaled by n/ñ, by Newton's method with backtracking (counted in `model.cost`).
 *
 * @param model A GLM posterior (in memory, or an external GLM whose subset rows are read by index).
 * @param rng Generator for the subset.
 * @param options Subset fraction and Newton settings.
 * @returns θ*, the Laplace precision and the subset size.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { Rng } from "../random/rng.ts";
 * import { subsetMap } from "./tuning.ts";
 * const arena = loadCore({ backend: "reference" });
 * const x = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? 1 : Math.sin(i)));
 * const y = Array.from({ length: 200 }, (_, i) => (Math.sin(2 * i + 1) > 0.3 ? 1 : 0));
 * const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: 2 }), { family: "logistic" });
 * const r = subsetMap(model, new Rng(1), { fraction: 1 });
 * assert.equal(r.numSubsetRows, 200);
 * assert.equal(r.thetaStar.length, 2);
 * ```
 * References: Dang et al. (2019) §6.3 ("MAP on 1 % of the data"); Quiroz et al. (2019) §4.
 */
export function subsetMap(
  model: GlmModel | ExternalGlmModel,
  rng: Rng,
  options: SubsetMapOptions = {},
): SubsetMapResult {
  return glmSubsetMap(_glmRows(model, "subsetMap"), rng, options);
}

/** The GLM rows of `model`, or the error for a family that takes the per-row path. */
function _glmRows(
  model: GlmModel | ExternalGlmModel,
  who: string,
): CompactGlmRows | ExternalGlmRows {
  const rows = subsamplingSupport(model)?.rows;
  if (rows === undefined || rows.kind === "per-row") {
    throw new TypeError(
      `${who} runs on gathered GLM rows (compact families); family ${model.family} takes the per-row path (subsetFit in subsampling/subset_fit.ts)`,
    );
  }
  return rows;
}

/**
 * {@link subsetMap} on GLM rows as {@link subsamplingSupport} describes them
 * (the prior and cost counter are `rows.glm`'s).
 *
 * @param rows Compact GLM rows in memory or an external GLM's rows.
 * @param rng Generator for the subset.
 * @param options Subset fraction and Newton settings.
 * @returns θ*, the Laplace precision and the subset size.
 */
export function glmSubsetMap(
  rows: CompactGlmRows | ExternalGlmRows,
  rng: Rng,
  options: SubsetMapOptions = {},
): SubsetMapResult {
  const model = rows.glm;
  const n = model.numRows, d = model.dim;
  const { maxIt, tol, sub, scale } = resolveSubsetMapOptions(n, options);
  const drawn = rng.sampleWithoutReplacement(n, sub);
  options.afterDraw?.();
  const { rows: buffer, kernels } = _subsetRows(rows, drawn);
  const all = { start: 0, end: sub };
  const priorGrad = new Float64Array(d), priorHess = new Float64Array(d * d);
  const gv = new Float64Array(d), hv = new Float64Array(d * d);
  const evalF = (theta: Float64Array, wantGrad: boolean, g: Float64Array): number => {
    const ll = kernels.logLikelihood(buffer, theta, {
      range: all,
      grad: wantGrad ? gv : undefined,
    });
    model.cost.numLogLikRows += sub;
    const lp = model.logPrior(theta, priorGrad);
    if (wantGrad) {
      model.cost.numGradRows += sub;
      for (let j = 0; j < d; j++) g[j] = priorGrad[j] + scale * gv[j];
    }
    return lp + scale * ll;
  };
  const negHess = (theta: Float64Array, out: Float64Array): void => {
    kernels.hessian(buffer, theta, { out: hv, range: all });
    model.cost.numHessianRows += sub;
    numHessianRows += sub;
    model.logPriorHessian(theta, priorHess);
    for (let i = 0; i < d * d; i++) out[i] = -(priorHess[i] + scale * hv[i]);
  };
  let theta = options.initialPosition
    ? Float64Array.from(options.initialPosition)
    : new Float64Array(d);
  const g = new Float64Array(d), prec = new Float64Array(d * d), trial = new Float64Array(d);
  let f = evalF(theta, true, g);
  let it = 0, numHessianRows = 0, converged = false;
  try {
    for (; it < maxIt; it++) {
      negHess(theta, prec);
      const step = _choleskySolve(_cholesky(prec), g); // (−H)⁻¹ g: an ascent direction
      let dec = 0;
      for (let j = 0; j < d; j++) dec += g[j] * step[j];
      if (dec / 2 < tol) {
        converged = true; // prec is already the precision at θ
        break;
      }
      let t = 1, found = false;
      for (let k = 0; k < 60 && !found; k++) {
        for (let j = 0; j < d; j++) trial[j] = theta[j] + t * step[j];
        found = valueOrMinusInfinity(() => evalF(trial, false, g)) >= f + 1e-4 * t * dec;
        if (!found) t /= 2;
      }
      // No ascent along the Newton direction: stay at θ (never at a point
      // outside the likelihood's domain or of lower density).
      if (!found) break;
      theta = Float64Array.from(trial);
      f = evalF(theta, true, g);
    }
    if (!converged) negHess(theta, prec);
  } finally {
    buffer.dispose();
  }
  return {
    thetaStar: theta,
    precision: prec,
    numSubsetRows: sub,
    numIterations: it,
    numHessianRows,
  };
}

/** Result of {@link subsetHessian}. */
export interface SubsetHessianResult {
  /** (n/ñ) Σ_{k ∈ S} Hₖ(θ): the likelihood part only, d × d row-major. */
  hessian: Float64Array;
  /** Subset size ñ (rows whose Hₖ was evaluated). */
  numSubsetRows: number;
}

/**
 * An unbiased subsample estimate (n/ñ) Σ_{k ∈ S} Hₖ(θ) of the full-data
 * log-likelihood Hessian B = Σₖ Hₖ(θ) from a random ñ-row subset S (counted
 * in `model.cost` as ñ Hessian rows, as the full-data Hessian counts n). An
 * external GLM's subset is read and summed in chunks of
 * {@link EXTERNAL_CHUNK_ROWS} rows when larger (the same sum up to rounding),
 * and all n rows are its own Hessian pass.
 *
 * @param model A GLM posterior (in memory, or an external GLM whose subset rows are read by index).
 * @param rng Generator for the subset.
 * @param options θ, the fraction f (ñ = ⌈f·n⌉, at least `minRows`, default 1000).
 * @returns The scaled Hessian and ñ.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { Rng } from "../random/rng.ts";
 * import { subsetHessian } from "./tuning.ts";
 * const arena = loadCore({ backend: "reference" });
 * const x = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? 1 : Math.sin(i)));
 * const y = Array.from({ length: 200 }, (_, i) => i % 2);
 * const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: 2 }), { family: "logistic" });
 * const theta = new Float64Array([0.1, 0.2]), full = new Float64Array(4);
 * model.logLikelihoodHessian(theta, full);
 * const est = subsetHessian(model, new Rng(1), { theta, fraction: 1 });
 * assert.ok(Math.abs(est.hessian[0] - full[0]) < 1e-9);
 * ```
 * References: Dang et al. (2019) §6.3 (M from the Hessian at θ*).
 */
export function subsetHessian(
  model: GlmModel | ExternalGlmModel,
  rng: Rng,
  options: { theta: Float64Array; fraction: number; minRows?: number },
): SubsetHessianResult {
  // Any GLM's kernels give its Hessian rows, compact family or not: only an
  // external GLM reads its rows by index.
  const rows = subsamplingSupport(model)?.rows;
  const glmRows: CompactGlmRows | ExternalGlmRows = rows?.kind === "external-glm"
    ? rows
    : { kind: "compact-glm", glm: model as GlmModel, passes: null };
  return glmSubsetHessian(glmRows, rng, options);
}

/**
 * {@link subsetHessian} on GLM rows as {@link subsamplingSupport} describes them.
 *
 * @param glmRows Compact GLM rows in memory or an external GLM's rows.
 * @param rng Generator for the subset.
 * @param options θ, the fraction f (ñ = ⌈f·n⌉, at least `minRows`, default 1000).
 * @returns The scaled Hessian and ñ.
 */
export function glmSubsetHessian(
  glmRows: CompactGlmRows | ExternalGlmRows,
  rng: Rng,
  options: { theta: Float64Array; fraction: number; minRows?: number },
): SubsetHessianResult {
  const model = glmRows.glm;
  const n = model.numRows, d = model.dim, fraction = options.fraction;
  if (!(fraction > 0 && fraction <= 1)) {
    throw new RangeError(`fraction must be in (0, 1], got ${fraction}`);
  }
  const sub = Math.min(n, Math.max(options.minRows ?? 1000, Math.ceil(fraction * n)));
  const hessian = new Float64Array(d * d);
  if (glmRows.kind === "external-glm" && sub > EXTERNAL_CHUNK_ROWS) {
    const hv = externalSubsetHessianSum(glmRows.glm, rng, options.theta, sub);
    const scale = n / sub;
    for (let i = 0; i < d * d; i++) hessian[i] = scale * hv[i];
    return { hessian, numSubsetRows: sub };
  }
  const { rows, kernels } = _subsetRows(
    glmRows,
    sub === n ? Int32Array.from({ length: n }, (_, i) => i) : rng.sampleWithoutReplacement(n, sub),
  );
  const hv = new Float64Array(d * d);
  try {
    kernels.hessian(rows, options.theta, { out: hv, range: { start: 0, end: sub } });
    model.cost.numHessianRows += sub;
    const scale = n / sub;
    for (let i = 0; i < d * d; i++) hessian[i] = scale * hv[i];
  } finally {
    rows.dispose();
  }
  return { hessian, numSubsetRows: sub };
}

/**
 * m distinct indices drawn uniformly from {0, …, n − 1}, in increasing order:
 * the first m distinct values of uniform draws with replacement (a uniformly
 * random m-subset by symmetry), marked in a bitset of n bits and read off in
 * order — m draws and n/32 words, where drawing in random order and sorting
 * costs a hash set of m entries and an m log m sort (≈ 30× the time at
 * m = 1.6·10⁶). For m > n/2 the n − m rows left out are drawn instead.
 *
 * @param rng Generator.
 * @param n Population size.
 * @param m Sample size, 0 ≤ m ≤ n.
 * @returns The indices, increasing.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "../random/rng.ts";
 * import { sortedSubset } from "./tuning.ts";
 * const s = sortedSubset(new Rng(1), 100, 30);
 * assert.equal(new Set(s).size, 30);
 * assert.ok(s.every((v, i) => v >= 0 && v < 100 && (i === 0 || v > s[i - 1])));
 * ```
 */
export function sortedSubset(rng: Rng, n: number, m: number): Int32Array {
  return rng.sortedSample(n, m);
}

/** Result of {@link glmSubsetGradient}. */
export interface SubsetGradientResult {
  /** (n/ñ) Σ_{k ∈ S} ∇ℓₖ(θ): the likelihood part only (length d). */
  gradient: Float64Array;
  /** Subset size ñ. */
  numSubsetRows: number;
}

/**
 * An unbiased subsample estimate (n/ñ) Σ_{k ∈ S} ∇ℓₖ(θ) of the full-data
 * log-likelihood gradient from a random ñ-row subset S of a GLM in memory or
 * outside it (an external GLM's rows are read by index), gathered and
 * evaluated `chunkRows` rows at a time so that memory stays at one chunk
 * whatever ñ (counted in `model.cost` as ñ ℓ and ñ ∇ℓ rows: the kernel
 * computes both in one sweep). S ({@link sortedSubset}) is visited in
 * increasing row order, so each chunk is a narrow band of the rows: a row
 * store file is then read nearly sequentially (one span per band) and memory
 * is gathered in address order.
 * Both placements sum the same rows in the same chunks, so an external GLM
 * over the same rows gives the in-memory estimate bit for bit.
 *
 * @param glmRows The model's rows (in memory, or an external GLM's).
 * @param rng Generator for the subset.
 * @param options θ, the fraction f (ñ = ⌈f·n⌉, at least 1000) and the chunk size (default 10⁵).
 * @returns The estimate and ñ.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { subsamplingSupport } from "../models/subsampling_support.ts";
 * import { Rng } from "../random/rng.ts";
 * import { glmSubsetGradient } from "./tuning.ts";
 * const x = Float64Array.from({ length: 4000 }, (_, i) => (i % 2 ? Math.sin(i) : 1));
 * const y = Float64Array.from({ length: 2000 }, (_, i) => i % 3 === 0 ? 1 : 0);
 * const model = new GlmModel(glmDataFromArrays(loadCore(), x, y, { numCols: 2 }), { family: "logistic" });
 * const rows = subsamplingSupport(model)!.rows;
 * const full = new Float64Array(2);
 * model.logLikelihood(new Float64Array(2), full);
 * const r = glmSubsetGradient(rows as never, new Rng(1), { theta: new Float64Array(2), fraction: 1, chunkRows: 700 });
 * assert.ok(Math.abs(r.gradient[0] - full[0]) < 1e-9 * Math.abs(full[0]));
 * ```
 */
export function glmSubsetGradient(
  glmRows: CompactGlmRows | ExternalGlmRows,
  rng: Rng,
  options: { theta: Float64Array; fraction: number; chunkRows?: number },
): SubsetGradientResult {
  const model = glmRows.glm;
  const n = model.numRows, d = model.dim, fraction = options.fraction;
  if (!(fraction > 0 && fraction <= 1)) {
    throw new RangeError(`fraction must be in (0, 1], got ${fraction}`);
  }
  const sub = Math.min(n, Math.max(1000, Math.ceil(fraction * n)));
  const indices = sub === n
    ? Int32Array.from({ length: n }, (_, i) => i)
    : sortedSubset(rng, n, sub);
  const chunk = Math.max(1, Math.min(sub, options.chunkRows ?? 100_000));
  const gradient = new Float64Array(d), gv = new Float64Array(d);
  if (glmRows.kind === "compact-glm") {
    // Rows in memory: the kernel reads them by index in place (the same
    // arithmetic, in the same order, as on a buffer gathered from them),
    // without copying ≈ f·n rows first.
    const data = glmRows.glm.data, kernels = glmRows.glm.kernels;
    for (let s = 0; s < sub; s += chunk) {
      const k = Math.min(chunk, sub - s);
      kernels.logLikelihood(data, options.theta, { rows: indices.subarray(s, s + k), grad: gv });
      for (let j = 0; j < d; j++) gradient[j] += gv[j];
    }
  } else {
    const { rows, kernels, fill } = _chunkRows(glmRows, chunk);
    try {
      for (let s = 0; s < sub; s += chunk) {
        const k = Math.min(chunk, sub - s);
        fill(indices.subarray(s, s + k));
        kernels.logLikelihood(rows, options.theta, { range: { start: 0, end: k }, grad: gv });
        for (let j = 0; j < d; j++) gradient[j] += gv[j];
      }
    } finally {
      rows.dispose();
    }
  }
  model.cost.numLogLikRows += sub;
  model.cost.numGradRows += sub;
  const scale = n / sub;
  for (let j = 0; j < d; j++) gradient[j] *= scale;
  return { gradient, numSubsetRows: sub };
}

/**
 * Draws θ = center + s·L⁻ᵀz, z ~ N(0, I), from N(center, s²P⁻¹) where P = LLᵀ.
 *
 * @param center The mean (length d).
 * @param options `precision` P (d × d, positive definite), `count`, `rng`,
 *   `scale` s (default 1).
 * @returns `count` draws.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { Rng } from "../random/rng.ts";
 * import { laplaceDraws } from "./tuning.ts";
 * const t = laplaceDraws(new Float64Array([1]), { precision: new Float64Array([4]), count: 2, rng: new Rng(1) });
 * assert.equal(t.length, 2);
 * ```
 * References: Dang et al. (2019) §6.3 (Σ(θ*) = −H⁻¹).
 */
export function laplaceDraws(
  center: Float64Array,
  options: { precision: Float64Array; count: number; rng: Rng; scale?: number },
): Float64Array[] {
  const d = center.length, s = options.scale ?? 1;
  if (options.precision.length !== d * d) {
    throw new RangeError(`precision must be ${d} × ${d}, got ${options.precision.length} values`);
  }
  const l = _cholesky(options.precision);
  const out: Float64Array[] = [];
  for (let k = 0; k < options.count; k++) {
    const z = new Float64Array(d);
    for (let j = 0; j < d; j++) z[j] = options.rng.normal();
    const x = _solveUpper(l, z); // Lᵀx = z
    out.push(center.map((c, j) => c + s * x[j]));
  }
  return out;
}

/** Pilot statistics of dₖ(θ) = ℓₖ(θ) − qₖ(θ) at several θ. */
export interface PilotDifferences {
  /** Number of data rows n. */
  numRows: number;
  /** Pilot sample size. */
  pilotSize: number;
  /** d̄(θₖ): mean of dₖ over the pilot rows, per θ. */
  mean: Float64Array;
  /** s²(θₖ): variance of dₖ over the pilot rows, per θ. */
  variance: Float64Array;
}

/**
 * Mean and variance of dₖ(θ) over a random pilot sample of rows (drawn with
 * replacement), at each θ given. Costs pilotSize log-likelihood rows per θ.
 *
 * @param cv Control variates centred at the current θ*.
 * @param options `thetas`, `rng`, `pilotSize` (default min(1000, n)).
 * @returns The pilot statistics.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { Rng } from "../random/rng.ts";
 * import { ControlVariates } from "./control_variates.ts";
 * import { pilotDifferences } from "./tuning.ts";
 * const arena = loadCore({ backend: "reference" });
 * const x = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? 1 : Math.sin(i)));
 * const y = Array.from({ length: 200 }, (_, i) => i % 2);
 * const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: 2 }), { family: "logistic" });
 * const cv = new ControlVariates(model, new Float64Array(2));
 * const p = pilotDifferences(cv, { thetas: [new Float64Array(2)], rng: new Rng(1) });
 * assert.equal(p.variance[0], 0); // d ≡ 0 at θ = θ*
 * ```
 * References: Dang et al. (2019) §4.1; Quiroz et al. (2019) §3.
 */
export function pilotDifferences(
  cv: SubsampleControlVariates,
  options: { thetas: readonly Float64Array[]; rng: Rng; pilotSize?: number },
): PilotDifferences {
  const n = cv.numRows, size = options.pilotSize ?? Math.min(1000, n);
  if (!Number.isInteger(size) || size < 2) {
    throw new RangeError(`pilotSize must be an integer ≥ 2, got ${size}`);
  }
  const rows = cv.createRows(size);
  const K = options.thetas.length;
  const mean = new Float64Array(K), variance = new Float64Array(K);
  try {
    cv.gatherRows(rows, options.rng.sampleWithReplacement(n, size), 0);
    for (let k = 0; k < K; k++) {
      cv.differences(rows, options.thetas[k], { start: 0, end: size, derivative: false });
      pilotMomentsInto(rows.diffs(0, size), size, mean, variance, k);
    }
  } finally {
    rows.dispose();
  }
  return { numRows: n, pilotSize: size, mean, variance };
}

/**
 * @internal mean[k] and variance[k] (divisor size − 1) of dv[0 … size): in a
 * function of its own, so that the optimising compiler compiles these loops
 * alone rather than the whole pilot around them (called once per chain).
 *
 * @param dv The pilot's differences.
 * @param size How many of them.
 * @param mean Receives the mean at k.
 * @param variance Receives the variance at k.
 * @param k The pilot θ's index.
 */
export function pilotMomentsInto(
  dv: Float64Array,
  size: number,
  mean: Float64Array,
  variance: Float64Array,
  k: number,
): void {
  let s = 0;
  for (let i = 0; i < size; i++) s += dv[i];
  const mu = s / size;
  let ss = 0;
  for (let i = 0; i < size; i++) ss += (dv[i] - mu) ** 2;
  mean[k] = mu;
  variance[k] = ss / (size - 1);
}

/**
 * The smallest m with estimated Var ℓ̂ₘ = n² s̄²/m ≤ `targetVariance`, where
 * s̄² is the pilot variance of dₖ averaged over the pilot θ's, clamped to
 * [minSize, maxSize].
 *
 * @param pilot Pilot statistics from {@link pilotDifferences}.
 * @param options `targetVariance` (default 1), `minSize` (default 100),
 *   `maxSize` (default n).
 * @returns m.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { chooseSubsampleSize } from "./tuning.ts";
 * const pilot = { numRows: 2048, pilotSize: 100, mean: new Float64Array(1), variance: new Float64Array([2 ** -13]) };
 * assert.equal(chooseSubsampleSize(pilot, { targetVariance: 1 }), 512); // n²s̄² = 2²²·2⁻¹³
 * ```
 * References: Dang et al. (2019) §3.1 and §6.3; Pitt et al. (2012); Quiroz et al. (2019).
 */
export function chooseSubsampleSize(
  pilot: PilotDifferences,
  options: { targetVariance?: number; minSize?: number; maxSize?: number } = {},
): number {
  const n = pilot.numRows, target = options.targetVariance ?? 1;
  if (!(target > 0) || !Number.isFinite(target)) {
    throw new RangeError(`targetVariance must be positive and finite, got ${target}`);
  }
  const lo = options.minSize ?? 100, hi = options.maxSize ?? n;
  const s2 = _mean(pilot.variance);
  const m = Math.ceil((n * n * s2) / target);
  return Math.max(Math.min(lo, hi), Math.min(hi, Number.isFinite(m) ? m : hi));
}

/** Result of {@link blockPoissonTuning}. */
export interface BlockPoissonTuning {
  /** s_D: the spread of D(θ) = Σₖdₖ(θ) over the pilot θ's. */
  differenceSumSd: number;
  /** λ minimising the predicted CT. */
  numProducts: number;
  /** a = D̃ − λ. */
  lowerBound: number;
  /** D̃: the pilot estimate of Σₖdₖ(θ) (mean over pilot θ's). */
  differenceSum: number;
  /** σ: the sd of one mini-batch estimate d̂ (n s̄/√m). */
  batchSd: number;
  /** Predicted Var log|L̂| ≈ σ²/λ. */
  varianceLogAbs: number;
  /** Predicted probability Φ(−λ/σ_tot) that one factor is negative. */
  probNegativeFactor: number;
  /** Predicted τ = P(L̂ ≥ 0). */
  probPositive: number;
  /** Predicted relative CT (λ·m·IF/(2τ−1)²) at the chosen λ. */
  relativeCost: number;
}

/**
 * λ and a of the block-Poisson estimator minimising the predicted
 * CT(λ) ∝ λm · IF(σ²/λ)/(2τ − 1)² (see the module documentation).
 *
 * @param pilot Pilot statistics from {@link pilotDifferences}.
 * @param options `batchSize` m (default 30), `minProducts` (default 10),
 *   `maxProducts` (default 10000).
 * @returns λ, a and the predicted quantities.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { blockPoissonTuning } from "./tuning.ts";
 * // σ = n s/√m = 1e6 · 3e-5 · … chosen so that σ ≈ 15.
 * const pilot = { numRows: 1e6, pilotSize: 1000, mean: new Float64Array([1e-7]),
 *   variance: new Float64Array([(15 / 1e6) ** 2 * 30]) };
 * const t = blockPoissonTuning(pilot, { batchSize: 30 });
 * assert.ok(t.numProducts > 50 && t.numProducts < 150);
 * assert.ok(t.probPositive > 0.99);
 * ```
 * References: Dang et al. (2019) §5.1, eq. 18; Quiroz et al. (2018b); Pitt et al. (2012).
 */
export function blockPoissonTuning(
  pilot: PilotDifferences,
  options: { batchSize?: number; minProducts?: number; maxProducts?: number } = {},
): BlockPoissonTuning {
  const m = options.batchSize ?? 30, n = pilot.numRows;
  const lo = options.minProducts ?? 10, hi = options.maxProducts ?? 10000;
  if (!Number.isInteger(m) || m < 1) {
    throw new RangeError(`batchSize must be a positive integer, got ${m}`);
  }
  if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo < 1 || hi < lo) {
    throw new RangeError(`need integers 1 ≤ minProducts ≤ maxProducts, got ${lo} and ${hi}`);
  }
  const sigma = (n * Math.sqrt(_mean(pilot.variance))) / Math.sqrt(m);
  const D = n * _mean(pilot.mean);
  let sdD = 0;
  for (const v of pilot.mean) sdD += (n * v - D) ** 2;
  sdD = pilot.mean.length > 1 ? Math.sqrt(sdD / (pilot.mean.length - 1)) : 0;
  const sigmaTot = Math.sqrt(sigma * sigma + sdD * sdD);
  let best = lo, bestCt = Infinity;
  for (let lam = lo; lam <= hi; lam++) {
    const ct = predictedBlockPoissonCost(sigma, lam, sigmaTot) * m;
    if (ct < bestCt) {
      bestCt = ct;
      best = lam;
    }
  }
  const p = sigmaTot > 0 ? normalCdf(-best / sigmaTot) : 0;
  return {
    differenceSumSd: sdD,
    numProducts: best,
    lowerBound: D - best,
    differenceSum: D,
    batchSd: sigma,
    varianceLogAbs: (sigma * sigma) / best,
    probNegativeFactor: p,
    probPositive: (1 + Math.exp(-2 * best * p)) / 2,
    relativeCost: bestCt,
  };
}

/**
 * Predicted CT per unit mini-batch size, λ·IF(σ²/λ)/(2τ−1)², of the
 * block-Poisson estimator with mini-batch sd σ and λ products.
 *
 * @param sigma sd σ of one mini-batch estimate d̂ at fixed θ.
 * @param numProducts λ.
 * @param sigmaTotal sd of d̂ − D̃ including the spread of D(θ) over the
 *   posterior, used for the probability of a negative factor (default σ).
 * @returns The predicted relative cost.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { predictedBlockPoissonCost } from "./tuning.ts";
 * assert.equal(predictedBlockPoissonCost(0, 5), 5); // no noise, IF = 1, τ = 1
 * ```
 * References: Dang et al. (2019) eq. 18; Pitt et al. (2012).
 */
export function predictedBlockPoissonCost(
  sigma: number,
  numProducts: number,
  sigmaTotal: number = sigma,
): number {
  const lam = numProducts;
  if (!(sigma >= 0)) throw new RangeError(`sigma must be non-negative, got ${sigma}`);
  if (!(lam > 0)) throw new RangeError(`numProducts must be positive, got ${lam}`);
  const s = sigma / Math.sqrt(lam);
  const ifactor = normalCdf(s / Math.SQRT2) / normalCdf(-s / Math.SQRT2);
  const pNeg = sigmaTotal > 0 ? normalCdf(-lam / sigmaTotal) : 0;
  return lam * ifactor * Math.exp(4 * lam * pNeg);
}

/**
 * The standard normal cdf Φ (via a Chebyshev-fitted erfc, |error| < 1.2e-7
 * relative).
 *
 * @param z Argument.
 * @returns Φ(z).
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { normalCdf } from "./tuning.ts";
 * assert.equal(normalCdf(0), 0.5);
 * ```
 * References: Press et al., Numerical Recipes (2007), §6.2 (erfc).
 */
export function normalCdf(z: number): number {
  if (z === 0) return 0.5;
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const r = t * Math.exp(
    -x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
                  t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
                                  t * (-0.82215223 + t * 0.17087277)))))))),
  );
  return z > 0 ? 1 - 0.5 * r : 0.5 * r;
}

function _mean(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s / x.length;
}

/** Lower Cholesky factor of a symmetric positive-definite d × d matrix (row-major). */
function _cholesky(a: Float64Array): Float64Array {
  const d = Math.round(Math.sqrt(a.length));
  const l = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0.5 * (a[i * d + j] + a[j * d + i]);
      for (let k = 0; k < j; k++) s -= l[i * d + k] * l[j * d + k];
      if (i === j) {
        if (!(s > 0)) {
          throw new RangeError(`matrix is not positive definite (pivot ${s} at row ${i})`);
        }
        l[i * d + i] = Math.sqrt(s);
      } else l[i * d + j] = s / l[j * d + j];
    }
  }
  return l;
}

/** Solve Lᵀx = b for lower-triangular L. */
function _solveUpper(l: Float64Array, b: Float64Array): Float64Array {
  const d = b.length, x = Float64Array.from(b);
  for (let i = d - 1; i >= 0; i--) {
    for (let k = i + 1; k < d; k++) x[i] -= l[k * d + i] * x[k];
    x[i] /= l[i * d + i];
  }
  return x;
}

/** Solve (LLᵀ)x = b. */
function _choleskySolve(l: Float64Array, b: Float64Array): Float64Array {
  const d = b.length, y = Float64Array.from(b);
  for (let i = 0; i < d; i++) {
    for (let k = 0; k < i; k++) y[i] -= l[i * d + k] * y[k];
    y[i] /= l[i * d + i];
  }
  return _solveUpper(l, y);
}

/** The subset's rows in a buffer the model's kernels read: gathered, or read from outside. */
function _subsetRows(
  glmRows: CompactGlmRows | ExternalGlmRows,
  indices: Int32Array,
): { rows: RowBuffer; kernels: GlmKernels } {
  const { rows, kernels, fill } = _chunkRows(glmRows, indices.length);
  try {
    fill(indices);
  } catch (e) {
    rows.dispose();
    throw e;
  }
  return { rows, kernels };
}

/**
 * A buffer of `capacity` rows for either placement, the kernels that read it,
 * and `fill(indices)`, which puts those rows at its start: gathered from
 * memory, or read by index from an external GLM.
 */
function _chunkRows(
  glmRows: CompactGlmRows | ExternalGlmRows,
  capacity: number,
): { rows: RowBuffer; kernels: GlmKernels; fill: (indices: Int32Array) => void } {
  if (glmRows.kind === "external-glm") {
    const glm = glmRows.glm, { arena, kernels } = externalKernels(glm);
    const rows = new LoadedRowBuffer(arena, glm, capacity);
    return {
      rows,
      kernels,
      fill: (indices) => loadExternalRows(glm, indices, { rows, offset: 0 }),
    };
  }
  const rows = new GatheredRows(glmRows.glm.data, capacity);
  return { rows, kernels: glmRows.glm.kernels, fill: (indices) => rows.gather(indices, 0) };
}
