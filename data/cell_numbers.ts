/**
 * What a cell of a delimited text file holds: a plain decimal number or
 * nothing ({@link cellNumber}), why a cell is not a number, in words
 * ({@link notNumberReason}), and whether a value can be stored as f32
 * ({@link f32Problem}). The rules are described in data/csv.ts's module doc.
 *
 * @module
 */

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
 * import { cellNumber } from "./cell_numbers.ts";
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
