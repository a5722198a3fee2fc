/**
 * The bridge every SQL engine's row source shares: a worker
 * (`engines/_database_rows_worker.ts`) holds the connection (DuckDB
 * embedded, a client of `npm:pg`, or ClickHouse's HTTP interface) and runs
 * one query per request, writing the answer into a `SharedArrayBuffer`; the
 * caller waits with `Atomics.wait`, so the {@link DatabaseRowSource} it
 * returns is synchronous, as the sampler's model interface needs.
 *
 * ```
 *  caller (sampler's thread)               worker                     engine
 *  fetchRows(keys) ── distinct keys ─────► SELECT key, x…, y FROM T ─► WHERE key IN / = ANY
 *        Atomics.wait ◄── values in a SharedArrayBuffer ◄──
 *  sums(θ, family) ──────────────────────► the centring SQL ─────────► one aggregate: n, S, A, B
 *  scanRows(visit) ── scanNext ──────────► SELECT … ORDER BY key ────► every row, in key order,
 *        visit(rows) ◄── batchRows rows at a time ◄──                  read in chunks
 * ```
 *
 * `scanRows` is the streamed full-data pass of a family whose sums the
 * engine's SQL cannot compute (models/database_glm.ts runs the core's family
 * kernels over the rows as they arrive).
 *
 * A pass whose sums overflow at θ (exp(η) far from the data) answers NaN in
 * every place, n included, instead of an error: the model then reports a
 * non-finite log likelihood there, as in memory.
 *
 * Opening checks the key (min, max and the count of distinct keys: the
 * integers base … base + n − 1 once each). The engines' entry points
 * (`openDuckDbRows` in engines/duckdb.ts, `openDatabaseRows` in
 * engines/database_glm.ts) call {@link openRowSource}; models/database_glm.ts
 * builds the model over what it returns.
 *
 * @module
 */
import type { DatabaseGlmFamily, DatabaseRowSource } from "../models/database_glm.ts";
import { DATABASE_GLM_FAMILIES } from "../models/database_glm.ts";
import type { RowsWorkerInit, RowsWorkerRequest } from "./_database_rows_protocol.ts";

const STATE_BUSY = 0, STATE_ERROR = 2;

/** What {@link openRowSource} takes: the worker's first message without its buffers. */
export interface RowSourceOpening
  extends Omit<RowsWorkerInit, "ctrl" | "data" | "message" | "columns"> {
  /** Columns of X (no intercept column). */
  columns: readonly string[];
  /** Where the rows are, for messages (`table T at URL`, password as `***`). */
  where: string;
  /** The connection with any password replaced by `***`. */
  label: string;
  /** Most distinct keys per query (default 16 384). */
  batchRows?: number;
  /** Longest wait for one query, in seconds (default 600). */
  timeoutSeconds?: number;
  /** How full-data passes run (default "auto"; see `DatabaseRowSource.passes`). */
  passes?: "auto" | "sql" | "stream";
  /** Rows per block of a streamed pass (default 65 536, a row store's default). */
  chunkRows?: number;
  /** The engine's name in messages ("DuckDB", "PostgreSQL", "ClickHouse"). */
  engineName: string;
}

/** The per-row column options every engine's entry point takes, and how passes run. */
export interface RowSourceColumnOptions {
  /**
   * A column of offsets ("poisson", "negative-binomial": η = xᵀβ + offset),
   * read with every row.
   */
  offset?: string;
  /** A column of the number of trials ("binomial"), read with every row. */
  trials?: string;
  /**
   * How full-data passes run: "auto" (default) as one SQL aggregate where the
   * engine's SQL computes the family's sums, else streamed: every row read
   * in key order and summed by the core's family kernels, in blocks of
   * `chunkRows`; "sql" refuses a family the SQL cannot sum; "stream" always
   * streams (the sums of a row store streamed in the same blocks, bit for bit).
   */
  passes?: "auto" | "sql" | "stream";
  /** Rows per block of a streamed pass (default 65 536, as a streamed row store's). */
  chunkRows?: number;
}

/**
 * The aux column of {@link RowSourceColumnOptions}: an offset or the trials, not both.
 *
 * @param o The entry point's options.
 * @returns The column and what it holds, or undefined.
 * @throws {TypeError} When both are given.
 */
export function auxColumnOption(
  o: RowSourceColumnOptions,
): { kind: "offset" | "trials"; column: string } | undefined {
  if (o.offset !== undefined && o.trials !== undefined) {
    throw new TypeError(
      `give an offset column or a trials column, not both (got offset "${o.offset}" and trials "${o.trials}")`,
    );
  }
  if (o.offset !== undefined) return { kind: "offset", column: o.offset };
  if (o.trials !== undefined) return { kind: "trials", column: o.trials };
  return undefined;
}

/**
 * Start the worker, connect, check the key and return the row source.
 *
 * @param o The engine, connection, rows and limits.
 * @returns The row source; `close()` ends the worker and its connection.
 * @throws {RangeError} On a bad `batchRows` / `timeoutSeconds`, an empty
 *   table or a key that is not base … base + n − 1; Error naming the table
 *   and the server when connecting or a query fails.
 */
export async function openRowSource(o: RowSourceOpening): Promise<DatabaseRowSource> {
  const batchRows = o.batchRows ?? 16384;
  if (!Number.isInteger(batchRows) || batchRows < 1) {
    throw new RangeError(`batchRows must be a positive integer, got ${o.batchRows}`);
  }
  const timeout = o.timeoutSeconds ?? 600;
  if (!(timeout > 0)) {
    throw new RangeError(`timeoutSeconds must be positive, got ${o.timeoutSeconds}`);
  }
  const passes = o.passes ?? "auto";
  if (passes !== "auto" && passes !== "sql" && passes !== "stream") {
    throw new RangeError(
      `passes must be "auto", "sql" or "stream", got ${JSON.stringify(o.passes)}`,
    );
  }
  const chunkRows = o.chunkRows ?? 65536;
  if (!Number.isInteger(chunkRows) || chunkRows < 1) {
    throw new RangeError(`chunkRows must be a positive integer, got ${o.chunkRows}`);
  }
  const cols = [...o.columns];
  if (o.aux !== undefined) {
    const c = o.aux.column;
    if (typeof c !== "string" || c === "") {
      throw new TypeError(
        `the ${o.aux.kind} column must be a column name, got ${JSON.stringify(c)}`,
      );
    }
    if (c === o.response || cols.includes(c) || c === o.key) {
      throw new RangeError(
        `the ${o.aux.kind} column "${c}" is also ${
          c === o.response ? "the response" : c === o.key ? "the key" : "a column of X"
        }`,
      );
    }
  }
  const d = cols.length + (o.intercept ? 1 : 0);
  if (d < 1) throw new RangeError("the model needs at least one column or an intercept");
  // Values per row: X's columns, y, the aux column if any.
  const p = cols.length + 1 + (o.aux === undefined ? 0 : 1);
  // θ may hold two more coordinates than X has columns (log σ or log φ, ω).
  const dt = d + 2;
  const dataLen = Math.max(batchRows * p, 2 + dt + dt * dt, 5);
  const {
    where,
    label,
    batchRows: _b,
    timeoutSeconds: _t,
    passes: _p,
    chunkRows: _c,
    engineName,
    ...rest
  } = o;
  const init: RowsWorkerInit = {
    ...rest,
    columns: cols,
    ctrl: new SharedArrayBuffer(16),
    data: new SharedArrayBuffer(8 * dataLen),
    message: new SharedArrayBuffer(4096),
  };
  const ctrl = new Int32Array(init.ctrl), data = new Float64Array(init.data);
  const worker = new Worker(new URL("./_database_rows_worker.ts", import.meta.url), {
    type: "module",
  });
  const message = () =>
    new TextDecoder().decode(new Uint8Array(init.message).slice(0, Atomics.load(ctrl, 2)));
  let broken: string | null = null;
  let closed = false;
  /** One request, answered synchronously (the caller blocks in Atomics.wait). */
  const call = (req: RowsWorkerRequest): number => {
    if (closed) throw new Error(`${where}: the row source has been closed`);
    if (broken !== null) throw new Error(`${where}: ${broken}`);
    Atomics.store(ctrl, 0, STATE_BUSY);
    worker.postMessage(req);
    if (Atomics.wait(ctrl, 0, STATE_BUSY, timeout * 1000) === "timed-out") {
      broken = `no answer within ${timeout} s (timeoutSeconds)`;
      throw new Error(`${where}: ${broken}`);
    }
    if (Atomics.load(ctrl, 0) === STATE_ERROR) throw new Error(`${where}: ${message()}`);
    return Atomics.load(ctrl, 1);
  };
  try {
    Atomics.store(ctrl, 0, STATE_BUSY);
    worker.postMessage(init);
    const w = Atomics.waitAsync(ctrl, 0, STATE_BUSY, timeout * 1000);
    if (w.async && (await w.value) === "timed-out") {
      throw new Error(`${where}: no connection within ${timeout} s`);
    }
    if (Atomics.load(ctrl, 0) === STATE_ERROR) {
      throw new Error(`could not connect for ${where}: ${message()}`);
    }
    call({ op: "meta" });
    const [n, lo, hi, distinct, lgamma] = data.slice(0, 5);
    if (!(n >= 1)) throw new RangeError(`${where} has no rows`);
    if (!(Number.isSafeInteger(lo) && hi - lo + 1 === n && distinct === n)) {
      throw new RangeError(
        `${where}: key column "${o.key}" must hold the integers base … base + n − 1 once each (n = ${n}); it holds ${distinct} distinct values from ${lo} to ${hi}`,
      );
    }
    // The families whose sums this engine's SQL computes with these columns:
    // lnΓ for Poisson (or PostgreSQL's ln(y!) column) and the binomial's ln C(N, y).
    const aux = o.aux ?? null;
    const sqlFamilies = DATABASE_GLM_FAMILIES.filter((f) =>
      f === "poisson"
        ? aux?.kind !== "trials" && (lgamma === 1 || o.logFactorialColumn !== undefined)
        : f === "binomial"
        ? aux?.kind === "trials" && lgamma === 1
        : aux === null
    );
    const source: DatabaseRowSource = {
      isDatabaseRowSource: true,
      where,
      label,
      engine: engineName,
      aux: aux === null ? null : Object.freeze({ ...aux }),
      sqlFamilies: Object.freeze(sqlFamilies),
      passes,
      chunkRows,
      numRows: n,
      keyBase: lo,
      columns: Object.freeze(cols),
      intercept: o.intercept,
      batchRows,
      fetchRows(keys: Float64Array, out: Float64Array): void {
        if (keys.length > batchRows) {
          throw new RangeError(`fetchRows takes at most ${batchRows} keys, got ${keys.length}`);
        }
        call({ op: "rows", keys });
        out.set(data.subarray(0, keys.length * p));
      },
      sums(
        theta: Float64Array,
        family: { family: DatabaseGlmFamily; sigma?: number },
        grad: Float64Array,
        hess?: Float64Array,
      ) {
        call({
          op: "sums",
          theta: theta.slice(),
          hessian: hess !== undefined,
          family: family.family,
          ...(family.sigma === undefined ? {} : { sigma: family.sigma }),
        });
        const P = theta.length;
        grad.set(data.subarray(2, 2 + P));
        if (hess !== undefined) hess.set(data.subarray(2 + P, 2 + P + P * P));
        return { numRows: data[0], logLikelihood: data[1] };
      },
      scanRows(visit: (values: Float64Array, count: number) => void): number {
        call({ op: "scanStart" });
        let total = 0;
        try {
          for (;;) {
            const count = call({ op: "scanNext", max: batchRows });
            if (count === 0) break;
            visit(data.subarray(0, count * p), count);
            total += count;
          }
        } catch (e) {
          // End the scan (a cursor's transaction) but report the first error.
          try {
            if (!closed && broken === null) call({ op: "scanEnd" });
          } catch { /* the first error says more */ }
          throw e;
        }
        call({ op: "scanEnd" });
        return total;
      },
      close(): void {
        if (closed) return;
        closed = true;
        // Ending the worker closes its connection.
        worker.terminate();
      },
    };
    return source;
  } catch (e) {
    worker.terminate();
    throw e;
  }
}
