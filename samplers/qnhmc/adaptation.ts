/**
 * Adopting curvature pairs into C: the quasi-Newton part of QNHMC, kept out
 * of the kernel.
 *
 * Algorithm 2 updates B by eq. (1) at every gradient evaluation of a
 * trajectory and makes it the next C only if the proposal is accepted
 * (line 22 resets B = C otherwise). The kernel records the accepted
 * trajectory's pairs; {@link adoptPendingPairs} applies eq. (1) to them in
 * trajectory order, which gives the same B without updating a matrix that a
 * rejection would throw away (§3.5 does the same for L-BFGS).
 *
 * When to call it is the sampler's choice: `"warmup"` adaptation calls it in
 * warmup only, so sampling runs a homogeneous Markov chain with C frozen;
 * `"continuous"` (the paper's Algorithm 2) calls it at every iteration, so
 * C depends on the chain's own past and the chain is inhomogeneous.
 *
 * References: Fu, Luo & Zhang (2016), Algorithm 2, §3.4–3.5.
 *
 * @module
 */
import type { QnhmcState } from "./kernel.ts";

/** What {@link adoptPendingPairs} returns. */
export interface AdoptResult {
  /** The state with C updated and no pending pairs. */
  state: QnhmcState;
  /** Pairs skipped for failing the curvature condition sᵀy > 0. */
  numSkipped: number;
}

/**
 * Fold the state's pending pairs (from its last accepted trajectory) into C.
 *
 * @param state A kernel state.
 * @returns The state with the new C and no pending pairs, and how many pairs were skipped.
 *
 * @example
 * ```ts
 * import { adoptPendingPairs } from "./adaptation.ts";
 * import { denseBfgs } from "./bfgs.ts";
 * const state = { position: new Float64Array([0]), logDensity: 0, gradient: new Float64Array([0]),
 *   inverseHessian: denseBfgs(1),
 *   pendingPairs: [{ s: new Float64Array([1]), y: new Float64Array([4]) },
 *                  { s: new Float64Array([1]), y: new Float64Array([-1]) }] };
 * const r = adoptPendingPairs(state);
 * if (r.numSkipped !== 1 || r.state.inverseHessian.toDense()[0] !== 0.25) throw new Error();
 * ```
 *
 * References: Fu, Luo & Zhang (2016), Algorithm 2 (lines 7, 12, 16, 22) and eq. (1).
 */
export function adoptPendingPairs(state: QnhmcState): AdoptResult {
  if (state.pendingPairs.length === 0) return { state, numSkipped: 0 };
  const { approximation, numSkipped } = state.inverseHessian.update(state.pendingPairs);
  return { state: { ...state, inverseHessian: approximation, pendingPairs: [] }, numSkipped };
}
