/**
 * The typed runner of the austerity samplers: {@link runApproxMh}.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "../driver.ts";
import { checkRunInputs } from "../option_names.ts";
import type { ChainSampler } from "../sampler.ts";
import { austerityRwmhDescription, austeritySgldDescription } from "./chain_sampler.ts";
import type { ApproxMhInfo } from "./kernel.ts";
import type { ApproxMhOptions } from "./options.ts";

/** Options of {@link runApproxMh}. */
export type RunApproxMhOptions =
  & ApproxMhOptions
  & { proposal?: "random-walk" | "langevin" }
  & RunOptions;

/**
 * Run approximate MH chains with the driver: `proposal: "random-walk"`
 * (default) or `"langevin"`. Per-iteration info has
 * `fractionOfData`, `numBatches`, `isAccepted`, `isDivergent` (and
 * `agreesWithExact` with `checkExact`); the chains' cost counts every row used.
 *
 * @param model A DataModel.
 * @param options Sampler options (ε, m, proposal settings) and driver options.
 * @returns The driver's result.
 * @throws {TypeError} If `model` is not a DataModel.
 * @example
 * ```ts
 * import { runApproxMh } from "./run.ts";
 * import { normalGammaModel } from "../../examples/models/normal_gamma.ts";
 * const model = normalGammaModel(Float64Array.from({ length: 400 }, (_, i) => Math.cos(i)));
 * const r = runApproxMh(model, {
 *   epsilon: 0.1, batchSize: 40, seed: 1, numWarmup: 100, numSamples: 100, numChains: 1,
 *   initialPosition: new Float64Array([0, 1]),
 * });
 * const f = r.chains[0].info.sampling.fractionOfData;
 * if (!(f.every((x) => x > 0 && x <= 1))) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), Algorithm 1.
 */
export function runApproxMh(model: Model, options: RunApproxMhOptions): SamplingResult {
  checkRunInputs("runApproxMh", model, options);
  const description = options.proposal === "langevin"
    ? austeritySgldDescription
    : austerityRwmhDescription;
  const chain = description.build(model, options) as ChainSampler<unknown, ApproxMhInfo>;
  return sampleChains({ ...options, sampler: chain, model });
}
