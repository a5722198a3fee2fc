/**
 * The model flags of `tallmc sample`: the family and its own flags
 * (`--family`, `--sigma`, `--nu`, `--offset`, `--trials`, `--success`,
 * `--prior-scale`), `--formula`, `--standardize` and the priors (`--prior`,
 * `--prior-intercept`, `--prior-file`) — their help text, their checks, and
 * building the model they describe.
 *
 * Without `--formula` or a `--prior*` flag the coefficients keep N(0, S²)
 * with S = `--prior-scale` (a number). Numeric data with a numeric response
 * and no offset or trials column stream into the arena (`loadCsvToArena`);
 * otherwise the file is read as a table (`loadCsvWithFormula`, with the
 * formula `response ~ columns` written for the user when none is given).
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { type LoadCsvOptions, loadCsvToArena, peekInputText } from "../data/csv.ts";
import type { GlmData } from "../data/dataset.ts";
import {
  columnMoments,
  type FormulaData,
  loadCsvWithFormula,
  parseColumnTable,
} from "../data/design.ts";
import { parseFormula } from "../data/formula.ts";
import { loadParquet } from "../data/parquet.ts";
import { loadParquetWithFormula, parquetColumns } from "../data/parquet_formula.ts";
import { compressors as parquetDecompressors } from "npm:hyparquet-compressors@1.1.2";
import { type GlmFamily, GlmModel, type GlmModelFamily, type GlmOptions } from "../models/glm.ts";
import { parsePriorText } from "../models/prior_text.ts";
import {
  buildPrior,
  type CoefficientPrior,
  defaultPriorSpec,
  type PriorSpec,
  type ScalePrior,
  withPrior,
} from "../models/priors.ts";
import { checkGlmPosterior } from "../samplers/proper_posterior.ts";
import type { FlagSpec } from "./args.ts";
import { CliUsageError, cliWording, positiveFlag } from "./usage.ts";

/** The families `sample --family` takes (gaussian without --sigma is "gaussian-scale"). */
export const CLI_FAMILIES: readonly string[] = [
  "logistic",
  "gaussian",
  "poisson",
  "student-t",
  "negative-binomial",
  "binomial",
];

/** The family's own flags, for `parseFlags` (`--family`, `--sigma` and `--prior-scale` are common). */
export const FAMILY_OPTION_FLAGS: FlagSpec = {
  "prior-aux": { type: "string" },
  nu: { type: "string" },
  offset: { type: "string" },
  trials: { type: "string" },
  success: { type: "string" },
};

/**
 * The flags that name the data and the GLM, for `parseFlags`: the same in
 * every command that builds a model from a file (`sample`, `check`).
 */
export const GLM_DATA_FLAGS: FlagSpec = {
  family: { type: "string" },
  data: { type: "string" },
  response: { type: "string" },
  sigma: { type: "string" },
  "prior-scale": { type: "string" },
  columns: { type: "string" },
  "no-intercept": { type: "boolean" },
};

/** The model flags, for `parseFlags`. */
export const MODEL_FLAGS: FlagSpec = {
  delimiter: { type: "string" },
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
    "  --delimiter D       the field delimiter of --data: , ; | or tab (default: detected",
    "                      from the header line among these four). --data - reads standard",
    "                      input; a FIFO is read once, as a stream",
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
    '                      "half_cauchy(1)", "exponential(1)", "inverse_gamma(2, 1)",',
    '                      "flat" (sigma=P for log_sigma, phi=P for log_phi); nu=gamma(A, B)',
    "                      for the sampled ν of --nu sample (default gamma(2, 0.1)). Repeatable.",
    "  --prior-intercept P prior of the intercept",
    '  --prior-file FILE   JSON: {"coefficients": P, "intercept": P, "terms": {NAME: P},',
    '                      "scales": {NAME: P}} with P as text or {"family": …, "scale": …}',
    "  Defaults with --formula or a --prior flag (rstanarm's, weakly informative on",
    "  standardised predictors): coefficient j ~ normal(0, 2.5/sd(xⱼ)) (× sd(y) for",
    "  gaussian and student-t), i.e. normal(0, 2.5) with --standardize; intercept ~",
    "  normal(0, 10) (gaussian, student-t: normal(mean(y), 10·sd(y))); σ ~",
    "  exponential(1/sd(y)); φ ~ exponential(1). Otherwise every coefficient ~ normal(0, S²),",
    "  S = --prior-scale (default 10), and σ or φ ~ half_normal(10).",
  ];
}

/** Whether any model flag was given (otherwise `sample` builds its model as before). */
export function hasModelFlags(values: Record<string, unknown>): boolean {
  return Object.keys(MODEL_FLAGS).some((k) =>
    k !== "delimiter" && values[k] !== undefined && values[k] !== false
  );
}

/**
 * The `--delimiter` value (undefined: detect it): one character, or `tab`.
 *
 * @param values Parsed flag values.
 * @returns The delimiter, or undefined.
 * @throws {CliUsageError} Naming the flag and the value.
 */
export function delimiterFromFlags(values: Record<string, unknown>): string | undefined {
  const v = values.delimiter;
  if (v === undefined) return undefined;
  const d = v === "tab" || v === "\\t" ? "\t" : v;
  if (typeof d !== "string" || d.length !== 1 || /["\r\n]/.test(d)) {
    throw new CliUsageError(
      `--delimiter must be one character (e.g. "," ";" "|") or tab, got ${JSON.stringify(v)}`,
    );
  }
  return d;
}

/**
 * Check the model flags against the others (before any data are read).
 *
 * @param values Parsed flag values.
 * @throws {CliUsageError} For flags that contradict each other.
 */
export function checkModelFlags(values: Record<string, unknown>): void {
  delimiterFromFlags(values);
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
  if (values["prior-intercept"] !== undefined && values["no-intercept"]) {
    throw new CliUsageError(
      `--prior-intercept ${
        JSON.stringify(values["prior-intercept"])
      } cannot be combined with --no-intercept (the model has no intercept)`,
    );
  }
  const scalePriors = ((values.prior as string[] | undefined) ?? [])
    .filter((p) => _SCALE_NAMES.includes(p.slice(0, Math.max(p.indexOf("="), 0)).trim()));
  if (values["prior-aux"] !== undefined && scalePriors.length > 0) {
    throw new CliUsageError(
      `--prior-aux ${JSON.stringify(values["prior-aux"])} and --prior ${
        JSON.stringify(scalePriors[0])
      } both set the prior of σ or φ; give one`,
    );
  }
  if (
    values["prior-scale"] !== undefined &&
    (values.prior !== undefined || values["prior-file"] !== undefined)
  ) {
    throw new CliUsageError(
      "--prior-scale cannot be combined with --prior or --prior-file " +
        "(it is the coefficients' sd); give the coefficients' prior with --prior \"normal(0, S)\"",
    );
  }
}

/**
 * The prior the flags state: the file first, then `--prior` and
 * `--prior-intercept` on top.
 *
 * @param values Parsed flag values.
 * @param resolvePath Turns `--prior-file`'s value into the path to read (the
 *   CLI: against the caller's directory; default: as given).
 * @returns The spec (unset parts take the defaults).
 * @throws {CliUsageError} Naming the flag or the file's key.
 */
export async function priorSpecFromFlags(
  values: Record<string, unknown>,
  resolvePath: (path: string) => string = (path) => path,
): Promise<PriorSpec> {
  const spec: PriorSpec = {};
  const file = values["prior-file"] as string | undefined;
  if (file !== undefined) {
    const path = resolvePath(file);
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
    if (name === "") {
      throw new CliUsageError(
        `--prior ${JSON.stringify(raw)}: no name before "="; write NAME=P, e.g. x1=normal(0, 1)`,
      );
    }
    const p = wrap("--prior", () => parsePriorText(text, JSON.stringify(name)));
    // sigma= and phi= name the scales (any scale prior, flat included); a
    // scale-only prior on another name is a scale too (buildPrior refuses
    // names the model has no scale for).
    if (
      _SCALE_NAMES.includes(name) || name === "nu" || p.family === "gamma" ||
      (p.family !== "flat" && _SCALE_FAMILIES.includes(p.family))
    ) {
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
 * The help lines of the family flags (inserted in `sample --help`).
 *
 * @returns Lines of text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { familyFlagsHelp } from "./model_options.ts";
 * assert.ok(familyFlagsHelp().some((l) => l.includes("gaussian-scale")));
 * ```
 */
export function familyFlagsHelp(): string[] {
  return [
    "",
    "Families (parameters after the coefficients are sampled on the log scale):",
    "  logistic            0/1 response, or text with exactly two levels: the level that",
    "                      sorts second is 1 (no → 0, yes → 1) unless --success LEVEL",
    "  gaussian            with --sigma S: σ known; without --sigma: σ unknown, sampled as",
    '                      log_sigma (the "gaussian-scale" family)',
    "  student-t           --nu V (required): fixed degrees of freedom V > 0, or --nu sample",
    "                      (ν > 1 sampled as log_nu_minus_1, Gamma(2, 0.1) prior); σ as log_sigma",
    "  poisson             counts; --offset COL adds a log-exposure column to η",
    "  negative-binomial   counts, NB2 (Var = μ + μ²/φ), φ sampled as log_phi; --offset COL",
    "  binomial            --trials COL (required): successes y out of COL trials (integers ≥ 1, ≥ y)",
    "  --sigma S           known residual sd of --family gaussian",
    "  --nu V|sample       degrees of freedom of --family student-t",
    "  --offset COL        column of per-row offsets (finite; not a covariate)",
    "  --trials COL        column of per-row trials (not a covariate)",
    "  --success LEVEL     the level of a two-level text response coded 1",
    "  --prior-scale S     every coefficient ~ normal(0, S²) (default 10; not with --prior)",
    '  --prior-aux P       the prior of σ or φ: "half_normal(1)", "half_t(3, 1)",',
    '                      "half_cauchy(1)", "exponential(1)", "inverse_gamma(2, 1)" (on σ²),',
    '                      "flat" (default half_normal(10); with --formula or a --prior flag',
    "                      σ ~ exponential(1/sd(y)), φ ~ exponential(1))",
  ];
}

/**
 * The value of `--nu`: a positive finite number (ν fixed), or `sample`
 * (ν > 1 sampled as log_nu_minus_1 with a Gamma(2, 0.1) prior).
 *
 * @param value The text typed, or undefined.
 * @returns ν.
 * @throws {CliUsageError} Naming `--nu` and the value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nuFlag } from "./model_options.ts";
 * assert.equal(nuFlag("4"), 4);
 * assert.equal(nuFlag("sample"), "sample");
 * assert.throws(() => nuFlag(undefined), /--family student-t needs --nu/);
 * assert.throws(() => nuFlag("0"), /--nu must be a positive number, got "0"/);
 * ```
 */
export function nuFlag(value: string | boolean | undefined): number | "sample" {
  if (value === undefined) {
    throw new CliUsageError(
      "--family student-t needs --nu (its degrees of freedom: a positive number, e.g. --nu 4, " +
        "or sample)",
    );
  }
  if (typeof value === "string" && value.trim() === "sample") return "sample";
  return positiveFlag(value, "nu")!;
}

/** What the family flags state. */
export interface FamilyChoice {
  /** The family as `GlmModel` takes it (`gaussian` without `--sigma` is `gaussian-scale`). */
  readonly family: GlmModelFamily;
  /** `--sigma`. */
  readonly sigma?: number;
  /** `--nu`. */
  readonly nu?: number | "sample";
  /** `--offset` (a column name). */
  readonly offset?: string;
  /** `--trials` (a column name). */
  readonly trials?: string;
  /** `--success` (a level). */
  readonly success?: string;
  /** The prior sd of every coefficient (`--prior-scale`; default 10). */
  readonly priorScale: number;
  /** The prior of σ or φ (`--prior-aux`). */
  readonly scalePrior?: ScalePrior;
}

const _HAS_SCALE = ["gaussian-scale", "student-t", "negative-binomial"];

/**
 * Read and check the family flags (before any data are read).
 *
 * @param values Parsed flag values.
 * @returns The family and its settings.
 * @throws {CliUsageError} Naming the flag and the value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { familyFromFlags } from "./model_options.ts";
 * assert.equal(familyFromFlags({ family: "gaussian" }).family, "gaussian-scale");
 * assert.deepEqual(familyFromFlags({ family: "negative-binomial", "prior-aux": "half_cauchy(2)" }).scalePrior,
 *   { family: "half_cauchy", scale: 2 });
 * assert.throws(() => familyFromFlags({ family: "binomial" }), /--family binomial needs --trials/);
 * ```
 */
export function familyFromFlags(values: Record<string, unknown>): FamilyChoice {
  const name = values.family as string;
  if (!CLI_FAMILIES.includes(name)) {
    throw new CliUsageError(
      `--family must be one of ${CLI_FAMILIES.join(", ")}, got ${JSON.stringify(name)}`,
    );
  }
  const sigma = positiveFlag(values.sigma as string | undefined, "sigma");
  if (name !== "gaussian" && sigma !== undefined) {
    throw new CliUsageError(`--sigma applies to --family gaussian only, got --family ${name}`);
  }
  const family: GlmModelFamily = name === "gaussian" && sigma === undefined
    ? "gaussian-scale"
    : name as GlmModelFamily;
  const only = (flag: string, families: string[]) => {
    const v = values[flag];
    if (v !== undefined && !families.includes(name)) {
      throw new CliUsageError(
        `--${flag} applies to --family ${families.join(" or ")}, got --family ${name} (--${flag} ${
          JSON.stringify(v)
        })`,
      );
    }
    if (v !== undefined && (typeof v !== "string" || v.trim() === "")) {
      throw new CliUsageError(`--${flag} needs a value, got ${JSON.stringify(v)}`);
    }
    return v as string | undefined;
  };
  const nuRaw = only("nu", ["student-t"]);
  const nu = name === "student-t" ? nuFlag(nuRaw) : undefined;
  const offset = only("offset", ["poisson", "negative-binomial"])?.trim();
  const trials = only("trials", ["binomial"])?.trim();
  if (name === "binomial" && trials === undefined) {
    throw new CliUsageError(
      "--family binomial needs --trials COL (the column of the number of trials per row)",
    );
  }
  const success = only("success", ["logistic"]);
  let priorScale = 10, scalePrior: ScalePrior | undefined;
  const ps = values["prior-scale"] as string | undefined;
  if (ps !== undefined) {
    if (!/^\s*[-+0-9.]/.test(ps) && ps.trim() !== "") {
      throw new CliUsageError(
        `--prior-scale takes a number (the prior sd of every coefficient), got ${
          JSON.stringify(ps)
        }; the prior of σ or φ goes in --prior-aux`,
      );
    }
    priorScale = positiveFlag(ps, "prior-scale")!;
  }
  const pa = values["prior-aux"] as string | undefined;
  if (pa !== undefined) {
    let p;
    try {
      p = parsePriorText(pa, _HAS_SCALE.includes(family) ? _scaleName(family) : "σ or φ");
    } catch (e) {
      throw new CliUsageError(
        `--prior-aux ${JSON.stringify(pa)}: ${(e as Error).message}` +
          "; --prior-aux takes a prior of σ or φ " +
          "(half_normal, half_t, half_cauchy, exponential, inverse_gamma, flat)",
      );
    }
    if (!_SCALE_FAMILIES.includes(p.family)) {
      throw new CliUsageError(
        `--prior-aux ${
          JSON.stringify(pa)
        }: a prior of σ or φ must be half_normal, half_t, half_cauchy, exponential, inverse_gamma or flat, got ${p.family} (coefficient priors go in --prior)`,
      );
    }
    if (!_HAS_SCALE.includes(family)) {
      throw new CliUsageError(
        `--prior-aux ${JSON.stringify(pa)} is a prior of σ or φ, but --family ${name}${
          name === "gaussian" ? " with --sigma" : ""
        } has neither`,
      );
    }
    scalePrior = p as ScalePrior;
  }
  return { family, sigma, nu, offset, trials, success, priorScale, scalePrior };
}

/** The names `--prior NAME=P` takes for the scales. */
const _SCALE_NAMES = ["sigma", "phi"];

const _SCALE_FAMILIES = [
  "half_normal",
  "half_t",
  "half_cauchy",
  "exponential",
  "inverse_gamma",
  "flat",
];

/** "sigma" or "phi": the name of the family's scale in prior specs. */
function _scaleName(family: GlmModelFamily): string {
  return family === "negative-binomial" ? "phi" : "sigma";
}

/** A model built from the flags, with what to tell the user. */
export interface ModelFromFlags {
  /** The model (with its prior replaced when `--formula` or a `--prior*` flag was given). */
  readonly model: GlmModel;
  /** The prior in force when given by flags, else null (the GlmModel's own prior). */
  readonly priorLines: readonly string[] | null;
  /** The loader's warnings. */
  readonly warnings: readonly string[];
  /** Notes for stderr (how a text response was coded). */
  readonly notes: readonly string[];
}

/** Whether `--data` names a Parquet file (by its extension). */
function _isParquet(path: string): boolean {
  return /\.parquet$/i.test(path);
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
 * import { writeParquet } from "../data/parquet_write.ts";
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
  if (!_isParquet(path)) return loadCsvToArena(arena, path, options);
  const { delimiter: _d, header: _h, chunkBytes: _c, ...rest } = options;
  return loadParquet(arena, path, { ...rest, compressors: parquetDecompressors });
}

/**
 * Load the data and build the model the flags describe.
 *
 * @param arena The arena.
 * @param dataPath The CSV or Parquet (`.parquet`) file (absolute).
 * @param values Parsed flag values (`formula`, `standardize`, priors, `response`, `columns`, …).
 * @param glm The family choice, the storage of X, and how to resolve
 *   `--prior-file` (the CLI passes `resolveUserPath`).
 * @returns The model, its prior in words, warnings and notes.
 * @throws {CliUsageError} Naming the flag for offset, trials, success and prior problems.
 * @throws {RangeError} For bad data and formulas (the caller adds `--data`).
 */
export async function modelFromFlags(
  arena: Arena,
  dataPath: string,
  values: Record<string, unknown>,
  glm: { choice: FamilyChoice; storage: "f32" | "f64"; resolvePath?: (path: string) => string },
): Promise<ModelFromFlags> {
  try {
    const r = await _modelFromFlags(arena, dataPath, values, glm);
    return { ...r, warnings: r.warnings.map(cliWording) };
  } catch (e) {
    // Hints naming library options name the flags instead.
    if (e instanceof Error) e.message = cliWording(e.message);
    throw e;
  }
}

async function _modelFromFlags(
  arena: Arena,
  dataPath: string,
  values: Record<string, unknown>,
  glm: { choice: FamilyChoice; storage: "f32" | "f64"; resolvePath?: (path: string) => string },
): Promise<ModelFromFlags> {
  const { choice } = glm;
  const { withPriors, spec } = await _priorsOfFlags(values, choice, glm.resolvePath);
  const priorFamily = _priorFamily(choice);
  let data: GlmData;
  let defaults: PriorSpec | undefined;
  let offset: Float64Array | null = null, trials: Float64Array | null = null;
  const notes: string[] = [];
  const useTable = values.formula !== undefined || choice.offset !== undefined ||
    choice.trials !== undefined || choice.success !== undefined ||
    (choice.family === "logistic" &&
      await _responseIsText(dataPath, values.response as string, delimiterFromFlags(values)));
  if (useTable) {
    const formula = (values.formula as string | undefined) ??
      await _formulaFor(dataPath, values, choice);
    let fd;
    try {
      const formulaOptions = {
        formula,
        family: choice.family,
        standardize: Boolean(values.standardize),
        storage: glm.storage,
        offset: choice.offset,
        trials: choice.trials,
        success: choice.success,
        delimiter: delimiterFromFlags(values),
      };
      fd = _isParquet(dataPath)
        ? await loadParquetWithFormula(arena, dataPath, {
          ...formulaOptions,
          compressors: parquetDecompressors,
        })
        : await loadCsvWithFormula(arena, dataPath, formulaOptions);
    } catch (e) {
      const msg = (e as Error).message;
      const m = /the (offset|trials) column|^(?:.*: )?(success) "|the response .* is text with/
        .exec(msg);
      if (m === null) throw e;
      throw new CliUsageError(`--${m[1] ?? m[2] ?? "response"}: ${msg}`);
    }
    const described = _describeDesign(fd, choice, withPriors);
    defaults = described.defaults;
    notes.push(...described.notes);
    const d = fd.design;
    offset = d.offset;
    trials = d.trials;
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
    // The streaming loader checks the response's domain by its three families.
    const csvFamily: GlmFamily = choice.family === "logistic"
      ? "logistic"
      : priorFamily === "gaussian"
      ? "gaussian"
      : "poisson";
    try {
      data = await loadDataFile(arena, dataPath, {
        response: values.response as string,
        family: csvFamily,
        intercept: !values["no-intercept"],
        columns: values.columns
          ? (values.columns as string).split(",").map((s) => s.trim())
          : undefined,
        storage: glm.storage,
        delimiter: delimiterFromFlags(values),
      });
    } catch (e) {
      if (csvFamily === "poisson" && choice.family !== "poisson") {
        (e as Error).message = (e as Error).message.replace(
          "a Poisson response",
          `a ${choice.family} response`,
        );
      }
      throw e;
    }
    if (withPriors) {
      const m = columnMoments(data);
      const columnSd: Record<string, number> = {};
      data.columnNames.forEach((n, j) => (columnSd[n] = m.columnSd[j]));
      defaults = defaultPriorSpec(data.columnNames, {
        family: priorFamily,
        columnSd,
        responseMean: m.responseMean,
        responseSd: m.responseSd,
      });
    }
  }
  const built = _finishModel(data, values, choice, { spec, withPriors, defaults, offset, trials });
  for (const w of built.posteriorWarnings) console.error(`tallmc: warning: ${w}`);
  return {
    model: built.model,
    priorLines: built.priorLines,
    warnings: data.warnings ?? [],
    notes,
  };
}

/** Default priors of a formula's design, and a note on how a text response was coded. */
function _describeDesign(
  fd: FormulaData,
  choice: FamilyChoice,
  withPriors: boolean,
): { defaults: PriorSpec | undefined; notes: string[] } {
  const d = fd.design, columnSd: Record<string, number> = {};
  d.columnNames.forEach((n, j) => (columnSd[n] = d.columnSd[j] / d.scale[j]));
  const defaults = withPriors
    ? defaultPriorSpec(d.columnNames, {
      family: _priorFamily(choice),
      columnSd,
      responseMean: d.responseMean,
      responseSd: d.responseSd,
    })
    : undefined;
  const notes: string[] = [];
  if (d.responseCoding !== null) {
    const c = d.responseCoding, other = c.levels.find((l) => l !== c.success)!;
    notes.push(
      `--response ${JSON.stringify(d.formula.response)} is text with levels ${
        c.levels.map((l) => JSON.stringify(l)).join(", ")
      }: ${JSON.stringify(c.success)} is coded 1, ${JSON.stringify(other)} 0 (${
        choice.success === undefined
          ? "the level that sorts second is 1; --success LEVEL chooses"
          : "--success"
      })`,
    );
  }
  return { defaults, notes };
}

/** The family whose default priors apply ("gaussian" for the families with σ). */
function _priorFamily(choice: FamilyChoice): string {
  return _HAS_SCALE.includes(choice.family) && choice.family !== "negative-binomial"
    ? "gaussian"
    : choice.family;
}

/** What {@link modelFromFormulaData} built. */
export interface ModelFromDesign {
  /** The model with the prior in force. */
  readonly model: GlmModel;
  /** The GLM itself (its data, family, offset and trials; for predictive checks). */
  readonly glm: GlmModel;
  /** The prior in force, in words (null: the GlmModel's own N(0, S²) prior). */
  readonly priorLines: readonly string[] | null;
  /** Notes (how a text response was coded). */
  readonly notes: readonly string[];
  /** Warnings of the posterior check (separated data under a proper prior). */
  readonly posteriorWarnings: readonly string[];
}

/**
 * Build the model the flags describe over data already read through a
 * formula (`FormulaData`, e.g. from `parseCsvWithFormula` or a page's own
 * table), exactly as `sample` does after reading `--data`: the same family
 * settings, prior defaults and prior flags, so the same seed gives the same
 * draws. For callers without a file system (the web page).
 *
 * @param fd The data with its design.
 * @param values The flags' values (`family`, `sigma`, `nu`, `prior`, `prior-intercept`,
 *   `prior-aux`, `prior-scale`, `formula`, …) as `parseFlags` gives them.
 * @returns The model, the GLM, the prior in words, notes and warnings.
 * @throws {CliUsageError} Naming the flag, for bad family and prior flags.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { parseCsvWithFormula } from "../data/design.ts";
 * import { modelFromFormulaData } from "./model_options.ts";
 * const d = parseCsvWithFormula("y,g\n1,a\n0,b\n1,b\n0,a\n", { formula: "y ~ g", family: "logistic" });
 * const data = glmDataFromArrays(loadCore(), d.x, d.y, { numCols: d.numCols, columnNames: d.columnNames });
 * const { x: _x, y: _y, numRows: _n, numCols: _p, ...design } = d;
 * const built = await modelFromFormulaData({ ...data, design }, { family: "logistic", formula: "y ~ g" });
 * assert.deepEqual(built.model.parameterNames, ["(Intercept)", "g[b]"]);
 * assert.ok(built.priorLines!.some((l) => l.includes("normal")));
 * ```
 */
export async function modelFromFormulaData(
  fd: FormulaData,
  values: Record<string, unknown>,
): Promise<ModelFromDesign> {
  checkModelFlags(values);
  const choice = familyFromFlags(values);
  const { withPriors, spec } = await _priorsOfFlags(values, choice);
  const { defaults, notes } = _describeDesign(fd, choice, withPriors);
  const built = _finishModel(fd, values, choice, {
    spec,
    withPriors,
    defaults,
    offset: fd.design.offset,
    trials: fd.design.trials,
  });
  return { ...built, notes };
}

/** The prior spec the flags give, with `--prior-aux` and `--prior-scale` folded in. */
async function _priorsOfFlags(
  values: Record<string, unknown>,
  choice: FamilyChoice,
  resolvePath?: (path: string) => string,
): Promise<{ withPriors: boolean; spec: PriorSpec }> {
  const withPriors = hasModelFlags(values);
  const spec = withPriors ? await priorSpecFromFlags(values, resolvePath) : {};
  if (withPriors && choice.scalePrior !== undefined) {
    spec.scales = { ...spec.scales, [_scaleName(choice.family)]: choice.scalePrior };
  }
  if (withPriors && values["prior-scale"] !== undefined) {
    // --prior-scale S with --formula or --prior-intercept: every coefficient
    // (and the intercept, unless --prior-intercept gives it) ~ normal(0, S), as without them.
    const s: CoefficientPrior = { family: "normal", location: 0, scale: choice.priorScale };
    spec.coefficients = s;
    spec.intercept ??= s;
  }
  return { withPriors, spec };
}

/** The GLM over `data` with the family's settings, and the flags' prior on top. */
function _finishModel(
  data: GlmData,
  values: Record<string, unknown>,
  choice: FamilyChoice,
  p: {
    spec: PriorSpec;
    withPriors: boolean;
    defaults: PriorSpec | undefined;
    offset: Float64Array | null;
    trials: Float64Array | null;
  },
): Omit<ModelFromDesign, "notes"> {
  const { spec, withPriors, defaults, offset, trials } = p;
  const options: GlmOptions = { family: choice.family };
  if (choice.sigma !== undefined) options.sigma = choice.sigma;
  if (choice.nu !== undefined) options.nu = choice.nu;
  if (offset !== null) options.offset = offset;
  if (trials !== null) options.trials = trials;
  if (!withPriors) {
    options.priorScale = choice.priorScale;
    if (choice.scalePrior !== undefined) options.scalePrior = choice.scalePrior;
  }
  const glm = new GlmModel(data, options);
  if (!withPriors) {
    return { model: glm, glm, priorLines: null, posteriorWarnings: _checkPosterior(glm) };
  }
  let prior;
  try {
    // The model's first numCols parameters are X's columns: a column named
    // log_x is a coefficient, not a scale sampled on the log scale (the name
    // rule buildPrior applies to parameters it is not told about).
    const kinds: Record<string, "coefficient"> = {};
    for (const name of glm.parameterNames.slice(0, glm.numCols)) {
      if (name !== "(Intercept)") kinds[name] = "coefficient";
    }
    prior = buildPrior(glm.parameterNames, spec, { defaults, kinds });
  } catch (e) {
    const msg = (e as Error).message;
    const flag = /prior of the intercept/.test(msg) && values["prior-intercept"] !== undefined
      ? "--prior-intercept"
      : /^prior of scale/.test(msg) && values["prior-aux"] !== undefined
      ? "--prior-aux"
      : values["prior-file"] !== undefined && values.prior === undefined
      ? "--prior-file"
      : "--prior";
    throw new CliUsageError(`${flag}: ${msg}`);
  }
  const withFlags = withPrior(glm, prior);
  return {
    model: withFlags,
    glm,
    priorLines: prior.describe(),
    posteriorWarnings: _checkPosterior(withFlags),
  };
}

/**
 * Refuse an improper posterior (an unbounded direction under flat priors:
 * exit 2, naming the columns and the fix) and warn about separated data
 * under a proper prior (returned, naming the columns).
 */
function _checkPosterior(model: GlmModel): readonly string[] {
  const r = checkGlmPosterior(model, { wording: "cli" });
  if (r.error !== null) throw new CliUsageError(r.error);
  return r.warnings;
}

/**
 * The column names and the first data row of a CSV file (its first 64 KiB),
 * or a Parquet file's column names with "text" as the first cell of its text
 * columns.
 */
async function _peekCsv(
  path: string,
  delimiter: string | undefined,
): Promise<{ names: string[]; first: string[] | null }> {
  if (_isParquet(path)) {
    const cols = await parquetColumns(path);
    return { names: cols.map((c) => c.name), first: cols.map((c) => (c.text ? "text" : "0")) };
  }
  const peek = await peekInputText(path, 65536);
  let text = peek.text;
  if (peek.more) text = text.slice(0, Math.max(text.lastIndexOf("\n"), 0));
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    const t = parseColumnTable(text, { delimiter });
    return { names: [...t.names], first: t.columns.map((c) => c[0]) };
  } catch {
    const header = text.split(/\r?\n/)[0] ?? "";
    return { names: header.split(delimiter ?? ",").map((s) => s.trim()), first: null };
  }
}

/** Whether the response's first cell is text (then the file is read as a table). */
async function _responseIsText(
  path: string,
  response: string | undefined,
  delimiter: string | undefined,
): Promise<boolean> {
  if (response === undefined) return false;
  try {
    const { names, first } = await _peekCsv(path, delimiter);
    const j = names.indexOf(response);
    return first !== null && j >= 0 && first[j] !== "" && !Number.isFinite(Number(first[j]));
  } catch {
    return false; // the streaming loader reports an unreadable file
  }
}

/** `response ~ columns` (back-quoted) for data read as a table without --formula. */
async function _formulaFor(
  path: string,
  values: Record<string, unknown>,
  choice: FamilyChoice,
): Promise<string> {
  const response = values.response as string;
  const aux = [choice.offset, choice.trials].filter((v): v is string => v !== undefined);
  let columns: string[];
  if (values.columns !== undefined) {
    columns = (values.columns as string).split(",").map((s) => s.trim());
    for (const c of columns) {
      if (c === choice.offset || c === choice.trials) {
        const flag = c === choice.offset ? "--offset" : "--trials";
        throw new CliUsageError(
          `--columns names the ${flag} column ${JSON.stringify(c)}; it enters the model as the ${
            flag.slice(2)
          }, not as a covariate`,
        );
      }
    }
  } else {
    const { names } = await _peekCsv(path, delimiterFromFlags(values));
    for (const a of aux) {
      if (!names.includes(a)) {
        const flag = a === choice.offset ? "--offset" : "--trials";
        throw new CliUsageError(
          `${flag} ${JSON.stringify(a)}: no such column in --data ${path} (columns: ${
            names.join(", ")
          })`,
        );
      }
    }
    columns = names.filter((n) => n !== response && !aux.includes(n));
  }
  for (const n of [response, ...columns]) {
    if (n.includes("`")) {
      throw new CliUsageError(
        `column ${JSON.stringify(n)} contains a backquote; rename it or use --formula`,
      );
    }
  }
  const rhs = [values["no-intercept"] ? "0" : "1", ...columns.map((c) => `\`${c}\``)];
  return `\`${response}\` ~ ${rhs.join(" + ")}`;
}
