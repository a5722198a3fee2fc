/**
 * Subsampling over a GLM whose rows live outside this WebAssembly instance
 * ({@link ExternalGlmModel}): rows are read by index into a small local
 * buffer, and their control-variate cache rows are computed where they land.
 *
 * ```
 *  externalKernels(model)   this side's arena and the family's kernels (one per model)
 *  loadExternalRows         rows by index → a LoadedRowBuffer (x, y; no cache)
 *  ExternalControlVariates  θ*, S, A, B from model.controlVariateSums (one full-data
 *                           pass, counted by the model); gathered rows get their
 *                           (η*ₖ, ℓₖ*, aₖ, bₖ) from xₖ, yₖ and θ* with the kernel the
 *                           in-memory per-row cache is filled by (the same values,
 *                           bit for bit), so nothing of size n is ever allocated
 *  externalSubsetHessianSum Σ_{k∈S}Hₖ(θ) over a random subset, read in chunks of
 *                           EXTERNAL_CHUNK_ROWS rows (bounded memory at any n)
 * ```
 *
 * Cost: computing the cache rows of k gathered rows counts k log-likelihood
 * and k gradient rows (what a centring pass counts per row), on top of the
 * model's own count of its full-data passes.
 *
 * References: Dang et al. (2019), eqs. 11 and 14; docs/architecture.md, "Data beyond
 * memory".
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { GlmKernels } from "../core/glm_kernels.ts";
import { loadCore } from "../core/load.ts";
import { LoadedRowBuffer, type RowBuffer } from "../core/row_buffer.ts";
import type { Rng } from "../random/rng.ts";
import type { ExternalGlmModel } from "../models/external_glm.ts";
import {
  countedDifferences,
  type RowRange,
  type SubsampleControlVariates,
  type TaylorOrder,
  taylorSum,
} from "./control_variates.ts";
import {
  type EstimateInCore,
  estimateInCore,
  type EstimateInCoreOptions,
} from "./subsample_control_variates.ts";

/** This side's arena and kernels for an external GLM's rows. */
export interface ExternalKernels {
  /** The arena local buffers live in. */
  readonly arena: Arena;
  /** The family's kernels, bound to that arena. */
  readonly kernels: GlmKernels;
}

const _contexts = new WeakMap<ExternalGlmModel, ExternalKernels>();

/**
 * The arena and kernels that evaluate an external GLM's gathered rows here
 * (created on first use, one per model; the arena holds only buffers of
 * gathered rows).
 *
 * @param model The external GLM.
 * @returns Its local arena and kernels.
 * @throws {TypeError} If the family has no compact control-variate cache.
 */
export function externalKernels(model: ExternalGlmModel): ExternalKernels {
  let c = _contexts.get(model);
  if (c !== undefined) return c;
  const family = model.family;
  if (
    (family !== "logistic" && family !== "poisson" && family !== "gaussian") ||
    (model.auxColumn ?? null) !== null
  ) {
    throw new TypeError(
      `an external GLM needs a family whose control variates expand in η ("logistic", "poisson" without an offset, "gaussian"), got ${
        JSON.stringify(family)
      }${
        (model.auxColumn ?? null) !== null
          ? ` with ${model.auxColumn === "offset" ? "an offset" : "a trials"} column`
          : ""
      }`,
    );
  }
  if (model.numCols !== model.dim) {
    throw new RangeError(
      `an external GLM's numCols (${model.numCols}) must equal its dim (${model.dim})`,
    );
  }
  const arena = loadCore();
  const kernels = new GlmKernels(arena, {
    family,
    dim: model.numCols,
    sigma: model.glmOptions?.sigma,
  });
  c = { arena, kernels };
  _contexts.set(model, c);
  return c;
}

/**
 * Read data rows `indices` of an external GLM into positions
 * `[offset, offset + indices.length)` of a local buffer (a new one of
 * `indices.length` rows when none is given). Counts nothing.
 *
 * @param model The external GLM.
 * @param indices Data-row indices in [0, n).
 * @param into A buffer from this model's {@link externalKernels} arena, and the offset.
 * @returns The buffer.
 */
export function loadExternalRows(
  model: ExternalGlmModel,
  indices: Int32Array,
  into?: { rows: LoadedRowBuffer; offset: number },
): LoadedRowBuffer {
  const rows = into?.rows ??
    new LoadedRowBuffer(externalKernels(model).arena, model, indices.length);
  try {
    rows.load(indices, into?.offset ?? 0, (r, x, y) => model.readRows(r, x, y));
  } catch (e) {
    if (into === undefined) rows.dispose();
    throw e;
  }
  return rows;
}

/**
 * Control variates of an external GLM around θ*: S, A (and B unless an
 * estimate is set by the caller) from one `controlVariateSums` pass; the
 * cache rows of gathered rows computed from the rows themselves.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { externalFromGlm } from "../models/in_memory_external.ts";
 * import { ControlVariates } from "./control_variates.ts";
 * import { ExternalControlVariates } from "./external_rows.ts";
 * const x = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? 1 : Math.sin(i)));
 * const y = Array.from({ length: 200 }, (_, i) => i % 3 === 0 ? 1 : 0);
 * const glm = new GlmModel(glmDataFromArrays(loadCore(), x, y, { numCols: 2 }), { family: "logistic" });
 * const star = new Float64Array([0.1, -0.3]), theta = new Float64Array([0.2, 0.1]);
 * const ext = new ExternalControlVariates(externalFromGlm(glm), star, { order: 2 });
 * const cv = new ControlVariates(glm, star, { order: 2 });
 * assert.equal(ext.sum(theta), cv.sum(theta));
 * const rows = ext.createRows(3);
 * ext.gatherRows(rows, new Int32Array([5, 0, 199]), 0);
 * const gathered = cv.createRows(3);
 * cv.gatherRows(gathered, new Int32Array([5, 0, 199]), 0);
 * assert.equal(ext.differences(rows, theta), cv.differences(gathered, theta));
 * rows.dispose();
 * gathered.dispose();
 * cv.dispose();
 * ```
 */
export class ExternalControlVariates implements SubsampleControlVariates {
  /** The model (its cost counter is added to). */
  readonly model: ExternalGlmModel;
  /** Taylor order of qₖ. */
  readonly order: TaylorOrder;
  /** Dimension d. */
  readonly dim: number;
  /** Number of data rows n. */
  readonly numRows: number;
  /** The current θ* (a copy; do not mutate). */
  readonly thetaStar: Float64Array;
  /** S = Σₖ ℓₖ(θ*). */
  llStarSum = 0;
  /** A = Σₖ ∇ℓₖ(θ*). */
  readonly gradSum: Float64Array;
  /** B = Σₖ Hₖ(θ*) (d × d; from the pass, or set by the caller). */
  readonly hessSum: Float64Array;
  /** Incremented at every centring. */
  version = 0;
  /** Rows whose cache entries were computed for gathered positions (cumulative). */
  numCacheRows = 0;
  readonly #kernels: GlmKernels;
  readonly #delta: Float64Array;

  /**
   * Centre at θ* (one `controlVariateSums` pass, with B unless `hessian`
   * is false), or take precomputed sums with no pass.
   *
   * @param model The external GLM.
   * @param thetaStar The expansion point.
   * @param options Order; `hessian: false` leaves B = 0 for the caller to
   *   set; `sums` are S, A and B at θ* computed elsewhere (no pass is made).
   */
  constructor(
    model: ExternalGlmModel,
    thetaStar: Float64Array,
    options: {
      order?: TaylorOrder;
      hessian?: boolean;
      sums?: { llStarSum: number; gradSum: Float64Array; hessSum: Float64Array };
    } = {},
  ) {
    const order = options.order ?? 2;
    if (order !== 0 && order !== 1 && order !== 2) {
      throw new RangeError(`order must be 0, 1 or 2, got ${order}`);
    }
    this.#kernels = externalKernels(model).kernels;
    this.model = model;
    this.order = order;
    this.dim = model.dim;
    this.numRows = model.numRows;
    this.thetaStar = new Float64Array(this.dim);
    this.gradSum = new Float64Array(this.dim);
    this.hessSum = new Float64Array(this.dim * this.dim);
    this.#delta = new Float64Array(this.dim);
    if (options.sums !== undefined) {
      const { llStarSum, gradSum, hessSum } = options.sums;
      _checkVector(thetaStar, this.dim, "thetaStar");
      _checkVector(gradSum, this.dim, "gradSum");
      _checkVector(hessSum, this.dim * this.dim, "hessSum");
      if (!Number.isFinite(llStarSum)) {
        throw new RangeError(`llStarSum must be a finite number, got ${llStarSum}`);
      }
      this.thetaStar.set(thetaStar);
      this.llStarSum = llStarSum;
      this.gradSum.set(options.sums.gradSum);
      this.hessSum.set(options.sums.hessSum);
      this.version++;
    } else this.recenter(thetaStar, { hessian: options.hessian ?? true });
  }

  /**
   * Move θ* and recompute S, A (and B with `hessian`, else B is left for the
   * caller) in one full-data pass of the model. Gathered buffers recompute
   * their cache rows afterwards ({@link refreshRows}).
   *
   * @param thetaStar The new expansion point.
   * @param options Whether the pass computes B too.
   * @returns Nothing.
   */
  recenter(thetaStar: Float64Array, options: { hessian: boolean }): void {
    _checkVector(thetaStar, this.dim, "thetaStar");
    this.thetaStar.set(thetaStar);
    this.llStarSum = this.model.controlVariateSums(
      this.thetaStar,
      this.gradSum,
      options.hessian ? this.hessSum : undefined,
    );
    this.version++;
  }

  /** Σₖ qₖ(θ) over all n rows in O(d²). */
  sum(theta: Float64Array): number {
    return taylorSum(this, theta, this.#delta);
  }

  /** Σₖ qₖ(θ) and, with `grad`, A + Bδ. */
  sumAndGradient(theta: Float64Array, grad?: Float64Array): number {
    return taylorSum(this, theta, this.#delta, grad);
  }

  /** dₖ (and rₖ) over positions of a buffer of this model's rows; counted. */
  differences(
    rows: RowBuffer,
    theta: Float64Array,
    options: RowRange & { derivative?: boolean } = {},
  ): number {
    return countedDifferences(
      this.#kernels,
      this,
      rows,
      theta,
      options,
      _checkVector,
    );
  }

  /** The difference estimator with its gradient in one core call; null without the kernel. */
  estimateWithGradient(
    rows: RowBuffer,
    theta: Float64Array,
    options: EstimateInCoreOptions,
  ): EstimateInCore | null {
    return estimateInCore(
      this.#kernels,
      this,
      rows,
      theta,
      options,
      _checkVector,
    );
  }

  /** Σₖ wₖxₖ over positions of a buffer (no row evaluations). */
  weightedRowSum(rows: RowBuffer, out: Float64Array, range: RowRange = {}): Float64Array {
    return this.#kernels.weightedRowSum(rows, out, range);
  }

  /** An empty local buffer for `capacity` rows. */
  createRows(capacity: number): LoadedRowBuffer {
    return new LoadedRowBuffer(externalKernels(this.model).arena, this.model, capacity);
  }

  /** Read rows `indices` into a buffer and compute their cache rows at θ* (counted). */
  gatherRows(rows: RowBuffer, indices: Int32Array, offset: number): void {
    loadExternalRows(this.model, indices, { rows: _loaded(rows), offset });
    this.#prepare(rows, offset, offset + indices.length);
  }

  /** Recompute the cache rows of positions [start, end) at the current θ* (counted). */
  refreshRows(rows: RowBuffer, range: { start: number; end: number }): void {
    const ind = rows.indices;
    for (let i = range.start; i < range.end; i++) {
      if (!(ind[i] >= 0)) {
        throw new RangeError(`position ${i} holds no row; gather it before its cache`);
      }
    }
    this.#prepare(rows, range.start, range.end);
  }

  /**
   * Nothing to release: no per-row cache is kept.
   *
   * @returns Nothing.
   */
  dispose(): void {}

  #prepare(rows: RowBuffer, start: number, end: number): void {
    if (end <= start) return;
    this.#kernels.prepareGatheredControlVariates(rows, this.thetaStar, {
      start,
      end,
      numRows: this.numRows,
    });
    const k = end - start;
    this.numCacheRows += k;
    this.model.cost.numLogLikRows += k;
    this.model.cost.numGradRows += k;
  }
}

/**
 * Rows of an external GLM read at a time by `subsetHessian` (tuning.ts): larger
 * subsets are read and summed in chunks of this many rows, so that local
 * memory stays bounded (a 5 % subset of 10⁸ rows would otherwise be a
 * 1.2 GB buffer at d = 30). Up to this size the rows are summed in one kernel
 * call, exactly as an in-memory GLM's subset is.
 */
export const EXTERNAL_CHUNK_ROWS = 1 << 16;

/**
 * Σ_{k∈S} Hₖ(θ) of an external GLM for a random subset S of `sub` rows
 * (drawn without replacement with `rng`), read in chunks of
 * {@link EXTERNAL_CHUNK_ROWS} rows; all n rows are the model's own Hessian
 * pass. Counted as `sub` gradient rows.
 *
 * @param model The external GLM.
 * @param rng Generator for the subset.
 * @param theta θ.
 * @param sub Subset size ñ.
 * @returns The unscaled sum (d × d).
 */
export function externalSubsetHessianSum(
  model: ExternalGlmModel,
  rng: Rng,
  theta: Float64Array,
  sub: number,
): Float64Array {
  const d = model.dim, out = new Float64Array(d * d);
  if (sub === model.numRows) {
    model.logLikelihoodHessian(theta, out); // the model counts its pass
    return out;
  }
  const indices = rng.sampleWithoutReplacement(model.numRows, sub);
  const kernels = externalKernels(model).kernels, part = new Float64Array(d * d);
  const rows = new LoadedRowBuffer(externalKernels(model).arena, model, EXTERNAL_CHUNK_ROWS);
  try {
    for (let start = 0; start < sub; start += EXTERNAL_CHUNK_ROWS) {
      const end = Math.min(sub, start + EXTERNAL_CHUNK_ROWS);
      loadExternalRows(model, indices.subarray(start, end), { rows, offset: 0 });
      kernels.hessian(rows, theta, { out: part, range: { start: 0, end: end - start } });
      for (let i = 0; i < d * d; i++) out[i] += part[i];
    }
  } finally {
    rows.dispose();
  }
  model.cost.numHessianRows += sub;
  return out;
}

function _loaded(rows: RowBuffer): LoadedRowBuffer {
  if (!(rows instanceof LoadedRowBuffer)) {
    throw new TypeError("rows of an external GLM go into a buffer from createRows()");
  }
  return rows;
}

function _checkVector(v: Float64Array, d: number, what: string): void {
  if (!(v instanceof Float64Array) || v.length !== d) {
    throw new RangeError(
      `${what} must be a Float64Array of length ${d}, got ${
        v instanceof Float64Array ? `length ${v.length}` : typeof v
      }`,
    );
  }
  for (let j = 0; j < d; j++) {
    if (!Number.isFinite(v[j])) {
      throw new RangeError(`${what} must be finite, got ${v[j]} at index ${j}`);
    }
  }
}
