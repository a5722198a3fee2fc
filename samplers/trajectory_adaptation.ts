/**
 * Adapting HMC's integration time T during warmup by the ChEES criterion
 * (Hoffman, Radul & Sountsov 2021): maximise the expected change in the
 * squared distance of the chain from its centre,
 *
 * ```
 *  ChEES(T) = ¼ E[(‖θ' − θ̄‖² − ‖θ − θ̄‖²)²],
 *  ĝ = h · (‖θ' − θ̄‖² − ‖θ − θ̄‖²) · (θ' − θ̄)ᵀ p'        (eq. 5, one chain)
 *  log T ← log T + Adam(α · ĝ)                              (Algorithm 1)
 * ```
 *
 * where (θ', p') is the end of a trajectory of jittered length h·T
 * (h ∈ (0, 1) from a Halton sequence), α its acceptance probability and θ̄
 * the chain's centre. With one chain per sampler, θ̄ is a running mean of
 * the chain's own warmup positions (the paper averages over many chains).
 * `(θ' − θ̄)ᵀ p'` is the derivative of ½‖θ_t − θ̄‖² along the trajectory in
 * the metric's whitened coordinates, so the rule does not depend on the
 * metric's scale. The sampling phase keeps the jitter and the final T (the
 * mean of log T over the second half of warmup).
 *
 * A state machine like the other adaptation modules: pure functions of the
 * state; kernels never see it.
 *
 * References: Hoffman, Radul & Sountsov (2021), "An adaptive-MCMC scheme for
 * setting trajectory lengths in Hamiltonian Monte Carlo", AISTATS, eq. (5),
 * Algorithm 1; Kingma & Ba (2015), Adam.
 *
 * @module
 */
import { positive, positiveFinite } from "./validate_options.ts";

/** Options of {@link cheesInit}. */
export interface CheesOptions {
  /** Initial T > 0 (default 1, in the metric's whitened units). */
  trajectoryLength?: number;
  /** Adam learning rate on log T (default 0.025, the paper's). */
  learningRate?: number;
  /** Adam's second-moment decay (default 0.95; the first moment is not averaged, β₁ = 0). */
  beta2?: number;
  /** Smallest and largest T allowed (default 0.05 and 1000). */
  bounds?: [number, number];
}

/** State of the ChEES adaptation. Treat as immutable. */
export interface CheesState {
  /** Current log T. */
  readonly logT: number;
  /** Adam's second-moment estimate. */
  readonly v: number;
  /** Updates made. */
  readonly count: number;
  /** Running centre θ̄ of the chain's warmup positions. */
  readonly centre: Float64Array;
  /** Positions averaged into `centre`. */
  readonly numCentre: number;
  /** Σ log T and count over the averaging half (for the final T). */
  readonly sumLogT: number;
  /** Number of terms in `sumLogT`. */
  readonly numAveraged: number;
  /** Settings. */
  readonly options: Required<CheesOptions>;
}

/**
 * The Halton (van der Corput, base 2) jitter h ∈ (0, 1) of iteration k.
 *
 * @param k Iteration number (≥ 0).
 * @returns The k+1-th element of the base-2 van der Corput sequence.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { haltonJitter } from "./trajectory_adaptation.ts";
 * assert.deepEqual([0, 1, 2, 3].map(haltonJitter), [0.5, 0.25, 0.75, 0.125]);
 * ```
 *
 * References: Hoffman, Radul & Sountsov (2021), §3 (quasi-random jitter).
 */
export function haltonJitter(k: number): number {
  let i = k + 1, f = 0.5, h = 0;
  while (i > 0) {
    h += f * (i & 1);
    i >>= 1;
    f /= 2;
  }
  return h;
}

/**
 * Start ChEES adaptation.
 *
 * @param position The chain's position (the first centre).
 * @param options Initial T, Adam settings and bounds.
 * @returns The state.
 * @throws {RangeError} On a non-positive T or learning rate.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cheesInit, cheesTrajectoryLength } from "./trajectory_adaptation.ts";
 * const s = cheesInit(new Float64Array(2), { trajectoryLength: 2 });
 * assert.equal(cheesTrajectoryLength(s), 2);
 * ```
 *
 * References: Hoffman, Radul & Sountsov (2021), Algorithm 1.
 */
export function cheesInit(position: Float64Array, options: CheesOptions = {}): CheesState {
  const o: Required<CheesOptions> = {
    trajectoryLength: options.trajectoryLength ?? 1,
    learningRate: options.learningRate ?? 0.025,
    beta2: options.beta2 ?? 0.95,
    bounds: options.bounds ?? [0.05, 1000],
  };
  positiveFinite("trajectoryLength", o.trajectoryLength);
  positive("learningRate", o.learningRate);
  return {
    logT: Math.log(o.trajectoryLength),
    v: 0,
    count: 0,
    centre: Float64Array.from(position),
    numCentre: 1,
    sumLogT: 0,
    numAveraged: 0,
    options: o,
  };
}

/** What {@link cheesUpdate} reads of one warmup transition. */
export interface CheesTransition {
  /** θ before the transition. */
  position: Float64Array;
  /** End of the trajectory θ'. */
  proposalPosition: Float64Array;
  /** Momentum at the end of the trajectory p'. */
  proposalMomentum: Float64Array;
  /** Acceptance probability α of the proposal. */
  acceptanceRate: number;
  /** Jitter h of this transition. */
  jitter: number;
  /** θ after the transition (updates the centre). */
  nextPosition: Float64Array;
  /** Whether this iteration is in the second half of warmup (averaged for the final T). */
  isAveraged: boolean;
}

/**
 * One ChEES step: the gradient estimate ĝ, an Adam step on log T, and the
 * centre's update.
 *
 * @param state The state.
 * @param t The transition.
 * @returns The new state.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cheesInit, cheesTrajectoryLength, cheesUpdate } from "./trajectory_adaptation.ts";
 * // Moving away from the centre with outward momentum: T grows.
 * const s = cheesUpdate(cheesInit(new Float64Array([0])), {
 *   position: new Float64Array([0.1]), proposalPosition: new Float64Array([1]),
 *   proposalMomentum: new Float64Array([1]), acceptanceRate: 1, jitter: 0.5,
 *   nextPosition: new Float64Array([1]), isAveraged: false });
 * assert.ok(cheesTrajectoryLength(s) > 1);
 * ```
 *
 * References: Hoffman, Radul & Sountsov (2021), eq. (5), Algorithm 1; Kingma & Ba (2015).
 */
export function cheesUpdate(state: CheesState, t: CheesTransition): CheesState {
  const c = state.centre, d = c.length;
  let before = 0, after = 0, dot = 0;
  for (let j = 0; j < d; j++) {
    const a = t.position[j] - c[j], b = t.proposalPosition[j] - c[j];
    before += a * a;
    after += b * b;
    dot += b * t.proposalMomentum[j];
  }
  const alpha = Number.isFinite(t.acceptanceRate) ? t.acceptanceRate : 0;
  const g = alpha * t.jitter * (after - before) * dot;
  let { logT, v } = state;
  if (Number.isFinite(g) && g !== 0) {
    const o = state.options;
    v = o.beta2 * v + (1 - o.beta2) * g * g;
    const vHat = v / (1 - o.beta2 ** (state.count + 1));
    logT += o.learningRate * g / (Math.sqrt(vHat) + 1e-300);
    logT = Math.min(Math.log(o.bounds[1]), Math.max(Math.log(o.bounds[0]), logT));
  }
  // Centre: running mean for the first 50 positions, then an exponential average.
  const n = Math.min(state.numCentre + 1, 50);
  const centre = Float64Array.from(c);
  for (let j = 0; j < d; j++) centre[j] += (t.nextPosition[j] - centre[j]) / n;
  return {
    ...state,
    logT,
    v,
    count: state.count + 1,
    centre,
    numCentre: state.numCentre + 1,
    sumLogT: state.sumLogT + (t.isAveraged ? logT : 0),
    numAveraged: state.numAveraged + (t.isAveraged ? 1 : 0),
  };
}

/**
 * The current T (during warmup).
 *
 * @param state The state.
 * @returns exp(log T).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cheesInit, cheesTrajectoryLength } from "./trajectory_adaptation.ts";
 * assert.equal(cheesTrajectoryLength(cheesInit(new Float64Array(1))), 1);
 * ```
 *
 * References: Hoffman, Radul & Sountsov (2021), Algorithm 1.
 */
export function cheesTrajectoryLength(state: CheesState): number {
  return Math.exp(state.logT);
}

/**
 * The T to sample with: the geometric mean of T over the averaged
 * iterations (Polyak averaging of the Adam iterates), or the current T.
 *
 * @param state The state at the end of warmup.
 * @returns T̄.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cheesFinal, cheesInit } from "./trajectory_adaptation.ts";
 * assert.ok(Math.abs(cheesFinal(cheesInit(new Float64Array(1), { trajectoryLength: 3 })) - 3) < 1e-12);
 * ```
 *
 * References: Hoffman, Radul & Sountsov (2021), Algorithm 1; Polyak & Juditsky (1992).
 */
export function cheesFinal(state: CheesState): number {
  return state.numAveraged > 0 ? Math.exp(state.sumLogT / state.numAveraged) : Math.exp(state.logT);
}
