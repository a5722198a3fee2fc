/**
 * A multivariate Gaussian target N(μ, Σ) with no data: the known-answer
 * density samplers are tested and benchmarked on.
 *
 * It touches no data rows, so its cost counter stays at zero.
 *
 * @module
 */
import { cholesky, inverseFromCholesky } from "../../math/linalg.ts";
import { type CostCounter, type Model, newCostCounter } from "../../models/model.ts";

/** Options of {@link gaussianTarget}. */
export interface GaussianTargetOptions {
  /** Names of the coordinates (default `theta[0]`, `theta[1]`, …). */
  parameterNames?: readonly string[];
}

/** A Gaussian target N(μ, Σ); log densities include the normalising constant. */
export interface GaussianTarget extends Model {
  /** μ (length d). */
  readonly mean: Float64Array;
  /** Σ (d×d row-major). */
  readonly covariance: Float64Array;
  /** Σ⁻¹ (d×d row-major). */
  readonly precision: Float64Array;
  /** Marginal standard deviations √Σᵢᵢ. */
  readonly sd: Float64Array;
  /**
   * ∇² log π(θ) = −Σ⁻¹ into `out` (d×d), for Hessian-based metrics.
   *
   * @param theta θ (unused: the Hessian is constant).
   * @param out Output (d×d), overwritten.
   */
  logDensityHessian(theta: Float64Array, out: Float64Array): void;
}

/**
 * A Gaussian target N(mean, covariance).
 *
 * @param mean μ (length d).
 * @param covariance Σ (d×d row-major, symmetric positive definite), or a
 *   vector of d variances for a diagonal Σ.
 * @param options Parameter names.
 * @returns The model.
 * @throws {RangeError} If the shapes disagree or Σ is not positive definite.
 *
 * @example
 * ```ts
 * import { gaussianTarget } from "./gaussian_target.ts";
 * const t = gaussianTarget(new Float64Array([1, 2]), new Float64Array([1, 4]));
 * const g = new Float64Array(2);
 * const lp = t.logDensityAndGradient(new Float64Array([1, 2]), g);
 * if (g[0] !== 0 || Math.abs(lp + Math.log(2 * Math.PI * 2)) > 1e-12) throw new Error();
 * ```
 *
 * References: any text on the multivariate normal, e.g. Bishop (2006), eq. (2.43).
 */
export function gaussianTarget(
  mean: Float64Array,
  covariance: Float64Array,
  options: GaussianTargetOptions = {},
): GaussianTarget {
  const d = mean.length;
  if (!(mean instanceof Float64Array) || d === 0) {
    throw new TypeError(`mean must be a non-empty Float64Array, got length ${mean?.length}`);
  }
  let cov: Float64Array;
  if (covariance.length === d) {
    cov = new Float64Array(d * d);
    for (let i = 0; i < d; i++) cov[i * d + i] = covariance[i];
  } else if (covariance.length === d * d) {
    cov = Float64Array.from(covariance);
  } else {
    throw new RangeError(
      `covariance must have length ${d} (variances) or ${d * d} (matrix), got ${covariance.length}`,
    );
  }
  const l = cholesky(cov, { name: "covariance" });
  let logDet = 0;
  for (let i = 0; i < d; i++) logDet += 2 * Math.log(l[i * d + i]);
  const precision = inverseFromCholesky(l);
  const names = options.parameterNames ?? Array.from({ length: d }, (_, i) => `theta[${i}]`);
  if (names.length !== d) {
    throw new RangeError(`parameterNames must have length ${d}, got ${names.length}`);
  }
  const sd = new Float64Array(d);
  for (let i = 0; i < d; i++) sd[i] = Math.sqrt(cov[i * d + i]);
  const mu = Float64Array.from(mean);
  const constant = -0.5 * (d * Math.log(2 * Math.PI) + logDet);
  const diff = new Float64Array(d);
  const cost: CostCounter = newCostCounter();
  const logDensityAndGradient = (theta: Float64Array, grad: Float64Array): number => {
    if (theta.length !== d) {
      throw new RangeError(`theta must have length ${d}, got ${theta.length}`);
    }
    for (let i = 0; i < d; i++) diff[i] = theta[i] - mu[i];
    let q = 0;
    for (let i = 0; i < d; i++) {
      let s = 0;
      const row = i * d;
      for (let k = 0; k < d; k++) s += precision[row + k] * diff[k];
      grad[i] = -s;
      q += diff[i] * s;
    }
    return constant - 0.5 * q;
  };
  const scratch = new Float64Array(d);
  return {
    dim: d,
    parameterNames: names,
    cost,
    mean: mu,
    covariance: cov,
    precision,
    sd,
    logDensity: (theta: Float64Array): number => logDensityAndGradient(theta, scratch),
    logDensityAndGradient,
    logDensityHessian(_theta: Float64Array, out: Float64Array): void {
      for (let i = 0; i < d * d; i++) out[i] = -precision[i];
    },
  };
}
