/**
 * `tallmc summary`: summarise one or more draws files — tallmc's own, a
 * plain draws CSV, or CmdStan's output CSV (one file per chain) — as R's
 * `posterior` and CmdStan's `stansummary` do.
 *
 * ```
 *  files → parseDrawsCsv(texts, {sources}) → summarize(draws, names, {signs})
 *        → table (stdout) → signs, divergent__ counts, warnings (stderr)
 * ```
 *
 * Signed HMC-ECS draws (a `sign` column) get the sign-corrected mean and sd
 * (Dang et al. 2019, eq. 17), and the table says so. `--basic` adds the
 * classic split-chain ESS and R̂ and the MCSE of the 5 % and 95 % quantiles.
 *
 * References: Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021);
 * Dang, Quiroz, Kohn, Tran & Villani (2019), eq. 17.
 *
 * @module
 */
import { essBasic } from "../diagnostics/ess.ts";
import { mcseQuantile } from "../diagnostics/mcse.ts";
import { rhatBasic } from "../diagnostics/rhat.ts";
import { summarize, summaryToCsv } from "../diagnostics/summary.ts";
import { CliUsageError, intFlag, parseFlags, resolveUserPath } from "./args.ts";
import type { DrawsTable } from "../data/draws_csv.ts";
import { readDrawsFiles } from "./draws_files.ts";
import { isSameFile } from "./safe_output.ts";
import {
  type BasicColumns,
  formatSummary,
  summaryWarnings,
  withNaturalScales,
} from "./summary_table.ts";

/** The `summary --help` text. */
export const SUMMARY_HELP =
  `Usage: tallmc summary DRAWS.csv [MORE.csv …] [--csv] [--digits N] [--basic]

Summarise draws: per parameter the mean, sd, 5/50/95 % quantiles, bulk and
tail ESS, rank-normalised split R-hat and the MCSE of the mean, with a warning
for every parameter whose diagnostics call for one (R-hat > 1.01, ESS below
100 per chain, NA values and why).

Reads the draws files "tallmc sample" writes, a plain draws CSV (one column
per parameter, optional chain column) and CmdStan's output CSV; several files
(CmdStan writes one per chain) are read as consecutive chains. The file of an
interrupted run is read with a warning: a last row cut mid-way is dropped and
chains of unequal length are cut to the shortest. A data file (whole-number
columns), a binary file (Parquet, a row store) or one file given twice is
refused. CmdStan's
divergent__ transitions are counted. Signed HMC-ECS draws (a "sign" column)
get the sign-corrected mean and sd (Dang et al. 2019, eq. 17). A log_sigma or
log_phi column (σ, φ sampled on the log scale) gets a sigma or phi row too:
the same draws on their natural scale.

Options:
  --csv        print the table as CSV
  --digits N   significant digits, as R and CmdStan's stansummary (default 3)
  --basic      also the classic split-chain ESS and R-hat (ess_basic, rhat_basic)
               and the MCSE of the 5 % and 95 % quantiles
  -h, --help   this help`;

function _basicColumns(chains: readonly Float64Array[]): BasicColumns {
  const safe = (f: () => number): number => {
    try {
      return f();
    } catch {
      return NaN; // too few draws: NA, as the other diagnostics
    }
  };
  return {
    essBasic: safe(() => essBasic(chains)),
    rhatBasic: safe(() => rhatBasic(chains)),
    mcseQ5: safe(() => mcseQuantile(chains, 0.05)),
    mcseQ95: safe(() => mcseQuantile(chains, 0.95)),
  };
}

/**
 * Run `tallmc summary`.
 *
 * @param args The arguments after `summary`.
 * @returns The exit code (0).
 * @throws {CliUsageError} For bad flags or unreadable or malformed files (exit code 2).
 */
export async function summaryCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags("summary", args, {
    flags: {
      csv: { type: "boolean" },
      digits: { type: "string" },
      basic: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    maxPositionals: Infinity,
  });
  if (values.help) {
    console.log(SUMMARY_HELP);
    return 0;
  }
  if (positionals.length === 0) {
    throw new CliUsageError("summary needs at least one draws file (see tallmc summary --help)");
  }
  const digits = intFlag(values.digits, { flag: "digits", default: 3, min: 1, max: 17 });
  const paths = positionals.map(resolveUserPath);
  // One file given twice (or through a link) would count its draws as two chains.
  for (let i = 0; i < paths.length; i++) {
    for (let j = 0; j < i; j++) {
      if (paths[i] === paths[j] || isSameFile(paths[i], paths[j])) {
        throw new CliUsageError(
          `${paths[i]} is given twice (the same file as ${paths[j]}, compared by device and ` +
            `inode): its draws would count as two chains; give each draws file once`,
        );
      }
    }
  }
  const table = await readDrawsFiles(paths, {
    binaryHint: "; summary reads the --out file of tallmc sample, a plain draws CSV or CmdStan's " +
      "output CSV",
  });
  const dataColumn = _dataLikeColumn(table);
  if (dataColumn !== null) {
    throw new CliUsageError(
      `${paths[0]} looks like a data file, not draws: ${dataColumn}; summary reads the ` +
        `--out file of tallmc sample (give a data file to "tallmc sample --data")`,
    );
  }
  for (const w of table.warnings ?? []) console.error(`tallmc: warning: ${w}`);
  const signs = table.extra.sign;
  const { draws, names } = withNaturalScales(table.draws, table.parameterNames);
  const rows = summarize(draws, names, signs ? { signs } : {});
  const basic = values.basic
    ? names.map((_, j) => _basicColumns(draws.map((c) => c[j])))
    : undefined;
  console.log(values.csv ? _csv(rows, basic) : formatSummary(rows, digits, { basic }));
  if (signs) {
    let pos = 0, all = 0;
    for (const s of signs) for (const v of s) (all++, pos += v > 0 ? 1 : 0);
    console.log(
      `mean and sd are sign-corrected (Dang et al. 2019, eq. 17): ${pos} of ${all} draws ` +
        `have a positive sign (τ̂ = ${(pos / all).toFixed(4)}); the quantiles, ESS and R-hat ` +
        `describe the draws as they are`,
    );
  }
  const divergent = table.extra.divergent__;
  if (divergent) {
    let k = 0, all = 0;
    for (const c of divergent) for (const v of c) (all++, k += v > 0 ? 1 : 0);
    const line = `${k} of ${all} (${(100 * k / all).toFixed(1)}%) transitions ended with a ` +
      `divergence (CmdStan's divergent__)`;
    if (k > 0) console.error(`tallmc: warning: ${line}; the draws may be biased`);
    else console.log(line);
  }
  for (const w of summaryWarnings(rows, { numChains: table.draws.length })) {
    console.error(`tallmc: warning: ${w}`);
  }
  return 0;
}

/**
 * A column of a plain table (no chain or iteration column) whose values
 * are all whole numbers, with at least two distinct values: a response or a
 * count covariate, which draws of continuous parameters never are. Returns
 * its description, or null.
 */
function _dataLikeColumn(table: DrawsTable): string | null {
  if (table.format !== "plain" || table.draws.length !== 1) return null;
  const chain = table.draws[0];
  for (let j = 0; j < chain.length; j++) {
    const v = chain[j];
    if (v.length < 2) continue;
    const seen = new Set<number>();
    let whole = true;
    for (let i = 0; i < v.length && whole; i++) {
      whole = Number.isInteger(v[i]);
      if (seen.size < 3) seen.add(v[i]);
    }
    if (whole && seen.size >= 2) {
      const shown = [...seen].sort((a, b) => a - b).slice(0, 2).join(", ");
      return `column ${JSON.stringify(table.parameterNames[j])} holds only whole numbers (${shown}${
        seen.size > 2 ? ", …" : ""
      }) in all ${v.length} rows, as a response or a count does and posterior draws never do`;
    }
  }
  return null;
}

function _csv(rows: Parameters<typeof summaryToCsv>[0], basic?: BasicColumns[]): string {
  const text = summaryToCsv(rows);
  if (basic === undefined) return text;
  const lines = text.replace(/\n$/, "").split("\n");
  const keys = ["essBasic", "rhatBasic", "mcseQ5", "mcseQ95"] as const;
  lines[0] += ",ess_basic,rhat_basic,mcse_q5,mcse_q95";
  for (let i = 1; i < lines.length; i++) {
    lines[i] += "," + keys.map((k) => String(basic[i - 1][k])).join(",");
  }
  return lines.join("\n") + (text.endsWith("\n") ? "\n" : "");
}
