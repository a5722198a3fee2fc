/**
 * The columns of a table a formula names, read and checked for a design
 * matrix (data/design.ts describes the rules): numeric or categorical, the
 * response's domain, a two-level text response coded 0/1, and the offset
 * and trials columns.
 *
 * @module
 */
import { cellNumber, notNumberReason } from "./csv_checks.ts";
import type { Formula } from "./formula.ts";
import type { ColumnTable, DesignOptions, ResponseCoding } from "./design.ts";

/**
 * A categorical column with more levels than this, and more than half as
 * many levels as rows, is refused as an identifier or free text.
 */
export const MAX_LEVELS = 50;

/** "data row R (line L)" of data row i (0-based). */
function _rowAt(table: ColumnTable, i: number): string {
  return `data row ${i + 1}${table.lines === undefined ? "" : ` (line ${table.lines[i]})`}`;
}

/** A column of the table as the design uses it. */
export type DesignColumn = { kind: "numeric"; values: Float64Array } | {
  kind: "categorical";
  levels: string[];
  codes: Int32Array;
};

/** Reads and classifies one column the formula names; errors name the column and row. */
export function readDesignColumn(table: ColumnTable, name: string, formula: Formula): DesignColumn {
  const j = table.names.indexOf(name);
  if (j < 0) {
    throw new RangeError(
      `formula ${JSON.stringify(formula.text)} names column ${
        JSON.stringify(name)
      }, which is not in the data (columns: ${table.names.join(", ")})`,
    );
  }
  const cells = table.columns[j], n = table.numRows;
  const values = new Float64Array(n);
  let firstText = -1, firstNum = -1;
  for (let i = 0; i < n; i++) {
    const c = cells[i];
    if (c === "") {
      throw new RangeError(
        `column ${JSON.stringify(name)} has an empty cell at ${_rowAt(table, i)}`,
      );
    }
    const v = cellNumber(c);
    if (v - v === 0) {
      values[i] = v;
      if (firstNum < 0) firstNum = i;
      continue;
    }
    const asJs = Number(c);
    const reason = Number.isFinite(asJs) || /^[+-]?(inf|infinity|nan)$/i.test(c)
      ? notNumberReason(c)
      : asJs === Infinity || asJs === -Infinity
      ? `overflows to ${asJs}; values must be finite`
      : null;
    if (reason !== null) {
      throw new RangeError(
        `column ${JSON.stringify(name)}, ${_rowAt(table, i)}: ${reason}, got ${
          JSON.stringify(c)
        } (a category needs a label that is not a number, e.g. "h${c}")`,
      );
    }
    if (firstText < 0) firstText = i;
  }
  if (firstText < 0) return { kind: "numeric", values };
  if (firstNum >= 0) {
    const reason = notNumberReason(cells[firstText]);
    if (reason !== null) {
      throw new RangeError(
        `column ${JSON.stringify(name)}, ${_rowAt(table, firstText)}: ${reason}, got ${
          JSON.stringify(cells[firstText])
        }`,
      );
    }
    throw new RangeError(
      `column ${JSON.stringify(name)} mixes numbers (${
        JSON.stringify(cells[firstNum])
      } at data row ${firstNum + 1}) and text (${JSON.stringify(cells[firstText])} at data row ${
        firstText + 1
      }); a numeric column needs numbers only, a categorical one text only`,
    );
  }
  const levels = [...new Set(cells)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (levels.length < 2) {
    throw new RangeError(
      `column ${JSON.stringify(name)} is categorical with one level (${
        JSON.stringify(levels[0])
      }): a categorical column needs at least two levels; drop it from the formula`,
    );
  }
  if (levels.length > MAX_LEVELS && levels.length > n / 2) {
    throw new RangeError(
      `column ${JSON.stringify(name)} is categorical with ${levels.length} levels in ${n} rows ` +
        `(e.g. ${JSON.stringify(levels[0])}): it looks like an identifier or free text, not a ` +
        `category; drop it from the formula`,
    );
  }
  const index = new Map(levels.map((l, k) => [l, k]));
  const codes = new Int32Array(n);
  for (let i = 0; i < n; i++) codes[i] = index.get(cells[i])!;
  return { kind: "categorical", levels, codes };
}

/** Checks the response against the family's domain, naming the row. */
export function checkDesignResponse(
  y: Float64Array,
  name: string,
  family: string | undefined,
): void {
  const counts = family === "poisson" || family === "negative-binomial" || family === "binomial";
  for (let i = 0; i < y.length; i++) {
    const v = y[i];
    if (family === "logistic" && v !== 0 && v !== 1) {
      throw new RangeError(
        `the response ${
          JSON.stringify(name)
        } must be 0 or 1 for the logistic family, got ${v} at data row ${
          i + 1
        } (or text with two levels)`,
      );
    }
    if (counts && !(v >= 0 && Number.isInteger(v))) {
      throw new RangeError(
        `the response ${
          JSON.stringify(name)
        } must be a non-negative integer for the ${family} family, got ${v} at data row ${i + 1}`,
      );
    }
  }
}

/** An offset or trials column: finite numbers (trials: integers ≥ 1 are checked with y). */
export function readAuxColumn(
  table: ColumnTable,
  name: string,
  which: "offset" | "trials",
): Float64Array {
  const j = table.names.indexOf(name);
  if (j < 0) {
    throw new RangeError(
      `the ${which} column ${JSON.stringify(name)} is not in the data (columns: ${
        table.names.join(", ")
      })`,
    );
  }
  const cells = table.columns[j], out = new Float64Array(table.numRows);
  for (let i = 0; i < cells.length; i++) {
    const v = cellNumber(cells[i]);
    if (!Number.isFinite(v) || (which === "trials" && !Number.isInteger(v))) {
      throw new RangeError(
        `the ${which} column ${JSON.stringify(name)} must hold ${
          which === "trials" ? "integers" : "finite numbers"
        } in every row, got ${JSON.stringify(cells[i])} at data row ${i + 1}`,
      );
    }
    out[i] = v;
  }
  return out;
}

/** A logistic response of text cells coded 0/1 (null when the column is not all text). */
export function textResponse(
  table: ColumnTable,
  f: Formula,
  options: DesignOptions,
): { y: Float64Array; coding: ResponseCoding } | null {
  const j = table.names.indexOf(f.response);
  if (options.family !== "logistic" || j < 0) return null;
  const cells = table.columns[j];
  if (cells.some((c) => c === "" || Number.isFinite(Number(c)))) return null;
  const name = JSON.stringify(f.response);
  const levels = [...new Set(cells)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const list = levels.slice(0, 10).map((l) => JSON.stringify(l)).join(", ") +
    (levels.length > 10 ? `, … (${levels.length} in all)` : "");
  if (levels.length !== 2) {
    throw new RangeError(
      `the response ${name} is text with ${levels.length} level${
        levels.length === 1 ? "" : "s"
      } (${list}); a logistic response needs exactly two levels, or 0/1`,
    );
  }
  const success = options.success ?? levels[1];
  if (!levels.includes(success)) {
    throw new RangeError(
      `success ${JSON.stringify(success)} is not a level of the response ${name} (levels: ${list})`,
    );
  }
  const failure = levels[0] === success ? levels[1] : levels[0];
  const rule = options.success === undefined
    ? `the response ${name} is text with levels ${list}: ${
      JSON.stringify(success)
    } is coded 1 and ${
      JSON.stringify(failure)
    } 0 (the level that sorts second is 1; choose it with success)`
    : `the response ${name} is text with levels ${list}: ${
      JSON.stringify(success)
    } is coded 1 and ${JSON.stringify(failure)} 0`;
  const y = new Float64Array(cells.length);
  for (let i = 0; i < cells.length; i++) y[i] = cells[i] === success ? 1 : 0;
  return { y, coding: { levels: [levels[0], levels[1]], success, rule } };
}
