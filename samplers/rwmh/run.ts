/**
 * The typed runner of random-walk Metropolis–Hastings: {@link runRwmh}.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "../driver.ts";
import { checkRunInputs } from "../option_names.ts";
import { rwmhDescription } from "./chain_sampler.ts";
import type { RwmhSamplerOptions } from "./options.ts";

/** Options of {@link runRwmh}. */
export type RunRwmhOptions =
  & RwmhSamplerOptions
  & RunOptions;

/**
 * Run random-walk Metropolis–Hastings with warmup scale adaptation.
 *
 * @param model Any Model.
 * @param options Sampler options and driver options (seed, sizes, …).
 * @returns The driver's result; `chains[c].tuning.scale` is the adapted scale.
 *
 * @example
 * ```ts
 * import { runRwmh } from "./run.ts";
 * import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array([0, 0]), new Float64Array([1, 1]));
 * const r = runRwmh(model, { seed: 3, numWarmup: 500, numSamples: 500, numChains: 1 });
 * if (!(Number(r.chains[0].tuning.scale) > 0)) throw new Error();
 * ```
 *
 * References: Roberts, Gelman & Gilks (1997); Andrieu & Thoms (2008).
 */
export function runRwmh(model: Model, options: RunRwmhOptions): SamplingResult {
  checkRunInputs("runRwmh", model, options);
  return sampleChains({ ...options, sampler: rwmhDescription.build(model, options), model });
}
