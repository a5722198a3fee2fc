/**
 * Sample quantiles by linear interpolation of the order statistics (R's
 * default, "type 7").
 *
 * References: Hyndman & Fan (1996) "Sample quantiles in statistical
 * packages", The American Statistician 50(4), definition 7:
 * Q(p) = x₍ⱼ₎ + g·(x₍ⱼ₊₁₎ − x₍ⱼ₎) with h = (n − 1)p, j = ⌊h⌋ (0-based), g = h − j.
 *
 * @module
 */

import { _chain, _probability } from "./_util.ts";

/**
 * Type-7 quantile of already sorted finite values. Interpolates as R's
 * `quantile()` does, (1 − g)·x₍ⱼ₎ + g·x₍ⱼ₊₁₎, and returns an order statistic
 * exactly when h is an integer.
 */
export function _quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  const a = sorted[lo];
  const b = sorted[hi];
  if (h === lo || a === b) return a;
  const g = h - lo;
  return (1 - g) * a + g * b;
}

/** Sorted Float64Array copy of validated values. */
export function _sorted(x: Float64Array): Float64Array {
  return Float64Array.from(x).sort();
}

/**
 * Sample quantile of type 7 (R's default): linear interpolation between the
 * order statistics at position h = (n − 1)p.
 *
 * References: Hyndman & Fan (1996) The American Statistician 50(4), def. 7.
 *
 * @param x Draws (at least 1 finite value).
 * @param p Probability in [0, 1].
 * @returns The p-quantile of x.
 * @throws {RangeError} If x is empty or has a non-finite value, or p ∉ [0, 1].
 *
 * @example Quartiles of 1..5
 * ```ts
 * import { quantile } from "./quantile.ts";
 * import { strict as assert } from "node:assert";
 *
 * assert.equal(quantile([5, 1, 4, 2, 3], 0.25), 2);
 * assert.equal(quantile([1, 2, 3, 4], 0.5), 2.5); // h = 1.5
 * ```
 */
export function quantile(x: ArrayLike<number>, p: number): number {
  _probability(p, "p");
  return _quantileSorted(_sorted(_chain(x, "x", 1)), p);
}

/**
 * Several type-7 sample quantiles of the same draws, sorting them once.
 *
 * References: Hyndman & Fan (1996) The American Statistician 50(4), def. 7.
 *
 * @param x Draws (at least 1 finite value).
 * @param probs Probabilities, each in [0, 1].
 * @returns The quantiles, in the order of `probs`.
 * @throws {RangeError} If x is empty or has a non-finite value, or a
 * probability is outside [0, 1].
 *
 * @example 5%, 50% and 95% quantiles
 * ```ts
 * import { quantiles } from "./quantile.ts";
 * import { strict as assert } from "node:assert";
 *
 * const x = Array.from({ length: 101 }, (_, i) => i);
 * assert.deepEqual(quantiles(x, [0.05, 0.5, 0.95]), [5, 50, 95]);
 * ```
 */
export function quantiles(x: ArrayLike<number>, probs: ArrayLike<number>): number[] {
  const sorted = _sorted(_chain(x, "x", 1));
  const out: number[] = [];
  for (let i = 0; i < probs.length; i++) {
    out.push(_quantileSorted(sorted, _probability(probs[i], `probs[${i}]`)));
  }
  return out;
}
