/**
 * HMC-ECS's full-data centring passes run inside ClickHouse, over a local
 * or a Distributed table: the "clickhouse" dialect of
 * {@link controlVariateSql} is one aggregating SELECT, so on a Distributed
 * table each shard sums its own rows and the initiator adds the shards'
 * partial sums; only the O(d²) sums come back.
 *
 * The client is ClickHouse's HTTP interface through `fetch` (no driver):
 * results are read as `FORMAT JSON`, whose Float64 values ClickHouse prints
 * as the shortest decimal that reads back as the same double, and θ is sent
 * as such decimals in the SQL text, which ClickHouse parses exactly (its
 * TabSeparated/CSV *input* parser does not: 2–3 % of random doubles come
 * back 1 ulp off in ClickHouse 18, so tables for exact comparisons are
 * loaded with `FORMAT RowBinary`). Needs `--allow-net` to the server.
 *
 * A connection is `{ url, user?, password?, database? }` or a URL
 * `clickhouse://user@host:port/database` (port = the HTTP port, default
 * 8123); the password comes from the URL or from CLICKHOUSE_PASSWORD (user
 * from CLICKHOUSE_USER, default "default"), is sent as HTTP Basic
 * authentication, and never appears in an error message.
 *
 * Before the first pass the columns are checked with `DESCRIBE TABLE` (for
 * a table source): a missing column, a non-numeric one, or NULLs in a
 * Nullable column are errors naming the table and the column.
 *
 * @module
 */
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

export type { ControlVariateSums, SqlGlmFamily } from "./control_variate_sql.ts";
export type { NewtonPassOptions, NewtonPassResult, SqlPriorOptions } from "./newton_centring.ts";

/** Where a ClickHouse server's HTTP interface is, and who connects. */
export interface ClickHouseConnection {
  /** The HTTP endpoint, e.g. `http://127.0.0.1:8123`. */
  url: string;
  /** User name (default "default"). */
  user?: string;
  /** Password (default none). */
  password?: string;
  /** Default database for unqualified table names. */
  database?: string;
}

/** Where the rows are: a table (optionally `[database, table]`), or any SELECT (`sql`). */
export type ClickHouseSource = SqlSource;

/** The GLM and the data source shared by the sums functions of this module. */
export interface ClickHouseGlmOptions {
  /** The server: a {@link ClickHouseConnection} or a `clickhouse://` / `http://` URL. */
  connection: ClickHouseConnection | string;
  /** Where the rows are (a Distributed table is summed shard by shard). */
  source: ClickHouseSource;
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
}

/** Options of {@link clickhouseNewtonCentring}. */
export interface ClickHouseNewtonOptions extends ClickHouseGlmOptions, NewtonPassOptions {}

/** The sums at θ*: HMC-ECS's `centring` fields, plus n. */
export interface ClickHouseCentring {
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
 * A connection from a URL: `clickhouse://[user[:password]@]host[:port][/database]`
 * (the HTTP port, default 8123; `clickhouses://` for HTTPS, default 8443) or
 * the HTTP endpoint itself. A password not in the URL is read from
 * CLICKHOUSE_PASSWORD, a user from CLICKHOUSE_USER, when the environment
 * may be read.
 *
 * @param url The URL.
 * @returns The connection.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { clickhouseConnection } from "./clickhouse.ts";
 * const c = clickhouseConnection("clickhouse://reader@db.example:8124/events");
 * assert.equal(c.url, "http://db.example:8124");
 * assert.equal(c.user, "reader");
 * assert.equal(c.database, "events");
 * ```
 */
export function clickhouseConnection(url: string): ClickHouseConnection {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TypeError("the ClickHouse connection is not a URL (clickhouse://host:port/database)");
  }
  const proto = u.protocol;
  if (!["clickhouse:", "clickhouses:", "http:", "https:"].includes(proto)) {
    throw new TypeError(
      `a ClickHouse URL starts with clickhouse://, clickhouses://, http:// or https://, got ${proto}//`,
    );
  }
  const tls = proto === "clickhouses:" || proto === "https:";
  const port = u.port || (tls ? "8443" : "8123");
  const out: ClickHouseConnection = {
    url: `${tls ? "https" : "http"}://${u.hostname}:${port}`,
  };
  const env = (name: string) => {
    try {
      return Deno.env.get(name);
    } catch {
      return undefined;
    }
  };
  const user = u.username ? decodeURIComponent(u.username) : env("CLICKHOUSE_USER");
  const password = u.password ? decodeURIComponent(u.password) : env("CLICKHOUSE_PASSWORD");
  if (user) out.user = user;
  if (password) out.password = password;
  const db = decodeURIComponent(u.pathname.replace(/^\/+/, ""));
  if (db) out.database = db;
  return out;
}

/**
 * Run one statement over HTTP and read its result rows (`FORMAT JSON` is
 * appended to a SELECT). ClickHouse's error text is returned in the
 * thrown Error; the password never is.
 *
 * @param connection The server.
 * @param sql One statement (no trailing FORMAT clause).
 * @param options `body`: bytes to send as the statement's data (then the
 *   statement goes in the URL, e.g. `INSERT … FORMAT RowBinary`); `json`:
 *   whether to append `FORMAT JSON` and parse (default true without `body`).
 * @returns The rows (objects keyed by column name) and the column types.
 */
export async function clickhouseQuery(
  connection: ClickHouseConnection | string,
  sql: string,
  options: { body?: Uint8Array<ArrayBuffer>; json?: boolean } = {},
): Promise<{ rows: Record<string, unknown>[]; meta: { name: string; type: string }[] }> {
  const c = typeof connection === "string" ? clickhouseConnection(connection) : connection;
  const json = options.json ?? options.body === undefined;
  const params = new URLSearchParams();
  if (c.database) params.set("database", c.database);
  const headers: Record<string, string> = {};
  if (c.user !== undefined || c.password !== undefined) {
    const raw = new TextEncoder().encode(`${c.user ?? "default"}:${c.password ?? ""}`);
    headers.Authorization = `Basic ${btoa(String.fromCharCode(...raw))}`;
  }
  const text = json ? `${sql}\nFORMAT JSON` : sql;
  if (options.body !== undefined) params.set("query", text);
  const where = _where(c);
  let res: Response;
  try {
    res = await fetch(`${c.url}/?${params}`, {
      method: "POST",
      headers,
      body: options.body ?? text,
    });
  } catch (e) {
    throw new Error(`could not reach ClickHouse at ${where}: ${_scrub((e as Error).message, c)}`);
  }
  let body: string;
  try {
    body = await res.text();
  } catch (e) {
    throw new Error(
      `the connection to ClickHouse at ${where} broke while reading a result: ${
        _scrub((e as Error).message, c)
      }`,
    );
  }
  if (!res.ok) {
    throw new Error(`ClickHouse at ${where} refused the query: ${_scrub(_chMessage(body), c)}`);
  }
  if (!json) return { rows: [], meta: [] };
  try {
    const parsed = JSON.parse(body) as {
      data: Record<string, unknown>[];
      meta: { name: string; type: string }[];
    };
    return { rows: parsed.data, meta: parsed.meta };
  } catch {
    throw new Error(
      `ClickHouse at ${where} sent a result that is not JSON (the connection may have dropped): ${
        _scrub(body.slice(0, 200), c)
      }`,
    );
  }
}

/**
 * S, A and B at θ* (one full-data pass in ClickHouse; on a Distributed
 * table, one partial sum per shard), for HMC-ECS's `centring` option.
 *
 * @param options Connection, source, family, columns, response, θ*, intercept, σ.
 * @returns θ*, S, A, B and n.
 */
export async function clickhouseControlVariateSums(
  options: ClickHouseGlmOptions & { thetaStar: ArrayLike<number> },
): Promise<ClickHouseCentring> {
  const theta = copyTheta(options.thetaStar, "thetaStar");
  await clickhouseCheckColumns(options);
  const row = await _oneRow(controlVariateSql(_sqlOptions(options, theta)), options);
  return { thetaStar: theta, ...parseControlVariateSums(row, theta.length) };
}

/**
 * The full-data log likelihood and its gradient at θ (one pass, no Hessian sums).
 *
 * @param options Connection, source, family, columns, response, θ, intercept, σ.
 * @returns The log likelihood, its gradient (length d) and n.
 */
export async function clickhouseLogLikelihood(
  options: ClickHouseGlmOptions & { theta: ArrayLike<number> },
): Promise<{ logLikelihood: number; grad: Float64Array; numRows: number }> {
  const theta = copyTheta(options.theta, "theta");
  await clickhouseCheckColumns(options);
  const row = await _oneRow(logLikelihoodSql(_sqlOptions(options, theta)), options);
  const r = parseControlVariateSums(row, theta.length, { hessian: false });
  return { logLikelihood: r.llStarSum, grad: r.gradSum, numRows: r.numRows };
}

/**
 * Newton's method to the MAP under a Gaussian prior (the `GlmModel` prior),
 * every full-data pass in ClickHouse, the d × d solve here.
 *
 * @param options Connection, source, family, columns, response, intercept, σ, prior, start, limits.
 * @returns θ*, S, A, B, n, whether it converged, and the passes made.
 */
export async function clickhouseNewtonCentring(
  options: ClickHouseNewtonOptions,
): Promise<NewtonPassResult> {
  const d = options.columns.length + (options.intercept ? 1 : 0) +
    (options.family === "gaussian-scale" ? 1 : 0);
  await clickhouseCheckColumns(options);
  const pass = async (at: Float64Array) => {
    const row = await _oneRow(controlVariateSql(_sqlOptions(options, at)), options);
    return parseControlVariateSums(row, d);
  };
  const init = options.init ??
    (options.family === "gaussian-scale" ? await gaussianScaleStart(d, pass) : undefined);
  return await newtonCentringByPasses(d, { ...options, init }, pass);
}

/**
 * For a table source: every column named in `columns` and `response` exists
 * and is numeric, and a Nullable one holds no NULL; otherwise an error
 * naming the table and the column. A `{ sql }` source is not checked.
 *
 * @param options Connection, source, columns, response.
 */
export async function clickhouseCheckColumns(
  options: Pick<ClickHouseGlmOptions, "connection" | "source" | "columns" | "response">,
): Promise<void> {
  if (!("table" in options.source)) return;
  const from = clickhouseFromClause(options.source);
  let desc;
  try {
    desc = await clickhouseQuery(options.connection, `DESCRIBE TABLE ${from}`);
  } catch (e) {
    throw new Error(`table ${from}: ${(e as Error).message}`);
  }
  const types = new Map<string, string>();
  for (const r of desc.rows) types.set(String(r.name), String(r.type));
  const nullable: string[] = [];
  for (const c of [...options.columns, options.response]) {
    const t = types.get(c);
    if (t === undefined) {
      throw new RangeError(
        `table ${from} has no column "${c}" (it has ${[...types.keys()].join(", ")})`,
      );
    }
    if (!NUMERIC.test(t)) {
      throw new RangeError(
        `column "${c}" of table ${from} is ${t}, not a number type (Float, Int, UInt, Decimal)`,
      );
    }
    if (t.startsWith("Nullable(")) nullable.push(c);
  }
  if (nullable.length === 0) return;
  const q = (c: string) => quoteIdentifier(c, "clickhouse");
  const counts = await clickhouseQuery(
    options.connection,
    `SELECT ${nullable.map((c, i) => `countIf(isNull(${q(c)})) AS k${i}`).join(", ")} FROM ${from}`,
  );
  nullable.forEach((c, i) => {
    const k = Number(counts.rows[0]?.[`k${i}`] ?? 0);
    if (k > 0) {
      throw new RangeError(
        `column "${c}" of table ${from} has ${k} NULL value${
          k === 1 ? "" : "s"
        }: drop or fill those rows (a view with WHERE "${c}" IS NOT NULL)`,
      );
    }
  });
}

/** ClickHouse's number types, Nullable or not. */
const NUMERIC = /^(Nullable\()?(Float(32|64)|U?Int(8|16|32|64)|Decimal(32|64|128)?\b.*)\)?$/;

/**
 * The FROM clause of a {@link ClickHouseSource}.
 *
 * @param source A table or a SELECT.
 * @returns A table expression.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { clickhouseFromClause } from "./clickhouse.ts";
 * assert.equal(clickhouseFromClause({ table: ["db", "rows"] }), "`db`.`rows`");
 * ```
 */
export function clickhouseFromClause(source: ClickHouseSource): string {
  return sqlFromClause(source, "clickhouse");
}

function _sqlOptions(o: ClickHouseGlmOptions, theta: Float64Array): ControlVariateSqlOptions {
  const out: ControlVariateSqlOptions = {
    family: o.family,
    columns: o.columns,
    response: o.response,
    from: clickhouseFromClause(o.source),
    theta,
    intercept: o.intercept ?? false,
    dialect: "clickhouse",
  };
  if (o.sigma !== undefined) out.sigma = o.sigma;
  if (o.offsetColumn !== undefined) out.offsetColumn = o.offsetColumn;
  if (o.trialsColumn !== undefined) out.trialsColumn = o.trialsColumn;
  return out;
}

async function _oneRow(sql: string, o: ClickHouseGlmOptions): Promise<Record<string, unknown>> {
  const from = clickhouseFromClause(o.source);
  let res;
  try {
    res = await clickhouseQuery(o.connection, sql);
  } catch (e) {
    throw new Error(`the sums query over ${from} failed: ${(e as Error).message}`);
  }
  if (res.rows.length !== 1) {
    throw new RangeError(`the sums query must return one row, got ${res.rows.length}`);
  }
  const row = res.rows[0];
  if (Number(row.n) === 0) {
    throw new RangeError(`the source ${from} has no rows: the sums are undefined`);
  }
  for (const [k, v] of Object.entries(row)) {
    if (v === null) {
      throw new RangeError(
        `the sums query over ${from} gave ${k} = inf or NaN (a value in the table is not finite, or θ is too far out)`,
      );
    }
  }
  return row;
}

function _where(c: ClickHouseConnection): string {
  try {
    const u = new URL(c.url);
    return `${u.hostname}:${u.port || (u.protocol === "https:" ? 443 : 80)}`;
  } catch {
    return "the server";
  }
}

/** A message without the password, whatever the server or the runtime echoed. */
function _scrub(msg: string, c: ClickHouseConnection): string {
  return c.password ? msg.replaceAll(c.password, "***") : msg;
}

/** ClickHouse 18's "Code: 60, e.displayText() = DB::Exception: …, e.what() = …" as its sentence. */
function _chMessage(body: string): string {
  const m = /e\.displayText\(\) = (?:DB::Exception: )?(.*?)(?:, e\.what\(\) = .*)?$/s.exec(
    body.trim(),
  );
  return (m ? m[1] : body.trim()).slice(0, 500);
}
