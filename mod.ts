/**
 * tallmc — scalable Bayesian MCMC for tall data, with a WebAssembly SIMD core.
 *
 * Load the core, put data in it, build a model, run any registered sampler by
 * name, diagnose:
 *
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { GlmModel, higgsShaped, loadCore, sample, summarize } from "./mod.ts";
 * const arena = loadCore(); // picks relaxed-SIMD, SIMD or the TypeScript reference
 * const { data } = higgsShaped(arena, { n: 2_000, seed: 1 });
 * const model = new GlmModel(data, { family: "logistic", priorScale: 10 });
 * const run = sample(model, { sampler: "hmc", numWarmup: 200, numSamples: 200, numChains: 1, seed: 1 });
 * const rows = summarize(run.draws, model.parameterNames);
 * assert.equal(rows.length, 30);
 * assert.equal(run.chains[0].stop, null); // the chain ran to the end
 * ```
 *
 * This module holds what a user needs to sample, summarise and load data:
 *
 * - **Running samplers.** {@link sample} runs any sampler of the registry by
 *   name (`samplerNames()` lists them: `hmc`, `rwmh`, `hmc-ecs`, `sgld`,
 *   `sghmc`, `sgnht`, `ccadl`, `qnhmc`, `austerity-rwmh`, `austerity-sgld`
 *   and the `naive-*` diagnostics); {@link sampleParallel} runs the chains
 *   in workers; {@link runHmcEcs} is HMC-ECS with typed options;
 *   {@link registerSampler} adds a sampler.
 * - **Models.** {@link GlmModel} (logistic, Gaussian, Student-t, Poisson,
 *   negative binomial, binomial on the WASM core), {@link ThreadedGlmModel}
 *   (full-data passes over threads), {@link withPrior}, and the
 *   {@link Model} / {@link DataModel} / {@link PerRowHessianModel} interfaces
 *   a user's own likelihood implements.
 * - **Data.** CSV and Parquet files into WASM memory, formulas with
 *   categorical columns, seeded synthetic data shaped like the papers',
 *   draws as CSV (row stores and shards for data beyond memory are in
 *   `/data` and `/models`).
 * - **Diagnostics.** {@link summarize} (bulk/tail ESS, R̂, MCSE as R's
 *   `posterior`), the main diagnostics it is built from, and {@link verdict}:
 *   converged or not, each failed check with its likely cause and fix.
 * - **Core.** {@link loadCore}, which picks the fastest WASM build the host
 *   validates, and the seeded {@link Rng}.
 *
 * Everything else is a sub-path export, each with its own documentation:
 * `@tallmc/tallmc/samplers` (kernels as namespaces, typed runners, the
 * driver, integrators, metrics, adaptation), `/models` (every model class,
 * priors, reference targets), `/models/user_glm` (a family written in
 * AssemblyScript), `/data` (loaders, streaming readers, row stores,
 * projections, splines), `/data/mnist`, `/diagnostics`, `/subsampling`
 * (control variates, estimators, the austerity test), `/core`, `/engines`
 * (the centring sums as SQL text) and `/engines/duckdb`. The layers and where
 * to add a sampler, a family or a row source are described in
 * `docs/architecture.md`.
 *
 * @module
 */

// ── Running samplers ─────────────────────────────────────────────────────────
export { sample, type SampleOptions } from "./samplers/sample.ts";
export {
  type ParallelSamplingResult,
  sampleParallel,
  type SampleParallelOptions,
} from "./samplers/parallel.ts";
export { getSampler, registerSampler, samplerNames } from "./samplers/registry.ts";
export type { ChainSampler, SamplerDescription } from "./samplers/sampler.ts";
export {
  type ChainOutput,
  type ChainStop,
  infoAcrossChains,
  type SamplingResult,
} from "./samplers/driver.ts";
export { type HmcEcsOptions, runHmcEcs, type RunHmcEcsOptions } from "./samplers/hmc_ecs/mod.ts";

// ── Models ───────────────────────────────────────────────────────────────────
export {
  type CostCounter,
  type DataModel,
  type Model,
  type PerRowHessianModel,
} from "./models/model.ts";
export { type GlmFamily, GlmModel, type GlmModelFamily, type GlmOptions } from "./models/glm.ts";
export { ThreadedGlmModel, type ThreadedGlmOptions } from "./models/threaded_glm.ts";
export { type PriorInput, type PriorSpec, withPrior } from "./models/priors.ts";

// ── Data ─────────────────────────────────────────────────────────────────────
export {
  bankruptcyShaped,
  gaussianLinearRegression,
  type GlmData,
  glmDataFromArrays,
  higgsShaped,
  loadCsvToArena,
  loadCsvWithFormula,
  loadParquet,
  loadParquetWithFormula,
  parseCsvText,
} from "./data/mod.ts";
export { formatDrawsCsv } from "./data/draws_csv.ts";

// ── Diagnostics ──────────────────────────────────────────────────────────────
export {
  essBulk,
  essTail,
  formatSummaryTable,
  mcseMean,
  rhat,
  summarize,
  type SummarizeOptions,
  type SummaryRow,
  summaryToCsv,
} from "./diagnostics/mod.ts";
export {
  formatVerdict,
  type Verdict,
  verdict,
  type VerdictCheck,
  type VerdictOptions,
  type VerdictProblem,
  type VerdictRun,
} from "./diagnostics/verdict.ts";

// ── Core and randomness ──────────────────────────────────────────────────────
export type { Arena } from "./core/arena.ts";
export { type CoreBackend, loadCore, type LoadCoreOptions } from "./core/load.ts";
export { Rng } from "./random/rng.ts";

// ── Types the signatures above mention (so that the documentation is complete) ─
export type { CsvOptions, CsvTable, LoadCsvOptions } from "./data/csv.ts";
export type { Storage } from "./data/dataset.ts";
export type {
  DesignInfo,
  DesignOptions,
  FormulaCsvOptions,
  FormulaData,
  ResponseCoding,
} from "./data/design.ts";
export type { DrawsTable } from "./data/draws_csv.ts";
export type { Formula } from "./data/formula.ts";
export type {
  FormulaParquetOptions,
  ParquetDecompressors,
  ParquetOptions,
  ParquetSource,
} from "./data/parquet.ts";
export type {
  BankruptcyShapedOptions,
  GaussianLinearRegressionOptions,
  HiggsShapedOptions,
  SyntheticBankruptcy,
  SyntheticGaussian,
  SyntheticGlm,
} from "./data/synthetic.ts";
export type {
  FormatSummaryOptions,
  SummaryDiagnostic,
  SummaryNaReason,
} from "./diagnostics/summary.ts";
export type { NuPrior } from "./models/nu_prior.ts";
export type {
  CoefficientPrior,
  ParameterKind,
  Prior,
  ResolvedPrior,
  ScalePrior,
  WithPrior,
} from "./models/priors.ts";
export type { InfoTable, PhaseCost, RunOptions, SampleChainsOptions } from "./samplers/driver.ts";
export type {
  CentringSums,
  HmcEcsVariant,
  PrecomputedCentring,
} from "./samplers/hmc_ecs/options.ts";
export type { Metric, MetricKind } from "./samplers/metric.ts";
export type {
  AdaptContext,
  ModelRequirement,
  Phase,
  RunPlan,
  SamplerOption,
  StepInfo,
  StepResult,
  WarmupAdaptation,
  WarmupEndContext,
} from "./samplers/sampler.ts";
export type { TaylorOrder } from "./subsampling/control_variates.ts";
