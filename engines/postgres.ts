/**
 * HMC-ECS's full-data centring passes run inside a PostgreSQL server: the
 * "postgres" dialect of {@link controlVariateSql} scans the table where it
 * is and returns one row of sums; nothing of size n reaches JavaScript.
 *
 * ```
 *  table in PostgreSQL ──► one aggregate query ──► S, A, B (O(d²) numbers)
 *                                                  │
 *  Newton to the MAP: θ ← θ + (−B − P)⁻¹(A + ∇log p)  ◄┘  (d × d solve here)
 *  the sums at θ* ──► HMC-ECS `centring: { thetaStar, llStarSum, gradSum, hessSum }`
 * ```
 *
 * The connection is any object with `query(sql)` resolving to `{ rows }` —
 * a `Client` or `Pool` of `npm:pg` — or a connection URL, for which a client
 * of `npm:pg@8.16.3` is opened for the call and closed afterwards (needs
 * `--allow-net` to the server and `--allow-env`). This entry point is never
 * imported by `mod.ts`, the URL import or the browser bundle.
 *
 * PostgreSQL before 18 has no LGAMMA: the "poisson" family then needs
 * `logFactorialColumn`, a column holding ln(yₖ!); without it the call stops
 * with an error saying so. See docs/postgres.md.
 *
 * @module
 */
import pg from "npm:pg@8.16.3";
import {
  controlVariateSql,
  type ControlVariateSqlOptions,
  logLikelihoodSql,
  parseControlVariateSums,
  quoteIdentifier,
  sqlFromClause,
  type SqlGlmFamily,
  type SqlSource,
} from "./control_variate_sql.ts";
import {
  copyTheta,
  gaussianScaleStart,
  newtonCentringByPasses,
  type NewtonPassOptions,
  type NewtonPassResult,
} from "./newton_centring.ts";

export type { SqlGlmFamily } from "./control_variate_sql.ts";
export type { NewtonPassOptions, NewtonPassResult, SqlPriorOptions } from "./newton_centring.ts";

/** What this module needs of a PostgreSQL connection: `pg.Client` or `pg.Pool` of `npm:pg`. */
export interface PostgresQueryable {
  /** Run one statement and read its whole result. */
  query(sql: string): Promise<{ rows: readonly Record<string, unknown>[] }>;
}

/** Where the rows are: a table or view (optionally `[schema, table]`), or any SELECT (`sql`). */
export type PostgresSource = SqlSource;

/** The GLM and the data source shared by every function of this module. */
export interface PostgresGlmOptions {
  /** An open connection, or a connection URL (`postgres://user@host:port/db`). */
  connection: PostgresQueryable | string;
  /** Where the rows are. */
  source: PostgresSource;
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
  /** "poisson" only: a column holding ln(yₖ!) (required before PostgreSQL 18). */
  logFactorialColumn?: string;
}

/** Options of {@link postgresControlVariateSums}. */
export interface PostgresControlVariateOptions extends PostgresGlmOptions {
  /** The expansion point θ* (length d). */
  thetaStar: ArrayLike<number>;
}

/** Options of {@link postgresLogLikelihood}. */
export interface PostgresLogLikelihoodOptions extends PostgresGlmOptions {
  /** The position θ (length d). */
  theta: ArrayLike<number>;
}

/** Options of {@link postgresNewtonCentring}. */
export interface PostgresNewtonOptions extends PostgresGlmOptions, NewtonPassOptions {}

/**
 * A precomputed centring for HMC-ECS: the expansion point and the full-data
 * sums there (the field names of HMC-ECS's `centring` option), plus n.
 */
export interface PostgresCentring {
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

/**
 * S, A and B at θ* (one full-data pass in PostgreSQL), ready to hand to
 * HMC-ECS as a precomputed centring.
 *
 * @param options Connection, source, family, columns, response, θ*, intercept, σ.
 * @returns θ*, S, A, B and n.
 */
export async function postgresControlVariateSums(
  options: PostgresControlVariateOptions,
): Promise<PostgresCentring> {
  const theta = copyTheta(options.thetaStar, "thetaStar");
  return await _withConnection(options.connection, async (c) => {
    await _checkLgamma(c, options);
    const row = await _oneRow(c, controlVariateSql(_sqlOptions(options, theta)), options);
    const r = parseControlVariateSums(row, theta.length);
    return { thetaStar: theta, ...r };
  });
}

/**
 * The full-data log likelihood Σₖ ℓₖ(θ) and its gradient (one pass in
 * PostgreSQL, without the Hessian sums).
 *
 * @param options Connection, source, family, columns, response, θ, intercept, σ.
 * @returns The log likelihood, its gradient (length d) and n.
 */
export async function postgresLogLikelihood(
  options: PostgresLogLikelihoodOptions,
): Promise<{ logLikelihood: number; grad: Float64Array; numRows: number }> {
  const theta = copyTheta(options.theta, "theta");
  return await _withConnection(options.connection, async (c) => {
    await _checkLgamma(c, options);
    const row = await _oneRow(c, logLikelihoodSql(_sqlOptions(options, theta)), options);
    const r = parseControlVariateSums(row, theta.length, { hessian: false });
    return { logLikelihood: r.llStarSum, grad: r.gradSum, numRows: r.numRows };
  });
}

/**
 * Newton's method to the MAP under a Gaussian prior (the `GlmModel` prior:
 * sd 10 unless stated), every full-data pass in PostgreSQL and the d × d
 * solve here; a step that lowers the log posterior is halved. Returns the
 * last point the sums were computed at with the sums there.
 *
 * @param options Connection, source, family, columns, response, intercept, σ, prior, start, limits.
 * @returns θ*, S, A, B, n, whether it converged, and the passes made.
 */
export async function postgresNewtonCentring(
  options: PostgresNewtonOptions,
): Promise<NewtonPassResult> {
  const d = options.columns.length + (options.intercept ? 1 : 0) +
    (options.family === "gaussian-scale" ? 1 : 0);
  return await _withConnection(options.connection, async (c) => {
    await _checkLgamma(c, options);
    const pass = async (at: Float64Array) => {
      const row = await _oneRow(c, controlVariateSql(_sqlOptions(options, at)), options);
      return parseControlVariateSums(row, d);
    };
    const init = options.init ??
      (options.family === "gaussian-scale" ? await gaussianScaleStart(d, pass) : undefined);
    return await newtonCentringByPasses(d, { ...options, init }, pass);
  });
}

/**
 * The FROM clause of a {@link PostgresSource}.
 *
 * @param source A table or a SELECT.
 * @returns A table expression.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { postgresFromClause } from "./postgres.ts";
 * assert.equal(postgresFromClause({ table: ["s", 'my "t"'] }), '"s"."my ""t"""');
 * ```
 */
export function postgresFromClause(source: PostgresSource): string {
  return sqlFromClause(source, "postgres", '"source_rows"');
}

function _sqlOptions(o: PostgresGlmOptions, theta: Float64Array): ControlVariateSqlOptions {
  const out: ControlVariateSqlOptions = {
    family: o.family,
    columns: o.columns,
    response: o.response,
    from: postgresFromClause(o.source),
    theta,
    intercept: o.intercept ?? false,
    dialect: "postgres",
  };
  if (o.sigma !== undefined) out.sigma = o.sigma;
  if (o.offsetColumn !== undefined) out.offsetColumn = o.offsetColumn;
  if (o.trialsColumn !== undefined) out.trialsColumn = o.trialsColumn;
  if (o.logFactorialColumn !== undefined) out.logFactorialColumn = o.logFactorialColumn;
  return out;
}

async function _withConnection<T>(
  given: PostgresQueryable | string,
  run: (c: PostgresQueryable) => Promise<T>,
): Promise<T> {
  if (typeof given !== "string") {
    if (given === null || typeof given !== "object" || typeof given.query !== "function") {
      throw new TypeError("connection must be a connection URL or an object with query(sql)");
    }
    return await run(given);
  }
  const client = new pg.Client({ connectionString: given });
  try {
    await client.connect();
  } catch (e) {
    // The URL may hold a password: name the host and port only.
    let where = "the server";
    try {
      const u = new URL(given);
      where = `${u.hostname}:${u.port || 5432}`;
    } catch { /* not a URL: say nothing of it */ }
    throw new Error(`could not connect to PostgreSQL at ${where}: ${(e as Error).message}`);
  }
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

async function _checkLgamma(c: PostgresQueryable, o: PostgresGlmOptions): Promise<void> {
  const lgamma = o.family === "binomial" ||
    o.family === "poisson" && o.logFactorialColumn === undefined;
  if (!lgamma) return;
  const r = await c.query("SELECT current_setting('server_version_num')::int AS v");
  const v = Number(r.rows[0]?.v);
  if (v < 180000) {
    throw new RangeError(
      `PostgreSQL ${Math.floor(v / 10000)} has no LGAMMA (added in 18): ${
        o.family === "poisson"
          ? "for the poisson family give logFactorialColumn, a column holding ln(y!)"
          : "the binomial family's ln C(N, y) needs it"
      }`,
    );
  }
}

async function _oneRow(
  c: PostgresQueryable,
  sql: string,
  o: PostgresGlmOptions,
): Promise<Record<string, unknown>> {
  let res;
  try {
    res = await c.query(sql);
  } catch (e) {
    throw new Error(
      `the sums query over ${postgresFromClause(o.source)} failed: ${(e as Error).message}`,
    );
  }
  if (res.rows.length !== 1) {
    throw new RangeError(`the sums query must return one row, got ${res.rows.length}`);
  }
  const row = res.rows[0];
  if (Number(row.n) === 0) {
    throw new RangeError(
      `the source ${postgresFromClause(o.source)} has no rows: the sums are undefined`,
    );
  }
  if (row.n_nonnull !== undefined && Number(row.n_nonnull) < Number(row.n)) {
    await _nullError(c, o, Number(row.n) - Number(row.n_nonnull));
  }
  return row as Record<string, unknown>;
}

/** Name the columns whose NULLs made `rows` rows drop out of the sums. */
async function _nullError(
  c: PostgresQueryable,
  o: PostgresGlmOptions,
  rows: number,
): Promise<never> {
  const from = postgresFromClause(o.source);
  const cols = [...o.columns, o.response];
  if (o.logFactorialColumn !== undefined) cols.push(o.logFactorialColumn);
  if (o.offsetColumn !== undefined) cols.push(o.offsetColumn);
  if (o.trialsColumn !== undefined) cols.push(o.trialsColumn);
  const q = (s: string) => quoteIdentifier(s, "postgres");
  const r = await c.query(
    `SELECT ${
      cols.map((col, i) => `COUNT(*) - COUNT(${q(col)}) AS k${i}`).join(", ")
    } FROM ${from}`,
  );
  const named = cols.map((col, i) => [col, Number(r.rows[0]?.[`k${i}`] ?? 0)] as const)
    .filter(([, k]) => k > 0)
    .map(([col, k]) => `column "${col}" has ${k} NULL value${k === 1 ? "" : "s"}`);
  throw new RangeError(
    `${rows} row${rows === 1 ? "" : "s"} of ${from} hold NULL (${
      named.join(", ") || "in X or y"
    }): drop or fill them (a view with WHERE … IS NOT NULL)`,
  );
}
