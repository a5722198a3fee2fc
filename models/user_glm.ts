/**
 * A GLM whose per-row likelihood the user writes in AssemblyScript: ℓ(η, y),
 * dℓ/dη and d²ℓ/dη² as `(eta: f64, y: f64): f64` functions, compiled at run
 * time into a kernel over the data in the arena (core/user_family.ts), with
 * independent Gaussian priors per coefficient as {@link GlmModel}.
 *
 * ```
 *  log π(θ) = Σⱼ log N(θⱼ | 0, s²) + Σᵢ ℓ(xᵢᵀθ, yᵢ)
 * ```
 *
 * It is a {@link PerRowHessianModel}, so every sampler runs on it, HMC-ECS
 * through the per-row control variates.
 *
 * The same family runs on threads over a shared memory
 * (`ThreadedGlmModel.create(userGlmModel)`), and on worker shards in memory or
 * streamed from a row store ({@link shardedUserGlmModel}: a
 * `ShardedGlmModel` whose shards instantiate the module compiled here).
 *
 * References: docs/architecture.md, "The WASM core" (the data layout the kernel reads).
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { loadCore } from "../core/load.ts";
import { dataViews } from "../core/row_buffer.ts";
import { compileUserFamily, type UserFamilyKernels } from "../core/user_family.ts";
import type { GlmData } from "../data/dataset.ts";
import { ShardedGlmModel, type ShardedGlmOptions } from "./sharded_glm.ts";
import {
  assertPosition,
  type CostCounter,
  newCostCounter,
  type PerRowHessianModel,
} from "./model.ts";

/** Options of {@link UserGlmModel.create}. */
export interface UserGlmOptions {
  /** AssemblyScript defining logLik, dLogLik and d2LogLik, each (eta: f64, y: f64): f64. */
  source: string;
  /** Prior sd of every coefficient (default 10; Infinity = flat). */
  priorScale?: number;
}

/**
 * A GLM over a user-written AssemblyScript family.
 *
 * @example
 * ```ts ignore
 * import { loadCore } from "../core/load.ts";
 * import { UserGlmModel } from "./user_glm.ts";
 * const model = await UserGlmModel.create(data, { source: myFamilySource, priorScale: 10 });
 * ```
 */
export class UserGlmModel implements PerRowHessianModel {
  /** The data set. */
  readonly data: GlmData;
  /** The arena. */
  readonly arena: Arena;
  /**
   * The compiled family's kernels.
   *
   * @internal
   */
  readonly kernels: UserFamilyKernels;
  /** d. */
  readonly dim: number;
  /** n. */
  readonly numRows: number;
  /** Column names. */
  readonly parameterNames: readonly string[];
  /** Cost counter. */
  readonly cost: CostCounter = newCostCounter();
  /** Prior sd of every coefficient (Infinity = flat). */
  readonly priorScale: number;
  /**
   * Marks a model of a user family, so that code which must not load the
   * compiler (models/model_spec.ts, in every program's graph) can tell it.
   */
  readonly isUserGlm = true as const;
  readonly #precision: number;
  readonly #logPriorConst: number;
  readonly #ownsKernels: boolean;

  private constructor(
    data: GlmData,
    kernels: UserFamilyKernels,
    priorScale: number,
    ownsKernels = true,
  ) {
    this.data = data;
    this.priorScale = priorScale;
    this.#ownsKernels = ownsKernels;
    this.arena = data.arena;
    this.kernels = kernels;
    this.dim = data.numCols;
    this.numRows = data.numRows;
    this.parameterNames = data.columnNames;
    this.#precision = Number.isFinite(priorScale) ? 1 / (priorScale * priorScale) : 0;
    this.#logPriorConst = Number.isFinite(priorScale)
      ? this.dim * (-0.5 * Math.log(2 * Math.PI) - Math.log(priorScale))
      : 0;
  }

  /**
   * Compile the family and build the model.
   *
   * @param data The data set (f64 X).
   * @param options The AssemblyScript source and the prior scale.
   * @returns The model.
   */
  static async create(data: GlmData, options: UserGlmOptions): Promise<UserGlmModel> {
    const s = options.priorScale ?? 10;
    if (!(s > 0)) throw new RangeError(`priorScale must be positive, got ${s}`);
    if (data.storage !== "f64") throw new TypeError("UserGlmModel needs f64 storage of X");
    return new UserGlmModel(data, await compileUserFamily(data.arena, options.source), s);
  }

  /**
   * The model over `data` (rows of the arena `kernels` run on) with
   * compiled kernels it does not own: a block of rows of a threaded model,
   * in the calling thread or a worker. {@link dispose} leaves the kernels.
   *
   * @param data The rows (f64 X, in `kernels.arena`'s memory).
   * @param kernels The compiled family.
   * @param priorScale Prior sd of every coefficient.
   * @returns The model.
   * @internal
   */
  static overKernels(data: GlmData, kernels: UserFamilyKernels, priorScale: number): UserGlmModel {
    if (data.storage !== "f64") throw new TypeError("UserGlmModel needs f64 storage of X");
    return new UserGlmModel(data, kernels, priorScale, false);
  }

  /**
   * A model of this family over other rows (a block of the same data set):
   * the same compiled kernels and prior scale.
   *
   * @param data The rows, in this model's arena.
   * @returns The model over `data`; disposing it leaves the kernels alone.
   */
  overRows(data: GlmData): UserGlmModel {
    return UserGlmModel.overKernels(data, this.kernels, this.priorScale);
  }

  /** log p(θ) and optionally its gradient. */
  logPrior(theta: Float64Array, grad?: Float64Array): number {
    let lp = this.#logPriorConst;
    for (let j = 0; j < this.dim; j++) {
      lp -= 0.5 * this.#precision * theta[j] * theta[j];
      if (grad) grad[j] = -this.#precision * theta[j];
    }
    return lp;
  }

  /** ∇² log p(θ) into `out`. */
  logPriorHessian(_theta: Float64Array, out: Float64Array): void {
    const d = this.dim;
    out.fill(0, 0, d * d);
    for (let j = 0; j < d; j++) out[j * d + j] = -this.#precision;
  }

  /** Σᵢ ℓᵢ(θ) and optionally its gradient. */
  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    assertPosition(theta, this.dim);
    const ll = this.kernels.logLikelihood(this.data, theta, { grad });
    this.cost.numLogLikRows += this.numRows;
    if (grad) this.cost.numGradRows += this.numRows;
    return ll;
  }

  /** Σ over listed rows of ℓᵢ(θ), with gradient and per-row values. */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options: { grad?: Float64Array; perRow?: Float64Array } = {},
  ): number {
    assertPosition(theta, this.dim);
    const ll = this.kernels.logLikelihood(this.data, theta, { rows, ...options });
    this.cost.numLogLikRows += rows.length;
    if (options.grad) this.cost.numGradRows += rows.length;
    return ll;
  }

  /** Per-row gradients ℓ'(ηᵢ)xᵢ into `out` (m × d). */
  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    this.#perRow(theta, rows, out, false);
  }

  /** Per-row Hessians ℓ''(ηᵢ)xᵢxᵢᵀ into `out` (m × d × d). */
  perRowHessians(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    this.#perRow(theta, rows, out, true);
  }

  /** Σᵢ ∇²ℓᵢ(θ) over all rows into `out`. */
  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void {
    assertPosition(theta, this.dim);
    this.kernels.hessian(this.data, theta, { out });
    this.cost.numHessianRows += this.numRows;
  }

  /** log π(θ) up to a constant. */
  logDensity(theta: Float64Array): number {
    return this.logPrior(theta) + this.logLikelihood(theta);
  }

  /** log π(θ) and its gradient. */
  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    const ll = this.logLikelihood(theta, grad), pg = new Float64Array(this.dim);
    const lp = this.logPrior(theta, pg);
    for (let j = 0; j < this.dim; j++) grad[j] += pg[j];
    return ll + lp;
  }

  /** Release the compiled family's memory if this model compiled it (the data are not freed). */
  dispose(): void {
    if (this.#ownsKernels) this.kernels.dispose();
  }

  #perRow(theta: Float64Array, rows: Int32Array, out: Float64Array, hessian: boolean): void {
    assertPosition(theta, this.dim);
    const m = rows.length, d = this.dim, w = new Float64Array(m);
    const size = hessian ? d * d : d;
    if (out.length < m * size) throw new RangeError(`out must hold ${m * size} values`);
    this.kernels.logLikelihood(this.data, theta, {
      rows,
      ...(hessian ? { secondDerivative: w } : { derivative: w }),
    });
    const x = dataViews(this.data).x;
    for (let k = 0; k < m; k++) {
      const o = rows[k] * d;
      for (let j = 0; j < d; j++) {
        const a = w[k] * x[o + j];
        if (!hessian) out[k * d + j] = a;
        else for (let l = 0; l < d; l++) out[k * size + j * d + l] = a * x[o + l];
      }
    }
    if (hessian) this.cost.numHessianRows += m;
    else this.cost.numGradRows += m;
  }
}

/**
 * A user family over rows sharded across workers, each shard in a
 * WebAssembly instance of its own, or streamed from a row store: a
 * {@link ShardedGlmModel} (`family` null) whose log π, gradient, Hessian and
 * per-row terms are this family's.
 *
 * The family is compiled once, here, over the first block of the model's own
 * fresh arena; every shard worker instantiates the same bytes over its own
 * memory, its first block reserved at the same address for the module's
 * static data. The prior is {@link UserGlmModel}'s N(0, s²) per coefficient
 * (`withPrior` puts another on). X is read as f64 (an f32 row store's cells
 * widen exactly); a row store with an aux column (offset or trials) is
 * refused: the family's functions take η and y only.
 *
 * Against a {@link UserGlmModel} over the same rows: one shard (or one
 * streamed block) gives the same log π, gradient and Hessian bit for bit;
 * more change only the order of the sums (docs/placement.md, "Summation
 * bounds"). Per-row terms of gathered rows are the same bits on every layout.
 *
 * @param source A row store file (either kind), or a data set in memory ("memory" kind).
 * @param options The AssemblyScript source and the prior scale.
 * @param shardOptions `workers`, `shardKind`, `chunkRows`, `backend`, `checkSource`.
 * @returns The model, once every worker holds (or can read) its rows; call `close()` when done.
 * @throws {SyntaxError} If the source does not compile; the errors of `ShardedGlmModel.create`.
 *
 * @example
 * ```ts ignore
 * import { EXAMPLE_LOGISTIC_SOURCE } from "../core/user_family.ts";
 * import { shardedUserGlmModel } from "./user_glm.ts";
 * const model = await shardedUserGlmModel("data.rows", { source: EXAMPLE_LOGISTIC_SOURCE }, {
 *   workers: 2,
 *   shardKind: "stream",
 * });
 * model.close();
 * ```
 */
export async function shardedUserGlmModel(
  source: string | GlmData,
  options: UserGlmOptions,
  shardOptions: ShardedGlmOptions = {},
): Promise<ShardedGlmModel> {
  const s = options.priorScale ?? 10;
  if (!(s > 0)) throw new RangeError(`priorScale must be positive, got ${s}`);
  // A fresh arena: the family's static block is its first block, the address
  // every shard worker's fresh arena reserves first.
  const arena = loadCore(shardOptions.backend ? { backend: shardOptions.backend } : {});
  const kernels = await compileUserFamily(arena, options.source);
  try {
    return await ShardedGlmModel.createUser(source, {
      arena,
      over: (data) => UserGlmModel.overKernels(data, kernels, s),
      worker: { bytes: kernels.bytes, staticBlock: kernels.staticBlock },
      dispose: () => kernels.dispose(),
    }, shardOptions);
  } catch (e) {
    kernels.dispose();
    throw e;
  }
}

// Types the signatures above mention, so that the documentation is complete.
export type { Arena } from "../core/arena.ts";
export type { CoreBackend } from "../core/load.ts";
export type { GlmData, Storage } from "../data/dataset.ts";
export type { CostCounter, DataModel, Model, PerRowHessianModel } from "./model.ts";
export type { ShardedGlmModel, ShardedGlmOptions } from "./sharded_glm.ts";
