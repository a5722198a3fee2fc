/**
 * The model flags of `tallmc sample`: the family and its own flags
 * (`--family`, `--sigma`, `--nu`, `--offset`, `--trials`, `--success`,
 * `--prior-scale`), `--formula`, `--standardize` and the priors (`--prior`,
 * `--prior-intercept`, `--prior-file`): loading `--data` and building the
 * model they describe. The flags' specs and checks are in ./model_flags.ts,
 * their help text in ./model_help.ts, the priors they state in
 * ./prior_flags.ts, the look at `--data` before loading in ./data_peek.ts,
 * the model over the loaded data (family settings, default and stated
 * priors, the posterior check) in ./model_from_data.ts; this module
 * re-exports the flags' names.
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
import { loadCore } from "../core/load.ts";
import { type LoadCsvOptions, loadCsvToArena } from "../data/csv.ts";
import { DataTooLargeError, type GlmData } from "../data/dataset.ts";
import { columnMoments, type FormulaData } from "../data/design.ts";
import { loadCsvWithFormula } from "../data/formula_csv.ts";
import type { GlmFamily, GlmModel } from "../models/glm.ts";
import type { UserGlmModel } from "../models/user_glm.ts";
import { defaultPriorSpec } from "../models/prior_build.ts";
import type { PriorSpec } from "../models/priors.ts";
import { CliUsageError, cliWording } from "./usage.ts";
import { delimiterFromFlags, type FamilyChoice } from "./model_flags.ts";
import { describeDesign, finishModel, priorFamily, priorsOfFlags } from "./model_from_data.ts";
import { formulaFor, isParquetPath, responseIsText } from "./data_peek.ts";
import { type UserFamilyFlag, userFamilyModel } from "./user_family_flags.ts";

export {
  checkModelFlags,
  CLI_FAMILIES,
  delimiterFromFlags,
  FAMILY_OPTION_FLAGS,
  type FamilyChoice,
  familyFromFlags,
  GLM_DATA_FLAGS,
  hasModelFlags,
  MODEL_FLAGS,
  nuFlag,
} from "./model_flags.ts";
export { familyFlagsHelp, modelFlagsHelp } from "./model_help.ts";
export { priorSpecFromFlags } from "./prior_flags.ts";

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
  if (!isParquetPath(path)) return loadCsvToArena(arena, path, options);
  const { delimiter: _d, header: _h, chunkBytes: _c, ...rest } = options;
  return import("../data/parquet.ts").then((parquet) =>
    parquet.loadParquet(arena, path, { ...rest, compressors: _parquetCodecs })
  );
}

/** The codecs, once asked for. */
let _codecs: Promise<typeof import("npm:hyparquet-compressors@1.1.2").compressors> | null = null;

/**
 * The Parquet codecs (≈ 110 KiB of script), imported when a row group is
 * first decoded by hyparquet, so that a browser build that never reads a
 * Parquet file does not load them, and neither does a read the core's page
 * decoder makes whole (a snappy file: loading them cost the calling thread
 * 35–50 ms before its first row group). The Parquet readers, with their
 * library, are likewise imported only when a Parquet file is read: a CSV
 * run does not load them.
 */
function _parquetCodecs(): Promise<typeof import("npm:hyparquet-compressors@1.1.2").compressors> {
  return _codecs ??= import("npm:hyparquet-compressors@1.1.2").then((m) => m.compressors);
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
  glm: ModelFromFlagsOptions,
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

/** How {@linkcode modelFromFlags} builds the model. */
export interface ModelFromFlagsOptions {
  /** The family and its options, from the flags. */
  choice: FamilyChoice;
  /** Storage of the design matrix. */
  storage: "f32" | "f64";
  /** How to resolve `--prior-file` (the CLI passes `resolveUserPath`). */
  resolvePath?: (path: string) => string;
  /**
   * Data already loaded by an earlier call, keyed by everything that decides
   * the rows (file, response, columns or formula, family coding, storage…):
   * `tallmc compare` passes one map so that fits over the same file read it
   * once. The data is never freed by a model, so sharing it is safe.
   */
  dataCache?: Map<string, Promise<GlmData>>;
}

/** The cached load when the key was loaded before, else `load()` (and remember it). */
function _cachedLoad(
  cache: Map<string, Promise<GlmData>> | undefined,
  key: unknown[],
  load: () => Promise<GlmData>,
): Promise<GlmData> {
  if (cache === undefined) return load();
  const k = JSON.stringify(key);
  let p = cache.get(k);
  if (p === undefined) {
    p = load();
    cache.set(k, p);
    // A failed load is not remembered: the next fit reports its own error.
    p.catch(() => cache.delete(k));
  }
  return p;
}

async function _modelFromFlags(
  arena: Arena,
  dataPath: string,
  values: Record<string, unknown>,
  glm: ModelFromFlagsOptions,
): Promise<ModelFromFlags> {
  const loaded = await _loadFlagsData(arena, dataPath, values, glm, priorFamily(glm.choice));
  const { data, spec, withPriors, defaults, offset, trials, responsesChecked } = loaded;
  const built = finishModel(data, values, glm.choice, {
    spec,
    withPriors,
    defaults,
    offset,
    trials,
    responsesChecked,
  });
  for (const w of built.posteriorWarnings) console.error(`tallmc: warning: ${w}`);
  return {
    model: built.model,
    priorLines: built.priorLines,
    warnings: data.warnings ?? [],
    notes: loaded.notes,
  };
}

/**
 * Load the data as {@link modelFromFlags} does and build the model of the
 * family written in AssemblyScript that `--family-source` gave
 * (./user_family_flags.ts) over them, with the prior the flags state
 * (defaults of a family without σ: every parameter a column's coefficient).
 *
 * @param arena The arena (shared when the chains run in workers).
 * @param dataPath The CSV or Parquet file (absolute).
 * @param values Parsed flag values.
 * @param family The family's source and its loader choice.
 * @param resolvePath How to resolve `--prior-file`.
 * @returns The model, its prior in words, warnings and notes.
 * @throws {CliUsageError} Naming `--family-source` (compile errors with
 *   FILE:LINE:COLUMN) or the prior flag.
 * @throws {RangeError} For bad data and formulas (the caller adds `--data`).
 */
export async function userFamilyModelFromFlags(
  arena: Arena,
  dataPath: string,
  values: Record<string, unknown>,
  family: UserFamilyFlag,
  resolvePath?: (path: string) => string,
): Promise<Omit<ModelFromFlags, "model"> & { model: UserGlmModel }> {
  const glm = { choice: family.choice, storage: "f64" as const, resolvePath };
  try {
    const loaded = await _loadFlagsData(arena, dataPath, values, glm, null);
    const built = await userFamilyModel(loaded.data, family, { ...loaded, values });
    return {
      model: built.model,
      priorLines: built.priorLines,
      warnings: (loaded.data.warnings ?? []).map(cliWording),
      notes: loaded.notes,
    };
  } catch (e) {
    if (e instanceof Error) e.message = cliWording(e.message);
    throw e;
  }
}

/**
 * The rows `--data` holds under the flags, with the prior spec they state
 * and its defaults (of `defaultsFamily`; null: a family without σ whose
 * defaults do not scale with y), the offset and trials columns, and notes.
 */
async function _loadFlagsData(
  arena: Arena,
  dataPath: string,
  values: Record<string, unknown>,
  glm: ModelFromFlagsOptions,
  defaultsFamily: string | null,
): Promise<{
  data: GlmData;
  spec: PriorSpec;
  withPriors: boolean;
  defaults: PriorSpec | undefined;
  offset: Float64Array | null;
  trials: Float64Array | null;
  notes: string[];
  responsesChecked: boolean;
}> {
  const { choice } = glm;
  const { withPriors, spec } = await priorsOfFlags(values, choice, glm.resolvePath);
  let data: GlmData;
  let defaults: PriorSpec | undefined;
  let offset: Float64Array | null = null, trials: Float64Array | null = null;
  const notes: string[] = [];
  const useTable = values.formula !== undefined || choice.offset !== undefined ||
    choice.trials !== undefined || choice.success !== undefined ||
    (choice.family === "logistic" &&
      await responseIsText(dataPath, values.response as string, delimiterFromFlags(values)));
  if (useTable) {
    const formula = (values.formula as string | undefined) ??
      await formulaFor(dataPath, values, choice);
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
      fd = await _cachedLoad(
        glm.dataCache,
        ["formula", dataPath, formulaOptions],
        async () =>
          isParquetPath(dataPath)
            ? (await import("../data/parquet_formula.ts")).loadParquetWithFormula(arena, dataPath, {
              ...formulaOptions,
              compressors: _parquetCodecs,
            })
            : loadCsvWithFormula(arena, dataPath, formulaOptions),
      ) as FormulaData;
    } catch (e) {
      const msg = (e as Error).message;
      const m = /the (offset|trials) column|^(?:.*: )?(success) "|the response .* is text with/
        .exec(msg);
      if (m === null) throw e;
      throw new CliUsageError(`--${m[1] ?? m[2] ?? "response"}: ${msg}`);
    }
    const described = describeDesign(fd, choice, withPriors, defaultsFamily);
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
      : priorFamily(choice) === "gaussian"
      ? "gaussian"
      : "poisson";
    const csvOptions: LoadCsvOptions = {
      response: values.response as string,
      family: csvFamily,
      intercept: !values["no-intercept"],
      columns: values.columns
        ? (values.columns as string).split(",").map((s) => s.trim())
        : undefined,
      storage: glm.storage,
      delimiter: delimiterFromFlags(values),
    };
    try {
      data = await _cachedLoad(
        glm.dataCache,
        ["columns", dataPath, csvOptions],
        () => loadDataFile(arena, dataPath, csvOptions),
      );
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
        ...(defaultsFamily === null ? {} : { family: defaultsFamily }),
        columnSd,
        responseMean: m.responseMean,
        responseSd: m.responseSd,
      });
    }
  }
  // Without a table, the loader checked the response's domain as the model
  // would (logistic 0/1; Poisson's for the count families; none to check for
  // the others).
  return { data, spec, withPriors, defaults, offset, trials, notes, responsesChecked: !useTable };
}

/**
 * The model of a command that sets draws against their data (`check`,
 * `compare`): `--data` must be a readable file, the model is built by
 * {@link modelFromFlags} with f64 storage, data errors become
 * {@link CliUsageError}s naming `--data`, and the loader's notes and warnings
 * go to stderr.
 *
 * @param dataPath The `--data` file (resolved).
 * @param values Parsed flag values.
 * @param options The family choice, how to resolve `--prior-file` (the
 *   CLI's `resolveUserPath`, as for every path the user types) and
 *   `dataCache`, as {@link modelFromFlags} takes them.
 * @returns The model.
 * @throws {CliUsageError} For an unreadable file, a directory, or bad data or flags.
 */
export async function drawsDataModel(
  dataPath: string,
  values: Record<string, unknown>,
  options: Omit<ModelFromFlagsOptions, "storage" | "resolvePath"> & {
    resolvePath: (path: string) => string;
  },
): Promise<GlmModel> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dataPath);
  } catch (e) {
    throw new CliUsageError(`--data ${dataPath} cannot be read: ${(e as Error).message}`);
  }
  if (info.isDirectory) {
    throw new CliUsageError(`--data ${dataPath} is a directory; give a CSV or Parquet file`);
  }
  let built;
  try {
    built = await modelFromFlags(loadCore(), dataPath, values, { ...options, storage: "f64" });
  } catch (e) {
    if (e instanceof CliUsageError) throw e;
    const msg = (e as Error).message + dataTooLargeHint(e, false);
    throw new CliUsageError(
      msg.includes(dataPath) ? `--data: ${msg}` : `--data ${dataPath}: ${msg}`,
    );
  }
  for (const note of built.notes) console.error(`tallmc: note: ${note}`);
  for (const w of built.warnings) console.error(`tallmc: warning: --data: ${w}`);
  return built.model;
}

/**
 * What a user can do when `--data` does not fit in memory: the text to add to
 * a {@link DataTooLargeError}'s message ("" for any other error).
 *
 * @param e The error the loader threw.
 * @param f32 Whether `--f32` was given.
 * @returns "; …" or "".
 */
export function dataTooLargeHint(e: unknown, f32: boolean): string {
  if (!(e instanceof DataTooLargeError)) return "";
  const asF32 = e.numRows * (e.numCols * 4 + 8);
  return (!f32 && e.storage === "f64" && asF32 <= e.available
    ? "; --f32 stores X in half the memory and fits"
    : "") +
    "; rows beyond one memory can stay in a file: write a row store with " +
    "tallmc convert FILE OUT.rows --response COL --storage f32, then sample it with " +
    "--data OUT.rows --sampler hmc-ecs (its rows are streamed, not loaded); or in a database " +
    "table: --sampler hmc-ecs with --data duckdb:FILE.duckdb?table=T&key=COL (or postgres://… " +
    "or clickhouse://…, see --help) fetches them by key";
}
