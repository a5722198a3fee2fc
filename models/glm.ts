/**
 * Generalised linear models over the WebAssembly core: logistic
 * (Bernoulli-logit), Gaussian with known σ, and Poisson with log link, with
 * independent Gaussian priors per coefficient.
 *
 * The data stay in the arena; θ and the gradient are copied into small scratch
 * buffers there for each evaluation (d numbers, negligible next to n rows).
 *
 * ```
 *  log π(θ) = Σⱼ log N(θⱼ | μⱼ, sⱼ²) + Σᵢ ℓ(xᵢᵀθ, yᵢ)
 * ```
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { FAMILY_GAUSSIAN, FAMILY_LOGISTIC, FAMILY_POISSON } from "../core/exports.ts";
import type { CoreExports } from "../core/exports.ts";
import type { GlmData } from "../data/dataset.ts";
import { assertPosition, type CostCounter, type DataModel, newCostCounter } from "./model.ts";

/** The GLM families tallmc implements. */
export type GlmFamily = "logistic" | "gaussian" | "poisson";

/** Options of {@link GlmModel}. */
export interface GlmOptions {
  /** The response family. */
  family: GlmFamily;
  /** Known residual sd of the Gaussian family (required for "gaussian"). */
  sigma?: number;
  /** Prior sd per coefficient: one number for all, or one per column. Default 10. */
  priorScale?: number | ArrayLike<number>;
  /** Prior mean per coefficient: one number or one per column. Default 0. */
  priorMean?: number | ArrayLike<number>;
  /**
   * Index of an intercept column whose prior is set by `interceptPriorScale`
   * instead (default: none).
   */
  interceptColumn?: number;
  /** Prior sd of the intercept column; `Infinity` gives a flat prior. */
  interceptPriorScale?: number;
}

const _FAMILY_CODES: Record<GlmFamily, number> = {
  logistic: FAMILY_LOGISTIC,
  gaussian: FAMILY_GAUSSIAN,
  poisson: FAMILY_POISSON,
};

/**
 * A GLM posterior over data in WebAssembly memory, implementing
 * {@link DataModel}.
 *
 * @example
 * ```ts
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "./glm.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, [1, 0.3, 1, -1.2, 1, 0.8], [1, 0, 1], { numCols: 2 });
 * const model = new GlmModel(data, { family: "logistic", priorScale: 5 });
 * const grad = new Float64Array(2);
 * const lp = model.logDensityAndGradient(new Float64Array([0.1, 0.2]), grad);
 * if (!Number.isFinite(lp) || model.cost.numGradRows !== 3) throw new Error();
 * ```
 */
export class GlmModel implements DataModel {
  /** The data set. */
  readonly data: GlmData;
  /** The arena holding the data and scratch buffers. */
  readonly arena: Arena;
  /** The family. */
  readonly family: GlmFamily;
  /** The family's code in the core ABI. */
  readonly familyCode: number;
  /** The family parameter passed to kernels (σ for Gaussian, else 0). */
  readonly familyParam: number;
  /** Dimension d = number of columns. */
  readonly dim: number;
  /** Number of rows n. */
  readonly numRows: number;
  /** Column names of X. */
  readonly parameterNames: readonly string[];
  /** Cost counter. */
  readonly cost: CostCounter = newCostCounter();
  /** Prior means (length d). */
  readonly priorMean: Float64Array;
  /** Prior precisions 1/s² (length d; 0 means flat). */
  readonly priorPrecision: Float64Array;
  #thetaPtr: number;
  #gradPtr: number;
  #hessPtr: number;
  #idxPtr = 0;
  #idxCap = 0;
  #rowPtr = 0;
  #rowCap = 0;
  #logPriorConst: number;
  #priorGrad: Float64Array;

  /**
   * Build the model; allocates three small scratch buffers in the data's arena.
   *
   * @param data The data set (from `data/`).
   * @param options Family, σ and prior.
   */
  constructor(data: GlmData, options: GlmOptions) {
    const code = _FAMILY_CODES[options.family];
    if (code === undefined) {
      throw new TypeError(
        `family must be "logistic", "gaussian" or "poisson", got ${JSON.stringify(options.family)}`,
      );
    }
    this.data = data;
    this.arena = data.arena;
    this.family = options.family;
    this.familyCode = code;
    if (options.family === "gaussian") {
      const s = options.sigma;
      if (s === undefined || !(s > 0) || !Number.isFinite(s)) {
        throw new RangeError(
          `sigma must be a positive finite number for the gaussian family, got ${s}`,
        );
      }
      this.familyParam = s;
    } else this.familyParam = 0;
    this.dim = data.numCols;
    this.numRows = data.numRows;
    this.parameterNames = data.columnNames;
    const d = this.dim;
    this.priorMean = _perCoefficient(options.priorMean ?? 0, d, "priorMean", false);
    const scale = _perCoefficient(options.priorScale ?? 10, d, "priorScale", true);
    if (options.interceptColumn !== undefined) {
      const j = options.interceptColumn;
      if (!Number.isInteger(j) || j < 0 || j >= d) {
        throw new RangeError(`interceptColumn must be an integer in [0, ${d - 1}], got ${j}`);
      }
      const s = options.interceptPriorScale ?? scale[j];
      if (!(s > 0)) throw new RangeError(`interceptPriorScale must be positive, got ${s}`);
      scale[j] = s;
    }
    this.priorPrecision = scale.map((s) => (Number.isFinite(s) ? 1 / (s * s) : 0));
    let c = 0;
    for (let j = 0; j < d; j++) {
      if (this.priorPrecision[j] > 0) c += -0.5 * Math.log(2 * Math.PI) - Math.log(scale[j]);
    }
    this.#logPriorConst = c;
    this.#priorGrad = new Float64Array(d);
    this.#thetaPtr = this.arena.allocF64(d);
    this.#gradPtr = this.arena.allocF64(d);
    this.#hessPtr = this.arena.allocF64(d * d);
  }

  /** The core's kernels. */
  get core(): CoreExports {
    return this.arena.exports;
  }

  /**
   * Copy θ into the model's scratch buffer in the arena.
   *
   * @param theta Position (length d).
   * @returns The byte offset of the copy.
   */
  writeTheta(theta: Float64Array): number {
    assertPosition(theta, this.dim);
    this.arena.f64(this.#thetaPtr, this.dim).set(theta);
    return this.#thetaPtr;
  }

  /** log p(θ) and optionally its gradient. */
  logPrior(theta: Float64Array, grad?: Float64Array): number {
    const d = this.dim, mu = this.priorMean, prec = this.priorPrecision;
    let lp = this.#logPriorConst;
    for (let j = 0; j < d; j++) {
      const r = theta[j] - mu[j];
      lp -= 0.5 * prec[j] * r * r;
      if (grad) grad[j] = -prec[j] * r;
    }
    return lp;
  }

  /** ∇² log p(θ) (diagonal) into `out`. */
  logPriorHessian(_theta: Float64Array, out: Float64Array): void {
    const d = this.dim;
    out.fill(0, 0, d * d);
    for (let j = 0; j < d; j++) out[j * d + j] = -this.priorPrecision[j];
  }

  /** Σᵢ ℓᵢ(θ) over all rows and optionally its gradient. */
  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    const t = this.writeTheta(theta), d = this.dim, n = this.numRows, core = this.core;
    const g = grad ? this.#gradPtr : 0;
    if (grad) this.arena.f64(g, d).fill(0);
    const fn = this.data.storage === "f64" ? core.llRange : core.llRangeF32;
    const ll = fn(
      this.familyCode,
      this.familyParam,
      this.data.x,
      this.data.y,
      d,
      0,
      n,
      t,
      g,
      0,
      0,
      0,
    );
    this.cost.numLogLikRows += n;
    if (grad) {
      grad.set(this.arena.f64(g, d));
      this.cost.numGradRows += n;
    }
    return ll;
  }

  /** Σ over listed rows of ℓᵢ(θ), optionally with gradient and per-row values. */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options: { grad?: Float64Array; perRow?: Float64Array } = {},
  ): number {
    const m = rows.length, d = this.dim, core = this.core;
    const t = this.writeTheta(theta);
    const idx = this.#writeRows(rows);
    const g = options.grad ? this.#gradPtr : 0;
    if (g) this.arena.f64(g, d).fill(0);
    const out = options.perRow ? this.#rowScratch(m) : 0;
    const fn = this.data.storage === "f64" ? core.llIdx : core.llIdxF32;
    const ll = fn(
      this.familyCode,
      this.familyParam,
      this.data.x,
      this.data.y,
      d,
      idx,
      m,
      t,
      g,
      out,
      0,
      0,
    );
    this.cost.numLogLikRows += m;
    if (options.grad) {
      options.grad.set(this.arena.f64(g, d));
      this.cost.numGradRows += m;
    }
    if (options.perRow) options.perRow.set(this.arena.f64(out, m));
    return ll;
  }

  /** Per-row gradients ∇ℓᵢ(θ) = ℓ'(ηᵢ)xᵢ of the listed rows into `out` (m × d). */
  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    const m = rows.length, d = this.dim, core = this.core;
    if (out.length < m * d) {
      throw new RangeError(`out must hold ${m * d} values, got ${out.length}`);
    }
    const t = this.writeTheta(theta);
    const idx = this.#writeRows(rows);
    const dl = this.#rowScratch(m);
    const fn = this.data.storage === "f64" ? core.llIdx : core.llIdxF32;
    fn(this.familyCode, this.familyParam, this.data.x, this.data.y, d, idx, m, t, 0, 0, dl, 0);
    const a = this.arena.f64(dl, m);
    const xs = this.data.storage === "f64"
      ? this.arena.f64(this.data.x, this.numRows * d)
      : this.arena.f32(this.data.x, this.numRows * d);
    for (let k = 0; k < m; k++) {
      const base = rows[k] * d, ak = a[k];
      for (let j = 0; j < d; j++) out[k * d + j] = ak * xs[base + j];
    }
    this.cost.numGradRows += m;
  }

  /** Σᵢ ∇²ℓᵢ(θ) over all rows (one full data pass) into `out`. */
  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void {
    const d = this.dim, n = this.numRows, core = this.core;
    const t = this.writeTheta(theta);
    this.arena.f64(this.#hessPtr, d * d).fill(0);
    const fn = this.data.storage === "f64" ? core.hessRange : core.hessRangeF32;
    fn(this.familyCode, this.familyParam, this.data.x, this.data.y, d, 0, n, t, this.#hessPtr);
    out.set(this.arena.f64(this.#hessPtr, d * d));
    this.cost.numGradRows += n;
  }

  /** log π(θ) up to a constant. */
  logDensity(theta: Float64Array): number {
    return this.logPrior(theta) + this.logLikelihood(theta);
  }

  /** log π(θ) and its gradient. */
  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    const ll = this.logLikelihood(theta, grad);
    const priorGrad = this.#priorGrad;
    const lp = this.logPrior(theta, priorGrad);
    for (let j = 0; j < this.dim; j++) grad[j] += priorGrad[j];
    return ll + lp;
  }

  /** Release scratch buffers (the data set itself is not freed). */
  dispose(): void {
    for (const p of [this.#thetaPtr, this.#gradPtr, this.#hessPtr, this.#idxPtr, this.#rowPtr]) {
      if (p) this.arena.free(p);
    }
    this.#idxPtr =
      this.#rowPtr =
      this.#idxCap =
      this.#rowCap =
        0;
  }

  #writeRows(rows: Int32Array): number {
    const m = rows.length, n = this.numRows;
    for (let k = 0; k < m; k++) {
      const r = rows[k];
      if (r < 0 || r >= n) {
        throw new RangeError(`row index ${r} at position ${k} is outside [0, ${n - 1}]`);
      }
    }
    if (m > this.#idxCap) {
      if (this.#idxPtr) this.arena.free(this.#idxPtr);
      this.#idxCap = Math.max(m, 2 * this.#idxCap);
      this.#idxPtr = this.arena.allocI32(this.#idxCap);
    }
    this.arena.i32(this.#idxPtr, m).set(rows);
    return this.#idxPtr;
  }

  #rowScratch(m: number): number {
    if (m > this.#rowCap) {
      if (this.#rowPtr) this.arena.free(this.#rowPtr);
      this.#rowCap = Math.max(m, 2 * this.#rowCap);
      this.#rowPtr = this.arena.allocF64(this.#rowCap);
    }
    return this.#rowPtr;
  }
}

function _perCoefficient(
  v: number | ArrayLike<number>,
  d: number,
  what: string,
  positive: boolean,
): Float64Array {
  const out = new Float64Array(d);
  if (typeof v === "number") out.fill(v);
  else {
    if (v.length !== d) throw new RangeError(`${what} must have ${d} values, got ${v.length}`);
    out.set(Array.from(v));
  }
  for (let j = 0; j < d; j++) {
    const x = out[j];
    if (positive ? !(x > 0) : !Number.isFinite(x)) {
      throw new RangeError(
        `${what} must be ${
          positive ? "positive" : "finite"
        } for every coefficient, got ${x} at index ${j}`,
      );
    }
  }
  return out;
}
