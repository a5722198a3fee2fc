/**
 * Shared machinery of the HMC-ECS cost comparisons R2 (Table 1, Figs. 1–3,
 * HIGGS-shaped) and R4 (Tables 3–4, Figs. 4–6, bankruptcy-shaped): one
 * pipeline that runs every method on one data set, the relative
 * computational time (RCT, eqs. 2, 18, 19), the bias of posterior moments in
 * posterior-sd units, the stochastic-gradient step-size grid, and the
 * Vega-Lite figures.
 *
 * Conventions (Dang et al. 2019, §6.2 and the captions of Tables 1 and 3):
 *
 * ```
 *  CT_j  = IF_j / (2τ̂ − 1)² × E / R      E: evaluations, R: kept draws (τ̂ = 1 unless signed)
 *  RCT_j = CT_j(method) / CT_j(perturbed HMC-ECS)                (eq. 19, per parameter j)
 * ```
 *
 * E / (R/IF) is the cost of one effective draw. Every method keeps the same
 * number of draws R (SGLD is thinned to R), so this is eq. 2 up to the
 * common factor R. E counts, as the paper does, "likelihood and gradient
 * evaluations" (per-row `numLogLikRows + numGradRows` of the model's cost
 * counter) for HMC-ECS over the whole run including the subset-free
 * tuning and warmup, and for full-data HMC over its whole run; for SG-HMC and
 * SGLD it counts the per-row gradient evaluations after burn-in only.
 *
 * Bias: for every parameter j, z_mean = (μ̂ⱼ − μⱼ)/σⱼ and z_sd = (σ̂ⱼ − σⱼ)/σⱼ
 * against full-data HMC (μⱼ, σⱼ), summarised by their root mean square and
 * maximum; the Monte Carlo floor √(mean_j(IFⱼ/R + IF_ref,j/R_ref)) is the rms
 * |z_mean| that sampling noise alone produces.
 *
 * References: Dang, Quiroz, Kohn, Tran & Villani (2019), JMLR 20, §6.2–6.6,
 * eqs. 2, 17, 18, 19; Chen, Fox & Guestrin (2014); Welling & Teh (2011);
 * Plummer et al. (2006).
 *
 * @module
 */
import { inefficiencyFactor, kde, relativeComputationalTimeSummary } from "../diagnostics/mod.ts";
import { GlmModel, type GlmOptions } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import {
  infoAcrossChains,
  parameterDraws,
  sampleChains,
  type SamplingResult,
  totalCost,
} from "../samplers/driver.ts";
import { runHmcEcs } from "../samplers/hmc_ecs.ts";
import { type Metric, metricFromNegativeHessian } from "../samplers/metric.ts";
import { runHmc } from "../samplers/run_hmc.ts";
import * as sghmc from "../samplers/sghmc.ts";
import * as sgld from "../samplers/sgld.ts";
import { ControlVariates } from "../subsampling/control_variates.ts";
import {
  controlVariateGradient,
  type GradientEstimator,
  minibatchGradient,
} from "../subsampling/gradient_estimators.ts";
import { subsetMap } from "../subsampling/tuning.ts";
import type { ExperimentContext, ResultTable } from "./experiment.ts";
import { VEGA_LITE_SCHEMA } from "./figures.ts";

// ---------------------------------------------------------------------------
// Pure helpers (unit-tested in tests/rct_test.ts)
// ---------------------------------------------------------------------------

/** Posterior means and variances, one per parameter. */
export interface PosteriorMoments {
  /** Posterior means. */
  mean: number[];
  /** Posterior variances. */
  variance: number[];
}

/** What the RCT of one method needs. */
export interface CostRecord {
  /** Inefficiency factor of every parameter (coda-style AR spectral IF). */
  inefficiency: ArrayLike<number>;
  /** Evaluations E charged to the method (see the module comment). */
  evaluations: number;
  /** Kept draws R (over all chains). */
  numDraws: number;
  /** Fraction of positive signs τ̂ (1 for non-signed methods). */
  tau: number;
}

/** Min, median and max RCT over parameters and the per-parameter values. */
export interface RctRange {
  /** Smallest RCT over parameters. */
  min: number;
  /** Median RCT. */
  median: number;
  /** Largest RCT. */
  max: number;
  /** RCT per parameter. */
  values: number[];
}

/**
 * Evaluations per draw divided by the sign penalty, E / (R (2τ̂ − 1)²): the
 * factor that multiplies IF in the cost of one effective draw (eqs. 2, 18).
 *
 * @param cost Evaluations, draws and τ̂ (IFs are not used).
 * @returns E / (R (2τ̂ − 1)²); Infinity when τ̂ ≤ ½ (the sign-corrected
 *   estimator has no finite variance bound).
 * @throws RangeError naming a non-positive R, a negative E or τ̂ outside [0, 1].
 * @example
 * ```ts
 * import { evaluationsPerEffectiveDraw } from "./rct_common.ts";
 * console.log(evaluationsPerEffectiveDraw({ inefficiency: [], evaluations: 900, numDraws: 100, tau: 1 })); // 9
 * ```
 * References: Dang et al. (2019), eqs. 2 and 18.
 */
export function evaluationsPerEffectiveDraw(cost: CostRecord): number {
  if (!(cost.numDraws > 0)) throw new RangeError(`numDraws must be positive, got ${cost.numDraws}`);
  if (!(cost.evaluations >= 0)) {
    throw new RangeError(`evaluations must be non-negative, got ${cost.evaluations}`);
  }
  if (!(cost.tau >= 0 && cost.tau <= 1)) {
    throw new RangeError(`tau must be in [0, 1], got ${cost.tau}`);
  }
  const penalty = (2 * cost.tau - 1) ** 2;
  if (cost.tau <= 0.5) return Infinity;
  return cost.evaluations / (cost.numDraws * penalty);
}

/**
 * RCT of a method against a reference for every parameter, with min, median
 * and max (eq. 19 with CT from eqs. 2 and 18), via
 * {@link relativeComputationalTimeSummary}.
 *
 * @param method The method's IFs, evaluations, draws and τ̂.
 * @param reference The same for the reference (perturbed HMC-ECS in the paper).
 * @returns min, median, max and the per-parameter values (all Infinity when
 *   the method's τ̂ ≤ ½ or an IF is not finite).
 * @throws RangeError if the parameter counts differ (from the diagnostics helper).
 * @example
 * ```ts
 * import { rctRange } from "./rct_common.ts";
 * const r = rctRange(
 *   { inefficiency: [2, 4, 8], evaluations: 200, numDraws: 100, tau: 1 },
 *   { inefficiency: [1, 1, 1], evaluations: 100, numDraws: 100, tau: 1 },
 * );
 * console.log(r.min, r.median, r.max); // 4 8 16
 * ```
 * References: Dang et al. (2019), eq. 19, Tables 1 and 3.
 */
export function rctRange(method: CostRecord, reference: CostRecord): RctRange {
  const k = method.inefficiency.length;
  const e = evaluationsPerEffectiveDraw(method);
  const eRef = evaluationsPerEffectiveDraw(reference);
  let finite = Number.isFinite(e) && Number.isFinite(eRef);
  for (let j = 0; j < k; j++) if (!Number.isFinite(method.inefficiency[j])) finite = false;
  if (!finite) {
    if (reference.inefficiency.length !== k) {
      throw new RangeError(
        `method and reference must have IFs for the same parameters, got ${k} and ${reference.inefficiency.length}`,
      );
    }
    const values = new Array<number>(k).fill(Infinity);
    return { min: Infinity, median: Infinity, max: Infinity, values };
  }
  const s = relativeComputationalTimeSummary(
    { inefficiencyFactors: method.inefficiency, numEvaluations: e },
    { inefficiencyFactors: reference.inefficiency, numEvaluations: eRef },
  );
  return { min: s.min, median: s.median, max: s.max, values: s.values };
}

/** Errors of posterior moments in posterior-sd units (see the module comment). */
export interface MomentErrors {
  /** (μ̂ⱼ − μⱼ)/σⱼ per parameter. */
  zMean: number[];
  /** (σ̂ⱼ − σⱼ)/σⱼ per parameter. */
  zSd: number[];
  /** √(mean zMean²). */
  rmsMean: number;
  /** max |zMean|. */
  maxMean: number;
  /** √(mean zSd²). */
  rmsSd: number;
  /** max |zSd|. */
  maxSd: number;
  /** √((Σ zMean² + Σ zSd²) / 2d): the step-size selection criterion. */
  combined: number;
}

/**
 * Errors of a method's posterior means and sds against a reference, in
 * units of the reference posterior sd.
 *
 * @param estimate The method's moments.
 * @param reference The reference (full-data HMC) moments.
 * @returns Per-parameter z values and their summaries; non-finite estimates
 *   give Infinity summaries.
 * @throws RangeError if the lengths differ or a reference variance is not positive.
 * @example
 * ```ts
 * import { momentErrors } from "./rct_common.ts";
 * const e = momentErrors({ mean: [1.5, 0], variance: [4, 1] }, { mean: [1, 0], variance: [1, 1] });
 * console.log(e.zMean, e.zSd); // [ 0.5, 0 ] [ 1, 0 ]
 * ```
 * References: Dang et al. (2019), §6.5 (Figs. 2 and 5 compare means and variances with HMC).
 */
export function momentErrors(
  estimate: PosteriorMoments,
  reference: PosteriorMoments,
): MomentErrors {
  const d = reference.mean.length;
  if (
    estimate.mean.length !== d || estimate.variance.length !== d || reference.variance.length !== d
  ) {
    throw new RangeError(
      `estimate and reference must have ${d} means and variances, got ${estimate.mean.length}/${estimate.variance.length} and ${d}/${reference.variance.length}`,
    );
  }
  const zMean: number[] = [], zSd: number[] = [];
  let s2m = 0, s2s = 0, maxMean = 0, maxSd = 0;
  for (let j = 0; j < d; j++) {
    const v = reference.variance[j];
    if (!(v > 0)) throw new RangeError(`reference.variance[${j}] must be positive, got ${v}`);
    const sd = Math.sqrt(v);
    const zm = (estimate.mean[j] - reference.mean[j]) / sd;
    const zs = (Math.sqrt(Math.max(estimate.variance[j], 0)) - sd) / sd;
    const fm = Number.isFinite(zm) ? zm : Infinity, fs = Number.isFinite(zs) ? zs : Infinity;
    zMean.push(fm);
    zSd.push(fs);
    s2m += fm * fm;
    s2s += fs * fs;
    maxMean = Math.max(maxMean, Math.abs(fm));
    maxSd = Math.max(maxSd, Math.abs(fs));
  }
  return {
    zMean,
    zSd,
    rmsMean: Math.sqrt(s2m / d),
    maxMean,
    rmsSd: Math.sqrt(s2s / d),
    maxSd,
    combined: Math.sqrt((s2m + s2s) / (2 * d)),
  };
}

/**
 * The rms |z_mean| that Monte Carlo error alone produces when a method's
 * means are compared with a reference's: √(mean_j (IFⱼ/R + IF_ref,j/R_ref)).
 *
 * @param method The method's IFs and draws.
 * @param reference The reference's IFs and draws.
 * @returns The floor (Infinity if an IF is not finite).
 * @throws RangeError if the parameter counts differ or a draw count is not positive.
 * @example
 * ```ts
 * import { monteCarloFloor } from "./rct_common.ts";
 * console.log(monteCarloFloor({ inefficiency: [2, 2], numDraws: 400 }, { inefficiency: [1, 1], numDraws: 400 }).toFixed(4)); // 0.0866
 * ```
 * References: the variance of an MCMC mean, σ²·IF/R (e.g. Geyer 1992).
 */
export function monteCarloFloor(
  method: { inefficiency: ArrayLike<number>; numDraws: number },
  reference: { inefficiency: ArrayLike<number>; numDraws: number },
): number {
  const d = reference.inefficiency.length;
  if (method.inefficiency.length !== d) {
    throw new RangeError(
      `method and reference must have IFs for the same parameters, got ${method.inefficiency.length} and ${d}`,
    );
  }
  for (const r of [method.numDraws, reference.numDraws]) {
    if (!(r > 0)) throw new RangeError(`numDraws must be positive, got ${r}`);
  }
  let s = 0;
  for (let j = 0; j < d; j++) {
    s += method.inefficiency[j] / method.numDraws + reference.inefficiency[j] / reference.numDraws;
  }
  return Number.isFinite(s) ? Math.sqrt(s / d) : Infinity;
}

/** One point of a step-size grid. */
export interface GridPoint {
  /** ε. */
  stepSize: number;
  /** Moment error at equal cost (non-finite = unstable run). */
  error: number;
}

/**
 * The step-size selection rule: the ε with the smallest moment error against
 * full-data HMC at equal evaluation budget; ties go to the larger ε (the
 * cheaper one when L = 1.2/ε). Unstable points (non-finite error) are skipped.
 *
 * @param points The grid with its errors.
 * @returns The index of the chosen point.
 * @throws RangeError if the grid is empty or every point is unstable.
 * @example
 * ```ts
 * import { chooseStepSize } from "./rct_common.ts";
 * console.log(chooseStepSize([
 *   { stepSize: 0.01, error: 0.3 }, { stepSize: 0.05, error: 0.1 }, { stepSize: 0.2, error: Infinity },
 * ])); // 1
 * ```
 * References: Dang et al. (2019), §6.4 (the paper tunes ε "by trial and error").
 */
export function chooseStepSize(points: readonly GridPoint[]): number {
  if (points.length === 0) throw new RangeError("the step-size grid is empty");
  let best = -1;
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    if (!Number.isFinite(p.error)) continue;
    if (
      best < 0 || p.error < points[best].error ||
      (p.error === points[best].error && p.stepSize > points[best].stepSize)
    ) best = i;
  }
  if (best < 0) {
    throw new RangeError(
      `every step size on the grid was unstable: ${points.map((p) => p.stepSize).join(", ")}`,
    );
  }
  return best;
}

/**
 * Posterior means and variances from per-chain draws, sign-corrected as
 * Σψs/Σs when signs are given (eq. 17): E[θ] and E[θ²] are estimated with
 * weights s ∈ {−1, +1}.
 *
 * @param draws `draws[chain][param]`.
 * @param signs Optional `signs[chain][k]`, one per kept draw.
 * @returns Means and variances per parameter (NaN when Σs = 0).
 * @throws RangeError if a sign array has the wrong length.
 * @example
 * ```ts
 * import { weightedMoments } from "./rct_common.ts";
 * const m = weightedMoments([[new Float64Array([1, 3, 5])]], [new Float64Array([1, 1, -1])]);
 * console.log(m.mean[0]); // -1: (1 + 3 − 5) / 1
 * ```
 * References: Dang et al. (2019), eq. 17; Lyne et al. (2015).
 */
export function weightedMoments(
  draws: readonly (readonly ArrayLike<number>[])[],
  signs?: readonly ArrayLike<number>[],
): PosteriorMoments {
  const d = draws[0].length;
  const mean: number[] = [], variance: number[] = [];
  for (let j = 0; j < d; j++) {
    let s0 = 0, s1 = 0, s2 = 0;
    draws.forEach((chain, c) => {
      const x = chain[j], w = signs?.[c];
      if (w !== undefined && w.length !== x.length) {
        throw new RangeError(`signs[${c}] must have ${x.length} values, got ${w.length}`);
      }
      for (let k = 0; k < x.length; k++) {
        const s = w === undefined ? 1 : w[k];
        s0 += s;
        s1 += s * x[k];
        s2 += s * x[k] * x[k];
      }
    });
    const mu = s1 / s0;
    mean.push(s0 === 0 ? NaN : mu);
    variance.push(s0 === 0 ? NaN : Math.max(s2 / s0 - mu * mu, 0));
  }
  return { mean, variance };
}

/**
 * Largest eigenvalue of a symmetric positive semi-definite d × d matrix by
 * power iteration (used to scale the SGLD step-size grid: SGLD on a Gaussian
 * with precision P is stable for ε·λ_max(P) < 4).
 *
 * @param matrix Row-major d × d.
 * @param options `maxIterations` (default 500), `tolerance` (default 1e-10).
 * @returns λ_max.
 * @throws RangeError if the matrix is not square.
 * @example
 * ```ts
 * import { largestEigenvalue } from "./rct_common.ts";
 * console.log(largestEigenvalue(new Float64Array([2, 1, 1, 2])).toFixed(6)); // 3.000000
 * ```
 * References: Golub & Van Loan (2013), §8.2.1.
 */
export function largestEigenvalue(
  matrix: Float64Array,
  options: { maxIterations?: number; tolerance?: number } = {},
): number {
  const d = Math.round(Math.sqrt(matrix.length));
  if (d * d !== matrix.length || d === 0) {
    throw new RangeError(`matrix must be square, got ${matrix.length} entries`);
  }
  let v: Float64Array = new Float64Array(d).fill(1 / Math.sqrt(d));
  let lambda = 0;
  for (let it = 0; it < (options.maxIterations ?? 500); it++) {
    const w = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += matrix[i * d + k] * v[k];
      w[i] = s;
    }
    let norm = 0;
    for (let i = 0; i < d; i++) norm += w[i] * w[i];
    norm = Math.sqrt(norm);
    if (norm === 0) return 0;
    for (let i = 0; i < d; i++) w[i] /= norm;
    const done = Math.abs(norm - lambda) <= (options.tolerance ?? 1e-10) * norm;
    lambda = norm;
    v = w;
    if (done) break;
  }
  return lambda;
}

/** Groups of equal size along x with the mean of x and y in each. */
export interface EqualCountBins {
  /** Mean x per group. */
  x: number[];
  /** Mean y per group. */
  y: number[];
  /** Upper x boundary (largest x) of each group. */
  upper: number[];
  /** Rows per group. */
  count: number[];
}

/**
 * Split rows into `numBins` groups of (nearly) equal size by sorting on x,
 * and average x and y within each group (Fig. 6's empirical frequencies).
 *
 * @param x Sort key per row.
 * @param y Value per row (0/1 outcomes give frequencies).
 * @param numBins Number of groups (≤ rows).
 * @returns Means, upper boundaries and sizes per group.
 * @throws RangeError for mismatched lengths or a bad `numBins`.
 * @example
 * ```ts
 * import { equalCountBins } from "./rct_common.ts";
 * const b = equalCountBins([4, 1, 3, 2], [1, 0, 1, 0], 2);
 * console.log(b.x, b.y); // [ 1.5, 3.5 ] [ 0, 1 ]
 * ```
 * References: Dang et al. (2019), Fig. 6 caption (100 equally sized groups).
 */
export function equalCountBins(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  numBins: number,
): EqualCountBins {
  const n = x.length;
  if (y.length !== n) {
    throw new RangeError(`x and y must have equal lengths, got ${n} and ${y.length}`);
  }
  if (!Number.isInteger(numBins) || numBins < 1 || numBins > n) {
    throw new RangeError(`numBins must be an integer in [1, ${n}], got ${numBins}`);
  }
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => x[a] - x[b]);
  const out: EqualCountBins = { x: [], y: [], upper: [], count: [] };
  for (let b = 0; b < numBins; b++) {
    const lo = Math.floor((b * n) / numBins), hi = Math.floor(((b + 1) * n) / numBins);
    let sx = 0, sy = 0;
    for (let k = lo; k < hi; k++) {
      sx += x[order[k]];
      sy += y[order[k]];
    }
    out.x.push(sx / (hi - lo));
    out.y.push(sy / (hi - lo));
    out.upper.push(x[order[hi - 1]]);
    out.count.push(hi - lo);
  }
  return out;
}

/**
 * Keep at most `max` evenly spaced elements, always including the first and last.
 *
 * @param items The sequence.
 * @param max Largest number kept (≥ 2).
 * @returns The thinned sequence (the input if short enough).
 * @example
 * ```ts
 * import { thinEvenly } from "./rct_common.ts";
 * console.log(thinEvenly([0, 1, 2, 3, 4, 5, 6, 7, 8], 3)); // [ 0, 4, 8 ]
 * ```
 * References: none (plotting helper).
 */
export function thinEvenly<T>(items: readonly T[], max: number): T[] {
  if (!Number.isInteger(max) || max < 2) {
    throw new RangeError(`max must be an integer ≥ 2, got ${max}`);
  }
  if (items.length <= max) return [...items];
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(items[Math.round((i * (items.length - 1)) / (max - 1))]);
  return out;
}

// ---------------------------------------------------------------------------
// The pipeline
// ---------------------------------------------------------------------------

/** One method's run and everything the tables need. */
export interface MethodOutcome {
  /** Identifier (file-name safe). */
  key: string;
  /** Display name. */
  label: string;
  /** Settings in words (ε, L, m, …). */
  settings: string;
  /** The driver's result. */
  result: SamplingResult;
  /** (Sign-corrected) posterior moments. */
  moments: PosteriorMoments;
  /** IF per parameter. */
  inefficiency: number[];
  /** τ̂ (1 for non-signed methods). */
  tau: number;
  /** Kept draws over chains. */
  numDraws: number;
  /** Evaluations charged (see the module comment). */
  evaluations: number;
  /** Likelihood + gradient rows in warmup / burn-in. */
  evaluationsWarmup: number;
  /** Likelihood + gradient rows after warmup. */
  evaluationsSampling: number;
  /** Wall time of the run in seconds. */
  seconds: number;
  /** Whether the run diverged (then its numbers are not meaningful). */
  unstable: boolean;
}

/** A stochastic-gradient method of the comparison. */
export interface SgVariant {
  /** Identifier. */
  key: string;
  /** Display name. */
  label: string;
  /** Sampler. */
  kind: "sghmc" | "sgld";
  /** Second-order control variates (true) or the plain minibatch gradient. */
  controlVariates: boolean;
  /**
   * SG-HMC only: L = ⌈1.2/ε⌉ (`"trajectory"`), L matched to HMC-ECS's
   * evaluations (`"matched"`) or a fixed L.
   */
  steps?: "trajectory" | "matched" | number;
  /** Reuse the ε chosen by this variant's grid instead of running a grid. */
  stepSizeFrom?: string;
  /** A fixed ε (e.g. the paper's) instead of a grid. */
  stepSize?: number;
}

/** Sizes of one comparison. */
export interface ComparisonConfig {
  /** Seed prefix. */
  seed: string;
  /** Warmup iterations of HMC-ECS (paper 1000). */
  numWarmup: number;
  /** Kept draws R of every method (paper 2000). */
  numSamples: number;
  /** HMC-ECS refresh period of θ* and M (paper 200). */
  updateEvery: number;
  /** Full-data HMC reference: warmup (ε only; M is fixed at the MAP) and draws. */
  reference: { numWarmup: number; numSamples: number };
  /** HMC on the subset for θ*: fraction (0.01), minimum rows, iterations. */
  subset: { fraction: number; minRows: number; numWarmup: number; numSamples: number };
  /** SG burn-in in iterations (SGLD: × its thinning). */
  sgBurnIn: number;
  /** The SG methods. */
  sgVariants: readonly SgVariant[];
  /** SG-HMC step-size grid (ε, with M = −∇²log π(θ*)). */
  sghmcGrid: readonly number[];
  /** SGLD grid as multiples c of 1/λ_max (ε = c/λ_max). */
  sgldGrid: readonly number[];
  /** Grid runs use this fraction of HMC-ECS's post-warmup evaluations (default 1). */
  gridBudgetFraction?: number;
  /** Signed HMC-ECS options passed through (e.g. batch size). */
  signedOptions?: Record<string, unknown>;
}

/** A row of the step-size grid table. */
export interface GridRow {
  /** Variant key. */
  variant: string;
  /** Variant label. */
  label: string;
  /** ε. */
  stepSize: number;
  /** ε·λ_max (SGLD) or NaN. */
  relative: number;
  /** Steps per iteration. */
  numSteps: number;
  /** Iterations after burn-in. */
  iterations: number;
  /** Gradient evaluations after burn-in. */
  evaluations: number;
  /** Errors vs HMC (null when unstable). */
  errors: MomentErrors | null;
  /** Median IF over parameters. */
  medianIf: number;
  /** Chosen? */
  chosen: boolean;
}

/** Table 2 / Table 4 quantities of an HMC-ECS (or HMC) run. */
export interface EcsSummary {
  /** Mean α_θ,p (sampling). */
  acceptance: number;
  /** Mean α_u (sampling; NaN for HMC). */
  subsampleAcceptance: number;
  /** ε after warmup. */
  stepSize: number;
  /** L. */
  numSteps: number;
  /** Mean IF over parameters. */
  meanIf: number;
  /** R / mean IF. */
  ess: number;
  /** τ̂. */
  tau: number;
  /** 100 × rows per estimate / n. */
  percentRows: number;
  /** Median over iterations of σ̂² of ℓ̂ₘ (perturbed) or of the estimated Var log|L̂| (signed); NaN for HMC. */
  logLikelihoodVariance: number;
  /** m (perturbed) or λ (signed), for the text. */
  tuning: Record<string, unknown>;
}

/** Everything {@link runComparison} produces. */
export interface ComparisonOutcome {
  /** θ* from HMC on the subset (the common start and the first control-variate centre). */
  thetaStar0: Float64Array;
  /** Rows of the subset. */
  subsetRows: number;
  /** Full-data HMC (reference). */
  reference: MethodOutcome;
  /** Perturbed HMC-ECS (the RCT reference). */
  perturbed: MethodOutcome;
  /** Signed HMC-ECS. */
  signed: MethodOutcome;
  /**
   * Perturbed HMC-ECS with the paper's §6.3 warmup as written: θ* learned
   * from the chain only (no Newton centring) and re-centred at every check.
   */
  perturbedPaperWarmup: MethodOutcome;
  /** SG methods in the order of the config. */
  sg: MethodOutcome[];
  /** Table 2/4 summaries. */
  ecsSummary: { perturbed: EcsSummary; signed: EcsSummary; reference: EcsSummary };
  /** The step-size grids. */
  grid: GridRow[];
  /** Chosen ε per variant key. */
  chosenStepSize: Record<string, number>;
  /** Subsample size m shared by the SG methods (perturbed HMC-ECS's). */
  sgBatchSize: number;
  /** HMC-ECS post-warmup evaluations per iteration in units of m (the L of SG-HMC₂, SGLD thinning). */
  matchedSteps: number;
  /** λ_max of −∇²log π(θ*). */
  lambdaMax: number;
  /** Wall seconds per stage. */
  timings: { stage: string; seconds: number }[];
}

const _TRAJECTORY = 1.2;

function _mean(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s / a.length;
}

function _median(a: readonly number[]): number {
  const s = [...a].sort((x, y) => x - y);
  const k = s.length;
  return k % 2 === 1 ? s[(k - 1) / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
}

/** Signs per chain at the kept draws, or undefined when none were recorded. */
function _signs(result: SamplingResult): Float64Array[] | undefined {
  if (result.chains[0].info.sampling.sign === undefined) return undefined;
  return result.chains.map((c) => {
    const s = c.info.sampling.sign, out = new Float64Array(result.numDraws);
    for (let k = 0; k < result.numDraws; k++) out[k] = s[k * result.thin];
    return out;
  });
}

function _finiteDraws(result: SamplingResult): boolean {
  for (const chain of result.draws) {
    for (const x of chain) {
      for (let k = 0; k < x.length; k++) {
        if (!Number.isFinite(x[k]) || Math.abs(x[k]) > 1e8) return false;
      }
    }
  }
  return true;
}

function _ifs(result: SamplingResult): number[] {
  const d = result.parameterNames.length;
  const out: number[] = [];
  for (let j = 0; j < d; j++) {
    try {
      out.push(inefficiencyFactor(parameterDraws(result, j)));
    } catch {
      out.push(Infinity);
    }
  }
  return out;
}

/** Build a {@link MethodOutcome} from a run. */
function _outcome(
  result: SamplingResult,
  options: {
    key: string;
    label: string;
    settings: string;
    charge: "whole" | "sampling-gradient";
    extraWarmupEvaluations?: number;
  },
): MethodOutcome {
  const w = totalCost(result, "warmup"), s = totalCost(result, "sampling");
  const evaluationsWarmup = w.numLogLikRows + w.numGradRows + (options.extraWarmupEvaluations ?? 0);
  const evaluationsSampling = s.numLogLikRows + s.numGradRows;
  const stable = _finiteDraws(result);
  const signs = _signs(result);
  const numDraws = result.numChains * result.numDraws;
  let tau = 1;
  if (signs !== undefined) {
    let pos = 0;
    for (const c of signs) for (let k = 0; k < c.length; k++) if (c[k] > 0) pos++;
    tau = pos / numDraws;
  }
  const seconds = result.chains.reduce(
    (a, c) => a + (c.wallTimeMs.warmup + c.wallTimeMs.sampling) / 1000,
    0,
  );
  return {
    key: options.key,
    label: options.label,
    settings: options.settings,
    result,
    moments: stable ? weightedMoments(result.draws, signs) : {
      mean: result.parameterNames.map(() => NaN),
      variance: result.parameterNames.map(() => NaN),
    },
    inefficiency: stable ? _ifs(result) : result.parameterNames.map(() => Infinity),
    tau,
    numDraws,
    evaluations: options.charge === "whole"
      ? evaluationsWarmup + evaluationsSampling
      : s.numGradRows,
    evaluationsWarmup,
    evaluationsSampling,
    seconds,
    unstable: !stable,
  };
}

/**
 * Table 2 / 4 quantities of an HMC-ECS or HMC run.
 *
 * @param outcome The method's outcome.
 * @param numRows n.
 * @returns Acceptance rates, ε, L, mean IF, ESS = R/IF, τ̂ and 100·m/n.
 */
export function ecsSummary(outcome: MethodOutcome, numRows: number): EcsSummary {
  const r = outcome.result;
  const has = (f: string) => r.chains[0].info.sampling[f] !== undefined;
  const field = (f: string) =>
    _mean(infoAcrossChains(r, { field: f }).flatMap((c) => Array.from(c)));
  const meanIf = _mean(outcome.inefficiency);
  const t = r.chains[0].tuning;
  return {
    acceptance: field("acceptanceRate"),
    subsampleAcceptance: has("subsampleAcceptanceRate") ? field("subsampleAcceptanceRate") : NaN,
    stepSize: Number(t.stepSize),
    numSteps: has("numIntegrationSteps")
      ? field("numIntegrationSteps")
      : Number(t.numIntegrationSteps),
    meanIf,
    ess: outcome.numDraws / meanIf,
    tau: outcome.tau,
    percentRows: has("numSubsampleRows") ? (100 * field("numSubsampleRows")) / numRows : 100,
    logLikelihoodVariance: has("logLikelihoodVariance")
      ? _median(
        infoAcrossChains(r, { field: "logLikelihoodVariance" }).flatMap((c) => Array.from(c)),
      )
      : NaN,
    tuning: t,
  };
}

function _progress(
  context: ExperimentContext,
  label: string,
): (chain: number, iteration: number, total: number) => void {
  let last = -1;
  return (_chain, it, total) => {
    const q = Math.floor((4 * it) / total);
    if (q !== last) {
      last = q;
      context.log(`${label}: ${it}/${total}`);
    }
  };
}

/** Let pending I/O (progress lines) through between synchronous runs. */
function _yield(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * θ* as the posterior mean of HMC on the first ⌈f·n⌉ rows (a random subset:
 * the generated rows are i.i.d.), §6.5. Uses the §6.3 Hessian metric scheme.
 */
function _subsetThetaStar(
  model: GlmModel,
  config: ComparisonConfig,
  modelOptions: GlmOptions,
): { thetaStar: Float64Array; rows: number } {
  const rows = Math.min(
    model.numRows,
    Math.max(config.subset.minRows, Math.ceil(config.subset.fraction * model.numRows)),
  );
  const sub = new GlmModel({ ...model.data, numRows: rows }, modelOptions);
  try {
    const r = runHmc(sub, {
      seed: `${config.seed}/subset-hmc`,
      numChains: 1,
      numWarmup: config.subset.numWarmup,
      numSamples: config.subset.numSamples,
      metric: "hessian",
      updateEvery: Math.max(25, Math.floor(config.subset.numWarmup / 4)),
      maxNumIntegrationSteps: 50,
      trajectoryLength: _TRAJECTORY,
    });
    const m = weightedMoments(r.draws);
    return { thetaStar: Float64Array.from(m.mean), rows };
  } finally {
    sub.dispose();
  }
}

/**
 * Run the whole comparison on one data set: θ* from HMC on a 1 % subset,
 * full-data HMC, perturbed and signed HMC-ECS, the SG step-size grids and the
 * SG methods.
 *
 * @param model The full-data GLM posterior.
 * @param options `config` (sizes and methods), `context` (logging),
 *   `modelOptions` (to rebuild the model on the subset).
 * @returns Every run and summary.
 */
export async function runComparison(
  model: GlmModel,
  options: {
    config: ComparisonConfig;
    context: ExperimentContext;
    modelOptions: GlmOptions;
  },
): Promise<ComparisonOutcome> {
  const { config, context } = options;
  const n = model.numRows, d = model.dim;
  const timings: { stage: string; seconds: number }[] = [];
  const timed = async <T>(stage: string, fn: () => T): Promise<T> => {
    await _yield();
    context.log(`${stage} …`);
    const t0 = performance.now();
    const out = fn();
    const s = (performance.now() - t0) / 1000;
    timings.push({ stage, seconds: s });
    context.log(`${stage}: ${s.toFixed(1)} s`);
    return out;
  };

  // 1. θ* from HMC on the subset (§6.5), shared start of every method.
  const subset = await timed(
    "HMC on the 1 % subset (θ*)",
    () => _subsetThetaStar(model, config, options.modelOptions),
  );
  const thetaStar0 = subset.thetaStar;

  // 2. Full-data HMC: M⁻¹ fixed at the Laplace covariance at the full-data MAP.
  const reference = await timed("full-data HMC (reference)", () => {
    const before = model.cost.numLogLikRows + model.cost.numGradRows;
    const fit = subsetMap(model, new Rng(`${config.seed}/map`), {
      fraction: 1,
      initialPosition: thetaStar0,
    });
    const mapCost = model.cost.numLogLikRows + model.cost.numGradRows - before;
    const metric = metricFromNegativeHessian(fit.precision.map((v) => -v));
    const r = runHmc(model, {
      seed: `${config.seed}/hmc`,
      numChains: 1,
      numWarmup: config.reference.numWarmup,
      numSamples: config.reference.numSamples,
      metric,
      trajectoryLength: _TRAJECTORY,
      targetAcceptanceRate: 0.8,
      initialPosition: fit.thetaStar,
      onProgress: _progress(context, "full-data HMC"),
    });
    return _outcome(r, {
      key: "hmc",
      label: "HMC (full data)",
      settings:
        `M⁻¹ = Laplace covariance at the full-data MAP (Newton, counted); ε by dual averaging, εL = 1.2`,
      charge: "whole",
      extraWarmupEvaluations: mapCost,
    });
  });
  const ref = reference.moments;

  // 3. HMC-ECS, perturbed and signed (§6.3 tuning, θ* from the subset).
  const ecs = (variant: "perturbed" | "signed", paperWarmup = false) =>
    timed(`${variant} HMC-ECS${paperWarmup ? " (§6.3 warmup)" : ""}`, () => {
      const r = runHmcEcs(model, {
        variant,
        seed: `${config.seed}/ecs-${variant}`,
        numChains: 1,
        numWarmup: config.numWarmup,
        numSamples: config.numSamples,
        updateEvery: config.updateEvery,
        thetaStar: thetaStar0,
        ...(variant === "signed" ? (config.signedOptions ?? {}) : {}),
        ...(paperWarmup ? { maxNewtonSteps: 0, recenterTolerance: 0 } : {}),
        onProgress: _progress(context, `${variant} HMC-ECS`),
      });
      const t = r.chains[0].tuning;
      const settings = variant === "perturbed"
        ? `m = ${t.subsampleSize}, G = ${t.numBlocks}, ε = ${
          Number(t.stepSize).toPrecision(3)
        }, L = ${t.numIntegrationSteps}`
        : `batch m = ${t.batchSize}, λ = ${t.numProducts}, κ = ${t.numRefreshed}, ε = ${
          Number(t.stepSize).toPrecision(3)
        }, L = ${t.numIntegrationSteps}`;
      const centring = `${t.numNewtonSteps} Newton + ${
        Number(t.numCenterings) - Number(t.numNewtonSteps) - 1
      } window re-centrings (${t.numSkippedCenterings} skipped)`;
      return _outcome(r, {
        key: paperWarmup
          ? "ecs_perturbed_paper"
          : variant === "perturbed"
          ? "ecs_perturbed"
          : "ecs_signed",
        label: paperWarmup
          ? "HMC-ECS (perturbed, §6.3 warmup as written)"
          : variant === "perturbed"
          ? "HMC-ECS (perturbed)"
          : "HMC-ECS (signed)",
        settings: `${settings}; ${centring}`,
        charge: "whole",
      });
    });
  const perturbed = await ecs("perturbed");
  const signed = await ecs("signed");
  const perturbedPaperWarmup = await ecs("perturbed", true);
  const pTuning = perturbed.result.chains[0].tuning;
  const m = Number(pTuning.subsampleSize);
  const perIteration = perturbed.evaluationsSampling /
    (perturbed.result.numSamples * perturbed.result.numChains);
  const matchedSteps = Math.max(1, Math.round(perIteration / m));

  // 4. SG set-up (§6.4): control variates and M = −∇²log π at θ* = the HMC
  //    posterior mean, not charged to the SG methods (as in the paper).
  const sgStart = thetaStar0;
  const thetaStarSg = Float64Array.from(ref.mean);
  const cv = new ControlVariates(model, thetaStarSg, { order: 2, computeHessian: true });
  const priorHess = new Float64Array(d * d);
  model.logPriorHessian(thetaStarSg, priorHess);
  const hessian = new Float64Array(d * d);
  for (let i = 0; i < d * d; i++) hessian[i] = cv.hessSum[i] + priorHess[i];
  const metric: Metric = metricFromNegativeHessian(hessian);
  const lambdaMax = largestEigenvalue(hessian.map((v) => -v));
  const estimators: Record<string, GradientEstimator> = {
    cv: controlVariateGradient(model, { batchSize: m, controlVariates: cv }),
    minibatch: minibatchGradient(model, { batchSize: m }),
  };
  const budget = (config.gridBudgetFraction ?? 1) * perturbed.evaluationsSampling;

  const runSg = (
    v: SgVariant,
    stepSize: number,
    sizes: { iterations: number; burnIn: number; seed: string },
  ): { outcome: MethodOutcome; numSteps: number; thin: number } => {
    const estimator = estimators[v.controlVariates ? "cv" : "minibatch"];
    const numSteps = v.kind === "sgld"
      ? 1
      : typeof v.steps === "number"
      ? v.steps
      : v.steps === "matched"
      ? matchedSteps
      : Math.ceil(_TRAJECTORY / stepSize);
    const thin = v.kind === "sgld" ? matchedSteps : 1;
    const sampler = v.kind === "sgld"
      ? sgld.sampler({ estimator, stepSize })
      : sghmc.sampler({ estimator, stepSize, numIntegrationSteps: numSteps, metric, friction: 1 });
    const settings = v.kind === "sgld"
      ? `ε = ${
        stepSize.toExponential(2)
      }, m = ${m}, ${sizes.iterations} iterations thinned by ${thin}`
      : `ε = ${stepSize}, L = ${numSteps}, m = ${m}, C = I, M = −∇²log π(θ*)`;
    let result: SamplingResult = sampleChains({
      sampler: sampler as Parameters<typeof sampleChains>[0]["sampler"],
      model,
      seed: sizes.seed,
      numChains: 1,
      numWarmup: sizes.burnIn,
      numSamples: sizes.iterations,
      thin,
      initialPosition: sgStart,
      recordWarmupInfo: false,
    });
    const stop = result.chains[0].stop;
    if (stop?.kind === "error") throw stop.error;
    if (stop !== null) {
      // Diverged (the sampler reported it and stopped the chain): marked
      // unstable through NaN draws, as the step-size grid expects.
      const empty = Array.from({ length: d }, () => new Float64Array(4).fill(NaN));
      result = {
        parameterNames: [...model.parameterNames],
        numChains: 1,
        numWarmup: sizes.burnIn,
        numSamples: 4,
        thin: 1,
        numDraws: 4,
        draws: [empty],
        chains: [{
          chainId: 0,
          draws: empty,
          numDraws: 4,
          numDivergent: result.chains[0].numDivergent,
          stop: result.chains[0].stop,
          info: { warmup: {}, sampling: {} },
          cost: {
            warmup: { numLogLikRows: 0, numGradRows: 0 },
            sampling: { numLogLikRows: 0, numGradRows: 0 },
          },
          wallTimeMs: { warmup: 0, sampling: 0 },
          tuning: {},
          initialPosition: sgStart,
        }],
      };
    }
    return {
      outcome: _outcome(result, {
        key: v.key,
        label: v.label,
        settings,
        charge: "sampling-gradient",
      }),
      numSteps,
      thin,
    };
  };

  // 5. Step-size grids at equal evaluation budget; choose by the smallest
  //    moment error against full-data HMC.
  const grid: GridRow[] = [];
  const chosenStepSize: Record<string, number> = {};
  for (const v of config.sgVariants) {
    if (v.stepSizeFrom !== undefined || v.stepSize !== undefined) continue;
    await timed(`step-size grid: ${v.label}`, () => {
      const values = v.kind === "sgld"
        ? config.sgldGrid.map((c) => c / lambdaMax)
        : config.sghmcGrid;
      const rows: GridRow[] = [];
      values.forEach((eps, i) => {
        const numSteps = v.kind === "sgld" ? 1 : Math.ceil(_TRAJECTORY / eps);
        const perIt = numSteps * m;
        const thin = v.kind === "sgld" ? matchedSteps : 1;
        let iterations = Math.max(20 * thin, Math.round(budget / perIt));
        iterations = Math.ceil(iterations / thin) * thin;
        const burnIn = Math.max(10 * thin, Math.round(iterations / 4));
        const r = runSg(v, eps, { iterations, burnIn, seed: `${config.seed}/grid/${v.key}/${i}` });
        const o = r.outcome;
        const errors = o.unstable ? null : momentErrors(o.moments, ref);
        rows.push({
          variant: v.key,
          label: v.label,
          stepSize: eps,
          relative: v.kind === "sgld" ? eps * lambdaMax : NaN,
          numSteps,
          iterations,
          evaluations: o.evaluations,
          errors: errors !== null && Number.isFinite(errors.combined) ? errors : null,
          medianIf: o.unstable ? NaN : _median(o.inefficiency),
          chosen: false,
        });
      });
      const k = chooseStepSize(
        rows.map((r) => ({ stepSize: r.stepSize, error: r.errors?.combined ?? Infinity })),
      );
      rows[k].chosen = true;
      chosenStepSize[v.key] = rows[k].stepSize;
      grid.push(...rows);
    });
  }

  // 6. The SG methods at their chosen ε, fresh seeds, R kept draws each.
  const sg: MethodOutcome[] = [];
  for (const v of config.sgVariants) {
    const eps = v.stepSize ?? chosenStepSize[v.stepSizeFrom ?? v.key];
    if (eps === undefined) {
      throw new RangeError(
        `variant ${v.key} takes its step size from ${v.stepSizeFrom}, which ran no grid`,
      );
    }
    const thin = v.kind === "sgld" ? matchedSteps : 1;
    const o = await timed(v.label, () =>
      runSg(v, eps, {
        iterations: config.numSamples * thin,
        burnIn: config.sgBurnIn * thin,
        seed: `${config.seed}/sg/${v.key}`,
      }).outcome);
    sg.push(o);
  }
  for (const e of Object.values(estimators)) e.dispose();
  cv.dispose();

  return {
    thetaStar0,
    subsetRows: subset.rows,
    reference,
    perturbed,
    signed,
    perturbedPaperWarmup,
    sg,
    ecsSummary: {
      perturbed: ecsSummary(perturbed, n),
      signed: ecsSummary(signed, n),
      reference: ecsSummary(reference, n),
    },
    grid,
    chosenStepSize,
    sgBatchSize: m,
    matchedSteps,
    lambdaMax,
    timings,
  };
}

// ---------------------------------------------------------------------------
// Tables shared by R2 and R4
// ---------------------------------------------------------------------------

/** Cells of a row (strings, numbers, null). */
export type Row = (string | number | null)[];

/** RCT of a method against perturbed HMC-ECS. */
export function rctOf(method: MethodOutcome, reference: MethodOutcome): RctRange {
  return rctRange(method, reference);
}

/**
 * RCT of a method when HMC-ECS is charged its post-warmup evaluations only
 * (the SG methods' convention), for the sensitivity column.
 *
 * @param method The method.
 * @param perturbed Perturbed HMC-ECS.
 * @returns The RCT range.
 */
export function rctSamplingOnly(method: MethodOutcome, perturbed: MethodOutcome): RctRange {
  const ecsLike = (o: MethodOutcome): CostRecord =>
    o.key.startsWith("ecs_") || o.key === "hmc" ? { ...o, evaluations: o.evaluationsSampling } : o;
  return rctRange(ecsLike(method), ecsLike(perturbed));
}

/** Rows of the bias table: every method's moment errors against full-data HMC. */
export function biasRows(outcome: ComparisonOutcome): Row[] {
  const ref = outcome.reference;
  const rows: Row[] = [];
  for (
    const o of [outcome.perturbed, outcome.signed, outcome.perturbedPaperWarmup, ...outcome.sg]
  ) {
    if (o.unstable) {
      rows.push([o.label, "diverged", null, null, null, null, null, null]);
      continue;
    }
    const e = momentErrors(o.moments, ref.moments);
    rows.push([
      o.label,
      o.settings,
      e.rmsMean,
      e.maxMean,
      monteCarloFloor(o, ref),
      e.rmsSd,
      e.maxSd,
      e.combined,
    ]);
  }
  return rows;
}

/** Column names of {@link biasRows}. */
export const BIAS_COLUMNS: readonly string[] = [
  "method",
  "settings",
  "rms z(mean)",
  "max |z(mean)|",
  "MC floor of rms z(mean)",
  "rms z(sd)",
  "max |z(sd)|",
  "combined error E",
];

/** Rows of the step-size grid table. */
export function gridRows(outcome: ComparisonOutcome): Row[] {
  return outcome.grid.map((g) => [
    g.label,
    g.stepSize,
    Number.isFinite(g.relative) ? g.relative : null,
    g.numSteps,
    g.iterations,
    g.evaluations,
    g.errors?.rmsMean ?? null,
    g.errors?.rmsSd ?? null,
    g.errors?.combined ?? null,
    Number.isFinite(g.medianIf) ? g.medianIf : null,
    g.errors === null ? "unstable" : g.chosen ? "**chosen**" : "",
  ]);
}

/** Column names of {@link gridRows}. */
export const GRID_COLUMNS: readonly string[] = [
  "method",
  "ε",
  "ε·λ_max",
  "L",
  "iterations",
  "gradient evaluations",
  "rms z(mean)",
  "rms z(sd)",
  "E",
  "median IF",
  "",
];

/** Rows of the timing table. */
export function timingRows(
  outcome: ComparisonOutcome,
  extra: { stage: string; seconds: number }[],
): Row[] {
  return [...extra, ...outcome.timings].map((t) => [t.stage, t.seconds]);
}

// ---------------------------------------------------------------------------
// Figures
// ---------------------------------------------------------------------------

/**
 * Figs. 1/4: a grid of density panels, one row per method, one column per
 * parameter, each with the method's KDE and full-data HMC's.
 *
 * @param methods The methods (signed HMC-ECS: KDE of the raw draws).
 * @param reference Full-data HMC.
 * @param params Parameter indices to show.
 * @param title Figure title.
 * @returns A Vega-Lite spec.
 */
export function densityGridSpec(
  methods: readonly MethodOutcome[],
  reference: MethodOutcome,
  params: readonly number[],
  title: string,
): Record<string, unknown> {
  const values: Record<string, string | number>[] = [];
  const names = reference.result.parameterNames;
  const pooled = (o: MethodOutcome, j: number) => {
    const c = parameterDraws(o.result, j);
    const out = new Float64Array(c.reduce((a, x) => a + x.length, 0));
    let k = 0;
    for (const x of c) for (let i = 0; i < x.length; i++) out[k++] = x[i];
    return out;
  };
  for (const j of params) {
    const refKde = kde(pooled(reference, j), { numPoints: 60 });
    for (const o of methods) {
      if (o.unstable) continue;
      const est = kde(pooled(o, j), { numPoints: 60 });
      for (let i = 0; i < est.x.length; i++) {
        values.push({
          method: o.label,
          parameter: names[j],
          series: "method",
          x: est.x[i],
          density: est.density[i],
        });
      }
      for (let i = 0; i < refKde.x.length; i++) {
        values.push({
          method: o.label,
          parameter: names[j],
          series: "HMC (full data)",
          x: refKde.x[i],
          density: refKde.density[i],
        });
      }
    }
  }
  return {
    $schema: VEGA_LITE_SCHEMA,
    title,
    data: { values },
    facet: {
      row: {
        field: "method",
        type: "nominal",
        title: null,
        sort: methods.map((m) => m.label),
        header: { labelAngle: 0, labelAlign: "left", labelLimit: 200 },
      },
      column: {
        field: "parameter",
        type: "nominal",
        title: null,
        sort: params.map((j) => names[j]),
      },
    },
    spec: {
      width: 150,
      height: 70,
      mark: { type: "line", strokeWidth: 1.3 },
      encoding: {
        x: { field: "x", type: "quantitative", title: null, scale: { zero: false } },
        y: { field: "density", type: "quantitative", title: null, axis: { labels: false } },
        color: {
          field: "series",
          type: "nominal",
          title: null,
          scale: { domain: ["method", "HMC (full data)"], range: ["#2ca02c", "#d62728"] },
        },
      },
    },
    resolve: { scale: { x: "independent", y: "independent" } },
  };
}

/**
 * Figs. 2/5: posterior mean and variance of every parameter, each method
 * against full-data HMC, with the identity line.
 *
 * @param methods The methods.
 * @param reference Full-data HMC.
 * @param title Figure title.
 * @returns A Vega-Lite spec.
 */
export function momentScatterSpec(
  methods: readonly MethodOutcome[],
  reference: MethodOutcome,
  title: string,
): Record<string, unknown> {
  const values: Record<string, string | number>[] = [];
  const names = reference.result.parameterNames;
  for (const o of methods) {
    if (o.unstable) continue;
    for (let j = 0; j < names.length; j++) {
      values.push({
        method: o.label,
        statistic: "mean",
        parameter: names[j],
        hmc: reference.moments.mean[j],
        estimate: o.moments.mean[j],
      });
      values.push({
        method: o.label,
        statistic: "variance",
        parameter: names[j],
        hmc: reference.moments.variance[j],
        estimate: o.moments.variance[j],
      });
    }
  }
  return {
    $schema: VEGA_LITE_SCHEMA,
    title,
    data: { values },
    facet: {
      row: { field: "statistic", type: "nominal", title: null },
      column: { field: "method", type: "nominal", title: null, sort: methods.map((m) => m.label) },
    },
    spec: {
      width: 130,
      height: 130,
      layer: [
        {
          mark: { type: "line", color: "#999", strokeDash: [4, 3], strokeWidth: 1 },
          encoding: {
            x: { field: "hmc", type: "quantitative" },
            y: { field: "hmc", type: "quantitative" },
          },
        },
        {
          mark: { type: "point", filled: true, size: 18, color: "#2ca02c" },
          encoding: {
            x: { field: "hmc", type: "quantitative", title: "HMC (full data)" },
            y: { field: "estimate", type: "quantitative", title: "method" },
            tooltip: [{ field: "parameter" }, { field: "hmc" }, { field: "estimate" }],
          },
        },
      ],
    },
    resolve: { scale: { x: "independent", y: "independent" } },
  };
}

/**
 * Posterior predictive probabilities σ(xᵢᵀθ) averaged over (thinned) draws,
 * for the rows of a row-major design matrix.
 *
 * @param x Row-major rows × d design (f32 or f64 view).
 * @param draws `draws[param][k]` of one chain (or pooled).
 * @param maxDraws Use at most this many evenly spaced draws.
 * @returns One mean probability per row.
 */
export function predictiveMean(
  x: ArrayLike<number>,
  draws: readonly ArrayLike<number>[],
  maxDraws: number,
): Float64Array {
  const d = draws.length, rows = x.length / d, numDraws = draws[0].length;
  const ks = thinEvenly(Array.from({ length: numDraws }, (_, k) => k), Math.max(2, maxDraws));
  const theta = new Float64Array(d);
  const out = new Float64Array(rows);
  for (const k of ks) {
    for (let j = 0; j < d; j++) theta[j] = draws[j][k];
    for (let i = 0; i < rows; i++) {
      let eta = 0;
      const o = i * d;
      for (let j = 0; j < d; j++) eta += x[o + j] * theta[j];
      out[i] += 1 / (1 + Math.exp(-eta));
    }
  }
  for (let i = 0; i < rows; i++) out[i] /= ks.length;
  return out;
}

/** A paper's min / median / max RCT per method key. */
export type PaperRct = Record<string, readonly [number, number, number]>;

/** One column of a paper's HMC-ECS settings table (Table 2 / Table 4). */
export interface PaperEcsColumn {
  /** α_θ,p. */
  acc: number;
  /** α_u. */
  accU: number;
  /** L. */
  L: number;
  /** Mean IF. */
  IF: number;
  /** ESS. */
  ESS: number;
  /** τ̂. */
  tau: number;
  /** 100·m/n. */
  pct: number;
}

/** A paper's HMC-ECS settings table: perturbed, signed and the HMC benchmark. */
export interface PaperEcsTable {
  /** Perturbed HMC-ECS. */
  perturbed: PaperEcsColumn;
  /** Signed HMC-ECS. */
  signed: PaperEcsColumn;
  /** Full-data HMC (from the table's caption). */
  hmc: PaperEcsColumn;
}

/**
 * The RCT table (the paper's Table 1 / Table 3): min / median / max RCT against
 * perturbed HMC-ECS per method, the paper's values beside ours, the RCT with
 * HMC-ECS charged post-warmup only, and each method's bias against full-data HMC.
 *
 * @param out The comparison's outcome.
 * @param options Table `name`, `title` (caption prefix) and the paper's values.
 * @returns The table.
 */
export function rctTable(
  out: ComparisonOutcome,
  options: { name: string; title: string; paper: PaperRct },
): ResultTable {
  const p = out.perturbed;
  const rows: (string | number | null)[][] = [];
  for (const o of [out.signed, out.perturbedPaperWarmup, ...out.sg, out.reference]) {
    const paper = options.paper[o.key] ?? [null, null, null];
    if (o.unstable) {
      rows.push([
        o.label,
        o.settings,
        null,
        null,
        null,
        ...paper,
        null,
        null,
        null,
        o.evaluations,
        null,
        o.tau,
      ]);
      continue;
    }
    const r = rctOf(o, p), alt = rctSamplingOnly(o, p);
    const e = momentErrors(o.moments, out.reference.moments);
    const meanIf = o.inefficiency.reduce((a, b) => a + b, 0) / o.inefficiency.length;
    rows.push([
      o.label,
      o.settings,
      r.min,
      r.median,
      r.max,
      ...paper,
      alt.median,
      o.key === "hmc" ? null : e.rmsMean,
      o.key === "hmc" ? null : e.rmsSd,
      o.evaluations,
      meanIf,
      o.tau,
    ]);
  }
  return {
    name: options.name,
    caption:
      `${options.title} — RCT against perturbed HMC-ECS (min / median / max over the ${p.inefficiency.length} parameters; CT = IF/(2τ̂−1)² × evaluations per kept draw; HMC-ECS and HMC charged their whole run incl. tuning, SG methods post burn-in only), paper values beside ours; "median RCT (ECS post-warmup)" charges HMC-ECS its sampling phase only; rms z = bias vs full-data HMC in posterior sds.`,
    columns: [
      "method",
      "settings",
      "RCT min",
      "RCT median",
      "RCT max",
      "paper min",
      "paper median",
      "paper max",
      "median RCT (ECS post-warmup)",
      "rms z(mean)",
      "rms z(sd)",
      "evaluations",
      "mean IF",
      "τ̂",
    ],
    rows,
  };
}

/**
 * The HMC-ECS settings and efficiency table (the paper's Table 2 / Table 4),
 * sampling phase, paper values beside ours.
 *
 * @param out The comparison's outcome.
 * @param options Table `name`, `title`, data size `n`, the paper's values and its ε (NaN if unreported).
 * @returns The table.
 */
export function ecsSettingsTable(
  out: ComparisonOutcome,
  options: { name: string; title: string; n: number; paper: PaperEcsTable; paperStepSize: number },
): ResultTable {
  const s = out.ecsSummary;
  const P = options.paper;
  const row = (
    what: string,
    get: (x: typeof s.perturbed) => number,
    paper: (x: PaperEcsColumn) => number,
  ) =>
    [
      what,
      get(s.perturbed),
      paper(P.perturbed),
      get(s.signed),
      paper(P.signed),
      get(s.reference),
      paper(P.hmc),
    ].map((v) => (typeof v === "number" && Number.isNaN(v) ? null : v));
  return {
    name: options.name,
    caption:
      `${options.title} — settings and efficiency of HMC-ECS (sampling phase, n = ${options.n}); paper values beside ours (HMC's from the caption of ${options.title}).`,
    columns: [
      "quantity",
      "perturbed (ours)",
      "perturbed (paper)",
      "signed (ours)",
      "signed (paper)",
      "HMC (ours)",
      "HMC (paper)",
    ],
    rows: [
      row("α_θ,p", (x) => x.acceptance, (x) => x.acc),
      row("α_u", (x) => x.subsampleAcceptance, (x) => x.accU),
      row("ε", (x) => x.stepSize, () => options.paperStepSize),
      row("L", (x) => x.numSteps, (x) => x.L),
      row("IF (mean)", (x) => x.meanIf, (x) => x.IF),
      row("ESS = R/IF", (x) => x.ess, (x) => x.ESS),
      row("τ̂", (x) => x.tau, (x) => x.tau),
      row("100·m/n", (x) => x.percentRows, (x) => x.pct),
      row("σ̂²(ℓ̂) or Var log|L̂| (in-run median)", (x) => x.logLikelihoodVariance, () => NaN),
    ],
  };
}
