/**
 * The HMC-ECS phases of bench/tall_data.ts: the full-data passes of a
 * centring on a streamed row store (`centre`), and one HMC-ECS chain on that
 * streamed model (`ecs`) or on the data loaded into wasm memory (`ecsmem`),
 * with warm-up pass-equivalents and the rows read per sampling iteration.
 *
 * @module
 */
import { higgsShaped } from "../data/synthetic.ts";
import { loadParquet } from "../data/parquet.ts";
import { loadCore } from "../core/load.ts";
import { ShardedGlmModel } from "../models/sharded_glm.ts";
import { GlmModel } from "../models/glm.ts";
import type { Model } from "../models/model.ts";
import { sample } from "../samplers/sample.ts";
import { measureHessianCostRatio, passEquivalents } from "../samplers/hmc_ecs/passes.ts";
import { type PeakMemory, type PhaseResult, runPhase } from "./phase_measure.ts";

/** Settings of the HMC-ECS phases (the same at every n). */
export interface EcsSettings {
  /** Warm-up iterations. */
  numWarmup: number;
  /** Sampling iterations. */
  numSamples: number;
  /** Seed. */
  seed: number;
}

/** The model options every HMC-ECS phase uses. */
const TALL_GLM = { family: "logistic", priorScale: 10 } as const;

/**
 * Phase `centre`: the full-data passes of HMC-ECS on the streamed row store.
 *
 * @param rows The row store.
 * @param n Rows (for the record).
 * @param mem Peak-memory bookkeeping.
 * @param workers Shard workers (default 2).
 * @returns Two measurements: `controlVariateSums` with B, and ℓ + ∇ℓ.
 */
export async function centringPhases(
  rows: string,
  n: number,
  mem: PeakMemory,
  workers = 2,
): Promise<PhaseResult[]> {
  const model = await ShardedGlmModel.create(rows, TALL_GLM, { workers, shardKind: "stream" });
  try {
    const d = model.dim, theta = new Float64Array(d).fill(0.01);
    const a = new Float64Array(d), b = new Float64Array(d * d);
    const cv = await runPhase(`centring S, A, B (stream, ${workers} w)`, n, mem, () => {
      const s = model.controlVariateSums(theta, a, b);
      return Promise.resolve({ note: `S ${s.toExponential(6)}` });
    });
    const g = await runPhase(`ℓ + ∇ℓ pass (stream, ${workers} w)`, n, mem, () => {
      const ll = model.logLikelihood(theta, a);
      return Promise.resolve({ note: `ℓ ${ll.toExponential(6)}` });
    });
    return [cv, g];
  } finally {
    model.close();
  }
}

/** What an HMC-ECS phase measured, beyond {@link PhaseResult}. */
export interface EcsResult extends PhaseResult {
  /** Warm-up wall seconds (includes the subset MAP and the centrings). */
  warmupSeconds: number;
  /** Warm-up ℓ + ∇ℓ rows in gradient passes, and Hessian rows in full-data passes. */
  warmupGradientPasses: number;
  /** Warm-up Hessian rows / n. */
  warmupHessianRowPasses: number;
  /** Warm-up pass-equivalents, Hessian rows weighted by `hessianCostRatio`. */
  warmupPasses: number;
  /** w used for {@link warmupPasses}. */
  hessianCostRatio: number;
  /** Sampling-phase wall milliseconds per iteration. */
  msPerIteration: number;
  /** Sampling-phase ℓ rows per iteration (the model's counter). */
  llRowsPerIteration: number;
  /** Sampling-phase rows read from the store per iteration (0 in memory). */
  readRowsPerIteration: number;
  /** Sampling-phase milliseconds per iteration spent in `readRows`. */
  readMsPerIteration: number;
  /** Subsample size m and number of blocks G after warm-up. */
  subsampleSize: number;
  /** Blocks. */
  numBlocks: number;
  /** Leapfrog steps L. */
  numIntegrationSteps: number;
}

/**
 * One HMC-ECS chain on `model`; `model.readRows`, if there, is wrapped to
 * count and time the rows read.
 *
 * @param label Phase label.
 * @param model The model (a ShardedGlmModel or a GlmModel).
 * @param n Rows.
 * @param mem Peak-memory bookkeeping.
 * @param settings Warm-up, sampling, seed.
 * @param hessianCostRatio w for the pass-equivalents.
 * @returns The measurement.
 */
export async function ecsPhase(
  label: string,
  model: Model,
  n: number,
  mem: PeakMemory,
  settings: EcsSettings,
  hessianCostRatio: number,
): Promise<EcsResult> {
  const reads = { rows: 0, ms: 0, phase: "warmup" as "warmup" | "sampling" };
  const m = model as unknown as {
    readRows?: (r: Int32Array, x: Float64Array, y: Float64Array) => void;
  };
  if (typeof m.readRows === "function") {
    const inner = m.readRows.bind(model);
    m.readRows = (r, x, y) => {
      const t = performance.now();
      inner(r, x, y);
      if (reads.phase === "sampling") {
        reads.ms += performance.now() - t;
        reads.rows += r.length;
      }
    };
  }
  let extra: Omit<EcsResult, keyof PhaseResult> | undefined;
  const base = await runPhase(label, n, mem, () => {
    const r = sample(model, {
      sampler: "hmc-ecs",
      numChains: 1,
      numWarmup: settings.numWarmup,
      numSamples: settings.numSamples,
      seed: settings.seed,
      onProgress: (_c, it) => {
        if (it === settings.numWarmup) reads.phase = "sampling";
      },
    });
    const c = r.chains[0];
    if (c.stop !== null) throw new Error(`${label}: the chain stopped: ${c.stop.reason}`);
    const p = passEquivalents(c.cost.warmup, { numRows: n, hessianCostRatio });
    const S = settings.numSamples, tu = c.tuning;
    extra = {
      warmupSeconds: c.wallTimeMs.warmup / 1000,
      warmupGradientPasses: p.gradientPasses,
      warmupHessianRowPasses: c.cost.warmup.numHessianRows / n,
      warmupPasses: p.total,
      hessianCostRatio,
      msPerIteration: c.wallTimeMs.sampling / S,
      llRowsPerIteration: c.cost.sampling.numLogLikRows / S,
      readRowsPerIteration: reads.rows / S,
      readMsPerIteration: reads.ms / S,
      subsampleSize: Number(tu.subsampleSize),
      numBlocks: Number(tu.numBlocks),
      numIntegrationSteps: Number(tu.numIntegrationSteps),
    };
    const e = extra;
    return Promise.resolve({
      rowsHandled: c.cost.warmup.numLogLikRows + c.cost.sampling.numLogLikRows,
      note: `warm-up ${e.warmupSeconds.toFixed(1)} s, ${e.warmupPasses.toFixed(2)} passes ` +
        `(${e.warmupGradientPasses.toFixed(2)} ∇ + ${e.warmupHessianRowPasses.toFixed(2)} H × w ${
          hessianCostRatio.toFixed(2)
        }); sampling ${e.msPerIteration.toFixed(2)} ms/it, ` +
        `${e.llRowsPerIteration.toFixed(0)} ℓ rows/it, ${
          e.readRowsPerIteration.toFixed(0)
        } rows read/it ` +
        `in ${
          e.readMsPerIteration.toFixed(2)
        } ms; m ${e.subsampleSize}, G ${e.numBlocks}, L ${e.numIntegrationSteps}`,
    });
  });
  return { ...base, ...extra! };
}

/**
 * Phase `ecs`: HMC-ECS on the row store streamed by a {@link ShardedGlmModel}.
 *
 * @param rows The row store.
 * @param n Rows.
 * @param mem Peak-memory bookkeeping.
 * @param settings Warm-up, sampling, seed.
 * @param hessianCostRatio w for the pass-equivalents.
 * @returns The measurement.
 */
export async function ecsStreamPhase(
  rows: string,
  n: number,
  mem: PeakMemory,
  settings: EcsSettings,
  hessianCostRatio: number,
): Promise<EcsResult> {
  const model = await ShardedGlmModel.create(rows, TALL_GLM, { workers: 2, shardKind: "stream" });
  try {
    return await ecsPhase("HMC-ECS out of core", model, n, mem, settings, hessianCostRatio);
  } finally {
    model.close();
  }
}

/**
 * Phase `ecsmem`: HMC-ECS on a {@link GlmModel} over the Parquet file loaded
 * into wasm memory (f32). The load is not timed.
 *
 * @param parquet The Parquet file.
 * @param n Rows.
 * @param mem Peak-memory bookkeeping.
 * @param settings Warm-up, sampling, seed.
 * @param hessianCostRatio w for the pass-equivalents.
 * @returns The measurement.
 */
export async function ecsMemoryPhase(
  parquet: string,
  n: number,
  mem: PeakMemory,
  settings: EcsSettings,
  hessianCostRatio: number,
): Promise<EcsResult> {
  const arena = loadCore();
  const data = await loadParquet(arena, parquet, {
    response: "y",
    family: "logistic",
    storage: "f32",
  });
  const model = new GlmModel(data, TALL_GLM);
  try {
    return await ecsPhase("HMC-ECS in memory", model, n, mem, settings, hessianCostRatio);
  } finally {
    model.dispose();
  }
}

/**
 * w = t(Hessian pass) / t(gradient pass), a per-row compute ratio measured
 * once on 2·10⁵ HIGGS-shaped rows in memory, for the pass-equivalents.
 *
 * @param seed The data's seed.
 * @returns w.
 */
export function smallHessianCostRatio(seed: string): number {
  const { data } = higgsShaped(loadCore(), { n: 200_000, seed, storage: "f32" });
  const model = new GlmModel(data, TALL_GLM);
  try {
    return measureHessianCostRatio(model, { repeats: 9 });
  } finally {
    model.dispose();
  }
}
