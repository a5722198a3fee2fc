/**
 * The models of tallmc: what a sampler evaluates.
 *
 * - The interfaces: {@link Model} (a log density and its gradient),
 *   {@link DataModel} (one that is a sum over rows, which the subsampling
 *   samplers need) and {@link PerRowHessianModel} (per-row Hessians too, for
 *   HMC-ECS's second-order control variates), with the row-evaluation
 *   {@link CostCounter} every model carries.
 * - GLMs on the WebAssembly core: {@link GlmModel} (every family in memory),
 *   {@link ThreadedGlmModel} (full-data passes over threads),
 *   {@link ShardedGlmModel} (rows over workers, or streamed from a row
 *   store), both of the latter {@link ExternalGlmModel}s; a family written
 *   in AssemblyScript has its own entry point, `models/user_glm.ts`, so that
 *   importing this module does not load the compiler.
 * - Priors users state: {@link buildPrior}, {@link withPrior} (normal,
 *   Student-t, Cauchy, Laplace, flat; half-normal, half-t, half-Cauchy,
 *   exponential for scales), and their text form ({@link parsePriorText}).
 * - Prior p(θ) × likelihood × rows in one constructor: {@link defineModel}
 *   (docs/compose.md), rows in memory, on threads, shards, a row store, or
 *   a SQL engine ({@link DatabaseRowSource}, opened by engines/duckdb.ts or
 *   engines/database_glm.ts).
 *
 * Reference targets with known posteriors (a Gaussian, normal–gamma,
 * Gaussian mean, L1 regression) are examples/mod.ts, outside the library.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "./mod.ts";
 * const data = glmDataFromArrays(loadCore(), [1, 0.5, 1, -0.5], [1, 0], { numCols: 2 });
 * const model = new GlmModel(data, { family: "logistic" });
 * const grad = new Float64Array(2);
 * assert.ok(Number.isFinite(model.logDensityAndGradient(new Float64Array(2), grad)));
 * ```
 *
 * @module
 */
// Everything without file access is in ./web.ts (the package's browser /
// edge entry); this module adds the file-backed sharded GLM.
export * from "./web.ts";
export { type GradientFn, gradientOnlyFn, logPosteriorAndGradient } from "./model.ts";
export { ShardedGlmModel, type ShardedGlmOptions } from "./sharded_glm.ts";
export { contiguousBatches } from "./batch_potential.ts";
export {
  type AssemblyScriptLikelihood,
  type ComposedModel,
  defineModel,
  type GlmLikelihood,
  type GlmPriorOptions,
  type Likelihood,
  type ModelDefinition,
  RowFunctionHessianModel,
  type RowFunctionLikelihood,
  RowFunctionModel,
  type RowSource,
} from "./compose.ts";
// A SQL engine's rows: the interface engines' entry points implement, and the model over them.
export {
  DATABASE_GLM_FAMILIES,
  type DatabaseGlmFamily,
  type DatabaseGlmModel,
  databaseGlmModel,
  type DatabaseRowSource,
} from "./database_glm.ts";
// Only the type: the AssemblyScript family's module loads when defineModel is given one.
export type { UserGlmModel } from "./user_glm.ts";
export {
  type CalibrationBin,
  type DensityOverlay,
  posteriorPredictiveCheck,
  type PpcOptions,
  type PpcResult,
  type PpcStatistic,
  type RootogramBin,
} from "./ppc.ts";
export { formatPpcTable, ppcFigureSpecs } from "./ppc_report.ts";

// Types the signatures above mention, so that the documentation is complete.
export type { Arena } from "../core/arena.ts";
export type { CoreBackend } from "../core/load.ts";
export type { GlmData, Storage } from "../data/dataset.ts";
