/**
 * The full-data passes of HMC-ECS's centring as one SQL aggregate query, for
 * data that live in a database, in Parquet files, or on a cluster (Spark SQL,
 * Trino, BigQuery, DuckDB): the engine scans the rows once and returns a
 * single row of sums; the sampler then runs on one machine.
 *
 * For a GLM whose control variates are expansions in η = xᵀβ
 * ("logistic", "poisson", "gaussian" with known σ), the centring needs
 *
 * ```
 *  S    = Σₖ ℓₖ(θ*)                      one column  "s"
 *  A_j  = Σₖ aₖ x_kj                     d columns   "a_j"      aₖ = dℓ/dη(η*ₖ)
 *  B_jl = Σₖ bₖ x_kj x_kl   (j ≤ l)      d(d+1)/2    "b_j_l"    bₖ = d²ℓ/dη²(η*ₖ)
 *  n    = COUNT(*)                       one column  "n"
 * ```
 *
 * with the per-row ℓ, a, b exactly as the core computes them (core/as/family.ts,
 * core/reference.ts), constants included:
 *
 * ```
 *  logistic   e = exp(−|η|)   ℓ = yη − max(η,0) − ln(1+e)   a = y − σ(η)   b = −e/(1+e)²
 *  poisson    μ = exp(η)      ℓ = yη − μ − lnΓ(y+1)         a = y − μ      b = −μ
 *  gaussian   r = y − η       ℓ = c₀ − r²/(2σ²)             a = r/σ²       b = −1/σ²
 *             c₀ = −½(ln 2π + ln σ²)
 * ```
 *
 * "poisson" with `offsetColumn` adds the row's offset to η (η = xᵀθ + oₖ,
 * the offset added last, as the core does); "binomial" reads the number of
 * trials Nₖ from `trialsColumn`:
 *
 * ```
 *  binomial   e = exp(−|η|)   ℓ = lnΓ(N+1) − lnΓ(y+1) − lnΓ(N−y+1) + yη − N(max(η,0) + ln(1+e))
 *             a = y − N·σ(η)  b = −N·e/(1+e)²
 * ```
 *
 * "gaussian-scale" (σ unknown, θ = (β, τ = log σ), τ last) adds one
 * coordinate: ℓ = −½ ln 2π − τ − ½r²e⁻²ᵀ, and besides A_j and B_jl with
 * a = re⁻²ᵀ, b = −e⁻²ᵀ the sums A_τ = Σ(rₖ²e⁻²ᵀ − 1) (column "a_d"),
 * B_jτ = Σ −2rₖe⁻²ᵀx_kj ("b_j_d") and B_ττ = Σ −2rₖ²e⁻²ᵀ ("b_d_d"), d the
 * number of columns of X. The negative binomial and Student-t are not here:
 * their ℓ needs lnΓ(y + φ) and the derivatives ψ(y + φ), ψ′(y + φ) per row
 * at every φ (no SQL engine named here has ψ, and a precomputed column
 * cannot follow φ); a row source streams their rows through the core
 * instead (models/database_glm.ts).
 *
 * σ(η) is taken as 1/(1+e) for η ≥ 0 and e/(1+e) otherwise, so no
 * exponential overflows. η*ₖ is computed once, in a CTE. θ* and every
 * constant are printed as the shortest decimal that reads back as the same
 * double (so the engine sees θ* exactly), in exponent form, which every
 * engine named above reads as a DOUBLE. Columns are `CAST(… AS DOUBLE)`, so
 * FLOAT (f32) columns are widened exactly, as the core widens f32 rows.
 * The user's identifiers are quoted for the engine's dialect; the query's
 * own names (`cv_…`, and the output columns) need no quotes anywhere.
 * Poisson's lnΓ(y+1) is `LGAMMA(y + 1)`, which DuckDB and BigQuery have and
 * Spark SQL, Trino and PostgreSQL before 18 lack: there, name a column holding ln(y!) instead
 * (`logFactorialColumn`).
 *
 * The same query at any θ gives the full-data log likelihood, gradient and
 * Hessian, i.e. a Newton step; {@link logLikelihoodSql} omits the Hessian.
 *
 * References: Dang et al. (2019), eqs. 11 and 14 (control variates and their
 * sums); docs/architecture.md, "Data beyond memory".
 *
 * @module
 */

/** The families whose control variates are expansions in η = xᵀβ. */
export type SqlGlmFamily = "logistic" | "poisson" | "gaussian" | "gaussian-scale" | "binomial";

/** Options of {@link controlVariateSql} and {@link logLikelihoodSql}. */
export interface ControlVariateSqlOptions {
  /** The response family. */
  family: SqlGlmFamily;
  /** Column names of X, in the order of θ (after the intercept, if any). */
  columns: readonly string[];
  /** Column name of the response y. */
  response: string;
  /**
   * A table expression to put after FROM: a quoted table name
   * (see {@link quoteIdentifier}), `read_parquet('…')`, or `(SELECT …)`.
   */
  from: string;
  /** The expansion point θ* (length d = columns.length, + 1 with `intercept`). */
  theta: ArrayLike<number>;
  /** Whether θ[0] is an intercept (an implicit column of ones). Default false. */
  intercept?: boolean;
  /** Known residual sd σ of the "gaussian" family (required for it). */
  sigma?: number;
  /**
   * How identifiers and the double type are written: "ansi" (default; `"name"`,
   * DOUBLE: DuckDB, Trino), "postgres" (`"name"`, DOUBLE PRECISION), "spark"
   * (`` `name` ``, DOUBLE), "bigquery" (`` `name` ``, FLOAT64) or "clickhouse"
   * (`` `name` ``, Float64; one SELECT whose per-row terms are `WITH expr AS name`
   * aliases, since ClickHouse 18 has no CTE subqueries and a Distributed table
   * then aggregates on each shard).
   */
  dialect?: SqlDialect;
  /**
   * "poisson" only: a column holding ln(yₖ!) to use instead of `LGAMMA(y + 1)`,
   * for engines without LGAMMA (Spark SQL, Trino, PostgreSQL before 18).
   */
  logFactorialColumn?: string;
  /** "poisson" only: a column of offsets oₖ (log exposure), η = xᵀθ + oₖ. */
  offsetColumn?: string;
  /** "binomial" (required): the column of the number of trials Nₖ (integers ≥ yₖ). */
  trialsColumn?: string;
}

/** See {@link ControlVariateSqlOptions.dialect}. */
export type SqlDialect = "ansi" | "postgres" | "spark" | "bigquery" | "clickhouse";

/** The centring sums of a GLM, as HMC-ECS takes them. */
export interface ControlVariateSums {
  /** S = Σₖ ℓₖ(θ*). */
  llStarSum: number;
  /** A = Σₖ ∇ℓₖ(θ*) (length d). */
  gradSum: Float64Array;
  /** B = Σₖ ∇²ℓₖ(θ*) (d × d, row-major, symmetric); zeros from {@link logLikelihoodSql}. */
  hessSum: Float64Array;
  /** Number of rows n the engine summed over. */
  numRows: number;
}

/**
 * Quote an SQL identifier: in double quotes, doubling any inside (ANSI SQL:
 * DuckDB, Trino, PostgreSQL); in backticks for Spark SQL (doubling any
 * inside), BigQuery and ClickHouse (escaping them with a backslash);
 * "postgres" quotes as "ansi".
 *
 * @param name A column or table name.
 * @param dialect "ansi" (default), "postgres", "spark", "bigquery" or "clickhouse".
 * @returns The quoted identifier.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { quoteIdentifier } from "./control_variate_sql.ts";
 * assert.equal(quoteIdentifier('odd "name"'), '"odd ""name"""');
 * assert.equal(quoteIdentifier("a`b", "spark"), "`a``b`");
 * ```
 */
export function quoteIdentifier(name: string, dialect: SqlDialect = "ansi"): string {
  if (typeof name !== "string" || name.length === 0) {
    throw new TypeError(
      `an SQL identifier must be a non-empty string, got ${JSON.stringify(name)}`,
    );
  }
  if (name.includes("\0")) throw new TypeError(`an SQL identifier cannot contain NUL: ${name}`);
  if (dialect === "spark") return `\`${name.replaceAll("`", "``")}\``;
  if (dialect === "bigquery" || dialect === "clickhouse") {
    return `\`${name.replaceAll("\\", "\\\\").replaceAll("`", "\\`")}\``;
  }
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A double as an SQL literal that reads back as the same double: the
 * shortest round-trip decimal in exponent form, negative values in
 * parentheses.
 *
 * @param value A finite number.
 * @returns The literal.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { sqlDouble } from "./control_variate_sql.ts";
 * assert.equal(sqlDouble(0.1), "1e-1");
 * assert.equal(sqlDouble(-1 / 3), "(-3.333333333333333e-1)");
 * assert.equal(Number(sqlDouble(1 / 3)), 1 / 3);
 * ```
 */
export function sqlDouble(value: number): string {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new RangeError(`an SQL double literal must be a finite number, got ${value}`);
  }
  const s = (value === 0 ? 0 : value).toExponential().replace("e+", "e");
  return value < 0 ? `(${s})` : s;
}

/**
 * The query whose single result row holds n, S, A and B (see the module
 * notes) at θ = `options.theta`. Output columns: "n", "s", "a_0" … "a_{d−1}",
 * then "b_j_l" for 0 ≤ j ≤ l < d, θ's order (the intercept, if any, is 0).
 *
 * @param options Family, columns, response, table expression, θ, intercept, σ.
 * @returns The SQL text (one SELECT with CTEs).
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { controlVariateSql } from "./control_variate_sql.ts";
 * const sql = controlVariateSql({
 *   family: "logistic", columns: ["x1"], response: "y", from: '"t"',
 *   theta: [0.5, -0.25], intercept: true,
 * });
 * assert.ok(sql.includes('CAST("x1" AS DOUBLE) AS cv_x_1'));
 * assert.ok(sql.includes("(-2.5e-1) * cv_x_1"));
 * assert.ok(sql.includes("SUM(cv_b * cv_x_1 * cv_x_1) AS b_1_1"));
 * ```
 */
export function controlVariateSql(options: ControlVariateSqlOptions): string {
  return _sumsSql(options, true);
}

/**
 * The query for the full-data log likelihood and its gradient at θ: the
 * columns "n", "s" and "a_j" of {@link controlVariateSql}, without the
 * d(d+1)/2 Hessian sums (cheaper, for line searches between Newton steps).
 *
 * @param options As for {@link controlVariateSql}; `theta` is θ.
 * @returns The SQL text.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { logLikelihoodSql } from "./control_variate_sql.ts";
 * const sql = logLikelihoodSql({
 *   family: "gaussian", sigma: 2, columns: ["x"], response: "y", from: '"t"', theta: [1],
 * });
 * assert.ok(sql.includes("SUM(cv_a * cv_x_0) AS a_0") && !sql.includes("b_0_0"));
 * ```
 */
export function logLikelihoodSql(options: ControlVariateSqlOptions): string {
  return _sumsSql(options, false);
}

/**
 * Read the result row of {@link controlVariateSql} or {@link logLikelihoodSql}
 * into the sums. Values may be numbers, bigints or numeric strings (engines
 * return DECIMAL and BIGINT columns in different ways); column names are
 * matched case-insensitively (some engines fold them).
 *
 * @param row The result row as an object keyed by column name.
 * @param dim The dimension d of θ (with the intercept, if any).
 * @param options `hessian`: whether the row has the "b_j_l" columns (default true).
 * @returns S, A, B (symmetric, zeros without `hessian`) and n.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { parseControlVariateSums } from "./control_variate_sql.ts";
 * const r = parseControlVariateSums(
 *   { n: 3n, s: -2, a_0: 1, a_1: "0.5", b_0_0: -1, b_0_1: -0.25, b_1_1: -2 }, 2);
 * assert.deepEqual(Array.from(r.hessSum), [-1, -0.25, -0.25, -2]);
 * assert.equal(r.numRows, 3);
 * ```
 */
export function parseControlVariateSums(
  row: Readonly<Record<string, unknown>>,
  dim: number,
  options: { hessian?: boolean } = {},
): ControlVariateSums {
  if (!Number.isInteger(dim) || dim < 1) {
    throw new RangeError(`dim must be a positive integer, got ${dim}`);
  }
  if (row === null || typeof row !== "object") {
    throw new TypeError(
      `the result row must be an object, got ${row === null ? "null" : typeof row}`,
    );
  }
  const byName = new Map<string, unknown>();
  for (const [k, v] of Object.entries(row)) byName.set(k.toLowerCase(), v);
  const get = (name: string): number => {
    if (!byName.has(name)) {
      throw new RangeError(`the result row has no column "${name}" (dim ${dim})`);
    }
    const v = byName.get(name);
    const x = typeof v === "number"
      ? v
      : typeof v === "bigint"
      ? Number(v)
      : typeof v === "string" && v.trim() !== ""
      ? Number(v)
      : NaN;
    if (Number.isNaN(x)) {
      throw new RangeError(
        `column "${name}" must be a number, got ${
          v === null ? "NULL (no rows?)" : `${typeof v} ${String(v)}`
        }`,
      );
    }
    return x;
  };
  const numRows = get("n");
  const gradSum = new Float64Array(dim), hessSum = new Float64Array(dim * dim);
  for (let j = 0; j < dim; j++) gradSum[j] = get(`a_${j}`);
  if (options.hessian ?? true) {
    for (let j = 0; j < dim; j++) {
      for (let l = j; l < dim; l++) {
        hessSum[j * dim + l] = hessSum[l * dim + j] = get(`b_${j}_${l}`);
      }
    }
  }
  return { llStarSum: get("s"), gradSum, hessSum, numRows };
}

function _sumsSql(o: ControlVariateSqlOptions, hessian: boolean): string {
  if (o === null || typeof o !== "object") throw new TypeError("options must be an object");
  const fam = o.family;
  if (
    fam !== "logistic" && fam !== "poisson" && fam !== "gaussian" && fam !== "gaussian-scale" &&
    fam !== "binomial"
  ) {
    throw new RangeError(
      `family must be "logistic", "poisson", "gaussian", "gaussian-scale" or "binomial" (the families whose sums the SQL has), got ${
        JSON.stringify(fam)
      }`,
    );
  }
  if (!Array.isArray(o.columns) || o.columns.length === 0 && !o.intercept) {
    throw new RangeError("columns must list at least one column of X (or set intercept)");
  }
  if (typeof o.from !== "string" || o.from.trim() === "") {
    throw new TypeError(`from must be a non-empty table expression, got ${JSON.stringify(o.from)}`);
  }
  const intercept = o.intercept ?? false;
  const d = o.columns.length + (intercept ? 1 : 0);
  // "gaussian-scale": θ = (β, τ = log σ), one coordinate more than X's columns.
  const scale = fam === "gaussian-scale";
  const dTheta = d + (scale ? 1 : 0);
  if (o.theta === null || typeof o.theta !== "object" || o.theta.length !== dTheta) {
    throw new RangeError(
      `theta must have ${dTheta} values (${o.columns.length} columns${
        intercept ? " + intercept" : ""
      }${scale ? " + log sigma" : ""}), got ${o.theta?.length}`,
    );
  }
  for (let j = 0; j < dTheta; j++) {
    if (!Number.isFinite(o.theta[j])) {
      throw new RangeError(`theta must be finite, got ${o.theta[j]} at index ${j}`);
    }
  }
  if (fam === "gaussian" && !(o.sigma !== undefined && o.sigma > 0 && o.sigma < Infinity)) {
    throw new RangeError(`the gaussian family needs a known sigma > 0, got ${o.sigma}`);
  }
  if (o.logFactorialColumn !== undefined && fam !== "poisson") {
    throw new RangeError(
      `logFactorialColumn applies to the poisson family only, got it for ${fam}`,
    );
  }
  if (o.offsetColumn !== undefined && fam !== "poisson") {
    throw new RangeError(`offsetColumn applies to the poisson family only, got it for ${fam}`);
  }
  if ((o.trialsColumn !== undefined) !== (fam === "binomial")) {
    throw new RangeError(
      fam === "binomial"
        ? "the binomial family needs trialsColumn (the number of trials per row)"
        : `trialsColumn applies to the binomial family only, got it for ${fam}`,
    );
  }
  if (fam !== "gaussian" && o.sigma !== undefined) {
    throw new RangeError(`sigma applies to the gaussian family only, got it for ${fam}`);
  }
  const dialect = o.dialect ?? "ansi";
  if (
    dialect !== "ansi" && dialect !== "postgres" && dialect !== "spark" &&
    dialect !== "bigquery" && dialect !== "clickhouse"
  ) {
    throw new RangeError(
      `dialect must be "ansi", "postgres", "spark", "bigquery" or "clickhouse", got ${
        JSON.stringify(dialect)
      }`,
    );
  }
  const q = (name: string) => quoteIdentifier(name, dialect);
  const dbl = dialect === "bigquery"
    ? "FLOAT64"
    : dialect === "clickhouse"
    ? "Float64"
    : dialect === "postgres"
    ? "DOUBLE PRECISION"
    : "DOUBLE";
  const x = (j: number) => `cv_x_${j}`;
  const cols: string[] = [];
  let j0 = 0;
  if (intercept) cols.push(`CAST(1 AS ${dbl}) AS ${x(j0++)}`);
  for (const c of o.columns) cols.push(`CAST(${q(c)} AS ${dbl}) AS ${x(j0++)}`);
  cols.push(`CAST(${q(o.response)} AS ${dbl}) AS cv_y`);
  const logFact = o.logFactorialColumn;
  if (logFact !== undefined) cols.push(`CAST(${q(logFact)} AS ${dbl}) AS cv_lfact`);
  if (o.offsetColumn !== undefined) cols.push(`CAST(${q(o.offsetColumn)} AS ${dbl}) AS cv_off`);
  if (o.trialsColumn !== undefined) cols.push(`CAST(${q(o.trialsColumn)} AS ${dbl}) AS cv_tr`);
  // Columns the per-row terms read besides X and y.
  const lf = (logFact === undefined ? "" : ", cv_lfact") +
    (o.trialsColumn === undefined ? "" : ", cv_tr");
  // η = xᵀθ, then + the offset (the core adds it last too).
  const eta = Array.from({ length: d }, (_, j) => `${sqlDouble(o.theta[j])} * ${x(j)}`).join(
    "\n      + ",
  ) + (o.offsetColumn === undefined ? "" : "\n      + cv_off");
  const xs = Array.from({ length: d }, (_, j) => x(j)).join(", ");
  let perRow: string;
  if (fam === "logistic") {
    perRow = [
      `cv_y * cv_eta - GREATEST(cv_eta, 0) - LN(1 + cv_e) AS cv_ll`,
      `cv_y - CASE WHEN cv_eta >= 0 THEN 1 / (1 + cv_e) ELSE cv_e / (1 + cv_e) END AS cv_a`,
      `-(cv_e / ((1 + cv_e) * (1 + cv_e))) AS cv_b`,
    ].join(",\n    ");
  } else if (fam === "poisson") {
    perRow = [
      `cv_y * cv_eta - cv_e - ${logFact === undefined ? "LGAMMA(cv_y + 1)" : "cv_lfact"} AS cv_ll`,
      `cv_y - cv_e AS cv_a`,
      `-cv_e AS cv_b`,
    ].join(",\n    ");
  } else if (fam === "binomial") {
    // N trials, logit link: ℓ = lnΓ(N+1) − lnΓ(y+1) − lnΓ(N−y+1) + yη − N·softplus(η).
    perRow = [
      `LGAMMA(cv_tr + 1) - LGAMMA(cv_y + 1) - LGAMMA(cv_tr - cv_y + 1) + cv_y * cv_eta - cv_tr * (GREATEST(cv_eta, 0) + LN(1 + cv_e)) AS cv_ll`,
      `cv_y - cv_tr * CASE WHEN cv_eta >= 0 THEN 1 / (1 + cv_e) ELSE cv_e / (1 + cv_e) END AS cv_a`,
      `-(cv_tr * cv_e / ((1 + cv_e) * (1 + cv_e))) AS cv_b`,
    ].join(",\n    ");
  } else if (scale) {
    // ℓ = −½ ln 2π − τ − ½ r² e^{−2τ}, r = y − η: ∂ℓ/∂η = r e^{−2τ}, ∂²ℓ/∂η² = −e^{−2τ},
    // ∂ℓ/∂τ = r² e^{−2τ} − 1, ∂²ℓ/∂η∂τ = −2 r e^{−2τ}, ∂²ℓ/∂τ² = −2 r² e^{−2τ}.
    const tau = o.theta[d];
    const inv = Math.exp(-2 * tau), c0 = -0.5 * 1.8378770664093453 - tau;
    const r2 = `(cv_y - cv_eta) * (cv_y - cv_eta) * ${sqlDouble(inv)}`;
    perRow = [
      `${sqlDouble(c0)} - 0.5e0 * ${r2} AS cv_ll`,
      `(cv_y - cv_eta) * ${sqlDouble(inv)} AS cv_a`,
      `${sqlDouble(-inv)} AS cv_b`,
      `${r2} - 1 AS cv_at`,
      `-2e0 * (cv_y - cv_eta) * ${sqlDouble(inv)} AS cv_bt`,
      `-2e0 * ${r2} AS cv_btt`,
    ].join(",\n    ");
  } else {
    const s = o.sigma!;
    const inv = 1 / (s * s), c0 = -0.5 * (1.8378770664093453 + Math.log(s * s));
    perRow = [
      `${sqlDouble(c0)} - 0.5e0 * (cv_y - cv_eta) * (cv_y - cv_eta) * ${sqlDouble(inv)} AS cv_ll`,
      `(cv_y - cv_eta) * ${sqlDouble(inv)} AS cv_a`,
      `${sqlDouble(-inv)} AS cv_b`,
    ].join(",\n    ");
  }
  // PostgreSQL's EXP raises "value out of range: underflow" below e^-745 where
  // other engines return 0: clamp the argument at -708 there (e^-708 ≈ 3e-308
  // changes no sum by more than that, far below the summation's rounding).
  const expArg = (a: string) => dialect === "postgres" ? `GREATEST(${a}, -708)` : a;
  const eExpr = fam === "logistic" || fam === "binomial"
    ? `EXP(${expArg("-ABS(cv_eta)")})`
    : fam === "poisson"
    ? `EXP(${expArg("cv_eta")})`
    : "0";
  const sums = [`COUNT(*) AS n`, `SUM(cv_ll) AS s`];
  for (let j = 0; j < d; j++) sums.push(`SUM(cv_a * ${x(j)}) AS a_${j}`);
  if (scale) sums.push(`SUM(cv_at) AS a_${d}`);
  if (hessian) {
    for (let j = 0; j < d; j++) {
      for (let l = j; l < d; l++) sums.push(`SUM(cv_b * ${x(j)} * ${x(l)}) AS b_${j}_${l}`);
      if (scale) sums.push(`SUM(cv_bt * ${x(j)}) AS b_${j}_${d}`);
    }
    if (scale) sums.push(`SUM(cv_btt) AS b_${d}_${d}`);
  }
  if (dialect === "clickhouse") {
    // ClickHouse 18 has no CTE subqueries: the per-row terms are `WITH expr AS
    // name` aliases of one aggregating SELECT whose FROM is the table, so a
    // Distributed table sums on each shard and merges the partial sums. The
    // d + d(d+1)/2 sums are two array sums (sumForEach), not one aggregate
    // each: ClickHouse 18 expands every alias inside every aggregate when it
    // analyses a query, which at d = 30 took seconds per query. An outer
    // SELECT names the array elements as the other dialects name their sums.
    // Most function names are case-sensitive in ClickHouse 18: lower case.
    const fn = (e: string) =>
      e.replace(/\b(GREATEST|LGAMMA|LN|EXP|ABS)\(/g, (m) => m.toLowerCase());
    const defs = [...cols, ...perRow.split(",\n    ")];
    defs.splice(cols.length, 0, `(${eta}) AS cv_eta`, `${eExpr} AS cv_e`);
    const withs = defs.map((e) => fn(e).replace(/^(.*) AS (cv_\w+)$/s, "($1) AS $2"));
    withs.push(`[${xs}] AS cv_xs`);
    const inner = [
      `count() AS cv_n`,
      `sum(cv_ll) AS cv_s`,
      `sumForEach(arrayMap(cv_v -> cv_a * cv_v, cv_xs)) AS cv_as`,
    ];
    const outer = [`cv_n AS n`, `cv_s AS s`];
    for (let j = 0; j < d; j++) outer.push(`cv_as[${j + 1}] AS a_${j}`);
    if (scale) {
      inner.push(`sum(cv_at) AS cv_ats`);
      outer.push(`cv_ats AS a_${d}`);
    }
    if (hessian) {
      // Two arrays of the pairs (x_j, x_l), j ≤ l: a lambda that indexed cv_xs
      // would copy the whole array into every element, d(d+1)/2 times a row.
      const js: string[] = [], ls: string[] = [];
      for (let j = 0; j < d; j++) {
        for (let l = j; l < d; l++) {
          outer.push(`cv_bs[${js.length + 1}] AS b_${j}_${l}`);
          js.push(x(j));
          ls.push(x(l));
        }
      }
      inner.push(
        `sumForEach(arrayMap((cv_p, cv_q) -> cv_b * cv_p * cv_q, [${js.join(", ")}], [${
          ls.join(", ")
        }])) AS cv_bs`,
      );
      if (scale) {
        inner.push(
          `sumForEach(arrayMap(cv_v -> cv_bt * cv_v, cv_xs)) AS cv_bts`,
          `sum(cv_btt) AS cv_btts`,
        );
        for (let j = 0; j < d; j++) outer.push(`cv_bts[${j + 1}] AS b_${j}_${d}`);
        outer.push(`cv_btts AS b_${d}_${d}`);
      }
    }
    return `SELECT ${outer.join(", ")}
FROM (
  WITH ${withs.join(",\n    ")}
  SELECT ${inner.join(",\n    ")}
  FROM ${o.from}
)
`;
  }
  // Rows with a NULL in X or y have a NULL ℓ, which SUM skips while COUNT(*)
  // counts them: "n_nonnull" lets an engine adapter say so.
  sums.splice(1, 0, `COUNT(cv_ll) AS n_nonnull`);
  // PostgreSQL inlines a CTE referenced once, so each of the d(d+3)/2 sums
  // would recompute η and the row's terms: MATERIALIZED evaluates them once.
  const mat = dialect === "postgres" ? " MATERIALIZED" : "";
  return `WITH cv_rows_x AS (
  SELECT ${cols.join(",\n    ")}
  FROM ${o.from}
), cv_rows_eta AS (
  SELECT ${xs}, cv_y${lf},
    ${eta} AS cv_eta
  FROM cv_rows_x
), cv_rows_e AS (
  SELECT ${xs}, cv_y${lf}, cv_eta, ${eExpr} AS cv_e
  FROM cv_rows_eta
), cv_rows_terms AS${mat} (
  SELECT ${xs},
    ${perRow}
  FROM cv_rows_e
)
SELECT ${sums.join(",\n  ")}
FROM cv_rows_terms
`;
}

/** A table (`name` or `[schema, name]`) or a query whose rows are the data. */
export type SqlSource = { table: string | readonly [string, string] } | { sql: string };

/**
 * The FROM clause of a {@link SqlSource} in a dialect: the table's quoted
 * (schema-qualified) name, or the query in parentheses (with `alias` when the
 * engine needs a subquery named).
 *
 * @param source The table or the query.
 * @param dialect How identifiers are quoted.
 * @param alias The subquery's name, for engines that require one.
 * @returns The text to put after FROM.
 * @throws {TypeError} When the source is neither.
 *
 * @example
 * ```ts
 * import { sqlFromClause } from "./control_variate_sql.ts";
 * if (sqlFromClause({ table: ["s", "t"] }, "postgres") !== '"s"."t"') throw new Error();
 * ```
 */
export function sqlFromClause(source: SqlSource, dialect: SqlDialect, alias?: string): string {
  if (source === null || typeof source !== "object") {
    throw new TypeError(`source must be { table } or { sql }, got ${source}`);
  }
  if ("table" in source) {
    const t = source.table;
    return typeof t === "string"
      ? quoteIdentifier(t, dialect)
      : t.map((s) => quoteIdentifier(s, dialect)).join(".");
  }
  if ("sql" in source && typeof source.sql === "string" && source.sql.trim() !== "") {
    return alias === undefined ? `(${source.sql})` : `(${source.sql}) AS ${alias}`;
  }
  throw new TypeError(
    `source must be { table: name } or { sql: "SELECT …" }, got keys ${
      Object.keys(source).join(", ") || "none"
    }`,
  );
}
