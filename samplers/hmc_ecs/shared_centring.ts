/**
 * One initial centring for every chain of a run over a GLM in memory: the
 * chains' own `init` would each fit a subset, take the Newton steps with
 * their full-data passes and estimate B on a subsample — the same work four
 * times over the same rows, landing at the same full-data MAP (within its
 * Newton tolerance). {@link sharedHmcEcsCentring} does it once and returns
 * the options that hand its θ*, S, A and B̂ to every chain (`centring`, no
 * pass in the chains' `init`) with the warm-up's re-centring rule of a chain
 * that centred itself, and dispersed starting points (Laplace draws about
 * θ*, one per chain), since the chains no longer start at θ*.
 *
 * It applies only where a chain of the default settings would have centred
 * at the MAP by Newton steps on the calling thread: an in-memory GLM without
 * pass threads, no θ* or centring given, Newton steps on, a subsample B̂, and
 * not the large-n rule that keeps θ* off the MAP (a chain's tolerated
 * distance). Otherwise it returns null and the chains centre themselves.
 *
 * References: Dang et al. (2019), §6.3; docs/time_to_posterior.md.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { Rng } from "../../random/rng.ts";
import { laplaceDraws } from "../../subsampling/tuning.ts";
import { initialCentring, positiveDefinitePrecision } from "./centring.ts";
import { type HmcEcsOptions, type PrecomputedCentring, resolveHmcEcsOptions } from "./options.ts";
import { hmcEcsSupport } from "./proxy.ts";

/** What {@link sharedHmcEcsCentring} found. */
export interface SharedHmcEcsCentring {
  /** θ*, S, A and B̂ of the one centring. */
  centring: PrecomputedCentring;
  /** Options to add to every chain's: the centring and the warm-up's rule. */
  options: Partial<HmcEcsOptions>;
  /** One starting point per chain: Laplace draws about θ*. */
  starts: Float64Array[];
  /** Full-data passes of ℓ and ∇ℓ the centring made. */
  numPasses: number;
}

/**
 * Centre once for `numChains` chains (see the module notes).
 *
 * @param model The run's model.
 * @param options The run's HMC-ECS options (as the chains get them).
 * @param plan The run's seed (the centring and the starts draw from their own
 *   generator, seeded by it) and number of chains.
 * @returns The shared centring, the chains' options and starts; or null when
 *   the chains should centre themselves.
 * @throws {RangeError} As a chain's `init` would (no finite density at the
 *   subset fit's start, …).
 */
export function sharedHmcEcsCentring(
  model: Model,
  options: HmcEcsOptions,
  plan: { seed: number | string; numChains: number },
): SharedHmcEcsCentring | null {
  const support = hmcEcsSupport(model);
  const rows = support.rows;
  if (rows.kind !== "compact-glm" || rows.passes !== null) return null;
  const o = resolveHmcEcsOptions(support.model, options, support);
  if (
    o.centring !== undefined || o.thetaStar !== undefined || o.maxNewtonSteps === 0 ||
    o.hessianFraction >= 1 || o.recenterTolerance === 0
  ) {
    return null;
  }
  const m = support.model, d = m.dim;
  const rng = new Rng(`hmc-ecs-shared-centring:${plan.seed}`);
  const before = m.cost.numGradRows;
  const c = initialCentring(support, rng, { o, position: new Float64Array(d) });
  try {
    if (c.toleratedDistance !== 0) return null;
    const p = c.proxy;
    const centring: PrecomputedCentring = {
      thetaStar: Float64Array.from(p.thetaStar),
      llStarSum: p.llStarSum,
      gradSum: Float64Array.from(p.gradSum),
      hessSum: Float64Array.from(p.hessSum),
    };
    const starts = laplaceDraws(centring.thetaStar, {
      precision: positiveDefinitePrecision(c.precision),
      count: plan.numChains,
      rng,
    });
    return {
      centring,
      options: {
        centring,
        startAtThetaStar: false,
        // A chain that centred itself: re-centre in warm-up past 1 sd² (not never),
        // with B̂ on a subsample.
        recenterTolerance: o.recenterTolerance,
        hessianFraction: o.hessianFraction,
        maxNewtonSteps: 0,
      },
      starts,
      numPasses: Math.round((m.cost.numGradRows - before) / m.numRows),
    };
  } finally {
    c.proxy.dispose();
  }
}
