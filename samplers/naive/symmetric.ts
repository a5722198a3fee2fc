/**
 * The symmetric composition of Betancourt (2015) §3.2: every batch used
 * twice per sweep, j = 1 … J then J … 1, each step a Strang step of
 * H_j = T + J·V_j. It is not stochastic at all: it is a symplectic splitting
 * integrator of the FULL Hamiltonian (the Split-HMC integrator of Shahbaba et
 * al. 2014, one sweep advancing time 2Jε), so its error vanishes at second
 * order in ε (Fig. 4) — and it reads every batch, so it saves nothing.
 *
 * A DIAGNOSTIC: it shows what removing the subsampling bias costs. Uncorrected
 * it carries the usual O(ε²) integrator bias; with `isCorrected` it is an
 * exact (if roundabout) full-data HMC. `numIntegrationSteps`/τ are rounded to
 * whole sweeps: max(1, round(L / 2J)) sweeps; `candidateBatches` is ignored.
 *
 * References: Betancourt (2015), §3.2 and Fig. 4; Shahbaba, Lan, Johnson &
 * Neal (2014), "Split Hamiltonian Monte Carlo", §3.
 *
 * @module
 */
import type { Rng } from "../../random/rng.ts";
import { symmetricSequence } from "./integrator.ts";
import {
  init as _init,
  type NaiveInfo,
  type NaiveParams,
  type NaiveState,
  transition,
} from "./kernel.ts";

/** State of {@link step}. */
export type SymmetricState = NaiveState;
/** Info of {@link step}. */
export type SymmetricInfo = NaiveInfo;
/** Parameters of {@link step} (`candidateBatches` is ignored). */
export type SymmetricParams = NaiveParams;

/**
 * Initial state (one full-data evaluation).
 *
 * @param position θ₀ (copied).
 * @param fullLogDensityFn The full-data log π.
 * @returns The state.
 *
 * @example
 * ```ts
 * import { init } from "./symmetric.ts";
 * if (init(new Float64Array([0]), () => -1).logDensity !== -1) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.2.
 */
export function init(
  position: Float64Array,
  fullLogDensityFn: (position: Float64Array) => number,
): SymmetricState {
  return _init(position, fullLogDensityFn);
}

/**
 * One trajectory of whole symmetric sweeps over all J batches.
 *
 * @param rng The generator.
 * @param state The current state.
 * @param params Batches, full-data log π, metric, ε, L or τ, correction.
 * @returns The next state and the info.
 *
 * @example
 * ```ts
 * import { init, step } from "./symmetric.ts";
 * import { identityMetric } from "../metric.ts";
 * import { Rng } from "../../random/rng.ts";
 * import { GaussianMeanModel, gaussianMeanData } from "../../examples/models/gaussian_mean.ts";
 * const model = new GaussianMeanModel(gaussianMeanData());
 * const fullLogDensityFn = (x: Float64Array) => model.logDensity(x);
 * const r = step(new Rng(1), init(model.posteriorMean, fullLogDensityFn), {
 *   batches: model.batches(20), fullLogDensityFn, metric: identityMetric(1),
 *   stepSize: 0.002, numIntegrationSteps: 100 });
 * // 2 sweeps of 2·25 steps; integrating the full H, it stays accurate.
 * if (r.info.numIntegrationSteps !== 100 || r.info.fullDataAcceptanceRate < 0.99) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.2.
 */
export function step(
  rng: Rng,
  state: SymmetricState,
  params: SymmetricParams,
): { state: SymmetricState; info: SymmetricInfo } {
  return transition(rng, state, {
    ...params,
    sequenceFn: (_r, numSteps, p) => {
      const j = p.batches.numBatches;
      return symmetricSequence(j, Math.max(1, Math.round(numSteps / (2 * j))));
    },
  });
}
