/**
 * Taylor control variates qₖ(θ) for GLM log-likelihood terms ℓₖ(θ).
 *
 * For a GLM, ℓₖ depends on θ only through ηₖ = xₖᵀθ, so the Taylor expansion
 * of ℓₖ in θ around θ* equals the expansion of ℓ(η, yₖ) in η around η*ₖ:
 *
 * ```
 *  qₖ(θ) = ℓₖ* + aₖ Δηₖ + ½ bₖ Δηₖ²          Δηₖ = xₖᵀ(θ − θ*)          (eq. 11)
 *  aₖ = dℓ/dη(η*ₖ),  bₖ = d²ℓ/dη²(η*ₖ);  ∇ℓₖ(θ*) = aₖxₖ,  Hₖ(θ*) = bₖxₖxₖᵀ
 *  order 0 keeps ℓₖ*, order 1 adds aₖΔηₖ, order 2 adds ½bₖΔηₖ².
 * ```
 *
 * One full-data pass at θ* stores the per-row cache (η*ₖ, ℓₖ*, aₖ, bₖ) and the
 * sums S = Σℓₖ(θ*), A = Σ∇ℓₖ(θ*) and B = ΣHₖ(θ*), after which
 *
 * ```
 *  Σₖ qₖ(θ) = S + Aᵀδ + ½ δᵀBδ,     ∇Σₖ qₖ(θ) = A + Bδ,      δ = θ − θ*     (eq. 14)
 * ```
 *
 * cost O(d²), independent of n. Per-row differences dₖ = ℓₖ − qₖ and
 * rₖ = ∂dₖ/∂ηₖ (so ∇dₖ = rₖxₖ) are computed over a contiguous
 * {@link GatheredRows} buffer by the core's typed
 * {@link GlmKernels.controlVariateDifferences}.
 *
 * The full-data passes of a (re)centring run on the calling thread, or
 * wherever the `passes` option says: a `ThreadedGlmModel` splits them into
 * row blocks over threads, each block filling its own cache rows with the
 * same per-row arithmetic (see {@link ControlVariatePasses}).
 *
 * Cost accounting (added to `model.cost`): a (re)centring pass counts n
 * log-likelihood rows and n gradient rows, plus n Hessian rows for B; every
 * difference evaluation counts its rows as log-likelihood rows and, when
 * ∂d/∂η is requested, as gradient rows too.
 *
 * References: Dang et al. (2019) eqs. 8, 11, 14; Bardenet et al. (2017).
 *
 * @module
 */
import type { GlmKernels } from "../core/glm_kernels.ts";
import { ControlVariateCache, type RowBuffer } from "../core/row_buffer.ts";
import type { GlmModel } from "../models/glm.ts";
import { subsamplingSupport } from "../models/subsampling_support.ts";
import { GatheredRows } from "./gathered_rows.ts";
import {
  checkTheta,
  countedDifferences,
  type EstimateInCore,
  estimateInCore,
  type EstimateInCoreOptions,
  type RowRange,
  type SubsampleControlVariates,
  type TaylorOrder,
  taylorSum,
} from "./subsample_control_variates.ts";

export { ControlVariateCache, GatheredRows };
export {
  countedDifferences,
  type RowRange,
  type SubsampleControlVariates,
  type TaylorOrder,
  taylorSum,
} from "./subsample_control_variates.ts";

/** Options of {@link ControlVariates}. */
export interface ControlVariateOptions {
  /** Taylor order 0, 1 or 2 (default 2). */
  order?: TaylorOrder;
  /**
   * Compute B = ΣHₖ(θ*) at every (re)centring even for orders 0 and 1, e.g. to
   * build a mass matrix (default: only for order 2).
   */
  computeHessian?: boolean;
  /** Rows processed per kernel call in full-data passes (default 65536). */
  chunkRows?: number;
  /**
   * Where the full-data passes of a (re)centring run, e.g. a
   * `ThreadedGlmModel` that splits them over threads (default: the model, on
   * the calling thread). The cache and S, A, B are those of the same model.
   */
  passes?: ControlVariatePasses;
  /**
   * Keep the per-row cache (η*ₖ, ℓₖ*, aₖ, bₖ) of all n rows (default true;
   * 32 bytes a row). With false, nothing of size n is allocated: a centring
   * computes S and A alone (the same sums, bit for bit), and the cache rows
   * of gathered rows are computed where they land from xₖ, yₖ and θ* (the
   * same values, bit for bit; counted in `numCacheRows`, not in the model's
   * cost, which stays that of the cached control variates), so
   * several chains over one data set hold only their subsamples. Needs the
   * passes on the calling thread (no `passes`), or `passes` that compute the
   * sums alone (`controlVariateSums`; S and A then as its blocks add them),
   * and leaves {@link ControlVariates.cache} unavailable.
   */
  rowCache?: boolean;
  /**
   * S = Σₖℓₖ(θ*) and A = Σₖ∇ℓₖ(θ*) at the θ* given, computed before (e.g.
   * one centring shared by the chains of a run): the constructor makes no
   * pass and counts no cost. `rowCache: false` only (a cache needs its pass).
   */
  sums?: { llStarSum: number; gradSum: Float64Array };
}

/**
 * The two full-data passes of a centring, run by someone other than the
 * model itself (another thread, several threads) over the model's rows: the
 * per-row cache with S and A, and B. Implementations count no cost for the
 * first (the {@link ControlVariates} do) and n gradient rows for the second,
 * as `GlmModel.logLikelihoodHessian` does.
 */
export interface ControlVariatePasses {
  /** Rows n (must equal the model's). */
  readonly numRows: number;
  /**
   * Fill `cache` at θ*, return S = Σℓₖ(θ*) and write A = Σ∇ℓₖ(θ*) to `gradSum`,
   * as `GlmKernels.prepareControlVariates` does over all rows.
   */
  prepareControlVariates(
    thetaStar: Float64Array,
    options: { cache: ControlVariateCache; gradSum: Float64Array; chunkRows?: number },
  ): number;
  /** B = ΣHₖ(θ) into `out` (d × d). */
  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void;
  /**
   * S = Σℓₖ(θ*) (returned) and A = Σ∇ℓₖ(θ*) (into `gradSum`) alone, no
   * per-row cache, as `GlmKernels.controlVariateSums` computes them over all
   * rows. Where present, control variates with `rowCache: false` run their
   * centring pass here.
   */
  controlVariateSums?(
    thetaStar: Float64Array,
    options: { gradSum: Float64Array; chunkRows?: number },
  ): number;
}

/**
 * Control variates of Taylor order 0, 1 or 2 around θ* for a {@link GlmModel},
 * with the full-data sums and the per-row cache in the model's arena.
 *
 * @example
 * ```ts
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { ControlVariates, GatheredRows } from "./control_variates.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, [1, 0.5, 1, -1, 1, 2], [1, 0, 1], { numCols: 2 });
 * const model = new GlmModel(data, { family: "logistic" });
 * const cv = new ControlVariates(model, new Float64Array([0, 0]), { order: 2 });
 * const theta = new Float64Array([0.1, -0.2]);
 * const rows = new GatheredRows(data, 3);
 * rows.gather(new Int32Array([0, 1, 2]), 0, cv.cache);
 * const sumD = cv.differences(rows, theta); // Σ (ℓₖ − qₖ) over the 3 rows
 * const exact = model.logLikelihood(theta) - cv.sum(theta);
 * if (Math.abs(sumD - exact) > 1e-12) throw new Error("mismatch");
 * ```
 */
export class ControlVariates implements SubsampleControlVariates {
  /** The model whose data and cost counter are used. */
  readonly model: GlmModel;
  /** Taylor order of qₖ. */
  readonly order: TaylorOrder;
  /** Dimension d. */
  readonly dim: number;
  /** Number of data rows n. */
  readonly numRows: number;
  /** Whether B is computed at every centring. */
  readonly computesHessian: boolean;
  /** The current expansion point θ* (a copy; do not mutate). */
  readonly thetaStar: Float64Array;
  /** S = Σₖ ℓₖ(θ*). */
  llStarSum = 0;
  /** A = Σₖ ∇ℓₖ(θ*) (length d). */
  readonly gradSum: Float64Array;
  /** B = Σₖ Hₖ(θ*) (d × d row-major; zeros unless {@link computesHessian}). */
  readonly hessSum: Float64Array;
  /**
   * The per-row cache (η*ₖ, ℓₖ*, aₖ, bₖ) in the arena; pass it to
   * {@link GatheredRows.gather} and {@link GatheredRows.regatherCache}.
   *
   * @internal
   */
  get cache(): ControlVariateCache {
    if (this.#cache === null) {
      throw new TypeError(
        "these control variates keep no per-row cache (rowCache: false); gather rows with gatherRows",
      );
    }
    return this.#cache;
  }
  /**
   * Cache rows computed for gathered positions (cumulative; rowCache: false
   * only; not in `model.cost`).
   */
  numCacheRows = 0;
  /** Number of full-data passes made so far (centrings). */
  numCenterings = 0;
  /** Incremented at every centring, so that gathered cache rows can be refreshed. */
  version = 0;
  readonly #chunk: number;
  readonly #delta: Float64Array;
  readonly #passes: ControlVariatePasses | null;
  readonly #cache: ControlVariateCache | null;

  /**
   * Allocate the per-row cache and centre at θ* (one full-data pass).
   *
   * @param model A GLM posterior over data in the arena.
   * @param thetaStar The expansion point (length d).
   * @param options Order, Hessian, chunk size.
   */
  constructor(model: GlmModel, thetaStar: Float64Array, options: ControlVariateOptions = {}) {
    if (subsamplingSupport(model)?.rows.kind !== "compact-glm") {
      throw new TypeError(
        `ControlVariates' per-row cache (η*, ℓ*, a, b) holds Taylor expansions in η only; family ${model.family}${
          model.dim > model.numCols ? " has a scale parameter" : " has an aux column"
        }: use the per-row path (controlVariateGradient with thetaStar, or HMC-ECS, which picks it)`,
      );
    }
    const order = options.order ?? 2;
    if (order !== 0 && order !== 1 && order !== 2) {
      throw new RangeError(`order must be 0, 1 or 2, got ${order}`);
    }
    const chunk = options.chunkRows ?? 65536;
    if (!Number.isInteger(chunk) || chunk < 1) {
      throw new RangeError(`chunkRows must be a positive integer, got ${chunk}`);
    }
    this.model = model;
    this.order = order;
    this.dim = model.dim;
    this.numRows = model.numRows;
    this.computesHessian = options.computeHessian ?? order === 2;
    this.#chunk = chunk;
    this.#passes = options.passes ?? null;
    if (this.#passes !== null && this.#passes.numRows !== model.numRows) {
      throw new RangeError(
        `passes run over ${this.#passes.numRows} rows, the model has ${model.numRows}`,
      );
    }
    this.thetaStar = new Float64Array(this.dim);
    this.gradSum = new Float64Array(this.dim);
    this.hessSum = new Float64Array(this.dim * this.dim);
    this.#delta = new Float64Array(this.dim);
    const rowCache = options.rowCache ?? true;
    if (!rowCache && this.#passes !== null && this.#passes.controlVariateSums === undefined) {
      throw new TypeError(
        "rowCache: false computes the centring sums on the calling thread or by passes with controlVariateSums; these passes have none",
      );
    }
    const sums = options.sums;
    if (sums !== undefined) {
      if (rowCache) {
        throw new TypeError("sums need rowCache: false (a per-row cache needs its pass)");
      }
      checkTheta(thetaStar, this.dim, "thetaStar", true);
      if (sums.gradSum.length !== this.dim || !Number.isFinite(sums.llStarSum)) {
        throw new RangeError(
          `sums must hold a finite llStarSum and a gradSum of length ${this.dim}`,
        );
      }
      this.#cache = null;
      this.thetaStar.set(thetaStar);
      this.llStarSum = sums.llStarSum;
      this.gradSum.set(sums.gradSum);
      if (this.computesHessian) model.logLikelihoodHessian(thetaStar, this.hessSum);
      this.version++;
      return;
    }
    this.#cache = rowCache ? new ControlVariateCache(model.arena, this.numRows) : null;
    this.recenter(thetaStar);
  }

  /**
   * Move the expansion point to θ* and recompute the per-row cache and S, A, B
   * in one full-data pass (counted in `model.cost`; run by the `passes`
   * option when given). Gathered buffers must
   * re-gather their cache rows afterwards (see {@link version}).
   *
   * @param thetaStar The new expansion point (length d).
   * @returns Nothing.
   */
  recenter(thetaStar: Float64Array): void {
    const d = this.dim, n = this.numRows, m = this.model;
    checkTheta(thetaStar, d, "thetaStar", true);
    this.thetaStar.set(thetaStar);
    const cache = this.#cache;
    if (cache === null) {
      const sums = { gradSum: this.gradSum, chunkRows: this.#chunk };
      this.llStarSum = this.#passes?.controlVariateSums !== undefined
        ? this.#passes.controlVariateSums(thetaStar, sums)
        : this.#kernels.controlVariateSums(m.data, thetaStar, sums);
    } else {
      const out = { cache, gradSum: this.gradSum, chunkRows: this.#chunk };
      this.llStarSum = this.#passes === null
        ? this.#kernels.prepareControlVariates(m.data, thetaStar, out)
        : this.#passes.prepareControlVariates(thetaStar, out);
    }
    m.cost.numLogLikRows += n;
    m.cost.numGradRows += n;
    if (this.computesHessian) (this.#passes ?? m).logLikelihoodHessian(thetaStar, this.hessSum);
    else this.hessSum.fill(0);
    this.numCenterings++;
    this.version++;
  }

  /**
   * Σₖ qₖ(θ) over all n rows in O(d²) from S, A and B.
   *
   * @param theta Position (length d).
   * @returns The sum of the control variates.
   */
  sum(theta: Float64Array): number {
    return this.sumAndGradient(theta);
  }

  /**
   * Σₖ qₖ(θ) and, if `grad` is given, ∇Σₖ qₖ(θ) = A + Bδ (orders 1, 2; 0 for
   * order 0) written into it. O(d²).
   *
   * @param theta Position (length d).
   * @param grad Optional output (length d, overwritten).
   * @returns Σₖ qₖ(θ).
   */
  sumAndGradient(theta: Float64Array, grad?: Float64Array): number {
    return taylorSum(this, theta, this.#delta, grad);
  }

  /**
   * An empty buffer over the model's data for `capacity` rows.
   *
   * @param capacity Rows.
   * @returns The buffer (the caller disposes it).
   * @internal
   */
  createRows(capacity: number): GatheredRows {
    return new GatheredRows(this.model.data, capacity);
  }

  /**
   * Gather data rows and their cache rows into a buffer.
   *
   * @param rows A buffer from {@link createRows}.
   * @param indices Data-row indices.
   * @param offset First position written.
   * @returns Nothing.
   * @internal
   */
  gatherRows(rows: RowBuffer, indices: Int32Array, offset: number): void {
    if (this.#cache !== null) rows.gather(indices, offset, this.#cache);
    else {
      rows.gather(indices, offset);
      this.#prepare(rows, offset, offset + indices.length);
    }
  }

  /**
   * Re-gather the cache rows of positions [start, end) from the per-row cache.
   *
   * @param rows A buffer from {@link createRows}.
   * @param range Positions.
   * @returns Nothing.
   * @internal
   */
  refreshRows(rows: RowBuffer, range: { start: number; end: number }): void {
    if (this.#cache !== null) rows.regatherCache(this.#cache, range);
    else {
      const ind = rows.indices;
      for (let i = range.start; i < range.end; i++) {
        if (!(ind[i] >= 0)) {
          throw new RangeError(`position ${i} holds no row; gather it before its cache`);
        }
      }
      this.#prepare(rows, range.start, range.end);
    }
  }

  /** Cache rows of positions [start, end) at θ*, from the rows there. */
  #prepare(rows: RowBuffer, start: number, end: number): void {
    if (end <= start) return;
    this.#kernels.prepareGatheredControlVariates(rows, this.thetaStar, {
      start,
      end,
      numRows: this.numRows,
    });
    // Not added to model.cost: the centring's n rows already count what
    // the cache of all rows would hold (so costs and pass-equivalents are
    // those of the cached control variates); the rows recomputed here are
    // counted apart.
    this.numCacheRows += end - start;
  }

  /**
   * Per-row differences dₖ = ℓₖ(θ) − qₖ(θ) over positions [start, end) of a
   * gathered buffer, written to `rows.diffs()`; with `derivative` (default true)
   * also rₖ = ∂dₖ/∂ηₖ to `rows.derivatives()`, so that ∇dₖ(θ) = rₖ xₖ. The buffer's cache
   * rows must have been gathered from {@link cache} at the current centring.
   *
   * @param rows The gathered rows.
   * @param theta Position (length d).
   * @param options Range of positions and whether to write rₖ.
   * @returns Σₖ dₖ over the range.
   * @internal
   */
  differences(
    rows: RowBuffer,
    theta: Float64Array,
    options: RowRange & { derivative?: boolean } = {},
  ): number {
    return countedDifferences(this.#kernels, this, rows, theta, options, checkTheta);
  }

  /**
   * The difference estimator with its gradient in one core call
   * ({@link estimateInCore}); null where the core has no such kernel.
   *
   * @param rows The gathered rows.
   * @param theta Position (length d).
   * @param options m, the positions computed, the bias correction, the gradient output.
   * @returns The estimate, or null.
   * @internal
   */
  estimateWithGradient(
    rows: RowBuffer,
    theta: Float64Array,
    options: EstimateInCoreOptions,
  ): EstimateInCore | null {
    return estimateInCore(this.#kernels, this, rows, theta, options, checkTheta);
  }

  /**
   * out = Σₖ wₖ xₖ over positions [start, end) of a gathered buffer, with the
   * weights wₖ already written to `rows.weights()` (positions as in the buffer). With
   * wₖ = c·rₖ this is the gradient of c·Σdₖ. Costs no new row evaluations.
   *
   * @param rows The gathered rows.
   * @param out Output (length d, overwritten).
   * @param range Range of positions.
   * @returns `out`.
   * @internal
   */
  weightedRowSum(rows: RowBuffer, out: Float64Array, range: RowRange = {}): Float64Array {
    return this.#kernels.weightedRowSum(rows, out, range);
  }

  /**
   * Release the per-row cache (the model is not disposed).
   *
   * @returns Nothing.
   */
  dispose(): void {
    this.#cache?.dispose();
  }

  get #kernels(): GlmKernels {
    return this.model.kernels;
  }
}
