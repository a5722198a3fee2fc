/**
 * The run driver every sampler uses: warmup and sampling for several chains,
 * draws in Float64Arrays, per-iteration info, divergence counts, cost
 * counters and wall times.
 *
 * A sampler plugs in as a {@link ChainSampler} (see `sampler.ts`): `init`, a
 * `step`, `position`, optional warmup-only `adapt` hooks and `dispose`. The
 * driver owns nothing sampler-specific: it records every numeric or boolean
 * field of the info objects a sampler returns (HMC's `acceptanceRate`,
 * `energyError`, …), counts `isDivergent` per chain and phase (Stan's
 * "divergent transitions"), and attributes cost the papers' way by reading the
 * model's {@link CostCounter} before and after each phase of each chain.
 * Chains run one after another in this thread, so counters of a shared model
 * are attributable to the chain and phase that incurred them.
 *
 * Chain c draws all its randomness from `new Rng(seed).stream(c)`, so chain c
 * of a 4-chain run equals chain c run alone (`chainIds: [c]`).
 *
 * How a chain ends early (its {@link ChainStop}; the draws before it are kept,
 * never a NaN, and `dispose` runs however the chain ends):
 *
 * - `"non-finite"`: a step returned a state whose position is not finite;
 * - `"sampler"`: the sampler asked to stop (`StepResult.stop`, e.g. an SG
 *   sampler whose dynamics diverged at its step size);
 * - `"error"`: a step or warmup hook threw. The exception is kept in the stop
 *   (`error`) rather than rethrown, so a failure late in a long run does not
 *   lose the draws made; callers that want it thrown use
 *   {@link throwIfStopped}. Errors thrown by `init` (before any draw) are
 *   rethrown.
 *
 * A divergence that the sampler recovers from (HMC's rejected divergent
 * trajectory) does not stop the chain: it is counted in `numDivergent`.
 *
 * One chain's loop (start, warmup, sampling, stops, info and cost records)
 * is in chain_run.ts; the memory a run may take, checked before it starts,
 * in run_memory.ts.
 *
 * References: Stan Reference Manual, "MCMC sampling" (warmup, thinning,
 * divergent transitions); Dang et al. (2019), §6.1 (cost as per-row
 * likelihood and gradient evaluations).
 *
 * @module
 */
import type { CostCounter, Model } from "../models/model.ts";
import { Rng } from "../random/rng.ts";
import { runChain } from "./chain_run.ts";
import { checkRunMemory } from "./run_memory.ts";
import type { ChainSampler, Phase, StepInfo } from "./sampler.ts";
import { nonNegativeFinite, nonNegativeInteger, positiveInteger } from "./validate_options.ts";

/** Options of {@link sampleChains}. */
export interface SampleChainsOptions<S, I extends StepInfo> {
  /** The chain sampler (one per run; see {@link ChainSampler}). */
  sampler: ChainSampler<S, I>;
  /** The model (only `dim`, `parameterNames` and `cost` are read). */
  model: Pick<Model, "dim" | "cost"> & { readonly parameterNames?: readonly string[] };
  /** Seed of the run; chain c uses `new Rng(seed).stream(c)`. */
  seed: number | string;
  /** Warmup iterations per chain (default 1000). */
  numWarmup?: number;
  /** Sampling iterations per chain (default 1000). */
  numSamples?: number;
  /** Number of chains, ids 0 … numChains − 1 (default 4; ignored when `chainIds` is given). */
  numChains?: number;
  /**
   * Run exactly these chain ids (distinct non-negative integers), e.g. `[2]`
   * to rerun chain 2 of a 4-chain run alone: its draws are bit-identical.
   */
  chainIds?: readonly number[];
  /** Keep every `thin`-th sampling iteration (default 1). */
  thin?: number;
  /** One initial position per chain run (copied), in the order of the chains. */
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
   * @param chain The chain id.
   * @param iteration Iterations completed in this chain (warmup + sampling).
   * @param total numWarmup + numSamples.
   */
  onProgress?: (chain: number, iteration: number, total: number) => void;
  /**
   * Called with every kept draw as it is made (to stream draws to a file).
   *
   * @param chain The chain id.
   * @param draw 0-based index of the kept draw in its chain.
   * @param position θ (read it now; the array may be reused).
   * @param info The info of the step that made the draw.
   */
  onDraw?: (chain: number, draw: number, position: Float64Array, info: StepInfo) => void;
}

/**
 * The driver's options without the sampler and model: what every typed
 * runner (`runHmc`, `runHmcEcs`, …) and {@link import("./sample.ts").sample}
 * accept besides their sampler's own options.
 */
export type RunOptions = Omit<SampleChainsOptions<unknown, StepInfo>, "sampler" | "model">;

/** Per-iteration info of one phase: field name → one value per iteration (booleans as 0/1). */
export type InfoTable = Record<string, Float64Array>;

/** Cost per phase. */
export interface PhaseCost {
  /** Evaluations during `init`, warmup steps and warmup adaptation. */
  warmup: CostCounter;
  /** Evaluations during sampling. */
  sampling: CostCounter;
}

/** Why and where a chain ended before its last iteration. */
export interface ChainStop {
  /** `"non-finite"` position, the `"sampler"` asked to stop, or a step threw (`"error"`). */
  kind: "non-finite" | "sampler" | "error";
  /** Phase of the step that stopped the chain. */
  phase: Phase;
  /** 0-based iteration of that step within its phase (its draw is not kept). */
  iteration: number;
  /** A sentence saying why. */
  reason: string;
  /** The exception, for `kind: "error"`. */
  error?: unknown;
}

/** Output of one chain. */
export interface ChainOutput {
  /** The chain id (its random stream). */
  chainId: number;
  /** The kept draws per parameter: `draws[param][k]`, k < `numDraws`. */
  draws: Float64Array[];
  /** Draws kept (fewer than planned if the chain stopped early). */
  numDraws: number;
  /** Per-iteration info per phase, one entry per iteration made (warmup empty if not recorded). */
  info: { warmup: InfoTable; sampling: InfoTable };
  /** Steps whose info had `isDivergent` set, per phase (Stan counts the sampling ones). */
  numDivergent: { warmup: number; sampling: number };
  /** Why the chain ended early, or null if it ran to the end. */
  stop: ChainStop | null;
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
  /** Number of chains run. */
  numChains: number;
  /** Warmup iterations per chain. */
  numWarmup: number;
  /** Sampling iterations per chain. */
  numSamples: number;
  /** Thinning. */
  thin: number;
  /** Draws planned per chain, ⌈numSamples / thin⌉; a stopped chain holds `chains[c].numDraws`. */
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
 * `numSamples` × `step`, keeping every `thin`-th position; `dispose` at the
 * end. A chain may end early (see the module notes and {@link ChainStop}).
 *
 * @param options The sampler, model, seed, sizes, chain ids, initial positions, thinning and callbacks.
 * @returns Draws, info, divergence counts, stops, costs, wall times and tuning per chain.
 * @throws {RangeError} On bad sizes, a bad seed or initial positions of the wrong length;
 *   rethrows an error from a chain's `init`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sampleChains } from "./driver.ts";
 * import type { ChainSampler } from "./sampler.ts";
 * import { newCostCounter } from "../models/model.ts";
 * // An independence sampler from N(0, 1) as a toy chain sampler.
 * const toy: ChainSampler<Float64Array, { z: number; isDivergent: boolean }> = {
 *   init: (p) => Float64Array.from(p),
 *   step: (rng) => {
 *     const z = rng.normal();
 *     return { state: new Float64Array([z]), info: { z, isDivergent: z > 3 } };
 *   },
 *   position: (s) => s,
 * };
 * const r = sampleChains({ sampler: toy, model: { dim: 1, cost: newCostCounter() }, seed: 1,
 *   numWarmup: 10, numSamples: 100, numChains: 2 });
 * assert.equal(r.draws[1][0].length, 100);
 * assert.equal(r.chains[0].info.sampling.z.length, 100);
 * const alone = sampleChains({ sampler: toy, model: { dim: 1, cost: newCostCounter() }, seed: 1,
 *   numWarmup: 10, numSamples: 100, chainIds: [1] });
 * assert.deepEqual(alone.draws[0][0], r.draws[1][0]);
 * ```
 *
 * References: Stan Reference Manual, "MCMC sampling"; Dang et al. (2019), §6.1.
 */
export function sampleChains<S, I extends StepInfo>(
  options: SampleChainsOptions<S, I>,
): SamplingResult {
  const { sampler, model } = options;
  const numWarmup = options.numWarmup ?? 1000;
  const numSamples = options.numSamples ?? 1000;
  const thin = options.thin ?? 1;
  const jitter = options.jitter ?? 0;
  nonNegativeInteger("numWarmup", numWarmup);
  positiveInteger("numSamples", numSamples);
  const chainIds = _chainIds(options);
  const numChains = chainIds.length;
  positiveInteger("thin", thin);
  nonNegativeFinite("jitter", jitter);
  const dim = model.dim;
  positiveInteger("model.dim", dim);
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
  checkRunMemory({ numChains, numWarmup, numSamples, thin, dim }, "sampleChains");
  const base = new Rng(options.seed);
  const names = model.parameterNames !== undefined
    ? Array.from(model.parameterNames)
    : Array.from({ length: dim }, (_, i) => `theta[${i}]`);
  const numDraws = Math.ceil(numSamples / thin);
  const chains = chainIds.map((chainId, c) =>
    runChain(sampler, options, {
      chainId,
      rng: base.stream(chainId),
      start: options.initialPositions?.[c],
      numWarmup,
      numSamples,
      numDraws,
      thin,
      jitter,
      dim,
    })
  );
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
 * Throw if any chain of a run stopped early: rethrow a chain's exception
 * (`kind: "error"`), or a RangeError naming the chain, phase, iteration and
 * reason. For callers (tests, scripts) that want a failed run to fail loudly.
 *
 * @param result A run's result.
 * @returns Nothing.
 * @throws The first stopped chain's error, or a RangeError describing its stop.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sampleChains, throwIfStopped } from "./driver.ts";
 * import { newCostCounter } from "../models/model.ts";
 * const r = sampleChains({
 *   sampler: {
 *     init: (p: Float64Array) => p,
 *     step: (_rng, s: Float64Array) => ({ state: s, info: { isDivergent: true }, stop: "boom" }),
 *     position: (s: Float64Array) => s,
 *   },
 *   model: { dim: 1, cost: newCostCounter() }, seed: 1, numWarmup: 0, numSamples: 5, numChains: 1,
 * });
 * assert.equal(r.chains[0].numDraws, 0);
 * assert.throws(() => throwIfStopped(r), /chain 0 stopped at sampling iteration 0: boom/);
 * ```
 *
 * References: Stan Reference Manual, "MCMC sampling".
 */
export function throwIfStopped(result: SamplingResult): void {
  for (const c of result.chains) {
    const s = c.stop;
    if (s === null) continue;
    if (s.kind === "error") throw s.error;
    throw new RangeError(
      `chain ${c.chainId} stopped at ${s.phase} iteration ${s.iteration}: ${s.reason}`,
    );
  }
}

/**
 * The chain ids a run's options select: `chainIds` (checked: distinct
 * non-negative integers) or 0 … numChains − 1 (default 4 chains).
 *
 * @param options `numChains` and/or `chainIds`.
 * @returns The ids in run order.
 * @throws {RangeError} On an empty, repeated or negative id, or a bad `numChains`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chainIdsOf } from "./driver.ts";
 * assert.deepEqual(chainIdsOf({ numChains: 3 }), [0, 1, 2]);
 * assert.deepEqual(chainIdsOf({ chainIds: [2] }), [2]);
 * ```
 *
 * References: Stan Reference Manual, "MCMC sampling" (chains).
 */
export function chainIdsOf(
  options: { numChains?: number; chainIds?: readonly number[] },
): number[] {
  return _chainIds(options);
}

function _chainIds(options: { numChains?: number; chainIds?: readonly number[] }): number[] {
  if (options.chainIds !== undefined) {
    const ids = Array.from(options.chainIds);
    if (ids.length === 0) throw new RangeError("chainIds must not be empty");
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0) {
        throw new RangeError(`chainIds must be non-negative integers, got ${id}`);
      }
    }
    if (new Set(ids).size !== ids.length) {
      throw new RangeError(`chainIds must be distinct, got ${ids.join(", ")}`);
    }
    return ids;
  }
  const numChains = options.numChains ?? 4;
  positiveInteger("numChains", numChains);
  return Array.from({ length: numChains }, (_, c) => c);
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
  let numLogLikRows = 0, numGradRows = 0, numHessianRows = 0;
  for (const c of result.chains) {
    numLogLikRows += c.cost[phase].numLogLikRows;
    numGradRows += c.cost[phase].numGradRows;
    numHessianRows += c.cost[phase].numHessianRows;
  }
  return { numLogLikRows, numGradRows, numHessianRows };
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
