/**
 * HMC-ECS as a chain sampler and as a registry entry: the composition of the
 * proxy (./proxy.ts, centred by ./centring.ts), the u-update
 * (./subsample_update.ts) and the θ-update (`hmc.step`, ./kernel.ts), with
 * the warmup (./warmup.ts) in the `adapt` hooks.
 *
 * ```
 *  init(θ₀, rng)     θ* (subset MAP + Newton, or given) → the chain's own proxy;
 *                    m or (λ, a) from a pilot → the chain's own subsample;
 *                    ε₀ by Hoffman & Gelman's heuristic; M₀ = Laplace
 *  step(rng, s, …)   kernel.step(rng, s.kernel, {ε, M, L, prior})
 *  adapt             warmupUpdate / warmupFinish
 *  dispose(s)        frees this chain's subsample and control variates only
 * ```
 *
 * Each chain's engine is created in `init` and freed in `dispose`: chain k's
 * draws do not depend on the other chains, and disposing one chain leaves the
 * others' memory alone.
 *
 * References: Dang et al. (2019), Algorithm 1, §4–6.3.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { findReasonableStepSize } from "../dual_averaging.ts";
import * as hmc from "../hmc/kernel.ts";
import { identityMetric, type Metric, metricFromNegativeHessian } from "../metric.ts";
import type { ChainSampler, SamplerDescription, StepInfo } from "../sampler.ts";
import { checkHmcEcsAssumptions, guardHmcEcsChain } from "./assumptions.ts";
import { initialCentring, retune } from "./centring.ts";
import * as kernel from "./kernel.ts";
import { type HmcEcsOptions, resolveHmcEcsOptions } from "./options.ts";
import { hmcEcsSupport } from "./proxy.ts";
import type { HmcEcsEngine, HmcEcsState } from "./state.ts";
import { warmupFinish, warmupInit, warmupUpdate } from "./warmup.ts";

/** The HMC-ECS chain sampler: a ChainSampler whose warmup, tuning and dispose are always there. */
export type HmcEcsChainSampler =
  & ChainSampler<HmcEcsState, kernel.HmcEcsInfo>
  & Required<Pick<ChainSampler<HmcEcsState, kernel.HmcEcsInfo>, "adapt" | "tuning" | "dispose">>;

/**
 * The HMC-ECS chain sampler for one run: validates the options and
 * allocates nothing until a chain's `init`.
 *
 * @param model A GlmModel, a ThreadedGlmModel (full-data passes on its threads), an
 *   ExternalGlmModel, or any DataModel (order-2 control variates need per-row Hessians,
 *   `PerRowHessianModel`; without them the order is 1).
 * @param options Variant, control variates, tuning ({@link HmcEcsOptions}).
 * @returns The chain sampler; call `dispose(state)` when a chain ends.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../../examples/models/normal_gamma.ts";
 * import { Rng } from "../../random/rng.ts";
 * import { hmcEcsChainSampler } from "./chain_sampler.ts";
 * const x = Float64Array.from({ length: 2000 }, (_, i) => 1 + Math.sin(i));
 * const sampler = hmcEcsChainSampler(new NormalGammaModel(x), { numWarmup: 0, pilotSize: 200 });
 * const rng = new Rng(1);
 * let s = sampler.init(new Float64Array([0, 1]), rng);
 * for (let i = 0; i < 20; i++) s = sampler.step(rng, s, "sampling", i).state;
 * assert.ok(Math.abs(sampler.position(s)[0] - 1) < 0.1);
 * sampler.dispose(s);
 * ```
 * References: Dang et al. (2019), Algorithm 1, §6.3.
 */
export function hmcEcsChainSampler(
  model: Model,
  options: HmcEcsOptions = {},
): HmcEcsChainSampler {
  // What the model can do is decided here, once; nothing below looks at the model's kind.
  const support = hmcEcsSupport(model);
  const m = support.model;
  const o = resolveHmcEcsOptions(m, options, support);
  checkHmcEcsAssumptions(m, o);
  const d = m.dim;
  const logPriorFn: kernel.LogPriorFn = (theta, grad) => m.logPrior(theta, grad);
  const paramsOf = (state: HmcEcsState): kernel.HmcEcsParams => ({
    stepSize: state.stepSize,
    metric: state.metric,
    numIntegrationSteps: o.numIntegrationSteps,
    trajectoryLength: o.numIntegrationSteps === undefined ? o.trajectoryLength : undefined,
    maxNumIntegrationSteps: o.maxNumIntegrationSteps,
    divergenceThreshold: o.divergenceThreshold,
    logPriorFn,
    // The driver steps each state once and reads its position without keeping it.
    reuseBuffers: true,
  });
  const adaptMetric = o.metric === undefined && o.updateEvery > 0;

  return guardHmcEcsChain({
    init(position, rng) {
      if (position.length !== d) {
        throw new RangeError(`position must have length ${d}, got ${position.length}`);
      }
      const c = initialCentring(support, rng, { o, position });
      try {
        const training = o.variant === "signed" &&
          (o.signedTraining ??
            (o.thetaStar === undefined && o.maxNewtonSteps === 0 && o.updateEvery > 0 &&
              o.numWarmup > o.updateEvery));
        const estimator = retune(c.proxy, {
          current: null,
          variant: training ? "perturbed" : o.variant,
          precision: c.precision,
          scale: c.scale,
          rng,
          o,
        });
        const engine: HmcEcsEngine = {
          proxy: c.proxy,
          estimator,
          targetVariant: o.variant,
          training,
          numCenterings: 1 + c.numNewtonSteps,
          numNewtonSteps: c.numNewtonSteps,
          numSkippedCenterings: 0,
          toleratedDistance: c.toleratedDistance,
        };
        const start = o.startAtThetaStar ? c.thetaStar : position;
        const fresh = kernel.init(start, estimator, logPriorFn);
        let metric: Metric;
        if (o.metric !== undefined) metric = o.metric;
        else if (typeof o.initialMetric === "object") metric = o.initialMetric;
        else if (o.initialMetric === "identity") metric = identityMetric(d);
        else metric = metricFromNegativeHessian(c.precision.map((v) => -v));
        const last = { estimate: fresh.subsample.estimate, gradient: fresh.subsample.gradient };
        const stepSize = o.stepSize ??
          findReasonableStepSize(fresh.hmc, rng, {
            logDensityAndGradientFn: kernel.logDensityFn(estimator, logPriorFn, last),
            metric,
          });
        // The probe moved the estimator's buffers: evaluate at θ₀ again.
        const state = kernel.init(start, estimator, logPriorFn);
        const warmup = o.numWarmup > 0
          ? warmupInit(d, {
            numWarmup: o.numWarmup,
            stepSize,
            adaptStepSize: o.adaptStepSize,
            targetAcceptanceRate: o.targetAcceptanceRate,
            metric,
            updateEvery: adaptMetric ? o.updateEvery : 0,
          })
          : null;
        return { kernel: state, stepSize, metric, warmup, engine };
      } catch (e) {
        c.proxy.dispose();
        throw e;
      }
    },

    step(rng, state) {
      const r = kernel.step(rng, state.kernel, paramsOf(state));
      return { state: { ...state, kernel: r.state }, info: r.info };
    },

    position: (state) => state.kernel.hmc.position,

    adapt: {
      update: (state, context) =>
        warmupUpdate(state, {
          acceptanceRate: context.info.acceptanceRate,
          rng: context.rng,
          support,
          o,
        }),
      finish: (state) => warmupFinish(state),
    },

    tuning(state) {
      const e = state.engine, u = e.estimator;
      return {
        variant: e.targetVariant,
        controlVariateOrder: e.proxy.order,
        stepSize: state.stepSize,
        numIntegrationSteps: o.numIntegrationSteps ??
          hmc.numStepsForTrajectory(o.trajectoryLength, {
            stepSize: state.stepSize,
            max: o.maxNumIntegrationSteps,
          }),
        inverseMassMatrix: state.metric.inverseMassMatrix,
        thetaStar: Float64Array.from(e.proxy.thetaStar),
        numCenterings: e.numCenterings,
        numSkippedCenterings: e.numSkippedCenterings,
        numNewtonSteps: e.numNewtonSteps,
        toleratedDistance: e.toleratedDistance,
        subsampleSize: u.variant === "perturbed" ? u.subsampleSize : null,
        numBlocks: u.variant === "perturbed" ? u.numBlocks : null,
        batchSize: u.variant === "signed" ? u.batchSize : null,
        numProducts: u.variant === "signed" ? u.numProducts : null,
        numRefreshed: u.variant === "signed" ? u.numRefreshed : null,
        lowerBound: u.variant === "signed" ? u.lowerBound : null,
      };
    },

    dispose(state) {
      state.engine.estimator.dispose();
      state.engine.proxy.dispose();
    },
  }, m);
}

/**
 * The registry entry of HMC-ECS (perturbed and signed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hmcEcsDescription } from "./chain_sampler.ts";
 * assert.equal(hmcEcsDescription.name, "hmc-ecs");
 * assert.equal(hmcEcsDescription.requires, "data-model");
 * ```
 */
export const hmcEcsDescription: SamplerDescription<HmcEcsOptions> = {
  name: "hmc-ecs",
  summary: "HMC with energy-conserving subsampling: perturbed (variant " +
    '"perturbed") or signed block-Poisson (variant "signed") likelihood estimates',
  references: "Dang, Quiroz, Kohn, Tran & Villani (2019), Algorithm 1, eqs. 5–18, §6.3",
  requires: "data-model",
  // The default perturbed variant samples a perturbed posterior within
  // O(1/(n m²)) of the exact one (eq. 13); the signed variant is exact only
  // through the sign-corrected estimator (eq. 17).
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
      name: "controlVariateOrder",
      flag: "cv-order",
      type: "choice",
      choices: ["0", "1", "2"],
      default: "2",
      help: "Taylor order of the control variates",
    },
  ],
  build: (model, options, plan) =>
    hmcEcsChainSampler(model, {
      ...options,
      numWarmup: options.numWarmup ?? plan?.numWarmup,
    }) as unknown as ChainSampler<unknown, StepInfo>,
};
