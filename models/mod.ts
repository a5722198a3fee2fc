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
 * - Reference targets with known posteriors, used by the tests and the
 *   replication: {@link gaussianTarget}, {@link NormalGammaModel},
 *   {@link GaussianMeanModel}, {@link L1RegressionModel}.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { gaussianTarget } from "./mod.ts";
 * const target = gaussianTarget(new Float64Array([1, 2]), new Float64Array([1, 1]));
 * const grad = new Float64Array(2);
 * const logDensity = target.logDensityAndGradient(new Float64Array([1, 2]), grad);
 * assert.ok(Math.abs(logDensity + Math.log(2 * Math.PI)) < 1e-12);
 * assert.ok(grad.every((g) => g === 0)); // the gradient vanishes at the mean
 * ```
 *
 * @module
 */
export {
  type CostCounter,
  type DataModel,
  logPosteriorAndGradient,
  type Model,
  newCostCounter,
  numRowEvaluations,
  type PerRowHessianModel,
} from "./model.ts";
export {
  DEFAULT_GLM_SCALE_PRIOR,
  type GlmFamily,
  GlmModel,
  type GlmModelFamily,
  type GlmOptions,
} from "./glm.ts";
export { DEFAULT_NU_PRIOR, type NuPrior } from "./nu_prior.ts";
export { ThreadedGlmModel, type ThreadedGlmOptions } from "./threaded_glm.ts";
export { ShardedGlmModel, type ShardedGlmOptions } from "./sharded_glm.ts";
export { type ExternalGlmModel, isExternalGlm } from "./external_glm.ts";
export { externalFromGlm } from "./in_memory_external.ts";
export {
  type GaussianTarget,
  gaussianTarget,
  type GaussianTargetOptions,
} from "./gaussian_target.ts";
export {
  type Bounds,
  NormalGammaModel,
  type NormalGammaPosterior,
  type NormalGammaPrior,
} from "./normal_gamma.ts";
export {
  type GaussianMeanBatches,
  type GaussianMeanData,
  gaussianMeanData,
  type GaussianMeanDataOptions,
  GaussianMeanModel,
  type GaussianMeanOptions,
} from "./gaussian_mean.ts";
export { L1RegressionModel, type L1RegressionOptions } from "./l1_regression.ts";
export { type BatchedPotential, contiguousBatches } from "./batch_potential.ts";
export { type AnyPrior, checkPrior, formatPrior, parsePriorText } from "./prior_text.ts";
export {
  buildPrior,
  type CoefficientPrior,
  type DefaultPriorOptions,
  defaultPriorSpec,
  logScaleDensity,
  type NuGammaPrior,
  type ParameterKind,
  Prior,
  type PriorInput,
  type PriorLayoutOptions,
  type PriorSpec,
  type ResolvedPrior,
  type ScalePrior,
  type WithPrior,
  withPrior,
} from "./priors.ts";
export {
  type CalibrationBin,
  type DensityOverlay,
  formatPpcTable,
  posteriorPredictiveCheck,
  ppcFigureSpecs,
  type PpcOptions,
  type PpcResult,
  type PpcStatistic,
  type RootogramBin,
} from "./ppc.ts";

// Types the signatures above mention, so that the documentation is complete.
export type { Arena } from "../core/arena.ts";
export type { CoreBackend } from "../core/load.ts";
export type { GlmData, Storage } from "../data/dataset.ts";
