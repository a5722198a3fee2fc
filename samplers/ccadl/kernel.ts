/**
 * Covariance-controlled adaptive Langevin thermostat (CCAdL), with M = I,
 * β = 1 and thermal mass μ = N_d by default.
 *
 * Algorithm 1 of the CCAdL paper:
 *
 * ```
 *  θₜ = θₜ₋₁ + h pₜ₋₁
 *  Îₜ = (1 − κₜ) Îₜ₋₁ + κₜ V(θₜ),  κₜ = 1/t          (eq. 18; V from the same minibatch, eq. 19)
 *  pₜ = pₜ₋₁ + h ĝ(θₜ) − (h/2)(N²/n) Îₜ pₜ₋₁ h − h ξₜ₋₁ pₜ₋₁ + √(2Ah) N(0, I)
 *  ξₜ = ξₜ₋₁ + (pₜᵀpₜ − N_d) h/μ
 * ```
 *
 * The term −(h/2)Σ̂(θ)p h with Σ̂ = N²Î/n (eq. 17) is the damping that removes
 * the heat injected by parameter-dependent gradient noise (eq. 12), so that
 * the thermostat ξ only has to absorb the remainder and its stationary mean
 * is A (Proposition 2). Î is estimated from per-row gradients of the very
 * minibatch used for ĝ — diagonal (per-coordinate variances, O(nd)) or full
 * (O(nd²)) — in the WebAssembly core for GLMs. With a control-variate
 * estimator, V is the covariance of the per-row control-variate differences,
 * i.e. of the noise the estimator actually has.
 *
 * References: Shang, Zhu, Leimkuhler & Storkey (2015), eqs. 12–13, 16–19 and
 * Algorithm 1.
 *
 * @module
 */
import { assertPosition } from "../../models/model.ts";
import type { Rng } from "../../random/rng.ts";
import type { ChainSampler, StepInfo } from "../sampler.ts";
import {
  type CovarianceEstimate,
  type CovarianceKind,
  initCovarianceEstimate,
  updateAndApplyCovariance,
} from "../../subsampling/gradient_covariance.ts";
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

/** What the next CCAdL step needs. Treat as immutable. */
export interface CcadlState {
  /** θ. */
  readonly position: Float64Array;
  /** p. */
  readonly momentum: Float64Array;
  /** The thermostat variable ξ. */
  readonly thermostat: number;
  /** The running estimate Îₜ of the per-row gradient covariance (eq. 18). */
  readonly covariance: CovarianceEstimate;
}

/** Diagnostics of one CCAdL step. */
export interface CcadlInfo extends StepInfo {
  /** Per-row gradient evaluations this step (n). */
  numGradRows: number;
  /** pₜᵀpₜ/N_d (target 1). */
  kineticTemperature: number;
  /** ξₜ. */
  thermostat: number;
  /** Coordinates reflected at the bounds. */
  numReflections: number;
  /** trace(Σ̂)/N_d = (N²/n)·tr(Îₜ)/N_d, the mean estimated noise variance. */
  meanNoiseVariance: number;
}

/** Parameters of {@link step}. */
export interface CcadlParams extends SgBaseParams {
  /** Effective friction A > 0 (default 1). */
  friction?: number;
  /** Thermal mass μ > 0 (default N_d). */
  thermalMass?: number;
  /** Diagonal or full covariance estimate; must match the state's (default: the state's). */
  covariance?: CovarianceKind;
  /** κₜ as a function of t (default 1/t). */
  covarianceWeightFn?: (t: number) => number;
  /**
   * Write Îₜ over the previous state's Îₜ₋₁ instead of allocating a new one
   * (default false). Saves d² numbers per step for a full covariance, but the
   * previous state must not be used again.
   */
  isInPlace?: boolean;
}

/**
 * Initial state: p₀ ~ N(0, I) if `rng` is given (else 0), ξ₀ = A, Î₀ = 0.
 *
 * @param position θ₀ (copied).
 * @param options `rng`, `friction` A (default 1), `covariance` kind (default "diagonal").
 * @returns The state.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { init } from "./kernel.ts";
 * const s = init(new Float64Array([0, 0]), { covariance: "full" });
 * assert.equal(s.covariance.value.length, 4);
 * assert.equal(s.thermostat, 1);
 * ```
 *
 * References: Shang et al. (2015), Algorithm 1 line 2.
 */
export function init(
  position: Float64Array,
  options: { rng?: Rng; friction?: number; covariance?: CovarianceKind } = {},
): CcadlState {
  assertPosition(position, position.length, "position");
  const a = checkPositive(options.friction ?? 1, "friction");
  const d = position.length, momentum = new Float64Array(d);
  if (options.rng) options.rng.fillNormal(momentum);
  return {
    position: Float64Array.from(position),
    momentum,
    thermostat: a,
    covariance: initCovarianceEstimate(d, options.covariance ?? "diagonal"),
  };
}

/**
 * One CCAdL step (Algorithm 1, lines 4–7).
 *
 * @param rng Generator (subsample and noise).
 * @param state Current state.
 * @param params Estimator, stepSize h, friction A, thermal mass, covariance kind, bounds.
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
 * const rng = new Rng(4);
 * let s = init(new Float64Array([0, 1]), { rng });
 * for (let i = 0; i < 5; i++) s = step(rng, s, params).state;
 * assert.equal(s.covariance.numUpdates, 5);
 * ```
 *
 * References: Shang et al. (2015), Algorithm 1, eqs. 17–19.
 */
export function step(
  rng: Rng,
  state: CcadlState,
  params: CcadlParams,
  out?: SgStepBuffers,
): { state: CcadlState; info: CcadlInfo } {
  const d = state.position.length;
  checkSgParams(params, d);
  const h = params.stepSize, est = params.estimator;
  const { friction: a, thermalMass: mu } = thermostatConstants(params, d);
  const kind = state.covariance.kind;
  if (params.covariance !== undefined && params.covariance !== kind) {
    throw new RangeError(
      `params.covariance is "${params.covariance}" but the state holds a ${kind} estimate; init with covariance: "${params.covariance}"`,
    );
  }
  if (est.batchSize < 2) {
    throw new RangeError(
      `CCAdL estimates a covariance and needs batchSize ≥ 2, got ${est.batchSize}`,
    );
  }
  const before = est.cost.numGradRows;
  const bound = params.explosionBound ?? DEFAULT_EXPLOSION_BOUND;
  const diverged = (): { state: CcadlState; info: CcadlInfo } => ({
    state,
    info: {
      numGradRows: est.cost.numGradRows - before,
      kineticTemperature: kineticTemperature(state.momentum),
      thermostat: state.thermostat,
      numReflections: 0,
      meanNoiseVariance: NaN,
      isDivergent: true,
    },
  });
  const pos = copyIntoBuffer(state.position, out, "position");
  const p = copyIntoBuffer(state.momentum, out, "momentum");
  for (let j = 0; j < d; j++) pos[j] += h * p[j];
  if (isExploded(pos, bound)) return diverged();
  const numReflections = reflectIntoBounds(pos, { bounds: params.bounds, momentum: p });
  const e = est.estimate(pos, rng, { covariance: kind });
  if (isExploded(e.grad, Infinity)) return diverged();
  const t = state.covariance.numUpdates + 1;
  const weight = params.covarianceWeightFn ? params.covarianceWeightFn(t) : 1 / t;
  // Îₜ (eq. 18) and (h²/2)Îₜp, × N²/n below, in one pass over Îₜ.
  const { estimate: cov, product: damp } = updateAndApplyCovariance(state.covariance, {
    covariance: e.covariance as Float64Array,
    weight,
    out: params.isInPlace ? state.covariance.value : undefined,
    vector: p,
    scale: 0.5 * h * h,
    product: out?.scratch,
  });
  const scale = (est.numRows * est.numRows) / est.batchSize; // Σ̂ = N²Î/n
  const xi = state.thermostat, sd = Math.sqrt(2 * a * h);
  const g = e.grad;
  let pp = 0;
  for (let j = 0; j < d; j++) {
    const pj = p[j] + h * g[j] - scale * damp[j] - h * xi * p[j] + sd * rng.normal();
    p[j] = pj;
    pp += pj * pj;
  }
  const thermostat = xi + ((pp - d) * h) / mu;
  if (isExploded(p, bound) || !Number.isFinite(thermostat)) return diverged();
  let tr = 0;
  const c = cov.value;
  for (let j = 0; j < d; j++) tr += kind === "full" ? c[j * d + j] : c[j];
  return {
    state: { position: pos, momentum: p, thermostat, covariance: cov },
    info: {
      numGradRows: est.cost.numGradRows - before,
      kineticTemperature: kineticTemperature(p),
      thermostat,
      numReflections,
      meanNoiseVariance: (scale * tr) / d,
      isDivergent: false,
    },
  };
}

/**
 * The kernel as a {@link ChainSampler} for the run driver
 * (`sampleChains`): warmup is plain burn-in (no adaptation). p₀ ~ N(0, I), ξ₀ = A, Î₀ = 0; Îₜ is
 * updated in place (the driver never reuses a previous state) and θ, p are
 * written into two sets of arrays in turn (a returned state stays valid until
 * the step after next) unless `isInPlace: false` is given.
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
 *   sampler: sampler({ estimator, stepSize: 0.01, bounds: model.bounds, covariance: "diagonal" }),
 *   model, seed: 1, numWarmup: 50, numSamples: 100, numChains: 1, initialPosition: new Float64Array([0, 1]),
 * });
 * assert.equal(run.draws[0][1].length, 100);
 * assert.equal(run.chains[0].cost.sampling.numGradRows, 200);
 * ```
 *
 * References: see {@link step}.
 */
export function sampler(params: CcadlParams): ChainSampler<CcadlState, CcadlInfo> {
  const inPlace = params.isInPlace ?? true, buffers = alternatingBuffers();
  return sgChainSampler("CCAdL", {
    init: (position, rng) =>
      init(position, { rng, friction: params.friction, covariance: params.covariance }),
    step: (rng, state, p) => step(rng, state, p, inPlace ? buffers(state) : undefined),
    params: { ...params, isInPlace: inPlace },
  });
}
