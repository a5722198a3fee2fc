/**
 * The transition every naive subsampled HMC variant shares: draw a momentum,
 * pick an integration time, integrate along a batch sequence, and measure the
 * end point against the FULL-data Hamiltonian H = T + V.
 *
 * ```
 *  p ~ N(0, M);  τ = trajectoryLength or τ ~ U(0, trajectoryLength);  L = max(1, round(τ/ε))
 *  sequence j₁ … j_L  (the variant decides: one j, fresh j per step, or the symmetric sweep)
 *  (θ', p') = integrate;  ΔH = H(θ', p') − H(θ, p)  on the full data
 *  a = min(1, exp(−ΔH))   the full-data acceptance probability: always reported (the
 *                         paper's accuracy surrogate); applied only if isCorrected
 * ```
 *
 * Without the correction the end point is always taken (unless divergent), so
 * the chain targets a biased distribution — which is what these variants are
 * for: showing the bias. The full-data log density at the end point is then a
 * diagnostic, evaluated through `fullLogDensityFn` (the ChainSampler builders
 * pass one that does not touch the cost counters in that case).
 *
 * Randomness is consumed in a fixed order: d normals (momentum), one uniform
 * if τ is random, the variant's batch draws, one uniform (the accept test,
 * drawn even when not used).
 *
 * References: Betancourt (2015), §2 (Metropolis correction a(p, q)), §3.1
 * ("trajectories … using a random integration time τ ~ U(0, 2π), and no
 * Metropolis correction"; the average full-data acceptance as the accuracy
 * surrogate).
 *
 * @module
 */
import type { BatchedPotential } from "../../models/batch_potential.ts";
import type { Rng } from "../../random/rng.ts";
import type { Metric } from "../metric.ts";
import type { StepInfo } from "../sampler.ts";
import { integrateBatches } from "./integrator.ts";
import { positive, positiveFinite, positiveInteger } from "../validate_options.ts";

/** What the next naive step needs. Treat as immutable. */
export interface NaiveState {
  /** θ. */
  readonly position: Float64Array;
  /** The FULL-data log π(θ) (for the correction and the diagnostic). */
  readonly logDensity: number;
}

/** Diagnostics of one naive step. */
export interface NaiveInfo extends StepInfo {
  /** The acceptance probability applied: the full-data one if corrected, else 1 (0 if divergent). */
  acceptanceRate: number;
  /** min(1, exp(−ΔH)) on the full data, applied or not (the paper's accuracy surrogate). */
  fullDataAcceptanceRate: number;
  /** Whether the chain moved to the end point. */
  isAccepted: boolean;
  /** A non-finite value on the trajectory, or `integrationError` above the threshold. */
  isDivergent: boolean;
  /** Full-data ΔH = H(end) − H(start) (Infinity if the trajectory diverged). */
  energyError: number;
  /** Σ over runs of the energy error of the batch Hamiltonian integrated (integrator error only). */
  integrationError: number;
  /** Leapfrog steps taken. */
  numIntegrationSteps: number;
  /** Batch-gradient evaluations (each costs B rows). */
  numGradientEvaluations: number;
  /** ε. */
  stepSize: number;
  /** τ = L·ε actually integrated. */
  integrationTime: number;
  /** The first batch of the sequence (the only one for between-trajectory subsampling). */
  firstBatch: number;
}

/** Parameters shared by the naive kernels. Give `numIntegrationSteps` or `trajectoryLength`. */
export interface NaiveParams {
  /** The batch potentials Vⱼ. */
  batches: BatchedPotential;
  /** The FULL-data log π(θ) (used at the end point for the correction / diagnostic). */
  fullLogDensityFn: (position: Float64Array) => number;
  /** The metric. */
  metric: Metric;
  /** ε > 0. */
  stepSize: number;
  /** L ≥ 1. */
  numIntegrationSteps?: number;
  /** τ (fixed), or the upper end of U(0, τ) if `isTrajectoryLengthRandom`. */
  trajectoryLength?: number;
  /** Draw τ ~ U(0, trajectoryLength) every step (the paper: U(0, 2π)). Default false. */
  isTrajectoryLengthRandom?: boolean;
  /** Apply the full-data Metropolis correction (then the chain is exact). Default false. */
  isCorrected?: boolean;
  /** The batches subsamples are drawn from (default all J; the paper's Fig. 3: the first five). */
  candidateBatches?: Int32Array;
  /** `integrationError` above this marks the step divergent (default 1000). */
  divergenceThreshold?: number;
}

/**
 * Initial state at `position`: one full-data evaluation of log π.
 *
 * @param position θ₀ (copied).
 * @param fullLogDensityFn The full-data log π.
 * @returns The state.
 * @throws {RangeError} If log π(θ₀) is not finite.
 *
 * @example
 * ```ts
 * import { init } from "./kernel.ts";
 * const s = init(new Float64Array([1]), (x) => -0.5 * x[0] ** 2);
 * if (s.logDensity !== -0.5) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §2.
 */
export function init(
  position: Float64Array,
  fullLogDensityFn: (position: Float64Array) => number,
): NaiveState {
  if (!(position instanceof Float64Array)) {
    throw new TypeError(
      `position must be a Float64Array, got ${Object.prototype.toString.call(position)}`,
    );
  }
  const pos = Float64Array.from(position);
  const logDensity = fullLogDensityFn(pos);
  if (!Number.isFinite(logDensity)) {
    throw new RangeError(`log density at the initial position must be finite, got ${logDensity}`);
  }
  return { position: pos, logDensity };
}

/** Which batch sequence a variant integrates. */
export type BatchSequenceFn = (rng: Rng, numSteps: number, params: NaiveParams) => Int32Array;

/**
 * One naive transition along the batch sequence `sequenceFn` draws.
 *
 * @param rng The generator.
 * @param state The current state (not modified).
 * @param params The kernel parameters and the variant's sequence function.
 * @returns The next state (the same object if not moved) and the info.
 * @throws {RangeError} On bad parameters.
 *
 * @example
 * ```ts
 * import { init, transition } from "./kernel.ts";
 * import { identityMetric } from "../metric.ts";
 * import { Rng } from "../../random/rng.ts";
 * import { GaussianMeanModel, gaussianMeanData } from "../../examples/models/gaussian_mean.ts";
 * const model = new GaussianMeanModel(gaussianMeanData());
 * const fullLogDensityFn = (x: Float64Array) => model.logDensity(x);
 * const params = { batches: model.batches(500), fullLogDensityFn, metric: identityMetric(1),
 *   stepSize: 0.02, numIntegrationSteps: 10, sequenceFn: (_r: Rng, n: number) => new Int32Array(n) };
 * const r = transition(new Rng(1), init(model.posteriorMean, fullLogDensityFn), params);
 * // One batch holding all the data is full-data HMC: tiny energy error.
 * if (r.info.fullDataAcceptanceRate < 0.9) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §2, §3.
 */
export function transition(
  rng: Rng,
  state: NaiveState,
  params: NaiveParams & { sequenceFn: BatchSequenceFn },
): { state: NaiveState; info: NaiveInfo } {
  const { metric, stepSize, batches } = params;
  const d = metric.dim;
  if (state.position.length !== d || batches.dim !== d) {
    throw new RangeError(
      `position and batches must have the metric's dimension ${d}, got ${state.position.length} and ${batches.dim}`,
    );
  }
  positiveFinite("stepSize", stepSize);
  const threshold = params.divergenceThreshold ?? 1000;
  positive("divergenceThreshold", threshold);
  const momentum = metric.sampleMomentum(rng, new Float64Array(d));
  const energy0 = -state.logDensity + metric.kineticEnergy(momentum);
  const numSteps = _numSteps(rng, params);
  const sequence = params.sequenceFn(rng, numSteps, params);
  const point = {
    position: Float64Array.from(state.position),
    momentum,
    logDensity: NaN,
    gradient: new Float64Array(d),
  };
  const r = integrateBatches(point, sequence, { batches, metric, stepSize });
  const logDensity1 = r.isDivergent ? NaN : params.fullLogDensityFn(point.position);
  const energyError = Number.isFinite(logDensity1)
    ? -logDensity1 + metric.kineticEnergy(momentum) - energy0
    : Infinity;
  const fullDataAcceptanceRate = Number.isFinite(energyError)
    ? Math.min(1, Math.exp(-energyError))
    : 0;
  const isDivergent = r.isDivergent || !Number.isFinite(logDensity1) ||
    !(r.integrationError <= threshold);
  const acceptanceRate = isDivergent ? 0 : params.isCorrected ? fullDataAcceptanceRate : 1;
  const u = rng.uniform();
  const isAccepted = !isDivergent && u < acceptanceRate;
  const info: NaiveInfo = {
    acceptanceRate,
    fullDataAcceptanceRate,
    isAccepted,
    isDivergent,
    energyError,
    integrationError: r.integrationError,
    numIntegrationSteps: r.numIntegrationSteps,
    numGradientEvaluations: r.numGradientEvaluations,
    stepSize,
    integrationTime: sequence.length * stepSize,
    firstBatch: sequence[0],
  };
  if (!isAccepted) return { state, info };
  return { state: { position: point.position, logDensity: logDensity1 }, info };
}

/** Draw j uniformly from the candidate batches (all J by default). */
export function drawBatch(rng: Rng, params: NaiveParams): number {
  const c = params.candidateBatches;
  return c === undefined ? rng.int(params.batches.numBatches) : c[rng.int(c.length)];
}

/**
 * Check the candidate batches: non-empty, integers in [0, J).
 *
 * @param candidateBatches The candidates (undefined: all).
 * @param numBatches J.
 */
export function checkCandidateBatches(
  candidateBatches: Int32Array | undefined,
  numBatches: number,
): void {
  if (candidateBatches === undefined) return;
  if (!(candidateBatches instanceof Int32Array) || candidateBatches.length === 0) {
    throw new TypeError(`candidateBatches must be a non-empty Int32Array, got ${candidateBatches}`);
  }
  for (const j of candidateBatches) {
    if (j < 0 || j >= numBatches) {
      throw new RangeError(`candidateBatches must be in [0, ${numBatches}), got ${j}`);
    }
  }
}

function _numSteps(rng: Rng, params: NaiveParams): number {
  const { numIntegrationSteps: n, trajectoryLength: t, stepSize } = params;
  if (n !== undefined && t !== undefined) {
    throw new TypeError(
      `give numIntegrationSteps or trajectoryLength, not both (got ${n} and ${t})`,
    );
  }
  if (n !== undefined) {
    positiveInteger("numIntegrationSteps", n);
    if (params.isTrajectoryLengthRandom) {
      throw new TypeError(
        "isTrajectoryLengthRandom needs trajectoryLength, got numIntegrationSteps",
      );
    }
    return n;
  }
  if (t === undefined) {
    throw new TypeError("give numIntegrationSteps or trajectoryLength, got neither");
  }
  positiveFinite("trajectoryLength", t);
  const tau = params.isTrajectoryLengthRandom ? t * rng.uniform() : t;
  return Math.max(1, Math.round(tau / stepSize));
}
