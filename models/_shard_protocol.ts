/**
 * The messages and command codes between
 * {@link import("./sharded_glm.ts").ShardedGlmModel} and its shard workers
 * (./_shard_worker.ts): definitions only, so the model can import them
 * without loading the worker's entry point.
 *
 * @module
 */
import type { GlmFamilyName } from "../core/glm_kernels.ts";
import type { CoreBackend } from "../core/load.ts";
import type { PassControlShared } from "./_pass_control.ts";
import type { GlmModelFamily } from "./glm.ts";

/** @internal Commands of a shard worker. */
export const SHARD_LL = 1, SHARD_GRAD = 2, SHARD_HESS = 3, SHARD_ALL = 4, SHARD_GATHER = 5;

/** @internal The message that starts a shard worker. */
export interface ShardWorkerInit {
  control: PassControlShared;
  slot: number;
  kind: "memory" | "stream";
  backend: CoreBackend;
  /** The compiled core for `backend` (unshared memory), when the build embeds none. */
  core?: WebAssembly.Module;
  /** The model's family (its response checks). */
  family: GlmModelFamily;
  /** The kernels' family and parameters (σ of "gaussian", a fixed ν of "student-t"). */
  kernel: { family: GlmFamilyName; sigma?: number; nu?: number };
  /** What the rows' aux column holds, or null without one. */
  aux: "offset" | "trials" | null;
  numCols: number;
  /** Length P of θ (d, plus log σ or log φ, plus ω). */
  numParams: number;
  storage: "f32" | "f64";
  /** First row of the shard and number of rows. */
  start: number;
  count: number;
  /** The row store to read (stream kind, or memory kind loaded from a file). */
  storePath?: string;
  /** The shard's rows handed over (memory kind without a file). */
  rows?: { x: Float64Array | Float32Array; y: Float64Array; aux?: Float64Array };
  chunkRows: number;
  io: SharedArrayBuffer;
  gather: {
    idx: SharedArrayBuffer;
    x: SharedArrayBuffer;
    y: SharedArrayBuffer;
    aux: SharedArrayBuffer;
  };
}
