/**
 * Options of SGNHT: the shared stochastic-gradient options
 * (`samplers/sg/options.ts`); SGNHT's defaults are in the table of
 * `samplers/sg/chain_sampler.ts`.
 *
 * @module
 */
import type { SgSamplerOptions } from "../sg/options.ts";

/** Options of the `"sgnht"` registry entry. */
export type SgnhtOptions = SgSamplerOptions;
