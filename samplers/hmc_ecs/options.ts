/**
 * The options of HMC-ECS, their defaults and their checks.
 *
 * References: Dang et al. (2019), §6.3 (εL = 1.2, target acceptance 0.8,
 * θ* and M updated every 200 warmup iterations, 1 % subset MAP).
 *
 * @module
 */
import { orderTwoError, type SubsamplingSupport } from "../../models/subsampling_support.ts";
import type { TaylorOrder } from "../../subsampling/control_variates.ts";
import type { Metric } from "../metric.ts";
import { nonNegativeInteger } from "../validate_options.ts";

/** Which likelihood estimator HMC-ECS uses. */
export type HmcEcsVariant = "perturbed" | "signed";

/** S = Σₖℓₖ(θ*), A = Σₖ∇ℓₖ(θ*), B = ΣₖHₖ(θ*) at a θ*: one centring's sums. */
export interface CentringSums {
  /** S. */
  readonly llStarSum: number;
  /** A (length d). */
  readonly gradSum: Float64Array;
  /** B (d × d, row-major). */
  readonly hessSum: Float64Array;
}

/**
 * A centring computed elsewhere (e.g. the control-variate sums run as SQL
 * aggregates by a database or cluster): θ* and the sums there.
 */
export interface PrecomputedCentring extends CentringSums {
  /** θ* (length d). */
  readonly thetaStar: Float64Array;
  /**
   * θ*'s squared distance per dimension from the MAP, in posterior sd², that
   * B was sized for when θ* was found on subsets and kept off the MAP (the
   * large-n rule of `initialCentring`; default 0: θ* at the MAP). As for a
   * chain that centred itself there: its pilot draws spread over
   * √(1 + this) Laplace sds, and its warm-up re-centres only beyond
   * max(`recenterTolerance`, this).
   */
  readonly toleratedDistance?: number;
}

/** Options of HMC-ECS (`hmcEcsDescription`, `runHmcEcs`). */
export interface HmcEcsOptions {
  /** `"perturbed"` (eq. 12, default) or `"signed"` (eq. 15). */
  variant?: HmcEcsVariant;
  /**
   * Taylor order of the control variates (default 2; 1 for a DataModel
   * without `perRowHessians`, where 2 is refused). The command line's
   * `--cv-order`.
   */
  controlVariateOrder?: TaylorOrder;
  /** Warmup iterations the tuning is planned for (default 1000). */
  numWarmup?: number;
  /** εL (default 1.2, §6.3). Give this or `numIntegrationSteps`. */
  trajectoryLength?: number;
  /** Fixed L instead of εL. */
  numIntegrationSteps?: number;
  /** Cap on L (default 1000). */
  maxNumIntegrationSteps?: number;
  /** Initial ε (default: Hoffman & Gelman's heuristic at θ*). */
  stepSize?: number;
  /** Adapt ε by dual averaging in warmup (default true). */
  adaptStepSize?: boolean;
  /** Dual-averaging target (default 0.8). */
  targetAcceptanceRate?: number;
  /** Re-centre θ* and recompute M every this many warmup iterations (default 200; 0 = never). */
  updateEvery?: number;
  /**
   * Skip a scheduled re-centring when the window's mean θ̄ is still close to
   * θ*: re-centre only if δᵀPδ/d ≥ this, with δ = θ̄ − θ* and P the posterior
   * precision at θ* (the squared offset per dimension in posterior sds).
   * Second-order control variates lose accuracy like (1 + δᵀPδ/d)³ (the
   * difference estimator's variance at θ̄ against at θ*), so the default 1
   * spends a full-data pass only where Var ℓ̂ would otherwise be ≳ 8× its
   * value at θ*; the Newton centring before sampling stops at the same
   * tolerance. (Before the one-pass warmup the default was 0.1.) 0
   * re-centres at every check, the paper's §6.3 schedule. The first
   * re-centring after a signed chain's training is never skipped.
   */
  recenterTolerance?: number;
  /**
   * Before sampling, move θ* by damped Newton steps to the full-data MAP,
   * each step one re-centring pass whose ∑∇ℓₖ and ∑Hₖ the control variates
   * compute anyway, until the Newton decrement gᵀP⁻¹g/d falls below
   * `recenterTolerance` (at most this many steps; default 10, 0 = off, the
   * paper's §6.3, where θ* is learned only from the chain's warmup draws).
   * A subset θ* is ≈ √(n/n_sub) posterior sds off; from there the paper's
   * scheme needs a large m until the first re-centring, while one or two
   * Newton passes land within a fraction of a posterior sd.
   */
  maxNewtonSteps?: number;
  /**
   * Fraction of rows whose Hessian contributions give B = ΣHₖ(θ*) at each
   * centring after the first (the first reuses the subset fit's Hessian):
   * B̂ = (n/ñ)Σ_{k∈S}Hₖ(θ*) on a random subset S of ⌈f·n⌉ rows (at least
   * 1000), which is M and the control variates' quadratic term. 1 computes
   * the exact full-data B (a Hessian pass, d(d+1)/2 multiply-adds per row:
   * 4–5 gradient passes in time at d = 30). Default 0.05, or 1 when
   * `maxNewtonSteps` is 0 (the paper's §6.3, full-data Hessians).
   *
   * With a subsample B̂ the per-row control variates keep their exact
   * second-order terms, so Var ℓ̂ is unchanged, but Σqₖ carries
   * ½δᵀ(B̂ − B)δ: the sampled posterior is tilted by a Gaussian factor whose
   * relative effect on sds is ≈ √(d/ñ) and on means ≈ √(d/ñ)·(offset of θ*
   * in posterior sds) — ≈ 1 % at n = 10⁶, d = 30. GLM proxies only: the
   * generic per-row proxy computes every Hₖ for its cache and uses the exact B.
   */
  hessianFraction?: number;
  /** Use this θ* instead of fitting one on a subset. */
  thetaStar?: Float64Array;
  /**
   * Start from a centring computed elsewhere: θ* and S, A, B there
   * (external GLMs only: an in-memory GLM's per-row cache needs its own
   * pass). No full-data pass is made before sampling: no subset fit, no
   * Newton steps (`maxNewtonSteps` defaults to 0, and B is the given one),
   * and the warmup re-centres only when `recenterTolerance` is given (its
   * default is then ∞). Not with `thetaStar`.
   */
  centring?: PrecomputedCentring;
  /** Subset fraction for the initial θ* (default 0.01). */
  subsetFraction?: number;
  /** Start chains at θ* (default true) instead of the driver's initial position. */
  startAtThetaStar?: boolean;
  /**
   * The metric warmup starts from, as `initialMetric` means for full-data
   * HMC: `"laplace"` (default: the subset fit's Laplace covariance; with a
   * given `thetaStar`, the full-data Hessian at θ*), `"identity"` (the
   * paper's M = I), or a {@link Metric}. It is then updated during warmup
   * (every `updateEvery` iterations) unless `metric` fixes it.
   */
  initialMetric?: "laplace" | "identity" | Metric;
  /**
   * A fixed metric for the whole run, with no M updates (as `metric: Metric`
   * means for full-data HMC). Overrides `initialMetric`.
   */
  metric?: Metric;
  /** Perturbed: fixed subsample size m (default: chosen by `targetVariance`). */
  subsampleSize?: number;
  /** Perturbed: target Var ℓ̂ₘ at θ* (default 1). */
  targetVariance?: number;
  /** Perturbed: smallest m considered (default 100). */
  minSubsampleSize?: number;
  /** Perturbed: largest m considered (default n/10). */
  maxSubsampleSize?: number;
  /** Perturbed: number of blocks G (default 100). */
  numBlocks?: number;
  /**
   * Signed: mini-batch size m of each d̂⁽ʰ'ˡ⁾ (default: the smallest m in
   * [2, 30] whose pilot-predicted Var d̂ = n²s̄²/m is ≤ 1, re-chosen with λ).
   */
  batchSize?: number;
  /** Signed: fixed λ (default: minimum predicted CT). */
  numProducts?: number;
  /** Signed: fixed a (default D̃ − λ). */
  lowerBound?: number;
  /** Signed: products refreshed per iteration κ (default 1). */
  numRefreshed?: number;
  /**
   * Signed: run the perturbed estimator until the first θ* re-centring and
   * only then tune (λ, a) and switch to the block-Poisson estimator, as
   * §6.6 tunes λ at the improved θ* (default true when θ* comes from the
   * subset fit, Newton centring is off and a re-centring is scheduled).
   */
  signedTraining?: boolean;
  /**
   * Signed: bounds of the λ search (default 50 and 2000). The lower bound is
   * a safeguard the CT formula does not see: for a fixed u, L̂(θ) has zeros
   * where some d̂(θ) = a, i.e. where |d̂ − D̃| reaches λ, and beyond them |L̂|
   * grows polynomially; with second-order control variates the Gaussian
   * factor exp(Σq) keeps that region's mass ≲ e^(−λ), which λ ≥ 50 makes
   * negligible. (With first-order control variates exp(Σq) does not confine
   * and the signed target is dominated by that region: use controlVariateOrder 2.)
   */
  productRange?: [number, number];
  /** Pilot rows (default min(1000, n)) and θ draws (default 10) for tuning m, λ, a. */
  pilotSize?: number;
  /** Number of pilot θ draws (default 10). */
  numPilotDraws?: number;
  /** ΔH above this is a divergence (default 1000). */
  divergenceThreshold?: number;
}

/** {@link HmcEcsOptions} with defaults filled in and values checked. */
export interface ResolvedHmcEcsOptions {
  /** See {@link HmcEcsOptions.variant}. */
  variant: HmcEcsVariant;
  /** See {@link HmcEcsOptions.controlVariateOrder}. */
  controlVariateOrder: TaylorOrder;
  /** See {@link HmcEcsOptions.numWarmup}. */
  numWarmup: number;
  /** See {@link HmcEcsOptions.trajectoryLength}. */
  trajectoryLength: number;
  /** See {@link HmcEcsOptions.numIntegrationSteps}. */
  numIntegrationSteps: number | undefined;
  /** See {@link HmcEcsOptions.maxNumIntegrationSteps}. */
  maxNumIntegrationSteps: number | undefined;
  /** See {@link HmcEcsOptions.adaptStepSize}. */
  adaptStepSize: boolean;
  /** See {@link HmcEcsOptions.targetAcceptanceRate}. */
  targetAcceptanceRate: number | undefined;
  /** See {@link HmcEcsOptions.updateEvery}. */
  updateEvery: number;
  /** See {@link HmcEcsOptions.recenterTolerance}. */
  recenterTolerance: number;
  /** See {@link HmcEcsOptions.maxNewtonSteps}. */
  maxNewtonSteps: number;
  /** See {@link HmcEcsOptions.subsetFraction}. */
  subsetFraction: number;
  /** See {@link HmcEcsOptions.hessianFraction}. */
  hessianFraction: number;
  /** See {@link HmcEcsOptions.startAtThetaStar}. */
  startAtThetaStar: boolean;
  /** See {@link HmcEcsOptions.initialMetric}. */
  initialMetric: "laplace" | "identity" | Metric;
  /** See {@link HmcEcsOptions.metric}. */
  metric: Metric | undefined;
  /** See {@link HmcEcsOptions.targetVariance}. */
  targetVariance: number;
  /** See {@link HmcEcsOptions.minSubsampleSize}. */
  minSubsampleSize: number;
  /** See {@link HmcEcsOptions.maxSubsampleSize}. */
  maxSubsampleSize: number;
  /** See {@link HmcEcsOptions.numBlocks}. */
  numBlocks: number;
  /** See {@link HmcEcsOptions.batchSize}. */
  batchSize: number | undefined;
  /** See {@link HmcEcsOptions.numRefreshed}. */
  numRefreshed: number;
  /** See {@link HmcEcsOptions.productRange}. */
  productRange: [number, number];
  /** See {@link HmcEcsOptions.pilotSize}. */
  pilotSize: number | undefined;
  /** See {@link HmcEcsOptions.numPilotDraws}. */
  numPilotDraws: number;
  /** See {@link HmcEcsOptions.divergenceThreshold}. */
  divergenceThreshold: number | undefined;
  /** Given m (else chosen from a pilot). */
  subsampleSize: number | undefined;
  /** Given λ (else chosen from a pilot). */
  numProducts: number | undefined;
  /** Given a (else D̃ − λ from a pilot). */
  lowerBound: number | undefined;
  /** Given signed-training switch (else decided from the other options). */
  signedTraining: boolean | undefined;
  /** Given θ* (else a subset MAP). */
  thetaStar: Float64Array | undefined;
  /** See {@link HmcEcsOptions.centring} (checked; θ* is also in `thetaStar`). */
  centring: PrecomputedCentring | undefined;
  /** Given initial ε (else Hoffman & Gelman's heuristic). */
  stepSize: number | undefined;
}

/**
 * Fill in the defaults of {@link HmcEcsOptions} and check them.
 *
 * @param model The posterior (its `numRows` and `dim` set defaults and checks).
 * @param options The options given.
 * @param support What the model can do ({@link SubsamplingSupport}): its highest
 *   Taylor order is the default `controlVariateOrder` (order 2 is refused above it), and
 *   `hessianFraction` is 1 where B cannot be estimated on a subset. Without it:
 *   order 2 and the given fraction.
 * @returns The resolved options.
 * @throws {RangeError} On a value out of range, naming it and the value received.
 * @throws {TypeError} On an unknown variant or conflicting options, or order 2
 *   on a model without per-row Hessians.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveHmcEcsOptions } from "./options.ts";
 * const o = resolveHmcEcsOptions({ numRows: 10000, dim: 3 }, { variant: "signed" });
 * assert.equal(o.maxSubsampleSize, 1000);
 * assert.throws(() => resolveHmcEcsOptions({ numRows: 10, dim: 1 }, { updateEvery: -1 }), RangeError);
 * ```
 * References: Dang et al. (2019), §6.3 (defaults).
 */
export function resolveHmcEcsOptions(
  model: { readonly numRows: number; readonly dim: number },
  options: HmcEcsOptions,
  support?: Pick<SubsamplingSupport, "model" | "maxTaylorOrder" | "subsampleHessian">,
): ResolvedHmcEcsOptions {
  const variant = options.variant ?? "perturbed";
  if (variant !== "perturbed" && variant !== "signed") {
    throw new TypeError(`variant must be "perturbed" or "signed", got ${JSON.stringify(variant)}`);
  }
  const n = model.numRows;
  const numWarmup = options.numWarmup ?? 1000;
  nonNegativeInteger("numWarmup", numWarmup);
  if (options.numIntegrationSteps !== undefined && options.trajectoryLength !== undefined) {
    throw new TypeError(
      `give numIntegrationSteps or trajectoryLength, not both (got ${options.numIntegrationSteps} and ${options.trajectoryLength})`,
    );
  }
  const updateEvery = options.updateEvery ?? 200;
  nonNegativeInteger("updateEvery", updateEvery);
  const centring = options.centring === undefined
    ? undefined
    : checkCentring(options.centring, model.dim);
  if (centring !== undefined && options.thetaStar !== undefined) {
    throw new TypeError("give centring or thetaStar, not both (centring carries its θ*)");
  }
  const recenterTolerance = options.recenterTolerance ??
    (centring === undefined ? 1 : Infinity);
  if (
    !(recenterTolerance >= 0) ||
    (!Number.isFinite(recenterTolerance) && options.recenterTolerance !== undefined)
  ) {
    throw new RangeError(
      `recenterTolerance must be a finite number ≥ 0, got ${options.recenterTolerance}`,
    );
  }
  const maxNewtonSteps = options.maxNewtonSteps ?? (centring === undefined ? 10 : 0);
  if (!Number.isInteger(maxNewtonSteps) || maxNewtonSteps < 0) {
    throw new RangeError(
      `maxNewtonSteps must be a non-negative integer, got ${options.maxNewtonSteps}`,
    );
  }
  const givenHessianFraction = options.hessianFraction ?? (maxNewtonSteps === 0 ? 1 : 0.05);
  if (!(givenHessianFraction > 0 && givenHessianFraction <= 1)) {
    throw new RangeError(`hessianFraction must be in (0, 1], got ${options.hessianFraction}`);
  }
  // The generic per-row proxy computes B exactly at each centring (the sum of its Hₖ, or the
  // full-data Hessian of a model without per-row Hessians).
  const hessianFraction = support?.subsampleHessian === false ? 1 : givenHessianFraction;
  if (options.thetaStar !== undefined && options.thetaStar.length !== model.dim) {
    throw new RangeError(
      `thetaStar must have length ${model.dim}, got ${options.thetaStar.length}`,
    );
  }
  const m = options.subsampleSize;
  if (m !== undefined && (!Number.isInteger(m) || m < 2 || m > 1e9)) {
    throw new RangeError(`subsampleSize must be an integer ≥ 2, got ${m}`);
  }
  const range = options.productRange ?? [50, 2000];
  // The order the model supports: 1 by default without per-row Hessians, where 2 is refused.
  const maxOrder = support?.maxTaylorOrder ?? 2;
  if (options.controlVariateOrder === 2 && maxOrder < 2) throw orderTwoError(support!.model);
  return {
    variant,
    controlVariateOrder: options.controlVariateOrder ?? maxOrder,
    numWarmup,
    trajectoryLength: options.trajectoryLength ?? 1.2,
    numIntegrationSteps: options.numIntegrationSteps,
    maxNumIntegrationSteps: options.maxNumIntegrationSteps,
    adaptStepSize: options.adaptStepSize ?? true,
    targetAcceptanceRate: options.targetAcceptanceRate,
    updateEvery,
    recenterTolerance,
    maxNewtonSteps,
    subsetFraction: options.subsetFraction ?? 0.01,
    hessianFraction,
    startAtThetaStar: options.startAtThetaStar ?? true,
    initialMetric: options.initialMetric ?? "laplace",
    metric: options.metric,
    targetVariance: options.targetVariance ?? 1,
    minSubsampleSize: Math.min(options.minSubsampleSize ?? 100, n),
    maxSubsampleSize: options.maxSubsampleSize ?? Math.max(2, Math.ceil(n / 10)),
    numBlocks: options.numBlocks ?? 100,
    batchSize: options.batchSize,
    numRefreshed: options.numRefreshed ?? 1,
    productRange: range,
    pilotSize: options.pilotSize,
    numPilotDraws: options.numPilotDraws ?? 10,
    divergenceThreshold: options.divergenceThreshold,
    subsampleSize: options.subsampleSize,
    numProducts: options.numProducts,
    lowerBound: options.lowerBound,
    signedTraining: options.signedTraining,
    thetaStar: centring?.thetaStar ?? options.thetaStar,
    centring,
    stepSize: options.stepSize,
  };
}

/**
 * Check a precomputed centring: θ* and A of length d, B of d × d, all finite,
 * B symmetric. Returns a copy (later changes to the caller's arrays do not
 * reach the sampler).
 *
 * @param centring The option's value.
 * @param dim d.
 * @returns A checked copy.
 * @throws {TypeError} If a field is missing or not a Float64Array / number.
 * @throws {RangeError} If a length is wrong, a value is not finite or B is not symmetric.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkCentring } from "./options.ts";
 * const c = { thetaStar: new Float64Array(2), llStarSum: -3, gradSum: new Float64Array(2), hessSum: new Float64Array(3) };
 * assert.throws(() => checkCentring(c, 2), /hessSum must have 4 entries/);
 * ```
 */
export function checkCentring(centring: PrecomputedCentring, dim: number): PrecomputedCentring {
  if (centring === null || typeof centring !== "object") {
    throw new TypeError(
      `centring must be { thetaStar, llStarSum, gradSum, hessSum }, got ${centring}`,
    );
  }
  const vec = (name: "thetaStar" | "gradSum" | "hessSum", length: number): Float64Array => {
    const v = centring[name];
    if (!(v instanceof Float64Array)) {
      throw new TypeError(
        `centring.${name} must be a Float64Array, got ${
          v === undefined ? "undefined" : (v as object)?.constructor?.name ?? typeof v
        }`,
      );
    }
    if (v.length !== length) {
      throw new RangeError(`centring.${name} must have ${length} entries, got ${v.length}`);
    }
    const i = v.findIndex((x) => !Number.isFinite(x));
    if (i >= 0) throw new RangeError(`centring.${name}[${i}] must be finite, got ${v[i]}`);
    return Float64Array.from(v);
  };
  const thetaStar = vec("thetaStar", dim), gradSum = vec("gradSum", dim);
  const hessSum = vec("hessSum", dim * dim);
  const s = centring.llStarSum;
  if (typeof s !== "number" || !Number.isFinite(s)) {
    throw new RangeError(`centring.llStarSum must be a finite number, got ${s}`);
  }
  const tol = centring.toleratedDistance;
  if (tol !== undefined && !(typeof tol === "number" && Number.isFinite(tol) && tol >= 0)) {
    throw new RangeError(`centring.toleratedDistance must be a finite number ≥ 0, got ${tol}`);
  }
  for (let i = 0; i < dim; i++) {
    for (let j = 0; j < i; j++) {
      const a = hessSum[i * dim + j], b = hessSum[j * dim + i];
      if (Math.abs(a - b) > 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))) {
        throw new RangeError(
          `centring.hessSum must be symmetric, got [${i}][${j}] = ${a} and [${j}][${i}] = ${b}`,
        );
      }
    }
  }
  return tol === undefined || tol === 0
    ? { thetaStar, llStarSum: s, gradSum, hessSum }
    : { thetaStar, llStarSum: s, gradSum, hessSum, toleratedDistance: tol };
}
