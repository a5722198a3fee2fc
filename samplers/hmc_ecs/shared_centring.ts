/**
 * One initial centring for every chain of a run over a GLM in memory: the
 * chains' own `init` would each fit a subset, take the Newton steps with
 * their full-data passes and estimate B on a subsample — the same work four
 * times over the same rows, landing at the same full-data MAP (within its
 * Newton tolerance). {@link sharedHmcEcsCentring} does it once and returns
 * the options that hand its θ*, S, A and B̂ (and the distance from the MAP
 * B̂ was sized for) to every chain (`centring`, no pass in the chains'
 * `init`) with the warm-up's re-centring rule of a chain
 * that centred itself, and dispersed starting points (Laplace draws about
 * θ*, one per chain), since the chains no longer start at θ*.
 *
 * It applies only where a chain of the default settings would have centred
 * itself by subset fits and full-data passes on the calling thread: an
 * in-memory GLM without pass threads, no θ* or centring given, Newton steps
 * on, a subsample B̂. Otherwise it returns null and the chains centre
 * themselves. At large n, where a chain keeps θ* off the MAP (one quasi-Newton
 * step on a subset, B̂ sized for θ*'s distance from the MAP, no Newton pass),
 * the centring carries that tolerated distance: every chain's pilot spreads
 * and its warm-up re-centres as a chain that centred there itself.
 *
 * References: Dang et al. (2019), §6.3; docs/time_to_posterior.md.
 *
 * @module
 */
import type { Model } from "../../models/model.ts";
import { ThreadedGlmModel } from "../../models/threaded_glm.ts";
import { Rng } from "../../random/rng.ts";
import { laplaceDraws } from "../../subsampling/tuning.ts";
import { cholesky, choleskySolve } from "../../math/linalg.ts";
import type { DataModel } from "../../models/model.ts";
import { initialCentring, positiveDefinitePrecision, precisionAtCenter } from "./centring.ts";
import type { ControlVariateProxy } from "./proxy.ts";
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
 *   passes (S and A summed in blocks, no per-row cache; the subset fits and
 *   B̂ stay on the calling thread). Its sums differ from one thread's only in
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
    ...(passes !== undefined ? { threads: passes } : {}),
  });
  try {
    const p = c.proxy;
    let tolerated = c.toleratedDistance, precision = c.precision, scale = c.scale;
    if (tolerated !== 0) {
      // θ* off the MAP: B̂'s error would tilt every chain alike (self-centred
      // chains' own θ* and B̂ tilt theirs independently, which the pooled
      // draws average). One Newton step with the exact A and that B̂ — one
      // more full-data pass, not one per chain — brings θ* to the MAP.
      const q = newtonStepKeepingB(p, m);
      if (q !== null) {
        tolerated = q < o.recenterTolerance ? 0 : 1.25 * Math.max(1, q);
        precision = precisionAtCenter(p, m);
        scale = tolerated > 0 ? Math.sqrt(1 + tolerated) : 1;
      }
    }
    const centring: PrecomputedCentring = {
      thetaStar: Float64Array.from(p.thetaStar),
      llStarSum: p.llStarSum,
      gradSum: Float64Array.from(p.gradSum),
      hessSum: Float64Array.from(p.hessSum),
      // A θ* kept off the MAP (large n): the distance its B̂ was sized for,
      // which a chain centred there itself would carry into its warm-up.
      ...(tolerated !== 0 ? { toleratedDistance: tolerated } : {}),
    };
    // Dispersed starts over the spread of the chains' pilot draws: the
    // Laplace sds, or √(1 + tolerated distance) of them about a θ* off the MAP.
    const starts = laplaceDraws(centring.thetaStar, {
      precision: positiveDefinitePrecision(precision),
      count: plan.numChains,
      rng,
      ...(tolerated !== 0 ? { scale } : {}),
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
 * One Newton step on log π from the proxy's θ*, keeping its B: θ* + P̂⁻¹g
 * with g = A + ∇log p(θ*), re-centred there (one full-data pass for S and
 * A; B, a subsample estimate at a θ* a few posterior sds away, is kept:
 * it differs from B at the new θ* far less than its own sampling error).
 * Back at the old θ* (one more pass) if log π did not increase or the step
 * left the likelihood's domain.
 *
 * @param proxy The control variates (re-centred in place).
 * @param model The model (its prior).
 * @returns gᵀP̂⁻¹g/d at the new θ*, or null when θ* did not move.
 */
function newtonStepKeepingB(proxy: ControlVariateProxy, model: DataModel): number | null {
  const d = proxy.dim, gPrior = new Float64Array(d);
  const decrement = (): number => {
    const g = new Float64Array(d);
    model.logPrior(proxy.thetaStar, gPrior);
    for (let i = 0; i < d; i++) g[i] = proxy.gradSum[i] + gPrior[i];
    const step = choleskySolve(cholesky(precisionAtCenter(proxy, model)), g);
    let dec = 0;
    for (let i = 0; i < d; i++) dec += g[i] * step[i];
    return dec / d;
  };
  const logPost = () => proxy.llStarSum + model.logPrior(proxy.thetaStar);
  const from = Float64Array.from(proxy.thetaStar), b = Float64Array.from(proxy.hessSum);
  let step: Float64Array;
  try {
    model.logPrior(from, gPrior);
    const g = gPrior.map((v, i) => v + proxy.gradSum[i]);
    step = choleskySolve(cholesky(precisionAtCenter(proxy, model)), g);
  } catch {
    return null; // P̂ not positive definite: stay
  }
  const before = logPost();
  try {
    proxy.recenter(from.map((v, i) => v + step[i]), { hessian: b });
    if (Number.isFinite(logPost()) && logPost() >= before) return decrement();
  } catch {
    // outside the likelihood's domain: back below
  }
  proxy.recenter(from, { hessian: b });
  return null;
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
