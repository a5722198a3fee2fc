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
 * itself by subset fits and full-data passes on the calling thread: an
 * in-memory GLM without pass threads, no θ* or centring given, Newton steps
 * on, a subsample B̂. Otherwise it returns null and the chains centre
 * themselves. At every n it goes to the MAP: the subset fit, the pass at its
 * θ*, then Newton passes with a fresh B̂ until the decrement falls below
 * `recenterTolerance` (`initialCentring`'s `toMap`). A chain centring itself
 * at large n instead stays off the MAP (a quasi-Newton step on a subset, B̂
 * sized for θ*'s distance): that saves each chain a Newton pass, but a
 * shared θ* off the MAP would tilt every chain alike by B̂'s error, and the
 * one Newton pass shared by all chains costs less than the subset step and
 * the larger B̂ it replaces (docs/time_to_posterior.md).
 *
 * References: Dang et al. (2019), §6.3; docs/time_to_posterior.md.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { ThreadedGlmModel } from "../../models/threaded_glm.ts";
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
 *   generator, seeded by it), number of chains, and optionally `passes`: a
 *   ThreadedGlmModel over `model` whose threads run the centring's full-data
 *   passes (S and A summed in blocks, no per-row cache; B̂'s rows summed there
 *   too; the subset fits stay on the calling thread). Its sums differ from one thread's only in
 *   the order of the block sums: |S_T − S_1| ≤ (n + T)·u·Σ|ℓₖ|, u = 2⁻⁵³,
 *   and likewise per coordinate of A (see models/threaded_glm.ts).
 * @returns The shared centring, the chains' options and starts; or null when
 *   the chains should centre themselves.
 * @throws {RangeError} As a chain's `init` would (no finite density at the
 *   subset fit's start, …).
 */
export function sharedHmcEcsCentring(
  model: Model,
  options: HmcEcsOptions,
  plan: { seed: number | string; numChains: number; passes?: ThreadedGlmModel },
): SharedHmcEcsCentring | null {
  let support = hmcEcsSupport(model);
  const rows = support.rows;
  if (rows.kind !== "compact-glm" || rows.passes !== null) return null;
  const passes = plan.passes;
  if (passes !== undefined) {
    if (passes.base !== rows.glm) {
      throw new TypeError("passes must be a ThreadedGlmModel over the run's model");
    }
    // The same rows, the sums of a centring on the threads, no per-row cache.
    support = { ...support, rows: { kind: "compact-glm", glm: rows.glm, passes, rowCache: false } };
  }
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
  const c = initialCentring(support, rng, {
    o,
    position: new Float64Array(d),
    toMap: true,
    ...(passes !== undefined ? { threads: passes } : {}),
  });
  try {
    const p = c.proxy;
    const centring: PrecomputedCentring = {
      thetaStar: Float64Array.from(p.thetaStar),
      llStarSum: p.llStarSum,
      gradSum: Float64Array.from(p.gradSum),
      hessSum: Float64Array.from(p.hessSum),
    };
    // Dispersed starts over the spread of the chains' pilot draws: the Laplace sds.
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

/**
 * Threads for the full-data passes of {@link sharedHmcEcsCentring}: a
 * ThreadedGlmModel with `threads` threads over `model`'s GLM when `model` is
 * a GLM in shared memory whose passes run on the calling thread, else null
 * (also when its workers cannot start: the centring then runs on the calling
 * thread). The caller closes it after the centring.
 *
 * @param model The run's model.
 * @param threads Threads, the calling one included (< 2: null).
 * @returns The threaded model, or null.
 */
export async function sharedCentringPasses(
  model: Model,
  threads: number,
): Promise<ThreadedGlmModel | null> {
  if (!(threads >= 2)) return null;
  const rows = hmcEcsSupport(model).rows;
  if (rows.kind !== "compact-glm" || rows.passes !== null) return null;
  try {
    // S and A by the ℓ, ∇ℓ kernel: one sweep over X per pass instead of two.
    return await ThreadedGlmModel.create(rows.glm, { threads, sumsInOneSweep: true });
  } catch {
    return null;
  }
}
