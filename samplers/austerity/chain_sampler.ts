/**
 * The austerity samplers for the registry: random-walk and SGLD proposals
 * accepted by the approximate sequential test, with Robbins–Monro adaptation
 * of the proposal's scale in warmup.
 *
 * References: Korattikara, Chen & Welling (2014), §5.1, §5.4; Andrieu & Thoms (2008).
 *
 * @module
 */
import { cholesky } from "../../math/linalg.ts";
import type { DataModel, Model } from "../../models/model.ts";
import { subsamplingSupport } from "../../models/subsampling_support.ts";
import type { Rng } from "../../random/rng.ts";
import { findReasonableStepSize } from "../dual_averaging.ts";
import { identityMetric } from "../metric.ts";
import type { ChainSampler, SamplerDescription, SamplerOption, StepInfo } from "../sampler.ts";
import {
  scaleAdaptationInit,
  type ScaleAdaptationState,
  scaleAdaptationUpdate,
} from "../scale_adaptation.ts";
import {
  type ApproxMhInfo,
  type ApproxMhState,
  init,
  langevinProposal,
  type ProposalFn,
  randomWalkProposal,
  step,
} from "./kernel.ts";
import type { ApproxMhOptions } from "./options.ts";
import { inInterval, integerAtLeast, positiveFinite } from "../validate_options.ts";

function _isDataModel(model: Model): model is DataModel {
  const m = model as Partial<DataModel>;
  return typeof m.numRows === "number" && typeof m.logLikelihoodRows === "function" &&
    typeof m.logPrior === "function";
}

function _assertDataModel(model: Model): DataModel {
  if (!_isDataModel(model)) {
    throw new TypeError(
      "approximate MH needs a DataModel (numRows, logPrior, logLikelihoodRows), got a plain Model",
    );
  }
  return model;
}

/** Per-chain state of the registry samplers: the kernel state plus the proposal scale. */
export interface ApproxMhChainState {
  /** Kernel state. */
  readonly kernel: ApproxMhState;
  /** Random-walk scale used next (NaN for the Langevin proposal). */
  readonly scale: number;
  /** Scale adaptation (null when not adapting or after warmup). */
  readonly adaptation: ScaleAdaptationState | null;
}

function _common(model: Model, options: ApproxMhOptions) {
  const dataModel = _assertDataModel(model);
  const epsilon = options.epsilon ?? 0.05;
  inInterval("epsilon", epsilon, "[", 0, 1, ")");
  const batchSize = options.batchSize ?? Math.min(dataModel.numRows, 500);
  integerAtLeast("batchSize", batchSize, 2);
  const check = options.checkExact ?? false;
  if (typeof check === "number" && !(Number.isInteger(check) && check >= 0)) {
    throw new RangeError(`checkExact must be a boolean or a non-negative integer, got ${check}`);
  }
  // What the model can do is decided here, once per run.
  return {
    dataModel,
    epsilon,
    batchSize,
    checkExact: check,
    support: subsamplingSupport(dataModel),
  };
}

function _chainSampler(
  common: ReturnType<typeof _common>,
  proposalFor: (scale: number) => ProposalFn,
  start: (position: Float64Array, rng: Rng) => {
    scale: number;
    adaptation: ScaleAdaptationState | null;
  },
  reportScale: (scale: number) => Record<string, number>,
): ChainSampler<ApproxMhChainState, ApproxMhInfo> {
  const { dataModel: model, epsilon, batchSize, checkExact, support } = common;
  return {
    init: (position, rng) => ({ kernel: init(position, model), ...start(position, rng) }),
    step(rng, state, phase, iteration) {
      const r = step(rng, state.kernel, {
        model,
        support,
        proposalFn: proposalFor(state.scale),
        epsilon,
        batchSize,
        checkExact: typeof checkExact === "number"
          ? phase === "sampling" && iteration < checkExact
          : checkExact,
      });
      return { state: { ...state, kernel: r.state }, info: r.info };
    },
    position: (state) => state.kernel.position,
    adapt: {
      update(state, context) {
        if (state.adaptation === null) return state;
        const a = scaleAdaptationUpdate(state.adaptation, context.info.isAccepted ? 1 : 0);
        return { ...state, adaptation: a, scale: a.scale };
      },
      finish: (state) => ({ ...state, adaptation: null }),
    },
    tuning: (state) => ({ epsilon, batchSize, ...reportScale(state.scale) }),
  };
}

/** The CLI options both austerity samplers share (ε and the test's mini-batch size m). */
const _TEST_OPTIONS: readonly SamplerOption[] = [
  {
    name: "epsilon",
    flag: "approx-mh-epsilon",
    type: "number",
    min: 0,
    default: "0.05",
    help: "the test's error bound ε ∈ [0, 1); 0 is exact MH on all rows (Algorithm 1)",
  },
  {
    name: "batchSize",
    flag: "batch-size",
    type: "integer",
    min: 1,
    default: "min(N, 500)",
    help: "rows per mini-batch m of the sequential test",
  },
];

/**
 * Registry entry: random-walk MH with the approximate test. Warmup adapts the
 * scale by Robbins–Monro on the accept indicator (an unbiased estimate of the
 * acceptance rate). Not exact for ε > 0 (ε = 0 is exact MH).
 *
 * @example
 * ```ts
 * import { austerityRwmhDescription } from "./chain_sampler.ts";
 * if (austerityRwmhDescription.requires !== "data-model") throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), §5.1; Andrieu & Thoms (2008).
 */
export const austerityRwmhDescription: SamplerDescription<ApproxMhOptions> = {
  name: "austerity-rwmh",
  summary: "random-walk Metropolis–Hastings accepted by the approximate sequential test (ε, m)",
  references: "Korattikara, Chen & Welling (2014), Algorithm 1, eqs. 2–5, §5.1",
  requires: "data-model",
  isExact: false,
  options: [
    ..._TEST_OPTIONS,
    {
      name: "scale",
      flag: "scale",
      type: "number",
      min: 0,
      default: "2.38/√d, adapted in warmup",
      help: "random-walk scale",
    },
  ],
  build(model: Model, options: ApproxMhOptions): ChainSampler<unknown, StepInfo> {
    const common = _common(model, options);
    const d = model.dim, scale0 = options.scale ?? 2.38 / Math.sqrt(d);
    positiveFinite("scale", scale0);
    const proposalCholesky = options.proposalCovariance === undefined
      ? undefined
      : cholesky(options.proposalCovariance, { name: "proposalCovariance" });
    const adaptation = (options.adaptScale ?? true)
      ? scaleAdaptationInit(scale0, { targetAcceptanceRate: options.targetAcceptanceRate })
      : null;
    return _chainSampler(
      common,
      (scale) => randomWalkProposal({ scale, proposalCholesky }),
      () => ({ scale: scale0, adaptation }),
      (scale) => ({ scale }),
    ) as ChainSampler<unknown, StepInfo>;
  },
};

/**
 * Registry entry: the SGLD proposal (eq. 13) corrected by the approximate
 * test with its proposal ratio (eq. 14). Without a given α, warmup finds and
 * adapts it (see {@link ApproxMhOptions.stepSize}). Not exact for
 * ε > 0.
 *
 * @example
 * ```ts
 * import { austeritySgldDescription } from "./chain_sampler.ts";
 * if (austeritySgldDescription.name !== "austerity-sgld") throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), §5.4, eqs. 13–14.
 */
export const austeritySgldDescription: SamplerDescription<ApproxMhOptions> = {
  name: "austerity-sgld",
  summary: "SGLD proposals (eq. 13) accepted by the approximate sequential test (ε, m)",
  references: "Korattikara, Chen & Welling (2014), Algorithm 1, eqs. 13–14, §5.4",
  requires: "data-model",
  isExact: false,
  options: [
    ..._TEST_OPTIONS,
    {
      name: "stepSize",
      flag: "step-size",
      type: "number",
      default: "α = h², h from Hoffman & Gelman's heuristic, √α adapted in warmup " +
        "towards acceptance 0.574 (given: fixed)",
      help: "Langevin step α of the proposal, eq. 13",
    },
  ],
  build(model: Model, options: ApproxMhOptions): ChainSampler<unknown, StepInfo> {
    const common = _common(model, options);
    const given = options.stepSize;
    if (given !== undefined) positiveFinite("stepSize", given);
    const gradientBatchSize = options.gradientBatchSize ?? common.batchSize;
    const adaptStepSize = options.adaptStepSize ?? given === undefined;
    const target = options.targetAcceptanceRate ?? 0.574;
    if (adaptStepSize) scaleAdaptationInit(1, { targetAcceptanceRate: target }); // validate now
    // The adapted quantity is the proposal's noise sd s = √α, on the log scale.
    const proposalFor = (s: number) =>
      langevinProposal(common.dataModel, { stepSize: s * s, batchSize: gradientBatchSize });
    const fixed = given === undefined || adaptStepSize ? null : langevinProposal(
      common.dataModel,
      { stepSize: given, batchSize: gradientBatchSize },
    );
    const fullFn = (x: Float64Array, g: Float64Array) => model.logDensityAndGradient(x, g);
    return _chainSampler(
      common,
      (s) => fixed ?? proposalFor(s),
      (position, rng) => {
        let s = given === undefined ? NaN : Math.sqrt(given);
        if (given === undefined) {
          // One leapfrog step of size h from a fresh momentum is a Langevin step with α = h².
          const gradient = new Float64Array(model.dim);
          const logDensity = fullFn(position, gradient);
          s = findReasonableStepSize({ position, logDensity, gradient }, rng, {
            logDensityAndGradientFn: fullFn,
            metric: identityMetric(model.dim),
          });
        }
        return {
          scale: s,
          adaptation: adaptStepSize
            ? scaleAdaptationInit(s, { targetAcceptanceRate: target })
            : null,
        };
      },
      (s) => ({ stepSize: fixed !== null ? given as number : s * s }),
    ) as ChainSampler<unknown, StepInfo>;
  },
};
