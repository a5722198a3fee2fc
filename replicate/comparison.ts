/**
 * The method-comparison pipeline of the HMC-ECS cost experiments R2 (Table 1,
 * Figs. 1–3, HIGGS-shaped) and R4 (Tables 3–4, Figs. 4–6, bankruptcy-shaped):
 * θ* from HMC on a 1 % subset, full-data HMC, perturbed and signed HMC-ECS,
 * the stochastic-gradient step-size grids and the SG methods, all on one data
 * set. How each run is charged and summarised is in `method_outcome.ts`.
 *
 * References: Dang, Quiroz, Kohn, Tran & Villani (2019), JMLR 20, §6.2–6.6;
 * Chen, Fox & Guestrin (2014); Welling & Teh (2011).
 *
 * @module
 */
import { GlmModel, type GlmOptions } from "../models/glm.ts";
import { newCostCounter } from "../models/model.ts";
import { sampleChains, type SamplingResult } from "../samplers/driver.ts";
import { runHmcEcs } from "../samplers/hmc_ecs/mod.ts";
import { type Metric, metricFromNegativeHessian } from "../samplers/metric.ts";
import { runHmc } from "../samplers/hmc/run.ts";
import * as sghmc from "../samplers/sghmc/kernel.ts";
import * as sgld from "../samplers/sgld/kernel.ts";
import { ControlVariates } from "../subsampling/control_variates.ts";
import {
  controlVariateGradient,
  type GradientEstimator,
  minibatchGradient,
} from "../subsampling/gradient_estimators.ts";
import type { ExperimentContext, UnitFunction, UnitRequest } from "./experiment.ts";
import { runUnits } from "./experiment.ts";
import { threadCpuSeconds } from "./experiment_protocol.ts";
import { loadCore } from "../core/load.ts";
import { dataViews } from "../core/row_buffer.ts";
import { freeGlmData, type GlmData, glmDataFromArrays, type Storage } from "../data/dataset.ts";
import { runReferenceHmc } from "./reference_hmc.ts";
import {
  type EcsSummary,
  ecsSummary,
  medianInefficiency,
  medianRct,
  medianRctPaper,
  type MethodOutcome,
  methodOutcome,
} from "./method_outcome.ts";
import {
  type MomentErrors,
  momentErrors,
  type PosteriorMoments,
  posteriorMoments,
} from "./moment_errors.ts";
import { yieldToEventLoop } from "./progress.ts";
import { chooseStepSize } from "./sg_step_size.ts";
import { type Conditioning, conditioning } from "./conditioning.ts";

/** A stochastic-gradient method of the comparison. */
export interface SgVariant {
  /** Identifier. */
  key: string;
  /** Display name. */
  label: string;
  /** Sampler. */
  kind: "sghmc" | "sgld";
  /** Second-order control variates (true) or the plain minibatch gradient. */
  controlVariates: boolean;
  /**
   * SG-HMC only: L = ⌈1.2/ε⌉ (`"trajectory"`), L matched to HMC-ECS's
   * evaluations (`"matched"`) or a fixed L.
   */
  steps?: "trajectory" | "matched" | number;
  /** Reuse the ε chosen by this variant's grid instead of running a grid. */
  stepSizeFrom?: string;
  /** A fixed ε (e.g. the paper's) instead of a grid. */
  stepSize?: number;
}

/** Sizes of one comparison. */
export interface ComparisonConfig {
  /** Seed prefix. */
  seed: string;
  /** Warmup iterations of HMC-ECS (paper 1000). */
  numWarmup: number;
  /** Kept draws R of every method (paper 2000). */
  numSamples: number;
  /** HMC-ECS refresh period of θ* and M (paper 200). */
  updateEvery: number;
  /**
   * Full-data HMC reference: warmup (ε only; M is fixed at the MAP) and
   * draws; `rowLayout` overrides the model options' for the reference's
   * model only (GlmOptions.rowLayout).
   */
  reference: { numWarmup: number; numSamples: number; rowLayout?: "dense" | "windowed" };
  /** HMC on the subset for θ*: fraction (0.01), minimum rows, iterations. */
  subset: { fraction: number; minRows: number; numWarmup: number; numSamples: number };
  /** SG burn-in in iterations (SGLD: × its thinning). */
  sgBurnIn: number;
  /** The SG methods. */
  sgVariants: readonly SgVariant[];
  /** SG-HMC step-size grid (ε, with M = −∇²log π(θ*)). */
  sghmcGrid: readonly number[];
  /** SGLD grid as multiples c of 1/λ_max (ε = c/λ_max). */
  sgldGrid: readonly number[];
  /** Grid runs use this fraction of HMC-ECS's post-warmup evaluations (default 1). */
  gridBudgetFraction?: number;
  /** Signed HMC-ECS options passed through (e.g. batch size). */
  signedOptions?: Record<string, unknown>;
  /**
   * Seeds of the RCT comparison (default 1). Each further seed re-runs
   * perturbed HMC-ECS (whole run) and the SG methods at their chosen ε with
   * new streams, giving per-seed median RCTs (`seedRct`).
   */
  numSeeds?: number;
  /** SG variant keys the further seeds re-run (default all; to bound run time). */
  seedVariants?: readonly string[];
  /**
   * Run the SG step-size grids (each with the runs at its chosen ε) and the
   * runs at a fixed ε as units, at once (default false: one after another in
   * the caller's thread). Each unit rebuilds the model, the control
   * variates (same data, same θ*: the same values) and the gradient
   * estimators, whose subsample permutation then starts fresh instead of
   * where the runs before left it: each run's draws depend on its own seed
   * only, and differ from those of the in-thread order.
   */
  sgUnits?: boolean;
}

/** A row of the step-size grid table. */
export interface GridRow {
  /** Variant key. */
  variant: string;
  /** Variant label. */
  label: string;
  /** ε. */
  stepSize: number;
  /** ε·λ_max (SGLD) or NaN. */
  relative: number;
  /** Steps per iteration. */
  numSteps: number;
  /** Iterations after burn-in. */
  iterations: number;
  /** Gradient evaluations after burn-in. */
  evaluations: number;
  /** Errors vs HMC (null when unstable). */
  errors: MomentErrors | null;
  /** Median IF over parameters. */
  medianIf: number;
  /** Chosen? */
  chosen: boolean;
}

/** Everything {@link runComparison} produces. */
export interface ComparisonOutcome {
  /** θ* from HMC on the subset (the common start and the first control-variate centre). */
  thetaStar0: Float64Array;
  /** Rows of the subset. */
  subsetRows: number;
  /** Full-data HMC (reference). */
  reference: MethodOutcome;
  /** Perturbed HMC-ECS (the RCT reference). */
  perturbed: MethodOutcome;
  /** Signed HMC-ECS. */
  signed: MethodOutcome;
  /**
   * Perturbed HMC-ECS with the paper's §6.3 warmup as written: θ* learned
   * from the chain only (no Newton centring) and re-centred at every check.
   */
  perturbedPaperWarmup: MethodOutcome;
  /** SG methods in the order of the config. */
  sg: MethodOutcome[];
  /** Table 2/4 summaries. */
  ecsSummary: { perturbed: EcsSummary; signed: EcsSummary; reference: EcsSummary };
  /** The step-size grids. */
  grid: GridRow[];
  /** Chosen ε per variant key. */
  chosenStepSize: Record<string, number>;
  /** Subsample size m shared by the SG methods (perturbed HMC-ECS's). */
  sgBatchSize: number;
  /** HMC-ECS post-warmup evaluations per iteration in units of m (the L of SG-HMC₂, SGLD thinning). */
  matchedSteps: number;
  /** λ_max of −∇²log π(θ*). */
  lambdaMax: number;
  /** Eigenvalues of −∇²log π(θ*) and of the per-row information at the SG methods' θ*. */
  conditioning: Conditioning;
  /**
   * The paper's L = round(εL/ε) with perturbed HMC-ECS's tuned ε and εL = 1.2:
   * SGLD runs R = L × (kept draws) iterations after burn-in, unthinned, and is
   * thinned by L afterwards for the per-kept-draw convention.
   */
  paperSteps: number;
  /** Wall seconds per stage. */
  timings: { stage: string; seconds: number }[];
  /**
   * Median RCT against perturbed HMC-ECS under the paper's convention, one
   * entry per seed (seed 1 = the runs above; each further seed against its
   * own perturbed run), per SG variant key.
   */
  seedRct: Record<string, number[]>;
  /** The same under the paper's eq. 2 exactly ({@link medianRctPaper}: SGLD's IF from its unthinned chain). */
  seedRctPaper: Record<string, number[]>;
  /** The results of `extraUnits`, in their order. */
  extraResults: unknown[];
}

const _TRAJECTORY = 1.2;

function _progress(
  context: ExperimentContext,
  label: string,
): (chain: number, iteration: number, total: number) => void {
  let last = -1;
  return (_chain, it, total) => {
    const q = Math.floor((4 * it) / total);
    if (q !== last) {
      last = q;
      context.log(`${label}: ${it}/${total}`);
    }
  };
}

/**
 * θ* as the posterior mean of HMC on the first ⌈f·n⌉ rows (a random subset:
 * the generated rows are i.i.d.), §6.5. Uses the §6.3 Hessian metric scheme.
 */
function _subsetThetaStar(
  model: GlmModel,
  config: ComparisonConfig,
  modelOptions: GlmOptions,
): { thetaStar: Float64Array; rows: number } {
  const rows = Math.min(
    model.numRows,
    Math.max(config.subset.minRows, Math.ceil(config.subset.fraction * model.numRows)),
  );
  const sub = new GlmModel({ ...model.data, numRows: rows }, modelOptions);
  try {
    const r = runHmc(sub, {
      seed: `${config.seed}/subset-hmc`,
      numChains: 1,
      numWarmup: config.subset.numWarmup,
      numSamples: config.subset.numSamples,
      metricAdaptation: "hessian",
      updateEvery: Math.max(25, Math.floor(config.subset.numWarmup / 4)),
      maxNumIntegrationSteps: 50,
      trajectoryLength: _TRAJECTORY,
    });
    const m = posteriorMoments(r);
    return { thetaStar: Float64Array.from(m.mean), rows };
  } finally {
    sub.dispose();
  }
}

/** A data set as plain arrays, to rebuild the model in a unit's worker. */
export interface ComparisonData {
  /** Row-major X (n × numCols). */
  readonly x: Float32Array | Float64Array;
  /** y. */
  readonly y: Float64Array;
  /** Columns of X. */
  readonly numCols: number;
  /** Storage of X. */
  readonly storage: Storage;
  /** Column names. */
  readonly columnNames: readonly string[];
}

/**
 * Copy a data set out of its arena as plain arrays.
 *
 * @param data The data set.
 * @returns Copies of X and y, and the shape.
 */
export function comparisonData(data: GlmData): ComparisonData {
  const v = dataViews(data);
  return {
    x: v.x.slice(),
    y: v.y.slice(),
    numCols: data.numCols,
    storage: data.storage,
    columnNames: [...data.columnNames],
  };
}

/**
 * Rebuild the model of {@link comparisonData} in a fresh arena: the same
 * values, so every run on it draws what it would draw on the original.
 *
 * @param data The arrays.
 * @param modelOptions The model's options.
 * @returns The model and its disposal.
 */
export function modelFromComparisonData(
  data: ComparisonData,
  modelOptions: GlmOptions,
): { model: GlmModel; dispose: () => void } {
  const glmData = glmDataFromArrays(loadCore(), data.x, data.y, {
    numCols: data.numCols,
    storage: data.storage,
    columnNames: data.columnNames,
  });
  const model = new GlmModel(glmData, modelOptions);
  return {
    model,
    dispose: () => {
      model.dispose();
      freeGlmData(glmData);
    },
  };
}

/** One HMC-ECS run of the comparison (perturbed, signed, or perturbed with the §6.3 warmup). */
function _ecsRun(
  model: GlmModel,
  config: ComparisonConfig,
  thetaStar0: Float64Array,
  context: ExperimentContext,
  run: _EcsRunSpec,
): MethodOutcome {
  const { variant, paperWarmup, seedTag } = run;
  const r = runHmcEcs(model, {
    variant,
    seed: `${config.seed}/ecs-${variant}${seedTag}`,
    numChains: 1,
    numWarmup: config.numWarmup,
    numSamples: config.numSamples,
    updateEvery: config.updateEvery,
    thetaStar: thetaStar0,
    ...(variant === "signed" ? (config.signedOptions ?? {}) : {}),
    ...(paperWarmup ? { maxNewtonSteps: 0, recenterTolerance: 0 } : {}),
    onProgress: _progress(context, `${variant} HMC-ECS`),
  });
  const t = r.chains[0].tuning;
  const settings = variant === "perturbed"
    ? `m = ${t.subsampleSize}, G = ${t.numBlocks}, ε = ${
      Number(t.stepSize).toPrecision(3)
    }, L = ${t.numIntegrationSteps}`
    : `batch m = ${t.batchSize}, λ = ${t.numProducts}, κ = ${t.numRefreshed}, ε = ${
      Number(t.stepSize).toPrecision(3)
    }, L = ${t.numIntegrationSteps}`;
  const centring = `${t.numNewtonSteps} Newton + ${
    Number(t.numCenterings) - Number(t.numNewtonSteps) - 1
  } window re-centrings (${t.numSkippedCenterings} skipped)`;
  return methodOutcome(r, {
    key: paperWarmup
      ? "ecs_perturbed_paper"
      : variant === "perturbed"
      ? "ecs_perturbed"
      : "ecs_signed",
    label: paperWarmup
      ? "HMC-ECS (perturbed, §6.3 warmup as written)"
      : variant === "perturbed"
      ? "HMC-ECS (perturbed)"
      : "HMC-ECS (signed)",
    settings: `${settings}; ${centring}`,
    charge: "whole",
  });
}

/** The full-data HMC reference of the comparison. */
function _referenceRun(
  model: GlmModel,
  config: ComparisonConfig,
  thetaStar0: Float64Array,
  context: ExperimentContext,
): MethodOutcome {
  const { result: r, mapCost } = runReferenceHmc(model, {
    seed: `${config.seed}/hmc`,
    mapSeed: `${config.seed}/map`,
    initialPosition: thetaStar0,
    numChains: 1,
    numWarmup: config.reference.numWarmup,
    numSamples: config.reference.numSamples,
    context,
    label: "full-data HMC",
  });
  return methodOutcome(r, {
    key: "hmc",
    label: "HMC (full data)",
    settings:
      `M⁻¹ = Laplace covariance at the full-data MAP (Newton, counted); ε by dual averaging, εL = 1.2`,
    charge: "whole",
    extraWarmupEvaluations: mapCost,
  });
}

/** Arguments of the comparison's units. */
interface _UnitArgs {
  data: ComparisonData;
  modelOptions: GlmOptions;
  config: ComparisonConfig;
  thetaStar0: Float64Array;
}

/** One HMC-ECS run of {@link runComparison}. */
interface _EcsRunSpec {
  variant: "perturbed" | "signed";
  paperWarmup: boolean;
  seedTag: string;
}

function _referenceUnit(
  context: ExperimentContext,
  args: _UnitArgs,
): { outcome: MethodOutcome; seconds: number } {
  const layout = args.config.reference.rowLayout;
  const { model, dispose } = modelFromComparisonData(
    args.data,
    layout === undefined ? args.modelOptions : { ...args.modelOptions, rowLayout: layout },
  );
  try {
    const t0 = performance.now();
    const outcome = _referenceRun(model, args.config, args.thetaStar0, context);
    return { outcome, seconds: (performance.now() - t0) / 1000 };
  } finally {
    dispose();
  }
}

function _ecsUnit(
  context: ExperimentContext,
  args: _UnitArgs & { runs: _EcsRunSpec[] },
): { outcome: MethodOutcome; seconds: number }[] {
  const { model, dispose } = modelFromComparisonData(args.data, args.modelOptions);
  try {
    return args.runs.map((run) => {
      const t0 = performance.now();
      const outcome = _ecsRun(model, args.config, args.thetaStar0, context, run);
      return { outcome, seconds: (performance.now() - t0) / 1000 };
    });
  } finally {
    dispose();
  }
}

/**
 * What the SG runs of a comparison take from the runs before them (plain
 * values, to send to a unit).
 */
interface _SgSizes {
  /** θ* of the control variates and of M: the reference's posterior mean. */
  thetaStarSg: Float64Array;
  /** Common start (θ* from the subset). */
  sgStart: Float64Array;
  /** Subsample size (perturbed HMC-ECS's). */
  m: number;
  /** L of SG-HMC with `steps: "matched"`. */
  matchedSteps: number;
  /** The paper's L (SGLD's iterations per kept draw). */
  paperSteps: number;
  /** Extreme eigenvalues of −∇²log π(θ*) (for the settings text). */
  lambdaMax: number;
  lambdaMin: number;
}

/** One SG run at its chosen ε. */
interface _SgRunSpec {
  /** Variant key. */
  key: string;
  /** 0 for the first seed. */
  seedIndex: number;
  /** Seed of the run. */
  seed: string;
  /** Stage name (timing table, progress). */
  stage: string;
  /** A fixed ε, or undefined when it comes from the grid of `gridKey`. */
  stepSize: number | undefined;
  /** The grid that sets ε. */
  gridKey: string | undefined;
}

/** An SG run's outcome and wall seconds. */
interface _SgRunOut {
  outcome: MethodOutcome;
  seconds: number;
}

/** A grid unit's rows (the chosen one marked), its seconds, and its runs at the chosen ε. */
interface _SgGridOut {
  rows: GridRow[];
  seconds: number;
  runs: _SgRunOut[];
}

/** Expected CPU seconds per gradient cell (row × column) of an SG step (scheduling order only). */
const _SG_SECONDS_PER_CELL = 4e-9;

/** The SG runs' shared state on one thread: control variates and M at θ*, the estimators. */
interface _SgEnv {
  model: GlmModel;
  cv: ControlVariates;
  priorHess: Float64Array;
  metric: Metric;
  estimators: Record<string, GradientEstimator>;
  sizes: _SgSizes;
  dispose(): void;
}

function _sgEnv(model: GlmModel, sizes: _SgSizes): _SgEnv {
  const d = model.dim;
  const cv = new ControlVariates(model, sizes.thetaStarSg, { order: 2, computeHessian: true });
  const priorHess = new Float64Array(d * d);
  model.logPriorHessian(sizes.thetaStarSg, priorHess);
  const hessian = new Float64Array(d * d);
  for (let i = 0; i < d * d; i++) hessian[i] = cv.hessSum[i] + priorHess[i];
  const metric: Metric = metricFromNegativeHessian(hessian);
  const estimators: Record<string, GradientEstimator> = {
    cv: controlVariateGradient(model, { batchSize: sizes.m, controlVariates: cv }),
    minibatch: minibatchGradient(model, { batchSize: sizes.m }),
  };
  return {
    model,
    cv,
    priorHess,
    metric,
    estimators,
    sizes,
    dispose: () => {
      for (const e of Object.values(estimators)) e.dispose();
      cv.dispose();
    },
  };
}

/** SG-HMC's L for a variant at ε. */
function _sgSteps(v: SgVariant, stepSize: number, matchedSteps: number): number {
  return typeof v.steps === "number"
    ? v.steps
    : v.steps === "matched"
    ? matchedSteps
    : Math.ceil(_TRAJECTORY / stepSize);
}

/** One SG chain of variant `v` at ε (diverged: NaN draws, marked unstable). */
function _sgSample(
  env: _SgEnv,
  v: SgVariant,
  stepSize: number,
  run: { iterations: number; burnIn: number; seed: string },
): MethodOutcome {
  const { model, metric, sizes } = env;
  const { m, lambdaMax, lambdaMin, sgStart } = sizes;
  const d = model.dim;
  const estimator = env.estimators[v.controlVariates ? "cv" : "minibatch"];
  const numSteps = v.kind === "sgld" ? 1 : _sgSteps(v, stepSize, sizes.matchedSteps);
  const thin = v.kind === "sgld" ? sizes.paperSteps : 1;
  const sampler = v.kind === "sgld"
    ? sgld.sampler({ estimator, stepSize })
    : sghmc.sampler({ estimator, stepSize, numIntegrationSteps: numSteps, metric, friction: 1 });
  const settings = v.kind === "sgld"
    ? `ε = ${stepSize.toExponential(2)} (ε·λ_max = ${
      (stepSize * lambdaMax).toPrecision(3)
    }, ε·λ_min = ${
      (stepSize * lambdaMin).toPrecision(3)
    }), m = ${m}, ${run.iterations} iterations (L = ${thin} per HMC-ECS draw), IF from the unthinned chain, thinned by ${thin} for the kept draws`
    : `ε = ${stepSize}, L = ${numSteps}, m = ${m}, C = I, M = −∇²log π(θ*)`;
  let result: SamplingResult = sampleChains({
    sampler: sampler as Parameters<typeof sampleChains>[0]["sampler"],
    model,
    seed: run.seed,
    numChains: 1,
    numWarmup: run.burnIn,
    numSamples: run.iterations,
    thin: 1,
    initialPosition: sgStart,
    recordWarmupInfo: false,
  });
  const stop = result.chains[0].stop;
  if (stop?.kind === "error") throw stop.error;
  if (stop !== null) {
    // Diverged (the sampler reported it and stopped the chain): marked
    // unstable through NaN draws, as the step-size grid expects.
    const empty = Array.from({ length: d }, () => new Float64Array(4).fill(NaN));
    result = {
      parameterNames: [...model.parameterNames],
      numChains: 1,
      numWarmup: run.burnIn,
      numSamples: 4,
      thin: 1,
      numDraws: 4,
      draws: [empty],
      chains: [{
        chainId: 0,
        draws: empty,
        numDraws: 4,
        numDivergent: result.chains[0].numDivergent,
        stop: result.chains[0].stop,
        info: { warmup: {}, sampling: {} },
        cost: {
          warmup: newCostCounter(),
          sampling: newCostCounter(),
        },
        wallTimeMs: { warmup: 0, sampling: 0 },
        tuning: {},
        initialPosition: sgStart,
      }],
    };
  }
  return methodOutcome(result, {
    key: v.key,
    label: v.label,
    settings,
    charge: "sampling-gradient",
    thinAfter: stop === null ? thin : 1,
  });
}

/** The SG run `r` at ε: R kept draws after the burn-in (SGLD: × its thinning). */
function _sgRun(env: _SgEnv, config: ComparisonConfig, r: _SgRunSpec, stepSize: number) {
  const v = config.sgVariants.find((x) => x.key === r.key)!;
  const thin = v.kind === "sgld" ? env.sizes.paperSteps : 1;
  return _sgSample(env, v, stepSize, {
    iterations: config.numSamples * thin,
    burnIn: config.sgBurnIn * thin,
    seed: r.seed,
  });
}

/**
 * The step-size grid of variant `v` at equal evaluation budget, the chosen ε
 * (smallest moment error against full-data HMC) marked.
 */
function _sgGrid(
  env: _SgEnv,
  v: SgVariant,
  config: ComparisonConfig,
  ref: PosteriorMoments,
  budget: number,
): GridRow[] {
  const { m, lambdaMax, paperSteps } = env.sizes;
  const values = v.kind === "sgld" ? config.sgldGrid.map((c) => c / lambdaMax) : config.sghmcGrid;
  const rows: GridRow[] = [];
  values.forEach((eps, i) => {
    const numSteps = v.kind === "sgld" ? 1 : Math.ceil(_TRAJECTORY / eps);
    const perIt = numSteps * m;
    const thin = v.kind === "sgld" ? paperSteps : 1;
    let iterations = Math.max(20 * thin, Math.round(budget / perIt));
    iterations = Math.ceil(iterations / thin) * thin;
    const burnIn = Math.max(10 * thin, Math.round(iterations / 4));
    const o = _sgSample(env, v, eps, {
      iterations,
      burnIn,
      seed: `${config.seed}/grid/${v.key}/${i}`,
    });
    const errors = o.unstable ? null : momentErrors(o.moments, ref);
    rows.push({
      variant: v.key,
      label: v.label,
      stepSize: eps,
      relative: v.kind === "sgld" ? eps * lambdaMax : NaN,
      numSteps,
      iterations,
      evaluations: o.evaluations,
      errors: errors !== null && Number.isFinite(errors.combined) ? errors : null,
      medianIf: o.unstable ? NaN : medianInefficiency(o),
      chosen: false,
    });
  });
  const k = chooseStepSize(
    rows.map((r) => ({ stepSize: r.stepSize, error: r.errors?.combined ?? Infinity })),
  );
  rows[k].chosen = true;
  return rows;
}

/** Arguments of the SG units. */
interface _SgUnitArgs {
  data: ComparisonData;
  modelOptions: GlmOptions;
  config: ComparisonConfig;
  sizes: _SgSizes;
}

/** Run `fn` with an SG environment rebuilt from the data (same values as the caller's). */
function _withSgEnv<T>(args: _SgUnitArgs, fn: (env: _SgEnv) => T): T {
  const { model, dispose } = modelFromComparisonData(args.data, args.modelOptions);
  try {
    const env = _sgEnv(model, args.sizes);
    try {
      return fn(env);
    } finally {
      env.dispose();
    }
  } finally {
    dispose();
  }
}

function _sgGridUnit(
  context: ExperimentContext,
  args: _SgUnitArgs & {
    key: string;
    reference: PosteriorMoments;
    budget: number;
    runs: _SgRunSpec[];
  },
): _SgGridOut {
  return _withSgEnv(args, (env) => {
    const v = args.config.sgVariants.find((x) => x.key === args.key)!;
    context.log(`step-size grid: ${v.label} …`);
    const t0 = performance.now();
    const rows = _sgGrid(env, v, args.config, args.reference, args.budget);
    const seconds = (performance.now() - t0) / 1000;
    const eps = rows.find((r) => r.chosen)!.stepSize;
    const runs = args.runs.map((r) => {
      context.log(`${r.stage} …`);
      const t1 = performance.now();
      const outcome = _sgRun(env, args.config, r, eps);
      return { outcome, seconds: (performance.now() - t1) / 1000 };
    });
    return { rows, seconds, runs };
  });
}

function _sgRunUnit(
  _context: ExperimentContext,
  args: _SgUnitArgs & { run: _SgRunSpec },
): _SgRunOut {
  return _withSgEnv(args, (env) => {
    const t0 = performance.now();
    const outcome = _sgRun(env, args.config, args.run, args.run.stepSize!);
    return { outcome, seconds: (performance.now() - t0) / 1000 };
  });
}

/**
 * The units of {@link runComparison} (an experiment that calls it lists
 * these in its `units`): the full-data HMC reference, and the HMC-ECS runs
 * one after another on one model. Both depend only on the data and θ* from
 * the subset, so they run at once.
 */
export const COMPARISON_UNITS: Readonly<Record<string, UnitFunction>> = {
  "comparison-reference": _referenceUnit,
  "comparison-ecs": _ecsUnit,
  "comparison-sg-grid": _sgGridUnit,
  "comparison-sg-run": _sgRunUnit,
};

/**
 * Run the whole comparison on one data set: θ* from HMC on a 1 % subset,
 * full-data HMC, perturbed and signed HMC-ECS, the SG step-size grids and the
 * SG methods.
 *
 * @param model The full-data GLM posterior.
 * @param options `config` (sizes and methods), `context` (logging),
 *   `modelOptions` (to rebuild the model on the subset).
 * @returns Every run and summary.
 */
export async function runComparison(
  model: GlmModel,
  options: {
    config: ComparisonConfig;
    context: ExperimentContext;
    modelOptions: GlmOptions;
    /**
     * The calling experiment's units: {@link COMPARISON_UNITS} and those of
     * `extraUnits` (default: COMPARISON_UNITS).
     */
    units?: Readonly<Record<string, UnitFunction>>;
    /** More units to run beside the reference and HMC-ECS runs (results in `extraResults`). */
    extraUnits?: readonly UnitRequest[];
    /** Expected CPU seconds of the reference and of one HMC-ECS run (scheduling order only). */
    weights?: { reference: number; ecs: number };
    /** The model's data as arrays, if the caller has them (default: copied from the model). */
    data?: ComparisonData;
  },
): Promise<ComparisonOutcome> {
  const { config, context } = options;
  const n = model.numRows, d = model.dim;
  const timings: { stage: string; seconds: number }[] = [];
  const timed = async <T>(stage: string, fn: () => T): Promise<T> => {
    await yieldToEventLoop();
    context.log(`${stage} …`);
    const t0 = performance.now();
    const cpu0 = threadCpuSeconds();
    const out = fn();
    const s = (performance.now() - t0) / 1000;
    const cpu1 = threadCpuSeconds();
    timings.push({ stage, seconds: s });
    context.log(
      `${stage}: ${s.toFixed(1)} s${
        cpu0 === null || cpu1 === null ? "" : ` (CPU ${(cpu1 - cpu0).toFixed(1)} s)`
      }`,
    );
    return out;
  };

  // 1. θ* from HMC on the subset (§6.5), shared start of every method.
  const subset = await timed(
    "HMC on the 1 % subset (θ*)",
    () => _subsetThetaStar(model, config, options.modelOptions),
  );
  const thetaStar0 = subset.thetaStar;

  // 2–3. Full-data HMC (M⁻¹ fixed at the Laplace covariance at the full-data
  //      MAP) and HMC-ECS, perturbed and signed (§6.3 tuning, θ* from the
  //      subset), with the further seeds' perturbed runs: each depends only on
  //      the data and θ*, so they run at once as units (in-process when the
  //      harness runs none; the same draws either way).
  const numSeeds = config.numSeeds ?? 1;
  const ecsRuns: _EcsRunSpec[] = [
    { variant: "perturbed", paperWarmup: false, seedTag: "" },
    { variant: "signed", paperWarmup: false, seedTag: "" },
    { variant: "perturbed", paperWarmup: true, seedTag: "" },
  ];
  for (let k = 1; k < numSeeds; k++) {
    ecsRuns.push({ variant: "perturbed", paperWarmup: false, seedTag: ` (seed ${k + 1})` });
  }
  const ecsStage = (r: _EcsRunSpec) =>
    `${r.variant} HMC-ECS${r.paperWarmup ? " (§6.3 warmup)" : ""}${r.seedTag}`;
  const weights = options.weights ?? { reference: 10, ecs: 3 };
  const extra = options.extraUnits ?? [];
  await yieldToEventLoop();
  const shared = {
    data: options.data ?? comparisonData(model.data),
    modelOptions: options.modelOptions,
    config,
  };
  const phase1 = await runUnits(context, options.units ?? COMPARISON_UNITS, [
    {
      unit: "comparison-reference",
      args: { ...shared, thetaStar0 },
      weight: weights.reference,
      label: "full-data HMC (reference)",
    },
    {
      unit: "comparison-ecs",
      args: { ...shared, thetaStar0, runs: ecsRuns },
      weight: weights.ecs * ecsRuns.length,
      label: `HMC-ECS (${ecsRuns.length} runs)`,
    },
    ...extra,
  ]);
  const referenceRun = phase1[0] as { outcome: MethodOutcome; seconds: number };
  timings.push({ stage: "full-data HMC (reference)", seconds: referenceRun.seconds });
  const reference = referenceRun.outcome;
  const ref = reference.moments;
  const ecsOut = phase1[1] as { outcome: MethodOutcome; seconds: number }[];
  for (let i = 0; i < 3; i++) {
    timings.push({ stage: ecsStage(ecsRuns[i]), seconds: ecsOut[i].seconds });
  }
  const [perturbed, signed, perturbedPaperWarmup] = ecsOut.map((o) => o.outcome);
  const extraResults = phase1.slice(2);
  const pTuning = perturbed.result.chains[0].tuning;
  const m = Number(pTuning.subsampleSize);
  const perIteration = perturbed.evaluationsSampling /
    (perturbed.result.numSamples * perturbed.result.numChains);
  const matchedSteps = Math.max(1, Math.round(perIteration / m));
  const paperSteps = Math.max(1, Math.round(_TRAJECTORY / Number(pTuning.stepSize)));

  // 4. SG set-up (§6.4): control variates and M = −∇²log π at θ* = the HMC
  //    posterior mean, not charged to the SG methods (as in the paper).
  const sgSizes: _SgSizes = {
    thetaStarSg: Float64Array.from(ref.mean),
    sgStart: thetaStar0,
    m,
    matchedSteps,
    paperSteps,
    lambdaMax: NaN,
    lambdaMin: NaN,
  };
  const env = _sgEnv(model, sgSizes);
  const cond = conditioning(env.cv.hessSum, env.priorHess, n);
  const lambdaMax = cond.lambdaMax;
  sgSizes.lambdaMax = lambdaMax;
  sgSizes.lambdaMin = cond.lambdaMin;
  const budget = (config.gridBudgetFraction ?? 1) * perturbed.evaluationsSampling;

  // The SG runs at their chosen ε: seed 1 (every variant, config order), then
  // the further seeds (the variants of `seedVariants`).
  const runSpecs: _SgRunSpec[] = [];
  for (let k = 0; k < numSeeds; k++) {
    for (const v of config.sgVariants) {
      if (k > 0 && config.seedVariants !== undefined && !config.seedVariants.includes(v.key)) {
        continue;
      }
      const source = v.stepSizeFrom ?? v.key;
      if (
        v.stepSize === undefined &&
        !config.sgVariants.some((g) =>
          g.key === source && g.stepSize === undefined && g.stepSizeFrom === undefined
        )
      ) {
        throw new RangeError(
          `variant ${v.key} takes its step size from ${v.stepSizeFrom}, which ran no grid`,
        );
      }
      runSpecs.push({
        key: v.key,
        seedIndex: k,
        seed: k === 0 ? `${config.seed}/sg/${v.key}` : `${config.seed}/sg/${v.key}/seed${k + 1}`,
        stage: k === 0 ? v.label : `${v.label} (seed ${k + 1})`,
        stepSize: v.stepSize,
        gridKey: v.stepSize === undefined ? source : undefined,
      });
    }
  }
  const gridVariants = config.sgVariants.filter((v) =>
    v.stepSizeFrom === undefined && v.stepSize === undefined
  );

  // 5. Step-size grids at equal evaluation budget; choose by the smallest
  //    moment error against full-data HMC. 6. The SG methods at their chosen
  //    ε, fresh seeds, R kept draws each. 7. Further seeds: perturbed HMC-ECS
  //    (above) and the SG methods again, new streams.
  const grid: GridRow[] = [];
  const chosenStepSize: Record<string, number> = {};
  const runOut = new Map<_SgRunSpec, { outcome: MethodOutcome; seconds: number }>();
  if (config.sgUnits === true) {
    // Each grid (with the runs at its chosen ε) and each run at a fixed ε in
    // its own unit, all at once (see `sgUnits`).
    env.dispose();
    await yieldToEventLoop();
    const sgShared = { ...shared, sizes: sgSizes };
    const cells = (rows: number) => rows * d * _SG_SECONDS_PER_CELL;
    const runRows = (r: _SgRunSpec) => {
      const v = config.sgVariants.find((x) => x.key === r.key)!;
      return (config.numSamples + config.sgBurnIn) * m *
        (v.kind === "sgld" ? paperSteps : _sgSteps(v, r.stepSize ?? 0.1, matchedSteps));
    };
    const requests: UnitRequest[] = [
      ...gridVariants.map((v) => {
        const runs = runSpecs.filter((r) => r.gridKey === v.key);
        const gridRows = (v.kind === "sgld" ? config.sgldGrid : config.sghmcGrid).length *
          budget * 1.25;
        return {
          unit: "comparison-sg-grid",
          args: { ...sgShared, key: v.key, reference: ref, budget, runs },
          weight: cells(gridRows + runs.reduce((s, r) => s + runRows(r), 0)),
          label: `SG step-size grid: ${v.label}, and its runs`,
        };
      }),
      ...runSpecs.filter((r) => r.gridKey === undefined).map((r) => ({
        unit: "comparison-sg-run",
        args: { ...sgShared, run: r },
        weight: cells(runRows(r)),
        label: r.stage,
      })),
    ];
    const results = await runUnits(context, options.units ?? COMPARISON_UNITS, requests);
    gridVariants.forEach((v, i) => {
      const g = results[i] as _SgGridOut;
      timings.push({ stage: `step-size grid: ${v.label}`, seconds: g.seconds });
      grid.push(...g.rows);
      chosenStepSize[v.key] = g.rows.find((r) => r.chosen)!.stepSize;
      runSpecs.filter((r) => r.gridKey === v.key).forEach((r, j) => runOut.set(r, g.runs[j]));
    });
    runSpecs.filter((r) => r.gridKey === undefined).forEach((r, j) =>
      runOut.set(r, results[gridVariants.length + j] as _SgRunOut)
    );
    for (let k = 0; k < numSeeds; k++) {
      if (k > 0) timings.push({ stage: ecsStage(ecsRuns[2 + k]), seconds: ecsOut[2 + k].seconds });
      for (const r of runSpecs.filter((x) => x.seedIndex === k)) {
        timings.push({ stage: r.stage, seconds: runOut.get(r)!.seconds });
      }
    }
  } else {
    try {
      for (const v of gridVariants) {
        const g = await timed(
          `step-size grid: ${v.label}`,
          () => _sgGrid(env, v, config, ref, budget),
        );
        grid.push(...g);
        chosenStepSize[v.key] = g.find((r) => r.chosen)!.stepSize;
      }
      for (let k = 0; k < numSeeds; k++) {
        if (k > 0) {
          timings.push({ stage: ecsStage(ecsRuns[2 + k]), seconds: ecsOut[2 + k].seconds });
        }
        for (const r of runSpecs.filter((x) => x.seedIndex === k)) {
          const eps = r.stepSize ?? chosenStepSize[r.gridKey!];
          const t0 = performance.now();
          const outcome = await timed(r.stage, () => _sgRun(env, config, r, eps));
          runOut.set(r, { outcome, seconds: (performance.now() - t0) / 1000 });
        }
      }
    } finally {
      env.dispose();
    }
  }
  const sg: MethodOutcome[] = runSpecs.filter((r) => r.seedIndex === 0).map((r) =>
    runOut.get(r)!.outcome
  );
  const seedRct: Record<string, number[]> = {};
  const seedRctPaper: Record<string, number[]> = {};
  config.sgVariants.forEach((v, i) => {
    seedRct[v.key] = [medianRct(sg[i], perturbed)];
    seedRctPaper[v.key] = [medianRctPaper(sg[i], perturbed)];
  });
  for (let k = 1; k < numSeeds; k++) {
    const pk = ecsOut[2 + k].outcome;
    for (const r of runSpecs.filter((x) => x.seedIndex === k)) {
      seedRct[r.key].push(medianRct(runOut.get(r)!.outcome, pk));
      seedRctPaper[r.key].push(medianRctPaper(runOut.get(r)!.outcome, pk));
    }
  }

  return {
    thetaStar0,
    subsetRows: subset.rows,
    reference,
    perturbed,
    signed,
    perturbedPaperWarmup,
    sg,
    ecsSummary: {
      perturbed: ecsSummary(perturbed, n),
      signed: ecsSummary(signed, n),
      reference: ecsSummary(reference, n),
    },
    grid,
    chosenStepSize,
    sgBatchSize: m,
    matchedSteps,
    lambdaMax,
    conditioning: cond,
    paperSteps,
    timings,
    seedRct,
    seedRctPaper,
    extraResults,
  };
}
