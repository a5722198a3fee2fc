/**
 * `tallmc sample`: draw from a GLM posterior with any registered sampler.
 *
 * Order of work, so that nothing the user made is lost and bad input fails
 * before any cost: parse and check every flag (the sampler's own flags come
 * from its registry description) → refuse sizes whose memory would not fit →
 * check `--out` is writable → load the data and build the sampler → open
 * `--out` and stream each draw to it as it is made → report divergences and
 * early stops → print the summary (a failure there cannot lose the draws).
 *
 * Exit codes: 0 when every chain ran to the end (divergent transitions, if
 * any, are reported as Stan does), 2 for bad flags or data, or when a chain
 * stopped early (the draws before the stop are in `--out`).
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { summarize } from "../diagnostics/summary.ts";
import type { GlmModel } from "../models/glm.ts";
import { sampleChains, type SamplingResult } from "../samplers/driver.ts";
import { sampleParallel } from "../samplers/parallel.ts";
import { getSampler, samplerNames } from "../samplers/registry.ts";
import type { SamplerDescription, SamplerOption } from "../samplers/sampler.ts";
import {
  CliUsageError,
  type FlagSpec,
  intFlag,
  parseFlags,
  positiveFlag,
  resolveUserPath,
} from "./args.ts";
import { ChainProgress } from "./progress.ts";
import { checkWritable, DrawsFileWriter } from "./draws_writer.ts";
import { formatSummary, summaryWarnings, withNaturalScales } from "./summary_table.ts";
import {
  checkModelFlags,
  FAMILY_OPTION_FLAGS,
  familyFlagsHelp,
  familyFromFlags,
  MODEL_FLAGS,
  modelFlagsHelp,
  modelFromFlags,
} from "./model_options.ts";

/** Memory the per-run arrays may take before a run is refused (2 GiB). */
export const MAX_RUN_BYTES = 2 ** 31;

const _COMMON_FLAGS: FlagSpec = {
  family: { type: "string" },
  data: { type: "string" },
  response: { type: "string" },
  sampler: { type: "string" },
  samples: { type: "string" },
  warmup: { type: "string" },
  chains: { type: "string" },
  seed: { type: "string" },
  out: { type: "string" },
  sigma: { type: "string" },
  "prior-scale": { type: "string" },
  columns: { type: "string" },
  "no-intercept": { type: "boolean" },
  f32: { type: "boolean" },
  thin: { type: "string" },
  workers: { type: "string" },
  quiet: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/** Internal option names → the flags users type, for messages from the library. */
const _COMMON_NAMES: Record<string, string> = {
  numSamples: "--samples",
  numWarmup: "--warmup",
  numChains: "--chains",
  priorScale: "--prior-scale",
  scalePrior: "--prior-aux",
  sigma: "--sigma",
  thin: "--thin",
  workers: "--workers",
};

function _samplerFlags(): Map<string, { option: SamplerOption; samplers: string[] }> {
  const out = new Map<string, { option: SamplerOption; samplers: string[] }>();
  for (const name of samplerNames()) {
    for (const option of getSampler(name).options ?? []) {
      const e = out.get(option.flag);
      if (e === undefined) out.set(option.flag, { option, samplers: [name] });
      else e.samplers.push(name);
    }
  }
  return out;
}

/**
 * The `sample --help` text, with the samplers and their options read from
 * the registry.
 *
 * @returns The help text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sampleHelp } from "./sample_command.ts";
 * assert.match(sampleHelp(), /--sampler S +hmc \| rwmh \| sgld/);
 * assert.match(sampleHelp(), /--num-steps/);
 * ```
 */
export function sampleHelp(): string {
  const lines = [
    "Usage: tallmc sample --family F --data FILE.csv --response COL [options]",
    "",
    "Draw from the posterior of a GLM.",
    "",
    "Required:",
    "  --family F          logistic | gaussian | poisson | student-t | negative-binomial | binomial",
    "                      (see Families below)",
    "  --data FILE         CSV file with a header row, or a .parquet file: numbers, a",
    "                      two-level text response, text columns with --formula",
    "  --response COL      name of the response column",
    "",
    "Options:",
    `  --sampler S         ${samplerNames().join(" | ")} (default hmc)`,
    "  --samples N         draws per chain after warmup (default 1000)",
    "  --warmup N          warmup iterations per chain (default 1000; burn-in for SG samplers)",
    "  --chains N          number of chains (default 4)",
    "  --workers N         run chains in N workers over one shared copy of the data (default:",
    "                      one per core, at most one per chain; 0 = this thread); draws are",
    "                      identical for every N",
    "  --seed N            random seed (default 1)",
    "  --out FILE          draws as CSV (chain,iteration,params…), written as they are made;",
    "                      σ and φ as log_sigma and log_phi (the summary adds sigma and phi)",
    "  --columns A,B,…     covariates to use (default: all but the response)",
    "  --no-intercept      do not prepend an intercept column",
    "  --f32               store X as f32 (half the memory; f64 accumulation)",
    "  --thin N            keep every N-th draw (default 1)",
    "  --quiet             no progress bar",
    "  -h, --help          this help",
    ...familyFlagsHelp(),
    ...modelFlagsHelp(),
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
    "Exit codes: 0 ok; 2 bad flags or data, or a chain stopped early (its draws before",
    "the stop are in --out). Divergent transitions are counted and reported, as in Stan.",
  );
  return lines.join("\n");
}

function _optionValue(o: SamplerOption, raw: string | boolean): unknown {
  const flag = `--${o.flag}`;
  switch (o.type) {
    case "number":
      return positiveFlag(raw, o.flag);
    case "integer":
      return intFlag(raw, { flag: o.flag, default: 0, min: o.min ?? 1 });
    case "boolean":
      if (raw === "yes" || raw === "true") return true;
      if (raw === "no" || raw === "false") return false;
      throw new CliUsageError(`${flag} must be yes or no, got ${JSON.stringify(raw)}`);
    default: {
      const choices = o.choices ?? [];
      if (typeof raw !== "string" || !choices.includes(raw)) {
        throw new CliUsageError(
          `${flag} must be one of ${choices.join(", ")}, got ${JSON.stringify(raw)}`,
        );
      }
      return /^\d+$/.test(raw) ? Number(raw) : raw;
    }
  }
}

/** Replace the library's option names in a message by the flags the user typed. */
function _userMessage(message: string, description: SamplerDescription | null): string {
  const names: Record<string, string> = { ..._COMMON_NAMES };
  for (const o of description?.options ?? []) names[o.name] = `--${o.flag}`;
  let out = message;
  for (const [name, flag] of Object.entries(names)) {
    out = out.replace(new RegExp(`\\b(?:options\\.)?${name}\\b`, "g"), flag);
  }
  return out;
}

/**
 * Memory a run's arrays need: draws (chains × ⌈samples/thin⌉ × d) and the
 * per-iteration diagnostics (chains × (warmup + samples) × about 10 fields),
 * 8 bytes each.
 *
 * @param sizes Chains, warmup, samples, thin and the dimension d.
 * @returns Bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runBytes } from "./sample_command.ts";
 * assert.equal(runBytes({ numChains: 1, numWarmup: 0, numSamples: 10, thin: 1, dim: 2 }), 8 * (20 + 100));
 * ```
 */
export function runBytes(
  sizes: { numChains: number; numWarmup: number; numSamples: number; thin: number; dim: number },
): number {
  const draws = Math.ceil(sizes.numSamples / sizes.thin) * sizes.dim;
  const info = (sizes.numWarmup + sizes.numSamples) * 10;
  return 8 * sizes.numChains * (draws + info);
}

function _formatBytes(b: number): string {
  const units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
  let k = 0;
  while (b >= 1000 && k < units.length - 1) (b /= 1000, k++);
  return `${b.toPrecision(3)} ${units[k]}`;
}

function _checkMemory(
  sizes: { numChains: number; numWarmup: number; numSamples: number; thin: number; dim: number },
  raw: Record<string, string | boolean | undefined>,
  isDimKnown: boolean,
): void {
  const bytes = runBytes(sizes);
  if (bytes <= MAX_RUN_BYTES) return;
  const typed = ["samples", "warmup", "chains"]
    .filter((f) => raw[f] !== undefined)
    .map((f) => `--${f} ${raw[f]}`)
    .join(", ");
  throw new CliUsageError(
    `${typed || "these sizes"} would need about ${_formatBytes(bytes)} of memory for the draws ` +
      `and per-iteration diagnostics (${sizes.numChains} chain(s) × ${
        sizes.numWarmup + sizes.numSamples
      } iterations${isDimKnown ? `, d = ${sizes.dim}` : ""}); the limit is ${
        _formatBytes(MAX_RUN_BYTES)
      }: lower --samples, --warmup or --chains, or thin with --thin`,
  );
}

/**
 * Run `tallmc sample`.
 *
 * @param args The arguments after `sample`.
 * @returns The exit code (0, or 2 when a chain stopped early).
 * @throws {CliUsageError} For bad flags or data (exit code 2).
 */
export async function sampleCommand(args: string[]): Promise<number> {
  const samplerFlags = _samplerFlags();
  const flags: FlagSpec = { ..._COMMON_FLAGS, ...FAMILY_OPTION_FLAGS, ...MODEL_FLAGS };
  for (const flag of samplerFlags.keys()) flags[flag] = { type: "string" };
  const { values } = parseFlags("sample", args, { flags });
  if (values.help) {
    console.log(sampleHelp());
    return 0;
  }
  checkModelFlags(values);
  for (const req of ["family", "data", ...(values.formula === undefined ? ["response"] : [])]) {
    if (values[req] === undefined) {
      throw new CliUsageError(`sample needs --${req} (see tallmc sample --help)`);
    }
  }
  const choice = familyFromFlags(values);
  const samplerName = (values.sampler as string | undefined) ?? "hmc";
  if (!samplerNames().includes(samplerName)) {
    throw new CliUsageError(
      `--sampler must be one of ${samplerNames().join(", ")}; got ${JSON.stringify(samplerName)}`,
    );
  }
  const description = getSampler(samplerName);
  const samplerOptions: Record<string, unknown> = {};
  for (const [flag, { option, samplers }] of samplerFlags) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const own = (description.options ?? []).find((o) => o.flag === flag);
    if (own === undefined) {
      throw new CliUsageError(
        `--${flag} does not apply to --sampler ${samplerName} (it applies to ${
          samplers.join(", ")
        })`,
      );
    }
    samplerOptions[own.name] = _optionValue(own ?? option, raw);
  }
  for (const o of description.options ?? []) {
    if (o.default === "required" && values[o.flag] === undefined) {
      throw new CliUsageError(
        `--sampler ${samplerName} needs --${o.flag} (${o.help}; see tallmc sample --help)`,
      );
    }
  }
  const numSamples = intFlag(values.samples, { flag: "samples", default: 1000, min: 1 });
  const numWarmup = intFlag(values.warmup, { flag: "warmup", default: 1000, min: 0 });
  const numChains = intFlag(values.chains, { flag: "chains", default: 4, min: 1, max: 10_000 });
  // One worker per core, capped by the number of chains; a single chain stays in this thread.
  const perCore = Math.min(navigator.hardwareConcurrency ?? 1, numChains);
  const numWorkers = intFlag(values.workers, {
    flag: "workers",
    default: perCore > 1 ? perCore : 0,
    min: 0,
    max: 256,
  });
  const seed = intFlag(values.seed, { flag: "seed", default: 1, min: 0 });
  const thin = intFlag(values.thin, { flag: "thin", default: 1, min: 1 });
  _checkMemory({ numChains, numWarmup, numSamples, thin, dim: 1 }, values, false);
  const outPath = values.out === undefined ? undefined : resolveUserPath(values.out as string);
  if (outPath !== undefined) checkWritable(outPath, "--out");
  const dataPath = resolveUserPath(values.data as string);
  let dataInfo: Deno.FileInfo;
  try {
    dataInfo = await Deno.stat(dataPath);
  } catch (e) {
    throw new CliUsageError(`--data ${dataPath} cannot be read: ${(e as Error).message}`);
  }
  if (dataInfo.isDirectory) {
    throw new CliUsageError(
      `--data ${dataPath} is a directory; give the path of a CSV or Parquet file`,
    );
  }

  // Workers read the data in place: it must sit in a shared memory.
  const arena = loadCore({ shared: numWorkers > 0 });
  let model: GlmModel;
  let dataWarnings: readonly string[] = [];
  try {
    const built = await modelFromFlags(arena, dataPath, values, {
      choice,
      storage: values.f32 ? "f32" : "f64",
    });
    if (!values.quiet) {
      for (const line of built.priorLines ?? []) console.log(`prior: ${line}`);
    }
    for (const note of built.notes) console.error(`tallmc: note: ${note}`);
    // The formula path's warnings were not printed before (its loader has its own checks).
    if (built.priorLines === null) dataWarnings = built.warnings;
    model = built.model;
  } catch (e) {
    if (e instanceof CliUsageError) throw e;
    const msg = _userMessage((e as Error).message, null);
    throw new CliUsageError(
      msg.includes(dataPath) ? `--data: ${msg}` : `--data ${dataPath}: ${msg}`,
    );
  }
  for (const w of dataWarnings) console.error(`tallmc: warning: --data: ${w}`);
  _checkMemory({ numChains, numWarmup, numSamples, thin, dim: model.dim }, values, true);
  let sampler;
  try {
    sampler = description.build(model, samplerOptions, { seed, numWarmup, numSamples });
  } catch (e) {
    throw new CliUsageError(
      `--sampler ${samplerName} cannot run on this data: ${
        _userMessage((e as Error).message, description)
      }`,
    );
  }

  const extraNames = samplerName === "hmc-ecs" && samplerOptions.variant === "signed"
    ? ["sign"]
    : [];
  const writer = outPath === undefined
    ? null
    : DrawsFileWriter.open(outPath, { parameterNames: model.parameterNames, extraNames });
  const bar = values.quiet ? null : new ChainProgress({
    label: samplerName,
    numChains,
    tty: Deno.stderr.isTerminal(),
  });
  let result: SamplingResult;
  try {
    const driver = {
      seed,
      numSamples,
      numWarmup,
      numChains,
      thin,
      onProgress: (chain: number, it: number, total: number) => bar?.update(chain, it, total),
      onDraw: writer === null
        ? undefined
        : (chain: number, k: number, pos: Float64Array, info: object) => {
          const extra = extraNames.map((n) =>
            Number((info as unknown as Record<string, unknown>)[n])
          );
          writer.write(chain, k, pos, extra);
        },
    };
    if (numWorkers > 0) {
      const parallel = await sampleParallel(model, {
        sampler: samplerName,
        ...samplerOptions,
        ...driver,
        workers: numWorkers,
      });
      if (parallel.parallel.note !== null && !values.quiet) {
        console.error(`tallmc: note: --workers ${numWorkers}: ${parallel.parallel.note}`);
      }
      result = parallel;
    } else {
      result = sampleChains({ sampler, model, ...driver });
    }
  } catch (e) {
    // A chain could not start (e.g. a non-finite log density at θ₀): say
    // which columns the loader found extreme, the likely cause.
    if (!(e instanceof RangeError || e instanceof TypeError)) throw e;
    throw new CliUsageError(
      `--sampler ${samplerName} cannot start: ${_userMessage(e.message, description)}${
        _extremeColumnsHint(dataWarnings)
      }`,
    );
  } finally {
    writer?.close();
    bar?.done();
  }
  console.log(
    `${samplerName}: ${numChains} chain(s) × ${result.numDraws} draws, n = ${model.numRows}, d = ${model.dim}, backend ${arena.backend}`,
  );
  if (writer !== null) console.log(`draws written to ${outPath} (${writer.numRows} rows)`);
  const code = _report(result, description, dataWarnings);
  _printSummary(result);
  return code;
}

/** "; column "x" has extreme values: standardise it" from the loader's warnings, or "". */
function _extremeColumnsHint(dataWarnings: readonly string[]): string {
  const columns = dataWarnings.flatMap((w) => {
    const m = /column ("[^"]*") has values up to/.exec(w) ??
      /the response ("[^"]*") reaches/.exec(w);
    return m === null ? [] : [m[1]];
  });
  if (columns.length === 0) return "";
  return `; ${columns.length === 1 ? "column" : "columns"} ${columns.join(", ")} ${
    columns.length === 1 ? "has" : "have"
  } extreme values (see the --data warnings): standardise or rescale ${
    columns.length === 1 ? "it" : "them"
  }`;
}

/** Divergences (as Stan reports them) and early stops on stderr; the exit code. */
function _report(
  result: SamplingResult,
  description: SamplerDescription,
  dataWarnings: readonly string[],
): number {
  let divergent = 0, warmupDivergent = 0, iterations = 0;
  for (const c of result.chains) {
    divergent += c.numDivergent.sampling;
    warmupDivergent += c.numDivergent.warmup;
    iterations += c.info.sampling.isDivergent?.length ?? 0;
  }
  if (divergent > 0) {
    console.error(
      `tallmc: warning: ${divergent} of ${iterations} (${
        (100 * divergent / Math.max(1, iterations)).toFixed(1)
      }%) sampling transitions ended with a divergence` +
        (warmupDivergent > 0 ? ` (and ${warmupDivergent} in warmup)` : "") +
        (divergent === iterations
          ? `: the chains never moved and the draws are not a posterior${
            _extremeColumnsHint(dataWarnings) || "; try a smaller step size or --warmup"
          }`
          : ""),
    );
  } else if (warmupDivergent > 0) {
    console.error(
      `tallmc: note: ${warmupDivergent} warmup transitions ended with a divergence, none after warmup`,
    );
  }
  let code = 0;
  for (const c of result.chains) {
    if (c.stop === null) continue;
    code = 2;
    console.error(
      `tallmc: error: chain ${c.chainId} stopped at ${c.stop.phase} iteration ${c.stop.iteration}: ${
        _userMessage(c.stop.reason, description)
      }; its ${c.numDraws} draws before the stop are kept`,
    );
  }
  return code;
}

/** The summary table, over the common length of the chains that made draws. */
function _printSummary(result: SamplingResult): void {
  const chains = result.chains.filter((c) => c.numDraws > 0);
  const len = Math.min(...chains.map((c) => c.numDraws));
  if (chains.length === 0 || len < 4) {
    console.log("(too few draws for a summary)");
    return;
  }
  try {
    const { draws, names } = withNaturalScales(
      chains.map((c) => c.draws.map((d) => d.subarray(0, len))),
      result.parameterNames,
    );
    const rows = summarize(draws, names);
    console.log(formatSummary(rows, 3));
    for (const w of summaryWarnings(rows, { numChains: chains.length })) {
      console.error(`tallmc: warning: ${w}`);
    }
  } catch (e) {
    console.error(`tallmc: warning: no summary: ${(e as Error).message}`);
  }
}
