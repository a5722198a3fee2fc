/**
 * Number and cell formatting for replication reports.
 *
 * Display formatting (Markdown, HTML) rounds to a number of significant
 * digits, never prints "-0", and shows NaN as an em dash. CSV formatting keeps
 * full precision (the shortest string that round-trips) so the files can be
 * re-read by other tools.
 *
 * @module
 */

/** A table cell as experiments produce it (see `experiment.ts`). */
export type Cell = string | number | null;

/** Options of {@link formatNumber}. */
export interface FormatNumberOptions {
  /** Significant digits (1–17, default 4). */
  digits?: number;
}

/** What NaN is displayed as. */
export const NAN_TEXT = "—";

/**
 * Format a number for display with a fixed number of significant digits.
 *
 * Integers below 1e15 in magnitude are printed in full (counts of rows,
 * iterations). Other values use plain notation when 1e-3 ≤ |x| < 1e6 and
 * exponent notation otherwise (so small values read 5.8e-6, not 0.0000058); trailing zeros are dropped, "-0" becomes "0",
 * NaN becomes "—" and infinities "∞" / "-∞".
 *
 * @param x The number.
 * @param options Significant digits.
 * @returns The formatted text.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { formatNumber } from "./format.ts";
 * assert.equal(formatNumber(3.14159265), "3.142");
 * assert.equal(formatNumber(0.0000058), "5.8e-6");
 * assert.equal(formatNumber(0.00058), "5.8e-4");
 * assert.equal(formatNumber(-0.00001234), "-1.234e-5");
 * assert.equal(formatNumber(-1e-20, { digits: 2 }), "-1e-20");
 * assert.equal(formatNumber(NaN), "—");
 * assert.equal(formatNumber(100000), "100000");
 * ```
 */
export function formatNumber(x: number, options: FormatNumberOptions = {}): string {
  const digits = options.digits ?? 4;
  if (!Number.isInteger(digits) || digits < 1 || digits > 17) {
    throw new RangeError(`digits must be an integer in [1, 17], got ${digits}`);
  }
  if (typeof x !== "number") throw new TypeError(`x must be a number, got ${typeof x}`);
  if (Number.isNaN(x)) return NAN_TEXT;
  if (x === Infinity) return "∞";
  if (x === -Infinity) return "-∞";
  if (x === 0) return "0"; // also -0
  const ax = Math.abs(x);
  if (Number.isInteger(x) && ax < 1e15) return String(x);
  // Round first, then decide the notation from the rounded magnitude, so that
  // 999999.9 with 4 digits becomes "1e+6"-style rather than "1000000".
  const rounded = Number(x.toPrecision(digits));
  const ar = Math.abs(rounded);
  let text: string;
  if (ar >= 1e-3 && ar < 1e6) {
    text = _stripZeros(rounded.toPrecision(digits));
    if (text.includes("e")) text = _expText(rounded, digits); // toPrecision chose exponent
  } else text = _expText(rounded, digits);
  return text === "-0" ? "0" : text;
}

/**
 * {@link formatNumber} with 3 significant digits unless told otherwise: the
 * numbers quoted in an experiment's summary and comparison text.
 *
 * @param x The number.
 * @param digits Significant digits (default 3).
 * @returns The formatted text.
 *
 * @example
 * ```ts
 * import { formatShort } from "./format.ts";
 * import { strict as assert } from "node:assert";
 * assert.deepEqual([formatShort(3.14159265), formatShort(3.14159265, 5)], ["3.14", "3.1416"]);
 * ```
 */
export function formatShort(x: number, digits = 3): string {
  return formatNumber(x, { digits });
}

/**
 * Format a table cell for display: numbers by {@link formatNumber}, strings
 * unchanged, `null` (no value, e.g. the paper does not report one) as "".
 *
 * @param cell The cell.
 * @param options Significant digits for numbers.
 * @returns The text.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { formatCell } from "./format.ts";
 * assert.ok(formatCell(null) === "" && formatCell("ok") === "ok");
 * ```
 */
export function formatCell(cell: Cell, options: FormatNumberOptions = {}): string {
  if (cell === null) return "";
  if (typeof cell === "number") return formatNumber(cell, options);
  if (typeof cell === "string") return cell;
  throw new TypeError(`a table cell must be a string, a number or null, got ${typeof cell}`);
}

/**
 * Format a cell for CSV: numbers at full precision (shortest round-trip form;
 * "-0" → "0", NaN → "NaN", ±∞ → "Inf" / "-Inf"), strings unchanged, `null`
 * empty. Quoting is done by {@link csvField}.
 *
 * @param cell The cell.
 * @returns The unquoted CSV text.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { formatCsvCell } from "./format.ts";
 * assert.equal(formatCsvCell(0.1 + 0.2), "0.30000000000000004");
 * ```
 */
export function formatCsvCell(cell: Cell): string {
  if (cell === null) return "";
  if (typeof cell === "string") return cell;
  if (typeof cell !== "number") {
    throw new TypeError(`a table cell must be a string, a number or null, got ${typeof cell}`);
  }
  if (Number.isNaN(cell)) return "NaN";
  if (cell === Infinity) return "Inf";
  if (cell === -Infinity) return "-Inf";
  if (cell === 0) return "0";
  return String(cell);
}

/**
 * Quote one CSV field per RFC 4180: fields containing a comma, a double
 * quote, CR or LF (or leading/trailing spaces) are wrapped in double quotes,
 * with inner quotes doubled.
 *
 * @param text The field text.
 * @returns The field as it appears in the file.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { csvField } from "./format.ts";
 * assert.equal(csvField('say "hi", then go'), "\"say \"\"hi\"\", then go\"");
 * ```
 */
export function csvField(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * A whole CSV document (RFC 4180: CRLF line breaks, header line first).
 *
 * @param columns Header names.
 * @param rows Rows of cells, each as long as `columns`.
 * @returns The CSV text, ending in CRLF.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { toCsv } from "./format.ts";
 * assert.equal(toCsv(["a", "b"], [[1, "x,y"]]), "a,b\r\n1,\"x,y\"\r\n");
 * ```
 */
export function toCsv(columns: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const lines = [columns.map(csvField).join(",")];
  rows.forEach((row, i) => {
    if (row.length !== columns.length) {
      throw new RangeError(
        `row ${i + 1} has ${row.length} cells, but there are ${columns.length} columns`,
      );
    }
    lines.push(row.map((c) => csvField(formatCsvCell(c))).join(","));
  });
  return lines.join("\r\n") + "\r\n";
}

/**
 * Format a duration for humans: "850 ms", "12.3 s", "4 min 05 s", "1 h 02 min".
 *
 * @param seconds Duration in seconds (non-negative).
 * @returns The text.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { formatDuration } from "./format.ts";
 * assert.equal(formatDuration(125), "2 min 05 s");
 * ```
 */
export function formatDuration(seconds: number): string {
  if (!(seconds >= 0) || !Number.isFinite(seconds)) {
    throw new RangeError(`seconds must be a finite non-negative number, got ${seconds}`);
  }
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(2) : seconds.toFixed(1)} s`;
  const s = Math.round(seconds);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  const m = Math.round(seconds / 60);
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

function _stripZeros(text: string): string {
  if (!text.includes(".")) return text;
  return text.replace(/\.?0+$/, "");
}

function _expText(x: number, digits: number): string {
  const [mant, exp] = x.toExponential(digits - 1).split("e");
  const e = Number(exp);
  return `${_stripZeros(mant)}e${e}`;
}
