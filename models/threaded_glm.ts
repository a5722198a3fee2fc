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
 * Subsample evaluations (`logLikelihoodRows`, `perRowGradients`) touch few
 * rows and run in the calling thread on the whole data.
 *
 * References: DESIGN.md, "Threads"; Higham (2002), "Accuracy and Stability
 * of Numerical Algorithms", §4.2 (error of recursive summation).
 *
 * @module
 */
import { releaseRegion, reserveRegion, type SharedRegion } from "../core/shared_region.ts";
import { type GlmData, glmDataRows } from "../data/dataset.ts";
import { PassControl } from "./_pass_control.ts";
import type { PassWorkerInit } from "./_pass_worker.ts";
import { GlmModel } from "./glm.ts";
import { type CostCounter, type DataModel, newCostCounter } from "./model.ts";
import { type ModelSpec, modelSpecOf } from "./model_spec.ts";

/** Options of {@link ThreadedGlmModel.create}. */
export interface ThreadedGlmOptions {
  /** Threads including the calling one (default navigator.hardwareConcurrency; 1 = no workers). */
  threads?: number;
}

const _LL = 1, _GRAD = 2, _HESS = 3;

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
  /** The model over all rows (subsample evaluations, prior). */
  readonly base: GlmModel;
  /** Dimension d. */
  readonly dim: number;
  /** Rows n. */
  readonly numRows: number;
  /** Parameter names. */
  readonly parameterNames: readonly string[];
  /** Cost counter (a full pass counts n rows, whatever the number of threads). */
  readonly cost: CostCounter = newCostCounter();
  /** Threads used, the calling one included. */
  readonly threads: number;
  #block0: GlmModel;
  #workers: Worker[];
  #regions: SharedRegion[];
  #control: PassControl;
  #io: Float64Array;
  #closed = false;
  #priorGrad: Float64Array;
  #grad0: Float64Array;
  #hess0: Float64Array;

  private constructor(
    base: GlmModel,
    block0: GlmModel,
    workers: Worker[],
    regions: SharedRegion[],
    control: PassControl,
    io: Float64Array,
  ) {
    this.base = base;
    this.dim = base.dim;
    this.numRows = base.numRows;
    this.parameterNames = base.parameterNames;
    this.threads = workers.length + 1;
    this.#block0 = block0;
    this.#workers = workers;
    this.#regions = regions;
    this.#control = control;
    this.#io = io;
    this.#priorGrad = new Float64Array(base.dim);
    this.#grad0 = new Float64Array(base.dim);
    this.#hess0 = new Float64Array(base.dim * base.dim);
  }

  /**
   * Start the workers over `model`'s shared data.
   *
   * @param model A GlmModel whose data are in a shared memory (`loadCore({ shared: true })`).
   * @param options `threads`.
   * @returns The threaded model; call {@link ThreadedGlmModel.close} when done.
   * @throws {TypeError} If the data are not in a shared memory; {@link RangeError} on bad `threads`.
   */
  static async create(
    model: GlmModel,
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
    const bounds = Array.from({ length: threads + 1 }, (_, k) => Math.round((k * n) / threads));
    const block = (k: number) => glmDataRows(data, bounds[k], bounds[k + 1] - bounds[k]);
    const block0 = new GlmModel(block(0), model.options);
    const control = new PassControl(threads - 1);
    const io = new Float64Array(new SharedArrayBuffer(8 * (d + (threads - 1) * (1 + d + d * d))));
    const scratch = (1 << 20) + 64 * d * d;
    const regions: SharedRegion[] = [];
    for (let k = 1; k < threads; k++) regions.push(reserveRegion(model.arena, scratch));
    const spec = (modelSpecOf(model) as { spec: PassWorkerInit["spec"] }).spec;
    const workers: Worker[] = [];
    try {
      await Promise.all(regions.map((region, i) => {
        const w = new Worker(new URL("./_pass_worker.ts", import.meta.url), { type: "module" });
        workers.push(w);
        return new Promise<void>((resolve, reject) => {
          w.onmessage = () => resolve();
          w.onerror = (e) => {
            e.preventDefault();
            reject(new Error(`pass worker failed to start: ${e.message}`));
          };
          const init: PassWorkerInit = {
            spec: { ...spec, data: _plainData(block(i + 1)) },
            region,
            control: control.shared,
            io: io.buffer as SharedArrayBuffer,
            slot: i,
          };
          w.postMessage(init);
        });
      }));
    } catch (e) {
      for (const w of workers) w.terminate();
      for (const r of regions) releaseRegion(model.arena, r);
      throw e;
    }
    return new ThreadedGlmModel(model, block0, workers, regions, control, io);
  }

  #run(command: number, theta: Float64Array): void {
    if (this.#closed) throw new TypeError("this ThreadedGlmModel has been closed");
    if (this.#workers.length === 0) return;
    this.#io.set(theta, 0);
    this.#control.post(command);
  }

  #wait(): void {
    if (this.#workers.length > 0) this.#control.wait();
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
    const d = this.dim;
    this.#run(grad ? _GRAD : _LL, theta);
    let ll = this.#block0.logLikelihood(theta, grad ? this.#grad0 : undefined);
    if (grad) grad.set(this.#grad0);
    this.#wait();
    const io = this.#io, slot = 1 + d + d * d;
    for (let k = 0; k < this.#workers.length; k++) {
      const base = d + k * slot;
      ll += io[base];
      if (grad) { for (let j = 0; j < d; j++) grad[j] += io[base + 1 + j]; }
    }
    this.cost.numLogLikRows += this.numRows;
    if (grad) this.cost.numGradRows += this.numRows;
    return ll;
  }

  /** Σᵢ ∇²ℓᵢ(θ) over all rows, blocks on all threads. */
  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void {
    const d = this.dim;
    this.#run(_HESS, theta);
    this.#block0.logLikelihoodHessian(theta, this.#hess0);
    out.set(this.#hess0);
    this.#wait();
    const io = this.#io, slot = 1 + d + d * d;
    for (let k = 0; k < this.#workers.length; k++) {
      const base = d + k * slot + 1 + d;
      for (let q = 0; q < d * d; q++) out[q] += io[base + q];
    }
    this.cost.numHessianRows += this.numRows;
  }

  /** Listed rows, in the calling thread. */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options: { grad?: Float64Array; perRow?: Float64Array } = {},
  ): number {
    const ll = this.base.logLikelihoodRows(theta, rows, options);
    this.cost.numLogLikRows += rows.length;
    if (options.grad) this.cost.numGradRows += rows.length;
    return ll;
  }

  /** Per-row gradients of listed rows, in the calling thread. */
  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    this.base.perRowGradients(theta, rows, out);
    this.cost.numGradRows += rows.length;
  }

  /** log π(θ). */
  logDensity(theta: Float64Array): number {
    return this.logPrior(theta) + this.logLikelihood(theta);
  }

  /** log π(θ) and its gradient. */
  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    const ll = this.logLikelihood(theta, grad);
    const lp = this.logPrior(theta, this.#priorGrad);
    for (let j = 0; j < this.dim; j++) grad[j] += this.#priorGrad[j];
    return ll + lp;
  }

  /**
   * Stop the workers and free their scratch (the base model stays usable).
   *
   * @returns Nothing.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#control.quit();
    for (const w of this.#workers) w.terminate();
    for (const r of this.#regions) releaseRegion(this.base.arena, r);
    this.#block0.dispose();
  }
}

/** The cloneable part of a GlmData (without its arena). */
function _plainData(d: GlmData): ModelSpec["data"] {
  return {
    x: d.x,
    y: d.y,
    numRows: d.numRows,
    numCols: d.numCols,
    storage: d.storage,
    columnNames: Array.from(d.columnNames),
  };
}
