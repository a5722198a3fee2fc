/**
 * Options of CCAdL: the shared stochastic-gradient options
 * (`samplers/sg/options.ts`); CCAdL's defaults are in the table of
 * `samplers/sg/chain_sampler.ts`.
 *
 * @module
 */
import type { SgSamplerOptions } from "../sg/options.ts";

/** Options of the `"ccadl"` registry entry. */
export type CcadlOptions = SgSamplerOptions;
