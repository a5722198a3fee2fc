/**
 * The registry entry `"sgnht"`: the SGNHT kernel (kernel.ts) with the shared
 * stochastic-gradient set-up of `samplers/sg/chain_sampler.ts`.
 *
 * @module
 */
import type { SamplerDescription } from "../sampler.ts";
import { sgDescription } from "../sg/chain_sampler.ts";
import type { SgSamplerOptions } from "../sg/options.ts";

/** SGNHT (Nosé–Hoover thermostat, plain minibatches by default). */
export const sgnhtDescription: SamplerDescription<SgSamplerOptions> = sgDescription(
  "sgnht",
  "stochastic gradient Nosé–Hoover thermostat (no MH correction; biased)",
  "Ding et al. (2014); Shang et al. (2015) eq. 8",
);
