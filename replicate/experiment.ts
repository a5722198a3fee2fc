/**
 * The contract between replication experiments and the report writer.
 *
 * An experiment is a named async function that runs samplers and returns
 * tables (rendered to Markdown, HTML and one CSV each) and figures (Vega-Lite
 * specifications rendered to static SVG), each placed beside the paper's own
 * numbers where the paper has them.
 *
 * @module
 */

/** What the harness hands to an experiment. */
export interface ExperimentContext {
  /** Run the reduced version (CI; the whole quick report must take < 3 min). */
  readonly quick: boolean;
  /** Base seed; experiments derive every generator from it. */
  readonly seed: number;
  /** Directory the report is written to (experiments may write extra files there). */
  readonly outDir: string;
  /** Progress / log line to stderr. */
  log(message: string): void;
  /**
   * Run units of this experiment at once, each in its own worker, scheduled
   * with every other experiment's work (set by `deno task replicate` in worker
   * mode). Absent: {@link runUnits} runs them here, one after another.
   */
  readonly runUnits?: (requests: readonly UnitRequest[]) => Promise<unknown[]>;
}

/**
 * A part of an experiment that runs on its own: a function of the
 * experiment's `units` and its arguments (structured-cloneable: numbers,
 * strings, typed arrays, plain objects). Whether it runs in a worker or in
 * the experiment's own thread, it computes the same values.
 */
export interface UnitRequest {
  /** Key in the experiment's `units`. */
  readonly unit: string;
  /** Its arguments. */
  readonly args: unknown;
  /** Expected CPU seconds (the scheduler starts the longest work first). */
  readonly weight: number;
  /** Short label for progress lines. */
  readonly label: string;
}

/** A unit's function: the experiment's context (without `runUnits`) and its arguments. */
// deno-lint-ignore no-explicit-any
export type UnitFunction = (context: ExperimentContext, args: any) => unknown;

/**
 * Run units one after another in this thread, or hand them to the
 * scheduler when the context has `runUnits`. Results come back in the order
 * of `requests`.
 *
 * @param context The experiment's context.
 * @param units The experiment's unit functions (its `units`).
 * @param requests The units to run.
 * @returns Each unit's result.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { runUnits } from "./experiment.ts";
 * const units = { square: (_c: unknown, x: number) => x * x };
 * const context = { quick: true, seed: 1, outDir: "out", log: () => {} };
 * const out = await runUnits(context, units, [
 *   { unit: "square", args: 3, weight: 1, label: "3²" },
 *   { unit: "square", args: 4, weight: 1, label: "4²" },
 * ]);
 * assert.deepEqual(out, [9, 16]);
 * ```
 */
export async function runUnits(
  context: ExperimentContext,
  units: Readonly<Record<string, UnitFunction>>,
  requests: readonly UnitRequest[],
): Promise<unknown[]> {
  for (const r of requests) {
    if (typeof units[r.unit] !== "function") {
      throw new RangeError(`unknown unit ${JSON.stringify(r.unit)}`);
    }
  }
  if (context.runUnits !== undefined) return await context.runUnits(requests);
  const here: ExperimentContext = {
    quick: context.quick,
    seed: context.seed,
    outDir: context.outDir,
    log: (message) => context.log(message),
  };
  const out: unknown[] = [];
  for (const r of requests) out.push(await units[r.unit](here, r.args));
  return out;
}

/** A table of results. */
export interface ResultTable {
  /** File-name-safe identifier, unique within the experiment (CSV is `<experiment>_<name>.csv`). */
  readonly name: string;
  /** One-sentence caption: what the table shows and at what scale. */
  readonly caption: string;
  /** Column headers. */
  readonly columns: readonly string[];
  /** Rows of cells; numbers are formatted by the writer. */
  readonly rows: readonly (readonly (string | number | null)[])[];
}

/** A figure, as a Vega-Lite specification with inline data. */
export interface ResultFigure {
  /** File-name-safe identifier, unique within the experiment. */
  readonly name: string;
  /** Caption. */
  readonly caption: string;
  /** A Vega-Lite (v5/v6) top-level specification object with inline `data.values`. */
  readonly spec: Record<string, unknown>;
}

/** What an experiment returns. */
export interface ExperimentResult {
  /** Markdown paragraphs: settings used, what was measured. */
  readonly summary: string;
  /** Tables, each ideally with "paper" and "ours" columns side by side. */
  readonly tables: readonly ResultTable[];
  /** Figures. */
  readonly figures: readonly ResultFigure[];
  /**
   * The honest column: one line per claim of the paper, saying whether it is
   * reproduced, and if not, why we think it is not.
   */
  readonly comparison: readonly string[];
  /**
   * The verdicts: one per claim of the paper, each computed from this run's
   * own numbers against the paper's with the threshold stated in its reason
   * (see `verdicts.ts` for helpers). They fill the verdict table at the top of
   * the report; an experiment that returns none (or omits the field) gets a
   * row saying "no verdict recorded".
   */
  readonly verdicts?: readonly Verdict[];
}

/** How a paper's claim fared in our run. */
export type VerdictOutcome = "reproduced" | "partly" | "not reproduced";

/**
 * One claim of the paper, the paper's number, ours, and whether it
 * reproduced. Outcomes are computed from the run, never written by hand.
 */
export interface Verdict {
  /** The claim, short: "Table 2 α_θ,p, perturbed HMC-ECS". */
  readonly claim: string;
  /** The paper's number as text: "0.980", "IF ≈ 1", "2.97 (median)". */
  readonly paper: string;
  /** Ours as text, with ± seed-to-seed sd or an interval where there are several seeds. */
  readonly ours: string;
  /** Reproduced, partly, or not. */
  readonly outcome: VerdictOutcome;
  /** One line: the threshold that decided the outcome and, if not reproduced, why we think so. */
  readonly reason: string;
}

/** A registered replication experiment. */
export interface Experiment {
  /** Short name used on the command line: `deno task replicate <name>`. */
  readonly name: string;
  /** Human title, e.g. "R1 — HMC-ECS Table 2 on HIGGS-shaped data". */
  readonly title: string;
  /** Which paper (file in the papers folder) and which table/figure. */
  readonly source: string;
  /** Run it. */
  run(context: ExperimentContext): Promise<ExperimentResult>;
  /** Its units (see {@link UnitRequest}), by name; a worker runs one of them by its key. */
  readonly units?: Readonly<Record<string, UnitFunction>>;
}
