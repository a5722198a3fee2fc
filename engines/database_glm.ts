/**
 * A GLM whose rows stay in PostgreSQL or ClickHouse: an
 * {@link ExternalGlmModel} that HMC-ECS samples with
 * `sample(model, { sampler: "hmc-ecs", centring })` while the table never
 * leaves its database. {@link openDatabaseRows} opens the table as a row
 * source for `defineModel({ likelihood, rows: { database: source } })`
 * (models/compose.ts); {@link openDatabaseGlm} is that source and
 * `databaseGlmModel` (models/database_glm.ts) in one call.
 *
 * ```
 *  sampler (main thread)                 worker                      engine
 *  readRows(k rows) ── distinct keys ──► SELECT key, x…, y FROM T ──► WHERE key = ANY($1)   (PostgreSQL)
 *        Atomics.wait ◄── values in a SharedArrayBuffer ◄──           WHERE key IN (…)       (ClickHouse)
 *  controlVariateSums(θ*) ────────────► the centring SQL ──────────► one aggregate: n, S, A, B
 * ```
 *
 * Row k of the model is the row whose key column holds `base + k`: the key
 * must be an integer column whose values are `base, base + 1, …,
 * base + n − 1` (checked when the model opens: min, max and the count of
 * distinct keys). One query per `readRows` call (in batches of at most
 * `batchRows` distinct keys), so one per subsample update of HMC-ECS; a
 * repeated index is fetched once. The worker holds the connection (a
 * client of `npm:pg`, or ClickHouse's HTTP interface through
 * `engines/clickhouse.ts`) and the sampler waits for it with `Atomics.wait`,
 * as the synchronous model interface needs (engines/database_source.ts).
 *
 * Values are exact: every column is cast to a double in the query, and both
 * engines print doubles as shortest round-trip decimals. So for the same
 * rows, the same centring and the same seed the draws are those of the
 * in-memory model (`models/in_memory_external.ts`), bit for bit.
 *
 * A query that fails (a dropped connection, a dropped table) throws an
 * Error naming the table and the server (the URL with its password replaced
 * by `***`); the sampler's driver then keeps the draws made so far and
 * reports the error as the chain's stop. See docs/databases.md.
 *
 * @module
 */
import {
  type DatabaseGlmModel,
  databaseGlmModel,
  type DatabaseRowSource,
} from "../models/database_glm.ts";
import type { GlmOptions } from "../models/glm.ts";
import { auxColumnOption, openRowSource, type RowSourceColumnOptions } from "./database_source.ts";
import { redactDatabaseUrl } from "./database_rows.ts";

export type { DatabaseGlmModel, DatabaseRowSource } from "../models/database_glm.ts";
export type { RowSourceColumnOptions } from "./database_source.ts";
export type { ExternalGlmModel } from "../models/external_glm.ts";
export type { GlmFamily, GlmModelFamily, GlmOptions } from "../models/glm.ts";
export type { CostCounter, DataModel, Model } from "../models/model.ts";
export type { NuPrior } from "../models/nu_prior.ts";
export type { ScalePrior } from "../models/priors.ts";

/** Options of {@link openDatabaseRows}: where the rows are. */
export interface DatabaseRowsOptions extends RowSourceColumnOptions {
  /**
   * `postgres://user@host:port/db` or `clickhouse://user@host:port/db` (HTTP
   * port); it may carry `?table=T&key=K`. Passwords: in the URL, or
   * PGPASSWORD / CLICKHOUSE_PASSWORD.
   */
  connection: string;
  /** The table (`name`, `schema.name` or `database.name`); default the URL's `table`. */
  table?: string;
  /** The integer key column (values base … base + n − 1); default the URL's `key`. */
  key?: string;
  /** Columns of X in the order of θ (after the intercept, if any). */
  columns: readonly string[];
  /** The response column. */
  response: string;
  /** Whether θ[0] is an intercept (an implicit column of ones). Default false. */
  intercept?: boolean;
  /** PostgreSQL before 18, "poisson": a column holding ln(yₖ!) for the centring SQL. */
  logFactorialColumn?: string;
  /** Most distinct keys per query (default 16 384; ClickHouse's query text stays < 256 KiB). */
  batchRows?: number;
  /** Longest wait for one query, in seconds (default 600). */
  timeoutSeconds?: number;
}

/** Options of {@link openDatabaseGlm}. */
export interface DatabaseGlmOptions extends DatabaseRowsOptions {
  /**
   * Family and prior, as for `GlmModel`; the offset or trials are the
   * source's `offset` / `trials` column, not options here.
   */
  glm: GlmOptions;
}

/**
 * Open a table in PostgreSQL or ClickHouse as a row source (see the module
 * notes) for `defineModel({ prior, likelihood, rows: { database: source } })`.
 * Needs `--allow-net` to the server and `--allow-env`.
 *
 * @param options Connection, table, key, columns, response, limits.
 * @returns The row source; the model built over it owns it (its `close()`
 *   ends the worker and the connection); `close()` it yourself if no model
 *   is built.
 * @throws {RangeError} A key that is not base … base + n − 1, an empty
 *   table; Error naming the table and the server when a query fails.
 */
export async function openDatabaseRows(options: DatabaseRowsOptions): Promise<DatabaseRowSource> {
  const label = redactDatabaseUrl(options.connection);
  let u: URL;
  try {
    u = new URL(options.connection);
  } catch {
    throw new TypeError("the connection is not a URL (postgres://… or clickhouse://…)");
  }
  const engine = /^postgres(ql)?:$/i.test(u.protocol)
    ? "postgres"
    : /^clickhouses?:$/i.test(u.protocol)
    ? "clickhouse"
    : null;
  if (engine === null) {
    throw new TypeError(
      `the connection must start with postgres:// or clickhouse://, got ${label}`,
    );
  }
  const table = options.table ?? u.searchParams.get("table");
  const key = options.key ?? u.searchParams.get("key");
  if (!table) throw new RangeError(`${label} names no table: give table or ?table=NAME`);
  if (!key) {
    throw new RangeError(
      `table ${table}: rows are fetched by an integer key column (values base … base + n − 1): give key or &key=COLUMN`,
    );
  }
  u.searchParams.delete("table");
  u.searchParams.delete("key");
  const parts = table.split(".");
  if (parts.length > 2) throw new RangeError(`table must be NAME or SCHEMA.NAME, got ${table}`);
  const aux = auxColumnOption(options);
  return await openRowSource({
    engine,
    engineName: engine === "postgres" ? "PostgreSQL" : "ClickHouse",
    ...(aux === undefined ? {} : { aux }),
    ...(options.passes === undefined ? {} : { passes: options.passes }),
    ...(options.chunkRows === undefined ? {} : { chunkRows: options.chunkRows }),
    url: engine === "postgres" ? u.toString().replace(/^postgresql:/i, "postgres:") : u.toString(),
    table: parts.length === 2 ? [parts[0], parts[1]] : parts[0],
    key,
    columns: options.columns,
    response: options.response,
    intercept: options.intercept ?? false,
    ...(options.logFactorialColumn === undefined
      ? {}
      : { logFactorialColumn: options.logFactorialColumn }),
    where: `table ${table} at ${label}`,
    label,
    ...(options.batchRows === undefined ? {} : { batchRows: options.batchRows }),
    ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds }),
  });
}

/**
 * Open a GLM over a table in PostgreSQL or ClickHouse (see the module
 * notes): {@link openDatabaseRows} and the model over it
 * (`databaseGlmModel`, what `defineModel` builds for `rows: { database }`).
 * Needs `--allow-net` to the server and `--allow-env`.
 *
 * @param options Connection, table, key, columns, response, family and prior.
 * @returns The model; `close()` it to end the worker and the connection.
 * @throws {RangeError} On a family the source cannot serve with
 *   `passes: "sql"`, a key that is not base … base + n − 1, an empty table; Error naming the table and the
 *   server when a query fails.
 */
export async function openDatabaseGlm(options: DatabaseGlmOptions): Promise<DatabaseGlmModel> {
  const { glm, ...rows } = options;
  // databaseGlmModel closes the source when it refuses the options.
  return databaseGlmModel(await openDatabaseRows(rows), glm);
}
