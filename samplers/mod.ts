/**
 * Samplers of tallmc: kernels, integrators, metrics, adaptation and the run
 * driver.
 *
 * Kernel modules share one shape (`State`, `Info`, `init`, `step`) and are
 * re-exported as namespaces: `hmc`, `rwmh`, `sgld`, `sghmc`, `sgnht`, `ccadl`,
 * `hmcEcs`, `qnhmc`, `approxMh`, `naive`, `nuts`, `dualAveraging`. Building blocks,
 * the driver, the registry and the typed runners (`runHmc`, `runNuts`, `runRwmh`,
 * `runHmcEcs`, `runQnhmc`, `runApproxMh`, `runNaive`) are re-exported flat.
 *
 * @example
 * ```ts
 * import { runHmc } from "./mod.ts";
 * import { gaussianTarget } from "../examples/models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array([0, 0]), new Float64Array([1, 1]));
 * const r = runHmc(model, { seed: 1, numWarmup: 200, numSamples: 200, numChains: 1 });
 * if (r.draws[0].length !== 2) throw new Error();
 * ```
 *
 * @module
 */
export * as hmc from "./hmc/kernel.ts";
export * as rwmh from "./rwmh/kernel.ts";
export * as dualAveraging from "./dual_averaging.ts";
export * as sgld from "./sgld/kernel.ts";
export * as sghmc from "./sghmc/kernel.ts";
export * as sgnht from "./sgnht/kernel.ts";
export * as ccadl from "./ccadl/kernel.ts";
export * as hmcEcs from "./hmc_ecs/kernel.ts";
export * as qnhmc from "./qnhmc/kernel.ts";
export * as approxMh from "./austerity/mod.ts";
export * as naive from "./naive/mod.ts";
export * as nuts from "./nuts/kernel.ts";
// The registry entries (austerityRwmhDescription, austeritySgldDescription) are
// imported from ./austerity/chain_sampler.ts by the sampler registry, not re-exported here.
export {
  type ApproxMhInfo,
  type ApproxMhParams,
  type ApproxMhState,
  langevinProposal,
  type ProposalDraw,
  type ProposalFn,
  randomWalkProposal,
} from "./austerity/kernel.ts";
export type { ApproxMhOptions } from "./austerity/options.ts";
export { runApproxMh, type RunApproxMhOptions } from "./austerity/run.ts";
export {
  checkPositive,
  checkSgParams,
  divergenceReason,
  isExploded,
  kineticTemperature,
  reflectIntoBounds,
  type SgBaseParams,
} from "./sg/common.ts";
export type { SgldInfo, SgldParams, SgldState } from "./sgld/kernel.ts";
export type { SghmcInfo, SghmcParams, SghmcState } from "./sghmc/kernel.ts";
export type { SgnhtInfo, SgnhtParams, SgnhtState } from "./sgnht/kernel.ts";
export type { CcadlInfo, CcadlParams, CcadlState } from "./ccadl/kernel.ts";
export * from "./integrators.ts";
export * from "./metric.ts";
export * from "../math/linalg.ts";
export * from "./mass_matrix_adaptation.ts";
export * from "./hmc/warmup.ts";
export * from "./scale_adaptation.ts";
export * from "./sampler.ts";
export { getSampler, registerSampler, samplerNames } from "./registry.ts";
export { sample, type SampleOptions } from "./sample.ts";
export {
  defaultWorkers,
  type ParallelSamplingResult,
  sampleParallel,
  type SampleParallelOptions,
} from "./parallel.ts";
export type { SgSamplerOptions } from "./sg/options.ts";
export { sgldDescription } from "./sgld/chain_sampler.ts";
export { sghmcDescription } from "./sghmc/chain_sampler.ts";
export { sgnhtDescription } from "./sgnht/chain_sampler.ts";
export { ccadlDescription } from "./ccadl/chain_sampler.ts";
export * from "./driver.ts";
export * from "./run_memory.ts";
export * from "./hmc/options.ts";
export * from "./hmc/chain_sampler.ts";
export * from "./hmc/run.ts";
export {
  type AdaptiveNutsState,
  nutsDescription,
  type NutsInfo,
  type NutsOptions,
  nutsSampler,
  type NutsState,
  runNuts,
} from "./nuts/mod.ts";
export * from "./window_adaptation.ts";
export {
  dataBasedStart,
  type OptimizedStart,
  optimizeStart,
  type OptimizeStartOptions,
} from "./optimize_start.ts";
export * from "./rwmh/options.ts";
export * from "./rwmh/chain_sampler.ts";
export * from "./rwmh/run.ts";
export * from "./hmc_ecs/mod.ts";
// Types the API mentions, re-exported flat so that documentation tools see them.
export type { HmcInfo, HmcParams, HmcState } from "./hmc/kernel.ts";
export type { LogDensityFn, RwmhInfo, RwmhParams, RwmhState } from "./rwmh/kernel.ts";
export type {
  DualAveragingOptions,
  DualAveragingState,
  FindStepSizeOptions,
} from "./dual_averaging.ts";
export type { CostCounter, DataModel, Model } from "../models/model.ts";
export type { Rng } from "../random/rng.ts";
export { type AscentCheck, findUnboundedAscent } from "./unbounded_ascent.ts";
export {
  assertProperPosterior,
  checkGlmPosterior,
  type CheckGlmPosteriorOptions,
  type PosteriorCheck,
} from "./proper_posterior.ts";
export { type QnhmcOptions, runQnhmc, type RunQnhmcOptions } from "./qnhmc/mod.ts";
export {
  type NaiveOptions,
  type NaiveVariant,
  runNaive,
  type RunNaiveOptions,
} from "./naive/mod.ts";

// Types the signatures above mention, so that the documentation is complete.
export type { Arena } from "../core/arena.ts";
export type { CoreBackend } from "../core/load.ts";
export type { GlmData, Storage } from "../data/dataset.ts";
export type { GlmFamily, GlmModel, GlmModelFamily, GlmOptions } from "../models/glm.ts";
export type { Bounds } from "../models/model.ts";
export type { NuPrior } from "../models/nu_prior.ts";
export type { ScalePrior } from "../models/priors.ts";
export type { TaylorOrder } from "../subsampling/control_variates.ts";
export type { CovarianceEstimate, CovarianceKind } from "../subsampling/gradient_covariance.ts";
export type {
  EstimateOptions,
  GradientEstimate,
  GradientEstimator,
} from "../subsampling/gradient_estimators.ts";
export type { PilotDifferences } from "../subsampling/tuning.ts";
export type { HmcEcsChainSampler } from "./hmc_ecs/chain_sampler.ts";
export type { CheesOptions, CheesState } from "./trajectory_adaptation.ts";
