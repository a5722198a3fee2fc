/**
 * NUTS: the multinomial No-U-Turn Sampler Stan runs, with the shared
 * windowed warm-up. See docs/nuts.md.
 *
 * @module
 */
export { init, type NutsInfo, type NutsParams, type NutsState, step } from "./kernel.ts";
export { type NutsOptions, resolveNutsOptions } from "./options.ts";
export { type AdaptiveNutsState, nutsSampler } from "./chain_sampler.ts";
export { nutsDescription } from "./chain_sampler.ts";
export { runNuts } from "./run.ts";
