/**
 * The registry entry `"hmc-ecs"`: a thin adapter around
 * {@link hmcEcsSampler} (perturbed or signed, option `variant`) until
 * HMC-ECS is restructured as a composition in its own folder.
 *
 * The chain sampler frees HMC-ECS's engines and control variates when each
 * chain ends (`dispose`); the next chain's `init` rebuilds them, so no chain
 * depends on another.
 *
 * References: Dang et al. (2019), Algorithm 1, §3–5 and §6.3.
 *
 * @module
 */
import { GlmModel } from "../models/glm.ts";
import { type HmcEcsInfo, type HmcEcsOptions, hmcEcsSampler, type HmcEcsState } from "./hmc_ecs.ts";
import type { ChainSampler, SamplerDescription, StepInfo } from "./sampler.ts";

/**
 * HMC-ECS as a registry entry (GLMs only for now).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hmcEcsDescription } from "./hmc_ecs_entry.ts";
 * assert.equal(hmcEcsDescription.name, "hmc-ecs");
 * ```
 */
export const hmcEcsDescription: SamplerDescription<HmcEcsOptions> = {
  name: "hmc-ecs",
  summary: "HMC with energy conserving subsampling (perturbed or signed), GLMs",
  references: "Dang et al. (2019) Algorithm 1, eqs. 12 and 15, §6.3",
  requires: "data-model",
  isExact: false,
  options: [
    {
      name: "variant",
      flag: "variant",
      type: "choice",
      choices: ["perturbed", "signed"],
      default: "perturbed",
      help: "likelihood estimator: perturbed (eq. 12) or signed block-Poisson (eq. 15)",
    },
    {
      name: "order",
      flag: "cv-order",
      type: "choice",
      choices: ["0", "1", "2"],
      default: "2",
      help: "Taylor order of the control variates",
    },
  ],
  build(model, options, plan) {
    if (!(model instanceof GlmModel)) {
      throw new TypeError("hmc-ecs runs on a GlmModel for now; use hmc for other models");
    }
    const sampler = hmcEcsSampler(model, { ...options, numWarmup: plan?.numWarmup ?? 1000 });
    const chain: ChainSampler<HmcEcsState, HmcEcsInfo> = {
      init: (position, rng) => sampler.init(position, rng),
      step: (rng, state, phase, iteration) => sampler.step(rng, state, phase, iteration),
      position: (state) => sampler.position(state),
      adapt: sampler.adapt,
      tuning: (state) => sampler.tuning?.(state) ?? {},
      dispose: () => sampler.dispose(),
    };
    return chain as unknown as ChainSampler<unknown, StepInfo>;
  },
};
