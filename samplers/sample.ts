/**
 * The top-level entry: run any registered sampler by name.
 *
 * ```ts ignore
 * const result = sample(model, { sampler: "hmc", seed: 1, numChains: 4, metricAdaptation: "dense" });
 * ```
 *
 * The driver's options (seed, sizes, chain ids, initial positions,
 * callbacks) are taken out; everything else is the sampler's own options,
 * passed to its description's `build`.
 *
 * References: Cabezas et al. (2024), BlackJAX (top-level API).
 *
 * @module
 */
import type { Model } from "../models/model.ts";
import type { SamplingResult } from "./driver.ts";
import { getSampler } from "./registry.ts";
import { type SampleOptions, sampleWith } from "./sample_with.ts";

export { DRIVER_KEYS, type SampleOptions } from "./sample_with.ts";

/**
 * Run the sampler registered as `options.sampler` on `model` through the
 * driver: build it with its own options, then {@link sampleChains}.
 *
 * @param model The target (a DataModel for samplers that require one).
 * @param options `sampler`, the driver's options and the sampler's options.
 * @returns The driver's result (draws, info, divergence counts, stops, cost).
 * @throws {RangeError} For an unknown sampler name or bad options;
 *   {@link TypeError} if the sampler needs a DataModel and `model` is not one,
 *   or for `workers` other than 0 (use `sampleParallel()` from `parallel.ts`), or an
 *   option name no built-in sampler reads (naming the closest known one).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sample } from "./sample.ts";
 * import { gaussianTarget } from "../examples/models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array([1]), new Float64Array([1]));
 * const r = sample(model, { sampler: "hmc", seed: 1, numWarmup: 200, numSamples: 200, numChains: 1,
 *   metricAdaptation: "identity" });
 * assert.equal(r.chains[0].numDraws, 200);
 * assert.equal(r.chains[0].stop, null);
 * ```
 *
 * References: Cabezas et al. (2024), BlackJAX.
 */
export function sample(model: Model, options: SampleOptions): SamplingResult {
  return sampleWith(getSampler(options.sampler), model, options);
}
