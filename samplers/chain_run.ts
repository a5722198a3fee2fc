/**
 * One chain of a run (see {@link import("./driver.ts").sampleChains}): its
 * start, `init`, the warmup steps with the `adapt` hooks, the sampling steps
 * with thinning, and how it ends early (a non-finite position, the sampler
 * asking to stop, or a step that threw: the draws before are kept and
 * `dispose` runs however it ends). Every numeric or boolean field of the
 * steps' info is recorded, `isDivergent` counted per phase, and cost and wall
 * time attributed to the phase that incurred them by reading the model's
 * counters before and after.
 *
 * References: Stan Reference Manual, "MCMC sampling"; Dang et al. (2019), §6.1.
 *
 * @module
 */
import type { CostCounter } from "../models/model.ts";
import type { Rng } from "../random/rng.ts";
import type { ChainOutput, ChainStop, InfoTable, SampleChainsOptions } from "./driver.ts";
import type { ChainSampler, Phase, StepInfo } from "./sampler.ts";

/** What one chain of a run is to do (its id, stream, start and sizes). */
export interface ChainPlan {
  /** The chain id. */
  chainId: number;
  /** The chain's generator (the run's `stream(chainId)`). */
  rng: Rng;
  /** The chain's own initial position, or undefined for the run's common one plus jitter. */
  start: Float64Array | undefined;
  /** Warmup iterations. */
  numWarmup: number;
  /** Sampling iterations. */
  numSamples: number;
  /** Draws to keep, ⌈numSamples / thin⌉. */
  numDraws: number;
  /** Thinning. */
  thin: number;
  /** Uniform(−jitter, jitter) noise added to a common initial position. */
  jitter: number;
  /** Parameters d. */
  dim: number;
}

/**
 * Run one chain: start (the plan's start, or the run's initial position plus
 * jitter from the chain's stream), `init`, warmup, sampling, `dispose`.
 *
 * @param sampler The chain sampler.
 * @param options The run's options this chain reads (model, start, callbacks).
 * @param plan The chain's id, generator, start and sizes.
 * @returns The chain's draws, info, divergences, stop, cost, wall times and tuning.
 * @throws Rethrows an error from `init`.
 */
export function runChain<S, I extends StepInfo>(
  sampler: ChainSampler<S, I>,
  options: Pick<
    SampleChainsOptions<S, I>,
    "model" | "initialPosition" | "recordWarmupInfo" | "onProgress" | "onDraw"
  >,
  plan: ChainPlan,
): ChainOutput {
  const { chainId: chain, rng, numWarmup, numSamples, dim } = plan;
  const { model } = options;
  const start = plan.start !== undefined
    ? Float64Array.from(plan.start)
    : Float64Array.from(options.initialPosition ?? new Float64Array(dim));
  if (plan.jitter > 0 && plan.start === undefined) {
    for (let k = 0; k < dim; k++) start[k] += plan.jitter * (2 * rng.uniform() - 1);
  }
  const recordWarmup = options.recordWarmupInfo ?? true;
  let tuning: Record<string, unknown> = {};
  const cost0 = _snapshot(model.cost);
  const t0 = performance.now();
  let cost1 = cost0, t1 = t0;
  const run = new _Run(sampler, options, plan, recordWarmup, sampler.init(start, rng));
  let phase: Phase = "warmup", iteration = 0;
  try {
    for (; iteration < numWarmup; iteration++) {
      if (!run.warmupStep(iteration)) break;
    }
    if (run.stop === null && sampler.adapt?.finish !== undefined) {
      run.state = sampler.adapt.finish(run.state, { numWarmup, rng, chain });
    }
    cost1 = _snapshot(model.cost);
    t1 = performance.now();
    if (run.stop === null) {
      tuning = sampler.tuning?.(run.state) ?? {};
      phase = "sampling";
      iteration = 0;
    }
    for (; phase === "sampling" && iteration < numSamples; iteration++) {
      if (!run.samplingStep(iteration)) break;
    }
  } catch (error) {
    run.stop = {
      kind: "error",
      phase,
      iteration,
      reason: error instanceof Error ? error.message : String(error),
      error,
    };
  } finally {
    sampler.dispose?.(run.state);
  }
  if (phase === "warmup") {
    cost1 = _snapshot(model.cost);
    t1 = performance.now();
  }
  const cost2 = _snapshot(model.cost);
  const t2 = performance.now();
  const { stop, kept, draws } = run;
  // Info of the stopping step is kept (it says why); its draw is not.
  const warmupLen = recordWarmup
    ? Math.min(numWarmup, run.warmupDone + (phase === "warmup" ? 1 : 0))
    : 0;
  const samplingLen = phase === "sampling"
    ? Math.min(numSamples, run.samplingDone + (stop ? 1 : 0))
    : 0;
  return {
    chainId: chain,
    draws: kept === plan.numDraws ? draws : draws.map((d) => d.slice(0, kept)),
    numDraws: kept,
    info: {
      warmup: run.warmupInfo.truncate(warmupLen),
      sampling: run.samplingInfo.truncate(samplingLen),
    },
    numDivergent: run.numDivergent,
    stop,
    cost: { warmup: _diff(cost1, cost0), sampling: _diff(cost2, cost1) },
    wallTimeMs: { warmup: t1 - t0, sampling: t2 - t1 },
    tuning,
    initialPosition: start,
  };
}

/**
 * A chain's iterations. Each is a call of {@link _Run.warmupStep} or
 * {@link _Run.samplingStep}, not the body of a loop in {@link runChain}: the
 * engine then optimises these two functions once per thread, for every chain
 * it runs, rather than compiling all of `runChain` with the whole step
 * inlined on stack replacement at each of its loops, and again when a later
 * chain or phase leaves that code.
 */
class _Run<S, I extends StepInfo> {
  readonly warmupInfo: _InfoRecorder;
  readonly samplingInfo: _InfoRecorder;
  readonly draws: Float64Array[];
  readonly numDivergent = { warmup: 0, sampling: 0 };
  stop: ChainStop | null = null;
  kept = 0;
  warmupDone = 0;
  samplingDone = 0;
  readonly #total: number;

  constructor(
    readonly sampler: ChainSampler<S, I>,
    readonly options: Pick<SampleChainsOptions<S, I>, "onProgress" | "onDraw">,
    readonly plan: ChainPlan,
    readonly recordWarmup: boolean,
    public state: S,
  ) {
    this.warmupInfo = new _InfoRecorder(recordWarmup ? plan.numWarmup : 0);
    this.samplingInfo = new _InfoRecorder(plan.numSamples);
    this.draws = Array.from({ length: plan.dim }, () => new Float64Array(plan.numDraws));
    this.#total = plan.numWarmup + plan.numSamples;
  }

  /** Warmup iteration `iteration`: step, record, adapt; false if the chain stopped. */
  warmupStep(iteration: number): boolean {
    const { sampler, plan } = this;
    const rng = plan.rng, chain = plan.chainId;
    const r = sampler.step(rng, this.state, "warmup", iteration);
    if (this.recordWarmup) this.warmupInfo.record(iteration, r.info);
    if (r.info.isDivergent) this.numDivergent.warmup++;
    this.stop = _check(sampler, plan.dim, "warmup", iteration, r);
    if (this.stop !== null) return false;
    this.state = r.state;
    if (sampler.adapt !== undefined) {
      this.state = sampler.adapt.update(this.state, {
        info: r.info,
        iteration,
        numWarmup: plan.numWarmup,
        rng,
        chain,
      });
    }
    this.warmupDone = iteration + 1;
    this.options.onProgress?.(chain, iteration + 1, this.#total);
    return true;
  }

  /** Sampling iteration `iteration`: step, record, keep the draw; false if the chain stopped. */
  samplingStep(iteration: number): boolean {
    const { sampler, plan } = this;
    const chain = plan.chainId, dim = plan.dim;
    const r = sampler.step(plan.rng, this.state, "sampling", iteration);
    this.samplingInfo.record(iteration, r.info);
    if (r.info.isDivergent) this.numDivergent.sampling++;
    this.stop = _check(sampler, dim, "sampling", iteration, r);
    if (this.stop !== null) return false;
    this.state = r.state;
    this.samplingDone = iteration + 1;
    if (iteration % plan.thin === 0) {
      const pos = sampler.position(this.state), draws = this.draws, kept = this.kept;
      for (let j = 0; j < dim; j++) draws[j][kept] = pos[j];
      this.options.onDraw?.(chain, kept, pos, r.info);
      this.kept = kept + 1;
    }
    this.options.onProgress?.(chain, plan.numWarmup + iteration + 1, this.#total);
    return true;
  }
}

/** A step's outcome: null if its position is usable, else the stop it caused. */
function _check<S, I extends StepInfo>(
  sampler: ChainSampler<S, I>,
  dim: number,
  phase: Phase,
  i: number,
  r: { state: S; stop?: string },
): ChainStop | null {
  if (r.stop !== undefined) return { kind: "sampler", phase, iteration: i, reason: r.stop };
  const pos = sampler.position(r.state);
  if (pos.length !== dim) {
    throw new RangeError(`sampler position must have length ${dim}, got ${pos.length}`);
  }
  for (let j = 0; j < dim; j++) {
    if (!Number.isFinite(pos[j])) {
      return {
        kind: "non-finite",
        phase,
        iteration: i,
        reason: `the position became non-finite (${pos[j]} in coordinate ${j})`,
      };
    }
  }
  return null;
}

function _snapshot(c: CostCounter): CostCounter {
  return {
    numLogLikRows: c.numLogLikRows,
    numGradRows: c.numGradRows,
    numHessianRows: c.numHessianRows,
  };
}

function _diff(a: CostCounter, b: CostCounter): CostCounter {
  return {
    numLogLikRows: a.numLogLikRows - b.numLogLikRows,
    numGradRows: a.numGradRows - b.numGradRows,
    numHessianRows: a.numHessianRows - b.numHessianRows,
  };
}

/** Records the numeric and boolean fields of info objects, one slot per iteration. */
class _InfoRecorder {
  readonly table: InfoTable = {};
  readonly #length: number;
  constructor(length: number) {
    this.#length = length;
  }
  /** The table cut to the first `length` iterations (the same arrays if complete). */
  truncate(length: number): InfoTable {
    if (length === this.#length) return this.table;
    const out: InfoTable = {};
    for (const key in this.table) out[key] = this.table[key].slice(0, length);
    return out;
  }
  record(i: number, info: object): void {
    const rec = info as Record<string, unknown>;
    for (const key in rec) {
      const v = rec[key];
      let x: number;
      if (typeof v === "number") x = v;
      else if (typeof v === "boolean") x = v ? 1 : 0;
      else continue;
      let arr = this.table[key];
      if (arr === undefined) {
        arr = new Float64Array(this.#length).fill(NaN);
        this.table[key] = arr;
      }
      arr[i] = x;
    }
  }
}
