/**
 * HMC-ECS warmup (§6.3), composed by the chain sampler's `adapt` hooks and
 * never by the kernel:
 *
 * ```
 *  every warmup step     dual averaging of ε towards the target acceptance
 *  every `updateEvery`   θ̄ = mean of the window's draws; unless θ̄ is within
 *                        `recenterTolerance` of θ* (centring.recenterDistance),
 *                        or of the distance a subset θ*'s B̂ was sized for:
 *                          re-centre the proxy at θ̄ (one full-data pass of ℓ, ∇ℓ),
 *                          B from a subsample (centring.centringHessian) or,
 *                          with hessianFraction 1, a full-data Hessian pass,
 *                          M⁻¹ = P⁻¹ from that B (centring.precisionAtCenter),
 *                          m or (λ, a) from a pilot (centring.retune),
 *                          the state re-evaluated under the new control variates,
 *                          dual averaging restarted from the current ε
 *  at the end            ε̄ of dual averaging and the last M, fixed for sampling
 * ```
 *
 * References: Dang et al. (2019), §6.3; Hoffman & Gelman (2014), Algorithm 5.
 *
 * @module
 */
import type { SubsamplingSupport } from "../../models/subsampling_support.ts";
import type { Rng } from "../../random/rng.ts";
import * as dualAveraging from "../dual_averaging.ts";
import { type Metric, metricFromNegativeHessian } from "../metric.ts";
import { centringHessian, precisionAtCenter, recenterDistance, retune } from "./centring.ts";
import * as kernel from "./kernel.ts";
import type { ResolvedHmcEcsOptions } from "./options.ts";
import type { HmcEcsState } from "./state.ts";
import { positiveFinite } from "../validate_options.ts";

/** The warmup's own state. */
export interface HmcEcsWarmupState {
  /** ε for the next warmup step. */
  readonly stepSize: number;
  /** M for the next warmup step. */
  readonly metric: Metric;
  /** Dual averaging (null if ε is not adapted). */
  readonly dualAveraging: dualAveraging.DualAveragingState | null;
  /** Its settings, kept for restarts. */
  readonly dualAveragingOptions: dualAveraging.DualAveragingOptions;
  /** The re-centring window (null when θ* and M are not refreshed). */
  readonly window: {
    readonly iteration: number;
    readonly sum: Float64Array;
    readonly count: number;
  } | null;
  /** Number of warmup iterations. */
  readonly numWarmup: number;
  /** Window length. */
  readonly updateEvery: number;
  /** Number of re-centrings (metric refreshes) made. */
  readonly numMetricUpdates: number;
}

/** Options of {@link warmupInit}. */
export interface HmcEcsWarmupOptions {
  /** Number of warmup iterations. */
  numWarmup: number;
  /** ε₀. */
  stepSize: number;
  /** Adapt ε by dual averaging. */
  adaptStepSize: boolean;
  /** Dual-averaging target (default 0.8). */
  targetAcceptanceRate: number | undefined;
  /** M₀. */
  metric: Metric;
  /** Re-centre θ* and refresh M every this many iterations (0 = never). */
  updateEvery: number;
}

/**
 * Start the warmup.
 *
 * @param dim d.
 * @param options ε₀, M₀, the schedule and the dual-averaging target.
 * @returns The warmup state.
 */
export function warmupInit(dim: number, options: HmcEcsWarmupOptions): HmcEcsWarmupState {
  const daOptions = { targetAcceptanceRate: options.targetAcceptanceRate };
  if (!options.adaptStepSize) positiveFinite("stepSize", options.stepSize);
  return {
    stepSize: options.stepSize,
    metric: options.metric,
    dualAveraging: options.adaptStepSize ? dualAveraging.init(options.stepSize, daOptions) : null,
    dualAveragingOptions: daOptions,
    window: options.updateEvery > 0 ? { iteration: 0, sum: new Float64Array(dim), count: 0 } : null,
    numWarmup: options.numWarmup,
    updateEvery: options.updateEvery,
    numMetricUpdates: 0,
  };
}

/**
 * One warmup update after a warmup step: dual averaging, and at the end of a
 * window the re-centring of the proxy with its metric refresh and re-tuning.
 *
 * @param state The chain state after the step.
 * @param context The step's acceptance rate, the chain's generator, what
 *   the model can do (its SubsamplingSupport), the resolved options.
 * @returns The chain state to step next.
 */
export function warmupUpdate(
  state: HmcEcsState,
  context: {
    acceptanceRate: number;
    rng: Rng;
    support: SubsamplingSupport;
    o: ResolvedHmcEcsOptions;
  },
): HmcEcsState {
  const w = state.warmup;
  if (w === null) return state;
  const { rng, support, o } = context;
  const model = support.model;
  let da = w.dualAveraging, stepSize = w.stepSize;
  if (da !== null) {
    da = dualAveraging.update(da, context.acceptanceRate);
    stepSize = da.stepSize;
  }
  let metric = w.metric, numMetricUpdates = w.numMetricUpdates;
  let k = state.kernel, window = w.window;
  if (window !== null) {
    const position = k.hmc.position, d = position.length;
    // The window's sum is updated in place: a state is stepped and adapted once.
    const iteration = window.iteration + 1, sum = window.sum;
    for (let j = 0; j < d; j++) sum[j] += position[j];
    let count = window.count + 1;
    if (iteration % w.updateEvery === 0 && iteration < w.numWarmup) {
      const center = new Float64Array(d);
      for (let j = 0; j < d; j++) center[j] = sum[j] / count;
      sum.fill(0);
      count = 0;
      const engine = state.engine, proxy = engine.proxy;
      const tolerance = o.recenterTolerance > 0
        ? Math.max(o.recenterTolerance, engine.toleratedDistance)
        : o.recenterTolerance;
      if (!engine.training && recenterDistance(proxy, model, center) < tolerance) {
        engine.numSkippedCenterings++;
      } else {
        // One full-data pass: θ* = θ̄, and B = ΣHₖ(θ*) from the same pass for M.
        proxy.recenter(center, centringHessian(support, rng, { theta: center, o }));
        engine.numCenterings++;
        engine.training = false;
        metric = metricFromNegativeHessian(precisionAtCenter(proxy, model).map((v) => -v));
        numMetricUpdates++;
        // m or (λ, a) at the new centre; the state re-evaluated under the new
        // control variates; dual averaging restarted from the current ε.
        engine.estimator = retune(proxy, {
          current: k.subsample.estimator,
          variant: engine.targetVariant,
          precision: precisionAtCenter(proxy, model),
          scale: 1,
          rng,
          o,
        });
        k = kernel.init(position, engine.estimator, (t, g) => model.logPrior(t, g));
        stepSize = state.stepSize;
        if (da !== null) da = dualAveraging.init(stepSize, w.dualAveragingOptions);
      }
    }
    window = { iteration, sum, count };
  }
  return {
    ...state,
    kernel: k,
    stepSize,
    metric,
    warmup: { ...w, stepSize, metric, dualAveraging: da, window, numMetricUpdates },
  };
}

/**
 * End the warmup: ε̄ of dual averaging (or the current ε) and the last M.
 *
 * @param state The chain state after the last warmup step.
 * @returns The state to sample with (`warmup` null).
 */
export function warmupFinish(state: HmcEcsState): HmcEcsState {
  const w = state.warmup;
  if (w === null) return state;
  const stepSize = w.dualAveraging !== null ? dualAveraging.final(w.dualAveraging) : w.stepSize;
  return { ...state, stepSize, metric: w.metric, warmup: null };
}
