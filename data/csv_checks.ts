/**
 * The checks of a CSV load (data/csv.ts) that do not need the parser: the
 * options, the path, the extreme-value limits {@link EXTREME_ABS} and
 * {@link EXTREME_RATIO}, and the data-load warnings computed from the
 * per-column ranges once every row is in. The rules themselves are described
 * in csv.ts's module doc.
 *
 * @module
 */
import type { CsvOptions } from "./csv.ts";

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
// Cells: what counts as a number.

/**
 * Whether `s` is written as a plain decimal number, given that `+s` is
 * finite: its first character is a digit, a sign or a point and its last a
 * digit or a point (so no blanks at either end), and it is not a
 * hexadecimal, binary or octal literal (`0x10`, `0b11`, `0o7`), which
 * JavaScript's `Number()` would also accept. With those excluded, `+s` reads
 * exactly the decimal literals (digits, one point, an exponent), correctly
 * rounded.
 *
 * @param s The cell's text.
 * @returns True for a plain decimal.
 */
export function isPlainDecimal(s: string): boolean {
  const c0 = s.charCodeAt(0), cl = s.charCodeAt(s.length - 1);
  if (!((c0 >= 48 && c0 <= 57) || c0 === 43 || c0 === 45 || c0 === 46)) return false;
  if (!((cl >= 48 && cl <= 57) || cl === 46)) return false;
  if (c0 === 48 && s.length > 2) {
    const c1 = s.charCodeAt(1) | 32;
    if (c1 === 120 || c1 === 98 || c1 === 111) return false; // 0x, 0b, 0o
  }
  return true;
}

/**
 * The number a cell holds, or NaN when it holds none: a plain decimal
 * ({@link isPlainDecimal}), optionally with spaces or tabs around it. Empty
 * cells, `NaN`, `Infinity`, `0x10`, `0b11`, `0o7`, `1_000`, `1,5` and other
 * blanks (line breaks, no-break spaces) give NaN.
 *
 * @param s The cell's text.
 * @returns The value, or NaN.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cellNumber } from "./csv_checks.ts";
 * assert.equal(cellNumber(" 1.5e3\t"), 1500);
 * assert.ok(Number.isNaN(cellNumber("0x10")));
 * assert.ok(Number.isNaN(cellNumber("Infinity")));
 * ```
 */
export function cellNumber(s: string): number {
  let a = 0, b = s.length;
  while (a < b && (s.charCodeAt(a) === 32 || s.charCodeAt(a) === 9)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 32 || s.charCodeAt(b - 1) === 9)) b--;
  const t = a === 0 && b === s.length ? s : s.slice(a, b);
  if (t === "") return NaN;
  const v = +t;
  return v - v === 0 && isPlainDecimal(t) ? v : NaN;
}

/**
 * Why a cell is not a number, in words ("hexadecimal notation", …), or null
 * when no particular reason is known.
 *
 * @param s The cell's text.
 * @returns A phrase, or null.
 */
export function notNumberReason(s: string): string | null {
  const t = s.replace(/^[ \t]+|[ \t]+$/g, "");
  if (t === "") return "the cell is empty (missing values are not allowed)";
  if (/^[+-]?(nan|inf|infinity)$/i.test(t)) return "NaN and ±Infinity are not allowed";
  const base = /^[+-]?0[xX][0-9a-fA-F]+$/.test(t)
    ? "hexadecimal"
    : /^[+-]?0[bB][01]+$/.test(t)
    ? "binary"
    : /^[+-]?0[oO][0-7]+$/.test(t)
    ? "octal"
    : null;
  if (base !== null) return `${base} notation is not read as a number; write the value in decimal`;
  if (/^[+-]?[0-9.]*[0-9]_[0-9]/.test(t)) return "digit separators (_) are not allowed";
  if (/^[+-]?[0-9]*,[0-9]+$/.test(t)) {
    return "a decimal comma is not read as a number; write a decimal point (0.5, not 0,5)";
  }
  if (/^\s|\s$/.test(t) && Number.isFinite(Number(t))) {
    return "only spaces and tabs may surround a number (no line breaks or other blanks)";
  }
  return null;
}

// ---------------------------------------------------------------------------
// f32 storage.

/** The largest finite f32, 3.4028234663852886e38. */
export const F32_MAX = 3.4028234663852886e38;
/** The smallest normal f32, 2⁻¹²⁶ ≈ 1.1754943508222875e-38. */
export const F32_MIN_NORMAL = 1.1754943508222875e-38;

/**
 * Why `v` cannot be stored as f32, or null when it can: above
 * {@link F32_MAX} in magnitude (it would become ±Infinity or lose its
 * magnitude), or non-zero but below {@link F32_MIN_NORMAL} (it would become
 * 0 or a denormal, with few or no significant bits).
 *
 * @param v A finite value.
 * @returns A phrase, or null.
 */
export function f32Problem(v: number): string | null {
  const a = v < 0 ? -v : v;
  if (a > F32_MAX) {
    return `overflows f32 (|x| > ${F32_MAX}); use f64 storage (drop --f32) or rescale the column`;
  }
  if (a !== 0 && a < F32_MIN_NORMAL) {
    return `underflows f32 to ${
      Math.fround(v) === 0 ? "zero" : "a denormal"
    } (0 < |x| < ${F32_MIN_NORMAL}); use f64 storage (drop --f32) or rescale the column`;
  }
  return null;
}

// ---------------------------------------------------------------------------
// Column names.

/**
 * Column names that mean something else in a draws file (`chain`,
 * `iteration`, the sign and the scale parameters tallmc writes, the columns
 * of posterior's and CmdStan's formats): a covariate so named is renamed
 * (see {@link safeColumnNames}).
 */
export const RESERVED_COLUMN_NAMES: readonly string[] = [
  "chain",
  "iteration",
  "sign",
  "log_sigma",
  "log_phi",
  "log_nu_minus_1",
  ".chain",
  ".iteration",
  ".draw",
  "lp__",
];

/**
 * Covariate names that cannot collide with a draws file's own columns: a
 * reserved name ({@link RESERVED_COLUMN_NAMES}) gets the suffix `_x` (more
 * if that is taken too), an empty name becomes `V<field>` (as without a
 * header), each with a note.
 *
 * @param names The covariates' names (the intercept excluded).
 * @param fields The 1-based field of each name, for the notes.
 * @param taken Other names in the file, which a new name must not repeat.
 * @returns The names to use and one note per renamed column.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { safeColumnNames } from "./csv_checks.ts";
 * const r = safeColumnNames(["a", "sign", ""], [2, 3, 4], ["y"]);
 * assert.deepEqual(r.names, ["a", "sign_x", "V4"]);
 * assert.equal(r.notes.length, 2);
 * ```
 */
export function safeColumnNames(
  names: readonly string[],
  fields: readonly number[],
  taken: readonly string[] = [],
): { names: string[]; notes: string[] } {
  const used = new Set([...taken, ...names]);
  const out: string[] = [], notes: string[] = [];
  names.forEach((name, k) => {
    if (name !== "" && !RESERVED_COLUMN_NAMES.includes(name)) {
      out.push(name);
      return;
    }
    let next = name === "" ? `V${fields[k]}` : `${name}_x`;
    while (used.has(next) || RESERVED_COLUMN_NAMES.includes(next)) next += "_x";
    used.add(next);
    out.push(next);
    notes.push(
      name === ""
        ? `the header's field ${fields[k]} is empty: the column is named ${JSON.stringify(next)}`
        : `column ${JSON.stringify(name)} (field ${fields[k]}) is renamed ${
          JSON.stringify(next)
        }: ${JSON.stringify(name)} is a column of the draws file`,
    );
  });
  return { names: out, notes };
}

// ---------------------------------------------------------------------------
// Delimiters.

/** The delimiters {@link detectDelimiter} chooses among. */
export const DELIMITER_CANDIDATES: readonly string[] = [",", "\t", ";", "|"];

function _countOutsideQuotes(line: string, ch: string): number {
  let n = 0, quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === ch && !quoted) n++;
  }
  return n;
}

/** How a delimiter is written in messages. */
export function delimiterName(d: string): string {
  return d === "\t" ? "tab" : JSON.stringify(d);
}

/**
 * The field delimiter of a delimited text file, from its first lines: the
 * one candidate ({@link DELIMITER_CANDIDATES}) that occurs (outside quotes)
 * in the header; when several do, the one that occurs as often, and at
 * least once, in the next line, if that settles it; then the one whose
 * fields, blanks trimmed, hold none of the others (tabs as padding in a
 * comma-separated file). A line with none is one column (","). Otherwise
 * the choice is ambiguous.
 *
 * @param header The first line.
 * @param next The second line, if any.
 * @returns The delimiter, or an error message naming the candidates.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { detectDelimiter } from "./csv_checks.ts";
 * assert.equal(detectDelimiter("y;a;b", "1;2,5;3"), ";");
 * assert.equal(detectDelimiter("y\ta", undefined), "\t");
 * ```
 */
export function detectDelimiter(
  header: string,
  next: string | undefined,
): string | { error: string } {
  const counts = DELIMITER_CANDIDATES.map((d) => _countOutsideQuotes(header, d));
  const present = DELIMITER_CANDIDATES.filter((_, k) => counts[k] > 0);
  if (present.length === 0) return ",";
  if (present.length === 1) return present[0];
  let agree = present;
  if (next !== undefined) {
    agree = present.filter((d) =>
      _countOutsideQuotes(next, d) === counts[DELIMITER_CANDIDATES.indexOf(d)]
    );
    if (agree.length === 1) return agree[0];
  }
  // Still several: the one whose fields (blanks trimmed) hold none of the
  // others, e.g. "," for "y, a,\tb" (tabs as padding).
  const lines = next === undefined ? [header] : [header, next];
  const clean = agree.filter((d) =>
    lines.every((line) =>
      line.split(d).every((f) => {
        const t = f.replace(/^[ \t]+|[ \t]+$/g, "");
        return agree.every((o) => o === d || !t.includes(o));
      })
    )
  );
  if (clean.length === 1) return clean[0];
  return {
    error: `line 1: the delimiter is ambiguous: the header holds ${
      present.map(delimiterName).join(" and ")
    }; give it with --delimiter (the delimiter option in the API), e.g. --delimiter ${
      present[0] === "\t" ? "tab" : JSON.stringify(present[0])
    }`,
  };
}

// ---------------------------------------------------------------------------
// Duplicate and collinear columns.

/**
 * X'X is accumulated over about max(2d, ⌊{@link GRAM_BUDGET} / (d(d+1)/2)⌋)
 * rows, spread evenly over the table when its length is known (the first
 * ones otherwise); the warning says so when that is not every row. Above
 * {@link GRAM_MAX_COLS} columns only exact copies are looked for.
 */
export const GRAM_BUDGET = 1e7;

/** The rank check runs up to this many columns of X. */
export const GRAM_MAX_COLS = 500;

/**
 * Per-column statistics of a row-major table, accumulated block by block in
 * one pass: ranges, a hash of each column's bits and its sum (exact duplicates)
 * and the lower triangle of X'X (rank deficiency).
 */
export class ColumnStats {
  /** Number of columns. */
  readonly numCols: number;
  /** Smallest value per column. */
  readonly colMin: Float64Array;
  /** Largest value per column. */
  readonly colMax: Float64Array;
  /** X'X (lower triangle, row-major d × d) over the first {@link gramRows} rows. */
  readonly gram: Float64Array;
  /** Rows in {@link gram}. */
  gramRows = 0;
  /** Rows seen. */
  numRows = 0;
  #h1: Int32Array;
  #sum: Float64Array;
  #maxGramRows: number;
  #cols = new Float64Array(0);

  #stride: number;

  /**
   * @param numCols Number of columns.
   * @param expectedRows An upper bound on the number of rows, if known
   *   (the rows of X'X are then spread over the table).
   */
  constructor(numCols: number, expectedRows?: number) {
    this.numCols = numCols;
    this.colMin = new Float64Array(numCols).fill(Infinity);
    this.colMax = new Float64Array(numCols).fill(-Infinity);
    this.gram = new Float64Array(numCols * numCols);
    this.#h1 = new Int32Array(numCols).fill(0x811c9dc5 | 0);
    this.#sum = new Float64Array(numCols);
    this.#maxGramRows = numCols > GRAM_MAX_COLS ? 0 : Math.max(
      2 * numCols,
      Math.floor(GRAM_BUDGET / Math.max(1, (numCols * (numCols + 1)) / 2)),
    );
    this.#stride = expectedRows === undefined || this.#maxGramRows === 0
      ? 1
      : Math.max(1, Math.floor(expectedRows / this.#maxGramRows));
  }

  /**
   * Adds rows `[0, m)` of a row-major block.
   *
   * @param xs The block.
   * @param m Its rows.
   * @param ranges Computes the ranges, sums and hashes of the block instead
   *   of the loop here (the same numbers; the CSV kernel's `blockStats`).
   */
  add(
    xs: Float64Array,
    m: number,
    ranges?: (lo: Float64Array, hi: Float64Array, sum: Float64Array, h: Int32Array) => void,
  ): void {
    const d = this.numCols, lo = this.colMin, hi = this.colMax, h1 = this.#h1, sum = this.#sum;
    const bits = new Int32Array(xs.buffer, xs.byteOffset, xs.length * 2);
    if (ranges !== undefined) ranges(lo, hi, sum, h1);
    else {
      for (let i = 0; i < m; i++) {
        for (let k = 0, o = i * d; k < d; k++) {
          const v = xs[o + k];
          if (v < lo[k]) lo[k] = v;
          if (v > hi[k]) hi[k] = v;
          sum[k] += v;
          h1[k] = Math.imul(h1[k] ^ bits[2 * (o + k) + 1], 0x01000193) + bits[2 * (o + k)];
        }
      }
    }
    this.#gramRows(m, (cols, take, first, stride) => {
      for (let t = 0; t < take; t++) {
        for (let k = 0, o = (first + t * stride) * d; k < d; k++) cols[k * take + t] = xs[o + k];
      }
    });
  }

  /**
   * Adds rows `[0, m)` of a block given by columns (cols[k] is column k):
   * the same numbers as {@link add} on the row-major block.
   *
   * @param cols The block's columns, each at least m long.
   * @param m Its rows.
   * @param ranges Computes the ranges, sums and hashes instead of the loop
   *   here (the same numbers).
   */
  addColumns(
    cols: readonly Float64Array[],
    m: number,
    ranges?: (lo: Float64Array, hi: Float64Array, sum: Float64Array, h: Int32Array) => void,
  ): void {
    const d = this.numCols, lo = this.colMin, hi = this.colMax, h1 = this.#h1, sum = this.#sum;
    if (ranges !== undefined) ranges(lo, hi, sum, h1);
    else {
      for (let k = 0; k < d; k++) {
        const c = cols[k], bits = new Int32Array(c.buffer, c.byteOffset, m * 2);
        let l = lo[k], u = hi[k], s = sum[k], h = h1[k];
        for (let i = 0; i < m; i++) {
          const v = c[i];
          if (v < l) l = v;
          if (v > u) u = v;
          s += v;
          h = (Math.imul(h ^ bits[2 * i + 1], 0x01000193) + bits[2 * i]) | 0;
        }
        lo[k] = l;
        hi[k] = u;
        sum[k] = s;
        h1[k] = h;
      }
    }
    this.#gramRows(m, (g, take, first, stride) => {
      for (let k = 0; k < d; k++) {
        const c = cols[k];
        for (let t = 0; t < take; t++) g[k * take + t] = c[first + t * stride];
      }
    });
  }

  /**
   * Adds the block's rows numRows + i with (numRows + i) % stride === 0 to
   * X'X while the budget lasts; fill copies them column-major into cols
   * (cols[k·take + t] = row first + t·stride, column k).
   */
  #gramRows(
    m: number,
    fill: (cols: Float64Array, take: number, first: number, stride: number) => void,
  ): void {
    const d = this.numCols;
    const stride = this.#stride;
    const first = (stride - (this.numRows % stride)) % stride;
    const take = first >= m
      ? 0
      : Math.min(Math.ceil((m - first) / stride), this.#maxGramRows - this.gramRows);
    if (take > 0) {
      // Column-major copy, then one dot product per pair: sums stay in registers.
      if (this.#cols.length < d * take) this.#cols = new Float64Array(d * take);
      fill(this.#cols, take, first, stride);
      this.#gramAdd(this.#cols, take, take);
    }
    this.gramRows += take;
    this.numRows += m;
  }

  /** X'X += the `take` rows held column-major in cols (column k at cols[k·ld, k·ld + take)). */
  #gramAdd(cols: Float64Array, take: number, ld: number): void {
    const d = this.numCols, g = this.gram;
    const end4 = take - (take % 4);
    for (let a = 0; a < d; a++) {
      const oa = a * ld;
      for (let b = 0; b <= a; b++) {
        const ob = b * ld;
        let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        let i = 0;
        for (; i < end4; i += 4) {
          s0 += cols[oa + i] * cols[ob + i];
          s1 += cols[oa + i + 1] * cols[ob + i + 1];
          s2 += cols[oa + i + 2] * cols[ob + i + 2];
          s3 += cols[oa + i + 3] * cols[ob + i + 3];
        }
        for (; i < take; i++) s0 += cols[oa + i] * cols[ob + i];
        g[a * d + b] += (s0 + s1) + (s2 + s3);
      }
    }
  }

  // Segment mode (addSegment): the rows of the block being gathered.
  #segBlockRows = 0;
  #segLd = 0;
  #segTake = 0;

  /**
   * Adds rows `[0, m)` of a row-major run of rows that continues the table,
   * with the run's own statistics computed elsewhere (on another thread):
   * its minima and maxima, which merge exactly (the first of equal values
   * stays, as in {@link add}), and its sums and hashes, which are folded into
   * the column's fingerprint in run order. A table fed this way is fed only
   * this way: its fingerprints are then functions of the column's values and
   * of the runs' lengths, so two columns have the same fingerprint when they
   * are equal (the duplicate check's use) — not the numbers of {@link add}.
   * X'X gets exactly the numbers of {@link add} fed blocks of `blockRows`
   * rows: the rows are gathered block by block across runs ({@link finish}
   * adds the last block).
   *
   * @param xs The run, row-major.
   * @param m Its rows.
   * @param blockRows Rows per block of the reader this replaces.
   * @param part The run's minima, maxima, sums and hashes (ColumnStats.add's
   *   arithmetic, from the start values +∞, -∞, 0 and 0x811c9dc5).
   */
  addSegment(
    xs: Float64Array,
    m: number,
    blockRows: number,
    part: { lo: Float64Array; hi: Float64Array; sum: Float64Array; h: Int32Array },
  ): void {
    const d = this.numCols, lo = this.colMin, hi = this.colMax;
    if (m === 0) return;
    for (let k = 0; k < d; k++) {
      if (part.lo[k] < lo[k]) lo[k] = part.lo[k];
      if (part.hi[k] > hi[k]) hi[k] = part.hi[k];
      this.#sum[k] += part.sum[k];
      this.#h1[k] = Math.imul(this.#h1[k] ^ part.h[k], 0x01000193) + m;
    }
    const stride = this.#stride;
    if (this.#segBlockRows === 0) {
      this.#segBlockRows = blockRows;
      this.#segLd = Math.ceil(blockRows / stride) + 1;
      if (this.#cols.length < d * this.#segLd) this.#cols = new Float64Array(d * this.#segLd);
    }
    const cols = this.#cols, ld = this.#segLd;
    // Rows g = numRows + i: in X'X when g % stride === 0, while the budget lasts.
    let i = 0;
    while (i < m) {
      const inBlock = this.numRows % blockRows;
      const n = Math.min(m - i, blockRows - inBlock);
      const g0 = this.numRows;
      let r = g0 % stride === 0 ? 0 : stride - (g0 % stride);
      for (; r < n && this.gramRows + this.#segTake < this.#maxGramRows; r += stride) {
        const o = (i + r) * d, t = this.#segTake++;
        for (let k = 0; k < d; k++) cols[k * ld + t] = xs[o + k];
      }
      this.numRows += n;
      i += n;
      if (this.numRows % blockRows === 0) this.#segFlush();
    }
  }

  #segFlush(): void {
    if (this.#segTake > 0) this.#gramAdd(this.#cols, this.#segTake, this.#segLd);
    this.gramRows += this.#segTake;
    this.#segTake = 0;
  }

  /** Ends the table: adds the last block gathered by {@link addSegment}. */
  finish(): void {
    if (this.#segTake > 0) this.#segFlush();
  }

  /** Groups of columns with equal hashes (exact duplicates), each group's first column first. */
  duplicates(): number[][] {
    const groups = new Map<string, number[]>();
    for (let k = 0; k < this.numCols; k++) {
      const key = `${this.#h1[k]}:${this.#sum[k]}:${this.colMin[k]}:${this.colMax[k]}`;
      const g = groups.get(key);
      if (g === undefined) groups.set(key, [k]);
      else g.push(k);
    }
    return [...groups.values()].filter((g) => g.length > 1);
  }
}

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
