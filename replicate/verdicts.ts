/**
 * Verdicts: did each claim of a paper reproduce? Helpers that turn a run's
 * numbers and a stated threshold into an outcome, and the verdict table that
 * opens the report (one row per claim, linked to the experiment's section).
 *
 * ```
 *  experiment.run() ──► ExperimentResult.verdicts ──► verdictTableMarkdown / verdictTableHtml
 *    outcome from the run's numbers        (no verdicts → "no verdict recorded";
 *    against the paper's, threshold         failed run → "experiment failed")
 *    written into the reason
 * ```
 *
 * @module
 */

import type { ExperimentResult, Verdict, VerdictOutcome } from "./experiment.ts";
import { formatShort } from "./format.ts";
import { escapeHtml, inlineMarkdown } from "./markup.ts";

export type { Verdict, VerdictOutcome };

const _OUTCOMES: readonly VerdictOutcome[] = ["reproduced", "partly", "not reproduced"];

/**
 * The outcome from two tests: reproduced if the strict one passes, partly if
 * only the loose one does, not reproduced otherwise.
 *
 * @param strict The claim holds within the stated threshold.
 * @param loose The claim holds within the looser threshold (default false).
 * @returns The outcome.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { outcomeOf } from "./verdicts.ts";
 * assert.equal(outcomeOf(false, true), "partly");
 * ```
 */
export function outcomeOf(strict: boolean, loose = false): VerdictOutcome {
  return strict ? "reproduced" : loose ? "partly" : "not reproduced";
}

/**
 * The outcome of "ours is within a factor of the paper's": reproduced when
 * max(ours/paper, paper/ours) ≤ `factor`, partly when ≤ `partlyFactor`.
 * Numbers must be positive; anything else (NaN, ≤ 0) is not reproduced.
 *
 * @param ours Our number.
 * @param paper The paper's number.
 * @param options `factor` (> 1) and `partlyFactor` (≥ factor, default factor).
 * @returns The outcome.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { outcomeByFactor } from "./verdicts.ts";
 * assert.equal(outcomeByFactor(1.1, 1, { factor: 1.25 }), "reproduced");
 * assert.equal(outcomeByFactor(3, 1, { factor: 1.25, partlyFactor: 4 }), "partly");
 * ```
 */
export function outcomeByFactor(
  ours: number,
  paper: number,
  options: { factor: number; partlyFactor?: number },
): VerdictOutcome {
  const { factor } = options;
  const partlyFactor = options.partlyFactor ?? factor;
  if (!(factor >= 1) || !(partlyFactor >= factor)) {
    throw new RangeError(
      `need 1 ≤ factor ≤ partlyFactor, got factor ${factor} and partlyFactor ${partlyFactor}`,
    );
  }
  if (!(ours > 0) || !(paper > 0)) return "not reproduced";
  const r = Math.max(ours / paper, paper / ours);
  return outcomeOf(r <= factor, r <= partlyFactor);
}

/** Mean and sample standard deviation (sd 0 for one value). */
export interface MeanSd {
  /** The mean. */
  readonly mean: number;
  /** Sample sd (n − 1 divisor); 0 for one value. */
  readonly sd: number;
  /** How many values. */
  readonly count: number;
}

/**
 * Mean and sample sd of per-seed values.
 *
 * @param values One number per seed (at least one).
 * @returns Mean, sd and count.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { meanSd } from "./verdicts.ts";
 * assert.deepEqual(meanSd([1, 3]), { mean: 2, sd: Math.SQRT2, count: 2 });
 * ```
 */
export function meanSd(values: readonly number[]): MeanSd {
  if (values.length === 0) throw new RangeError("meanSd needs at least one value, got none");
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const ss = values.reduce((a, b) => a + (b - mean) ** 2, 0);
  return {
    mean,
    sd: values.length > 1 ? Math.sqrt(ss / (values.length - 1)) : 0,
    count: values.length,
  };
}

/**
 * "mean ± sd (k seeds)", or just the number for one seed.
 *
 * @param values One number per seed.
 * @param digits Significant digits (default 3).
 * @returns The text.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { formatMeanSd } from "./verdicts.ts";
 * assert.equal(formatMeanSd([1, 3]), "2 ± 1.41 (2 seeds)");
 * assert.equal(formatMeanSd([0.5]), "0.5");
 * ```
 */
export function formatMeanSd(values: readonly number[], digits = 3): string {
  const { mean, sd, count } = meanSd(values);
  if (count === 1) return formatShort(mean, digits);
  return `${formatShort(mean, digits)} ± ${formatShort(sd, digits)} (${count} seeds)`;
}

/**
 * Whether two methods' per-seed values differ by more than their seed-to-seed
 * spread: |mean_a − mean_b| > 2·√(sd_a²/k_a + sd_b²/k_b) (two standard errors
 * of the difference). With one seed each there is no spread and the answer is
 * `undefined`.
 *
 * @param a Per-seed values of one method.
 * @param b Per-seed values of the other.
 * @returns True / false, or undefined with fewer than two seeds on a side.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { exceedsSeedSpread } from "./verdicts.ts";
 * assert.equal(exceedsSeedSpread([1, 1.1], [5, 5.2]), true);
 * assert.equal(exceedsSeedSpread([1, 3], [2, 2.5]), false);
 * ```
 */
export function exceedsSeedSpread(
  a: readonly number[],
  b: readonly number[],
): boolean | undefined {
  if (a.length < 2 || b.length < 2) return undefined;
  const x = meanSd(a), y = meanSd(b);
  const se = Math.sqrt(x.sd ** 2 / x.count + y.sd ** 2 / y.count);
  return Math.abs(x.mean - y.mean) > 2 * se;
}

/**
 * Check an experiment's verdicts against the contract of `experiment.ts`.
 *
 * @param verdicts The `verdicts` field (may be undefined).
 * @param where Used in error messages ("experiment r1").
 * @throws TypeError naming the bad verdict and field.
 * @example
 * ```ts
 * import { validateVerdicts } from "./verdicts.ts";
 * validateVerdicts([{ claim: "c", paper: "1", ours: "1", outcome: "reproduced", reason: "r" }], "x");
 * ```
 */
export function validateVerdicts(verdicts: unknown, where: string): void {
  if (verdicts === undefined) return;
  if (!Array.isArray(verdicts)) {
    throw new TypeError(`${where}: verdicts must be an array, got ${typeof verdicts}`);
  }
  verdicts.forEach((v, i) => {
    if (v === null || typeof v !== "object") {
      throw new TypeError(`${where}: verdict ${i + 1} must be an object, got ${v}`);
    }
    for (const key of ["claim", "paper", "ours", "reason"] as const) {
      if (typeof v[key] !== "string") {
        throw new TypeError(
          `${where}: verdict ${i + 1} ${key} must be a string, got ${typeof v[key]}`,
        );
      }
    }
    if (!_OUTCOMES.includes(v.outcome)) {
      throw new TypeError(
        `${where}: verdict ${i + 1} outcome must be one of ${_OUTCOMES.join(", ")}, got ${
          JSON.stringify(v.outcome)
        }`,
      );
    }
  });
}

/** What the verdict table needs to know about one experiment. */
export interface VerdictSource {
  /** Short name (the section anchor). */
  readonly name: string;
  /** Title. */
  readonly title: string;
  /** The result; absent when the experiment failed. */
  readonly result?: ExperimentResult;
}

/** One row of the verdict table. */
export interface VerdictRow {
  /** The experiment's short name (anchor). */
  readonly experiment: string;
  /** The experiment's title. */
  readonly title: string;
  /** The verdict, or the placeholder for none. */
  readonly verdict: Verdict | null;
  /** Why there is no verdict ("no verdict recorded" / "experiment failed"). */
  readonly note: string;
}

/**
 * The verdict table's rows: every verdict of every experiment, and one
 * placeholder row for an experiment that failed or recorded none.
 *
 * @param outcomes The experiments in report order.
 * @returns The rows.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { verdictRows } from "./verdicts.ts";
 * const rows = verdictRows([{ name: "r0", title: "R0" }]);
 * assert.equal(rows[0].note, "experiment failed");
 * ```
 */
export function verdictRows(outcomes: readonly VerdictSource[]): VerdictRow[] {
  const rows: VerdictRow[] = [];
  for (const o of outcomes) {
    const base = { experiment: o.name, title: o.title };
    if (!o.result) rows.push({ ...base, verdict: null, note: "experiment failed" });
    else if (!o.result.verdicts?.length) {
      rows.push({ ...base, verdict: null, note: "no verdict recorded" });
    } else for (const v of o.result.verdicts) rows.push({ ...base, verdict: v, note: "" });
  }
  return rows;
}

function _shortTitle(title: string): string {
  return title.split(" — ")[0];
}

function _md(text: string): string {
  return text.replaceAll("|", "\\|").replace(/\r?\n/g, " ");
}

function _counts(rows: readonly VerdictRow[]): string {
  const n = (o: VerdictOutcome) => rows.filter((r) => r.verdict?.outcome === o).length;
  const none = rows.filter((r) => r.verdict === null).length;
  return `${n("reproduced")} reproduced, ${n("partly")} partly, ${
    n("not reproduced")
  } not reproduced${none ? `, ${none} experiment(s) without a verdict` : ""}`;
}

const _INTRO =
  "One row per claim of the papers: the paper's number, ours, and whether it reproduced. Each outcome is computed from this run's numbers against the paper's with the threshold given in the reason; the experiment link leads to the tables and the longer comparison.";

/**
 * The verdict table in Markdown (a "## Verdicts" section).
 *
 * @param outcomes The experiments in report order.
 * @returns Markdown lines.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { verdictTableMarkdown } from "./verdicts.ts";
 * assert.ok(verdictTableMarkdown([]).join("\n").includes("## Verdicts"));
 * ```
 */
export function verdictTableMarkdown(outcomes: readonly VerdictSource[]): string[] {
  const rows = verdictRows(outcomes);
  const out = ["## Verdicts", "", `${_INTRO} Totals: ${_counts(rows)}.`, ""];
  out.push(
    "| experiment | claim | paper | ours | verdict | reason |",
    "| --- | --- | --- | --- | --- | --- |",
  );
  for (const r of rows) {
    const link = `[${_md(_shortTitle(r.title))}](#${r.experiment})`;
    const v = r.verdict;
    if (v === null) out.push(`| ${link} | — | | | ${r.note} | |`);
    else {
      out.push(
        `| ${link} | ${_md(v.claim)} | ${_md(v.paper)} | ${_md(v.ours)} | **${v.outcome}** | ${
          _md(v.reason)
        } |`,
      );
    }
  }
  out.push("");
  return out;
}

/**
 * The verdict table in HTML (a `<section id="verdicts">`).
 *
 * @param outcomes The experiments in report order.
 * @returns HTML lines.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { verdictTableHtml } from "./verdicts.ts";
 * assert.ok(verdictTableHtml([]).join("\n").includes('id="verdicts"'));
 * ```
 */
export function verdictTableHtml(outcomes: readonly VerdictSource[]): string[] {
  const rows = verdictRows(outcomes);
  const out = [
    '<section id="verdicts">',
    "<h2>Verdicts</h2>",
    `<p>${escapeHtml(_INTRO)} Totals: ${escapeHtml(_counts(rows))}.</p>`,
    '<table class="verdicts">',
    "<thead><tr><th>experiment</th><th>claim</th><th>paper</th><th>ours</th><th>verdict</th><th>reason</th></tr></thead>",
    "<tbody>",
  ];
  for (const r of rows) {
    const link = `<a href="#${r.experiment}">${escapeHtml(_shortTitle(r.title))}</a>`;
    const v = r.verdict;
    if (v === null) {
      out.push(`<tr><td>${link}</td><td colspan="5" class="none">${escapeHtml(r.note)}</td></tr>`);
    } else {
      const cls = v.outcome === "reproduced" ? "yes" : v.outcome === "partly" ? "partly" : "no";
      out.push(
        `<tr><td>${link}</td><td>${inlineMarkdown(v.claim)}</td><td>${
          inlineMarkdown(v.paper)
        }</td><td>${inlineMarkdown(v.ours)}</td><td class="${cls}">${v.outcome}</td><td>${
          inlineMarkdown(v.reason)
        }</td></tr>`,
      );
    }
  }
  out.push("</tbody>", "</table>", "</section>");
  return out;
}

/** The thresholds of {@link ratioOutcome} and {@link rctVerdict}. */
export const RATIO_THRESHOLDS = {
  /** Reproduced: within this factor of the paper's median (or inside its min–max range). */
  reproduced: 1.5,
  /** Partly: within this factor of the paper's median. */
  partly: 3,
} as const;

/**
 * The outcome of a ratio claim (an RCT, a cost ratio): reproduced when ours is
 * inside the paper's own min–max range across parameters or within 1.5× of
 * its median, partly within 3× of the median, not reproduced otherwise (and
 * for a number that is not positive and finite).
 *
 * @param ours Our number.
 * @param paper The paper's median, or [min, median, max] across parameters.
 * @returns The outcome.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { ratioOutcome } from "./verdicts.ts";
 * assert.equal(ratioOutcome(300, [3.58, 12.46, 326.8]), "reproduced");
 * assert.equal(ratioOutcome(1.36, [2.43, 2.97, 4.08]), "partly");
 * assert.equal(ratioOutcome(0.24, 12.46), "not reproduced");
 * ```
 */
export function ratioOutcome(
  ours: number,
  paper: number | readonly [number, number, number],
): VerdictOutcome {
  const [lo, med, hi] = typeof paper === "number" ? [paper, paper, paper] : paper;
  if (!(ours > 0) || !Number.isFinite(ours)) return "not reproduced";
  const r = Math.max(ours / med, med / ours);
  return outcomeOf(
    (ours >= lo && ours <= hi) || r <= RATIO_THRESHOLDS.reproduced,
    r <= RATIO_THRESHOLDS.partly,
  );
}

/**
 * The verdict on a relative-computing-time claim ("method X costs k× HMC-ECS
 * per effective draw"), by {@link ratioOutcome} on the mean over seeds of our
 * median RCT: reproduced inside the paper's min–max range across parameters
 * or within 1.5× of its median, partly within 3×.
 *
 * @param claim The claim ("Table 1: SG-HMC vs perturbed HMC-ECS").
 * @param ours Our median RCT, one per seed.
 * @param paper The paper's median RCT, or its [min, median, max].
 * @param note What to say beside our number (settings, the other convention).
 * @returns The verdict.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { rctVerdict } from "./verdicts.ts";
 * assert.equal(rctVerdict("c", [4], 9.5, "").outcome, "partly");
 * assert.equal(rctVerdict("c", [7], [6.8, 9.5, 682.3], "").outcome, "reproduced");
 * assert.equal(rctVerdict("c", [1.5, 0.6], 9.5, "").outcome, "not reproduced");
 * ```
 */
export function rctVerdict(
  claim: string,
  ours: readonly number[],
  paper: number | readonly [number, number, number],
  note: string,
): Verdict {
  const finite = ours.filter((x) => x > 0 && Number.isFinite(x));
  const mean = finite.length === ours.length && finite.length > 0 ? meanSd(finite).mean : NaN;
  const range = typeof paper === "number" ? "" : ` (range ${paper[0]}–${paper[2]})`;
  const med = typeof paper === "number" ? paper : paper[1];
  const spread = finite.length < 2 ? "1 seed" : `mean of ${finite.length} seeds`;
  return {
    claim,
    paper: `median RCT ${med}${range}`,
    ours: `${
      finite.length === 0
        ? "no finite RCT (diverged)"
        : ours.length > 1
        ? formatMeanSd(ours)
        : formatShort(ours[0])
    }${note ? ` (${note})` : ""}`,
    outcome: ratioOutcome(mean, paper),
    reason:
      `threshold: inside the paper's min–max RCT across parameters or within ${RATIO_THRESHOLDS.reproduced}× of its median (partly: within ${RATIO_THRESHOLDS.partly}×); eq. 2 as the paper: CT = IF × E, HMC-ECS charged its whole run, SG methods post burn-in, SGLD's IF from its unthinned chain of L × R iterations; ${spread}${
        finite.length < ours.length ? "; a run diverged (RCT infinite)" : ""
      }`,
  };
}
