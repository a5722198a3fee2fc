/**
 * The typed runner of SGLD: {@link runSgld}.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "../driver.ts";
import { checkRunInputs } from "../option_names.ts";
import { sgldDescription } from "./chain_sampler.ts";
import type { SgldOptions } from "./options.ts";

/**
 * Run SGLD chains with the driver ({@link sgldDescription}).
 *
 * @param model A DataModel.
 * @param options The sampler's options and the driver's (seed, sizes, …).
 * @returns The driver's result.
 * @throws {TypeError} If `model` is not a DataModel; {RangeError} for bad options.
 */
export function runSgld(model: Model, options: SgldOptions & RunOptions): SamplingResult {
  checkRunInputs("runSgld", model, options);
  const plan = {
    seed: options.seed,
    numWarmup: options.numWarmup ?? 1000,
    numSamples: options.numSamples ?? 1000,
  };
  return sampleChains({ ...options, sampler: sgldDescription.build(model, options, plan), model });
}
