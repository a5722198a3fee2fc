/**
 * Naive subsampled HMC as samplers of the common shape: a
 * {@link ChainSampler} builder and six registry {@link SamplerDescription}s.
 *
 * | name                  | trajectory                          | full-data correction | exact |
 * | --------------------- | ----------------------------------- | -------------------- | ----- |
 * | `naive-between`       | one batch j per trajectory, J·V_j   | no                   | no    |
 * | `naive-within`        | a fresh batch every leapfrog step   | no                   | no    |
 * | `naive-symmetric`     | all batches, forward then reverse   | no                   | no    |
 * | `naive-between-mh`    | as `naive-between`                  | yes                  | yes   |
 * | `naive-within-mh`     | as `naive-within`                   | yes                  | yes   |
 * | `naive-symmetric-mh`  | as `naive-symmetric`                | yes                  | yes   |
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
import { diagonalMetric, identityMetric } from "../metric.ts";
import type { ChainSampler, SamplerDescription } from "../sampler.ts";
import * as between from "./between.ts";
import * as symmetric from "./symmetric.ts";
import type { NaiveInfo, NaiveParams, NaiveState } from "./transition.ts";
import { init } from "./transition.ts";
import * as within from "./within.ts";

/** The three trajectories. */
export type NaiveVariant = "between" | "within" | "symmetric";

/** Options of the naive samplers. */
export interface NaiveOptions {
  /** Rows per batch B (must divide N). */
  batchSize: number;
  /** ε > 0 (fixed: these samplers do not adapt). */
  stepSize: number;
  /** L; give this or `trajectoryLength`. */
  numIntegrationSteps?: number;
  /** τ; default 2π with `isTrajectoryLengthRandom` true (the paper's τ ~ U(0, 2π)). */
  trajectoryLength?: number;
  /** τ ~ U(0, trajectoryLength) per trajectory (default true when `trajectoryLength` is defaulted). */
  isTrajectoryLengthRandom?: boolean;
  /** Batches subsamples are drawn from (default all). */
  candidateBatches?: Int32Array | readonly number[];
  /** M⁻¹ diagonal (default identity). */
  inverseMassDiagonal?: Float64Array;
  /** Integration-error threshold for divergence (default 1000). */
  divergenceThreshold?: number;
}

const _STEPS = { between: between.step, within: within.step, symmetric: symmetric.step };

/**
 * Build the per-run chain sampler of a naive variant.
 *
 * @param model A {@link DataModel}; if it has `batches(B)` (e.g.
 *   {@link import("../../models/gaussian_mean.ts").GaussianMeanModel}) its
 *   closed-form batches are used, else {@link contiguousBatches}.
 * @param options The variant, the correction and {@link NaiveOptions}.
 * @returns The chain sampler (state: position and full-data log π).
 * @throws {TypeError} If the model is not a DataModel or options are missing.
 * @throws {RangeError} On bad option values.
 *
 * @example
 * ```ts
 * import { naiveChainSampler } from "./descriptions.ts";
 * import { GaussianMeanModel, gaussianMeanData } from "../../models/gaussian_mean.ts";
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
): ChainSampler<NaiveState, NaiveInfo> {
  const dataModel = _asDataModel(model);
  const { variant, isCorrected } = options;
  const stepFn = _STEPS[variant];
  if (stepFn === undefined) {
    throw new TypeError(
      `variant must be "between", "within" or "symmetric", got ${JSON.stringify(variant)}`,
    );
  }
  if (!(options.stepSize > 0) || !Number.isFinite(options.stepSize)) {
    throw new RangeError(`stepSize must be positive and finite, got ${options.stepSize}`);
  }
  const batches = _batches(dataModel, options.batchSize);
  const candidateBatches = options.candidateBatches === undefined
    ? undefined
    : Int32Array.from(options.candidateBatches);
  const metric = options.inverseMassDiagonal
    ? diagonalMetric(options.inverseMassDiagonal)
    : identityMetric(model.dim);
  const isDefaultTime = options.numIntegrationSteps === undefined &&
    options.trajectoryLength === undefined;
  const fullLogDensityFn = isCorrected
    ? (x: Float64Array) => model.logDensity(x)
    : (x: Float64Array) => _uncounted(model, () => model.logDensity(x));
  const params: NaiveParams = {
    batches,
    fullLogDensityFn,
    metric,
    stepSize: options.stepSize,
    numIntegrationSteps: options.numIntegrationSteps,
    trajectoryLength: isDefaultTime ? 2 * Math.PI : options.trajectoryLength,
    isTrajectoryLengthRandom: options.isTrajectoryLengthRandom ?? isDefaultTime,
    isCorrected,
    candidateBatches,
    divergenceThreshold: options.divergenceThreshold,
  };
  return {
    init: (position) => init(position, fullLogDensityFn),
    step: (rng, state) => stepFn(rng, state, params),
    position: (state) => state.position,
    tuning: () => ({
      variant,
      isCorrected,
      stepSize: options.stepSize,
      batchSize: batches.batchSize,
      numBatches: batches.numBatches,
    }),
  };
}

function _description(
  variant: NaiveVariant,
  isCorrected: boolean,
  summary: string,
  references: string,
): SamplerDescription<NaiveOptions> {
  return {
    name: `naive-${variant}${isCorrected ? "-mh" : ""}`,
    summary: `${summary}${
      isCorrected
        ? ", full-data Metropolis correction"
        : " — biased; a diagnostic, not for inference"
    }`,
    references,
    requires: "data-model",
    isExact: isCorrected,
    // Both are required: the paper's experiments fix them by hand (§3.1).
    options: [
      {
        name: "stepSize",
        flag: "step-size",
        type: "number",
        default: "required",
        help: "leapfrog step size ε",
      },
      {
        name: "batchSize",
        flag: "batch-size",
        type: "integer",
        default: "required",
        help: "rows per batch (the data split into n/m contiguous batches)",
      },
    ],
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
);
/** `naive-within`: a fresh batch every leapfrog step, no correction (naive SGHMC; biased; §3.2). */
export const naiveWithin: SamplerDescription<NaiveOptions> = _description(
  "within",
  false,
  "Naive subsampled HMC, a fresh batch every leapfrog step",
  `${_REF}, §3.2, Figs. 3, 5; Chen et al. (2014), §3.1`,
);
/** `naive-symmetric`: the symmetric composition (a split-HMC integrator), no correction. */
export const naiveSymmetric: SamplerDescription<NaiveOptions> = _description(
  "symmetric",
  false,
  "Symmetric composition over all batches (split-HMC integrator)",
  `${_REF}, §3.2, Fig. 4; Shahbaba et al. (2014)`,
);
/** `naive-between-mh`: as `naive-between` with the full-data Metropolis correction (exact). */
export const naiveBetweenMh: SamplerDescription<NaiveOptions> = _description(
  "between",
  true,
  "Naive subsampled HMC, one batch per trajectory",
  `${_REF}, §3.1, Fig. 3`,
);
/** `naive-within-mh`: as `naive-within` with the full-data Metropolis correction (exact). */
export const naiveWithinMh: SamplerDescription<NaiveOptions> = _description(
  "within",
  true,
  "Naive subsampled HMC, a fresh batch every leapfrog step",
  `${_REF}, §3.2, Fig. 3`,
);
/** `naive-symmetric-mh`: the symmetric composition with the full-data correction (exact). */
export const naiveSymmetricMh: SamplerDescription<NaiveOptions> = _description(
  "symmetric",
  true,
  "Symmetric composition over all batches (split-HMC integrator)",
  `${_REF}, §3.2, Fig. 4`,
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

function _batches(model: DataModel, batchSize: number): BatchedPotential {
  if (batchSize === undefined) throw new TypeError("batchSize is required, got undefined");
  const own = (model as { batches?: (b: number) => BatchedPotential }).batches;
  return typeof own === "function"
    ? own.call(model, batchSize)
    : contiguousBatches(model, batchSize);
}

/** Evaluate `fn` without leaving a trace on the model's cost counters (diagnostics only). */
function _uncounted<T>(model: Model, fn: () => T): T {
  const { numLogLikRows, numGradRows } = model.cost;
  try {
    return fn();
  } finally {
    model.cost.numLogLikRows = numLogLikRows;
    model.cost.numGradRows = numGradRows;
  }
}
