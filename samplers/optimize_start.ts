/**
 * A short Newton optimisation before warmup: from the chain's starting point
 * a few damped Newton steps on log π reach the mode's neighbourhood of a
 * tall-data posterior (which is close to Gaussian), and the diagonal of
 * (−∇² log π)⁻¹ there is a cheap, good first metric — the marginal variances
 * of the Laplace approximation — instead of the identity, whose scale is off
 * by √n on tall data.
 *
 * Each Newton iteration costs one Hessian pass and one or more gradient
 * passes over the data (counted by the model's cost counter).
 *
 * References: Nocedal & Wright (2006), §3.1 and §3.3 (backtracking Newton);
 * Stan Reference Manual, "Optimization"; Zhang et al. (2022), Pathfinder
 * (initialise MCMC from an optimisation path).
 *
 * @module
 */
import { cholesky, choleskySolve, inverseFromCholesky } from "../math/linalg.ts";
import type { LogDensityGradientFn } from "./integrators.ts";
import type { HessianFn } from "./mass_matrix_adaptation.ts";

/** Result of {@link optimizeStart}. */
export interface OptimizedStart {
  /** The last iterate. */
  position: Float64Array;
  /** log π there. */
  logDensity: number;
  /** diag((−∇² log π)⁻¹) there, or null if −∇² log π was not positive definite. */
  inverseHessianDiagonal: Float64Array | null;
  /** Newton iterations made. */
  numIterations: number;
  /** Whether the Newton decrement fell below the tolerance. */
  isConverged: boolean;
}

/** Options of {@link optimizeStart}. */
export interface OptimizeStartOptions {
  /** ∇² log π. */
  hessianFn: HessianFn;
  /** Most Newton iterations (default 10). */
  maxIterations?: number;
  /** Stop when ½ gᵀ(−H)⁻¹g (half the squared Newton decrement) is below this (default 1e-4). */
  tolerance?: number;
}

/**
 * Damped Newton ascent of log π from `start`, then the diagonal of the
 * inverse negative Hessian at the last iterate.
 *
 * @param fn log π and its gradient.
 * @param start θ₀ (not modified).
 * @param options The Hessian, iteration cap and tolerance.
 * @returns The last iterate, its log density, the inverse-Hessian diagonal and the iteration count.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { optimizeStart } from "./optimize_start.ts";
 * // log π = −½ (x−3)²/0.01: one Newton step reaches the mode, variance 0.01.
 * const fn = (x: Float64Array, g: Float64Array) => { g[0] = -(x[0] - 3) / 0.01; return -0.5 * (x[0] - 3) ** 2 / 0.01; };
 * const r = optimizeStart(fn, new Float64Array([0]), { hessianFn: (_x, h) => { h[0] = -100; } });
 * assert.ok(Math.abs(r.position[0] - 3) < 1e-12);
 * assert.ok(Math.abs(r.inverseHessianDiagonal![0] - 0.01) < 1e-15);
 * ```
 *
 * References: Nocedal & Wright (2006), §3.1, §3.3.
 */
export function optimizeStart(
  fn: LogDensityGradientFn,
  start: Float64Array,
  options: OptimizeStartOptions,
): OptimizedStart {
  const d = start.length;
  const maxIterations = options.maxIterations ?? 10;
  const tolerance = options.tolerance ?? 1e-4;
  let theta = Float64Array.from(start);
  let grad = new Float64Array(d);
  let lp = fn(theta, grad);
  const hess = new Float64Array(d * d);
  const negH = new Float64Array(d * d);
  let numIterations = 0, isConverged = false;
  let chol: Float64Array | null = null;
  const factor = (): Float64Array | null => {
    options.hessianFn(theta, hess);
    for (let k = 0; k < d * d; k++) negH[k] = -hess[k];
    try {
      return cholesky(negH);
    } catch {
      return null;
    }
  };
  for (; numIterations < maxIterations; numIterations++) {
    chol = factor();
    if (chol === null || !Number.isFinite(lp)) break;
    const step = choleskySolve(chol, grad);
    let decrement = 0;
    for (let j = 0; j < d; j++) decrement += grad[j] * step[j];
    if (decrement / 2 < tolerance) {
      isConverged = true;
      break;
    }
    // Backtracking: halve the step until log π increases.
    let t = 1, accepted = false;
    const next = new Float64Array(d), nextGrad = new Float64Array(d);
    for (let k = 0; k < 30; k++, t /= 2) {
      for (let j = 0; j < d; j++) next[j] = theta[j] + t * step[j];
      const nextLp = fn(next, nextGrad);
      if (Number.isFinite(nextLp) && nextLp >= lp) {
        theta = next;
        grad = nextGrad;
        lp = nextLp;
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
  }
  if (!isConverged) chol = factor();
  let inverseHessianDiagonal: Float64Array | null = null;
  if (chol !== null) {
    const inv = inverseFromCholesky(chol);
    inverseHessianDiagonal = new Float64Array(d);
    for (let j = 0; j < d; j++) inverseHessianDiagonal[j] = inv[j * d + j];
    if (!inverseHessianDiagonal.every((v) => v > 0 && Number.isFinite(v))) {
      inverseHessianDiagonal = null;
    }
  }
  return { position: theta, logDensity: lp, inverseHessianDiagonal, numIterations, isConverged };
}

/** Result of {@link findUnboundedAscent}. */
export interface AscentCheck {
  /**
   * `"converged"`: the Newton steps shrank to nothing (a maximum exists);
   * `"unbounded"`: log π keeps increasing along `direction` with no
   * maximum (an improper posterior, or separated data for a likelihood);
   * `"flat"`: converged, but −∇² log π is singular there, so log π is
   * constant along `direction` (collinear columns); `"undecided"`: none of
   * these within the iterations.
   */
  kind: "converged" | "unbounded" | "flat" | "undecided";
  /** The last iterate. */
  position: Float64Array;
  /** For `"unbounded"`: the unit direction the iterates drift along; for `"flat"` the null direction; else null. */
  direction: Float64Array | null;
  /** Newton iterations made. */
  numIterations: number;
}

/**
 * Whether log π has a maximum: a damped Newton ascent (with a ridge where
 * −∇² log π is not positive definite) that reports divergence instead of
 * hiding it. On a concave log π with a maximum the steps shrink
 * quadratically; along a direction v where log π keeps increasing to a
 * finite supremum (perfectly separated logistic data under a flat prior),
 * the curvature vᵀ(−∇²)v vanishes like the gradient, so each Newton step
 * has about the same length and direction while the predicted gain
 * ½ gᵀ(−H)⁻¹g goes to 0. The search calls it unbounded when, for the last
 * 5 iterations, the steps kept their length (each ≥ ½ the previous) and
 * direction (cosine > 0.95), and the curvature along that direction fell
 * below 1e-6 of its value at the start.
 *
 * @param fn log π and its gradient.
 * @param start θ₀ (not modified).
 * @param options The Hessian of log π and the iteration cap (default 60).
 * @returns The verdict, the last iterate and the drift direction.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findUnboundedAscent } from "./optimize_start.ts";
 * // log π = log σ(x) (a single separated logistic row, flat prior): no maximum.
 * const fn = (x: Float64Array, g: Float64Array) => {
 *   g[0] = 1 / (1 + Math.exp(x[0]));
 *   return -Math.log1p(Math.exp(-x[0]));
 * };
 * const hessianFn = (x: Float64Array, h: Float64Array) => {
 *   const p = 1 / (1 + Math.exp(-x[0]));
 *   h[0] = -p * (1 - p);
 * };
 * const r = findUnboundedAscent(fn, new Float64Array([0]), { hessianFn });
 * assert.equal(r.kind, "unbounded");
 * assert.equal(Math.sign(r.direction![0]), 1);
 * ```
 *
 * References: Nocedal & Wright (2006), §3.3 and §3.4 (Newton with a
 * Hessian modification); Albert & Anderson (1984) (the logistic MLE exists
 * iff the data are not separated).
 */
export function findUnboundedAscent(
  fn: LogDensityGradientFn,
  start: Float64Array,
  options: { hessianFn: HessianFn; maxIterations?: number },
): AscentCheck {
  const d = start.length, maxIterations = options.maxIterations ?? 60;
  let theta = Float64Array.from(start);
  let grad = new Float64Array(d);
  let lp = fn(theta, grad);
  const hess = new Float64Array(d * d), negH = new Float64Array(d * d);
  const steps: Float64Array[] = [];
  let firstCurvature: Float64Array | null = null;
  const curvatureAlong = (v: Float64Array): number => {
    let c = 0;
    for (let i = 0; i < d; i++) {
      let r = 0;
      for (let j = 0; j < d; j++) r += negH[i * d + j] * v[j];
      c += v[i] * r;
    }
    return c;
  };
  let numIterations = 0;
  for (; numIterations < maxIterations; numIterations++) {
    if (!Number.isFinite(lp)) break;
    options.hessianFn(theta, hess);
    let maxDiag = 0;
    for (let k = 0; k < d * d; k++) negH[k] = -hess[k];
    for (let j = 0; j < d; j++) maxDiag = Math.max(maxDiag, Math.abs(negH[j * d + j]));
    if (firstCurvature === null) firstCurvature = Float64Array.from(negH);
    let chol: Float64Array | null = null, ridge = 0;
    for (let k = 0; chol === null && k < 12; k++) {
      const a = Float64Array.from(negH);
      for (let j = 0; j < d; j++) a[j * d + j] += ridge;
      try {
        chol = cholesky(a);
      } catch {
        ridge = ridge === 0 ? 1e-10 * (1 + maxDiag) : ridge * 100;
      }
    }
    if (chol === null) break;
    // Singular −∇² (a pivot below 1e-12 of its diagonal): log π is flat along some direction.
    let isSingular = ridge > 0;
    for (let j = 0; j < d && !isSingular; j++) {
      isSingular = chol[j * d + j] ** 2 < 1e-12 * Math.max(negH[j * d + j], 1e-300);
    }
    const step = choleskySolve(chol, grad);
    let stepNorm = 0, thetaNorm = 0;
    for (let j = 0; j < d; j++) {
      stepNorm = Math.max(stepNorm, Math.abs(step[j]));
      thetaNorm = Math.max(thetaNorm, Math.abs(theta[j]));
    }
    if (!(stepNorm > 1e-9 * (1 + thetaNorm))) {
      if (!isSingular) {
        return { kind: "converged", position: theta, direction: null, numIterations };
      }
      return {
        kind: "flat",
        position: theta,
        direction: _nullDirection(negH, maxDiag),
        numIterations,
      };
    }
    let t = 1, accepted = false;
    const next = new Float64Array(d), nextGrad = new Float64Array(d);
    for (let k = 0; k < 30; k++, t /= 2) {
      for (let j = 0; j < d; j++) next[j] = theta[j] + t * step[j];
      const nextLp = fn(next, nextGrad);
      if (Number.isFinite(nextLp) && nextLp >= lp) {
        for (let j = 0; j < d; j++) step[j] *= t;
        theta = next;
        grad = nextGrad;
        lp = nextLp;
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
    steps.push(step);
    if (steps.length >= 6 && _isSteadyDrift(steps.slice(-6))) {
      const v = _unit(steps[steps.length - 1]);
      const saved = Float64Array.from(negH);
      negH.set(firstCurvature);
      const c0 = curvatureAlong(v);
      negH.set(saved);
      if (curvatureAlong(v) < 1e-6 * c0) {
        return {
          kind: "unbounded",
          position: theta,
          direction: v,
          numIterations: numIterations + 1,
        };
      }
    }
  }
  return { kind: "undecided", position: theta, direction: null, numIterations };
}

/** Whether the last steps kept their length (each ≥ ½ the previous) and direction (cos > 0.95). */
function _isSteadyDrift(steps: Float64Array[]): boolean {
  const norm = (v: Float64Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  for (let k = 1; k < steps.length; k++) {
    const a = steps[k - 1], b = steps[k], na = norm(a), nb = norm(b);
    if (!(nb >= 0.5 * na) || !(na > 0)) return false;
    let dot = 0;
    for (let j = 0; j < a.length; j++) dot += a[j] * b[j];
    if (!(dot / (na * nb) > 0.95)) return false;
  }
  return true;
}

/** The eigenvector of the smallest eigenvalue of a singular PSD matrix (inverse iteration). */
function _nullDirection(a: Float64Array, maxDiag: number): Float64Array {
  const d = Math.round(Math.sqrt(a.length));
  const shifted = Float64Array.from(a);
  for (let j = 0; j < d; j++) shifted[j * d + j] += 1e-8 * (1 + maxDiag);
  const l = cholesky(shifted);
  let v: Float64Array = new Float64Array(d).map((_, j) => 1 + j / d);
  for (let k = 0; k < 30; k++) v = _unit(choleskySolve(l, v));
  return v;
}

function _unit(v: Float64Array): Float64Array {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / n);
}
