/**
 * Options of SGLD: the shared stochastic-gradient options
 * (`samplers/sg/options.ts`); SGLD's defaults are in the table of
 * `samplers/sg/chain_sampler.ts`.
 *
 * @module
 */
import type { SgSamplerOptions } from "../sg/options.ts";

/** Options of the `"sgld"` registry entry. */
export type SgldOptions = SgSamplerOptions;
