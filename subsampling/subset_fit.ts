/**
 * The subset fit of the subsampling samplers, one for every model: θ* as the
 * MAP of the prior plus the n/ñ-scaled likelihood of a random subset, with its
 * Laplace precision (Dang et al. 2019, §6.3), and the subsample estimate
 * (n/ñ)Σ_{k∈S}Hₖ(θ) of the full-data log-likelihood Hessian, each dispatched
 * on the model's {@link SubsamplingSupport}:
 *
 * ```
 *  rows.kind         subset fit / Hessian estimate
 *  "compact-glm"     gathered rows, GLM kernels (tuning.ts: glmSubsetMap, glmSubsetHessian)
 *  "external-glm"    rows read by index, the same kernels
 *  "per-row"         logLikelihoodRows and perRowHessians in TypeScript (below);
 *                    without per-row Hessians the full-data logLikelihoodHessian
 * ```
 *
 * HMC-ECS and the stochastic-gradient samplers both fit θ* here.
 *
 * References: Dang et al. (2019), §6.3.
 *
 * @module
 */
import { valueOrMinusInfinity } from "../core/reference.ts";
import { cholesky, choleskySolve } from "../math/linalg.ts";
import type { PerRowRows, SubsamplingSupport } from "../models/subsampling_support.ts";
import type { Rng } from "../random/rng.ts";
import {
  glmSubsetHessian,
  glmSubsetMap,
  resolveSubsetMapOptions,
  sortedSubset,
  type SubsetMapOptions,
  type SubsetMapResult,
} from "./tuning.ts";

/**
 * θ* as the MAP of the prior plus the n/ñ-scaled likelihood of a random
 * subset, with its Laplace precision (§6.3), for any model's rows.
 *
 * @param support What the model can do ({@link subsamplingSupport}).
 * @param rng Generator for the subset.
 * @param options Subset fraction, Newton settings and starting point.
 * @returns θ*, the precision and the subset size.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../examples/models/normal_gamma.ts";
 * import { subsamplingSupport } from "../models/subsampling_support.ts";
 * import { Rng } from "../random/rng.ts";
 * import { subsetFit } from "./subset_fit.ts";
 * const model = new NormalGammaModel(Float64Array.from({ length: 400 }, (_, i) => Math.sin(i)));
 * const fit = subsetFit(subsamplingSupport(model)!, new Rng(1), {
 *   fraction: 1, initialPosition: new Float64Array([0, 1]) });
 * assert.ok(Math.abs(fit.thetaStar[0] - model.posterior.muN) < 1e-3);
 * ```
 * References: Dang et al. (2019), §6.3.
 */
export function subsetFit(
  support: SubsamplingSupport,
  rng: Rng,
  options: SubsetMapOptions,
): SubsetMapResult {
  const rows = support.rows;
  return rows.kind === "per-row"
    ? rowsSubsetMap(rows, rng, options)
    : glmSubsetMap(rows, rng, options);
}

/**
 * An unbiased estimate (n/ñ) Σ_{k ∈ S} Hₖ(θ) of the full-data log-likelihood
 * Hessian from a random subset S of ⌈f·n⌉ rows (at least 1000), for any
 * model's rows: the metric's and the control variates' B without a
 * full-data Hessian pass.
 *
 * @param support What the model can do ({@link subsamplingSupport}).
 * @param rng Generator for the subset.
 * @param options θ and the fraction f.
 * @returns The estimate and ñ (the Hessian rows evaluated).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../examples/models/normal_gamma.ts";
 * import { subsamplingSupport } from "../models/subsampling_support.ts";
 * import { Rng } from "../random/rng.ts";
 * import { subsampleHessian } from "./subset_fit.ts";
 * const model = new NormalGammaModel(Float64Array.from({ length: 400 }, (_, i) => Math.sin(i)));
 * const r = subsampleHessian(subsamplingSupport(model)!, new Rng(1), {
 *   theta: new Float64Array([0, 1]), fraction: 0.5 });
 * assert.equal(r.numSubsetRows, 400); // at least 1000 rows, capped at n
 * ```
 * References: Dang et al. (2019), §6.3 (M from the Hessian at θ*).
 */
export function subsampleHessian(
  support: SubsamplingSupport,
  rng: Rng,
  options: { theta: Float64Array; fraction: number },
): { hessian: Float64Array; numSubsetRows: number } {
  const rows = support.rows;
  return rows.kind === "per-row"
    ? rowsSubsetHessian(rows, rng, options)
    : glmSubsetHessian(rows, rng, options);
}

/**
 * θ* as the MAP of log p(θ) + (n/ñ) Σ_{k ∈ subset} ℓₖ(θ) by damped Newton,
 * with the Laplace precision (the generic counterpart of `subsetMap`). The
 * Newton steps use the subset's per-row Hessians, or, for a model without
 * them, the full-data `logLikelihoodHessian` (one pass per step: the steps
 * still ascend, and the gradient is the subset's, so the fixed point is the
 * subset MAP).
 *
 * @param rowsOf The model's per-row access ({@link subsamplingSupport}'s `rows`).
 * @param rng Generator for the subset.
 * @param options Subset fraction, Newton settings, starting point (must have a finite density).
 * @returns The fit.
 */
export function rowsSubsetMap(
  rowsOf: PerRowRows,
  rng: Rng,
  options: SubsetMapOptions,
): SubsetMapResult {
  const model = rowsOf.model;
  const n = model.numRows, d = model.dim;
  const { maxIt, tol, sub, scale } = resolveSubsetMapOptions(n, options);
  const rows = rng.sampleWithoutReplacement(n, sub);
  options.afterDraw?.();
  const gLik = new Float64Array(d), gPrior = new Float64Array(d);
  const perRow = rowsOf.perRowHessians;
  const hRows = new Float64Array(perRow ? sub * d * d : d * d), hPrior = new Float64Array(d * d);
  const evalF = (theta: Float64Array, g: Float64Array | null): number => {
    const ll = model.logLikelihoodRows(theta, rows, g ? { grad: gLik } : {});
    const lp = model.logPrior(theta, gPrior);
    if (g) { for (let j = 0; j < d; j++) g[j] = gPrior[j] + scale * gLik[j]; }
    return lp + scale * ll;
  };
  let numHessianRows = 0;
  const negHess = (theta: Float64Array, out: Float64Array): void => {
    model.logPriorHessian(theta, hPrior);
    if (perRow === null) {
      model.logLikelihoodHessian(theta, hRows);
      numHessianRows += n;
      for (let i = 0; i < d * d; i++) out[i] = -(hPrior[i] + hRows[i]);
      return;
    }
    perRow.perRowHessians(theta, rows, hRows);
    numHessianRows += sub;
    for (let i = 0; i < d * d; i++) {
      let s = 0;
      for (let k = 0; k < sub; k++) s += hRows[k * d * d + i];
      out[i] = -(hPrior[i] + scale * s);
    }
  };
  let theta = options.initialPosition
    ? Float64Array.from(options.initialPosition)
    : new Float64Array(d);
  const g = new Float64Array(d), prec = new Float64Array(d * d), trial = new Float64Array(d);
  let f = evalF(theta, g);
  if (!Number.isFinite(f)) {
    throw new RangeError(
      `the subset fit needs a starting point with a finite log density, got ${f} at [${
        Array.from(theta).join(", ")
      }]; give an initial position inside the support`,
    );
  }
  let it = 0, converged = false;
  for (; it < maxIt; it++) {
    negHess(theta, prec);
    const step = choleskySolve(_levenbergCholesky(prec), g);
    let dec = 0;
    for (let j = 0; j < d; j++) dec += g[j] * step[j];
    if (!(dec / 2 >= tol)) {
      converged = true; // prec is already the precision at θ
      break;
    }
    let t = 1, found = false;
    for (let k = 0; k < 60 && !found; k++) {
      for (let j = 0; j < d; j++) trial[j] = theta[j] + t * step[j];
      found = valueOrMinusInfinity(() => evalF(trial, null)) >= f + 1e-4 * t * dec;
      if (!found) t /= 2;
    }
    // No ascent along the Newton direction: stay at θ (never at a point
    // outside the likelihood's domain, e.g. log σ beyond −700, or of lower density).
    if (!found) break;
    theta = Float64Array.from(trial);
    f = evalF(theta, g);
  }
  if (!converged) negHess(theta, prec);
  return {
    thetaStar: theta,
    precision: prec,
    numSubsetRows: sub,
    numIterations: it,
    numHessianRows,
  };
}

/**
 * (n/ñ) Σ_{k ∈ S} Hₖ(θ) over a random subset S of ⌈f·n⌉ rows (at least 1000);
 * for a model without per-row Hessians, its full-data Hessian (ñ = n).
 *
 * @param rowsOf The model's per-row access ({@link subsamplingSupport}'s `rows`).
 * @param rng Generator for the subset.
 * @param options θ and the fraction f.
 * @returns The estimate and ñ.
 */
export function rowsSubsetHessian(
  rowsOf: PerRowRows,
  rng: Rng,
  options: { theta: Float64Array; fraction: number },
): { hessian: Float64Array; numSubsetRows: number } {
  const model = rowsOf.model, perRow = rowsOf.perRowHessians;
  const n = model.numRows, d = model.dim, f = options.fraction;
  if (!(f > 0 && f <= 1)) throw new RangeError(`fraction must be in (0, 1], got ${f}`);
  if (perRow === null) {
    const hessian = new Float64Array(d * d);
    model.logLikelihoodHessian(options.theta, hessian);
    return { hessian, numSubsetRows: n };
  }
  const sub = _subsetSize(n, f);
  const rows = sub === n
    ? Int32Array.from({ length: n }, (_, i) => i)
    : rng.sampleWithoutReplacement(n, sub);
  const h = new Float64Array(sub * d * d), hessian = new Float64Array(d * d);
  perRow.perRowHessians(options.theta, rows, h);
  for (let k = 0; k < sub; k++) {
    for (let i = 0; i < d * d; i++) hessian[i] += h[k * d * d + i];
  }
  for (let i = 0; i < d * d; i++) hessian[i] *= n / sub;
  return { hessian, numSubsetRows: sub };
}

/**
 * Cholesky factor of P + τI with the smallest τ in {0, 10⁻⁸s, 10⁻⁷s, …} (s =
 * the largest |Pᵢᵢ|) that makes it positive definite: far from the mode a
 * non-GLM log posterior need not be concave, and (P + τI)⁻¹g is still an
 * ascent direction (Levenberg–Marquardt).
 */
function _levenbergCholesky(prec: Float64Array): Float64Array {
  const d = Math.round(Math.sqrt(prec.length));
  let s = 0;
  for (let i = 0; i < d; i++) s = Math.max(s, Math.abs(prec[i * d + i]));
  for (let tau = 0, k = 0; k < 40; k++, tau = tau === 0 ? 1e-8 * s : 10 * tau) {
    try {
      return cholesky(prec, { name: "subset precision", jitter: tau });
    } catch (e) {
      if (!(e instanceof RangeError) || k === 39) throw e;
    }
  }
  throw new RangeError("unreachable");
}

/**
 * Sums over a list of rows, split over threads (a `ThreadedGlmModel`'s
 * `rowsSums`): Σℓₖ with Σ∇ℓₖ into `grad`, or Σ∇²ℓₖ into `hessian`, over
 * increasing data-row indices.
 */
export interface ListedRowsSums {
  /** Rows n. */
  readonly numRows: number;
  /** Dimension d. */
  readonly dim: number;
  /** The sums (see the interface notes); returns Σℓₖ (0 for the Hessian). */
  rowsSums(
    theta: Float64Array,
    rows: Int32Array,
    out: { grad?: Float64Array; hessian?: Float64Array },
  ): number;
  /**
   * Start drawing `rng.sortedSample(numRows, m)` on another thread (`rng`
   * not advanced, and not to draw, until `finishSortedSample`); false when
   * it did not start.
   */
  beginSortedSample?(rng: Rng, m: number): boolean;
  /** The indices begun, with `rng` moved past them (null `rng`: dropped); null if none. */
  finishSortedSample?(rng: Rng | null): Int32Array | null;
}

/**
 * The subset of a later {@link threadedSubsetGradient}`(threads, rng, {
 * fraction })` drawn on one of the threads while the calling thread goes on
 * (`rng` must not draw until {@link SubsetAhead.finish}), or null when the
 * threads cannot: then threadedSubsetGradient draws it as usual. The same
 * indices either way, and `rng` ends in the same state.
 *
 * @param threads The sums over listed rows (a `ThreadedGlmModel`).
 * @param rng The generator threadedSubsetGradient would draw from.
 * @param fraction The fraction f it will be given.
 * @returns The pending draw, or null.
 */
export function beginThreadedSubset(
  threads: ListedRowsSums,
  rng: Rng,
  fraction: number,
): SubsetAhead | null {
  if (!(fraction > 0 && fraction <= 1)) {
    throw new RangeError(`fraction must be in (0, 1], got ${fraction}`);
  }
  const begin = threads.beginSortedSample, finish = threads.finishSortedSample;
  if (begin === undefined || finish === undefined) return null;
  const sub = _subsetSize(threads.numRows, fraction);
  if (!begin.call(threads, rng, sub)) return null;
  return { fraction, finish: (r) => finish.call(threads, r) };
}

/** A subset being drawn on a thread ({@link beginThreadedSubset}). */
export interface SubsetAhead {
  /** The fraction it was drawn for. */
  readonly fraction: number;
  /**
   * Wait for it: its indices, `rng` moved past their draws; with null, drop
   * it (no generator moves) and return null.
   */
  finish(rng: Rng | null): Int32Array | null;
}

/**
 * {@link subsampleHessian} on threads: (n/ñ)Σ_{k∈S}Hₖ(θ) over a random
 * subset S of ⌈f·n⌉ rows (at least 1000) drawn in increasing order
 * (`sortedSubset`), each thread summing the rows of its block. Another subset
 * than {@link subsampleHessian} draws with the same generator, and another
 * summation order: the same estimator.
 *
 * @param threads The sums over listed rows (a `ThreadedGlmModel`).
 * @param rng Generator for the subset.
 * @param options θ, the fraction f, and the subset if it was begun ahead
 *   ({@link beginThreadedSubset} with the same `threads`, `rng` and f).
 * @returns The estimate and ñ.
 */
export function threadedSubsetHessian(
  threads: ListedRowsSums,
  rng: Rng,
  options: { theta: Float64Array; fraction: number; ahead?: SubsetAhead | null },
): { hessian: Float64Array; numSubsetRows: number } {
  const d = threads.dim, hessian = new Float64Array(d * d);
  return { hessian, numSubsetRows: _threadedSubsetSum(threads, rng, options, { hessian }) };
}

/**
 * The subset gradient (n/ñ)Σ_{k∈S}∇ℓₖ(θ) on threads: a random subset S of
 * ⌈f·n⌉ rows (at least 1000) in increasing order (`sortedSubset`), each
 * thread summing the rows of its block read in place — the estimate of
 * `glmSubsetGradient` for the same subset, summed in another order.
 *
 * @param threads The sums over listed rows (a `ThreadedGlmModel`).
 * @param rng Generator for the subset.
 * @param options θ, the fraction f, and the subset if it was begun ahead
 *   ({@link beginThreadedSubset} with the same `threads`, `rng` and f).
 * @returns The estimate and ñ.
 */
export function threadedSubsetGradient(
  threads: ListedRowsSums,
  rng: Rng,
  options: { theta: Float64Array; fraction: number; ahead?: SubsetAhead | null },
): { gradient: Float64Array; numSubsetRows: number } {
  const gradient = new Float64Array(threads.dim);
  return {
    gradient,
    numSubsetRows: _threadedSubsetSum(threads, rng, options, { grad: gradient }),
  };
}

/** ⌈f·n⌉ rows, at least 1000 and at most n. */
function _subsetSize(n: number, f: number): number {
  return Math.min(n, Math.max(1000, Math.ceil(f * n)));
}

/**
 * (n/ñ)Σ_{k∈S} of the sums `out` asks for (∇ℓₖ and/or Hₖ at θ) over a sorted
 * random subset S of {@link _subsetSize} rows, on the threads; returns ñ.
 */
function _threadedSubsetSum(
  threads: ListedRowsSums,
  rng: Rng,
  options: { theta: Float64Array; fraction: number; ahead?: SubsetAhead | null },
  out: { grad?: Float64Array; hessian?: Float64Array },
): number {
  const n = threads.numRows, f = options.fraction, ahead = options.ahead ?? null;
  if (!(f > 0 && f <= 1)) throw new RangeError(`fraction must be in (0, 1], got ${f}`);
  if (ahead !== null && ahead.fraction !== f) {
    ahead.finish(null);
    throw new RangeError(`the subset begun ahead is for fraction ${ahead.fraction}, not ${f}`);
  }
  const sub = _subsetSize(n, f);
  // Drawn on a pass thread when the threads can (the same indices): there the
  // generator's code is already compiled from the refinement's draw.
  const pending = ahead ?? beginThreadedSubset(threads, rng, f);
  const list = (pending !== null ? pending.finish(rng) : null) ?? sortedSubset(rng, n, sub);
  threads.rowsSums(options.theta, list, out);
  for (const a of [out.grad, out.hessian]) {
    if (a) { for (let i = 0; i < a.length; i++) a[i] *= n / sub; }
  }
  return sub;
}
