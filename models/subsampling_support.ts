/**
 * What a model can do for the subsampling samplers, decided once: HMC-ECS,
 * the stochastic-gradient samplers and the austerity test call
 * {@link subsamplingSupport} when a run is built and read the object it
 * returns; none of them looks at the model's class again. The model-kind
 * checks (which class, which family, where the rows are) are made here and
 * nowhere outside `models/` (`tests/project/architecture_test.ts` checks that).
 *
 * ```
 *  rows.kind        where a subsample's rows are evaluated, and so which
 *                   control variates, subset fit and Hessian estimate apply
 *   "compact-glm"   a GLM in this instance's memory whose control variates
 *                   are expansions in η (logistic, Poisson, known-σ Gaussian):
 *                   the compact per-row cache (η*, ℓ*, a, b) in WebAssembly;
 *                   `passes` runs the full-data passes elsewhere (the threads
 *                   of a ThreadedGlmModel), null: on the calling thread
 *   "external-glm"  a compact-family GLM whose rows are outside this instance
 *                   (shards, files, databases): rows read by index, centring
 *                   sums by one pass
 *   "per-row"       any other DataModel: per-row ℓₖ, ∇ℓₖ (and Hₖ where
 *                   `perRowHessians` is given) in TypeScript; `external` set
 *                   for a GLM of another family whose rows are outside this
 *                   instance: centring sums by its one pass, the per-row terms
 *                   at θ* of the rows a subsample holds computed on them
 *  maxTaylorOrder   2 where per-row Hessians exist (every GLM kind), else 1
 *  subsampleHessian whether B = ΣHₖ(θ*) may be estimated on a subset of rows
 *                   (GLM rows); the per-row path computes B exactly
 *  perRowHessians   the model itself when it has per-row Hessians
 *  inMemoryGlm      the model itself when it is a compact-family GLM in this
 *                   instance's memory: minibatch gradients and row differences
 *                   then run as fused kernels on its arena
 * ```
 *
 * A model may decide for itself: a DataModel with a `subsamplingSupport()`
 * method gets what that method returns, with `model` set to the model itself.
 *
 * References: docs/subsampling_support.md; Dang et al. (2019), §3–6.3.
 *
 * @module
 */
import { type ExternalGlmModel, externalHasCompactCache, isExternalGlm } from "./external_glm.ts";
import { GlmModel } from "./glm.ts";
import {
  type DataModel,
  hasPerRowGradients,
  hasPerRowHessians,
  type Model,
  type PerRowHessianModel,
} from "./model.ts";
import { ThreadedGlmModel } from "./threaded_glm.ts";

/** Rows of a compact-family GLM in this instance's memory (the per-row cache η*, ℓ*, a, b). */
export interface CompactGlmRows {
  /** Discriminator. */
  readonly kind: "compact-glm";
  /** The GLM whose data, kernels and prior the subsets and subsamples use. */
  readonly glm: GlmModel;
  /**
   * Who runs the full-data passes of a centring (fill the cache with S and A;
   * B) when not the GLM itself on the calling thread: a ThreadedGlmModel.
   */
  readonly passes: ThreadedGlmModel | null;
  /**
   * With `passes`: false when the passes compute S and A alone
   * (`controlVariateSums`) and no per-row cache of the n rows is kept, as on
   * the calling thread (e.g. one centring shared by chains that keep none).
   * Absent means true.
   */
  readonly rowCache?: boolean;
}

/** Rows of a GLM held outside this instance, read by index. */
export interface ExternalGlmRows {
  /** Discriminator. */
  readonly kind: "external-glm";
  /** The external GLM. */
  readonly glm: ExternalGlmModel;
}

/** Rows evaluated one by one through the DataModel interface, in TypeScript. */
export interface PerRowRows {
  /** Discriminator. */
  readonly kind: "per-row";
  /** The model whose rows are evaluated (a ThreadedGlmModel's base model). */
  readonly model: DataModel;
  /** `model` again when it has per-row Hessians, else null (order ≤ 1, B from the full-data Hessian). */
  readonly perRowHessians: PerRowHessianModel | null;
  /**
   * `model` again when its rows are outside this instance (an external GLM of
   * a family without the compact cache): S, A and B come from its
   * `controlVariateSums` (one pass where the rows live) and ℓₖ*, ∇ℓₖ*, Hₖ* are
   * computed for the rows a subsample holds, not kept for all n rows (memory
   * O(m), not O(n)); null: kept for all n rows after one pass over them.
   * Absent means null.
   */
  readonly external?: ExternalGlmModel | null;
}

/** Where and how a subsample's rows are evaluated. */
export type SubsamplingRows = CompactGlmRows | ExternalGlmRows | PerRowRows;

/** What a model can do for the subsampling samplers (see the module notes). */
export interface SubsamplingSupport {
  /** The model as given: its prior, cost counter, n and d. */
  readonly model: DataModel;
  /** Where and how rows are evaluated. */
  readonly rows: SubsamplingRows;
  /** The highest Taylor order of control variates available (the default order). */
  readonly maxTaylorOrder: 0 | 1 | 2;
  /** Whether B = ΣHₖ(θ*) may be estimated on a subset of rows (else it is computed exactly). */
  readonly subsampleHessian: boolean;
  /** The model itself when it has per-row Hessians, else null. */
  readonly perRowHessians: PerRowHessianModel | null;
  /** The model itself when it is a compact-family GLM in this instance's memory, else null. */
  readonly inMemoryGlm: GlmModel | null;
}

/** A DataModel that states its own {@link SubsamplingSupport}. */
export interface SubsamplingSupportProvider extends DataModel {
  /** The model's support (called once per run). */
  subsamplingSupport(): SubsamplingSupport;
}

/**
 * What `model` can do for the subsampling samplers: its own
 * `subsamplingSupport()` when it has one, else decided from its kind.
 *
 * @param model Any model.
 * @returns The support, or null for a model without per-row ℓₖ and ∇ℓₖ
 *   (not a DataModel the subsampling samplers can use).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../examples/models/normal_gamma.ts";
 * import { subsamplingSupport } from "./subsampling_support.ts";
 * const s = subsamplingSupport(new NormalGammaModel(new Float64Array([0.1, 0.2])))!;
 * assert.equal(s.rows.kind, "per-row");
 * assert.equal(s.maxTaylorOrder, 2); // it has perRowHessians
 * assert.equal(subsamplingSupport({ dim: 1, parameterNames: ["x"] } as never), null);
 * ```
 */
export function subsamplingSupport(model: Model): SubsamplingSupport | null {
  const own = (model as Partial<SubsamplingSupportProvider>).subsamplingSupport;
  if (typeof own === "function") {
    // `model` is always the model given: a `withPrior` of a provider answers with
    // the original's method, and its prior must still be the one sampled.
    const stated = own.call(model);
    return stated.model === model ? stated : { ...stated, model: model as DataModel };
  }
  const perRowHessians = hasPerRowHessians(model) ? model : null;
  if (isExternalGlm(model)) {
    // The top-level perRowHessians stays null for rows outside this instance
    // (the SG samplers' θ* then needs thetaStar, as before); HMC-ECS's
    // per-row path reads rows.perRowHessians.
    if (externalHasCompactCache(model)) {
      return _support(model, { kind: "external-glm", glm: model }, null, null);
    }
    const rows: PerRowRows = { ..._perRow(model), external: model };
    return _support(model, rows, null, null);
  }
  if (model instanceof GlmModel) {
    if (model.hasCompactCache) {
      return _support(
        model,
        { kind: "compact-glm", glm: model, passes: null },
        perRowHessians,
        model,
      );
    }
    return _support(model, _perRow(model), perRowHessians, null);
  }
  if (model instanceof ThreadedGlmModel) {
    const base = model.base;
    const rows: SubsamplingRows = base instanceof GlmModel && base.hasCompactCache
      ? { kind: "compact-glm", glm: base, passes: model }
      : _perRow(model.base);
    return _support(model, rows, perRowHessians, null);
  }
  if (!hasPerRowGradients(model)) return null;
  return _support(model, _perRow(model), perRowHessians, null);
}

/**
 * The error for order-2 control variates on a model without per-row Hessians.
 *
 * @param model The model.
 * @returns The TypeError to throw.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { orderTwoError } from "./subsampling_support.ts";
 * assert.match(orderTwoError({} as never).message, /perRowHessians/);
 * ```
 */
export function orderTwoError(model: Model): TypeError {
  return new TypeError(
    `order-2 control variates need per-row Hessians Hₖ(θ*) (perRowHessians), which ${
      (model as object)?.constructor?.name ?? "this model"
    } does not provide; use controlVariateOrder: 1 (first-order control variates from ℓₖ and ∇ℓₖ, the metric from logLikelihoodHessian) or add perRowHessians`,
  );
}

function _perRow(model: DataModel): PerRowRows {
  return { kind: "per-row", model, perRowHessians: hasPerRowHessians(model) ? model : null };
}

function _support(
  model: Model,
  rows: SubsamplingRows,
  perRowHessians: PerRowHessianModel | null,
  inMemoryGlm: GlmModel | null,
): SubsamplingSupport {
  // Every GLM kind has per-row Hessians (bₖxₖxₖᵀ in the compact cache, or its per-row kernel).
  const order2 = rows.kind !== "per-row" || rows.perRowHessians !== null ||
    perRowHessians !== null;
  return {
    model: model as DataModel,
    rows,
    maxTaylorOrder: order2 ? 2 : 1,
    subsampleHessian: rows.kind !== "per-row",
    perRowHessians,
    inMemoryGlm,
  };
}
