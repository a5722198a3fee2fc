/**
 * A {@link GlmModel} whose full-data passes (log likelihood, its gradient and
 * Hessian) split the rows into contiguous blocks, one per thread: block 0 in
 * the calling thread, block k in worker k, every worker reading the same
 * shared memory. The calling thread waits for the workers with `Atomics.wait`
 * (allowed on Deno's main thread, not in browsers' windows) and adds the
 * partial sums in block order, so a pass is synchronous, as samplers expect,
 * and its result depends only on the number of blocks.
 *
 * ```
 *  rows  0 … n/T ─ calling thread ─┐
 *        … 2n/T  ─ worker 1 ───────┤  Σ in block order: ℓ = ℓ₀ + ℓ₁ + …
 *        … n     ─ worker T−1 ─────┘
 * ```
 *
 * Against one thread, only the order of the floating-point sum changes:
 * |ℓ_T − ℓ_1| ≤ (n + T)·u·Σᵢ|ℓᵢ| with u = 2⁻⁵³ (Higham 2002, §4.2), far
 * below 1e-10·Σᵢ|ℓᵢ| for any n a wasm32 memory holds; the same bound holds per
 * coordinate of the gradient with |∂ℓᵢ| in place of |ℓᵢ|.
 *
 * The centring pass of HMC-ECS's control variates is one more such pass
 * ({@link ThreadedGlmModel.prepareControlVariates}): each block fills its own
 * rows of the per-row cache (η*ₖ, ℓₖ*, aₖ, bₖ), which lives in the shared
 * memory, in place, and returns its partial S = Σℓₖ(θ*) and A = Σ∇ℓₖ(θ*),
 * added in block order. Blocks start at even rows, where a one-thread pass
 * also starts a pair of rows, so every row's arithmetic is the same as on one
 * thread: the cache is bit-identical and S, A obey the bound above.
 * `sample(threaded, { sampler: "hmc-ecs" })` runs these passes, the exact
 * Hessian B and the Newton centring steps on all threads.
 *
 * Subsample evaluations (`logLikelihoodRows`, `perRowGradients`) touch few
 * rows and run in the calling thread on the whole data. The cost counter is
 * the base model's: a pass counts n rows whatever the number of threads, and
 * rows evaluated through {@link ThreadedGlmModel.base} count there too.
 *
 * References: docs/architecture.md, "Threads"; Higham (2002), "Accuracy and Stability
 * of Numerical Algorithms", §4.2 (error of recursive summation).
 *
 * @module
 */
import type { ControlVariateCache } from "../core/row_buffer.ts";
import { ScratchI32 } from "../core/scratch.ts";
import { releaseRegion, reserveRegion, type SharedRegion } from "../core/shared_region.ts";
import { type GlmData, glmDataRows } from "../data/dataset.ts";
import {
  PASS_CV,
  PASS_GRAD,
  PASS_HESS,
  PASS_LL,
  PASS_ROWS,
  PASS_SAMPLE,
  PassPool,
} from "./_pass_pool.ts";
import { type Rng, RNG_STATE_LENGTH } from "../random/rng.ts";
import { blockRowsSums, ROWS_GRAD, ROWS_HESS, rowsWithin } from "./_rows_sums.ts";
import { BECOME_CHAIN_WORKER, type PassWorkerInit } from "./_pass_protocol.ts";
import { GlmModel, type GlmModelFamily, type GlmOptions } from "./glm.ts";
import { withCheckedResponses } from "./glm_options.ts";
import { type CostCounter, type DataModel, logPosteriorAndGradient } from "./model.ts";
import { modelSpecOf, plainGlmData } from "./model_spec.ts";
import type { UserGlmModel } from "./user_glm.ts";
import { newPassWorker, takeEarlyPassWorker } from "./_early_pass_worker.ts";

/** Options of {@link ThreadedGlmModel.create}. */
export interface ThreadedGlmOptions {
  /** Threads including the calling one (default navigator.hardwareConcurrency; 1 = no workers). */
  threads?: number;
  /**
   * {@link ThreadedGlmModel.controlVariateSums} sums S and A with the ℓ, ∇ℓ
   * kernel (`GlmKernels.logLikelihood`: one sweep over X per block) instead
   * of `GlmKernels.controlVariateSums` (a sweep for ηₖ, ℓₖ, aₖ, bₖ, then one
   * for Σaₖxₖ): the same sums up to rounding, ≈ 40 % less time per pass
   * (default false: the control-variate kernel's sums, bit for bit per block).
   */
  sumsInOneSweep?: boolean;
}

/**
 * A GLM whose full-data passes run on several threads (see the module notes).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { higgsShaped } from "../data/synthetic.ts";
 * import { GlmModel } from "./glm.ts";
 * import { ThreadedGlmModel } from "./threaded_glm.ts";
 * const arena = loadCore({ shared: true });
 * const { data } = higgsShaped(arena, { n: 4000, seed: 1 });
 * const model = new GlmModel(data, { family: "logistic" });
 * const threaded = await ThreadedGlmModel.create(model, { threads: 2 });
 * const theta = new Float64Array(30).fill(0.01);
 * const a = model.logLikelihood(theta), b = threaded.logLikelihood(theta);
 * assert.ok(Math.abs(a - b) <= 1e-10 * Math.abs(a));
 * threaded.close();
 * ```
 */
export class ThreadedGlmModel implements DataModel {
  /** The model over all rows (subsample evaluations, prior): a built-in or a user family. */
  readonly base: GlmModel | UserGlmModel;
  /** Dimension d. */
  readonly dim: number;
  /** Rows n. */
  readonly numRows: number;
  /** Parameter names. */
  readonly parameterNames: readonly string[];
  /** The base model's cost counter (a full pass counts n rows, whatever the number of threads). */
  readonly cost: CostCounter;
  /** Whether S and A are summed by the ℓ, ∇ℓ kernel ({@link ThreadedGlmOptions.sumsInOneSweep}). */
  readonly sumsInOneSweep: boolean;
  /** Threads used, the calling one included. */
  readonly threads: number;
  /** First row of each thread's block, then n (length threads + 1; even but the last). */
  readonly blockStarts: readonly number[];
  /**
   * The base model's family; null for a family written in AssemblyScript
   * (which, like a UserGlmModel, names no built-in family, so a sampler's
   * start is the one it takes on the UserGlmModel).
   */
  readonly family: GlmModelFamily | null;
  /** Columns d of X (the base model's). */
  readonly numCols: number;
  /** The base model's data set (all rows). */
  readonly data: GlmData;
  /** The base model's options (per-row columns over all rows); null for a user family. */
  readonly options: Readonly<GlmOptions> | null;
  #block0: GlmModel | UserGlmModel;
  #pool: PassPool | null;
  #regions: SharedRegion[];
  #closed = false;
  #priorGrad: Float64Array;
  #grad0: Float64Array;
  #hess0: Float64Array;
  /** A subset drawn on a worker ({@link ThreadedGlmModel.beginSortedSample}), not yet taken. */
  #ahead: { list: ScratchI32; m: number; done: boolean; failed: boolean } | null = null;

  private constructor(
    base: GlmModel | UserGlmModel,
    block0: GlmModel | UserGlmModel,
    pool: PassPool | null,
    regions: SharedRegion[],
    bounds: readonly number[],
    flags: { sumsInOneSweep: boolean },
  ) {
    this.base = base;
    this.cost = base.cost;
    this.blockStarts = bounds;
    this.dim = base.dim;
    this.numRows = base.numRows;
    this.parameterNames = base.parameterNames;
    this.family = base instanceof GlmModel ? base.family : null;
    this.numCols = base.data.numCols;
    this.data = base.data;
    this.options = base instanceof GlmModel ? base.options : null;
    this.threads = (pool?.numWorkers ?? 0) + 1;
    this.sumsInOneSweep = flags.sumsInOneSweep;
    this.#block0 = block0;
    this.#pool = pool;
    this.#regions = regions;
    this.#priorGrad = new Float64Array(base.dim);
    this.#grad0 = new Float64Array(base.dim);
    this.#hess0 = new Float64Array(base.dim * base.dim);
  }

  /**
   * Start the workers over `model`'s shared data.
   *
   * @param model A GlmModel, or a UserGlmModel (a family written in AssemblyScript; every
   *   worker instantiates the same compiled module), whose data are in a shared memory
   *   (`loadCore({ shared: true })`).
   * @param options `threads`.
   * @returns The threaded model; call {@link ThreadedGlmModel.close} when done.
   * @throws {TypeError} If the data are not in a shared memory; {@link RangeError} on bad
   *   `threads` or more threads than pairs of rows.
   */
  static async create(
    model: GlmModel | UserGlmModel,
    options: ThreadedGlmOptions = {},
  ): Promise<ThreadedGlmModel> {
    const threads = options.threads ??
      Math.max(1, typeof navigator !== "undefined" ? navigator.hardwareConcurrency || 1 : 1);
    if (!Number.isInteger(threads) || threads < 1) {
      throw new RangeError(`threads must be a positive integer, got ${threads}`);
    }
    const described = modelSpecOf(model);
    if (!("spec" in described)) throw new TypeError(described.reason);
    const d = model.dim, n = model.numRows, data = model.data;
    if (threads > 1 && 2 * threads > n) {
      throw new RangeError(
        `threads must be at most ${
          Math.max(1, Math.floor(n / 2))
        } for ${n} rows (blocks of ≥ 2 rows), got ${threads}`,
      );
    }
    // Blocks start at even rows (see the module notes).
    const bounds = Array.from(
      { length: threads + 1 },
      (_, k) => k === threads ? n : 2 * Math.round((k * n) / (2 * threads)),
    );
    const block = (k: number) => glmDataRows(data, bounds[k], bounds[k + 1] - bounds[k]);
    const block0 = model instanceof GlmModel
      ? withCheckedResponses(() =>
        new GlmModel(block(0), blockOptions(model.options, bounds[0], bounds[1]))
      )
      : model.overRows(block(0));
    // 1 MiB, the Hessian's d × d, and controlVariateSums' chunk of 65536 cache rows (32 B each).
    const scratch = (1 << 20) + 64 * d * d + 32 * 65536;
    const regions: SharedRegion[] = [];
    for (let k = 1; k < threads; k++) regions.push(reserveRegion(model.arena, scratch));
    const spec = (modelSpecOf(model) as { spec: PassWorkerInit["spec"] }).spec;
    let pool: PassPool | null = null;
    try {
      if (threads > 1) {
        pool = await PassPool.start<PassWorkerInit>({
          url: new URL("./_pass_worker.ts", import.meta.url),
          dim: d,
          count: threads - 1,
          init: (i) => ({
            message: {
              spec: spec.kind === "glm"
                ? {
                  ...spec,
                  data: plainGlmData(block(i + 1)),
                  options: blockOptions(spec.options, bounds[i + 1], bounds[i + 2]),
                }
                : { ...spec, data: plainGlmData(block(i + 1)) },
              region: regions[i],
              firstRow: bounds[i + 1],
            },
          }),
          describe: (i) => `thread ${i + 1} (rows ${bounds[i + 1]} … ${bounds[i + 2] - 1})`,
          prestarted: () => _prestarted.pop(),
        });
      }
    } catch (e) {
      for (const r of regions) releaseRegion(model.arena, r);
      block0.dispose();
      throw e;
    }
    return new ThreadedGlmModel(model, block0, pool, regions, bounds, {
      sumsInOneSweep: options.sumsInOneSweep === true,
    });
  }

  #run(command: number, theta: Float64Array, args?: readonly number[]): void {
    if (this.#closed) throw new TypeError("this ThreadedGlmModel has been closed");
    this.#settleAhead();
    this.#pool?.post(command, theta, { args });
  }

  /** Wait for a subset drawn ahead (its rows and state stay for finishSortedSample). */
  #settleAhead(): void {
    const ahead = this.#ahead;
    if (ahead === null || ahead.done) return;
    ahead.done = true;
    try {
      this.#pool!.wait();
    } catch {
      ahead.failed = true;
    }
  }

  /**
   * Start drawing `rng.sortedSample(numRows, m)` on the first worker while
   * the calling thread goes on: the generator's state is copied into the
   * shared memory, the worker continues it there.
   * {@link ThreadedGlmModel.finishSortedSample} takes the indices and moves
   * `rng` past those draws, so the numbers are the calling thread's own; `rng`
   * must not draw in between. Passes may run meanwhile (they wait for the
   * draw first).
   *
   * @internal
   * @param rng The generator (not advanced here).
   * @param m Indices, 0 ≤ m ≤ numRows.
   * @returns Whether the draw started (false without workers, or with one
   *   already pending: then draw on the calling thread).
   */
  beginSortedSample(rng: Rng, m: number): boolean {
    if (this.#closed) throw new TypeError("this ThreadedGlmModel has been closed");
    const n = this.numRows;
    if (!Number.isInteger(m) || m < 0 || m > n) {
      throw new RangeError(`need an integer 0 ≤ m ≤ ${n}, got ${m}`);
    }
    if (this.#pool === null || this.#ahead !== null) return false;
    const list = new ScratchI32(this.base.arena, RNG_STATE_LENGTH + m);
    try {
      const view = list.view(0, RNG_STATE_LENGTH + m);
      rng.saveState(view);
      this.#pool.post(PASS_SAMPLE, null, { args: [view.byteOffset, n, m] });
    } catch (e) {
      list.dispose();
      throw e;
    }
    this.#ahead = { list, m, done: false, failed: false };
    return true;
  }

  /**
   * The indices of {@link ThreadedGlmModel.beginSortedSample} (a copy), with
   * `rng` moved past their draws; with `rng` null the draw is dropped and no
   * generator moves. If the worker failed, `rng` draws them here: the same
   * indices.
   *
   * @internal
   * @param rng The generator given to beginSortedSample, or null.
   * @returns The indices (increasing), or null when none were pending or `rng` is null.
   */
  finishSortedSample(rng: Rng | null): Int32Array | null {
    const ahead = this.#ahead;
    if (ahead === null) return null;
    try {
      this.#settleAhead();
      if (rng === null) return null;
      if (ahead.failed) return rng.sortedSample(this.numRows, ahead.m);
      const view = ahead.list.view(0, RNG_STATE_LENGTH + ahead.m);
      rng.loadState(view);
      return view.slice(RNG_STATE_LENGTH);
    } finally {
      this.#ahead = null;
      ahead.list.dispose();
    }
  }

  #wait(): void {
    this.#pool?.wait();
  }

  /**
   * The calling thread's block of a posted pass: `work()`, then wait for the
   * workers. If `work` throws, the workers' pass is still waited for before
   * the error propagates, so no worker writes (its slot, cache rows) after
   * the caller has moved on.
   */
  #withWorkers<T>(work: () => T): T {
    let value: T;
    try {
      value = work();
    } catch (e) {
      this.#pool?.settle();
      throw e;
    }
    this.#wait();
    return value;
  }

  /** log p(θ) and optionally its gradient (no rows). */
  logPrior(theta: Float64Array, grad?: Float64Array): number {
    return this.base.logPrior(theta, grad);
  }

  /** ∇² log p(θ). */
  logPriorHessian(theta: Float64Array, out: Float64Array): void {
    this.base.logPriorHessian(theta, out);
  }

  /** Σᵢ ℓᵢ(θ) over all rows (and its gradient), blocks on all threads. */
  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    this.#run(grad ? PASS_GRAD : PASS_LL, theta);
    let ll = this.#withWorkers(() => {
      const own = this.#block0.logLikelihood(theta, grad ? this.#grad0 : undefined);
      if (grad) grad.set(this.#grad0);
      return own;
    });
    if (this.#pool !== null) ll = this.#pool.addLlGrad(ll, grad);
    this.cost.numLogLikRows += this.numRows;
    if (grad) this.cost.numGradRows += this.numRows;
    return ll;
  }

  /** Σᵢ ∇²ℓᵢ(θ) over all rows, blocks on all threads. */
  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void {
    this.#run(PASS_HESS, theta);
    this.#withWorkers(() => {
      this.#block0.logLikelihoodHessian(theta, this.#hess0);
      out.set(this.#hess0);
    });
    this.#pool?.addHess(out);
    this.cost.numHessianRows += this.numRows;
  }

  /**
   * The centring pass of Taylor control variates on all threads: each block
   * fills its rows of `cache` (η*ₖ, ℓₖ*, aₖ, bₖ) in place; returns
   * S = Σℓₖ(θ*) and writes A = Σ∇ℓₖ(θ*) to `gradSum`, the blocks' partial
   * sums added in block order. The same cache as one thread's
   * `base.kernels.prepareControlVariates`, bit for bit; S and A within the
   * bound of the module notes. Counts no cost (the control variates do), so
   * that it can stand in for the kernel: pass the model to `ControlVariates`
   * as its `passes`, which calls this (HMC-ECS does so for a threaded model).
   *
   * @param thetaStar θ* (length d).
   * @param options The cache to fill (over all n rows, in this model's
   *   memory), `gradSum` (length d, overwritten) and `chunkRows` (rows per
   *   kernel call within a block, default 65536).
   * @returns S.
   * @internal
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { loadCore } from "../core/load.ts";
   * import { higgsShaped } from "../data/synthetic.ts";
   * import { ControlVariates } from "../subsampling/control_variates.ts";
   * import { GlmModel } from "./glm.ts";
   * import { ThreadedGlmModel } from "./threaded_glm.ts";
   * const { data } = higgsShaped(loadCore({ shared: true }), { n: 4001, seed: 1 });
   * const model = new GlmModel(data, { family: "logistic" });
   * const threaded = await ThreadedGlmModel.create(model, { threads: 2 });
   * const theta = new Float64Array(30).fill(0.01);
   * const one = new ControlVariates(model, theta);
   * const two = new ControlVariates(model, theta, { passes: threaded });
   * assert.deepEqual(two.cache.row(4000), one.cache.row(4000)); // same arithmetic per row
   * assert.ok(Math.abs(two.llStarSum - one.llStarSum) <= 1e-10 * Math.abs(one.llStarSum));
   * one.dispose();
   * two.dispose();
   * threaded.close();
   * ```
   */
  prepareControlVariates(
    thetaStar: Float64Array,
    options: { cache: ControlVariateCache; gradSum: Float64Array; chunkRows?: number },
  ): number {
    const d = this.dim, { cache, gradSum } = options, chunkRows = options.chunkRows ?? 65536;
    const block0 = this.#block0;
    if (!(block0 instanceof GlmModel)) {
      throw new TypeError(
        "the compact control-variate centring needs a built-in GLM family; a user family's control variates are per row",
      );
    }
    if (cache.arena.memory !== this.base.arena.memory) {
      throw new RangeError(
        "the cache must live in this model's shared memory (ControlVariates over this model's base)",
      );
    }
    if (cache.numRows !== this.numRows) {
      throw new RangeError(`the cache has ${cache.numRows} rows, the data ${this.numRows}`);
    }
    if (!Number.isInteger(chunkRows) || chunkRows < 1) {
      throw new RangeError(`chunkRows must be a positive integer, got ${chunkRows}`);
    }
    if (!(thetaStar instanceof Float64Array) || thetaStar.length !== d) {
      throw new RangeError(`thetaStar must be a Float64Array of length ${d}`);
    }
    const shared = cache.share();
    this.#run(PASS_CV, thetaStar, [shared.numRows, shared.offset, chunkRows]);
    let s = this.#withWorkers(() => {
      const own = block0.kernels.prepareControlVariates(block0.data, thetaStar, {
        cache,
        gradSum: this.#grad0,
        chunkRows,
        firstRow: 0,
      });
      gradSum.set(this.#grad0);
      return own;
    });
    if (this.#pool !== null) s = this.#pool.addLlGrad(s, gradSum);
    return s;
  }

  /**
   * S = Σℓₖ(θ*) and A = Σ∇ℓₖ(θ*) of a centring without a per-row cache, on
   * all threads: each block sums its rows as `GlmKernels.controlVariateSums`
   * does, the partial sums added in block order (against one thread, within
   * the bound of the module notes). Counts no cost (the control variates do):
   * `ControlVariates` with `rowCache: false` and this model as `passes` call
   * it for their centring pass.
   *
   * @param thetaStar θ* (length d).
   * @param options `gradSum` (length d, overwritten) and `chunkRows` (rows
   *   per kernel call within a block, default 65536).
   * @returns S.
   * @internal
   */
  controlVariateSums(
    thetaStar: Float64Array,
    options: { gradSum: Float64Array; chunkRows?: number },
  ): number {
    const d = this.dim, { gradSum } = options, chunkRows = options.chunkRows ?? 65536;
    const block0 = this.#block0;
    if (!(block0 instanceof GlmModel)) {
      throw new TypeError(
        "the compact control-variate sums need a built-in GLM family; a user family's control variates are per row",
      );
    }
    if (!Number.isInteger(chunkRows) || chunkRows < 1) {
      throw new RangeError(`chunkRows must be a positive integer, got ${chunkRows}`);
    }
    if (!(thetaStar instanceof Float64Array) || thetaStar.length !== d) {
      throw new RangeError(`thetaStar must be a Float64Array of length ${d}`);
    }
    if (this.sumsInOneSweep) {
      // ℓ and ∇ℓ of every block in one sweep over its rows.
      this.#run(PASS_GRAD, thetaStar);
    } else {
      // PASS_CV without a cache (0 cache rows): the sums alone.
      this.#run(PASS_CV, thetaStar, [0, 0, chunkRows]);
    }
    let s = this.#withWorkers(() => {
      const own = this.sumsInOneSweep
        ? block0.logLikelihood(thetaStar, this.#grad0)
        : block0.kernels.controlVariateSums(block0.data, thetaStar, {
          gradSum: this.#grad0,
          chunkRows,
        });
      gradSum.set(this.#grad0);
      return own;
    });
    if (this.#pool !== null) s = this.#pool.addLlGrad(s, gradSum);
    return s;
  }

  /**
   * Sums over a list of rows on all threads: Σℓₖ(θ) with Σ∇ℓₖ(θ) into `grad`,
   * or Σ∇²ℓₖ(θ) into `hessian` (exactly one of the two), over `rows`
   * (increasing data-row indices, e.g. a subset from `sortedSubset`). The list
   * is cut at the blocks' bounds and each thread sums its own rows
   * (./_rows_sums.ts: ℓ and ∇ℓ read in place, Hessian rows gathered a chunk at
   * a time), the partial sums added in block order, so the result depends on
   * the number of threads only through that order. Counted in the base
   * model's cost counter as `rows.length` ℓ and ∇ℓ rows, or Hessian rows.
   *
   * @param theta θ (length d).
   * @param rows Increasing data-row indices in [0, n).
   * @param out `grad` (length d) or `hessian` (d × d), overwritten.
   * @returns Σℓₖ (0 for the Hessian).
   * @throws {RangeError} On rows out of range or not increasing.
   * @internal
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { loadCore } from "../core/load.ts";
   * import { higgsShaped } from "../data/synthetic.ts";
   * import { GlmModel } from "./glm.ts";
   * import { ThreadedGlmModel } from "./threaded_glm.ts";
   * const { data } = higgsShaped(loadCore({ shared: true }), { n: 4001, seed: 1 });
   * const model = new GlmModel(data, { family: "logistic" });
   * const threaded = await ThreadedGlmModel.create(model, { threads: 2 });
   * const theta = new Float64Array(30).fill(0.01), rows = new Int32Array([3, 2500, 4000]);
   * const g1 = new Float64Array(30), g2 = new Float64Array(30);
   * const ll = threaded.rowsSums(theta, rows, { grad: g2 });
   * assert.ok(Math.abs(ll - model.logLikelihoodRows(theta, rows, { grad: g1 })) < 1e-9);
   * threaded.close();
   * ```
   */
  rowsSums(
    theta: Float64Array,
    rows: Int32Array,
    out: { grad?: Float64Array; hessian?: Float64Array },
  ): number {
    const n = this.numRows, m = rows.length;
    const block0 = this.#block0;
    if (!(block0 instanceof GlmModel)) {
      throw new TypeError("sums over listed rows need a built-in GLM family");
    }
    if ((out.grad === undefined) === (out.hessian === undefined)) {
      throw new TypeError("give either grad or hessian");
    }
    for (let i = 0; i < m; i++) {
      const r = rows[i];
      if (!(r >= 0 && r < n) || (i > 0 && r <= rows[i - 1])) {
        throw new RangeError(`rows must increase within [0, ${n - 1}], got ${r} at position ${i}`);
      }
    }
    const what = out.grad !== undefined ? ROWS_GRAD : ROWS_HESS;
    // The list in the shared memory, where the workers read it.
    const list = this.#pool !== null && m > 0 ? new ScratchI32(this.base.arena, m) : null;
    try {
      if (list !== null) {
        const view = list.view(0, m);
        view.set(rows);
        this.#run(PASS_ROWS, theta, [view.byteOffset, m, what]);
      }
      let ll = this.#withWorkers(() => {
        const [lo, hi] = rowsWithin(rows, 0, this.blockStarts[1]);
        return blockRowsSums(block0, theta, rows.subarray(lo, hi), what, this.#grad0, this.#hess0);
      });
      if (what === ROWS_GRAD) {
        out.grad!.set(this.#grad0);
        if (list !== null) ll = this.#pool!.addLlGrad(ll, out.grad);
        this.cost.numLogLikRows += m;
        this.cost.numGradRows += m;
      } else {
        out.hessian!.set(this.#hess0);
        if (list !== null) this.#pool!.addHess(out.hessian!);
        this.cost.numHessianRows += m;
      }
      return ll;
    } finally {
      list?.dispose();
    }
  }

  /** Listed rows, in the calling thread (counted in the shared cost counter). */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options: { grad?: Float64Array; perRow?: Float64Array } = {},
  ): number {
    return this.base.logLikelihoodRows(theta, rows, options);
  }

  /** Per-row gradients of listed rows, in the calling thread (counted in the shared cost counter). */
  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    this.base.perRowGradients(theta, rows, out);
  }

  /** log π(θ). */
  logDensity(theta: Float64Array): number {
    return this.logPrior(theta) + this.logLikelihood(theta);
  }

  /** log π(θ) and its gradient. */
  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    return logPosteriorAndGradient(this, theta, grad, this.#priorGrad);
  }

  /**
   * Stop the workers and free their scratch (the base model stays usable).
   *
   * @returns Nothing.
   */
  close(): void {
    this.#close(0);
  }

  /**
   * @internal Close as {@link close}, but keep up to `count` of the pass
   * workers for chains: each leaves its pass loop as a chain worker
   * (models/_pass_worker.ts) and is the caller's to hand to
   * samplers/parallel.ts `adoptChainWorkers` (or terminate).
   *
   * @param count Workers wanted (fewer when the model has fewer; none once closed).
   * @returns The workers kept.
   */
  closeHandingOver(count: number): Worker[] {
    return this.#close(count);
  }

  #close(keep: number): Worker[] {
    if (this.#closed) return [];
    this.#closed = true;
    let kept: Worker[] = [];
    if (keep > 0 && this.#pool !== null) kept = this.#pool.handOver(keep, BECOME_CHAIN_WORKER);
    else this.#pool?.close();
    this.#ahead?.list.dispose();
    this.#ahead = null;
    for (const r of this.#regions) releaseRegion(this.base.arena, r);
    this.#block0.dispose();
    return kept;
  }
}

/**
 * The options of a model over rows [start, end): the per-row columns
 * (offset, trials) cut to those rows, everything else as given.
 */
function blockOptions(options: Readonly<GlmOptions>, start: number, end: number): GlmOptions {
  const cut = (col: ArrayLike<number>) =>
    Array.from({ length: end - start }, (_, i) => col[start + i]);
  const out: GlmOptions = { ...options };
  if (options.offset !== undefined) out.offset = cut(options.offset);
  if (options.trials !== undefined) out.trials = cut(options.trials);
  return out;
}

/** Pass workers started ahead of a model by {@link prestartPassWorkers}. */
const _prestarted: Worker[] = [];

/**
 * @internal Start `count` pass workers now, so that their modules load while
 * the calling thread still works (e.g. reads the data), taking first one that
 * models/_early_pass_worker.ts started even earlier; the next
 * {@link ThreadedGlmModel.create} takes them first. A worker holds nothing
 * until its start message.
 *
 * @param count Workers to start (a runtime without workers starts none).
 * @param chainSampler When the workers will be handed over to chains
 *   ({@link ThreadedGlmModel.closeHandingOver}): their sampler, whose modules
 *   and the chain role's the workers started here load now too (the early
 *   worker was asked when it started).
 * @returns A function that terminates the workers no model took.
 */
export function prestartPassWorkers(count: number, chainSampler?: string): () => void {
  if (typeof Worker !== "undefined") {
    for (let k = 0; k < count; k++) {
      try {
        _prestarted.push(takeEarlyPassWorker() ?? newPassWorker(chainSampler));
      } catch {
        break; // workers cannot start here: create() says so when it runs
      }
    }
  }
  return () => {
    for (const w of _prestarted.splice(0)) w.terminate();
  };
}
