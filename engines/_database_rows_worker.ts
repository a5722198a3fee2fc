/**
 * The worker behind `engines/database_source.ts`: it holds the connection to
 * DuckDB (embedded: a database file, Parquet files or a SELECT), PostgreSQL
 * (a client of `npm:pg`) or ClickHouse (HTTP), runs one query per request
 * and writes the answer into shared memory, then wakes the caller, which
 * waits with `Atomics.wait` (see the protocol in database_source.ts). DuckDB's
 * native addon is loaded only for a DuckDB source.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import {
  type ClickHouseConnection,
  clickhouseConnection,
  clickhouseControlVariateSums,
  clickhouseLogLikelihood,
  clickhouseQuery,
} from "./clickhouse.ts";
import { quoteIdentifier, type SqlGlmFamily } from "./control_variate_sql.ts";
import type { DuckDBConnection } from "npm:@duckdb/node-api@1.5.5-r.5";
import type { PostgresQueryable } from "./postgres.ts";

import { type RowsWorkerInit, type RowsWorkerRequest, STATE } from "./_database_rows_protocol.ts";

let init: RowsWorkerInit;
let pgClient: PostgresQueryable | null = null;
/**
 * engines/postgres.ts, loaded with the PostgreSQL connection only: `npm:pg`
 * reads environment variables as it loads, which a DuckDB or ClickHouse
 * source must not need permission for.
 */
let pgModule: typeof import("./postgres.ts") | null = null;
let chConn: ClickHouseConnection | null = null;
let duck: { conn: DuckDBConnection; module: typeof import("./duckdb.ts") } | null = null;
/** The smallest key and n, from the "meta" request (a scan checks its keys against them). */
let keyBase = 0, numRows = 0;
/** The open scan: its next rows (at most `max`, fewer only at the end) and its end. */
let scan: { next(max: number): Promise<unknown[][]>; end(): Promise<void>; row: number } | null =
  null;

/** The columns a row carries after its key: X's, the response, the aux column if any. */
function rowColumns(): string[] {
  return [...init.columns, init.response, ...(init.aux === undefined ? [] : [init.aux.column])];
}

function finish(state: number, count = 0, text = ""): void {
  const ctrl = new Int32Array(init.ctrl);
  const bytes = new TextEncoder().encode(text);
  const msg = new Uint8Array(init.message);
  const len = Math.min(bytes.length, msg.length);
  msg.set(bytes.subarray(0, len));
  ctrl[1] = count;
  ctrl[2] = len;
  Atomics.store(ctrl, 0, state);
  Atomics.notify(ctrl, 0);
}

function from(dialect: "postgres" | "clickhouse"): string {
  const t = init.table!;
  return (typeof t === "string" ? [t] : t).map((s) => quoteIdentifier(s, dialect)).join(".");
}

async function rows(keys: Float64Array): Promise<number> {
  const out = new Float64Array(init.data);
  const p = rowColumns().length;
  const pos = new Map<number, number>();
  for (let i = 0; i < keys.length; i++) pos.set(keys[i], i);
  const found = new Uint8Array(keys.length);
  let got: unknown[][];
  if (init.engine === "postgres") {
    const q = (s: string) => quoteIdentifier(s, "postgres");
    const cols = [init.key, ...rowColumns()].map((c) => `CAST(${q(c)} AS DOUBLE PRECISION)`);
    const res = await (pgClient as unknown as {
      query(c: { text: string; values: unknown[]; rowMode: "array" }): Promise<
        { rows: unknown[][] }
      >;
    }).query({
      text: `SELECT ${cols.join(", ")} FROM ${from("postgres")} WHERE ${q(init.key)} = ANY($1)`,
      values: [Array.from(keys)],
      rowMode: "array",
    });
    got = res.rows;
  } else if (init.engine === "duckdb") {
    const names = [init.key, ...rowColumns()];
    const cols = names.map((c, j) => `CAST(${quoteIdentifier(c)} AS DOUBLE) AS c${j}`);
    const reader = await duck!.conn.runAndReadAll(
      `SELECT ${cols.join(", ")} FROM ${duckFrom()} WHERE ${quoteIdentifier(init.key)} IN (${
        Array.from(keys).join(",")
      })`,
    );
    got = reader.getRowObjects().map((r) => names.map((_, j) => r[`c${j}`]));
  } else {
    const q = (s: string) => quoteIdentifier(s, "clickhouse");
    const names = [init.key, ...rowColumns()];
    const cols = names.map((c, j) => `toFloat64(${q(c)}) AS c${j}`);
    const res = await clickhouseQuery(
      chConn!,
      `SELECT ${cols.join(", ")} FROM ${from("clickhouse")} WHERE ${q(init.key)} IN (${
        Array.from(keys).join(",")
      })`,
    );
    got = res.rows.map((r) => names.map((_, j) => r[`c${j}`]));
  }
  for (const r of got) {
    const i = pos.get(Number(r[0]));
    if (i === undefined) continue;
    if (found[i]) throw new RangeError(`key ${r[0]} appears in more than one row`);
    found[i] = 1;
    putRow(r, out, i * p);
  }
  const missing = found.indexOf(0);
  if (missing >= 0) throw new RangeError(`no row has key ${keys[missing]}`);
  return keys.length * p;
}

/** A row [key, columns…] into `out` from `at`, refusing a NULL (naming the column and the key). */
function putRow(r: unknown[], out: Float64Array, at: number): void {
  const names = rowColumns();
  for (let j = 0; j < names.length; j++) {
    const v = r[j + 1];
    if (v === null || v === undefined) {
      throw new RangeError(`column "${names[j]}" holds NULL at key ${r[0]}`);
    }
    out[at + j] = Number(v);
  }
}

/**
 * Start reading every row in key order: one SELECT of the key and the
 * row's columns, read in chunks (DuckDB: its streamed result; PostgreSQL: a
 * cursor in a read-only transaction). ClickHouse reads consecutive key
 * ranges (`key >= a AND key < b ORDER BY key`, each served by the sorting
 * key's index on every shard), as its HTTP interface answers a query whole.
 */
async function scanStart(): Promise<number> {
  if (scan !== null) await scanEnd();
  if (numRows === 0) await meta();
  if (init.engine === "duckdb") {
    const names = [init.key, ...rowColumns()];
    const cols = names.map((c, j) => `CAST(${quoteIdentifier(c)} AS DOUBLE) AS c${j}`);
    const result = await duck!.conn.stream(
      `SELECT ${cols.join(", ")} FROM ${duckFrom()} ORDER BY ${quoteIdentifier(init.key)}`,
    );
    let held: unknown[][] = [];
    scan = {
      row: 0,
      async next(max) {
        while (held.length < max) {
          const chunk = await result.fetchChunk();
          if (chunk === null || chunk.rowCount === 0) break;
          held = held.concat(chunk.getRows() as unknown[][]);
        }
        return held.splice(0, max);
      },
      end: () => Promise.resolve(),
    };
  } else if (init.engine === "postgres") {
    const c = pgClient as unknown as {
      query(c: string | { text: string; rowMode: "array" }): Promise<{ rows: unknown[][] }>;
    };
    const q = (s: string) => quoteIdentifier(s, "postgres");
    const cols = [init.key, ...rowColumns()].map((s) => `CAST(${q(s)} AS DOUBLE PRECISION)`);
    await c.query("BEGIN READ ONLY");
    try {
      await c.query(
        `DECLARE tallmc_scan NO SCROLL CURSOR FOR SELECT ${cols.join(", ")} FROM ${
          from("postgres")
        } ORDER BY ${q(init.key)}`,
      );
    } catch (e) {
      await c.query("ROLLBACK").catch(() => {});
      throw e;
    }
    scan = {
      row: 0,
      next: async (max) =>
        (await c.query({ text: `FETCH FORWARD ${max} FROM tallmc_scan`, rowMode: "array" })).rows,
      // Ending the transaction closes the cursor (and clears a failed one).
      end: async () => void await c.query("ROLLBACK"),
    };
  } else {
    const q = (s: string) => quoteIdentifier(s, "clickhouse");
    const names = [init.key, ...rowColumns()];
    const cols = names.map((c, j) => `toFloat64(${q(c)}) AS c${j}`);
    let lo = keyBase;
    scan = {
      row: 0,
      async next(max) {
        const hi = Math.min(lo + max, keyBase + numRows);
        if (hi <= lo) return [];
        const res = await clickhouseQuery(
          chConn!,
          `SELECT ${cols.join(", ")} FROM ${from("clickhouse")} WHERE ${q(init.key)} >= ${lo} AND ${
            q(init.key)
          } < ${hi} ORDER BY ${q(init.key)}`,
        );
        lo = hi;
        return res.rows.map((r) => names.map((_, j) => r[`c${j}`]));
      },
      end: () => Promise.resolve(),
    };
  }
  return 0;
}

/** The next rows of the scan (at most `max`; 0 at its end), checked to be keys base + row, … */
async function scanNext(max: number): Promise<number> {
  if (scan === null) throw new Error("no scan is open");
  const out = new Float64Array(init.data);
  const p = rowColumns().length;
  const got = await scan.next(max);
  for (let i = 0; i < got.length; i++) {
    const want = keyBase + scan.row + i;
    if (Number(got[i][0]) !== want) {
      throw new RangeError(
        `the rows changed: row ${scan.row + i} in key order has key ${
          got[i][0]
        }, expected ${want} (the keys were checked when the source opened)`,
      );
    }
    putRow(got[i], out, i * p);
  }
  scan.row += got.length;
  if (got.length === 0 && scan.row !== numRows) {
    throw new RangeError(`the rows changed: ${scan.row} rows now, ${numRows} when opened`);
  }
  return got.length;
}

async function scanEnd(): Promise<number> {
  const s = scan;
  scan = null;
  if (s !== null) await s.end();
  return 0;
}

/** n, the smallest and largest key, and the number of distinct keys. */
async function meta(): Promise<number> {
  const out = new Float64Array(init.data);
  let v: unknown[];
  if (init.engine === "postgres") {
    const k = quoteIdentifier(init.key, "postgres");
    const res = await (pgClient as unknown as {
      query(c: { text: string; rowMode: "array" }): Promise<{ rows: unknown[][] }>;
    }).query({
      text: `SELECT CAST(COUNT(*) AS DOUBLE PRECISION), CAST(MIN(${k}) AS DOUBLE PRECISION),
        CAST(MAX(${k}) AS DOUBLE PRECISION), CAST(COUNT(DISTINCT ${k}) AS DOUBLE PRECISION)
        FROM ${from("postgres")}`,
      rowMode: "array",
    });
    v = res.rows[0];
  } else if (init.engine === "duckdb") {
    const k = quoteIdentifier(init.key);
    const reader = await duck!.conn.runAndReadAll(
      `SELECT CAST(COUNT(*) AS DOUBLE) AS a, CAST(MIN(${k}) AS DOUBLE) AS b,
        CAST(MAX(${k}) AS DOUBLE) AS c, CAST(COUNT(DISTINCT ${k}) AS DOUBLE) AS e
        FROM ${duckFrom()}`,
    );
    const r = reader.getRowObjects()[0];
    v = [r.a, r.b, r.c, r.e];
  } else {
    const k = quoteIdentifier(init.key, "clickhouse");
    const res = await clickhouseQuery(
      chConn!,
      `SELECT toFloat64(count()) AS a, toFloat64(min(${k})) AS b, toFloat64(max(${k})) AS c,
        toFloat64(uniqExact(${k})) AS e FROM ${from("clickhouse")}`,
    );
    const r = res.rows[0];
    v = [r.a, r.b, r.c, r.e];
  }
  for (let j = 0; j < 4; j++) out[j] = v[j] === null ? NaN : Number(v[j]);
  numRows = out[0];
  keyBase = out[1];
  // Whether the engine's SQL has LGAMMA (PostgreSQL from 18; DuckDB, ClickHouse).
  let lgamma = 1;
  if (init.engine === "postgres") {
    const r = await (pgClient as unknown as {
      query(c: string): Promise<{ rows: Record<string, unknown>[] }>;
    }).query("SELECT current_setting('server_version_num')::int AS v");
    lgamma = Number(r.rows[0]?.v) >= 180000 ? 1 : 0;
  }
  out[4] = lgamma;
  return 5;
}

/** DuckDB's FROM clause for the source. */
function duckFrom(): string {
  return duck!.module.duckdbFromClause(init.duckdbSource!);
}

/**
 * Whether a sums query failed because the sums overflowed at θ (exp(η) of a
 * θ far from the data): DuckDB returns NaN (inf − inf), ClickHouse null, and
 * PostgreSQL raises "value out of range".
 */
function overflowed(e: unknown): boolean {
  const m = (e as Error)?.message ?? "";
  return /must be a number, got number NaN|= inf or NaN|value out of range/.test(m);
}

/** The sums at θ, or NaN in every place (n too) when they overflowed there. */
async function sums(
  theta: Float64Array,
  hessian: boolean,
  family: SqlGlmFamily,
  sigma: number | undefined,
): Promise<number> {
  try {
    return await exactSums(theta, hessian, family, sigma);
  } catch (e) {
    if (!overflowed(e)) throw e;
    const d = theta.length, count = 2 + d + (hessian ? d * d : 0);
    new Float64Array(init.data).fill(NaN, 0, count);
    return count;
  }
}

async function exactSums(
  theta: Float64Array,
  hessian: boolean,
  family: SqlGlmFamily,
  sigma: number | undefined,
): Promise<number> {
  const out = new Float64Array(init.data);
  const d = theta.length;
  const common = {
    source: { table: init.table! },
    family,
    columns: init.columns,
    response: init.response,
    intercept: init.intercept,
    ...(sigma === undefined ? {} : { sigma }),
    ...(init.aux?.kind === "offset" && family === "poisson"
      ? { offsetColumn: init.aux.column }
      : {}),
    ...(init.aux?.kind === "trials" && family === "binomial"
      ? { trialsColumn: init.aux.column }
      : {}),
  };
  let s: number, grad: Float64Array, hess: Float64Array | null = null, n: number;
  if (init.engine === "duckdb") {
    const o = { ...common, source: init.duckdbSource!, connection: duck!.conn };
    if (hessian) {
      const r = await duck!.module.duckdbControlVariateSums({ ...o, thetaStar: theta });
      [s, grad, hess, n] = [r.llStarSum, r.gradSum, r.hessSum, r.numRows];
    } else {
      const r = await duck!.module.duckdbLogLikelihood({ ...o, theta });
      [s, grad, n] = [r.logLikelihood, r.grad, r.numRows];
    }
  } else if (init.engine === "postgres") {
    const o = {
      ...common,
      connection: pgClient!,
      ...(init.logFactorialColumn === undefined
        ? {}
        : { logFactorialColumn: init.logFactorialColumn }),
    };
    if (hessian) {
      const r = await pgModule!.postgresControlVariateSums({ ...o, thetaStar: theta });
      [s, grad, hess, n] = [r.llStarSum, r.gradSum, r.hessSum, r.numRows];
    } else {
      const r = await pgModule!.postgresLogLikelihood({ ...o, theta });
      [s, grad, n] = [r.logLikelihood, r.grad, r.numRows];
    }
  } else {
    const o = { ...common, connection: chConn! };
    if (hessian) {
      const r = await clickhouseControlVariateSums({ ...o, thetaStar: theta });
      [s, grad, hess, n] = [r.llStarSum, r.gradSum, r.hessSum, r.numRows];
    } else {
      const r = await clickhouseLogLikelihood({ ...o, theta });
      [s, grad, n] = [r.logLikelihood, r.grad, r.numRows];
    }
  }
  out[0] = n;
  out[1] = s;
  out.set(grad, 2);
  if (hess !== null) out.set(hess, 2 + d);
  return 2 + d + (hess === null ? 0 : d * d);
}

self.onmessage = async (e: MessageEvent) => {
  const m = e.data as RowsWorkerInit | RowsWorkerRequest;
  if ("ctrl" in m) {
    init = m;
    try {
      if (init.engine === "duckdb") {
        // Loaded here only: the native addon (needs --allow-ffi).
        const module = await import("./duckdb.ts");
        const { DuckDBInstance } = await import("npm:@duckdb/node-api@1.5.5-r.5");
        // A database file is only read: opened read-only, other readers may share it.
        const instance = await DuckDBInstance.create(init.url, {
          threads: String(init.duckdbThreads ?? 1),
          ...(init.url === ":memory:" ? {} : { access_mode: "READ_ONLY" }),
        });
        duck = { conn: await instance.connect(), module };
      } else if (init.engine === "postgres") {
        pgModule = await import("./postgres.ts");
        const { default: pg } = await import("npm:pg@8.16.3");
        const c = new pg.Client({ connectionString: init.url });
        // A dropped connection is reported by the query that needs it.
        c.on("error", () => {});
        await c.connect();
        pgClient = c as unknown as PostgresQueryable;
      } else {
        chConn = clickhouseConnection(init.url);
        await clickhouseQuery(chConn, "SELECT 1");
      }
      finish(STATE.done);
    } catch (err) {
      finish(STATE.error, 0, (err as Error).message);
    }
    return;
  }
  try {
    const count = m.op === "rows"
      ? await rows(m.keys)
      : m.op === "meta"
      ? await meta()
      : m.op === "scanStart"
      ? await scanStart()
      : m.op === "scanNext"
      ? await scanNext(m.max)
      : m.op === "scanEnd"
      ? await scanEnd()
      : await sums(m.theta, m.hessian, m.family, m.sigma);
    finish(STATE.done, count);
  } catch (err) {
    finish(STATE.error, 0, (err as Error).message);
  }
};
