/**
 * The per-chain state of the HMC-ECS chain sampler: the kernel's product
 * state {θ, u}, the tuning it is stepped with, the warmup state, and the
 * chain-owned engine (its control variates and subsample in memory it alone
 * frees).
 *
 * @module
 */
import type { Metric } from "../metric.ts";
import type { HmcEcsKernelState } from "./kernel.ts";
import type { HmcEcsVariant } from "./options.ts";
import type { ControlVariateProxy, SubsampleEstimator } from "./proxy.ts";
import type { HmcEcsWarmupState } from "./warmup.ts";

/** The mutable machinery one chain owns: control variates and subsample. */
export interface HmcEcsEngine {
  /** The chain's control variates (re-centred during warmup only). */
  readonly proxy: ControlVariateProxy;
  /** The chain's current subsample estimator (replaced by warmup re-tuning only). */
  estimator: SubsampleEstimator;
  /** The estimator the chain samples with after training. */
  readonly targetVariant: HmcEcsVariant;
  /**
   * Whether a signed chain is still training with the perturbed estimator
   * on the subset θ* (until its first re-centring).
   */
  training: boolean;
  /** Number of θ* centrings (including the initial one and Newton steps). */
  numCenterings: number;
  /** Scheduled re-centrings skipped because θ̄ stayed within `recenterTolerance`. */
  numSkippedCenterings: number;
  /** Newton re-centrings made before sampling. */
  numNewtonSteps: number;
  /**
   * Squared distance per dimension (posterior sd²) of θ* from the MAP that
   * the control variates' B was sized for when θ* was found on subsets (0
   * otherwise); scheduled re-centrings within it are skipped.
   */
  toleratedDistance: number;
}

/** Per-chain state of HMC-ECS. Use linearly (the subsample is updated in place). */
export interface HmcEcsState {
  /** The product state {θ, u}. */
  readonly kernel: HmcEcsKernelState;
  /** ε of the next step. */
  readonly stepSize: number;
  /** Metric of the next step. */
  readonly metric: Metric;
  /** Warmup adaptation (null after warmup). */
  readonly warmup: HmcEcsWarmupState | null;
  /** The chain's engine (freed by the chain sampler's `dispose`). */
  readonly engine: HmcEcsEngine;
}
