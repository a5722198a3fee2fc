/**
 * The model interface the samplers use.
 *
 * A {@link Model} is a differentiable log density on ℝᵈ. A {@link DataModel}
 * is a Bayesian model whose log posterior is log p(θ) + Σᵢ ℓᵢ(θ) over n data
 * rows, and exposes the data term over all rows, over a subsample and per row,
 * so that subsampling estimators can be built on it. Every data-term call adds
 * the number of per-row log-likelihood, gradient and Hessian evaluations it
 * made to the model's {@link CostCounter}: that is how samplers report cost the
 * papers' way (a Hessian row costs more than a gradient row, so it is counted
 * on its own and weighed by what it costs where cost is compared).
 *
 * Gradients are written into caller-owned arrays (`grad` is overwritten, never
 * accumulated into) so that samplers allocate nothing per leapfrog step.
 *
 * ## Bringing your own likelihood
 *
 * Implement the interface that the samplers you want need (the README has a
 * complete Poisson regression, run by the test suite):
 *
 * ```
 *  interface            methods                                   samplers
 *  Model                dim, parameterNames, cost, logDensity,    hmc, rwmh, qnhmc
 *                       logDensityAndGradient
 *  DataModel            + numRows, logPrior, logLikelihood,       + sgld, sghmc, sgnht, ccadl,
 *                       logLikelihoodRows, perRowGradients,         austerity-*, naive-*
 *                       logLikelihoodHessian, logPriorHessian       (SG with control variates:
 *                                                                   give thetaStar)
 *                                                                 + hmc-ecs with order-1 control
 *                                                                   variates (TypeScript, O(n d)
 *                                                                   memory; the default order
 *                                                                   for such a model)
 *  PerRowHessianModel   + perRowHessians                          + hmc-ecs with order-2 control
 *                                                                   variates (TypeScript,
 *                                                                   O(n d²) memory; default)
 * ```
 *
 * Rules every implementation keeps:
 *
 * - **Per-row terms.** The log posterior is log p(θ) + Σᵢ ℓᵢ(θ); ℓᵢ is
 *   row i's log-likelihood. Constants may be dropped (consistently: ℓᵢ
 *   must be the same function in every method).
 * - **Outputs are overwritten.** `grad`, `out` and `perRow` are written, not
 *   added to; `out` of the Hessian methods is d × d row-major (per row for
 *   `perRowHessians`: rows.length × d × d).
 * - **Rows may repeat.** `rows` in `logLikelihoodRows` lists row indices,
 *   repeats counted each time (subsamples with replacement).
 * - **Count the cost.** Every call that evaluates rows adds to `cost`:
 *   `numLogLikRows += rows evaluated` for log-likelihoods, `numGradRows +=
 *   rows` for gradients, `numHessianRows += rows` for Hessians (only
 *   there: a Hessian row is not also a gradient row). The priors cost
 *   nothing.
 * - **Outside the support** return −∞ (or NaN) from the log density: the
 *   samplers reject or report a divergence; never throw mid-trajectory.
 * - **Hessians.** `logLikelihoodHessian` is used to set mass matrices and by
 *   Newton steps; where the exact Hessian is awkward, minus the Fisher
 *   information (or a negative-definite approximation) serves for those.
 *   HMC-ECS's θ-update is exact whatever its control variates are, so
 *   approximate per-row Hessians cost efficiency (a larger variance of the
 *   likelihood estimator), not correctness; its signed variant needs
 *   order-2 control variates to be efficient.
 *
 * HMC-ECS on a DataModel without `perRowHessians` uses first-order control
 * variates qₖ = ℓₖ* + ∇ℓₖ*ᵀδ (the generic proxy,
 * `samplers/hmc_ecs/proxy_rows.ts`, stores ℓₖ* and ∇ℓₖ* per row), and takes
 * the metric and the warmup's Newton steps from `logLikelihoodHessian` (one
 * full-data pass per centring or Newton step) instead of a sum of per-row
 * Hessians; `controlVariateOrder: 2` on such a model is refused with a TypeError that says
 * so. First-order control variates leave a larger variance of the likelihood
 * estimator (larger subsamples for the same target), and the signed variant
 * is inefficient with them (see `HmcEcsOptions.order`). `withPrior` (in
 * `priors.ts`) replaces any DataModel's prior and keeps everything else.
 *
 * @module
 */

/** Per-row evaluation counts (the papers' unit of cost). */
export interface CostCounter {
  /** Number of per-row log-likelihood evaluations ℓᵢ(θ). */
  numLogLikRows: number;
  /** Number of per-row gradient evaluations ∇ℓᵢ(θ) (Hessian rows are not among them). */
  numGradRows: number;
  /**
   * Number of per-row Hessian evaluations ∇²ℓᵢ(θ) (full-data Hessian passes,
   * subsample and per-row Hessians). Its cost per row is d-dependent
   * (d(d+1)/2 multiply-adds against 2d for a gradient row): HMC-ECS's
   * pass-equivalents weigh it by a measured time ratio
   * (`samplers/hmc_ecs/passes.ts`).
   */
  numHessianRows: number;
}

/**
 * Create a zeroed cost counter.
 *
 * @returns `{numLogLikRows: 0, numGradRows: 0, numHessianRows: 0}`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newCostCounter } from "./model.ts";
 * assert.deepEqual(newCostCounter(), { numLogLikRows: 0, numGradRows: 0, numHessianRows: 0 });
 * ```
 */
export function newCostCounter(): CostCounter {
  return { numLogLikRows: 0, numGradRows: 0, numHessianRows: 0 };
}

/**
 * Every per-row evaluation of a counter, one each: ℓ rows + ∇ℓ rows +
 * Hessian rows. This is the evaluation count E of CT = IF × E (Dang et al.
 * 2019, eq. 2: "likelihood and gradient evaluations", which do not price a
 * Hessian row apart); where a Hessian row's larger cost matters, weigh it
 * instead (HMC-ECS's `passEquivalents`).
 *
 * @param cost A cost counter (or a phase's counts).
 * @returns numLogLikRows + numGradRows + numHessianRows.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { numRowEvaluations } from "./model.ts";
 * assert.equal(numRowEvaluations({ numLogLikRows: 3, numGradRows: 2, numHessianRows: 1 }), 6);
 * ```
 */
export function numRowEvaluations(cost: CostCounter): number {
  return cost.numLogLikRows + cost.numGradRows + cost.numHessianRows;
}

/** A differentiable log density on ℝᵈ (the target of a sampler). */
export interface Model {
  /** Dimension d of θ. */
  readonly dim: number;
  /** A name per coordinate of θ (length d). */
  readonly parameterNames: readonly string[];
  /** Cost counter, incremented by every evaluation that touches data rows. */
  readonly cost: CostCounter;
  /** log π(θ) up to a constant. */
  logDensity(theta: Float64Array): number;
  /** log π(θ) up to a constant; writes ∇ log π(θ) into `grad` (length d). */
  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number;
  /**
   * Optional: ∇ log π(θ) alone into `grad` (length d), the bits
   * {@link Model.logDensityAndGradient} writes, where leaving out the value
   * saves work (a GLM's pass skips ℓ per row). Outside the support it writes
   * NaN into `grad`. Leapfrog steps whose log density is not read use it
   * (see {@link gradientOnlyFn}).
   */
  logDensityGradient?(theta: Float64Array, grad: Float64Array): void;
}

/** ∇ log π(θ) written into `grad` (overwritten); non-finite outside the support. */
export type GradientFn = (theta: Float64Array, grad: Float64Array) => void;

/**
 * The model's gradient-only evaluation as a function, or undefined when it has
 * none (the samplers then take the combined pass at every leapfrog step).
 *
 * @param model Any model.
 * @returns `(θ, grad) => model.logDensityGradient(θ, grad)`, or undefined.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gradientOnlyFn } from "./model.ts";
 * import { NormalGammaModel } from "../examples/models/normal_gamma.ts";
 * assert.equal(gradientOnlyFn(new NormalGammaModel(new Float64Array([0.1]))), undefined);
 * ```
 */
export function gradientOnlyFn(model: Model): GradientFn | undefined {
  if (typeof model.logDensityGradient !== "function") return undefined;
  return (theta, grad) => model.logDensityGradient!(theta, grad);
}

/** A Bayesian model with log posterior log p(θ) + Σᵢ₌₁ⁿ ℓᵢ(θ). */
export interface DataModel extends Model {
  /** Number of data rows n. */
  readonly numRows: number;
  /** log p(θ); if `grad` is given, writes ∇ log p(θ) into it. Costs no rows. */
  logPrior(theta: Float64Array, grad?: Float64Array): number;
  /** Σᵢ ℓᵢ(θ) over all rows; if `grad` is given, writes Σᵢ ∇ℓᵢ(θ) into it. */
  logLikelihood(theta: Float64Array, grad?: Float64Array): number;
  /**
   * Σ_{i ∈ rows} ℓᵢ(θ) over the listed rows (repeats counted each time); if
   * `grad` is given writes the sum of their gradients; if `perRow` is given
   * (length ≥ rows.length) writes ℓᵢ(θ) for each listed row.
   */
  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options?: { grad?: Float64Array; perRow?: Float64Array },
  ): number;
  /**
   * Per-row gradients ∇ℓᵢ(θ) of the listed rows into `out` (rows.length × d,
   * row-major).
   */
  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void;
  /**
   * Σᵢ ∇²ℓᵢ(θ) over all rows into `out` (d × d row-major, overwritten);
   * counts n Hessian rows (`cost.numHessianRows`) when it evaluates rows.
   */
  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void;
  /** ∇² log p(θ) into `out` (d × d row-major, overwritten). */
  logPriorHessian(theta: Float64Array, out: Float64Array): void;
}

/**
 * A {@link DataModel} whose per-row terms have Hessians: what Taylor control
 * variates of order 2 (and the generic, TypeScript control-variate path of
 * HMC-ECS) need of a model.
 *
 * Control variates around θ* keep, per row k, ℓₖ(θ*), ∇ℓₖ(θ*) and Hₖ(θ*),
 * so that qₖ(θ) = ℓₖ* + ∇ℓₖ*ᵀδ + ½δᵀHₖ*δ (δ = θ − θ*). A model provides them
 * in one of two ways:
 *
 * ```
 *  GLM (models/glm.ts)   ℓₖ depends on θ through ηₖ = xₖᵀθ only: the compact
 *                        per-row cache (η*ₖ, ℓ*ₖ, aₖ, bₖ), 4 numbers per row,
 *                        with ∇ℓₖ* = aₖxₖ and Hₖ* = bₖxₖxₖᵀ (WASM kernels)
 *  any other model       this interface: ℓₖ (logLikelihoodRows, perRow),
 *                        ∇ℓₖ (perRowGradients) and Hₖ (perRowHessians), stored
 *                        per row: O(n d²) memory, fine for small d
 * ```
 *
 * References: Dang et al. (2019), eqs. 11 and 14; Bardenet et al. (2017).
 */
export interface PerRowHessianModel extends DataModel {
  /**
   * Per-row Hessians ∇²ℓᵢ(θ) of the listed rows into `out`
   * (rows.length × d × d, row-major per row, overwritten). Counts
   * rows.length Hessian rows (`numHessianRows`) in {@link Model.cost}, as a
   * Hessian pass over all rows counts n.
   */
  perRowHessians(theta: Float64Array, rows: Int32Array, out: Float64Array): void;
}

/**
 * Box constraints on θ: lower[j] ≤ θⱼ ≤ upper[j] (±Infinity for none). A
 * model with a `bounds` field of this type (the normal–gamma model's γ > 0)
 * has the stochastic-gradient samplers reflect their proposals into the box
 * (samplers/sg/common.ts).
 */
export interface Bounds {
  /** Lower bounds (length d). */
  readonly lower: Float64Array;
  /** Upper bounds (length d). */
  readonly upper: Float64Array;
}

/**
 * Whether a model is a {@link DataModel} (per-row likelihood, gradients and
 * Hessians): what a sampler that `requires: "data-model"` needs.
 *
 * @param model Any model.
 * @returns True if it has the DataModel methods.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isDataModel } from "./model.ts";
 * import { normalGammaModel } from "../examples/models/normal_gamma.ts";
 * assert.equal(isDataModel(normalGammaModel([0.1, 0.2, 0.3])), true);
 * ```
 *
 * References: the DataModel interface above.
 */
export function isDataModel(model: Model): model is DataModel {
  const m = model as Partial<DataModel>;
  return typeof m.numRows === "number" && typeof m.logLikelihoodRows === "function" &&
    typeof m.perRowGradients === "function" && typeof m.logLikelihoodHessian === "function" &&
    typeof m.logPriorHessian === "function";
}

/**
 * Whether a model provides per-row Hessians ({@link PerRowHessianModel}).
 *
 * @param model Any model.
 * @returns True if it is a DataModel with `perRowHessians`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasPerRowHessians } from "./model.ts";
 * import { NormalGammaModel } from "../examples/models/normal_gamma.ts";
 * assert.equal(hasPerRowHessians(new NormalGammaModel(new Float64Array([0.1, 0.2]))), true);
 * ```
 */
export function hasPerRowHessians(model: Model): model is PerRowHessianModel {
  const m = model as Partial<PerRowHessianModel>;
  return typeof m.perRowHessians === "function" && typeof m.perRowGradients === "function" &&
    typeof m.logLikelihoodRows === "function" && typeof m.numRows === "number";
}

/**
 * Whether a model is a {@link DataModel} with what HMC-ECS's first-order
 * control variates need: per-row ℓᵢ and ∇ℓᵢ and the full-data Hessian.
 *
 * @param model Any model.
 * @returns True if it has `perRowGradients`, `logLikelihoodRows`,
 *   `logLikelihoodHessian` and `numRows`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasPerRowGradients } from "./model.ts";
 * import { NormalGammaModel } from "../examples/models/normal_gamma.ts";
 * assert.equal(hasPerRowGradients(new NormalGammaModel(new Float64Array([0.1, 0.2]))), true);
 * ```
 */
export function hasPerRowGradients(model: Model): model is DataModel {
  const m = model as Partial<DataModel>;
  return typeof m.perRowGradients === "function" && typeof m.logLikelihoodRows === "function" &&
    typeof m.logLikelihoodHessian === "function" && typeof m.numRows === "number";
}

/**
 * log π(θ) = log p(θ) + Σᵢ ℓᵢ(θ) with its gradient written into `grad`: the
 * composition every DataModel's `logDensityAndGradient` makes.
 *
 * @param model The model (its `logLikelihood` with gradient, then `logPrior`).
 * @param theta Position (length d).
 * @param grad Output ∇ log π(θ) (length d, overwritten).
 * @param priorGrad Scratch for ∇ log p(θ) (length d).
 * @returns log π(θ).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logPosteriorAndGradient } from "./model.ts";
 * import { NormalGammaModel } from "../examples/models/normal_gamma.ts";
 * const model = new NormalGammaModel(new Float64Array([0.1, 0.2]));
 * const theta = new Float64Array([0, 0.5]), g = new Float64Array(2), h = new Float64Array(2);
 * const lp = logPosteriorAndGradient(model, theta, g, new Float64Array(2));
 * assert.equal(lp, model.logDensityAndGradient(theta, h));
 * assert.deepEqual(g, h);
 * ```
 */
export function logPosteriorAndGradient(
  model: Pick<DataModel, "dim" | "logLikelihood" | "logPrior">,
  theta: Float64Array,
  grad: Float64Array,
  priorGrad: Float64Array,
): number {
  const ll = model.logLikelihood(theta, grad);
  const lp = model.logPrior(theta, priorGrad);
  for (let j = 0; j < model.dim; j++) grad[j] += priorGrad[j];
  return ll + lp;
}

/**
 * Check that `theta` is a Float64Array of length `dim`.
 *
 * @param theta The value to check.
 * @param dim The expected length.
 * @param what Name used in the error message.
 */
export function assertPosition(theta: Float64Array, dim: number, what = "theta"): void {
  if (!(theta instanceof Float64Array)) {
    throw new TypeError(
      `${what} must be a Float64Array, got ${Object.prototype.toString.call(theta)}`,
    );
  }
  if (theta.length !== dim) {
    throw new RangeError(`${what} must have length ${dim}, got ${theta.length}`);
  }
}
