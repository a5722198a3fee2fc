/**
 * Naive subsampled HMC (Betancourt 2015): between- and within-trajectory
 * subsampling and the symmetric composition, as DIAGNOSTICS that show why
 * naive gradient subsampling breaks HMC (see `chain_sampler.ts`).
 *
 * @module
 */
export * as between from "./between.ts";
export * as within from "./within.ts";
export * as symmetric from "./symmetric.ts";
export {
  type BatchSequenceFn,
  checkCandidateBatches,
  drawBatch,
  init,
  type NaiveInfo,
  type NaiveParams,
  type NaiveState,
  transition,
} from "./kernel.ts";
export {
  type BatchIntegratorOptions,
  type BatchIntegratorResult,
  batchLogDensityFn,
  integrateBatches,
  symmetricSequence,
} from "./integrator.ts";
export {
  NAIVE_SAMPLERS,
  naiveBetween,
  naiveBetweenMh,
  naiveChainSampler,
  naiveSymmetric,
  naiveSymmetricMh,
  naiveWithin,
  naiveWithinMh,
} from "./chain_sampler.ts";
export type { NaiveOptions, NaiveVariant } from "./options.ts";
export { runNaive, type RunNaiveOptions } from "./run.ts";
