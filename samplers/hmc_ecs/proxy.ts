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
 *  createProxy(model)    GlmModel            → proxy_glm.ts  (per-row cache η*, ℓ*, a, b in WASM)
 *                        ExternalGlmModel    → proxy_external.ts (rows read by index; the cache
 *                                              rows of the m gathered rows computed in place)
 *                        DataModel           → proxy_rows.ts (per-row ℓ*, ∇ℓ*, H* in TypeScript;
 *                                              without perRowHessians: order ≤ 1, per-row ℓ*, ∇ℓ*,
 *                                              B from logLikelihoodHessian)
 *                        — and the GLM families with a scale parameter τ or an
 *                        aux column (GlmModel.hasCompactCache false): their
 *                        Taylor expansion needs all of (β, τ), which the
 *                        compact cache (η*, ℓ*, a, b) cannot hold
 *                        ThreadedGlmModel    → proxy_glm.ts over its base model, the
 *                        full-data passes (centring, B) split over its threads;
 *                        subsets and subsamples on the calling thread
 * ```
 *
 * Every proxy and estimator is owned by one chain: creating or disposing one
 * never touches another's memory.
 *
 * References: Dang et al. (2019), eqs. 5, 8–15, §6.3.
 *
 * @module
 */
import { type ExternalGlmModel, isExternalGlm } from "../../models/external_glm.ts";
import { GlmModel } from "../../models/glm.ts";
import {
  type DataModel,
  hasPerRowGradients,
  hasPerRowHessians,
  type Model,
} from "../../models/model.ts";
import { ThreadedGlmModel } from "../../models/threaded_glm.ts";
import type { Rng } from "../../random/rng.ts";
import type { ControlVariatePasses, TaylorOrder } from "../../subsampling/control_variates.ts";
import type {
  PilotDifferences,
  SubsetMapOptions,
  SubsetMapResult,
} from "../../subsampling/tuning.ts";
import type { CentringSums } from "./options.ts";
import { externalProxy } from "./proxy_external.ts";
import { glmProxy, glmSubsetHessian, glmSubsetMap } from "./proxy_glm.ts";
import { orderTwoError, rowsProxy, rowsSubsetHessian, rowsSubsetMap } from "./proxy_rows.ts";

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
  /** A copy of the per-row dₖ (perturbed) or per-slot d̂ (signed) of the latest evaluate. */
  snapshot(): Float64Array;
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
  /** B = Σₖ Hₖ(θ*) (always computed: it gives the metric and the Newton steps). */
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
 * The GLM whose compact per-row cache HMC-ECS's fast proxy uses for `model`,
 * and where its full-data passes run: a compact-cache GlmModel itself, or a
 * ThreadedGlmModel's base with the passes on its threads; null for the
 * per-row path.
 *
 * @param model Any model.
 * @returns The GLM and its passes, or null.
 */
export function compactGlmOf(
  model: Model,
): { glm: GlmModel; passes?: ControlVariatePasses } | null {
  if (model instanceof GlmModel) return model.hasCompactCache ? { glm: model } : null;
  if (model instanceof ThreadedGlmModel) {
    return model.base.hasCompactCache ? { glm: model.base, passes: model } : null;
  }
  return null;
}

/** The model HMC-ECS evaluates subsets and per-row quantities on (a threaded model's base). */
function _rowsModel(model: DataModel): DataModel {
  return model instanceof ThreadedGlmModel ? model.base : model;
}

/**
 * Check that HMC-ECS can build control variates for `model`.
 *
 * @param model Any model.
 * @returns The model as a DataModel.
 * @throws {TypeError} If it is neither a GlmModel, a ThreadedGlmModel, an ExternalGlmModel nor a DataModel.
 */
export function assertControlVariateModel(model: Model): HmcEcsModel {
  if (
    model instanceof GlmModel || model instanceof ThreadedGlmModel || isExternalGlm(model) ||
    hasPerRowGradients(model)
  ) return model as DataModel;
  throw new TypeError(
    `HMC-ECS needs a GlmModel or a DataModel (per-row ℓ and ∇ℓ, logLikelihoodHessian), a ThreadedGlmModel over a GlmModel or an ExternalGlmModel, got ${
      (model as object)?.constructor?.name ?? typeof model
    }`,
  );
}

/**
 * Whether a model takes a compact GLM path (in memory or external), where
 * B may be a subsample estimate.
 *
 * @param model A model HMC-ECS accepts.
 * @returns True for a compact-family GlmModel or an ExternalGlmModel.
 */
export function isCompactGlm(model: Model): model is GlmModel | ExternalGlmModel {
  return isExternalGlm(model) || (model instanceof GlmModel && model.hasCompactCache);
}

/**
 * The Taylor order HMC-ECS uses on `model`: the requested one, or by default
 * 2 where per-row Hessians exist (GLMs in memory, threaded or external, PerRowHessianModel)
 * and 1 otherwise.
 *
 * @param model A model accepted by {@link assertControlVariateModel}.
 * @param requested The `order` option, if given.
 * @returns The order.
 * @throws {TypeError} For order 2 on a model without per-row Hessians.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../../models/normal_gamma.ts";
 * import { controlVariateOrder } from "./proxy.ts";
 * const model = new NormalGammaModel(new Float64Array([0.1, 0.2]));
 * assert.equal(controlVariateOrder(model, undefined), 2); // it has perRowHessians
 * assert.equal(controlVariateOrder(model, 1), 1);
 * ```
 */
export function controlVariateOrder(
  model: DataModel,
  requested: TaylorOrder | undefined,
): TaylorOrder {
  const hessians = model instanceof GlmModel || model instanceof ThreadedGlmModel ||
    isExternalGlm(model) || hasPerRowHessians(model);
  if (requested === 2 && !hessians) throw orderTwoError(model);
  return requested ?? (hessians ? 2 : 1);
}

/**
 * The control variates of one chain centred at θ* (one full-data pass):
 * the GLM's WebAssembly path, the external GLM's path or the generic
 * per-row path.
 *
 * @param model A GlmModel, a ThreadedGlmModel (full-data passes on its threads), an
 *   ExternalGlmModel or a DataModel (order 2: with per-row Hessians).
 * @param thetaStar The expansion point.
 * @param order Taylor order 0, 1 or 2.
 * @param options An estimate of B to use instead of a full-data Hessian pass;
 *   `sums`: S, A, B at θ* computed elsewhere (external GLMs only; no pass).
 * @returns The chain's proxy; dispose it when the chain ends.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../../models/normal_gamma.ts";
 * import { createProxy } from "./proxy.ts";
 * const model = new NormalGammaModel(Float64Array.from({ length: 50 }, (_, i) => Math.sin(i)));
 * const proxy = createProxy(model, new Float64Array([0, 2]), 2);
 * assert.ok(Math.abs(proxy.llStarSum - model.logLikelihood(new Float64Array([0, 2]))) < 1e-9);
 * proxy.dispose();
 * ```
 * References: Dang et al. (2019), eqs. 11, 14.
 */
export function createProxy(
  model: Model,
  thetaStar: Float64Array,
  order: TaylorOrder,
  options: RecenterOptions & { sums?: CentringSums } = {},
): ControlVariateProxy {
  const m = assertControlVariateModel(model);
  if (isExternalGlm(m)) return externalProxy(m, thetaStar, order, options);
  if (options.sums !== undefined) {
    throw new TypeError(
      "precomputed centring sums need an ExternalGlmModel: an in-memory model's control variates make their own pass",
    );
  }
  const glm = compactGlmOf(m);
  if (glm !== null) return glmProxy(glm.glm, thetaStar, order, { ...options, passes: glm.passes });
  return rowsProxy(_rowsModel(m), thetaStar, order);
}

/**
 * θ* as the MAP of the prior plus the n/ñ-scaled likelihood of a random
 * subset, with its Laplace precision (§6.3), for either kind of model.
 *
 * @param model A GlmModel, a ThreadedGlmModel (its base model), an ExternalGlmModel or a
 *   DataModel (order 2: with per-row Hessians).
 * @param rng Generator for the subset.
 * @param options Subset fraction, Newton settings and starting point.
 * @returns θ*, the precision and the subset size.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../../models/normal_gamma.ts";
 * import { Rng } from "../../random/rng.ts";
 * import { subsetFit } from "./proxy.ts";
 * const model = new NormalGammaModel(Float64Array.from({ length: 400 }, (_, i) => Math.sin(i)));
 * const fit = subsetFit(model, new Rng(1), { fraction: 1, initialPosition: new Float64Array([0, 1]) });
 * assert.ok(Math.abs(fit.thetaStar[0] - model.posterior.muN) < 1e-3);
 * ```
 * References: Dang et al. (2019), §6.3.
 */
export function subsetFit(model: Model, rng: Rng, options: SubsetMapOptions): SubsetMapResult {
  const m = _rowsModel(assertControlVariateModel(model));
  if (isCompactGlm(m)) return glmSubsetMap(m, rng, options);
  return rowsSubsetMap(m, rng, options);
}

/**
 * An unbiased estimate (n/ñ) Σ_{k ∈ S} Hₖ(θ) of the full-data log-likelihood
 * Hessian from a random subset S of ⌈f·n⌉ rows (at least 1000), for either
 * kind of model: the metric's and the control variates' B without a
 * full-data Hessian pass.
 *
 * @param model A GlmModel, a ThreadedGlmModel (its base model), an ExternalGlmModel or a
 *   DataModel (order 2: with per-row Hessians).
 * @param rng Generator for the subset.
 * @param options θ and the fraction f.
 * @returns The estimate and ñ (the Hessian rows evaluated).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../../models/normal_gamma.ts";
 * import { Rng } from "../../random/rng.ts";
 * import { subsampleHessian } from "./proxy.ts";
 * const model = new NormalGammaModel(Float64Array.from({ length: 400 }, (_, i) => Math.sin(i)));
 * const r = subsampleHessian(model, new Rng(1), { theta: new Float64Array([0, 1]), fraction: 0.5 });
 * assert.equal(r.numSubsetRows, 400); // at least 1000 rows, capped at n
 * ```
 * References: Dang et al. (2019), §6.3 (M from the Hessian at θ*).
 */
export function subsampleHessian(
  model: Model,
  rng: Rng,
  options: { theta: Float64Array; fraction: number },
): { hessian: Float64Array; numSubsetRows: number } {
  const m = _rowsModel(assertControlVariateModel(model));
  if (isCompactGlm(m)) return glmSubsetHessian(m, rng, options);
  return rowsSubsetHessian(m, rng, options);
}
