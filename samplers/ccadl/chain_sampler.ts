/**
 * The registry entry `"ccadl"`: the CCAdL kernel (kernel.ts) with the shared
 * stochastic-gradient set-up of `samplers/sg/chain_sampler.ts`.
 *
 * @module
 */
import type { SamplerDescription } from "../sampler.ts";
import { sgDescription } from "../sg/chain_sampler.ts";
import type { SgSamplerOptions } from "../sg/options.ts";

/** CCAdL (covariance-controlled adaptive Langevin, plain minibatches by default). */
export const ccadlDescription: SamplerDescription<SgSamplerOptions> = sgDescription(
  "ccadl",
  "covariance-controlled adaptive Langevin thermostat (no MH correction; biased)",
  "Shang et al. (2015) Algorithm 1",
);
