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
 * What is here, by layer (imports point down only):
 *
 * - **Running samplers.** {@link sample} runs any sampler of the registry by
 *   name (`samplerNames()` lists them: `hmc`, `rwmh`, `hmc-ecs`, `sgld`,
 *   `sghmc`, `sgnht`, `ccadl`, `qnhmc`, `austerity-rwmh`, `austerity-sgld`
 *   and the `naive-*` diagnostics) through one driver
 *   ({@link sampleChains}); `run*` helpers give each family its typed
 *   options. Every sampler has one shape ({@link ChainSampler}, kernels
 *   `init` / `step(rng, state, params)`), exported as namespaces (`hmc`,
 *   `rwmh`, `sgld`, …) for users who compose their own.
 * - **Models.** {@link GlmModel} (logistic, Gaussian, Poisson on the WASM
 *   core) and the {@link Model} / {@link DataModel} interfaces a user's own
 *   likelihood implements; priors users state ({@link buildPrior},
 *   {@link withPrior}: normal, Student-t, Cauchy, Laplace, flat; half-normal,
 *   half-t, half-Cauchy, exponential for scales) on any DataModel.
 * - **Data.** CSV and Parquet into WASM memory ({@link loadParquet}), or
 *   streamed row group by row group ({@link parquetRowChunks},
 *   {@link writeParquet}), formulas over CSV files with text
 *   columns ({@link loadCsvWithFormula}: `y ~ x1 * region`), seeded synthetic data shaped like the
 *   papers', projections and B-spline bases, draws CSV in and out. MNIST 7 vs 9
 *   has its own entry point, `data/mnist.ts`.
 * - **Data beyond memory.** A fixed-width binary row store
 *   ({@link writeRowStore}, {@link openRowStore}: rows read by index or range
 *   without parsing) and {@link ShardedGlmModel}, a GLM whose rows are split
 *   over workers with one WebAssembly instance each (beyond one instance's
 *   4 GiB) or streamed from a row store at every pass (out of core); both
 *   are {@link ExternalGlmModel}s, which HMC-ECS takes.
 * - **Subsampling.** Gradient estimators (plain and control-variate) for the
 *   SG kernels, the austerity sequential test. The HMC-ECS building blocks
 *   (control variates, difference and block-Poisson estimators) are used
 *   through `hmc-ecs` and importable from `subsampling/` for research. The
 *   centring's full-data sums as SQL for any engine
 *   ({@link controlVariateSql}); run in an embedded DuckDB over Parquet or
 *   a database by its own entry point, `engines/duckdb.ts`.
 * - **Diagnostics.** Bulk/tail ESS, R̂, MCSE (as R's `posterior`), the papers'
 *   IF / CT / RCT, sign-corrected summaries of signed HMC-ECS draws.
 * - **Core.** {@link loadCore}, which picks the fastest WASM build the host
 *   validates; the typed kernel layer stays inside `core/`.
 *
 * @module
 */

// ── Running samplers ─────────────────────────────────────────────────────────
export { sample, type SampleOptions } from "./samplers/sample.ts";
export {
  defaultWorkers,
  type ParallelSamplingResult,
  sampleParallel,
  type SampleParallelOptions,
} from "./samplers/parallel.ts";
export { getSampler, registerSampler, samplerNames } from "./samplers/registry.ts";
export type {
  AdaptContext,
  ChainSampler,
  ModelRequirement,
  Phase,
  RunPlan,
  SamplerDescription,
  SamplerOption,
  StepInfo,
  StepResult,
  WarmupAdaptation,
  WarmupEndContext,
} from "./samplers/sampler.ts";
export {
  type ChainOutput,
  type ChainStop,
  infoAcrossChains,
  type InfoTable,
  parameterDraws,
  type PhaseCost,
  type RunOptions,
  sampleChains,
  type SampleChainsOptions,
  type SamplingResult,
  throwIfStopped,
  totalCost,
} from "./samplers/driver.ts";

// Typed runners, one per family of samplers.
export { type HmcSamplerOptions, runHmc, type RunHmcOptions } from "./samplers/run_hmc.ts";
export type { HessianFn } from "./samplers/mass_matrix_adaptation.ts";
export { runRwmh, type RunRwmhOptions, type RwmhSamplerOptions } from "./samplers/run_rwmh.ts";
export {
  type CentringSums,
  type HmcEcsOptions,
  type HmcEcsVariant,
  type PrecomputedCentring,
  runHmcEcs,
  type RunHmcEcsOptions,
} from "./samplers/hmc_ecs/mod.ts";
export type { SgSamplerOptions } from "./samplers/sg_samplers.ts";
export { type QnhmcOptions, runQnhmc, type RunQnhmcOptions } from "./samplers/qnhmc/mod.ts";
export {
  type ApproxMhOptions,
  langevinProposal,
  type ProposalDraw,
  type ProposalFn,
  randomWalkProposal,
  runApproxMh,
  type RunApproxMhOptions,
} from "./samplers/approx_mh.ts";
export {
  type NaiveOptions,
  type NaiveVariant,
  runNaive,
  type RunNaiveOptions,
} from "./samplers/naive/mod.ts";

// Kernels (init / step) as namespaces, for composing samplers.
export * as hmc from "./samplers/hmc.ts";
export * as rwmh from "./samplers/rwmh.ts";
export * as sgld from "./samplers/sgld.ts";
export * as sghmc from "./samplers/sghmc.ts";
export * as sgnht from "./samplers/sgnht.ts";
export * as ccadl from "./samplers/ccadl.ts";
export * as hmcEcs from "./samplers/hmc_ecs/kernel.ts";
export * as qnhmc from "./samplers/qnhmc/kernel.ts";
export * as approxMh from "./samplers/approx_mh.ts";
export * as naive from "./samplers/naive/mod.ts";
export * as dualAveraging from "./samplers/dual_averaging.ts";

// Building blocks every kernel shares.
export {
  type IntegratorState,
  leapfrog,
  type LeapfrogOptions,
  type LeapfrogResult,
  type LogDensityGradientFn,
} from "./samplers/integrators.ts";
export {
  denseMetric,
  diagonalMetric,
  identityMetric,
  type Metric,
  metricFromNegativeHessian,
  type MetricKind,
} from "./samplers/metric.ts";

// ── Models ───────────────────────────────────────────────────────────────────
export {
  type CostCounter,
  type DataModel,
  type Model,
  newCostCounter,
  numRowEvaluations,
  type PerRowHessianModel,
} from "./models/model.ts";
export {
  DEFAULT_GLM_SCALE_PRIOR,
  type GlmFamily,
  GlmModel,
  type GlmModelFamily,
  type GlmOptions,
} from "./models/glm.ts";
export { DEFAULT_NU_PRIOR, type NuPrior } from "./models/nu_prior.ts";
export { ThreadedGlmModel, type ThreadedGlmOptions } from "./models/threaded_glm.ts";
export { type ExternalGlmModel, isExternalGlm } from "./models/external_glm.ts";
export { externalFromGlm } from "./models/in_memory_external.ts";
export {
  type GaussianTarget,
  gaussianTarget,
  type GaussianTargetOptions,
} from "./models/gaussian_target.ts";
export {
  type Bounds,
  NormalGammaModel,
  type NormalGammaPosterior,
  type NormalGammaPrior,
} from "./models/normal_gamma.ts";
export {
  type GaussianMeanBatches,
  type GaussianMeanData,
  gaussianMeanData,
  type GaussianMeanDataOptions,
  GaussianMeanModel,
  type GaussianMeanOptions,
} from "./models/gaussian_mean.ts";
export { L1RegressionModel, type L1RegressionOptions } from "./models/l1_regression.ts";
export type { BatchedPotential } from "./models/batch_potential.ts";
export { checkPrior, formatPrior, parsePriorText } from "./models/prior_text.ts";
export {
  buildPrior,
  type CoefficientPrior,
  type DefaultPriorOptions,
  defaultPriorSpec,
  logScaleDensity,
  type ParameterKind,
  Prior,
  type PriorInput,
  type PriorLayoutOptions,
  type PriorSpec,
  type ResolvedPrior,
  type ScalePrior,
  type WithPrior,
  withPrior,
} from "./models/priors.ts";

// ── Data ─────────────────────────────────────────────────────────────────────
export {
  bankruptcyShaped,
  type BankruptcyShapedOptions,
  type CsvOptions,
  type CsvTable,
  freeGlmData,
  gaussianLinearRegression,
  type GaussianLinearRegressionOptions,
  type GlmData,
  glmDataFromArrays,
  higgsShaped,
  type HiggsShapedOptions,
  type LoadCsvOptions,
  loadCsvToArena,
  parseCsvText,
  type Storage,
  type SyntheticBankruptcy,
  type SyntheticGaussian,
  type SyntheticGlm,
} from "./data/mod.ts";
export {
  type CsvRowChunk,
  type CsvRows,
  type FormulaParquetOptions,
  loadParquet,
  loadParquetWithFormula,
  openCsvRows,
  openParquetRows,
  type ParquetDecompressors,
  type ParquetOptions,
  type ParquetRowChunk,
  parquetRowChunks,
  type ParquetRows,
  type ParquetSource,
  type ParquetWriteResult,
  writeParquet,
  type WriteParquetOptions,
} from "./data/mod.ts";
export {
  buildDesign,
  columnMoments,
  type ColumnTable,
  type Design,
  type DesignInfo,
  type DesignOptions,
  type Formula,
  type FormulaCsvOptions,
  type FormulaData,
  loadCsvWithFormula,
  parseColumnTable,
  parseCsvWithFormula,
  parseFormula,
  type ResponseCoding,
} from "./data/mod.ts";
export {
  applyProjection,
  bsplineBasis,
  type BsplineBasisOptions,
  type PcaOptions,
  pcaProjection,
  type Projection,
  quantileKnots,
  type QuantileKnotsOptions,
  randomProjection,
  type RandomProjectionOptions,
  standardize,
  type Standardized,
  type StandardizeOptions,
} from "./data/mod.ts";
export { type DrawsTable, formatDrawsCsv, parseDrawsCsv } from "./data/draws_csv.ts";

// ── Data beyond memory ───────────────────────────────────────────────────────
export {
  fingerprintFile,
  openRowStore,
  type RowChunk,
  RowStore,
  type RowStoreHeader,
  type RowStoreMeta,
  type SourceFingerprint,
  StagedRows,
  writeRowStore,
  writeRowStoreFromGlmData,
} from "./data/row_store.ts";
export { ShardedGlmModel, type ShardedGlmOptions } from "./models/sharded_glm.ts";

// ── Subsampling ──────────────────────────────────────────────────────────────
export {
  controlVariateGradient,
  type ControlVariateGradientOptions,
  type EstimateOptions,
  type GradientEstimate,
  type GradientEstimator,
  minibatchGradient,
  type MinibatchOptions,
} from "./subsampling/gradient_estimators.ts";
export type {
  ControlVariates,
  RowRange,
  SubsampleControlVariates,
  TaylorOrder,
} from "./subsampling/control_variates.ts";
export type { CovarianceKind } from "./subsampling/gradient_covariance.ts";
export { subsetMap, type SubsetMapOptions, type SubsetMapResult } from "./subsampling/tuning.ts";
export {
  approxMhTest,
  type ApproxMhTestOptions,
  type ApproxMhTestResult,
  cltCheck,
  type CltCheckOptions,
  type CltCheckResult,
  type RowDifferencesFn,
} from "./subsampling/austerity.ts";
export {
  controlVariateSql,
  type ControlVariateSqlOptions,
  type ControlVariateSums,
  logLikelihoodSql,
  parseControlVariateSums,
  quoteIdentifier,
  type SqlDialect,
  sqlDouble,
  type SqlGlmFamily,
} from "./engines/control_variate_sql.ts";

// ── Diagnostics ──────────────────────────────────────────────────────────────
export {
  autocorrelation,
  type AutocorrelationTimeOptions,
  autocovariance,
  type AutocovarianceOptions,
  computationalTime,
  type ComputationalTimeOptions,
  type CovarianceEllipse,
  covarianceEllipse,
  effectiveSizeAr,
  type EllipseOptions,
  essBasic,
  type EssBasicOptions,
  essBulk,
  essMean,
  essQuantile,
  essSd,
  essTail,
  type FormatSummaryOptions,
  formatSummaryTable,
  inefficiencyFactor,
  integratedAutocorrelationTime,
  kde,
  type KdeOptions,
  type KdeResult,
  mcseMean,
  mcseQuantile,
  mcseSd,
  quantile,
  quantiles,
  type RctSummary,
  relativeComputationalTime,
  relativeComputationalTimeSummary,
  rhat,
  rhatBasic,
  type RhatBasicOptions,
  rocAuc,
  type RocCurve,
  rocCurve,
  type SamplerCost,
  signCorrectedMean,
  type SignCorrectedSummary,
  signCorrectedSummary,
  signCorrectedVariance,
  summarize,
  type SummarizeOptions,
  type SummaryDiagnostic,
  type SummaryNaReason,
  type SummaryRow,
  summaryToCsv,
} from "./diagnostics/mod.ts";

// ── Core and randomness ──────────────────────────────────────────────────────
export { type Arena } from "./core/arena.ts";
export {
  availableBackends,
  type CoreBackend,
  loadCore,
  type LoadCoreOptions,
} from "./core/load.ts";
export { Rng } from "./random/rng.ts";
