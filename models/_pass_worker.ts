/**
 * The worker behind {@link import("./threaded_glm.ts").ThreadedGlmModel}:
 * one contiguous block of rows, rebuilt over the shared memory as a
 * GlmModel or a UserGlmModel (the same compiled family), answering the pass pool's commands (./_pass_pool.ts: ℓ, ∇ℓ,
 * ∇²ℓ, and the control-variate centring that fills the block's rows of the
 * shared cache in place).
 *
 * Successive roles: when the pool hands it over
 * ({@link import("./_pass_pool.ts").PassPool.handOver} with
 * BECOME_CHAIN_WORKER) the worker does not close but answers every later
 * message as a chain worker (samplers/_chain_role.ts, the protocol of
 * samplers/chain_worker.ts), over the core, generator and model modules it
 * has loaded already. A "preload" message before the start message loads
 * the chain role's modules and the named sampler's while the worker is idle.
 * If they cannot load, each later message is answered with the chain
 * protocol's "error", and the caller starts a fresh chain worker instead.
 *
 * Only a worker loads this module (it sets the worker's `onmessage`); the
 * message types are in ./_pass_protocol.ts.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { ControlVariateCache } from "../core/row_buffer.ts";
import { adoptWorkerCore } from "../core/load.ts";
import { attachRegion } from "../core/shared_region.ts";
import { GlmModel } from "./glm.ts";
import { workerModelFromSpec } from "./worker_model.ts";
import { poolWorker } from "./_pass_pool.ts";
import {
  BECOME_CHAIN_WORKER,
  type PassWorkerInit,
  type PassWorkerPreload,
} from "./_pass_protocol.ts";
import { blockRowsSums, rowsWithin } from "./_rows_sums.ts";
import { Rng, RNG_STATE_LENGTH } from "../random/rng.ts";

/** The chain role's module, once asked for. */
let _chainRole: Promise<typeof import("../samplers/_chain_role.ts")> | null = null;

function _loadChainRole(): Promise<typeof import("../samplers/_chain_role.ts")> {
  return _chainRole ??= import("../samplers/_chain_role.ts");
}

/** Every later message goes to the chain role, in the order received. */
function _becomeChainWorker(): void {
  const role = _loadChainRole();
  self.onmessage = (event: MessageEvent) => {
    role.then(
      (m) => m.chainMessage(event),
      (error) =>
        self.postMessage({
          type: "error",
          error: new Error(
            `the pass worker could not become a chain worker: ${
              error instanceof Error ? error.message : String(error)
            }`,
          ),
        }),
    );
  };
}

const _passRole = poolWorker<PassWorkerInit>(({ spec, region, firstRow }) => {
  adoptWorkerCore(spec.backend, true, spec.core);
  const arena = attachRegion(region);
  const model = workerModelFromSpec(spec, arena);
  return {
    pass(theta, want, grad, hess) {
      let ll = 0;
      if (want.ll) ll = model.logLikelihood(theta, want.grad ? grad : undefined);
      if (want.hess) model.logLikelihoodHessian(theta, hess);
      return ll;
    },
    rows(theta, args, grad, hess) {
      if (!(model instanceof GlmModel)) {
        throw new TypeError("sums over listed rows need a built-in GLM family");
      }
      const all = new Int32Array(region.memory.buffer, args.offset, args.count);
      const [lo, hi] = rowsWithin(all, firstRow, firstRow + model.numRows);
      // A plain loop: Int32Array.from with a map function goes through the
      // iterator protocol, ~10× slower over the ~10⁶ rows of a subset gradient.
      const local = new Int32Array(hi - lo);
      for (let i = 0; i < local.length; i++) local[i] = all[lo + i] - firstRow;
      return blockRowsSums(model, theta, local, args.what, grad, hess);
    },
    sample({ offset, n, m }) {
      const buffer = region.memory.buffer;
      const state = new Int32Array(buffer, offset, RNG_STATE_LENGTH);
      const rng = new Rng("");
      rng.loadState(state);
      rng.sortedSample(n, m, new Int32Array(buffer, offset + 4 * RNG_STATE_LENGTH, m));
      rng.saveState(state);
    },
    centre(theta, args, grad) {
      if (!(model instanceof GlmModel)) {
        throw new TypeError("the compact control-variate centring needs a built-in GLM family");
      }
      if (args.cacheRows === 0) {
        // No cache: S and A of the block alone.
        return model.kernels.controlVariateSums(model.data, theta, {
          gradSum: grad,
          chunkRows: args.chunkRows,
        });
      }
      const cache = ControlVariateCache.attach(arena, {
        numRows: args.cacheRows,
        offset: args.cacheOffset,
      });
      try {
        return model.kernels.prepareControlVariates(model.data, theta, {
          cache,
          gradSum: grad,
          chunkRows: args.chunkRows,
          firstRow,
        });
      } finally {
        cache.dispose(); // a view: forgets the rows, frees nothing
      }
    },
  };
}, (next) => {
  if (next === BECOME_CHAIN_WORKER) _becomeChainWorker();
  else self.close();
});

self.onmessage = (event: MessageEvent) => {
  const msg = event.data as PassWorkerPreload | { type?: undefined };
  if (msg?.type === "preload") {
    // The chain role's modules and the sampler's, ahead of a hand-over (a
    // failure is reported when the role is used).
    _loadChainRole().then((m) => m.chainMessage(event), () => {});
    return;
  }
  _passRole(event);
};
