/**
 * What the stochastic-gradient samplers (sgld/, sghmc/, sgnht/, ccadl/)
 * share: parameter checks and divergence rules (common.ts), their options
 * (options.ts) and the set-up and chain sampler every one of them builds
 * (chain_sampler.ts).
 *
 * @module
 */
export * from "./common.ts";
export * from "./options.ts";
export * from "./chain_sampler.ts";
