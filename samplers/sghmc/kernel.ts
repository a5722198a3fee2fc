/**
 * Stochastic gradient Hamiltonian Monte Carlo (SG-HMC) with friction.
 *
 * One iteration runs L steps of the discretised second-order Langevin dynamics
 *
 * ```
 *  θₗ = θₗ₋₁ + ε M⁻¹ pₗ₋₁
 *  pₗ = pₗ₋₁ + ε ĝ(θₗ) − ε C M⁻¹ pₗ₋₁ + ζₗ,     ζₗ ~ N(0, 2(C − B̂)ε)
 * ```
 *
 * with friction C = c·I (default c = 1), B̂ = 0 (Chen et al. 2014) and ĝ the
 * subsampled log-posterior gradient on a fresh subsample every step. Two forms:
 *
 * - Dang et al. §6.2 / Chen et al.: momentum p ~ N(0, M) resampled at the start
 *   of every iteration (`resampleMomentum: true`, the default), L steps per
 *   iteration, mass matrix M from a {@link Metric}.
 * - CCAdL paper eq. 14: M = I, friction C = A·I (the "effective friction"),
 *   one step per iteration and the momentum carried over
 *   (`resampleMomentum: false, numIntegrationSteps: 1, friction: A`), i.e.
 *   pₜ = pₜ₋₁ − h∇Ũ(θₜ) − hA pₜ₋₁ + √(2Ah) N(0, I).
 *
 * No Metropolis correction. `step` is a pure function of (state, rng, params).
 *
 * References: Chen, Fox & Guestrin (2014), eqs. 13–15; Dang et al. (2019), §6.2;
 * Shang et al. (2015), eq. 14.
 *
 * @module
 */
import { assertPosition } from "../../models/model.ts";
import type { Rng } from "../../random/rng.ts";
import type { ChainSampler, StepInfo } from "../sampler.ts";
import { identityMetric, type Metric } from "../metric.ts";
import {
  alternatingBuffers,
  bufferOf,
  checkPositive,
  checkSgParams,
  copyIntoBuffer,
  DEFAULT_EXPLOSION_BOUND,
  isExploded,
  reflectIntoBounds,
  type SgBaseParams,
  sgChainSampler,
  type SgStepBuffers,
} from "../sg/common.ts";
import { positiveInteger } from "../validate_options.ts";

/** What the next SG-HMC iteration needs. Treat as immutable. */
export interface SghmcState {
  /** θ. */
  readonly position: Float64Array;
  /** p (carried over when momentum is not resampled). */
  readonly momentum: Float64Array;
}

/** Diagnostics of one SG-HMC iteration. */
export interface SghmcInfo extends StepInfo {
  /** Per-row gradient evaluations this iteration (L·n). */
  numGradRows: number;
  /** Steps L taken. */
  numIntegrationSteps: number;
  /** ½pᵀM⁻¹p at the end of the iteration. */
  kineticEnergy: number;
  /** Coordinates reflected at the bounds. */
  numReflections: number;
}

/** Parameters of {@link step}. */
export interface SghmcParams extends SgBaseParams {
  /** Friction c in C = c·I (the CCAdL paper's effective friction A). Default 1. */
  friction?: number;
  /** Mass matrix M (default identity). */
  metric?: Metric;
  /** Steps L per iteration (default 1). */
  numIntegrationSteps?: number;
  /** Draw p ~ N(0, M) at the start of every iteration (default true). */
  resampleMomentum?: boolean;
}

/**
 * Initial SG-HMC state at `position`, with p ~ N(0, M) if `rng` is given and
 * p = 0 otherwise.
 *
 * @param position θ₀ (copied).
 * @param options `rng` to draw p₀, `metric` M (default identity).
 * @returns The state.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { init } from "./kernel.ts";
 * import { Rng } from "../../random/rng.ts";
 * assert.equal(init(new Float64Array([0, 0]), { rng: new Rng(1) }).momentum.length, 2);
 * ```
 *
 * References: Chen et al. (2014), Algorithm 2.
 */
export function init(
  position: Float64Array,
  options: { rng?: Rng; metric?: Metric } = {},
): SghmcState {
  assertPosition(position, position.length, "position");
  const d = position.length, momentum = new Float64Array(d);
  if (options.rng) (options.metric ?? identityMetric(d)).sampleMomentum(options.rng, momentum);
  return { position: Float64Array.from(position), momentum };
}

/** M = I of the last dimension asked for: one object, not a new one per iteration. */
let _identityMetric: Metric | null = null;

function _identity(d: number): Metric {
  if (_identityMetric === null || _identityMetric.dim !== d) _identityMetric = identityMetric(d);
  return _identityMetric;
}

/**
 * One SG-HMC iteration of L friction-damped steps.
 *
 * @param rng Generator (momentum, subsamples, noise).
 * @param state Current state.
 * @param params Estimator, stepSize ε, friction, metric, L, resampling, bounds.
 * @param out Arrays to write the new state into (default: new ones); none may be `state`'s.
 * @returns The new state and its info.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { normalGammaModel } from "../../examples/models/normal_gamma.ts";
 * import { Rng } from "../../random/rng.ts";
 * import { minibatchGradient } from "../../subsampling/gradient_estimators.ts";
 * import { init, step } from "./kernel.ts";
 * const model = normalGammaModel([0.1, -0.3, 0.5, 0.2]);
 * const est = minibatchGradient(model, { batchSize: 2 });
 * const rng = new Rng(2);
 * let s = init(new Float64Array([0, 1]), { rng });
 * const r = step(rng, s, { estimator: est, stepSize: 0.01, numIntegrationSteps: 5, bounds: model.bounds });
 * assert.equal(r.info.numGradRows, 10);
 * ```
 *
 * References: Dang et al. (2019), §6.2; Chen et al. (2014), eq. 15; Shang et al. (2015), eq. 14.
 */
export function step(
  rng: Rng,
  state: SghmcState,
  params: SghmcParams,
  out?: SgStepBuffers,
): { state: SghmcState; info: SghmcInfo } {
  const d = state.position.length;
  checkSgParams(params, d);
  const eps = params.stepSize, est = params.estimator;
  const c = checkPositive(params.friction ?? 1, "friction");
  const L = params.numIntegrationSteps ?? 1;
  positiveInteger("numIntegrationSteps", L);
  const metric = params.metric ?? _identity(d);
  if (metric.dim !== d) throw new RangeError(`metric dimension ${metric.dim} does not match ${d}`);
  const before = est.cost.numGradRows;
  const pos = copyIntoBuffer(state.position, out, "position");
  const p = params.resampleMomentum ?? true
    ? metric.sampleMomentum(rng, bufferOf(out, "momentum", d))
    : copyIntoBuffer(state.momentum, out, "momentum");
  const v = bufferOf(out, "scratch", d);
  const damp = eps * c, sd = Math.sqrt(2 * c * eps);
  let numReflections = 0;
  const bound = params.explosionBound ?? DEFAULT_EXPLOSION_BOUND;
  for (let l = 0; l < L; l++) {
    metric.velocity(p, v); // M⁻¹pₗ₋₁, used for the position and the friction
    for (let j = 0; j < d; j++) pos[j] += eps * v[j];
    let diverged = isExploded(pos, bound);
    if (!diverged) {
      numReflections += reflectIntoBounds(pos, { bounds: params.bounds, momentum: p });
      if (numReflections > 0) metric.velocity(p, v);
      const g = est.estimate(pos, rng).grad;
      for (let j = 0; j < d; j++) p[j] += eps * g[j] - damp * v[j] + sd * rng.normal();
      diverged = isExploded(g, Infinity) || isExploded(p, bound);
    }
    if (diverged) {
      return {
        state,
        info: {
          numGradRows: est.cost.numGradRows - before,
          numIntegrationSteps: l + 1,
          kineticEnergy: metric.kineticEnergy(state.momentum),
          numReflections,
          isDivergent: true,
        },
      };
    }
  }
  return {
    state: { position: pos, momentum: p },
    info: {
      numGradRows: est.cost.numGradRows - before,
      numIntegrationSteps: L,
      kineticEnergy: metric.kineticEnergy(p),
      numReflections,
      isDivergent: false,
    },
  };
}

/**
 * The kernel as a {@link ChainSampler} for the run driver
 * (`sampleChains`): warmup is plain burn-in (no adaptation). The initial momentum is drawn from N(0, M).
 * θ and p are written into two sets of arrays in turn, so a state it returns
 * stays valid until the step after next (the driver only steps from the latest).
 *
 * @param params The kernel parameters.
 * @returns The chain sampler; a divergent step ends the chain, keeping the draws made before it.
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
export function sampler(params: SghmcParams): ChainSampler<SghmcState, SghmcInfo> {
  const buffers = alternatingBuffers();
  return sgChainSampler("SG-HMC", {
    init: (position, rng) => init(position, { rng, metric: params.metric }),
    step: (rng, state, p) => step(rng, state, p, buffers(state)),
    params,
  });
}
