/**
 * The typed runner of NUTS: {@link runNuts}.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "../driver.ts";
import { checkRunInputs } from "../option_names.ts";
import { nutsDescription } from "./chain_sampler.ts";
import type { NutsOptions } from "./options.ts";

/**
 * Run NUTS: {@link nutsSampler} driven by {@link sampleChains}.
 *
 * @param model Any Model or DataModel.
 * @param options NUTS options and driver options (seed, sizes, …).
 * @returns The driver's result; per-draw info holds `treeDepth`,
 *   `numIntegrationSteps`, `acceptanceRate`, `energy` and `isDivergent`.
 *
 * @example
 * ```ts
 * import { runNuts } from "./run.ts";
 * import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array([1, -1]), new Float64Array([1, 0.5, 0.5, 1]));
 * const r = runNuts(model, { seed: 7, numWarmup: 300, numSamples: 300, numChains: 2 });
 * const m = r.draws[0][0].reduce((a, b) => a + b) / r.numDraws;
 * if (Math.abs(m - 1) > 0.5) throw new Error(`mean ${m}`);
 * ```
 *
 * References: Betancourt (2017), Appendix A; Stan Reference Manual, "Automatic parameter tuning".
 */
export function runNuts(model: Model, options: NutsOptions & RunOptions): SamplingResult {
  checkRunInputs("runNuts", model, options);
  return sampleChains({ ...options, sampler: nutsDescription.build(model, options), model });
}
