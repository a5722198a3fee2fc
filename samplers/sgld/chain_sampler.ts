/**
 * The registry entry `"sgld"`: the SGLD kernel (kernel.ts) with the shared
 * stochastic-gradient set-up of `samplers/sg/chain_sampler.ts`.
 *
 * @module
 */
import type { SamplerDescription } from "../sampler.ts";
import { sgDescription } from "../sg/chain_sampler.ts";
import type { SgSamplerOptions } from "../sg/options.ts";

/** SGLD (fixed step, control variates by default). */
export const sgldDescription: SamplerDescription<SgSamplerOptions> = sgDescription(
  "sgld",
  "stochastic gradient Langevin dynamics (fixed step, no MH correction; biased)",
  "Welling & Teh (2011); Dang et al. (2019) §6.2",
);
