/**
 * Stochastic gradient Langevin dynamics (SGLD) with a fixed step size.
 *
 * ```
 *  θᵢ = θᵢ₋₁ + (ε/2) ĝ(θᵢ₋₁) + ζᵢ,    ζᵢ ~ N(0, εI)
 * ```
 *
 * where ĝ = −∇Û is the subsampled log-posterior gradient from the estimator
 * (plain minibatch or control variate), on a fresh subsample every step. No
 * Metropolis correction: the stationary law is biased by O(ε) and by the
 * gradient noise. `step` is a pure function of (state, rng, params).
 *
 * References: Welling & Teh (2011); Dang et al. (2019), §6.2 (the fixed-step
 * form, following Vollmer et al. 2016 and Baker et al. 2017).
 *
 * @module
 */
import { assertPosition } from "../../models/model.ts";
import type { Rng } from "../../random/rng.ts";
import type { ChainSampler, StepInfo } from "../sampler.ts";
import {
  checkSgParams,
  DEFAULT_EXPLOSION_BOUND,
  isExploded,
  reflectIntoBounds,
  type SgBaseParams,
  sgChainSampler,
} from "../sg/common.ts";

/** What the next SGLD step needs. Treat as immutable. */
export interface SgldState {
  /** θ. */
  readonly position: Float64Array;
}

/** Diagnostics of one SGLD step. */
export interface SgldInfo extends StepInfo {
  /** Per-row gradient evaluations this step (n). */
  numGradRows: number;
  /** Coordinates reflected at the bounds this step. */
  numReflections: number;
}

/** Parameters of {@link step}: the estimator, ε, optional bounds. */
export type SgldParams = SgBaseParams;

/**
 * Initial SGLD state at `position` (copied).
 *
 * @param position θ₀.
 * @returns The state.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { init } from "./kernel.ts";
 * assert.equal(init(new Float64Array([1, 2])).position.length, 2);
 * ```
 *
 * References: Welling & Teh (2011).
 */
export function init(position: Float64Array): SgldState {
  assertPosition(position, position.length, "position");
  return { position: Float64Array.from(position) };
}

/**
 * One SGLD step: θ' = θ + (ε/2)ĝ(θ) + N(0, εI).
 *
 * @param rng Generator (subsample and noise).
 * @param state Current state.
 * @param params Estimator, stepSize ε, bounds.
 * @returns The new state and its info.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { normalGammaModel } from "../../examples/models/normal_gamma.ts";
 * import { Rng } from "../../random/rng.ts";
 * import { minibatchGradient } from "../../subsampling/gradient_estimators.ts";
 * import { init, step } from "./kernel.ts";
 * const model = normalGammaModel([0.1, -0.3, 0.5, 0.2]);
 * const params = { estimator: minibatchGradient(model, { batchSize: 2 }), stepSize: 1e-3, bounds: model.bounds };
 * let state = init(new Float64Array([0, 1]));
 * const rng = new Rng(1);
 * for (let i = 0; i < 10; i++) state = step(rng, state, params).state;
 * assert.ok(state.position[1] > 0);
 * ```
 *
 * References: Dang et al. (2019), §6.2; Welling & Teh (2011), eq. 4.
 */
export function step(
  rng: Rng,
  state: SgldState,
  params: SgldParams,
): { state: SgldState; info: SgldInfo } {
  const d = state.position.length;
  checkSgParams(params, d);
  const eps = params.stepSize, est = params.estimator;
  const before = est.cost.numGradRows;
  const bound = params.explosionBound ?? DEFAULT_EXPLOSION_BOUND;
  const g = est.estimate(state.position, rng).grad;
  const half = 0.5 * eps, sd = Math.sqrt(eps);
  const pos = new Float64Array(d);
  for (let j = 0; j < d; j++) pos[j] = state.position[j] + half * g[j] + sd * rng.normal();
  if (isExploded(g, Infinity) || isExploded(pos, bound)) {
    return {
      state,
      info: { numGradRows: est.cost.numGradRows - before, numReflections: 0, isDivergent: true },
    };
  }
  const numReflections = reflectIntoBounds(pos, { bounds: params.bounds });
  return {
    state: { position: pos },
    info: { numGradRows: est.cost.numGradRows - before, numReflections, isDivergent: false },
  };
}

/**
 * The kernel with fixed parameters as a {@link ChainSampler} for the run
 * driver (`sampleChains`): warmup is plain burn-in (no adaptation); a
 * divergent step ends the chain, keeping the draws made before it.
 *
 * @param params The kernel parameters.
 * @returns The chain sampler.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalGammaModel } from "../../examples/models/normal_gamma.ts";
 * import { minibatchGradient } from "../../subsampling/gradient_estimators.ts";
 * import { sampleChains } from "../driver.ts";
 * import { sampler } from "./kernel.ts";
 * const model = normalGammaModel([0.3, -0.2, 0.8, 0.1, -0.5]);
 * const estimator = minibatchGradient(model, { batchSize: 2 });
 * const run = sampleChains({
 *   sampler: sampler({ estimator, stepSize: 0.01, bounds: model.bounds }),
 *   model, seed: 1, numWarmup: 50, numSamples: 100, numChains: 1, initialPosition: new Float64Array([0, 1]),
 * });
 * assert.equal(run.draws[0][1].length, 100);
 * assert.equal(run.chains[0].cost.sampling.numGradRows, 200);
 * ```
 *
 * References: see {@link step}.
 */
export function sampler(params: SgldParams): ChainSampler<SgldState, SgldInfo> {
  return sgChainSampler("SGLD", { init: (position) => init(position), step, params });
}
