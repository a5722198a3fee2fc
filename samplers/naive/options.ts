/**
 * Options of the naive subsampled HMC samplers ({@link NaiveOptions}) and
 * their trajectory kinds ({@link NaiveVariant}).
 *
 * @module
 */

/** The three trajectories. */
export type NaiveVariant = "between" | "within" | "symmetric";

/** Options of the naive samplers. */
export interface NaiveOptions {
  /**
   * Rows per batch B (must divide N). Default: the smallest divisor of N
   * that is at least ⌈N/25⌉, i.e. J = 25 batches when 25 divides N
   * (Betancourt 2015, §4: J = 25), else the nearest split into fewer.
   */
  batchSize?: number;
  /**
   * Initial ε > 0. Default: Hoffman & Gelman's heuristic (Algorithm 4) on
   * the FULL-data Hamiltonian at the initial position, then dual averaging
   * in warmup (see `adaptStepSize`). Given, ε stays fixed unless
   * `adaptStepSize` is true (the paper fixes ε).
   */
  stepSize?: number;
  /**
   * Dual-average ε in warmup on the full-data acceptance probability
   * min(1, exp(−ΔH)) that every step reports — the acceptance applied by the
   * `-mh` variants, the paper's accuracy surrogate for the uncorrected ones.
   * Default: true when `stepSize` is not given, false when it is.
   */
  adaptStepSize?: boolean;
  /** Dual-averaging target δ (default 0.8). */
  targetAcceptanceRate?: number;
  /**
   * L; give this or `trajectoryLength`. Default, when ε is adapted (no
   * `stepSize` given): L = 2J for every variant — one symmetric sweep
   * (J batches forward, J back), and for between and within the same cost,
   * 2J batch gradients (two full-data gradients' worth) per trajectory. A
   * fixed L, not a fixed τ, because the subsampling error of the between
   * and within trajectories grows with the integration time τ, not with ε:
   * dual averaging with τ fixed would buy its acceptance by shrinking ε and
   * paying ever more steps (L = τ/ε) for an ever shorter move.
   */
  numIntegrationSteps?: number;
  /**
   * τ. Default, when `stepSize` is given: 2π with `isTrajectoryLengthRandom`
   * (the paper's τ ~ U(0, 2π), for a posterior of unit scale).
   */
  trajectoryLength?: number;
  /** τ ~ U(0, trajectoryLength) per trajectory (default true when `trajectoryLength` is defaulted). */
  isTrajectoryLengthRandom?: boolean;
  /** Batches subsamples are drawn from (default all). */
  candidateBatches?: Int32Array | readonly number[];
  /** M⁻¹ diagonal (default identity). */
  inverseMassDiagonal?: Float64Array;
  /** Integration-error threshold for divergence (default 1000). */
  divergenceThreshold?: number;
}
