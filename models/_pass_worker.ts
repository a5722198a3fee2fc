/**
 * The worker behind {@link import("./threaded_glm.ts").ThreadedGlmModel}:
 * one contiguous block of rows, rebuilt over the shared memory, answering
 * full-data pass requests posted through a shared control block.
 *
 * ```
 *  ctrl (Int32Array over a SharedArrayBuffer)
 *   [0] generation  main bumps it and notifies: "a pass is requested"
 *   [1] done        each worker adds 1 (and notifies) when its slot is written
 *   [2] command     1 = ℓ, 2 = ℓ and ∇ℓ, 3 = Σ∇²ℓ, 4 = quit,
 *                   5 = control-variate centring (cache rows, S, A)
 *   [3] failed      set by a worker whose pass threw
 *  io (Float64Array over a SharedArrayBuffer)
 *   [0, d)                       θ (θ* for command 5)
 *   [d, d + 3)                   command 5: the shared cache (rows, offset), chunkRows
 *   [d + 3 + k·(1+d+d²), …)      worker k's slot: ℓ or S, ∇ℓ or A (d), ∇²ℓ (d²)
 * ```
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { ControlVariateCache } from "../core/row_buffer.ts";
import { attachRegion, type SharedRegion } from "../core/shared_region.ts";
import { modelFromSpec, type ModelSpec } from "./model_spec.ts";

/** @internal The message that starts a pass worker. */
export interface PassWorkerInit {
  spec: ModelSpec;
  region: SharedRegion;
  ctrl: SharedArrayBuffer;
  io: SharedArrayBuffer;
  slot: number;
  /** The block's first row in the whole data set (even). */
  firstRow: number;
}

self.onmessage = (event: MessageEvent<PassWorkerInit>) => {
  const { spec, region, slot, firstRow } = event.data;
  const ctrl = new Int32Array(event.data.ctrl);
  const io = new Float64Array(event.data.io);
  const arena = attachRegion(region);
  const model = modelFromSpec(spec, arena);
  const d = model.dim;
  const theta = new Float64Array(d), grad = new Float64Array(d), hess = new Float64Array(d * d);
  const base = d + 3 + slot * (1 + d + d * d);
  // Read the generation before saying ready: a pass requested right after
  // "ready" must find the worker waiting on the old value, not the new one.
  let generation = Atomics.load(ctrl, 0);
  self.postMessage("ready");
  for (;;) {
    Atomics.wait(ctrl, 0, generation);
    generation = Atomics.load(ctrl, 0);
    const command = Atomics.load(ctrl, 2);
    if (command === 4) break;
    try {
      theta.set(io.subarray(0, d));
      if (command === 1) io[base] = model.logLikelihood(theta);
      else if (command === 2) {
        io[base] = model.logLikelihood(theta, grad);
        io.set(grad, base + 1);
      } else if (command === 3) {
        model.logLikelihoodHessian(theta, hess);
        io.set(hess, base + 1 + d);
      } else if (command === 5) {
        const cache = ControlVariateCache.attach(arena, { numRows: io[d], offset: io[d + 1] });
        io[base] = model.kernels.prepareControlVariates(model.data, theta, {
          cache,
          gradSum: grad,
          chunkRows: io[d + 2],
          firstRow,
        });
        io.set(grad, base + 1);
        cache.dispose(); // a view: forgets the rows, frees nothing
      }
    } catch {
      Atomics.store(ctrl, 3, 1);
    }
    Atomics.add(ctrl, 1, 1);
    Atomics.notify(ctrl, 1);
  }
  self.close();
};
