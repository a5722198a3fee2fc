/**
 * The warm-up every full-data HMC-family sampler composes: where a chain
 * starts, its first metric, and the adaptation of step size and metric in
 * Stan's windows.
 *
 * A sampler gives its kernel's acceptance statistic and state after every
 * warm-up iteration; this module answers with the (ε, metric) for the next
 * one, as BlackJAX's `window_adaptation(algorithm)` does:
 *
 * ```
 * start        damped Newton search of the mode from a data-based point
 *              (samplers/optimize_start.ts) when the model has a Hessian:
 *              a draw from the Laplace approximation as the chain's start, its
 *              covariance (dense, or its diagonal) as the first metric
 * iteration 0  ε₀ by Hoffman & Gelman's heuristic (at init); the window plan
 *              for numWarmup (init buffer 75, slow windows from 25 doubling,
 *              term buffer 50)
 * every step   dual averaging of log ε towards δ (0.8) on the kernel's
 *              acceptance statistic; in a slow window the position goes into
 *              the window's Welford estimator
 * window end   metric ← the window's regularised covariance: Stan's
 *              (n/(n+5))·Σ̂ + 10⁻³·(5/(n+5))·I, or, when the sampler asks
 *              (`shrinkTowardFirstMetric`, hmc with a Laplace first metric),
 *              (1 − δ)·Σ̂ + δ·Σ_Laplace with the Ledoit–Wolf δ; ε re-found by
 *              the heuristic under the new metric; dual averaging restarted
 * end          ε̄ of dual averaging and the last metric, fixed for sampling
 * ```
 *
 * The state machine is {@link hmcWarmupInit}/{@link hmcWarmupUpdate}
 * (samplers/hmc/warmup.ts); this module plans it at the first warm-up
 * iteration and restarts ε with the heuristic, so a sampler's `adapt` hooks are
 * two calls. `hmc` (samplers/hmc/chain_sampler.ts) adds ChEES's integration time on
 * top; `nuts` (samplers/nuts/) uses it as is.
 *
 * References: Stan Reference Manual, "Automatic parameter tuning" (windows,
 * regularisation); Hoffman & Gelman (2014), Algorithms 4–5 (heuristic ε₀,
 * dual averaging); BlackJAX `window_adaptation`.
 *
 * @module
 */
import type { DataModel, Model } from "../models/model.ts";
import type { Rng } from "../random/rng.ts";
import { cholesky } from "../math/linalg.ts";
import { findReasonableStepSize } from "./dual_averaging.ts";
import {
  hmcWarmupFinal,
  hmcWarmupInit,
  type HmcWarmupState,
  hmcWarmupUpdate,
  type MetricAdaptation,
} from "./hmc/warmup.ts";
import type { LogDensityGradientFn } from "./integrators.ts";
import { dataModelHessianFn, type HessianFn, windowSchedule } from "./mass_matrix_adaptation.ts";
import { denseMetric, diagonalMetric, type Metric } from "./metric.ts";
import { dataBasedStart, type OptimizedStart, optimizeStart } from "./optimize_start.ts";

/** Settings of {@link windowAdaptation}. */
export interface WindowAdaptationOptions {
  /** The target the kernel follows (for the step-size heuristic at each restart). */
  logDensityAndGradientFn: LogDensityGradientFn;
  /** Adapt ε by dual averaging (default true). */
  adaptStepSize?: boolean;
  /** Dual-averaging target δ (default 0.8). */
  targetAcceptanceRate?: number;
  /** Initial fast buffer (default 75). */
  initialBuffer?: number;
  /** First slow window (default 25). */
  firstWindow?: number;
  /** Terminal fast buffer (default 50). */
  terminalBuffer?: number;
  /** ∇² log π for the `"hessian"` scheme. */
  hessianFn?: HessianFn;
  /** Hessian period of the `"hessian"` scheme (default 200). */
  updateEvery?: number;
}

/** The tuning a chain carries through warm-up. */
export interface WindowTuning {
  /** ε for the next step. */
  readonly stepSize: number;
  /** Metric for the next step. */
  readonly metric: Metric;
  /** The adaptation's state (null before the first warm-up iteration, after warm-up, or with nothing adapted). */
  readonly warmup: HmcWarmupState | null;
  /**
   * Set by {@link WindowAdaptation.update} when it changed the chain's metric
   * scheme (an automatic dense choice the warm-up is too short for, see
   * {@link denseFitsWarmup}); the sampler keeps it as the chain's scheme.
   */
  readonly metricAdaptation?: MetricAdaptation;
}

/** What {@link WindowAdaptation.update} needs after one warm-up step. */
export interface WindowStep {
  /** 0-based warm-up iteration of the step. */
  iteration: number;
  /** Warm-up iterations in all. */
  numWarmup: number;
  /** The chain's state after the step (θ, log π, ∇ log π). */
  state: { position: Float64Array; logDensity: number; gradient: Float64Array };
  /** The kernel's acceptance statistic of the step. */
  acceptanceRate: number;
  /** The chain's generator (the heuristic draws a momentum at a restart). */
  rng: Rng;
  /** The chain's metric scheme. */
  metricAdaptation: MetricAdaptation;
  /**
   * Whether the scheme was chosen by `metricAdaptation: "auto"`: a dense choice then
   * falls back to the diagonal when the warm-up's windows are too short for
   * d (see {@link denseFitsWarmup}).
   */
  isAutoMetric?: boolean;
  /**
   * Whether the chain's first metric is the Laplace covariance at the mode:
   * each window's estimate is then shrunk toward it (Ledoit–Wolf intensity)
   * instead of Stan's 10⁻³·I regularisation, which is not scale-free (read
   * at iteration 0; default false, Stan's).
   */
  shrinkTowardFirstMetric?: boolean;
}

/** The two warm-up hooks of {@link windowAdaptation}. */
export interface WindowAdaptation {
  /**
   * Advance the adaptation by one warm-up step (planning it at iteration 0).
   *
   * @param tuning The chain's tuning before the step's update.
   * @param step The step's state, acceptance statistic and context.
   * @returns The tuning for the next step.
   */
  update(tuning: WindowTuning, step: WindowStep): WindowTuning;
  /**
   * The tuning to sample with: ε̄ and the last metric.
   *
   * @param tuning The tuning at the end of warm-up.
   * @returns It with `warmup` null.
   */
  finish(tuning: WindowTuning): WindowTuning;
}

/**
 * Stan's windowed adaptation of ε and the metric, for any HMC-family kernel.
 *
 * @param options The target, dual-averaging and window settings.
 * @returns `update` and `finish` hooks over a {@link WindowTuning}.
 *
 * @example
 * ```ts
 * import { windowAdaptation, type WindowTuning } from "./window_adaptation.ts";
 * import { identityMetric } from "./metric.ts";
 * import { Rng } from "../random/rng.ts";
 * const fn = (x: Float64Array, g: Float64Array) => { g[0] = -x[0]; return -0.5 * x[0] ** 2; };
 * const a = windowAdaptation({ logDensityAndGradientFn: fn });
 * let t: WindowTuning = { stepSize: 1, metric: identityMetric(1), warmup: null };
 * const state = { position: new Float64Array(1), logDensity: 0, gradient: new Float64Array(1) };
 * for (let i = 0; i < 10; i++) {
 *   t = a.update(t, { iteration: i, numWarmup: 10, state, acceptanceRate: 0.2,
 *     rng: new Rng(1), metricAdaptation: "diagonal" });
 * }
 * if (!(a.finish(t).stepSize < 1)) throw new Error("low acceptance should shrink ε");
 * ```
 *
 * References: Stan Reference Manual, "Automatic parameter tuning"; Hoffman & Gelman (2014), Algorithm 5.
 */
export function windowAdaptation(options: WindowAdaptationOptions): WindowAdaptation {
  const adaptStepSize = options.adaptStepSize ?? true;
  const fn = options.logDensityAndGradientFn;
  return {
    update(tuning, step) {
      // An automatic dense choice needs windows long enough for d (else the
      // diagonal of the first metric, and the diagonal scheme).
      let scheme = step.metricAdaptation, first = tuning.metric, changed = false;
      if (
        step.iteration === 0 && step.isAutoMetric === true && scheme === "dense" &&
        !denseFitsWarmup(first.dim, step.numWarmup, options)
      ) {
        scheme = "diagonal";
        first = _diagonalOf(first);
        changed = true;
      }
      // The plan is made at the first warm-up iteration, when numWarmup is known.
      const current = step.iteration === 0
        ? (adaptStepSize || scheme !== "none"
          ? hmcWarmupInit(first.dim, {
            numWarmup: step.numWarmup,
            stepSize: tuning.stepSize,
            adaptStepSize,
            metricAdaptation: scheme,
            firstMetric: first,
            hessianFn: options.hessianFn,
            updateEvery: options.updateEvery,
            shrinkTowardFirstMetric: step.shrinkTowardFirstMetric,
            targetAcceptanceRate: options.targetAcceptanceRate,
            initialBuffer: options.initialBuffer,
            firstWindow: options.firstWindow,
            terminalBuffer: options.terminalBuffer,
          })
          : null)
        : tuning.warmup;
      const kept = changed ? { metricAdaptation: scheme } : {};
      if (current === null) return { ...tuning, metric: first, ...kept };
      const warmup = hmcWarmupUpdate(current, {
        position: step.state.position,
        acceptanceRate: step.acceptanceRate,
        restartStepSizeFn: (metric) =>
          findReasonableStepSize(step.state, step.rng, {
            logDensityAndGradientFn: fn,
            metric,
            initialStepSize: tuning.stepSize,
          }),
      });
      return { stepSize: warmup.stepSize, metric: warmup.metric, warmup, ...kept };
    },
    finish(tuning) {
      if (tuning.warmup === null) return tuning;
      const { stepSize, metric } = hmcWarmupFinal(tuning.warmup);
      return { stepSize, metric, warmup: null };
    },
  };
}

/**
 * Fewest draws per dimension the last slow window must hold for `metric:
 * "auto"` to keep a dense metric. Measured with bench/metric_switch.ts
 * (equicorrelated Gaussian regressions, 2 chains): with 500 warm-up
 * iterations (last window 200 draws) dense gave 4.0× diagonal's min
 * bulk-ESS/s at d = 50 (4 draws per dimension) but 0.09× at d = 100 (2) and
 * 0.17× at d = 150; with 1000 (last window 500) it gave 2.0× at d = 75 and
 * 1.5× at d = 100 (5).
 */
export const AUTO_DENSE_MIN_DRAWS_PER_DIM = 4;

/**
 * Whether Stan's windows for `numWarmup` leave enough draws to estimate a
 * dense d × d metric: the last slow window holds at least
 * {@link AUTO_DENSE_MIN_DRAWS_PER_DIM}·d draws, or there is no window at all
 * (then the first metric, the Laplace covariance, is kept as it is).
 *
 * @param dim d.
 * @param numWarmup Warm-up iterations.
 * @param options The window settings.
 * @returns Whether an automatic dense choice stands.
 *
 * @example
 * ```ts
 * import { denseFitsWarmup } from "./window_adaptation.ts";
 * // 1000 iterations: the last window is 450–950, 500 draws.
 * if (!denseFitsWarmup(100, 1000) || denseFitsWarmup(100, 500)) throw new Error();
 * ```
 */
export function denseFitsWarmup(
  dim: number,
  numWarmup: number,
  options: Pick<WindowAdaptationOptions, "initialBuffer" | "firstWindow" | "terminalBuffer"> = {},
): boolean {
  const windows = windowSchedule(numWarmup, options);
  if (windows.length === 0) return true;
  const last = windows[windows.length - 1];
  return last.end - last.start >= AUTO_DENSE_MIN_DRAWS_PER_DIM * dim;
}

/** The diagonal of a metric's M⁻¹ as a diagonal metric (a diagonal metric as it is). */
function _diagonalOf(metric: Metric): Metric {
  if (metric.kind !== "dense") return metric;
  const d = metric.dim;
  const diag = new Float64Array(d);
  for (let j = 0; j < d; j++) diag[j] = metric.inverseMassMatrix[j * d + j];
  return diagonalMetric(diag);
}

/**
 * The damped Newton search of the mode a chain starts from, from a
 * data-based point ({@link dataBasedStart}) and, if that fails to give a
 * Laplace approximation, from the given position. Each chain makes it in its
 * own init, so chains stay self-contained (the same draws in any worker).
 *
 * @param model The target.
 * @param options The search's target, the Hessian (null: no search) and its most iterations.
 * @returns position → the search's result, or null when there is no Hessian.
 */
export function newtonStartSearch(
  model: Model,
  options: {
    logDensityAndGradientFn: LogDensityGradientFn;
    hessianFn: HessianFn | null;
    maxIterations: number;
  },
): (position: Float64Array) => OptimizedStart | null {
  const hessianFn = options.hessianFn;
  return (position) => {
    if (hessianFn === null) return null;
    const search = (from: Float64Array) =>
      optimizeStart(options.logDensityAndGradientFn, from, {
        hessianFn,
        maxIterations: options.maxIterations,
        parameterNames: model.parameterNames,
      });
    const fromData = dataBasedStart(model);
    const first = search(fromData ?? position);
    if (fromData === null || first.laplaceCovariance !== null) return first;
    // The data-based point failed: fall back to the prior's centre (the given position).
    const second = search(position);
    return second.laplaceCovariance !== null || !Number.isFinite(first.logDensity) ? second : first;
  };
}

/**
 * The first metric from a Laplace covariance: its diagonal, or all of it
 * (the diagonal if round-off makes it not positive definite).
 *
 * @param cov The covariance (d×d row-major).
 * @param dim d.
 * @param isDiagonal Keep only the diagonal.
 * @returns The metric.
 */
export function laplaceMetric(cov: Float64Array, dim: number, isDiagonal: boolean): Metric {
  const diag = new Float64Array(dim);
  for (let j = 0; j < dim; j++) diag[j] = cov[j * dim + j];
  if (!isDiagonal) {
    try {
      return denseMetric(cov);
    } catch {
      // round-off: keep the diagonal
    }
  }
  return diagonalMetric(diag);
}

/**
 * A chain's starting point: the given position, it plus uniform(−R, R) noise,
 * or (`"laplace"`) θ̂ + L z, a draw from the Laplace approximation of the
 * search (θ̂ plus uniform(−2, 2) noise without one, the given position plus
 * that noise without a search).
 *
 * @param init The parsed init mode.
 * @param position The driver's position.
 * @param opt The Newton search's result, or null.
 * @param rng The chain's generator.
 * @returns The start (a new array).
 */
export function startPoint(
  init: { kind: "laplace" | "given" | "uniform"; radius: number },
  position: Float64Array,
  opt: OptimizedStart | null,
  rng: Rng,
): Float64Array {
  const d = position.length;
  if (init.kind === "given") return Float64Array.from(position);
  if (init.kind === "uniform") {
    return position.map((x) => x + init.radius * (2 * rng.uniform() - 1));
  }
  if (opt === null) return position.map((x) => x + 2 * (2 * rng.uniform() - 1));
  const start = Float64Array.from(opt.position);
  if (opt.laplaceCovariance === null) {
    for (let j = 0; j < d; j++) start[j] += 2 * (2 * rng.uniform() - 1);
    return start;
  }
  // θ̂ + L z with L Lᵀ the Laplace covariance: chains start dispersed as the posterior.
  let l: Float64Array;
  try {
    l = cholesky(opt.laplaceCovariance, { name: "Laplace covariance" });
  } catch {
    for (let j = 0; j < d; j++) {
      start[j] += Math.sqrt(opt.laplaceCovariance[j * d + j]) * rng.normal();
    }
    return start;
  }
  const z = new Float64Array(d);
  for (let j = 0; j < d; j++) z[j] = rng.normal();
  for (let i = 0; i < d; i++) {
    let s = 0;
    for (let k = 0; k <= i; k++) s += l[i * d + k] * z[k];
    start[i] += s;
  }
  return start;
}

/**
 * ∇² log π of a model: the likelihood's plus the prior's Hessian of a
 * DataModel, or the model's own `logDensityHessian`.
 *
 * @param model The target.
 * @returns The Hessian function.
 * @throws {TypeError} If the model has neither.
 */
export function modelHessianFn(model: Model): HessianFn {
  const m = model as Partial<DataModel> & {
    logDensityHessian?: (theta: Float64Array, out: Float64Array) => void;
  };
  if (typeof m.logLikelihoodHessian === "function" && typeof m.logPriorHessian === "function") {
    return dataModelHessianFn(model as DataModel);
  }
  if (typeof m.logDensityHessian === "function") {
    return (theta, out) => m.logDensityHessian!(theta, out);
  }
  throw new TypeError(
    `metric "hessian" needs a hessianFn, a DataModel or a model with logDensityHessian; got a model with none`,
  );
}
