/**
 * The typed runner of SGNHT: {@link runSgnht}.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "../driver.ts";
import { checkRunInputs } from "../option_names.ts";
import { sgnhtDescription } from "./chain_sampler.ts";
import type { SgnhtOptions } from "./options.ts";

/**
 * Run SGNHT chains with the driver ({@link sgnhtDescription}).
 *
 * @param model A DataModel.
 * @param options The sampler's options and the driver's (seed, sizes, …).
 * @returns The driver's result.
 * @throws {TypeError} If `model` is not a DataModel; {RangeError} for bad options.
 */
export function runSgnht(model: Model, options: SgnhtOptions & RunOptions): SamplingResult {
  checkRunInputs("runSgnht", model, options);
  const plan = {
    seed: options.seed,
    numWarmup: options.numWarmup ?? 1000,
    numSamples: options.numSamples ?? 1000,
  };
  return sampleChains({ ...options, sampler: sgnhtDescription.build(model, options, plan), model });
}
