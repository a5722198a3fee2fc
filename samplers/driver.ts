/**
 * The run driver every sampler uses: warmup and sampling for several chains,
 * draws in Float64Arrays, per-iteration info, cost counters and wall times.
 *
 * A sampler plugs in through a {@link SamplerDescription}: `init`, a kernel
 * `step`, `position`, and optional warmup-only `adapt` hooks. The driver
 * owns nothing sampler-specific: it records every numeric or boolean field of
 * the info objects a sampler returns (HMC's `acceptanceRate`, `energyError`,
 * …; HMC-ECS's extra fields), and attributes cost the papers' way by reading
 * the model's {@link CostCounter} before and after each phase of each chain.
 * Chains run one after another in this thread, so counters of a shared model
 * are attributable to the chain and phase that incurred them.
 *
 * Chain c draws all its randomness from `new Rng(seed).stream(c)`: the same
 * seed gives bit-identical draws.
 *
 * References: Stan Reference Manual, "MCMC sampling" (warmup, thinning);
 * Dang et al. (2019), §6.1 (cost as per-row likelihood and gradient evaluations).
 *
 * @module
 */
import type { CostCounter, Model } from "../models/model.ts";
import { Rng } from "../random/rng.ts";

/** The two phases of a run. */
export type Phase = "warmup" | "sampling";

/** What a kernel step returns. */
export interface StepResult<S, I> {
  /** The next state. */
  state: S;
  /** Diagnostics of the step; its numeric and boolean fields are recorded. */
  info: I;
}

/** What the warmup `adapt.update` hook receives besides the state. */
export interface AdaptContext<I> {
  /** Info of the step just made. */
  info: I;
  /** 0-based warmup iteration of that step. */
  iteration: number;
  /** Total number of warmup iterations. */
  numWarmup: number;
  /** The chain's generator (the same stream the kernel uses). */
  rng: Rng;
  /** Chain index. */
  chain: number;
}

/** What the warmup `adapt.finish` hook receives besides the state. */
export interface WarmupEndContext {
  /** Total number of warmup iterations. */
  numWarmup: number;
  /** The chain's generator. */
  rng: Rng;
  /** Chain index. */
  chain: number;
}

/** Warmup-only hooks: adaptation never runs during sampling. */
export interface WarmupAdaptation<S, I> {
  /**
   * Called after every warmup step; returns the state with updated tuning
   * (step size, metric, …).
   */
  update(state: S, context: AdaptContext<I>): S;
  /** Called once after the last warmup step; returns the state to sample with. */
  finish?(state: S, context: WarmupEndContext): S;
}

/**
 * A sampler as the driver sees it. The description itself holds no per-chain
 * state: whatever changes (position, tuning, subsample, …) lives in `S`.
 */
export interface SamplerDescription<S, I extends object = object> {
  /**
   * The initial state at `position` (may evaluate the model; counted as warmup).
   *
   * @param position θ₀ (length d; do not keep a reference).
   * @param rng The chain's generator.
   */
  init(position: Float64Array, rng: Rng): S;
  /**
   * One kernel step.
   *
   * @param state The current state.
   * @param rng The chain's generator.
   * @param phase `"warmup"` or `"sampling"`.
   * @param iteration 0-based iteration within the phase.
   */
  step(state: S, rng: Rng, phase: Phase, iteration: number): StepResult<S, I>;
  /**
   * The parameter vector θ of a state (read, not kept).
   *
   * @param state A state.
   */
  position(state: S): Float64Array;
  /** Warmup adaptation hooks. */
  adapt?: WarmupAdaptation<S, I>;
  /**
   * The tuning to report for a chain after warmup (e.g. step size, metric).
   *
   * @param state The state after warmup.
   */
  tuning?(state: S): Record<string, unknown>;
}

/** Options of {@link sampleChains}. */
export interface SampleChainsOptions<S, I extends object> {
  /** The sampler. */
  sampler: SamplerDescription<S, I>;
  /** The model (only `dim`, `parameterNames` and `cost` are read). */
  model: Pick<Model, "dim" | "cost"> & { readonly parameterNames?: readonly string[] };
  /** Seed of the run; chain c uses `new Rng(seed).stream(c)`. */
  seed: number | string;
  /** Warmup iterations per chain (default 1000). */
  numWarmup?: number;
  /** Sampling iterations per chain (default 1000). */
  numSamples?: number;
  /** Number of chains (default 4). */
  numChains?: number;
  /** Keep every `thin`-th sampling iteration (default 1). */
  thin?: number;
  /** One initial position per chain (copied). */
  initialPositions?: readonly Float64Array[];
  /** A common initial position (default zeros) to which `jitter` is added. */
  initialPosition?: Float64Array;
  /** Add Uniform(−jitter, jitter) noise to each coordinate of `initialPosition` (default 0). */
  jitter?: number;
  /** Record per-iteration warmup info (default true). */
  recordWarmupInfo?: boolean;
  /**
   * Called after every iteration.
   *
   * @param chain The chain index.
   * @param iteration Iterations completed in this chain (warmup + sampling).
   * @param total numWarmup + numSamples.
   */
  onProgress?: (chain: number, iteration: number, total: number) => void;
}

/** Per-iteration info of one phase: field name → one value per iteration (booleans as 0/1). */
export type InfoTable = Record<string, Float64Array>;

/** Cost per phase. */
export interface PhaseCost {
  /** Evaluations during `init`, warmup steps and warmup adaptation. */
  warmup: CostCounter;
  /** Evaluations during sampling. */
  sampling: CostCounter;
}

/** Output of one chain. */
export interface ChainOutput {
  /** The kept draws per parameter: `draws[param][k]`. */
  draws: Float64Array[];
  /** Per-iteration info per phase (warmup is empty if not recorded). */
  info: { warmup: InfoTable; sampling: InfoTable };
  /** Row evaluations attributed to each phase. */
  cost: PhaseCost;
  /** Wall time per phase in milliseconds (warmup includes `init`). */
  wallTimeMs: { warmup: number; sampling: number };
  /** The sampler's reported tuning after warmup (empty if it reports none). */
  tuning: Record<string, unknown>;
  /** The position the chain started from. */
  initialPosition: Float64Array;
}

/** Output of {@link sampleChains}. */
export interface SamplingResult {
  /** Names of the parameters. */
  parameterNames: string[];
  /** Number of chains. */
  numChains: number;
  /** Warmup iterations per chain. */
  numWarmup: number;
  /** Sampling iterations per chain. */
  numSamples: number;
  /** Thinning. */
  thin: number;
  /** Draws kept per chain: ⌈numSamples / thin⌉. */
  numDraws: number;
  /** `draws[chain][param]`: the kept draws (the same arrays as in `chains`). */
  draws: Float64Array[][];
  /** Everything per chain. */
  chains: ChainOutput[];
}

/**
 * Run warmup and sampling for several chains.
 *
 * Per chain c: draw the initial position (jitter from the chain's stream),
 * `init`, `numWarmup` × (`step` then `adapt.update`), `adapt.finish`, then
 * `numSamples` × `step`, keeping every `thin`-th position. Cost counters are
 * read from `model.cost` around each phase.
 *
 * @param options The sampler, model, seed, sizes, initial positions, thinning and progress callback.
 * @returns Draws, info, costs, wall times and tuning per chain.
 * @throws {RangeError} On bad sizes, a bad seed or initial positions of the wrong length.
 *
 * @example
 * ```ts
 * import { sampleChains, type SamplerDescription } from "./driver.ts";
 * import { newCostCounter } from "../models/model.ts";
 * // An independence sampler from N(0, 1) as a toy description.
 * const toy: SamplerDescription<Float64Array, { z: number }> = {
 *   init: (p) => Float64Array.from(p),
 *   step: (_s, rng) => { const z = rng.normal(); return { state: new Float64Array([z]), info: { z } }; },
 *   position: (s) => s,
 * };
 * const r = sampleChains({ sampler: toy, model: { dim: 1, cost: newCostCounter() }, seed: 1,
 *   numWarmup: 10, numSamples: 100, numChains: 2 });
 * if (r.draws[1][0].length !== 100 || r.chains[0].info.sampling.z.length !== 100) throw new Error();
 * ```
 *
 * References: Stan Reference Manual, "MCMC sampling"; Dang et al. (2019), §6.1.
 */
export function sampleChains<S, I extends object>(
  options: SampleChainsOptions<S, I>,
): SamplingResult {
  const { sampler, model } = options;
  const numWarmup = options.numWarmup ?? 1000;
  const numSamples = options.numSamples ?? 1000;
  const numChains = options.numChains ?? 4;
  const thin = options.thin ?? 1;
  const jitter = options.jitter ?? 0;
  if (!Number.isInteger(numWarmup) || numWarmup < 0) {
    throw new RangeError(`numWarmup must be a non-negative integer, got ${numWarmup}`);
  }
  if (!Number.isInteger(numSamples) || numSamples < 1) {
    throw new RangeError(`numSamples must be a positive integer, got ${numSamples}`);
  }
  if (!Number.isInteger(numChains) || numChains < 1) {
    throw new RangeError(`numChains must be a positive integer, got ${numChains}`);
  }
  if (!Number.isInteger(thin) || thin < 1) {
    throw new RangeError(`thin must be a positive integer, got ${thin}`);
  }
  if (!(jitter >= 0) || !Number.isFinite(jitter)) {
    throw new RangeError(`jitter must be non-negative and finite, got ${jitter}`);
  }
  const dim = model.dim;
  if (!Number.isInteger(dim) || dim < 1) {
    throw new RangeError(`model.dim must be a positive integer, got ${dim}`);
  }
  if (options.initialPositions !== undefined) {
    if (options.initialPositions.length !== numChains) {
      throw new RangeError(
        `initialPositions must have one position per chain (${numChains}), got ${options.initialPositions.length}`,
      );
    }
    options.initialPositions.forEach((p, c) => _checkPosition(p, dim, `initialPositions[${c}]`));
  }
  if (options.initialPosition !== undefined) {
    _checkPosition(options.initialPosition, dim, "initialPosition");
  }
  const base = new Rng(options.seed);
  const names = model.parameterNames !== undefined
    ? Array.from(model.parameterNames)
    : Array.from({ length: dim }, (_, i) => `theta[${i}]`);
  const numDraws = Math.ceil(numSamples / thin);
  const total = numWarmup + numSamples;
  const recordWarmup = options.recordWarmupInfo ?? true;
  const chains: ChainOutput[] = [];

  for (let chain = 0; chain < numChains; chain++) {
    const rng = base.stream(chain);
    const start = options.initialPositions !== undefined
      ? Float64Array.from(options.initialPositions[chain])
      : Float64Array.from(options.initialPosition ?? new Float64Array(dim));
    if (jitter > 0 && options.initialPositions === undefined) {
      for (let k = 0; k < dim; k++) start[k] += jitter * (2 * rng.uniform() - 1);
    }
    const cost0 = _snapshot(model.cost);
    const t0 = performance.now();
    let state = sampler.init(start, rng);
    const warmupInfo = new _InfoRecorder(recordWarmup ? numWarmup : 0);
    for (let i = 0; i < numWarmup; i++) {
      const r = sampler.step(state, rng, "warmup", i);
      state = r.state;
      if (recordWarmup) warmupInfo.record(i, r.info);
      if (sampler.adapt !== undefined) {
        state = sampler.adapt.update(state, { info: r.info, iteration: i, numWarmup, rng, chain });
      }
      options.onProgress?.(chain, i + 1, total);
    }
    if (sampler.adapt?.finish !== undefined) {
      state = sampler.adapt.finish(state, { numWarmup, rng, chain });
    }
    const cost1 = _snapshot(model.cost);
    const t1 = performance.now();
    const draws = Array.from({ length: dim }, () => new Float64Array(numDraws));
    const samplingInfo = new _InfoRecorder(numSamples);
    for (let i = 0, k = 0; i < numSamples; i++) {
      const r = sampler.step(state, rng, "sampling", i);
      state = r.state;
      samplingInfo.record(i, r.info);
      if (i % thin === 0) {
        const pos = sampler.position(state);
        if (pos.length !== dim) {
          throw new RangeError(`sampler position must have length ${dim}, got ${pos.length}`);
        }
        for (let j = 0; j < dim; j++) draws[j][k] = pos[j];
        k++;
      }
      options.onProgress?.(chain, numWarmup + i + 1, total);
    }
    const cost2 = _snapshot(model.cost);
    const t2 = performance.now();
    chains.push({
      draws,
      info: { warmup: warmupInfo.table, sampling: samplingInfo.table },
      cost: { warmup: _diff(cost1, cost0), sampling: _diff(cost2, cost1) },
      wallTimeMs: { warmup: t1 - t0, sampling: t2 - t1 },
      tuning: sampler.tuning?.(state) ?? {},
      initialPosition: start,
    });
  }
  return {
    parameterNames: names,
    numChains,
    numWarmup,
    numSamples,
    thin,
    numDraws,
    draws: chains.map((c) => c.draws),
    chains,
  };
}

/**
 * The draws of one parameter across chains, the shape diagnostics take
 * (`ArrayLike<number>[]`, one array per chain).
 *
 * @param result A run's result.
 * @param param Parameter index or name.
 * @returns One Float64Array per chain (not copies).
 *
 * @example
 * ```ts ignore
 * import { parameterDraws } from "./driver.ts";
 * const perChain = parameterDraws(result, "theta[0]");
 * ```
 *
 * References: Vehtari et al. (2021), "Rank-normalization, folding, and localization", §3.
 */
export function parameterDraws(result: SamplingResult, param: number | string): Float64Array[] {
  const j = typeof param === "number" ? param : result.parameterNames.indexOf(param);
  if (!Number.isInteger(j) || j < 0 || j >= result.parameterNames.length) {
    throw new RangeError(
      `param must be an index below ${result.parameterNames.length} or one of the parameter names, got ${
        JSON.stringify(param)
      }`,
    );
  }
  return result.draws.map((d) => d[j]);
}

/**
 * One recorded info field across chains.
 *
 * @param result A run's result.
 * @param options `field` (e.g. `"acceptanceRate"`) and `phase` (default `"sampling"`).
 * @returns One Float64Array per chain.
 * @throws {RangeError} If the field was not recorded.
 *
 * @example
 * ```ts ignore
 * import { infoAcrossChains } from "./driver.ts";
 * const acc = infoAcrossChains(result, { field: "acceptanceRate" });
 * ```
 *
 * References: Stan Reference Manual, "MCMC sampling" (sampler diagnostics).
 */
export function infoAcrossChains(
  result: SamplingResult,
  options: { field: string; phase?: Phase },
): Float64Array[] {
  const phase = options.phase ?? "sampling";
  return result.chains.map((c, i) => {
    const v = c.info[phase][options.field];
    if (v === undefined) {
      throw new RangeError(
        `info field ${
          JSON.stringify(options.field)
        } was not recorded in the ${phase} phase of chain ${i}; recorded: ${
          Object.keys(c.info[phase]).join(", ")
        }`,
      );
    }
    return v;
  });
}

/**
 * Total cost of a phase summed over chains.
 *
 * @param result A run's result.
 * @param phase `"warmup"` or `"sampling"`.
 * @returns The summed counters.
 *
 * @example
 * ```ts ignore
 * import { totalCost } from "./driver.ts";
 * const { numGradRows } = totalCost(result, "sampling");
 * ```
 *
 * References: Dang et al. (2019), eq. (2) (CT = IF × evaluations).
 */
export function totalCost(result: SamplingResult, phase: Phase): CostCounter {
  let numLogLikRows = 0, numGradRows = 0;
  for (const c of result.chains) {
    numLogLikRows += c.cost[phase].numLogLikRows;
    numGradRows += c.cost[phase].numGradRows;
  }
  return { numLogLikRows, numGradRows };
}

function _checkPosition(p: Float64Array, dim: number, what: string): void {
  if (!(p instanceof Float64Array)) {
    throw new TypeError(`${what} must be a Float64Array, got ${Object.prototype.toString.call(p)}`);
  }
  if (p.length !== dim) throw new RangeError(`${what} must have length ${dim}, got ${p.length}`);
  for (let k = 0; k < dim; k++) {
    if (!Number.isFinite(p[k])) {
      throw new RangeError(`${what} must be finite, got ${p[k]} at index ${k}`);
    }
  }
}

function _snapshot(c: CostCounter): CostCounter {
  return { numLogLikRows: c.numLogLikRows, numGradRows: c.numGradRows };
}

function _diff(a: CostCounter, b: CostCounter): CostCounter {
  return {
    numLogLikRows: a.numLogLikRows - b.numLogLikRows,
    numGradRows: a.numGradRows - b.numGradRows,
  };
}

/** Records the numeric and boolean fields of info objects, one slot per iteration. */
class _InfoRecorder {
  readonly table: InfoTable = {};
  readonly #length: number;
  constructor(length: number) {
    this.#length = length;
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
