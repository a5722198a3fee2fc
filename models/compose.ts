/**
 * One constructor for every model: a prior, a row likelihood and a row
 * source, given to {@link defineModel}, which builds the model class that
 * combination has always had (so every sampler runs on it unchanged, and a
 * seeded run gives the same draws as the class built by hand):
 *
 * ```
 *  likelihood ╲ rows   GlmData       {data, threads}   {data, shards}    {rowStore, …}        {count}           {database}
 *  GLM family spec     GlmModel      ThreadedGlmModel  ShardedGlmModel   ShardedGlmModel      —                 DatabaseGlmModel
 *                                                      ("memory")        ("memory"/"stream")
 *  {assemblyScript}    UserGlmModel  ThreadedGlmModel  ShardedGlmModel   ShardedGlmModel      —                 DatabaseGlmModel
 *  TypeScript per-row  —             —                 —                 —                    RowFunctionModel  —
 * ```
 *
 * A cell marked — is a TypeError naming the likelihood and the row source.
 * `{ database }` is a {@link DatabaseRowSource} an engine's entry point
 * opened (`openDuckDbRows` in engines/duckdb.ts, `openDatabaseRows` in
 * engines/database_glm.ts): the rows stay in the engine, fetched by key, and
 * every full-data pass is one SQL aggregate where the engine's SQL has the
 * family's sums, else the rows streamed through the core's family kernels
 * (models/database_glm.ts). This module imports no engine.
 *
 * The prior: omitted, the likelihood's own (a GLM's N(0, 10²) per coefficient
 * and half-normal(10) on σ or φ, as the CLI without prior flags); a
 * {@link GlmPriorOptions} object (`priorScale`, `priorMean`, …), the GLM's own
 * prior with those settings; a {@link PriorSpec} or a {@link Prior}, put on
 * the model with `withPrior`, parameters it does not name taking the CLI's
 * defaults (`defaultPriorSpec` scaled by the columns' sds for rows in memory,
 * on unit sds for a row store; an AssemblyScript family's parameters are all
 * coefficients of columns).
 *
 * docs/compose.md has the table with the samplers each cell runs.
 *
 * @module
 */
import { dataViews } from "../core/row_buffer.ts";
import type { GlmData } from "../data/dataset.ts";
import {
  type DatabaseGlmModel,
  databaseGlmModel,
  type DatabaseRowSource,
  databaseUserGlmModel,
  isDatabaseRowSource,
} from "./database_glm.ts";
import { GlmModel, type GlmModelFamily, type GlmOptions } from "./glm.ts";
import {
  RowFunctionHessianModel,
  type RowFunctionLikelihood,
  RowFunctionModel,
} from "./row_function.ts";
import type { NuPrior } from "./nu_prior.ts";
import {
  buildPrior,
  defaultPriorSpec,
  Prior,
  type PriorSpec,
  type ScalePrior,
  withPrior,
} from "./priors.ts";
import { ShardedGlmModel, type ShardedGlmOptions } from "./sharded_glm.ts";
import { ThreadedGlmModel } from "./threaded_glm.ts";

export { RowFunctionHessianModel, type RowFunctionLikelihood, RowFunctionModel };
import type { UserGlmModel } from "./user_glm.ts";

/** A GLM family and its settings (the likelihood part of {@link GlmOptions}). */
export interface GlmLikelihood {
  /** The family (models/glm.ts has the table). */
  family: GlmModelFamily;
  /** Known residual sd ("gaussian"). */
  sigma?: number;
  /** Degrees of freedom ("student-t"): fixed, or "sample". */
  nu?: number | "sample";
  /** Prior on a sampled ν (default Gamma(2, 0.1) on ν > 1). */
  nuPrior?: NuPrior;
  /** Offset per row ("poisson", "negative-binomial"); a row store's is its aux column. */
  offset?: ArrayLike<number>;
  /** Trials per row ("binomial"); a row store's are its aux column. */
  trials?: ArrayLike<number>;
  /** Prior on σ or φ, as an object or text (default half-normal(10)). */
  scalePrior?: ScalePrior | string;
}

/** A family written in AssemblyScript (see models/user_glm.ts). */
export interface AssemblyScriptLikelihood {
  /** AssemblyScript defining logLik, dLogLik and d2LogLik, each (eta: f64, y: f64): f64. */
  assemblyScript: string;
}

/** The row likelihood of {@link defineModel}. */
export type Likelihood = GlmLikelihood | AssemblyScriptLikelihood | RowFunctionLikelihood;

/**
 * The rows of {@link defineModel}: a data set in memory (one arena), or one
 * of these; `{ database }` is a row source an engine's entry point opened
 * (the model takes it over: its `close()` closes it, as does a refusal).
 */
export type RowSource =
  | GlmData
  | { data: GlmData; threads: number }
  | { data: GlmData; shards: number }
  | {
    rowStore: string;
    shards?: number;
    stream?: boolean;
    chunkRows?: number;
    checkSource?: boolean;
  }
  | { count: number }
  | { database: DatabaseRowSource }
  | { sql: unknown };

/** The GLM's own prior settings (the prior part of {@link GlmOptions}). */
export interface GlmPriorOptions {
  /** Prior sd per coefficient: one number or one per column (default 10; Infinity = flat). */
  priorScale?: number | ArrayLike<number>;
  /** Prior mean per coefficient (default 0). */
  priorMean?: number | ArrayLike<number>;
  /** Index of an intercept column with its own prior sd. */
  interceptColumn?: number;
  /** Prior sd of the intercept column. */
  interceptPriorScale?: number;
}

/** What {@link defineModel} takes. */
export interface ModelDefinition {
  /** The prior (see the module notes; default: the likelihood's own). */
  prior?: PriorSpec | Prior | GlmPriorOptions;
  /** The per-row likelihood. */
  likelihood: Likelihood;
  /** Where the rows are. */
  rows: RowSource;
}

/** What {@link defineModel} returns: the class of the combination (module table). */
export type ComposedModel =
  | GlmModel
  | ThreadedGlmModel
  | ShardedGlmModel
  | UserGlmModel
  | RowFunctionModel
  | DatabaseGlmModel;

const GLM_PRIOR_KEYS = ["priorScale", "priorMean", "interceptColumn", "interceptPriorScale"];
const SPEC_KEYS = ["coefficients", "intercept", "terms", "scales"];
const GLM_LIKELIHOOD_KEYS = ["family", "sigma", "nu", "nuPrior", "offset", "trials", "scalePrior"];

type RowKind = "arena" | "threads" | "shards" | "rowStore" | "count" | "database" | "sql";
type LikelihoodKind = "glm" | "assemblyScript" | "rowFunction";

/**
 * {@link defineModel} over a SQL engine's rows (`rows: { database: source }`):
 * the model is a {@link DatabaseGlmModel} (its `close()` ends the source's
 * worker and connection).
 *
 * @param definition `{ prior, likelihood, rows: { database } }`.
 * @returns The model over the source.
 */
export function defineModel(
  definition: ModelDefinition & { rows: { database: DatabaseRowSource } },
): Promise<DatabaseGlmModel>;
/**
 * Build a model from a prior, a row likelihood and a row source (see the
 * module table for the class each combination gives).
 *
 * @param definition `{ prior, likelihood, rows }`.
 * @returns The model; workers (threads, shards, a database row source's
 *   connection) are running once it resolves: call its `close()` when done
 *   (`dispose()` for GlmModel and UserGlmModel frees their scratch). A
 *   `{ database }` row source is closed when the call fails.
 * @throws {TypeError} For a combination that does not exist (naming the
 *   likelihood and the row source), an unrecognised likelihood, row source
 *   or prior; the errors of the class's own constructor otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { defineModel } from "./compose.ts";
 * import { GlmModel } from "./glm.ts";
 * const data = glmDataFromArrays(loadCore(), [1, 0.3, 1, -1.2, 1, 0.8], [1, 0, 1], {
 *   numCols: 2, columnNames: ["(Intercept)", "x"] });
 * const model = await defineModel({
 *   prior: { coefficients: "normal(0, 2.5)" },
 *   likelihood: { family: "logistic" },
 *   rows: data,
 * });
 * assert.ok(model instanceof GlmModel);
 * await assert.rejects(
 *   defineModel({ likelihood: { family: "logistic" }, rows: { sql: "SELECT * FROM t" } }),
 *   /GLM family "logistic" on SQL engine rows/,
 * );
 * ```
 */
export function defineModel(definition: ModelDefinition): Promise<ComposedModel>;
export async function defineModel(definition: ModelDefinition): Promise<ComposedModel> {
  try {
    return await _define(definition);
  } catch (e) {
    // A row source handed over is the model's: a refusal closes it (its worker
    // would otherwise keep the process alive, with no handle left to close it).
    const given = (definition as { rows?: { database?: unknown } } | null)?.rows?.database;
    if (isDatabaseRowSource(given)) given.close();
    throw e;
  }
}

async function _define(definition: ModelDefinition): Promise<ComposedModel> {
  if (typeof definition !== "object" || definition === null) {
    throw new TypeError(
      `defineModel takes { prior, likelihood, rows }, got ${String(definition)}`,
    );
  }
  const extra = Object.keys(definition).filter((k) => !["prior", "likelihood", "rows"].includes(k));
  if (extra.length > 0) {
    throw new TypeError(
      `defineModel takes { prior, likelihood, rows }; unknown key ${JSON.stringify(extra[0])}`,
    );
  }
  const lk = _likelihoodKind(definition.likelihood);
  const rk = _rowKind(definition.rows);
  const prior = definition.prior;
  const refuse = (hint: string) =>
    new TypeError(
      `${_describeLikelihood(definition.likelihood, lk)} on ${
        _describeRows(rk)
      } is not supported: ${hint}`,
    );
  if (rk === "sql") {
    throw refuse(
      "SQL text is not a row source: open one with openDuckDbRows (engines/duckdb.ts) or " +
        "openDatabaseRows (engines/database_glm.ts: PostgreSQL, ClickHouse) and give " +
        "rows: { database: source }",
    );
  }
  if (rk === "database") {
    const source = (definition.rows as { database: DatabaseRowSource }).database;
    const glmPrior = _isGlmPrior(prior) ? prior as GlmPriorOptions : undefined;
    if (lk === "assemblyScript") {
      const priorScale = glmPrior?.priorScale;
      if (
        glmPrior !== undefined &&
        (Object.keys(glmPrior).some((k) => k !== "priorScale") ||
          priorScale !== undefined && typeof priorScale !== "number")
      ) {
        throw new TypeError(
          `prior: a family written in AssemblyScript takes one priorScale (a number) of its own, ` +
            `or a prior spec; got ${JSON.stringify(glmPrior)}`,
        );
      }
      const model = await databaseUserGlmModel(source, {
        source: (definition.likelihood as AssemblyScriptLikelihood).assemblyScript,
        ...(typeof priorScale === "number" ? { priorScale } : {}),
      });
      if (prior === undefined || glmPrior !== undefined) return model;
      return withPrior(model, _resolveGlmNames(model, undefined, prior as PriorSpec | Prior, null));
    }
    if (lk !== "glm") {
      throw refuse(
        "a SQL engine's rows serve the GLM families and a family written in AssemblyScript; " +
          "a TypeScript per-row likelihood reads its own rows (rows: { count: n })",
      );
    }
    const lik = definition.likelihood as GlmLikelihood;
    for (const key of ["offset", "trials"] as const) {
      if (lik[key] !== undefined) {
        throw refuse(
          `the ${key} of a SQL engine's rows is a column of the table: open the source with ` +
            `${key}: "COLUMN" (openDuckDbRows, openDatabaseRows) and give no ${key} here`,
        );
      }
    }
    const model = databaseGlmModel(source, { ...lik, ...(glmPrior ?? {}) });
    if (prior === undefined || glmPrior !== undefined) return model;
    // A failure here closes the source (defineModel's catch).
    return withPrior(
      model,
      _resolveGlmNames(model, _priorFamily(lik.family), prior as PriorSpec | Prior, null),
    );
  }
  if (lk === "rowFunction") {
    if (rk !== "count") {
      throw refuse("a TypeScript per-row likelihood reads its own rows; give rows: { count: n }");
    }
    const spec = _priorSpecOrPrior(prior, "a TypeScript per-row likelihood");
    return _rowFunctionModel(
      definition.likelihood as RowFunctionLikelihood,
      (definition.rows as { count: number }).count,
      spec,
    );
  }
  if (rk === "count") {
    throw refuse(
      "{ count } is for a TypeScript per-row likelihood; give a data set (GlmData) or a row store",
    );
  }
  if (lk === "assemblyScript") {
    const { UserGlmModel, shardedUserGlmModel } = await import("./user_glm.ts");
    const glmPrior = _isGlmPrior(prior) ? prior as GlmPriorOptions : undefined;
    if (glmPrior !== undefined) {
      const other = Object.keys(glmPrior).filter((k) => k !== "priorScale");
      if (
        other.length > 0 || (glmPrior.priorScale !== undefined &&
          typeof glmPrior.priorScale !== "number")
      ) {
        throw new TypeError(
          `prior: a family written in AssemblyScript takes one priorScale (a number) of its own, ` +
            `or a prior spec; got ${JSON.stringify(glmPrior)}`,
        );
      }
    }
    const userOptions = {
      source: (definition.likelihood as AssemblyScriptLikelihood).assemblyScript,
      ...(glmPrior?.priorScale === undefined ? {} : { priorScale: glmPrior.priorScale as number }),
    };
    if (rk === "shards" || rk === "rowStore") {
      const at = _shardSource(definition.rows as { data: GlmData } | { rowStore: string });
      const sharded = await shardedUserGlmModel(at.source, userOptions, at.options);
      if (prior === undefined || glmPrior !== undefined) return sharded;
      try {
        const spec = prior as PriorSpec | Prior;
        return withPrior(sharded, _resolveGlmNames(sharded, undefined, spec, at.data));
      } catch (e) {
        sharded.close();
        throw e;
      }
    }
    const data = rk === "arena" ? definition.rows as GlmData : (definition.rows as {
      data: GlmData;
    }).data;
    const user = await UserGlmModel.create(data, userOptions);
    let model: UserGlmModel = user;
    try {
      if (prior !== undefined && glmPrior === undefined) {
        // Every parameter is a column's coefficient; defaults scaled by the columns' sds.
        const names = { parameterNames: user.parameterNames, dim: user.dim, numCols: user.dim };
        model = withPrior(
          user,
          _resolveGlmNames(names, undefined, prior as PriorSpec | Prior, user.data),
        );
      }
      if (rk === "arena") return model;
      return await ThreadedGlmModel.create(model, {
        threads: (definition.rows as { threads: number }).threads,
      });
    } catch (e) {
      user.dispose();
      throw e;
    }
  }
  // A GLM family.
  const lik = definition.likelihood as GlmLikelihood;
  const glmPrior = _isGlmPrior(prior) ? prior as GlmPriorOptions : undefined;
  const options: GlmOptions = { ...lik, ...(glmPrior ?? {}) };
  const spec = prior !== undefined && glmPrior === undefined ? prior as PriorSpec | Prior : null;
  const rows = definition.rows as Exclude<
    RowSource,
    { count: number } | { sql: unknown } | { database: DatabaseRowSource }
  >;
  if (rk === "arena" || rk === "threads") {
    const data = rk === "arena" ? rows as GlmData : (rows as { data: GlmData }).data;
    const glm = new GlmModel(data, options);
    const model = spec === null ? glm : withPrior(glm, _resolveGlm(glm, spec, data));
    if (rk === "arena") return model;
    try {
      return await ThreadedGlmModel.create(model, {
        threads: (rows as { threads: number }).threads,
      });
    } catch (e) {
      glm.dispose();
      throw e;
    }
  }
  const at = _shardSource(rows as { data: GlmData; shards: number } | { rowStore: string });
  const data = at.data;
  const sharded = await ShardedGlmModel.create(at.source, options, at.options);
  if (spec === null) return sharded;
  try {
    return withPrior(sharded, _resolveGlmNames(sharded, _priorFamily(lik.family), spec, data));
  } catch (e) {
    sharded.close();
    throw e;
  }
}

function _likelihoodKind(l: unknown): LikelihoodKind {
  if (typeof l !== "object" || l === null) {
    throw new TypeError(
      `likelihood must be a GLM family spec ({ family, … }), { assemblyScript: source } or a ` +
        `per-row function ({ parameterNames, logLikRow }), got ${String(l)}`,
    );
  }
  const o = l as Record<string, unknown>;
  if ("family" in o) {
    const bad = Object.keys(o).filter((k) => !GLM_LIKELIHOOD_KEYS.includes(k));
    if (bad.length > 0) {
      throw new TypeError(
        `likelihood: a GLM family spec takes ${GLM_LIKELIHOOD_KEYS.join(", ")}; got ${
          JSON.stringify(bad[0])
        }${GLM_PRIOR_KEYS.includes(bad[0]) ? " (a prior setting: give it in prior)" : ""}`,
      );
    }
    return "glm";
  }
  if ("assemblyScript" in o) {
    if (typeof o.assemblyScript !== "string") {
      throw new TypeError(
        `likelihood.assemblyScript must be source text, got ${typeof o.assemblyScript}`,
      );
    }
    return "assemblyScript";
  }
  if (typeof o.logLikRow === "function") {
    if (!Array.isArray(o.parameterNames) || o.parameterNames.length === 0) {
      throw new TypeError(
        `likelihood.parameterNames must list one name per coordinate of θ, got ${
          JSON.stringify(o.parameterNames)
        }`,
      );
    }
    return "rowFunction";
  }
  throw new TypeError(
    `likelihood must be a GLM family spec ({ family, … }), { assemblyScript: source } or a ` +
      `per-row function ({ parameterNames, logLikRow }); got keys ${
        JSON.stringify(Object.keys(o))
      }`,
  );
}

function _rowKind(r: unknown): RowKind {
  if (typeof r === "object" && r !== null) {
    const o = r as Record<string, unknown>;
    if ("arena" in o && typeof o.numRows === "number") return "arena";
    if ("sql" in o) return "sql";
    if ("database" in o) {
      if (!isDatabaseRowSource(o.database)) {
        throw new TypeError(
          `rows.database must be a row source opened by an engine's entry point (openDuckDbRows ` +
            `in engines/duckdb.ts, openDatabaseRows in engines/database_glm.ts), got ${
              typeof o.database === "object" && o.database !== null
                ? `keys ${JSON.stringify(Object.keys(o.database))}`
                : String(o.database)
            }`,
        );
      }
      return "database";
    }
    if ("threads" in o && "data" in o) return "threads";
    if ("shards" in o && "data" in o) return "shards";
    if ("rowStore" in o) return "rowStore";
    if ("count" in o) {
      const n = o.count;
      if (!(typeof n === "number" && Number.isInteger(n) && n >= 1)) {
        throw new RangeError(`rows.count must be a positive integer, got ${String(n)}`);
      }
      return "count";
    }
  }
  throw new TypeError(
    `rows must be a data set in memory (GlmData), { data, threads }, { data, shards }, ` +
      `{ rowStore: path, shards?, stream? }, { count: n } or { database: source }; got ${
        typeof r === "object" && r !== null ? `keys ${JSON.stringify(Object.keys(r))}` : String(r)
      }`,
  );
}

function _describeLikelihood(l: Likelihood, kind: LikelihoodKind): string {
  if (kind === "glm") return `GLM family ${JSON.stringify((l as GlmLikelihood).family)}`;
  if (kind === "assemblyScript") return "an AssemblyScript family";
  return "a TypeScript per-row likelihood";
}

function _describeRows(kind: RowKind): string {
  return {
    arena: "rows in memory",
    threads: "threads",
    shards: "shards in memory",
    rowStore: "row store",
    count: "{ count } rows",
    database: "SQL engine rows",
    sql: "SQL engine rows",
  }[kind];
}

function _isGlmPrior(prior: unknown): boolean {
  if (prior === undefined || prior instanceof Prior) return false;
  if (typeof prior !== "object" || prior === null) {
    throw new TypeError(
      `prior must be a prior spec ({ coefficients, intercept, terms, scales }), a Prior or ` +
        `GLM prior settings ({ priorScale, … }), got ${String(prior)}`,
    );
  }
  const keys = Object.keys(prior);
  const glm = keys.filter((k) => GLM_PRIOR_KEYS.includes(k));
  const spec = keys.filter((k) => SPEC_KEYS.includes(k));
  if (glm.length > 0 && spec.length > 0) {
    throw new TypeError(
      `prior: give either a prior spec (${spec.join(", ")}) or GLM prior settings ` +
        `(${glm.join(", ")}), not both`,
    );
  }
  const other = keys.filter((k) => !GLM_PRIOR_KEYS.includes(k) && !SPEC_KEYS.includes(k));
  if (other.length > 0) {
    throw new TypeError(
      `prior: unknown key ${JSON.stringify(other[0])} (a prior spec takes ${
        SPEC_KEYS.join(", ")
      }; GLM prior settings ${GLM_PRIOR_KEYS.join(", ")})`,
    );
  }
  return glm.length > 0;
}

function _priorSpecOrPrior(prior: unknown, what: string): PriorSpec | Prior | undefined {
  if (_isGlmPrior(prior)) {
    throw new TypeError(
      `prior: ${what} takes a prior spec ({ coefficients, intercept, terms, scales }) or a ` +
        `Prior, not GLM prior settings (${Object.keys(prior as object).join(", ")})`,
    );
  }
  return prior as PriorSpec | Prior | undefined;
}

/** The prior on `names`: a Prior as it is, a spec over `defaults` (X's columns are coefficients). */
function _resolve(
  names: readonly string[],
  dim: number,
  spec: PriorSpec | Prior,
  defaults: PriorSpec | undefined,
  numCols: number | null,
): Prior {
  if (spec instanceof Prior) {
    if (spec.dim !== dim) {
      throw new RangeError(`prior: the Prior has ${spec.dim} parameters but the model has ${dim}`);
    }
    return spec;
  }
  const kinds: Record<string, "coefficient"> = {};
  for (const name of names.slice(0, numCols ?? 0)) {
    if (name !== "(Intercept)") kinds[name] = "coefficient";
  }
  return buildPrior(names, spec, { ...(defaults ? { defaults } : {}), kinds });
}

/** The family whose default priors apply ("gaussian" for σ families, as the CLI). */
function _priorFamily(family: GlmModelFamily): string {
  return family === "gaussian-scale" || family === "student-t" ? "gaussian" : family;
}

function _resolveGlm(glm: GlmModel, spec: PriorSpec | Prior, data: GlmData): Prior {
  return _resolveGlmNames(glm, _priorFamily(glm.family), spec, data);
}

/** A GLM's prior from a spec, with the CLI's defaults (column sds from `data` when in memory). */
function _resolveGlmNames(
  model: { parameterNames: readonly string[]; dim: number; numCols: number },
  priorFamily: string | undefined,
  spec: PriorSpec | Prior,
  data: GlmData | null,
): Prior {
  if (spec instanceof Prior) return _resolve(model.parameterNames, model.dim, spec, undefined, 0);
  const columns = model.parameterNames.slice(0, model.numCols);
  const m = data === null ? null : _moments(data);
  const columnSd: Record<string, number> = {};
  if (m !== null) columns.forEach((n, j) => (columnSd[n] = m.columnSd[j]));
  const defaults = defaultPriorSpec(columns, {
    ...(priorFamily === undefined ? {} : { family: priorFamily }),
    ...(m === null ? {} : { columnSd, responseMean: m.responseMean, responseSd: m.responseSd }),
  });
  return _resolve(model.parameterNames, model.dim, spec, defaults, model.numCols);
}

/** Column and response sds of data in memory (the sums data/design.ts's columnMoments makes). */
function _moments(data: GlmData) {
  const n = data.numRows, p = data.numCols;
  const { x, y } = dataViews(data);
  const mean = new Float64Array(p), columnSd = new Float64Array(p);
  for (let i = 0; i < n; i++) for (let j = 0; j < p; j++) mean[j] += x[i * p + j];
  for (let j = 0; j < p; j++) mean[j] /= n;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) columnSd[j] += (x[i * p + j] - mean[j]) ** 2;
  }
  for (let j = 0; j < p; j++) columnSd[j] = n > 1 ? Math.sqrt(columnSd[j] / (n - 1)) : 0;
  let ym = 0, yss = 0;
  for (let i = 0; i < n; i++) ym += y[i];
  ym /= n;
  for (let i = 0; i < n; i++) yss += (y[i] - ym) ** 2;
  return { columnSd, responseMean: ym, responseSd: n > 1 ? Math.sqrt(yss / (n - 1)) : 0 };
}

function _rowFunctionModel(
  lik: RowFunctionLikelihood,
  n: number,
  spec: PriorSpec | Prior | undefined,
): RowFunctionModel {
  const names = lik.parameterNames;
  const prior = _resolve(names, names.length, spec ?? {}, undefined, null);
  return typeof lik.hessianRow === "function"
    ? new RowFunctionHessianModel(lik, n, prior)
    : new RowFunctionModel(lik, n, prior);
}

/** Where a sharded model's rows come from: `{ data, shards }` or `{ rowStore, … }`. */
function _shardSource(
  rows: { data: GlmData; shards?: number } | {
    rowStore: string;
    shards?: number;
    stream?: boolean;
    chunkRows?: number;
    checkSource?: boolean;
  },
): { source: string | GlmData; options: ShardedGlmOptions; data: GlmData | null } {
  if ("data" in rows) {
    return {
      source: rows.data,
      options: { workers: rows.shards, shardKind: "memory" },
      data: rows.data,
    };
  }
  if (typeof rows.rowStore !== "string") {
    throw new TypeError(`rows.rowStore must be a file path, got ${String(rows.rowStore)}`);
  }
  return {
    source: rows.rowStore,
    options: {
      ...(rows.shards === undefined ? {} : { workers: rows.shards }),
      shardKind: rows.stream === true ? "stream" : "memory",
      ...(rows.chunkRows === undefined ? {} : { chunkRows: rows.chunkRows }),
      ...(rows.checkSource === undefined ? {} : { checkSource: rows.checkSource }),
    },
    data: null,
  };
}
