/**
 * The messages between {@link import("./parallel.ts").sampleParallel} and
 * its chain workers (./chain_worker.ts): definitions only, so the caller
 * can name them without loading the worker's entry point.
 *
 * @module
 */
import type { SharedRegion } from "../core/shared_region.ts";
import type { ModelSpec } from "../models/model_spec.ts";
import type { ChainOutput } from "./driver.ts";
import type { RunPlan } from "./sampler.ts";

/** @internal The first message a chain worker receives. */
export interface WorkerInit {
  type: "init";
  spec: ModelSpec;
  region: SharedRegion;
  sampler: string;
  own: Record<string, unknown>;
  plan: RunPlan;
  run: {
    seed: number | string;
    numWarmup: number;
    numSamples: number;
    thin?: number;
    initialPosition?: Float64Array;
    jitter?: number;
    recordWarmupInfo?: boolean;
  };
  relayProgress: boolean;
  relayDraws: boolean;
}

/**
 * @internal Sent to a worker started ahead of its run, once the sampler is
 * known: the worker imports that sampler's modules before the run's init.
 */
export interface WorkerPreload {
  type: "preload";
  sampler: string;
}

/** @internal A chain to run. */
export interface WorkerChain {
  type: "chain";
  chainId: number;
  start?: Float64Array;
}

/** @internal What a chain worker posts back. */
export type WorkerReply =
  | { type: "ready" }
  | { type: "grow"; bytes: number }
  | { type: "chain"; output: ChainOutput }
  | { type: "progress"; chain: number; iteration: number; total: number }
  | {
    type: "draws";
    chain: number;
    /** Number of the first draw. */
    first: number;
    /** Number of draws. */
    count: number;
    /** The draws' positions, one after the other (count × d). */
    positions: Float64Array;
    /**
     * Their infos' numeric and boolean fields, by column: the names (the
     * same for every draw of the message, in the infos' order), which of
     * them are booleans, and the values draw after draw (count × names;
     * booleans as 1 and 0). One structured clone of an object per draw cost
     * ≈ 4–10 μs against ≈ 0.4 μs per draw this way.
     */
    infoNames: string[];
    infoBooleans: boolean[];
    infoValues: Float64Array;
  }
  | { type: "error"; error: unknown };
