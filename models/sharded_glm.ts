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
import type { Arena } from "../core/arena.ts";
import { type CoreBackend, loadCore, workerCore } from "../core/load.ts";
import { dataViews } from "../core/row_buffer.ts";
import type { GlmData } from "../data/dataset.ts";
import { openRowStore, type RowStore, StagedRows } from "../data/row_store.ts";
import { PASS_ALL, PASS_GATHER, PASS_GRAD, PASS_HESS, PASS_LL, PassPool } from "./_pass_pool.ts";
import type { ShardWorkerInit, UserFamilyBytes } from "./_shard_protocol.ts";
import type { ExternalGlmModel } from "./external_glm.ts";
import { GlmModel, type GlmModelFamily, type GlmOptions, glmRowHessians } from "./glm.ts";
import {
  assertPosition,
  type CostCounter,
  logPosteriorAndGradient,
  newCostCounter,
} from "./model.ts";
import type { UserGlmModel } from "./user_glm.ts";

/** Options of {@link ShardedGlmModel.create}. */
export interface ShardedGlmOptions {
  /** Number of shards, one worker each (default 2). */
  workers?: number;
  /** "memory" (default): rows loaded into the workers once; "stream": read from the file at every pass. */
  shardKind?: "memory" | "stream";
  /** Rows per block a streamed shard reads at a time (default 65536). */
  chunkRows?: number;
  /** Core backend of the workers and the calling thread (default: what `loadCore()` picks). */
  backend?: CoreBackend;
  /** Check the row store's recorded source file (default true; see `openRowStore`). */
  checkSource?: boolean;
}

/** Rows a memory-kind gather moves per round trip through the shared buffer. */
const GATHER_ROWS = 8192;

/**
 * A family written in AssemblyScript, compiled over the first block of
 * `arena` (a fresh arena), as `shardedUserGlmModel` (models/user_glm.ts)
 * hands it to {@link ShardedGlmModel.createUser}.
 *
 * @internal
 */
export interface ShardUserFamily {
  /** The calling thread's arena: the family's kernels run there, on staged rows. */
  readonly arena: Arena;
  /** The family's model over rows in `arena` (the prior; gathered rows). */
  over(data: GlmData): UserGlmModel;
  /** What each shard worker instantiates over its own memory. */
  readonly worker: UserFamilyBytes;
  /** Free the compiled family's memory in `arena`. */
  dispose(): void;
}

/**
 * The calling thread's evaluation of gathered rows (`rows` indexes the
 * staged data): a built-in family's kernels or a user family's model.
 */
interface _LocalRows {
  logLikelihood(
    data: GlmData,
    theta: Float64Array,
    rows: Int32Array,
    options: { grad?: Float64Array; perRow?: Float64Array },
  ): number;
  gradients(data: GlmData, theta: Float64Array, rows: Int32Array, out: Float64Array): void;
  hessians(data: GlmData, theta: Float64Array, rows: Int32Array, out: Float64Array): void;
  setAux(aux: Float64Array): void;
}

function _glmRows(glm: GlmModel): _LocalRows {
  const k = glm.kernels;
  return {
    logLikelihood: (data, theta, _rows, options) => k.logLikelihood(data, theta, options),
    gradients: (data, theta, rows, out) => k.rowGradients(data, theta, { rows, out }),
    hessians: (data, theta, rows, out) => glmRowHessians(k, data, theta, rows, out),
    setAux: (aux) => k.setAux(aux),
  };
}

function _userRows(user: ShardUserFamily): _LocalRows {
  return {
    logLikelihood: (data, theta, rows, options) =>
      user.over(data).logLikelihoodRows(theta, rows, options),
    gradients: (data, theta, rows, out) => user.over(data).perRowGradients(theta, rows, out),
    hessians: (data, theta, rows, out) => user.over(data).perRowHessians(theta, rows, out),
    setAux: () => {
      throw new TypeError("a family written in AssemblyScript takes no per-row column");
    },
  };
}

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
  #local: _LocalRows;
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

  private constructor(fields: {
    prior: GlmModel | UserGlmModel;
    local: _LocalRows;
    user: ShardUserFamily | null;
    staged: StagedRows;
    priorRows: StagedRows;
    store: RowStore | null;
    pool: PassPool;
    gather: { idx: Int32Array; x: Float64Array; y: Float64Array; aux: Float64Array };
    auxColumn: "offset" | "trials" | null;
    numRows: number;
    storage: "f32" | "f64";
    shardKind: "memory" | "stream";
    bounds: number[];
  }) {
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
    const family = glmOptions?.family ?? null;
    const what = glmOptions === null
      ? "a family written in AssemblyScript"
      : `family ${JSON.stringify(family)}`;
    const takes = family === "binomial"
      ? "trials"
      : family === "poisson" || family === "negative-binomial"
      ? "offset"
      : null;
    const W = options.workers ?? 2, kind = options.shardKind ?? "memory";
    const chunkRows = options.chunkRows ?? 65536;
    if (!Number.isInteger(W) || W < 1) {
      throw new RangeError(`workers must be a positive integer, got ${W}`);
    }
    if (kind !== "memory" && kind !== "stream") {
      throw new RangeError(`shardKind must be "memory" or "stream", got ${JSON.stringify(kind)}`);
    }
    if (!Number.isInteger(chunkRows) || chunkRows < 1) {
      throw new RangeError(`chunkRows must be a positive integer, got ${chunkRows}`);
    }
    if (kind === "stream" && typeof source !== "string") {
      throw new TypeError(`shardKind "stream" reads a row store file; got a data set in memory`);
    }
    const arena = user?.arena ?? loadCore(options.backend ? { backend: options.backend } : {});
    const backend = arena.backend;
    let store: RowStore | null = null;
    let n: number, d: number, storage: "f32" | "f64", names: readonly string[];
    let auxColumn: "offset" | "trials" | null = null;
    let auxValues: ArrayLike<number> | undefined;
    const first = { x: new Float64Array(0), y: new Float64Array(1), aux: new Float64Array(1) };
    /** The per-row columns' first values, for GlmModel's checks over the first row. */
    const firstColumns: Pick<GlmOptions, "offset" | "trials"> = {};
    if (typeof source === "string") {
      for (const key of ["offset", "trials"] as const) {
        if (glmOptions?.[key] !== undefined) {
          throw new TypeError(
            `the ${key} of rows in a row store is its aux column; give no ${key} option with ${source}`,
          );
        }
      }
      store = openRowStore(source, { checkSource: options.checkSource });
      ({ numRows: n, numCols: d, storage, columnNames: names } = store.header);
      const auxName = store.header.auxName;
      if (auxName !== undefined && takes === null) {
        store.close();
        throw new TypeError(
          `${source} has a per-row column "${auxName}" (an offset or trials), which ${what} does not take`,
        );
      }
      if (auxName === undefined && takes === "trials") {
        store.close();
        throw new TypeError(
          `family "binomial" needs trials: ${source} has no aux column (write the trials as the store's aux column)`,
        );
      }
      if (auxName !== undefined) auxColumn = takes;
      first.x = new Float64Array(d);
      if (n > 0) {
        store.readRows(
          new Int32Array(1),
          first.x,
          first.y,
          auxColumn === null ? undefined : first.aux,
        );
      }
    } else {
      ({ numRows: n, numCols: d, storage, columnNames: names } = source);
      const v = dataViews(source);
      first.x = Float64Array.from(v.x.subarray(0, d));
      first.y[0] = v.y[0];
      for (const key of ["offset", "trials"] as const) {
        const col = glmOptions?.[key];
        if (col === undefined) continue;
        if (col.length !== n) {
          throw new RangeError(`${key} must have ${n} values, got ${col.length}`);
        }
        auxColumn = key;
        auxValues = col;
        firstColumns[key] = [col[0]];
      }
    }
    const where = typeof source === "string" ? source : "the data set";
    if (n < 1) {
      store?.close();
      throw new RangeError(`${where} has no rows`);
    }
    if (W > n) {
      store?.close();
      throw new RangeError(`workers (${W}) must not exceed the number of rows (${n})`);
    }
    // The prior (and the option checks) are GlmModel's own, over the first row
    // (a user family's model over that row).
    const layout = { numCols: d, storage: "f64" as const, columnNames: names };
    const priorRows = new StagedRows(arena, layout);
    const fv = priorRows.views(1);
    fv.x.set(first.x);
    fv.y.set(first.y);
    let prior: GlmModel | UserGlmModel;
    try {
      if (glmOptions === null) prior = (user as ShardUserFamily).over(priorRows.data(1));
      else {
        const priorOptions: GlmOptions = { ...glmOptions };
        delete priorOptions.offset;
        delete priorOptions.trials;
        if (typeof source === "string" && auxColumn !== null) {
          firstColumns[auxColumn] = [first.aux[0]];
        }
        if (firstColumns.offset !== undefined) priorOptions.offset = firstColumns.offset;
        if (firstColumns.trials !== undefined) priorOptions.trials = firstColumns.trials;
        prior = new GlmModel(priorRows.data(1), priorOptions);
      }
    } catch (e) {
      store?.close();
      priorRows.release();
      throw e;
    }
    const bounds = Array.from({ length: W + 1 }, (_, k) => Math.round((k * n) / W));
    const P = prior.dim;
    const gather = {
      idx: new Int32Array(new SharedArrayBuffer(4 * GATHER_ROWS)),
      x: new Float64Array(new SharedArrayBuffer(8 * GATHER_ROWS * d)),
      y: new Float64Array(new SharedArrayBuffer(8 * GATHER_ROWS)),
      aux: new Float64Array(new SharedArrayBuffer(auxColumn === null ? 8 : 8 * GATHER_ROWS)),
    };
    const nu = glmOptions?.nu;
    const init = (k: number): { message: ShardWorkerInit; transfer: Transferable[] } => {
      const start = bounds[k], count = bounds[k + 1] - start;
      let rows: ShardWorkerInit["rows"];
      const transfer: ArrayBuffer[] = [];
      if (typeof source !== "string") {
        const v = dataViews(source);
        rows = {
          x: v.x.slice(start * d, (start + count) * d),
          y: v.y.slice(start, start + count),
        };
        transfer.push(rows.x.buffer as ArrayBuffer, rows.y.buffer as ArrayBuffer);
        if (auxValues !== undefined) {
          const col = auxValues;
          rows.aux = Float64Array.from({ length: count }, (_, i) => col[start + i]);
          transfer.push(rows.aux.buffer as ArrayBuffer);
        }
      }
      return {
        message: {
          kind,
          backend,
          core: workerCore(backend, false),
          family: prior instanceof GlmModel ? prior.family : null,
          kernel: prior instanceof GlmModel
            ? {
              family: prior.kernels.family,
              sigma: glmOptions?.sigma,
              nu: typeof nu === "number" ? nu : undefined,
            }
            : null,
          ...(user === null ? {} : { user: user.worker }),
          aux: auxColumn,
          numCols: d,
          storage,
          start,
          count,
          ...(typeof source === "string" ? { storePath: source } : { rows }),
          chunkRows,
          gather: {
            idx: gather.idx.buffer as SharedArrayBuffer,
            x: gather.x.buffer as SharedArrayBuffer,
            y: gather.y.buffer as SharedArrayBuffer,
            aux: gather.aux.buffer as SharedArrayBuffer,
          },
        },
        transfer,
      };
    };
    let pool: PassPool;
    try {
      pool = await PassPool.start<ShardWorkerInit>({
        url: new URL("./_shard_worker.ts", import.meta.url),
        dim: P,
        count: W,
        init,
        describe: (k) => `shard ${k} (rows ${bounds[k]} … ${bounds[k + 1] - 1} of ${where})`,
      });
    } catch (e) {
      store?.close();
      prior.dispose();
      priorRows.release();
      throw e;
    }
    if (kind === "memory") {
      store?.close();
      store = null;
    }
    return new ShardedGlmModel({
      prior,
      local: prior instanceof GlmModel ? _glmRows(prior) : _userRows(user as ShardUserFamily),
      user,
      staged: new StagedRows(arena, layout),
      priorRows,
      store,
      pool,
      gather,
      auxColumn,
      numRows: n,
      storage,
      shardKind: kind,
      bounds,
    });
  }

  #live(): void {
    if (this.#closed) throw new TypeError("this ShardedGlmModel has been closed");
  }

  /** Post θ and a command to every shard; returns after all have answered. */
  #pass(command: number, theta: Float64Array): void {
    this.#live();
    assertPosition(theta, this.dim);
    this.#pool.run(command, theta);
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
