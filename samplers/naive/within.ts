/**
 * Naive subsampled HMC, subsampling WITHIN a trajectory: a fresh batch j_l,
 * drawn uniformly from the candidates, for every leapfrog step — naive
 * stochastic-gradient HMC (Chen et al. 2014) when uncorrected.
 *
 * A DIAGNOSTIC, not an inference method. The trajectory follows the average
 * of the batch gradients it happened to draw: its bias
 * B₁ = −(1/L) Σ ΔV⃗_{j_l} (Betancourt 2015, §3.2) vanishes only if those
 * average to the full gradient, which no step size guarantees, and grows with
 * the dimension. With `isCorrected` the chain is exact (the batch sequence is
 * i.i.d., so its reversal is equally likely) but the full-data acceptance
 * collapses as D grows. Use HMC (full data) or HMC-ECS instead.
 *
 * References: Betancourt (2015), §3.2 (B₁, B₂), Fig. 3; Chen, Fox & Guestrin
 * (2014), §3.1 (naive SGHMC).
 *
 * @module
 */
import type { Rng } from "../../random/rng.ts";
import {
  checkCandidateBatches,
  drawBatch,
  init as _init,
  type NaiveInfo,
  type NaiveParams,
  type NaiveState,
  transition,
} from "./kernel.ts";

/** State of {@link step}. */
export type WithinState = NaiveState;
/** Info of {@link step}. */
export type WithinInfo = NaiveInfo;
/** Parameters of {@link step}. */
export type WithinParams = NaiveParams;

/**
 * Initial state (one full-data evaluation).
 *
 * @param position θ₀ (copied).
 * @param fullLogDensityFn The full-data log π.
 * @returns The state.
 *
 * @example
 * ```ts
 * import { init } from "./within.ts";
 * if (init(new Float64Array([0]), () => -1).logDensity !== -1) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.2.
 */
export function init(
  position: Float64Array,
  fullLogDensityFn: (position: Float64Array) => number,
): WithinState {
  return _init(position, fullLogDensityFn);
}

/**
 * One trajectory with a fresh batch every leapfrog step.
 *
 * @param rng The generator.
 * @param state The current state.
 * @param params Batches, full-data log π, metric, ε, L or τ, correction, candidates.
 * @returns The next state and the info (with the full-data acceptance probability).
 *
 * @example
 * ```ts
 * import { init, step } from "./within.ts";
 * import { identityMetric } from "../metric.ts";
 * import { Rng } from "../../random/rng.ts";
 * import { GaussianMeanModel, gaussianMeanData } from "../../examples/models/gaussian_mean.ts";
 * const model = new GaussianMeanModel(gaussianMeanData());
 * const fullLogDensityFn = (x: Float64Array) => model.logDensity(x);
 * const r = step(new Rng(1), init(model.posteriorMean, fullLogDensityFn), {
 *   batches: model.batches(20), fullLogDensityFn, metric: identityMetric(1),
 *   stepSize: 0.01, numIntegrationSteps: 50 });
 * // 50 steps, one batch each, one extra evaluation per change of batch.
 * if (r.info.numIntegrationSteps !== 50 || r.info.numGradientEvaluations <= 50) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.2.
 */
export function step(
  rng: Rng,
  state: WithinState,
  params: WithinParams,
): { state: WithinState; info: WithinInfo } {
  checkCandidateBatches(params.candidateBatches, params.batches.numBatches);
  return transition(rng, state, {
    ...params,
    sequenceFn: (r, numSteps, p) => {
      const out = new Int32Array(numSteps);
      for (let l = 0; l < numSteps; l++) out[l] = drawBatch(r, p);
      return out;
    },
  });
}
