/**
 * Posterior moments of a run (sign-corrected for signed HMC-ECS) and their
 * errors against a reference run, in units of the reference posterior sd —
 * the bias measure of the replication experiments.
 *
 * For every parameter j, z_mean = (μ̂ⱼ − μⱼ)/σⱼ and z_sd = (σ̂ⱼ − σⱼ)/σⱼ
 * against full-data HMC (μⱼ, σⱼ), summarised by their root mean square and
 * maximum; the Monte Carlo floor √(mean_j(IFⱼ/R + IF_ref,j/R_ref)) is the rms
 * |z_mean| that sampling noise alone produces.
 *
 * References: Dang, Quiroz, Kohn, Tran & Villani (2019), JMLR 20, eq. 17 and
 * §6.5 (Figs. 2 and 5); Geyer (1992) for the variance σ²·IF/R of an MCMC mean.
 *
 * @module
 */
import { signCorrectedSummary } from "../diagnostics/mod.ts";
import { parameterDraws, type SamplingResult } from "../samplers/driver.ts";

/** Posterior means and variances, one per parameter. */
export interface PosteriorMoments {
  /** Posterior means. */
  mean: number[];
  /** Posterior variances. */
  variance: number[];
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
 * import { momentErrors } from "./moment_errors.ts";
 * import { strict as assert } from "node:assert";
 * const e = momentErrors({ mean: [1.5, 0], variance: [4, 1] }, { mean: [1, 0], variance: [1, 1] });
 * assert.deepEqual([e.zMean, e.zSd], [[0.5, 0], [1, 0]]);
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
 * import { monteCarloFloor } from "./moment_errors.ts";
 * import { strict as assert } from "node:assert";
 * const floor = monteCarloFloor({ inefficiency: [2, 2], numDraws: 400 }, { inefficiency: [1, 1], numDraws: 400 });
 * assert.equal(floor, Math.sqrt(3 / 400)); // √(2/400 + 1/400)
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

/**
 * The signs of the kept draws, pooled over chains in chain order, or
 * undefined when the run recorded none (every sampler but signed HMC-ECS).
 *
 * @param result The driver's result.
 * @returns One sign ±1 per kept draw, or undefined.
 */
export function drawSigns(result: SamplingResult): Float64Array | undefined {
  if (result.chains[0].info.sampling.sign === undefined) return undefined;
  const out = new Float64Array(result.numChains * result.numDraws);
  result.chains.forEach((c, i) => {
    const s = c.info.sampling.sign;
    for (let k = 0; k < result.numDraws; k++) out[i * result.numDraws + k] = s[k * result.thin];
  });
  return out;
}

/**
 * The kept draws of one parameter pooled over chains, in chain order.
 *
 * @param result The driver's result.
 * @param param Parameter index.
 * @returns All chains' draws of the parameter, concatenated.
 */
export function pooledDraws(result: SamplingResult, param: number): Float64Array {
  const chains = parameterDraws(result, param);
  const out = new Float64Array(chains.reduce((a, x) => a + x.length, 0));
  let k = 0;
  for (const x of chains) for (let i = 0; i < x.length; i++) out[k++] = x[i];
  return out;
}

/**
 * Posterior means and variances of every parameter, pooling chains; with
 * signs recorded, the sign-corrected estimates Σψs/Σs of E[θ] and E[θ²]
 * ({@link signCorrectedSummary}, eq. 17). NaN when the signs sum to zero.
 *
 * @param result The driver's result.
 * @returns Means and variances per parameter.
 * @throws RangeError for a non-finite draw (from the diagnostics).
 * References: Dang et al. (2019), eq. 17; Lyne et al. (2015).
 */
export function posteriorMoments(result: SamplingResult): PosteriorMoments {
  const d = result.parameterNames.length;
  const signs = drawSigns(result);
  const mean: number[] = [], variance: number[] = [];
  if (signs !== undefined && signs.reduce((a, b) => a + b, 0) === 0) {
    return { mean: new Array<number>(d).fill(NaN), variance: new Array<number>(d).fill(NaN) };
  }
  for (let j = 0; j < d; j++) {
    const s = signCorrectedSummary(pooledDraws(result, j), signs);
    mean.push(s.mean);
    variance.push(s.variance);
  }
  return { mean, variance };
}
