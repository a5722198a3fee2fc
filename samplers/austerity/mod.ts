/**
 * Approximate ("austerity") Metropolis–Hastings: the kernel (proposals,
 * `init`, `step`), its options, the registry entries `austerity-rwmh` and
 * `austerity-sgld`, and the typed runner.
 *
 * @module
 */
export * from "./kernel.ts";
export * from "./options.ts";
export * from "./chain_sampler.ts";
export * from "./run.ts";
