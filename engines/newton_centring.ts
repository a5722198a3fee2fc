/**
 * Newton's method to the MAP of a GLM under a Gaussian prior when each
 * full-data pass (S, A, B at θ) is a query to a database engine: the loop and
 * the d × d solve run here, the passes wherever the rows are. Used by
 * `engines/postgres.ts`; it imports no engine.
 *
 * References: Nocedal & Wright (2006), §3.3 (Newton's method with step halving).
 *
 * @module
 */
import { cholesky, choleskySolve } from "../math/linalg.ts";
import type { ControlVariateSums } from "./control_variate_sql.ts";

/** The Gaussian prior: the same options and defaults as `GlmModel`'s. */
export interface SqlPriorOptions {
  /** Prior sd per coefficient: one number or one per coefficient of θ. Default 10. */
  priorScale?: number | ArrayLike<number>;
  /** Prior mean per coefficient: one number or one per coefficient. Default 0. */
  priorMean?: number | ArrayLike<number>;
  /** Index of a coefficient whose prior sd is `interceptPriorScale` instead. */
  interceptColumn?: number;
  /** Prior sd of that coefficient; `Infinity` gives a flat prior. */
  interceptPriorScale?: number;
}

/** Limits of {@link newtonCentringByPasses}. */
export interface NewtonPassOptions extends SqlPriorOptions {
  /** Starting point (default zeros). */
  init?: ArrayLike<number>;
  /** Maximum number of full-data passes (default 50). */
  maxPasses?: number;
  /** Stop when the largest Newton step component is below this (default 1e-10). */
  tolerance?: number;
}

/** Result of {@link newtonCentringByPasses}: θ*, the sums there, and how it went. */
export interface NewtonPassResult extends ControlVariateSums {
  /** The expansion point θ*. */
  thetaStar: Float64Array;
  /** Whether the last Newton step was below `tolerance`. */
  converged: boolean;
  /** Number of full-data passes made. */
  numPasses: number;
  /** log p(θ*) + S: the log posterior (up to the prior's constant) at θ*. */
  logPosterior: number;
}

/**
 * Newton's method to the MAP, one `pass(θ)` (S, A, B at θ over all rows) per
 * step; a step that lowers the log posterior is halved. Returns the last
 * point the sums were computed at, with the sums there.
 *
 * @param d The dimension of θ.
 * @param options Prior, start and limits.
 * @param pass The full-data sums at θ.
 * @returns θ*, S, A, B, n, whether it converged, and the passes made.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { newtonCentringByPasses } from "./newton_centring.ts";
 * // ℓ(θ) = −(θ − 2)²/2 summed over one row, flat prior: the MAP is 2
 * const r = await newtonCentringByPasses(1, { priorScale: Infinity }, (t) =>
 *   Promise.resolve({
 *     llStarSum: -((t[0] - 2) ** 2) / 2,
 *     gradSum: Float64Array.of(2 - t[0]),
 *     hessSum: Float64Array.of(-1),
 *     numRows: 1,
 *   }));
 * assert.ok(r.converged && Math.abs(r.thetaStar[0] - 2) < 1e-12);
 * ```
 */
export async function newtonCentringByPasses(
  d: number,
  options: NewtonPassOptions,
  pass: (theta: Float64Array) => Promise<ControlVariateSums>,
): Promise<NewtonPassResult> {
  const prior = gaussianPriorPrecision(options, d);
  const maxPasses = options.maxPasses ?? 50, tol = options.tolerance ?? 1e-10;
  if (!Number.isInteger(maxPasses) || maxPasses < 1) {
    throw new RangeError(`maxPasses must be a positive integer, got ${maxPasses}`);
  }
  if (!(tol > 0)) throw new RangeError(`tolerance must be positive, got ${tol}`);
  const theta = new Float64Array(d);
  if (options.init !== undefined) {
    const v = Array.from(options.init);
    if (v.length !== d) throw new RangeError(`init must have ${d} values, got ${v.length}`);
    theta.set(v);
  }
  const evalAt = async (at: Float64Array) => {
    const r = await pass(at);
    let lp = r.llStarSum;
    for (let j = 0; j < d; j++) {
      const z = at[j] - prior.mean[j];
      lp -= 0.5 * prior.precision[j] * z * z;
    }
    return { ...r, logPosterior: lp };
  };
  let numPasses = 1, converged = false;
  let at = theta.slice(), cur = await evalAt(at);
  let step: Float64Array = new Float64Array(d), scale = 1;
  if (!Number.isFinite(cur.logPosterior)) {
    throw new RangeError(
      `the log posterior at the starting point is ${cur.logPosterior}; start closer to the mode`,
    );
  }
  while (numPasses < maxPasses) {
    if (scale === 1) {
      const g = new Float64Array(d), neg = new Float64Array(d * d);
      for (let j = 0; j < d; j++) {
        g[j] = cur.gradSum[j] - prior.precision[j] * (at[j] - prior.mean[j]);
        for (let l = 0; l < d; l++) neg[j * d + l] = -cur.hessSum[j * d + l];
        neg[j * d + j] += prior.precision[j];
      }
      step = choleskySolve(cholesky(neg, { name: "the negative log-posterior Hessian" }), g);
      let size = 0;
      for (let j = 0; j < d; j++) size = Math.max(size, Math.abs(step[j]));
      if (size < tol) {
        converged = true;
        break;
      }
    }
    const next = at.map((v, j) => v + scale * step[j]);
    const r = await evalAt(next);
    numPasses++;
    if (
      Number.isFinite(r.logPosterior) &&
      r.logPosterior >= cur.logPosterior - 1e-12 * Math.abs(cur.logPosterior)
    ) {
      at = next;
      cur = r;
      scale = 1;
    } else {
      scale /= 2;
      if (scale < 2 ** -30) {
        throw new RangeError(
          `Newton's step does not increase the log posterior even when halved 30 times (at ${numPasses} passes)`,
        );
      }
    }
  }
  return {
    thetaStar: at,
    llStarSum: cur.llStarSum,
    gradSum: cur.gradSum,
    hessSum: cur.hessSum,
    numRows: cur.numRows,
    converged,
    numPasses,
    logPosterior: cur.logPosterior,
  };
}

/**
 * The prior's mean and precision per coefficient (precision 0 for an
 * infinite sd), checked.
 *
 * @param o The prior options.
 * @param d The dimension of θ.
 * @returns Mean and precision, each of length d.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { gaussianPriorPrecision } from "./newton_centring.ts";
 * const p = gaussianPriorPrecision({ priorScale: 2, interceptColumn: 0, interceptPriorScale: Infinity }, 2);
 * assert.deepEqual(Array.from(p.precision), [0, 0.25]);
 * ```
 */
export function gaussianPriorPrecision(
  o: SqlPriorOptions,
  d: number,
): { mean: Float64Array; precision: Float64Array } {
  const per = (v: number | ArrayLike<number>, what: string, positive: boolean) => {
    const out = new Float64Array(d);
    if (typeof v === "number") out.fill(v);
    else {
      if (v.length !== d) throw new RangeError(`${what} must have ${d} values, got ${v.length}`);
      out.set(Array.from(v));
    }
    out.forEach((x, j) => {
      if (positive ? !(x > 0) : !Number.isFinite(x)) {
        throw new RangeError(
          `${what} must be ${positive ? "positive" : "finite"}, got ${x} at index ${j}`,
        );
      }
    });
    return out;
  };
  const mean = per(o.priorMean ?? 0, "priorMean", false);
  const scale = per(o.priorScale ?? 10, "priorScale", true);
  if (o.interceptColumn !== undefined) {
    const j = o.interceptColumn;
    if (!Number.isInteger(j) || j < 0 || j >= d) {
      throw new RangeError(`interceptColumn must be an integer in [0, ${d - 1}], got ${j}`);
    }
    const s = o.interceptPriorScale ?? scale[j];
    if (!(s > 0)) throw new RangeError(`interceptPriorScale must be positive, got ${s}`);
    scale[j] = s;
  }
  return { mean, precision: scale.map((s) => (Number.isFinite(s) ? 1 / (s * s) : 0)) };
}

/**
 * A θ argument of an engine function as a fresh Float64Array (every engine
 * adapter takes θ the same way).
 *
 * @param v The values.
 * @param what The argument's name, for the message.
 * @returns A copy.
 * @throws {TypeError} When `v` is not array-like.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { copyTheta } from "./newton_centring.ts";
 * assert.deepEqual(Array.from(copyTheta([1, 2], "theta")), [1, 2]);
 * assert.throws(() => copyTheta(3 as unknown as number[], "theta"), /theta must be an array/);
 * ```
 */
export function copyTheta(v: ArrayLike<number>, what: string): Float64Array {
  if (v === null || typeof v !== "object" || typeof v.length !== "number") {
    throw new TypeError(`${what} must be an array of numbers, got ${v}`);
  }
  return Float64Array.from(Array.from(v));
}

/**
 * A starting point for Newton's method on "gaussian-scale" (θ = (β, τ = log σ)),
 * whose log likelihood is not concave in (β, τ) far from the mode: β from
 * least squares (one pass at (0, 0), where A = Xᵀy and B = −XᵀX), then τ =
 * ½ ln(Σr²/n) from one pass at (β, 0), where A_τ = Σr² − n. At that point
 * Σ rₖxₖ = 0, so the Hessian is negative definite.
 *
 * @param d The dimension of θ (X's columns + 1).
 * @param pass The full-data sums at θ.
 * @returns The starting point.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { gaussianScaleStart } from "./newton_centring.ts";
 * // one column of ones, y = (1, 3): β = 2, Σr² / n = 1, τ = 0
 * const ys = [1, 3];
 * const start = await gaussianScaleStart(2, (t) => {
 *   const r = ys.map((y) => y - t[0]), inv = Math.exp(-2 * t[1]);
 *   return Promise.resolve({
 *     llStarSum: 0,
 *     gradSum: Float64Array.of(inv * (r[0] + r[1]), inv * (r[0] ** 2 + r[1] ** 2) - 2),
 *     hessSum: Float64Array.of(-2 * inv, 0, 0, 0),
 *     numRows: 2,
 *   });
 * });
 * assert.ok(Math.abs(start[0] - 2) < 1e-12 && Math.abs(start[1]) < 1e-12);
 * ```
 */
export async function gaussianScaleStart(
  d: number,
  pass: (theta: Float64Array) => Promise<ControlVariateSums>,
): Promise<Float64Array> {
  const p = d - 1, at = new Float64Array(d);
  const r0 = await pass(at);
  const neg = new Float64Array(p * p), g = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    g[j] = r0.gradSum[j];
    for (let l = 0; l < p; l++) neg[j * p + l] = -r0.hessSum[j * d + l];
  }
  at.set(choleskySolve(cholesky(neg, { name: "XᵀX (the columns of X are collinear)" }), g));
  const r1 = await pass(at);
  const meanSq = (r1.gradSum[p] + r1.numRows) / r1.numRows;
  if (!(meanSq > 0)) {
    throw new RangeError(`the least-squares fit leaves no residual (Σr²/n = ${meanSq}): σ is 0`);
  }
  at[p] = 0.5 * Math.log(meanSq);
  return at;
}
