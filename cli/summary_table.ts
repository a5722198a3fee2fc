/**
 * The summary table the command line prints, with `--digits` meaning
 * significant digits, as R's `print(…, digits =)`, `posterior`'s summaries
 * and CmdStan's `stansummary --sig_figs` use it. ESS values are whole
 * numbers and R-hat keeps at least two decimals.
 *
 * @module
 */
import type { SummaryRow } from "../diagnostics/summary.ts";

const _COLUMNS: readonly [keyof SummaryRow, string][] = [
  ["name", "name"],
  ["mean", "mean"],
  ["sd", "sd"],
  ["q5", "q5"],
  ["q50", "q50"],
  ["q95", "q95"],
  ["essBulk", "ess_bulk"],
  ["essTail", "ess_tail"],
  ["rhat", "rhat"],
  ["mcseMean", "mcse_mean"],
];

/**
 * A number with `digits` significant digits (no exponent for magnitudes in
 * [1e-4, 1e15), as R prints them).
 *
 * @param value The number.
 * @param digits Significant digits, 1–17.
 * @returns The text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatSignificant } from "./summary_table.ts";
 * assert.equal(formatSignificant(1234.5678, 3), "1235");
 * assert.equal(formatSignificant(0.00123456, 3), "0.00123");
 * assert.equal(formatSignificant(-1.5, 3), "-1.50");
 * ```
 */
export function formatSignificant(value: number, digits: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "NA" : String(value);
  if (value === 0) return digits > 1 ? (0).toFixed(digits - 1) : "0";
  const mag = Math.floor(Math.log10(Math.abs(value)));
  if (mag >= 15 || mag < -4) return value.toExponential(digits - 1);
  // At least as many digits as the integer part has (R does not round 1234.5 to 1.2e3).
  const decimals = Math.max(0, digits - 1 - mag);
  return value.toFixed(Math.min(20, decimals));
}

/**
 * Format summary rows as an aligned table.
 *
 * @param rows From `summarize`.
 * @param digits Significant digits (1–17).
 * @returns The table text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatSummary } from "./summary_table.ts";
 * const t = formatSummary([{ name: "a", mean: 12.3456, sd: 0.012345, q5: 1, q50: 2, q95: 3,
 *   essBulk: 812.4, essTail: 700.2, rhat: 1.0012, mcseMean: 0.000432 }], 3);
 * assert.match(t, /12\.3 +0\.0123/);
 * assert.match(t, / 812 +700 +1\.00/);
 * ```
 */
export function formatSummary(rows: readonly SummaryRow[], digits: number): string {
  const cell = (row: SummaryRow, key: keyof SummaryRow): string => {
    const v = row[key];
    if (typeof v === "string") return v;
    if (typeof v !== "number") return "";
    if (!Number.isFinite(v)) return Number.isNaN(v) ? "NA" : String(v);
    if (key === "essBulk" || key === "essTail") return Math.round(v).toString();
    if (key === "rhat") return v.toFixed(Math.max(2, digits - 1));
    return formatSignificant(v, digits);
  };
  const cells = [
    _COLUMNS.map(([, header]) => header),
    ...rows.map((row) => _COLUMNS.map(([key]) => cell(row, key))),
  ];
  const widths = _COLUMNS.map((_, k) => Math.max(...cells.map((line) => line[k].length)));
  return cells
    .map((line) =>
      line.map((c, k) => (k === 0 ? c.padEnd(widths[k]) : c.padStart(widths[k]))).join("  ")
        .trimEnd()
    )
    .join("\n");
}
