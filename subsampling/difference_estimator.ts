/**
 * The difference estimator of the log-likelihood and its bias-corrected
 * likelihood estimator, with exact gradients, over a gathered subsample.
 *
 * With u = (u₁, …, u_m) drawn uniformly with replacement (ωₖ = 1/n) and
 * dₖ(θ) = ℓₖ(θ) − qₖ(θ):
 *
 * ```
 *  ℓ̂ₘ(θ)  = Σₖ qₖ(θ) + (n/m) Σᵢ d_{uᵢ}(θ)                          (eqs. 8–9)
 *  σ̂²ₘ(θ) = (n²/m²) Σᵢ (d_{uᵢ}(θ) − d̄ᵤ(θ))²                        (eq. 10)
 *  log L̂ₘ(θ) = ℓ̂ₘ(θ) − ½σ̂²ₘ(θ)                                      (eq. 12)
 *  ∇ℓ̂ₘ    = A + B(θ − θ*) + (n/m) Σᵢ r_{uᵢ} x_{uᵢ}                  (eq. 14)
 *  ∇σ̂²ₘ   = (2n²/m²) Σᵢ (d_{uᵢ} − d̄ᵤ) r_{uᵢ} x_{uᵢ}                 (∂ of eq. 10; Σ(dᵢ − d̄) = 0)
 *  ⇒ ∇log L̂ₘ = ∇Σq + Σᵢ wᵢ x_{uᵢ},   wᵢ = r_{uᵢ} [n/m − (n²/m²)(d_{uᵢ} − d̄ᵤ)]
 * ```
 *
 * where rₖ = ∂dₖ/∂ηₖ (GLMs: ∇dₖ = rₖ xₖ). The gradient is one extra Xᵀw pass
 * over the same cache-resident rows.
 *
 * References: Dang et al. (2019) eqs. 8–10, 12, 14; Quiroz et al. (2019).
 *
 * @module
 */
import type { SubsampleControlVariates } from "./control_variates.ts";
import type { BlockProposal, BlockSubsample } from "./subsample_state.ts";

/** The three numbers of a difference-estimator evaluation. */
export interface DifferenceEstimate {
  /** ℓ̂ₘ(θ), unbiased for ℓ(θ) (eq. 8). */
  logLikelihood: number;
  /** σ̂²ₘ(θ), the estimated variance of ℓ̂ₘ (eq. 10). */
  variance: number;
  /** ℓ̂ₘ(θ) − σ̂²ₘ(θ)/2 = log L̂ₘ(θ) (eq. 12). */
  value: number;
}

/**
 * ℓ̂ₘ, σ̂²ₘ and ℓ̂ₘ − σ̂²ₘ/2 from the differences of a subsample.
 *
 * @param diffs dᵢ = ℓ_{uᵢ}(θ) − q_{uᵢ}(θ) for i = 1…m.
 * @param options `numRows` n and `sumControlVariates` Σₖ qₖ(θ).
 * @returns The estimate.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { differenceEstimate } from "./difference_estimator.ts";
 * const e = differenceEstimate([0.1, -0.1], { numRows: 10, sumControlVariates: -5 });
 * assert.equal(e.logLikelihood, -5);
 * assert.ok(Math.abs(e.variance - 0.5) < 1e-12); // σ̂² = (n/m)²·Σ(d − d̄)² = 5²·(0.01 + 0.01)
 * ```
 * References: Dang et al. (2019) eqs. 8–10, 12.
 */
export function differenceEstimate(
  diffs: ArrayLike<number>,
  options: { numRows: number; sumControlVariates: number },
): DifferenceEstimate {
  const m = diffs.length, n = options.numRows;
  if (m < 1) throw new RangeError(`diffs must hold at least one difference, got ${m}`);
  let s = 0;
  for (let i = 0; i < m; i++) s += diffs[i];
  const mean = s / m;
  let ss = 0;
  for (let i = 0; i < m; i++) {
    const e = diffs[i] - mean;
    ss += e * e;
  }
  const logLikelihood = options.sumControlVariates + n * mean;
  const variance = (n / m) * (n / m) * ss;
  return { logLikelihood, variance, value: logLikelihood - 0.5 * variance };
}

/** Options of {@link DifferenceEstimator.evaluate}. */
export interface DifferenceEvaluateOptions {
  /** Writes the gradient of the returned `value` (or of ℓ̂ₘ, see `biasCorrected`). */
  grad?: Float64Array;
  /**
   * Differentiate ℓ̂ₘ − σ̂²ₘ/2 (default true) or only ℓ̂ₘ. `value` is always
   * ℓ̂ₘ − σ̂²ₘ/2.
   */
  biasCorrected?: boolean;
}

/**
 * Evaluates the difference estimator on a {@link BlockSubsample}, keeping the
 * per-row differences of the latest evaluation so that a block proposal can be
 * scored by evaluating only its new rows.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { Rng } from "../random/rng.ts";
 * import { ControlVariates } from "./control_variates.ts";
 * import { BlockSubsample } from "./subsample_state.ts";
 * import { DifferenceEstimator } from "./difference_estimator.ts";
 * const arena = loadCore({ backend: "reference" });
 * const x = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? 1 : Math.sin(i)));
 * const y = Array.from({ length: 200 }, (_, i) => i % 3 === 0 ? 1 : 0);
 * const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: 2 }), { family: "logistic" });
 * const cv = new ControlVariates(model, new Float64Array([-0.7, 0]));
 * const est = new DifferenceEstimator(new BlockSubsample(cv, new Rng(1), { subsampleSize: 40 }));
 * const grad = new Float64Array(2);
 * const e = est.evaluate(new Float64Array([-0.6, 0.1]), { grad });
 * const exact = model.logLikelihood(new Float64Array([-0.6, 0.1]));
 * assert.ok(Math.abs(e.logLikelihood - exact) < 0.1); // 2nd-order CVs are accurate
 * ```
 */
export class DifferenceEstimator {
  /** The subsample. */
  readonly subsample: BlockSubsample;
  /** The control variates. */
  readonly cv: SubsampleControlVariates;
  /** dᵢ of the latest {@link evaluate} (length m; valid at its θ). */
  readonly lastDiffs: Float64Array;
  /**
   * Rows whose dᵢ the latest {@link evaluate} computed: m, or the few around
   * a refreshed block when the others' were known at its θ (see {@link evaluate}).
   */
  lastRowsEvaluated = 0;
  readonly #qGrad: Float64Array;
  readonly #rowGrad: Float64Array;
  /** θ of the latest evaluation with derivatives, and what it left in the buffer. */
  readonly #at: Float64Array;
  #atValid = false;
  /** Σq at #at (what `cv.sum` gives there). */
  #atSumQ = 0;
  #atVersion = -1;
  #atRefreshes = -1;

  /**
   * Bind the estimator to a subsample.
   *
   * @param subsample The gathered subsample (its control variates are used).
   */
  constructor(subsample: BlockSubsample) {
    this.subsample = subsample;
    this.cv = subsample.cv;
    this.lastDiffs = new Float64Array(subsample.subsampleSize);
    this.#qGrad = new Float64Array(this.cv.dim);
    this.#rowGrad = new Float64Array(this.cv.dim);
    this.#at = new Float64Array(this.cv.dim);
  }

  /**
   * The positions whose dᵢ, rᵢ at θ the buffer lacks for the current
   * subsample, when it holds all the others: the latest evaluation with
   * derivatives was at this very θ (bit for bit) under the same centring and
   * at most one block was refreshed since. Then [0, 0) (nothing refreshed) or
   * the refreshed block widened to whole groups of {@link _GROUP} positions
   * (the core's kernel computes rows in such groups from position 0, and a
   * row's values can depend on its place in a group in the last bit: the
   * relaxed-SIMD build fuses multiply-adds in groups and not in a lone last
   * row). Null when a whole pass is needed.
   */
  #missing(theta: Float64Array): { start: number; end: number } | null {
    const u = this.subsample;
    if (!this.#atValid || this.cv.version !== this.#atVersion) return null;
    const refreshed = u.numRefreshes - this.#atRefreshes;
    if (refreshed > 1 || (refreshed === 1 && u.lastAccepted === null)) return null;
    if (!_sameBits(theta, this.#at)) return null;
    if (refreshed === 0) return { start: 0, end: 0 };
    const { start, end } = u.blockRange(u.lastAccepted!.block);
    return {
      start: _GROUP * Math.floor(start / _GROUP),
      end: Math.min(u.subsampleSize, _GROUP * Math.ceil(end / _GROUP)),
    };
  }

  /**
   * ℓ̂ₘ(θ), σ̂²ₘ(θ) and ℓ̂ₘ − σ̂²ₘ/2 over the current subsample, and optionally
   * the exact gradient. Counts m log-likelihood rows (and m gradient rows
   * with `grad`) — with `grad` at the θ of the latest evaluation with `grad`,
   * after at most one accepted block refresh, only the rows it has to compute
   * (those of the block's groups, {@link lastRowsEvaluated}): the others' dᵢ
   * and rᵢ are still in the buffer, and the result is the same bit for bit.
   *
   * @param theta Position (length d).
   * @param options Gradient output and what to differentiate.
   * @returns The estimate.
   */
  evaluate(theta: Float64Array, options: DifferenceEvaluateOptions = {}): DifferenceEstimate {
    const u = this.subsample, cv = this.cv, rows = u.rows, m = u.subsampleSize, n = cv.numRows;
    u.sync();
    const grad = options.grad;
    if (grad !== undefined && cv.estimateWithGradient !== undefined) {
      // The whole evaluation in one core call, the same numbers as the
      // composition below (core/as/ecs_kernels.ts).
      const range = this.#missing(theta) ?? { start: 0, end: m };
      const e = cv.estimateWithGradient(rows, theta, {
        m,
        start: range.start,
        end: range.end,
        corrected: options.biasCorrected ?? true,
        grad,
      });
      if (e !== null) {
        this.lastRowsEvaluated = range.end - range.start;
        this.#at.set(theta);
        this.#atValid = true;
        this.#atVersion = cv.version;
        this.#atRefreshes = u.numRefreshes;
        this.#atSumQ = e.sumControlVariates;
        this.lastDiffs.set(rows.diffs(0, m));
        return { logLikelihood: e.logLikelihood, variance: e.variance, value: e.value };
      }
    }
    const sumQ = cv.sumAndGradient(theta, grad ? this.#qGrad : undefined);
    const missing = grad !== undefined ? this.#missing(theta) : null;
    if (missing !== null) {
      // E.g. the u-step's re-evaluation after an accepted block, at the θ the
      // trajectory ended at: every other row's dᵢ and rᵢ at θ are in the
      // buffer; only the block's group(s) are computed, as a whole pass
      // would compute them, so the estimate is the same bit for bit.
      cv.differences(rows, theta, { ...missing, derivative: true });
      this.lastRowsEvaluated = missing.end - missing.start;
    } else {
      cv.differences(rows, theta, { start: 0, end: m, derivative: grad !== undefined });
      this.lastRowsEvaluated = m;
    }
    if (grad !== undefined) {
      this.#at.set(theta);
      this.#atSumQ = sumQ;
      this.#atValid = true;
      this.#atVersion = cv.version;
      this.#atRefreshes = u.numRefreshes;
    } else this.#atValid = false;
    // differenceEstimate's sums and, with the gradient, the weights wᵢ in the
    // same passes over the m rows: the same operations in the same order as
    // differenceEstimate and a separate weights loop, so the same numbers.
    const d = this.lastDiffs, diffs = rows.diffs(0, m);
    let s = 0;
    for (let i = 0; i < m; i++) s += d[i] = diffs[i];
    const mean = s / m;
    let ss = 0;
    if (grad) {
      const nm = n / m, nm2 = nm * nm, corrected = options.biasCorrected ?? true;
      const r = rows.derivatives(0, m), w = rows.weights(0, m);
      for (let i = 0; i < m; i++) {
        const e = d[i] - mean;
        ss += e * e;
        w[i] = r[i] * (corrected ? nm - nm2 * e : nm);
      }
      cv.weightedRowSum(rows, this.#rowGrad, { start: 0, end: m });
      for (let j = 0; j < grad.length; j++) grad[j] = this.#qGrad[j] + this.#rowGrad[j];
    } else {
      for (let i = 0; i < m; i++) {
        const e = d[i] - mean;
        ss += e * e;
      }
    }
    const logLikelihood = sumQ + n * mean;
    const variance = (n / m) * (n / m) * ss;
    return { logLikelihood, variance, value: logLikelihood - 0.5 * variance };
  }

  /**
   * Score a block proposal at θ: evaluates only the proposal's rows (counted as
   * log-likelihood rows) and combines them with `currentDiffs`, the
   * differences of the current subsample at the same θ.
   *
   * @param theta Position (length d) at which `currentDiffs` were computed.
   * @param options The proposal and the current differences (length m).
   * @returns The proposed subsample's estimate and its differences (length m).
   */
  evaluateProposal(
    theta: Float64Array,
    options: { proposal: BlockProposal; currentDiffs: Float64Array },
  ): { estimate: DifferenceEstimate; diffs: Float64Array } {
    const u = this.subsample, cv = this.cv, m = u.subsampleSize;
    const { proposal, currentDiffs } = options;
    if (currentDiffs.length !== m) {
      throw new RangeError(`currentDiffs must have length m = ${m}, got ${currentDiffs.length}`);
    }
    u.sync();
    cv.differences(u.rows, theta, { start: proposal.start, end: proposal.end, derivative: false });
    const diffs = currentDiffs.slice();
    const { start } = u.blockRange(proposal.block);
    diffs.set(u.rows.diffs(proposal.start, proposal.end), start);
    const sumQ = cv.sum(theta);
    return {
      estimate: differenceEstimate(diffs, { numRows: cv.numRows, sumControlVariates: sumQ }),
      diffs,
    };
  }

  /**
   * {@link evaluateProposal}'s `estimate.value`, log L̂ₘ of the proposed
   * subsample, without making its differences: the sums read the block's new
   * dᵢ in its place and the current ones elsewhere, in the same order, so
   * the same number.
   *
   * @param theta Position (length d) at which `currentDiffs` were computed.
   * @param options The proposal and the current differences (length m).
   * @returns ℓ̂ₘ − σ̂²ₘ/2 of the proposed subsample.
   */
  proposalValue(
    theta: Float64Array,
    options: { proposal: BlockProposal; currentDiffs: Float64Array },
  ): number {
    const u = this.subsample, cv = this.cv, m = u.subsampleSize, n = cv.numRows;
    const { proposal, currentDiffs } = options;
    if (currentDiffs.length !== m) {
      throw new RangeError(`currentDiffs must have length m = ${m}, got ${currentDiffs.length}`);
    }
    u.sync();
    cv.differences(u.rows, theta, { start: proposal.start, end: proposal.end, derivative: false });
    const fresh = u.rows.diffs(proposal.start, proposal.end);
    const { start } = u.blockRange(proposal.block), end = start + fresh.length;
    // At the θ of the latest evaluation with derivatives (the position after
    // an accepted trajectory) Σq is that evaluation's, the same number.
    const sumQ = this.#atValid && cv.version === this.#atVersion && _sameBits(theta, this.#at)
      ? this.#atSumQ
      : cv.sum(theta);
    let s = 0;
    for (let i = 0; i < m; i++) s += i >= start && i < end ? fresh[i - start] : currentDiffs[i];
    const mean = s / m;
    let ss = 0;
    for (let i = 0; i < m; i++) {
      const e = (i >= start && i < end ? fresh[i - start] : currentDiffs[i]) - mean;
      ss += e * e;
    }
    const logLikelihood = sumQ + n * mean;
    const variance = (n / m) * (n / m) * ss;
    return logLikelihood - 0.5 * variance;
  }
}

/**
 * Rows the core's difference kernel computes together from position 0
 * (core/as/cv_kernels.ts: groups of 4, then 2, then 1 at the end of a range).
 */
const _GROUP = 4;

/** Whether a and b hold the same doubles bit for bit (−0 ≠ 0). */
function _sameBits(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let j = 0; j < a.length; j++) if (!Object.is(a[j], b[j])) return false;
  return true;
}
