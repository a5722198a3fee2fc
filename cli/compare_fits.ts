/**
 * The fits of `tallmc compare`: the arguments split at each `--fit` into the
 * common flags and one group per fit (model flags after a `--fit` override
 * the common ones for that fit; the comparison's own flags apply to all), and
 * each fit loaded: its draws files read, its model built over `--data`, the
 * draws put in the model's parameter order with their chain ids.
 *
 * @module
 */
import { basename } from "node:path";
import type { GlmData } from "../data/dataset.ts";
import type { GlmModel } from "../models/glm.ts";
import { CliUsageError, type FlagSpec, parseFlags, resolveUserPath } from "./args.ts";
import { readDrawsFiles } from "./draws_files.ts";
import {
  checkModelFlags,
  FAMILY_OPTION_FLAGS,
  familyFromFlags,
  GLM_DATA_FLAGS,
  MODEL_FLAGS,
} from "./model_flags.ts";
import { drawsDataModel } from "./model_options.ts";

const _MODEL_FLAGS: FlagSpec = { ...GLM_DATA_FLAGS, ...FAMILY_OPTION_FLAGS, ...MODEL_FLAGS };

const _COMMON_FLAGS: FlagSpec = {
  ..._MODEL_FLAGS,
  observations: { type: "string" },
  "target-se": { type: "string" },
  approximation: { type: "string" },
  "approximation-draws": { type: "string" },
  seed: { type: "string" },
  help: { type: "boolean", short: "h" },
};

/** One `--fit` group: its name, draws files and merged flag values. */
export interface FitSpec {
  /** The fit's name (NAME= or the first file's name). */
  name: string;
  /** Its draws files (resolved). */
  paths: string[];
  /** The model flags in force for it: its own over the common ones. */
  values: Record<string, unknown>;
}

/**
 * Split the arguments at each `--fit` and parse each part: the flags before
 * the first `--fit` are common, a model flag after a `--fit` applies to that
 * fit only, the comparison's own flags apply to all wherever they stand.
 *
 * @param args The arguments after `compare`.
 * @returns The common flag values and one spec per `--fit`.
 * @throws {CliUsageError} For a `--fit` without a value or files, or a comparison flag given twice.
 */
export function parseFitGroups(args: string[]): {
  common: Record<string, string | boolean | undefined>;
  fits: FitSpec[];
} {
  const isFit = (a: string) => a === "--fit" || a.startsWith("--fit=");
  const first = args.findIndex(isFit);
  const head = first < 0 ? args : args.slice(0, first);
  const { values: common } = parseFlags("compare", head, { flags: _COMMON_FLAGS });
  const fits: FitSpec[] = [];
  if (first < 0) return { common, fits };
  let i = first;
  while (i < args.length) {
    let spec: string | undefined;
    if (args[i].startsWith("--fit=")) spec = args[i++].slice(6);
    else {
      spec = args[i + 1];
      i += 2;
    }
    if (spec === undefined || spec === "" || spec.startsWith("--")) {
      throw new CliUsageError("--fit needs a value: [NAME=]DRAWS.csv");
    }
    let j = i;
    while (j < args.length && !isFit(args[j])) j++;
    const { values } = parseFlags("compare", args.slice(i, j), { flags: _COMMON_FLAGS });
    // The comparison's own flags may follow a --fit too; they apply to every fit.
    for (const k of Object.keys(_COMMON_FLAGS)) {
      if (k in _MODEL_FLAGS || values[k] === undefined) continue;
      if (common[k] !== undefined && common[k] !== values[k]) {
        throw new CliUsageError(
          `--${k} is given twice (${JSON.stringify(common[k])} and ${
            JSON.stringify(values[k])
          }); it applies to every fit: give it once`,
        );
      }
      common[k] = values[k];
    }
    i = j;
    const eq = spec.indexOf("=");
    const name = eq > 0 ? spec.slice(0, eq) : undefined;
    const files = (eq > 0 ? spec.slice(eq + 1) : spec).split(",").filter((p) => p !== "");
    if (files.length === 0) throw new CliUsageError(`--fit ${spec} names no draws file`);
    const paths = files.map(resolveUserPath);
    const merged: Record<string, unknown> = {};
    for (const k of Object.keys(_MODEL_FLAGS)) {
      const v = values[k] !== undefined ? values[k] : common[k];
      if (v !== undefined) merged[k] = v;
    }
    fits.push({
      name: name ?? basename(files[0]).replace(/(_1)?\.csv$/i, ""),
      paths,
      values: merged,
    });
  }
  return { common, fits };
}

/** A loaded fit: its model, draws in the model's parameter order, chain ids. */
export interface Fit {
  /** The fit's name. */
  name: string;
  /** Its model over `--data` (the caller disposes of it). */
  model: GlmModel;
  /** The draws of every chain in turn, each in the model's parameter order. */
  draws: Float64Array[];
  /** Chain id of each draw, or null when the chains are unequal or shorter than 4. */
  chainIds: number[] | null;
  /** `--family`. */
  family: string;
}

/**
 * Load one fit: check its flags, read its draws files and build its model
 * over `--data` (read once per distinct file and options through `dataCache`).
 *
 * @param spec The fit.
 * @param dataCache Data loaded by earlier fits.
 * @returns The fit.
 * @throws {CliUsageError} For a missing flag, draws that do not match the model, or too few draws.
 */
export async function loadFit(
  spec: FitSpec,
  dataCache: Map<string, Promise<GlmData>>,
): Promise<Fit> {
  const values = spec.values;
  checkModelFlags(values);
  for (const req of ["family", "data", ...(values.formula === undefined ? ["response"] : [])]) {
    if (values[req] === undefined) {
      throw new CliUsageError(
        `fit ${JSON.stringify(spec.name)} needs --${req} (before the first --fit for every ` +
          `fit, or after its --fit; see tallmc compare --help)`,
      );
    }
  }
  const dataPath = resolveUserPath(values.data as string);
  const table = await readDrawsFiles(spec.paths, { dataPath });
  for (const w of table.warnings ?? []) console.error(`tallmc: warning: ${w}`);
  if (table.extra.sign) {
    console.error(
      `tallmc: warning: fit ${spec.name}: the draws carry signs (signed HMC-ECS); ` +
        "LOO treats them all as positive",
    );
  }
  const model = await drawsDataModel(dataPath, values, {
    choice: familyFromFlags(values),
    resolvePath: resolveUserPath,
    dataCache,
  });
  const names = model.parameterNames;
  const missing = names.filter((n) => !table.parameterNames.includes(n));
  const extra = table.parameterNames.filter((n) => !names.includes(n));
  if (missing.length > 0 || extra.length > 0) {
    model.dispose();
    const list = (xs: readonly string[]) => xs.map((m) => JSON.stringify(m)).join(", ");
    throw new CliUsageError(
      `fit ${JSON.stringify(spec.name)}: the draws (${spec.paths[0]}) have parameters ${
        list(table.parameterNames)
      }, the model ${list(names)}; give the model flags the draws were sampled with`,
    );
  }
  const cols = names.map((n) => table.parameterNames.indexOf(n));
  const draws: Float64Array[] = [];
  const chainIds: number[] = [];
  const lengths = table.draws.map((c) => c[0]?.length ?? 0);
  table.draws.forEach((chain, c) => {
    for (let t = 0; t < lengths[c]; t++) {
      draws.push(Float64Array.from(cols, (j) => chain[j][t]));
      chainIds.push(c);
    }
  });
  if (draws.length < 2) {
    model.dispose();
    throw new CliUsageError(`fit ${spec.name}: ${spec.paths[0]} holds ${draws.length} draws`);
  }
  const equal = lengths.every((l) => l === lengths[0]) && lengths[0] >= 4;
  if (!equal) {
    console.error(
      `tallmc: warning: fit ${spec.name}: the chains hold ${lengths.join(", ")} draws; ` +
        "relative efficiencies need equal chains of at least 4, so r_eff = 1 is used",
    );
  }
  return {
    name: spec.name,
    model,
    draws,
    chainIds: equal ? chainIds : null,
    family: values.family as string,
  };
}
