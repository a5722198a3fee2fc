/**
 * A GLM whose rows live outside the calling WebAssembly instance: sharded over
 * several instances (one per worker), streamed from a file (out of core), or
 * held by another engine. HMC-ECS needs such a model for two things only:
 *
 * ```
 *  full-data passes   controlVariateSums(θ*): S = Σₖℓₖ(θ*), A = Σₖ∇ℓₖ(θ*),
 *                     B = ΣₖHₖ(θ*) — and logLikelihood / its gradient and
 *                     Hessian (DataModel) for the warm-up's Newton steps
 *  subsample rows     readRows(indices): the m rows of the current subsample,
 *                     copied into the sampler's own buffer, where the per-row
 *                     cache (η*ₖ, ℓₖ*, aₖ, bₖ) is computed from xₖ, yₖ and θ*
 * ```
 *
 * so that each iteration costs O(m) with memory that does not grow with n.
 * Every GLM family can live outside, and a family written in AssemblyScript
 * (`family` and `glmOptions` null; it takes the per-row path). HMC-ECS's compact external path takes
 * the families whose control variates are expansions in η = xᵀβ (the
 * compact per-row cache, {@link externalHasCompactCache}): "logistic",
 * "poisson" without an offset and "gaussian" (known σ). The other families
 * (a scale τ, a sampled ν, an offset or trials column) take its per-row path
 * over rows read by index: `logLikelihoodRows`, `perRowGradients` and
 * `perRowHessians` on the subsample's rows at θ and θ*, with S, A, B from
 * `controlVariateSums` (models/subsampling_support.ts, `external`).
 *
 * {@link import("./sharded_glm.ts").ShardedGlmModel} implements it over rows
 * sharded across workers (one WebAssembly instance each) or streamed from a
 * row store file (`data/row_store.ts`).
 *
 * References: Dang et al. (2019), eqs. 11 and 14; docs/architecture.md, "Data beyond
 * memory".
 *
 * @module
 */
import type { GlmModelFamily, GlmOptions } from "./glm.ts";
import type { DataModel } from "./model.ts";

/** A GLM posterior over rows held outside the calling instance (see the module notes). */
export interface ExternalGlmModel extends DataModel {
  /** Marks the interface (structural checks use it). */
  readonly isExternalGlm: true;
  /**
   * The family (HMC-ECS's external path takes the compact ones only); null
   * for a family written in AssemblyScript (per-row path).
   */
  readonly family: GlmModelFamily | null;
  /**
   * What the rows' aux column holds (an offset or the trials), when they
   * carry one; absent or null otherwise.
   */
  readonly auxColumn?: "offset" | "trials" | null;
  /** Number of columns d of X (= dim). */
  readonly numCols: number;
  /** How X is stored where it lives. */
  readonly storage: "f32" | "f64";
  /**
   * The options a {@link import("./glm.ts").GlmModel} over the same family,
   * σ and prior would be built with (so that gathered rows can be evaluated
   * by the same kernels); null for a family written in AssemblyScript.
   */
  readonly glmOptions: Readonly<GlmOptions> | null;
  /**
   * Copy rows `rows` (indices in [0, n), repeats allowed) into `x`
   * (rows.length × d, row-major, f64; f32 storage widened exactly) and `y`
   * (rows.length), and their aux column into `aux` when asked (rows that
   * carry one). Counts no cost: the caller counts the evaluations it makes
   * on them.
   */
  readRows(rows: Int32Array, x: Float64Array, y: Float64Array, aux?: Float64Array): void;
  /**
   * One full-data pass at θ*: returns S = Σₖ ℓₖ(θ*), writes A = Σₖ ∇ℓₖ(θ*)
   * into `gradSum` (length d) and, when given, B = Σₖ ∇²ℓₖ(θ*) into `hessSum`
   * (d × d, row-major). Counts n log-likelihood rows and n gradient rows in
   * `cost` (plus n Hessian rows, `numHessianRows`, when B is computed).
   */
  controlVariateSums(
    thetaStar: Float64Array,
    gradSum: Float64Array,
    hessSum?: Float64Array,
  ): number;
  /**
   * Per-row Hessians ∇²ℓₖ(θ) of rows read by index (m × P × P), when the
   * model provides them: order-2 control variates for a family without the
   * compact cache (without them such a family gets order 1).
   */
  perRowHessians?(theta: Float64Array, rows: Int32Array, out: Float64Array): void;
  /** Release workers, files and memory. The model is unusable afterwards. */
  close(): void;
}

/**
 * Whether an external GLM's control variates are expansions in η = xᵀβ, so
 * HMC-ECS keeps the compact per-row cache (η*, ℓ*, a, b) of its gathered
 * rows: "logistic", "poisson" without an offset, "gaussian" (known σ).
 *
 * @param model The external GLM.
 * @returns True for those families without an aux column.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { externalHasCompactCache } from "./external_glm.ts";
 * assert.equal(externalHasCompactCache({ family: "logistic" } as never), true);
 * assert.equal(externalHasCompactCache({ family: "student-t" } as never), false);
 * assert.equal(externalHasCompactCache({ family: "poisson", auxColumn: "offset" } as never), false);
 * ```
 */
export function externalHasCompactCache(
  model: Pick<ExternalGlmModel, "family" | "auxColumn">,
): boolean {
  const f = model.family;
  return (f === "logistic" || f === "poisson" || f === "gaussian") &&
    (model.auxColumn ?? null) === null;
}

/**
 * Whether a model is an {@link ExternalGlmModel}.
 *
 * @param model Any value.
 * @returns True when it carries the interface's marker and methods.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isExternalGlm } from "./external_glm.ts";
 * assert.equal(isExternalGlm({ dim: 2 }), false);
 * ```
 */
export function isExternalGlm(model: unknown): model is ExternalGlmModel {
  const m = model as Partial<ExternalGlmModel> | null;
  return m !== null && typeof m === "object" && m.isExternalGlm === true &&
    typeof m.readRows === "function" && typeof m.controlVariateSums === "function";
}
