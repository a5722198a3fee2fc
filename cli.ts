/**
 * The tallmc command line: `sample`, `summary` and `replicate`.
 *
 * Argument parsing, progress and files only; the statistics live in the
 * modules it calls.
 *
 * ```sh
 * deno task cli sample --family logistic --data my.csv --response y --out draws.csv
 * deno task cli summary draws.csv
 * deno task cli replicate --quick
 * ```
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { loadCore } from "./core/load.ts";
import { loadCsvToArena } from "./data/csv.ts";
import { type DrawsTable, formatDrawsCsv, parseDrawsCsv } from "./data/draws_csv.ts";
import { formatSummaryTable, summarize, summaryToCsv } from "./diagnostics/summary.ts";
import { type GlmFamily, GlmModel } from "./models/glm.ts";
import { runReplicate } from "./replicate/main.ts";
import type { SamplingResult } from "./samplers/driver.ts";
import { runHmc } from "./samplers/run_hmc.ts";
import { runRwmh } from "./samplers/run_rwmh.ts";
import { CLI_SAMPLERS, runCliSampler } from "./samplers/cli_samplers.ts";

/** An error in the command line itself (exit code 2). */
export class CliUsageError extends Error {
  override name = "CliUsageError";
}

const _MAIN_HELP = `tallmc — scalable Bayesian MCMC for tall data

Usage: tallmc <command> [options]

Commands:
  sample      draw from a GLM posterior given a CSV data file
  summary     summarise a draws CSV (mean, sd, quantiles, ESS bulk/tail, R-hat, MCSE)
  replicate   regenerate the papers' tables and figures (same as deno task replicate)

Run "tallmc <command> --help" for a command's options.`;

const _SAMPLE_HELP = `Usage: tallmc sample --family F --data FILE.csv --response COL [options]

Draw from the posterior of a GLM with independent Gaussian priors.

Required:
  --family F          logistic | gaussian | poisson
  --data FILE         CSV file with a header row (numeric cells only)
  --response COL      name of the response column

Options:
  --sampler S         ${["hmc", "rwmh", ...CLI_SAMPLERS].join(" | ")} (default hmc)
  --samples N         draws per chain after warmup (default 1000)
  --warmup N          warmup iterations per chain (default 1000)
  --chains N          number of chains (default 4)
  --seed N            random seed (default 1)
  --out FILE          write the draws as CSV (chain,iteration,params…)
  --sigma S           known residual sd (required for --family gaussian)
  --prior-scale S     prior sd of every coefficient (default 10)
  --metric M          HMC metric: identity | diagonal | dense | hessian (default diagonal)
  --columns A,B,…     covariates to use (default: all but the response)
  --no-intercept      do not prepend an intercept column
  --f32               store X as f32 (half the memory; f64 accumulation)
  --thin N            keep every N-th draw (default 1)

  Subsampling samplers (hmc-ecs, hmc-ecs-signed, sgld, sghmc, sgnht, ccadl):
  --cv-order K        Taylor order of the control variates: 0 | 1 | 2 | none (default 2)
  --step-size E       step size (required for sgld, sghmc, sgnht, ccadl)
  --batch-size M      minibatch size of the stochastic-gradient samplers
                      (default max(100, n/100))
  --num-steps L       leapfrog steps per SG-HMC iteration (default 1)
  --friction C        friction of SG-HMC, SGNHT and CCAdL (default 1)
                      (SGNHT and CCAdL thermostats relax slowly: a burn-in of
                      several thousand iterations is usually needed)
  --quiet             no progress bar
  -h, --help          this help`;

const _SUMMARY_HELP = `Usage: tallmc summary DRAWS.csv [--csv] [--digits N]

Summarise a draws file written by "tallmc sample": per parameter the mean, sd,
5/50/95 % quantiles, bulk and tail ESS, rank-normalised split R-hat and the
MCSE of the mean. A "sign" column (signed HMC-ECS) is reported separately.

Options:
  --csv        print the table as CSV
  --digits N   significant digits (default 3)
  -h, --help   this help`;

function _int(value: string | undefined, name: string, def: number, min: number): number {
  if (value === undefined) return def;
  const v = Number(value);
  if (!Number.isInteger(v) || v < min) {
    throw new CliUsageError(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(value)}`);
  }
  return v;
}

function _num(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const v = Number(value);
  if (!Number.isFinite(v) || v <= 0) {
    throw new CliUsageError(`--${name} must be a positive number, got ${JSON.stringify(value)}`);
  }
  return v;
}

function _parse(args: string[], options: NonNullable<ParseArgsConfig["options"]>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    const msg = (e as Error).message;
    const ambiguous = /^Option '(--[\w-]+)' argument is ambiguous/.exec(msg);
    throw new CliUsageError(
      ambiguous
        ? `${ambiguous[1]} was given a value starting with "-"; write ${ambiguous[1]}=VALUE`
        : msg,
    );
  }
}

/** A progress bar on stderr (a line per 10 % when stderr is not a terminal). */
function _progress(label: string, quiet: boolean) {
  const tty = Deno.stderr.isTerminal();
  const enc = new TextEncoder();
  let lastPct = -1;
  const t0 = performance.now();
  return {
    update(done: number, total: number) {
      if (quiet || total <= 0) return;
      const pct = Math.floor((100 * done) / total);
      if (pct === lastPct || (!tty && pct % 10 !== 0)) return;
      lastPct = pct;
      const width = 30, filled = Math.round((width * done) / total);
      const secs = ((performance.now() - t0) / 1000).toFixed(1);
      const bar = `${label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${pct}% ${secs}s`;
      Deno.stderr.writeSync(enc.encode(tty ? `\r${bar}` : `${bar}\n`));
    },
    done() {
      if (!quiet && tty) Deno.stderr.writeSync(enc.encode("\n"));
    },
  };
}

async function _sample(args: string[]): Promise<number> {
  const { values } = _parse(args, {
    family: { type: "string" },
    data: { type: "string" },
    response: { type: "string" },
    sampler: { type: "string", default: "hmc" },
    samples: { type: "string" },
    warmup: { type: "string" },
    chains: { type: "string" },
    seed: { type: "string" },
    out: { type: "string" },
    sigma: { type: "string" },
    "prior-scale": { type: "string" },
    metric: { type: "string" },
    columns: { type: "string" },
    "no-intercept": { type: "boolean" },
    f32: { type: "boolean" },
    thin: { type: "string" },
    "cv-order": { type: "string" },
    "step-size": { type: "string" },
    "batch-size": { type: "string" },
    "num-steps": { type: "string" },
    friction: { type: "string" },
    quiet: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(_SAMPLE_HELP);
    return 0;
  }
  for (const req of ["family", "data", "response"] as const) {
    if (values[req] === undefined) {
      throw new CliUsageError(`sample needs --${req} (see sample --help)`);
    }
  }
  const family = values.family as string;
  if (!["logistic", "gaussian", "poisson"].includes(family)) {
    throw new CliUsageError(
      `--family must be logistic, gaussian or poisson, got ${JSON.stringify(family)}`,
    );
  }
  const sampler = values.sampler as string;
  const allSamplers = ["hmc", "rwmh", ...CLI_SAMPLERS];
  if (!allSamplers.includes(sampler)) {
    throw new CliUsageError(
      `--sampler must be one of ${allSamplers.join(", ")}; got ${JSON.stringify(sampler)}`,
    );
  }
  const metric = (values.metric as string | undefined) ?? "diagonal";
  if (!["identity", "diagonal", "dense", "hessian"].includes(metric)) {
    throw new CliUsageError(
      `--metric must be identity, diagonal, dense or hessian, got ${JSON.stringify(metric)}`,
    );
  }
  const numSamples = _int(values.samples as string | undefined, "samples", 1000, 1);
  const numWarmup = _int(values.warmup as string | undefined, "warmup", 1000, 0);
  const numChains = _int(values.chains as string | undefined, "chains", 4, 1);
  const seed = _int(values.seed as string | undefined, "seed", 1, 0);
  const thin = _int(values.thin as string | undefined, "thin", 1, 1);
  const sigma = _num(values.sigma as string | undefined, "sigma");
  const priorScale = _num(values["prior-scale"] as string | undefined, "prior-scale") ?? 10;
  if (family === "gaussian" && sigma === undefined) {
    throw new CliUsageError("--family gaussian needs --sigma (the known residual sd)");
  }

  const arena = loadCore();
  const data = await loadCsvToArena(arena, values.data as string, {
    response: values.response as string,
    family: family as GlmFamily,
    intercept: !values["no-intercept"],
    columns: values.columns
      ? (values.columns as string).split(",").map((s) => s.trim())
      : undefined,
    storage: values.f32 ? "f32" : "f64",
  });
  const model = new GlmModel(data, { family: family as GlmFamily, sigma, priorScale });
  const bar = _progress(sampler, Boolean(values.quiet));
  const onProgress = (chain: number, it: number, total: number) =>
    bar.update(chain * total + it, numChains * total);
  const common = { numSamples, numWarmup, numChains, seed, thin, onProgress };
  let result: SamplingResult;
  let extra: DrawsTable["extra"] = {};
  if (sampler === "hmc") {
    result = runHmc(model, {
      ...common,
      metric: metric as "identity" | "diagonal" | "dense" | "hessian",
    });
  } else if (sampler === "rwmh") {
    result = runRwmh(model, common);
  } else {
    const cvOrder = (values["cv-order"] as string | undefined) ?? "2";
    if (!["0", "1", "2", "none"].includes(cvOrder)) {
      throw new CliUsageError(`--cv-order must be 0, 1, 2 or none, got ${JSON.stringify(cvOrder)}`);
    }
    const batch = values["batch-size"] as string | undefined;
    const steps = values["num-steps"] as string | undefined;
    const out = runCliSampler(sampler, model, {
      ...common,
      controlVariates: cvOrder === "none" ? "none" : (Number(cvOrder) as 0 | 1 | 2),
      stepSize: _num(values["step-size"] as string | undefined, "step-size"),
      batchSize: batch === undefined ? undefined : _int(batch, "batch-size", 0, 2),
      numIntegrationSteps: steps === undefined ? undefined : _int(steps, "num-steps", 1, 1),
      friction: _num(values.friction as string | undefined, "friction"),
    });
    result = out.result;
    extra = out.extra;
  }
  bar.done();
  const rows = summarize(result.draws, result.parameterNames);
  console.log(
    `${sampler}: ${numChains} chain(s) × ${result.numDraws} draws, n = ${model.numRows}, d = ${model.dim}, backend ${arena.backend}`,
  );
  console.log(formatSummaryTable(rows));
  if (values.out) {
    await Deno.writeTextFile(
      values.out as string,
      formatDrawsCsv({ parameterNames: result.parameterNames, draws: result.draws, extra }),
    );
    console.log(`draws written to ${values.out}`);
  }
  return 0;
}

async function _summary(args: string[]): Promise<number> {
  const { values, positionals } = _parse(args, {
    csv: { type: "boolean" },
    digits: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(_SUMMARY_HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new CliUsageError(`summary needs exactly one draws file, got ${positionals.length}`);
  }
  const digits = _int(values.digits as string | undefined, "digits", 3, 0);
  const path = positionals[0];
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as Error).message}`);
  }
  const table = parseDrawsCsv(text);
  const rows = summarize(table.draws, table.parameterNames);
  console.log(values.csv ? summaryToCsv(rows) : formatSummaryTable(rows, { digits }));
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
 * @returns The process exit code (0 success, 1 failure, 2 usage error).
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
        return await _sample(rest);
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
    return e instanceof CliUsageError ? 2 : 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
