/**
 * tallmc — scalable Bayesian MCMC for tall data, with a WebAssembly SIMD core.
 *
 * Load the core, put data in it, build a model, run a sampler, diagnose:
 *
 * ```ts
 * import { GlmModel, higgsShaped, loadCore, runHmc, summarize } from "./mod.ts";
 * const arena = loadCore(); // picks relaxed-SIMD, SIMD or the TypeScript reference
 * const { data } = higgsShaped(arena, { n: 2_000, seed: 1 });
 * const model = new GlmModel(data, { family: "logistic", priorScale: 10 });
 * const run = runHmc(model, { numWarmup: 200, numSamples: 200, numChains: 1, seed: 1 });
 * const rows = summarize(run.draws, model.parameterNames);
 * if (rows.length !== 30) throw new Error();
 * ```
 *
 * @module
 */

// core/: the only layer that touches WebAssembly.
export { Arena, type ArenaOptions } from "./core/arena.ts";
export { availableBackends, loadCore, type LoadCoreOptions } from "./core/load.ts";
export { type CoreBackend } from "./core/load.ts";
export {
  type GlmFamilyName,
  GlmKernels,
  type LogLikelihoodOptions,
  type MomentsOutput,
  type PositionRange,
  type RowSelection,
} from "./core/glm_kernels.ts";
export { ControlVariateCache, RowBuffer, type StoredGlmData } from "./core/row_buffer.ts";
export { ScratchF64, ScratchI32 } from "./core/scratch.ts";

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
export * from "./models/normal_gamma.ts";
export * from "./models/l1_regression.ts";

// subsampling/
export * from "./subsampling/mod.ts";

// samplers/
export * from "./samplers/mod.ts";
