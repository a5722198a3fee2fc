/**
 * Choosing the step size of the stochastic-gradient methods (SG-HMC, SGLD) in
 * the HMC-ECS comparisons: the selection rule over a grid run at equal
 * evaluation budget, and the largest eigenvalue of the negative log-posterior
 * Hessian that scales the SGLD grid (SGLD on a Gaussian with precision P is
 * stable for ε·λ_max(P) < 4).
 *
 * References: Dang et al. (2019), §6.4 (ε tuned "by trial and error");
 * Welling & Teh (2011); Golub & Van Loan (2013), §8.2.1.
 *
 * @module
 */

/** One point of a step-size grid. */
export interface GridPoint {
  /** ε. */
  stepSize: number;
  /** Moment error at equal cost (non-finite = unstable run). */
  error: number;
}

/**
 * The step-size selection rule: the ε with the smallest moment error against
 * full-data HMC at equal evaluation budget; ties go to the larger ε (the
 * cheaper one when L = 1.2/ε). Unstable points (non-finite error) are skipped.
 *
 * @param points The grid with its errors.
 * @returns The index of the chosen point.
 * @throws RangeError if the grid is empty or every point is unstable.
 * @example
 * ```ts
 * import { chooseStepSize } from "./sg_step_size.ts";
 * import { strict as assert } from "node:assert";
 * assert.equal(chooseStepSize([
 *   { stepSize: 0.01, error: 0.3 }, { stepSize: 0.05, error: 0.1 }, { stepSize: 0.2, error: Infinity },
 * ]), 1);
 * ```
 * References: Dang et al. (2019), §6.4 (the paper tunes ε "by trial and error").
 */
export function chooseStepSize(points: readonly GridPoint[]): number {
  if (points.length === 0) throw new RangeError("the step-size grid is empty");
  let best = -1;
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    if (!Number.isFinite(p.error)) continue;
    if (
      best < 0 || p.error < points[best].error ||
      (p.error === points[best].error && p.stepSize > points[best].stepSize)
    ) best = i;
  }
  if (best < 0) {
    throw new RangeError(
      `every step size on the grid was unstable: ${points.map((p) => p.stepSize).join(", ")}`,
    );
  }
  return best;
}

/**
 * Largest eigenvalue of a symmetric positive semi-definite d × d matrix by
 * power iteration (used to scale the SGLD step-size grid: SGLD on a Gaussian
 * with precision P is stable for ε·λ_max(P) < 4).
 *
 * @param matrix Row-major d × d.
 * @param options `maxIterations` (default 500), `tolerance` (default 1e-10).
 * @returns λ_max.
 * @throws RangeError if the matrix is not square.
 * @example
 * ```ts
 * import { largestEigenvalue } from "./sg_step_size.ts";
 * import { strict as assert } from "node:assert";
 * assert.ok(Math.abs(largestEigenvalue(new Float64Array([2, 1, 1, 2])) - 3) < 1e-9);
 * ```
 * References: Golub & Van Loan (2013), §8.2.1.
 */
export function largestEigenvalue(
  matrix: Float64Array,
  options: { maxIterations?: number; tolerance?: number } = {},
): number {
  const d = Math.round(Math.sqrt(matrix.length));
  if (d * d !== matrix.length || d === 0) {
    throw new RangeError(`matrix must be square, got ${matrix.length} entries`);
  }
  let v: Float64Array = new Float64Array(d).fill(1 / Math.sqrt(d));
  let lambda = 0;
  for (let it = 0; it < (options.maxIterations ?? 500); it++) {
    const w = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += matrix[i * d + k] * v[k];
      w[i] = s;
    }
    let norm = 0;
    for (let i = 0; i < d; i++) norm += w[i] * w[i];
    norm = Math.sqrt(norm);
    if (norm === 0) return 0;
    for (let i = 0; i < d; i++) w[i] /= norm;
    const done = Math.abs(norm - lambda) <= (options.tolerance ?? 1e-10) * norm;
    lambda = norm;
    v = w;
    if (done) break;
  }
  return lambda;
}
