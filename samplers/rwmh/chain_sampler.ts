/**
 * Random-walk Metropolis–Hastings as users call it: the {@link rwmh.step}
 * kernel with Robbins–Monro scale adaptation in warmup, run by the driver.
 *
 * References: Roberts, Gelman & Gilks (1997); Andrieu & Thoms (2008).
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import type { ChainSampler, Phase, SamplerDescription } from "../sampler.ts";
import { cholesky } from "../../math/linalg.ts";
import * as rwmh from "./kernel.ts";
import {
  scaleAdaptationInit,
  type ScaleAdaptationState,
  scaleAdaptationUpdate,
} from "../scale_adaptation.ts";
import type { RwmhSamplerOptions } from "./options.ts";
import { positiveFinite } from "../validate_options.ts";

/** Per-chain state of {@link rwmhSampler}. */
export interface AdaptiveRwmhState {
  /** Kernel state. */
  readonly rwmh: rwmh.RwmhState;
  /** Scale used by the next step. */
  readonly scale: number;
  /** Adaptation state (null when not adapting or after warmup). */
  readonly adaptation: ScaleAdaptationState | null;
}

/**
 * The RWMH sampler description for the driver.
 *
 * @param model The target (its `logDensity` is used).
 * @param options Scale, proposal covariance and adaptation settings.
 * @returns A chain sampler for {@link sampleChains}.
 * @throws {RangeError} If `proposalCovariance` is not positive definite or `scale` not positive.
 *
 * @example
 * ```ts
 * import { rwmhSampler } from "./chain_sampler.ts";
 * import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
 * const s = rwmhSampler(gaussianTarget(new Float64Array(4), new Float64Array([1, 1, 1, 1])));
 * if (typeof s.step !== "function") throw new Error();
 * ```
 *
 * References: Roberts, Gelman & Gilks (1997); Andrieu & Thoms (2008).
 */
export function rwmhSampler(
  model: Model,
  options: RwmhSamplerOptions = {},
): ChainSampler<AdaptiveRwmhState, rwmh.RwmhInfo> {
  const dim = model.dim;
  const scale0 = options.scale ?? 2.38 / Math.sqrt(dim);
  positiveFinite("scale", scale0);
  const proposalCholesky = options.proposalCovariance === undefined
    ? undefined
    : cholesky(options.proposalCovariance, { name: "proposalCovariance" });
  if (proposalCholesky !== undefined && proposalCholesky.length !== dim * dim) {
    throw new RangeError(
      `proposalCovariance must be ${dim}×${dim}, got length ${proposalCholesky.length}`,
    );
  }
  const adaptScale = options.adaptScale ?? true;
  const logDensityFn = (theta: Float64Array): number => model.logDensity(theta);
  return {
    init(position, _rng) {
      if (position.length !== dim) {
        throw new RangeError(`position must have length ${dim}, got ${position.length}`);
      }
      return {
        rwmh: rwmh.init(position, logDensityFn),
        scale: scale0,
        adaptation: adaptScale
          ? scaleAdaptationInit(scale0, { targetAcceptanceRate: options.targetAcceptanceRate })
          : null,
      };
    },
    step(rng, state, _phase: Phase, _iteration) {
      const r = rwmh.step(rng, state.rwmh, { logDensityFn, scale: state.scale, proposalCholesky });
      return { state: { ...state, rwmh: r.state }, info: r.info };
    },
    position: (state) => state.rwmh.position,
    adapt: {
      update(state, context) {
        if (state.adaptation === null) return state;
        const adaptation = scaleAdaptationUpdate(state.adaptation, context.info.acceptanceRate);
        return { ...state, adaptation, scale: adaptation.scale };
      },
      finish: (state) => ({ ...state, adaptation: null }),
    },
    tuning: (state) => ({ scale: state.scale }),
  };
}

/**
 * The registry entry `"rwmh"`: random-walk Metropolis–Hastings with
 * Robbins–Monro scale adaptation in warmup ({@link rwmhSampler}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rwmhDescription } from "./chain_sampler.ts";
 * assert.equal(rwmhDescription.name, "rwmh");
 * ```
 */
export const rwmhDescription: SamplerDescription<RwmhSamplerOptions> = {
  name: "rwmh",
  summary: "random-walk Metropolis–Hastings, scale adapted to acceptance 0.234 in warmup",
  references: "Metropolis et al. (1953); Roberts, Gelman & Gilks (1997); Andrieu & Thoms (2008)",
  requires: "log-density",
  isExact: true,
  options: [
    {
      name: "scale",
      flag: "scale",
      type: "number",
      default: "2.38/√d, adapted in warmup",
      help: "initial proposal scale s",
    },
    {
      name: "targetAcceptanceRate",
      flag: "target-acceptance",
      type: "number",
      default: "0.234",
      help: "target acceptance rate of the scale adaptation",
    },
  ],
  build: (model, options) => rwmhSampler(model, options),
};
