/**
 * Covariance (confidence) ellipse of two-dimensional draws: the set
 * {p : (p − μ̂)ᵀ Σ̂⁻¹ (p − μ̂) = c} with μ̂ the sample mean, Σ̂ the sample
 * covariance (divisor n − 1) and c the `level` quantile of the χ² distribution
 * with 2 degrees of freedom, c = −2 log(1 − level). For Gaussian draws it
 * contains the fraction `level` of the mass.
 *
 * Points are μ̂ + √c · L (cos θ, sin θ) with L the Cholesky factor of Σ̂
 * (L Lᵀ = Σ̂), which maps the circle of radius √c onto the ellipse.
 *
 * References: Johnson & Wichern (2007) "Applied Multivariate Statistical
 * Analysis", 6th ed., §4.2, eq. 4-8 and Result 4.7 (constant-density
 * contours contain probability 1 − α when c = χ²₂(α)); the χ²₂ distribution
 * function 1 − e^{−c/2}.
 *
 * @module
 */

import { _chain, _integer, _mean, _openProbability } from "./_util.ts";

/** Options for {@linkcode covarianceEllipse}. */
export interface EllipseOptions {
  /** Probability content of the ellipse, in (0, 1) (default 0.95). */
  level?: number;
  /** Number of points on the closed curve, first = last (default 101). */
  numPoints?: number;
}

/** A covariance ellipse and the moments it came from. */
export interface CovarianceEllipse {
  /** Sample mean [x̄, ȳ]. */
  mean: [number, number];
  /** Sample covariance [[s_xx, s_xy], [s_xy, s_yy]] (divisor n − 1). */
  covariance: [[number, number], [number, number]];
  /** χ²₂ quantile c = −2 log(1 − level). */
  radiusSquared: number;
  /** x coordinates of the points of the closed curve. */
  x: Float64Array;
  /** y coordinates of the points of the closed curve. */
  y: Float64Array;
}

/**
 * Points of the `level` covariance ellipse of draws (xᵢ, yᵢ).
 *
 * References: Johnson & Wichern (2007) §4.2, eq. 4-8 and Result 4.7.
 *
 * @param x First coordinate of the draws (at least 3 finite values).
 * @param y Second coordinate, same length.
 * @param options `level` (default 0.95) and `numPoints` (default 101).
 * @returns Mean, covariance, χ²₂ quantile and the curve's coordinates.
 * @throws {RangeError} For too-short, non-finite or unequal inputs, a level
 * outside (0, 1), fewer than 3 points, or a singular covariance.
 *
 * @example Every point lies on the Mahalanobis contour
 * ```ts
 * import { covarianceEllipse } from "./ellipse.ts";
 * import { strict as assert } from "node:assert";
 *
 * const e = covarianceEllipse([0, 2, 0, -2], [1, 0, -1, 0]); // s_xx = 8/3, s_yy = 2/3
 * const d2 = e.x[7] ** 2 / (8 / 3) + e.y[7] ** 2 / (2 / 3);
 * assert.ok(Math.abs(d2 - -2 * Math.log(0.05)) < 1e-12);
 * ```
 */
export function covarianceEllipse(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  options: EllipseOptions = {},
): CovarianceEllipse {
  const xs = _chain(x, "x", 3);
  const ys = _chain(y, "y", 3);
  if (xs.length !== ys.length) {
    throw new RangeError(`x and y must have the same length, got ${xs.length} and ${ys.length}`);
  }
  const level = options.level === undefined
    ? 0.95
    : _openProbability(options.level, "options.level");
  const numPoints = options.numPoints === undefined
    ? 101
    : _integer(options.numPoints, "options.numPoints", 3);
  const n = xs.length;
  const mx = _mean(xs);
  const my = _mean(ys);
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i] - mx;
    const dy = ys[i] - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  sxx /= n - 1;
  sxy /= n - 1;
  syy /= n - 1;
  // Cholesky factor L = [[a, 0], [b, d]].
  const a = Math.sqrt(sxx);
  const b = sxy / a;
  const d = Math.sqrt(syy - b * b);
  if (!(a > 0) || !(d > 0) || d < 1e-12 * Math.sqrt(syy)) {
    throw new RangeError(
      `the covariance of x and y must be positive definite, got [[${sxx}, ${sxy}], [${sxy}, ${syy}]]`,
    );
  }
  const c = -2 * Math.log1p(-level);
  const r = Math.sqrt(c);
  const px = new Float64Array(numPoints);
  const py = new Float64Array(numPoints);
  for (let k = 0; k < numPoints; k++) {
    const theta = (2 * Math.PI * k) / (numPoints - 1);
    const u = r * Math.cos(theta);
    const v = r * Math.sin(theta);
    px[k] = mx + a * u;
    py[k] = my + b * u + d * v;
  }
  return {
    mean: [mx, my],
    covariance: [[sxx, sxy], [sxy, syy]],
    radiusSquared: c,
    x: px,
    y: py,
  };
}
