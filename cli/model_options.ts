/**
 * The model flags of `tallmc sample`: `--formula`, `--standardize` and the
 * priors (`--prior`, `--prior-intercept`, `--prior-file`) — their help text,
 * their checks, and building the model they describe.
 *
 * Without any of these flags `sample` builds the model as before (numeric
 * CSV, N(0, S²) on every coefficient with S = `--prior-scale`).
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { type LoadCsvOptions, loadCsvToArena } from "../data/csv.ts";
import type { GlmData } from "../data/dataset.ts";
import { columnMoments, loadCsvWithFormula } from "../data/design.ts";
import { parseFormula } from "../data/formula.ts";
import { loadParquet, loadParquetWithFormula } from "../data/parquet.ts";
import { compressors as parquetDecompressors } from "npm:hyparquet-compressors@1.1.2";
import { type GlmFamily, GlmModel } from "../models/glm.ts";
import { parsePriorText } from "../models/prior_text.ts";
import {
  buildPrior,
  type CoefficientPrior,
  defaultPriorSpec,
  type PriorSpec,
  type ScalePrior,
  type WithPrior,
  withPrior,
} from "../models/priors.ts";
import { CliUsageError, type FlagSpec, resolveUserPath } from "./args.ts";

/** The model flags, for `parseFlags`. */
export const MODEL_FLAGS: FlagSpec = {
  formula: { type: "string" },
  standardize: { type: "boolean" },
  prior: { type: "string", multiple: true },
  "prior-intercept": { type: "string" },
  "prior-file": { type: "string" },
};

/**
 * The help lines of the model flags (inserted in `sample --help`).
 *
 * @returns Lines of text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelFlagsHelp } from "./model_options.ts";
 * assert.ok(modelFlagsHelp().some((l) => l.includes("normal(0, 2.5)")));
 * ```
 */
export function modelFlagsHelp(): string[] {
  return [
    "",
    "Model (formula, categorical columns, priors):",
    '  --formula F         R-style formula, e.g. "y ~ x1 + x2 + x1:x2 + region"; replaces',
    "                      --response, --columns and --no-intercept. Intercept by default",
    '                      ("- 1" or "0 +" removes it); a:b interaction; a*b = a + b + a:b.',
    "                      A text column becomes 0/1 columns named region[south], …, against",
    "                      the first level in sorted order (the reference, as R).",
    "  --standardize       centre and scale every column but the intercept (needs --formula)",
    '  --prior P           prior of every coefficient, e.g. "normal(0, 2.5)", "student_t(3, 0, 2.5)",',
    '                      "cauchy(0, 2.5)", "laplace(0, 1)", "flat"; or NAME=P for one',
    '                      coefficient or term ("region=normal(0, 1)" covers region[…]); or',
    '                      sigma=P for a scale: "half_normal(1)", "half_t(3, 1)",',
    '                      "half_cauchy(1)", "exponential(1)", "flat". Repeatable.',
    "  --prior-intercept P prior of the intercept",
    '  --prior-file FILE   JSON: {"coefficients": P, "intercept": P, "terms": {NAME: P},',
    '                      "scales": {NAME: P}} with P as text or {"family": …, "scale": …}',
    "  Defaults with --formula or a --prior flag (rstanarm's, weakly informative on",
    "  standardised predictors): coefficient j ~ normal(0, 2.5/sd(xⱼ)) (× sd(y) for",
    "  gaussian), i.e. normal(0, 2.5) with --standardize; intercept ~ normal(0, 10)",
    "  (gaussian: normal(mean(y), 10·sd(y))); σ ~ exponential(1/sd(y)). Otherwise every",
    "  coefficient ~ normal(0, S²), S = --prior-scale (default 10).",
  ];
}

/** Whether any model flag was given (otherwise `sample` builds its model as before). */
export function hasModelFlags(values: Record<string, unknown>): boolean {
  return Object.keys(MODEL_FLAGS).some((k) => values[k] !== undefined && values[k] !== false);
}

/**
 * Check the model flags against the others (before any data are read).
 *
 * @param values Parsed flag values.
 * @throws {CliUsageError} For flags that contradict each other.
 */
export function checkModelFlags(values: Record<string, unknown>): void {
  if (values.formula !== undefined) {
    try {
      parseFormula(values.formula as string);
    } catch (e) {
      throw new CliUsageError(`--formula: ${(e as Error).message}`);
    }
    for (const f of ["response", "columns", "no-intercept"]) {
      if (values[f] !== undefined && values[f] !== false) {
        throw new CliUsageError(
          `--${f} cannot be combined with --formula (the formula names the response, the columns and the intercept)`,
        );
      }
    }
  } else if (values.standardize) {
    throw new CliUsageError("--standardize needs --formula");
  }
  if (
    values["prior-scale"] !== undefined &&
    (values.prior !== undefined || values["prior-file"] !== undefined)
  ) {
    throw new CliUsageError("--prior-scale cannot be combined with --prior or --prior-file");
  }
}

/**
 * The prior the flags state: the file first, then `--prior` and
 * `--prior-intercept` on top.
 *
 * @param values Parsed flag values.
 * @returns The spec (unset parts take the defaults).
 * @throws {CliUsageError} Naming the flag or the file's key.
 */
export async function priorSpecFromFlags(values: Record<string, unknown>): Promise<PriorSpec> {
  const spec: PriorSpec = {};
  const file = values["prior-file"] as string | undefined;
  if (file !== undefined) {
    const path = resolveUserPath(file);
    let json: unknown;
    try {
      json = JSON.parse(await Deno.readTextFile(path));
    } catch (e) {
      throw new CliUsageError(`--prior-file ${path}: ${(e as Error).message}`);
    }
    Object.assign(spec, _specFromJson(json, `--prior-file ${path}`));
  }
  const wrap = <T>(flag: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      throw new CliUsageError(`${flag}: ${(e as Error).message}`);
    }
  };
  for (const raw of (values.prior as string[] | undefined) ?? []) {
    const eq = raw.indexOf("=");
    if (eq < 0) {
      spec.coefficients = wrap(
        "--prior",
        () => parsePriorText(raw, "every coefficient"),
      ) as CoefficientPrior;
      continue;
    }
    const name = raw.slice(0, eq).trim(), text = raw.slice(eq + 1);
    const p = wrap("--prior", () => parsePriorText(text, JSON.stringify(name)));
    if (["half_normal", "half_t", "half_cauchy", "exponential"].includes(p.family)) {
      spec.scales = { ...spec.scales, [name]: p as ScalePrior };
    } else spec.terms = { ...spec.terms, [name]: p as CoefficientPrior };
  }
  const pi = values["prior-intercept"] as string | undefined;
  if (pi !== undefined) {
    spec.intercept = wrap(
      "--prior-intercept",
      () => parsePriorText(pi, "the intercept"),
    ) as CoefficientPrior;
  }
  return spec;
}

function _specFromJson(json: unknown, where: string): PriorSpec {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new CliUsageError(
      `${where}: expected a JSON object with coefficients, intercept, terms, scales`,
    );
  }
  const out: PriorSpec = {};
  for (const [key, value] of Object.entries(json)) {
    if (key === "coefficients" || key === "intercept") {
      out[key] = value as CoefficientPrior | string;
    } else if (key === "terms" || key === "scales") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw new CliUsageError(`${where}: "${key}" must be an object of name → prior`);
      }
      (out as Record<string, unknown>)[key] = value;
    } else {
      throw new CliUsageError(
        `${where}: unknown key ${
          JSON.stringify(key)
        }; expected coefficients, intercept, terms or scales`,
      );
    }
  }
  return out;
}

/**
 * Load a numeric data file given by `--data`: Parquet (`.parquet`, any
 * codec hyparquet-compressors reads) or CSV.
 *
 * @param arena The arena.
 * @param path The file (absolute).
 * @param options As `loadCsvToArena` (Parquet takes the same, bar the CSV
 *   syntax ones).
 * @returns The data set.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { writeParquet } from "../data/parquet.ts";
 * import { loadDataFile } from "./model_options.ts";
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * await writeParquet(path, [{ numRows: 1, x: new Float64Array([2]), y: new Float64Array([1]) }], {
 *   columnNames: ["a"], responseName: "y", storage: "f64",
 * });
 * const data = await loadDataFile(loadCore(), path, { response: "y", family: "logistic" });
 * assert.deepEqual(data.columnNames, ["(Intercept)", "a"]);
 * await Deno.remove(path);
 * ```
 */
export function loadDataFile(
  arena: Arena,
  path: string,
  options: LoadCsvOptions,
): Promise<GlmData> {
  if (!/\.parquet$/i.test(path)) return loadCsvToArena(arena, path, options);
  const { delimiter: _d, header: _h, chunkBytes: _c, ...rest } = options;
  return loadParquet(arena, path, { ...rest, compressors: parquetDecompressors });
}

/**
 * Load the data and build the model the model flags describe.
 *
 * @param arena The arena.
 * @param dataPath The CSV or Parquet (`.parquet`) file (absolute).
 * @param values Parsed flag values (`formula`, `standardize`, priors, `response`, `columns`, …).
 * @param glm The family and known σ.
 * @returns The model with its prior, and the data's warnings.
 * @throws {RangeError} For bad data, formulas or priors (the caller adds the flag).
 */
export async function modelFromFlags(
  arena: Arena,
  dataPath: string,
  values: Record<string, unknown>,
  glm: { family: GlmFamily; sigma?: number; storage: "f32" | "f64" },
): Promise<WithPrior<GlmModel>> {
  const spec = await priorSpecFromFlags(values);
  let data: GlmData;
  let defaults: PriorSpec;
  const isParquet = /\.parquet$/i.test(dataPath);
  if (values.formula !== undefined) {
    const formulaOptions = {
      formula: values.formula as string,
      family: glm.family,
      standardize: Boolean(values.standardize),
      storage: glm.storage,
    };
    const fd = isParquet
      ? await loadParquetWithFormula(arena, dataPath, {
        ...formulaOptions,
        compressors: parquetDecompressors,
      })
      : await loadCsvWithFormula(arena, dataPath, formulaOptions);
    const d = fd.design, columnSd: Record<string, number> = {};
    d.columnNames.forEach((n, j) => (columnSd[n] = d.columnSd[j] / d.scale[j]));
    defaults = defaultPriorSpec(d.columnNames, {
      family: glm.family,
      columnSd,
      responseMean: d.responseMean,
      responseSd: d.responseSd,
    });
    data = fd;
    if (d.standardized && !values.quiet) {
      const g = (v: number) => Number(v.toPrecision(4));
      const parts = d.columnNames.flatMap((n, j) =>
        d.scale[j] !== 1 || d.center[j] !== 0
          ? [`${n} = (${n} − ${g(d.center[j])}) / ${g(d.scale[j])}`]
          : []
      );
      console.log(`standardized (coefficients are per sd): ${parts.join(", ")}`);
    }
  } else {
    data = await loadDataFile(arena, dataPath, {
      response: values.response as string,
      family: glm.family,
      intercept: !values["no-intercept"],
      columns: values.columns
        ? (values.columns as string).split(",").map((s) => s.trim())
        : undefined,
      storage: glm.storage,
    });
    const m = columnMoments(data);
    const columnSd: Record<string, number> = {};
    data.columnNames.forEach((n, j) => (columnSd[n] = m.columnSd[j]));
    defaults = defaultPriorSpec(data.columnNames, {
      family: glm.family,
      columnSd,
      responseMean: m.responseMean,
      responseSd: m.responseSd,
    });
  }
  let prior;
  try {
    prior = buildPrior(data.columnNames, spec, { defaults });
  } catch (e) {
    throw new CliUsageError(`--prior: ${(e as Error).message}`);
  }
  return withPrior(new GlmModel(data, { family: glm.family, sigma: glm.sigma }), prior);
}
