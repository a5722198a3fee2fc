/**
 * The HMC-ECS kernel: a Gibbs composition over the product state {θ, u}
 * (Algorithm 1).
 *
 * ```
 *  1. u-update (eq. 5)   subsample_update.step: MH on u for fixed θ
 *  2. θ-update (eq. 7)   hmc.step — the same kernel as full-data HMC — on
 *                        log L̂(θ; u) + log p(θ) for the fixed u: leapfrog and
 *                        acceptance use the same estimated Hamiltonian
 * ```
 *
 * `step(rng, state, params)` depends only on its arguments (the subsample in
 * the state's estimator is updated in place: use a state linearly). Warmup
 * adaptation (ε, M, θ*, m or (λ, a)) is not here: it produces `params` and
 * the estimator (see ./warmup.ts).
 *
 * References: Dang et al. (2019), Algorithm 1, eqs. 5, 7, 12, 15; Neal (2011).
 *
 * @module
 */
import { ParameterDomainError } from "../../core/reference.ts";
import type { Rng } from "../../random/rng.ts";
import * as hmc from "../hmc/kernel.ts";
import type { LogDensityGradientFn } from "../integrators.ts";
import type { Metric } from "../metric.ts";
import type { StepResult } from "../sampler.ts";
import type { LikelihoodEstimate, SubsampleEstimator } from "./proxy.ts";
import * as subsampleUpdate from "./subsample_update.ts";

/** log p(θ); writes ∇log p(θ) into `grad`. */
export type LogPriorFn = (theta: Float64Array, grad: Float64Array) => number;

/** The product state {θ, u}. */
export interface HmcEcsKernelState {
  /** The θ-side: θ, log L̂(θ; u) + log p(θ) and its gradient, for the current u. */
  readonly hmc: hmc.HmcState;
  /** The u-side: the subsample's estimator, estimate and snapshot at θ. */
  readonly subsample: subsampleUpdate.SubsampleState;
}

/** Parameters of one step (produced by warmup, fixed during sampling). */
export interface HmcEcsParams {
  /** ε. */
  readonly stepSize: number;
  /** The metric M. */
  readonly metric: Metric;
  /** L (give this or `trajectoryLength`). */
  readonly numIntegrationSteps?: number;
  /** εL. */
  readonly trajectoryLength?: number;
  /** Cap on L. */
  readonly maxNumIntegrationSteps?: number;
  /** ΔH above this is a divergence. */
  readonly divergenceThreshold?: number;
  /** log p(θ) and its gradient. */
  readonly logPriorFn: LogPriorFn;
  /**
   * Write the returned state's arrays (θ, the gradients, the subsample's
   * snapshot) into two sets of buffers the chain keeps, the set the given
   * state does not use, instead of new arrays at every step (default false).
   * A state's arrays are then overwritten by a later step: only for a caller
   * that steps each state once and keeps nothing of it (the chain sampler,
   * whose positions are read, not kept).
   */
  readonly reuseBuffers?: boolean;
}

/** Diagnostics of one HMC-ECS iteration (recorded by the driver). */
export interface HmcEcsInfo extends hmc.HmcInfo {
  /** α_u of the u-step (eq. 5). */
  subsampleAcceptanceRate: number;
  /** Whether u' was accepted. */
  isSubsampleAccepted: boolean;
  /** sign(L̂) at the returned state (1 for perturbed). */
  sign: number;
  /** σ̂²ₘ (perturbed) or estimated Var log|L̂| (signed) at the returned state. */
  logLikelihoodVariance: number;
  /** Rows per estimator evaluation: m (perturbed) or S·m (signed). */
  numSubsampleRows: number;
  /**
   * Data rows evaluated in this iteration: the proposed block or products,
   * the re-evaluation after an accepted u', and every leapfrog step.
   */
  numRowsEvaluated: number;
}

/**
 * The estimated log posterior log L̂(θ; u) + log p(θ) for the current u, as
 * the θ-update's log density. `last` receives the latest estimate and
 * likelihood gradient (a buffer of this function's that the next evaluation
 * overwrites: copy it to keep it; one copy per accepted trajectory instead of
 * one per leapfrog step).
 *
 * @param estimator The chain's subsample estimator.
 * @param logPriorFn The prior.
 * @param last Where the latest evaluation is kept.
 * @returns The log density and gradient function.
 */
export function logDensityFn(
  estimator: SubsampleEstimator,
  logPriorFn: LogPriorFn,
  last: { estimate: LikelihoodEstimate; gradient: Float64Array },
): LogDensityGradientFn {
  const kept = _scratch.get(estimator);
  let priorGrad = kept?.priorGrad ?? _EMPTY, likGrad = kept?.likGrad ?? _EMPTY;
  return (theta, grad) => {
    if (priorGrad.length !== grad.length) {
      priorGrad = new Float64Array(grad.length);
      likGrad = new Float64Array(grad.length);
    }
    let e: LikelihoodEstimate;
    try {
      e = estimator.evaluate(theta, grad);
    } catch (err) {
      // Outside the likelihood's domain (log σ or log φ beyond ±700): zero
      // density, as the full-data GlmModel returns, so the trajectory is
      // divergent and rejected rather than the chain stopped.
      if (!(err instanceof ParameterDomainError)) throw err;
      grad.fill(0);
      return -Infinity;
    }
    last.estimate = e;
    likGrad.set(grad);
    last.gradient = likGrad;
    const lp = logPriorFn(theta, priorGrad);
    for (let j = 0; j < grad.length; j++) grad[j] += priorGrad[j];
    return e.value + lp;
  };
}

/** A zero-length buffer: a function's own buffers are made on its first call. */
const _EMPTY = new Float64Array(0);

/**
 * Buffers of one chain's steps, by its estimator: the prior's and the
 * likelihood's gradients of {@link logDensityFn} (the latter is handed out
 * in `last` and copied when a trajectory is accepted, before the next step
 * writes it), `hmc.step`'s momentum and velocity, a prior gradient for
 * {@link hmcStateAt}, and with {@link HmcEcsParams.reuseBuffers} the two
 * sets of a state's arrays: θ with ∇log π, and the u-state's ∇log L̂ with
 * its snapshot. Made once per chain instead of at every step; the same
 * numbers.
 */
interface _Buffers {
  priorGrad: Float64Array;
  likGrad: Float64Array;
  statePriorGrad: Float64Array;
  hmc: {
    momentum: Float64Array;
    velocity: Float64Array;
    position: Float64Array | undefined;
    gradient: Float64Array | undefined;
  };
  positions: [Float64Array, Float64Array];
  gradients: [Float64Array, Float64Array];
  subsamples: [subsampleUpdate.SubsampleBuffers, subsampleUpdate.SubsampleBuffers];
}

const _scratch = new WeakMap<SubsampleEstimator, _Buffers>();

function _scratchOf(estimator: SubsampleEstimator, d: number): _Buffers {
  const s = _scratch.get(estimator);
  return s !== undefined && s.priorGrad.length === d ? s : _newScratch(estimator, d);
}

/**
 * Make the buffers of {@link _scratchOf}. {@link init} makes them for its
 * estimator, so that `step`, which runs optimised, finds them: a branch the
 * optimising compiler saw no feedback for (the first chain took it before
 * the engine collected any) is thrown away with its code when a later
 * chain's first step takes it.
 */
function _newScratch(estimator: SubsampleEstimator, d: number): _Buffers {
  const f = () => new Float64Array(d);
  const snapshot = () => new Float64Array(estimator.numRowsPerEvaluation);
  const s: _Buffers = {
    priorGrad: f(),
    likGrad: f(),
    statePriorGrad: f(),
    hmc: { momentum: f(), velocity: f(), position: undefined, gradient: undefined },
    positions: [f(), f()],
    gradients: [f(), f()],
    subsamples: [{ gradient: f(), snapshot: snapshot() }, {
      gradient: f(),
      snapshot: snapshot(),
    }],
  };
  _scratch.set(estimator, s);
  return s;
}

/** The set of θ-side buffers a state at `position` does not use. */
function _freeHmc(b: _Buffers, position: Float64Array): number {
  return b.positions[0] === position ? 1 : 0;
}

/** The u-side buffers a u-state does not use. */
function _freeSubsample(
  b: _Buffers,
  state: subsampleUpdate.SubsampleState,
): subsampleUpdate.SubsampleBuffers {
  return b.subsamples[b.subsamples[0].gradient === state.gradient ? 1 : 0];
}

/**
 * The θ-side state from a u-state at θ: log L̂ + log p and its gradient.
 *
 * @param position θ.
 * @param subsample The u-state at θ.
 * @param logPriorFn The prior.
 * @returns The HMC state.
 */
export function hmcStateAt(
  position: Float64Array,
  subsample: subsampleUpdate.SubsampleState,
  logPriorFn: LogPriorFn,
): hmc.HmcState {
  const d = position.length;
  return _hmcStateAt(
    position,
    subsample,
    logPriorFn,
    new Float64Array(d),
    new Float64Array(d),
    new Float64Array(d),
  );
}

/** {@link hmcStateAt} into the given buffers (`pos` is not `position`). */
function _hmcStateAt(
  position: Float64Array,
  subsample: subsampleUpdate.SubsampleState,
  logPriorFn: LogPriorFn,
  pos: Float64Array,
  gradient: Float64Array,
  priorGrad: Float64Array,
): hmc.HmcState {
  const d = position.length;
  pos.set(position);
  priorGrad.fill(0);
  const lp = logPriorFn(pos, priorGrad);
  for (let j = 0; j < d; j++) gradient[j] = subsample.gradient[j] + priorGrad[j];
  return { position: pos, logDensity: subsample.estimate.value + lp, gradient };
}

/**
 * The state at θ for the estimator's current u.
 *
 * @param position θ₀.
 * @param estimator The chain's subsample estimator.
 * @param logPriorFn The prior.
 * @returns The state.
 * @throws {RangeError} If the estimated log posterior at θ₀ is not finite.
 */
export function init(
  position: Float64Array,
  estimator: SubsampleEstimator,
  logPriorFn: LogPriorFn,
): HmcEcsKernelState {
  const subsample = subsampleUpdate.init(position, estimator);
  const state = hmcStateAt(position, subsample, logPriorFn);
  _scratchOf(estimator, position.length); // made here, found by step
  if (!Number.isFinite(state.logDensity)) {
    throw new RangeError(
      `the estimated log density at the initial position must be finite, got ${state.logDensity}`,
    );
  }
  return { hmc: state, subsample };
}

/**
 * One HMC-ECS iteration: the u-update, then `hmc.step` on the estimated
 * posterior for the (possibly new) fixed u.
 *
 * @param rng The chain's generator.
 * @param state The product state.
 * @param params ε, M, L or εL, the divergence threshold and the prior.
 * @returns The next state and the iteration's info.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../../examples/models/normal_gamma.ts";
 * import { subsamplingSupport } from "../../models/subsampling_support.ts";
 * import { Rng } from "../../random/rng.ts";
 * import { diagonalMetric } from "../metric.ts";
 * import { createProxy } from "./proxy.ts";
 * import * as kernel from "./kernel.ts";
 * const x = Float64Array.from({ length: 5000 }, (_, i) => 1 + Math.sin(i));
 * const model = new NormalGammaModel(x);
 * const mode = new Float64Array([model.posterior.muN, model.posterior.alphaN / model.posterior.betaN]);
 * const proxy = createProxy(subsamplingSupport(model)!, mode, 2); // this chain's control variates
 * const rng = new Rng(1);
 * const u = proxy.blockSubsample(rng, { subsampleSize: 50, numBlocks: 10 });
 * const logPriorFn = (t: Float64Array, g: Float64Array) => model.logPrior(t, g);
 * const sds = model.posteriorMoments().variance.map(Math.sqrt);
 * const params = { stepSize: 0.5, numIntegrationSteps: 3, logPriorFn,
 *   metric: diagonalMetric(new Float64Array([sds[0] ** 2, sds[1] ** 2])) };
 * let s = kernel.init(mode, u, logPriorFn);
 * let accepted = 0;
 * for (let i = 0; i < 50; i++) {
 *   const r = kernel.step(rng, s, params);
 *   s = r.state;
 *   accepted += r.info.isAccepted ? 1 : 0;
 *   assert.equal(r.info.isDivergent, false);
 * }
 * assert.ok(accepted > 40);
 * u.dispose();
 * proxy.dispose();
 * ```
 */
export function step(
  rng: Rng,
  state: HmcEcsKernelState,
  params: HmcEcsParams,
): StepResult<HmcEcsKernelState, HmcEcsInfo> {
  const theta = state.hmc.position, d = theta.length;
  const rowsBefore = state.subsample.estimator.numRowsEvaluated;
  const scratch = _scratchOf(state.subsample.estimator, d);
  const reuse = params.reuseBuffers === true;
  // 1. u-update (eq. 5).
  const u = subsampleUpdate.step(rng, state.subsample, {
    position: theta,
    into: reuse ? _freeSubsample(scratch, state.subsample) : undefined,
  });
  let cur = state;
  if (u.info.isSubsampleAccepted) {
    const k = _freeHmc(scratch, theta);
    cur = {
      hmc: reuse
        ? _hmcStateAt(
          theta,
          u.state,
          params.logPriorFn,
          scratch.positions[k],
          scratch.gradients[k],
          scratch.statePriorGrad,
        )
        : hmcStateAt(theta, u.state, params.logPriorFn),
      subsample: u.state,
    };
  }
  // 2. θ-update (eq. 7) for the fixed u.
  const estimator = cur.subsample.estimator;
  const last = { estimate: cur.subsample.estimate, gradient: cur.subsample.gradient };
  if (reuse) {
    const k = _freeHmc(scratch, cur.hmc.position);
    scratch.hmc.position = scratch.positions[k];
    scratch.hmc.gradient = scratch.gradients[k];
  } else scratch.hmc.position = scratch.hmc.gradient = undefined;
  const r = hmc.step(rng, cur.hmc, {
    logDensityAndGradientFn: logDensityFn(estimator, params.logPriorFn, last),
    stepSize: params.stepSize,
    metric: params.metric,
    numIntegrationSteps: params.numIntegrationSteps,
    trajectoryLength: params.trajectoryLength,
    maxNumIntegrationSteps: params.maxNumIntegrationSteps,
    divergenceThreshold: params.divergenceThreshold,
    scratch: scratch.hmc,
  });
  let next = cur;
  if (r.info.isAccepted) {
    let gradient: Float64Array, snapshot: Float64Array;
    if (reuse) {
      const into = _freeSubsample(scratch, cur.subsample);
      gradient = into.gradient;
      gradient.set(last.gradient);
      snapshot = estimator.snapshot(into.snapshot);
    } else {
      gradient = last.gradient.slice();
      snapshot = estimator.snapshot();
    }
    next = { hmc: r.state, subsample: { estimator, estimate: last.estimate, snapshot, gradient } };
  }
  const info: HmcEcsInfo = {
    ...r.info,
    subsampleAcceptanceRate: u.info.subsampleAcceptanceRate,
    isSubsampleAccepted: u.info.isSubsampleAccepted,
    sign: next.subsample.estimate.sign,
    logLikelihoodVariance: next.subsample.estimate.variance,
    numSubsampleRows: estimator.numRowsPerEvaluation,
    numRowsEvaluated: estimator.numRowsEvaluated - rowsBefore,
  };
  return { state: next, info };
}
