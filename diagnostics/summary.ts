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
 * **Undefined diagnostics.** {@linkcode summarize} never throws for the
 * values of the draws: where posterior returns NA it returns NaN, records the
 * reason in {@linkcode SummaryRow.naReasons} and adds a warning naming the
 * parameter to {@linkcode SummaryRow.warnings}. The rules are those of
 * posterior 1.7.1 (stan-dev/posterior, `R/convergence.R`: `should_return_NA`,
 * `.rhat`, `.ess`, `.ess_quantile`, `ess_tail`, `mcse_mean`; `R/misc.R`:
 * `is_constant`; `R/split_chains.R`: `.split_chains`):
 *
 * | case                                          | reason               | NaN                       |
 * | --------------------------------------------- | -------------------- | ------------------------- |
 * | a draw is NaN or ±Infinity (`anyNA`, `anyInfinite`) | `non_finite`   | every ESS, R̂ and MCSE     |
 * | fewer than 4 draws per chain (split chains of 1 draw: `var` is NA) | `too_short` | R̂ |
 * | fewer than 6 draws per chain (`.ess`: fewer than 3 per split chain) | `too_short` | ESS and MCSE |
 * | all draws equal within ε (`is_constant`: max − min < 2.2·10⁻¹⁶, pooled) | `constant` | every ESS, R̂ and MCSE |
 * | the 5% or 95% indicator I(x ≤ q̂) is constant  | `constant_indicator` | tail-ESS                  |
 * | the draws folded about the median are constant | `constant_folded`   | R̂                         |
 *
 * The constant test is on the quantity each estimator transforms, as in
 * posterior: bulk-ESS and R̂ look at the rank-normalised draws (so draws that
 * differ by less than ε but are not equal still have a bulk-ESS and an R̂),
 * tail-ESS and the MCSE at the draws themselves. One constant chain among
 * varying ones is not NA (posterior ≥ 1.2 dropped the per-chain test as too
 * conservative for tail-ESS); chains that are each constant at a different
 * value give R̂ = +Infinity and a small ESS, with a warning. When a draw is
 * NaN the mean, sd and quantiles are NaN as well (posterior's `quantile2`
 * returns NA); ±Infinity propagates through them as in R. A bulk- or tail-ESS
 * capped at S·log₁₀(S) (τ̂ at its floor) is kept, with a warning, as
 * posterior 1.7.1 warns.
 *
 * @module
 */

import { signCorrectedSummary } from "./sign_corrected.ts";
import { _describe, _integer, _mean, _pool, _variance } from "./_util.ts";
import {
  _argsort,
  _fold,
  _foldSortedInto,
  _indicator,
  _splitChains,
  _splitScoresInto,
  _splitViews,
  _zScale,
} from "./_chains.ts";
import { _ess, _MIN_SPLIT_DRAWS } from "./ess.ts";
import { _quantileSorted } from "./quantile.ts";
import { _rhat } from "./rhat.ts";
import { summaryWarnings } from "./summary_warnings.ts";

/**
 * Why a diagnostic in a {@linkcode SummaryRow} is NaN, following the `posterior`
 * R package's rules for NA (see the module documentation):
 *
 * - `non_finite`: a draw is NaN or ±Infinity;
 * - `too_short`: too few draws per chain (R̂ needs 4, the ESS and MCSE 6);
 * - `constant`: all draws are equal (within machine ε);
 * - `constant_indicator`: the draws vary but I(x ≤ q̂₀.₀₅) or I(x ≤ q̂₀.₉₅)
 *   does not (tail-ESS only; e.g. a discrete parameter);
 * - `constant_folded`: the draws vary but |x − median| does not (R̂ only;
 *   e.g. two values placed symmetrically about the median).
 */
export type SummaryNaReason =
  | "non_finite"
  | "too_short"
  | "constant"
  | "constant_indicator"
  | "constant_folded";

/** The diagnostics of a {@linkcode SummaryRow} that can be NaN with a reason. */
export type SummaryDiagnostic = "essBulk" | "essTail" | "rhat" | "mcseMean";

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
  /**
   * For every diagnostic that is NaN, why (set by {@linkcode summarize},
   * absent when all four are numbers).
   */
  naReasons?: Partial<Record<SummaryDiagnostic, SummaryNaReason>>;
  /**
   * Sentences naming the parameter, for diagnostics that are NaN or R̂ that
   * is infinite (set by {@linkcode summarize}, absent when there is nothing
   * to report).
   */
  warnings?: string[];
}

/** Options for {@linkcode formatSummaryTable}. */
export interface FormatSummaryOptions {
  /** Decimal places of means, sds, quantiles, R̂ and MCSE (default 3). */
  digits?: number;
}

/** Column headers, as posterior names them, in row order. */
type _ColumnKey = Exclude<keyof SummaryRow, "naReasons" | "warnings">;
const COLUMNS: readonly [_ColumnKey, string][] = [
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
 * Draws that make a diagnostic undefined (NaN or ±Infinity, constant draws,
 * chains too short to split) do not throw: the diagnostic is NaN, its reason
 * is in `naReasons` and `warnings` says so, naming the parameter (the rules
 * of the `posterior` R package, listed in the module documentation).
 *
 * References: Vehtari et al. (2021) Bayesian Analysis 16(2) §4; posterior's
 * `summarise_draws()`.
 *
 * @param draws `draws[chain][parameter]` is the array of draws of one
 * parameter in one chain; every chain has the same parameters and length
 * (at least 1 draw).
 * @param names Parameter names (default `theta[0]`, `theta[1]`, …).
 * @returns One {@linkcode SummaryRow} per parameter.
 * @throws {TypeError} If draws is not nested arrays of numbers.
 * @throws {RangeError} For no chains or parameters, differing parameter
 * counts or chain lengths, chains without draws, or a wrong number of names.
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
 *
 * @example A constant parameter gets NaN diagnostics with a reason
 * ```ts
 * import { summarize } from "./summary.ts";
 * import { strict as assert } from "node:assert";
 *
 * const ones = Array.from({ length: 50 }, () => 1);
 * const [row] = summarize([[ones], [ones]], ["corr[1,1]"]);
 * assert.ok(Number.isNaN(row.rhat) && Number.isNaN(row.essBulk));
 * assert.equal(row.naReasons?.rhat, "constant");
 * assert.match(row.warnings![0], /corr\[1,1\]/);
 * ```
 *
 * @example Signed HMC-ECS draws: sign-corrected mean and sd (eq. 17)
 * ```ts
 * import { summarize } from "./summary.ts";
 * import { strict as assert } from "node:assert";
 *
 * const x = Array.from({ length: 40 }, (_, i) => i % 4);
 * const signs = x.map((v) => (v === 3 ? -1 : 1)); // a draw at 3 counts negatively
 * const [row] = summarize([[x]], ["θ"], { signs: [signs] });
 * // Σθs / Σs = (0 + 1 + 2 − 3) / (1 + 1 + 1 − 1) = 0
 * assert.equal(row.mean, 0);
 * ```
 */
export function summarize(
  draws: readonly (readonly ArrayLike<number>[])[],
  names?: readonly string[],
  options: SummarizeOptions = {},
): SummaryRow[] {
  if (!Array.isArray(draws)) {
    throw new TypeError(`draws must be an array of chains, got ${_describe(draws)}`);
  }
  if (draws.length === 0) throw new RangeError("draws must contain at least 1 chain, got 0");
  for (let c = 0; c < draws.length; c++) {
    if (!Array.isArray(draws[c])) {
      throw new TypeError(
        `chain ${c} of draws must be an array of parameters (arrays of draws), got ${
          _describe(draws[c])
        }`,
      );
    }
  }
  const numParams = draws[0].length;
  if (numParams === 0) throw new RangeError("draws must contain at least 1 parameter, got 0");
  for (let c = 1; c < draws.length; c++) {
    if (draws[c].length !== numParams) {
      throw new RangeError(
        `every chain must have the same number of parameters, got ${numParams} in chain 0 and ${
          draws[c].length
        } in chain ${c}`,
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
  const signs = options.signs === undefined ? undefined : _pooledSigns(options.signs, draws);
  const rows: SummaryRow[] = [];
  for (let j = 0; j < numParams; j++) {
    const name = names === undefined ? `theta[${j}]` : String(names[j]);
    const chains = _parameterChains(draws, j, name);
    const row = _summaryRowRanked(chains, name) ?? _summaryRowGeneral(chains, name);
    if (signs !== undefined) {
      const pooled = new Float64Array(signs.length);
      let k = 0;
      for (const c of chains) pooled.set(c, k), k += c.length;
      const corrected = signCorrectedSummary(pooled, signs);
      row.mean = corrected.mean;
      row.sd = corrected.sd;
    }
    rows.push(row);
  }
  return rows;
}

/** Options of {@link summarize}. */
export interface SummarizeOptions {
  /**
   * The sign (±1) of every draw, one array per chain, for draws of signed
   * HMC-ECS (info field `sign`). Then `mean` and `sd` are the sign-corrected
   * estimates of eq. 17 (Dang et al. 2019); the other columns describe the
   * draws as they are.
   */
  signs?: readonly ArrayLike<number>[];
}

function _pooledSigns(
  signs: readonly ArrayLike<number>[],
  draws: readonly (readonly ArrayLike<number>[])[],
): Float64Array {
  if (!Array.isArray(signs) || signs.length !== draws.length) {
    throw new RangeError(
      `signs must have one array per chain (${draws.length}), got ${_describe(signs)}`,
    );
  }
  const total = signs.reduce((n, s, c) => {
    const len = draws[c][0]?.length ?? 0;
    if (s.length !== len) {
      throw new RangeError(`signs of chain ${c} must have ${len} values, got ${s.length}`);
    }
    return n + len;
  }, 0);
  const out = new Float64Array(total);
  let k = 0;
  for (const s of signs) for (let i = 0; i < s.length; i++) out[k++] = s[i];
  return out;
}

/** One parameter's chains as Float64Arrays (copies of other arrays), allowing NaN and ±Infinity. */
function _parameterChains(
  draws: readonly (readonly ArrayLike<number>[])[],
  j: number,
  name: string,
): Float64Array[] {
  const label = JSON.stringify(name);
  const chains: Float64Array[] = [];
  for (let c = 0; c < draws.length; c++) {
    const x = draws[c][j] as unknown;
    if (
      x === null || typeof x !== "object" || typeof (x as ArrayLike<unknown>).length !== "number"
    ) {
      throw new TypeError(
        `the draws of parameter ${label} in chain ${c} must be an array of numbers, got ${
          _describe(x)
        }`,
      );
    }
    const values = x as ArrayLike<unknown>;
    let out: Float64Array;
    // Numbers only: no check per draw, and no copy (the rows only read the draws).
    if (x instanceof Float64Array) out = x;
    else {
      out = new Float64Array(values.length);
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        if (typeof v !== "number") {
          throw new TypeError(
            `draw ${i} of parameter ${label} in chain ${c} must be a number, got ${_describe(v)}`,
          );
        }
        out[i] = v;
      }
    }
    if (out.length === 0) {
      throw new RangeError(`parameter ${label} has no draws in chain ${c}`);
    }
    if (c > 0 && out.length !== chains[0].length) {
      throw new RangeError(
        `all chains must have the same length, got ${
          chains[0].length
        } draws of parameter ${label} in chain 0 and ${out.length} in chain ${c}`,
      );
    }
    chains.push(out);
  }
  return chains;
}

/** Scratch arrays of {@link _summaryRowRanked} for S pooled draws, reused by every parameter. */
interface _Scratch {
  total: number;
  pooled: Float64Array;
  sorted: Float64Array;
  z: Float64Array;
  foldedOrder: Uint32Array;
  foldedSorted: Float64Array;
  zFolded: Float64Array;
  indicator: Float64Array;
}
let _scratch: _Scratch | null = null;

function _scratchFor(total: number): _Scratch {
  if (_scratch === null || _scratch.total !== total) {
    const f = () => new Float64Array(total);
    _scratch = {
      total,
      pooled: f(),
      sorted: f(),
      z: f(),
      foldedOrder: new Uint32Array(total),
      foldedSorted: f(),
      zFolded: f(),
      indicator: f(),
    };
  }
  return _scratch;
}

/**
 * @internal The row of {@link _summaryRowGeneral}, bit for bit, for finite,
 * varying draws without −0 and at least 6 per chain (null otherwise), with
 * the work shared: one radix argsort of the pooled draws gives the sorted
 * draws (quantiles, median), the ranks of the split chains (bulk R̂ and
 * ESS) and, merged about the median, the ranks of the folded draws, instead
 * of two comparison sorts and two argsorts; the split chains are views of
 * the pooled draws and of arrays reused from parameter to parameter.
 */
export function _summaryRowRanked(chains: Float64Array[], name: string): SummaryRow | null {
  const n = chains[0].length;
  if (n < _MIN_SPLIT_DRAWS) return null;
  const m = chains.length;
  const total = m * n;
  const w = _scratchFor(total);
  const pooled = w.pooled;
  for (let c = 0; c < m; c++) pooled.set(chains[c], c * n);
  let sum = 0; // _meanF64's sum
  for (let i = 0; i < total; i++) {
    const v = pooled[i];
    // −0: Float64Array#sort puts it before +0; the argsort keys it as +0.
    if (!Number.isFinite(v) || (v === 0 && 1 / v < 0)) return null;
    sum += v;
  }
  const order = _argsort(pooled);
  const sorted = w.sorted;
  for (let k = 0; k < total; k++) sorted[k] = pooled[order[k]];
  if (sorted[total - 1] - sorted[0] < Number.EPSILON) return null; // constant
  const mean = sum / total;
  let squares = 0;
  for (let i = 0; i < total; i++) {
    const d = pooled[i] - mean;
    squares += d * d;
  }
  const row: SummaryRow = {
    name,
    mean,
    sd: Math.sqrt(squares / (total - 1)), // _varianceF64 of draws that are not all equal
    q5: _quantileSorted(sorted, 0.05),
    q50: _quantileSorted(sorted, 0.5),
    q95: _quantileSorted(sorted, 0.95),
    essBulk: NaN,
    essTail: NaN,
    rhat: NaN,
    mcseMean: NaN,
  };
  const reasons: Partial<Record<SummaryDiagnostic, SummaryNaReason>> = {};
  const split = _splitViews(pooled, m, n);
  _splitScoresInto(sorted, order, n, w.z);
  const zSplit = _splitViews(w.z, m, n);
  _foldSortedInto(order, sorted, row.q50, w.foldedOrder, w.foldedSorted);
  _splitScoresInto(w.foldedSorted, w.foldedOrder, n, w.zFolded);
  const bulk = _rhat(zSplit);
  const folded = _rhat(_splitViews(w.zFolded, m, n));
  row.rhat = Math.max(bulk, folded);
  if (Number.isNaN(bulk)) reasons.rhat = "constant";
  else if (Number.isNaN(folded)) reasons.rhat = "constant_folded";
  row.essBulk = _ess(zSplit);
  if (Number.isNaN(row.essBulk)) reasons.essBulk = "constant";
  const indicator = w.indicator;
  const tail = (q: number): number => {
    for (let i = 0; i < total; i++) indicator[i] = pooled[i] <= q ? 1 : 0;
    return _ess(_splitViews(indicator, m, n));
  };
  row.essTail = Math.min(tail(row.q5), tail(row.q95));
  if (Number.isNaN(row.essTail)) reasons.essTail = "constant_indicator";
  row.mcseMean = row.sd / Math.sqrt(_ess(split));
  const stuck = split.every(_constantChain);
  const constantChains: number[] = [];
  for (let k = 0; k < m; k++) if (_constantChain(chains[k])) constantChains.push(k);
  const warnings = summaryWarnings(reasons, row, { name, n, stuck, constantChains, sorted });
  if (Object.keys(reasons).length > 0) row.naReasons = reasons;
  if (warnings.length > 0) row.warnings = warnings;
  return row;
}

/**
 * @internal Runs the summary on made-up draws of `numChains` chains of
 * `numDraws` draws, one parameter at a time: two, then more until
 * `budgetMs` milliseconds have passed (at most 8 parameters): for a caller that waits anyway (for
 * chains still running), so that a later {@link summarize} of draws of that
 * shape runs compiled code from its first parameter and finds the normal
 * scores of its draw count computed. No result depends on it: a row is a
 * function of its draws alone.
 */
export function _prepareSummary(numChains: number, numDraws: number, budgetMs = 40): void {
  if (!(numChains >= 1 && numDraws >= _MIN_SPLIT_DRAWS)) return;
  const start = performance.now();
  let seed = 20261127;
  const u = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  // At least one parameter that mixes well and one that does not, then
  // more while the budget lasts.
  for (let j = 0; j < 8 && (j < 2 || performance.now() - start < budgetMs); j++) {
    const chains: Float64Array[][] = [];
    for (let c = 0; c < numChains; c++) {
      const x = new Float64Array(numDraws);
      // AR(1) draws that repeat now and then, as rejected proposals do;
      // every other parameter mixes slowly (its ESS needs the FFT).
      const a = j % 2 === 0 ? 0.3 : 0.98;
      for (let i = 0, prev = j; i < numDraws; i++) {
        x[i] = prev = u() < 0.2 ? prev : a * prev + (1 - a) * j + u() - 0.5;
      }
      chains.push([x]);
    }
    summarize(chains);
  }
}

/** True when every draw of the chain equals its first. */
function _constantChain(chain: Float64Array): boolean {
  const first = chain[0];
  for (let i = 1; i < chain.length; i++) if (chain[i] !== first) return false;
  return true;
}

/** @internal One summary row, every case; see the module documentation for the NaN rules. */
export function _summaryRowGeneral(chains: Float64Array[], name: string): SummaryRow {
  const n = chains[0].length;
  const pooled = _pool(chains);
  const total = pooled.length;
  let hasNaN = false;
  let finite = true;
  for (let i = 0; i < total; i++) {
    if (!Number.isFinite(pooled[i])) {
      finite = false;
      if (Number.isNaN(pooled[i])) hasNaN = true;
    }
  }
  const sorted = Float64Array.from(pooled).sort();
  const quantile = (p: number): number => (hasNaN ? NaN : _quantileSorted(sorted, p));
  const row: SummaryRow = {
    name,
    mean: _mean(pooled),
    sd: Math.sqrt(_variance(pooled)),
    q5: quantile(0.05),
    q50: quantile(0.5),
    q95: quantile(0.95),
    essBulk: NaN,
    essTail: NaN,
    rhat: NaN,
    mcseMean: NaN,
  };
  const reasons: Partial<Record<SummaryDiagnostic, SummaryNaReason>> = {};
  const constant = finite && sorted[total - 1] - sorted[0] < Number.EPSILON;
  if (!finite) {
    reasons.essBulk =
      reasons.essTail =
      reasons.rhat =
      reasons.mcseMean =
        "non_finite";
  } else {
    const split = n >= 4 ? _splitChains(chains) : chains;
    // Rank-normalised split chains: shared by bulk-ESS and the bulk R̂.
    const zSplit = n >= 4 ? _zScale(split) : [];
    if (n < 4) {
      reasons.rhat = "too_short";
    } else {
      const bulk = _rhat(zSplit);
      const folded = _rhat(_zScale(_splitChains(_fold(chains))));
      row.rhat = Math.max(bulk, folded);
      if (Number.isNaN(bulk)) reasons.rhat = "constant";
      else if (Number.isNaN(folded)) reasons.rhat = "constant_folded";
    }
    if (n < _MIN_SPLIT_DRAWS) {
      reasons.essBulk = reasons.essTail = reasons.mcseMean = "too_short";
    } else {
      row.essBulk = _ess(zSplit);
      if (Number.isNaN(row.essBulk)) reasons.essBulk = "constant";
      if (constant) {
        reasons.essTail = reasons.mcseMean = "constant";
      } else {
        const tail = (p: number): number =>
          _ess(_splitChains(_indicator(chains, _quantileSorted(sorted, p))));
        row.essTail = Math.min(tail(0.05), tail(0.95));
        if (Number.isNaN(row.essTail)) reasons.essTail = "constant_indicator";
        row.mcseMean = row.sd / Math.sqrt(_ess(split));
      }
    }
  }
  // Stuck chains: every (split) chain constant, but not all at one value.
  const stuck = finite && !constant && n >= 2 &&
    (n >= 4 ? _splitChains(chains) : chains).every((c) => c.every((v) => v === c[0]));
  const constantChains = finite && !constant && n >= 2
    ? chains.flatMap((c, k) => (c.every((v) => v === c[0]) ? [k] : []))
    : [];
  const warnings = summaryWarnings(reasons, row, { name, n, stuck, constantChains, sorted });
  if (Object.keys(reasons).length > 0) row.naReasons = reasons;
  if (warnings.length > 0) row.warnings = warnings;
  return row;
}

function _cell(row: SummaryRow, key: _ColumnKey, digits: number): string {
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
