/**
 * The Gaussian-mean posterior of Betancourt (2015), eq. (2), and its
 * D-dimensional product version, eq. (3): everything in closed form.
 *
 * ```
 *  y_{n,d} | μ ~ N(μ_d, σ²)      n = 1 … N,  d = 1 … D     (data N × D, row-major)
 *  μ_d ~ N(m, s²)                                           (paper: σ = 2, m = 0, s = 1, N = 500)
 *  posterior: μ_d | y ~ N(μ̂_d, 1/P),  P = 1/s² + N/σ²,  μ̂_d = (m/s² + Σₙ y_{n,d}/σ²)/P
 *  batches of B rows, J = N/B:  Vⱼ(μ) = −(1/J) log p(μ) − Σ_{n ∈ j} log N(y_n | μ, σ²)
 *  J·Vⱼ(μ) = const + ½ Pⱼ Σ_d (μ_d − cⱼ_d)²,  Pⱼ = 1/s² + J·B/σ² (= P),
 *            cⱼ_d = (m/s² + J Σ_{n ∈ j} y_{n,d}/σ²)/Pⱼ
 * ```
 *
 * Sums are kept as batch means and within-batch sums of squares, so every
 * evaluation is O(D) (Σ(y − μ)² = SS + B(ȳ − μ)², exact and free of
 * cancellation) while cost is still counted per row, the papers' unit.
 *
 * References: Betancourt (2015), "The fundamental incompatibility of scalable
 * Hamiltonian Monte Carlo and naive data subsampling", eqs. (2) and (3) and
 * the expression for Vⱼ in §3.1.
 *
 * @module
 */
import { Rng } from "../../random/rng.ts";
import type { BatchedPotential } from "../../models/batch_potential.ts";
import {
  assertPosition,
  type CostCounter,
  newCostCounter,
  type PerRowHessianModel,
} from "../../models/model.ts";

const _LOG_2PI = 1.8378770664093453;

/** Data of {@link GaussianMeanModel}: N rows of D values. */
export interface GaussianMeanData {
  /** y, N × D row-major. */
  readonly y: Float64Array;
  /** N. */
  readonly numRows: number;
  /** D. */
  readonly dim: number;
  /** The μ the data were drawn from (length D), if known. */
  readonly trueMean?: Float64Array;
}

/** Options of {@link gaussianMeanData}. */
export interface GaussianMeanDataOptions {
  /** N (default 500, as in the paper). */
  numRows?: number;
  /** D (default 1). */
  dim?: number;
  /** σ (default 2). */
  sigma?: number;
  /** True μ (length D); default μ = 1 for D = 1 (eq. 2) and μ_d ~ N(0, 1) otherwise (eq. 3). */
  trueMean?: Float64Array;
  /** Seed of the generator (default 1). */
  seed?: number | string;
}

/**
 * Draw y_{n,d} ~ N(μ_d, σ²) as in the paper's experiments.
 *
 * @param options N, D, σ, the true μ and the seed.
 * @returns The data.
 *
 * @example
 * ```ts
 * import { gaussianMeanData } from "./gaussian_mean.ts";
 * const data = gaussianMeanData({ seed: 3 });
 * if (data.numRows !== 500 || data.dim !== 1 || data.trueMean?.[0] !== 1) throw new Error();
 * ```
 *
 * References: Betancourt (2015), §3.1 (σ = 2, N = 500, μ = 1; μ_d ~ N(0, 1) for eq. 3).
 */
export function gaussianMeanData(options: GaussianMeanDataOptions = {}): GaussianMeanData {
  const n = options.numRows ?? 500, d = options.dim ?? 1, sigma = options.sigma ?? 2;
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`numRows must be a positive integer, got ${n}`);
  }
  if (!Number.isInteger(d) || d < 1) {
    throw new RangeError(`dim must be a positive integer, got ${d}`);
  }
  if (!(sigma > 0) || !Number.isFinite(sigma)) {
    throw new RangeError(`sigma must be positive and finite, got ${sigma}`);
  }
  const rng = new Rng(options.seed ?? 1);
  let mu = options.trueMean;
  if (mu === undefined) {
    mu = d === 1 ? new Float64Array([1]) : rng.fillNormal(new Float64Array(d));
  } else if (mu.length !== d) {
    throw new RangeError(`trueMean must have length ${d}, got ${mu.length}`);
  }
  const y = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < d; k++) y[i * d + k] = mu[k] + sigma * rng.normal();
  }
  return { y, numRows: n, dim: d, trueMean: Float64Array.from(mu) };
}

/** Options of {@link GaussianMeanModel}. */
export interface GaussianMeanOptions {
  /** Likelihood sd σ (default 2). */
  sigma?: number;
  /** Prior mean m (default 0). */
  priorMean?: number;
  /** Prior sd s (default 1). */
  priorSd?: number;
}

/**
 * The closed-form batched potential of {@link GaussianMeanModel}: Vⱼ and the
 * quadratic form of J·Vⱼ (precision and centre).
 */
export interface GaussianMeanBatches extends BatchedPotential {
  /** Pⱼ, the precision of J·Vⱼ in every coordinate (equals P when N = J·B). */
  readonly precision: number;
  /** cⱼ: the minimiser of J·Vⱼ, J × D row-major. */
  readonly centers: Float64Array;
}

/**
 * The posterior of eqs. (2)–(3) as a {@link PerRowHessianModel} with closed-form
 * batch potentials ({@link GaussianMeanModel.batches}).
 *
 * @example
 * ```ts
 * import { GaussianMeanModel, gaussianMeanData } from "./gaussian_mean.ts";
 * const model = new GaussianMeanModel(gaussianMeanData());
 * // P = 1/s² + N/σ² = 1 + 500/4.
 * if (model.posteriorPrecision !== 126) throw new Error();
 * ```
 *
 * References: Betancourt (2015), eqs. (2), (3).
 */
export class GaussianMeanModel implements PerRowHessianModel {
  /** D. */
  readonly dim: number;
  /** N. */
  readonly numRows: number;
  /** "mu[1]" … "mu[D]". */
  readonly parameterNames: readonly string[];
  /** Cost counter (per-row evaluations). */
  readonly cost: CostCounter = newCostCounter();
  /** The data (not copied; do not modify). */
  readonly data: GaussianMeanData;
  /** σ, m, s. */
  readonly options: Required<GaussianMeanOptions>;
  /** P = 1/s² + N/σ² (the same in every coordinate). */
  readonly posteriorPrecision: number;
  /** μ̂ (length D). */
  readonly posteriorMean: Float64Array;
  #mean: Float64Array; // ȳ_d
  #ss: Float64Array; // Σₙ (y_{n,d} − ȳ_d)²
  #batches = new Map<number, GaussianMeanBatches>();

  /**
   * Build the model and its closed-form posterior from the data.
   *
   * @param data N × D observations (e.g. from {@link gaussianMeanData}).
   * @param options σ, m, s (defaults: the paper's 2, 0, 1).
   */
  constructor(data: GaussianMeanData, options: GaussianMeanOptions = {}) {
    const { numRows: n, dim: d, y } = data;
    if (!Number.isInteger(n) || n < 1 || !Number.isInteger(d) || d < 1 || y.length !== n * d) {
      throw new RangeError(
        `data.y must hold numRows × dim = ${n} × ${d} values, got ${y.length}`,
      );
    }
    const o = {
      sigma: options.sigma ?? 2,
      priorMean: options.priorMean ?? 0,
      priorSd: options.priorSd ?? 1,
    };
    for (const k of ["sigma", "priorSd"] as const) {
      if (!(o[k] > 0) || !Number.isFinite(o[k])) {
        throw new RangeError(`${k} must be positive and finite, got ${o[k]}`);
      }
    }
    this.options = o;
    this.data = data;
    this.dim = d;
    this.numRows = n;
    this.parameterNames = Array.from({ length: d }, (_, k) => `mu[${k + 1}]`);
    const stats = _stats(y, d, 0, n);
    this.#mean = stats.mean;
    this.#ss = stats.ss;
    const s2 = o.sigma * o.sigma, t2 = o.priorSd * o.priorSd;
    this.posteriorPrecision = 1 / t2 + n / s2;
    this.posteriorMean = this.#mean.map((m) =>
      (o.priorMean / t2 + (n * m) / s2) / this.posteriorPrecision
    );
  }

  /** log p(μ) = Σ_d log N(μ_d | m, s²); writes the gradient into `grad` if given. */
  logPrior(theta: Float64Array, grad?: Float64Array): number {
    assertPosition(theta, this.dim);
    const { priorMean: m, priorSd: s } = this.options;
    let q = 0;
    for (let k = 0; k < this.dim; k++) {
      const r = theta[k] - m;
      q += r * r;
      if (grad) grad[k] = -r / (s * s);
    }
    return -0.5 * q / (s * s) - this.dim * (Math.log(s) + 0.5 * _LOG_2PI);
  }

  /** ∇² log p = −I/s². */
  logPriorHessian(_theta: Float64Array, out: Float64Array): void {
    _diagonal(out, this.dim, -1 / this.options.priorSd ** 2);
  }

  /** Σₙ ℓₙ(μ) over all rows (O(D) from sufficient statistics; counts N rows). */
  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    assertPosition(theta, this.dim);
    this.cost.numLogLikRows += this.numRows;
    if (grad) this.cost.numGradRows += this.numRows;
    return _logLik(theta, this.#mean, this.#ss, 0, this.numRows, this.options.sigma, grad);
  }

  /** Σ over the listed rows of ℓₙ(μ), with gradient and per-row values if asked. */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options: { grad?: Float64Array; perRow?: Float64Array } = {},
  ): number {
    assertPosition(theta, this.dim);
    const d = this.dim, y = this.data.y, s2 = this.options.sigma ** 2;
    const c = -0.5 * d * (_LOG_2PI + Math.log(s2));
    const { grad, perRow } = options;
    if (grad) grad.fill(0);
    let total = 0;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k];
      if (!Number.isInteger(i) || i < 0 || i >= this.numRows) {
        throw new RangeError(`rows must be in [0, ${this.numRows}), got ${i} at index ${k}`);
      }
      let q = 0;
      for (let j = 0; j < d; j++) {
        const r = y[i * d + j] - theta[j];
        q += r * r;
        if (grad) grad[j] += r / s2;
      }
      const l = c - 0.5 * q / s2;
      if (perRow) perRow[k] = l;
      total += l;
    }
    this.cost.numLogLikRows += rows.length;
    if (grad) this.cost.numGradRows += rows.length;
    return total;
  }

  /** Per-row gradients (y_n − μ)/σ² into `out` (rows.length × D). */
  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    assertPosition(theta, this.dim);
    const d = this.dim, y = this.data.y, s2 = this.options.sigma ** 2;
    for (let k = 0; k < rows.length; k++) {
      for (let j = 0; j < d; j++) out[k * d + j] = (y[rows[k] * d + j] - theta[j]) / s2;
    }
    this.cost.numGradRows += rows.length;
  }

  /**
   * Per-row Hessians ∇²ℓₙ = −I/σ² (the same for every row and every μ) into
   * `out` (rows.length × D × D). Counts rows.length Hessian rows. HMC-ECS's
   * generic proxy stores one such D × D block per row: N·D² numbers.
   */
  perRowHessians(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    assertPosition(theta, this.dim);
    const d = this.dim, dd = d * d, v = -1 / this.options.sigma ** 2;
    if (out.length < rows.length * dd) {
      throw new RangeError(`out must hold rows.length × D × D = ${rows.length * dd} values`);
    }
    out.fill(0, 0, rows.length * dd);
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k];
      if (!Number.isInteger(i) || i < 0 || i >= this.numRows) {
        throw new RangeError(`rows must be in [0, ${this.numRows}), got ${i} at index ${k}`);
      }
      for (let j = 0; j < d; j++) out[k * dd + j * d + j] = v;
    }
    this.cost.numHessianRows += rows.length;
  }

  /** Σₙ ∇²ℓₙ = −(N/σ²) I (closed form: no row is evaluated, none is counted). */
  logLikelihoodHessian(_theta: Float64Array, out: Float64Array): void {
    _diagonal(out, this.dim, -this.numRows / this.options.sigma ** 2);
  }

  /** log π(μ) = log p(μ) + Σₙ ℓₙ(μ) (normalising constants of p(y|μ) and p(μ) included). */
  logDensity(theta: Float64Array): number {
    return this.logPrior(theta) + this.logLikelihood(theta);
  }

  /** log π(μ) and its gradient. */
  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    const g = new Float64Array(this.dim);
    const lp = this.logPrior(theta, g);
    const ll = this.logLikelihood(theta, grad);
    for (let k = 0; k < this.dim; k++) grad[k] += g[k];
    return lp + ll;
  }

  /**
   * The J = N/B contiguous batch potentials Vⱼ in closed form (cached per B).
   * Each call counts B per-row evaluations (and B gradients when asked).
   *
   * @param batchSize B, dividing N.
   * @returns Vⱼ, the precision and the centres cⱼ of J·Vⱼ.
   * @throws {RangeError} If B does not divide N.
   *
   * @example
   * ```ts
   * import { GaussianMeanModel, gaussianMeanData } from "./gaussian_mean.ts";
   * const model = new GaussianMeanModel(gaussianMeanData());
   * const b = model.batches(20);
   * if (b.numBatches !== 25 || b.precision !== model.posteriorPrecision) throw new Error();
   * ```
   *
   * References: Betancourt (2015), §3.1 (Vⱼ of eq. 2).
   */
  batches(batchSize: number): GaussianMeanBatches {
    const n = this.numRows, d = this.dim;
    if (!Number.isInteger(batchSize) || batchSize < 1 || n % batchSize !== 0) {
      throw new RangeError(
        `batchSize must be a positive integer dividing the ${n} rows, got ${batchSize}`,
      );
    }
    const cached = this.#batches.get(batchSize);
    if (cached) return cached;
    const numBatches = n / batchSize;
    const means = new Float64Array(numBatches * d), sss = new Float64Array(numBatches * d);
    for (let j = 0; j < numBatches; j++) {
      const s = _stats(this.data.y, d, j * batchSize, batchSize);
      means.set(s.mean, j * d);
      sss.set(s.ss, j * d);
    }
    const { sigma, priorMean, priorSd } = this.options;
    const s2 = sigma * sigma, t2 = priorSd * priorSd;
    const precision = 1 / t2 + (numBatches * batchSize) / s2;
    const centers = means.map((m) =>
      (priorMean / t2 + (numBatches * batchSize * m) / s2) / precision
    );
    const priorGrad = new Float64Array(d);
    const logPrior = (x: Float64Array, g?: Float64Array) => this.logPrior(x, g);
    const cost = this.cost;
    const out: GaussianMeanBatches = {
      dim: d,
      numBatches,
      batchSize,
      precision,
      centers,
      batchPotential(theta: Float64Array, batch: number, grad?: Float64Array): number {
        assertPosition(theta, d);
        if (!Number.isInteger(batch) || batch < 0 || batch >= numBatches) {
          throw new RangeError(`batch must be an integer in [0, ${numBatches}), got ${batch}`);
        }
        const lp = logPrior(theta, grad ? priorGrad : undefined);
        const ll = _logLik(theta, means, sss, batch * d, batchSize, sigma, grad);
        cost.numLogLikRows += batchSize;
        if (grad) {
          cost.numGradRows += batchSize;
          for (let k = 0; k < d; k++) grad[k] = -grad[k] - priorGrad[k] / numBatches;
        }
        return -ll - lp / numBatches;
      },
    };
    this.#batches.set(batchSize, out);
    return out;
  }
}

/** Batch mean and within-batch sum of squares per coordinate (two-pass). */
function _stats(
  y: Float64Array,
  d: number,
  firstRow: number,
  numRows: number,
): { mean: Float64Array; ss: Float64Array } {
  const mean = new Float64Array(d), ss = new Float64Array(d);
  for (let i = firstRow; i < firstRow + numRows; i++) {
    for (let k = 0; k < d; k++) mean[k] += y[i * d + k];
  }
  for (let k = 0; k < d; k++) mean[k] /= numRows;
  for (let i = firstRow; i < firstRow + numRows; i++) {
    for (let k = 0; k < d; k++) ss[k] += (y[i * d + k] - mean[k]) ** 2;
  }
  return { mean, ss };
}

/** Σₙ log N(yₙ | μ, σ²) over n rows with means/ss at `offset`; gradient Σ (yₙ − μ)/σ². */
function _logLik(
  theta: Float64Array,
  means: Float64Array,
  sss: Float64Array,
  offset: number,
  n: number,
  sigma: number,
  grad?: Float64Array,
): number {
  const d = theta.length, s2 = sigma * sigma;
  let q = 0;
  for (let k = 0; k < d; k++) {
    const r = means[offset + k] - theta[k];
    q += sss[offset + k] + n * r * r;
    if (grad) grad[k] = (n * r) / s2;
  }
  return -0.5 * q / s2 - 0.5 * n * d * (_LOG_2PI + Math.log(s2));
}

function _diagonal(out: Float64Array, d: number, v: number): void {
  out.fill(0);
  for (let k = 0; k < d; k++) out[k * d + k] = v;
}
