/**
 * L1-regularised (Bayesian lasso) linear regression with known noise
 * precision, as a plain TypeScript {@link DataModel}:
 *
 * ```
 *  ℓᵢ(θ)  = ½ log(λ/2π) − (λ/2)(yᵢ − xᵢᵀθ)²        Gaussian errors, precision λ
 *  log ρ(θ) = d log(λ₀/2) − λ₀ ‖θ‖₁                  Laplace prior (gradient −λ₀ sign θ, 0 at θⱼ = 0)
 * ```
 *
 * The kink of the prior at θⱼ = 0 makes the log-posterior gradient jump by
 * 2λ₀ there: the "valley" that throws uncorrected SGLD off in the austerity
 * paper's §5.4.
 *
 * References: Korattikara, Chen & Welling (2014), §5.4 and Fig. 8; Park &
 * Casella (2008), "The Bayesian lasso".
 *
 * @module
 */
import {
  assertPosition,
  type CostCounter,
  type DataModel,
  newCostCounter,
} from "../../models/model.ts";

/** Options of {@link L1RegressionModel}. */
export interface L1RegressionOptions {
  /** Noise precision λ > 0. */
  noisePrecision: number;
  /** Laplace prior rate λ₀ > 0. */
  priorRate: number;
  /** Number of columns d of X (default 1). */
  numCols?: number;
}

/**
 * The posterior of θ ∈ ℝᵈ for y = Xθ + N(0, 1/λ) under a Laplace(λ₀) prior.
 *
 * @example
 * ```ts
 * import { L1RegressionModel } from "./l1_regression.ts";
 * const m = new L1RegressionModel([1, -1, 0.5], [0.6, -0.4, 0.2], { noisePrecision: 3, priorRate: 1 });
 * const g = new Float64Array(1);
 * m.logDensityAndGradient(new Float64Array([0.5]), g);
 * // ∇ = λ Σ xᵢ(yᵢ − θxᵢ) − λ₀ sign θ = 3 · (0.1 − 0.1 − 0.025) − 1
 * if (Math.abs(g[0] - (3 * -0.025 - 1)) > 1e-12) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), §5.4.
 */
export class L1RegressionModel implements DataModel {
  /** Dimension d. */
  readonly dim: number;
  /** Number of rows N. */
  readonly numRows: number;
  /** `theta[0]`, …. */
  readonly parameterNames: readonly string[];
  /** Cost counter. */
  readonly cost: CostCounter = newCostCounter();
  /** λ. */
  readonly noisePrecision: number;
  /** λ₀. */
  readonly priorRate: number;
  readonly #x: Float64Array;
  readonly #y: Float64Array;
  readonly #logNorm: number;

  /**
   * Copy the data and check the settings.
   *
   * @param x Predictors, row-major N × d (copied).
   * @param y Targets, length N (copied).
   * @param options λ, λ₀, d.
   */
  constructor(x: ArrayLike<number>, y: ArrayLike<number>, options: L1RegressionOptions) {
    const d = options.numCols ?? 1;
    if (!Number.isInteger(d) || d < 1) throw new RangeError(`numCols must be ≥ 1, got ${d}`);
    if (x.length !== y.length * d || y.length < 1) {
      throw new RangeError(`x must have ${y.length} × ${d} values, got ${x.length}`);
    }
    for (
      const [name, v] of [["noisePrecision", options.noisePrecision], [
        "priorRate",
        options.priorRate,
      ]] as const
    ) {
      if (!(v > 0) || !Number.isFinite(v)) {
        throw new RangeError(`${name} must be positive and finite, got ${v}`);
      }
    }
    this.dim = d;
    this.numRows = y.length;
    this.parameterNames = Array.from({ length: d }, (_, j) => `theta[${j}]`);
    this.noisePrecision = options.noisePrecision;
    this.priorRate = options.priorRate;
    this.#x = Float64Array.from(x);
    this.#y = Float64Array.from(y);
    this.#logNorm = 0.5 * Math.log(options.noisePrecision / (2 * Math.PI));
  }

  /** log ρ(θ); writes −λ₀ sign(θ) into `grad` if given. */
  logPrior(theta: Float64Array, grad?: Float64Array): number {
    assertPosition(theta, this.dim);
    let s = 0;
    for (let j = 0; j < this.dim; j++) {
      s += Math.abs(theta[j]);
      if (grad) grad[j] = -this.priorRate * Math.sign(theta[j]);
    }
    return this.dim * Math.log(this.priorRate / 2) - this.priorRate * s;
  }

  #rows(
    theta: Float64Array,
    rows: Int32Array | null,
    grad?: Float64Array,
    perRow?: Float64Array,
  ): number {
    assertPosition(theta, this.dim);
    const d = this.dim, lam = this.noisePrecision, x = this.#x, y = this.#y;
    const m = rows === null ? this.numRows : rows.length;
    if (grad) grad.fill(0, 0, d);
    let ll = 0;
    if (d === 1 && rows !== null && !grad && perRow) {
      // The hot path of the approximate MH test: per-row values of a 1-d model.
      const t = theta[0], c = this.#logNorm, h = 0.5 * lam;
      for (let k = 0; k < m; k++) {
        const i = rows[k], r = y[i] - x[i] * t, li = c - h * r * r;
        perRow[k] = li;
        ll += li;
      }
      this.cost.numLogLikRows += m;
      return ll;
    }
    for (let k = 0; k < m; k++) {
      const i = rows === null ? k : rows[k];
      let eta = 0;
      for (let j = 0; j < d; j++) eta += x[i * d + j] * theta[j];
      const r = y[i] - eta, li = this.#logNorm - 0.5 * lam * r * r;
      ll += li;
      if (perRow) perRow[k] = li;
      if (grad) { for (let j = 0; j < d; j++) grad[j] += lam * r * x[i * d + j]; }
    }
    this.cost.numLogLikRows += m;
    if (grad) this.cost.numGradRows += m;
    return ll;
  }

  /** Σᵢ ℓᵢ(θ) over all rows (gradient into `grad` if given). */
  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    return this.#rows(theta, null, grad);
  }

  /** Σ over listed rows, with optional gradient and per-row values. */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options: { grad?: Float64Array; perRow?: Float64Array } = {},
  ): number {
    return this.#rows(theta, rows, options.grad, options.perRow);
  }

  /** ∇ℓᵢ(θ) of the listed rows into `out` (m × d). */
  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    assertPosition(theta, this.dim);
    const d = this.dim, x = this.#x, y = this.#y;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k];
      let eta = 0;
      for (let j = 0; j < d; j++) eta += x[i * d + j] * theta[j];
      const r = this.noisePrecision * (y[i] - eta);
      for (let j = 0; j < d; j++) out[k * d + j] = r * x[i * d + j];
    }
    this.cost.numGradRows += rows.length;
  }

  /** −λ XᵀX into `out` (d × d). */
  logLikelihoodHessian(_theta: Float64Array, out: Float64Array): void {
    const d = this.dim, x = this.#x;
    out.fill(0, 0, d * d);
    for (let i = 0; i < this.numRows; i++) {
      for (let a = 0; a < d; a++) {
        for (let b = 0; b < d; b++) {
          out[a * d + b] -= this.noisePrecision * x[i * d + a] * x[i * d + b];
        }
      }
    }
    this.cost.numHessianRows += this.numRows;
  }

  /** 0 (the Laplace prior is piecewise linear). */
  logPriorHessian(_theta: Float64Array, out: Float64Array): void {
    out.fill(0, 0, this.dim * this.dim);
  }

  /** log π(θ) up to a constant. */
  logDensity(theta: Float64Array): number {
    return this.logPrior(theta) + this.logLikelihood(theta);
  }

  /** log π(θ) and its gradient. */
  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    const gp = new Float64Array(this.dim);
    const lp = this.logPrior(theta, gp);
    const ll = this.logLikelihood(theta, grad);
    for (let j = 0; j < this.dim; j++) grad[j] += gp[j];
    return lp + ll;
  }
}
