/**
 * The centring SQL of every dialect parsed by a parser for that dialect
 * (`npm:@guanmingchiu/sqlparser-ts`, the sqlparser-rs parser compiled to
 * WebAssembly): the dialects no server here runs (Spark SQL as Databricks
 * and Hive, BigQuery; Trino has no parser of its own there and is parsed as
 * ANSI) are at least well-formed for their grammar. A parse is not an
 * execution: function names and types are not checked (docs/databases.md).
 */
import assert from "node:assert/strict";
import * as sqlparser from "npm:@guanmingchiu/sqlparser-ts@0.62.0";
import {
  controlVariateSql,
  logLikelihoodSql,
  type SqlDialect,
  type SqlGlmFamily,
} from "../../engines/control_variate_sql.ts";

await sqlparser.init();

const PARSERS: [SqlDialect, string][] = [
  ["spark", "databricks"],
  ["spark", "hive"],
  ["bigquery", "bigquery"],
  ["ansi", "ansi"],
  ["ansi", "duckdb"],
  ["postgres", "postgresql"],
  // Not "clickhouse": sqlparser-rs does not know ClickHouse's `WITH expr AS
  // name` aliases; that dialect runs on a live cluster (tests/engines/clickhouse_test.ts).
];
const FAMILIES: SqlGlmFamily[] = ["logistic", "poisson", "gaussian", "gaussian-scale"];

function sqlFor(dialect: SqlDialect, family: SqlGlmFamily, hessian: boolean): string {
  const from = dialect === "bigquery"
    ? "`project.dataset.rows`"
    : dialect === "spark" || dialect === "clickhouse"
    ? "`rows`"
    : '"rows"';
  const opts = {
    family,
    columns: ["x 1", "(Intercept)", "x-2"],
    response: "y",
    from,
    intercept: true,
    theta: family === "gaussian-scale" ? [0.5, -0.25, 1e-300, 3, -0.1] : [0.5, -0.25, 1e-300, 3],
    dialect,
    ...(family === "gaussian" ? { sigma: 0.7 } : {}),
  };
  return hessian ? controlVariateSql(opts) : logLikelihoodSql(opts);
}

Deno.test("the centring SQL parses in each dialect's grammar", () => {
  for (const [dialect, parser] of PARSERS) {
    for (const family of FAMILIES) {
      for (const hessian of [true, false]) {
        const sql = sqlFor(dialect, family, hessian);
        let ast;
        try {
          ast = sqlparser.parse(sql, parser as never);
        } catch (e) {
          assert.fail(`${dialect} (${parser}), ${family}: ${(e as Error).message}\n${sql}`);
        }
        assert.equal((ast as unknown[]).length, 1, `${dialect} (${parser}): one statement`);
      }
    }
  }
});

Deno.test("the dialect parsers reject malformed SQL (the check above can fail)", () => {
  for (const [dialect, parser] of PARSERS) {
    const sql = sqlFor(dialect, "logistic", true);
    // Drop the closing parenthesis of the first SUM/sum call.
    const broken = sql.replace(/(SUM|sum)\(([^()]*)\)/, "$1($2");
    assert.notEqual(broken, sql);
    assert.throws(() => sqlparser.parse(broken, parser as never), Error, parser);
  }
});
