/**
 * Subsampled estimators of the log-posterior gradient for stochastic-gradient
 * samplers (SGLD, SG-HMC, SGNHT, CCAdL), with cost counting.
 *
 * Every estimator draws a fresh subsample u = (u₁, …, uₙ) of the N data rows
 * on each call and returns
 *
 * ```
 *  minibatch:        ∇log p(θ) + (N/n) Σₖ ∇ℓ_{uₖ}(θ)                               (CCAdL eq. 5)
 *  control variate:  ∇log p(θ) + A + B(θ − θ*) + (N/n) Σₖ (∇ℓ_{uₖ}(θ) − ∇q_{uₖ}(θ))  (HMC-ECS eq. 14)
 *  full:             ∇log p(θ) + Σᵢ ∇ℓᵢ(θ)                                        (no noise)
 * ```
 *
 * i.e. the noisy force −∇Ũ(θ). The prior gradient is added once, not scaled.
 * On request it also returns the empirical covariance V(θ) (CCAdL eq. 19) of
 * the n per-row terms whose scaled sum is the noise — gₖ = ∇ℓ_{uₖ}(θ), or the
 * control-variate differences ∇ℓ_{uₖ}(θ) − ∇q_{uₖ}(θ) — so that the noise
 * covariance is Σ(θ) ≈ N²V/n.
 *
 * For GLMs ({@link GlmModel}) the work runs in the WebAssembly core through the
 * model's typed kernels: a plain gradient is one log-likelihood pass over the
 * listed rows; when a covariance is wanted the rows are gathered into a
 * contiguous buffer and one `gradientMoments` pass yields Σgₖ, Σgₖ⊙gₖ and
 * (full) Σgₖgₖᵀ. For any other {@link DataModel} the model's `perRowGradients`
 * are summed in TypeScript. The machinery the minibatch and control-variate
 * estimators share (subsample drawing, buffers, moments) is in
 * subsample_estimator.ts.
 *
 * Cost: each call adds n per-row gradient evaluations to `model.cost.numGradRows`
 * (the control-variate estimator evaluates the same n rows, the Taylor
 * quantities at θ* being cached); passes over the data = numGradRows / N.
 *
 * References: Shang, Zhu, Leimkuhler & Storkey (2015), eqs. 4–5, 16–19;
 * Dang, Quiroz, Kohn, Tran & Villani (2019), eq. 14 and §6.2;
 * Baker, Fearnhead, Fox & Nemeth (2017), control variates for SG-MCMC.
 *
 * @module
 */
import { assertPosition, type CostCounter, type DataModel } from "../models/model.ts";
import type { GlmModel } from "../models/glm.ts";
import { type SubsamplingSupport, subsamplingSupport } from "../models/subsampling_support.ts";
import type { Rng } from "../random/rng.ts";
import type { ControlVariates } from "./control_variates.ts";
import type { GatheredRows } from "./gathered_rows.ts";
import {
  type CovarianceKind,
  type GradientMoments,
  perRowGradientMoments,
} from "./gradient_covariance.ts";
import { SubsampleEstimator } from "./subsample_estimator.ts";

/** Options of {@link GradientEstimator.estimate}. */
export interface EstimateOptions {
  /** Write the gradient estimate here (length d) instead of the estimator's scratch. */
  grad?: Float64Array;
  /** Also return the empirical covariance V(θ) of the per-row terms (eq. 19). */
  covariance?: CovarianceKind;
}

/** One gradient estimate. Arrays other than a caller-given `grad` are reused by the next call. */
export interface GradientEstimate {
  /** ∇log π̂(θ) = −∇Ũ(θ), the noisy log-posterior gradient (length d). */
  readonly grad: Float64Array;
  /** The subsample u (data-row indices, length n). */
  readonly rows: Int32Array;
  /**
   * V(θ): the empirical covariance of the n per-row terms (d variances or the
   * d × d matrix), or null when not requested.
   */
  readonly covariance: Float64Array | null;
}

/** A subsampled gradient estimator, shared by every stochastic-gradient sampler. */
export interface GradientEstimator {
  /** Which estimator this is. */
  readonly kind: "minibatch" | "control-variate" | "full";
  /** Dimension d. */
  readonly dim: number;
  /** Number of data rows N. */
  readonly numRows: number;
  /** Subsample size n (N for the full gradient). */
  readonly batchSize: number;
  /** The model's cost counter (per-row gradient evaluations). */
  readonly cost: CostCounter;
  /**
   * Draw a fresh subsample and estimate ∇log π(θ).
   *
   * @param theta Position θ (length d).
   * @param rng Generator for the subsample.
   * @param options Output array, covariance wanted.
   * @returns The estimate.
   */
  estimate(theta: Float64Array, rng: Rng, options?: EstimateOptions): GradientEstimate;
  /**
   * Release the estimator's buffers in the arena (GLMs; the model and any
   * control variates are not disposed). The estimator must not be used after.
   *
   * @returns Nothing.
   */
  dispose(): void;
}

/** Options of {@link minibatchGradient} and {@link controlVariateGradient}. */
export interface MinibatchOptions {
  /** Subsample size n (1 ≤ n ≤ N; n ≥ 2 if a covariance is requested). */
  batchSize: number;
  /** Draw rows with replacement (default false: a subset without replacement). */
  replace?: boolean;
  /**
   * What the model can do, when the caller has decided it already (default:
   * `subsamplingSupport(model)`): an in-memory compact GLM's rows are
   * gathered and evaluated by its fused kernels, any other model's through
   * `perRowGradients`.
   */
  support?: SubsamplingSupport | null;
}

/** Options of {@link controlVariateGradient}. */
export interface ControlVariateGradientOptions extends MinibatchOptions {
  /**
   * For a {@link GlmModel}: Taylor control variates of order 0, 1 or 2 centred
   * at θ* (shared with HMC-ECS; re-centring them is picked up automatically).
   * For any other {@link DataModel}: omit it and give `thetaStar` (order 1,
   * ∇qᵢ = ∇ℓᵢ(θ*)).
   */
  controlVariates?: ControlVariates;
  /** Expansion point θ* for a non-GLM model (order 1). */
  thetaStar?: Float64Array;
}

class _MinibatchEstimator extends SubsampleEstimator {
  readonly kind = "minibatch" as const;

  estimate(theta: Float64Array, rng: Rng, options: EstimateOptions = {}): GradientEstimate {
    const { kind, grad, rows } = this.begin(theta, rng, options);
    const d = this.dim, m = this.batchSize, scale = this.numRows / m;
    let moments: GradientMoments | null = null;
    if (this.glm !== null) {
      if (kind === undefined) {
        this.glm.kernels.logLikelihood(this.glm.data, theta, { rows, grad: this.sum });
      } else {
        (this.gathered as GatheredRows).gather(rows, 0);
        const second = this.glmMoments(theta, kind) as Float64Array;
        moments = { kind, count: m, sum: this.sum, second };
      }
    } else {
      const per = this.tsPerRow(theta, rows);
      if (kind === undefined) {
        this.sum.fill(0);
        for (let k = 0; k < m; k++) for (let j = 0; j < d; j++) this.sum[j] += per[k * d + j];
      } else {
        moments = perRowGradientMoments(per, {
          dim: d,
          count: m,
          kind,
          out: this.momentsOut(kind),
        });
      }
    }
    if (this.glm !== null) this.cost.numGradRows += m; // perRowGradients counts its own rows
    this.model.logPrior(theta, this.priorGrad);
    for (let j = 0; j < d; j++) grad[j] = this.priorGrad[j] + scale * this.sum[j];
    return this.finish(grad, moments, kind, rows);
  }
}

class _ControlVariateEstimator extends SubsampleEstimator {
  readonly kind = "control-variate" as const;
  /** GLM: the shared Taylor control variates. */
  readonly #cv: ControlVariates | null;
  /** Non-GLM: θ*, A = Σ∇ℓᵢ(θ*) and ∇ℓᵢ(θ*) of all N rows (N × d), computed once. */
  readonly #thetaStar: Float64Array | null = null;
  readonly #gradSum: Float64Array | null = null;
  readonly #starPerRow: Float64Array | null = null;
  readonly #cvGrad: Float64Array;

  constructor(model: DataModel, options: ControlVariateGradientOptions) {
    super(model, options);
    const d = this.dim;
    this.#cvGrad = new Float64Array(d);
    if (this.glm !== null) {
      const cv = options.controlVariates;
      if (cv === undefined) {
        throw new TypeError(
          "controlVariates must be given for a GlmModel (new ControlVariates(model, thetaStar))",
        );
      }
      if (cv.model !== this.glm) {
        throw new TypeError(
          "controlVariates were built for a different model than the estimator's",
        );
      }
      this.#cv = cv;
    } else {
      if (options.controlVariates !== undefined) {
        throw new TypeError("controlVariates (GLM Taylor control variates) need a GlmModel");
      }
      const ts = options.thetaStar;
      if (ts === undefined) throw new TypeError("thetaStar must be given for a non-GLM model");
      assertPosition(ts, d, "thetaStar");
      this.#cv = null;
      this.#thetaStar = Float64Array.from(ts);
      this.#gradSum = new Float64Array(d);
      model.logLikelihood(this.#thetaStar, this.#gradSum); // one full pass, counted
      const all = new Int32Array(this.numRows);
      for (let i = 0; i < all.length; i++) all[i] = i;
      this.#starPerRow = new Float64Array(this.numRows * d);
      model.perRowGradients(this.#thetaStar, all, this.#starPerRow); // counted: one more pass
    }
  }

  estimate(theta: Float64Array, rng: Rng, options: EstimateOptions = {}): GradientEstimate {
    const { kind, grad, rows } = this.begin(theta, rng, options);
    const d = this.dim, m = this.batchSize, scale = this.numRows / m;
    let moments: GradientMoments | null = null;
    const cvGrad = this.#cvGrad;
    if (this.#cv !== null) {
      const cv = this.#cv, g = this.gathered as GatheredRows;
      g.gather(rows, 0, cv.cache);
      // rₖ = ℓ'(ηₖ) − q'ₖ(ηₖ), so that ∇ℓₖ(θ) − ∇qₖ(θ) = rₖxₖ (counts m gradient rows).
      // The kernel also returns dₖ = ℓₖ − qₖ, but a gradient estimator does not use
      // them: count gradient rows only, like the plain minibatch estimator.
      const ll = this.cost.numLogLikRows;
      cv.differences(g, theta, { start: 0, end: m });
      this.cost.numLogLikRows = ll;
      const second = this.glmMoments("derivatives", kind);
      if (kind !== undefined) {
        moments = { kind, count: m, sum: this.sum, second: second as Float64Array };
      }
      cv.sumAndGradient(theta, cvGrad); // A + B(θ − θ*)
    } else {
      const per = this.tsPerRow(theta, rows);
      const star = this.#starPerRow as Float64Array;
      for (let k = 0; k < m; k++) {
        const o = rows[k] * d;
        for (let j = 0; j < d; j++) per[k * d + j] -= star[o + j];
      }
      if (kind === undefined) {
        this.sum.fill(0);
        for (let k = 0; k < m; k++) for (let j = 0; j < d; j++) this.sum[j] += per[k * d + j];
      } else {
        moments = perRowGradientMoments(per, {
          dim: d,
          count: m,
          kind,
          out: this.momentsOut(kind),
        });
      }
      cvGrad.set(this.#gradSum as Float64Array);
    }
    this.model.logPrior(theta, this.priorGrad);
    for (let j = 0; j < d; j++) grad[j] = this.priorGrad[j] + cvGrad[j] + scale * this.sum[j];
    return this.finish(grad, moments, kind, rows);
  }
}

class _FullEstimator implements GradientEstimator {
  readonly kind = "full" as const;
  readonly dim: number;
  readonly numRows: number;
  readonly batchSize: number;
  readonly cost: CostCounter;
  readonly #model: DataModel;
  /** The model itself when it is an in-memory compact-family GLM: its gradient-only pass. */
  readonly #glm: GlmModel | null;
  readonly #grad: Float64Array;
  readonly #rows: Int32Array;
  readonly #prior: Float64Array;
  #cov: Float64Array | null = null;

  constructor(model: DataModel) {
    this.#model = model;
    this.dim = model.dim;
    this.numRows = this.batchSize = model.numRows;
    this.cost = model.cost;
    this.#grad = new Float64Array(this.dim);
    this.#prior = new Float64Array(this.dim);
    this.#rows = new Int32Array(0);
    // inMemoryGlm is a compact-family GLM: its gradient-only pass skips ℓ.
    const glm = subsamplingSupport(model)?.inMemoryGlm ?? null;
    this.#glm = glm !== null && (glm as DataModel) === model ? glm : null;
  }

  dispose(): void {}

  estimate(theta: Float64Array, _rng: Rng, options: EstimateOptions = {}): GradientEstimate {
    assertPosition(theta, this.dim);
    const d = this.dim, grad = options.grad ?? this.#grad;
    if (grad.length !== d) throw new RangeError(`grad must have length ${d}, got ${grad.length}`);
    const ll = this.cost.numLogLikRows;
    if (this.#glm !== null) {
      // ∇Σℓᵢ without ℓ, plus the prior's gradient: the bits of the branch below.
      this.#glm.logDensityGradient(theta, grad);
    } else {
      this.#model.logLikelihood(theta, grad);
      this.#model.logPrior(theta, this.#prior);
      for (let j = 0; j < d; j++) grad[j] += this.#prior[j];
    }
    this.cost.numLogLikRows = ll; // only the gradient is used
    let covariance: Float64Array | null = null;
    if (options.covariance !== undefined) {
      const len = options.covariance === "full" ? d * d : d;
      if (this.#cov === null || this.#cov.length !== len) this.#cov = new Float64Array(len);
      covariance = this.#cov.fill(0);
    }
    return { grad, rows: this.#rows, covariance };
  }
}

/**
 * The plain minibatch gradient ∇log p(θ) + (N/n)Σₖ∇ℓ_{uₖ}(θ) over a subsample
 * drawn without (default) or with replacement.
 *
 * @param model Any {@link DataModel}; GLMs run in the WebAssembly core.
 * @param options `batchSize` n and `replace`.
 * @returns The estimator.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { Rng } from "../random/rng.ts";
 * import { minibatchGradient } from "./gradient_estimators.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, [1, 0.5, 1, -1, 1, 2, 1, 0], [1, 0, 1, 1], { numCols: 2 });
 * const model = new GlmModel(data, { family: "logistic" });
 * const est = minibatchGradient(model, { batchSize: 2 });
 * const { grad, covariance } = est.estimate(new Float64Array([0, 0]), new Rng(1), { covariance: "diagonal" });
 * assert.equal(grad.length, 2);
 * assert.equal(covariance?.length, 2);
 * assert.equal(model.cost.numGradRows, 2);
 * ```
 *
 * References: Shang et al. (2015), eqs. 4–5 and 16–19; Welling & Teh (2011).
 */
export function minibatchGradient(model: DataModel, options: MinibatchOptions): GradientEstimator {
  return new _MinibatchEstimator(model, options);
}

/**
 * The control-variate gradient ∇log p(θ) + A + B(θ − θ*) + (N/n)Σₖ(∇ℓ_{uₖ}(θ) −
 * ∇q_{uₖ}(θ)) with Taylor control variates of order 1 (B term absent) or 2
 * around θ*. Unbiased for any θ; its variance vanishes at θ = θ* (order 1) or
 * for quadratic ℓᵢ (order 2), and is small near θ*.
 *
 * @param model A {@link GlmModel} with `controlVariates` prepared at θ*, or any
 *   {@link DataModel} with `thetaStar` (order 1, ∇qᵢ = ∇ℓᵢ(θ*), cached for all
 *   rows at construction: two full gradient passes, counted).
 * @param options `batchSize`, `replace`, and `controlVariates` or `thetaStar`.
 * @returns The estimator.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { normalGammaModel } from "../examples/models/normal_gamma.ts";
 * import { Rng } from "../random/rng.ts";
 * import { controlVariateGradient } from "./gradient_estimators.ts";
 * const model = normalGammaModel(new Float64Array([0.1, -0.4, 1.2, 0.3]));
 * const est = controlVariateGradient(model, { batchSize: 2, thetaStar: new Float64Array([0.2, 1]) });
 * const g = est.estimate(new Float64Array([0.2, 1]), new Rng(3)).grad;
 * const exact = new Float64Array(2);
 * model.logDensityAndGradient(new Float64Array([0.2, 1]), exact);
 * assert.ok(Math.abs(g[0] - exact[0]) < 1e-12); // no noise at θ*
 * ```
 *
 * References: Dang et al. (2019), eq. 14 and §6.2; Baker et al. (2017).
 */
export function controlVariateGradient(
  model: DataModel,
  options: ControlVariateGradientOptions,
): GradientEstimator {
  return new _ControlVariateEstimator(model, options);
}

/**
 * The exact gradient ∇log π(θ) over all rows, behind the estimator interface
 * (for checks and noise-free runs; its covariance is 0).
 *
 * @param model Any {@link DataModel}.
 * @returns The estimator (batchSize = N).
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { normalGammaModel } from "../examples/models/normal_gamma.ts";
 * import { Rng } from "../random/rng.ts";
 * import { fullGradient } from "./gradient_estimators.ts";
 * const model = normalGammaModel(new Float64Array([0.5, -0.5]));
 * assert.equal(fullGradient(model).estimate(new Float64Array([0, 1]), new Rng(1)).grad[0], 0);
 * ```
 *
 * References: Shang et al. (2015), eq. 2.
 */
export function fullGradient(model: DataModel): GradientEstimator {
  return new _FullEstimator(model);
}

/**
 * Passes over the data: per-row gradient evaluations divided by N.
 *
 * @param cost A cost counter.
 * @param numRows N.
 * @returns numGradRows / N.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { passesOverData } from "./gradient_estimators.ts";
 * assert.equal(passesOverData({ numLogLikRows: 0, numGradRows: 500, numHessianRows: 0 }, 100), 5);
 * ```
 *
 * References: Shang et al. (2015), Fig. 2 (x axis).
 */
export function passesOverData(cost: CostCounter, numRows: number): number {
  if (!(numRows > 0)) throw new RangeError(`numRows must be positive, got ${numRows}`);
  return cost.numGradRows / numRows;
}
