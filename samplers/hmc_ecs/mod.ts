/**
 * HMC with Energy Conserving Subsampling (HMC-ECS), perturbed and signed, as
 * a Gibbs composition over the product state {θ, u}:
 *
 * ```
 *  options.ts           HmcEcsOptions, defaults and checks
 *  proxy.ts             the control variates and subsample estimators a chain owns
 *   ├ proxy_glm.ts        GLMs: the per-row cache (η*, ℓ*, a, b) and estimators in WASM
 *   └ proxy_rows.ts       any PerRowHessianModel: per-row ℓ*, ∇ℓ*, H* in TypeScript
 *  centring.ts          warmup steps of the proxy: subset θ*, Newton centring,
 *                       the precision at θ*, m or (λ, a) from a pilot
 *  subsample_update.ts  the u-update (eq. 5): block Gibbs (perturbed, eq. 12) or
 *                       block-Poisson with signs (signed, eq. 15)
 *  kernel.ts            step = u-update, then hmc.step on log L̂(θ; u) + log p(θ)
 *  warmup.ts            dual averaging + §6.3 re-centring / metric / re-tuning
 *  chain_sampler.ts     the ChainSampler and the registry entry "hmc-ecs"
 *  run.ts               runHmcEcs through the driver; sign-corrected means (eq. 17)
 * ```
 *
 * Perturbed: log L̂ = ℓ̂ₘ − σ̂²ₘ/2 (eq. 12). Signed: log|L̂| of the
 * block-Poisson estimator (eq. 15) with the sign recorded per draw; estimate
 * posterior expectations with {@link signCorrectedMeans} (eq. 17). Use the
 * signed variant with second-order control variates: for a fixed u, |L̂(θ)|
 * has zeros where a mini-batch estimate crosses a and grows polynomially
 * beyond them, and only the Gaussian factor exp(Σq) of order 2 keeps that
 * region's mass negligible.
 *
 * Tuning (warmup only, §6.3): θ* from the MAP of a 1 % subset or given; by
 * default θ* is then moved to the full-data MAP by damped Newton steps, each
 * one re-centring pass; the chain starts at θ*, M⁻¹ at the Laplace
 * covariance; every `updateEvery` = 200 warmup iterations θ* moves to the
 * window's mean (unless within `recenterTolerance`), the control variates are
 * re-centred (one full-data pass that also yields B = ΣHₖ(θ*)),
 * M⁻¹ = (−∇²log π(θ*))⁻¹ from that pass, and m (perturbed: Var ℓ̂ₘ ≈
 * `targetVariance`) or (λ, a) (signed: minimum predicted CT, eq. 18) are
 * re-chosen from a pilot at Laplace draws. ε is tuned by dual averaging with
 * εL = 1.2 and target acceptance 0.8. Every row evaluation, including the
 * subset fit, pilots and full-data passes, is added to `model.cost`.
 *
 * References: Dang et al. (2019), Algorithm 1, eqs. 5, 7, 8–18, §6.3;
 * Quiroz et al. (2019, 2018b); Neal (2011); Hoffman & Gelman (2014).
 *
 * @module
 */
export type { PerRowHessianModel } from "../../models/model.ts";
export type { CentringSums, HmcEcsOptions, HmcEcsVariant, PrecomputedCentring } from "./options.ts";
export type {
  BlockSubsampleSettings,
  ControlVariateProxy,
  HmcEcsModel,
  LikelihoodEstimate,
  PerturbedEstimator,
  PoissonSubsampleSettings,
  RecenterOptions,
  SignedEstimator,
  SubsampleEstimator,
  SubsampleEstimatorBase,
} from "./proxy.ts";
export type { HmcEcsInfo, HmcEcsKernelState, HmcEcsParams, LogPriorFn } from "./kernel.ts";
export type { SubsampleState } from "./subsample_update.ts";
export type { HmcEcsWarmupState } from "./warmup.ts";
export type { HmcEcsEngine, HmcEcsState } from "./state.ts";
export { hmcEcsChainSampler, hmcEcsDescription } from "./chain_sampler.ts";
export { runHmcEcs, type RunHmcEcsOptions, signCorrectedMeans } from "./run.ts";
export { measureHessianCostRatio, type PassEquivalents, passEquivalents } from "./passes.ts";
