/**
 * Run QNHMC chains with the run driver.
 *
 * References: Fu, Luo & Zhang (2016), Algorithm 2.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "../driver.ts";
import { qnhmcChainSampler } from "./chain_sampler.ts";
import type { QnhmcOptions } from "./options.ts";
import { checkRunInputs } from "../option_names.ts";

/** Options of {@link runQnhmc}: the sampler's options and the driver's. */
export type RunQnhmcOptions =
  & QnhmcOptions
  & RunOptions;

/**
 * Run QNHMC chains on `model` with the run driver.
 *
 * @param model The target.
 * @param options QNHMC options ({@link QnhmcOptions}) and the driver's
 *   (seed, numWarmup, numSamples, numChains, initial positions, …).
 * @returns The driver's result: draws, per-iteration info, cost, tuning.
 *
 * @example
 * ```ts
 * import { runQnhmc } from "./run.ts";
 * import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array(2), new Float64Array([1, 4]));
 * const r = runQnhmc(model, { seed: 1, numWarmup: 50, numSamples: 100, numChains: 2,
 *   stepSize: 0.3, numIntegrationSteps: 5 });
 * if (r.draws.length !== 2 || r.draws[0][1].length !== 100) throw new Error();
 * ```
 *
 * References: Fu, Luo & Zhang (2016), Algorithm 2.
 */
export function runQnhmc(model: Model, options: RunQnhmcOptions): SamplingResult {
  checkRunInputs("runQnhmc", model, options);
  // The chain sampler reads its own options and the driver its own, as runHmcEcs does:
  // no list of option names to keep in step with QnhmcOptions.
  const sampler = qnhmcChainSampler(model, options);
  return sampleChains({ ...options, sampler, model });
}
