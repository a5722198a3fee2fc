/**
 * Naive subsampled HMC, subsampling BETWEEN trajectories: one batch j per
 * trajectory, drawn uniformly from the candidates, and the whole trajectory
 * follows H_j = T + J·V_j.
 *
 * A DIAGNOSTIC, not an inference method. Without the full-data correction the
 * trajectory follows the wrong Hamiltonian for its whole length: its bias
 * −τ·ΔV⃗_j (Betancourt 2015, eq. 1) does not shrink with the step size and
 * grows with the dimension, so the draws are biased by an amount only the
 * redundancy of the data controls. With the correction (`isCorrected`) it is
 * exact but its full-data acceptance collapses as D grows (Fig. 3) and each
 * step pays a full-data pass anyway. Use HMC (full data) or HMC-ECS instead.
 *
 * References: Betancourt (2015), §3.1, eq. (1), Figs. 2 and 3.
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
export type BetweenState = NaiveState;
/** Info of {@link step}. */
export type BetweenInfo = NaiveInfo;
/** Parameters of {@link step}. */
export type BetweenParams = NaiveParams;

/**
 * Initial state (one full-data evaluation).
 *
 * @param position θ₀ (copied).
 * @param fullLogDensityFn The full-data log π.
 * @returns The state.
 *
 * @example
 * ```ts
 * import { init } from "./between.ts";
 * if (init(new Float64Array([0]), () => -1).logDensity !== -1) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.1.
 */
export function init(
  position: Float64Array,
  fullLogDensityFn: (position: Float64Array) => number,
): BetweenState {
  return _init(position, fullLogDensityFn);
}

/**
 * One trajectory on H_j = T + J·V_j for one batch j drawn per trajectory.
 *
 * @param rng The generator.
 * @param state The current state.
 * @param params Batches, full-data log π, metric, ε, L or τ, correction, candidates.
 * @returns The next state and the info (with the full-data acceptance probability).
 *
 * @example
 * ```ts
 * import { init, step } from "./between.ts";
 * import { identityMetric } from "../metric.ts";
 * import { Rng } from "../../random/rng.ts";
 * import { GaussianMeanModel, gaussianMeanData } from "../../examples/models/gaussian_mean.ts";
 * const model = new GaussianMeanModel(gaussianMeanData());
 * const fullLogDensityFn = (x: Float64Array) => model.logDensity(x);
 * const r = step(new Rng(1), init(model.posteriorMean, fullLogDensityFn), {
 *   batches: model.batches(20), fullLogDensityFn, metric: identityMetric(1),
 *   stepSize: 0.01, trajectoryLength: 2 * Math.PI, isTrajectoryLengthRandom: true });
 * if (!r.info.isAccepted || r.info.fullDataAcceptanceRate > 1) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.1.
 */
export function step(
  rng: Rng,
  state: BetweenState,
  params: BetweenParams,
): { state: BetweenState; info: BetweenInfo } {
  checkCandidateBatches(params.candidateBatches, params.batches.numBatches);
  return transition(rng, state, {
    ...params,
    sequenceFn: (r, numSteps, p) => new Int32Array(numSteps).fill(drawBatch(r, p)),
  });
}
