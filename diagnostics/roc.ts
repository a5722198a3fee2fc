/**
 * Receiver operating characteristic (ROC) curve and the area under it (AUC)
 * from real-valued scores and 0/1 labels.
 *
 * Thresholds run over the distinct scores from high to low; at threshold s
 * every item with score ≥ s is called positive, giving the point
 * (FPR, TPR) = (FP/N, TP/P). Tied scores enter together, so the curve has a
 * diagonal segment across a tie and the trapezoidal AUC equals the
 * Mann–Whitney probability P(score₊ > score₋) + ½ P(score₊ = score₋).
 *
 * References: Fawcett (2006) "An introduction to ROC analysis", Pattern
 * Recognition Letters 27(8), Algorithm 1 (curve with ties) and Algorithm 3
 * (trapezoidal AUC); Hanley & McNeil (1982) Radiology 143(1) (AUC as the
 * Mann–Whitney statistic).
 *
 * @module
 */

import { _chain } from "./_util.ts";

/** Points of an ROC curve, from (0, 0) to (1, 1). */
export interface RocCurve {
  /** False positive rates FP/N. */
  fpr: number[];
  /** True positive rates TP/P. */
  tpr: number[];
  /** Score threshold of each point (+Infinity for the first). */
  thresholds: number[];
}

function _validateRoc(
  scores: ArrayLike<number>,
  labels: ArrayLike<number>,
): { s: Float64Array; y: Uint8Array; positives: number } {
  const s = _chain(scores, "scores", 1);
  const l = _chain(labels, "labels", 1);
  if (l.length !== s.length) {
    throw new RangeError(
      `scores and labels must have the same length, got ${s.length} and ${l.length}`,
    );
  }
  const y = new Uint8Array(l.length);
  let positives = 0;
  for (let i = 0; i < l.length; i++) {
    if (l[i] !== 0 && l[i] !== 1) throw new RangeError(`labels[${i}] must be 0 or 1, got ${l[i]}`);
    y[i] = l[i];
    positives += l[i];
  }
  if (positives === 0 || positives === l.length) {
    throw new RangeError(
      `labels must contain both 0 and 1, got ${positives} ones out of ${l.length}`,
    );
  }
  return { s, y, positives };
}

/**
 * ROC curve points: one point per distinct score (ties enter together), plus
 * the origin.
 *
 * References: Fawcett (2006) Pattern Recognition Letters 27(8), Algorithm 1.
 *
 * @param scores Classifier scores (higher means more likely positive).
 * @param labels True classes, 0 or 1 (both present), same length as scores.
 * @returns `{ fpr, tpr, thresholds }`.
 * @throws {RangeError} For non-finite scores, labels not in {0, 1}, a single
 * class, or unequal lengths.
 *
 * @example
 * ```ts
 * import { rocCurve } from "./roc.ts";
 * import { strict as assert } from "node:assert";
 *
 * const roc = rocCurve([0.9, 0.8, 0.3, 0.1], [1, 0, 1, 0]);
 * assert.deepEqual(roc.fpr, [0, 0, 0.5, 0.5, 1]);
 * assert.deepEqual(roc.tpr, [0, 0.5, 0.5, 1, 1]);
 * ```
 */
export function rocCurve(scores: ArrayLike<number>, labels: ArrayLike<number>): RocCurve {
  const { s, y, positives } = _validateRoc(scores, labels);
  const n = s.length;
  const negatives = n - positives;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => s[b] - s[a]);
  const fpr = [0];
  const tpr = [0];
  const thresholds = [Infinity];
  let tp = 0;
  let fp = 0;
  for (let k = 0; k < n;) {
    const threshold = s[order[k]];
    for (; k < n && s[order[k]] === threshold; k++) {
      if (y[order[k]] === 1) tp++;
      else fp++;
    }
    fpr.push(fp / negatives);
    tpr.push(tp / positives);
    thresholds.push(threshold);
  }
  return { fpr, tpr, thresholds };
}

/**
 * Area under the ROC curve by the trapezoidal rule; with ties this is the
 * Mann–Whitney probability that a random positive outscores a random
 * negative, counting ties as ½.
 *
 * References: Fawcett (2006) Pattern Recognition Letters 27(8), Algorithm 3;
 * Hanley & McNeil (1982) Radiology 143(1).
 *
 * @param scores Classifier scores (higher means more likely positive).
 * @param labels True classes, 0 or 1 (both present), same length as scores.
 * @returns AUC in [0, 1]: 1 for perfect separation, 0 for reversed, ½ for
 * uninformative scores.
 * @throws {RangeError} For non-finite scores, labels not in {0, 1}, a single
 * class, or unequal lengths.
 *
 * @example A tie between a positive and a negative counts one half
 * ```ts
 * import { rocAuc } from "./roc.ts";
 * import { strict as assert } from "node:assert";
 *
 * // pairs (+,−): (0.8,0.1)=1, (0.8,0.4)=1, (0.4,0.1)=1, (0.4,0.4)=½ → 3.5/4
 * assert.equal(rocAuc([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]), 0.875);
 * ```
 */
export function rocAuc(scores: ArrayLike<number>, labels: ArrayLike<number>): number {
  const { fpr, tpr } = rocCurve(scores, labels);
  let area = 0;
  for (let k = 1; k < fpr.length; k++) {
    area += ((fpr[k] - fpr[k - 1]) * (tpr[k] + tpr[k - 1])) / 2;
  }
  return area;
}
