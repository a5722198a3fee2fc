/**
 * Leapfrog integration along a sequence of batch Hamiltonians Hⱼ = T + J·Vⱼ,
 * the integrator of every naive subsampled HMC variant.
 *
 * ```
 *  sequence  j₁ j₂ … j_L        one batch per leapfrog step of size ε
 *  step l    φ_ε^{H_{j_l}} = e^{½ε J V⃗_{j_l}} ∘ e^{ε T⃗} ∘ e^{½ε J V⃗_{j_l}}   (a Strang step of H_{j_l})
 *  runs      consecutive equal batches form one run, integrated by ONE call of the shared
 *            leapfrog (samplers/integrators.ts) with the run's length as L; the gradient of
 *            J·V_j at the run's start is evaluated first (B rows), then one per step
 * ```
 *
 * Between-trajectory subsampling is one run of L steps; within-trajectory
 * subsampling is (mostly) L runs of one step; the symmetric composition
 * j = 1 … J, J … 1 merges the two steps at each turn into one run.
 *
 * `integrationError` sums, over runs, the energy error of the run's own
 * Hamiltonian Hⱼ: the symplectic integrator's error, without the bias of
 * having switched Hamiltonians. It telescopes to ΔHⱼ for one run.
 *
 * References: Betancourt (2015), §2 (Strang splitting), §3.1 (H_j = T + J V_j)
 * and §3.2 (compositions of φ_ε^{H_j}); Neal (2011), eq. (5.18)–(5.20).
 *
 * @module
 */
import type { BatchedPotential } from "../../models/batch_potential.ts";
import { type IntegratorState, leapfrog, type LogDensityGradientFn } from "../integrators.ts";
import type { Metric } from "../metric.ts";
import { positiveInteger } from "../validate_options.ts";

/** Options of {@link integrateBatches}. */
export interface BatchIntegratorOptions {
  /** The batch potentials Vⱼ. */
  batches: BatchedPotential;
  /** The metric. */
  metric: Metric;
  /** ε > 0. */
  stepSize: number;
}

/** What {@link integrateBatches} reports. */
export interface BatchIntegratorResult {
  /** Leapfrog steps taken (< sequence length if stopped early). */
  numIntegrationSteps: number;
  /** Batch-gradient evaluations made (steps + one per run). */
  numGradientEvaluations: number;
  /** A non-finite potential or gradient stopped the trajectory. */
  isDivergent: boolean;
  /** Σ over runs of Hⱼ(end of run) − Hⱼ(start of run). */
  integrationError: number;
}

/**
 * The log density −J·Vⱼ(θ) and its gradient −J·∇Vⱼ(θ) of batch j, as the
 * shared leapfrog wants it.
 *
 * @param batches The batch potentials.
 * @param batch j.
 * @returns The function.
 *
 * @example
 * ```ts
 * import { batchLogDensityFn } from "./integrator.ts";
 * import { GaussianMeanModel, gaussianMeanData } from "../../examples/models/gaussian_mean.ts";
 * const b = new GaussianMeanModel(gaussianMeanData()).batches(100);
 * const g = new Float64Array(1);
 * batchLogDensityFn(b, 2)(new Float64Array([b.centers[2]]), g);
 * if (Math.abs(g[0]) > 1e-9) throw new Error("J·V_j is stationary at its centre");
 * ```
 *
 * References: Betancourt (2015), §3.1.
 */
export function batchLogDensityFn(batches: BatchedPotential, batch: number): LogDensityGradientFn {
  const scale = batches.numBatches;
  return (position: Float64Array, gradient: Float64Array): number => {
    const v = batches.batchPotential(position, batch, gradient);
    for (let i = 0; i < gradient.length; i++) gradient[i] *= -scale;
    return -scale * v;
  };
}

/**
 * Integrate along `sequence` (one batch index per leapfrog step), in place.
 *
 * @param state Position and momentum (updated in place); `logDensity` and
 *   `gradient` are overwritten (they end as those of the last batch used).
 * @param sequence j_l for l = 1 … L (L ≥ 1).
 * @param options The batches, metric and ε.
 * @returns Steps taken, gradient evaluations, divergence and the summed
 *   per-run energy error.
 * @throws {RangeError} On an empty sequence or a bad ε (from the leapfrog).
 *
 * @example
 * ```ts
 * import { integrateBatches } from "./integrator.ts";
 * import { identityMetric } from "../metric.ts";
 * import { GaussianMeanModel, gaussianMeanData } from "../../examples/models/gaussian_mean.ts";
 * const b = new GaussianMeanModel(gaussianMeanData()).batches(100);
 * const s = { position: new Float64Array([1]), momentum: new Float64Array([0.1]),
 *   logDensity: 0, gradient: new Float64Array(1) };
 * const r = integrateBatches(s, new Int32Array([0, 0, 1, 2]),
 *   { batches: b, metric: identityMetric(1), stepSize: 0.01 });
 * if (r.numIntegrationSteps !== 4 || r.numGradientEvaluations !== 7) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.1–3.2.
 */
export function integrateBatches(
  state: IntegratorState,
  sequence: Int32Array,
  options: BatchIntegratorOptions,
): BatchIntegratorResult {
  const { batches, metric, stepSize } = options;
  if (sequence.length === 0) {
    throw new RangeError("sequence must hold at least one batch index, got an empty one");
  }
  const scratch = new Float64Array(metric.dim);
  let steps = 0, evaluations = 0, integrationError = 0;
  for (let start = 0; start < sequence.length;) {
    const batch = sequence[start];
    let end = start + 1;
    while (end < sequence.length && sequence[end] === batch) end++;
    const fn = batchLogDensityFn(batches, batch);
    state.logDensity = fn(state.position, state.gradient);
    evaluations++;
    if (!_isFinite(state.logDensity, state.gradient)) {
      return {
        numIntegrationSteps: steps,
        numGradientEvaluations: evaluations,
        isDivergent: true,
        integrationError: Infinity,
      };
    }
    const h0 = -state.logDensity + metric.kineticEnergy(state.momentum);
    const r = leapfrog(state, {
      logDensityAndGradientFn: fn,
      metric,
      stepSize,
      numIntegrationSteps: end - start,
      scratch,
    });
    steps += r.numIntegrationSteps;
    evaluations += r.numIntegrationSteps;
    if (r.isDivergent) {
      return {
        numIntegrationSteps: steps,
        numGradientEvaluations: evaluations,
        isDivergent: true,
        integrationError: Infinity,
      };
    }
    integrationError += -r.logDensity + metric.kineticEnergy(state.momentum) - h0;
    start = end;
  }
  return {
    numIntegrationSteps: steps,
    numGradientEvaluations: evaluations,
    isDivergent: false,
    integrationError,
  };
}

/**
 * The symmetric composition's batch order: `numSweeps` × (0, 1, …, J−1,
 * J−1, …, 1, 0), each batch used twice per sweep, forward then reverse.
 *
 * @param numBatches J ≥ 1.
 * @param numSweeps Number of sweeps ≥ 1.
 * @returns The sequence (length 2·J·numSweeps).
 *
 * @example
 * ```ts
 * import { symmetricSequence } from "./integrator.ts";
 * if (symmetricSequence(3, 1).join(",") !== "0,1,2,2,1,0") throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.2 (the symmetric composition).
 */
export function symmetricSequence(numBatches: number, numSweeps: number): Int32Array {
  positiveInteger("numBatches", numBatches);
  positiveInteger("numSweeps", numSweeps);
  const out = new Int32Array(2 * numBatches * numSweeps);
  for (let s = 0; s < numSweeps; s++) {
    const o = 2 * numBatches * s;
    for (let j = 0; j < numBatches; j++) {
      out[o + j] = j;
      out[o + 2 * numBatches - 1 - j] = j;
    }
  }
  return out;
}

function _isFinite(logDensity: number, gradient: Float64Array): boolean {
  let s = 0;
  for (let i = 0; i < gradient.length; i++) s += gradient[i];
  return Number.isFinite(logDensity) && Number.isFinite(s);
}
