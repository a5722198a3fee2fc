/**
 * The messages between the row-source bridge (`engines/database_source.ts`)
 * and its worker (`engines/_database_rows_worker.ts`): the first message, the
 * requests and the states of the shared control word. Kept apart so that the
 * bridge's module never imports the worker's.
 *
 * @module
 */
import type { SqlGlmFamily } from "./control_variate_sql.ts";

/** The first message: where the rows are and the shared buffers. */
export interface RowsWorkerInit {
  /** The engine that holds the rows. */
  engine: "postgres" | "clickhouse" | "duckdb";
  /**
   * The connection URL (with `table` and `key` parameters removed); for
   * DuckDB the database file (":memory:" for none).
   */
  url: string;
  /** PostgreSQL, ClickHouse: the table, unqualified or qualified: [schema or database, name]. */
  table?: string | [string, string];
  /** DuckDB: the Parquet files, table or SELECT (engines/duckdb.ts's `DuckDbSource`). */
  duckdbSource?:
    | { parquet: string | readonly string[] }
    | { table: string | readonly [string, string] }
    | { sql: string };
  /** DuckDB: its worker threads (1: sums in one order, the same bits every run). */
  duckdbThreads?: number;
  /** The key column (integers base … base + n − 1). */
  key: string;
  /** Columns of X (no intercept column). */
  columns: string[];
  /** The response column. */
  response: string;
  /** θ[0] is an intercept. */
  intercept: boolean;
  /** PostgreSQL's ln(y!) column for "poisson". */
  logFactorialColumn?: string;
  /**
   * A per-row column after the response: an offset ("poisson",
   * "negative-binomial": η += offset) or the number of trials ("binomial").
   */
  aux?: { kind: "offset" | "trials"; column: string };
  /** Control words: [state, value count, message bytes]. */
  ctrl: SharedArrayBuffer;
  /** Numbers in and out. */
  data: SharedArrayBuffer;
  /** UTF-8 text of an error. */
  message: SharedArrayBuffer;
}

/** A request after the first message. */
export type RowsWorkerRequest =
  | { op: "meta" }
  | { op: "rows"; keys: Float64Array }
  | { op: "sums"; theta: Float64Array; hessian: boolean; family: SqlGlmFamily; sigma?: number }
  | { op: "scanStart" }
  | { op: "scanNext"; max: number }
  | { op: "scanEnd" };

/** States of ctrl[0]. */
export const STATE = { busy: 0, done: 1, error: 2 } as const;
