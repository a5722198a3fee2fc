/**
 * The Normal-Gamma model: mean μ and precision γ of a 1-d Gaussian, in pure
 * TypeScript, with its conjugate posterior in closed form.
 *
 * ```
 *  xᵢ | μ, γ ~ N(μ, γ⁻¹)                  i = 1 … N
 *  μ | γ     ~ N(μ₀, (κ₀γ)⁻¹),  γ ~ Gam(α₀, β₀)     (rate β₀; CCAdL §4.1: μ₀ = 0, κ₀ = α₀ = β₀ = 1)
 *  posterior: (μ, γ) | x ~ N(μ | μ_N, (κ_N γ)⁻¹) Gam(γ | α_N, β_N)
 *     κ_N = κ₀ + N,  μ_N = (κ₀μ₀ + N x̄)/κ_N,  α_N = α₀ + N/2,
 *     β_N = β₀ + ½Σ(xᵢ − x̄)² + κ₀N(x̄ − μ₀)²/(2κ_N)
 *  marginals: γ ~ Gam(α_N, β_N);  μ ~ Student-t(2α_N, μ_N, β_N/(α_N κ_N))
 * ```
 *
 * θ = (μ, γ): the samplers work on γ itself, as in the CCAdL paper, whose
 * stochastic gradients (§4.1) are derivatives in γ. γ must stay positive: the
 * log density is −∞ for γ ≤ 0, and {@link NormalGammaModel.bounds} declares
 * the support γ > 0 so that the stochastic-gradient samplers reflect a step
 * that crosses γ = 0 (θ_γ → −θ_γ, p_γ → −p_γ; a reflecting wall leaves the
 * target restricted to γ > 0 invariant). With N = 100 the posterior of γ is
 * Gam(51, ≈50), whose mass below 0.4 is < 1e-8, so reflections only happen in
 * transients from poor starting points.
 *
 * Per-row terms: ℓᵢ = ½log γ − ½log 2π − γ(xᵢ − μ)²/2, ∇ℓᵢ = (γ(xᵢ − μ),
 * 1/(2γ) − (xᵢ − μ)²/2).
 *
 * References: Shang, Zhu, Leimkuhler & Storkey (2015), §4.1 (model, posterior
 * and the stochastic gradients ∇μŨ, ∇γŨ); Murphy (2007), "Conjugate Bayesian
 * analysis of the Gaussian distribution", §3 (Normal-Gamma posterior).
 *
 * @module
 */
import { logGamma } from "../../math/special.ts";
import {
  assertPosition,
  type Bounds,
  type CostCounter,
  newCostCounter,
  type PerRowHessianModel,
} from "../../models/model.ts";

const _HALF_LOG_2PI = 0.9189385332046728;

/** Prior hyper-parameters of {@link normalGammaModel}. */
export interface NormalGammaPrior {
  /** Prior mean μ₀ of μ (default 0). */
  mu0?: number;
  /** Prior precision multiplier κ₀ (default 1). */
  kappa0?: number;
  /** Gamma shape α₀ (default 1). */
  alpha0?: number;
  /** Gamma rate β₀ (default 1). */
  beta0?: number;
}

/** The conjugate posterior N(μ | μ_N, (κ_N γ)⁻¹) Gam(γ | α_N, β_N). */
export interface NormalGammaPosterior {
  /** μ_N. */
  readonly muN: number;
  /** κ_N. */
  readonly kappaN: number;
  /** α_N (shape). */
  readonly alphaN: number;
  /** β_N (rate). */
  readonly betaN: number;
}

/**
 * The Normal-Gamma posterior of a 1-d Gaussian's mean and precision as a
 * {@link DataModel}, with analytic posterior, marginals and exact draws.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { NormalGammaModel } from "./normal_gamma.ts";
 * const model = new NormalGammaModel(new Float64Array([0.3, -1.1, 0.4]));
 * assert.equal(model.posterior.kappaN, 4);
 * assert.equal(model.posterior.alphaN, 2.5);
 * ```
 */
export class NormalGammaModel implements PerRowHessianModel {
  /** The observations x₁ … x_N (copied). */
  readonly x: Float64Array;
  /** d = 2. */
  readonly dim = 2;
  /** N. */
  readonly numRows: number;
  /** ["mu", "gamma"]. */
  readonly parameterNames: readonly string[] = ["mu", "gamma"];
  /** Cost counter. */
  readonly cost: CostCounter = newCostCounter();
  /** μ₀, κ₀, α₀, β₀. */
  readonly prior: Required<NormalGammaPrior>;
  /** The conjugate posterior. */
  readonly posterior: NormalGammaPosterior;
  /** Support of θ = (μ, γ): γ ≥ 0 (the density is 0 at γ = 0). */
  readonly bounds: Bounds = {
    lower: new Float64Array([-Infinity, 0]),
    upper: new Float64Array([Infinity, Infinity]),
  };
  #logPriorConst: number;

  /**
   * Build the model and its conjugate posterior.
   *
   * @param x Observations (at least one, all finite).
   * @param prior Hyper-parameters (defaults: the CCAdL §4.1 prior N(μ|0, γ⁻¹)Gam(γ|1, 1)).
   */
  constructor(x: ArrayLike<number>, prior: NormalGammaPrior = {}) {
    if (x.length === 0) throw new RangeError("x must hold at least one observation, got 0");
    this.x = Float64Array.from(x as ArrayLike<number>);
    for (let i = 0; i < this.x.length; i++) {
      if (!Number.isFinite(this.x[i])) {
        throw new RangeError(`x must be finite, got ${this.x[i]} at index ${i}`);
      }
    }
    const p = {
      mu0: prior.mu0 ?? 0,
      kappa0: prior.kappa0 ?? 1,
      alpha0: prior.alpha0 ?? 1,
      beta0: prior.beta0 ?? 1,
    };
    if (!Number.isFinite(p.mu0)) throw new RangeError(`mu0 must be finite, got ${p.mu0}`);
    for (const k of ["kappa0", "alpha0", "beta0"] as const) {
      if (!(p[k] > 0) || !Number.isFinite(p[k])) {
        throw new RangeError(`${k} must be positive and finite, got ${p[k]}`);
      }
    }
    this.prior = p;
    const n = this.x.length;
    this.numRows = n;
    let mean = 0;
    for (let i = 0; i < n; i++) mean += this.x[i];
    mean /= n;
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (this.x[i] - mean) ** 2;
    const kappaN = p.kappa0 + n;
    this.posterior = {
      kappaN,
      muN: (p.kappa0 * p.mu0 + n * mean) / kappaN,
      alphaN: p.alpha0 + n / 2,
      betaN: p.beta0 + 0.5 * ss + (p.kappa0 * n * (mean - p.mu0) ** 2) / (2 * kappaN),
    };
    this.#logPriorConst = 0.5 * Math.log(p.kappa0) - _HALF_LOG_2PI + p.alpha0 * Math.log(p.beta0) -
      logGamma(p.alpha0);
  }

  /** log p(μ, γ) (−∞ for γ ≤ 0) and optionally its gradient. */
  logPrior(theta: Float64Array, grad?: Float64Array): number {
    const mu = theta[0], g = theta[1], { mu0, kappa0, alpha0, beta0 } = this.prior;
    const r = mu - mu0;
    if (grad) {
      grad[0] = -kappa0 * g * r;
      grad[1] = 0.5 / g - 0.5 * kappa0 * r * r + (alpha0 - 1) / g - beta0;
    }
    if (!(g > 0)) return -Infinity;
    return this.#logPriorConst + (alpha0 - 0.5) * Math.log(g) - 0.5 * kappa0 * g * r * r -
      beta0 * g;
  }

  /** ∇² log p(θ) into `out` (2 × 2). */
  logPriorHessian(theta: Float64Array, out: Float64Array): void {
    const mu = theta[0], g = theta[1], { mu0, kappa0, alpha0 } = this.prior;
    out[0] = -kappa0 * g;
    out[1] = out[2] = -kappa0 * (mu - mu0);
    out[3] = -(alpha0 - 0.5) / (g * g);
  }

  /** Σᵢ ℓᵢ(θ) and optionally Σᵢ ∇ℓᵢ(θ). */
  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    const n = this.numRows, mu = theta[0], g = theta[1], x = this.x;
    let s1 = 0, s2 = 0;
    for (let i = 0; i < n; i++) {
      const r = x[i] - mu;
      s1 += r;
      s2 += r * r;
    }
    this.cost.numLogLikRows += n;
    if (grad) {
      grad[0] = g * s1;
      grad[1] = (0.5 * n) / g - 0.5 * s2;
      this.cost.numGradRows += n;
    }
    if (!(g > 0)) return -Infinity;
    return n * (0.5 * Math.log(g) - _HALF_LOG_2PI) - 0.5 * g * s2;
  }

  /** Σ over listed rows of ℓᵢ(θ), optionally with gradient and per-row values. */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options: { grad?: Float64Array; perRow?: Float64Array } = {},
  ): number {
    const m = rows.length, mu = theta[0], g = theta[1], x = this.x;
    const c = g > 0 ? 0.5 * Math.log(g) - _HALF_LOG_2PI : -Infinity;
    let s1 = 0, s2 = 0, ll = 0;
    for (let k = 0; k < m; k++) {
      const r = x[this.#row(rows, k)] - mu;
      s1 += r;
      s2 += r * r;
      const lk = c - 0.5 * g * r * r;
      ll += lk;
      if (options.perRow) options.perRow[k] = lk;
    }
    this.cost.numLogLikRows += m;
    if (options.grad) {
      options.grad[0] = g * s1;
      options.grad[1] = (0.5 * m) / g - 0.5 * s2;
      this.cost.numGradRows += m;
    }
    return ll;
  }

  /** ∇ℓᵢ(θ) = (γ(xᵢ − μ), 1/(2γ) − (xᵢ − μ)²/2) for the listed rows into `out` (m × 2). */
  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    const m = rows.length, mu = theta[0], g = theta[1], x = this.x, h = 0.5 / g;
    if (out.length < 2 * m) {
      throw new RangeError(`out must hold ${2 * m} values, got ${out.length}`);
    }
    for (let k = 0; k < m; k++) {
      const r = x[this.#row(rows, k)] - mu;
      out[2 * k] = g * r;
      out[2 * k + 1] = h - 0.5 * r * r;
    }
    this.cost.numGradRows += m;
  }

  /**
   * ∇²ℓᵢ(θ) = [[−γ, xᵢ − μ], [xᵢ − μ, −1/(2γ²)]] for the listed rows into
   * `out` (m × 2 × 2), for control variates of order 2.
   */
  perRowHessians(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    const m = rows.length, mu = theta[0], g = theta[1], x = this.x, h = -0.5 / (g * g);
    if (out.length < 4 * m) {
      throw new RangeError(`out must hold ${4 * m} values, got ${out.length}`);
    }
    for (let k = 0; k < m; k++) {
      const r = x[this.#row(rows, k)] - mu;
      out[4 * k] = -g;
      out[4 * k + 1] = out[4 * k + 2] = r;
      out[4 * k + 3] = h;
    }
    this.cost.numHessianRows += m;
  }

  /** Σᵢ ∇²ℓᵢ(θ) into `out` (2 × 2). */
  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void {
    const n = this.numRows, mu = theta[0], g = theta[1];
    let s1 = 0;
    for (let i = 0; i < n; i++) s1 += this.x[i] - mu;
    out[0] = -n * g;
    out[1] = out[2] = s1;
    out[3] = -n / (2 * g * g);
    this.cost.numHessianRows += n;
  }

  /** log π(θ) up to a constant. */
  logDensity(theta: Float64Array): number {
    assertPosition(theta, 2);
    return this.logPrior(theta) + this.logLikelihood(theta);
  }

  /** log π(θ) and its gradient. */
  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    assertPosition(theta, 2);
    const lp = this.logPrior(theta, grad);
    const p0 = grad[0], p1 = grad[1];
    const ll = this.logLikelihood(theta, grad);
    grad[0] += p0;
    grad[1] += p1;
    return lp + ll;
  }

  /**
   * Posterior marginal density of μ: Student-t with 2α_N degrees of freedom,
   * location μ_N and scale² β_N/(α_N κ_N).
   *
   * @param mu The value of μ.
   * @returns p(μ | x).
   */
  marginalDensityMu(mu: number): number {
    const { muN, kappaN, alphaN, betaN } = this.posterior;
    const nu = 2 * alphaN, s = Math.sqrt(betaN / (alphaN * kappaN)), z = (mu - muN) / s;
    const logC = logGamma((nu + 1) / 2) - logGamma(nu / 2) - 0.5 * Math.log(nu * Math.PI) -
      Math.log(s);
    return Math.exp(logC - ((nu + 1) / 2) * Math.log1p((z * z) / nu));
  }

  /**
   * Posterior marginal density of γ: Gam(α_N, β_N) (rate β_N).
   *
   * @param gamma The value of γ.
   * @returns p(γ | x) (0 for γ ≤ 0).
   */
  marginalDensityGamma(gamma: number): number {
    if (!(gamma > 0)) return 0;
    const { alphaN: a, betaN: b } = this.posterior;
    return Math.exp(a * Math.log(b) - logGamma(a) + (a - 1) * Math.log(gamma) - b * gamma);
  }

  /**
   * Posterior means and variances of μ and γ.
   *
   * @returns `{mean: [E μ, E γ], variance: [Var μ, Var γ]}`.
   */
  posteriorMoments(): { mean: [number, number]; variance: [number, number] } {
    const { muN, kappaN, alphaN, betaN } = this.posterior;
    return {
      mean: [muN, alphaN / betaN],
      variance: [betaN / (kappaN * (alphaN - 1)), alphaN / (betaN * betaN)],
    };
  }

  #row(rows: Int32Array, k: number): number {
    const r = rows[k];
    if (!(r >= 0 && r < this.numRows)) {
      throw new RangeError(`row index ${r} at position ${k} is outside [0, ${this.numRows - 1}]`);
    }
    return r;
  }
}

/**
 * Build the Normal-Gamma model of CCAdL §4.1 for observations `x`.
 *
 * @param x Observations.
 * @param prior Hyper-parameters (default μ₀ = 0, κ₀ = α₀ = β₀ = 1).
 * @returns The model.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { normalGammaModel } from "./normal_gamma.ts";
 * const m = normalGammaModel([0.2, -0.2]);
 * const grad = new Float64Array(2);
 * m.logDensityAndGradient(new Float64Array([0, 1]), grad);
 * // ∇μ = −(N+1)μγ + γΣx = 0; ∇γ = (N+1)/(2γ) − μ²/2 − 1 − Σ(x−μ)²/2 = 1.5 − 1 − 0.04
 * assert.equal(grad[0], 0);
 * assert.ok(Math.abs(grad[1] - 0.46) < 1e-12);
 * ```
 *
 * References: Shang et al. (2015), §4.1.
 */
export function normalGammaModel(
  x: ArrayLike<number>,
  prior: NormalGammaPrior = {},
): NormalGammaModel {
  return new NormalGammaModel(x, prior);
}
