/**
 * Where chains start, and the first metric: a damped Newton search of the
 * mode of log π from a data-based point, and the Laplace approximation
 * N(θ̂, (−∇² log π(θ̂))⁻¹) there.
 *
 * The search works for every GLM family:
 *
 * - **Start** ({@link dataBasedStart}): the intercept at the response's mean
 *   on the link scale, log σ at log sd(y), log φ from the moments
 *   (Var = μ + μ²/φ), log(ν − 1) at log 4 (ν = 5), every other coefficient at
 *   its prior mean; for models that are not GLMs, the prior's centre (the
 *   caller's position, zeros by default).
 * - **Direction**: Newton, (−H + λI)⁻¹ g with the smallest λ ≥ 0 that makes
 *   −H + λI positive definite (−H is indefinite far from the mode — e.g. at
 *   θ = 0 for a family with σ, where it used to stop the search at its first
 *   iteration), and the scaled gradient when no λ up to 10⁸·scale works.
 * - **Step**: backtracking on log π (Armijo's sufficient increase, halving
 *   the step up to 60 times).
 * - **Checks**: every accepted iterate goes through one place,
 *   `_iterateProblem`, which ends the search when the iterate is no longer
 *   usable (today: a non-finite coordinate).
 * - **Failure**: the result's `warning` names the parameter that kept the
 *   search from a mode (largest remaining gradient in Laplace units, or the
 *   direction in which −H is not positive definite).
 *
 * Each Newton iteration costs one Hessian pass and one or more gradient
 * passes over the data (counted by the model's cost counter).
 *
 * References: Nocedal & Wright (2006), §3.1, §3.3 and §3.4 (backtracking,
 * Newton with Hessian modification); Stan Reference Manual, "Optimization"
 * and "Initialization" (uniform(−2, 2) on the unconstrained scale).
 *
 * @module
 */
import { cholesky, choleskySolve, inverseFromCholesky } from "../math/linalg.ts";
import { dataViews } from "../core/row_buffer.ts";
import type { GlmData } from "../data/dataset.ts";
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
  /** (−∇² log π)⁻¹ there (d×d row-major, the Laplace covariance), or null as above. */
  laplaceCovariance: Float64Array | null;
  /** Newton iterations made. */
  numIterations: number;
  /** Whether the Newton decrement fell below the tolerance. */
  isConverged: boolean;
  /**
   * Why the search did not end at a mode with a positive-definite −∇² log π,
   * naming the parameter; null when it did.
   */
  warning: string | null;
}

/** Options of {@link optimizeStart}. */
export interface OptimizeStartOptions {
  /** ∇² log π. */
  hessianFn: HessianFn;
  /** Most Newton iterations (default 10). */
  maxIterations?: number;
  /** Stop when ½ gᵀ(−H)⁻¹g (half the squared Newton decrement) is below this (default 1e-4). */
  tolerance?: number;
  /** Parameter names for the warning (default θ[j]). */
  parameterNames?: readonly string[];
}

/**
 * Damped Newton ascent of log π from `start`, then the Laplace covariance
 * (−∇² log π)⁻¹ at the last iterate.
 *
 * @param fn log π and its gradient.
 * @param start θ₀ (not modified).
 * @param options The Hessian, iteration cap, tolerance and parameter names.
 * @returns The last iterate, its log density, the Laplace covariance and its
 *   diagonal, the iteration count and a warning when no mode was reached.
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
 * assert.equal(r.warning, null);
 * ```
 *
 * References: Nocedal & Wright (2006), §3.1, §3.3, §3.4.
 */
export function optimizeStart(
  fn: LogDensityGradientFn,
  start: Float64Array,
  options: OptimizeStartOptions,
): OptimizedStart {
  const d = start.length;
  const maxIterations = options.maxIterations ?? 10;
  const tolerance = options.tolerance ?? 1e-4;
  const name = (j: number) => JSON.stringify(options.parameterNames?.[j] ?? `θ[${j}]`);
  let theta = Float64Array.from(start);
  let grad = new Float64Array(d);
  let lp = fn(theta, grad);
  const hess = new Float64Array(d * d);
  const negH = new Float64Array(d * d);
  let numIterations = 0, isConverged = false;
  let problem: string | null = Number.isFinite(lp)
    ? null
    : `log π is not finite at the start (${lp})`;
  const loadNegH = (): boolean => {
    options.hessianFn(theta, hess);
    for (let i = 0; i < d; i++) {
      for (let j = 0; j < d; j++) negH[i * d + j] = -0.5 * (hess[i * d + j] + hess[j * d + i]);
    }
    return negH.every(Number.isFinite);
  };
  for (; problem === null && numIterations < maxIterations; numIterations++) {
    if (!loadNegH()) {
      problem = "∇² log π is not finite";
      break;
    }
    const { step, lambda } = _dampedNewtonStep(negH, grad);
    let slope = 0;
    for (let j = 0; j < d; j++) slope += grad[j] * step[j];
    if (lambda === 0 && slope / 2 < tolerance) {
      isConverged = true;
      break;
    }
    // Backtracking: shrink the step until log π rises enough (Armijo, c = 1e-4).
    let t = 1, accepted = false;
    const next = new Float64Array(d), nextGrad = new Float64Array(d);
    for (let k = 0; k < 60; k++, t /= 2) {
      for (let j = 0; j < d; j++) next[j] = theta[j] + t * step[j];
      const nextLp = fn(next, nextGrad);
      if (Number.isFinite(nextLp) && nextLp > lp && nextLp >= lp + 1e-4 * t * slope) {
        accepted = true;
        theta = Float64Array.from(next);
        grad = Float64Array.from(nextGrad);
        lp = nextLp;
        break;
      }
    }
    if (!accepted) {
      // No step raises log π: at the mode to round-off, or stuck.
      if (lambda === 0 && slope / 2 < 1e3 * tolerance) isConverged = true;
      break;
    }
    problem = _iterateProblem(theta, lp, name);
  }
  let laplaceCovariance: Float64Array | null = null;
  let inverseHessianDiagonal: Float64Array | null = null;
  let warning: string | null = problem;
  if (problem === null && loadNegH()) {
    try {
      laplaceCovariance = inverseFromCholesky(cholesky(negH, { name: "−∇² log π" }));
      inverseHessianDiagonal = new Float64Array(d);
      for (let j = 0; j < d; j++) inverseHessianDiagonal[j] = laplaceCovariance[j * d + j];
      if (!inverseHessianDiagonal.every((v) => v > 0 && Number.isFinite(v))) {
        laplaceCovariance = inverseHessianDiagonal = null;
      }
    } catch (e) {
      const m = /pivot (\d+)/.exec((e as Error).message);
      const j = m === null ? 0 : Number(m[1]);
      warning = `the start search stopped after ${numIterations} Newton iterations where ` +
        `−∇² log π is not positive definite (in the direction of ${name(j)}): ` +
        `still far from the mode, or ${name(j)} is not identified by the data and prior`;
    }
    if (laplaceCovariance === null && warning === null) {
      warning = "−∇² log π has a non-finite inverse at the last iterate";
    }
  }
  if (warning === null && !isConverged) {
    // Name the parameter with the largest remaining gradient in Laplace units.
    let worst = 0, worstValue = -1;
    for (let j = 0; j < d; j++) {
      const v = Math.abs(grad[j]) * Math.sqrt(Math.max(inverseHessianDiagonal?.[j] ?? 1, 0));
      if (v > worstValue) (worst = j, worstValue = v);
    }
    warning =
      `the start search stopped after ${numIterations} Newton iterations before the mode; ` +
      `log π still rises fastest in ${name(worst)} (${
        worstValue.toPrecision(3)
      } sd per unit step): check its scale or prior`;
  }
  return {
    position: theta,
    logDensity: lp,
    inverseHessianDiagonal,
    laplaceCovariance,
    numIterations,
    isConverged,
    warning,
  };
}

/**
 * Why an accepted iterate ends the search, or null: the one place for checks
 * on the path (a coordinate running off to infinity ends here).
 */
function _iterateProblem(
  theta: Float64Array,
  lp: number,
  name: (j: number) => string,
): string | null {
  if (!Number.isFinite(lp)) return `log π became ${lp}`;
  for (let j = 0; j < theta.length; j++) {
    if (!Number.isFinite(theta[j])) return `${name(j)} became ${theta[j]}`;
  }
  return null;
}

/**
 * The damped Newton direction (−H + λI)⁻¹ g with the smallest λ of 0,
 * 10⁻⁸s, 10⁻⁷s, …, 10⁸s (s the mean |diagonal| of −H) that makes −H + λI
 * positive definite; the gradient scaled by 1/s when none does.
 */
function _dampedNewtonStep(
  negH: Float64Array,
  grad: Float64Array,
): { step: Float64Array; lambda: number } {
  const d = grad.length;
  let scale = 0;
  for (let j = 0; j < d; j++) scale += Math.abs(negH[j * d + j]) / d;
  scale = Math.max(scale, 1e-300);
  const lambdas = [0];
  for (let e = -8; e <= 8; e++) lambdas.push(scale * 10 ** e);
  for (const lambda of lambdas) {
    try {
      const l = cholesky(negH, { name: "−∇² log π", jitter: lambda });
      const step = choleskySolve(l, grad);
      if (step.every(Number.isFinite)) return { step, lambda };
    } catch {
      // not positive definite yet: more damping
    }
  }
  return { step: grad.map((g) => g / scale), lambda: Infinity };
}

/** What {@link dataBasedStart} reads of a model (GlmModel and ShardedGlmModel have it). */
interface _GlmLike {
  readonly dim: number;
  readonly family?: string;
  readonly numCols?: number;
  readonly numRows?: number;
  readonly data?: GlmData;
  readonly priorMean?: Float64Array;
  readonly options?: _GlmOptionsLike;
  readonly glmOptions?: _GlmOptionsLike;
  readonly auxColumn?: "offset" | "trials" | null;
  readRows?(rows: Int32Array, x: Float64Array, y: Float64Array, aux?: Float64Array): void;
}

interface _GlmOptionsLike {
  readonly offset?: ArrayLike<number>;
  readonly trials?: ArrayLike<number>;
  readonly priorMean?: number | ArrayLike<number>;
}

/** Rows {@link dataBasedStart} reads at most (evenly spaced beyond this). */
const _START_ROWS = 20_000;

/**
 * A data-based start for a GLM: the intercept at the response's mean on the
 * link scale (logit of the success rate, log of the mean count minus the
 * mean offset, the mean for Gaussian and Student-t responses), log σ at
 * log sd(y), log φ from the moments (φ = μ²/(Var − μ), or 100 without
 * overdispersion), log(ν − 1) at log 4, and every other coefficient at its
 * prior mean. The moments come from at most 20 000 evenly spaced rows, the
 * same for every kind of GLM model (in memory or sharded), so that they all
 * start alike. Null for a model that is not a GLM (the caller then starts at
 * the prior's centre).
 *
 * @param model A model; GlmModel-like ones (family, numCols, and their data
 *   or `readRows`) get a start.
 * @returns θ₀ (length `model.dim`) or null.
 *
 * @example
 * ```ts ignore
 * import { dataBasedStart } from "./optimize_start.ts";
 * const theta0 = dataBasedStart(model); // model: a GlmModel
 * ```
 *
 * References: Stan Reference Manual, "Initialization"; McCullagh & Nelder
 * (1989), §2.5 (starting values from the link-scale response).
 */
export function dataBasedStart(model: unknown): Float64Array | null {
  const m = model as _GlmLike;
  if (typeof m?.family !== "string" || typeof m.numCols !== "number") return null;
  const p = m.numCols;
  const n = m.data?.numRows ?? m.numRows;
  if (typeof n !== "number" || n < 2 || typeof m.dim !== "number") return null;
  const stride = Math.ceil(n / _START_ROWS), k = Math.ceil(n / stride);
  const rows = Int32Array.from({ length: k }, (_, i) => i * stride);
  const x = new Float64Array(k * p), y = new Float64Array(k);
  // The offset or trials of rows read by index (a row store's aux column), by position.
  let readAux: Float64Array | undefined;
  try {
    if (m.data !== undefined) {
      const v = dataViews(m.data as Parameters<typeof dataViews>[0]);
      for (let i = 0; i < k; i++) {
        const r = rows[i];
        y[i] = v.y[r];
        for (let j = 0; j < p; j++) x[i * p + j] = v.x[r * p + j];
      }
    } else if (typeof m.readRows === "function") {
      if (m.auxColumn === "offset" || m.auxColumn === "trials") readAux = new Float64Array(k);
      m.readRows(rows, x, y, readAux);
    } else return null;
  } catch {
    return null;
  }
  const options = m.options ?? m.glmOptions ?? {};
  const theta = new Float64Array(m.dim);
  const pm = m.priorMean ?? options.priorMean;
  for (let j = 0; j < p; j++) {
    const v = typeof pm === "number" ? pm : pm === undefined ? 0 : Number(pm[j]);
    theta[j] = Number.isFinite(v) ? v : 0;
  }
  // The intercept: a column of ones.
  let intercept = -1;
  for (let j = 0; j < p && intercept < 0; j++) {
    let ones = true;
    for (let i = 0; i < k && ones; i++) ones = x[i * p + j] === 1;
    if (ones) intercept = j;
  }
  let mean = 0, m2 = 0;
  for (let i = 0; i < k; i++) {
    const delta = y[i] - mean;
    mean += delta / (i + 1);
    m2 += delta * (y[i] - mean);
  }
  const variance = k > 1 ? m2 / (k - 1) : 0;
  const sd = Math.sqrt(variance);
  const avg = (a: ArrayLike<number> | undefined, column: "offset" | "trials") => {
    if (readAux !== undefined && m.auxColumn === column) {
      return readAux.reduce((s, v) => s + v, 0) / k;
    }
    if (a === undefined) return 0;
    let s = 0;
    for (let i = 0; i < k; i++) s += Number(a[rows[i]]);
    return s / k;
  };
  let linkMean: number;
  switch (m.family) {
    case "logistic":
    case "binomial": {
      const trials = m.family === "binomial" ? avg(options.trials, "trials") : 1;
      const rate = Math.min(Math.max(mean / Math.max(trials, 1e-300), 0.5 / k), 1 - 0.5 / k);
      linkMean = Math.log(rate / (1 - rate));
      break;
    }
    case "poisson":
    case "negative-binomial":
      linkMean = Math.log(Math.max(mean, 0.5 / k)) - avg(options.offset, "offset");
      break;
    default:
      linkMean = mean;
  }
  if (intercept >= 0 && Number.isFinite(linkMean)) theta[intercept] = linkMean;
  if (m.dim > p) {
    let tau: number;
    if (m.family === "negative-binomial") {
      const excess = variance - mean;
      tau = Math.log(excess > 0 ? Math.max(mean * mean / excess, 1e-3) : 100);
    } else {
      tau = Math.log(sd > 0 ? sd : 1);
    }
    theta[p] = Number.isFinite(tau) ? tau : 0;
    if (m.dim > p + 1) theta[p + 1] = Math.log(4);
  }
  return theta.every(Number.isFinite) ? theta : null;
}
