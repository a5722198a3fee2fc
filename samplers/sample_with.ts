/**
 * {@link sampleWith}: the body of `sample()` (./sample.ts) for a sampler
 * description in hand, without the registry, so that a caller that loaded
 * one sampler (./catalog.ts) does not import them all.
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
import {
  checkSampleOptionNames,
  RUN_OPTION_NAMES,
  WORKER_POOL_OPTION_NAMES,
} from "./option_names.ts";
import { assertProperPosterior } from "./proper_posterior.ts";
import type { SamplerDescription } from "./sampler.ts";

/** Options of `sample()`: the sampler's name, the driver's options and the sampler's own. */
export type SampleOptions =
  & RunOptions
  & {
    /** A registered sampler name (see `samplerNames()`). */
    sampler: string;
    /** The sampler's own options (see its description's `options`). */
    [option: string]: unknown;
  };

/** @internal The keys of {@link SampleOptions} that go to the driver, not to the sampler. */
export const DRIVER_KEYS = RUN_OPTION_NAMES;

/**
 * Run `description`'s sampler on `model` through the driver, as `sample()`
 * does for a registered name: build it with its own options, then
 * {@link sampleChains}.
 *
 * @param description The sampler's description (e.g. from `loadSampler()`).
 * @param model The target (a DataModel for samplers that require one).
 * @param options `sampler` (its name), the driver's options and the sampler's options.
 * @returns The driver's result (draws, info, divergence counts, stops, cost).
 * @throws {RangeError} For bad options; {@link TypeError} as `sample()`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSampler } from "./catalog.ts";
 * import { sampleWith } from "./sample_with.ts";
 * import { gaussianTarget } from "../examples/models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array([1]), new Float64Array([1]));
 * const r = sampleWith(await loadSampler("rwmh"), model, { sampler: "rwmh", seed: 1,
 *   numWarmup: 100, numSamples: 100, numChains: 1 });
 * assert.equal(r.chains[0].numDraws, 100);
 * ```
 */
export function sampleWith(
  // deno-lint-ignore no-explicit-any
  description: SamplerDescription<any>,
  model: Model,
  options: SampleOptions,
): SamplingResult {
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
    if (key === "sampler" || WORKER_POOL_OPTION_NAMES.includes(key)) continue;
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
