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
import type { DataModel, Model } from "../models/model.ts";
import { findReasonableStepSize } from "./dual_averaging.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "./driver.ts";
import type { ChainSampler, Phase, SamplerDescription } from "./sampler.ts";
import * as hmc from "./hmc.ts";
import {
  hmcWarmupFinal,
  hmcWarmupInit,
  type HmcWarmupState,
  hmcWarmupUpdate,
  type MetricAdaptation,
} from "./hmc_warmup.ts";
import type { LogDensityGradientFn } from "./integrators.ts";
import { dataModelHessianFn, type HessianFn } from "./mass_matrix_adaptation.ts";
import { identityMetric, type Metric } from "./metric.ts";

/** Options of {@link hmcSampler} (the kernel and its warmup). */
export interface HmcSamplerOptions {
  /** Initial ε (default: {@link findReasonableStepSize} at the initial position). */
  stepSize?: number;
  /** Fixed L. Give this or `trajectoryLength`. */
  numIntegrationSteps?: number;
  /** εL, with L = max(1, ⌈εL/ε⌉) (default 1.2, HMC-ECS §6.3, when neither is given). */
  trajectoryLength?: number;
  /** Cap on L derived from `trajectoryLength` (default 1000). */
  maxNumIntegrationSteps?: number;
  /**
   * Metric: `"identity"` (fixed I), `"diagonal"`/`"dense"` (Stan windowed
   * estimates), `"hessian"` (HMC-ECS §6.3: M = −∇² log π(θ*) every
   * `updateEvery` warmup iterations, from M = I), or a fixed {@link Metric}.
   * Default `"diagonal"`.
   */
  metric?: "identity" | "diagonal" | "dense" | "hessian" | Metric;
  /**
   * Metric to start warmup from when `metric` names an adaptive scheme
   * (default identity, as in HMC-ECS §6.3). A good start (e.g. the Laplace
   * approximation of a subset fit) saves the long early trajectories that
   * M = I needs on tall data.
   */
  initialMetric?: Metric;
  /** Adapt ε by dual averaging during warmup (default true). */
  adaptStepSize?: boolean;
  /** Dual-averaging target δ (default 0.8). */
  targetAcceptanceRate?: number;
  /** Hessian period for `"hessian"` (default 200). */
  updateEvery?: number;
  /**
   * ∇² log π for `"hessian"` (default: logLikelihoodHessian + logPriorHessian
   * of a DataModel, or the model's `logDensityHessian` if it has one).
   */
  hessianFn?: HessianFn;
  /** Stan buffer sizes for `"diagonal"`/`"dense"` (75, 25, 50). */
  initialBuffer?: number;
  /** First slow window (default 25). */
  firstWindow?: number;
  /** Terminal buffer (default 50). */
  terminalBuffer?: number;
  /** ΔH above this is a divergence (default 1000). */
  divergenceThreshold?: number;
}

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
}

/** Options of {@link runHmc}: the sampler's options and the driver's. */
export type RunHmcOptions =
  & HmcSamplerOptions
  & RunOptions;

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
 * import { hmcSampler } from "./run_hmc.ts";
 * import { sampleChains } from "./driver.ts";
 * import { gaussianTarget } from "../models/gaussian_target.ts";
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
  if (
    options.stepSize !== undefined &&
    (!(options.stepSize > 0) || !Number.isFinite(options.stepSize))
  ) {
    throw new RangeError(`stepSize must be positive and finite, got ${options.stepSize}`);
  }
  let trajectoryLength = options.trajectoryLength;
  const numIntegrationSteps = options.numIntegrationSteps;
  if (numIntegrationSteps !== undefined && trajectoryLength !== undefined) {
    throw new TypeError(
      `give numIntegrationSteps or trajectoryLength, not both (got ${numIntegrationSteps} and ${trajectoryLength})`,
    );
  }
  if (numIntegrationSteps === undefined) trajectoryLength ??= 1.2;
  const metricOption = options.metric ?? "diagonal";
  let initialMetric: Metric;
  let metricAdaptation: MetricAdaptation;
  if (typeof metricOption === "string") {
    if (!["identity", "diagonal", "dense", "hessian"].includes(metricOption)) {
      throw new TypeError(
        `metric must be "identity", "diagonal", "dense", "hessian" or a Metric, got ${
          JSON.stringify(metricOption)
        }`,
      );
    }
    initialMetric = options.initialMetric ?? identityMetric(dim);
    if (initialMetric.dim !== dim) {
      throw new RangeError(
        `initialMetric must have the model's dimension ${dim}, got ${initialMetric.dim}`,
      );
    }
    metricAdaptation = metricOption === "identity" ? "none" : metricOption;
  } else {
    if (metricOption.dim !== dim) {
      throw new RangeError(
        `metric must have the model's dimension ${dim}, got ${metricOption.dim}`,
      );
    }
    initialMetric = metricOption;
    metricAdaptation = "none";
  }
  let hessianFn = options.hessianFn;
  if (metricAdaptation === "hessian" && hessianFn === undefined) hessianFn = _modelHessianFn(model);
  const adaptStepSize = options.adaptStepSize ?? true;
  const params = (state: AdaptiveHmcState): hmc.HmcParams => ({
    logDensityAndGradientFn: fn,
    stepSize: state.stepSize,
    metric: state.metric,
    numIntegrationSteps,
    trajectoryLength,
    maxNumIntegrationSteps: options.maxNumIntegrationSteps,
    divergenceThreshold: options.divergenceThreshold,
  });
  const startWarmup = (stepSize: number, numWarmup: number): HmcWarmupState | null =>
    adaptStepSize || metricAdaptation !== "none"
      ? hmcWarmupInit(dim, {
        numWarmup,
        stepSize,
        adaptStepSize,
        metricAdaptation,
        initialMetric,
        hessianFn,
        updateEvery: options.updateEvery,
        targetAcceptanceRate: options.targetAcceptanceRate,
        initialBuffer: options.initialBuffer,
        firstWindow: options.firstWindow,
        terminalBuffer: options.terminalBuffer,
      })
      : null;

  return {
    init(position, rng) {
      if (position.length !== dim) {
        throw new RangeError(`position must have length ${dim}, got ${position.length}`);
      }
      const state = hmc.init(position, fn, { parameterNames: model.parameterNames });
      const stepSize = options.stepSize ??
        findReasonableStepSize(state, rng, {
          logDensityAndGradientFn: fn,
          metric: initialMetric,
        });
      return { hmc: state, stepSize, metric: initialMetric, warmup: null };
    },
    step(rng, state, _phase: Phase, _iteration) {
      const r = hmc.step(rng, state.hmc, params(state));
      return { state: { ...state, hmc: r.state }, info: r.info };
    },
    position: (state) => state.hmc.position,
    adapt: {
      update(state, context) {
        // The warmup plan is made at the first warmup iteration, when the
        // driver's numWarmup is known.
        const current = context.iteration === 0
          ? startWarmup(state.stepSize, context.numWarmup)
          : state.warmup;
        if (current === null) return state;
        const warmup = hmcWarmupUpdate(current, {
          position: state.hmc.position,
          acceptanceRate: context.info.acceptanceRate,
          restartStepSizeFn: (metric) =>
            findReasonableStepSize(state.hmc, context.rng, {
              logDensityAndGradientFn: fn,
              metric,
              initialStepSize: state.stepSize,
            }),
        });
        return { ...state, warmup, stepSize: warmup.stepSize, metric: warmup.metric };
      },
      finish(state) {
        if (state.warmup === null) return state;
        const { stepSize, metric } = hmcWarmupFinal(state.warmup);
        return { ...state, stepSize, metric, warmup: null };
      },
    },
    tuning(state) {
      return {
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
 * import { hmcDescription } from "./run_hmc.ts";
 * assert.equal(hmcDescription.name, "hmc");
 * assert.equal(hmcDescription.isExact, true);
 * ```
 */
export const hmcDescription: SamplerDescription<HmcSamplerOptions> = {
  name: "hmc",
  summary: "full-data HMC, static trajectory εL = 1.2, dual averaging and windowed metric",
  references: "Neal (2011) §5.3.2; Hoffman & Gelman (2014) Algorithms 4–5; Dang et al. (2019) §6.3",
  requires: "log-density",
  isExact: true,
  options: [
    {
      name: "metric",
      flag: "metric",
      type: "choice",
      choices: ["identity", "diagonal", "dense", "hessian"],
      default: "diagonal",
      help: "metric (mass matrix) adaptation",
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
      default: "1.2 (Dang et al. §6.3)",
      help: "trajectory length εL",
    },
    {
      name: "targetAcceptanceRate",
      flag: "target-acceptance",
      type: "number",
      default: "0.8",
      help: "dual-averaging target acceptance rate",
    },
  ],
  build: (model, options) => hmcSampler(model, options),
};

/**
 * Run full-data HMC: {@link hmcSampler} driven by {@link sampleChains}.
 *
 * Defaults: 4 chains, 1000 warmup + 1000 sampling iterations, εL = 1.2,
 * dual averaging to δ = 0.8, diagonal windowed metric. Use
 * `metric: "hessian"` for the HMC-ECS §6.3 tuning.
 *
 * @param model Any Model or DataModel.
 * @param options Sampler options (see {@link HmcSamplerOptions}) and driver options (seed, sizes, …).
 * @returns The driver's result; `chains[c].tuning` holds ε, L and M⁻¹ after warmup.
 *
 * @example
 * ```ts
 * import { runHmc } from "./run_hmc.ts";
 * import { gaussianTarget } from "../models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array([1, -1]), new Float64Array([1, 0.5, 0.5, 1]));
 * const r = runHmc(model, { seed: 7, numWarmup: 300, numSamples: 300, numChains: 2 });
 * const m = r.draws[0][0].reduce((a, b) => a + b) / r.numDraws;
 * if (Math.abs(m - 1) > 0.5) throw new Error(`mean ${m}`);
 * ```
 *
 * References: Neal (2011), §5.3.2; Hoffman & Gelman (2014), Algorithm 5; Dang et al. (2019), §6.3.
 */
export function runHmc(model: Model, options: RunHmcOptions): SamplingResult {
  return sampleChains({ ...options, sampler: hmcDescription.build(model, options), model });
}

function _modelHessianFn(model: Model): HessianFn {
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
