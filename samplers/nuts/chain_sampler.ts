/**
 * NUTS as the driver runs it: the {@link step multinomial NUTS kernel} with
 * the shared warm-up (samplers/window_adaptation.ts): a Newton start with a
 * Laplace draw and metric, then Stan's windows with dual averaging of ε on
 * the tree's mean acceptance statistic.
 *
 * References: Betancourt (2017), Appendix A; Stan Reference Manual,
 * "Automatic parameter tuning".
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { findReasonableStepSize } from "../dual_averaging.ts";
import type { HmcWarmupState, MetricAdaptation } from "../hmc/warmup.ts";
import type { LogDensityGradientFn } from "../integrators.ts";
import type { HessianFn } from "../mass_matrix_adaptation.ts";
import { identityMetric, type Metric } from "../metric.ts";
import { chainStart } from "../hmc/chain_sampler.ts";
import { givenStartInit, parseHmcInit } from "../hmc/options.ts";
import type { ChainSampler, SamplerDescription } from "../sampler.ts";
import { modelHessianFn, newtonStartSearch, windowAdaptation } from "../window_adaptation.ts";
import { init as nutsInit, type NutsInfo, type NutsState, step as nutsStep } from "./kernel.ts";
import { type NutsOptions, resolveNutsOptions } from "./options.ts";

/** Per-chain state of {@link nutsSampler}: the kernel state and its tuning. */
export interface AdaptiveNutsState {
  /** Kernel state. */
  readonly nuts: NutsState;
  /** ε of the next transition. */
  readonly stepSize: number;
  /** Metric of the next transition. */
  readonly metric: Metric;
  /** Warm-up adaptation state (null before the first warm-up iteration and after warm-up). */
  readonly warmup: HmcWarmupState | null;
  /** The metric scheme this chain adapts (`"auto"` resolved at init). */
  readonly metricAdaptation: MetricAdaptation;
  /** Why the start search did not reach a mode, or null. */
  readonly startWarning: string | null;
}

/**
 * The NUTS chain sampler for the driver.
 *
 * @param model The target.
 * @param options See {@link NutsOptions}.
 * @returns A chain sampler.
 * @throws {RangeError|TypeError} For a bad option, naming it and the value.
 *
 * @example
 * ```ts
 * import { nutsSampler } from "./chain_sampler.ts";
 * import { sampleChains } from "../driver.ts";
 * import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array([0]), new Float64Array([1]));
 * const r = sampleChains({ sampler: nutsSampler(model), model, seed: 1,
 *   numWarmup: 100, numSamples: 100, numChains: 1 });
 * if (!(r.chains[0].info.sampling.treeDepth.length === 100)) throw new Error();
 * ```
 *
 * References: Betancourt (2017), Appendix A; Stan Reference Manual, "Automatic parameter tuning".
 */
export function nutsSampler(
  model: Model,
  options: NutsOptions = {},
): ChainSampler<AdaptiveNutsState, NutsInfo> {
  const o = resolveNutsOptions(options);
  const dim = model.dim;
  const fn: LogDensityGradientFn = (theta, grad) => model.logDensityAndGradient(theta, grad);
  const init = parseHmcInit(options.init ?? "laplace");
  // The chain's metric unless a Laplace metric replaces it (as for hmc).
  let givenMetric: Metric;
  let metricAdaptation: MetricAdaptation | "auto";
  if (typeof o.metric === "string") {
    givenMetric = options.initialMetric ?? identityMetric(dim);
    if (givenMetric.dim !== dim) {
      throw new RangeError(
        `initialMetric must have the model's dimension ${dim}, got ${givenMetric.dim}`,
      );
    }
    metricAdaptation = o.metric === "identity" ? "none" : o.metric;
  } else {
    if (o.metric.dim !== dim) {
      throw new RangeError(`metric must have the model's dimension ${dim}, got ${o.metric.dim}`);
    }
    givenMetric = o.metric;
    metricAdaptation = "none";
  }
  const isLaplaceMetric = options.initialMetric === undefined && typeof o.metric === "string" &&
    metricAdaptation !== "none";
  let hessianFn: HessianFn | null = null;
  if (o.optimizationIterations > 0 && (init.kind === "laplace" || isLaplaceMetric)) {
    try {
      hessianFn = modelHessianFn(model);
    } catch {
      hessianFn = null; // no Hessian: start from the given point and metric
    }
  }
  const startSearch = newtonStartSearch(model, {
    logDensityAndGradientFn: fn,
    hessianFn,
    maxIterations: o.optimizationIterations,
  });
  const adaptation = windowAdaptation({
    logDensityAndGradientFn: fn,
    adaptStepSize: o.adaptStepSize,
    targetAcceptanceRate: o.targetAcceptanceRate,
    initialBuffer: options.initialBuffer,
    firstWindow: options.firstWindow,
    terminalBuffer: options.terminalBuffer,
  });
  const params = (state: AdaptiveNutsState) => ({
    logDensityAndGradientFn: fn,
    stepSize: state.stepSize,
    metric: state.metric,
    maxTreeDepth: o.maxTreeDepth,
    divergenceThreshold: o.divergenceThreshold,
  });

  return {
    init(position, rng) {
      if (position.length !== dim) {
        throw new RangeError(`position must have length ${dim}, got ${position.length}`);
      }
      const { start, metric, metricAdaptation: chainAdaptation, opt } = chainStart(
        { startSearch, init, givenMetric, metricAdaptation, isLaplaceMetric },
        position,
        rng,
      );
      const state = nutsInit(start, fn, { parameterNames: model.parameterNames });
      const stepSize = o.stepSize ??
        findReasonableStepSize(state, rng, { logDensityAndGradientFn: fn, metric });
      return {
        nuts: state,
        stepSize,
        metric,
        warmup: null,
        metricAdaptation: chainAdaptation,
        startWarning: opt?.warning ?? null,
      };
    },
    step(rng, state) {
      const r = nutsStep(rng, state.nuts, params(state));
      return { state: { ...state, nuts: r.state }, info: r.info };
    },
    position: (state) => state.nuts.position,
    adapt: {
      update(state, context) {
        const t = adaptation.update(state, {
          iteration: context.iteration,
          numWarmup: context.numWarmup,
          state: state.nuts,
          acceptanceRate: context.info.acceptanceRate,
          rng: context.rng,
          metricAdaptation: state.metricAdaptation,
          isAutoMetric: metricAdaptation === "auto",
        });
        return {
          ...state,
          stepSize: t.stepSize,
          metric: t.metric,
          warmup: t.warmup,
          metricAdaptation: t.metricAdaptation ?? state.metricAdaptation,
        };
      },
      finish(state) {
        const t = adaptation.finish(state);
        return { ...state, stepSize: t.stepSize, metric: t.metric, warmup: null };
      },
    },
    tuning(state) {
      return {
        metricAdaptation: state.metricAdaptation,
        ...(state.startWarning === null ? {} : { startWarning: state.startWarning }),
        stepSize: state.stepSize,
        maxTreeDepth: o.maxTreeDepth,
        metric: state.metric.kind,
        inverseMassMatrix: state.metric.inverseMassMatrix,
      };
    },
  };
}

/**
 * The registry entry `"nuts"`: multinomial NUTS with Stan's windowed
 * warm-up ({@link nutsSampler}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nutsDescription } from "./chain_sampler.ts";
 * assert.equal(nutsDescription.name, "nuts");
 * assert.equal(nutsDescription.isExact, true);
 * ```
 */
export const nutsDescription: SamplerDescription<NutsOptions> = {
  name: "nuts",
  summary:
    "full-data multinomial NUTS (as Stan): Newton start + Laplace draws and metric, Stan windows, dual averaging, max tree depth 10",
  references:
    "Hoffman & Gelman (2014) Algorithms 3, 5, 6; Betancourt (2017) Appendix A; Stan Reference Manual, Automatic parameter tuning",
  requires: "log-density",
  isExact: true,
  options: [
    {
      name: "metricAdaptation",
      flag: "metric",
      type: "choice",
      choices: ["identity", "diagonal", "dense", "auto"],
      default: "auto (as for hmc)",
      help: "metric (mass matrix) adaptation",
    },
    {
      name: "stepSize",
      flag: "step-size",
      type: "number",
      default: "Hoffman & Gelman's heuristic, then dual averaging in warmup",
      help: "initial step size ε",
    },
    {
      name: "targetAcceptanceRate",
      flag: "target-acceptance",
      type: "number",
      default: "0.8",
      help: "dual-averaging target acceptance rate",
    },
    {
      name: "maxTreeDepth",
      flag: "max-tree-depth",
      type: "integer",
      default: "10",
      help: "NUTS: most doublings of a trajectory (2^depth − 1 leapfrog steps)",
    },
  ],
  build: (model, options) => nutsSampler(model, givenStartInit(options)),
};
