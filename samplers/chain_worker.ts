/**
 * The Web Worker that runs chains for {@link import("./parallel.ts").sampleParallel}.
 *
 * ```
 *  main ──{ type: "preload", sampler }──► worker   (optional: import the sampler's modules early)
 *  main ──{ type: "init", spec, region, sampler, own, plan, run }──► worker
 *         attachCore(spec.memory, region) → workerModelFromSpec → loadSampler(sampler).build
 *  main ◄─{ type: "ready" } | { type: "error", error }
 *  main ──{ type: "chain", chainId, start? }──► sampleChains({ chainIds: [chainId], … })
 *  main ◄─{ type: "progress" | "draws", … }* then { type: "chain", output } | { type: "error" }
 * ```
 *
 * Draws go back in batches ("draws": positions one after the other, and their
 * infos' numeric and boolean fields by column), sent when {@link DRAWS_BATCH_MS} have passed since the last batch and
 * before the chain's output: one message per draw cost more than an HMC-ECS
 * iteration, on the worker and on the calling thread that receives it. A
 * caller that stops the run waits longer than that for the draws on their way.
 *
 * Chain c draws from `new Rng(seed).stream(c)` here as in the calling
 * thread, over the same rows and the same kernels, so its draws are
 * bit-identical to the sequential run's.
 *
 * Only a worker loads this module (it sets the worker's `onmessage`); the
 * message types are in ./_chain_protocol.ts, the handler in ./_chain_role.ts
 * (which a pass worker handed over to the chains installs too, see
 * ./parallel.ts `adoptChainWorkers`).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { chainMessage } from "./_chain_role.ts";
import { phaseMark } from "./_phase_marks.ts";

phaseMark("worker-modules-loaded");

self.onmessage = chainMessage;

export { DRAWS_BATCH_MS, PROGRESS_MS } from "./_chain_role.ts";
