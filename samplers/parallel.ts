/**
 * Chains in Web Workers: {@link sampleParallel} runs the chains of a
 * registered sampler on a pool of workers, each with its own WebAssembly
 * instance over the ONE shared memory that holds the data.
 *
 * ```
 *  calling thread                                    worker k (one per core, ≤ numChains)
 *  model (GlmModel, data in a shared Memory)
 *    │ modelSpecOf → { memory, offsets, options } ──► attachCore(memory, region k)
 *    │ reserveRegion(arena) = region k                  modelFromSpec → build sampler
 *    │ next chain id ───────────────────────────────► sampleChains({ chainIds: [c] })
 *    ◄──────────────────────────────── ChainOutput ── (chain c from Rng(seed).stream(c))
 *  results in chain order = the sequential run's, bit for bit
 * ```
 *
 * The data are read in place by every worker; each worker allocates its
 * scratch (θ, gradients, subsample buffers) only in its own blocks of the
 * memory: one set aside by the owning arena before the workers start, and
 * more when the worker asks (a "grow" message; the worker waits until this
 * thread allocates the block in the owning arena and wakes it, see
 * `core/shared_region.ts`). So a sampler's scratch need not be known in
 * advance. Every block is freed when the run ends.
 *
 * `sampleParallel` is async (workers answer by messages); `workers: 0`, a
 * model that cannot be sent (see `modelSpecOf`: user closures, TypeScript
 * models, data in a non-shared memory) or options that cannot be cloned
 * (functions) run the synchronous {@link sample} in the calling thread and say
 * so in `parallel.note`.
 *
 * Progress: from a worker, `onProgress` is called for a chain's first
 * iteration, its last warm-up iteration, its last, and every 1/200 of its
 * iterations between (not after each one: a message costs more than an
 * HMC-ECS step); `onDraw` for every kept draw, in order, the worker sending
 * them in batches at most 10 ms apart (see ./chain_worker.ts).
 *
 * Workers: those started ahead by {@link prestartChainWorkers} or handed
 * over by another role ({@link adoptChainWorkers}: the shared centring's pass
 * workers, models/threaded_glm.ts `closeHandingOver`) are taken first, then
 * fresh ones are started. A handed-over worker that fails before it is ready
 * is replaced by a fresh one; any other worker's failure fails the run.
 *
 * Ramp: a run may start on fewer workers than it may use
 * (`initialWorkers`). Each new worker compiles the chain code afresh, and
 * its first chain runs slowly meanwhile while the engine's compiler threads
 * take a core; on a machine with few cores, two workers' first chains then
 * slow each other down, and a short run is over sooner on one worker. So
 * from 100 ms after the first chain is given, at every progress report and
 * every 100 ms, the run adds one worker (a prestarted one if any is left)
 * while chains wait for a worker and the iterations left, at the rate of
 * those done so far, need more than `rampSeconds` (default
 * {@link RAMP_SECONDS}); not while an added worker is still starting. The
 * rate since the first chain, cold code included, is an underestimate, so
 * a long run ramps early. Progress is relayed from the workers for it.
 * `parallel.workers` is the number of workers started.
 *
 * Cost counters: each worker counts on its own copy of the model, so
 * `model.cost` in the calling thread does not move; per-chain costs are in
 * `chains[c].cost` as in a sequential run.
 *
 * References: docs/architecture.md, "Threads" and "Samplers" (chains in workers over one
 * shared copy of the data); Stan Reference Manual, "MCMC sampling".
 *
 * @module
 */
import {
  grantExtension,
  releaseRegion,
  reserveRegion,
  type SharedRegion,
} from "../core/shared_region.ts";
import type { Model } from "../models/model.ts";
import { modelSpecOf } from "../models/model_spec.ts";
import type { GlmModel } from "../models/glm.ts";
import type { WorkerChain, WorkerInit, WorkerReply } from "./_chain_protocol.ts";
import { chainIdsOf, type ChainOutput, type SamplingResult } from "./driver.ts";
import { checkRunMemory } from "./run_memory.ts";
import { checkSampleOptionNames } from "./option_names.ts";
import { assertProperPosterior } from "./proper_posterior.ts";
import { DRIVER_KEYS, type SampleOptions, sampleWith } from "./sample_with.ts";
import type { SamplerDescription, StepInfo } from "./sampler.ts";
import { integerAtLeast, nonNegativeInteger } from "./validate_options.ts";

/** Options of {@link sampleParallel}: those of `sample()` plus the worker pool. */
export type SampleParallelOptions = SampleOptions & {
  /**
   * Number of workers (default: one per core, `navigator.hardwareConcurrency`,
   * capped by the number of chains); 0 runs every chain in the calling thread.
   */
  workers?: number;
  /**
   * Bytes of the shared memory first set aside per worker for its scratch
   * (default 4 MiB + 32 bytes per row + 128·d² bytes). A worker that needs
   * more (HMC-ECS's subset fit, per-row caches) is given further blocks as it
   * asks for them, so this only sets how often it must ask (see docs/parallel.md).
   */
  workerScratchBytes?: number;
  /**
   * Workers to start the chains on (default: `workers`, all at once). With
   * fewer, the others are started one at a time while chains are still
   * waiting for a worker and the run, at the rate its chains have gone so
   * far, has more than `rampSeconds` left (see the module notes). The draws
   * are the same either way.
   */
  initialWorkers?: number;
  /**
   * Seconds of the run left, at its rate so far, above which a run started
   * on `initialWorkers` adds a worker (default {@link RAMP_SECONDS}; 0: as
   * soon as the rate is first judged, Infinity: never).
   */
  rampSeconds?: number;
};

/**
 * A run that starts on fewer workers than it may use (`initialWorkers`)
 * adds one when, at the rate its chains have gone so far, it has more than
 * this many seconds left.
 */
export const RAMP_SECONDS = 1.5;

/** The rate is first judged this long after the run starts, and again at least this often (ms). */
const _RAMP_CHECK_MS = 100;

/** What {@link sampleParallel} returns: the driver's result and how it ran. */
export interface ParallelSamplingResult extends SamplingResult {
  /** How the chains ran. */
  parallel: {
    /** Workers used (0: the calling thread). */
    workers: number;
    /** Why the run fell back to the calling thread, or null. */
    note: string | null;
  };
}

/**
 * The default number of workers for `numChains` chains: one per core,
 * capped by the number of chains.
 *
 * @param numChains Chains in the run.
 * @returns min(navigator.hardwareConcurrency (1 if unknown), numChains).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultWorkers } from "./parallel.ts";
 * assert.equal(defaultWorkers(1), 1);
 * ```
 *
 * References: docs/architecture.md, "Threads".
 */
export function defaultWorkers(numChains: number): number {
  const cores = typeof navigator !== "undefined" && navigator.hardwareConcurrency > 0
    ? navigator.hardwareConcurrency
    : 1;
  return Math.max(1, Math.min(cores, numChains));
}

/**
 * Run the sampler registered as `options.sampler` with its chains spread
 * over Web Workers (see the module notes). Chain c's draws are bit-identical
 * to those of `sample(model, options)` with the same seed, whatever the
 * number of workers.
 *
 * @param model The target; a GlmModel whose data were loaded with
 *   `loadCore({ shared: true })` runs in workers, any other runs in the calling thread.
 * @param options `sampler`, the driver's options, the sampler's options, `workers`
 *   and `workerScratchBytes`.
 * @param loaded The description of `options.sampler` if the caller loaded it
 *   (`loadSampler()` of ./catalog.ts); else it is read from the registry.
 * @returns The driver's result plus `parallel: { workers, note }`.
 * @throws {RangeError} For bad options (as `sample()`), `workers` not a
 *   non-negative integer; rethrows an error raised while a worker builds the
 *   sampler or starts a chain.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { sample } from "./sample.ts";
 * import { sampleParallel } from "./parallel.ts";
 * const arena = loadCore({ shared: true });
 * const data = glmDataFromArrays(arena, [1, 0.3, 1, -1.2, 1, 0.8, 1, -0.1], [1, 0, 1, 1], { numCols: 2 });
 * const model = new GlmModel(data, { family: "logistic", priorScale: 5 });
 * const options = { sampler: "hmc", seed: 3, numWarmup: 50, numSamples: 50, numChains: 2 };
 * const par = await sampleParallel(model, { ...options, workers: 2 });
 * assert.equal(par.parallel.workers, 2);
 * assert.deepEqual(par.draws, sample(model, options).draws);
 * ```
 *
 * References: docs/architecture.md, "Threads"; Stan Reference Manual, "MCMC sampling".
 */
export async function sampleParallel(
  model: Model,
  options: SampleParallelOptions,
  // deno-lint-ignore no-explicit-any
  loaded?: SamplerDescription<any>,
): Promise<ParallelSamplingResult> {
  // The registry imports every sampler: only when the caller did not load its own.
  const description = loaded ?? (await import("./registry.ts")).getSampler(options.sampler);
  checkSampleOptionNames(description.name, options, "sampleParallel()");
  const { workers: wanted, workerScratchBytes, initialWorkers, rampSeconds, ...rest } = options;
  const sequential = rest as SampleOptions;
  const chainIds = chainIdsOf(sequential);
  checkRunMemory({
    numChains: chainIds.length,
    numWarmup: sequential.numWarmup ?? 1000,
    numSamples: sequential.numSamples ?? 1000,
    thin: sequential.thin ?? 1,
    dim: model.dim,
  }, "sampleParallel");
  if (wanted !== undefined) nonNegativeInteger("workers", wanted);
  if (initialWorkers !== undefined) integerAtLeast("initialWorkers", initialWorkers, 1);
  if (rampSeconds !== undefined && !(rampSeconds >= 0)) {
    throw new RangeError(`rampSeconds must be ≥ 0 (Infinity: never), got ${rampSeconds}`);
  }
  const rampMs = (rampSeconds ?? RAMP_SECONDS) * 1000;
  const numWorkers = Math.min(wanted ?? defaultWorkers(chainIds.length), chainIds.length);
  const firstWorkers = Math.min(initialWorkers ?? numWorkers, numWorkers);
  const mayRamp = firstWorkers < numWorkers && rampMs < Infinity;
  const inThread = (note: string | null): ParallelSamplingResult => ({
    ...sampleWith(description, model, sequential),
    parallel: { workers: 0, note },
  });
  if (numWorkers === 0) return inThread(null);
  if (typeof Worker === "undefined") {
    return inThread("this runtime has no Web Workers, so chains ran in the calling thread");
  }
  if ((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === false) {
    return inThread(
      "the page is not cross-origin isolated (serve it with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp), so its memory cannot be shared with workers; chains ran in the calling thread",
    );
  }
  const described = modelSpecOf(model);
  if (!("spec" in described)) return inThread(described.reason);
  assertProperPosterior(model, "sampleParallel()");
  const own: Record<string, unknown> = {};
  const run: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(sequential)) {
    if (key === "sampler") continue;
    if ((DRIVER_KEYS as readonly string[]).includes(key)) run[key] = value;
    else own[key] = value;
  }
  try {
    structuredClone(own);
  } catch {
    return inThread(
      `the options of sampler ${
        JSON.stringify(description.name)
      } cannot be sent to a worker (a function?), so chains ran in the calling thread`,
    );
  }
  const numWarmup = sequential.numWarmup ?? 1000;
  const numSamples = sequential.numSamples ?? 1000;
  const plan = { seed: sequential.seed, numWarmup, numSamples };
  if (sequential.initialPositions !== undefined) {
    if (sequential.initialPositions.length !== chainIds.length) {
      throw new RangeError(
        `initialPositions must have one position per chain (${chainIds.length}), got ${sequential.initialPositions.length}`,
      );
    }
  }
  const glm = model as GlmModel;
  const scratch = workerScratchBytes ??
    (4 << 20) + 32 * glm.numRows + 128 * glm.dim * glm.dim;
  integerAtLeast("workerScratchBytes", scratch, 65536);
  const regions: SharedRegion[] = [];
  for (let k = 0; k < firstWorkers; k++) {
    regions.push(reserveRegion(glm.arena, scratch, { growable: true }));
  }
  /** Worker k's region (a replaced worker's successor gets a new one). */
  const regionOf = regions.slice();
  const spec = modelSpecOf(model) as { spec: WorkerInit["spec"] }; // after growth: same memory
  const init: WorkerInit = {
    type: "init",
    spec: spec.spec,
    region: regions[0],
    sampler: description.name,
    own,
    plan,
    run: {
      seed: sequential.seed,
      numWarmup,
      numSamples,
      thin: sequential.thin,
      initialPosition: sequential.initialPosition,
      jitter: sequential.jitter,
      recordWarmupInfo: sequential.recordWarmupInfo,
    },
    // A run that may add workers judges its rate by its chains' progress.
    relayProgress: sequential.onProgress !== undefined || mayRamp,
    relayDraws: sequential.onDraw !== undefined,
  };
  const outputs: (ChainOutput | undefined)[] = new Array(chainIds.length);
  const pool: Worker[] = [];
  /** Workers started (the first ones, and those a ramp added). */
  let started = firstWorkers;
  let rampTimer: ReturnType<typeof setTimeout> | undefined;
  try {
    let next = 0;
    await new Promise<void>((resolve, reject) => {
      let running = firstWorkers, failed = false;
      const fail = (error: unknown) => {
        if (failed) return;
        failed = true;
        reject(error);
      };
      // The ramp's bookkeeping: iterations done per chain (by index), their
      // sum, when the first chain was given, workers started and not yet ready.
      const position = new Map(chainIds.map((c, i) => [c, i]));
      const doneIterations = new Float64Array(chainIds.length);
      const totalIterations = chainIds.length * (numWarmup + numSamples);
      let doneSum = 0, firstGiven = -1, notReady = 0, rampStopped = false;
      const noteProgress = (chain: number, iteration: number) => {
        const i = position.get(chain);
        if (i === undefined || !(iteration > doneIterations[i])) return;
        doneSum += iteration - doneIterations[i];
        doneIterations[i] = iteration;
      };
      /**
       * One more worker when chains wait for one and the run, at its rate so
       * far (iterations per ms since the first chain was given), has more
       * than rampMs left; not while an added worker is still starting.
       */
      const rampCheck = () => {
        if (!mayRamp || rampStopped || failed || started >= numWorkers) return;
        if (next >= chainIds.length) return;
        if (notReady > 0 || firstGiven < 0) return;
        const elapsed = performance.now() - firstGiven;
        if (elapsed < _RAMP_CHECK_MS) return;
        const rate = doneSum / elapsed;
        if (rate > 0 && (totalIterations - doneSum) / rate <= rampMs) return;
        const k = started;
        const region = reserveRegion(glm.arena, scratch, { growable: true });
        regionOf[k] = region; // the worker's init carries it
        try {
          take(k);
        } catch {
          // No more workers start here: the run goes on with those it has.
          releaseRegion(glm.arena, region);
          regionOf.length = k;
          rampStopped = true;
          return;
        }
        regions.push(region);
        started++;
        running++;
      };
      const rampTick = () => {
        rampCheck();
        if (!failed && !rampStopped && started < numWorkers && next < chainIds.length) {
          rampTimer = setTimeout(rampTick, _RAMP_CHECK_MS);
        }
      };
      const start = (k: number, worker: Worker, adopted: boolean) => {
        pool[k] = worker;
        notReady++;
        let current = -1, ready = false;
        // An adopted worker (another role's, handed over) that fails before it
        // is ready is replaced by a fresh chain worker, in a fresh region.
        const replace = (): boolean => {
          if (!adopted || ready || failed) return false;
          worker.onmessage = null;
          worker.onerror = (event: ErrorEvent) => event.preventDefault();
          worker.terminate();
          const region = reserveRegion(glm.arena, scratch, { growable: true });
          regions.push(region);
          regionOf[k] = region;
          notReady--; // the one it replaces will not be
          start(k, _spawn(), false);
          return true;
        };
        const give = () => {
          if (failed) return;
          if (next >= chainIds.length) {
            if (--running === 0) resolve();
            return;
          }
          current = next++;
          if (firstGiven < 0) {
            firstGiven = performance.now();
            if (mayRamp) rampTimer = setTimeout(rampTick, _RAMP_CHECK_MS);
          }
          const msg: WorkerChain = {
            type: "chain",
            chainId: chainIds[current],
            start: sequential.initialPositions?.[current],
          };
          worker.postMessage(msg);
        };
        worker.onmessage = (event: MessageEvent<WorkerReply>) => {
          const reply = event.data;
          switch (reply.type) {
            case "ready":
              ready = true;
              notReady--;
              give();
              break;
            case "grow":
              grantExtension(glm.arena, regionOf[k], reply.bytes);
              break;
            case "chain":
              outputs[current] = reply.output;
              // Done, whether it ran to its end or stopped early.
              noteProgress(chainIds[current], numWarmup + numSamples);
              give();
              break;
            case "progress":
              noteProgress(reply.chain, reply.iteration);
              rampCheck();
              sequential.onProgress?.(reply.chain, reply.iteration, reply.total);
              break;
            case "draws": {
              const onDraw = sequential.onDraw;
              if (onDraw === undefined) break;
              const names = reply.infoNames, booleans = reply.infoBooleans, f = names.length;
              const values = reply.infoValues, k = reply.count;
              const d = reply.positions.length / Math.max(1, k);
              for (let i = 0; i < k; i++) {
                const position = reply.positions.subarray(i * d, (i + 1) * d);
                const info: Record<string, number | boolean> = {};
                for (let j = 0; j < f; j++) {
                  const v = values[i * f + j];
                  info[names[j]] = booleans[j] ? v !== 0 : v;
                }
                onDraw(reply.chain, reply.first + i, position, info as unknown as StepInfo);
              }
              break;
            }
            case "error":
              if (!replace()) fail(reply.error);
          }
        };
        worker.onerror = (event: ErrorEvent) => {
          event.preventDefault();
          if (!replace()) fail(new Error(`chain worker failed: ${event.message}`));
        };
        worker.postMessage({ ...init, region: regionOf[k] });
      };
      /** Worker k: a prestarted or handed-over one if any is left, else a fresh one. */
      function take(k: number): void {
        let taken = _prestarted.pop();
        if (taken?.failed) {
          taken.worker.terminate(); // it failed since it was handed over
          taken = undefined;
        }
        start(k, taken?.worker ?? _spawn(), taken?.adopted === true);
      }
      for (let k = 0; k < firstWorkers; k++) take(k);
    });
  } finally {
    clearTimeout(rampTimer);
    if (_held !== null) _held.push(...pool);
    else for (const w of pool) w.terminate();
    for (const r of regions) releaseRegion(glm.arena, r);
  }
  const chains = outputs as ChainOutput[];
  const thin = sequential.thin ?? 1;
  return {
    parameterNames: Array.from(model.parameterNames),
    numChains: chains.length,
    numWarmup,
    numSamples,
    thin,
    numDraws: Math.ceil(numSamples / thin),
    draws: chains.map((c) => c.draws),
    chains,
    parallel: { workers: started, note: null },
  };
}

/** Where runs leave their workers when they are done (null: terminated then); see {@link holdChainWorkers}. */
let _held: Worker[] | null = null;

/**
 * @internal From now on, the workers of a {@link sampleParallel} run that
 * is done are put in `into` instead of being terminated (null: terminated
 * when the run is done, the default); the caller terminates them.
 *
 * Terminating a worker frees its engine's heap at once, on its thread: the
 * unmapping, and the TLB flushes it sends to every core, then compete with
 * the calling thread's work after the run (the command line's draws file and
 * summary). The command line terminates the workers it holds once its output
 * is printed.
 *
 * @param into Where to put them, or null.
 */
export function holdChainWorkers(into: Worker[] | null): void {
  _held = into;
}

/**
 * Chain workers started ahead of a run by {@link prestartChainWorkers}, and
 * workers of another role handed over by {@link adoptChainWorkers} (taken first).
 */
const _prestarted: { worker: Worker; adopted: boolean; failed?: boolean }[] = [];

/**
 * @internal Start `count` chain workers now, so that their modules load
 * while the calling thread still works (e.g. centres the chains); the next
 * {@link sampleParallel} runs on them (and starts any more it needs). A
 * worker holds nothing of a run until that run's first message.
 *
 * @param count Workers to start (a runtime without workers starts none).
 * @param sampler The run's sampler, if known: the workers import its modules now too.
 * @returns A function that terminates the workers no run took.
 */
export function prestartChainWorkers(count: number, sampler?: string): () => void {
  if (typeof Worker !== "undefined") {
    for (let k = 0; k < count; k++) {
      try {
        const worker = _spawn();
        if (sampler !== undefined) worker.postMessage({ type: "preload", sampler });
        _prestarted.unshift({ worker, adopted: false });
      } catch {
        break; // workers cannot start here: sampleParallel says so when it runs
      }
    }
  }
  return _dropUnused;
}

/**
 * @internal Take workers of another role that now answer the chain protocol
 * (./chain_worker.ts), e.g. the shared centring's pass workers once the
 * centring is done (models/threaded_glm.ts `closeHandingOver`): the next
 * {@link sampleParallel} runs on them first, over the modules they have
 * loaded already. One that fails before it is ready (its chain modules did
 * not load, it died) is replaced by a fresh chain worker; the draws are the
 * same either way.
 *
 * @param workers The workers (now this module's).
 * @param sampler The run's sampler, if known: the workers import its modules now.
 * @returns A function that terminates the workers no run took.
 */
export function adoptChainWorkers(workers: readonly Worker[], sampler?: string): () => void {
  for (const worker of workers) {
    const entry = { worker, adopted: true, failed: false };
    // Until a run takes it: its former role's handlers go, and a failure marks it.
    worker.onmessage = null;
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      entry.failed = true;
    };
    if (sampler !== undefined) worker.postMessage({ type: "preload", sampler });
    _prestarted.push(entry);
  }
  return _dropUnused;
}

/** Terminate the workers no run took. */
function _dropUnused(): void {
  for (const { worker } of _prestarted.splice(0)) worker.terminate();
}

/**
 * A chain worker. It inherits the calling thread's permissions: narrowing
 * them (read access to its module graph only) needs Deno's
 * `--unstable-worker-options`, without which the runtime exits rather than
 * throws, so it cannot be tried and caught here.
 */
function _spawn(): Worker {
  // Resolved here, not at import: importing this module resolves no URL
  // (some runtimes have no usable import.meta.url until a worker is wanted).
  return new Worker(new URL("./chain_worker.ts", import.meta.url), { type: "module" });
}
