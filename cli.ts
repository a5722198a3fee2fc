/**
 * The tallmc command line: `sample`, `summary`, `check`, `compare`,
 * `convert`, `replicate` and `centring-sql`.
 *
 * Dispatch only; each command lives in `cli/` (argument handling, the draws
 * writer, the sample command whose samplers and flags come from the sampler
 * registry) and the statistics in the modules those call. A command's
 * modules are imported when it runs, so that `sample` does not load, e.g.,
 * the replication's experiments or the plotting library of `check`.
 *
 * ```sh
 * deno task cli sample --family logistic --data my.csv --response y --out draws.csv
 * deno task cli summary draws.csv
 * deno task cli check draws.csv --family logistic --data my.csv --response y --plots figs
 * deno task cli convert my.csv my.parquet --response y
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
import { CliUsageError, processExit } from "./cli/args.ts";
import { startEarlyPassWorker } from "./models/_early_pass_worker.ts";

export { CliUsageError };

const _MAIN_HELP = `tallmc — scalable Bayesian MCMC for tall data

Usage: tallmc <command> [options]

Commands:
  sample        draw from a GLM posterior given a CSV or Parquet data file
  summary       summarise draws CSVs: tallmc's, plain or CmdStan's (mean, sd, quantiles,
                ESS bulk/tail, R-hat, MCSE; --basic for the classic ESS and R-hat)
  check         posterior predictive checks of draws against their data (p-values of
                mean, sd, zeros, ones, max; --plots DIR for density, calibration, rootogram)
  compare       rank models by PSIS-LOO (subsampled on tall data): elpd differences and SEs
  convert       convert a numeric table between CSV and Parquet, or to a row store (.rows)
  replicate     regenerate the papers' tables and figures (same as deno task replicate)
  centring-sql  print the SQL of HMC-ECS's full-data centring sums, for any SQL engine

Run "tallmc <command> --help" for a command's options.`;

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
        // The help needs the registry's flags, not the readers, core and workers.
        if (rest.some((a) => a === "--help" || a === "-h")) {
          console.log((await import("./cli/sample_help.ts")).sampleHelp());
          return 0;
        }
        {
          // It becomes one of the chain workers once the centring is done. The
          // command's modules are asked for first: `new Worker` blocks this
          // thread until the worker's runtime exists, and their loading starts
          // meanwhile.
          const command = import("./cli/sample_command.ts");
          const dropEarly = _sharesCentring(rest) ? startEarlyPassWorker("hmc-ecs") : () => {};
          try {
            return await (await command).sampleCommand(rest);
          } finally {
            dropEarly();
          }
        }
      case "summary":
        return await (await import("./cli/summary_command.ts")).summaryCommand(rest);
      case "check":
        return await (await import("./cli/check_command.ts")).checkCommand(rest);
      case "compare":
        return await (await import("./cli/compare_command.ts")).compareCommand(rest);
      case "convert":
        return await (await import("./cli/convert_command.ts")).convertCommand(rest);
      case "replicate":
        return await (await import("./replicate/main.ts")).runReplicate(rest);
      case "centring-sql":
        return (await import("./cli/centring_sql_command.ts")).centringSqlCommand(rest);
      default:
        throw new CliUsageError(
          `unknown command ${
            JSON.stringify(command)
          }; expected sample, summary, check, compare, convert, replicate or centring-sql`,
        );
    }
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    console.error(`tallmc: error: ${msg.split("\n")[0]}`);
    return _isInputError(e) ? 2 : 1;
  }
}

/**
 * @internal Whether `sample`'s flags, read at a glance, ask for HMC-ECS chains that share
 * one centring on two threads or more (cli/sample_command.ts decides it for
 * certain): then its pass worker starts before the command's modules load.
 * A wrong guess costs a worker that is stopped unused.
 */
export function _sharesCentring(args: readonly string[]): boolean {
  const flag = (name: string): string | undefined => {
    let value: string | undefined;
    for (let i = 0; i < args.length; i++) {
      if (args[i] === `--${name}`) value = args[i + 1];
      else if (args[i].startsWith(`--${name}=`)) value = args[i].slice(name.length + 3);
    }
    return value;
  };
  const atLeastTwo = (v: string | undefined) => v === undefined || Number(v) >= 2;
  const data = flag("data") ?? "";
  return flag("sampler") === "hmc-ecs" && (navigator.hardwareConcurrency ?? 1) >= 2 &&
    atLeastTwo(flag("workers")) && atLeastTwo(flag("chains")) && flag("init") === undefined &&
    flag("family-source") === undefined && !data.includes("://") && !data.startsWith("duckdb:");
}

/** Errors caused by what the user gave: usage, files, and the library's argument checks. */
function _isInputError(e: unknown): boolean {
  return e instanceof CliUsageError || e instanceof RangeError || e instanceof TypeError ||
    e instanceof Deno.errors.NotFound || e instanceof Deno.errors.PermissionDenied ||
    e instanceof Deno.errors.IsADirectory || e instanceof Deno.errors.NotCapable;
}

if (import.meta.main) {
  processExit.afterCommand = true;
  Deno.exit(await main(Deno.args));
}
