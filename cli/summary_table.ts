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

/** The `--basic` columns of one parameter. */
export interface BasicColumns {
  /** Classic split-chain ESS (no rank normalisation). */
  essBasic: number;
  /** Classic split-chain R̂ (no rank normalisation, no folding). */
  rhatBasic: number;
  /** MCSE of the 5 % quantile. */
  mcseQ5: number;
  /** MCSE of the 95 % quantile. */
  mcseQ95: number;
}

const _BASIC_COLUMNS: readonly [keyof BasicColumns, string][] = [
  ["essBasic", "ess_basic"],
  ["rhatBasic", "rhat_basic"],
  ["mcseQ5", "mcse_q5"],
  ["mcseQ95", "mcse_q95"],
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
 * @param options `basic`: the `--basic` columns of every row, appended.
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
export function formatSummary(
  rows: readonly SummaryRow[],
  digits: number,
  options: { basic?: readonly BasicColumns[] } = {},
): string {
  const basic = options.basic;
  const cell = (
    row: SummaryRow | BasicColumns,
    key: keyof SummaryRow | keyof BasicColumns,
  ): string => {
    const v = (row as unknown as Record<string, unknown>)[key];
    if (typeof v === "string") return v;
    if (typeof v !== "number") return "";
    if (!Number.isFinite(v)) return Number.isNaN(v) ? "NA" : String(v);
    if (key === "essBulk" || key === "essTail" || key === "essBasic") {
      return Math.round(v).toString();
    }
    if (key === "rhat" || key === "rhatBasic") return v.toFixed(Math.max(2, digits - 1));
    return formatSignificant(v, digits);
  };
  const extra = basic === undefined ? [] : _BASIC_COLUMNS;
  const cells = [
    [..._COLUMNS.map(([, header]) => header), ...extra.map(([, header]) => header)],
    ...rows.map((row, i) => [
      ..._COLUMNS.map(([key]) => cell(row, key)),
      ...extra.map(([key]) => cell(basic![i], key)),
    ]),
  ];
  const widths = cells[0].map((_, k) => Math.max(...cells.map((line) => line[k].length)));
  return cells
    .map((line) =>
      line.map((c, k) => (k === 0 ? c.padEnd(widths[k]) : c.padStart(widths[k]))).join("  ")
        .trimEnd()
    )
    .join("\n");
}

/**
 * The warnings a summary calls for, one sentence each, as Stan and R's
 * `posterior` give them: each row's own warnings (NA diagnostics and their
 * reasons, constant or stuck chains), R̂ above 1.01, and bulk or tail ESS
 * below 100 per chain (Vehtari et al. 2021, §4–5).
 *
 * @param rows From `summarize`.
 * @param options `numChains`, for the ESS threshold.
 * @returns The sentences (empty when nothing calls for one).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { summaryWarnings } from "./summary_table.ts";
 * const w = summaryWarnings([{ name: "a", mean: 0, sd: 1, q5: -2, q50: 0, q95: 2,
 *   essBulk: 50, essTail: 900, rhat: 1.2, mcseMean: 0.1 }], { numChains: 4 });
 * assert.match(w[0], /parameter "a": rhat = 1\.200 > 1\.01/);
 * assert.match(w[1], /ess_bulk = 50 < 400/);
 * ```
 * References: Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021), §4–5.
 */
export function summaryWarnings(
  rows: readonly SummaryRow[],
  options: { numChains: number },
): string[] {
  const out: string[] = [];
  const minEss = 100 * options.numChains;
  for (const row of rows) {
    const label = `parameter ${JSON.stringify(row.name)}`;
    for (const w of row.warnings ?? []) out.push(w);
    if (row.rhat > 1.01) {
      out.push(
        `${label}: rhat = ${
          Number.isFinite(row.rhat) ? row.rhat.toFixed(3) : row.rhat
        } > 1.01: the chains have not mixed (run longer; standardise any column ` +
          `with extreme values)`,
      );
    }
    const low = (["essBulk", "essTail"] as const).filter((k) => row[k] < minEss);
    if (low.length > 0) {
      out.push(
        `${label}: ${
          low.map((k) => `${k === "essBulk" ? "ess_bulk" : "ess_tail"} = ${Math.round(row[k])}`)
            .join(" and ")
        } < ${minEss} (100 per chain): too few effective draws for reliable estimates; ` +
          `run longer`,
      );
    }
  }
  return out;
}

/**
 * σ, φ and ν on their natural scale beside the sampled `log_sigma`,
 * `log_phi` and `log_nu_minus_1`: the draws of `sigma` = exp(log_sigma),
 * `phi` = exp(log_phi) and `nu` = 1 + exp(log_nu_minus_1) appended after the
 * parameters (a name already present is not added again).
 *
 * @param draws `draws[chain][param]`.
 * @param names Parameter names.
 * @returns The draws and names with the natural-scale columns appended.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withNaturalScales } from "./summary_table.ts";
 * const r = withNaturalScales([[new Float64Array([0, 1]), new Float64Array([0, Math.LN2])]], ["x", "log_phi"]);
 * assert.deepEqual(r.names, ["x", "log_phi", "phi"]);
 * assert.deepEqual(Array.from(r.draws[0][2]), [1, 2]);
 * const t = withNaturalScales([[new Float64Array([0])]], ["log_nu_minus_1"]);
 * assert.deepEqual(t.names, ["log_nu_minus_1", "nu"]);
 * assert.deepEqual(Array.from(t.draws[0][1]), [2]);
 * ```
 */
export function withNaturalScales(
  draws: readonly (readonly Float64Array[])[],
  names: readonly string[],
): { draws: Float64Array[][]; names: string[] } {
  const outNames = [...names], outDraws = draws.map((c) => [...c]);
  names.forEach((name, j) => {
    const m = /^log_(sigma|phi|nu)(_minus_1)?$/.exec(name);
    if (m === null || (m[1] === "nu") !== (m[2] !== undefined) || names.includes(m[1])) return;
    const shift = m[2] === undefined ? 0 : 1;
    outNames.push(m[1]);
    outDraws.forEach((chain) => chain.push(chain[j].map((v) => shift + Math.exp(v))));
  });
  return { draws: outDraws, names: outNames };
}
