/**
 * Helpers shared by the HMC-ECS replication experiments (R1, R3, R5, R6):
 * Table 2 style run summaries and scatter figures. The full-data HMC
 * reference is in `reference_hmc.ts`, posterior moments in `moment_errors.ts`,
 * progress lines in `progress.ts`.
 *
 * @module
 */
import { inefficiencyFactor } from "../diagnostics/mod.ts";
import { numRowEvaluations } from "../models/model.ts";
import {
  infoAcrossChains,
  parameterDraws,
  type SamplingResult,
  totalCost,
} from "../samplers/driver.ts";
import { VEGA_LITE_SCHEMA } from "./figures.ts";

/** Table 2 quantities of one run (sampling phase unless stated). */
export interface EcsRunSummary {
  /** Mean θ-step acceptance probability α_θ,p. */
  acceptance: number;
  /** Mean u-step acceptance probability α_u (NaN for full-data HMC). */
  subsampleAcceptance: number;
  /** Mean number of leapfrog steps L. */
  numSteps: number;
  /** Mean step size ε after warmup. */
  stepSize: number;
  /** Mean inefficiency factor over parameters (coda-style AR spectral). */
  inefficiency: number;
  /** Draws per chain / IF, summed over chains (the paper's ESS = R/IF). */
  ess: number;
  /** Fraction of positive signs τ̂ (1 for perturbed / HMC). */
  tau: number;
  /** 100·(rows per estimate)/n. */
  percentRows: number;
  /** Row evaluations (ℓ + ∇ℓ + Hessian rows), warmup incl. tuning. */
  costWarmup: number;
  /** Hessian rows among `costWarmup`. */
  hessianRowsWarmup: number;
  /** Row evaluations (ℓ + ∇ℓ + Hessian rows), sampling. */
  costSampling: number;
  /** Wall time of the run in seconds. */
  seconds: number;
}

function _mean(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s / a.length;
}

function _pooledMean(chains: Float64Array[]): number {
  return _mean(chains.flatMap((c) => Array.from(c)));
}

/**
 * Summarise a run the way Table 2 does.
 *
 * @param result The driver's result.
 * @param options `numRows` n and the wall time `seconds`.
 * @returns The summary.
 */
export function summarizeEcsRun(
  result: SamplingResult,
  options: { numRows: number; seconds: number },
): EcsRunSummary {
  const has = (f: string) => result.chains[0].info.sampling[f] !== undefined;
  const field = (f: string) => _pooledMean(infoAcrossChains(result, { field: f }));
  const d = result.parameterNames.length;
  let ifSum = 0;
  for (let j = 0; j < d; j++) ifSum += inefficiencyFactor(parameterDraws(result, j));
  const ifMean = ifSum / d;
  const w = totalCost(result, "warmup"), s = totalCost(result, "sampling");
  return {
    acceptance: field("acceptanceRate"),
    subsampleAcceptance: has("subsampleAcceptanceRate") ? field("subsampleAcceptanceRate") : NaN,
    numSteps: field("numIntegrationSteps"),
    stepSize: _mean(result.chains.map((c) => Number(c.tuning.stepSize))),
    inefficiency: ifMean,
    ess: (result.numChains * result.numDraws) / ifMean,
    tau: has("sign") ? (field("sign") + 1) / 2 : 1,
    percentRows: has("numSubsampleRows")
      ? (100 * field("numSubsampleRows")) / options.numRows
      : 100,
    costWarmup: numRowEvaluations(w),
    hessianRowsWarmup: w.numHessianRows,
    costSampling: numRowEvaluations(s),
    seconds: options.seconds,
  };
}

/**
 * Fig. 2 style scatter: estimates of each method (y) against the reference
 * (x), with the identity line.
 *
 * @param points `{method, parameter, reference, estimate}` rows.
 * @param options Title and axis labels.
 * @returns A Vega-Lite spec with inline data.
 */
export function scatterVsReference(
  points: { method: string; parameter: string; reference: number; estimate: number }[],
  options: { title: string; xTitle: string; yTitle: string },
): Record<string, unknown> {
  let lo = Infinity, hi = -Infinity;
  for (const p of points) {
    lo = Math.min(lo, p.reference, p.estimate);
    hi = Math.max(hi, p.reference, p.estimate);
  }
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: options.title,
    width: 320,
    height: 320,
    layer: [
      {
        data: { values: [{ x: lo, y: lo }, { x: hi, y: hi }] },
        mark: { type: "line", color: "#999", strokeDash: [4, 3] },
        encoding: {
          x: { field: "x", type: "quantitative" },
          y: { field: "y", type: "quantitative" },
        },
      },
      {
        data: { values: points },
        mark: { type: "point", filled: true, size: 40, opacity: 0.8 },
        encoding: {
          x: { field: "reference", type: "quantitative", title: options.xTitle },
          y: { field: "estimate", type: "quantitative", title: options.yTitle },
          color: { field: "method", type: "nominal", title: null },
          shape: { field: "method", type: "nominal", title: null },
          tooltip: [{ field: "parameter" }, { field: "reference" }, { field: "estimate" }],
        },
      },
    ],
  };
}
