/**
 * Options of full-data HMC ({@link HmcSamplerOptions}), where a chain starts
 * ({@link HmcInit}, {@link parseHmcInit}) and the registry's rule for given
 * starts ({@link givenStartInit}).
 *
 * @module
 */
import type { RunOptions } from "../driver.ts";
import type { Metric } from "../metric.ts";
import type { HessianFn } from "../mass_matrix_adaptation.ts";

/** Options of {@link hmcSampler} (the kernel and its warmup). */
export interface HmcSamplerOptions {
  /** Initial ε (default: {@link findReasonableStepSize} at the initial position). */
  stepSize?: number;
  /** Fixed L. Give this or `trajectoryLength`. */
  numIntegrationSteps?: number;
  /** εL, with L = max(1, ⌈εL/ε⌉) (default 1.2, HMC-ECS §6.3, when neither is given). */
  trajectoryLength?: number;
  /** Cap on L derived from `trajectoryLength` (default 1000). */
  maxNumIntegrationSteps?: number;
  /**
   * The warm-up's metric scheme: `"identity"` (fixed I), `"diagonal"`/`"dense"`
   * (Stan windowed estimates), `"hessian"` (HMC-ECS §6.3: M = −∇² log π(θ*)
   * every `updateEvery` warmup iterations, from M = I) or `"auto"` (the
   * default): `"dense"` when d ≤ {@link AUTO_DENSE_MAX_DIM} and, under the
   * Laplace approximation at the start, some parameter has a multiple
   * correlation of at least {@link AUTO_DENSE_MIN_CORRELATION} with the
   * others, else `"diagonal"` (`chooseMetric`). The command line's `--metric`.
   */
  metricAdaptation?: "identity" | "diagonal" | "dense" | "hessian" | "auto";
  /** A fixed metric for the whole run (no adaptation); give this or `metricAdaptation`. */
  metric?: Metric;
  /**
   * Where each chain starts (see {@link HmcInit}). Default `"laplace"` with
   * either warmup scheme and any metric (chains start dispersed), and
   * `"given"` whenever the run is given `initialPosition`,
   * `initialPositions` or `jitter` (through {@link runHmc} or the registry).
   */
  init?: "laplace" | "given" | "0" | 0 | string | { uniform: number };
  /**
   * Metric to start warmup from when `metric` names an adaptive scheme
   * (default identity, as in HMC-ECS §6.3). A good start (e.g. the Laplace
   * approximation of a subset fit) saves the long early trajectories that
   * M = I needs on tall data.
   */
  initialMetric?: Metric;
  /** Adapt ε by dual averaging during warmup (default true). */
  adaptStepSize?: boolean;
  /** Dual-averaging target δ (default 0.8). */
  targetAcceptanceRate?: number;
  /** Hessian period for `"hessian"` (default 200). */
  updateEvery?: number;
  /**
   * ∇² log π for `"hessian"` (default: logLikelihoodHessian + logPriorHessian
   * of a DataModel, or the model's `logDensityHessian` if it has one).
   */
  hessianFn?: HessianFn;
  /** Stan buffer sizes for `"diagonal"`/`"dense"` (75, 25, 50). */
  initialBuffer?: number;
  /** First slow window (default 25). */
  firstWindow?: number;
  /** Terminal buffer (default 50). */
  terminalBuffer?: number;
  /** ΔH above this is a divergence (default 1000). */
  divergenceThreshold?: number;
  /**
   * How warmup sets the integration time and where it starts:
   *
   * - `"chees"`: a damped Newton search of the mode from a data-based point
   *   (samplers/optimize_start.ts; when the model has a Hessian and no
   *   `initialMetric` is given) gives the first metric — the Laplace
   *   covariance (−∇² log π)⁻¹, dense or its diagonal as the metric scheme
   *   says — and by default (`init: "laplace"`) each chain starts at its own
   *   draw from that Laplace approximation; then Stan's windows and dual
   *   averaging as before, with the integration time T adapted by ChEES and
   *   jittered (L = ⌈h·T/ε⌉, h from a Halton sequence: on (0, 1) in
   *   warm-up, on (`samplingJitterMin`, `samplingJitterMax`) in sampling)
   *   (`trajectoryLength` is the initial T, default 1).
   * - `"fixed"`: the previous behaviour: εL = `trajectoryLength` (1.2) or a
   *   fixed L, from the given start and `initialMetric` (identity).
   *
   * Default `"chees"` when neither `trajectoryLength` nor
   * `numIntegrationSteps` is given and `metric` is `"diagonal"` or `"dense"`;
   * `"fixed"` otherwise.
   */
  warmupScheme?: "chees" | "fixed";
  /** Most Newton iterations of the start search (default 50; it stops at the mode; 0 skips it). */
  optimizationIterations?: number;
  /**
   * `"chees"` only: in the sampling phase a transition integrates for
   * h·T, T ChEES's final integration time and h spread evenly (Halton) over
   * (`samplingJitterMin`, `samplingJitterMax`) (default
   * {@link DEFAULT_SAMPLING_JITTER}). The warm-up keeps ChEES's h ∈ (0, 1).
   */
  samplingJitterMin?: number;
  /** Upper end of the sampling phase's h (see `samplingJitterMin`). */
  samplingJitterMax?: number;
  /**
   * How a window of the `"diagonal"`/`"dense"` warm-up regularises its
   * covariance estimate Σ̂ when the first metric is the Laplace covariance Σ_L:
   * `"laplace"` (default) (1 − δ)Σ̂ + δΣ_L with the Ledoit–Wolf intensity δ
   * (δ near 1 when Σ̂ differs from Σ_L by no more than its sampling noise,
   * near 0 when the posterior is far from its Laplace approximation); `"stan"`
   * Stan's (n/(n+5))Σ̂ + 10⁻³(5/(n+5))I, whose 10⁻³ is absolute and exceeds
   * the posterior variances of tall data (the behaviour before
   * `"laplace"`). Without a Laplace metric the windows use Stan's.
   */
  metricShrinkage?: "laplace" | "stan";
}

/**
 * Default (`samplingJitterMin`, `samplingJitterMax`). Measured with
 * bench/nuts_stan_bench.ts; docs/nuts.md gives the table.
 */
export const DEFAULT_SAMPLING_JITTER: readonly [number, number] = [0.5, 1.5];

/**
 * Where each chain starts:
 *
 * - `"laplace"`: a draw from the Laplace approximation N(θ̂, (−∇² log π(θ̂))⁻¹)
 *   at the mode θ̂ found by a damped Newton search from a data-based point
 *   (`dataBasedStart` in samplers/optimize_start.ts); when there is no Laplace approximation (no
 *   Hessian, or −∇² log π not positive definite at the search's end), the
 *   search's last point plus uniform(−2, 2) noise per coordinate.
 * - `"given"` or `"0"` (or the number 0): the driver's initial position
 *   (zeros unless `initialPosition(s)` is given), as is.
 * - `"uniform(R)"` or `{ uniform: R }`: the driver's initial position plus
 *   uniform(−R, R) noise per coordinate of θ (Stan's `init = R`).
 */
export type HmcInit = NonNullable<HmcSamplerOptions["init"]>;

/** d up to which `metricAdaptation: "auto"` may choose the dense metric. */
export const AUTO_DENSE_MAX_DIM = 100;

/**
 * Multiple correlation of a parameter with the others, under the Laplace
 * approximation, from which `metricAdaptation: "auto"` chooses dense ({@link chooseMetric}).
 */
export const AUTO_DENSE_MIN_CORRELATION = 0.5;

/**
 * Parse an {@link HmcInit}.
 *
 * @param init The option (or a CLI `--init` value other than a file).
 * @returns `{kind, radius}`.
 * @throws {TypeError} Naming the value when it is not one of the forms.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseHmcInit } from "./options.ts";
 * assert.deepEqual(parseHmcInit("uniform(0.5)"), { kind: "uniform", radius: 0.5 });
 * assert.deepEqual(parseHmcInit(0), { kind: "given", radius: 0 });
 * ```
 */
export function parseHmcInit(
  init: HmcInit,
): { kind: "laplace" | "given" | "uniform"; radius: number } {
  if (init === 0 || init === "0" || init === "given") return { kind: "given", radius: 0 };
  if (init === "laplace") return { kind: "laplace", radius: 0 };
  let radius = NaN;
  if (typeof init === "object" && init !== null && "uniform" in init) radius = Number(init.uniform);
  else if (typeof init === "string") {
    const m = /^\s*uniform\s*\(\s*([^)]*?)\s*\)\s*$/.exec(init);
    if (m !== null && m[1] !== "") radius = Number(m[1]);
  }
  if (!(radius > 0) || !Number.isFinite(radius)) {
    throw new TypeError(
      `init must be "laplace", "0", "given" or "uniform(R)" with R > 0, got ${
        JSON.stringify(init)
      }`,
    );
  }
  return { kind: "uniform", radius };
}

/**
 * Starts given to the driver are used as they are unless `init` says
 * otherwise (the registry's rule for every sampler with an `init` option).
 *
 * @param options The sampler's options, possibly with the driver's.
 * @returns Them with `init: "given"` when the run gives starts and no `init`.
 */
export function givenStartInit<T extends { init?: HmcSamplerOptions["init"] }>(options: T): T {
  const o = options as T & Partial<RunOptions>;
  return o.init === undefined &&
      (o.initialPosition !== undefined || o.initialPositions !== undefined ||
        (o.jitter ?? 0) > 0)
    ? { ...options, init: "given" }
    : options;
}
