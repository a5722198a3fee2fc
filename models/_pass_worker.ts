/**
 * The worker behind {@link import("./threaded_glm.ts").ThreadedGlmModel}:
 * one contiguous block of rows, rebuilt over the shared memory, answering
 * full-data pass requests posted through a shared control block.
 *
 * ```
 *  control   a PassControl block (./_pass_control.ts); commands
 *            1 = ℓ, 2 = ℓ and ∇ℓ, 3 = Σ∇²ℓ,
 *            5 = control-variate centring (cache rows, S, A)
 *  io (Float64Array over a SharedArrayBuffer)
 *   [0, d)                       θ (θ* for command 5)
 *   [d, d + 3)                   command 5: the shared cache (rows, offset), chunkRows
 *   [d + 3 + k·(1+d+d²), …)      worker k's slot: ℓ or S, ∇ℓ or A (d), ∇²ℓ (d²)
 * ```
 *
 * Only a worker loads this module (it sets the worker's `onmessage`); the
 * start message's type is in ./_pass_protocol.ts.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { ControlVariateCache } from "../core/row_buffer.ts";
import { adoptWorkerCore } from "../core/load.ts";
import { attachRegion } from "../core/shared_region.ts";
import { modelFromSpec } from "./model_spec.ts";
import { servePasses } from "./_pass_control.ts";
import type { PassWorkerInit } from "./_pass_protocol.ts";

self.onmessage = (event: MessageEvent<PassWorkerInit>) => {
  const { spec, region, slot, firstRow } = event.data;
  const io = new Float64Array(event.data.io);
  adoptWorkerCore(spec.backend, true, spec.core);
  const arena = attachRegion(region);
  const model = modelFromSpec(spec, arena);
  const d = model.dim;
  const theta = new Float64Array(d), grad = new Float64Array(d), hess = new Float64Array(d * d);
  const base = d + 3 + slot * (1 + d + d * d);
  servePasses(event.data.control, slot, (command) => {
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
      try {
        io[base] = model.kernels.prepareControlVariates(model.data, theta, {
          cache,
          gradSum: grad,
          chunkRows: io[d + 2],
          firstRow,
        });
        io.set(grad, base + 1);
      } finally {
        cache.dispose(); // a view: forgets the rows, frees nothing
      }
    }
  }, () => self.postMessage("ready"));
  self.close();
};
