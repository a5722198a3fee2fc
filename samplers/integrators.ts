/**
 * The leapfrog integrator shared by every Hamiltonian sampler of tallmc.
 *
 * Full-data HMC, HMC-ECS (whose log density is an estimate for a fixed
 * subsample u), naive subsampled HMC and quasi-Newton HMC all integrate
 * Hamilton's equations with this one function. It sees the target only
 * through a {@link LogDensityGradientFn} `(theta, grad) => logDensity`, so a
 * sampler decides what the "log density" is (exact, estimated, perturbed) by
 * the function it passes in. The potential energy is U(θ) = −logDensity(θ)
 * and the kinetic energy comes from the {@link Metric}.
 *
 * References: Neal (2011), "MCMC using Hamiltonian dynamics", eq. (5.18)–(5.20);
 * Dang et al. (2019), HMC-ECS Algorithm 1.
 *
 * @module
 */
import type { GradientFn } from "../models/model.ts";
import type { Metric } from "./metric.ts";
import { positiveFinite, positiveInteger } from "./validate_options.ts";

/**
 * A log density and its gradient: writes ∇ log π(θ) into `gradient`
 * (overwriting it) and returns log π(θ) (up to a constant).
 *
 * Returning a non-finite value (or writing one into `gradient`) marks the
 * point as outside the support: the integrator stops there.
 */
export type LogDensityGradientFn = (position: Float64Array, gradient: Float64Array) => number;

/**
 * The phase-space point the integrator moves, updated in place. `logDensity`
 * and `gradient` must be those of `position` under the function passed to
 * {@link leapfrog}.
 */
export interface IntegratorState {
  /** θ (length d). */
  position: Float64Array;
  /** p (length d). */
  momentum: Float64Array;
  /** log π(θ). */
  logDensity: number;
  /** ∇ log π(θ) (length d). */
  gradient: Float64Array;
}

/** Parameters of {@link leapfrog}. */
export interface LeapfrogOptions {
  /** The (possibly estimated) log density and gradient the dynamics follow. */
  logDensityAndGradientFn: LogDensityGradientFn;
  /** The metric giving the velocity M⁻¹p. */
  metric: Metric;
  /** ε > 0. */
  stepSize: number;
  /** L ≥ 1 leapfrog steps. */
  numIntegrationSteps: number;
  /** Optional scratch buffer of length d for M⁻¹p (allocated when absent). */
  scratch?: Float64Array;
  /**
   * Optional: the gradient of the same log density alone, used at the L − 1
   * inner points, whose log density nothing reads (the end point still gets
   * `logDensityAndGradientFn`). It must write the bits that function writes
   * (a GLM's `logDensityGradient`), so the trajectory is the same; a
   * non-finite gradient (NaN outside the support) stops it as a non-finite
   * log density would.
   */
  gradientFn?: GradientFn;
}

/** What {@link leapfrog} reports. */
export interface LeapfrogResult {
  /** log π at the final position (NaN or ±Infinity if the trajectory diverged). */
  logDensity: number;
  /** Leapfrog steps taken = gradient evaluations made (< L if stopped early). */
  numIntegrationSteps: number;
  /** True if a non-finite log density or gradient stopped the trajectory. */
  isDivergent: boolean;
}

/**
 * Integrate Hamilton's equations for L leapfrog steps of size ε, in place.
 *
 * With g = ∇ log π = −∇U:
 * p ← p + ½ε g(θ); then L times θ ← θ + ε M⁻¹p, g ← g(θ), p ← p + ε g
 * (½ε on the last step). One gradient evaluation per step; the gradient at
 * the start is taken from `state`. The integrator is symplectic and
 * time-reversible: flipping p at the end and integrating again returns to the
 * start up to round-off. If log π or its gradient becomes non-finite, it stops
 * at once and reports `isDivergent`; `state` is then left at the failing point.
 *
 * With `options.gradientFn`, the L − 1 inner points take the gradient alone
 * and only the end point the log density with it: the same trajectory (the
 * gradient's bits are the combined function's) for less work per step.
 *
 * The momentum is not negated at the end (the flip of Algorithm 1 does not
 * change a Gaussian kinetic energy).
 *
 * @param state Position, momentum, log density and gradient; overwritten with
 *   the end point (`state.logDensity` too).
 * @param options The log density, metric, ε, L and an optional scratch buffer.
 * @returns The final log density, the number of steps taken and whether the
 *   trajectory diverged.
 * @throws {RangeError} If ε is not positive and finite, L is not a positive
 *   integer or the buffers do not have the metric's dimension.
 *
 * @example
 * ```ts
 * import { leapfrog } from "./integrators.ts";
 * import { identityMetric } from "./metric.ts";
 * // Standard normal: log π = −½θ², ∇ = −θ.
 * const fn = (x: Float64Array, g: Float64Array) => { g[0] = -x[0]; return -0.5 * x[0] * x[0]; };
 * const s = { position: new Float64Array([1]), momentum: new Float64Array([0]),
 *   logDensity: -0.5, gradient: new Float64Array([-1]) };
 * const r = leapfrog(s, { logDensityAndGradientFn: fn, metric: identityMetric(1),
 *   stepSize: 0.1, numIntegrationSteps: 10 });
 * const h0 = 0.5, h1 = -r.logDensity + 0.5 * s.momentum[0] ** 2;
 * if (r.isDivergent || Math.abs(h1 - h0) > 1e-2) throw new Error("energy not conserved");
 * ```
 *
 * References: Neal (2011), eq. (5.18)–(5.20); Dang et al. (2019), Algorithm 1.
 */
export function leapfrog(state: IntegratorState, options: LeapfrogOptions): LeapfrogResult {
  const { logDensityAndGradientFn: fn, metric, stepSize: eps, numIntegrationSteps: numSteps } =
    options;
  positiveFinite("stepSize", eps);
  positiveInteger("numIntegrationSteps", numSteps);
  const { position: theta, momentum: p, gradient: g } = state;
  const d = metric.dim;
  if (theta.length !== d || p.length !== d || g.length !== d) {
    throw new RangeError(
      `position, momentum and gradient must have the metric's length ${d}, got ${theta.length}, ${p.length} and ${g.length}`,
    );
  }
  const v = options.scratch ?? new Float64Array(d);
  const half = 0.5 * eps;
  for (let i = 0; i < d; i++) p[i] += half * g[i];
  let logDensity = state.logDensity;
  const gradientFn = options.gradientFn;
  for (let step = 1; step <= numSteps; step++) {
    metric.velocity(p, v);
    for (let i = 0; i < d; i++) theta[i] += eps * v[i];
    const isInner = gradientFn !== undefined && step < numSteps;
    if (isInner) gradientFn(theta, g);
    else logDensity = fn(theta, g);
    let gsum = 0;
    for (let i = 0; i < d; i++) gsum += g[i];
    if (!Number.isFinite(gsum) || (!isInner && !Number.isFinite(logDensity))) {
      if (isInner) logDensity = NaN; // stopped where only the gradient was evaluated
      state.logDensity = logDensity;
      return { logDensity, numIntegrationSteps: step, isDivergent: true };
    }
    const k = step < numSteps ? eps : half;
    for (let i = 0; i < d; i++) p[i] += k * g[i];
  }
  state.logDensity = logDensity;
  return { logDensity, numIntegrationSteps: numSteps, isDivergent: false };
}
