/**
 * What the subsampled gradient estimators of gradient_estimators.ts share:
 * drawing a fresh subsample of the N rows (a partial Fisher–Yates shuffle of
 * a kept permutation, or with replacement), checking θ and the covariance
 * request, the buffers (in the arena for a GLM's gathered rows), the
 * per-row-term moments and their empirical covariance V(θ) (CCAdL eq. 19).
 *
 * References: Shang, Zhu, Leimkuhler & Storkey (2015), eqs. 16–19.
 *
 * @module
 */
import type { GlmModel } from "../models/glm.ts";
import { assertPosition, type CostCounter, type DataModel } from "../models/model.ts";
import { subsamplingSupport } from "../models/subsampling_support.ts";
import type { Rng } from "../random/rng.ts";
import type {
  EstimateOptions,
  GradientEstimate,
  GradientEstimator,
  MinibatchOptions,
} from "./gradient_estimators.ts";
import { GatheredRows } from "./gathered_rows.ts";
import {
  type CovarianceKind,
  empiricalCovariance,
  type GradientMoments,
} from "./gradient_covariance.ts";

function _checkBatch(batchSize: number, numRows: number, replace: boolean): void {
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  }
  if (!replace && batchSize > numRows) {
    throw new RangeError(
      `batchSize must be at most the number of rows ${numRows} without replacement, got ${batchSize}`,
    );
  }
}

/**
 * The shared machinery of the minibatch and control-variate estimators:
 * subsample drawing, the output and scratch buffers, the GLM's gathered rows
 * and their moments in the core, per-row gradients of any other model, and
 * the covariance of the per-row terms.
 */
export abstract class SubsampleEstimator implements GradientEstimator {
  abstract readonly kind: "minibatch" | "control-variate";
  readonly model: DataModel;
  readonly dim: number;
  readonly numRows: number;
  readonly batchSize: number;
  readonly replace: boolean;
  readonly cost: CostCounter;
  protected readonly glm: GlmModel | null;
  protected readonly scratchGrad: Float64Array;
  protected readonly priorGrad: Float64Array;
  protected readonly sum: Float64Array;
  protected readonly sq: Float64Array;
  protected full: Float64Array | null = null;
  protected readonly cov: Float64Array;
  protected fullCov: Float64Array | null = null;
  protected readonly rowsBuf: Int32Array;
  protected perm: Int32Array | null = null;
  // GLM: the gathered-rows buffer in the arena (allocated once).
  protected gathered: GatheredRows | null = null;
  // Non-GLM per-row gradient scratch.
  protected perRow: Float64Array | null = null;

  constructor(model: DataModel, options: MinibatchOptions) {
    const replace = options.replace ?? false;
    _checkBatch(options.batchSize, model.numRows, replace);
    this.model = model;
    this.dim = model.dim;
    this.numRows = model.numRows;
    this.batchSize = options.batchSize;
    this.replace = replace;
    this.cost = model.cost;
    const d = this.dim;
    const support = options.support !== undefined ? options.support : subsamplingSupport(model);
    this.glm = support?.inMemoryGlm ?? null;
    this.scratchGrad = new Float64Array(d);
    this.priorGrad = new Float64Array(d);
    this.sum = new Float64Array(d);
    this.sq = new Float64Array(d);
    this.cov = new Float64Array(d);
    this.rowsBuf = new Int32Array(this.batchSize);
    if (this.glm) {
      this.gathered = new GatheredRows(this.glm.data, this.batchSize);
    } else {
      this.perRow = new Float64Array(this.batchSize * d);
    }
  }

  abstract estimate(theta: Float64Array, rng: Rng, options?: EstimateOptions): GradientEstimate;

  dispose(): void {
    if (this.glm === null || this.gathered === null) return;
    this.gathered.dispose();
    this.gathered = null;
  }

  /**
   * A fresh subsample into `rowsBuf`. Without replacement: a partial
   * Fisher–Yates shuffle of a persistent permutation of 0 … N−1 (each call
   * yields a uniformly random n-subset in random order whatever the
   * permutation's current order; no allocation per call).
   */
  protected drawRows(rng: Rng): Int32Array {
    const n = this.numRows, m = this.batchSize, out = this.rowsBuf;
    if (this.replace) return rng.sampleWithReplacement(n, m, out);
    if (this.perm === null) {
      this.perm = new Int32Array(n);
      for (let i = 0; i < n; i++) this.perm[i] = i;
    }
    const perm = this.perm;
    for (let k = 0; k < m; k++) {
      const j = k + rng.int(n - k);
      const t = perm[k];
      perm[k] = perm[j];
      perm[j] = t;
      out[k] = perm[k];
    }
    return out;
  }

  /**
   * The start every `estimate` shares: check θ and the covariance request,
   * pick the output buffer and draw a fresh subsample.
   */
  protected begin(
    theta: Float64Array,
    rng: Rng,
    options: EstimateOptions,
  ): { kind: EstimateOptions["covariance"]; grad: Float64Array; rows: Int32Array } {
    assertPosition(theta, this.dim);
    const kind = options.covariance;
    _checkCovarianceRequest(kind, this.batchSize);
    const d = this.dim, grad = options.grad ?? this.scratchGrad;
    if (grad.length !== d) throw new RangeError(`grad must have length ${d}, got ${grad.length}`);
    return { kind, grad, rows: this.drawRows(rng) };
  }

  protected fullScratch(): Float64Array {
    if (this.full === null) this.full = new Float64Array(this.dim * this.dim);
    return this.full;
  }

  protected momentsOut(kind: CovarianceKind): { sum: Float64Array; second: Float64Array } {
    return { sum: this.sum, second: kind === "diagonal" ? this.sq : this.fullScratch() };
  }

  protected covarianceOut(kind: CovarianceKind): Float64Array {
    if (kind === "diagonal") return this.cov;
    if (this.fullCov === null) this.fullCov = new Float64Array(this.dim * this.dim);
    return this.fullCov;
  }

  /**
   * For GLMs: moments of the gathered rows' per-row terms in the core: gₖ =
   * ℓ'(ηₖ)xₖ at θ, or gₖ = rₖxₖ with the rows' control-variate derivatives rₖ.
   * Writes Σ into `this.sum` and returns the second moments (d or d²) when
   * `kind` is set.
   */
  protected glmMoments(
    theta: Float64Array | "derivatives",
    kind: CovarianceKind | undefined,
  ): Float64Array | null {
    const glm = this.glm as GlmModel, g = this.gathered as GatheredRows;
    const sq = kind === "diagonal" ? this.sq : undefined;
    const outer = kind === "full" ? this.fullScratch() : undefined;
    glm.kernels.gradientMoments(g, theta, { sum: this.sum, sq, outer, end: this.batchSize });
    return sq ?? outer ?? null;
  }

  /** Non-GLM: per-row gradients at θ into `this.perRow`. */
  protected tsPerRow(theta: Float64Array, rows: Int32Array): Float64Array {
    const out = this.perRow as Float64Array;
    this.model.perRowGradients(theta, rows, out);
    return out;
  }

  protected finish(
    grad: Float64Array,
    moments: GradientMoments | null,
    kind: CovarianceKind | undefined,
    rows: Int32Array,
  ): GradientEstimate {
    let covariance: Float64Array | null = null;
    if (kind !== undefined && moments !== null) {
      covariance = empiricalCovariance(moments, this.covarianceOut(kind));
    }
    return { grad, rows, covariance };
  }
}

function _checkCovarianceRequest(kind: CovarianceKind | undefined, batchSize: number): void {
  if (kind === undefined) return;
  if (kind !== "diagonal" && kind !== "full") {
    throw new TypeError(`covariance must be "diagonal" or "full", got ${JSON.stringify(kind)}`);
  }
  if (batchSize < 2) {
    throw new RangeError(`a covariance estimate needs batchSize ≥ 2, got ${batchSize}`);
  }
}
