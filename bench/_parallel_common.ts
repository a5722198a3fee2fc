/**
 * Shared pieces of the parallel benchmarks: the plain two-thread CPU loop
 * reference and a timed chain run.
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { higgsShaped } from "../data/synthetic.ts";
import { essBulk } from "../diagnostics/ess.ts";
import { GlmModel } from "../models/glm.ts";
import { type ParallelSamplingResult, sampleParallel } from "../samplers/parallel.ts";

/**
 * Seconds to run `units` × `iterations` of the spin loop on `threads` workers
 * (units split evenly).
 */
export async function spinSeconds(
  threads: number,
  units: number,
  iterations: number,
): Promise<number> {
  const workers = Array.from(
    { length: threads },
    () => new Worker(new URL("./_spin_worker.ts", import.meta.url), { type: "module" }),
  );
  try {
    // Warm the workers up (module load, JIT) before timing.
    await Promise.all(workers.map((w) => _ask(w, 1000)));
    const t0 = performance.now();
    await Promise.all(workers.map(async (w, k) => {
      for (let u = k; u < units; u += threads) await _ask(w, iterations);
    }));
    return (performance.now() - t0) / 1000;
  } finally {
    for (const w of workers) w.terminate();
  }
}

function _ask(w: Worker, iterations: number): Promise<number> {
  return new Promise((resolve) => {
    w.onmessage = (e: MessageEvent<number>) => resolve(e.data);
    w.postMessage(iterations);
  });
}

/** The logistic n × 30 HIGGS-shaped model over a shared memory. */
export function sharedLogistic(n: number): GlmModel {
  const arena = loadCore({ shared: true });
  const { data } = higgsShaped(arena, { n, seed: 1 });
  return new GlmModel(data, { family: "logistic" });
}

/** One timed run and its figures. */
export interface TimedRun {
  result: ParallelSamplingResult;
  seconds: number;
  /** Gradient evaluations (full passes, Hessian passes included) per chain, mean over chains. */
  warmupGradients: number;
  samplingGradients: number;
  minBulkEss: number;
}

/** Run full-data HMC with `workers` workers and time it. */
export async function timedHmc(
  model: GlmModel,
  options: Record<string, unknown> & { workers: number },
): Promise<TimedRun> {
  const t0 = performance.now();
  const result = await sampleParallel(model, { sampler: "hmc", seed: 1, ...options });
  const seconds = (performance.now() - t0) / 1000;
  const n = model.numRows, C = result.numChains;
  const warmupGradients = result.chains.reduce((s, c) => s + c.cost.warmup.numGradRows, 0) / n / C;
  const samplingGradients = result.chains.reduce((s, c) => s + c.cost.sampling.numGradRows, 0) /
    n / C;
  let minBulkEss = Infinity;
  for (let j = 0; j < model.dim; j++) {
    minBulkEss = Math.min(minBulkEss, essBulk(result.draws.map((d) => d[j])));
  }
  return { result, seconds, warmupGradients, samplingGradients, minBulkEss };
}
