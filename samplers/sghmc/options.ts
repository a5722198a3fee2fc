/**
 * Options of SG-HMC: the shared stochastic-gradient options
 * (`samplers/sg/options.ts`); SG-HMC's defaults are in the table of
 * `samplers/sg/chain_sampler.ts`.
 *
 * @module
 */
import type { SgSamplerOptions } from "../sg/options.ts";

/** Options of the `"sghmc"` registry entry. */
export type SghmcOptions = SgSamplerOptions;
