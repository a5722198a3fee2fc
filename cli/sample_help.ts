/**
 * The `tallmc sample --help` text: the common flags, the family and model
 * flags, the run checks, and every registered sampler with its own flags,
 * ranges and defaults read from the registry.
 *
 * @module
 */
import { getSampler, samplerNames } from "../samplers/registry.ts";
import { RAMP_SECONDS } from "../samplers/parallel.ts";
import { familyFlagsHelp, modelFlagsHelp } from "./model_help.ts";
import { runCheckHelp } from "./verdict_print.ts";

/**
 * The `sample --help` text, with the samplers and their options read from
 * the registry.
 *
 * @returns The help text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sampleHelp } from "./sample_help.ts";
 * assert.match(sampleHelp(), /--sampler S +hmc \| nuts \| rwmh \| sgld/);
 * assert.match(sampleHelp(), /--num-steps/);
 * ```
 */
export function sampleHelp(): string {
  const lines = [
    "Usage: tallmc sample --family F --data FILE.csv --response COL [options]",
    "       tallmc sample --family-source FAMILY.ts --data FILE.csv --response COL [options]",
    "",
    "Draw from the posterior of a GLM.",
    "",
    "Required:",
    "  --family F          logistic | gaussian | poisson | student-t | negative-binomial | binomial",
    "                      (see Families below)",
    "  --family-source FILE.ts",
    "                      instead of --family: a family written in AssemblyScript that",
    "                      defines logLik(eta: f64, y: f64): f64, dLogLik and d2LogLik",
    "                      (ℓ of one row at η = xᵀθ, dℓ/dη, d²ℓ/dη²); compiled when the run",
    "                      starts (seconds), a compile error shown as FILE:LINE:COLUMN.",
    "                      Every parameter is a column's coefficient (--prior-scale, --prior,",
    "                      --formula apply); not with --offset, --trials, --success, --sigma,",
    "                      --nu, --prior-aux or --f32",
    "  --data FILE         CSV file with a header row, or a .parquet file: numbers, a",
    "                      two-level text response, text columns with --formula; or a",
    "                      table: postgres://user@host:port/db?table=T[&key=COL] or",
    "                      clickhouse://user@host:http_port/db?table=T[&key=COL] (password",
    "                      from PGPASSWORD / CLICKHOUSE_PASSWORD; needs --allow-net), or",
    "                      duckdb:FILE.duckdb?table=T[&key=COL] (FILE.duckdb?… too; opened",
    "                      read-only; DuckDB's addon needs --allow-ffi). With --sampler",
    "                      hmc-ecs and &key=COL (integers 0…n−1 or base…base+n−1) the rows",
    "                      stay in the database: fetched by key, one centring in SQL shared",
    "                      by every chain; otherwise the table is read into this process.",
    "                      Or a row store FILE.rows (tallmc convert … FILE.rows): its rows",
    "                      stay in the file, streamed by --workers shard workers at each",
    "                      full-data pass (chains in this thread), so n × d may exceed the",
    "                      4 GiB one process's WebAssembly memory holds; with --sampler",
    "                      hmc-ecs only the centring's passes read every row",
    "  --response COL      name of the response column",
    "",
    "Options:",
    `  --sampler S         ${samplerNames().join(" | ")} (default hmc)`,
    "  --samples N         draws per chain after warmup (default 1000)",
    "  --warmup N          warmup iterations per chain (default 1000; burn-in for SG samplers)",
    "  --chains N          number of chains (default 4)",
    "  --workers N         run chains in up to N workers over one shared copy of the data",
    "                      (default: one per core, at most one per chain; 0 = this thread).",
    "                      The chains start on one worker fewer than there are cores (at least",
    `                      one) and add workers while the run has over ${RAMP_SECONDS} s left at its rate;`,
    "                      draws are identical for every N",
    "  --seed N            random seed (default 1)",
    "  --out FILE          draws as CSV (.chain,.iteration,.draw,params…, 1-based), written as",
    "                      they are made beside FILE and renamed to it when the run ends or is stopped;",
    "                      σ and φ as log_sigma and log_phi (the summary adds sigma and phi)",
    "  --format F          tallmc (default) | cmdstan: CmdStan's CSV, one file per chain",
    "                      (--out draws.csv → draws_1.csv, draws_2.csv, …); docs/draws_format.md",
    "  --columns A,B,…     covariates to use (default: all but the response)",
    "  --no-intercept      do not prepend an intercept column",
    "  --f32               store X as f32 (half the memory; f64 accumulation)",
    "  --thin N            keep every N-th draw (default 1)",
    "  --quiet             no progress bar",
    "  -h, --help          this help",
    ...familyFlagsHelp(),
    ...modelFlagsHelp(),
    ...runCheckHelp(),
  ];
  for (const name of samplerNames()) {
    const d = getSampler(name);
    lines.push("", `Sampler ${name}: ${d.summary}${d.isExact ? "" : " [approximate]"}`);
    lines.push(`  (${d.references})`);
    for (const o of d.options ?? []) {
      const arg = o.type === "boolean"
        ? "yes|no"
        : o.type === "choice"
        ? (o.choices ?? []).join("|")
        : o.type === "integer"
        ? "N"
        : "X";
      const flag = `  --${o.flag} ${arg}`, indent = " ".repeat(22);
      lines.push(flag.length < 22 ? flag.padEnd(22) + o.help : `${flag}\n${indent}${o.help}`);
      lines.push(`${indent}default: ${o.default}`);
    }
  }
  lines.push(
    "",
    "Exit codes: 0 ok; 2 bad flags or data, a chain stopped early (its draws before",
    "the stop are in --out) or a full disk (the whole rows on disk are kept and counted);",
    "3 with --strict when the verdict fails;",
    "130 / 143 on SIGINT / SIGTERM (every draw made is kept; the counts are printed).",
    "Divergent transitions are counted and reported, as in Stan.",
  );
  return lines.join("\n");
}
