/**
 * The chain role of a worker: what {@link import("./parallel.ts").sampleParallel}
 * asks of a chain worker (the protocol is in ./chain_worker.ts, the message
 * types in ./_chain_protocol.ts), as a message handler that a worker entry
 * installs. ./chain_worker.ts installs it at once; the shared centring's pass
 * worker (models/_pass_worker.ts) installs it when its passes are done and
 * it is handed over to the chains, so one thread serves both roles.
 *
 * Only worker entry points import this module (it posts to its worker's
 * parent).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { adoptWorkerCore } from "../core/load.ts";
import { attachRegion } from "../core/shared_region.ts";
import { workerModelFromSpec } from "../models/worker_model.ts";
import type { WorkerChain, WorkerInit, WorkerPreload, WorkerReply } from "./_chain_protocol.ts";
import { sampleChains } from "./driver.ts";
import { loadSampler } from "./catalog.ts";
import { phaseMark } from "./_phase_marks.ts";
import type { ChainSampler, StepInfo } from "./sampler.ts";

let _init: WorkerInit | null = null;
let _model: ReturnType<typeof workerModelFromSpec> | null = null;
let _sampler: ChainSampler<unknown, StepInfo> | null = null;

function _post(reply: WorkerReply): void {
  try {
    self.postMessage(reply);
  } catch {
    // An uncloneable value (an exception object holding a closure): send its text.
    if (reply.type === "chain" && reply.output.stop?.error !== undefined) {
      const e = reply.output.stop.error;
      reply.output.stop.error = new Error(e instanceof Error ? e.message : String(e));
      self.postMessage(reply);
    } else if (reply.type === "error") {
      const e = reply.error;
      self.postMessage({
        type: "error",
        error: new Error(e instanceof Error ? e.message : String(e)),
      });
    } else throw new Error(`cannot post a ${reply.type} message`);
  }
}

/**
 * Answer one message of the chain protocol (see ./chain_worker.ts).
 *
 * @param event A "preload", "init" or "chain" message.
 */
export function chainMessage(event: MessageEvent<WorkerPreload | WorkerInit | WorkerChain>): void {
  const msg = event.data;
  let batch: _DrawBatch | null = null;
  try {
    if (msg.type === "preload") {
      // Only the chosen sampler's modules, while the calling thread still works.
      loadSampler(msg.sampler).catch(() => {}); // an unknown name fails again at init
      return;
    }
    if (msg.type === "init") {
      _init = msg;
      adoptWorkerCore(msg.spec.backend, true, msg.spec.core);
      const arena = attachRegion(msg.region, (bytes) => _post({ type: "grow", bytes }));
      const model = _model = workerModelFromSpec(msg.spec, arena);
      loadSampler(msg.sampler).then((description) => {
        _sampler = description.build(model, msg.own, msg.plan);
        phaseMark("worker-ready");
        _post({ type: "ready" });
      }).catch((error) => _post({ type: "error", error }));
      return;
    }
    if (_init === null || _model === null || _sampler === null) {
      throw new Error("chain worker received a chain before its init");
    }
    const init = _init;
    const chainId = msg.chainId;
    phaseMark(`chain${chainId}-start`);
    const draws = batch = new _DrawBatch(chainId);
    let lastProgress = performance.now();
    const result = sampleChains({
      ...init.run,
      sampler: _sampler,
      model: _model,
      chainIds: [chainId],
      initialPositions: msg.start === undefined ? undefined : [msg.start],
      onProgress: init.relayProgress
        ? (chain, iteration, total) => {
          // Not every iteration: a message costs more than an HMC-ECS step. The
          // first, the last of warm-up and the last always; else every 1/200 of
          // the run, at most one per PROGRESS_MS.
          const every = Math.max(1, Math.floor(total / 200));
          if (
            iteration === 1 || iteration === total || iteration === init.run.numWarmup ||
            (iteration % every === 0 && performance.now() - lastProgress >= PROGRESS_MS)
          ) {
            lastProgress = performance.now();
            _post({ type: "progress", chain, iteration, total });
          }
        }
        : undefined,
      onDraw: init.relayDraws
        ? (_chain, draw, position, info) => draws.add(draw, position, info)
        : undefined,
    });
    draws.flush();
    _post({ type: "chain", output: result.chains[0] });
  } catch (error) {
    // The draws made before the error still reach the caller, ahead of it.
    batch?.flush();
    _post({ type: "error", error });
  }
}

/**
 * Shortest time between two progress messages of a chain (ms), other than
 * its first iteration's, its last warm-up iteration's and its last.
 */
export const PROGRESS_MS = 10;

/** Longest time a kept draw waits in the worker before it is posted (ms). */
export const DRAWS_BATCH_MS = 10;

/** A chain's draws not yet posted. */
class _DrawBatch {
  readonly #chain: number;
  #positions: Float64Array = new Float64Array(0);
  /** The infos' numeric and boolean fields of the batch, by column. */
  #names: string[] = [];
  #booleans: boolean[] = [];
  #values: Float64Array = new Float64Array(0);
  #count = 0;
  #dim = 0;
  #first = 0;
  #since = performance.now();
  constructor(chain: number) {
    this.#chain = chain;
  }
  add(draw: number, position: Float64Array, info: StepInfo): void {
    // A draw whose info has other fields than the batch's starts a new batch.
    if (this.#count > 0 && !this.#sameFields(info)) this.flush();
    const k = this.#count;
    if (k === 0) {
      this.#first = draw;
      this.#fieldsOf(info);
    }
    const d = this.#dim = position.length, f = this.#names.length;
    if (this.#positions.length < (k + 1) * d) {
      const grown = new Float64Array(Math.max(64, 2 * (k + 1)) * d);
      grown.set(this.#positions.subarray(0, k * d));
      this.#positions = grown;
    }
    if (this.#values.length < (k + 1) * f) {
      const grown = new Float64Array(Math.max(64, 2 * (k + 1)) * f);
      grown.set(this.#values.subarray(0, k * f));
      this.#values = grown;
    }
    this.#positions.set(position, k * d);
    const rec = info as unknown as Record<string, unknown>, names = this.#names;
    for (let j = 0, o = k * f; j < f; j++) {
      const v = rec[names[j]];
      this.#values[o + j] = typeof v === "boolean" ? (v ? 1 : 0) : v as number;
    }
    this.#count = k + 1;
    if (performance.now() - this.#since >= DRAWS_BATCH_MS) this.flush();
  }
  flush(): void {
    this.#since = performance.now();
    const k = this.#count;
    if (k === 0) return;
    _post({
      type: "draws",
      chain: this.#chain,
      first: this.#first,
      count: k,
      positions: this.#positions.slice(0, k * this.#dim),
      infoNames: this.#names,
      infoBooleans: this.#booleans,
      infoValues: this.#values.slice(0, k * this.#names.length),
    });
    this.#count = 0;
  }
  /** The batch's fields: the numeric and boolean fields of `info`, in its order. */
  #fieldsOf(info: StepInfo): void {
    const names: string[] = [], booleans: boolean[] = [];
    const rec = info as unknown as Record<string, unknown>;
    for (const key of Object.keys(rec)) {
      const t = typeof rec[key];
      if (t === "number" || t === "boolean") {
        names.push(key);
        booleans.push(t === "boolean");
      }
    }
    this.#names = names;
    this.#booleans = booleans;
  }
  /** Whether `info`'s numeric and boolean fields are the batch's, in order and type. */
  #sameFields(info: StepInfo): boolean {
    const rec = info as unknown as Record<string, unknown>, names = this.#names;
    let j = 0;
    // for-in over own keys: Object.keys' order without an array per draw.
    for (const key in rec) {
      if (!Object.hasOwn(rec, key)) continue;
      const t = typeof rec[key];
      if (t !== "number" && t !== "boolean") continue;
      if (j >= names.length || names[j] !== key || this.#booleans[j] !== (t === "boolean")) {
        return false;
      }
      j++;
    }
    return j === names.length;
  }
}
