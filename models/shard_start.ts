/**
 * How a {@link ShardedGlmModel} (models/sharded_glm.ts) starts: its options,
 * the source checked against the family, the prior over the first row, the
 * shard bounds, each shard worker's init message and the pass pool, and the
 * calling thread's evaluation of gathered rows (a built-in family's kernels
 * or a user family's model).
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { type CoreBackend, loadCore, workerCore } from "../core/load.ts";
import { dataViews } from "../core/row_buffer.ts";
import type { GlmData } from "../data/dataset.ts";
import { openRowStore, type RowStore, StagedRows } from "../data/row_store.ts";
import { PassPool } from "./_pass_pool.ts";
import type { ShardWorkerInit, UserFamilyBytes } from "./_shard_protocol.ts";
import { GlmModel, type GlmOptions } from "./glm.ts";
import { glmRowHessians } from "./glm_row_hessians.ts";
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
export const GATHER_ROWS = 8192;

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
 *
 * @internal
 */
export interface LocalRows {
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

function _glmRows(glm: GlmModel): LocalRows {
  const k = glm.kernels;
  return {
    logLikelihood: (data, theta, _rows, options) => k.logLikelihood(data, theta, options),
    gradients: (data, theta, rows, out) => k.rowGradients(data, theta, { rows, out }),
    hessians: (data, theta, rows, out) => glmRowHessians(k, data, theta, rows, out),
    setAux: (aux) => k.setAux(aux),
  };
}

function _userRows(user: ShardUserFamily): LocalRows {
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
 * What a {@link ShardedGlmModel} holds once its workers have started.
 *
 * @internal
 */
export interface ShardFields {
  /** The prior (and option checks): a model over the first row. */
  prior: GlmModel | UserGlmModel;
  /** The calling thread's evaluation of gathered rows. */
  local: LocalRows;
  /** The compiled family written in AssemblyScript, or null. */
  user: ShardUserFamily | null;
  /** Where gathered rows are staged in the calling thread. */
  staged: StagedRows;
  /** The first row, which the prior's model reads. */
  priorRows: StagedRows;
  /** The open row store of a streamed model (null for memory shards). */
  store: RowStore | null;
  /** The shard workers. */
  pool: PassPool;
  /** The shared buffers of a memory-kind gather. */
  gather: { idx: Int32Array; x: Float64Array; y: Float64Array; aux: Float64Array };
  /** What the rows' aux column holds, if they have one. */
  auxColumn: "offset" | "trials" | null;
  /** Rows n. */
  numRows: number;
  /** How X is stored. */
  storage: "f32" | "f64";
  /** "memory" or "stream". */
  shardKind: "memory" | "stream";
  /** First row of each shard, then n. */
  bounds: number[];
}

/**
 * Start one worker per shard: check the source against the family (the
 * per-row column it takes or lacks, the counts), build the prior and the
 * option checks over the first row (GlmModel's own, or a user family's model
 * over that row), split the rows into contiguous shards and send each worker
 * its init message; a streamed shard keeps the store open, a memory shard
 * closes it.
 *
 * @param source A row store file, or a data set in memory ("memory" kind only).
 * @param glmOptions Family and prior; null for a family written in AssemblyScript.
 * @param user The compiled family, or null.
 * @param options `workers`, `shardKind`, `chunkRows`, `backend`, `checkSource`.
 * @returns What the model holds, once every worker holds (or can read) its rows.
 * @internal
 */
export async function startShards(
  source: string | GlmData,
  glmOptions: GlmOptions | null,
  user: ShardUserFamily | null,
  options: ShardedGlmOptions,
): Promise<ShardFields> {
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
  return {
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
  };
}
