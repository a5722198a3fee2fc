/**
 * Full-data HMC as users call it: the {@link step HMC kernel} with dual
 * averaging of ε and a chosen metric adaptation in warmup, run by the driver.
 *
 * Works on any {@link Model}; for a {@link DataModel} every evaluation is a
 * full data pass and the model's cost counter records it (including the
 * Hessian passes of the `"hessian"` metric scheme of HMC-ECS §6.3).
 *
 * References: Neal (2011), §5.3.2; Hoffman & Gelman (2014), Algorithms 4–5;
 * Stan Reference Manual, "Automatic parameter tuning"; Dang et al. (2019), §6.3–6.4.
 *
 * @module
 */
import { gradientOnlyFn, type Model } from "../../models/model.ts";
import { findReasonableStepSize } from "../dual_averaging.ts";
import type { ChainSampler, Phase, SamplerDescription } from "../sampler.ts";
import * as hmc from "./kernel.ts";
import type { HmcWarmupState, MetricAdaptation } from "./warmup.ts";
import type { LogDensityGradientFn } from "../integrators.ts";
import type { HessianFn } from "../mass_matrix_adaptation.ts";
import { identityMetric, type Metric } from "../metric.ts";
import {
  cheesFinal,
  cheesInit,
  type CheesState,
  cheesTrajectoryLength,
  cheesUpdate,
  haltonJitter,
} from "../trajectory_adaptation.ts";
import { modelHessianFn, newtonStartSearch, windowAdaptation } from "../window_adaptation.ts";
import {
  AUTO_DENSE_MAX_DIM,
  AUTO_DENSE_MIN_CORRELATION,
  DEFAULT_SAMPLING_JITTER,
  givenStartInit,
  type HmcSamplerOptions,
  parseHmcInit,
} from "./options.ts";
import { metricOrScheme, nonNegativeInteger, positiveFinite } from "../validate_options.ts";
import { chainStart } from "./chain_start.ts";

export { chainStart, chooseMetric } from "./chain_start.ts";

/** Per-chain state of {@link hmcSampler}: the kernel state plus its tuning. */
export interface AdaptiveHmcState {
  /** Kernel state. */
  readonly hmc: hmc.HmcState;
  /** ε used by the next step. */
  readonly stepSize: number;
  /** Metric used by the next step. */
  readonly metric: Metric;
  /** Warmup adaptation state (null before the first warmup iteration, after warmup, or when nothing is adapted). */
  readonly warmup: HmcWarmupState | null;
  /** Integration time T of the `"chees"` warmup (null for `"fixed"`). */
  readonly trajectoryLength: number | null;
  /** ChEES adaptation state (warmup of `"chees"` only). */
  readonly chees: CheesState | null;
  /** Transitions made (indexes the Halton jitter). */
  readonly numTransitions: number;
  /** Position before the last transition (what ChEES compares with). */
  readonly previousPosition: Float64Array | null;
  /** Jitter h of the last transition. */
  readonly jitter: number;
  /** The metric scheme this chain adapts (`"auto"` resolved at `init`). */
  readonly metricAdaptation: MetricAdaptation;
  /** Why the start search did not reach a mode (naming the parameter), or null. */
  readonly startWarning: string | null;
  /** Whether the first metric is the Laplace covariance (the windows' shrinkage target). */
  readonly isLaplaceMetric: boolean;
}

/**
 * The HMC sampler description for the driver: {@link hmc.step} plus dual
 * averaging and metric adaptation in warmup.
 *
 * @param model The target (its `logDensityAndGradient` is the kernel's target).
 * @param options Step size, trajectory, metric and adaptation settings.
 * @returns A chain sampler for {@link sampleChains}.
 * @throws {TypeError} For `"hessian"` on a model without a Hessian and no `hessianFn`.
 *
 * @example
 * ```ts
 * import { hmcSampler } from "./chain_sampler.ts";
 * import { sampleChains } from "../driver.ts";
 * import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array([0]), new Float64Array([1]));
 * const r = sampleChains({ sampler: hmcSampler(model), model, seed: 1,
 *   numWarmup: 100, numSamples: 100, numChains: 1 });
 * if (!(Number(r.chains[0].tuning.stepSize) > 0)) throw new Error();
 * ```
 *
 * References: Neal (2011), §5.3.2; Hoffman & Gelman (2014), Algorithm 5; Dang et al. (2019), §6.3.
 */
export function hmcSampler(
  model: Model,
  options: HmcSamplerOptions = {},
): ChainSampler<AdaptiveHmcState, hmc.HmcInfo> {
  const dim = model.dim;
  const fn: LogDensityGradientFn = (theta, grad) => model.logDensityAndGradient(theta, grad);
  // inner leapfrog points need ∇ only: the model's gradient-only pass where it has one
  const gradientFn = gradientOnlyFn(model);
  if (options.stepSize !== undefined) positiveFinite("stepSize", options.stepSize);
  let trajectoryLength = options.trajectoryLength;
  const numIntegrationSteps = options.numIntegrationSteps;
  if (numIntegrationSteps !== undefined && trajectoryLength !== undefined) {
    throw new TypeError(
      `give numIntegrationSteps or trajectoryLength, not both (got ${numIntegrationSteps} and ${trajectoryLength})`,
    );
  }
  const metricOption = metricOrScheme(
    options,
    ["identity", "diagonal", "dense", "hessian", "auto"],
    "auto",
  ) as NonNullable<HmcSamplerOptions["metricAdaptation"]> | Metric;
  const isAdaptiveMetric = metricOption === "diagonal" || metricOption === "dense" ||
    metricOption === "auto";
  const warmupMode = options.warmupScheme ??
    (numIntegrationSteps === undefined && trajectoryLength === undefined && isAdaptiveMetric
      ? "chees"
      : "fixed");
  if (warmupMode !== "chees" && warmupMode !== "fixed") {
    throw new TypeError(
      `warmupScheme must be "chees" or "fixed", got ${JSON.stringify(warmupMode)}`,
    );
  }
  if (warmupMode === "chees" && numIntegrationSteps !== undefined) {
    throw new TypeError(
      `warmupScheme "chees" adapts the integration time: give trajectoryLength (its start), not numIntegrationSteps`,
    );
  }
  const isChees = warmupMode === "chees";
  const initialT = trajectoryLength ?? 1;
  if (numIntegrationSteps === undefined) trajectoryLength ??= 1.2;
  const jitterMin = options.samplingJitterMin ?? DEFAULT_SAMPLING_JITTER[0];
  const jitterMax = options.samplingJitterMax ?? DEFAULT_SAMPLING_JITTER[1];
  if (
    typeof jitterMin !== "number" || typeof jitterMax !== "number" ||
    !(jitterMin >= 0 && jitterMax > jitterMin && Number.isFinite(jitterMax))
  ) {
    throw new RangeError(
      `samplingJitterMin and samplingJitterMax must satisfy 0 ≤ min < max < ∞ (numbers), got ${
        _shown(jitterMin)
      } and ${_shown(jitterMax)}`,
    );
  }
  const shrinkage = options.metricShrinkage ?? "laplace";
  if (shrinkage !== "laplace" && shrinkage !== "stan") {
    throw new TypeError(
      `metricShrinkage must be "laplace" or "stan", got ${JSON.stringify(shrinkage)}`,
    );
  }
  const optimizationIterations = options.optimizationIterations ?? 50;
  nonNegativeInteger("optimizationIterations", optimizationIterations);
  const init = parseHmcInit(options.init ?? "laplace");
  // The chain's metric unless a Laplace metric replaces it: the fixed
  // `metric`, or the warm-up's start (the user's `initialMetric`, else I).
  let givenMetric: Metric;
  let metricAdaptation: MetricAdaptation | "auto";
  if (typeof metricOption === "string") {
    if (!["identity", "diagonal", "dense", "hessian", "auto"].includes(metricOption)) {
      throw new TypeError(
        `metricAdaptation must be "identity", "diagonal", "dense", "hessian" or "auto", got ${
          JSON.stringify(metricOption)
        }`,
      );
    }
    givenMetric = options.initialMetric ?? identityMetric(dim);
    if (givenMetric.dim !== dim) {
      throw new RangeError(
        `initialMetric must have the model's dimension ${dim}, got ${givenMetric.dim}`,
      );
    }
    metricAdaptation = metricOption === "identity" ? "none" : metricOption;
  } else {
    if (metricOption.dim !== dim) {
      throw new RangeError(
        `metric must have the model's dimension ${dim}, got ${metricOption.dim}`,
      );
    }
    givenMetric = metricOption;
    metricAdaptation = "none";
  }
  let hessianFn = options.hessianFn;
  if (metricAdaptation === "hessian" && hessianFn === undefined) hessianFn = modelHessianFn(model);
  // The Newton search runs when its mode is used: for a Laplace start, or
  // for the first metric of the "chees" warmup (or to resolve "auto").
  const isLaplaceMetric = isChees && options.initialMetric === undefined &&
    typeof metricOption === "string";
  let startHessianFn: HessianFn | null = null;
  if (optimizationIterations > 0 && (init.kind === "laplace" || isLaplaceMetric)) {
    try {
      startHessianFn = hessianFn ?? modelHessianFn(model);
    } catch {
      startHessianFn = null; // no Hessian: start from the given point and metric
    }
  }
  // The search is the same for every chain, but each chain makes it in its
  // own init: chains stay self-contained (same draws and costs in any worker).
  const startSearch = newtonStartSearch(model, {
    logDensityAndGradientFn: fn,
    hessianFn: startHessianFn,
    maxIterations: optimizationIterations,
  });
  const adaptStepSize = options.adaptStepSize ?? true;
  const params = (state: AdaptiveHmcState, jitter: number, phase: Phase): hmc.HmcParams =>
    isChees
      ? {
        logDensityAndGradientFn: fn,
        gradientFn,
        stepSize: state.stepSize,
        metric: state.metric,
        numIntegrationSteps: hmc.numStepsForTrajectory(jitter * state.trajectoryLength!, {
          stepSize: state.stepSize,
          max: options.maxNumIntegrationSteps,
        }),
        maxNumIntegrationSteps: options.maxNumIntegrationSteps,
        divergenceThreshold: options.divergenceThreshold,
        reportProposal: phase === "warmup",
      }
      : {
        logDensityAndGradientFn: fn,
        gradientFn,
        stepSize: state.stepSize,
        metric: state.metric,
        numIntegrationSteps,
        trajectoryLength,
        maxNumIntegrationSteps: options.maxNumIntegrationSteps,
        divergenceThreshold: options.divergenceThreshold,
      };
  const adaptation = windowAdaptation({
    logDensityAndGradientFn: fn,
    adaptStepSize,
    hessianFn,
    updateEvery: options.updateEvery,
    targetAcceptanceRate: options.targetAcceptanceRate,
    initialBuffer: options.initialBuffer,
    firstWindow: options.firstWindow,
    terminalBuffer: options.terminalBuffer,
  });

  return {
    init(position, rng) {
      if (position.length !== dim) {
        throw new RangeError(`position must have length ${dim}, got ${position.length}`);
      }
      const { start, metric, metricAdaptation: chainAdaptation, opt, ...first } = chainStart(
        { startSearch, init, givenMetric, metricAdaptation, isLaplaceMetric },
        position,
        rng,
      );
      const state = hmc.init(start, fn, { parameterNames: model.parameterNames });
      const stepSize = options.stepSize ??
        findReasonableStepSize(state, rng, {
          logDensityAndGradientFn: fn,
          metric,
        });
      return {
        hmc: state,
        stepSize,
        metric,
        warmup: null,
        trajectoryLength: isChees ? initialT : null,
        chees: null,
        numTransitions: 0,
        previousPosition: null,
        jitter: 1,
        metricAdaptation: chainAdaptation,
        startWarning: opt?.warning ?? null,
        isLaplaceMetric: first.isLaplaceMetric,
      };
    },
    step(rng, state, phase: Phase, _iteration) {
      const h = isChees ? haltonJitter(state.numTransitions) : 1;
      const jitter = isChees && phase === "sampling" ? jitterMin + (jitterMax - jitterMin) * h : h;
      const r = hmc.step(rng, state.hmc, params(state, jitter, phase));
      return {
        state: {
          ...state,
          hmc: r.state,
          numTransitions: state.numTransitions + 1,
          previousPosition: state.hmc.position,
          jitter,
        },
        info: r.info,
      };
    },
    position: (state) => state.hmc.position,
    adapt: {
      update(state, context) {
        let chees = state.chees, T = state.trajectoryLength;
        const proposal = context.info.proposal;
        if (isChees && proposal !== undefined && state.previousPosition !== null) {
          chees ??= cheesInit(state.previousPosition, { trajectoryLength: initialT });
          chees = cheesUpdate(chees, {
            position: state.previousPosition,
            proposalPosition: proposal.position,
            proposalMomentum: proposal.momentum,
            acceptanceRate: context.info.acceptanceRate,
            jitter: state.jitter,
            nextPosition: state.hmc.position,
            isAveraged: 2 * context.iteration >= context.numWarmup,
          });
          T = cheesTrajectoryLength(chees);
        }
        const tuning = adaptation.update(state, {
          iteration: context.iteration,
          numWarmup: context.numWarmup,
          state: state.hmc,
          acceptanceRate: context.info.acceptanceRate,
          rng: context.rng,
          metricAdaptation: state.metricAdaptation,
          isAutoMetric: metricAdaptation === "auto",
          shrinkTowardFirstMetric: shrinkage === "laplace" && state.isLaplaceMetric,
        });
        return {
          ...state,
          warmup: tuning.warmup,
          stepSize: tuning.stepSize,
          metric: tuning.metric,
          metricAdaptation: tuning.metricAdaptation ?? state.metricAdaptation,
          chees,
          trajectoryLength: T,
        };
      },
      finish(state) {
        const T = state.chees !== null ? cheesFinal(state.chees) : state.trajectoryLength;
        const { stepSize, metric } = adaptation.finish(state);
        return { ...state, stepSize, metric, warmup: null, chees: null, trajectoryLength: T };
      },
    },
    tuning(state) {
      const notes = {
        metricAdaptation: state.metricAdaptation,
        ...(state.startWarning === null ? {} : { startWarning: state.startWarning }),
      };
      if (isChees) {
        return {
          ...notes,
          stepSize: state.stepSize,
          trajectoryLength: state.trajectoryLength,
          // L is jittered: ⌈h·T/ε⌉ with h spread over (min, max) in sampling,
          // mean ≈ (min + max)·T/(2ε) + ½.
          numIntegrationSteps: Math.ceil(
            (jitterMin + jitterMax) * state.trajectoryLength! / (2 * state.stepSize),
          ),
          metric: state.metric.kind,
          inverseMassMatrix: state.metric.inverseMassMatrix,
        };
      }
      return {
        ...notes,
        stepSize: state.stepSize,
        numIntegrationSteps: numIntegrationSteps ??
          hmc.numStepsForTrajectory(trajectoryLength as number, {
            stepSize: state.stepSize,
            max: options.maxNumIntegrationSteps,
          }),
        metric: state.metric.kind,
        inverseMassMatrix: state.metric.inverseMassMatrix,
      };
    },
  };
}

/**
 * The registry entry `"hmc"`: full-data HMC with dual averaging and a
 * windowed metric in warmup ({@link hmcSampler}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hmcDescription } from "./chain_sampler.ts";
 * assert.equal(hmcDescription.name, "hmc");
 * assert.equal(hmcDescription.isExact, true);
 * ```
 */
export const hmcDescription: SamplerDescription<HmcSamplerOptions> = {
  name: "hmc",
  summary:
    "full-data HMC: damped Newton start + Laplace draws and metric, Stan windows, dual averaging, ChEES-adapted jittered T",
  references:
    "Neal (2011) §5.3.2; Hoffman & Gelman (2014) Algorithms 4–5; Hoffman, Radul & Sountsov (2021) Algorithm 1; Dang et al. (2019) §6.3",
  requires: "log-density",
  isExact: true,
  options: [
    {
      name: "metricAdaptation",
      flag: "metric",
      type: "choice",
      choices: ["identity", "diagonal", "dense", "hessian", "auto"],
      default:
        `auto (dense when d ≤ ${AUTO_DENSE_MAX_DIM} and a Laplace multiple correlation ≥ ${AUTO_DENSE_MIN_CORRELATION}, else diagonal)`,
      help: "metric (mass matrix) adaptation",
    },
    {
      name: "metricShrinkage",
      flag: "metric-shrinkage",
      type: "choice",
      choices: ["laplace", "stan"],
      default: "laplace (Ledoit–Wolf toward the Laplace covariance; Stan's 1e-3·I without one)",
      help: "how a warm-up window regularises its covariance estimate",
    },
    {
      name: "warmupScheme",
      flag: "warmup-scheme",
      type: "choice",
      choices: ["chees", "fixed"],
      default: "chees (fixed when a trajectory length or L is given)",
      help: "warmup: ChEES-adapted T from a Newton start, or the fixed εL of Dang et al. §6.3",
    },
    {
      name: "stepSize",
      flag: "step-size",
      type: "number",
      default: "Hoffman & Gelman's heuristic, then dual averaging in warmup",
      help: "initial step size ε",
    },
    {
      name: "trajectoryLength",
      flag: "trajectory-length",
      type: "number",
      default: "1.2 (Dang et al. §6.3) with warmup fixed; the start of T with chees (1)",
      help: "trajectory length εL",
    },
    {
      name: "targetAcceptanceRate",
      flag: "target-acceptance",
      type: "number",
      default: "0.8",
      help: "dual-averaging target acceptance rate",
    },
    {
      name: "samplingJitterMin",
      flag: "sampling-jitter-min",
      type: "number",
      default: String(DEFAULT_SAMPLING_JITTER[0]),
      help: "with chees: sampling transitions integrate h·T, h evenly over (min, max)",
    },
    {
      name: "samplingJitterMax",
      flag: "sampling-jitter-max",
      type: "number",
      default: String(DEFAULT_SAMPLING_JITTER[1]),
      help: "with chees: the upper end of h in sampling (see --sampling-jitter-min)",
    },
  ],
  build: (model, options) => hmcSampler(model, givenStartInit(options)),
};

/** A value as an error message shows it: strings quoted, numbers as they print. */
function _shown(x: unknown): string {
  return typeof x === "string" ? JSON.stringify(x) : String(x);
}
