/**
 * A {@link DataModel} over a per-row log-likelihood written in TypeScript
 * (ℓᵢ(θ) and ∇ℓᵢ(θ) per row, optionally ∇²ℓᵢ(θ)), with a {@link Prior}:
 * what `defineModel` (models/compose.ts) builds for a TypeScript per-row
 * likelihood over `rows: { count: n }`.
 *
 * @module
 */
import {
  assertPosition,
  type CostCounter,
  type DataModel,
  logPosteriorAndGradient,
  newCostCounter,
  type PerRowHessianModel,
} from "./model.ts";
import type { Prior } from "./priors.ts";

/**
 * A per-row log-likelihood in TypeScript: row i's ℓᵢ(θ) and its gradient.
 * The rows are the function's own (it reads them by index); give
 * `rows: { count: n }`.
 */
export interface RowFunctionLikelihood {
  /** One name per coordinate of θ (their number is the dimension). */
  parameterNames: readonly string[];
  /**
   * ℓᵢ(θ) of row `row`; when `grad` is given, writes ∇ℓᵢ(θ) into it
   * (overwritten, length d). Outside the support return −∞.
   */
  logLikRow(theta: Float64Array, row: number, grad?: Float64Array): number;
  /**
   * ∇²ℓᵢ(θ) of row `row` into `out` (d × d row-major, overwritten). Optional:
   * with it the model has per-row Hessians (HMC-ECS's second-order control
   * variates); without it the full-data Hessian is a central difference of
   * the full-data gradient, and HMC-ECS takes first-order control variates.
   */
  hessianRow?(theta: Float64Array, row: number, out: Float64Array): void;
}

/**
 * A {@link DataModel} over a TypeScript per-row likelihood (built by
 * `defineModel` (models/compose.ts) with `rows: { count: n }`): Σᵢ ℓᵢ(θ) is the sum of
 * `logLikRow` over rows 0 … n−1 in order; the prior is a {@link Prior}.
 * Without `hessianRow` the full-data Hessian is a central difference of the
 * full-data gradient (step 1e-5·max(1, |θⱼ|), symmetrised; 2d gradient
 * passes), which serves the mass matrix and Newton steps.
 */
export class RowFunctionModel implements DataModel {
  /** Dimension d. */
  readonly dim: number;
  /** Rows n. */
  readonly numRows: number;
  /** Parameter names. */
  readonly parameterNames: readonly string[];
  /** Cost counter. */
  readonly cost: CostCounter = newCostCounter();
  /** The prior in force. */
  readonly prior: Prior;
  /** The per-row likelihood. */
  protected readonly likelihood: RowFunctionLikelihood;
  #g: Float64Array;
  #priorGrad: Float64Array;

  /**
   * Build it with `defineModel` (models/compose.ts).
   *
   * @param likelihood The per-row functions.
   * @param numRows n.
   * @param prior The prior (dimension d).
   */
  constructor(likelihood: RowFunctionLikelihood, numRows: number, prior: Prior) {
    this.likelihood = likelihood;
    this.parameterNames = Array.from(likelihood.parameterNames);
    this.dim = this.parameterNames.length;
    this.numRows = numRows;
    this.prior = prior;
    this.#g = new Float64Array(this.dim);
    this.#priorGrad = new Float64Array(this.dim);
  }

  /** log p(θ); writes ∇ log p(θ) into `grad` when given. */
  logPrior(theta: Float64Array, grad?: Float64Array): number {
    return this.prior.logDensity(theta, grad);
  }

  /** ∇² log p(θ) into `out`. */
  logPriorHessian(theta: Float64Array, out: Float64Array): void {
    this.prior.hessian(theta, out);
  }

  /** Σᵢ ℓᵢ(θ) over all rows; Σᵢ ∇ℓᵢ(θ) into `grad` when given. */
  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    assertPosition(theta, this.dim);
    const d = this.dim, g = this.#g;
    if (grad) grad.fill(0, 0, d);
    let ll = 0;
    for (let i = 0; i < this.numRows; i++) {
      ll += this.likelihood.logLikRow(theta, i, grad ? g : undefined);
      if (grad) { for (let j = 0; j < d; j++) grad[j] += g[j]; }
    }
    this.cost.numLogLikRows += this.numRows;
    if (grad) this.cost.numGradRows += this.numRows;
    return ll;
  }

  /** Σ over `rows` of ℓᵢ(θ) (repeats counted); their gradient sum and per-row values when asked. */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options: { grad?: Float64Array; perRow?: Float64Array } = {},
  ): number {
    assertPosition(theta, this.dim);
    const d = this.dim, g = this.#g, grad = options.grad, perRow = options.perRow;
    if (grad) grad.fill(0, 0, d);
    let ll = 0;
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k];
      if (!(r >= 0 && r < this.numRows)) {
        throw new RangeError(`row index ${r} at position ${k} is outside [0, ${this.numRows - 1}]`);
      }
      const v = this.likelihood.logLikRow(theta, r, grad ? g : undefined);
      ll += v;
      if (perRow) perRow[k] = v;
      if (grad) { for (let j = 0; j < d; j++) grad[j] += g[j]; }
    }
    this.cost.numLogLikRows += rows.length;
    if (grad) this.cost.numGradRows += rows.length;
    return ll;
  }

  /** ∇ℓᵢ(θ) of the listed rows into `out` (rows.length × d). */
  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    assertPosition(theta, this.dim);
    const d = this.dim, g = this.#g;
    for (let k = 0; k < rows.length; k++) {
      this.likelihood.logLikRow(theta, rows[k], g);
      out.set(g, k * d);
    }
    this.cost.numGradRows += rows.length;
  }

  /** Σᵢ ∇²ℓᵢ(θ) into `out` (see the class notes). */
  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void {
    assertPosition(theta, this.dim);
    const d = this.dim, t = Float64Array.from(theta);
    const gp = new Float64Array(d), gm = new Float64Array(d);
    for (let j = 0; j < d; j++) {
      const h = 1e-5 * Math.max(1, Math.abs(theta[j]));
      t[j] = theta[j] + h;
      this.logLikelihood(t, gp);
      t[j] = theta[j] - h;
      this.logLikelihood(t, gm);
      t[j] = theta[j];
      for (let i = 0; i < d; i++) out[i * d + j] = (gp[i] - gm[i]) / (2 * h);
    }
    for (let i = 0; i < d; i++) {
      for (let j = i + 1; j < d; j++) {
        const s = 0.5 * (out[i * d + j] + out[j * d + i]);
        out[i * d + j] = s;
        out[j * d + i] = s;
      }
    }
  }

  /** log π(θ). */
  logDensity(theta: Float64Array): number {
    return this.logLikelihood(theta) + this.logPrior(theta);
  }

  /** log π(θ); ∇ log π(θ) into `grad`. */
  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    return logPosteriorAndGradient(this, theta, grad, this.#priorGrad);
  }
}

/** A {@link RowFunctionModel} whose likelihood gives per-row Hessians. */
export class RowFunctionHessianModel extends RowFunctionModel implements PerRowHessianModel {
  #h: Float64Array;

  /**
   * Build it with `defineModel` (models/compose.ts).
   *
   * @param likelihood The per-row functions, `hessianRow` included.
   * @param numRows n.
   * @param prior The prior.
   */
  constructor(likelihood: RowFunctionLikelihood, numRows: number, prior: Prior) {
    super(likelihood, numRows, prior);
    this.#h = new Float64Array(this.dim * this.dim);
  }

  /** Σᵢ ∇²ℓᵢ(θ) into `out` (d × d, from `hessianRow`). */
  override logLikelihoodHessian(theta: Float64Array, out: Float64Array): void {
    assertPosition(theta, this.dim);
    const dd = this.dim * this.dim, h = this.#h;
    out.fill(0, 0, dd);
    for (let i = 0; i < this.numRows; i++) {
      this.likelihood.hessianRow!(theta, i, h);
      for (let k = 0; k < dd; k++) out[k] += h[k];
    }
    this.cost.numHessianRows += this.numRows;
  }

  /** ∇²ℓᵢ(θ) of the listed rows into `out` (rows.length × d × d). */
  perRowHessians(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    assertPosition(theta, this.dim);
    const dd = this.dim * this.dim, h = this.#h;
    for (let k = 0; k < rows.length; k++) {
      this.likelihood.hessianRow!(theta, rows[k], h);
      out.set(h, k * dd);
    }
    this.cost.numHessianRows += rows.length;
  }
}
