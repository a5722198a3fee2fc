/**
 * The models without file access, for the package's `tallmc/models` entry
 * (browsers, edge runtimes): GLMs (one thread or several) and priors. The
 * reference targets with known posteriors are examples/mod.ts. The Deno sub-path
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
  type Bounds,
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
