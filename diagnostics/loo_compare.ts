/**
 * Comparison of models by their PSIS-LOO fits, as R's `loo_compare`: each
 * model's elpd_loo difference from the best with the standard error of the
 * paired pointwise differences ({@linkcode looCompare}), and the same with
 * subsampled fits ({@linkcode looCompareSubsample}: the difference estimator
 * on a shared subsample, or the two estimates combined as if independent).
 *
 * References: Vehtari, Gelman & Gabry (2017) "Practical Bayesian model
 * evaluation using leave-one-out cross-validation and WAIC", Statistics and
 * Computing 27; Magnusson, Andersen, Jonasson & Vehtari (2020) "Leave-one-out
 * cross-validation for Bayesian model comparison in large data", AISTATS.
 *
 * @module
 */

import type { LooEstimate, LooResult } from "./loo.ts";
import type { LooSubsampleEstimate, LooSubsampleResult } from "./loo_subsample.ts";
import { differenceEstimate, totalEstimate } from "./total_estimates.ts";

/** One row of {@linkcode looCompare}, best model first. */
export interface LooCompareRow {
  /** The model's name (its key or index in the input). */
  name: string;
  /** elpd_loo of this model minus that of the best (0 for the best). */
  elpdDiff: number;
  /** SE of the difference: √(n · var(pointwise differences)) (0 for the best). */
  seDiff: number;
  /** The model's elpd_loo. */
  elpdLoo: LooEstimate;
  /** The model's p_loo. */
  pLoo: LooEstimate;
  /** The model's looic. */
  looic: LooEstimate;
}

/**
 * Ranks models by elpd_loo, as R's `loo_compare`: each row's difference from
 * the best model with the standard error of the paired pointwise differences.
 *
 * @param fits Two or more {@linkcode loo} results on the same observations, by name.
 */
export function looCompare(fits: Readonly<Record<string, LooResult>>): LooCompareRow[] {
  const names = Object.keys(fits);
  if (names.length < 2) {
    throw new RangeError(`looCompare: needs at least 2 models, got ${names.length}`);
  }
  const n = fits[names[0]].numObservations;
  for (const name of names) {
    const f = fits[name];
    if (f?.pointwise?.elpdLoo?.length !== n) {
      throw new RangeError(
        `looCompare: every model must have the same ${n} observations; ${
          JSON.stringify(name)
        } has ${f?.pointwise?.elpdLoo?.length}`,
      );
    }
  }
  const order = names.map((name, i) => ({ name, i })).sort((a, b) =>
    fits[b.name].elpdLoo.estimate - fits[a.name].elpdLoo.estimate || a.i - b.i
  );
  const best = fits[order[0].name].pointwise.elpdLoo;
  const diff = new Float64Array(n);
  return order.map(({ name }, j) => {
    const f = fits[name];
    let seDiff = 0, elpdDiff = 0;
    if (j > 0) {
      for (let i = 0; i < n; i++) diff[i] = f.pointwise.elpdLoo[i] - best[i];
      const e = totalEstimate(diff);
      elpdDiff = e.estimate;
      seDiff = e.se;
    }
    return { name, elpdDiff, seDiff, elpdLoo: f.elpdLoo, pLoo: f.pLoo, looic: f.looic };
  });
}

/** A fit for {@linkcode looCompareSubsample}: full PSIS-LOO or subsampled. */
export type LooFit = LooResult | LooSubsampleResult;

/** One row of {@linkcode looCompareSubsample}, best model first. */
export interface LooSubsampleCompareRow {
  /** The model's name. */
  name: string;
  /** elpd_loo of this model minus that of the best (0 for the best). */
  elpdDiff: number;
  /** SE of the difference from the data (0 for the best). */
  seDiff: number;
  /** SE of the difference from subsampling (0 for the best or full-data fits). */
  subsamplingSeDiff: number;
  /**
   * How the difference was estimated: `"paired"` (pointwise differences on
   * the same rows: full data, or the difference estimator on the same
   * subsample) or `"naive"` (different subsamples: the SEs of the two
   * estimates combined as if independent).
   */
  method: "paired" | "naive" | "best";
  /** The model's elpd_loo. */
  elpdLoo: LooSubsampleEstimate;
  /** The model's p_loo. */
  pLoo: LooSubsampleEstimate;
  /** The model's looic. */
  looic: LooSubsampleEstimate;
}

function _isSubsampled(f: LooFit): f is LooSubsampleResult {
  return (f as LooSubsampleResult).indices instanceof Int32Array;
}

function _withSubsamplingSe(e: LooEstimate | LooSubsampleEstimate): LooSubsampleEstimate {
  return {
    estimate: e.estimate,
    se: e.se,
    subsamplingSe: "subsamplingSe" in e ? e.subsamplingSe : 0,
  };
}

function _sameIndices(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Ranks models by elpd_loo as R's `loo_compare`, with subsampled fits: the
 * difference from the best model and its SEs. Full fits only: exactly
 * {@linkcode looCompare} (subsampling SE 0). Two fits on the same subsample
 * (or one full and one subsampled, the full fit's exact pointwise values
 * serving as its approximation): the difference estimator applied to the
 * pointwise differences. Different subsamples: the difference of the
 * estimates with the SEs combined as if independent (`method: "naive"`).
 * elpdDiff is the model's minus the best's (≤ 0) for every row; R loo 2.5.1
 * prints subsampled differences with the opposite sign.
 *
 * @param fits Two or more fits of the same n observations, by name.
 */
export function looCompareSubsample(
  fits: Readonly<Record<string, LooFit>>,
): LooSubsampleCompareRow[] {
  const names = Object.keys(fits);
  if (names.length < 2) {
    throw new RangeError(`looCompare: needs at least 2 models, got ${names.length}`);
  }
  const n = fits[names[0]].numObservations;
  for (const name of names) {
    if (fits[name]?.numObservations !== n) {
      throw new RangeError(
        `looCompare: every model must have the same ${n} observations; ${
          JSON.stringify(name)
        } has ${fits[name]?.numObservations}`,
      );
    }
  }
  if (!names.some((k) => _isSubsampled(fits[k]))) {
    return looCompare(fits as Record<string, LooResult>).map((r, j) => ({
      name: r.name,
      elpdDiff: r.elpdDiff,
      seDiff: r.seDiff,
      subsamplingSeDiff: 0,
      method: j === 0 ? "best" : "paired",
      elpdLoo: _withSubsamplingSe(r.elpdLoo),
      pLoo: _withSubsamplingSe(r.pLoo),
      looic: _withSubsamplingSe(r.looic),
    }));
  }
  const order = names.map((name, i) => ({ name, i })).sort((a, b) =>
    fits[b.name].elpdLoo.estimate - fits[a.name].elpdLoo.estimate || a.i - b.i
  );
  const best = fits[order[0].name];
  return order.map(({ name }, j) => {
    const f = fits[name];
    const row = {
      name,
      elpdLoo: _withSubsamplingSe(f.elpdLoo),
      pLoo: _withSubsamplingSe(f.pLoo),
      looic: _withSubsamplingSe(f.looic),
    };
    if (j === 0) {
      return { ...row, elpdDiff: 0, seDiff: 0, subsamplingSeDiff: 0, method: "best" as const };
    }
    const a = best, b = f;
    let idx: Int32Array | null = null;
    if (_isSubsampled(a) && _isSubsampled(b)) {
      if (_sameIndices(a.indices, b.indices)) idx = a.indices;
    } else idx = _isSubsampled(a) ? a.indices : (b as LooSubsampleResult).indices;
    if (idx === null) {
      const ea = _withSubsamplingSe(a.elpdLoo), eb = _withSubsamplingSe(b.elpdLoo);
      return {
        ...row,
        elpdDiff: eb.estimate - ea.estimate,
        seDiff: Math.hypot(ea.se, eb.se),
        subsamplingSeDiff: Math.hypot(ea.subsamplingSe, eb.subsamplingSe),
        method: "naive" as const,
      };
    }
    const approxOf = (x: LooFit) => _isSubsampled(x) ? x.elpdLooApprox : x.pointwise.elpdLoo;
    const sampledOf = (x: LooFit) =>
      _isSubsampled(x)
        ? x.pointwise.elpdLoo
        : Float64Array.from(idx!, (i) => x.pointwise.elpdLoo[i]);
    const pa = approxOf(a), pb = approxOf(b), sa = sampledOf(a), sb = sampledOf(b);
    const dApprox = Float64Array.from(pa, (v, i) => pb[i] - v);
    const dSample = Float64Array.from(sa, (v, i) => sb[i] - v);
    const est = differenceEstimate(dApprox, dSample, idx);
    return {
      ...row,
      elpdDiff: est.estimate,
      seDiff: est.se,
      subsamplingSeDiff: est.subsamplingSe,
      method: "paired" as const,
    };
  });
}
