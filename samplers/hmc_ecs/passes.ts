/**
 * Full-data pass-equivalents: what a warmup (or any phase) cost, in units of
 * one gradient pass over the data.
 *
 * ```
 *  unit            one gradient pass: ℓₖ(θ) and ∇ℓₖ(θ) for all n rows (one sweep)
 *  ℓ, ∇ℓ rows      a row of ℓ and ∇ℓ together counts 1/n; a row of ℓ alone or
 *                  ∇ℓ alone counts 1/(2n) (the model's counter keeps them apart)
 *  Hessian rows    a row's Hₖ counts w/n, w = t(Hessian pass) / t(gradient pass)
 *                  measured on the same data ({@link measureHessianCostRatio})
 *
 *  passes = (numLogLikRows + numGradRows) / (2n) + w · numHessianRows / n
 * ```
 *
 * All three counts are the model's cost counter's (e.g. a chain's
 * `cost.warmup`): every Hessian evaluation (subset fits, subsample Hessians,
 * full-data Hessian passes) adds to `numHessianRows` and to nothing else. A
 * full-data centring of the control variates is one pass (n ℓ rows + n ∇ℓ
 * rows); an exact full-data Hessian adds w passes; each warmup iteration
 * adds (L + 1)·m/n.
 *
 * References: Dang et al. (2019), §6.1 (cost = likelihood and gradient
 * evaluations), §6.3.
 *
 * @module
 */
import type { GlmModel } from "../../models/glm.ts";
import type { CostCounter } from "../../models/model.ts";
import { positive } from "../validate_options.ts";

/** What {@link passEquivalents} returns. */
export interface PassEquivalents {
  /** ℓ and ∇ℓ rows, in gradient passes. */
  gradientPasses: number;
  /** Hessian rows × w, in gradient passes. */
  hessianPasses: number;
  /** The sum: full-data pass-equivalents. */
  total: number;
}

/**
 * Full-data pass-equivalents of a cost counter (see the module doc).
 *
 * @param cost Row counts (e.g. a chain's `cost.warmup`).
 * @param options n and w.
 * @returns Gradient passes, Hessian passes (weighted) and their sum.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { passEquivalents } from "./passes.ts";
 * // one centring (n ℓ + n ∇ℓ rows) and one full Hessian pass (n Hessian rows), w = 4
 * const p = passEquivalents({ numLogLikRows: 100, numGradRows: 100, numHessianRows: 100 }, {
 *   numRows: 100,
 *   hessianCostRatio: 4,
 * });
 * assert.deepEqual(p, { gradientPasses: 1, hessianPasses: 4, total: 5 });
 * ```
 */
export function passEquivalents(
  cost: CostCounter,
  options: { numRows: number; hessianCostRatio: number },
): PassEquivalents {
  const { numRows: n, hessianCostRatio: w } = options, h = cost.numHessianRows;
  positive("numRows", n);
  if (!(w >= 0) || !Number.isFinite(w)) {
    throw new RangeError(`hessianCostRatio must be a finite number ≥ 0, got ${w}`);
  }
  for (const key of ["numLogLikRows", "numGradRows", "numHessianRows"] as const) {
    const v = cost[key];
    if (!(v >= 0) || !Number.isFinite(v)) {
      throw new RangeError(`cost.${key} must be a finite count ≥ 0, got ${v}`);
    }
  }
  const gradientPasses = (cost.numLogLikRows + cost.numGradRows) / (2 * n);
  const hessianPasses = (w * h) / n;
  return { gradientPasses, hessianPasses, total: gradientPasses + hessianPasses };
}

/**
 * w = t(full-data Hessian pass) / t(full-data gradient pass) on this model's
 * data, from the fastest of `repeats` timings of each (interleaved). The
 * model's cost counter is left as it was: this is a measurement, not part of
 * a run.
 *
 * @param model A GLM.
 * @param options θ to evaluate at (default zeros) and the number of repeats (default 5).
 * @returns w.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../../core/load.ts";
 * import { higgsShaped } from "../../data/synthetic.ts";
 * import { GlmModel } from "../../models/glm.ts";
 * import { measureHessianCostRatio } from "./passes.ts";
 * const { data } = higgsShaped(loadCore(), { n: 20000, seed: 1 });
 * const model = new GlmModel(data, { family: "logistic" });
 * assert.ok(measureHessianCostRatio(model) > 1); // d = 30: d(d+1)/2 vs 2d multiply-adds per row
 * assert.deepEqual(model.cost, { numLogLikRows: 0, numGradRows: 0, numHessianRows: 0 });
 * ```
 */
export function measureHessianCostRatio(
  model: GlmModel,
  options: { theta?: Float64Array; repeats?: number } = {},
): number {
  const d = model.dim, theta = options.theta ?? new Float64Array(d);
  const repeats = options.repeats ?? 5;
  const saved = { ...model.cost };
  const g = new Float64Array(d), h = new Float64Array(d * d);
  let tg = Infinity, th = Infinity;
  for (let r = 0; r < repeats; r++) {
    let t = performance.now();
    model.logLikelihood(theta, g);
    tg = Math.min(tg, performance.now() - t);
    t = performance.now();
    model.logLikelihoodHessian(theta, h);
    th = Math.min(th, performance.now() - t);
  }
  model.cost.numLogLikRows = saved.numLogLikRows;
  model.cost.numGradRows = saved.numGradRows;
  model.cost.numHessianRows = saved.numHessianRows;
  return th / Math.max(tg, 1e-6);
}
