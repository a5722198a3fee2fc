/**
 * Whether log π has a maximum at all: a damped Newton ascent that reports a
 * drift along a direction where log π keeps increasing (an improper
 * posterior, or separated data for a likelihood) or is flat (collinear
 * columns) instead of hiding it. The propriety check of a GLM posterior
 * (proper_posterior.ts) runs it before sampling.
 *
 * References: Nocedal & Wright (2006), §3.3 and §3.4 (Newton with a Hessian
 * modification); Albert & Anderson (1984) (the logistic MLE exists iff the
 * data are not separated).
 *
 * @module
 */
import { cholesky, choleskySolve } from "../math/linalg.ts";
import type { LogDensityGradientFn } from "./integrators.ts";
import type { HessianFn } from "./mass_matrix_adaptation.ts";

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
 * import { findUnboundedAscent } from "./unbounded_ascent.ts";
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
