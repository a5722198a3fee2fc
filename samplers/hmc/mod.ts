/**
 * Full-data HMC: the kernel (`init`, `step`), its options, the chain sampler
 * with its warm-up, the registry entry and the typed runner.
 *
 * @module
 */
export * from "./kernel.ts";
export * from "./options.ts";
export * from "./warmup.ts";
export * from "./chain_sampler.ts";
export * from "./run.ts";
