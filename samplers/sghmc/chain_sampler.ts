/**
 * The registry entry `"sghmc"`: the SG-HMC kernel (kernel.ts) with the shared
 * stochastic-gradient set-up of `samplers/sg/chain_sampler.ts`.
 *
 * @module
 */
import type { SamplerDescription } from "../sampler.ts";
import { sgDescription } from "../sg/chain_sampler.ts";
import type { SgSamplerOptions } from "../sg/options.ts";

/** SG-HMC (Dang §6.2 form: M = Σ⁻¹(θ*), L = 1.2/ε, control variates by default). */
export const sghmcDescription: SamplerDescription<SgSamplerOptions> = sgDescription(
  "sghmc",
  "stochastic gradient HMC with friction (no MH correction; biased)",
  "Chen, Fox & Guestrin (2014) eqs. 13–15; Dang et al. (2019) §6.2",
);
