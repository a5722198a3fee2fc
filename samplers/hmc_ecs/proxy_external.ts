/**
 * The external-GLM proxy: HMC-ECS's control variates and subsample
 * estimators for a GLM whose rows live outside this instance
 * ({@link ExternalGlmModel}) — the GLM proxy's estimators over
 * {@link ExternalControlVariates}, which keep no per-row cache:
 *
 * ```
 *  centring     model.controlVariateSums(θ*): S, A, and B unless an estimate is
 *               given (one full-data pass, run wherever the rows live), or sums
 *               computed elsewhere (precomputed centring: no pass at all)
 *  subsample    the m rows read by index into a local buffer, their cache rows
 *               (η*ₖ, ℓₖ*, aₖ, bₖ) computed there from xₖ, yₖ, θ*; a refreshed
 *               block reads and prepares its rows only; a re-centring
 *               recomputes the cache rows of the rows held
 * ```
 *
 * so an iteration costs O(m) rows and memory does not grow with n. The same
 * kernels run on the same values as the in-memory GLM proxy: for the same
 * seed, the same draws.
 *
 * References: Dang et al. (2019), eqs. 8–15, §6.3; docs/architecture.md, "Data beyond
 * memory".
 *
 * @module
 */
import type { ExternalGlmModel } from "../../models/external_glm.ts";
import type { TaylorOrder } from "../../subsampling/control_variates.ts";
import { ExternalControlVariates } from "../../subsampling/external_rows.ts";
import type { CentringSums } from "./options.ts";
import type { ControlVariateProxy, RecenterOptions } from "./proxy.ts";
import { compactProxy } from "./proxy_glm.ts";

/**
 * A chain's control variates for an external GLM centred at θ* (one
 * `controlVariateSums` pass, with B unless `options.hessian` gives an
 * estimate), or at precomputed sums (no pass).
 *
 * @param model The external GLM.
 * @param thetaStar The expansion point.
 * @param order Taylor order.
 * @param options An estimate of B instead of the pass's exact one, or `sums`
 *   at θ* computed elsewhere (checked by the caller).
 * @returns The proxy.
 */
export function externalProxy(
  model: ExternalGlmModel,
  thetaStar: Float64Array,
  order: TaylorOrder,
  options: RecenterOptions & { sums?: CentringSums } = {},
): ControlVariateProxy {
  const d = model.dim;
  const checkHessian = (h: Float64Array) => {
    if (h.length !== d * d) {
      throw new RangeError(`hessian must have ${d * d} entries, got ${h.length}`);
    }
  };
  if (options.hessian !== undefined) checkHessian(options.hessian);
  const cv = new ExternalControlVariates(model, thetaStar, {
    order,
    hessian: options.hessian === undefined,
    sums: options.sums,
  });
  if (options.sums === undefined) {
    if (options.hessian !== undefined) cv.hessSum.set(options.hessian);
  }
  return compactProxy(cv, (t, o) => {
    if (o.hessian !== undefined) checkHessian(o.hessian);
    cv.recenter(t, { hessian: o.hessian === undefined });
    if (o.hessian !== undefined) cv.hessSum.set(o.hessian);
  });
}
