/**
 * `runNaive`: run chains of a naive subsampled HMC variant with the run
 * driver (`samplers/driver.ts` `sampleChains`).
 *
 * References: Betancourt (2015), §3.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { sampleChains, type SamplingResult } from "../driver.ts";
import { naiveChainSampler } from "./chain_sampler.ts";
import type { NaiveOptions, NaiveVariant } from "./options.ts";
import { checkRunInputs } from "../option_names.ts";

/** Options of {@link runNaive}. */
export interface RunNaiveOptions extends NaiveOptions {
  /** `"between"`, `"within"` or `"symmetric"`. */
  variant: NaiveVariant;
  /** Apply the full-data Metropolis correction (default false). */
  isCorrected?: boolean;
  /** Seed; chain c uses `new Rng(seed).stream(c)`. */
  seed: number | string;
  /** Warmup iterations (default 100; ε adapts only when `stepSize` is not given). */
  numWarmup?: number;
  /** Sampling iterations (default 1000). */
  numSamples?: number;
  /** Chains (default 1). */
  numChains?: number;
  /** Common initial position (default zeros). */
  initialPosition?: Float64Array;
  /** One initial position per chain. */
  initialPositions?: readonly Float64Array[];
}

/**
 * Run a naive variant. A diagnostic: see `chain_sampler.ts` for why not to use
 * the uncorrected variants for inference.
 *
 * @param model A DataModel (with `batches(B)` for closed-form batches).
 * @param options The variant, correction, {@link NaiveOptions} and run sizes.
 * @returns The driver's result; `chains[c].info.sampling.fullDataAcceptanceRate`
 *   holds the accuracy surrogate per iteration.
 *
 * @example
 * ```ts
 * import { runNaive } from "./run.ts";
 * import { GaussianMeanModel, gaussianMeanData } from "../../examples/models/gaussian_mean.ts";
 * const model = new GaussianMeanModel(gaussianMeanData());
 * const r = runNaive(model, { variant: "within", batchSize: 20, stepSize: 0.01,
 *   seed: 1, numWarmup: 5, numSamples: 20, initialPosition: model.posteriorMean });
 * if (r.chains[0].info.sampling.fullDataAcceptanceRate.length !== 20) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.
 */
export function runNaive(model: Model, options: RunNaiveOptions): SamplingResult {
  checkRunInputs("runNaive", model, options);
  const { variant, isCorrected = false, seed, ...rest } = options;
  const sampler = naiveChainSampler(model, { ...rest, variant, isCorrected });
  return sampleChains({
    sampler,
    model,
    seed,
    numWarmup: options.numWarmup ?? 100,
    numSamples: options.numSamples ?? 1000,
    numChains: options.numChains ?? 1,
    initialPosition: options.initialPosition,
    initialPositions: options.initialPositions,
  });
}
