/**
 * HMC-ECS's full-data centring passes run inside an embedded DuckDB, for
 * data in Parquet files or a DuckDB database: the SQL of
 * {@link controlVariateSql} scans the rows where they are and returns one
 * row of sums; nothing of size n reaches JavaScript.
 *
 * ```
 *  Parquet / table ──► DuckDB: one aggregate query ──► S, A, B (O(d²) numbers)
 *                                                      │
 *  Newton to the MAP: θ ← θ + (−B − P)⁻¹(A + ∇log p)  ◄┘  (d × d solve here)
 *  the sums at θ* ──► HMC-ECS `centring: { thetaStar, llStarSum, gradSum, hessSum }`
 * ```
 *
 * {@link openDuckDbRows} leaves the rows in DuckDB for a whole run: a row
 * source that `defineModel({ likelihood, rows: { database } })` builds a
 * model over (HMC-ECS fetches each subsample update's rows by key; every
 * full-data pass is one aggregate query).
 *
 * This entry point loads DuckDB's native addon (`npm:@duckdb/node-api`), so
 * it needs `--allow-ffi` (and `--allow-read` for the files), and is never
 * imported by `mod.ts`, the URL import or the browser bundle.
 *
 * References: Dang et al. (2019), eqs. 11 and 14; Nocedal & Wright (2006),
 * §3.3 (Newton's method with step halving); docs/architecture.md, "Data beyond memory".
 *
 * @module
 */
import { DuckDBInstance } from "npm:@duckdb/node-api@1.5.5-r.5";
import type { DatabaseRowSource } from "../models/database_glm.ts";
import { auxColumnOption, openRowSource, type RowSourceColumnOptions } from "./database_source.ts";
import { copyTheta, newtonCentringByPasses } from "./newton_centring.ts";
import {
  controlVariateSql,
  type ControlVariateSqlOptions,
  logLikelihoodSql,
  parseControlVariateSums,
  quoteIdentifier,
  type SqlGlmFamily,
} from "./control_variate_sql.ts";

export type { SqlGlmFamily } from "./control_variate_sql.ts";
export type { DatabaseRowSource } from "../models/database_glm.ts";
export type { RowSourceColumnOptions } from "./database_source.ts";

/**
 * What this module needs of a DuckDB connection: `DuckDBConnection` of
 * `npm:@duckdb/node-api` (e.g. `await (await DuckDBInstance.create(path)).connect()`).
 */
export interface DuckDbConnectionLike {
  /** Run one statement and read its whole result. */
  runAndReadAll(sql: string): Promise<{ getRowObjects(): readonly Record<string, unknown>[] }>;
}

/**
 * Where the rows are: Parquet file(s) (paths or globs, read with
 * `read_parquet`), a table or view of the database (`table`, optionally
 * `schema.table` given as `[schema, table]`), or any SELECT (`sql`).
 */
export type DuckDbSource =
  | { parquet: string | readonly string[] }
  | { table: string | readonly [string, string] }
  | { sql: string };

/** The GLM and the data source shared by every function of this module. */
export interface DuckDbGlmOptions {
  /** Where the rows are. */
  source: DuckDbSource;
  /** The response family. */
  family: SqlGlmFamily;
  /** Column names of X in the order of θ (after the intercept, if any). */
  columns: readonly string[];
  /** Column name of y. */
  response: string;
  /** Whether θ[0] is an intercept (an implicit column of ones). Default false. */
  intercept?: boolean;
  /** Known residual sd σ ("gaussian" only, required there). */
  sigma?: number;
  /** "poisson" only: a column of offsets oₖ (log exposure), η = xᵀθ + oₖ. */
  offsetColumn?: string;
  /** "binomial" (required there): the column of the number of trials Nₖ. */
  trialsColumn?: string;
  /**
   * An open connection to run on (e.g. one whose database holds `table`).
   * Default: a fresh in-memory database for the call, closed afterwards.
   */
  connection?: DuckDbConnectionLike;
}

/** Options of {@link duckdbControlVariateSums}. */
export interface DuckDbControlVariateOptions extends DuckDbGlmOptions {
  /** The expansion point θ* (length d). */
  thetaStar: ArrayLike<number>;
}

/** Options of {@link duckdbLogLikelihood}. */
export interface DuckDbLogLikelihoodOptions extends DuckDbGlmOptions {
  /** The position θ (length d). */
  theta: ArrayLike<number>;
}

/**
 * A precomputed centring for HMC-ECS: the expansion point and the full-data
 * sums there (the field names of HMC-ECS's `centring` option), plus n.
 */
export interface DuckDbCentring {
  /** The expansion point θ* (a copy). */
  thetaStar: Float64Array;
  /** S = Σₖ ℓₖ(θ*). */
  llStarSum: number;
  /** A = Σₖ ∇ℓₖ(θ*) (length d). */
  gradSum: Float64Array;
  /** B = Σₖ ∇²ℓₖ(θ*) (d × d row-major, symmetric). */
  hessSum: Float64Array;
  /** Number of rows n. */
  numRows: number;
}

/** The Gaussian prior of {@link duckdbNewtonCentring}: the same options and defaults as `GlmModel`'s. */
export interface DuckDbPriorOptions {
  /** Prior sd per coefficient: one number or one per coefficient of θ. Default 10. */
  priorScale?: number | ArrayLike<number>;
  /** Prior mean per coefficient: one number or one per coefficient. Default 0. */
  priorMean?: number | ArrayLike<number>;
  /** Index of a coefficient whose prior sd is `interceptPriorScale` instead. */
  interceptColumn?: number;
  /** Prior sd of that coefficient; `Infinity` gives a flat prior. */
  interceptPriorScale?: number;
}

/** Options of {@link duckdbNewtonCentring}. */
export interface DuckDbNewtonOptions extends DuckDbGlmOptions, DuckDbPriorOptions {
  /** Starting point (default zeros). */
  init?: ArrayLike<number>;
  /** Maximum number of full-data passes (default 50). */
  maxPasses?: number;
  /** Stop when the largest Newton step component is below this (default 1e-10). */
  tolerance?: number;
}

/** Result of {@link duckdbNewtonCentring}. */
export interface DuckDbNewtonCentring extends DuckDbCentring {
  /** Whether the last Newton step was below `tolerance`. */
  converged: boolean;
  /** Number of full-data passes (SQL queries) made. */
  numPasses: number;
  /** log p(θ*) + S: the log posterior (up to the prior's constant) at θ*. */
  logPosterior: number;
}

/**
 * S, A and B at θ* (one full-data pass in DuckDB), ready to hand to HMC-ECS
 * as a precomputed centring.
 *
 * @param options Source, family, columns, response, θ*, intercept, σ, connection.
 * @returns θ*, S, A, B and n.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { duckdbControlVariateSums } from "./duckdb.ts";
 * const c = await duckdbControlVariateSums({
 *   source: { sql: "SELECT * FROM (VALUES (0.5, 1), (-1.0, 0)) AS t(x, y)" },
 *   family: "logistic", columns: ["x"], response: "y", thetaStar: [0],
 * });
 * // at θ = 0: ℓₖ = −ln 2, aₖ = yₖ − ½, bₖ = −¼
 * assert.ok(Math.abs(c.llStarSum + 2 * Math.LN2) < 1e-15);
 * assert.equal(c.gradSum[0], 0.5 * 0.5 + -1 * -0.5);
 * assert.equal(c.hessSum[0], -0.25 * (0.25 + 1));
 * ```
 */
export async function duckdbControlVariateSums(
  options: DuckDbControlVariateOptions,
): Promise<DuckDbCentring> {
  const theta = copyTheta(options.thetaStar, "thetaStar");
  const sql = controlVariateSql(_sqlOptions(options, theta));
  const row = await _withConnection(options.connection, (c) => _oneRow(c, sql));
  const r = parseControlVariateSums(row, theta.length);
  return {
    thetaStar: theta,
    llStarSum: r.llStarSum,
    gradSum: r.gradSum,
    hessSum: r.hessSum,
    numRows: r.numRows,
  };
}

/**
 * The full-data log likelihood Σₖ ℓₖ(θ) and its gradient (one pass in
 * DuckDB, without the Hessian sums).
 *
 * @param options Source, family, columns, response, θ, intercept, σ, connection.
 * @returns The log likelihood, its gradient (length d) and n.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { duckdbLogLikelihood } from "./duckdb.ts";
 * const r = await duckdbLogLikelihood({
 *   source: { sql: "SELECT * FROM (VALUES (1.0, 2.0), (2.0, 3.0)) AS t(x, y)" },
 *   family: "gaussian", sigma: 1, columns: ["x"], response: "y", theta: [1],
 * });
 * // residuals 1, 1: ℓ = 2·(−½ ln 2π − ½), ∂ℓ/∂θ = Σ xₖ rₖ = 3
 * assert.ok(Math.abs(r.logLikelihood - (-Math.log(2 * Math.PI) - 1)) < 1e-14);
 * assert.equal(r.grad[0], 3);
 * ```
 */
export async function duckdbLogLikelihood(
  options: DuckDbLogLikelihoodOptions,
): Promise<{ logLikelihood: number; grad: Float64Array; numRows: number }> {
  const theta = copyTheta(options.theta, "theta");
  const sql = logLikelihoodSql(_sqlOptions(options, theta));
  const row = await _withConnection(options.connection, (c) => _oneRow(c, sql));
  const r = parseControlVariateSums(row, theta.length, { hessian: false });
  return { logLikelihood: r.llStarSum, grad: r.gradSum, numRows: r.numRows };
}

/**
 * Newton's method to the MAP under a Gaussian prior (the `GlmModel` prior:
 * sd 10 unless stated), every full-data pass in DuckDB and the d × d solve
 * here; a step that lowers the log posterior is halved. Returns the last
 * point the sums were computed at — within `tolerance` of the MAP — with the
 * sums there, so the centring costs no extra pass.
 *
 * @param options Source, family, columns, response, intercept, σ, prior, start, limits.
 * @returns θ*, S, A, B, n, whether it converged, and the passes made.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { duckdbNewtonCentring } from "./duckdb.ts";
 * // one coefficient, 3 of 4 successes, flat prior: the MAP is logit(3/4) = ln 3
 * const c = await duckdbNewtonCentring({
 *   source: { sql: "SELECT * FROM (VALUES (1, 1), (1, 1), (1, 1), (1, 0)) AS t(x, y)" },
 *   family: "logistic", columns: ["x"], response: "y", priorScale: Infinity,
 * });
 * assert.ok(c.converged && Math.abs(c.thetaStar[0] - Math.log(3)) < 1e-9);
 * assert.ok(Math.abs(c.gradSum[0]) < 1e-9);
 * ```
 */
export async function duckdbNewtonCentring(
  options: DuckDbNewtonOptions,
): Promise<DuckDbNewtonCentring> {
  const d = options.columns.length + (options.intercept ? 1 : 0);
  // One Newton-to-MAP loop for every engine (engines/newton_centring.ts);
  // here each full-data pass is one aggregate query.
  return await _withConnection(
    options.connection,
    (conn) =>
      newtonCentringByPasses(d, options, async (at) =>
        parseControlVariateSums(
          await _oneRow(conn, controlVariateSql(_sqlOptions(options, at))),
          d,
        )),
  );
}

/** Options of {@link openDuckDbRows}. */
export interface DuckDbRowsOptions extends RowSourceColumnOptions {
  /**
   * The DuckDB database file holding `source`'s table (opened read-only), or
   * ":memory:" (the default) for Parquet files and SELECTs that need none.
   */
  database?: string;
  /** Where the rows are: Parquet file(s), a table of `database`, or a SELECT. */
  source: DuckDbSource;
  /** The integer key column: values base … base + n − 1, row k has key base + k. */
  key: string;
  /** Columns of X in the order of θ (after the intercept, if any). */
  columns: readonly string[];
  /** The response column. */
  response: string;
  /** Whether θ[0] is an intercept (an implicit column of ones). Default false. */
  intercept?: boolean;
  /** Most distinct keys per query (default 16 384). */
  batchRows?: number;
  /** Longest wait for one query, in seconds (default 600). */
  timeoutSeconds?: number;
  /**
   * DuckDB's threads (default 1). With more, a full-data pass is faster but
   * its partial sums are added in the order the threads finish, so the last
   * bits of the sums, and of a seeded run's draws, vary from run to run.
   */
  threads?: number;
}

/**
 * Open rows that stay in DuckDB as a row source for `defineModel`
 * (`rows: { database: source }`, models/compose.ts): a worker opens its own
 * DuckDB instance (a database file read-only, or an in-memory one for
 * Parquet files and SELECTs), checks the key and then answers each row
 * fetch and each full-data pass with one query; the model waits for it with
 * `Atomics.wait`. The model built over it owns it (its `close()` ends the
 * worker). Needs `--allow-ffi` and `--allow-read`.
 *
 * @param options Database, source, key, columns, response, intercept, limits.
 * @returns The row source.
 * @throws {RangeError} An empty source or a key that is not base … base + n − 1;
 *   Error naming the source when DuckDB refuses a query (a missing file,
 *   table or column).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openDuckDbRows } from "./duckdb.ts";
 * import { defineModel } from "../models/compose.ts";
 * const source = await openDuckDbRows({
 *   source: { sql: "SELECT * FROM (VALUES (0, 0.5, 1), (1, -1.0, 0), (2, 2.0, 1)) AS t(id, x, y)" },
 *   key: "id", columns: ["x"], response: "y", intercept: true,
 * });
 * const model = await defineModel({ likelihood: { family: "logistic" }, rows: { database: source } });
 * try {
 *   assert.equal(model.numRows, 3);
 *   assert.deepEqual(model.parameterNames, ["(Intercept)", "x"]);
 *   assert.ok(Number.isFinite(model.logDensity(new Float64Array([0.1, 0.2]))));
 * } finally {
 *   model.close();
 * }
 * ```
 */
export async function openDuckDbRows(options: DuckDbRowsOptions): Promise<DatabaseRowSource> {
  const from = duckdbFromClause(options.source);
  const database = options.database ?? ":memory:";
  if (typeof database !== "string" || database === "") {
    throw new TypeError(`database must be a file path or ":memory:", got ${String(database)}`);
  }
  if (typeof options.key !== "string" || options.key === "") {
    throw new RangeError(
      `rows are fetched by an integer key column (values base … base + n − 1): give key, got ${
        JSON.stringify(options.key)
      }`,
    );
  }
  const threads = options.threads ?? 1;
  if (!Number.isInteger(threads) || threads < 1) {
    throw new RangeError(`threads must be a positive integer, got ${options.threads}`);
  }
  const label = database === ":memory:" ? "duckdb" : `duckdb:${database}`;
  const aux = auxColumnOption(options);
  return await openRowSource({
    engine: "duckdb",
    engineName: "DuckDB",
    ...(aux === undefined ? {} : { aux }),
    ...(options.passes === undefined ? {} : { passes: options.passes }),
    ...(options.chunkRows === undefined ? {} : { chunkRows: options.chunkRows }),
    url: database,
    duckdbSource: options.source,
    duckdbThreads: threads,
    key: options.key,
    columns: options.columns,
    response: options.response,
    intercept: options.intercept ?? false,
    where: `${
      "parquet" in options.source
        ? `Parquet ${from}`
        : "table" in options.source
        ? `table ${from}`
        : "the source SELECT"
    } at ${label}`,
    label,
    ...(options.batchRows === undefined ? {} : { batchRows: options.batchRows }),
    ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds }),
  });
}

/**
 * The FROM clause DuckDB reads a {@link DuckDbSource} with.
 *
 * @param source Parquet path(s), a table, or a SELECT.
 * @returns A table expression.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { duckdbFromClause } from "./duckdb.ts";
 * assert.equal(duckdbFromClause({ parquet: "it's.parquet" }), "read_parquet('it''s.parquet')");
 * assert.equal(duckdbFromClause({ table: ["s", "t"] }), '"s"."t"');
 * ```
 */
export function duckdbFromClause(source: DuckDbSource): string {
  if (source === null || typeof source !== "object") {
    throw new TypeError(`source must be { parquet }, { table } or { sql }, got ${source}`);
  }
  const str = (s: string) => {
    if (typeof s !== "string" || s.length === 0) {
      throw new TypeError(`a Parquet path must be a non-empty string, got ${JSON.stringify(s)}`);
    }
    return `'${s.replaceAll("'", "''")}'`;
  };
  if ("parquet" in source) {
    const p = source.parquet;
    return `read_parquet(${typeof p === "string" ? str(p) : `[${p.map(str).join(", ")}]`})`;
  }
  if ("table" in source) {
    const t = source.table;
    return typeof t === "string" ? quoteIdentifier(t) : t.map((s) => quoteIdentifier(s)).join(".");
  }
  if ("sql" in source && typeof source.sql === "string" && source.sql.trim() !== "") {
    return `(${source.sql}) AS "source_rows"`;
  }
  throw new TypeError(
    `source must be { parquet: path }, { table: name } or { sql: "SELECT …" }, got keys ${
      Object.keys(source).join(", ") || "none"
    }`,
  );
}

function _sqlOptions(o: DuckDbGlmOptions, theta: Float64Array): ControlVariateSqlOptions {
  const out: ControlVariateSqlOptions = {
    family: o.family,
    columns: o.columns,
    response: o.response,
    from: duckdbFromClause(o.source),
    theta,
    intercept: o.intercept ?? false,
  };
  if (o.sigma !== undefined) out.sigma = o.sigma;
  if (o.offsetColumn !== undefined) out.offsetColumn = o.offsetColumn;
  if (o.trialsColumn !== undefined) out.trialsColumn = o.trialsColumn;
  return out;
}

async function _withConnection<T>(
  given: DuckDbConnectionLike | undefined,
  run: (c: DuckDbConnectionLike) => Promise<T>,
): Promise<T> {
  if (given !== undefined) return await run(given);
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  try {
    return await run(conn);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function _oneRow(c: DuckDbConnectionLike, sql: string): Promise<Record<string, unknown>> {
  const reader = await c.runAndReadAll(sql);
  const rows = reader.getRowObjects();
  if (rows.length !== 1) {
    throw new RangeError(`the sums query must return one row, got ${rows.length}`);
  }
  const row = rows[0] as Record<string, unknown>;
  if (typeof row.n === "bigint" && row.n === 0n) {
    throw new RangeError("the source has no rows: the sums are undefined");
  }
  return row;
}
