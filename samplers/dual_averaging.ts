/**
 * Step-size adaptation by dual averaging (warmup only), and the
 * "reasonable initial step size" heuristic.
 *
 * Dual averaging drives the mean acceptance rate of an HMC-type kernel to a
 * target δ by a stochastic-approximation update of log ε (Nesterov 2009),
 * returning at the end of warmup the weighted average ε̄, which is then held
 * fixed for sampling. HMC-ECS §6.3 uses it with a fixed trajectory length
 * εL = 1.2 and δ = 0.8.
 *
 * References: Hoffman & Gelman (2014), "The No-U-Turn Sampler", §3.2,
 * Algorithms 4 and 5, eq. (5)–(6); Dang et al. (2019), §6.3.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { leapfrog, type LogDensityGradientFn } from "./integrators.ts";
import type { Metric } from "./metric.ts";
import { inInterval, nonNegativeFinite, positiveFinite, probability } from "./validate_options.ts";

/** Settings of dual averaging (Hoffman & Gelman 2014 §3.2.1 defaults). */
export interface DualAveragingOptions {
  /** Target mean acceptance rate δ ∈ (0, 1) (default 0.8). */
  targetAcceptanceRate?: number;
  /** Shrinkage γ > 0 towards μ (default 0.05). */
  gamma?: number;
  /** Iteration offset t₀ ≥ 0 damping early iterations (default 10). */
  t0?: number;
  /** Averaging exponent κ ∈ (0.5, 1] (default 0.75). */
  kappa?: number;
}

/** The dual-averaging state after m updates. Immutable. */
export interface DualAveragingState {
  /** Number of updates m made so far. */
  readonly iteration: number;
  /** log εₘ, the step size to use next. */
  readonly logStepSize: number;
  /** log ε̄ₘ, the running weighted average (returned by {@link final}). */
  readonly logStepSizeAvg: number;
  /** H̄ₘ, the running average of δ − αᵢ. */
  readonly gradientAvg: number;
  /** μ = log(10 ε₀), the point log ε is shrunk towards. */
  readonly mu: number;
  /** εₘ = exp(log εₘ). */
  readonly stepSize: number;
  /** δ. */
  readonly targetAcceptanceRate: number;
  /** γ. */
  readonly gamma: number;
  /** t₀. */
  readonly t0: number;
  /** κ. */
  readonly kappa: number;
}

/**
 * Start dual averaging from ε₀ (μ = log(10 ε₀), ε̄₀ = 1, H̄₀ = 0).
 *
 * @param stepSize0 The initial step size ε₀ > 0, e.g. from {@link findReasonableStepSize}.
 * @param options δ, γ, t₀, κ.
 * @returns The initial state; its `stepSize` is ε₀.
 *
 * @example
 * ```ts
 * import { init } from "./dual_averaging.ts";
 * const s = init(0.5);
 * if (s.stepSize !== 0.5 || s.targetAcceptanceRate !== 0.8) throw new Error();
 * ```
 *
 * References: Hoffman & Gelman (2014), Algorithm 5.
 */
export function init(stepSize0: number, options: DualAveragingOptions = {}): DualAveragingState {
  positiveFinite("stepSize0", stepSize0);
  const delta = options.targetAcceptanceRate ?? 0.8;
  const gamma = options.gamma ?? 0.05;
  const t0 = options.t0 ?? 10;
  const kappa = options.kappa ?? 0.75;
  probability("targetAcceptanceRate", delta);
  positiveFinite("gamma", gamma);
  nonNegativeFinite("t0", t0);
  inInterval("kappa", kappa, "(", 0.5, 1, "]");
  const logStepSize = Math.log(stepSize0);
  return {
    iteration: 0,
    logStepSize,
    logStepSizeAvg: 0,
    gradientAvg: 0,
    mu: Math.log(10) + logStepSize,
    stepSize: stepSize0,
    targetAcceptanceRate: delta,
    gamma,
    t0,
    kappa,
  };
}

/**
 * One dual-averaging update with the acceptance rate α of the last step:
 * H̄ₘ = (1 − 1/(m+t₀)) H̄ₘ₋₁ + (δ − α)/(m+t₀);
 * log εₘ = μ − √m H̄ₘ / γ;
 * log ε̄ₘ = m^(−κ) log εₘ + (1 − m^(−κ)) log ε̄ₘ₋₁.
 *
 * @param state The current state.
 * @param acceptanceRate α ∈ [0, 1] of the step just made with `state.stepSize`
 *   (NaN is treated as 0, a divergent step).
 * @returns The new state (use its `stepSize` for the next step).
 *
 * @example
 * ```ts
 * import { init, update } from "./dual_averaging.ts";
 * let s = init(1);
 * // The first update moves log ε towards μ = log 10; then, while steps are
 * // accepted too rarely, ε shrinks.
 * for (let i = 0; i < 10; i++) s = update(s, 0.2);
 * if (!(s.stepSize < 1)) throw new Error();
 * ```
 *
 * References: Hoffman & Gelman (2014), Algorithm 5, eq. (6).
 */
export function update(state: DualAveragingState, acceptanceRate: number): DualAveragingState {
  const alpha = Number.isNaN(acceptanceRate) ? 0 : Math.min(1, Math.max(0, acceptanceRate));
  const m = state.iteration + 1;
  const w = 1 / (m + state.t0);
  const gradientAvg = (1 - w) * state.gradientAvg + w * (state.targetAcceptanceRate - alpha);
  const logStepSize = state.mu - (Math.sqrt(m) / state.gamma) * gradientAvg;
  const eta = Math.pow(m, -state.kappa);
  const logStepSizeAvg = eta * logStepSize + (1 - eta) * state.logStepSizeAvg;
  return {
    ...state,
    iteration: m,
    logStepSize,
    logStepSizeAvg,
    gradientAvg,
    stepSize: Math.exp(logStepSize),
  };
}

/**
 * The adapted step size ε̄ = exp(log ε̄ₘ) to hold fixed after warmup (ε₀ if no
 * update was made).
 *
 * @param state The state at the end of warmup.
 * @returns ε̄.
 *
 * @example
 * ```ts
 * import { final, init, update } from "./dual_averaging.ts";
 * let s = init(1);
 * for (let i = 0; i < 50; i++) s = update(s, 0.8);
 * if (!(final(s) > 0)) throw new Error();
 * ```
 *
 * References: Hoffman & Gelman (2014), Algorithm 5.
 */
export function final(state: DualAveragingState): number {
  return state.iteration === 0 ? state.stepSize : Math.exp(state.logStepSizeAvg);
}

/** Options of {@link findReasonableStepSize}. */
export interface FindStepSizeOptions {
  /** The target's log density and gradient. */
  logDensityAndGradientFn: LogDensityGradientFn;
  /** The metric the sampler will use. */
  metric: Metric;
  /** Starting guess ε (default 1). */
  initialStepSize?: number;
  /** Maximum number of doublings/halvings (default 100). */
  maxIterations?: number;
}

/**
 * Heuristic initial step size (Hoffman & Gelman 2014, Algorithm 4): starting
 * from ε, double (or halve) it until the one-step leapfrog acceptance ratio
 * exp(−ΔH) crosses ½. Uses one momentum draw and one gradient evaluation per
 * trial (non-finite trials count as ratio 0).
 *
 * @param state Position, log density and gradient (not modified), e.g. an HMC state.
 * @param rng The generator (d normals are drawn).
 * @param options The target, the metric, the initial guess and an iteration cap.
 * @returns The step size ε at which the ratio crossed ½.
 *
 * @example
 * ```ts
 * import { findReasonableStepSize } from "./dual_averaging.ts";
 * import { identityMetric } from "./metric.ts";
 * import { Rng } from "../random/rng.ts";
 * // N(0, 0.01²): the scale is 0.01, so ε should come out near it, far below 1.
 * const fn = (x: Float64Array, g: Float64Array) => { g[0] = -x[0] / 1e-4; return -0.5 * x[0] ** 2 / 1e-4; };
 * const eps = findReasonableStepSize(
 *   { position: new Float64Array([0.01]), logDensity: -0.5, gradient: new Float64Array([-100]) },
 *   new Rng(3), { logDensityAndGradientFn: fn, metric: identityMetric(1) });
 * if (!(eps > 1e-3 && eps < 0.1)) throw new Error(`got ${eps}`);
 * ```
 *
 * References: Hoffman & Gelman (2014), Algorithm 4.
 */
export function findReasonableStepSize(
  state: { position: Float64Array; logDensity: number; gradient: Float64Array },
  rng: Rng,
  options: FindStepSizeOptions,
): number {
  const { metric, logDensityAndGradientFn } = options;
  let eps = options.initialStepSize ?? 1;
  const maxIterations = options.maxIterations ?? 100;
  positiveFinite("initialStepSize", eps);
  const d = metric.dim;
  if (state.position.length !== d) {
    throw new RangeError(
      `position must have the metric's length ${d}, got ${state.position.length}`,
    );
  }
  const p0 = metric.sampleMomentum(rng, new Float64Array(d));
  const h0 = -state.logDensity + metric.kineticEnergy(p0);
  const work = {
    position: new Float64Array(d),
    momentum: new Float64Array(d),
    logDensity: 0,
    gradient: new Float64Array(d),
  };
  const scratch = new Float64Array(d);
  const logRatio = (e: number): number => {
    work.position.set(state.position);
    work.momentum.set(p0);
    work.gradient.set(state.gradient);
    work.logDensity = state.logDensity;
    const r = leapfrog(work, {
      logDensityAndGradientFn,
      metric,
      stepSize: e,
      numIntegrationSteps: 1,
      scratch,
    });
    const lr = h0 - (-r.logDensity + metric.kineticEnergy(work.momentum));
    return r.isDivergent || Number.isNaN(lr) ? -Infinity : lr;
  };
  let lr = logRatio(eps);
  const a = lr > Math.log(0.5) ? 1 : -1;
  for (let i = 0; i < maxIterations && a * lr > -a * Math.LN2; i++) {
    const next = a > 0 ? eps * 2 : eps / 2;
    if (!(next > 1e-300) || !Number.isFinite(next) || next > 1e300) break;
    eps = next;
    lr = logRatio(eps);
  }
  return eps;
}
