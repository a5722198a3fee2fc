/**
 * The typed runner of full-data HMC: {@link runHmc}.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "../driver.ts";
import { checkRunInputs } from "../option_names.ts";
import { hmcDescription } from "./chain_sampler.ts";
import type { HmcSamplerOptions } from "./options.ts";

/** Options of {@link runHmc}: the sampler's options and the driver's. */
export type RunHmcOptions =
  & HmcSamplerOptions
  & RunOptions;

/**
 * Run full-data HMC: {@link hmcSampler} driven by {@link sampleChains}.
 *
 * Defaults: 4 chains, 1000 warmup + 1000 sampling iterations, warmup
 * `"chees"` (Newton start, Laplace diagonal metric, ChEES-adapted jittered
 * integration time), dual averaging to δ = 0.8, windowed metric chosen by `"auto"`;
 * `warmupScheme: "fixed"` gives the previous εL = 1.2 from the identity metric. Use
 * `metricAdaptation: "hessian"` for the HMC-ECS §6.3 tuning.
 *
 * @param model Any Model or DataModel.
 * @param options Sampler options (see {@link HmcSamplerOptions}) and driver options (seed, sizes, …).
 * @returns The driver's result; `chains[c].tuning` holds ε, L and M⁻¹ after warmup.
 *
 * @example
 * ```ts
 * import { runHmc } from "./run.ts";
 * import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array([1, -1]), new Float64Array([1, 0.5, 0.5, 1]));
 * const r = runHmc(model, { seed: 7, numWarmup: 300, numSamples: 300, numChains: 2 });
 * const m = r.draws[0][0].reduce((a, b) => a + b) / r.numDraws;
 * if (Math.abs(m - 1) > 0.5) throw new Error(`mean ${m}`);
 * ```
 *
 * References: Neal (2011), §5.3.2; Hoffman & Gelman (2014), Algorithm 5; Dang et al. (2019), §6.3.
 */
export function runHmc(model: Model, options: RunHmcOptions): SamplingResult {
  checkRunInputs("runHmc", model, options);
  return sampleChains({ ...options, sampler: hmcDescription.build(model, options), model });
}
