/**
 * The start message of a worker of
 * {@link import("./threaded_glm.ts").ThreadedGlmModel} (./_pass_worker.ts),
 * besides the pool's part (./_pass_pool.ts): a definition only, so the model
 * can name it without loading the worker's entry point.
 *
 * @module
 */
import type { SharedRegion } from "../core/shared_region.ts";
import type { ModelSpec } from "./model_spec.ts";

/** @internal The fields of a thread worker's start message. */
export interface PassWorkerInit {
  /** The block's model: its rows in the shared memory and its options. */
  spec: ModelSpec;
  /** The worker's scratch region in the shared memory. */
  region: SharedRegion;
  /** The block's first row in the whole data set (even). */
  firstRow: number;
}

/**
 * @internal The `next` code of {@link import("./_pass_pool.ts").PassPool.handOver}
 * that makes a pass worker a chain worker: it then answers the chain
 * protocol of samplers/chain_worker.ts (samplers/parallel.ts
 * `adoptChainWorkers`).
 */
export const BECOME_CHAIN_WORKER = 1;

/**
 * @internal The message that asks a pass worker, before or instead of its
 * start message, to load a chain worker's modules and those of `sampler`
 * (the chain protocol's "preload"), for a later hand-over.
 */
export interface PassWorkerPreload {
  type: "preload";
  /** The sampler its chains will run. */
  sampler: string;
}
