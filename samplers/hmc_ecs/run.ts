/**
 * `runHmcEcs`: HMC-ECS through the run driver, and the sign-corrected
 * posterior means of a signed run.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { signCorrectedMean } from "../../diagnostics/sign_corrected.ts";
import { type RunOptions, sampleChains, type SamplingResult } from "../driver.ts";
import type { HmcEcsOptions } from "./options.ts";
import { hmcEcsChainSampler } from "./chain_sampler.ts";
import { checkRunInputs } from "../option_names.ts";

/** Options of {@link runHmcEcs}: the sampler's and the driver's. */
export type RunHmcEcsOptions =
  & HmcEcsOptions
  & RunOptions;

/**
 * Run HMC-ECS with the common driver (default 4 chains, 1000 warmup + 1000
 * sampling iterations) and free every chain's memory afterwards.
 *
 * @param model A GlmModel, a ThreadedGlmModel (full-data passes on its threads), an
 *   ExternalGlmModel, or any DataModel (order-2 control variates: with per-row Hessians).
 * @param options Sampler options ({@link HmcEcsOptions}) and driver options.
 * @returns The driver's result; per-iteration `subsampleAcceptanceRate`,
 *   `acceptanceRate`, `sign`, `logLikelihoodVariance` are in
 *   `chains[c].info`, and `chains[c].tuning` holds ε, L, m or (λ, a), θ*, M⁻¹.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../../core/load.ts";
 * import { higgsShaped } from "../../data/synthetic.ts";
 * import { GlmModel } from "../../models/glm.ts";
 * import { runHmcEcs } from "./run.ts";
 * const arena = loadCore();
 * const { data } = higgsShaped(arena, { n: 20000, seed: 3 });
 * const model = new GlmModel(data, { family: "logistic", priorScale: 10 });
 * const r = runHmcEcs(model, { seed: 1, numWarmup: 200, numSamples: 100, numChains: 1 });
 * assert.equal(r.chains[0].tuning.variant, "perturbed");
 * assert.equal(r.chains[0].info.sampling.subsampleAcceptanceRate.length, 100);
 * ```
 * References: Dang et al. (2019), Algorithm 1, §6.3.
 */
export function runHmcEcs(model: Model, options: RunHmcEcsOptions): SamplingResult {
  checkRunInputs("runHmcEcs", model, options);
  const numWarmup = options.numWarmup ?? 1000;
  const sampler = hmcEcsChainSampler(model, { ...options, numWarmup });
  // The driver disposes every chain's engine when that chain ends.
  return sampleChains({ ...options, numWarmup, sampler, model });
}

/**
 * Sign-corrected posterior means Î_R = Σⱼ θ⁽ʲ⁾s⁽ʲ⁾ / Σⱼ s⁽ʲ⁾ per parameter,
 * pooling chains (eq. 17); equals the plain mean when every sign is +1.
 *
 * @param result A run's result whose sampling info has a `sign` field.
 * @returns One mean per parameter.
 * @example
 * ```ts ignore
 * import { signCorrectedMeans } from "./run.ts";
 * const means = signCorrectedMeans(result); // result of runHmcEcs({variant: "signed"})
 * ```
 * References: Dang et al. (2019), eq. 17; Lyne et al. (2015).
 */
export function signCorrectedMeans(result: SamplingResult): Float64Array {
  const d = result.parameterNames.length;
  const out = new Float64Array(d);
  const signs: number[] = [];
  for (const c of result.chains) {
    const s = c.info.sampling.sign;
    if (s === undefined) throw new RangeError("the run recorded no `sign` info field");
    for (let k = 0; k < result.numDraws; k++) signs.push(s[k * result.thin]);
  }
  for (let j = 0; j < d; j++) {
    const v: number[] = [];
    for (const c of result.chains) for (const x of c.draws[j]) v.push(x);
    out[j] = signCorrectedMean(v, signs);
  }
  return out;
}
