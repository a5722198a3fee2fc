/**
 * Stochastic gradient Nosé–Hoover thermostat (SGNHT), i.e. the adaptive
 * Langevin (Ad-Langevin) thermostat, with M = I, β = 1 and thermal mass
 * μ = N_d by default.
 *
 * Dynamics (CCAdL paper eq. 8) and the first-order splitting used for all
 * three thermostat-type samplers of that paper (Algorithm 1 without the
 * covariance term):
 *
 * ```
 *  θₜ = θₜ₋₁ + h pₜ₋₁
 *  pₜ = pₜ₋₁ + h ĝ(θₜ) − h ξₜ₋₁ pₜ₋₁ + √(2Ah) N(0, I)
 *  ξₜ = ξₜ₋₁ + (pₜᵀpₜ − N_d) h/μ          (μ = N_d: ξₜ₋₁ + (pₜᵀpₜ/N_d − 1) h)
 * ```
 *
 * ĝ = −∇Ũ is the subsampled log-posterior gradient. The thermostat ξ finds
 * its mean A + hσ²/2 on the fly when the gradient-noise variance σ² is
 * constant (Proposition 1); with parameter-dependent noise it cannot.
 *
 * References: Ding et al. (2014); Jones & Leimkuhler (2011); Shang, Zhu,
 * Leimkuhler & Storkey (2015), eqs. 8–11 and Algorithm 1.
 *
 * @module
 */
import { assertPosition } from "../../models/model.ts";
import type { Rng } from "../../random/rng.ts";
import type { ChainSampler, StepInfo } from "../sampler.ts";
import {
  alternatingBuffers,
  checkPositive,
  checkSgParams,
  copyIntoBuffer,
  DEFAULT_EXPLOSION_BOUND,
  isExploded,
  kineticTemperature,
  reflectIntoBounds,
  type SgBaseParams,
  sgChainSampler,
  type SgStepBuffers,
  thermostatConstants,
} from "../sg/common.ts";

/** What the next SGNHT step needs. Treat as immutable. */
export interface SgnhtState {
  /** θ. */
  readonly position: Float64Array;
  /** p. */
  readonly momentum: Float64Array;
  /** The thermostat variable ξ (dynamical friction). */
  readonly thermostat: number;
}

/** Diagnostics of one SGNHT step. */
export interface SgnhtInfo extends StepInfo {
  /** Per-row gradient evaluations this step (n). */
  numGradRows: number;
  /** pₜᵀpₜ/N_d (target 1). */
  kineticTemperature: number;
  /** ξₜ. */
  thermostat: number;
  /** Coordinates reflected at the bounds. */
  numReflections: number;
}

/** Parameters of {@link step}. */
export interface SgnhtParams extends SgBaseParams {
  /** Effective friction A > 0: strength √(2A) of the injected noise. Default 1. */
  friction?: number;
  /** Thermal mass μ > 0 (default N_d). */
  thermalMass?: number;
}

/**
 * Initial state: p₀ ~ N(0, I) if `rng` is given (else 0) and ξ₀ = A.
 *
 * @param position θ₀ (copied).
 * @param options `rng` for p₀; `friction` A (default 1).
 * @returns The state.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { init } from "./kernel.ts";
 * assert.equal(init(new Float64Array([0]), { friction: 10 }).thermostat, 10);
 * ```
 *
 * References: Shang et al. (2015), Algorithm 1 line 2.
 */
export function init(
  position: Float64Array,
  options: { rng?: Rng; friction?: number } = {},
): SgnhtState {
  assertPosition(position, position.length, "position");
  const a = checkPositive(options.friction ?? 1, "friction");
  const momentum = new Float64Array(position.length);
  if (options.rng) options.rng.fillNormal(momentum);
  return { position: Float64Array.from(position), momentum, thermostat: a };
}

/**
 * One SGNHT step (first-order splitting of eq. 8).
 *
 * @param rng Generator (subsample and noise).
 * @param state Current state.
 * @param params Estimator, stepSize h, friction A, thermal mass, bounds.
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
 * const params = { estimator: minibatchGradient(model, { batchSize: 2 }), stepSize: 0.01, bounds: model.bounds };
 * const rng = new Rng(3);
 * let s = init(new Float64Array([0, 1]), { rng });
 * for (let i = 0; i < 5; i++) s = step(rng, s, params).state;
 * assert.ok(Number.isFinite(s.thermostat));
 * ```
 *
 * References: Shang et al. (2015), eq. 8 and Algorithm 1 (without line 5).
 */
export function step(
  rng: Rng,
  state: SgnhtState,
  params: SgnhtParams,
  out?: SgStepBuffers,
): { state: SgnhtState; info: SgnhtInfo } {
  const d = state.position.length;
  checkSgParams(params, d);
  const h = params.stepSize, est = params.estimator;
  const { friction: a, thermalMass: mu } = thermostatConstants(params, d);
  const before = est.cost.numGradRows;
  const bound = params.explosionBound ?? DEFAULT_EXPLOSION_BOUND;
  const diverged = (): { state: SgnhtState; info: SgnhtInfo } => ({
    state,
    info: {
      numGradRows: est.cost.numGradRows - before,
      kineticTemperature: kineticTemperature(state.momentum),
      thermostat: state.thermostat,
      numReflections: 0,
      isDivergent: true,
    },
  });
  const pos = copyIntoBuffer(state.position, out, "position");
  const p = copyIntoBuffer(state.momentum, out, "momentum");
  for (let j = 0; j < d; j++) pos[j] += h * p[j];
  if (isExploded(pos, bound)) return diverged();
  const numReflections = reflectIntoBounds(pos, { bounds: params.bounds, momentum: p });
  const g = est.estimate(pos, rng).grad;
  if (isExploded(g, Infinity)) return diverged();
  const xi = state.thermostat, sd = Math.sqrt(2 * a * h);
  let pp = 0;
  for (let j = 0; j < d; j++) {
    const pj = p[j] + h * g[j] - h * xi * p[j] + sd * rng.normal();
    p[j] = pj;
    pp += pj * pj;
  }
  const thermostat = xi + ((pp - d) * h) / mu;
  if (isExploded(p, bound) || !Number.isFinite(thermostat)) return diverged();
  return {
    state: { position: pos, momentum: p, thermostat },
    info: {
      numGradRows: est.cost.numGradRows - before,
      kineticTemperature: kineticTemperature(p),
      thermostat,
      numReflections,
      isDivergent: false,
    },
  };
}

/**
 * The kernel as a {@link ChainSampler} for the run driver
 * (`sampleChains`): warmup is plain burn-in (no adaptation). p₀ ~ N(0, I), ξ₀ = A.
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
export function sampler(params: SgnhtParams): ChainSampler<SgnhtState, SgnhtInfo> {
  const buffers = alternatingBuffers();
  return sgChainSampler("SGNHT", {
    init: (position, rng) => init(position, { rng, friction: params.friction }),
    step: (rng, state, p) => step(rng, state, p, buffers(state)),
    params,
  });
}
