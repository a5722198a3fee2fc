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
import { isDataModel, type Model } from "../models/model.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "./driver.ts";
import { checkSampleOptionNames } from "./option_names.ts";
import { assertProperPosterior } from "./proper_posterior.ts";
import { getSampler } from "./registry.ts";

/** Options of {@link sample}: the sampler's name, the driver's options and the sampler's own. */
export type SampleOptions =
  & RunOptions
  & {
    /** A registered sampler name (see `samplerNames()`). */
    sampler: string;
    /** The sampler's own options (see its description's `options`). */
    [option: string]: unknown;
  };

/** @internal The keys of {@link SampleOptions} that go to the driver, not to the sampler. */
export const DRIVER_KEYS = [
  "seed",
  "numWarmup",
  "numSamples",
  "numChains",
  "chainIds",
  "thin",
  "initialPositions",
  "initialPosition",
  "jitter",
  "recordWarmupInfo",
  "onProgress",
  "onDraw",
] as const;

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
  const description = getSampler(options.sampler);
  checkSampleOptionNames(description.name, options, "sample()");
  assertProperPosterior(model, "sample()");
  if (description.requires === "data-model" && !isDataModel(model)) {
    throw new TypeError(
      `sampler ${
        JSON.stringify(description.name)
      } needs a DataModel (per-row likelihood and gradients)`,
    );
  }
  if (options.workers !== undefined && options.workers !== 0) {
    throw new TypeError(
      `sample() runs every chain in the calling thread (workers: 0); for workers: ${
        String(options.workers)
      } call sampleParallel()`,
    );
  }
  const driver: Record<string, unknown> = {};
  const own: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (key === "sampler" || key === "workers" || key === "workerScratchBytes") continue;
    if ((DRIVER_KEYS as readonly string[]).includes(key)) driver[key] = value;
    else own[key] = value;
  }
  const d = driver as RunOptions;
  const sampler = description.build(model, own, {
    seed: d.seed,
    numWarmup: d.numWarmup ?? 1000,
    numSamples: d.numSamples ?? 1000,
  });
  return sampleChains({ ...d, sampler, model });
}
