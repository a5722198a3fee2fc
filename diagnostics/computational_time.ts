/**
 * Computational time (CT) and relative computational time (RCT), the cost
 * measures of the HMC-ECS paper: the number of density and gradient
 * evaluations one independent draw costs, independent of how fast the
 * implementation runs.
 *
 * ```
 *  CT   = IF × E / (R (2τ̂ − 1)²)     IF: inefficiency factor, E: evaluations,
 *                                    R: kept draws, τ̂: fraction of positive signs
 *  RCT  = CT(sampler) / CT(reference)                   (eq. 19, per parameter)
 * ```
 *
 * With R = 1 and τ̂ = 1 (the defaults) CT is eq. 2, IF × E. Dividing by R
 * makes samplers that keep different numbers of draws comparable (E / R is
 * the cost of one kept draw); the sign penalty 1/(2τ̂ − 1)² is the variance
 * inflation of the sign-corrected estimator of signed HMC-ECS (eq. 18), and
 * CT is infinite when τ̂ ≤ ½.
 *
 * References: Dang, Quiroz, Kohn, Tran & Villani (2019) "Hamiltonian Monte
 * Carlo with energy conserving subsampling", JMLR 20, eqs. 2, 18 and 19,
 * §6.2 and Tables 1 and 3.
 *
 * @module
 */

import { _describe } from "./_util.ts";
import { _quantileSorted } from "./quantile.ts";

/** Options of {@linkcode computationalTime}. */
export interface ComputationalTimeOptions {
  /** Kept draws R the evaluations bought (> 0; default 1: CT per run, eq. 2). */
  numDraws?: number;
  /** Fraction τ̂ ∈ [0, 1] of draws with a positive sign (default 1: an unsigned sampler). */
  tau?: number;
}

/** Per-sampler input of {@linkcode relativeComputationalTimeSummary}. */
export interface SamplerCost extends ComputationalTimeOptions {
  /** Inefficiency factor of every parameter. */
  inefficiencyFactors: ArrayLike<number>;
  /** Total number of density and gradient evaluations of the run. */
  numEvaluations: number;
}

/** Spread of relative computational times across parameters. */
export interface RctSummary {
  /** Smallest RCT over parameters. */
  min: number;
  /** Median RCT over parameters (type-7 quantile 0.5). */
  median: number;
  /** Largest RCT over parameters. */
  max: number;
  /** RCT of every parameter, in input order. */
  values: number[];
}

function _nonNegative(v: unknown, name: string): number {
  if (typeof v !== "number") throw new TypeError(`${name} must be a number, got ${_describe(v)}`);
  if (!(v >= 0) || !Number.isFinite(v)) {
    throw new RangeError(`${name} must be non-negative and finite, got ${v}`);
  }
  return v;
}

/**
 * Computational time CT = IF × E / (R (2τ̂ − 1)²): the evaluations one
 * independent draw costs. With the default R = 1 and τ̂ = 1 this is eq. 2,
 * IF × E.
 *
 * References: Dang et al. (2019) JMLR 20, eqs. 2 and 18.
 *
 * @param inefficiency Inefficiency factor (≥ 0, finite).
 * @param numEvaluations Density and gradient evaluations E (≥ 0, finite).
 * @param options Kept draws `numDraws` R and the fraction of positive signs `tau` τ̂.
 * @returns CT; Infinity when τ̂ ≤ ½ (the sign-corrected estimator then has no
 * finite variance bound).
 * @throws {RangeError} If an argument is negative or not finite, R is not
 * positive, or τ̂ is outside [0, 1].
 *
 * @example
 * ```ts
 * import { computationalTime } from "./computational_time.ts";
 * import { strict as assert } from "node:assert";
 *
 * assert.equal(computationalTime(2.5, 1000), 2500);
 * // 900 evaluations for 100 draws at τ̂ = 0.75: 2 × 9 / (2·0.75 − 1)² = 72 per effective draw.
 * assert.equal(computationalTime(2, 900, { numDraws: 100, tau: 0.75 }), 72);
 * ```
 */
export function computationalTime(
  inefficiency: number,
  numEvaluations: number,
  options: ComputationalTimeOptions = {},
): number {
  _nonNegative(inefficiency, "inefficiency");
  _nonNegative(numEvaluations, "numEvaluations");
  const numDraws = options.numDraws ?? 1, tau = options.tau ?? 1;
  if (!(numDraws > 0) || !Number.isFinite(numDraws)) {
    throw new RangeError(`numDraws must be positive, got ${numDraws}`);
  }
  if (!(tau >= 0 && tau <= 1)) throw new RangeError(`tau must be in [0, 1], got ${tau}`);
  if (tau <= 0.5) return Infinity;
  return inefficiency * (numEvaluations / (numDraws * (2 * tau - 1) ** 2));
}

/**
 * Relative computational time RCT = CT / CT_reference: how many times more
 * costly a sampler is than the reference per independent draw (eq. 19 with
 * A₁ the reference).
 *
 * References: Dang et al. (2019) JMLR 20, eq. 19.
 *
 * @param ct Computational time of the sampler (≥ 0; Infinity allowed).
 * @param ctReference Computational time of the reference sampler (> 0, finite).
 * @returns CT / CT_reference.
 * @throws {RangeError} If ct is negative or NaN, or ctReference is not
 * positive and finite.
 *
 * @example
 * ```ts
 * import { relativeComputationalTime } from "./computational_time.ts";
 * import { strict as assert } from "node:assert";
 *
 * assert.equal(relativeComputationalTime(3000, 1000), 3);
 * ```
 */
export function relativeComputationalTime(ct: number, ctReference: number): number {
  if (typeof ct !== "number") throw new TypeError(`ct must be a number, got ${_describe(ct)}`);
  if (!(ct >= 0)) throw new RangeError(`ct must be non-negative, got ${ct}`);
  if (!(_nonNegative(ctReference, "ctReference") > 0)) {
    throw new RangeError(`ctReference must be positive, got ${ctReference}`);
  }
  return ct / ctReference;
}

/**
 * Min, median and max over parameters of the relative computational time of
 * a sampler against a reference, RCT_j = CT_j / CT_ref,j with
 * CT_j = IF_j · E / (R (2τ̂ − 1)²), as the HMC-ECS paper's tables report it.
 * A sampler with τ̂ ≤ ½ has RCT Infinity for every parameter.
 *
 * References: Dang et al. (2019) JMLR 20, eqs. 2, 18 and 19, Tables 1 and 3.
 *
 * @param sampler Per-parameter inefficiency factors, evaluations and
 * optionally kept draws and τ̂ of the sampler.
 * @param reference The same for the reference sampler (same parameters;
 * τ̂ > ½).
 * @returns `{ min, median, max, values }`.
 * @throws {RangeError} If the parameter counts differ or are zero, a value is
 * negative or not finite, a reference IF is 0, or the reference's τ̂ ≤ ½.
 *
 * @example
 * ```ts
 * import { relativeComputationalTimeSummary } from "./computational_time.ts";
 * import { strict as assert } from "node:assert";
 *
 * const s = relativeComputationalTimeSummary(
 *   { inefficiencyFactors: [2, 4, 8], numEvaluations: 100 },
 *   { inefficiencyFactors: [1, 1, 1], numEvaluations: 50 },
 * );
 * assert.deepEqual([s.min, s.median, s.max], [4, 8, 16]);
 * // Per kept draw: twice the evaluations for twice the draws costs the same.
 * const t = relativeComputationalTimeSummary(
 *   { inefficiencyFactors: [3], numEvaluations: 200, numDraws: 20 },
 *   { inefficiencyFactors: [3], numEvaluations: 100, numDraws: 10 },
 * );
 * assert.deepEqual(t.values, [1]);
 * ```
 */
export function relativeComputationalTimeSummary(
  sampler: SamplerCost,
  reference: SamplerCost,
): RctSummary {
  const k = sampler.inefficiencyFactors.length;
  if (k === 0) throw new RangeError("sampler.inefficiencyFactors must not be empty, got 0 values");
  if (reference.inefficiencyFactors.length !== k) {
    throw new RangeError(
      `sampler and reference must have IFs for the same parameters, got ${k} and ${reference.inefficiencyFactors.length}`,
    );
  }
  const values: number[] = [];
  for (let j = 0; j < k; j++) {
    const ct = computationalTime(
      _nonNegative(sampler.inefficiencyFactors[j], `sampler.inefficiencyFactors[${j}]`),
      sampler.numEvaluations,
      sampler,
    );
    const ctRef = computationalTime(
      _nonNegative(reference.inefficiencyFactors[j], `reference.inefficiencyFactors[${j}]`),
      reference.numEvaluations,
      reference,
    );
    values.push(relativeComputationalTime(ct, ctRef));
  }
  const sorted = Float64Array.from(values).sort();
  return { min: sorted[0], median: _quantileSorted(sorted, 0.5), max: sorted[k - 1], values };
}
