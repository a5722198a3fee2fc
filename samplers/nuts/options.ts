/**
 * The options of NUTS, their defaults and their checks.
 *
 * References: Stan Reference Manual, "Hamiltonian Monte Carlo sampling"
 * (max tree depth 10, δ = 0.8) and "Automatic parameter tuning" (buffers
 * 75 / 25 / 50).
 *
 * @module
 */
import type { HmcInit } from "../hmc/options.ts";
import type { Metric } from "../metric.ts";
import {
  integerInRange,
  metricOrScheme,
  nonNegativeInteger,
  positive,
  positiveFinite,
  probability,
} from "../validate_options.ts";

/** Options of NUTS (`nutsDescription`, `runNuts`). */
export interface NutsOptions {
  /** Initial ε (default: Hoffman & Gelman's heuristic at the start). */
  stepSize?: number;
  /**
   * The warm-up's metric scheme: `"identity"` (fixed I), `"diagonal"` or
   * `"dense"` (Stan's windowed estimates), `"auto"` (dense when the Laplace
   * approximation at the start shows a parameter with multiple correlation
   * ≥ 0.5 and d ≤ 100, else diagonal, as for `hmc`). Default `"auto"`. The
   * command line's `--metric`.
   */
  metricAdaptation?: "identity" | "diagonal" | "dense" | "auto";
  /** A fixed metric for the whole run (no adaptation); give this or `metricAdaptation`. */
  metric?: Metric;
  /** Metric to start the warm-up from (default: the Laplace covariance at the mode, else identity). */
  initialMetric?: Metric;
  /** Where each chain starts, as for `hmc` (default `"laplace"`; `"given"` when starts are given). */
  init?: HmcInit;
  /** Most Newton iterations of the start search (default 50; 0 skips it). */
  optimizationIterations?: number;
  /** Adapt ε by dual averaging during warm-up (default true). */
  adaptStepSize?: boolean;
  /** Dual-averaging target δ of the mean acceptance statistic (default 0.8). */
  targetAcceptanceRate?: number;
  /** Initial fast buffer (default 75). */
  initialBuffer?: number;
  /** First slow window (default 25, doubling). */
  firstWindow?: number;
  /** Terminal fast buffer (default 50). */
  terminalBuffer?: number;
  /** Most doublings of a trajectory (default 10: ≤ 1023 leapfrog steps). */
  maxTreeDepth?: number;
  /** H − H₀ above this is a divergence (default 1000). */
  divergenceThreshold?: number;
}

/** {@link NutsOptions} with defaults filled in and checked. */
export interface ResolvedNutsOptions {
  /** Initial ε or null (heuristic). */
  stepSize: number | null;
  /** The metric option. */
  metric: "identity" | "diagonal" | "dense" | "auto" | Metric;
  /** Most Newton iterations. */
  optimizationIterations: number;
  /** Adapt ε. */
  adaptStepSize: boolean;
  /** δ. */
  targetAcceptanceRate: number;
  /** Most doublings. */
  maxTreeDepth: number;
  /** ΔH threshold. */
  divergenceThreshold: number;
}

/**
 * Fill in the defaults of {@link NutsOptions} and check them.
 *
 * @param options The options as given.
 * @returns The resolved options.
 * @throws {RangeError} Naming the option and the value received.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveNutsOptions } from "./options.ts";
 * assert.equal(resolveNutsOptions({}).maxTreeDepth, 10);
 * assert.throws(() => resolveNutsOptions({ maxTreeDepth: 0 }), /maxTreeDepth/);
 * ```
 */
export function resolveNutsOptions(options: NutsOptions): ResolvedNutsOptions {
  const o = options;
  if (o.stepSize !== undefined) positiveFinite("stepSize", o.stepSize);
  const metric = metricOrScheme(o, ["identity", "diagonal", "dense", "auto"], "auto") as
    | "identity"
    | "diagonal"
    | "dense"
    | "auto"
    | Metric;
  const optimizationIterations = o.optimizationIterations ?? 50;
  nonNegativeInteger("optimizationIterations", optimizationIterations);
  const delta = o.targetAcceptanceRate ?? 0.8;
  probability("targetAcceptanceRate", delta);
  const maxTreeDepth = o.maxTreeDepth ?? 10;
  integerInRange("maxTreeDepth", maxTreeDepth, 1, 30);
  const divergenceThreshold = o.divergenceThreshold ?? 1000;
  positive("divergenceThreshold", divergenceThreshold);
  return {
    stepSize: o.stepSize ?? null,
    metric,
    optimizationIterations,
    adaptStepSize: o.adaptStepSize ?? true,
    targetAcceptanceRate: delta,
    maxTreeDepth,
    divergenceThreshold,
  };
}
