/**
 * Run QNHMC chains with the current run driver.
 *
 * TEMPORARY ADAPTER: `sampleChains` in `samplers/driver.ts` still takes the
 * old description shape (`step(state, rng, phase, iteration)`), while QNHMC
 * is written to the new {@link ChainSampler} shape of `samplers/sampler.ts`
 * (`step(rng, state, phase, iteration)`). {@link _toDriverSampler} swaps the
 * arguments and nothing else; when the new driver (which runs a
 * `ChainSampler` directly) lands, delete it and call the driver with
 * `qnhmcDescription.build(model, options)`.
 *
 * References: Fu, Luo & Zhang (2016), Algorithm 2.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import {
  sampleChains,
  type SampleChainsOptions,
  type SamplerDescription as DriverSamplerDescription,
  type SamplingResult,
} from "../driver.ts";
import type { ChainSampler, StepInfo } from "../sampler.ts";
import { qnhmcChainSampler, type QnhmcChainState, type QnhmcOptions } from "./description.ts";
import type { QnhmcInfo } from "./kernel.ts";

/** Options of {@link runQnhmc}: the sampler's options and the driver's. */
export type RunQnhmcOptions =
  & QnhmcOptions
  & Omit<SampleChainsOptions<QnhmcChainState, QnhmcInfo>, "sampler" | "model">;

/**
 * ADAPTER (drop with the new driver): a {@link ChainSampler} as the current
 * driver's description.
 *
 * @param sampler A chain sampler.
 * @returns The same sampler with `step(state, rng, phase, iteration)`.
 */
export function _toDriverSampler<S, I extends StepInfo>(
  sampler: ChainSampler<S, I>,
): DriverSamplerDescription<S, I> {
  return {
    init: (position, rng) => sampler.init(position, rng),
    step: (state, rng, phase, iteration) => sampler.step(rng, state, phase, iteration),
    position: (state) => sampler.position(state),
    adapt: sampler.adapt,
    tuning: sampler.tuning === undefined ? undefined : (state) => sampler.tuning!(state),
  };
}

/**
 * Run QNHMC chains on `model` with the current driver.
 *
 * @param model The target.
 * @param options QNHMC options ({@link QnhmcOptions}) and the driver's
 *   (seed, numWarmup, numSamples, numChains, initial positions, …).
 * @returns The driver's result: draws, per-iteration info, cost, tuning.
 *
 * @example
 * ```ts
 * import { runQnhmc } from "./run_qnhmc.ts";
 * import { gaussianTarget } from "../../models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array(2), new Float64Array([1, 4]));
 * const r = runQnhmc(model, { seed: 1, numWarmup: 50, numSamples: 100, numChains: 2,
 *   stepSize: 0.3, numIntegrationSteps: 5 });
 * if (r.draws.length !== 2 || r.draws[0][1].length !== 100) throw new Error();
 * ```
 *
 * References: Fu, Luo & Zhang (2016), Algorithm 2.
 */
export function runQnhmc(model: Model, options: RunQnhmcOptions): SamplingResult {
  const {
    stepSize,
    numIntegrationSteps,
    approximation,
    memory,
    initialScale,
    lbfgsScaling,
    curvatureTolerance,
    adaptation,
    adaptStepSize,
    targetAcceptanceRate,
    metric,
    divergenceThreshold,
    ...driverOptions
  } = options;
  const sampler = qnhmcChainSampler(model, {
    stepSize,
    numIntegrationSteps,
    approximation,
    memory,
    initialScale,
    lbfgsScaling,
    curvatureTolerance,
    adaptation,
    adaptStepSize,
    targetAcceptanceRate,
    metric,
    divergenceThreshold,
  });
  return sampleChains({ ...driverOptions, sampler: _toDriverSampler(sampler), model });
}
