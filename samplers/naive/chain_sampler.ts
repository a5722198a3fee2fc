/**
 * Naive subsampled HMC as samplers of the common shape: a
 * {@link ChainSampler} builder and six registry {@link SamplerDescription}s.
 *
 * | name                  | trajectory                          | full-data correction | exact |
 * | --------------------- | ----------------------------------- | -------------------- | ----- |
 * | `naive-between`       | one batch j per trajectory, J·V_j   | no                   | no    |
 * | `naive-within`        | a fresh batch every leapfrog step   | no                   | no    |
 * | `naive-symmetric`     | all batches, forward then reverse   | no                   | no    |
 * | `naive-between-mh`    | as `naive-between`                  | yes                  | yes*  |
 * | `naive-within-mh`     | as `naive-within`                   | yes                  | yes   |
 * | `naive-symmetric-mh`  | as `naive-symmetric`                | yes                  | yes   |
 *
 * (*) exact, but marked `isDiagnostic` like the uncorrected three: it cannot
 * move at any useful acceptance (see {@link naiveBetweenMh}).
 *
 * Defaults (no `stepSize` given): ε from Hoffman & Gelman's heuristic on the
 * full-data Hamiltonian, then dual averaging in warmup on the full-data
 * acceptance min(1, exp(−ΔH)) (the acceptance the `-mh` variants apply; the
 * accuracy surrogate of the others), L = 2J fixed, B with J = 25 batches.
 * With `stepSize` given nothing adapts and τ ~ U(0, 2π), as in the paper.
 *
 * These are DIAGNOSTICS that reproduce Betancourt (2015), not inference
 * methods. Do not use the uncorrected ones for inference: the subsampled
 * trajectory follows the wrong Hamiltonian and the bias does not shrink with
 * the step size — only with the redundancy of the data — and it grows with
 * the dimension. The corrected ones are exact but pay a full-data pass per
 * trajectory (no saving over HMC) and their acceptance collapses with the
 * dimension. For tall data use `hmc` or `hmc-ecs`. Every step's info reports
 * the full-data acceptance probability `fullDataAcceptanceRate` (the paper's
 * accuracy surrogate); without the correction that evaluation is a
 * diagnostic and is not added to the model's cost counters.
 *
 * References: Betancourt (2015), §3.1–3.2, Figs. 2–5.
 *
 * @module
 */
import { type BatchedPotential, contiguousBatches } from "../../models/batch_potential.ts";
import type { DataModel, Model } from "../../models/model.ts";
import * as dualAveraging from "../dual_averaging.ts";
import { diagonalMetric, identityMetric } from "../metric.ts";
import type { ChainSampler, SamplerDescription } from "../sampler.ts";
import * as between from "./between.ts";
import * as symmetric from "./symmetric.ts";
import type { NaiveInfo, NaiveParams, NaiveState } from "./kernel.ts";
import { init } from "./kernel.ts";
import * as within from "./within.ts";
import type { NaiveOptions, NaiveVariant } from "./options.ts";
import { positiveFinite } from "../validate_options.ts";

/** Per-chain state of the naive {@link ChainSampler}s. Treat as immutable. */
export interface NaiveChainState {
  /** Kernel state: θ and the full-data log π(θ). */
  readonly kernel: NaiveState;
  /** ε used by the next step. */
  readonly stepSize: number;
  /** Dual-averaging state (null when ε is fixed or after warmup). */
  readonly dualAveraging: dualAveraging.DualAveragingState | null;
}

const _STEPS = { between: between.step, within: within.step, symmetric: symmetric.step };

/**
 * Build the per-run chain sampler of a naive variant.
 *
 * @param model A {@link DataModel}; if it has `batches(B)` (e.g.
 *   {@link import("../../examples/models/gaussian_mean.ts").GaussianMeanModel}) its
 *   closed-form batches are used, else {@link contiguousBatches}.
 * @param options The variant, the correction and {@link NaiveOptions}.
 * @returns The chain sampler (state: the kernel's position and full-data log π, ε and
 *   the dual-averaging state).
 * @throws {TypeError} If the model is not a DataModel or options are missing.
 * @throws {RangeError} On bad option values.
 *
 * @example
 * ```ts
 * import { naiveChainSampler } from "./chain_sampler.ts";
 * import { GaussianMeanModel, gaussianMeanData } from "../../examples/models/gaussian_mean.ts";
 * import { Rng } from "../../random/rng.ts";
 * const model = new GaussianMeanModel(gaussianMeanData());
 * const cs = naiveChainSampler(model, { variant: "between", isCorrected: false,
 *   batchSize: 20, stepSize: 0.01 });
 * const rng = new Rng(1);
 * const s = cs.step(rng, cs.init(model.posteriorMean, rng), "sampling", 0);
 * // Uncorrected: the diagnostic full-data evaluations are not counted as cost.
 * if (!(s.info.fullDataAcceptanceRate >= 0) || model.cost.numLogLikRows % 20 !== 0) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.
 */
export function naiveChainSampler(
  model: Model,
  options: NaiveOptions & { variant: NaiveVariant; isCorrected: boolean },
): ChainSampler<NaiveChainState, NaiveInfo> {
  const dataModel = _asDataModel(model);
  const { variant, isCorrected } = options;
  const stepFn = _STEPS[variant];
  if (stepFn === undefined) {
    throw new TypeError(
      `variant must be "between", "within" or "symmetric", got ${JSON.stringify(variant)}`,
    );
  }
  const given = options.stepSize;
  if (given !== undefined) positiveFinite("stepSize", given);
  const adaptStepSize = options.adaptStepSize ?? given === undefined;
  if (options.targetAcceptanceRate !== undefined) dualAveraging.init(1, options);
  const batches = _batches(dataModel, options.batchSize ?? defaultBatchSize(dataModel.numRows));
  const candidateBatches = options.candidateBatches === undefined
    ? undefined
    : Int32Array.from(options.candidateBatches);
  const metric = options.inverseMassDiagonal
    ? diagonalMetric(options.inverseMassDiagonal)
    : identityMetric(model.dim);
  const isDefaultTime = options.numIntegrationSteps === undefined &&
    options.trajectoryLength === undefined;
  // With ε adapted, L is fixed by default (see NaiveOptions.numIntegrationSteps).
  const defaultSteps = isDefaultTime && adaptStepSize ? 2 * batches.numBatches : undefined;
  const fullLogDensityFn = isCorrected
    ? (x: Float64Array) => model.logDensity(x)
    : (x: Float64Array) => _uncounted(model, () => model.logDensity(x));
  const params: NaiveParams = {
    batches,
    fullLogDensityFn,
    metric,
    stepSize: NaN, // the chain's ε, set per step
    numIntegrationSteps: options.numIntegrationSteps ?? defaultSteps,
    trajectoryLength: isDefaultTime && defaultSteps === undefined
      ? 2 * Math.PI
      : options.trajectoryLength,
    isTrajectoryLengthRandom: options.isTrajectoryLengthRandom ??
      (isDefaultTime && defaultSteps === undefined),
    isCorrected,
    candidateBatches,
    divergenceThreshold: options.divergenceThreshold,
  };
  // Finding ε uses full-data gradients: real tuning work, counted (as warmup) for every variant.
  const fullFn = (x: Float64Array, g: Float64Array) => model.logDensityAndGradient(x, g);
  return {
    init(position, rng) {
      const kernel = init(position, fullLogDensityFn);
      let stepSize = given;
      if (stepSize === undefined) {
        const gradient = new Float64Array(model.dim);
        const logDensity = fullFn(kernel.position, gradient);
        stepSize = dualAveraging.findReasonableStepSize(
          { position: kernel.position, logDensity, gradient },
          rng,
          { logDensityAndGradientFn: fullFn, metric },
        );
      }
      return {
        kernel,
        stepSize,
        dualAveraging: adaptStepSize ? dualAveraging.init(stepSize, options) : null,
      };
    },
    step(rng, state) {
      const r = stepFn(rng, state.kernel, { ...params, stepSize: state.stepSize });
      return {
        state: r.state === state.kernel ? state : { ...state, kernel: r.state },
        info: r.info,
      };
    },
    position: (state) => state.kernel.position,
    adapt: {
      update(state, context) {
        if (state.dualAveraging === null) return state;
        const da = dualAveraging.update(state.dualAveraging, context.info.fullDataAcceptanceRate);
        return { ...state, dualAveraging: da, stepSize: da.stepSize };
      },
      finish(state) {
        if (state.dualAveraging === null) return state;
        return {
          ...state,
          stepSize: dualAveraging.final(state.dualAveraging),
          dualAveraging: null,
        };
      },
    },
    tuning: (state) => ({
      variant,
      isCorrected,
      stepSize: state.stepSize,
      batchSize: batches.batchSize,
      numBatches: batches.numBatches,
    }),
  };
}

const _OPTIONS: SamplerDescription["options"] = [
  {
    name: "batchSize",
    flag: "batch-size",
    type: "integer",
    default: "smallest divisor of N ≥ ⌈N/25⌉ (J = 25 batches, Betancourt 2015 §4)",
    help: "rows per batch B (must divide N)",
  },
  {
    name: "stepSize",
    flag: "step-size",
    type: "number",
    default: "Hoffman & Gelman's heuristic on the full data, then dual averaging on the " +
      "full-data acceptance in warmup (given: fixed)",
    help: "initial step size ε",
  },
  {
    name: "numIntegrationSteps",
    flag: "num-integration-steps",
    type: "integer",
    default: "2J when ε is adapted; else τ ~ U(0, 2π)",
    help: "leapfrog steps L per trajectory",
  },
  {
    name: "targetAcceptanceRate",
    flag: "target-acceptance",
    type: "number",
    default: "0.8",
    help: "dual-averaging target for the full-data acceptance",
  },
];

function _description(
  variant: NaiveVariant,
  isCorrected: boolean,
  summary: string,
  references: string,
  isDiagnostic: boolean,
): SamplerDescription<NaiveOptions> {
  return {
    ...(isDiagnostic ? { isDiagnostic: true as const } : {}),
    options: _OPTIONS,
    name: `naive-${variant}${isCorrected ? "-mh" : ""}`,
    summary: `${summary}${
      isCorrected
        ? ", full-data Metropolis correction"
        : " — biased; a diagnostic, not for inference"
    }`,
    references,
    requires: "data-model",
    isExact: isCorrected,
    build: (model, options) =>
      naiveChainSampler(model, { ...options, variant, isCorrected }) as ChainSampler<
        unknown,
        NaiveInfo
      >,
  };
}

const _REF = "Betancourt (2015), naive subsampling HMC";

/** `naive-between`: one batch per trajectory, no correction (biased; §3.1). */
export const naiveBetween: SamplerDescription<NaiveOptions> = _description(
  "between",
  false,
  "Naive subsampled HMC, one batch per trajectory",
  `${_REF}, §3.1, eq. (1), Figs. 2–3`,
  true,
);
/** `naive-within`: a fresh batch every leapfrog step, no correction (naive SGHMC; biased; §3.2). */
export const naiveWithin: SamplerDescription<NaiveOptions> = _description(
  "within",
  false,
  "Naive subsampled HMC, a fresh batch every leapfrog step",
  `${_REF}, §3.2, Figs. 3, 5; Chen et al. (2014), §3.1`,
  true,
);
/** `naive-symmetric`: the symmetric composition (a split-HMC integrator), no correction. */
export const naiveSymmetric: SamplerDescription<NaiveOptions> = _description(
  "symmetric",
  false,
  "Symmetric composition over all batches (split-HMC integrator)",
  `${_REF}, §3.2, Fig. 4; Shahbaba et al. (2014)`,
  true,
);
/**
 * `naive-between-mh`: as `naive-between` with the full-data Metropolis
 * correction. Exact, but also a diagnostic (`isDiagnostic`): the between
 * trajectory's full-data energy error grows with τ·‖J∇V_j − ∇V‖, so keeping
 * any acceptance means trajectories too short to move. On the conformance
 * regression (N = 200, J = 25, posterior sds 0.07–0.2) the adapted chain
 * reaches 0.8 acceptance at τ = 2Jε ≈ 0.005 and an ESS below 20 from
 * 24 000 draws (Betancourt 2015, Fig. 3: the acceptance collapse).
 */
export const naiveBetweenMh: SamplerDescription<NaiveOptions> = _description(
  "between",
  true,
  "Naive subsampled HMC, one batch per trajectory",
  `${_REF}, §3.1, Fig. 3`,
  true,
);
/** `naive-within-mh`: as `naive-within` with the full-data Metropolis correction (exact). */
export const naiveWithinMh: SamplerDescription<NaiveOptions> = _description(
  "within",
  true,
  "Naive subsampled HMC, a fresh batch every leapfrog step",
  `${_REF}, §3.2, Fig. 3`,
  false,
);
/** `naive-symmetric-mh`: the symmetric composition with the full-data correction (exact). */
export const naiveSymmetricMh: SamplerDescription<NaiveOptions> = _description(
  "symmetric",
  true,
  "Symmetric composition over all batches (split-HMC integrator)",
  `${_REF}, §3.2, Fig. 4`,
  false,
);

/** Every naive description, for the sampler registry to register. */
export const NAIVE_SAMPLERS: readonly SamplerDescription<NaiveOptions>[] = [
  naiveBetween,
  naiveWithin,
  naiveSymmetric,
  naiveBetweenMh,
  naiveWithinMh,
  naiveSymmetricMh,
];

function _asDataModel(model: Model): DataModel {
  const m = model as Partial<DataModel>;
  if (
    typeof m.numRows !== "number" || typeof m.logPrior !== "function" ||
    typeof m.logLikelihoodRows !== "function"
  ) {
    throw new TypeError(
      "naive subsampled HMC needs a DataModel (numRows, logPrior, logLikelihoodRows), got a model without them",
    );
  }
  return model as DataModel;
}

/**
 * The default batch size for N rows: the smallest divisor of N that is at
 * least ⌈N/25⌉, so J = N/B = 25 batches when 25 divides N (Betancourt 2015,
 * §4) and otherwise the nearest split into fewer batches (B = N, one batch,
 * for a prime N).
 *
 * @param numRows N ≥ 1.
 * @returns B.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultBatchSize } from "./chain_sampler.ts";
 * assert.equal(defaultBatchSize(500), 20);
 * assert.equal(defaultBatchSize(200), 8);
 * assert.equal(defaultBatchSize(101), 101);
 * ```
 *
 * References: Betancourt (2015), §4 (J = 25 batches).
 */
export function defaultBatchSize(numRows: number): number {
  for (let b = Math.max(1, Math.ceil(numRows / 25)); b < numRows; b++) {
    if (numRows % b === 0) return b;
  }
  return numRows;
}

function _batches(model: DataModel, batchSize: number): BatchedPotential {
  const own = (model as { batches?: (b: number) => BatchedPotential }).batches;
  return typeof own === "function"
    ? own.call(model, batchSize)
    : contiguousBatches(model, batchSize);
}

/** Evaluate `fn` without leaving a trace on the model's cost counters (diagnostics only). */
function _uncounted<T>(model: Model, fn: () => T): T {
  const { numLogLikRows, numGradRows, numHessianRows } = model.cost;
  try {
    return fn();
  } finally {
    model.cost.numLogLikRows = numLogLikRows;
    model.cost.numGradRows = numGradRows;
    model.cost.numHessianRows = numHessianRows;
  }
}
