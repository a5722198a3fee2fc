/**
 * `tallmc centring-sql`: print the SQL whose one result row holds HMC-ECS's
 * centring sums (S, A, B at θ*) — or, with `--no-hessian`, the log
 * likelihood and gradient at θ for a Newton step — for any SQL engine
 * (Spark SQL, Trino, BigQuery, DuckDB, PostgreSQL). The engine scans the
 * data where they live; the row is read back with
 * `parseControlVariateSums` and handed to HMC-ECS on one machine.
 *
 * References: Dang et al. (2019), eqs. 11 and 14; README, "Centring where
 * the data live".
 *
 * @module
 */
import {
  controlVariateSql,
  type ControlVariateSqlOptions,
  logLikelihoodSql,
  type SqlDialect,
  type SqlGlmFamily,
} from "../engines/control_variate_sql.ts";
import { CliUsageError, parseFlags } from "./args.ts";

/** The `centring-sql --help` text. */
export const CENTRING_SQL_HELP =
  `Usage: tallmc centring-sql --family F --columns x1,x2,… --response y --from TABLE
                           --theta t0,t1,… [--intercept] [--sigma S] [--no-hessian]
                           [--dialect ansi|postgres|spark|bigquery] [--log-factorial COL]

Print one SQL query whose single result row holds the control-variate sums of
HMC-ECS at theta: n, s = sum of l_k, a_j = sum of a_k x_kj and b_j_l = sum of
b_k x_kj x_kl (j <= l), for the families whose control variates are
expansions in eta = x'theta. Run it on the engine that holds the data.

Options:
  --family F      logistic, poisson or gaussian (needs --sigma)
  --columns LIST  comma-separated column names of X, in the order of theta
  --response Y    column name of y
  --from EXPR     table expression after FROM, copied as given
                  (e.g. sales.rows, "my table", read_parquet('x/*.parquet'))
  --theta LIST    comma-separated theta (with the intercept first if --intercept)
  --intercept     theta[0] is an intercept (a column of ones)
  --sigma S       known residual sd of the gaussian family
  --no-hessian    only n, s and a_j (log likelihood and gradient)
  --dialect D     ansi ("name", DOUBLE: DuckDB, Trino; default), postgres
                  (DOUBLE PRECISION), spark (\`name\`) or bigquery (\`name\`, FLOAT64)
  --log-factorial COL  poisson: a column holding ln(y!), instead of LGAMMA(y + 1)
                  (for engines without LGAMMA: Spark SQL, Trino)
  -h, --help      this help`;

/**
 * Run `tallmc centring-sql`: print the query to stdout.
 *
 * @param args The arguments after `centring-sql`.
 * @returns The exit code (0).
 * @throws {CliUsageError} For missing or malformed flags (exit code 2).
 */
export function centringSqlCommand(args: string[]): number {
  const { values } = parseFlags("centring-sql", args, {
    flags: {
      family: { type: "string" },
      columns: { type: "string" },
      response: { type: "string" },
      from: { type: "string" },
      theta: { type: "string" },
      intercept: { type: "boolean" },
      sigma: { type: "string" },
      "no-hessian": { type: "boolean" },
      dialect: { type: "string" },
      "log-factorial": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(CENTRING_SQL_HELP);
    return 0;
  }
  const need = (name: string): string => {
    const v = values[name];
    if (typeof v !== "string" || v === "") {
      throw new CliUsageError(`centring-sql needs --${name} (see tallmc centring-sql --help)`);
    }
    return v;
  };
  const number = (s: string, flag: string): number => {
    const x = Number(s.trim());
    if (s.trim() === "" || !Number.isFinite(x)) {
      throw new CliUsageError(`--${flag} must be finite numbers, got ${JSON.stringify(s)}`);
    }
    return x;
  };
  const options: ControlVariateSqlOptions = {
    family: need("family") as SqlGlmFamily,
    columns: need("columns").split(",").map((c) => c.trim()),
    response: need("response"),
    from: need("from"),
    theta: need("theta").split(",").map((t) => number(t, "theta")),
    intercept: values.intercept === true,
  };
  if (typeof values["log-factorial"] === "string") {
    options.logFactorialColumn = values["log-factorial"];
  }
  if (values.dialect !== undefined) options.dialect = values.dialect as SqlDialect;
  if (values.sigma !== undefined) options.sigma = number(String(values.sigma), "sigma");
  console.log(values["no-hessian"] ? logLikelihoodSql(options) : controlVariateSql(options));
  return 0;
}
