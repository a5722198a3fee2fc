/**
 * The checks of a CSV load (data/csv.ts) that do not need the parser: the
 * options, the path, the extreme-value limits {@link EXTREME_ABS} and
 * {@link EXTREME_RATIO}, and the data-load warnings computed from the
 * per-column ranges once every row is in (with the duplicate and collinear
 * columns found in {@link ColumnStats}). The rules themselves are described
 * in csv.ts's module doc. What a cell holds (cell_numbers.ts), safe column
 * names (column_names.ts), the delimiter (delimiter.ts) and the column
 * statistics (column_stats.ts) have modules of their own, re-exported here.
 *
 * @module
 */
import type { CsvOptions } from "./csv.ts";
import type { ColumnStats } from "./column_stats.ts";

export {
  cellNumber,
  F32_MAX,
  F32_MIN_NORMAL,
  f32Problem,
  isPlainDecimal,
  notNumberReason,
} from "./cell_numbers.ts";
export { RESERVED_COLUMN_NAMES, safeColumnNames } from "./column_names.ts";
export { DELIMITER_CANDIDATES, delimiterName, detectDelimiter } from "./delimiter.ts";
export { ColumnStats, GRAM_BUDGET, GRAM_MAX_COLS } from "./column_stats.ts";

/** Cells with a magnitude above this are refused (see the module doc). */
export const EXTREME_ABS = 1e100;

/**
 * A covariate whose largest magnitude exceeds this many times
 * max(1, the median of the columns' largest magnitudes) draws a warning.
 */
export const EXTREME_RATIO = 1e6;

/** Where to standardise, in the CLI and in the API. */
export const STANDARDIZE_HINT =
  "--standardize with --formula in the CLI; standardize: true with a formula in the API";

/** At most this many names are listed in one warning; the rest are counted. */
export const MAX_LISTED_NAMES = 10;

/**
 * Names for a message: quoted, at most {@link MAX_LISTED_NAMES} of them,
 * then how many more.
 *
 * @param names The names.
 * @returns E.g. `"x1", "x2", "x3", … and 994 more`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listNames } from "./csv_checks.ts";
 * assert.equal(listNames(["a", "b"]), '"a", "b"');
 * ```
 */
export function listNames(names: readonly string[], max = MAX_LISTED_NAMES): string {
  const shown = names.slice(0, max).map((n) => JSON.stringify(n)).join(", ");
  return names.length > max ? `${shown}, … and ${names.length - max} more` : shown;
}

/** The per-column summary of a loaded table that {@link csvDataWarnings} reads. */
export interface CsvColumnSummary {
  /** Message prefix naming the input ("" or "file.csv: "). */
  where: string;
  /** The GLM family. */
  family: CsvOptions["family"];
  /** Whether X starts with the intercept column. */
  intercept: boolean;
  /** Name of the response column. */
  responseName: string;
  /** Names of the columns of X. */
  columnNames: string[];
  /** Number of data rows. */
  numRows: number;
  /** Number of columns of X. */
  numCols: number;
  /** Smallest value per column of X. */
  colMin: Float64Array;
  /** Largest value per column of X. */
  colMax: Float64Array;
  /** Smallest response. */
  yMin: number;
  /** Largest response. */
  yMax: number;
  /** Duplicate and collinearity checks, when accumulated. */
  stats?: ColumnStats;
}

/**
 * The warnings of the csv.ts module doc (extreme covariates, a large Gaussian
 * response, a constant response or covariate, fewer rows than columns), from
 * the per-column ranges.
 *
 * @param s The table's per-column summary.
 * @returns The warnings, in that order (empty if none).
 */
export function csvDataWarnings(s: CsvColumnSummary): string[] {
  const out: string[] = [];
  const w = s.where;
  const resp = JSON.stringify(s.responseName);
  const n = s.numRows;
  if (n > 1 && s.yMin === s.yMax) {
    out.push(
      `${w}the response ${resp} is ${s.yMin} in every one of the ${n} rows; the data ` +
        `cannot locate the coefficients (the posterior follows the prior)`,
    );
  }
  if (s.family === "gaussian") {
    const big = Math.max(-s.yMin, s.yMax);
    if (big > EXTREME_RATIO) {
      out.push(
        `${w}the response ${resp} reaches ${big}; rescale or standardise it so that the ` +
          `default priors and step sizes fit`,
      );
    }
  }
  const first = s.intercept ? 1 : 0;
  const maxAbs: number[] = [];
  for (let k = 0; k < s.numCols; k++) {
    maxAbs.push(Math.max(-s.colMin[k], s.colMax[k]));
  }
  const sorted = maxAbs.filter((v) => v > 0).sort((a, b) => a - b);
  const median = sorted.length === 0
    ? 1
    : sorted.length % 2 === 1
    ? sorted[(sorted.length - 1) / 2]
    : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  const limit = EXTREME_RATIO * Math.max(1, median);
  const extreme: number[] = [], constant: number[] = [];
  for (let k = first; k < s.numCols; k++) {
    if (maxAbs[k] > limit) extreme.push(k);
    if (s.intercept && n > 1 && s.colMin[k] === s.colMax[k]) constant.push(k);
  }
  const names = (ks: number[]) => listNames(ks.map((k) => s.columnNames[k]));
  if (extreme.length === 1) {
    const k = extreme[0], name = JSON.stringify(s.columnNames[k]);
    out.push(
      `${w}column ${name} has values up to ${
        maxAbs[k]
      } in magnitude, more than ${EXTREME_RATIO.toExponential()} times the typical column (${median}); standardise the columns (${STANDARDIZE_HINT}) or rescale ${name}, or HMC will need a step size too small for ` +
        `the other coefficients`,
    );
  } else if (extreme.length > 1) {
    const top = Math.max(...extreme.map((k) => maxAbs[k]));
    out.push(
      `${w}extreme values in ${extreme.length} columns: ${
        names(extreme)
      } (up to ${top} in magnitude, more than ${EXTREME_RATIO.toExponential()} times the typical column's ${median}); standardise the columns (${STANDARDIZE_HINT}) or rescale them, or HMC will need a step size too small for the other coefficients`,
    );
  }
  if (constant.length === 1) {
    const k = constant[0];
    out.push(
      `${w}column ${JSON.stringify(s.columnNames[k])} is ${s.colMin[k]} in every row; next to ` +
        `the intercept its coefficient is not identified by the data`,
    );
  } else if (constant.length > 1) {
    out.push(
      `${w}${constant.length} columns are constant (the same value in every row): ${
        names(constant)
      }; next to the intercept their coefficients are not identified by the data`,
    );
  }
  if (s.stats !== undefined) {
    out.push(
      ...collinearityWarnings(s.stats, {
        where: w,
        columnNames: s.columnNames,
        intercept: s.intercept,
      }),
    );
  }
  if (n < s.numCols) {
    out.push(
      `${w}only ${n} data row${n === 1 ? "" : "s"} for ${s.numCols} columns of X; the ` +
        `coefficients are identified by the prior alone`,
    );
  }
  return out;
}

/** Refuses options without a known family, a response, or with a bad delimiter. */
export function checkCsvOptions(options: CsvOptions): void {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`options must be an object with response and family, got ${options}`);
  }
  const { family } = options;
  if (family !== "logistic" && family !== "gaussian" && family !== "poisson") {
    throw new TypeError(
      `family must be "logistic", "gaussian" or "poisson", got ${JSON.stringify(family)}`,
    );
  }
  if (typeof options.response !== "string" && typeof options.response !== "number") {
    throw new TypeError(
      `response must be a column name or a 0-based index, got ${JSON.stringify(options.response)}`,
    );
  }
  const delimiter = options.delimiter ?? ",";
  if (typeof delimiter !== "string" || delimiter.length === 0 || /["\r\n]/.test(delimiter)) {
    throw new TypeError(
      `delimiter must be a non-empty string without quotes or line breaks, got ${
        JSON.stringify(delimiter)
      }`,
    );
  }
}

/**
 * Refuses a path that does not exist, cannot be read or is a directory with
 * a message naming it (the file system's own errors name neither the file
 * nor the option).
 */
export async function checkCsvFile(path: string | URL, where: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new RangeError(`${where}no such file`, { cause: e });
    }
    if (e instanceof Deno.errors.PermissionDenied) {
      throw new RangeError(`${where}the file cannot be read (permission denied)`, { cause: e });
    }
    throw e;
  }
  if (info.isDirectory) {
    throw new TypeError(`${where}is a directory, not a CSV file; give the path of the file`);
  }
}

// ---------------------------------------------------------------------------
// Duplicate and collinear columns.

/**
 * Warnings about duplicate columns and a rank-deficient X'X: exact copies
 * are named pairwise; the rest are checked by a pivoted Cholesky
 * factorisation of X'X scaled to unit diagonal, which stops when no
 * remaining column has more than a 10⁻⁹ share of its sum of squares outside
 * the span of the columns taken; each column left over is named with the
 * columns its regression on the taken ones involves.
 *
 * @param stats The accumulated statistics.
 * @param o `where` (message prefix), `columnNames`, `intercept` (whether
 *   column 0 is the intercept: constant columns are then left to the
 *   constant-column warning).
 * @returns Zero, one or two warnings.
 */
export function collinearityWarnings(
  stats: ColumnStats,
  o: { where: string; columnNames: readonly string[]; intercept: boolean },
): string[] {
  const out: string[] = [];
  const d = stats.numCols, names = o.columnNames;
  if (stats.numRows < 2) return out;
  const skip = new Uint8Array(d);
  const constant = (k: number) => stats.colMin[k] === stats.colMax[k];
  const dups = stats.duplicates().filter((g) => !(o.intercept && g.every(constant)));
  const pairs: string[] = [];
  for (const g of dups) {
    for (const k of g.slice(1)) {
      skip[k] = 1;
      pairs.push(`${JSON.stringify(names[k])} = ${JSON.stringify(names[g[0]])}`);
    }
  }
  if (pairs.length > 0) {
    out.push(
      `${o.where}${
        pairs.length === 1 ? "a column is a copy" : `${pairs.length} columns are copies`
      } of another (identical in every row): ${pairs.slice(0, MAX_LISTED_NAMES).join(", ")}${
        pairs.length > MAX_LISTED_NAMES ? `, … and ${pairs.length - MAX_LISTED_NAMES} more` : ""
      }; their coefficients are not identified apart: drop the copies`,
    );
  }
  if (o.intercept) { for (let k = 1; k < d; k++) if (constant(k)) skip[k] = 1; }
  const idx: number[] = [];
  for (let k = 0; k < d; k++) if (!skip[k] && stats.gram[k * d + k] > 0) idx.push(k);
  const m = idx.length;
  if (m < 2) return out;
  const g = (a: number, b: number) => (a >= b ? stats.gram[a * d + b] : stats.gram[b * d + a]);
  const s = idx.map((k) => Math.sqrt(g(k, k)));
  const L = new Float64Array(m * m), diag = new Float64Array(m).fill(1);
  const perm = Array.from({ length: m }, (_, i) => i);
  const tol = 1e-9;
  let r = 0;
  for (let k = 0; k < m; k++) {
    let q = k;
    for (let t = k + 1; t < m; t++) if (diag[perm[t]] > diag[perm[q]]) q = t;
    if (!(diag[perm[q]] > tol)) break;
    [perm[k], perm[q]] = [perm[q], perm[k]];
    const p = perm[k], lpk = Math.sqrt(diag[p]);
    L[p * m + k] = lpk;
    for (let t = k + 1; t < m; t++) {
      const j = perm[t];
      let v = g(idx[j], idx[p]) / (s[j] * s[p]);
      for (let u = 0; u < k; u++) v -= L[j * m + u] * L[p * m + u];
      const ljk = v / lpk;
      L[j * m + k] = ljk;
      diag[j] -= ljk * ljk;
    }
    r = k + 1;
  }
  if (r === m || stats.gramRows === 0) return out;
  const sets: string[] = [];
  for (let t = r; t < m; t++) {
    const j = perm[t];
    const b = new Float64Array(r);
    for (let u = r - 1; u >= 0; u--) {
      let v = L[j * m + u];
      for (let w = u + 1; w < r; w++) v -= L[perm[w] * m + u] * b[w];
      b[u] = v / L[perm[u] * m + u];
    }
    let big = 0;
    for (let u = 0; u < r; u++) big = Math.max(big, Math.abs(b[u]));
    const with_ = [];
    for (let u = 0; u < r; u++) {
      if (Math.abs(b[u]) > 1e-6 * big) with_.push(idx[perm[u]]);
    }
    with_.sort((a, c) => a - c);
    sets.push(
      `${JSON.stringify(names[idx[j]])} with ${
        with_.map((k) => JSON.stringify(names[k])).join(", ")
      }`,
    );
  }
  const limit = 5;
  out.push(
    `${o.where}columns are linearly dependent, or nearly so (X'X is singular to 1e-9${
      stats.gramRows < stats.numRows ? ` over ${stats.gramRows} of the ${stats.numRows} rows` : ""
    }): ${sets.slice(0, limit).join("; ")}${
      sets.length > limit ? `; … and ${sets.length - limit} more` : ""
    }; the coefficients of each set are not identified apart: drop a column of each set`,
  );
  return out;
}
