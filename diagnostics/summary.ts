/**
 * Posterior summary table in the style of Stan / posterior's
 * `summarise_draws()`: for every parameter the mean, standard deviation,
 * 5%/50%/95% quantiles (type 7), bulk- and tail-ESS, the improved R̂ and the
 * MCSE of the mean, with fixed-width text and CSV renderings.
 *
 * References: Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021)
 * "Rank-normalization, folding, and localization: an improved R̂", Bayesian
 * Analysis 16(2), §4 (bulk-ESS, tail-ESS, R̂) and §4.3 (MCSE); Hyndman & Fan
 * (1996) The American Statistician 50(4), def. 7 (quantiles).
 *
 * @module
 */

import { _chain, _describe, _integer, _mean, _pool, _variance } from "./_util.ts";
import { _splitChains, _zScale } from "./_chains.ts";
import { _ess, _essTail, _MIN_SPLIT_DRAWS } from "./ess.ts";
import { _mcseMean } from "./mcse.ts";
import { _quantileSorted } from "./quantile.ts";
import { _rhatRank } from "./rhat.ts";

/** One parameter's row of a summary. */
export interface SummaryRow {
  /** Parameter name. */
  name: string;
  /** Mean of all draws. */
  mean: number;
  /** Standard deviation of all draws (divisor S − 1). */
  sd: number;
  /** 5% quantile. */
  q5: number;
  /** Median. */
  q50: number;
  /** 95% quantile. */
  q95: number;
  /** Bulk effective sample size. */
  essBulk: number;
  /** Tail effective sample size. */
  essTail: number;
  /** Improved R̂ (rank-normalised, folded). */
  rhat: number;
  /** Monte Carlo standard error of the mean. */
  mcseMean: number;
}

/** Options for {@linkcode formatSummaryTable}. */
export interface FormatSummaryOptions {
  /** Decimal places of means, sds, quantiles, R̂ and MCSE (default 3). */
  digits?: number;
}

/** Column headers, as posterior names them, in row order. */
const COLUMNS: readonly [keyof SummaryRow, string][] = [
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
 * Summarises draws of several parameters from several chains.
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) §4; posterior's
 * `summarise_draws()`.
 *
 * @param draws `draws[chain][parameter]` is the array of draws of one
 * parameter in one chain; every chain has the same parameters and length
 * (at least 6 draws).
 * @param names Parameter names (default `theta[0]`, `theta[1]`, …).
 * @returns One {@linkcode SummaryRow} per parameter.
 * @throws {TypeError} If draws is not nested arrays of numbers.
 * @throws {RangeError} For no chains or parameters, differing parameter
 * counts or chain lengths, too-short chains, NaN/Inf, or a wrong number of
 * names.
 *
 * @example
 * ```ts
 * import { summarize } from "./summary.ts";
 * import { strict as assert } from "node:assert";
 *
 * const chain = (k: number) => Array.from({ length: 100 }, (_, i) => Math.sin(i * k));
 * const rows = summarize([[chain(1.1), chain(0.3)], [chain(2.3), chain(0.7)]], ["a", "b"]);
 * assert.deepEqual(rows.map((r) => r.name), ["a", "b"]);
 * assert.ok(Math.abs(rows[0].mean) < 0.1);
 * ```
 */
export function summarize(
  draws: readonly (readonly ArrayLike<number>[])[],
  names?: readonly string[],
): SummaryRow[] {
  if (!Array.isArray(draws)) {
    throw new TypeError(`draws must be an array of chains, got ${_describe(draws)}`);
  }
  if (draws.length === 0) throw new RangeError("draws must contain at least 1 chain, got 0");
  for (let c = 0; c < draws.length; c++) {
    if (!Array.isArray(draws[c])) {
      throw new TypeError(
        `draws[${c}] must be an array of parameters (arrays of draws), got ${_describe(draws[c])}`,
      );
    }
  }
  const numParams = draws[0].length;
  if (numParams === 0) throw new RangeError("draws[0] must contain at least 1 parameter, got 0");
  for (let c = 1; c < draws.length; c++) {
    if (draws[c].length !== numParams) {
      throw new RangeError(
        `every chain must have the same number of parameters, got ${numParams} in draws[0] and ${
          draws[c].length
        } in draws[${c}]`,
      );
    }
  }
  if (names !== undefined) {
    if (!Array.isArray(names)) {
      throw new TypeError(`names must be an array of strings, got ${_describe(names)}`);
    }
    if (names.length !== numParams) {
      throw new RangeError(
        `names must have one name per parameter (${numParams}), got ${names.length}`,
      );
    }
  }
  const rows: SummaryRow[] = [];
  for (let j = 0; j < numParams; j++) {
    const chains = draws.map((chain, c) => _chain(chain[j], `draws[${c}][${j}]`, _MIN_SPLIT_DRAWS));
    for (let c = 1; c < chains.length; c++) {
      if (chains[c].length !== chains[0].length) {
        throw new RangeError(
          `all chains must have the same length, got ${chains[0].length} for draws[0][${j}] and ${
            chains[c].length
          } for draws[${c}][${j}]`,
        );
      }
    }
    const pooled = _pool(chains);
    const sorted = Float64Array.from(pooled).sort();
    const zSplit = _zScale(_splitChains(chains)); // shared by bulk-ESS and R̂
    rows.push({
      name: names === undefined ? `theta[${j}]` : String(names[j]),
      mean: _mean(pooled),
      sd: Math.sqrt(_variance(pooled)),
      q5: _quantileSorted(sorted, 0.05),
      q50: _quantileSorted(sorted, 0.5),
      q95: _quantileSorted(sorted, 0.95),
      essBulk: _ess(zSplit),
      essTail: _essTail(chains, sorted),
      rhat: _rhatRank(chains, zSplit),
      mcseMean: _mcseMean(chains),
    });
  }
  return rows;
}

function _cell(row: SummaryRow, key: keyof SummaryRow, digits: number): string {
  const v = row[key];
  if (typeof v === "string") return v;
  if (Number.isNaN(v)) return "NaN";
  if (key === "essBulk" || key === "essTail") return Math.round(v).toString();
  return v.toFixed(digits);
}

/**
 * Renders summary rows as an aligned fixed-width text table: names
 * left-aligned, numbers right-aligned, ESS rounded to integers.
 *
 * References: posterior's `print.draws_summary` layout.
 *
 * @param rows Rows from {@linkcode summarize}.
 * @param options `digits`: decimal places (default 3, integer 0–20).
 * @returns The table, one line per row after a header line, no trailing
 * newline.
 * @throws {RangeError} If digits is not an integer in 0–20.
 *
 * @example
 * ```ts
 * import { formatSummaryTable } from "./summary.ts";
 * import { strict as assert } from "node:assert";
 *
 * const table = formatSummaryTable([{
 *   name: "mu", mean: 1.23456, sd: 0.5, q5: 0.4, q50: 1.2, q95: 2.1,
 *   essBulk: 3801.4, essTail: 2999.6, rhat: 1.0012, mcseMean: 0.0081,
 * }], { digits: 2 });
 * assert.equal(table.split("\n")[1].trim().split(/\s+/).join(" "),
 *   "mu 1.23 0.50 0.40 1.20 2.10 3801 3000 1.00 0.01");
 * ```
 */
export function formatSummaryTable(
  rows: readonly SummaryRow[],
  options: FormatSummaryOptions = {},
): string {
  const digits = options.digits === undefined ? 3 : _integer(options.digits, "options.digits", 0);
  if (digits > 20) throw new RangeError(`options.digits must be at most 20, got ${digits}`);
  const cells = [
    COLUMNS.map(([, header]) => header),
    ...rows.map((row) => COLUMNS.map(([key]) => _cell(row, key, digits))),
  ];
  const widths = COLUMNS.map((_, k) => Math.max(...cells.map((line) => line[k].length)));
  return cells
    .map((line) =>
      line
        .map((cell, k) => (k === 0 ? cell.padEnd(widths[k]) : cell.padStart(widths[k])))
        .join("  ")
        .trimEnd()
    )
    .join("\n");
}

function _csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * Renders summary rows as CSV (RFC 4180): a header with posterior's column
 * names, then one line per row with numbers at full precision.
 *
 * References: RFC 4180 (CSV); posterior's `summarise_draws()` column names.
 *
 * @param rows Rows from {@linkcode summarize}.
 * @returns CSV text ending in a newline.
 *
 * @example
 * ```ts
 * import { summaryToCsv } from "./summary.ts";
 * import { strict as assert } from "node:assert";
 *
 * const csv = summaryToCsv([{
 *   name: "beta[1,2]", mean: 0.5, sd: 1, q5: -1, q50: 0.5, q95: 2,
 *   essBulk: 1000, essTail: 900, rhat: 1, mcseMean: 0.03,
 * }]);
 * assert.equal(csv.split("\n")[1], '"beta[1,2]",0.5,1,-1,0.5,2,1000,900,1,0.03');
 * ```
 */
export function summaryToCsv(rows: readonly SummaryRow[]): string {
  const lines = [COLUMNS.map(([, header]) => header).join(",")];
  for (const row of rows) {
    lines.push(COLUMNS.map(([key]) => _csvField(String(row[key]))).join(","));
  }
  return lines.join("\n") + "\n";
}
