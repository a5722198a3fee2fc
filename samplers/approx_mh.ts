/**
 * Approximate ("austerity") Metropolis–Hastings: any proposal, accepted or
 * rejected by the sequential test of `subsampling/austerity.ts`, which looks
 * at only as many data rows as it needs to be confident at level ε.
 *
 * ```
 *  θ', log q(θ|θ')/q(θ'|θ)  ←  proposalFn(rng, θ)         random walk (ratio 0), Langevin (eq. 13/14), yours
 *  accept?                  ←  approxMhTest(u, θ, θ', ε, m)  (Algorithm 1; ε = 0 is exact MH)
 * ```
 *
 * Same shape as every sampler: {@link ApproxMhParams}, {@link ApproxMhState},
 * {@link ApproxMhInfo}, {@link init}, a kernel {@link step}; registry entries
 * {@link austerityRwmhDescription} and {@link austeritySgldDescription}; and
 * {@link runApproxMh}, which runs chains with the driver's `sampleChains`.
 * Every row the test touches is counted in the model's `numLogLikRows` (twice:
 * at θ and at θ'); the Langevin proposal's minibatch gradients at θ and θ' in
 * `numGradRows`.
 *
 * References: Korattikara, Chen & Welling (2014), §4 (eqs. 2–4, Algorithm 1),
 * §5.1 (random walk, eq. 5), §5.4 (SGLD proposal, eqs. 13–14); Welling & Teh
 * (2011).
 *
 * @module
 */
import { cholesky } from "../math/linalg.ts";
import type { DataModel, Model } from "../models/model.ts";
import { type SubsamplingSupport, subsamplingSupport } from "../models/subsampling_support.ts";
import type { Rng } from "../random/rng.ts";
import { approxMhTest, dataModelDifferences, newRowOrder } from "../subsampling/austerity.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "./driver.ts";
import { findReasonableStepSize } from "./dual_averaging.ts";
import { identityMetric } from "./metric.ts";
import { randomWalkDraw } from "./rwmh/kernel.ts";
import type { ChainSampler, SamplerDescription, SamplerOption, StepInfo } from "./sampler.ts";
import {
  scaleAdaptationInit,
  type ScaleAdaptationState,
  scaleAdaptationUpdate,
} from "./scale_adaptation.ts";
import { checkRunInputs } from "./option_names.ts";

/** A proposed move and its log proposal ratio log q(θ|θ') − log q(θ'|θ). */
export interface ProposalDraw {
  /** θ'. */
  position: Float64Array;
  /** log q(θ|θ') − log q(θ'|θ) (0 for a symmetric proposal). */
  logProposalRatio: number;
}

/** A proposal: draws θ' from q(·|θ) and returns it with its log proposal ratio. */
export type ProposalFn = (rng: Rng, position: Float64Array) => ProposalDraw;

/** Parameters of {@link step}. */
export interface ApproxMhParams {
  /** The posterior (prior, per-row likelihood, N). */
  model: DataModel;
  /** The proposal. */
  proposalFn: ProposalFn;
  /** The bias knob ε ∈ [0, 1) (0: exact MH on all rows). */
  epsilon: number;
  /** Mini-batch size m of the sequential test (≥ 2). */
  batchSize: number;
  /** Also evaluate the exact decision (uncounted) and report agreement. Default false. */
  checkExact?: boolean;
  /**
   * What the model can do, decided once per run (default: decided at every
   * step by `subsamplingSupport(model)`).
   */
  support?: SubsamplingSupport | null;
}

/** What the next step needs. `rowOrder` is chain-owned scratch (a permutation of the rows). */
export interface ApproxMhState {
  /** θ. */
  readonly position: Float64Array;
  /** log ρ(θ). */
  readonly logPrior: number;
  /** The chain's permutation of 0 … N − 1 the test draws rows from (shuffled in place). */
  readonly rowOrder: Int32Array;
}

/** Diagnostics of one step (a {@link StepInfo}). */
export interface ApproxMhInfo {
  /** θ' or its density was non-finite (NaN/+∞): rejected, reported, never thrown. */
  isDivergent: boolean;
  /** Whether θ' was accepted. */
  isAccepted: boolean;
  /** Fraction of the N rows the test used. */
  fractionOfData: number;
  /** Mini-batches the test drew. */
  numBatches: number;
  /** Rows the test used. */
  numRowsUsed: number;
  /** Whether the exact MH test decides the same (null unless `checkExact`). */
  agreesWithExact: boolean | null;
}

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

/**
 * A Gaussian random-walk proposal θ' = θ + s·L z, z ~ N(0, I) (symmetric:
 * log proposal ratio 0, so μ₀ has the prior ratio only, eq. 5).
 *
 * @param options Scale s > 0 and optional lower Cholesky factor L (d×d row-major).
 * @returns The proposal.
 * @throws {RangeError} On a non-positive scale.
 * @example
 * ```ts
 * import { randomWalkProposal } from "./approx_mh.ts";
 * import { Rng } from "../random/rng.ts";
 * const d = randomWalkProposal({ scale: 0.1 })(new Rng(1), new Float64Array(2));
 * if (d.logProposalRatio !== 0 || d.position.length !== 2) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), §5.1, eq. 5.
 */
export function randomWalkProposal(
  options: { scale: number; proposalCholesky?: Float64Array },
): ProposalFn {
  const { scale, proposalCholesky: l } = options;
  if (!(scale > 0) || !Number.isFinite(scale)) {
    throw new RangeError(`scale must be positive and finite, got ${scale}`);
  }
  return (rng: Rng, position: Float64Array): ProposalDraw => ({
    position: randomWalkDraw(rng, position, { scale, proposalCholesky: l }),
    logProposalRatio: 0,
  });
}

/**
 * The SGLD (stochastic-gradient Langevin) proposal of eq. 13, with the
 * proposal ratio of eq. 14: draw a minibatch X_n without replacement, set
 * g(θ) = (N/n) Σ_{x∈X_n} ∇log p(x|θ) + ∇log ρ(θ), propose θ' ~ N(θ + (α/2)g(θ), αI),
 * and return log q(θ|θ', X_n) − log q(θ'|θ, X_n) with the same X_n at θ'
 * (each minibatch kernel is reversible on its own, so the mixture is too).
 *
 * @param model The posterior.
 * @param options Step size α > 0 and minibatch size n (1 ≤ n ≤ N).
 * @returns The proposal.
 * @throws {RangeError} On a bad α or n.
 * @example
 * ```ts
 * import { langevinProposal } from "./approx_mh.ts";
 * import { normalGammaModel } from "../models/normal_gamma.ts";
 * import { Rng } from "../random/rng.ts";
 * const model = normalGammaModel(new Float64Array([0.2, -0.1, 0.4, 0.3]));
 * const d = langevinProposal(model, { stepSize: 1e-3, batchSize: 2 })(new Rng(1), new Float64Array([0, 1]));
 * if (!Number.isFinite(d.logProposalRatio) || model.cost.numGradRows !== 4) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), §5.4, eqs. 13–14; Welling & Teh (2011).
 */
export function langevinProposal(
  model: DataModel,
  options: { stepSize: number; batchSize: number },
): ProposalFn {
  const { stepSize: alpha, batchSize: n } = options;
  const bigN = model.numRows, d = model.dim;
  if (!(alpha > 0) || !Number.isFinite(alpha)) {
    throw new RangeError(`stepSize must be positive and finite, got ${alpha}`);
  }
  if (!Number.isInteger(n) || n < 1 || n > bigN) {
    throw new RangeError(`batchSize must be an integer in [1, ${bigN}], got ${n}`);
  }
  const gLik = new Float64Array(d), gPrior = new Float64Array(d);
  const gradient = (theta: Float64Array, rows: Int32Array, out: Float64Array): void => {
    model.logLikelihoodRows(theta, rows, { grad: gLik });
    model.logPrior(theta, gPrior);
    for (let j = 0; j < d; j++) out[j] = (bigN / n) * gLik[j] + gPrior[j];
  };
  const half = 0.5 * alpha, sd = Math.sqrt(alpha);
  return (rng: Rng, position: Float64Array): ProposalDraw => {
    const rows = rng.sampleWithoutReplacement(bigN, n);
    const g = new Float64Array(d), gNew = new Float64Array(d);
    gradient(position, rows, g);
    const out = new Float64Array(d);
    for (let j = 0; j < d; j++) out[j] = position[j] + half * g[j] + sd * rng.normal();
    gradient(out, rows, gNew);
    let forward = 0, backward = 0;
    for (let j = 0; j < d; j++) {
      forward += (out[j] - position[j] - half * g[j]) ** 2;
      backward += (position[j] - out[j] - half * gNew[j]) ** 2;
    }
    return { position: out, logProposalRatio: (forward - backward) / (2 * alpha) };
  };
}

/**
 * The initial state at `position`; allocates the chain's row permutation (N int32).
 *
 * @param position θ₀ (copied).
 * @param model The posterior.
 * @returns The state.
 * @throws {RangeError} If log ρ(θ₀) is not finite or θ₀ has the wrong length.
 * @example
 * ```ts
 * import { init } from "./approx_mh.ts";
 * import { normalGammaModel } from "../models/normal_gamma.ts";
 * const s = init(new Float64Array([0, 1]), normalGammaModel(new Float64Array([0.1, 0.2])));
 * if (s.rowOrder.length !== 2) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), Algorithm 1.
 */
export function init(position: Float64Array, model: DataModel): ApproxMhState {
  if (!(position instanceof Float64Array) || position.length !== model.dim) {
    throw new RangeError(
      `position must be a Float64Array of length ${model.dim}, got ${
        Object.prototype.toString.call(position)
      } of length ${(position as { length?: number })?.length}`,
    );
  }
  const pos = Float64Array.from(position);
  const logPrior = model.logPrior(pos);
  if (!Number.isFinite(logPrior)) {
    throw new RangeError(`log prior at the initial position must be finite, got ${logPrior}`);
  }
  return { position: pos, logPrior, rowOrder: newRowOrder(model.numRows) };
}

/**
 * One approximate MH transition: propose, then run the sequential test.
 * A non-finite θ', or a NaN/+∞ prior ratio, proposal ratio or likelihood
 * difference, rejects and sets `isDivergent`; θ' outside the support (a
 * −∞ ratio) just rejects. Never throws for non-finite values.
 *
 * @param rng The chain's generator.
 * @param state The current state (its `rowOrder` is shuffled in place).
 * @param params Model, proposal, ε, m.
 * @returns The next state (the same object if rejected) and the info.
 * @example
 * ```ts
 * import { init, randomWalkProposal, step } from "./approx_mh.ts";
 * import { normalGammaModel } from "../models/normal_gamma.ts";
 * import { Rng } from "../random/rng.ts";
 * const model = normalGammaModel(Float64Array.from({ length: 200 }, (_, i) => Math.sin(i)));
 * const params = { model, proposalFn: randomWalkProposal({ scale: 0.05 }), epsilon: 0.05, batchSize: 20 };
 * let s = init(new Float64Array([0, 1]), model);
 * const rng = new Rng(3);
 * let used = 0;
 * for (let i = 0; i < 20; i++) {
 *   const r = step(rng, s, params);
 *   s = r.state;
 *   used += r.info.fractionOfData / 20;
 * }
 * if (!(used > 0 && used <= 1)) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), Algorithm 1 and eq. 2.
 */
export function step(
  rng: Rng,
  state: ApproxMhState,
  params: ApproxMhParams,
): { state: ApproxMhState; info: ApproxMhInfo } {
  const { model } = params;
  const draw = params.proposalFn(rng, state.position);
  const proposed = draw.position;
  let logPriorNew = NaN;
  if (proposed.every(Number.isFinite)) logPriorNew = model.logPrior(proposed);
  const cost = model.cost;
  const test = approxMhTest(rng, {
    numRows: model.numRows,
    differencesFn: dataModelDifferences(
      model,
      { current: state.position, proposed },
      params.support,
    ),
    logPriorRatio: logPriorNew - state.logPrior,
    logProposalRatio: draw.logProposalRatio,
    epsilon: params.epsilon,
    batchSize: params.batchSize,
    rowOrder: state.rowOrder,
    checkExact: params.checkExact,
    uncharged: <T>(work: () => T): T => {
      const ll = cost.numLogLikRows, gr = cost.numGradRows, hr = cost.numHessianRows;
      try {
        return work();
      } finally {
        cost.numLogLikRows = ll;
        cost.numGradRows = gr;
        cost.numHessianRows = hr;
      }
    },
  });
  const info: ApproxMhInfo = {
    isDivergent: test.isNonFinite || !proposed.every(Number.isFinite),
    isAccepted: test.isAccepted,
    fractionOfData: test.fractionOfData,
    numBatches: test.numBatches,
    numRowsUsed: test.numRowsUsed,
    agreesWithExact: test.agreesWithExact,
  };
  if (!test.isAccepted) return { state, info };
  return {
    state: { position: proposed, logPrior: logPriorNew, rowOrder: state.rowOrder },
    info,
  };
}

/** Options of {@link austerityRwmhDescription} and {@link austeritySgldDescription}. */
export interface ApproxMhOptions {
  /** ε ∈ [0, 1) (default 0.05; 0 is exact MH on all rows). */
  epsilon?: number;
  /** Test mini-batch size m (default min(N, 500)). */
  batchSize?: number;
  /**
   * Report agreement with the exact test (uncounted extra work): `true` for
   * every step, a number k for the first k sampling iterations only (default false).
   */
  checkExact?: boolean | number;
  /** Random walk: initial scale s (default 2.38/√d). */
  scale?: number;
  /** Random walk: proposal covariance shape Σ (d×d); proposals N(θ, s²Σ). Default I. */
  proposalCovariance?: Float64Array;
  /** Random walk: adapt s in warmup towards `targetAcceptanceRate` (default true). */
  adaptScale?: boolean;
  /**
   * Target acceptance rate of the adaptation (default 0.234 for the random
   * walk, Roberts, Gelman & Gilks 1997; 0.574 for Langevin, Roberts &
   * Rosenthal 1998).
   */
  targetAcceptanceRate?: number;
  /**
   * Langevin: step size α. Default: α₀ = h² with h from Hoffman & Gelman's
   * heuristic (Algorithm 4) on the full data at the initial position — one
   * leapfrog step of size h from a fresh momentum is a Langevin step with
   * α = h² — then √α adapted in warmup like the random walk's scale.
   * Given, α stays fixed unless `adaptStepSize` is true.
   */
  stepSize?: number;
  /**
   * Langevin: adapt √α in warmup by Robbins–Monro on the accept indicator
   * towards `targetAcceptanceRate` (default: true when `stepSize` is not
   * given, false when it is).
   */
  adaptStepSize?: boolean;
  /** Langevin: minibatch size n of the proposal's gradient (default `batchSize`). */
  gradientBatchSize?: number;
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
  if (!(epsilon >= 0 && epsilon < 1)) {
    throw new RangeError(`epsilon must be in [0, 1), got ${epsilon}`);
  }
  const batchSize = options.batchSize ?? Math.min(dataModel.numRows, 500);
  if (!Number.isInteger(batchSize) || batchSize < 2) {
    throw new RangeError(`batchSize must be an integer ≥ 2, got ${batchSize}`);
  }
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
 * import { austerityRwmhDescription } from "./approx_mh.ts";
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
    if (!(scale0 > 0) || !Number.isFinite(scale0)) {
      throw new RangeError(`scale must be positive and finite, got ${scale0}`);
    }
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
 * import { austeritySgldDescription } from "./approx_mh.ts";
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
    if (given !== undefined && (!(given > 0) || !Number.isFinite(given))) {
      throw new RangeError(`stepSize must be positive and finite, got ${given}`);
    }
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

/** Options of {@link runApproxMh}. */
export type RunApproxMhOptions =
  & ApproxMhOptions
  & { proposal?: "random-walk" | "langevin" }
  & RunOptions;

/**
 * Run approximate MH chains with the driver: `proposal: "random-walk"`
 * (default) or `"langevin"`. Per-iteration info has
 * `fractionOfData`, `numBatches`, `isAccepted`, `isDivergent` (and
 * `agreesWithExact` with `checkExact`); the chains' cost counts every row used.
 *
 * @param model A DataModel.
 * @param options Sampler options (ε, m, proposal settings) and driver options.
 * @returns The driver's result.
 * @throws {TypeError} If `model` is not a DataModel.
 * @example
 * ```ts
 * import { runApproxMh } from "./approx_mh.ts";
 * import { normalGammaModel } from "../models/normal_gamma.ts";
 * const model = normalGammaModel(Float64Array.from({ length: 400 }, (_, i) => Math.cos(i)));
 * const r = runApproxMh(model, {
 *   epsilon: 0.1, batchSize: 40, seed: 1, numWarmup: 100, numSamples: 100, numChains: 1,
 *   initialPosition: new Float64Array([0, 1]),
 * });
 * const f = r.chains[0].info.sampling.fractionOfData;
 * if (!(f.every((x) => x > 0 && x <= 1))) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), Algorithm 1.
 */
export function runApproxMh(model: Model, options: RunApproxMhOptions): SamplingResult {
  checkRunInputs("runApproxMh", model, options);
  const description = options.proposal === "langevin"
    ? austeritySgldDescription
    : austerityRwmhDescription;
  const chain = description.build(model, options) as ChainSampler<unknown, ApproxMhInfo>;
  return sampleChains({ ...options, sampler: chain, model });
}
