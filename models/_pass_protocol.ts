/**
 * The message that starts a worker of
 * {@link import("./threaded_glm.ts").ThreadedGlmModel} (./_pass_worker.ts):
 * a definition only, so the model can name it without loading the
 * worker's entry point.
 *
 * @module
 */
import type { SharedRegion } from "../core/shared_region.ts";
import type { ModelSpec } from "./model_spec.ts";
import type { PassControlShared } from "./_pass_control.ts";

/** @internal The message that starts a pass worker. */
export interface PassWorkerInit {
  spec: ModelSpec;
  region: SharedRegion;
  control: PassControlShared;
  io: SharedArrayBuffer;
  slot: number;
  /** The block's first row in the whole data set (even). */
  firstRow: number;
}
