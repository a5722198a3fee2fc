/**
 * SG-HMC: the kernel (`init`, `step`), its options, the registry entry and
 * the typed runner.
 *
 * @module
 */
export * from "./kernel.ts";
export * from "./options.ts";
export * from "./chain_sampler.ts";
export * from "./run.ts";
