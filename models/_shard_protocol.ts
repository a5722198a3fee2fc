/**
 * The start message of a shard worker of
 * {@link import("./sharded_glm.ts").ShardedGlmModel} (./_shard_worker.ts),
 * besides the pool's part (./_pass_pool.ts, which has the commands and the io
 * layout): a definition only, so the model can import it without loading
 * the worker's entry point.
 *
 * @module
 */
import type { GlmFamilyName } from "../core/glm_kernels.ts";
import type { CoreBackend } from "../core/load.ts";
import type { GlmModelFamily } from "./glm.ts";

/**
 * @internal A family written in AssemblyScript as a shard worker rebuilds it
 * (`workerUserFamily`, models/worker_model.ts): the module compiled over an
 * unshared memory, its static block the first block of a fresh arena.
 */
export interface UserFamilyBytes {
  /** The compiled module (its memory import unshared). */
  bytes: Uint8Array;
  /** Address of the module's static block (`--memoryBase`). */
  staticBlock: number;
}

/** @internal The fields of a shard worker's start message. */
export interface ShardWorkerInit {
  kind: "memory" | "stream";
  backend: CoreBackend;
  /** The compiled core for `backend` (unshared memory), when the build embeds none. */
  core?: WebAssembly.Module;
  /** The model's family (its response checks); null for a family written in AssemblyScript. */
  family: GlmModelFamily | null;
  /**
   * The kernels' family and parameters (σ of "gaussian", a fixed ν of
   * "student-t"); null for a family written in AssemblyScript.
   */
  kernel: { family: GlmFamilyName; sigma?: number; nu?: number } | null;
  /** A family written in AssemblyScript (X staged as f64 whatever the storage), else absent. */
  user?: UserFamilyBytes;
  /** What the rows' aux column holds, or null without one. */
  aux: "offset" | "trials" | null;
  numCols: number;
  storage: "f32" | "f64";
  /** First row of the shard and number of rows. */
  start: number;
  count: number;
  /** The row store to read (stream kind, or memory kind loaded from a file). */
  storePath?: string;
  /** The shard's rows handed over (memory kind without a file). */
  rows?: { x: Float64Array | Float32Array; y: Float64Array; aux?: Float64Array };
  chunkRows: number;
  /** Row gathers (memory kind): indices in, rows out, beside the pool's io. */
  gather: {
    idx: SharedArrayBuffer;
    x: SharedArrayBuffer;
    y: SharedArrayBuffer;
    aux: SharedArrayBuffer;
  };
}
