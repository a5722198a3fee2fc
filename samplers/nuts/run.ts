/**
 * The registry entry `"nuts"` and its typed runner.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "../driver.ts";
import { checkRunInputs } from "../option_names.ts";
import type { SamplerDescription } from "../sampler.ts";
import { givenStartInit } from "../hmc/options.ts";
import { nutsSampler } from "./chain_sampler.ts";
import type { NutsOptions } from "./options.ts";

/**
 * The registry entry `"nuts"`: multinomial NUTS with Stan's windowed
 * warm-up ({@link nutsSampler}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nutsDescription } from "./run.ts";
 * assert.equal(nutsDescription.name, "nuts");
 * assert.equal(nutsDescription.isExact, true);
 * ```
 */
export const nutsDescription: SamplerDescription<NutsOptions> = {
  name: "nuts",
  summary:
    "full-data multinomial NUTS (as Stan): Newton start + Laplace draws and metric, Stan windows, dual averaging, max tree depth 10",
  references:
    "Hoffman & Gelman (2014) Algorithms 3, 5, 6; Betancourt (2017) Appendix A; Stan Reference Manual, Automatic parameter tuning",
  requires: "log-density",
  isExact: true,
  options: [
    {
      name: "metric",
      flag: "metric",
      type: "choice",
      choices: ["identity", "diagonal", "dense", "auto"],
      default: "auto (as for hmc)",
      help: "metric (mass matrix) adaptation",
    },
    {
      name: "stepSize",
      flag: "step-size",
      type: "number",
      default: "Hoffman & Gelman's heuristic, then dual averaging in warmup",
      help: "initial step size ε",
    },
    {
      name: "targetAcceptanceRate",
      flag: "target-acceptance",
      type: "number",
      default: "0.8",
      help: "dual-averaging target acceptance rate",
    },
    {
      name: "maxTreeDepth",
      flag: "max-tree-depth",
      type: "integer",
      default: "10",
      help: "NUTS: most doublings of a trajectory (2^depth − 1 leapfrog steps)",
    },
  ],
  build: (model, options) => nutsSampler(model, givenStartInit(options)),
};

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
 * import { gaussianTarget } from "../../models/gaussian_target.ts";
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
