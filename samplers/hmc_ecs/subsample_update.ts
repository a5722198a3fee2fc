/**
 * The u-update of HMC-ECS: a Metropolis–Hastings step on the subsample u for
 * a fixed θ (Algorithm 1, step 1; eq. 5).
 *
 * ```
 *  u' = u with one of G blocks redrawn (perturbed) or κ of λ products redrawn (signed)
 *  α_u = min(1, L̂(θ; u') / L̂(θ; u))            perturbed: log L̂ = ℓ̂ₘ − σ̂²ₘ/2 (eq. 12)
 *                                                 signed:    |L̂| of the block-Poisson estimator (eq. 15)
 * ```
 *
 * Only the proposal's rows are evaluated: the other rows' dₖ (or slots' d̂)
 * at θ come from the state's snapshot. When u' is accepted the estimator is
 * evaluated afresh at θ with its gradient, so that the θ-update starts from
 * a consistent state. The subsample lives in the estimator and is updated in
 * place: use a state linearly.
 *
 * References: Dang et al. (2019), Algorithm 1, eqs. 5, 12, 15; Tran et al.
 * (2017, block pseudo-marginal).
 *
 * @module
 */
import type { Rng } from "../../random/rng.ts";
import type { StepInfo, StepResult } from "../sampler.ts";
import type { LikelihoodEstimate, SubsampleEstimator } from "./proxy.ts";

/** The u-side of the state at a position θ. */
export interface SubsampleState {
  /** The subsample u and its estimator (mutable, chain-owned). */
  readonly estimator: SubsampleEstimator;
  /** log L̂(θ; u), its variance and sign. */
  readonly estimate: LikelihoodEstimate;
  /** Per-row dₖ (perturbed) or per-slot d̂ (signed) at (θ, u). */
  readonly snapshot: Float64Array;
  /** ∇θ log L̂(θ; u) (without the prior). */
  readonly gradient: Float64Array;
}

/** Parameters of the u-update. */
export interface SubsampleUpdateParams {
  /** θ, held fixed. */
  readonly position: Float64Array;
  /**
   * Optional buffers for the gradient and snapshot of an accepted u', instead
   * of new arrays (see {@link init}); not the current state's own.
   */
  readonly into?: SubsampleBuffers;
}

/** Buffers a u-state's gradient (length d) and snapshot may be written into. */
export interface SubsampleBuffers {
  /** For ∇θ log L̂ (length d). */
  readonly gradient: Float64Array;
  /** For the snapshot (used when it has the snapshot's length). */
  readonly snapshot: Float64Array;
}

/** Diagnostics of the u-update. */
export interface SubsampleUpdateInfo extends StepInfo {
  /** α_u (eq. 5). */
  subsampleAcceptanceRate: number;
  /** Whether u' was accepted. */
  isSubsampleAccepted: boolean;
}

/**
 * Evaluate the estimator at θ with its gradient.
 *
 * @param position θ.
 * @param estimator The chain's subsample estimator.
 * @param into Optional buffers for the state's gradient and snapshot (no
 *   other state's), instead of new arrays.
 * @returns The u-state at θ.
 */
export function init(
  position: Float64Array,
  estimator: SubsampleEstimator,
  into?: SubsampleBuffers,
): SubsampleState {
  const gradient = into !== undefined && into.gradient.length === position.length
    ? into.gradient
    : new Float64Array(position.length);
  const estimate = estimator.evaluate(position, gradient);
  return { estimator, estimate, snapshot: estimator.snapshot(into?.snapshot), gradient };
}

/**
 * One MH step on u for fixed θ: propose, score only the new rows, accept
 * with probability α_u. A proposal with a non-finite estimate is rejected.
 *
 * @param rng The chain's generator.
 * @param state The u-state at θ.
 * @param params θ.
 * @returns The next u-state (re-evaluated at θ if u' was accepted) and α_u.
 */
export function step(
  rng: Rng,
  state: SubsampleState,
  params: SubsampleUpdateParams,
): StepResult<SubsampleState, SubsampleUpdateInfo> {
  const est = state.estimator, theta = params.position;
  const proposal = est.propose(rng);
  const logRatio = est.proposalLogEstimate(theta, proposal, state.snapshot) - state.estimate.value;
  // A non-finite estimate for u' (NaN) is a rejection with α_u = 0.
  const subsampleAcceptanceRate = logRatio >= 0 ? 1 : logRatio < 0 ? Math.exp(logRatio) : 0;
  const isSubsampleAccepted = Math.log(rng.uniformOpen()) < logRatio;
  if (!isSubsampleAccepted) {
    return {
      state,
      info: { subsampleAcceptanceRate, isSubsampleAccepted, isDivergent: false },
    };
  }
  est.accept(proposal);
  return {
    state: init(theta, est, params.into),
    info: { subsampleAcceptanceRate, isSubsampleAccepted, isDivergent: false },
  };
}
