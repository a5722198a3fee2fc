/**
 * Generalised linear models over the WebAssembly core: logistic
 * (Bernoulli-logit), Gaussian with known σ, and Poisson with log link, with
 * independent Gaussian priors per coefficient.
 *
 * The data stay in the arena; every evaluation runs through the core's typed
 * {@link GlmKernels} (which copy θ and the gradient through d-sized scratch
 * buffers, negligible next to n rows).
 *
 * ```
 *  log π(θ) = Σⱼ log N(θⱼ | μⱼ, sⱼ²) + Σᵢ ℓ(xᵢᵀθ, yᵢ)
 * ```
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { GlmKernels } from "../core/glm_kernels.ts";
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
  /**
   * The core's kernels for this family, bound to the data's arena (used by
   * the subsampling layer).
   *
   * @internal
   */
  readonly kernels: GlmKernels;
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
  /** The options the model was built with (a copy), so that a worker can rebuild it. */
  readonly options: Readonly<GlmOptions>;
  #logPriorConst: number;
  #priorGrad: Float64Array;

  /**
   * Build the model; allocates small scratch buffers in the data's arena.
   *
   * @param data The data set (from `data/`).
   * @param options Family, σ and prior.
   */
  constructor(data: GlmData, options: GlmOptions) {
    const d = data.numCols;
    const prior = _prior(options, d);
    this.kernels = new GlmKernels(data.arena, {
      family: options.family,
      dim: d,
      sigma: options.sigma,
    });
    this.data = data;
    this.arena = data.arena;
    this.family = options.family;
    this.familyParam = this.kernels.familyParam;
    this.dim = d;
    this.numRows = data.numRows;
    this.parameterNames = data.columnNames;
    this.priorMean = prior.mean;
    this.priorPrecision = prior.precision;
    this.#logPriorConst = prior.logConst;
    this.#priorGrad = new Float64Array(d);
    this.options = _copyOptions(options);
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
    assertPosition(theta, this.dim);
    const ll = this.kernels.logLikelihood(this.data, theta, { grad });
    this.cost.numLogLikRows += this.numRows;
    if (grad) this.cost.numGradRows += this.numRows;
    return ll;
  }

  /** Σ over listed rows of ℓᵢ(θ), optionally with gradient and per-row values. */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options: { grad?: Float64Array; perRow?: Float64Array } = {},
  ): number {
    assertPosition(theta, this.dim);
    const m = rows.length;
    const ll = this.kernels.logLikelihood(this.data, theta, {
      rows,
      grad: options.grad,
      perRow: options.perRow,
    });
    this.cost.numLogLikRows += m;
    if (options.grad) this.cost.numGradRows += m;
    return ll;
  }

  /** Per-row gradients ∇ℓᵢ(θ) = ℓ'(ηᵢ)xᵢ of the listed rows into `out` (m × d). */
  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    const m = rows.length, d = this.dim;
    if (out.length < m * d) {
      throw new RangeError(`out must hold ${m * d} values, got ${out.length}`);
    }
    assertPosition(theta, d);
    this.kernels.rowGradients(this.data, theta, { rows, out });
    this.cost.numGradRows += m;
  }

  /** Σᵢ ∇²ℓᵢ(θ) over all rows (one full data pass) into `out`. */
  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void {
    assertPosition(theta, this.dim);
    this.kernels.hessian(this.data, theta, { out });
    this.cost.numGradRows += this.numRows;
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
    this.kernels.dispose();
  }
}

function _prior(
  options: GlmOptions,
  d: number,
): { mean: Float64Array; precision: Float64Array; logConst: number } {
  const mean = _perCoefficient(options.priorMean ?? 0, d, "priorMean", false);
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
  const precision = scale.map((s) => (Number.isFinite(s) ? 1 / (s * s) : 0));
  let c = 0;
  for (let j = 0; j < d; j++) {
    if (precision[j] > 0) c += -0.5 * Math.log(2 * Math.PI) - Math.log(scale[j]);
  }
  return { mean, precision, logConst: c };
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

function _copyOptions(o: GlmOptions): GlmOptions {
  const copy = (v: number | ArrayLike<number> | undefined) =>
    v === undefined || typeof v === "number" ? v : Array.from(v);
  const out: GlmOptions = { family: o.family };
  if (o.sigma !== undefined) out.sigma = o.sigma;
  if (o.priorScale !== undefined) out.priorScale = copy(o.priorScale);
  if (o.priorMean !== undefined) out.priorMean = copy(o.priorMean);
  if (o.interceptColumn !== undefined) out.interceptColumn = o.interceptColumn;
  if (o.interceptPriorScale !== undefined) out.interceptPriorScale = o.interceptPriorScale;
  return out;
}
