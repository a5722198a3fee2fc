/**
 * The typed runner of CCAdL: {@link runCcadl}.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "../driver.ts";
import { checkRunInputs } from "../option_names.ts";
import { ccadlDescription } from "./chain_sampler.ts";
import type { CcadlOptions } from "./options.ts";

/**
 * Run CCAdL chains with the driver ({@link ccadlDescription}).
 *
 * @param model A DataModel.
 * @param options The sampler's options and the driver's (seed, sizes, …).
 * @returns The driver's result.
 * @throws {TypeError} If `model` is not a DataModel; {RangeError} for bad options.
 */
export function runCcadl(model: Model, options: CcadlOptions & RunOptions): SamplingResult {
  checkRunInputs("runCcadl", model, options);
  const plan = {
    seed: options.seed,
    numWarmup: options.numWarmup ?? 1000,
    numSamples: options.numSamples ?? 1000,
  };
  return sampleChains({ ...options, sampler: ccadlDescription.build(model, options, plan), model });
}
