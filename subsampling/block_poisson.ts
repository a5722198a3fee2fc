/**
 * The block-Poisson estimator of the likelihood (signed HMC-ECS) and the
 * sign-corrected estimator of posterior expectations.
 *
 * With λ products, χₗ ~ Pois(1) and, for each product, χₗ independent
 * mini-batch difference estimates d̂ₘ^(h,l)(θ) = (n/m) Σᵢ d_{uᵢ}(θ) (eq. 9 with
 * ωₖ = 1/n, m rows each):
 *
 * ```
 *  L̂ₘ(θ) = exp(Σₖ qₖ(θ)) Πₗ ξₗ,  ξₗ = exp((a + λ)/λ) Π_{h ≤ χₗ} (d̂ₘ^(h,l)(θ) − a)/λ   (eq. 15)
 *  log|L̂ₘ| = Σq + (a + λ) + Σ_{h,l} log|d̂^(h,l) − a| − S log λ,   S = Σχₗ
 *  sign(L̂ₘ) = Π_{h,l} sign(d̂^(h,l) − a)
 *  ∇log|L̂ₘ| = ∇Σq + Σ_{h,l} ∇d̂^(h,l) / (d̂^(h,l) − a),  ∇d̂^(h,l) = (n/m) Σᵢ rᵢ xᵢ
 * ```
 *
 * for fixed u and χ (a is a constant). E[L̂ₘ] = exp(Σₖ ℓₖ) because for
 * χ ~ Pois(1), E[cᵡ] = e^(c−1): E[ξₗ] = e^((a+λ)/λ) e^((Σd − a)/λ − 1) = e^(Σd/λ).
 * The sampler runs on |L̂ₘ| (eq. 16) and expectations are corrected by the
 * sign: Î_R = Σⱼ ψ(θ⁽ʲ⁾)s⁽ʲ⁾ / Σⱼ s⁽ʲ⁾ (eq. 17).
 *
 * References: Dang et al. (2019) eqs. 15–18; Quiroz et al. (2018b);
 * Lyne et al. (2015).
 *
 * @module
 */
import type { SubsampleControlVariates } from "./control_variates.ts";
import type { PoissonSubsample, ProductProposal } from "./subsample_state.ts";

/** log|L̂ₘ| and the sign of L̂ₘ. */
export interface BlockPoissonEstimate {
  /** log|L̂ₘ(θ)|. */
  logAbs: number;
  /** sign(L̂ₘ(θ)) (+1 for L̂ₘ ≥ 0). */
  sign: 1 | -1;
}

/**
 * log|L̂ₘ| and sign(L̂ₘ) of eq. 15 from the mini-batch estimates.
 *
 * @param batchEstimates d̂ₘ^(h,l)(θ), one per mini-batch (any order; S = length).
 * @param options λ (`numProducts`), a (`lowerBound`) and Σₖ qₖ(θ).
 * @returns The estimate.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { blockPoissonEstimate } from "./block_poisson.ts";
 * // No mini-batches at all: L̂ = exp(Σq + a + λ).
 * const e = blockPoissonEstimate([], { numProducts: 4, lowerBound: -4, sumControlVariates: -10 });
 * assert.equal(e.logAbs, -10);
 * assert.equal(e.sign, 1);
 * ```
 * References: Dang et al. (2019) eq. 15.
 */
export function blockPoissonEstimate(
  batchEstimates: ArrayLike<number>,
  options: { numProducts: number; lowerBound: number; sumControlVariates: number },
): BlockPoissonEstimate {
  const lam = options.numProducts, a = options.lowerBound;
  if (!Number.isInteger(lam) || lam < 1) {
    throw new RangeError(`numProducts must be a positive integer, got ${lam}`);
  }
  if (!Number.isFinite(a)) throw new RangeError(`lowerBound must be finite, got ${a}`);
  let logAbs = options.sumControlVariates + a + lam, neg = 0;
  const logLam = Math.log(lam);
  for (let s = 0; s < batchEstimates.length; s++) {
    const z = batchEstimates[s] - a;
    logAbs += Math.log(Math.abs(z)) - logLam;
    if (z < 0) neg++;
  }
  return { logAbs, sign: neg % 2 === 0 ? 1 : -1 };
}

export { signCorrectedMean } from "../diagnostics/sign_corrected.ts";

/**
 * Evaluates the block-Poisson estimator on a {@link PoissonSubsample},
 * keeping the mini-batch estimates of the latest evaluation so that a product
 * proposal is scored by evaluating only its new mini-batches.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { Rng } from "../random/rng.ts";
 * import { ControlVariates } from "./control_variates.ts";
 * import { PoissonSubsample } from "./subsample_state.ts";
 * import { BlockPoissonEstimator } from "./block_poisson.ts";
 * const arena = loadCore({ backend: "reference" });
 * const x = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? 1 : Math.sin(i)));
 * const y = Array.from({ length: 200 }, (_, i) => i % 3 === 0 ? 1 : 0);
 * const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: 2 }), { family: "logistic" });
 * const cv = new ControlVariates(model, new Float64Array([-0.7, 0]));
 * const u = new PoissonSubsample(cv, new Rng(1), { batchSize: 10, numProducts: 20 });
 * const est = new BlockPoissonEstimator(u, { lowerBound: -20 });
 * const grad = new Float64Array(2);
 * const e = est.evaluate(new Float64Array([-0.6, 0.1]), { grad });
 * assert.equal(e.sign, 1);
 * ```
 */
export class BlockPoissonEstimator {
  /** The subsample. */
  readonly subsample: PoissonSubsample;
  /** The control variates. */
  readonly cv: SubsampleControlVariates;
  /** The lower-bound parameter a (may be changed between iterations, e.g. by tuning). */
  lowerBound: number;
  /** d̂ per active slot of the latest {@link evaluate} (valid in [0, S) at its θ). */
  lastBatchEstimates: Float64Array = new Float64Array(0);
  readonly #qGrad: Float64Array;
  readonly #rowGrad: Float64Array;

  /**
   * Bind the estimator to a subsample.
   *
   * @param subsample The gathered subsample (its control variates are used).
   * @param options The lower bound a.
   */
  constructor(subsample: PoissonSubsample, options: { lowerBound: number }) {
    if (!Number.isFinite(options.lowerBound)) {
      throw new RangeError(`lowerBound must be finite, got ${options.lowerBound}`);
    }
    this.subsample = subsample;
    this.cv = subsample.cv;
    this.lowerBound = options.lowerBound;
    this.#qGrad = new Float64Array(this.cv.dim);
    this.#rowGrad = new Float64Array(this.cv.dim);
  }

  /**
   * log|L̂ₘ(θ)| and its sign for the current u and χ, and optionally
   * ∇log|L̂ₘ(θ)|. Counts S·m log-likelihood rows (and gradient rows with `grad`).
   *
   * @param theta Position (length d).
   * @param options Optional gradient output (length d).
   * @returns The estimate.
   */
  evaluate(theta: Float64Array, options: { grad?: Float64Array } = {}): BlockPoissonEstimate {
    const u = this.subsample, cv = this.cv, m = u.batchSize, S = u.numSlots, n = cv.numRows;
    u.sync();
    const grad = options.grad;
    const sumQ = cv.sumAndGradient(theta, grad ? this.#qGrad : undefined);
    if (this.lastBatchEstimates.length < S) this.lastBatchEstimates = new Float64Array(2 * S);
    const est = this.lastBatchEstimates;
    if (S > 0) {
      cv.differences(u.rows, theta, { start: 0, end: S * m, derivative: grad !== undefined });
      const d = u.rows.diffs(0, S * m);
      const nm = n / m;
      for (let s = 0; s < S; s++) {
        let t = 0;
        for (let i = s * m; i < (s + 1) * m; i++) t += d[i];
        est[s] = nm * t;
      }
    }
    const out = blockPoissonEstimate(est.subarray(0, S), {
      numProducts: u.numProducts,
      lowerBound: this.lowerBound,
      sumControlVariates: sumQ,
    });
    if (grad) {
      grad.set(this.#qGrad);
      if (S > 0) {
        const nm = n / m;
        const r = u.rows.derivatives(0, S * m), w = u.rows.weights(0, S * m);
        for (let s = 0; s < S; s++) {
          const c = nm / (est[s] - this.lowerBound);
          for (let i = s * m; i < (s + 1) * m; i++) w[i] = c * r[i];
        }
        cv.weightedRowSum(u.rows, this.#rowGrad, { start: 0, end: S * m });
        for (let j = 0; j < grad.length; j++) grad[j] += this.#rowGrad[j];
      }
    }
    return out;
  }

  /**
   * Score a product proposal at θ: evaluates only the proposal's new
   * mini-batches (counted as log-likelihood rows) and combines them with the
   * current mini-batch estimates at the same θ.
   *
   * @param theta Position at which `currentBatchEstimates` were computed.
   * @param options The proposal and the current per-slot estimates (length ≥ S).
   * @returns The proposed estimate and the new slots' d̂ (length P).
   */
  evaluateProposal(
    theta: Float64Array,
    options: { proposal: ProductProposal; currentBatchEstimates: Float64Array },
  ): { estimate: BlockPoissonEstimate; newBatchEstimates: Float64Array } {
    const u = this.subsample, cv = this.cv, m = u.batchSize, n = cv.numRows;
    const { proposal, currentBatchEstimates: cur } = options;
    const S = u.numSlots, P = proposal.numSlots;
    if (cur.length < S) {
      throw new RangeError(`currentBatchEstimates must hold S = ${S} values, got ${cur.length}`);
    }
    u.sync();
    const fresh = new Float64Array(P);
    if (P > 0) {
      cv.differences(u.rows, theta, {
        start: proposal.start,
        end: proposal.start + P * m,
        derivative: false,
      });
      const d = u.rows.diffs(proposal.start, proposal.start + P * m);
      for (let s = 0; s < P; s++) {
        let t = 0;
        for (let i = s * m; i < (s + 1) * m; i++) t += d[i];
        fresh[s] = (n / m) * t;
      }
    }
    const removed = new Uint8Array(u.numProducts);
    for (const l of proposal.products) removed[l] = 1;
    const all: number[] = [];
    for (let s = 0; s < S; s++) if (!removed[u.slotProduct[s]]) all.push(cur[s]);
    for (let s = 0; s < P; s++) all.push(fresh[s]);
    const estimate = blockPoissonEstimate(all, {
      numProducts: u.numProducts,
      lowerBound: this.lowerBound,
      sumControlVariates: cv.sum(theta),
    });
    return { estimate, newBatchEstimates: fresh };
  }
}
