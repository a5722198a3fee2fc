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
import { type GlmFamilyName, GlmKernels } from "../core/glm_kernels.ts";
import { dataViews } from "../core/row_buffer.ts";
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

export type { NuPrior } from "./nu_prior.ts";

/** The prior on σ or φ when none is given: half-normal with scale 10 (weakly informative for y on a unit scale). */
export const DEFAULT_GLM_SCALE_PRIOR: ScalePrior = { family: "half_normal", scale: 10 };

/** The original three families (those `data/csv.ts` checks a response for). */
export type GlmFamily = "logistic" | "gaussian" | "poisson";

/** Every family {@link GlmModel} implements (see the module table). */
export type GlmModelFamily =
  | GlmFamily
  | "gaussian-scale"
  | "student-t"
  | "negative-binomial"
  | "binomial";

/** Every family {@link GlmModel} implements, as a list. */
export const GLM_FAMILIES: readonly GlmModelFamily[] = [
  "logistic",
  "gaussian",
  "poisson",
  "gaussian-scale",
  "student-t",
  "negative-binomial",
  "binomial",
];

/** Every key of {@link GlmOptions} (others are a TypeError naming the closest). */
const GLM_OPTION_NAMES = [
  "family",
  "sigma",
  "nu",
  "nuPrior",
  "offset",
  "trials",
  "scalePrior",
  "priorScale",
  "priorMean",
  "interceptColumn",
  "interceptPriorScale",
] as const satisfies readonly (keyof GlmOptions)[];
const _glmKeysComplete: [Exclude<keyof GlmOptions, typeof GLM_OPTION_NAMES[number]>] extends [never]
  ? true
  : never = true;
void _glmKeysComplete;

/** Options of {@link GlmModel}. */
export interface GlmOptions {
  /** The response family. */
  family: GlmModelFamily;
  /** Known residual sd of the Gaussian family (required for "gaussian"). */
  sigma?: number;
  /**
   * Degrees of freedom ν of "student-t" (required): a fixed ν > 0, or
   * "sample" to sample ν > 1 as θ's last coordinate ω = log(ν − 1).
   */
  nu?: number | "sample";
  /** Prior on ν when `nu: "sample"`; default Gamma(2, 0.1) truncated to ν > 1. */
  nuPrior?: NuPrior;
  /** Offset per row (log exposure) for "poisson" and "negative-binomial": η = xᵀβ + offset. */
  offset?: ArrayLike<number>;
  /** Number of trials per row for "binomial" (required; integers ≥ y). */
  trials?: ArrayLike<number>;
  /**
   * Prior on σ or φ ("gaussian-scale", "student-t", "negative-binomial"), as
   * a {@link ScalePrior} or its text (`"half_normal(1)"`); default
   * {@link DEFAULT_GLM_SCALE_PRIOR}.
   */
  scalePrior?: ScalePrior | string;
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
    const prior = _prior(options, d);
    const kernelFamily = _kernelFamily(options, data);
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
    this.options = _copyOptions(options);
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

  /** Release scratch buffers (the data set itself is not freed). */
  dispose(): void {
    this.kernels.dispose();
  }
}

/** The kernels' family for the model's options, after checking the data's domain. */
/**
 * Per-row Hessians ∇²ℓᵢ(θ) of rows `rows` of `data` into `out` (m × P × P,
 * P = θ's length): ℓ_ηη xᵢxᵢᵀ, and for families with τ the border ℓ_ητ xᵢ and
 * corner ℓ_ττ (with a sampled ν also ℓ_ηω xᵢ, ℓ_τω and ℓ_ωω). The arithmetic
 * of {@link GlmModel.perRowHessians}, shared with the models whose rows are
 * gathered from elsewhere (models/sharded_glm.ts), so a row's Hessian is the
 * same bits wherever the row lives. Counts nothing; θ is not checked.
 *
 * @param kernels The family's kernels (their aux column set for `data`).
 * @param data The rows.
 * @param theta θ (length P).
 * @param rows Row indices into `data`.
 * @param out Output, at least m·P² values.
 * @returns Nothing.
 * @internal
 */
export function glmRowHessians(
  kernels: GlmKernels,
  data: GlmData,
  theta: Float64Array,
  rows: Int32Array,
  out: Float64Array,
): void {
  const m = rows.length, P = theta.length, d = data.numCols;
  if (out.length < m * P * P) {
    throw new RangeError(`out must hold ${m * P * P} values, got ${out.length}`);
  }
  const xs = kernels.gatherRows(data, rows, new Float64Array(m * d));
  const b = new Float64Array(m), c = new Float64Array(m), e = new Float64Array(m);
  const S = P > d + 1 ? 10 : 6; // per-row record length (families with ω: 10)
  if (kernels.hasCompactCache) {
    const one = new Float64Array(P * P);
    for (let k = 0; k < m; k++) {
      kernels.hessian(data, theta, {
        out: one,
        range: { start: rows[k], end: rows[k] + 1 },
      });
      out.set(one, k * P * P);
    }
  } else {
    const dv = kernels.rowDerivatives(data, theta, {
      rows,
      out: new Float64Array(S * m),
    });
    for (let k = 0; k < m; k++) {
      b[k] = dv[S * k + 2];
      c[k] = dv[S * k + 4];
      e[k] = dv[S * k + 5];
    }
    for (let k = 0; k < m; k++) {
      const o = k * P * P, xo = k * d;
      for (let j = 0; j < d; j++) {
        const bx = b[k] * xs[xo + j];
        for (let l = 0; l < d; l++) out[o + j * P + l] = bx * xs[xo + l];
        if (P > d) out[o + j * P + d] = out[o + d * P + j] = c[k] * xs[xo + j];
      }
      if (P > d) out[o + d * P + d] = e[k];
      if (P > d + 1) {
        const r = S * k, w = d + 1;
        for (let j = 0; j < d; j++) {
          out[o + j * P + w] = out[o + w * P + j] = dv[r + 7] * xs[xo + j];
        }
        out[o + d * P + w] = out[o + w * P + d] = dv[r + 8];
        out[o + w * P + w] = dv[r + 9];
      }
    }
  }
}

function _kernelFamily(options: GlmOptions, data: GlmData): GlmFamilyName {
  const f = options.family, n = data.numRows;
  const column = (v: ArrayLike<number> | undefined, what: string, fam: string) => {
    if (v === undefined) return;
    if (fam !== f) {
      throw new TypeError(`${what} applies to family ${fam}, not ${JSON.stringify(f)}`);
    }
    if (v.length !== n) throw new RangeError(`${what} must have ${n} values, got ${v.length}`);
  };
  if (options.offset !== undefined && f !== "poisson") {
    column(options.offset, "offset", "negative-binomial");
  } else column(options.offset, "offset", "poisson");
  column(options.trials, "trials", "binomial");
  if (options.nu !== undefined && f !== "student-t") {
    throw new TypeError(`nu applies to family "student-t", not ${JSON.stringify(f)}`);
  }
  if (options.nuPrior !== undefined && options.nu !== "sample") {
    throw new TypeError(`nuPrior applies to family "student-t" with nu: "sample"`);
  }
  if (typeof options.nu === "string" && options.nu !== "sample") {
    throw new TypeError(
      `nu must be a positive number or "sample", got ${JSON.stringify(options.nu)}`,
    );
  }
  checkGlmResponse(f, dataViews(data).y, options.trials);
  if (f === "poisson" && options.offset !== undefined) return "poisson-offset";
  if (f === "student-t" && options.nu === "sample") return "student-t-nu";
  return f;
}

/**
 * Refuse a response outside the family's domain (as the CSV loader does), naming
 * the first bad row (1-based) and its value: logistic y ∈ {0, 1}; Poisson and
 * negative-binomial counts integer ≥ 0; binomial integer trials ≥ y ≥ 0.
 *
 * @param f The family.
 * @param y The responses of a block of rows.
 * @param trials The block's trials ("binomial").
 * @param firstRow The block's first row in the data set (for the message; default 0).
 * @throws {RangeError} Naming the row and value; {@link TypeError} for "binomial" without trials.
 * @internal
 */
export function checkGlmResponse(
  f: GlmModelFamily,
  y: ArrayLike<number>,
  trials: ArrayLike<number> | undefined,
  firstRow = 0,
): void {
  const n = y.length;
  const bad = (i: number, need: string): never => {
    throw new RangeError(
      `GlmModel: family ${JSON.stringify(f)} needs ${need}; y = ${y[i]} at row ${firstRow + i + 1}`,
    );
  };
  if (f === "logistic") {
    for (let i = 0; i < n; i++) if (y[i] !== 0 && y[i] !== 1) bad(i, "a 0/1 response");
  } else if (f === "poisson" || f === "negative-binomial") {
    for (let i = 0; i < n; i++) {
      const v = y[i];
      if (!(Number.isInteger(v) && v >= 0)) bad(i, "integer counts y ≥ 0");
    }
  } else if (f === "binomial") {
    if (trials === undefined) throw new TypeError(`family "binomial" needs trials`);
    for (let i = 0; i < n; i++) {
      const t = trials[i], v = y[i];
      if (!(Number.isInteger(t) && t >= 0 && Number.isInteger(v) && v >= 0 && v <= t)) {
        throw new RangeError(
          `GlmModel: family "binomial" needs integer trials ≥ y ≥ 0; y = ${v}, trials = ${t} at row ${
            firstRow + i + 1
          }`,
        );
      }
    }
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
  if (o.nu !== undefined) out.nu = o.nu;
  if (o.nuPrior !== undefined) out.nuPrior = { ...o.nuPrior };
  if (o.offset !== undefined) out.offset = Array.from(o.offset);
  if (o.trials !== undefined) out.trials = Array.from(o.trials);
  if (o.scalePrior !== undefined) {
    out.scalePrior = typeof o.scalePrior === "string" ? o.scalePrior : { ...o.scalePrior };
  }
  return out;
}

/**
 * The families whose log-likelihood is concave in β, so that an unbounded
 * direction of a flat-prior posterior is found by an ascent search
 * (samplers/proper_posterior.ts).
 */
export const LOG_CONCAVE_GLM_FAMILIES: readonly GlmModelFamily[] = [
  "logistic",
  "binomial",
  "poisson",
  "gaussian",
];

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
