/**
 * Options of the austerity samplers ({@link ApproxMhOptions}).
 *
 * @module
 */

/** Options of {@link austerityRwmhDescription} and {@link austeritySgldDescription}. */
export interface ApproxMhOptions {
  /** ε ∈ [0, 1) (default 0.05; 0 is exact MH on all rows). */
  epsilon?: number;
  /** Test mini-batch size m (default min(N, 500)). */
  batchSize?: number;
  /**
   * Report agreement with the exact test (uncounted extra work): `true` for
   * every step, a number k for the first k sampling iterations only (default false).
   */
  checkExact?: boolean | number;
  /** Random walk: initial scale s (default 2.38/√d). */
  scale?: number;
  /** Random walk: proposal covariance shape Σ (d×d); proposals N(θ, s²Σ). Default I. */
  proposalCovariance?: Float64Array;
  /** Random walk: adapt s in warmup towards `targetAcceptanceRate` (default true). */
  adaptScale?: boolean;
  /**
   * Target acceptance rate of the adaptation (default 0.234 for the random
   * walk, Roberts, Gelman & Gilks 1997; 0.574 for Langevin, Roberts &
   * Rosenthal 1998).
   */
  targetAcceptanceRate?: number;
  /**
   * Langevin: step size α. Default: α₀ = h² with h from Hoffman & Gelman's
   * heuristic (Algorithm 4) on the full data at the initial position — one
   * leapfrog step of size h from a fresh momentum is a Langevin step with
   * α = h² — then √α adapted in warmup like the random walk's scale.
   * Given, α stays fixed unless `adaptStepSize` is true.
   */
  stepSize?: number;
  /**
   * Langevin: adapt √α in warmup by Robbins–Monro on the accept indicator
   * towards `targetAcceptanceRate` (default: true when `stepSize` is not
   * given, false when it is).
   */
  adaptStepSize?: boolean;
  /** Langevin: minibatch size n of the proposal's gradient (default `batchSize`). */
  gradientBatchSize?: number;
}
