/**
 * Posterior predictive probabilities of a logistic regression, σ(xᵢᵀθ)
 * averaged over evenly thinned posterior draws: per row (the scores of the
 * ROC curve of Fig. 3), per group of rows with a pointwise band over draws
 * (Fig. 6), and the equal-size groups of a covariate whose empirical
 * frequencies Fig. 6 sets beside them.
 *
 * References: Dang, Quiroz, Kohn, Tran & Villani (2019), JMLR 20, Figs. 3
 * and 6.
 *
 * @module
 */
import { quantile } from "../diagnostics/mod.ts";
import { thinEvenly } from "./figures.ts";

/** Pointwise band of a predicted curve: per group, mean and 5 % / 95 % quantiles over draws. */
export interface PredictedBand {
  /** Mean over draws. */
  mean: number[];
  /** 5 % quantile over draws. */
  lo: number[];
  /** 95 % quantile over draws. */
  hi: number[];
}

/** Indices of at most `max` evenly spaced draws out of `numDraws`. */
function _thinnedDraws(numDraws: number, max: number): number[] {
  return thinEvenly(Array.from({ length: numDraws }, (_, k) => k), max);
}

/** θ ← draw k of `draws[param][k]`. */
function _drawInto(theta: Float64Array, draws: readonly ArrayLike<number>[], k: number): void {
  for (let j = 0; j < theta.length; j++) theta[j] = draws[j][k];
}

/** σ(xᵀθ) of row `row` of a row-major design with d = θ.length columns. */
function _probability(x: ArrayLike<number>, row: number, theta: Float64Array): number {
  const d = theta.length, o = row * d;
  let eta = 0;
  for (let j = 0; j < d; j++) eta += x[o + j] * theta[j];
  return 1 / (1 + Math.exp(-eta));
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
 * import { equalCountBins } from "./predictive.ts";
 * import { strict as assert } from "node:assert";
 * const b = equalCountBins([4, 1, 3, 2], [1, 0, 1, 0], 2);
 * assert.deepEqual([b.x, b.y], [[1.5, 3.5], [0, 1]]);
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
 * Posterior predictive probabilities σ(xᵢᵀθ) averaged over (thinned) draws,
 * for the rows of a row-major design matrix.
 *
 * @param x Row-major rows × d design (f32 or f64 view).
 * @param draws `draws[param][k]` of one chain (or pooled).
 * @param maxDraws Use at most this many evenly spaced draws.
 * @returns One mean probability per row.
 * @example
 * ```ts
 * import { predictiveMean } from "./predictive.ts";
 * import { strict as assert } from "node:assert";
 * // One row (1, 1) and the single draw θ = (0, 0): σ(0) = ½.
 * assert.equal(predictiveMean([1, 1], [[0], [0]], 2)[0], 0.5);
 * ```
 * References: Dang et al. (2019), Fig. 3.
 */
export function predictiveMean(
  x: ArrayLike<number>,
  draws: readonly ArrayLike<number>[],
  maxDraws: number,
): Float64Array {
  const d = draws.length, rows = x.length / d;
  const ks = _thinnedDraws(draws[0].length, Math.max(2, maxDraws));
  const numDraws = ks.length;
  // The draws side by side (draw t at t·d), small enough to stay in cache; each row is read
  // once and scored against every draw, instead of one pass over all rows per draw. Per row
  // the same sums in the same order (η over j, then the draws in order): the same numbers.
  const thetas = new Float64Array(numDraws * d), row = new Float64Array(d);
  ks.forEach((k, t) => {
    for (let j = 0; j < d; j++) thetas[t * d + j] = draws[j][k];
  });
  const out = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    const o = i * d;
    for (let j = 0; j < d; j++) row[j] = x[o + j];
    let sum = 0, t = 0;
    // Four draws at a time: four independent sums in flight instead of one chain of adds.
    for (; t + 4 <= numDraws; t += 4) {
      const b0 = t * d, b1 = b0 + d, b2 = b1 + d, b3 = b2 + d;
      let e0 = 0, e1 = 0, e2 = 0, e3 = 0;
      for (let j = 0; j < d; j++) {
        const v = row[j];
        e0 += v * thetas[b0 + j];
        e1 += v * thetas[b1 + j];
        e2 += v * thetas[b2 + j];
        e3 += v * thetas[b3 + j];
      }
      sum += 1 / (1 + Math.exp(-e0));
      sum += 1 / (1 + Math.exp(-e1));
      sum += 1 / (1 + Math.exp(-e2));
      sum += 1 / (1 + Math.exp(-e3));
    }
    for (; t < numDraws; t++) {
      const b = t * d;
      let eta = 0;
      for (let j = 0; j < d; j++) eta += row[j] * thetas[b + j];
      sum += 1 / (1 + Math.exp(-eta));
    }
    out[i] = sum / numDraws;
  }
  return out;
}

/**
 * Predicted probability per group of rows: for each of `numDraws` evenly
 * spaced posterior draws, the mean of σ(xᵢᵀθ) over the rows of each group;
 * then the mean and the 5 % and 95 % quantiles over draws.
 *
 * @param x Row-major n × d design (f32 or f64 view), d = `draws.length`.
 * @param groups `rows` (row indices into x), `group` (the group of each of
 *   those rows) and `numGroups`.
 * @param options `draws[param][k]` of one chain and how many `numDraws` to use.
 * @returns The band, one entry per group.
 * References: Dang et al. (2019), Fig. 6.
 */
export function predictedBand(
  x: ArrayLike<number>,
  groups: { rows: Int32Array; group: Int32Array; numGroups: number },
  options: { draws: readonly ArrayLike<number>[]; numDraws: number },
): PredictedBand {
  const { rows, group, numGroups } = groups, draws = options.draws;
  const ks = _thinnedDraws(draws[0].length, options.numDraws);
  const perDraw = ks.map(() => new Float64Array(numGroups));
  const counts = new Float64Array(numGroups);
  for (let r = 0; r < rows.length; r++) counts[group[r]]++;
  const theta = new Float64Array(draws.length);
  ks.forEach((k, t) => {
    _drawInto(theta, draws, k);
    const acc = perDraw[t];
    for (let r = 0; r < rows.length; r++) acc[group[r]] += _probability(x, rows[r], theta);
    for (let g = 0; g < numGroups; g++) acc[g] /= Math.max(1, counts[g]);
  });
  const band: PredictedBand = { mean: [], lo: [], hi: [] };
  for (let g = 0; g < numGroups; g++) {
    const v = perDraw.map((a) => a[g]);
    band.mean.push(v.reduce((a, b) => a + b, 0) / v.length);
    band.lo.push(quantile(v, 0.05));
    band.hi.push(quantile(v, 0.95));
  }
  return band;
}
