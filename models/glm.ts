/**
 * Generalised linear models over the WebAssembly core, with independent
 * Gaussian priors per coefficient:
 *
 * ```
 *  family               θ               ℓ(η, y)                            needs
 *  "logistic"           β               Bernoulli, logit link
 *  "gaussian"           β               N(η, σ²), σ known                   sigma
 *  "poisson"            β               Poisson, log link, η + offset       [offset]
 *  "gaussian-scale"     (β, log σ)      N(η, σ²), σ unknown                 [scalePrior]
 *  "student-t"          (β, log σ)      t_ν(η, σ), σ unknown, ν fixed       nu, [scalePrior]
 *  "student-t"          (β, log σ,      t_ν(η, σ), σ and ν unknown,          nu: "sample",
 *   with nu: "sample"    log_nu_minus_1) ν = 1 + e^ω                          [scalePrior, nuPrior]
 *  "negative-binomial"  (β, log φ)      NB2: mean μ = e^{η+offset},          [offset, scalePrior]
 *                                       Var = μ + μ²/φ
 *  "binomial"           β               Binomial(N, logit⁻¹ η)              trials
 * ```
 *
 * σ and φ are sampled on the log scale: the last coordinate of θ is τ = log σ
 * (named "log_sigma") or τ = log φ ("log_phi"), and its prior is the prior on
 * σ or φ times the Jacobian e^τ (a {@link ScalePrior} of priors.ts: half_normal,
 * half_t, half_cauchy, exponential, inverse_gamma on σ², or flat; as an
 * object or as text such as `"half_cauchy(1)"`). Formulas and numerics of
 * every family: core/as/family.ts and core/as/family_ext.ts.
 *
 * HMC-ECS and the control-variate gradient estimators use the compact per-row
 * cache (η*, ℓ*, a, b) for "logistic", "gaussian" and "poisson" without an
 * offset ({@link GlmModel.hasCompactCache}); every other family provides
 * per-row Hessians ({@link GlmModel.perRowHessians}) in all parameters —
 * β and τ — and takes the generic per-row control-variate path (O(n·P²)
 * memory for P parameters).
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
import { WindowedRows } from "../core/windowed_rows.ts";
import type { GlmData } from "../data/dataset.ts";
import {
  assertPosition,
  type CostCounter,
  logPosteriorAndGradient,
  type Model,
  newCostCounter,
  type PerRowHessianModel,
} from "./model.ts";
import { parsePriorText } from "./prior_text.ts";
import { logScaleDensity } from "./prior_density.ts";
import type { ScalePrior } from "./priors.ts";
import { checkNuPrior, nuLogPrior, type NuPrior } from "./nu_prior.ts";
import { checkOptionNames } from "../math/names.ts";
import { assertLiveGlmData } from "../data/dataset.ts";
import {
  copyGlmOptions,
  DEFAULT_GLM_SCALE_PRIOR,
  GLM_FAMILIES,
  GLM_OPTION_NAMES,
  glmCoefficientPrior,
  glmKernelFamily,
  type GlmModelFamily,
  type GlmOptions,
} from "./glm_options.ts";
import { glmRowHessians } from "./glm_row_hessians.ts";

export type { NuPrior } from "./nu_prior.ts";
export {
  checkGlmResponse,
  DEFAULT_GLM_SCALE_PRIOR,
  GLM_FAMILIES,
  type GlmFamily,
  type GlmModelFamily,
  type GlmOptions,
  LOG_CONCAVE_GLM_FAMILIES,
} from "./glm_options.ts";
export { glmRowHessians } from "./glm_row_hessians.ts";

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
export class GlmModel implements PerRowHessianModel {
  /** The data set. */
  readonly data: GlmData;
  /** The arena holding the data and scratch buffers. */
  readonly arena: Arena;
  /** The family. */
  readonly family: GlmModelFamily;
  /**
   * The core's kernels for this family, bound to the data's arena (used by
   * the subsampling layer).
   *
   * @internal
   */
  readonly kernels: GlmKernels;
  /** The family parameter passed to kernels (σ for Gaussian, fixed ν for Student-t, else 0). */
  readonly familyParam: number;
  /** Dimension of θ: the number of columns d, plus 1 for log σ or log φ, plus 1 for a sampled ν. */
  readonly dim: number;
  /** Number of columns d of X (coefficients β). */
  readonly numCols: number;
  /** Prior on σ or φ (families with a scale parameter), else null. */
  readonly scalePrior: ScalePrior | null;
  /** Prior on ν (Student-t with `nu: "sample"`), else null. */
  readonly nuPrior: NuPrior | null;
  /** Number of rows n. */
  readonly numRows: number;
  /**
   * Column names of X, then "log_sigma" or "log_phi" for families with τ,
   * then "log_nu_minus_1" for a sampled ν.
   */
  readonly parameterNames: readonly string[];
  /** Cost counter. */
  readonly cost: CostCounter = newCostCounter();
  /** Prior means of β (length d = numCols). */
  readonly priorMean: Float64Array;
  /** Prior precisions 1/s² of β (length d = numCols; 0 means flat). */
  readonly priorPrecision: Float64Array;
  /** The options the model was built with (a copy), so that a worker can rebuild it. */
  readonly options: Readonly<GlmOptions>;
  #scaleDensity: ((tau: number) => [number, number, number]) | null;
  #windowed: WindowedRows | null = null;
  #logPriorConst: number;
  #priorGrad: Float64Array;

  /**
   * Build the model; allocates small scratch buffers in the data's arena.
   *
   * @param data The data set (from `data/`).
   * @param options Family, σ and prior.
   */
  constructor(data: GlmData, options: GlmOptions) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError(`GlmModel options must be an object, got ${String(options)}`);
    }
    checkOptionNames(options, GLM_OPTION_NAMES, "GlmModel");
    if (!(GLM_FAMILIES as readonly string[]).includes(options.family)) {
      throw new TypeError(
        `GlmModel: family must be one of ${GLM_FAMILIES.join(", ")}, got ${
          JSON.stringify(options.family)
        }`,
      );
    }
    assertLiveGlmData(data, "GlmModel");
    const d = data.numCols;
    const prior = glmCoefficientPrior(options, d);
    const kernelFamily = glmKernelFamily(options, data);
    this.kernels = new GlmKernels(data.arena, {
      family: kernelFamily,
      dim: d,
      sigma: options.sigma,
      nu: options.nu === "sample" ? undefined : options.nu,
      aux: kernelFamily === "binomial" ? options.trials : options.offset,
    });
    this.data = data;
    this.arena = data.arena;
    this.family = options.family;
    this.familyParam = this.kernels.familyParam;
    this.numCols = d;
    this.dim = this.kernels.numParams;
    this.numRows = data.numRows;
    const tauName = options.family === "negative-binomial" ? "log_phi" : "log_sigma";
    if (this.dim > d) {
      const sp = options.scalePrior ?? DEFAULT_GLM_SCALE_PRIOR;
      const what = `scalePrior (${tauName})`;
      this.scalePrior = typeof sp === "string" ? parsePriorText(sp, what) as ScalePrior : sp;
      this.#scaleDensity = logScaleDensity(this.scalePrior, what);
    } else {
      if (options.scalePrior !== undefined) {
        throw new TypeError(
          `scalePrior applies to the families with σ or φ (gaussian-scale, student-t, negative-binomial), not ${
            JSON.stringify(options.family)
          }`,
        );
      }
      this.scalePrior = null;
      this.#scaleDensity = null;
    }
    this.nuPrior = this.dim > d + 1 ? checkNuPrior(options.nuPrior) : null;
    this.parameterNames = this.dim > d
      ? [...data.columnNames, tauName, ...(this.dim > d + 1 ? ["log_nu_minus_1"] : [])]
      : data.columnNames;
    this.priorMean = prior.mean;
    this.priorPrecision = prior.precision;
    this.#logPriorConst = prior.logConst;
    this.#priorGrad = new Float64Array(this.dim);
    this.options = copyGlmOptions(options);
    const layout = options.rowLayout ?? "dense";
    if (layout !== "dense" && layout !== "windowed") {
      throw new TypeError(
        `GlmModel: rowLayout must be "dense" or "windowed", got ${JSON.stringify(layout)}`,
      );
    }
    if (layout === "windowed" && this.kernels.hasCompactCache && this.dim === d) {
      this.#windowed = WindowedRows.build(data, {
        family: kernelFamily,
        sigma: this.familyParam,
      });
    }
  }

  /**
   * How the full-data ℓ and ∇ℓ passes read the rows: "windowed" when the
   * `rowLayout: "windowed"` option was given and the data and family allow
   * it, else "dense".
   */
  get rowLayout(): "dense" | "windowed" {
    return this.#windowed === null ? "dense" : "windowed";
  }

  /**
   * Whether HMC-ECS and the gradient estimators can use the compact per-row
   * control-variate cache (η*, ℓ*, a, b): "logistic", "gaussian" and "poisson"
   * without an offset. Other families use per-row Hessians instead.
   */
  get hasCompactCache(): boolean {
    return this.kernels.hasCompactCache;
  }

  /** log p(θ) and optionally its gradient. */
  logPrior(theta: Float64Array, grad?: Float64Array): number {
    const d = this.numCols, mu = this.priorMean, prec = this.priorPrecision;
    let lp = this.#logPriorConst;
    for (let j = 0; j < d; j++) {
      const r = theta[j] - mu[j];
      lp -= 0.5 * prec[j] * r * r;
      if (grad) grad[j] = -prec[j] * r;
    }
    if (this.#scaleDensity !== null) {
      const [l, g] = this.#scaleDensity(theta[d]);
      lp += l;
      if (grad) grad[d] = g;
    }
    if (this.nuPrior !== null) {
      const [l, g] = nuLogPrior(this.nuPrior, theta[d + 1]);
      lp += l;
      if (grad) grad[d + 1] = g;
    }
    return lp;
  }

  /** ∇² log p(θ) (diagonal) into `out`. */
  logPriorHessian(theta: Float64Array, out: Float64Array): void {
    const P = this.dim, d = this.numCols;
    out.fill(0, 0, P * P);
    for (let j = 0; j < d; j++) out[j * P + j] = -this.priorPrecision[j];
    if (this.#scaleDensity !== null) out[d * P + d] = this.#scaleDensity(theta[d])[2];
    if (this.nuPrior !== null) out[(d + 1) * P + d + 1] = nuLogPrior(this.nuPrior, theta[d + 1])[2];
  }

  /** Σᵢ ℓᵢ(θ) over all rows and optionally its gradient. */
  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    assertPosition(theta, this.dim);
    assertLiveGlmData(this.data, "GlmModel.logLikelihood");
    if (
      (this.dim > this.numCols && !(Math.abs(theta[this.numCols]) < 700)) ||
      (this.dim > this.numCols + 1 && !(Math.abs(theta[this.numCols + 1]) < 700))
    ) {
      grad?.fill(0); // σ, φ or ν under- or overflows: zero density (the kernels reject it)
      return -Infinity;
    }
    const ll = this.#windowed !== null
      ? this.#windowed.logLikelihood(theta, grad)
      : this.kernels.logLikelihood(this.data, theta, { grad });
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
    assertLiveGlmData(this.data, "GlmModel.logLikelihoodRows");
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

  /**
   * Per-row Hessians ∇²ℓᵢ(θ) of the listed rows into `out` (m × P × P):
   * ℓ_ηη xᵢxᵢᵀ, and for families with τ the border ℓ_ητ xᵢ and corner ℓ_ττ
   * (with a sampled ν also ℓ_ηω xᵢ, ℓ_τω and ℓ_ωω). Counts m Hessian rows.
   */
  perRowHessians(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    assertPosition(theta, this.dim);
    glmRowHessians(this.kernels, this.data, theta, rows, out);
    this.cost.numHessianRows += rows.length;
  }

  /** Per-row gradients ∇ℓᵢ(θ) of the listed rows into `out` (m × P). */
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
    this.cost.numHessianRows += this.numRows;
  }

  /** log π(θ) up to a constant. */
  logDensity(theta: Float64Array): number {
    return this.logPrior(theta) + this.logLikelihood(theta);
  }

  /** log π(θ) and its gradient. */
  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    return logPosteriorAndGradient(this, theta, grad, this.#priorGrad);
  }

  /**
   * ∇ log π(θ) alone into `grad`: the gradient {@link GlmModel.logDensityAndGradient}
   * writes, bit for bit. For "logistic", "gaussian" and "poisson" without an
   * offset it comes from a pass that skips ℓ per row (`GlmKernels.gradient`);
   * the other families run the combined pass and write NaN where its log
   * density is not finite. Counted as the combined pass (n ℓ rows and n
   * gradient rows): HMC-ECS's leapfrog steps charge ℓ and ∇ per row at every
   * step too, so the evaluation counts the cost comparisons divide stay in
   * one unit whichever pass ran.
   */
  logDensityGradient(theta: Float64Array, grad: Float64Array): void {
    if (!this.kernels.hasCompactCache) {
      if (!Number.isFinite(this.logDensityAndGradient(theta, grad))) grad.fill(NaN);
      return;
    }
    assertPosition(theta, this.dim);
    assertLiveGlmData(this.data, "GlmModel.logDensityGradient");
    if (this.#windowed !== null) this.#windowed.gradient(theta, grad);
    else this.kernels.gradient(this.data, theta, { grad });
    this.cost.numLogLikRows += this.numRows;
    this.cost.numGradRows += this.numRows;
    const pg = this.#priorGrad;
    this.logPrior(theta, pg);
    for (let j = 0; j < this.dim; j++) grad[j] += pg[j];
  }

  /** Release scratch buffers (the data set itself is not freed). */
  dispose(): void {
    this.kernels.dispose();
    this.#windowed?.dispose();
  }
}

/**
 * `model` as an in-memory {@link GlmModel} (the model itself, or a
 * `withPrior` of one), for checks that read a GLM's design, family and prior
 * directly; null for any other model. The model-kind checks live in
 * `models/` (tests/project/architecture_test.ts).
 *
 * @param model Any model.
 * @returns The GLM, or null.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { asInMemoryGlm } from "./glm.ts";
 * import { NormalGammaModel } from "../examples/models/normal_gamma.ts";
 * assert.equal(asInMemoryGlm(new NormalGammaModel(new Float64Array([0.1]))), null);
 * ```
 */
export function asInMemoryGlm(model: Model): GlmModel | null {
  return model instanceof GlmModel ? model : null;
}
