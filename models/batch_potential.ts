/**
 * The potential energy of a Bayesian model split into J batch terms, the
 * decomposition naive subsampled HMC works with.
 *
 * ```
 *  V(θ) = −log p(θ) − Σᵢ ℓᵢ(θ) = Σⱼ₌₁ᴶ Vⱼ(θ),
 *  Vⱼ(θ) = −(1/J) log p(θ) − Σ_{i ∈ batch j} ℓᵢ(θ)      (the prior split evenly)
 *  batch j = rows (j−1)B … jB − 1  (contiguous, J = N/B)
 * ```
 *
 * A subsampled trajectory follows J·Vⱼ (one batch standing in for all J).
 * Every call counts B per-row log-likelihood and gradient evaluations on the
 * model's cost counter.
 *
 * References: Betancourt (2015), "The fundamental incompatibility of scalable
 * Hamiltonian Monte Carlo and naive data subsampling", §3 (the decomposition
 * of V into Vⱼ).
 *
 * @module
 */
import { assertPosition, type DataModel } from "./model.ts";

/** A potential split into J batch terms Vⱼ (see the module docs). */
export interface BatchedPotential {
  /** Dimension d of θ. */
  readonly dim: number;
  /** Number of batches J. */
  readonly numBatches: number;
  /** Rows per batch B. */
  readonly batchSize: number;
  /**
   * Vⱼ(θ) = −(1/J) log p(θ) − Σ_{i ∈ batch j} ℓᵢ(θ); writes ∇Vⱼ(θ) into `grad`
   * when given (overwriting it).
   *
   * @param theta θ (length d).
   * @param batch j ∈ {0, …, J − 1}.
   * @param grad Output ∇Vⱼ(θ) (length d), optional.
   * @returns Vⱼ(θ).
   */
  batchPotential(theta: Float64Array, batch: number, grad?: Float64Array): number;
}

/**
 * Split any {@link DataModel} with N = J·B rows into J contiguous batches of B
 * rows, through `logPrior` and `logLikelihoodRows`.
 *
 * @param model The model (N must be a multiple of `batchSize`).
 * @param batchSize B ≥ 1.
 * @returns The batched potential.
 * @throws {RangeError} If B is not a positive integer dividing N.
 *
 * @example
 * ```ts
 * import { contiguousBatches } from "./batch_potential.ts";
 * import { GaussianMeanModel, gaussianMeanData } from "../examples/models/gaussian_mean.ts";
 * const model = new GaussianMeanModel(gaussianMeanData({ numRows: 20, seed: 1 }));
 * const generic = contiguousBatches(model, 5);
 * const theta = new Float64Array([0.3]);
 * let sum = 0;
 * for (let j = 0; j < generic.numBatches; j++) sum += generic.batchPotential(theta, j);
 * // The batch terms add up to the full potential −log π(θ).
 * if (Math.abs(sum + model.logDensity(theta)) > 1e-9) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.
 */
export function contiguousBatches(model: DataModel, batchSize: number): BatchedPotential {
  const n = model.numRows;
  if (!Number.isInteger(batchSize) || batchSize < 1 || n % batchSize !== 0) {
    throw new RangeError(
      `batchSize must be a positive integer dividing the ${n} rows, got ${batchSize}`,
    );
  }
  const numBatches = n / batchSize, d = model.dim;
  const rows = Array.from(
    { length: numBatches },
    (_, j) => Int32Array.from({ length: batchSize }, (_, k) => j * batchSize + k),
  );
  const priorGrad = new Float64Array(d);
  return {
    dim: d,
    numBatches,
    batchSize,
    batchPotential(theta: Float64Array, batch: number, grad?: Float64Array): number {
      assertPosition(theta, d);
      _assertBatch(batch, numBatches);
      const lp = model.logPrior(theta, grad ? priorGrad : undefined);
      const ll = model.logLikelihoodRows(theta, rows[batch], grad ? { grad } : {});
      if (grad) { for (let i = 0; i < d; i++) grad[i] = -grad[i] - priorGrad[i] / numBatches; }
      return -ll - lp / numBatches;
    },
  };
}

function _assertBatch(batch: number, numBatches: number): void {
  if (!Number.isInteger(batch) || batch < 0 || batch >= numBatches) {
    throw new RangeError(`batch must be an integer in [0, ${numBatches}), got ${batch}`);
  }
}
