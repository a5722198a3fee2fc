/**
 * Random-walk Metropolis–Hastings with a Gaussian proposal
 * θ' = θ + s·L z, z ~ N(0, I), where L Lᵀ is the proposal covariance shape
 * (identity by default) and s the scale.
 *
 * Same shape as every sampler: {@link RwmhState}, {@link RwmhInfo},
 * {@link init}, and a pure kernel {@link step}. The proposal is symmetric, so
 * the acceptance probability is min(1, π(θ')/π(θ)). Scale adaptation lives in
 * `scale_adaptation.ts` and runs in warmup only.
 *
 * References: Metropolis et al. (1953); Hastings (1970); Roberts, Gelman &
 * Gilks (1997) (optimal scale 2.38/√d, acceptance 0.234).
 *
 * @module
 */
import type { Rng } from "../../random/rng.ts";
import { squareDim } from "../../math/linalg.ts";
import type { StepInfo } from "../sampler.ts";
import { positiveFinite } from "../validate_options.ts";

/** A log density (up to a constant). Non-finite values are outside the support. */
export type LogDensityFn = (position: Float64Array) => number;

/** What the next RWMH step needs. Treat as immutable. */
export interface RwmhState {
  /** θ. */
  readonly position: Float64Array;
  /** log π(θ). */
  readonly logDensity: number;
}

/** Diagnostics of one RWMH step. */
export interface RwmhInfo extends StepInfo {
  /** min(1, π(θ')/π(θ)) (0 if π(θ') is not finite). */
  acceptanceRate: number;
  /** Whether the proposal was accepted. */
  isAccepted: boolean;
  /** The proposal scale s used. */
  scale: number;
  /** log π(θ) of the returned state, up to a constant (CmdStan's `lp__`). */
  logDensity: number;
  /**
   * The proposal's log density was not finite (NaN, ±∞): the proposal is
   * rejected and the step reported. On a target with a bounded support a
   * proposal outside it (log density −∞) counts too: a high count then
   * says the scale overshoots the support.
   */
  isDivergent: boolean;
}

/** Parameters of {@link step}. */
export interface RwmhParams {
  /** The target's log density. */
  logDensityFn: LogDensityFn;
  /** Proposal scale s > 0. */
  scale: number;
  /**
   * Lower Cholesky factor L of the proposal covariance shape (d×d row-major);
   * the proposal covariance is s² L Lᵀ. Default identity.
   */
  proposalCholesky?: Float64Array;
}

/**
 * Initial RWMH state at `position`.
 *
 * @param position θ₀ (copied).
 * @param logDensityFn The target.
 * @returns The state.
 * @throws {RangeError} If log π(θ₀) is not finite.
 *
 * @example
 * ```ts
 * import { init } from "./kernel.ts";
 * const s = init(new Float64Array([1]), (x) => -0.5 * x[0] * x[0]);
 * if (s.logDensity !== -0.5) throw new Error();
 * ```
 *
 * References: Metropolis et al. (1953).
 */
export function init(position: Float64Array, logDensityFn: LogDensityFn): RwmhState {
  if (!(position instanceof Float64Array)) {
    throw new TypeError(
      `position must be a Float64Array, got ${Object.prototype.toString.call(position)}`,
    );
  }
  const pos = Float64Array.from(position);
  const logDensity = logDensityFn(pos);
  if (!Number.isFinite(logDensity)) {
    throw new RangeError(`log density at the initial position must be finite, got ${logDensity}`);
  }
  return { position: pos, logDensity };
}

/**
 * One RWMH transition. Consumes d normals and one uniform, always.
 *
 * @param rng The generator.
 * @param state The current state (not modified).
 * @param params Target, scale and optional proposal Cholesky factor.
 * @returns The next state (the same object if rejected) and the info.
 * @throws {RangeError} On a non-positive scale or a factor of the wrong size.
 *
 * @example
 * ```ts
 * import { init, step } from "./kernel.ts";
 * import { Rng } from "../../random/rng.ts";
 * const fn = (x: Float64Array) => -0.5 * x[0] * x[0];
 * let s = init(new Float64Array([0]), fn);
 * const rng = new Rng(2);
 * for (let i = 0; i < 10; i++) s = step(rng, s, { logDensityFn: fn, scale: 2.4 }).state;
 * if (!Number.isFinite(s.position[0])) throw new Error();
 * ```
 *
 * References: Metropolis et al. (1953); Hastings (1970).
 */
export function step(
  rng: Rng,
  state: RwmhState,
  params: RwmhParams,
): { state: RwmhState; info: RwmhInfo } {
  const { scale, proposalCholesky: l } = params;
  positiveFinite("scale", scale);
  const proposal = randomWalkDraw(rng, state.position, { scale, proposalCholesky: l });
  const logDensity = params.logDensityFn(proposal);
  const logRatio = logDensity - state.logDensity;
  const acceptanceRate = Number.isFinite(logDensity) ? Math.min(1, Math.exp(logRatio)) : 0;
  const u = rng.uniform();
  const isAccepted = u < acceptanceRate;
  const isDivergent = !Number.isFinite(logDensity);
  const info: RwmhInfo = {
    acceptanceRate,
    isAccepted,
    scale,
    isDivergent,
    logDensity: isAccepted ? logDensity : state.logDensity,
  };
  return isAccepted ? { state: { position: proposal, logDensity }, info } : { state, info };
}

/**
 * θ' = θ + s·L z with z ~ N(0, I): the random-walk draw of {@link step},
 * shared by every sampler that proposes by a Gaussian random walk. Draws
 * the d normals first, whatever L is.
 *
 * @param rng The generator.
 * @param position θ (not modified).
 * @param options Scale s and an optional lower Cholesky factor L (d × d row-major).
 * @returns θ'.
 * @throws {RangeError} If L is not d × d.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { randomWalkDraw } from "./kernel.ts";
 * import { Rng } from "../../random/rng.ts";
 * const a = randomWalkDraw(new Rng(1), new Float64Array(2), { scale: 2 });
 * const b = randomWalkDraw(new Rng(1), new Float64Array(2), {
 *   scale: 1, proposalCholesky: new Float64Array([2, 0, 0, 2]),
 * });
 * assert.deepEqual(a, b); // s = 2 and L = 2I give the same draw
 * ```
 *
 * References: Roberts & Rosenthal (2001), §2 (random-walk Metropolis).
 */
export function randomWalkDraw(
  rng: Rng,
  position: Float64Array,
  options: { scale: number; proposalCholesky?: Float64Array },
): Float64Array {
  const { scale, proposalCholesky: l } = options;
  const d = position.length;
  const z = new Float64Array(d);
  for (let i = 0; i < d; i++) z[i] = rng.normal();
  const out = Float64Array.from(position);
  if (l === undefined) {
    for (let i = 0; i < d; i++) out[i] += scale * z[i];
  } else {
    if (squareDim(l, "proposalCholesky") !== d) {
      throw new RangeError(`proposalCholesky must be ${d}×${d}, got length ${l.length}`);
    }
    for (let i = 0; i < d; i++) {
      let s = 0;
      for (let k = 0; k <= i; k++) s += l[i * d + k] * z[k];
      out[i] += scale * s;
    }
  }
  return out;
}
