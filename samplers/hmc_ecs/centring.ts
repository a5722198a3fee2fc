/**
 * The proxy's warmup steps (§6.3), each a function of the chain's proxy and
 * the model, composed by the warmup ({@link ./warmup.ts}) and the chain's
 * initialisation — never called by the kernel:
 *
 * ```
 *  initialCentring    θ* from a 1 % subset MAP (Newton on 0.1 % first; or given),
 *                     at large n moved by one quasi-Newton step on a larger subset
 *                     (refineFraction), the proxy centred there (B from the subset
 *                     fit's Hessian), then either B̂ on enough rows to stay there
 *                     (stayRows) or damped Newton steps towards the full-data MAP
 *  newtonToMap        each Newton step is one re-centring pass (ℓ, ∇ℓ) whose exact
 *                     A the control variates compute anyway; B is a subsample
 *                     estimate (centringHessian) unless hessianFraction is 1
 *  centringHessian    B̂ = (n/ñ)Σ_{k∈S}Hₖ(θ*) on max(hessianFraction·n, 2000·d) rows
 *  precisionAtCenter  P = −∇²log π(θ*) = −(B + ∇²log p(θ*)): the metric and the
 *                     pilot draws' precision
 *  recenterDistance   δᵀPδ/d, δ = θ̄ − θ*: is a scheduled re-centring worth a pass?
 *  retune             m (perturbed: Var ℓ̂ₘ ≈ target) or (λ, a) (signed: minimum
 *                     predicted CT, eq. 18) from a pilot at Laplace draws, and the
 *                     chain's subsample rebuilt when they change
 * ```
 *
 * References: Dang et al. (2019), §4.1, §5.1, §6.3, eq. 18; Quiroz et al. (2019).
 *
 * @module
 */
import { ParameterDomainError } from "../../core/reference.ts";
import { cholesky, choleskySolve, inverseFromCholesky, matVec } from "../../math/linalg.ts";
import { metricFromNegativeHessian } from "../metric.ts";
import type { DataModel } from "../../models/model.ts";
import type { Rng } from "../../random/rng.ts";
import { dataBasedStart } from "../optimize_start.ts";
import {
  blockPoissonTuning,
  chooseSubsampleSize,
  glmSubsetGradient,
  laplaceDraws,
  resolveSubsetMapOptions,
} from "../../subsampling/tuning.ts";
import type { HmcEcsVariant, ResolvedHmcEcsOptions } from "./options.ts";
import type { SubsamplingSupport } from "../../models/subsampling_support.ts";
import {
  beginThreadedSubset,
  type ListedRowsSums,
  subsampleHessian,
  type SubsetAhead,
  subsetFit,
  threadedSubsetGradient,
  threadedSubsetHessian,
} from "../../subsampling/subset_fit.ts";
import {
  type ControlVariateProxy,
  createProxy,
  type RecenterOptions,
  type SubsampleEstimator,
} from "./proxy.ts";

/**
 * −∇² log π at θ* from the control variates' B plus the prior, as a precision.
 *
 * @param proxy The chain's control variates.
 * @param model The model (its prior Hessian).
 * @returns P (d × d, row-major).
 */
export function precisionAtCenter(proxy: ControlVariateProxy, model: DataModel): Float64Array {
  const d = proxy.dim, priorHess = new Float64Array(d * d);
  model.logPriorHessian(proxy.thetaStar, priorHess);
  const out = new Float64Array(d * d);
  for (let i = 0; i < d * d; i++) out[i] = -(proxy.hessSum[i] + priorHess[i]);
  return out;
}

/**
 * P itself when it is positive definite, else the precision of the metric
 * {@link metricFromNegativeHessian} builds from it (P shrunk toward its
 * diagonal, as the warm-up's mass matrix is): away from the mode (a centring
 * at a warm-up window's mean on a posterior that is not log-concave) −∇² log π
 * can be indefinite, and the pilot's Laplace draws need a covariance.
 *
 * @param precision P (d × d, row-major).
 * @returns A positive-definite precision.
 */
export function positiveDefinitePrecision(precision: Float64Array): Float64Array {
  try {
    cholesky(precision, { name: "precision" });
    return precision;
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
  }
  const m = metricFromNegativeHessian(precision.map((v) => -v));
  return inverseFromCholesky(cholesky(m.inverseMassMatrix, { name: "inverse mass matrix" }));
}

/**
 * δᵀPδ/d for δ = θ̄ − θ*, P = −∇² log π(θ*): θ̄'s offset from θ* in
 * posterior sds², per dimension.
 *
 * @param proxy The chain's control variates.
 * @param model The model.
 * @param center θ̄.
 * @returns The squared offset per dimension.
 */
export function recenterDistance(
  proxy: ControlVariateProxy,
  model: DataModel,
  center: Float64Array,
): number {
  const d = proxy.dim;
  const delta = center.map((v, i) => v - proxy.thetaStar[i]);
  const pDelta = matVec(precisionAtCenter(proxy, model), delta);
  let q = 0;
  for (let i = 0; i < d; i++) q += delta[i] * pDelta[i];
  return q / d;
}

/**
 * The fraction of rows behind a subsample B̂: `hessianFraction`, but at least
 * 2000·d rows. B̂'s error tilts the sampled posterior (see
 * `HmcEcsOptions.hessianFraction`); measured at n = 10⁵, d = 10 with θ*
 * within ≈ 1 sd² per dimension of the MAP, the means moved by ≈ 0.08 sd with
 * 5000 rows and ≈ 0.045 sd with 10⁴; 2000·d rows keeps that shift ≲ 0.03 sd.
 *
 * @param model n and d.
 * @param hessianFraction The option.
 * @returns The fraction to draw (≤ 1).
 */
export function hessianSampleFraction(
  model: { readonly numRows: number; readonly dim: number },
  hessianFraction: number,
): number {
  return Math.min(1, Math.max(hessianFraction, (2000 * model.dim) / model.numRows));
}

/**
 * B for a centring at θ: undefined (the proxy's exact full-data Hessian pass)
 * when `hessianFraction` is 1, else the subsample estimate
 * (n/ñ)Σ_{k∈S}Hₖ(θ) on {@link hessianSampleFraction} of the rows (ñ Hessian
 * rows in `model.cost`).
 *
 * @param support What the model can do.
 * @param rng Generator for the subset.
 * @param options θ and the resolved options.
 * @returns The recentre options for {@link ControlVariateProxy.recenter}.
 */
export function centringHessian(
  support: SubsamplingSupport,
  rng: Rng,
  options: {
    theta: Float64Array;
    o: Pick<ResolvedHmcEcsOptions, "hessianFraction">;
    threads?: ListedRowsSums;
    ahead?: SubsetAhead | null;
  },
): RecenterOptions {
  if (options.o.hessianFraction >= 1) {
    options.ahead?.finish(null);
    return {};
  }
  const r = _subsampleHessian(
    support,
    rng,
    {
      theta: options.theta,
      fraction: hessianSampleFraction(support.model, options.o.hessianFraction),
    },
    options.threads,
    options.ahead ?? null,
  );
  return { hessian: r.hessian };
}

/**
 * {@link subsampleHessian}, or its threaded form (a sorted subset, each
 * thread summing its block's rows) when `threads` are given.
 */
function _subsampleHessian(
  support: SubsamplingSupport,
  rng: Rng,
  options: { theta: Float64Array; fraction: number },
  threads: ListedRowsSums | undefined,
  ahead: SubsetAhead | null = null,
): { hessian: Float64Array; numSubsetRows: number } {
  if (threads === undefined) {
    ahead?.finish(null);
    return subsampleHessian(support, rng, options);
  }
  return threadedSubsetHessian(threads, rng, { ...options, ahead });
}

/** The options {@link newtonToMap} reads besides the first step's B̂ subset. */
export type NewtonToMapOptions =
  & Pick<ResolvedHmcEcsOptions, "maxNewtonSteps" | "recenterTolerance" | "hessianFraction">
  & {
    /** Rows behind the proxy's current B when it is a subsample estimate. */
    hessianRows?: number;
    /** Threads for the passes and B̂. */
    threads?: ListedRowsSums;
  };

/**
 * Damped Newton on log π from the proxy's centre: each step solves P s = g
 * with g = A + ∇log p(θ*), P from the current centring, and re-centres at
 * θ* + t·s (halving t while log π drops; S = Σℓₖ(θ*) comes with the pass).
 * Stops when gᵀP⁻¹g/d < the re-centring tolerance. With the exact full-data
 * Hessian (`hessianFraction` 1), from more than ~5 sds per dimension away it
 * first re-centres at the MAP of a 10× larger subset; with a subsample
 * Hessian it steps straight from there (the gradient A is exact, so the step
 * lands within ‖I − P̂⁻¹P‖ of the MAP).
 *
 * @param proxy The chain's control variates (re-centred in place).
 * @param support What the model can do.
 * @param rng Generator for the subset fits and subsample Hessians.
 * @param o `maxNewtonSteps`, `recenterTolerance`, `hessianFraction`, the
 *   rows behind the proxy's current B when it is a subsample estimate, the
 *   `threads` for the passes and B̂, and `ahead`: the first step's B̂ subset
 *   if it was begun on a thread ({@link beginThreadedSubset} with `threads`,
 *   `rng` and {@link hessianSampleFraction}; the same rows, drawn while the
 *   caller worked).
 * @returns The number of re-centring passes made.
 */
export function newtonToMap(
  proxy: ControlVariateProxy,
  support: SubsamplingSupport,
  rng: Rng,
  o: NewtonToMapOptions & { ahead?: SubsetAhead | null },
): number {
  // The first step's B̂ subset if it was begun ahead (beginThreadedSubset
  // with `threads`, `rng` and hessianSampleFraction): taken by that B̂, or
  // dropped before any other draw and on the way out (rng then unmoved).
  let ahead = o.ahead ?? null;
  try {
    return _newtonToMap(proxy, support, rng, o, () => {
      const a = ahead;
      ahead = null;
      return a;
    });
  } finally {
    (ahead as SubsetAhead | null)?.finish(null);
  }
}

function _newtonToMap(
  proxy: ControlVariateProxy,
  support: SubsamplingSupport,
  rng: Rng,
  o: NewtonToMapOptions,
  takeAhead: () => SubsetAhead | null,
): number {
  const model = support.model;
  // Rows behind the current B (n when exact).
  let hessianRows = o.hessianRows ?? proxy.numRows;
  const d = proxy.dim;
  const gPrior = new Float64Array(d), g = new Float64Array(d), cand = new Float64Array(d);
  const tol = Math.max(o.recenterTolerance, 1e-6);
  const logPost = () => proxy.llStarSum + model.logPrior(proxy.thetaStar, gPrior);
  let passes = 0, fraction = 0.1;
  let lp = logPost();
  for (let k = 0; k < o.maxNewtonSteps; k++) {
    for (let i = 0; i < d; i++) g[i] = proxy.gradSum[i] + gPrior[i];
    let step: Float64Array;
    try {
      step = choleskySolve(cholesky(precisionAtCenter(proxy, model)), g);
    } catch {
      break; // not positive definite here: leave θ* to the warmup windows
    }
    let dec = 0;
    for (let i = 0; i < d; i++) dec += g[i] * step[i];
    if (!(dec / d >= tol)) break;
    if (o.hessianFraction < 1 && 2 * dec / hessianRows >= tol && hessianRows < proxy.numRows) {
      // A B̂ on ñ rows has relative error ≈ √(2d/ñ) per direction, so the step
      // lands ≈ q·2d/ñ sd² per dimension from the MAP: below the tolerance
      // only with ñ ≥ 2dq/tol rows — draw that many here (doubled for margin).
      const rows = Math.min(proxy.numRows, Math.ceil((4 * dec) / tol));
      takeAhead()?.finish(null);
      const r = _subsampleHessian(support, rng, {
        theta: proxy.thetaStar,
        fraction: rows / proxy.numRows,
      }, o.threads);
      hessianRows = r.numSubsetRows;
      proxy.hessSum.set(r.hessian);
      k--; // the same step, with the better B̂
      continue;
    }
    if (dec / d > 25 && fraction < 0.5 && o.hessianFraction >= 1) {
      // A small subset's θ*: full-data Newton overshoots where fitted
      // probabilities are ≈ 0 or 1, so take a 10× larger subset's MAP first.
      takeAhead()?.finish(null);
      const fit = subsetFit(support, rng, {
        fraction,
        initialPosition: proxy.thetaStar,
        tolerance: 0.05 * d,
      });
      fraction *= 10;
      proxy.recenter(fit.thetaStar);
      passes++;
      lp = logPost();
      continue;
    }
    const from = Float64Array.from(proxy.thetaStar);
    let t = 1, outside = false;
    for (let tries = 0; tries < 20 && passes < 2 * o.maxNewtonSteps; tries++) {
      for (let i = 0; i < d; i++) cand[i] = from[i] + t * step[i];
      const before = model.cost.numHessianRows;
      try {
        proxy.recenter(
          cand,
          centringHessian(support, rng, {
            theta: cand,
            o,
            threads: o.threads,
            ahead: takeAhead(),
          }),
        );
        outside = false;
      } catch (e) {
        // Outside the likelihood's domain (log σ or log φ beyond ±700): a
        // shorter step, never a stop.
        if (!(e instanceof ParameterDomainError)) throw e;
        outside = true;
        t /= 2;
        continue;
      }
      hessianRows = o.hessianFraction < 1 ? model.cost.numHessianRows - before : proxy.numRows;
      passes++;
      const next = logPost();
      if (next >= lp) {
        lp = next;
        break;
      }
      t /= 2;
    }
    if (outside) {
      // Every shorter step left the domain too: back to θ* and stop.
      takeAhead()?.finish(null);
      proxy.recenter(from, centringHessian(support, rng, { theta: from, o, threads: o.threads }));
      passes++;
      break;
    }
  }
  return passes;
}

/**
 * Nominal cost of one row's Hessian Hₖ in rows of ℓₖ and ∇ℓₖ: (d + 3)/8
 * (at least 1). A GLM Hessian row is d(d+1)/2 multiply-adds against the
 * gradient's 2d and a transcendental; measured by `measureHessianCostRatio`
 * at d = 30 the ratio is 3.4–5.4, this gives 4.1. A fixed formula, not a
 * timing, so that the warm-up's choices (and the draws) never depend on the
 * machine's load.
 *
 * @param dim d.
 * @returns w, nominal.
 */
export function nominalHessianRowCost(dim: number): number {
  return Math.max(1, (dim + 3) / 8);
}

/**
 * The rows a subsample B̂ needs for the control variates to stay centred at
 * a θ* that is q = gᵀP⁻¹g/d posterior sd² per dimension from the MAP:
 * 2000·d·max(1, q). B̂'s error E tilts the sampled posterior by the gradient
 * E(θ − θ*), whose size grows as √(q/ñ); 2000·d rows keep the shift
 * ≲ 0.03 sd within 1 sd² (see {@link hessianSampleFraction}), so q sd² need
 * q times the rows for the same shift.
 *
 * @param dim d.
 * @param q θ*'s squared distance from the MAP per dimension, in posterior sd².
 * @returns ñ.
 */
export function stayRows(dim: number, q: number): number {
  return Math.ceil(2000 * dim * Math.max(1, q));
}

/**
 * The fraction of rows for the quasi-Newton step that moves a 1 % subset θ*
 * towards the MAP before the one full-data centring pass, or null when that
 * does not pay. A subset of fraction f puts θ* q ≈ 1/f − 1 sd² per dimension
 * from the MAP, so staying there costs w·{@link stayRows}(d, q)/n passes of
 * Hessian rows plus the step's f: f = √(w·2000·d/n) minimises the sum. Only
 * when f ≤ 0.25 (n ≳ 4·10⁶ at d = 30) is that clearly under the full-data
 * Newton pass it replaces.
 *
 * @param model n and d.
 * @returns f, or null.
 */
export function refineFraction(
  model: { readonly numRows: number; readonly dim: number },
): number | null {
  const d = model.dim, n = model.numRows;
  const f = Math.sqrt((nominalHessianRowCost(d) * 2000 * d) / n);
  return f <= 0.25 ? f : null;
}

/**
 * After the centring pass at θ*: if a subsample B̂ that keeps the posterior
 * shift as small as a full-data Newton re-centring would costs at most half a
 * pass, draw it (the proxy's B) and return the squared distance per
 * dimension from the MAP within which the warm-up need not re-centre
 * (1.25·max(1, q)); else null (take Newton steps).
 *
 * @param proxy The chain's control variates (B replaced in place).
 * @param support What the model can do.
 * @param rng Generator for the B̂ rows.
 * @param heldRows Rows behind the proxy's current B (a subsample estimate), 0 if none.
 * @returns The tolerated distance, or null.
 */
function stayAtCenter(
  proxy: ControlVariateProxy,
  support: SubsamplingSupport,
  rng: Rng,
  heldRows: number,
  threads?: ListedRowsSums,
): number | null {
  const model = support.model, d = proxy.dim, n = proxy.numRows;
  const g = new Float64Array(d);
  model.logPrior(proxy.thetaStar, g);
  for (let i = 0; i < d; i++) g[i] += proxy.gradSum[i];
  let dec = 0;
  try {
    const step = choleskySolve(cholesky(precisionAtCenter(proxy, model)), g);
    for (let i = 0; i < d; i++) dec += g[i] * step[i];
  } catch {
    return null;
  }
  const q = dec / d;
  if (!Number.isFinite(q)) return null;
  const rows = stayRows(d, q);
  if (nominalHessianRowCost(d) * rows > n / 2) return null;
  // The rows behind the current B (the subset fit's, at a θ ≈ 10 subset sds
  // away, where B differs by far less than its sampling error) count towards
  // ñ: only the rest are drawn, and the two estimates are pooled by rows.
  const have = Math.min(heldRows, rows);
  if (have < rows) {
    const r = _subsampleHessian(support, rng, {
      theta: proxy.thetaStar,
      fraction: (rows - have) / n,
    }, threads);
    const total = have + r.numSubsetRows, b = proxy.hessSum;
    for (let i = 0; i < d * d; i++) b[i] = (have * b[i] + r.numSubsetRows * r.hessian[i]) / total;
  }
  // The warm-up's window means scatter about the MAP by their Monte Carlo
  // error (and q itself is from B's estimate): re-centre only 25 % beyond q,
  // where the shift is √1.25 ≈ 1.1× the one B̂ was sized for.
  return 1.25 * Math.max(1, q);
}

/** What {@link initialCentring} returns. */
export interface InitialCentring {
  /** The chain's control variates, centred at θ*. */
  proxy: ControlVariateProxy;
  /** θ* (a copy). */
  thetaStar: Float64Array;
  /** The Laplace precision at θ* (subset fit, or the full-data P). */
  precision: Float64Array;
  /** Inflation of the pilot draws' spread (√(n/ñ) for a subset θ*, else 1). */
  scale: number;
  /** Newton re-centring passes made. */
  numNewtonSteps: number;
  /**
   * θ*'s squared distance per dimension from the MAP that B was sized for
   * when the chain stays at a θ* found on subsets (0 otherwise): the warm-up
   * re-centres only beyond it.
   */
  toleratedDistance: number;
}

/**
 * θ* and the chain's control variates before its first step (§6.3): a given
 * θ* or the MAP of a `subsetFraction` subset (Newton from `position`), the
 * proxy centred there, then Newton centring towards the full-data MAP.
 *
 * @param support What the model can do.
 * @param rng The chain's generator.
 * @param options The resolved options and the chain's initial position;
 *   `threads` for the passes and subset sums; `toMap` to go to the MAP by
 *   Newton passes at every n (no quasi-Newton refinement on a subset, never
 *   a θ* kept off the MAP: what a centring shared by several chains wants,
 *   see ./shared_centring.ts).
 * @returns The proxy (owned by the caller), θ*, the precision and the pilot scale.
 */
export function initialCentring(
  support: SubsamplingSupport,
  rng: Rng,
  options: {
    o: ResolvedHmcEcsOptions;
    position: Float64Array;
    threads?: ListedRowsSums;
    toMap?: boolean;
  },
): InitialCentring {
  const model = support.model;
  const { o, position, threads } = options;
  const toMap = options.toMap === true;
  let thetaStar: Float64Array, precision: Float64Array | null = null, scale = 1;
  let hessian: RecenterOptions = {}, fitRows = 0;
  // The first Newton step's B̂ subset, begun on a pass thread (toMap).
  let newtonAhead: SubsetAhead | null = null;
  if (o.centring !== undefined) {
    // Centred elsewhere: θ* and S, A, B as given, no pass; Newton steps only if asked.
    // A θ* kept off the MAP carries the distance its B was sized for, as
    // below when the chain stays at a subset θ*.
    const proxy = createProxy(support, o.centring.thetaStar, o.controlVariateOrder, {
      sums: o.centring,
    });
    let numNewtonSteps = 0;
    try {
      if (o.maxNewtonSteps > 0) numNewtonSteps = newtonToMap(proxy, support, rng, o);
      const tolerated = numNewtonSteps === 0 ? o.centring.toleratedDistance ?? 0 : 0;
      return {
        proxy,
        thetaStar: Float64Array.from(proxy.thetaStar),
        precision: precisionAtCenter(proxy, model),
        scale: tolerated > 0 ? Math.sqrt(1 + tolerated) : 1,
        numNewtonSteps,
        toleratedDistance: tolerated,
      };
    } catch (e) {
      proxy.dispose();
      throw e;
    }
  }
  if (o.thetaStar !== undefined) {
    thetaStar = Float64Array.from(o.thetaStar);
    hessian = centringHessian(support, rng, { theta: thetaStar, o, threads });
  } else {
    // With Newton centring to follow, the subset MAP is only a starting
    // point ≈ √(n/ñ) posterior sds from the full-data MAP: stop its Newton
    // iterations once they move it by less than ~1 subset sd per dimension.
    const quick = o.hessianFraction < 1 && o.maxNewtonSteps > 0;
    const tolerance = quick ? 0.5 * model.dim : undefined;
    const rows = support.rows, f = quick && !toMap ? refineFraction(model) : null;
    // Whether the refinement below will draw its f-subset: the subset fit's
    // size is known before it runs.
    const refines = (fitSize: number) =>
      f !== null && rows.kind !== "per-row" && f > fitSize / model.numRows;
    // With pass threads, the refinement's rows are drawn on one of them while
    // this thread gathers the fit's rows and takes its Newton steps: the
    // generator's state is handed over once the fit has drawn its subset
    // (nothing else draws until the refinement), so the indices and the
    // generator's later numbers are the same.
    // Going to the MAP instead (toMap), the next draw after the fit's is the
    // first Newton step's B̂ subset: that one is drawn there.
    let ahead: SubsetAhead | null = null;
    const fitSize = resolveSubsetMapOptions(model.numRows, { fraction: o.subsetFraction }).sub;
    const drawAhead = threads === undefined ? undefined : f !== null && refines(fitSize)
      ? () => {
        ahead = beginThreadedSubset(threads, rng, f);
      }
      : toMap && o.hessianFraction < 1 && o.maxNewtonSteps > 0
      ? () => {
        newtonAhead = beginThreadedSubset(
          threads,
          rng,
          hessianSampleFraction(model, o.hessianFraction),
        );
      }
      : undefined;
    const dropAhead = () => {
      (ahead as SubsetAhead | null)?.finish(null);
      ahead = null;
      (newtonAhead as SubsetAhead | null)?.finish(null);
      newtonAhead = null;
    };
    const fitFrom = (from: Float64Array) => {
      let start = from;
      if (quick && o.subsetFraction * model.numRows >= 10000) {
        // Newton on a 10× smaller subset first: most iterations then cost a
        // tenth, and the full subset's fit needs one or two.
        const pre = subsetFit(support, rng, {
          fraction: o.subsetFraction / 10,
          initialPosition: from,
          tolerance,
        });
        start = pre.thetaStar;
      }
      try {
        return subsetFit(support, rng, {
          fraction: o.subsetFraction,
          initialPosition: start,
          tolerance,
          ...(drawAhead !== undefined ? { afterDraw: drawAhead } : {}),
        });
      } catch (e) {
        dropAhead();
        throw e;
      }
    };
    let fit;
    try {
      fit = fitFrom(position);
    } catch (e) {
      // No finite density at the chain's position (or the search left the
      // domain there): search again from the data-based start of a GLM.
      const fromData = dataBasedStart(model);
      if (!(e instanceof RangeError) || fromData === null) throw e;
      fit = fitFrom(fromData);
    }
    fitRows = fit.numSubsetRows;
    thetaStar = fit.thetaStar;
    precision = fit.precision;
    scale = Math.sqrt(model.numRows / fit.numSubsetRows);
    if (f !== null && rows.kind !== "per-row" && refines(fit.numSubsetRows)) {
      // One quasi-Newton step with the exact gradient of an f-subset and the
      // fit's precision: θ* lands near that subset's MAP (≈ 1/f − 1 sd² per
      // dimension from the full-data MAP) for f·n rows of ℓ and ∇ℓ — in
      // memory or read by index from an external GLM (shards, a row store).
      const g = new Float64Array(model.dim);
      model.logPrior(thetaStar, g);
      const r = threads !== undefined
        ? threadedSubsetGradient(threads, rng, { theta: thetaStar, fraction: f, ahead })
        : glmSubsetGradient(rows, rng, { theta: thetaStar, fraction: f });
      ahead = null;
      for (let i = 0; i < g.length; i++) g[i] += r.gradient[i];
      try {
        const step = choleskySolve(cholesky(precision), g);
        const moved = thetaStar.map((v, i) => v + step[i]);
        if (moved.every(Number.isFinite) && Number.isFinite(model.logPrior(moved, g))) {
          thetaStar = moved;
        }
      } catch {
        // not positive definite: keep the subset MAP
      }
    } else {
      (ahead as SubsetAhead | null)?.finish(null);
      ahead = null;
    }
    if (o.hessianFraction < 1) {
      // The subset fit's Hessian at θ* is already a subsample estimate of B.
      const priorHess = new Float64Array(precision.length);
      model.logPriorHessian(thetaStar, priorHess);
      hessian = { hessian: precision.map((v, i) => -v - priorHess[i]) };
    }
  }
  let proxy: ControlVariateProxy;
  try {
    proxy = createProxy(support, thetaStar, o.controlVariateOrder, hessian);
  } catch (e) {
    (newtonAhead as SubsetAhead | null)?.finish(null);
    throw e;
  }
  let numNewtonSteps = 0, toleratedDistance = 0;
  try {
    const stay = !toMap && o.hessianFraction < 1 && o.maxNewtonSteps > 0 &&
        o.recenterTolerance > 0 && o.thetaStar === undefined
      ? stayAtCenter(proxy, support, rng, hessian.hessian !== undefined ? fitRows : 0, threads)
      : null;
    if (stay !== null) {
      // B̂ sized for θ*'s distance from the MAP: no full-data Newton pass; the
      // pilot's Laplace draws spread over that distance.
      toleratedDistance = stay;
      thetaStar = Float64Array.from(proxy.thetaStar);
      precision = precisionAtCenter(proxy, model);
      scale = Math.sqrt(1 + stay);
    } else if (o.maxNewtonSteps > 0) {
      const first = newtonAhead;
      newtonAhead = null; // newtonToMap's now
      numNewtonSteps = newtonToMap(proxy, support, rng, {
        ...o,
        hessianRows: hessian.hessian !== undefined && fitRows > 0 ? fitRows : undefined,
        threads,
        ahead: first,
      });
      thetaStar = Float64Array.from(proxy.thetaStar);
      precision = null; // the full-data Hessian at the new θ*, below
    }
    if (precision === null) {
      precision = precisionAtCenter(proxy, model);
      scale = 1;
    }
  } catch (e) {
    proxy.dispose();
    throw e;
  } finally {
    (newtonAhead as SubsetAhead | null)?.finish(null); // no Newton step took it
  }
  return {
    proxy,
    thetaStar,
    precision,
    scale,
    numNewtonSteps,
    toleratedDistance,
  };
}

/**
 * Choose m (perturbed) or (λ, a) (signed) at the proxy's current θ* and
 * return the chain's subsample for `variant`: the current one when its size
 * is still right (a signed one gets the new a), else a fresh one (the old one
 * is disposed).
 *
 * @param proxy The chain's control variates.
 * @param options The current subsample (or null), the variant wanted, the
 *   precision and scale of the pilot draws, the generator, the resolved options.
 * @returns The chain's subsample estimator.
 */
export function retune(
  proxy: ControlVariateProxy,
  options: {
    current: SubsampleEstimator | null;
    variant: HmcEcsVariant;
    precision: Float64Array;
    scale: number;
    rng: Rng;
    o: ResolvedHmcEcsOptions;
  },
): SubsampleEstimator {
  const { variant, precision, scale, rng, o } = options;
  let current = options.current;
  if (current !== null && current.variant !== variant) {
    current.dispose();
    current = null;
  }
  const needPilot = variant === "perturbed"
    ? o.subsampleSize === undefined
    : o.numProducts === undefined || o.lowerBound === undefined;
  let pilot = null;
  if (needPilot) {
    const thetas = laplaceDraws(proxy.thetaStar, {
      precision: positiveDefinitePrecision(precision),
      count: o.numPilotDraws,
      rng,
      scale,
    });
    pilot = proxy.pilotDifferences(thetas, rng, o.pilotSize);
  }
  if (variant === "perturbed") {
    const m = o.subsampleSize ??
      chooseSubsampleSize(pilot!, {
        targetVariance: o.targetVariance,
        minSize: o.minSubsampleSize,
        maxSize: o.maxSubsampleSize,
      });
    const cur = current?.variant === "perturbed" ? current : null;
    if (cur !== null && Math.abs(cur.subsampleSize - m) <= 0.1 * cur.subsampleSize) return cur;
    cur?.dispose();
    return proxy.blockSubsample(rng, { subsampleSize: m, numBlocks: o.numBlocks });
  }
  // Batch size: given, or the smallest m_b ≤ 30 whose batch estimate d̂ has
  // sd ≤ 1, so that nearly exact control variates do not pay for 30-row batches.
  const mb = o.batchSize ??
    (pilot === null
      ? 30
      : chooseSubsampleSize(pilot, { targetVariance: 1, minSize: 2, maxSize: 30 }));
  const t = pilot === null ? null : blockPoissonTuning(pilot, {
    batchSize: mb,
    minProducts: o.productRange[0],
    maxProducts: o.productRange[1],
  });
  const lam = o.numProducts ?? t!.numProducts;
  const a = o.lowerBound ?? (t !== null ? t.differenceSum - lam : -lam);
  const cur = current?.variant === "signed" ? current : null;
  if (cur !== null && cur.numProducts === lam && cur.batchSize === mb) {
    cur.lowerBound = a;
    return cur;
  }
  cur?.dispose();
  return proxy.poissonSubsample(rng, {
    batchSize: mb,
    numProducts: lam,
    numRefreshed: Math.min(o.numRefreshed, lam),
    lowerBound: a,
  });
}
