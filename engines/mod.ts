/**
 * The full-data sums of HMC-ECS's centring (n, Σℓₖ, Σ∇ℓₖ, Σ∇²ℓₖ at θ*) and
 * the log likelihood, as SQL text that any engine runs where the data live:
 * {@link controlVariateSql}, {@link logLikelihoodSql}, and
 * {@link parseControlVariateSums} to read the result row back. An embedded
 * DuckDB that runs them over Parquet files or a database is a separate entry
 * point, `engines/duckdb.ts`, so that importing this module loads no native
 * code.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { controlVariateSql } from "./mod.ts";
 * const sql = controlVariateSql({
 *   family: "logistic", columns: ["x1"], response: "y", from: '"t"',
 *   theta: [0.5, -0.25], intercept: true,
 * });
 * assert.ok(sql.includes("SUM(cv_b * cv_x_1 * cv_x_1) AS b_1_1"));
 * ```
 *
 * @module
 */
export * from "./control_variate_sql.ts";
