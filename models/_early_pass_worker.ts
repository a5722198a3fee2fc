/**
 * @internal A pass worker (models/_pass_worker.ts) started before the
 * command that uses it has loaded its own modules.
 *
 * A pass worker takes 0.1–0.2 s of CPU to load its modules. Started where
 * the shared centring's workers usually start (models/threaded_glm.ts
 * `prestartPassWorkers`, just before the data are read) that load competes
 * with the read, which keeps both cores busy; started at the top of the
 * command line, it loads on the core that is idle while the calling thread
 * loads the sample command's modules. This module imports nothing but a
 * type, so that importing it costs the calling thread nothing.
 *
 * @module
 */
import type { PassWorkerPreload } from "./_pass_protocol.ts";

/** Workers started here and not yet taken. */
const _early: Worker[] = [];

/**
 * Start one pass worker now (none where workers cannot start).
 *
 * @param chainSampler When the worker is to become a chain worker after the
 *   centring (models/threaded_glm.ts `closeHandingOver`): the chains'
 *   sampler. The worker then loads the chain role's modules and the
 *   sampler's right after its own, still during the command's start-up.
 * @returns A function that terminates it if nothing took it.
 */
export function startEarlyPassWorker(chainSampler?: string): () => void {
  if (typeof Worker !== "undefined") {
    try {
      _early.push(newPassWorker(chainSampler));
    } catch {
      // Workers cannot start here: the command starts none either.
    }
  }
  return () => {
    for (const w of _early.splice(0)) w.terminate();
  };
}

/**
 * A new pass worker (models/_pass_worker.ts), asked to preload the chain
 * role's modules and `chainSampler`'s when it is given. Throws where
 * workers cannot start.
 *
 * @param chainSampler The chains' sampler, when the worker is to become a
 *   chain worker after the centring.
 * @returns The worker.
 */
export function newPassWorker(chainSampler?: string): Worker {
  const worker = new Worker(new URL("./_pass_worker.ts", import.meta.url), { type: "module" });
  if (chainSampler !== undefined) {
    const preload: PassWorkerPreload = { type: "preload", sampler: chainSampler };
    worker.postMessage(preload);
  }
  return worker;
}

/**
 * The pass worker started by {@link startEarlyPassWorker}, if any is left.
 *
 * @returns The worker (now the caller's), or undefined.
 */
export function takeEarlyPassWorker(): Worker | undefined {
  return _early.shift();
}
