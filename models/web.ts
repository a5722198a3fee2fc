/**
 * The models without file access, for the package's `tallmc/models` entry
 * (browsers, edge runtimes): GLMs (one thread or several), Gaussian targets,
 * normal–gamma, Gaussian mean, L1 regression, and priors. The Deno sub-path
 * `./models` (models/mod.ts) adds the file-backed sharded GLM.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { higgsShaped } from "../data/synthetic.ts";
 * import { GlmModel } from "./web.ts";
 * const { data } = higgsShaped(loadCore(), { n: 100, seed: 1 });
 * assert.equal(new GlmModel(data, { family: "logistic" }).dim, 30); // intercept + 29
 * ```
 *
 * @module
 */
export {
  type CostCounter,
  type DataModel,
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
export { type ExternalGlmModel, isExternalGlm } from "./external_glm.ts";
export { externalFromGlm } from "./in_memory_external.ts";
export {
  type CompactGlmRows,
  type ExternalGlmRows,
  type PerRowRows,
  type SubsamplingRows,
  type SubsamplingSupport,
  subsamplingSupport,
  type SubsamplingSupportProvider,
} from "./subsampling_support.ts";
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
export type { BatchedPotential } from "./batch_potential.ts";
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
