/**
 * Warmup for HMC-type kernels: dual averaging of the step size combined with
 * one metric-adaptation scheme, as a state machine the run loop drives after
 * every warmup iteration.
 *
 * Whenever the metric changes (end of a Stan slow window, or an HMC-ECS §6.3
 * Hessian update), the step size is re-initialised — by a caller-supplied
 * function, typically {@link findReasonableStepSize} under the new metric —
 * and dual averaging restarts from it, as Stan does. At the end of warmup
 * {@link hmcWarmupFinal} gives the tuned (ε̄, metric) to hold fixed for
 * sampling. Kernels never see this module: it only produces their parameters.
 * HMC-ECS can drive it with its own kernel's acceptance rates.
 *
 * References: Hoffman & Gelman (2014), Algorithm 5; Stan Reference Manual,
 * "Automatic parameter tuning"; Dang et al. (2019), HMC-ECS §6.3.
 *
 * @module
 */
import * as dualAveraging from "../dual_averaging.ts";
import {
  hessianAdaptationInit,
  type HessianAdaptationState,
  hessianAdaptationUpdate,
  type HessianFn,
  windowedAdaptationInit,
  type WindowedAdaptationState,
  windowedAdaptationUpdate,
  type WindowScheduleOptions,
} from "../mass_matrix_adaptation.ts";
import { identityMetric, type Metric } from "../metric.ts";
import { positiveFinite } from "../validate_options.ts";

/** How the metric is adapted during warmup. */
export type MetricAdaptation = "none" | "diagonal" | "dense" | "hessian";

/** Options of {@link hmcWarmupInit}. */
export interface HmcWarmupOptions
  extends WindowScheduleOptions, dualAveraging.DualAveragingOptions {
  /** Number of warmup iterations. */
  numWarmup: number;
  /** Initial step size ε₀ > 0. */
  stepSize: number;
  /** Adapt ε by dual averaging (default true). */
  adaptStepSize?: boolean;
  /** Metric adaptation scheme (default `"none"`: keep `firstMetric`). */
  metricAdaptation?: MetricAdaptation;
  /**
   * The metric of the first warm-up iteration, whatever chose it (a fixed
   * metric, the user's `initialMetric`, a Laplace metric or the identity):
   * the start of adaptation, or the metric kept throughout with `"none"`
   * (default identity).
   */
  firstMetric?: Metric;
  /** ∇² log π, required for `"hessian"`. */
  hessianFn?: HessianFn;
  /** Hessian update period for `"hessian"` (default 200). */
  updateEvery?: number;
  /**
   * `"diagonal"`/`"dense"`: shrink each window's estimate toward `firstMetric`
   * (Ledoit–Wolf, `shrinkageTarget` of samplers/mass_matrix_adaptation.ts)
   * instead of Stan's 10⁻³·I regularisation (default false). Meant for a
   * first metric that estimates the posterior covariance (the Laplace one).
   */
  shrinkTowardFirstMetric?: boolean;
}

/** Warmup state: current tuning plus the adaptation states. */
export interface HmcWarmupState {
  /** ε to use for the next warmup step. */
  readonly stepSize: number;
  /** Metric to use for the next warmup step. */
  readonly metric: Metric;
  /** Dual-averaging state (null if ε is not adapted). */
  readonly dualAveraging: dualAveraging.DualAveragingState | null;
  /** Metric-adaptation state (null for `"none"`); mutated in place. */
  readonly massMatrix: WindowedAdaptationState | HessianAdaptationState | null;
  /** Number of metric changes so far. */
  readonly numMetricUpdates: number;
  /** Options kept for restarts. */
  readonly options: dualAveraging.DualAveragingOptions & { adaptStepSize: boolean };
}

/** What {@link hmcWarmupUpdate} needs after one warmup iteration. */
export interface HmcWarmupUpdate {
  /** The chain's position after the iteration. */
  position: Float64Array;
  /** The kernel's acceptance rate at this iteration. */
  acceptanceRate: number;
  /**
   * Called with the new metric when it changes; returns the step size to
   * restart dual averaging from (default: keep the current ε).
   */
  restartStepSizeFn?: (metric: Metric) => number;
}

/**
 * Start HMC warmup.
 *
 * @param dim Dimension d.
 * @param options ε₀, number of warmup iterations, metric scheme, dual-averaging and window settings.
 * @returns The state.
 * @throws {TypeError} If `"hessian"` is asked for without a `hessianFn`.
 *
 * @example
 * ```ts
 * import { hmcWarmupFinal, hmcWarmupInit, hmcWarmupUpdate } from "./warmup.ts";
 * let w = hmcWarmupInit(1, { numWarmup: 100, stepSize: 1 });
 * for (let i = 0; i < 100; i++) {
 *   w = hmcWarmupUpdate(w, { position: new Float64Array(1), acceptanceRate: 0.3 });
 * }
 * if (!(hmcWarmupFinal(w).stepSize < 1)) throw new Error("low acceptance should shrink ε");
 * ```
 *
 * References: Hoffman & Gelman (2014), Algorithm 5; Dang et al. (2019), §6.3.
 */
export function hmcWarmupInit(dim: number, options: HmcWarmupOptions): HmcWarmupState {
  const scheme = options.metricAdaptation ?? "none";
  const adaptStepSize = options.adaptStepSize ?? true;
  const metric = options.firstMetric ?? identityMetric(dim);
  if (metric.dim !== dim) {
    throw new RangeError(`firstMetric must have dimension ${dim}, got ${metric.dim}`);
  }
  let massMatrix: WindowedAdaptationState | HessianAdaptationState | null = null;
  switch (scheme) {
    case "none":
      break;
    case "diagonal":
    case "dense":
      massMatrix = windowedAdaptationInit(dim, {
        ...options,
        metric: scheme,
        shrinkageTarget: options.shrinkTowardFirstMetric === true ? metric : undefined,
      });
      break;
    case "hessian":
      if (options.hessianFn === undefined) {
        throw new TypeError(
          `metricAdaptation "hessian" needs a hessianFn (∇² log π), got undefined`,
        );
      }
      massMatrix = hessianAdaptationInit(dim, {
        numWarmup: options.numWarmup,
        hessianFn: options.hessianFn,
        updateEvery: options.updateEvery,
      });
      break;
    default:
      throw new TypeError(
        `metricAdaptation must be "none", "diagonal", "dense" or "hessian", got ${
          JSON.stringify(scheme)
        }`,
      );
  }
  const daOptions = {
    targetAcceptanceRate: options.targetAcceptanceRate,
    gamma: options.gamma,
    t0: options.t0,
    kappa: options.kappa,
  };
  const da = adaptStepSize ? dualAveraging.init(options.stepSize, daOptions) : null;
  if (!adaptStepSize) positiveFinite("stepSize", options.stepSize);
  return {
    stepSize: options.stepSize,
    metric,
    dualAveraging: da,
    massMatrix,
    numMetricUpdates: 0,
    options: { ...daOptions, adaptStepSize },
  };
}

/**
 * Advance warmup by one iteration: dual-averaging update with the
 * acceptance rate, then the metric scheme with the position; on a metric
 * change, restart dual averaging from `restartStepSizeFn(newMetric)`.
 *
 * @param state The state (its metric-adaptation part is updated in place).
 * @param update The position and acceptance rate of the iteration, and the restart function.
 * @returns The new state.
 *
 * @example
 * ```ts
 * import { hmcWarmupInit, hmcWarmupUpdate } from "./warmup.ts";
 * const w0 = hmcWarmupInit(1, { numWarmup: 10, stepSize: 0.5 });
 * const w1 = hmcWarmupUpdate(w0, { position: new Float64Array(1), acceptanceRate: 1 });
 * if (!(w1.stepSize > 0.5)) throw new Error("full acceptance should grow ε");
 * ```
 *
 * References: Hoffman & Gelman (2014), Algorithm 5; Stan Reference Manual,
 * "Automatic parameter tuning".
 */
export function hmcWarmupUpdate(state: HmcWarmupState, update: HmcWarmupUpdate): HmcWarmupState {
  let da = state.dualAveraging;
  let stepSize = state.stepSize;
  if (da !== null) {
    da = dualAveraging.update(da, update.acceptanceRate);
    stepSize = da.stepSize;
  }
  let metric = state.metric;
  let numMetricUpdates = state.numMetricUpdates;
  const mm = state.massMatrix;
  if (mm !== null) {
    const next = mm.scheme === "windowed"
      ? windowedAdaptationUpdate(mm, update.position)
      : hessianAdaptationUpdate(mm, update.position);
    if (next !== null) {
      metric = next;
      numMetricUpdates++;
      if (update.restartStepSizeFn !== undefined) stepSize = update.restartStepSizeFn(next);
      if (da !== null) da = dualAveraging.init(stepSize, state.options);
    }
  }
  return { ...state, stepSize, metric, dualAveraging: da, numMetricUpdates };
}

/**
 * The tuning to hold fixed for sampling: ε̄ from dual averaging (or the
 * current ε if it was not adapted) and the last metric.
 *
 * @param state The state at the end of warmup.
 * @returns `{stepSize, metric}`.
 *
 * @example
 * ```ts
 * import { hmcWarmupFinal, hmcWarmupInit } from "./warmup.ts";
 * const t = hmcWarmupFinal(hmcWarmupInit(3, { numWarmup: 0, stepSize: 0.1 }));
 * if (t.stepSize !== 0.1 || t.metric.kind !== "identity") throw new Error();
 * ```
 *
 * References: Hoffman & Gelman (2014), Algorithm 5.
 */
export function hmcWarmupFinal(state: HmcWarmupState): { stepSize: number; metric: Metric } {
  const stepSize = state.dualAveraging !== null
    ? dualAveraging.final(state.dualAveraging)
    : state.stepSize;
  return { stepSize, metric: state.metric };
}
