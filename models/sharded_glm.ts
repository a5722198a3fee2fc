/**
 * A GLM whose rows are split into contiguous shards, one per worker, each
 * worker with its own WebAssembly instance: so n × d can exceed one wasm32
 * instance's 4 GiB when the machine has the memory ("memory" shards), or the
 * rows can stay in a row store file and be streamed through the kernels at
 * every pass ("stream" shards, out of core: memory does not grow with n).
 *
 * ```
 *  rows  0 … n/W  ── worker 0 (own instance) ─┐  θ in, (ℓ, ∇ℓ, ∇²ℓ) out through
 *        … 2n/W   ── worker 1 ────────────────┤  one small SharedArrayBuffer;
 *        … n      ── worker W−1 ──────────────┘  Σ in shard order
 *  "memory"  each worker loads its rows once (from the row store, or from
 *            arrays handed over)
 *  "stream"  each worker reads its rows from the row store in blocks of
 *            chunkRows (one staging buffer) at every pass
 * ```
 *
 * Every GLM family runs here, θ of length P (β, then log σ or log φ, then ω
 * for a sampled ν), and a family written in AssemblyScript (θ = β), built by
 * `shardedUserGlmModel` (models/user_glm.ts, the entry point that may load
 * the compiler): the family is compiled once, in the calling thread, over
 * the first block of this model's fresh arena, and every shard worker
 * instantiates the same bytes over its own memory with that block reserved
 * at the same address (models/worker_model.ts); X is staged as f64 (an f32
 * store's cells widen exactly). A per-row offset ("poisson", "negative-binomial") or
 * number of trials ("binomial") is the row store's aux column, or the
 * `offset` / `trials` option of a data set in memory; it travels with its
 * rows (into the shard, block by block through a streamed shard, and with
 * every gathered row). Each shard checks its responses against the family's
 * domain (a streamed shard at every pass), naming the first bad row.
 *
 * Full-data passes are synchronous, as a DataModel's are: the calling thread
 * posts θ and waits with `Atomics.wait` (allowed on Deno's main thread and in
 * workers, not in browsers' windows). Against the in-memory {@link GlmModel}
 * only the order of the floating-point sum changes (shards, and blocks of
 * chunkRows within a streamed shard): each order's recursive sum of the same
 * n terms is within γₙ·Σᵢ|tᵢ| of the exact sum, γₙ = nu/(1 − nu), u = 2⁻⁵³
 * (Higham 2002, §4.2), so the two differ by at most 2γₙ·Σᵢ|tᵢ| — per
 * coordinate of the gradient and the Hessian with the per-row terms in place
 * of ℓᵢ. With one memory shard (or one streamed block) the sums are the
 * same operations in the same order and agree exactly.
 *
 * Subsample rows (`readRows`, and `logLikelihoodRows` / `perRowGradients`
 * on them) come from the file in the calling thread (stream kind) or are
 * copied by the shard workers into a shared buffer (memory kind), then run
 * through the calling thread's own kernels.
 *
 * If a worker's request throws, the call throws an Error naming the worker
 * and its message; a worker that dies without answering (the process killed
 * it) is not detected and the call waits.
 *
 * References: docs/architecture.md, "Data beyond memory" and "Threads"; Higham (2002),
 * "Accuracy and Stability of Numerical Algorithms", §4.2.
 *
 * @module
 */
import type { GlmData } from "../data/dataset.ts";
import type { RowStore, StagedRows } from "../data/row_store.ts";
import {
  PASS_ALL,
  PASS_ALL_SAMPLED,
  PASS_GATHER,
  PASS_GRAD,
  PASS_HESS,
  PASS_LL,
  type PassPool,
} from "./_pass_pool.ts";
import type { ExternalGlmModel } from "./external_glm.ts";
import { GlmModel, type GlmModelFamily, type GlmOptions } from "./glm.ts";
import {
  assertPosition,
  type CostCounter,
  logPosteriorAndGradient,
  newCostCounter,
} from "./model.ts";
import {
  GATHER_ROWS,
  type LocalRows,
  type ShardedGlmOptions,
  type ShardFields,
  type ShardUserFamily,
  startShards,
} from "./shard_start.ts";
import type { UserGlmModel } from "./user_glm.ts";

export type { ShardedGlmOptions, ShardUserFamily } from "./shard_start.ts";

/**
 * A GLM over rows sharded across workers or streamed from a row store (see the
 * module notes). Build it with {@link ShardedGlmModel.create}; {@link close} it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { higgsShaped } from "../data/synthetic.ts";
 * import { writeRowStoreFromGlmData } from "../data/row_store.ts";
 * import { GlmModel } from "./glm.ts";
 * import { ShardedGlmModel } from "./sharded_glm.ts";
 * const arena = loadCore();
 * const { data } = higgsShaped(arena, { n: 4000, seed: 1, storage: "f32" });
 * const path = await Deno.makeTempFile({ suffix: ".rows" });
 * await writeRowStoreFromGlmData(path, data);
 * const sharded = await ShardedGlmModel.create(path, { family: "logistic" }, {
 *   workers: 2,
 *   shardKind: "stream",
 * });
 * const theta = new Float64Array(30).fill(0.01);
 * const a = sharded.logLikelihood(theta);
 * const b = new GlmModel(data, { family: "logistic" }).logLikelihood(theta);
 * assert.ok(Math.abs(a - b) <= 1e-10 * Math.abs(b));
 * sharded.close();
 * await Deno.remove(path);
 * ```
 */
export class ShardedGlmModel implements ExternalGlmModel {
  /** Marks the ExternalGlmModel interface. */
  readonly isExternalGlm = true as const;
  /** The family; null for a family written in AssemblyScript (no built-in family). */
  readonly family: GlmModelFamily | null;
  /** Length P of θ: numCols, plus log σ or log φ, plus ω for a sampled ν. */
  readonly dim: number;
  /** Columns d of X. */
  readonly numCols: number;
  /** Rows n. */
  readonly numRows: number;
  /** How X is stored. */
  readonly storage: "f32" | "f64";
  /** Parameter names (the column names, then GlmModel's names of τ and ω). */
  readonly parameterNames: readonly string[];
  /**
   * The GlmModel options (family, σ, ν, priors), without the per-row columns;
   * null for a family written in AssemblyScript.
   */
  readonly glmOptions: Readonly<GlmOptions> | null;
  /**
   * What the rows' aux column holds: an offset ("poisson",
   * "negative-binomial") or the trials ("binomial"); null without one.
   */
  readonly auxColumn: "offset" | "trials" | null;
  /** Cost counter (a full pass counts n rows, whatever the number of shards). */
  readonly cost: CostCounter = newCostCounter();
  /** "memory" or "stream". */
  readonly shardKind: "memory" | "stream";
  /** First row of each shard, then n (length workers + 1). */
  readonly shardBounds: readonly number[];
  #prior: GlmModel | UserGlmModel;
  #local: LocalRows;
  #user: ShardUserFamily | null;
  #staged: StagedRows;
  #priorRows: StagedRows;
  #store: RowStore | null;
  #pool: PassPool;
  #gIdx: Int32Array;
  #gx: Float64Array;
  #gy: Float64Array;
  #gAux: Float64Array;
  #auxLocal = new Float64Array(0);
  #identity = new Int32Array(0);
  #priorGrad: Float64Array;
  #closed = false;
  #numPasses = 0;

  private constructor(fields: ShardFields) {
    const p = fields.prior;
    this.dim = p.dim;
    this.numRows = fields.numRows;
    this.storage = fields.storage;
    this.parameterNames = p.parameterNames;
    if (p instanceof GlmModel) {
      this.family = p.family;
      this.numCols = p.numCols;
      const { offset: _offset, trials: _trials, ...rest } = p.options;
      this.glmOptions = rest;
    } else {
      this.family = null;
      this.numCols = p.dim;
      this.glmOptions = null;
    }
    this.auxColumn = fields.auxColumn;
    this.shardKind = fields.shardKind;
    this.shardBounds = fields.bounds;
    this.#prior = p;
    this.#local = fields.local;
    this.#user = fields.user;
    this.#staged = fields.staged;
    this.#priorRows = fields.priorRows;
    this.#store = fields.store;
    this.#pool = fields.pool;
    this.#gIdx = fields.gather.idx;
    this.#gx = fields.gather.x;
    this.#gy = fields.gather.y;
    this.#gAux = fields.gather.aux;
    this.#priorGrad = new Float64Array(p.dim);
  }

  /**
   * Start one worker per shard.
   *
   * @param source A row store file (either kind), or a data set in memory
   *   ("memory" kind only: its rows are copied to the workers).
   * @param glmOptions Family and prior, as for {@link GlmModel}. The offset
   *   ("poisson", "negative-binomial") or trials ("binomial") of a row store
   *   are its aux column; of a data set in memory, the `offset` or `trials`
   *   option (one value per row).
   * @param options `workers`, `shardKind`, `chunkRows`, `backend`, `checkSource`.
   * @returns The model, once every worker holds (or can read) its rows.
   * @throws {TypeError} On an unknown family, a per-row column the family does
   *   not take or lacks, or a bad source kind; {@link RangeError} on bad counts
   *   or a response outside the family's domain (naming the row); Error naming
   *   the file when the store cannot be opened or a worker fails to start.
   */
  static create(
    source: string | GlmData,
    glmOptions: GlmOptions,
    options: ShardedGlmOptions = {},
  ): Promise<ShardedGlmModel> {
    return ShardedGlmModel.#start(source, glmOptions, null, options);
  }

  /**
   * Start one worker per shard over a family written in AssemblyScript,
   * compiled over the first block of `user.arena` (use
   * `shardedUserGlmModel`, models/user_glm.ts, which compiles it). The model
   * owns `user` once it resolves ({@link close} disposes it); if it throws,
   * the caller still does.
   *
   * @param source A row store file without an aux column (either kind), or a
   *   data set in memory ("memory" kind only).
   * @param user The compiled family.
   * @param options As for {@link create}; `backend` must be `user.arena`'s.
   * @returns The model.
   * @throws {TypeError} On a store with an aux column (the family reads xᵢ and yᵢ only),
   *   and the errors of {@link create}.
   * @internal
   */
  static createUser(
    source: string | GlmData,
    user: ShardUserFamily,
    options: ShardedGlmOptions = {},
  ): Promise<ShardedGlmModel> {
    if (options.backend !== undefined && options.backend !== user.arena.backend) {
      throw new TypeError(
        `backend ${JSON.stringify(options.backend)} differs from the family's arena's (${
          JSON.stringify(user.arena.backend)
        })`,
      );
    }
    return ShardedGlmModel.#start(source, null, user, options);
  }

  static async #start(
    source: string | GlmData,
    glmOptions: GlmOptions | null,
    user: ShardUserFamily | null,
    options: ShardedGlmOptions,
  ): Promise<ShardedGlmModel> {
    return new ShardedGlmModel(await startShards(source, glmOptions, user, options));
  }

  #live(): void {
    if (this.#closed) throw new TypeError("this ShardedGlmModel has been closed");
  }

  /**
   * Full-data passes made so far (one per `logLikelihood`,
   * `logLikelihoodHessian` or `controlVariateSums` call, whatever it sums);
   * `cost` counts rows, subsample rows included.
   */
  get numPasses(): number {
    return this.#numPasses;
  }

  /** Post θ, a command and its arguments to every shard; returns after all have answered. */
  #pass(command: number, theta: Float64Array, args?: readonly number[]): void {
    this.#live();
    assertPosition(theta, this.dim);
    this.#pool.run(command, theta, args === undefined ? {} : { args });
    this.#numPasses++;
  }

  /** Σ of the shards' ℓ, and their gradients into `grad`, in shard order. */
  #sumLlGrad(grad?: Float64Array): number {
    grad?.fill(0, 0, this.dim);
    return this.#pool.addLlGrad(0, grad);
  }

  #sumHess(out: Float64Array): void {
    out.fill(0, 0, this.dim * this.dim);
    this.#pool.addHess(out);
  }

  /** log p(θ) and optionally its gradient (no rows): GlmModel's prior. */
  logPrior(theta: Float64Array, grad?: Float64Array): number {
    return this.#prior.logPrior(theta, grad);
  }

  /** ∇² log p(θ) into `out`. */
  logPriorHessian(theta: Float64Array, out: Float64Array): void {
    this.#prior.logPriorHessian(theta, out);
  }

  /** Σᵢ ℓᵢ(θ) over all rows (and its gradient): one pass on every shard. */
  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    this.#pass(grad ? PASS_GRAD : PASS_LL, theta);
    const ll = this.#sumLlGrad(grad);
    this.cost.numLogLikRows += this.numRows;
    if (grad) this.cost.numGradRows += this.numRows;
    return ll;
  }

  /** Σᵢ ∇²ℓᵢ(θ) over all rows into `out`: one pass on every shard. */
  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void {
    this.#pass(PASS_HESS, theta);
    this.#sumHess(out);
    this.cost.numHessianRows += this.numRows;
  }

  /**
   * S = Σₖ ℓₖ(θ*), A = Σₖ ∇ℓₖ(θ*) into `gradSum` and, when given,
   * B = Σₖ ∇²ℓₖ(θ*) into `hessSum`, in one pass on every shard (a streamed
   * shard reads its rows once for all three).
   *
   * @param thetaStar θ* (length d).
   * @param gradSum Output A (length d).
   * @param hessSum Optional output B (d × d).
   * @returns S.
   */
  controlVariateSums(
    thetaStar: Float64Array,
    gradSum: Float64Array,
    hessSum?: Float64Array,
  ): number {
    this.#pass(hessSum ? PASS_ALL : PASS_GRAD, thetaStar);
    const s = this.#sumLlGrad(gradSum);
    if (hessSum) this.#sumHess(hessSum);
    this.cost.numLogLikRows += this.numRows;
    this.cost.numGradRows += this.numRows;
    if (hessSum) this.cost.numHessianRows += this.numRows;
    return s;
  }

  /**
   * S and A as {@link controlVariateSums} gives them, and in the same pass an
   * estimate of B from one row of each group of `stride` consecutive rows
   * (a row chosen by a hash of the group and `seed`, so every row has
   * probability 1/stride): B̂ = stride · Σ over the chosen rows of ∇²ℓₖ(θ*),
   * unbiased. The Hessian kernel then runs on ≈ n/stride rows, and the pass
   * costs little more than one of ℓ and ∇ℓ. The chosen rows depend only on
   * (n, stride, seed), never on the shards.
   *
   * @param thetaStar θ* (length d).
   * @param gradSum Output A (length d).
   * @param hessSum Output B̂ (d × d).
   * @param sample `stride` (an integer ≥ 1; 1 is every row, B exactly) and
   *   `seed` (an integer in [0, 2³²)).
   * @returns S.
   * @throws {RangeError} On a bad stride or seed.
   */
  controlVariateSumsSampledHessian(
    thetaStar: Float64Array,
    gradSum: Float64Array,
    hessSum: Float64Array,
    sample: { stride: number; seed: number },
  ): number {
    const { stride, seed } = sample;
    if (!(Number.isInteger(stride) && stride >= 1 && stride < 2 ** 31)) {
      throw new RangeError(`stride must be an integer in [1, 2³¹), got ${stride}`);
    }
    if (!(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32)) {
      throw new RangeError(`seed must be an integer in [0, 2³²), got ${seed}`);
    }
    if (stride === 1) return this.controlVariateSums(thetaStar, gradSum, hessSum);
    this.#pass(PASS_ALL_SAMPLED, thetaStar, [stride, seed, 0]);
    const s = this.#sumLlGrad(gradSum);
    this.#sumHess(hessSum);
    for (let q = 0; q < this.dim * this.dim; q++) hessSum[q] *= stride;
    this.cost.numLogLikRows += this.numRows;
    this.cost.numGradRows += this.numRows;
    this.cost.numHessianRows += Math.ceil(this.numRows / stride);
    return s;
  }

  /**
   * Copy rows by index (repeats allowed) into `x` (rows.length × d, f64),
   * `y` and, when given, `aux` (the offset or trials, {@link auxColumn}): from
   * the file in this thread (stream kind) or from the shard workers (memory
   * kind). Counts no cost.
   *
   * @param rows Row indices in [0, n).
   * @param x Output X.
   * @param y Output y.
   * @param aux Output aux column (the rows must carry one).
   * @throws {RangeError} Naming the first bad index, or if `aux` is asked of rows without one.
   */
  readRows(rows: Int32Array, x: Float64Array, y: Float64Array, aux?: Float64Array): void {
    this.#live();
    const m = rows.length, d = this.numCols, n = this.numRows;
    if (x.length < m * d || y.length < m || (aux !== undefined && aux.length < m)) {
      throw new RangeError(
        `reading ${m} rows needs x of ${m * d} and y${
          aux === undefined ? "" : " and aux"
        } of ${m} values, got ${x.length} and ${y.length}${
          aux === undefined ? "" : ` and ${aux.length}`
        }`,
      );
    }
    if (aux !== undefined && this.auxColumn === null) {
      throw new RangeError(
        "these rows have no aux column (offset or trials), but aux was asked for",
      );
    }
    if (this.#store !== null) {
      this.#store.readRows(rows, x, y, aux);
      return;
    }
    for (let k = 0; k < m; k++) {
      const r = rows[k];
      if (!(r >= 0 && r < n)) {
        throw new RangeError(`rows[${k}] = ${r} is not a row of the data (rows 0 … ${n - 1})`);
      }
    }
    for (let s = 0; s < m; s += GATHER_ROWS) {
      const c = Math.min(GATHER_ROWS, m - s);
      this.#gIdx.set(rows.subarray(s, s + c));
      this.#pool.run(PASS_GATHER, null, { argument: c });
      x.set(this.#gx.subarray(0, c * d), s * d);
      y.set(this.#gy.subarray(0, c), s);
      aux?.set(this.#gAux.subarray(0, c), s);
    }
  }

  /**
   * Gather `rows` into the local staging arena (their aux column into the
   * local kernels); returns them as a data set.
   */
  #gathered(rows: Int32Array): GlmData {
    const m = rows.length;
    const v = this.#staged.views(m);
    if (this.auxColumn === null) this.readRows(rows, v.x as Float64Array, v.y);
    else {
      if (this.#auxLocal.length < m) this.#auxLocal = new Float64Array(m);
      const aux = this.#auxLocal.subarray(0, m);
      this.readRows(rows, v.x as Float64Array, v.y, aux);
      this.#local.setAux(aux);
    }
    if (this.#identity.length < m) this.#identity = Int32Array.from({ length: m }, (_, k) => k);
    return this.#staged.data(m);
  }

  /** Σ over listed rows of ℓᵢ(θ), optionally with gradient and per-row values (rows gathered first). */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options: { grad?: Float64Array; perRow?: Float64Array } = {},
  ): number {
    assertPosition(theta, this.dim);
    const m = rows.length;
    let ll = 0;
    if (m === 0) options.grad?.fill(0, 0, this.dim);
    else {
      const data = this.#gathered(rows);
      ll = this.#local.logLikelihood(data, theta, this.#identity.subarray(0, m), {
        grad: options.grad,
        perRow: options.perRow,
      });
    }
    this.cost.numLogLikRows += m;
    if (options.grad) this.cost.numGradRows += m;
    return ll;
  }

  /** Per-row gradients ∇ℓᵢ(θ) of the listed rows into `out` (m × d). */
  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    const m = rows.length, d = this.dim;
    if (out.length < m * d) {
      throw new RangeError(`out must hold ${m * d} values, got ${out.length}`);
    }
    assertPosition(theta, d);
    if (m > 0) {
      const data = this.#gathered(rows);
      this.#local.gradients(data, theta, this.#identity.subarray(0, m), out);
    }
    this.cost.numGradRows += m;
  }

  /**
   * Per-row Hessians ∇²ℓᵢ(θ) of the listed rows into `out` (m × P × P): the
   * rows gathered, then {@link GlmModel.perRowHessians}' arithmetic
   * (`glmRowHessians`), so each row's Hessian is the in-memory model's bits.
   * Counts m Hessian rows.
   */
  perRowHessians(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    const m = rows.length, P = this.dim;
    if (out.length < m * P * P) {
      throw new RangeError(`out must hold ${m * P * P} values, got ${out.length}`);
    }
    assertPosition(theta, P);
    if (m > 0) {
      const data = this.#gathered(rows);
      this.#local.hessians(data, theta, this.#identity.subarray(0, m), out);
    }
    this.cost.numHessianRows += m;
  }

  /** log π(θ) up to a constant. */
  logDensity(theta: Float64Array): number {
    return this.logPrior(theta) + this.logLikelihood(theta);
  }

  /** log π(θ) and its gradient (the same composition as GlmModel's). */
  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    return logPosteriorAndGradient(this, theta, grad, this.#priorGrad);
  }

  /** Stop the workers, close the file and free the local buffers. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pool.close();
    this.#store?.close();
    this.#staged.release();
    this.#prior.dispose();
    this.#priorRows.release();
    this.#user?.dispose();
  }
}
