/**
 * Options of random-walk Metropolis–Hastings ({@link RwmhSamplerOptions}).
 *
 * @module
 */
/** Options of {@link rwmhSampler}. */
export interface RwmhSamplerOptions {
  /** Initial proposal scale s (default 2.38/√d). */
  scale?: number;
  /** Proposal covariance shape Σ (d×d); proposals are N(θ, s²Σ). Default I. */
  proposalCovariance?: Float64Array;
  /** Adapt s in warmup (default true). */
  adaptScale?: boolean;
  /** Target acceptance rate of the adaptation (default 0.234). */
  targetAcceptanceRate?: number;
}
