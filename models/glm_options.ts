/**
 * What a {@link GlmModel} (models/glm.ts) is built from: its families, its
 * options, and their checks (the per-row columns and responses a family
 * takes, the prior of β, the copy kept for workers).
 *
 * @module
 */
import type { GlmFamilyName } from "../core/glm_kernels.ts";
import { dataViews } from "../core/row_buffer.ts";
import type { GlmData } from "../data/dataset.ts";
import type { ScalePrior } from "./priors.ts";
import type { NuPrior } from "./nu_prior.ts";

/** The prior on σ or φ when none is given: half-normal with scale 10 (weakly informative for y on a unit scale). */
export const DEFAULT_GLM_SCALE_PRIOR: ScalePrior = { family: "half_normal", scale: 10 };

/** The original three families (those `data/csv.ts` checks a response for). */
export type GlmFamily = "logistic" | "gaussian" | "poisson";

/** Every family {@link GlmModel} implements (see the table of models/glm.ts). */
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

/**
 * Every key of {@link GlmOptions} (others are a TypeError naming the closest).
 *
 * @internal
 */
export const GLM_OPTION_NAMES = [
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
  "rowLayout",
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
  /**
   * How the full-data ℓ and ∇ℓ passes read the rows: "dense" (default: every
   * cell), or "windowed": rows as column constants plus short windows of
   * deviations (core/windowed_rows.ts), when the family is "logistic",
   * "gaussian" or "poisson" without an offset, the core has the kernel and
   * the windows hold at most 60 % of the cells; otherwise dense
   * ({@link GlmModel.rowLayout} says which). The windowed sums agree with the
   * dense ones to rounding, not bit for bit (docs/r4_sparse_rows.md).
   */
  rowLayout?: "dense" | "windowed";
}

/**
 * The kernels' family for the model's options, after checking the per-row
 * columns, ν and the data's responses against the family.
 *
 * @param options The model's options.
 * @param data The rows.
 * @returns The core's family name (e.g. "poisson-offset" for a Poisson GLM with an offset).
 * @throws {TypeError} For an option the family does not take; {@link RangeError} for a column
 *   of the wrong length or a response outside the family's domain.
 * @internal
 */
export function glmKernelFamily(options: GlmOptions, data: GlmData): GlmFamilyName {
  // (The response check is skipped inside withCheckedResponses.)
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
  if (!_responsesChecked) checkGlmResponse(f, dataViews(data).y, options.trials);
  if (f === "poisson" && options.offset !== undefined) return "poisson-offset";
  if (f === "student-t" && options.nu === "sample") return "student-t-nu";
  return f;
}

let _responsesChecked = false;

/**
 * Build a model over rows whose responses a model built before has checked
 * (a model rebuilt from its spec in a worker, a block of a checked model's
 * rows): `glmKernelFamily` skips the response check (a pass over all n rows,
 * ≈ 0.1 s at 10⁷) while `build` runs. The other checks stay.
 *
 * @param build Builds the model.
 * @returns What `build` returns.
 * @internal
 */
export function withCheckedResponses<T>(build: () => T): T {
  const was = _responsesChecked;
  _responsesChecked = true;
  try {
    return build();
  } finally {
    _responsesChecked = was;
  }
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

/**
 * The independent Gaussian prior of β from the options: means, precisions
 * (0 for a flat coefficient) and the normalising constant.
 *
 * @param options `priorMean`, `priorScale`, `interceptColumn`, `interceptPriorScale`.
 * @param d Columns of X.
 * @returns Means, precisions and log constant.
 * @throws {RangeError} Naming the option and the coefficient.
 * @internal
 */
export function glmCoefficientPrior(
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

/**
 * A copy of the options with every array copied, so that a worker can
 * rebuild the model from it.
 *
 * @param o The options.
 * @returns The copy.
 * @internal
 */
export function copyGlmOptions(o: GlmOptions): GlmOptions {
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
  if (o.rowLayout !== undefined) out.rowLayout = o.rowLayout;
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
