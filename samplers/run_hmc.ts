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
import type { Model } from "../models/model.ts";
import type { Rng } from "../random/rng.ts";
import type { OptimizedStart } from "./optimize_start.ts";
import { findReasonableStepSize } from "./dual_averaging.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "./driver.ts";
import type { ChainSampler, Phase, SamplerDescription } from "./sampler.ts";
import * as hmc from "./hmc.ts";
import type { HmcWarmupState, MetricAdaptation } from "./hmc_warmup.ts";
import type { LogDensityGradientFn } from "./integrators.ts";
import type { HessianFn } from "./mass_matrix_adaptation.ts";
import { identityMetric, type Metric } from "./metric.ts";
import { inverseSpd } from "../math/linalg.ts";
import {
  cheesFinal,
  cheesInit,
  type CheesState,
  cheesTrajectoryLength,
  cheesUpdate,
  haltonJitter,
} from "./trajectory_adaptation.ts";
import {
  laplaceMetric,
  modelHessianFn,
  newtonStartSearch,
  startPoint,
  windowAdaptation,
} from "./window_adaptation.ts";
import { checkRunInputs } from "./option_names.ts";

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
   * `updateEvery` warmup iterations, from M = I), `"auto"` or a fixed
   * {@link Metric}. Default `"auto"`: `"dense"` when d ≤
   * {@link AUTO_DENSE_MAX_DIM} and, under the Laplace approximation at the
   * start, some parameter has a multiple correlation of at least
   * {@link AUTO_DENSE_MIN_CORRELATION} with the others, else `"diagonal"`
   * ({@link chooseMetric}).
   */
  metric?: "identity" | "diagonal" | "dense" | "hessian" | "auto" | Metric;
  /**
   * Where each chain starts (see {@link HmcInit}). Default `"laplace"` with
   * either warmup scheme and any metric (chains start dispersed), and
   * `"given"` whenever the run is given `initialPosition`,
   * `initialPositions` or `jitter` (through {@link runHmc} or the registry).
   */
  init?: "laplace" | "given" | "0" | 0 | string | { uniform: number };
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
  /**
   * How warmup sets the integration time and where it starts:
   *
   * - `"chees"`: a damped Newton search of the mode from a data-based point
   *   (samplers/optimize_start.ts; when the model has a Hessian and no
   *   `initialMetric` is given) gives the first metric — the Laplace
   *   covariance (−∇² log π)⁻¹, dense or its diagonal as the metric scheme
   *   says — and by default (`init: "laplace"`) each chain starts at its own
   *   draw from that Laplace approximation; then Stan's windows and dual
   *   averaging as before, with the integration time T adapted by ChEES and
   *   jittered (L = ⌈h·T/ε⌉, h from a Halton sequence) in both phases
   *   (`trajectoryLength` is the initial T, default 1).
   * - `"fixed"`: the previous behaviour: εL = `trajectoryLength` (1.2) or a
   *   fixed L, from the given start and `initialMetric` (identity).
   *
   * Default `"chees"` when neither `trajectoryLength` nor
   * `numIntegrationSteps` is given and `metric` is `"diagonal"` or `"dense"`;
   * `"fixed"` otherwise.
   */
  warmupScheme?: "chees" | "fixed";
  /** Most Newton iterations of the start search (default 50; it stops at the mode; 0 skips it). */
  optimizationIterations?: number;
}

/**
 * Where each chain starts:
 *
 * - `"laplace"`: a draw from the Laplace approximation N(θ̂, (−∇² log π(θ̂))⁻¹)
 *   at the mode θ̂ found by a damped Newton search from a data-based point
 *   (`dataBasedStart` in samplers/optimize_start.ts); when there is no Laplace approximation (no
 *   Hessian, or −∇² log π not positive definite at the search's end), the
 *   search's last point plus uniform(−2, 2) noise per coordinate.
 * - `"given"` or `"0"` (or the number 0): the driver's initial position
 *   (zeros unless `initialPosition(s)` is given), as is.
 * - `"uniform(R)"` or `{ uniform: R }`: the driver's initial position plus
 *   uniform(−R, R) noise per coordinate of θ (Stan's `init = R`).
 */
export type HmcInit = NonNullable<HmcSamplerOptions["init"]>;

/** d up to which `metric: "auto"` may choose the dense metric. */
export const AUTO_DENSE_MAX_DIM = 100;

/**
 * Multiple correlation of a parameter with the others, under the Laplace
 * approximation, from which `metric: "auto"` chooses dense ({@link chooseMetric}).
 */
export const AUTO_DENSE_MIN_CORRELATION = 0.5;

/**
 * Parse an {@link HmcInit}.
 *
 * @param init The option (or a CLI `--init` value other than a file).
 * @returns `{kind, radius}`.
 * @throws {TypeError} Naming the value when it is not one of the forms.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseHmcInit } from "./run_hmc.ts";
 * assert.deepEqual(parseHmcInit("uniform(0.5)"), { kind: "uniform", radius: 0.5 });
 * assert.deepEqual(parseHmcInit(0), { kind: "given", radius: 0 });
 * ```
 */
export function parseHmcInit(
  init: HmcInit,
): { kind: "laplace" | "given" | "uniform"; radius: number } {
  if (init === 0 || init === "0" || init === "given") return { kind: "given", radius: 0 };
  if (init === "laplace") return { kind: "laplace", radius: 0 };
  let radius = NaN;
  if (typeof init === "object" && init !== null && "uniform" in init) radius = Number(init.uniform);
  else if (typeof init === "string") {
    const m = /^\s*uniform\s*\(\s*([^)]*?)\s*\)\s*$/.exec(init);
    if (m !== null && m[1] !== "") radius = Number(m[1]);
  }
  if (!(radius > 0) || !Number.isFinite(radius)) {
    throw new TypeError(
      `init must be "laplace", "0", "given" or "uniform(R)" with R > 0, got ${
        JSON.stringify(init)
      }`,
    );
  }
  return { kind: "uniform", radius };
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
 * import { gaussianTarget } from "../examples/models/gaussian_target.ts";
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
  const metricOption = options.metric ?? "auto";
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
  const optimizationIterations = options.optimizationIterations ?? 50;
  if (!Number.isInteger(optimizationIterations) || optimizationIterations < 0) {
    throw new RangeError(
      `optimizationIterations must be a non-negative integer, got ${optimizationIterations}`,
    );
  }
  const init = parseHmcInit(options.init ?? "laplace");
  let initialMetric: Metric;
  let metricAdaptation: MetricAdaptation | "auto";
  if (typeof metricOption === "string") {
    if (!["identity", "diagonal", "dense", "hessian", "auto"].includes(metricOption)) {
      throw new TypeError(
        `metric must be "identity", "diagonal", "dense", "hessian", "auto" or a Metric, got ${
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
      const { start, metric, metricAdaptation: chainAdaptation, opt } = chainStart(
        { startSearch, init, initialMetric, metricAdaptation, isLaplaceMetric },
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
      };
    },
    step(rng, state, phase: Phase, _iteration) {
      const jitter = isChees ? haltonJitter(state.numTransitions) : 1;
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
          // L is jittered: ⌈h·T/ε⌉ with h uniform on (0, 1), mean ≈ T/(2ε) + ½.
          numIntegrationSteps: Math.ceil(state.trajectoryLength! / (2 * state.stepSize)),
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
 * import { hmcDescription } from "./run_hmc.ts";
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
      name: "metric",
      flag: "metric",
      type: "choice",
      choices: ["identity", "diagonal", "dense", "hessian", "auto"],
      default:
        `auto (dense when d ≤ ${AUTO_DENSE_MAX_DIM} and a Laplace multiple correlation ≥ ${AUTO_DENSE_MIN_CORRELATION}, else diagonal)`,
      help: "metric (mass matrix) adaptation",
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
  ],
  build: (model, options) => hmcSampler(model, givenStartInit(options)),
};

/**
 * Run full-data HMC: {@link hmcSampler} driven by {@link sampleChains}.
 *
 * Defaults: 4 chains, 1000 warmup + 1000 sampling iterations, warmup
 * `"chees"` (Newton start, Laplace diagonal metric, ChEES-adapted jittered
 * integration time), dual averaging to δ = 0.8, windowed metric chosen by `"auto"`;
 * `warmupScheme: "fixed"` gives the previous εL = 1.2 from the identity metric. Use
 * `metric: "hessian"` for the HMC-ECS §6.3 tuning.
 *
 * @param model Any Model or DataModel.
 * @param options Sampler options (see {@link HmcSamplerOptions}) and driver options (seed, sizes, …).
 * @returns The driver's result; `chains[c].tuning` holds ε, L and M⁻¹ after warmup.
 *
 * @example
 * ```ts
 * import { runHmc } from "./run_hmc.ts";
 * import { gaussianTarget } from "../examples/models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array([1, -1]), new Float64Array([1, 0.5, 0.5, 1]));
 * const r = runHmc(model, { seed: 7, numWarmup: 300, numSamples: 300, numChains: 2 });
 * const m = r.draws[0][0].reduce((a, b) => a + b) / r.numDraws;
 * if (Math.abs(m - 1) > 0.5) throw new Error(`mean ${m}`);
 * ```
 *
 * References: Neal (2011), §5.3.2; Hoffman & Gelman (2014), Algorithm 5; Dang et al. (2019), §6.3.
 */
export function runHmc(model: Model, options: RunHmcOptions): SamplingResult {
  checkRunInputs("runHmc", model, options);
  return sampleChains({ ...options, sampler: hmcDescription.build(model, options), model });
}

/**
 * Starts given to the driver are used as they are unless `init` says
 * otherwise (the registry's rule for every sampler with an `init` option).
 *
 * @param options The sampler's options, possibly with the driver's.
 * @returns Them with `init: "given"` when the run gives starts and no `init`.
 */
export function givenStartInit<T extends { init?: HmcSamplerOptions["init"] }>(options: T): T {
  const o = options as T & Partial<RunOptions>;
  return o.init === undefined &&
      (o.initialPosition !== undefined || o.initialPositions !== undefined ||
        (o.jitter ?? 0) > 0)
    ? { ...options, init: "given" }
    : options;
}

/**
 * Where one chain of an HMC-family sampler starts and the metric it starts
 * with: the Newton search's result (if any) gives the Laplace draw or the
 * search's point plus noise ({@link HmcInit}), `"auto"` chooses the scheme
 * from the Laplace covariance ({@link chooseMetric}; diagonal without one),
 * and an adaptive scheme's first metric is that covariance (dense or its
 * diagonal) when the caller asks for a Laplace metric.
 *
 * @param setup The sampler's start search, parsed init, given metric and scheme.
 * @param position The driver's initial position.
 * @param rng The chain's generator.
 * @returns The start, the first metric, the chain's scheme and the search's result.
 */
export function chainStart(
  setup: {
    startSearch: (position: Float64Array) => OptimizedStart | null;
    init: ReturnType<typeof parseHmcInit>;
    initialMetric: Metric;
    metricAdaptation: MetricAdaptation | "auto";
    isLaplaceMetric: boolean;
  },
  position: Float64Array,
  rng: Rng,
): {
  start: Float64Array;
  metric: Metric;
  metricAdaptation: MetricAdaptation;
  opt: OptimizedStart | null;
} {
  const dim = position.length, scheme = setup.metricAdaptation;
  const opt = setup.startSearch(position);
  const cov = opt?.laplaceCovariance ?? null;
  const metricAdaptation: MetricAdaptation = scheme !== "auto"
    ? scheme
    : cov === null
    ? "diagonal"
    : chooseMetric(cov, dim);
  const metric = setup.isLaplaceMetric && cov !== null && scheme !== "none"
    ? laplaceMetric(cov, dim, metricAdaptation === "diagonal")
    : setup.initialMetric;
  return { start: startPoint(setup.init, position, opt, rng), metric, metricAdaptation, opt };
}

/**
 * The metric `"auto"` chooses from the Laplace covariance Σ: `"dense"` when
 * d ≤ {@link AUTO_DENSE_MAX_DIM} and some parameter's multiple correlation
 * with the others, Rⱼ = √(1 − 1/(Σⱼⱼ (Σ⁻¹)ⱼⱼ)), is at least
 * {@link AUTO_DENSE_MIN_CORRELATION}, else `"diagonal"` (also without a
 * Laplace approximation). Σⱼⱼ (Σ⁻¹)ⱼⱼ is the variance inflation of θⱼ: the
 * squared ratio of its marginal to its conditional sd, by which a diagonal
 * metric shortens the steps along the correlated direction. Rⱼ is at least
 * the largest pairwise |correlation| of θⱼ, and also sees a parameter
 * correlated with a combination of many others (collinear predictors).
 *
 * @param covariance The Laplace covariance (d×d row-major) or null.
 * @param dim d.
 * @returns `"dense"` or `"diagonal"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chooseMetric } from "./run_hmc.ts";
 * assert.equal(chooseMetric(new Float64Array([1, -0.999, -0.999, 1]), 2), "dense");
 * assert.equal(chooseMetric(new Float64Array([1, 0.3, 0.3, 1]), 2), "diagonal");
 * ```
 */
export function chooseMetric(covariance: Float64Array | null, dim: number): "dense" | "diagonal" {
  if (covariance === null || dim > AUTO_DENSE_MAX_DIM) return "diagonal";
  let precision: Float64Array;
  try {
    precision = inverseSpd(covariance);
  } catch {
    return "diagonal";
  }
  const minInflation = 1 / (1 - AUTO_DENSE_MIN_CORRELATION ** 2);
  for (let j = 0; j < dim; j++) {
    if (covariance[j * dim + j] * precision[j * dim + j] >= minInflation) return "dense";
  }
  return "diagonal";
}
