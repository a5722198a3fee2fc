/**
 * Messages between the demo page (`app.ts`) and its sampler worker
 * (`worker.ts`). Everything is structured-cloneable: plain objects, arrays
 * and numbers; draws travel as {@link DrawBlock}s, whose buffer is
 * transferred, not copied.
 *
 * ```
 *  page ◄── SamplersMessage     the registry's samplers, once, on load
 *  page ── LoadRequest ─► worker   a CSV or Parquet file, read and checked once
 *  page ◄── TableMessage        its columns and every problem (or LoadErrorMessage)
 *  page ── DescribeRequest ─► worker   the model fields, when they change
 *  page ◄── DescribedMessage    the prior they give (defaults included), or why they are refused
 *  page ── RunRequest ──► worker
 *  page ◄── StartMessage        names, truth, n, backend
 *  page ◄── ProgressMessage*    new draws since the last one, cost, summary (every ~250 ms)
 *  page ◄── DoneMessage         final summary, per-chain cost and tuning, draws CSV
 *        (or ErrorMessage)
 *
 *  worker ── ChainsRequest ──► copies of itself (parallel chains)
 *  worker ◄── ChainsProgress*, ChainsDone
 * ```
 *
 * @module
 */
import type { ColumnTable } from "../data/design.ts";
import type { SummaryRow } from "../diagnostics/summary.ts";
import type { CalibrationBin, PpcStatistic, RootogramBin } from "../models/ppc.ts";
import type { ChainOutput } from "../samplers/driver.ts";
import type { TableCheck } from "./table.ts";

/** The data sets the page offers. */
export type DatasetKind = "higgs" | "gaussian" | "csv";

/** GLM families (the CLI's `--family` values). */
export type Family =
  | "logistic"
  | "gaussian"
  | "poisson"
  | "student-t"
  | "negative-binomial"
  | "binomial";

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
  /**
   * The loaded file's model (for "csv"), as the CLI's flags: `formula`,
   * `family`, `sigma`, `nu`, `offset`, `trials`, `success`, `prior` (a list),
   * `prior-intercept`, `prior-aux`, `standardize`.
   */
  flags?: Record<string, string | string[] | boolean>;
  /** The loaded file's name (for the description). */
  fileName?: string;
  /** Family (fixed by the synthetic data sets). */
  family: Family;
  /** Prior sd of every coefficient (synthetic data sets). */
  priorScale: number;
  /** Workers that run the chains (1: one after another; more need cross-origin isolation). */
  workers?: number;
  /**
   * Missing cells in a column the model uses (a file run): "drop" the rows
   * (the default) or "refuse" the run, as the CLI does.
   */
  missing?: "drop" | "refuse";
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

/**
 * Draw rows of equal width packed into one Float64Array, row after row, so
 * that a message moves them by transferring one buffer.
 */
export interface DrawBlock {
  /** Numbers per row. */
  width: number;
  /** `numRows × width` numbers. */
  values: Float64Array<ArrayBuffer>;
}

/** Pack rows (all of `width` numbers) into a block. */
export function packRows(rows: readonly number[][], width: number): DrawBlock {
  const values = new Float64Array(rows.length * width);
  rows.forEach((r, i) => values.set(r, i * width));
  return { width, values };
}

/** The rows of a block. */
export function unpackRows(block: DrawBlock): number[][] {
  const out: number[][] = [];
  const { width, values } = block;
  for (let i = 0; i + width <= values.length; i += width) {
    out.push(Array.from(values.subarray(i, i + width)));
  }
  return out;
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
  /** Warnings of the data load (file), and why chains did not run in parallel. */
  warnings: string[];
  /** Notes on the model (how a text response was coded). */
  notes: string[];
  /** The prior in force, in words (null: every coefficient ~ N(0, s²)). */
  priorLines: string[] | null;
  /** Rows dropped for a missing cell in a column the model uses. */
  dropped: number;
  /** Workers running the chains. */
  workers: number;
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
  /** Iterations done (warmup + sampling) per chain id so far: [chain, iterations] pairs. */
  iterations: [number, number][];
  /** Iterations per chain. */
  total: number;
  /**
   * New sampling draws since the last message: `[chain, iteration, θ…]` rows
   * (`[chain, iteration, θ…, sign]` for a signed run).
   */
  draws: DrawBlock;
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
  /** The posterior predictive check (models/ppc.ts), or null if it could not run. */
  ppc: PpcView | null;
}

/** What the page draws of a posterior predictive check. */
export interface PpcView {
  /** The model's family. */
  family: string;
  /** Rows checked. */
  numRows: number;
  /** Rows of the data. */
  numRowsTotal: number;
  /** Draws used. */
  numDraws: number;
  /** Statistics with their p-values. */
  statistics: PpcStatistic[];
  /** Binary responses: calibration by decile. */
  calibration: CalibrationBin[] | null;
  /** Counts: the rootogram. */
  rootogram: RootogramBin[] | null;
  /** Continuous responses: observed and replicated densities on one grid. */
  density: { x: number[]; observed: number[]; replicated: number[][] } | null;
}

/** A file to read and check (in the worker: the page's thread never parses it). */
export interface LoadRequest {
  /** Always "load". */
  type: "load";
  /** File name (a `.parquet` name, or the `PAR1` magic, is read as Parquet). */
  name: string;
  /** The file's bytes (transferred). */
  bytes: Uint8Array;
  /** The CSV delimiter, or undefined to detect it from the header. */
  delimiter?: string;
}

/** The prior the page's model fields give for the loaded file, without running. */
export interface DescribeRequest {
  /** Always "describe". */
  type: "describe";
  /** The CLI's flags, as in {@link RunRequest.flags}. */
  flags: Record<string, string | string[] | boolean>;
}

/** The answer to a {@link DescribeRequest}. */
export interface DescribedMessage {
  /** Always "described". */
  type: "described";
  /** The prior in force, in words, or null when the fields are refused. */
  priorLines: string[] | null;
  /** Why the fields are refused (null when they are not). */
  error: string | null;
  /** Each response cell outside the family's support (table.ts `supportProblems`). */
  support: string[];
}

/** A loaded file's columns and problems. */
export interface TableMessage {
  /** Always "table". */
  type: "table";
  /** File name. */
  name: string;
  /** Columns, problems, counts. */
  check: TableCheck;
}

/** A file that could not be read at all. */
export interface LoadErrorMessage {
  /** Always "load-error". */
  type: "load-error";
  /** Why. */
  message: string;
}

/** To a copy of the worker: run these chains of a request. */
export interface ChainsRequest {
  /** Always "chains". */
  type: "chains";
  /** The run. */
  request: RunRequest;
  /** The loaded file's table (a file run), else null. */
  table: ColumnTable | null;
  /** Chain ids to run. */
  chainIds: number[];
}

/** From a copy of the worker: new draws, iterations per chain id, its cost. */
export interface ChainsProgress {
  /** Always "chains-progress". */
  type: "chains-progress";
  /** `[chain, iteration, θ…(, sign)]` rows. */
  rows: DrawBlock;
  /** [chain id, iterations done] pairs. */
  iterations: [number, number][];
  /** The copy's cost so far. */
  cost: Cost;
}

/** From a copy of the worker: its chains' outputs. */
export interface ChainsDone {
  /** Always "chains-done". */
  type: "chains-done";
  /** The chains, as the run driver returns them. */
  chains: ChainOutput[];
  /** The copy's cost. */
  cost: Cost;
}

/** What a copy of the worker sends to the worker that started it. */
export type SubMessage = ChainsProgress | ChainsDone;

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
  | ErrorMessage
  | TableMessage
  | LoadErrorMessage
  | DescribedMessage;
