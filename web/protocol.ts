/**
 * Messages between the demo page (`app.ts`) and its sampler worker
 * (`worker.ts`). Everything is structured-cloneable: plain objects, arrays
 * and numbers.
 *
 * ```
 *  page ◄── SamplersMessage     the registry's samplers, once, on load
 *  page ── RunRequest ──► worker
 *  page ◄── StartMessage        names, truth, n, backend
 *  page ◄── ProgressMessage*    new draws since the last one, cost, summary (every ~250 ms)
 *  page ◄── DoneMessage         final summary, per-chain cost and tuning, draws CSV
 *        (or ErrorMessage)
 * ```
 *
 * @module
 */
import type { SummaryRow } from "../diagnostics/summary.ts";

/** The data sets the page offers. */
export type DatasetKind = "higgs" | "gaussian" | "csv";

/** GLM families. */
export type Family = "logistic" | "gaussian" | "poisson";

/** What to run. */
export interface RunRequest {
  /** Always "run". */
  type: "run";
  /** Data set. */
  dataset: DatasetKind;
  /** Rows of a synthetic data set. */
  n: number;
  /** Columns of the Gaussian regression (intercept included). */
  d: number;
  /** Seed of the synthetic data. */
  dataSeed: number;
  /** Text of a dropped CSV file (for "csv"). */
  csvText?: string;
  /** Response column of the CSV file. */
  response?: string;
  /** Family (fixed by the synthetic data sets; chosen for CSV files). */
  family: Family;
  /** Prior sd of every coefficient. */
  priorScale: number;
  /** A registered sampler's name. */
  sampler: string;
  /** The sampler's own options the user set (the others take its defaults). */
  options: Record<string, number | string | boolean>;
  /** Chains (run one after another). */
  numChains: number;
  /** Warmup iterations per chain. */
  numWarmup: number;
  /** Sampling iterations per chain. */
  numSamples: number;
  /** Sampler seed. */
  seed: number;
}

/** Cost so far: per-row evaluations, the papers' unit. */
export interface Cost {
  /** Per-row log-likelihood evaluations. */
  numLogLikRows: number;
  /** Per-row gradient evaluations. */
  numGradRows: number;
  /** Per-row Hessian evaluations (mass matrices, control-variate centrings). */
  numHessianRows: number;
}

/** Sent once the data and model are ready. */
export interface StartMessage {
  /** Always "start". */
  type: "start";
  /** Parameter names. */
  names: string[];
  /** Generating coefficients of a synthetic data set. */
  truth: number[] | null;
  /** Rows in the data. */
  numRows: number;
  /** The compute core in use ("relaxed-simd", "simd" or "reference"). */
  backend: string;
  /** Data-set description for the status line. */
  description: string;
  /** Warnings of the data load (CSV). */
  warnings: string[];
  /**
   * A signed HMC-ECS run: each draw row ends with its sign (±1), the final
   * summary is sign-corrected and the CSV has a `sign` column.
   */
  signed: boolean;
}

/** Sent every ~250 ms while sampling. */
export interface ProgressMessage {
  /** Always "progress". */
  type: "progress";
  /** Chain running. */
  chain: number;
  /** Iterations done in that chain (warmup + sampling). */
  iteration: number;
  /** Iterations per chain. */
  total: number;
  /**
   * New sampling draws since the last message: `[chain, iteration, θ…]` rows
   * (`[chain, iteration, θ…, sign]` for a signed run).
   */
  draws: number[][];
  /** Cumulative cost of the run. */
  cost: Cost;
  /** Summary of the draws so far (see `summaryScope`), or null before any. */
  summary: SummaryRow[] | null;
  /** Which draws the summary covers. */
  summaryScope: string;
}

/** Per-chain outcome. */
export interface ChainReport {
  /** Cost of warmup (with init and adaptation). */
  warmup: Cost;
  /** Cost of sampling. */
  sampling: Cost;
  /** Wall time per phase, ms. */
  wallTimeMs: { warmup: number; sampling: number };
  /** Step size after warmup. */
  stepSize: number;
  /** Mean acceptance rate while sampling (NaN if the sampler reports none). */
  acceptanceRate: number;
  /** Divergent transitions while sampling. */
  numDivergent: number;
  /** Why the chain stopped early, or null. */
  stop: string | null;
}

/** One registered sampler, as the page lists it. */
export interface SamplerEntry {
  /** The registry name. */
  name: string;
  /** One line. */
  summary: string;
  /** Papers. */
  references: string;
  /** Exact (Metropolis-corrected) or biased. */
  isExact: boolean;
  /** A diagnostic only, not for inference (the naive-* samplers). */
  isDiagnostic: boolean;
  /** Its options, from the registry's metadata (empty when it publishes none). */
  options: {
    name: string;
    type: "number" | "integer" | "boolean" | "choice";
    choices?: readonly string[];
    min?: number;
    default: string;
    help: string;
  }[];
}

/** Sent once when the worker has loaded. */
export interface SamplersMessage {
  /** Always "samplers". */
  type: "samplers";
  /** Every registered sampler. */
  samplers: SamplerEntry[];
}

/** Sent at the end. */
export interface DoneMessage {
  /** Always "done". */
  type: "done";
  /** Summary of all draws. */
  summary: SummaryRow[];
  /** Per chain. */
  chains: ChainReport[];
  /** Cumulative cost of the run. */
  cost: Cost;
  /** The draws as CSV (chain, iteration, parameters, and `sign` for a signed run). */
  csv: string;
  /** True when every check of the verdict passed. */
  converged: boolean;
  /**
   * The verdict in words (diagnostics/verdict.ts, as the CLI prints it, with
   * the page's control names in the fixes), plus a line on low acceptance.
   */
  verdict: string[];
  /** Signed HMC-ECS: the share of draws with a negative sign (else null). */
  negativeSignShare: number | null;
}

/** Sent on failure. */
export interface ErrorMessage {
  /** Always "error". */
  type: "error";
  /** What went wrong. */
  message: string;
}

/** Anything the worker sends. */
export type WorkerMessage =
  | SamplersMessage
  | StartMessage
  | ProgressMessage
  | DoneMessage
  | ErrorMessage;
