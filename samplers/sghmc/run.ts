/**
 * The typed runner of SG-HMC: {@link runSghmc}.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "../driver.ts";
import { checkRunInputs } from "../option_names.ts";
import { sghmcDescription } from "./chain_sampler.ts";
import type { SghmcOptions } from "./options.ts";

/**
 * Run SG-HMC chains with the driver ({@link sghmcDescription}).
 *
 * @param model A DataModel.
 * @param options The sampler's options and the driver's (seed, sizes, …).
 * @returns The driver's result.
 * @throws {TypeError} If `model` is not a DataModel; {RangeError} for bad options.
 */
export function runSghmc(model: Model, options: SghmcOptions & RunOptions): SamplingResult {
  checkRunInputs("runSghmc", model, options);
  const plan = {
    seed: options.seed,
    numWarmup: options.numWarmup ?? 1000,
    numSamples: options.numSamples ?? 1000,
  };
  return sampleChains({ ...options, sampler: sghmcDescription.build(model, options, plan), model });
}
