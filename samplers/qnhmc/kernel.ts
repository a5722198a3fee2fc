/**
 * The quasi-Newton HMC kernel: one Metropolis-corrected leapfrog trajectory
 * of the dynamics of eq. (7),
 *
 * ```
 *  θ̇ = C M⁻¹ p,     ṗ = −C ∇U(θ),     H(θ, p) = U(θ) + ½ pᵀM⁻¹p,   U = −log π
 * ```
 *
 * with C a symmetric positive-definite inverse-Hessian approximation held
 * fixed for the whole proposal (Algorithm 2, lines 3–16). Both half-maps of
 * the leapfrog are shears, so the discretised map is volume preserving and
 * reversible and the Metropolis test on H makes the step exact for any fixed
 * SPD C (Theorem 3). The trajectory runs through the shared
 * {@link leapfrog}: the metric it sees has velocity C M⁻¹p and the gradient
 * it sees is C ∇ log π, so no second integrator exists. With C = I the step
 * is `hmc.step`, draw for draw.
 *
 * The kernel does not change C. It returns, in `state.pendingPairs`, the
 * curvature pairs (s, y) of the trajectory it accepted (none after a
 * rejection: Algorithm 2 line 22, B = C); {@link adoptPendingPairs} in
 * `adaptation.ts` folds them into the next C. Whether that happens (warmup
 * only, or also while sampling) is the sampler's decision, not the kernel's.
 *
 * References: Fu, Luo & Zhang (2016), "Quasi-Newton Hamiltonian Monte
 * Carlo", eq. (2), (7), Algorithm 2, Theorem 3; Neal (2011), §5.3.2.
 *
 * @module
 */
import type { GradientFn } from "../../models/model.ts";
import type { Rng } from "../../random/rng.ts";
import { metropolisTest } from "../hmc/kernel.ts";
import { leapfrog, type LogDensityGradientFn } from "../integrators.ts";
import type { Metric } from "../metric.ts";
import type { CurvaturePair, InverseHessian } from "./inverse_hessian.ts";
import { positive, positiveFinite, positiveInteger } from "../validate_options.ts";

/** What the next QNHMC step needs. Treat as immutable. */
export interface QnhmcState {
  /** θ. */
  readonly position: Float64Array;
  /** log π(θ). */
  readonly logDensity: number;
  /** ∇ log π(θ) (not preconditioned). */
  readonly gradient: Float64Array;
  /** C, the inverse-Hessian approximation the next proposal uses. */
  readonly inverseHessian: InverseHessian;
  /** Curvature pairs of the last step's accepted trajectory, not yet in C (empty after a rejection). */
  readonly pendingPairs: readonly CurvaturePair[];
}

/** Diagnostics of one QNHMC step. */
export interface QnhmcInfo {
  /** min(1, exp(−ΔH)) (0 if ΔH is not finite). */
  acceptanceRate: number;
  /** Whether the proposal was accepted. */
  isAccepted: boolean;
  /** ΔH above `divergenceThreshold`, or a non-finite value on the trajectory. */
  isDivergent: boolean;
  /** H of the returned state. */
  energy: number;
  /** ΔH = H(proposal) − H(start) (Infinity if the trajectory hit a non-finite value). */
  energyError: number;
  /** Leapfrog steps taken (= gradient evaluations). */
  numIntegrationSteps: number;
  /** ε used. */
  stepSize: number;
  /** Pairs C already holds (L-BFGS: at most m). */
  numPairs: number;
  /** log π(θ) of the returned state, up to a constant (CmdStan's `lp__`). */
  logDensity: number;
}

/** Parameters of {@link step}. */
export interface QnhmcParams {
  /** The log density (and gradient) the chain targets. */
  logDensityAndGradientFn: LogDensityGradientFn;
  /** Optional: its gradient alone (the same bits), for the trajectory's inner points. */
  gradientFn?: GradientFn;
  /** ε > 0. */
  stepSize: number;
  /** L (positive integer). */
  numIntegrationSteps: number;
  /** The metric M of the kinetic energy (Algorithm 2 uses M = I). */
  metric: Metric;
  /** ΔH above this marks the transition divergent (default 1000). */
  divergenceThreshold?: number;
  /**
   * Record the trajectory's curvature pairs in `pendingPairs` when the
   * proposal is accepted (default true; false saves 2Ld numbers per step
   * when C is frozen).
   */
  collectPairs?: boolean;
}

/**
 * Initial QNHMC state at `position` with approximation C: evaluates log π and
 * its gradient once.
 *
 * @param position θ₀ (copied).
 * @param options The target and C₀.
 * @returns The state.
 * @throws {RangeError} If the log density at θ₀ is not finite or C has another dimension.
 *
 * @example
 * ```ts
 * import { init } from "./kernel.ts";
 * import { denseBfgs } from "./bfgs.ts";
 * const fn = (x: Float64Array, g: Float64Array) => { g[0] = -x[0]; return -0.5 * x[0] ** 2; };
 * const s = init(new Float64Array([2]), { logDensityAndGradientFn: fn, inverseHessian: denseBfgs(1) });
 * if (s.logDensity !== -2 || s.gradient[0] !== -2 || s.pendingPairs.length !== 0) throw new Error();
 * ```
 *
 * References: Fu, Luo & Zhang (2016), Algorithm 2 (B = I at the start).
 */
export function init(
  position: Float64Array,
  options: { logDensityAndGradientFn: LogDensityGradientFn; inverseHessian: InverseHessian },
): QnhmcState {
  if (!(position instanceof Float64Array)) {
    throw new TypeError(
      `position must be a Float64Array, got ${Object.prototype.toString.call(position)}`,
    );
  }
  const { inverseHessian } = options;
  if (inverseHessian.dim !== position.length) {
    throw new RangeError(
      `inverseHessian must have the position's dimension ${position.length}, got ${inverseHessian.dim}`,
    );
  }
  const pos = Float64Array.from(position);
  const gradient = new Float64Array(pos.length);
  const logDensity = options.logDensityAndGradientFn(pos, gradient);
  if (!Number.isFinite(logDensity)) {
    throw new RangeError(
      `log density at the initial position must be finite, got ${logDensity} at [${
        Array.from(pos.slice(0, 5)).join(", ")
      }${pos.length > 5 ? ", …" : ""}]`,
    );
  }
  return { position: pos, logDensity, gradient, inverseHessian, pendingPairs: [] };
}

/**
 * One QNHMC transition: p ~ N(0, M), L leapfrog steps of eq. (7) with C
 * fixed, Metropolis test on H(θ, p).
 *
 * Consumes the generator in the same order as `hmc.step` (d normals for the
 * momentum, then one uniform) whatever happens on the trajectory. Divergent
 * or non-finite trajectories are reported in `info` and rejected, never thrown.
 *
 * @param rng The generator.
 * @param state The current state (not modified).
 * @param params ε, L, the metric, the target, the divergence threshold.
 * @returns The next state (C unchanged; the accepted trajectory's pairs in
 *   `pendingPairs`) and the step's info.
 * @throws {RangeError} On a non-positive ε, bad L or mismatched dimensions.
 *
 * @example
 * ```ts
 * import { init, step } from "./kernel.ts";
 * import { denseBfgs } from "./bfgs.ts";
 * import { identityMetric } from "../metric.ts";
 * import { Rng } from "../../random/rng.ts";
 * const fn = (x: Float64Array, g: Float64Array) => { g[0] = -4 * x[0]; return -2 * x[0] ** 2; };
 * let s = init(new Float64Array([1]), { logDensityAndGradientFn: fn, inverseHessian: denseBfgs(1) });
 * const r = step(new Rng(1), s, { logDensityAndGradientFn: fn, stepSize: 0.1,
 *   numIntegrationSteps: 5, metric: identityMetric(1) });
 * // Accepted trajectories hand back one (s, y) pair per leapfrog step.
 * if (r.info.isAccepted && r.state.pendingPairs.length !== 5) throw new Error();
 * ```
 *
 * References: Fu, Luo & Zhang (2016), eq. (7), Algorithm 2; Neal (2011), §5.3.2.
 */
export function step(
  rng: Rng,
  state: QnhmcState,
  params: QnhmcParams,
): { state: QnhmcState; info: QnhmcInfo } {
  const { metric, stepSize, numIntegrationSteps: numSteps } = params;
  const c = state.inverseHessian, d = metric.dim;
  if (state.position.length !== d || c.dim !== d) {
    throw new RangeError(
      `position and inverseHessian must have the metric's dimension ${d}, got ${state.position.length} and ${c.dim}`,
    );
  }
  positiveFinite("stepSize", stepSize);
  positiveInteger("numIntegrationSteps", numSteps);
  const threshold = params.divergenceThreshold ?? 1000;
  positive("divergenceThreshold", threshold);
  const collect = params.collectPairs ?? true;

  const momentum = metric.sampleMomentum(rng, new Float64Array(d));
  const energy0 = -state.logDensity + metric.kineticEnergy(momentum);
  // The trajectory as the shared leapfrog sees it: gradient C∇log π, velocity C M⁻¹p.
  const rawGradient = Float64Array.from(state.gradient);
  const previous = collect ? Float64Array.from(state.position) : new Float64Array(0);
  const pairs: CurvaturePair[] = [];
  const fn = params.logDensityAndGradientFn, gradFn = params.gradientFn;
  // One leapfrog point: ∇ log π at θ (with log π from `evaluate`), its pair, C∇ log π.
  const preconditioned = (
    theta: Float64Array,
    out: Float64Array,
    evaluate: LogDensityGradientFn,
  ): number => {
    const oldGradient = collect ? Float64Array.from(rawGradient) : rawGradient;
    const logDensity = evaluate(theta, rawGradient);
    if (collect) {
      const s = new Float64Array(d), y = new Float64Array(d);
      for (let i = 0; i < d; i++) {
        s[i] = theta[i] - previous[i];
        y[i] = oldGradient[i] - rawGradient[i]; // ∇U = −∇log π
        previous[i] = theta[i];
      }
      pairs.push({ s, y });
    }
    c.multiply(rawGradient, out);
    return logDensity;
  };
  const preconditionedFn: LogDensityGradientFn = (theta, out) => preconditioned(theta, out, fn);
  const gradientOnly: LogDensityGradientFn | undefined = gradFn === undefined
    ? undefined
    : (theta, g) => {
      gradFn(theta, g);
      return 0;
    };
  const preconditionedGradientFn: GradientFn | undefined = gradientOnly === undefined
    ? undefined
    : (theta, out) => {
      preconditioned(theta, out, gradientOnly);
    };
  const velocityScratch = new Float64Array(d);
  const preconditionedMetric: Metric = {
    kind: metric.kind,
    dim: d,
    inverseMassMatrix: metric.inverseMassMatrix,
    kineticEnergy: (p: Float64Array): number => metric.kineticEnergy(p),
    sampleMomentum: (r: Rng, out: Float64Array): Float64Array => metric.sampleMomentum(r, out),
    velocity(p: Float64Array, out: Float64Array): Float64Array {
      return c.multiply(metric.velocity(p, velocityScratch), out);
    },
  };
  const proposal = {
    position: Float64Array.from(state.position),
    momentum,
    logDensity: state.logDensity,
    gradient: c.multiply(state.gradient, new Float64Array(d)),
  };
  const result = leapfrog(proposal, {
    logDensityAndGradientFn: preconditionedFn,
    gradientFn: preconditionedGradientFn,
    metric: preconditionedMetric,
    stepSize,
    numIntegrationSteps: numSteps,
  });
  const energy1 = -result.logDensity + metric.kineticEnergy(momentum);
  const test = metropolisTest(rng, {
    energy0,
    energy1,
    isTrajectoryDivergent: result.isDivergent,
    divergenceThreshold: threshold,
  });
  const isAccepted = test.isAccepted;
  const info: QnhmcInfo = {
    ...test,
    numIntegrationSteps: result.numIntegrationSteps,
    stepSize,
    numPairs: c.numPairs,
    logDensity: isAccepted ? result.logDensity : state.logDensity,
  };
  if (!isAccepted) {
    return {
      state: state.pendingPairs.length === 0 ? state : { ...state, pendingPairs: [] },
      info,
    };
  }
  return {
    state: {
      position: proposal.position,
      logDensity: result.logDensity,
      gradient: rawGradient,
      inverseHessian: c,
      pendingPairs: pairs,
    },
    info,
  };
}
