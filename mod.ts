/**
 * tallmc — scalable Bayesian MCMC for tall data, with a WebAssembly SIMD core.
 *
 * Load the core, put data in it, build a model, run a sampler, diagnose:
 *
 * ```ts
 * import { gaussianLinearRegression, GlmModel, loadCore, runHmc, summarize } from "./mod.ts";
 * const arena = loadCore();
 * const { data } = gaussianLinearRegression(arena, { n: 500, d: 3, sigma: 1, seed: 1 });
 * const model = new GlmModel(data, { family: "gaussian", sigma: 1, priorScale: 10 });
 * const run = runHmc(model, { numWarmup: 200, numSamples: 200, numChains: 2, seed: 1 });
 * const rows = summarize(run.draws, run.parameterNames);
 * if (rows.length !== 3) throw new Error();
 * ```
 *
 * @module
 */

// core/: the only layer that touches WebAssembly.
export { Arena, type ArenaOptions } from "./core/arena.ts";
export { availableBackends, loadCore, type LoadCoreOptions } from "./core/load.ts";
export {
  type CoreBackend,
  type CoreExports,
  FAMILY_GAUSSIAN,
  FAMILY_LOGISTIC,
  FAMILY_POISSON,
} from "./core/exports.ts";

// random/
export { Rng } from "./random/rng.ts";

// data/
export * from "./data/mod.ts";
export { type DrawsTable, formatDrawsCsv, parseDrawsCsv } from "./data/draws_csv.ts";

// diagnostics/
export * from "./diagnostics/mod.ts";

// models/
export {
  assertPosition,
  type CostCounter,
  type DataModel,
  type Model,
  newCostCounter,
} from "./models/model.ts";
export { type GlmFamily, GlmModel, type GlmOptions } from "./models/glm.ts";
export * from "./models/gaussian_target.ts";

// samplers/
export * from "./samplers/mod.ts";
