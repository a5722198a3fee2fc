/**
 * The tallmc command line: `sample`, `summary` and `replicate`.
 *
 * Dispatch only; each command lives in `cli/` (argument handling, the draws
 * writer, the sample command whose samplers and flags come from the sampler
 * registry) and the statistics in the modules those call.
 *
 * ```sh
 * deno task cli sample --family logistic --data my.csv --response y --out draws.csv
 * deno task cli summary draws.csv
 * deno task cli replicate --quick
 * ```
 *
 * Exit codes: 0 success, 2 bad flags or input (or a sampling run whose chain
 * stopped early), 1 an internal failure. Errors print one line, never a
 * stack trace. Relative paths are resolved against the caller's directory
 * (`INIT_CWD` under `deno task`).
 *
 * @module
 */
import { parseDrawsCsv } from "./data/draws_csv.ts";
import { summarize, summaryToCsv } from "./diagnostics/summary.ts";
import { runReplicate } from "./replicate/main.ts";
import { CliUsageError, intFlag, parseFlags, resolveUserPath } from "./cli/args.ts";
import { sampleCommand } from "./cli/sample_command.ts";
import { formatSummary } from "./cli/summary_table.ts";

export { CliUsageError };

const _MAIN_HELP = `tallmc — scalable Bayesian MCMC for tall data

Usage: tallmc <command> [options]

Commands:
  sample      draw from a GLM posterior given a CSV data file
  summary     summarise a draws CSV (mean, sd, quantiles, ESS bulk/tail, R-hat, MCSE)
  replicate   regenerate the papers' tables and figures (same as deno task replicate)

Run "tallmc <command> --help" for a command's options.`;

const _SUMMARY_HELP = `Usage: tallmc summary DRAWS.csv [--csv] [--digits N]

Summarise a draws file written by "tallmc sample": per parameter the mean, sd,
5/50/95 % quantiles, bulk and tail ESS, rank-normalised split R-hat and the
MCSE of the mean. A "sign" column (signed HMC-ECS) is reported separately.

Options:
  --csv        print the table as CSV
  --digits N   significant digits, as R and CmdStan's stansummary (default 3)
  -h, --help   this help`;

async function _summary(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags("summary", args, {
    flags: {
      csv: { type: "boolean" },
      digits: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    maxPositionals: 1,
  });
  if (values.help) {
    console.log(_SUMMARY_HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new CliUsageError(`summary needs exactly one draws file, got ${positionals.length}`);
  }
  const digits = intFlag(values.digits, { flag: "digits", default: 3, min: 1, max: 17 });
  const path = resolveUserPath(positionals[0]);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new CliUsageError(`cannot read ${path}: ${(e as Error).message}`);
  }
  let table;
  try {
    table = parseDrawsCsv(text);
  } catch (e) {
    throw new CliUsageError(`${path}: ${(e as Error).message}`);
  }
  const rows = summarize(table.draws, table.parameterNames);
  console.log(values.csv ? summaryToCsv(rows) : formatSummary(rows, digits));
  const signs = table.extra.sign;
  if (signs) {
    let pos = 0, all = 0;
    for (const s of signs) for (const v of s) (all++, pos += v > 0 ? 1 : 0);
    console.log(`sign: ${pos} of ${all} draws positive (τ̂ = ${(pos / all).toFixed(4)})`);
  }
  return 0;
}

/**
 * Run the command line.
 *
 * @param args The arguments after the program name.
 * @returns The process exit code (0 success, 2 bad flags or input, 1 internal failure).
 */
export async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case undefined:
      case "-h":
      case "--help":
      case "help":
        console.log(_MAIN_HELP);
        return command === undefined ? 2 : 0;
      case "sample":
        return await sampleCommand(rest);
      case "summary":
        return await _summary(rest);
      case "replicate":
        return await runReplicate(rest);
      default:
        throw new CliUsageError(
          `unknown command ${JSON.stringify(command)}; expected sample, summary or replicate`,
        );
    }
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    console.error(`tallmc: error: ${msg.split("\n")[0]}`);
    return _isInputError(e) ? 2 : 1;
  }
}

/** Errors caused by what the user gave: usage, files, and the library's argument checks. */
function _isInputError(e: unknown): boolean {
  return e instanceof CliUsageError || e instanceof RangeError || e instanceof TypeError ||
    e instanceof Deno.errors.NotFound || e instanceof Deno.errors.PermissionDenied ||
    e instanceof Deno.errors.IsADirectory || e instanceof Deno.errors.NotCapable;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
