/**
 * The one shape every sampler in tallmc has, and the description the
 * registry, the driver, the CLI and the conformance tests read.
 *
 * Two levels, as in BlackJAX:
 *
 * ```
 *  kernel module   Params, State, Info, init(position, …) → State,
 *                  step(rng, state, params) → { state, info }     pure: the result depends only
 *                                                                 on the arguments
 *  ChainSampler    what the driver runs for one chain: init / step / position, warmup-only
 *                  adaptation hooks, the tuning to report, and dispose for chain-owned memory
 *  SamplerDescription   a registry entry: name, what it needs of the model, its options,
 *                  and build(model, options) → ChainSampler (one per run; every chain's
 *                  mutable state lives in that chain's State, never in the ChainSampler)
 * ```
 *
 * Every `Info` carries `isDivergent`: a divergent or non-finite step is data,
 * reported by the sampler and counted by the driver, never an exception.
 *
 * References: Cabezas et al. (2024), "BlackJAX: composable Bayesian inference
 * in JAX" (init / kernel / top-level API); Stan Reference Manual, "MCMC
 * sampling" (divergent transitions).
 *
 * @module
 */
import type { Model } from "../models/model.ts";
import type { Rng } from "../random/rng.ts";

/** The two phases of a run. */
export type Phase = "warmup" | "sampling";

/** Fields every sampler's `Info` has. */
export interface StepInfo {
  /**
   * The step diverged or produced a non-finite value (energy error above the
   * threshold, a non-finite log density, gradient or position). A sampler
   * that flags this returns a usable state (usually the previous one).
   */
  readonly isDivergent: boolean;
}

/** What a kernel step returns. */
export interface StepResult<S, I> {
  /** The next state. */
  state: S;
  /** Diagnostics of the step; its numeric and boolean fields are recorded. */
  info: I;
  /**
   * Set by a {@link ChainSampler} when the chain cannot go on (e.g. an SG
   * sampler whose dynamics diverged at this step size): a sentence saying
   * why, naming the setting to change. The driver ends the chain there and
   * keeps the draws made before this step. Kernels never set it.
   */
  stop?: string;
}

/** What the warmup `adapt.update` hook receives besides the state. */
export interface AdaptContext<I> {
  /** Info of the step just made. */
  info: I;
  /** 0-based warmup iteration of that step. */
  iteration: number;
  /** Total number of warmup iterations. */
  numWarmup: number;
  /** The chain's generator (the same stream the kernel uses). */
  rng: Rng;
  /** Chain index. */
  chain: number;
}

/** What the warmup `adapt.finish` hook receives besides the state. */
export interface WarmupEndContext {
  /** Total number of warmup iterations. */
  numWarmup: number;
  /** The chain's generator. */
  rng: Rng;
  /** Chain index. */
  chain: number;
}

/** Warmup-only hooks: adaptation never runs during sampling. */
export interface WarmupAdaptation<S, I> {
  /** Called after every warmup step; returns the state with updated tuning. */
  update(state: S, context: AdaptContext<I>): S;
  /** Called once after the last warmup step; returns the state to sample with. */
  finish?(state: S, context: WarmupEndContext): S;
}

/**
 * What the driver runs for each chain. Holds no per-chain mutable state:
 * whatever changes (position, tuning, subsample, chain-owned WASM scratch)
 * lives in `S`, so chain k's draws do not depend on the other chains.
 */
export interface ChainSampler<S, I extends StepInfo = StepInfo> {
  /**
   * The chain's initial state at `position` (may evaluate the model and
   * allocate chain-owned memory; counted as warmup).
   *
   * @param position θ₀ (length d; do not keep a reference).
   * @param rng The chain's generator.
   */
  init(position: Float64Array, rng: Rng): S;
  /**
   * One transition.
   *
   * @param rng The chain's generator.
   * @param state The current state.
   * @param phase `"warmup"` or `"sampling"`.
   * @param iteration 0-based iteration within the phase.
   */
  step(rng: Rng, state: S, phase: Phase, iteration: number): StepResult<S, I>;
  /**
   * The parameter vector θ of a state (read, not kept).
   *
   * @param state A state.
   */
  position(state: S): Float64Array;
  /** Warmup adaptation hooks. */
  adapt?: WarmupAdaptation<S, I>;
  /**
   * The tuning to report for a chain after warmup (step size, metric, m, …).
   *
   * @param state The state after warmup.
   */
  tuning?(state: S): Record<string, unknown>;
  /**
   * Free what the chain owns (WASM scratch, subsample buffers). Called once
   * per chain when it ends, however it ends.
   *
   * @param state The chain's last state.
   */
  dispose?(state: S): void;
}

/** What a sampler needs of the model. */
export type ModelRequirement =
  /** A differentiable log density ({@link Model}). */
  | "log-density"
  /** A Bayesian model over data rows ({@link import("../models/model.ts").DataModel}). */
  | "data-model";

/**
 * A registry entry: everything the driver, the CLI, the web page and the
 * conformance tests need to know to run a sampler by name.
 */
export interface SamplerDescription<O extends object = Record<string, unknown>> {
  /** The name users type (`"hmc"`, `"hmc-ecs"`, `"sgld"`, …). */
  readonly name: string;
  /** One line for `--help` and the registry listing. */
  readonly summary: string;
  /** The paper(s) and equations it implements. */
  readonly references: string;
  /** What it needs of the model. */
  readonly requires: ModelRequirement;
  /**
   * Whether its draws target the posterior exactly (asymptotically), as
   * Metropolis-corrected samplers do, or with a bias (SG samplers without
   * correction, naive subsampling). Conformance tests use exact tolerances
   * only for exact samplers.
   */
  readonly isExact: boolean;
  /**
   * Set on samplers kept to show a failure mode; not for inference (e.g.
   * naive subsampled HMC, whose trajectories follow the wrong Hamiltonian).
   * Conformance tests check what such a sampler is for (the diagnostic it
   * reports, that a run completes) instead of its accuracy.
   */
  readonly isDiagnostic?: true;
  /**
   * Build the per-run chain sampler. Validates `options` (a RangeError or
   * TypeError naming the option and the value received) and allocates
   * nothing per chain: chain-owned memory is allocated in `init`.
   *
   * @param model The target.
   * @param options The sampler's own options.
   * @param plan The run's seed and sizes, for samplers whose set-up depends
   *   on them (a θ* fit, a tuning schedule planned for `numWarmup`).
   */
  build(model: Model, options: O, plan?: RunPlan): ChainSampler<unknown, StepInfo>;
  /**
   * The options a user can set, for `--help`, flag parsing and the web
   * page (in the order to show them). Options not listed here can still be
   * passed through the API.
   */
  readonly options?: readonly SamplerOption[];
}

/** The run a chain sampler is built for (see {@link SamplerDescription.build}). */
export interface RunPlan {
  /** The run's seed. */
  readonly seed: number | string;
  /** Warmup iterations per chain. */
  readonly numWarmup: number;
  /** Sampling iterations per chain. */
  readonly numSamples: number;
}

/**
 * One user-settable option of a sampler: its API name, the command-line
 * flag, its type and the default as users should read it.
 */
export interface SamplerOption {
  /** Key in the options object of {@link SamplerDescription.build} (`"stepSize"`). */
  readonly name: string;
  /** Command-line flag without the dashes (`"step-size"`). */
  readonly flag: string;
  /**
   * Value type: `"number"` (positive, finite), `"integer"` (≥ `min`),
   * `"boolean"` (`yes` or `no` on the command line) or `"choice"` (one of
   * `choices`; a choice of digits is passed as a number).
   */
  readonly type: "number" | "integer" | "boolean" | "choice";
  /** Allowed values of a `"choice"` option. */
  readonly choices?: readonly string[];
  /**
   * Smallest allowed value of an `"integer"` option (default 1); 0 on a
   * `"number"` option lets the command line accept zero (else it must be positive).
   */
  readonly min?: number;
  /** The default, as a user should read it (`"1e-4·(1000/n)"`, `"diagonal"`). */
  readonly default: string;
  /** One line for `--help`. */
  readonly help: string;
}
