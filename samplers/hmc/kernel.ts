/**
 * Hamiltonian Monte Carlo with a static trajectory (Metropolis-corrected
 * leapfrog), the kernel under full-data HMC and the θ-update of HMC-ECS.
 *
 * `step` is a pure function of (state, rng, params): it draws p ~ N(0, M),
 * runs the shared {@link leapfrog} for L steps and accepts the end point with
 * probability min(1, exp(−ΔH)), ΔH = H(θ_L, p_L) − H(θ₀, p₀),
 * H = −log π(θ) + ½pᵀM⁻¹p. The log density it follows is whatever
 * `logDensityAndGradientFn` returns — exact for full-data HMC, the estimate
 * for a fixed subsample u in HMC-ECS — and the same function is used for the
 * trajectory and the acceptance test (HMC-ECS eq. 7). Step-size and metric
 * adaptation live in other modules and only run during warmup.
 *
 * References: Neal (2011), "MCMC using Hamiltonian dynamics", §5.3.2;
 * Dang et al. (2019), HMC-ECS Algorithm 1 and eq. (7).
 *
 * @module
 */
import type { Rng } from "../../random/rng.ts";
import type { GradientFn } from "../../models/model.ts";
import { leapfrog, type LogDensityGradientFn } from "../integrators.ts";
import type { Metric } from "../metric.ts";
import type { StepInfo } from "../sampler.ts";
import { positive, positiveFinite, positiveInteger } from "../validate_options.ts";

/** What the next HMC step needs. Treat as immutable. */
export interface HmcState {
  /** θ. */
  readonly position: Float64Array;
  /** log π(θ). */
  readonly logDensity: number;
  /** ∇ log π(θ). */
  readonly gradient: Float64Array;
}

/** Diagnostics of one HMC step. */
export interface HmcInfo extends StepInfo {
  /** min(1, exp(−ΔH)) (0 if ΔH is not finite). */
  acceptanceRate: number;
  /** Whether the proposal was accepted. */
  isAccepted: boolean;
  /** ΔH above `divergenceThreshold`, or a non-finite log density/gradient on the trajectory. */
  isDivergent: boolean;
  /** Total energy H of the returned state (with the momentum drawn or integrated). */
  energy: number;
  /** ΔH = H(proposal) − H(start) (Infinity if the trajectory hit a non-finite value). */
  energyError: number;
  /** Leapfrog steps taken (= gradient evaluations). */
  numIntegrationSteps: number;
  /** ε used. */
  stepSize: number;
  /** log π(θ) of the returned state, up to a constant (CmdStan's `lp__`). */
  logDensity: number;
  /**
   * The end of the trajectory (θ_L, p_L), whether accepted or not, when
   * `reportProposal` was set: what trajectory-length adaptation (ChEES) reads.
   */
  proposal?: { position: Float64Array; momentum: Float64Array };
}

/** Parameters of {@link step}. Give exactly one of `numIntegrationSteps` and `trajectoryLength`. */
export interface HmcParams {
  /** The log density (and gradient) the chain targets. */
  logDensityAndGradientFn: LogDensityGradientFn;
  /**
   * Optional: its gradient alone (the same bits), for the trajectory's inner
   * points (`gradientFn` of the leapfrog options).
   */
  gradientFn?: GradientFn;
  /** ε > 0. */
  stepSize: number;
  /** L (positive integer). */
  numIntegrationSteps?: number;
  /** εL; then L = max(1, ⌈trajectoryLength / ε⌉), capped at `maxNumIntegrationSteps`. */
  trajectoryLength?: number;
  /** Cap on L when derived from `trajectoryLength` (default 1000). */
  maxNumIntegrationSteps?: number;
  /** The metric (mass matrix). */
  metric: Metric;
  /** ΔH above this marks the transition divergent (default 1000). */
  divergenceThreshold?: number;
  /** Put the trajectory's end point in `info.proposal` (default false; warmup adaptation). */
  reportProposal?: boolean;
  /**
   * Buffers of length d the step may overwrite for the momentum and the
   * leapfrog's velocity, instead of new ones at every step (the same numbers;
   * the momentum's is not used with `reportProposal`, which hands it out).
   */
  scratch?: {
    momentum: Float64Array;
    velocity: Float64Array;
    /**
     * Optional buffers of length d for the trajectory's position and
     * gradient, instead of copies made at every step: they must not be the
     * state's own arrays, and an accepted step returns them as its state's
     * (the caller hands the next step buffers that state does not use).
     * Not used with `reportProposal`, which hands the position out.
     */
    position?: Float64Array;
    gradient?: Float64Array;
  };
}

/**
 * Initial HMC state at `position`: evaluates log π and its gradient once.
 *
 * @param position θ₀ (copied).
 * @param logDensityAndGradientFn The target.
 * @param options `parameterNames` to name a non-finite coordinate in the error.
 * @returns The state.
 * @throws {RangeError} If the log density or its gradient at θ₀ is not
 *   finite, naming the parameter (or θ₀'s values) received.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { init } from "./kernel.ts";
 * const fn = (x: Float64Array, g: Float64Array) => { g[0] = -x[0]; return -0.5 * x[0] ** 2; };
 * const s = init(new Float64Array([2]), fn);
 * assert.equal(s.logDensity, -2);
 * assert.equal(s.gradient[0], -2);
 * const bad = (_x: Float64Array, g: Float64Array) => { g[0] = Infinity; return 0; };
 * assert.throws(() => init(new Float64Array([0]), bad, { parameterNames: ["b"] }), /parameter "b"/);
 * ```
 *
 * References: Neal (2011), §5.3.2.
 */
export function init(
  position: Float64Array,
  logDensityAndGradientFn: LogDensityGradientFn,
  options: { parameterNames?: readonly string[] } = {},
): HmcState {
  if (!(position instanceof Float64Array)) {
    throw new TypeError(
      `position must be a Float64Array, got ${Object.prototype.toString.call(position)}`,
    );
  }
  const pos = Float64Array.from(position);
  const gradient = new Float64Array(pos.length);
  const logDensity = logDensityAndGradientFn(pos, gradient);
  const names = options.parameterNames;
  const at = Array.from(pos.slice(0, 5), (v, j) => names ? `${names[j]} = ${v}` : `${v}`)
    .join(", ") + (pos.length > 5 ? ", …" : "");
  const j = gradient.findIndex((g) => !Number.isFinite(g));
  const which = j < 0 ? "" : names ? `parameter ${JSON.stringify(names[j])}` : `coordinate ${j}`;
  if (!Number.isFinite(logDensity)) {
    throw new RangeError(
      `log density at the initial position must be finite, got ${logDensity} at ${
        names ? at : `[${at}]`
      }${j < 0 ? "" : ` (its gradient is ${gradient[j]} for ${which})`}`,
    );
  }
  if (j >= 0) {
    throw new RangeError(
      `the gradient of the log density at the initial position must be finite, got ${
        gradient[j]
      } for ${which} at ${names ? at : `[${at}]`}`,
    );
  }
  return { position: pos, logDensity, gradient };
}

/**
 * L = max(1, ⌈trajectoryLength / stepSize⌉), capped at `max`.
 *
 * @param trajectoryLength εL > 0.
 * @param options `stepSize` ε > 0 and `max` (default 1000).
 * @returns The number of leapfrog steps.
 *
 * @example
 * ```ts
 * import { numStepsForTrajectory } from "./kernel.ts";
 * if (numStepsForTrajectory(1.2, { stepSize: 0.2 }) !== 6) throw new Error();
 * ```
 *
 * References: Dang et al. (2019), §6.3 (εL = 1.2); Hoffman & Gelman (2014), Algorithm 5.
 */
export function numStepsForTrajectory(
  trajectoryLength: number,
  options: { stepSize: number; max?: number },
): number {
  const eps = options.stepSize, max = options.max ?? 1000;
  positiveFinite("trajectoryLength", trajectoryLength);
  positiveFinite("stepSize", eps);
  positiveInteger("maxNumIntegrationSteps", max);
  // Guard against 1.2/0.2 = 5.999…: round ratios within 1e-9 of an integer.
  const ratio = trajectoryLength / eps;
  const r = Math.round(ratio);
  const steps = Math.abs(ratio - r) < 1e-9 * Math.max(1, r) ? r : Math.ceil(ratio);
  return Math.min(max, Math.max(1, steps));
}

/**
 * One HMC transition: momentum draw, L leapfrog steps, Metropolis test.
 *
 * Consumes the generator in a fixed order (d normals for the momentum, then
 * one uniform), whatever happens on the trajectory.
 *
 * @param rng The generator.
 * @param state The current state (not modified).
 * @param params ε, L or εL, the metric, the target and the divergence threshold.
 * @returns The next state (the same object if rejected) and the step's info.
 * @throws {RangeError} On a non-positive ε, bad L or a state whose length
 *   differs from the metric's dimension.
 *
 * @example
 * ```ts
 * import { init, step } from "./kernel.ts";
 * import { identityMetric } from "../metric.ts";
 * import { Rng } from "../../random/rng.ts";
 * const fn = (x: Float64Array, g: Float64Array) => { g[0] = -x[0]; return -0.5 * x[0] ** 2; };
 * let s = init(new Float64Array([0]), fn);
 * const rng = new Rng(1);
 * let acc = 0;
 * for (let i = 0; i < 100; i++) {
 *   const r = step(rng, s, { logDensityAndGradientFn: fn, stepSize: 0.2,
 *     numIntegrationSteps: 5, metric: identityMetric(1) });
 *   s = r.state;
 *   acc += r.info.acceptanceRate;
 * }
 * if (acc / 100 < 0.9) throw new Error("small steps on a normal should almost always accept");
 * ```
 *
 * References: Neal (2011), §5.3.2; Dang et al. (2019), Algorithm 1 and eq. (7).
 */
export function step(
  rng: Rng,
  state: HmcState,
  params: HmcParams,
): { state: HmcState; info: HmcInfo } {
  const { metric, stepSize } = params;
  const d = metric.dim;
  if (state.position.length !== d) {
    throw new RangeError(
      `position must have the metric's length ${d}, got ${state.position.length}`,
    );
  }
  positiveFinite("stepSize", stepSize);
  const numSteps = _numSteps(params);
  const threshold = params.divergenceThreshold ?? 1000;
  positive("divergenceThreshold", threshold);

  const scratch = params.scratch;
  const own = scratch !== undefined && scratch.momentum.length === d &&
    scratch.velocity.length === d;
  const momentum = metric.sampleMomentum(
    rng,
    own && !params.reportProposal ? scratch.momentum : new Float64Array(d),
  );
  const energy0 = -state.logDensity + metric.kineticEnergy(momentum);
  const reuse = own && !params.reportProposal;
  const proposal = {
    position: _copyInto(state.position, reuse ? scratch.position : undefined),
    momentum,
    logDensity: state.logDensity,
    gradient: _copyInto(state.gradient, reuse ? scratch.gradient : undefined),
  };
  const result = leapfrog(proposal, {
    logDensityAndGradientFn: params.logDensityAndGradientFn,
    gradientFn: params.gradientFn,
    metric,
    stepSize,
    numIntegrationSteps: numSteps,
    scratch: own ? scratch.velocity : undefined,
  });
  const energy1 = -result.logDensity + metric.kineticEnergy(momentum);
  const test = metropolisTest(rng, {
    energy0,
    energy1,
    isTrajectoryDivergent: result.isDivergent,
    divergenceThreshold: threshold,
  });
  const isAccepted = test.isAccepted;
  const info: HmcInfo = {
    ...test,
    numIntegrationSteps: result.numIntegrationSteps,
    stepSize,
    logDensity: test.isAccepted ? result.logDensity : state.logDensity,
  };
  if (params.reportProposal) info.proposal = { position: proposal.position, momentum };
  if (!isAccepted) return { state, info };
  return {
    state: {
      position: proposal.position,
      logDensity: result.logDensity,
      gradient: proposal.gradient,
    },
    info,
  };
}

/** `from` copied into `to` (a buffer of its length that is not `from`), or into a new array. */
function _copyInto(from: Float64Array, to: Float64Array | undefined): Float64Array {
  if (to === undefined || to === from || to.length !== from.length) return new Float64Array(from);
  to.set(from);
  return to;
}

function _numSteps(params: HmcParams): number {
  const { numIntegrationSteps: n, trajectoryLength: t } = params;
  if (n !== undefined && t !== undefined) {
    throw new TypeError(
      `give numIntegrationSteps or trajectoryLength, not both (got ${n} and ${t})`,
    );
  }
  if (n !== undefined) {
    positiveInteger("numIntegrationSteps", n);
    return n;
  }
  if (t === undefined) {
    throw new TypeError("give numIntegrationSteps or trajectoryLength, got neither");
  }
  return numStepsForTrajectory(t, {
    stepSize: params.stepSize,
    max: params.maxNumIntegrationSteps,
  });
}

/** The outcome of {@link metropolisTest}. */
export interface MetropolisTest {
  /** min(1, exp(−ΔH)) (0 if ΔH is not finite). */
  acceptanceRate: number;
  /** Whether the proposal was accepted. */
  isAccepted: boolean;
  /** ΔH above the threshold, or a non-finite value on the trajectory. */
  isDivergent: boolean;
  /** H of the state kept. */
  energy: number;
  /** ΔH = H(proposal) − H(start) (Infinity after a non-finite trajectory). */
  energyError: number;
}

/**
 * The Metropolis test on the change of total energy that every HMC-type
 * kernel (HMC, HMC-ECS's θ-step, QNHMC) ends with. Draws exactly one uniform.
 *
 * @param rng The generator.
 * @param options H at the start and at the proposal, whether the trajectory
 *   hit a non-finite value, and the ΔH above which the step is divergent.
 * @returns Acceptance probability and decision, divergence, energy and ΔH.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { metropolisTest } from "./kernel.ts";
 * import { Rng } from "../../random/rng.ts";
 * const t = metropolisTest(new Rng(1), {
 *   energy0: 1, energy1: 1 + Math.log(2), isTrajectoryDivergent: false, divergenceThreshold: 1000,
 * });
 * assert.ok(Math.abs(t.acceptanceRate - 0.5) < 1e-15);
 * assert.equal(t.energy, t.isAccepted ? 1 + Math.log(2) : 1);
 * ```
 *
 * References: Neal (2011), §5.3.2, eq. (5.22)–(5.24).
 */
export function metropolisTest(
  rng: Rng,
  options: {
    energy0: number;
    energy1: number;
    isTrajectoryDivergent: boolean;
    divergenceThreshold: number;
  },
): MetropolisTest {
  const { energy0, energy1, isTrajectoryDivergent } = options;
  const energyError = isTrajectoryDivergent ? Infinity : energy1 - energy0;
  const acceptanceRate = Number.isFinite(energyError) ? Math.min(1, Math.exp(-energyError)) : 0;
  const isDivergent = isTrajectoryDivergent || !(energyError <= options.divergenceThreshold);
  const u = rng.uniform();
  const isAccepted = !isTrajectoryDivergent && u < acceptanceRate;
  return {
    acceptanceRate,
    isAccepted,
    isDivergent,
    energy: isAccepted ? energy1 : energy0,
    energyError,
  };
}
