/**
 * The proxy of HMC-ECS: Taylor control variates qₖ around θ* and the chain's
 * subsample estimator of the likelihood built on them — the interface the
 * u-update, the θ-update and the warmup use, with one fast WebAssembly
 * implementation for GLMs and one TypeScript implementation for any
 * DataModel (order 2 needs its per-row Hessians).
 *
 * ```
 *  ControlVariateProxy   θ*, S = Σℓₖ(θ*), A = Σ∇ℓₖ(θ*), B = ΣHₖ(θ*); recenter(θ*)
 *   (one per chain)      (one full-data pass); pilot statistics of dₖ = ℓₖ − qₖ;
 *                        creates the chain's subsample estimators
 *  SubsampleEstimator    u and log L̂(θ; u): perturbed (difference estimator on
 *                        G blocks, eq. 12) or signed (block-Poisson, eq. 15);
 *                        propose / score / accept a refresh of u (eq. 5)
 *
 *  createProxy(support)  the model's SubsamplingSupport (models/subsampling_support.ts),
 *                        decided once per run, picks the implementation:
 *                        "compact-glm"   → proxy_glm.ts  (per-row cache η*, ℓ*, a, b in WASM;
 *                                          a ThreadedGlmModel's full-data passes (centring, B)
 *                                          split over its threads, subsets and subsamples on
 *                                          the calling thread)
 *                        "external-glm"  → proxy_external.ts (rows read by index; the cache
 *                                          rows of the m gathered rows computed in place)
 *                        "per-row"       → proxy_rows.ts (per-row ℓ*, ∇ℓ*, H* in TypeScript;
 *                                          for rows outside this instance computed on the
 *                                          subsample's rows, S, A, B from the model's pass;
 *                                          without perRowHessians: order ≤ 1, per-row ℓ*, ∇ℓ*,
 *                                          B from logLikelihoodHessian) — any DataModel, and the
 *                                          GLM families with a scale parameter τ or an aux
 *                                          column, whose Taylor expansion needs all of (β, τ),
 *                                          which the compact cache (η*, ℓ*, a, b) cannot hold
 * ```
 *
 * Every proxy and estimator is owned by one chain: creating or disposing one
 * never touches another's memory.
 *
 * References: Dang et al. (2019), eqs. 5, 8–15, §6.3.
 *
 * @module
 */
import type { DataModel, Model } from "../../models/model.ts";
import {
  orderTwoError,
  type SubsamplingSupport,
  subsamplingSupport,
} from "../../models/subsampling_support.ts";
import type { Rng } from "../../random/rng.ts";
import type { TaylorOrder } from "../../subsampling/control_variates.ts";
import type { PilotDifferences } from "../../subsampling/tuning.ts";
import type { CentringSums } from "./options.ts";
import { externalProxy } from "./proxy_external.ts";
import { glmProxy } from "./proxy_glm.ts";
import { rowsProxy } from "./proxy_rows.ts";

/** log L̂(θ; u) and what comes with it. */
export interface LikelihoodEstimate {
  /** log L̂(θ; u) (perturbed) or log|L̂(θ; u)| (signed). */
  readonly value: number;
  /** σ̂²ₘ (perturbed) or the estimated Var log|L̂| = var(d̂)/λ (signed). */
  readonly variance: number;
  /** sign(L̂) (always 1 for perturbed). */
  readonly sign: number;
}

/** The u-side of a chain: the subsample u and the estimator of log L̂(θ; u). */
export interface SubsampleEstimatorBase<P> {
  /**
   * log L̂(θ; u) for the current u and, with `grad`, its gradient (written,
   * not accumulated). Remembers the per-row / per-slot values for
   * {@link snapshot}.
   */
  evaluate(theta: Float64Array, grad?: Float64Array): LikelihoodEstimate;
  /**
   * A copy of the per-row dₖ (perturbed) or per-slot d̂ (signed) of the
   * latest evaluate. It may be written into `into` (a buffer the caller no
   * longer reads) when that has the copy's length, and `into` returned;
   * else it is a new array.
   */
  snapshot(into?: Float64Array): Float64Array;
  /** Draw a refresh u' of one block / κ products (gathers its rows; u is unchanged). */
  propose(rng: Rng): P;
  /**
   * log L̂(θ; u') evaluating only the proposal's rows, given the snapshot
   * taken at the same θ for the current u.
   */
  proposalLogEstimate(theta: Float64Array, proposal: P, snapshot: Float64Array): number;
  /** Make the proposal current. */
  accept(proposal: P): void;
  /** Rows per estimator evaluation: m (perturbed) or S·m (signed). */
  readonly numRowsPerEvaluation: number;
  /** Rows evaluated so far by `evaluate` and `proposalLogEstimate` (cumulative). */
  readonly numRowsEvaluated: number;
  /** Free the subsample's memory. */
  dispose(): void;
}

/** The perturbed variant's subsample: m rows in G blocks, difference estimator (eq. 12). */
export interface PerturbedEstimator extends SubsampleEstimatorBase<unknown> {
  /** Discriminator. */
  readonly variant: "perturbed";
  /** m. */
  readonly subsampleSize: number;
  /** G. */
  readonly numBlocks: number;
}

/** The signed variant's subsample: λ products of χₗ ~ Pois(1) mini-batches (eq. 15). */
export interface SignedEstimator extends SubsampleEstimatorBase<unknown> {
  /** Discriminator. */
  readonly variant: "signed";
  /** Mini-batch size m. */
  readonly batchSize: number;
  /** λ. */
  readonly numProducts: number;
  /** κ. */
  readonly numRefreshed: number;
  /** The lower bound a (changed by warmup tuning only). */
  lowerBound: number;
}

/** A chain's subsample estimator. */
export type SubsampleEstimator = PerturbedEstimator | SignedEstimator;

/** Settings of a perturbed subsample. */
export interface BlockSubsampleSettings {
  /** m. */
  subsampleSize: number;
  /** G. */
  numBlocks: number;
}

/** Settings of a signed subsample. */
export interface PoissonSubsampleSettings {
  /** Mini-batch size m. */
  batchSize: number;
  /** λ. */
  numProducts: number;
  /** κ. */
  numRefreshed: number;
  /** a. */
  lowerBound: number;
}

/**
 * Control variates of one chain around its θ*, and the factory of its
 * subsample estimators.
 */
export interface ControlVariateProxy {
  /** Taylor order. */
  readonly order: TaylorOrder;
  /** d. */
  readonly dim: number;
  /** n. */
  readonly numRows: number;
  /** The current θ* (do not mutate). */
  readonly thetaStar: Float64Array;
  /** S = Σₖ ℓₖ(θ*). */
  readonly llStarSum: number;
  /** A = Σₖ ∇ℓₖ(θ*). */
  readonly gradSum: Float64Array;
  /**
   * B = Σₖ Hₖ(θ*) (always computed: it gives the metric and the Newton steps).
   * Set it only with a centring, or before the first subsample estimator
   * evaluates (the estimators keep a copy per {@link version}).
   */
  readonly hessSum: Float64Array;
  /** Incremented at every centring. */
  readonly version: number;
  /**
   * Move θ* and recompute the per-row cache and S, A (one full-data pass of
   * ℓ and ∇ℓ, counted) and B: with `hessian`, B is set to that estimate of
   * ΣHₖ(θ*) (e.g. {@link subsampleHessian}'s) and no full-data Hessian pass is
   * made; without it, B is the exact full-data sum (one Hessian pass). The
   * generic per-row proxy computes every Hₖ for its cache anyway and always
   * uses the exact B.
   */
  recenter(thetaStar: Float64Array, options?: RecenterOptions): void;
  /** Mean and variance of dₖ(θ) over a random pilot sample of rows, per θ (counted). */
  pilotDifferences(
    thetas: readonly Float64Array[],
    rng: Rng,
    pilotSize: number | undefined,
  ): PilotDifferences;
  /** A perturbed subsample drawn with `rng`. */
  blockSubsample(rng: Rng, settings: BlockSubsampleSettings): PerturbedEstimator;
  /** A signed subsample drawn with `rng`. */
  poissonSubsample(rng: Rng, settings: PoissonSubsampleSettings): SignedEstimator;
  /** Free the per-row cache (estimators are disposed separately). */
  dispose(): void;
}

/** Options of {@link ControlVariateProxy.recenter} and {@link createProxy}. */
export interface RecenterOptions {
  /** An estimate of B = ΣHₖ(θ*) to use instead of a full-data Hessian pass (d × d). */
  hessian?: Float64Array;
}

/** A model HMC-ECS can run on: a GLM (in memory or external), or any DataModel (order 2: with per-row Hessians). */
export type HmcEcsModel = DataModel;

/**
 * What HMC-ECS can do with `model`, decided once for the run.
 *
 * @param model Any model.
 * @returns Its {@link SubsamplingSupport}.
 * @throws {TypeError} If it is neither a GLM (in memory, threaded or external) nor a
 *   DataModel with per-row ℓ and ∇ℓ.
 */
export function hmcEcsSupport(model: Model): SubsamplingSupport {
  const support = subsamplingSupport(model);
  if (support !== null) return support;
  throw new TypeError(
    `HMC-ECS needs a GlmModel or a DataModel (per-row ℓ and ∇ℓ, logLikelihoodHessian), a ThreadedGlmModel over a GlmModel or an ExternalGlmModel, got ${
      (model as object)?.constructor?.name ?? typeof model
    }`,
  );
}

/**
 * The Taylor order HMC-ECS uses: the requested one, or by default the
 * highest the model supports (2 where per-row Hessians exist: GLMs in
 * memory, threaded or external, PerRowHessianModel; 1 otherwise).
 *
 * @param support What the model can do.
 * @param requested The `order` option, if given.
 * @returns The order.
 * @throws {TypeError} For order 2 on a model without per-row Hessians.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../../examples/models/normal_gamma.ts";
 * import { subsamplingSupport } from "../../models/subsampling_support.ts";
 * import { controlVariateOrder } from "./proxy.ts";
 * const support = subsamplingSupport(new NormalGammaModel(new Float64Array([0.1, 0.2])))!;
 * assert.equal(controlVariateOrder(support, undefined), 2); // it has perRowHessians
 * assert.equal(controlVariateOrder(support, 1), 1);
 * ```
 */
export function controlVariateOrder(
  support: SubsamplingSupport,
  requested: TaylorOrder | undefined,
): TaylorOrder {
  if (requested === 2 && support.maxTaylorOrder < 2) throw orderTwoError(support.model);
  return requested ?? support.maxTaylorOrder;
}

/**
 * The control variates of one chain centred at θ* (one full-data pass):
 * the GLM's WebAssembly path, the external GLM's path or the generic
 * per-row path, as the model's support says.
 *
 * @param support What the model can do ({@link subsamplingSupport}).
 * @param thetaStar The expansion point.
 * @param order Taylor order 0, 1 or 2.
 * @param options An estimate of B to use instead of a full-data Hessian pass;
 *   `sums`: S, A, B at θ* computed elsewhere (no pass; external GLMs, and
 *   in-memory GLMs whose passes run on the calling thread).
 * @returns The chain's proxy; dispose it when the chain ends.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../../examples/models/normal_gamma.ts";
 * import { subsamplingSupport } from "../../models/subsampling_support.ts";
 * import { createProxy } from "./proxy.ts";
 * const model = new NormalGammaModel(Float64Array.from({ length: 50 }, (_, i) => Math.sin(i)));
 * const proxy = createProxy(subsamplingSupport(model)!, new Float64Array([0, 2]), 2);
 * assert.ok(Math.abs(proxy.llStarSum - model.logLikelihood(new Float64Array([0, 2]))) < 1e-9);
 * proxy.dispose();
 * ```
 * References: Dang et al. (2019), eqs. 11, 14.
 */
export function createProxy(
  support: SubsamplingSupport,
  thetaStar: Float64Array,
  order: TaylorOrder,
  options: RecenterOptions & { sums?: CentringSums } = {},
): ControlVariateProxy {
  const rows = support.rows;
  if (rows.kind === "external-glm") return externalProxy(rows.glm, thetaStar, order, options);
  if (rows.kind === "per-row" && (rows.external ?? null) !== null) {
    return rowsProxy(rows, thetaStar, order, options.sums);
  }
  if (options.sums !== undefined && !(rows.kind === "compact-glm" && rows.passes === null)) {
    throw new TypeError(
      "precomputed centring sums need an ExternalGlmModel or a GLM whose passes run on the calling thread: these control variates make their own pass",
    );
  }
  if (rows.kind === "compact-glm") {
    return glmProxy(rows.glm, thetaStar, order, {
      ...options,
      passes: rows.passes ?? undefined,
      rowCache: rows.rowCache,
    });
  }
  return rowsProxy(rows, thetaStar, order);
}
