/**
 * `tallmc check`: posterior predictive checks of draws against their data.
 *
 * ```
 *  DRAWS.csv → parseDrawsCsv ─┐
 *  --data + model flags → modelFromFlags ─┴→ posteriorPredictiveCheck → table (stdout)
 *                                                      └→ --plots DIR: SVGs (atomic writes)
 * ```
 *
 * The model flags are those of `tallmc sample` (cli/model_options.ts); the
 * statistics and figures come from models/ppc.ts.
 *
 * @module
 */
import { posteriorPredictiveCheck } from "../models/ppc.ts";
import { formatPpcTable, ppcFigureSpecs } from "../models/ppc_report.ts";
import { renderSvg } from "../replicate/render.ts";
import { CliUsageError, type FlagSpec, intFlag, parseFlags, resolveUserPath } from "./args.ts";
import { readDrawsFiles } from "./draws_files.ts";
import {
  checkModelFlags,
  FAMILY_OPTION_FLAGS,
  familyFromFlags,
  GLM_DATA_FLAGS,
  MODEL_FLAGS,
} from "./model_flags.ts";
import { familyFlagsHelp, modelFlagsHelp } from "./model_help.ts";
import { drawsDataModel } from "./model_options.ts";
import { AtomicOutput } from "./safe_output.ts";

const _FLAGS: FlagSpec = {
  ...GLM_DATA_FLAGS,
  draws: { type: "string" },
  rows: { type: "string" },
  seed: { type: "string" },
  plots: { type: "string" },
  help: { type: "boolean", short: "h" },
  ...FAMILY_OPTION_FLAGS,
  ...MODEL_FLAGS,
};

/** The `check --help` text. */
export function checkHelp(): string {
  return [
    "Usage: tallmc check DRAWS.csv [MORE.csv …] --family F --data FILE --response COL [options]",
    "",
    "Posterior predictive checks: replicated responses simulated from the model at",
    "evenly spaced draws, and for each statistic (mean, sd, proportion of zeros and",
    "of ones for binary and count responses, max) its observed value, the 5 % and",
    "95 % quantiles of its replicated values and the posterior predictive p-value",
    "p = P(T(y_rep) ≥ T(y)) (ties counted half), with 2 min(p, 1 − p). A p near 0 or",
    "1 says the model does not reproduce that feature of the data.",
    "",
    "Give the model flags the draws were sampled with (as tallmc sample).",
    "",
    "Options:",
    "  --family F          logistic, gaussian, poisson, student-t, negative-binomial, binomial",
    "  --data FILE         the data file (CSV or .parquet)",
    "  --response COL      name of the response column",
    "  --columns A,B,…     covariates (default: all but the response)",
    "  --no-intercept      no intercept column",
    "  --sigma S           known residual sd (gaussian)",
    "  --draws N           number of draws used, evenly spaced (default 200)",
    "  --rows N            rows checked: all when the data hold at most N, otherwise a",
    "                      random subset of N (default 100000)",
    "  --seed N            seed of the row subset and the simulation (default 1)",
    "  --plots DIR         write ppc_density.svg (continuous responses),",
    "                      ppc_calibration.svg (binary, binomial) and ppc_rootogram.svg",
    "                      (counts) into DIR (created if absent)",
    ...familyFlagsHelp(),
    ...modelFlagsHelp(),
    "  -h, --help          this help",
  ].join("\n");
}

/**
 * Run `tallmc check`.
 *
 * @param args The arguments after `check`.
 * @returns The exit code (0).
 * @throws {CliUsageError} For bad flags, files, or draws that do not match the model (exit code 2).
 */
export async function checkCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags("check", args, {
    flags: _FLAGS,
    maxPositionals: Infinity,
  });
  if (values.help) {
    console.log(checkHelp());
    return 0;
  }
  if (positionals.length === 0) {
    throw new CliUsageError("check needs a draws file (see tallmc check --help)");
  }
  checkModelFlags(values);
  for (const req of ["family", "data", ...(values.formula === undefined ? ["response"] : [])]) {
    if (values[req] === undefined) {
      throw new CliUsageError(`check needs --${req} (see tallmc check --help)`);
    }
  }
  const choice = familyFromFlags(values);
  const numDraws = intFlag(values.draws, { flag: "draws", default: 200, min: 1 });
  const maxRows = intFlag(values.rows, { flag: "rows", default: 100_000, min: 1 });
  const seed = intFlag(values.seed, { flag: "seed", default: 1, min: 0 });
  const paths = positionals.map(resolveUserPath);
  const dataPath = resolveUserPath(values.data as string);
  const table = await readDrawsFiles(paths, { dataPath });
  for (const w of table.warnings ?? []) console.error(`tallmc: warning: ${w}`);
  if (table.extra.sign) {
    console.error(
      "tallmc: warning: the draws carry signs (signed HMC-ECS); the check treats them all as " +
        "positive",
    );
  }
  const model = await drawsDataModel(dataPath, values, { choice, resolvePath: resolveUserPath });
  const missing = model.parameterNames.filter((n) => !table.parameterNames.includes(n));
  if (missing.length > 0) {
    throw new CliUsageError(
      `${paths[0]} lacks the model's parameter${missing.length > 1 ? "s" : ""} ${
        missing.map((m) => JSON.stringify(m)).join(", ")
      } (the draws have ${
        table.parameterNames.map((m) => JSON.stringify(m)).join(", ")
      }); give the model flags the draws were sampled with`,
    );
  }
  const extra = table.parameterNames.filter((n) => !model.parameterNames.includes(n));
  if (extra.length > 0) {
    throw new CliUsageError(
      `${paths[0]} has parameter${extra.length > 1 ? "s" : ""} ${
        extra.map((m) => JSON.stringify(m)).join(", ")
      } that the model lacks (the model has ${
        model.parameterNames.map((m) => JSON.stringify(m)).join(", ")
      }); give the model flags the draws were sampled with`,
    );
  }
  let result;
  try {
    result = posteriorPredictiveCheck(model, table.draws, {
      numDraws,
      maxRows,
      seed,
      parameterNames: table.parameterNames,
    });
  } catch (e) {
    if (e instanceof RangeError) throw new CliUsageError(`${paths[0]}: ${e.message}`);
    throw e;
  }
  console.log(
    `posterior predictive check (${result.family}): ${result.numDraws} draws, ${
      result.rows === null
        ? `all ${result.numRows} rows`
        : `a random subset of ${result.numRows} of ${result.numRowsTotal} rows (seed ${seed})`
    }`,
  );
  console.log("p = P(T(y_rep) >= T(y)), ties counted half; p_two_sided = 2 min(p, 1 - p)");
  for (const line of formatPpcTable(result)) console.log(line);
  if (values.plots !== undefined) {
    const dir = resolveUserPath(values.plots as string);
    try {
      await Deno.mkdir(dir, { recursive: true });
    } catch (e) {
      throw new CliUsageError(`--plots ${dir} cannot be created: ${(e as Error).message}`);
    }
    for (const [stem, spec] of Object.entries(ppcFigureSpecs(result))) {
      const svg = await renderSvg(spec);
      const target = `${dir}/ppc_${stem}.svg`;
      const out = AtomicOutput.create(target);
      try {
        const bytes = new TextEncoder().encode(svg);
        for (let off = 0; off < bytes.length;) off += out.file!.writeSync(bytes.subarray(off));
        out.commit();
      } catch (e) {
        out.discard();
        throw e;
      }
      console.log(`wrote ${out.target}`);
    }
  }
  return 0;
}
