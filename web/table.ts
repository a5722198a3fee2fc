/**
 * The demo page's data files, read once in its worker: a CSV file (any of
 * the delimiters `, ; | tab`, detected from the header as the CLI does) or a
 * Parquet file, held as a table of text cells (`ColumnTable`,
 * data/design.ts) so that each run only builds its design matrix.
 *
 * ```
 *  file ──► ColumnTable (text cells) ──► checkTable: every problem, per row and per column
 *                   │
 *   run: formula ──►└─ drop rows with a missing cell in a column the model uses
 *                      ──► buildDesign ──► modelFromFormulaData (cli/model_from_data.ts)
 * ```
 *
 * Missing cells (empty, `NA`, `NaN`, `null`; Parquet nulls) are the one
 * thing the page does differently from the CLI, which refuses them: a run
 * drops every row with a missing cell in a column the model uses (the
 * formula's columns, the offset and the trials) and says how many. Without
 * missing cells the page builds the model the CLI builds from the same flags,
 * so the same seed gives the same draws.
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { glmDataFromArrays } from "../data/dataset.ts";
import {
  buildDesign,
  type ColumnTable,
  type FormulaData,
  parseColumnTable,
} from "../data/design.ts";
import { parseFormula } from "../data/formula.ts";
import {
  cellNumber,
  detectDelimiter,
  isPlainDecimal,
  notNumberReason,
} from "../data/csv_checks.ts";
import { parquetColumnTable } from "../data/parquet.ts";
import { familyFromFlags } from "../cli/model_flags.ts";
import { type ModelFromDesign, modelFromFormulaData } from "../cli/model_from_data.ts";

/** A missing cell: empty, NA, N/A, NaN, nan, null or NULL. */
export function isMissing(cell: string): boolean {
  return /^(|NA|N\/A|NaN|nan|null|NULL)$/.test(cell);
}

/** One column of a loaded file, as the page lists it. */
export interface ColumnInfo {
  /** Header name. */
  name: string;
  /** Numbers only, text only (a category), or a problem (see `TableCheck.problems`). */
  kind: "numeric" | "text" | "bad";
  /** Missing cells. */
  missing: number;
  /** Levels of a text column (at most 20 listed). */
  levels: string[];
  /** Number of levels of a text column. */
  numLevels: number;
}

/** What the page learns about a file when it is loaded. */
export interface TableCheck {
  /** Data rows read (well-formed ones). */
  numRows: number;
  /** The delimiter found (a CSV file), or null (Parquet). */
  delimiter: string | null;
  /** The columns. */
  columns: ColumnInfo[];
  /**
   * Every problem found: each bad row, each misplaced quote, then per column
   * what makes it unusable and each bad cell by kind (not a number in a
   * numeric column, not finite, empty, missing), at most
   * {@link MAX_CELLS_LISTED} per column and kind followed by "… and N more".
   */
  problems: string[];
  /** Rows left out because of their number of fields (a run refuses the file while there are any). */
  badRows: number;
}

/**
 * Read a CSV file's text, keeping every well-formed row and listing each
 * bad one and each misplaced quote.
 *
 * @param text The file's text.
 * @param delimiter The delimiter (default: detected from the header, as the CLI does).
 * @returns The table, the rows it left out and the quote problems.
 * @throws {RangeError} When there is no table at all (empty file, bad header, no delimiter).
 */
export function readCsvTable(
  text: string,
  delimiter?: string,
): { table: ColumnTable; badRows: string[]; quoteProblems: string[] } {
  const badRows: string[] = [], quotes: string[] = [];
  const table = parseColumnTable(text, { badRows, quoteProblems: quotes, delimiter });
  return { table, badRows, quoteProblems: [...new Set(quotes)] };
}

/**
 * Read a Parquet file's bytes as a table of text cells (nulls as empty cells).
 *
 * @param bytes The file.
 * @returns The table.
 */
export async function readParquetTable(bytes: Uint8Array): Promise<ColumnTable> {
  // The codecs (≈ 110 KiB) are imported only when a Parquet file is opened:
  // the page's build splits them into a chunk of their own.
  const { compressors } = await import("npm:hyparquet-compressors@1.1.2");
  return await parquetColumnTable(bytes, { compressors, nulls: "empty" });
}

/** The delimiter the CLI would detect in a CSV file's text. */
export function csvDelimiter(text: string): string | null {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const [l1, l2] = text.split(/\r\n|\n|\r/, 2);
  const found = detectDelimiter(l1 ?? "", l2);
  return typeof found === "string" ? found : null;
}

/** Cells listed per column and kind of problem before "… and N more". */
export const MAX_CELLS_LISTED = 5;

/** A cell's place in words: its line (CSV) or data row (Parquet). */
function _where(table: ColumnTable, i: number): string {
  return table.lines === undefined ? `data row ${i + 1}` : `line ${table.lines[i]}`;
}

/** Lines for the cells `at` of column `name`, at most MAX_CELLS_LISTED, then how many more. */
function _cellLines(
  table: ColumnTable,
  name: string,
  at: readonly number[],
  what: (cell: string) => string,
  kind: string,
): string[] {
  const cells = table.columns[table.names.indexOf(name)];
  const out = at.slice(0, MAX_CELLS_LISTED).map((i) =>
    `${_where(table, i)}, column ${JSON.stringify(name)}: ${what(cells[i])}`
  );
  if (at.length > MAX_CELLS_LISTED) {
    out.push(
      `… and ${at.length - MAX_CELLS_LISTED} more ${kind} in column ${JSON.stringify(name)}`,
    );
  }
  return out;
}

/** A cell written as a number that is not finite (±Inf, or too large for a double). */
function _nonFinite(cell: string): boolean {
  const t = cell.trim();
  if (/^[+-]?(inf|infinity)$/i.test(t)) return true;
  return isPlainDecimal(t) && !Number.isFinite(+t);
}

/**
 * Check every column of a table as the formula path would read it (numbers
 * only, or text only with at least two levels and not an identifier) and
 * every cell: after the rows left out and the misplaced quotes, each bad
 * column's problem and its bad cells by kind — text in a numeric column,
 * a number that is not finite, an empty cell, a missing value (`NA`, …) —
 * at most {@link MAX_CELLS_LISTED} per column and kind, then how many more.
 *
 * @param table The table.
 * @param badRows Rows left out when it was read.
 * @param delimiter The delimiter (null for Parquet).
 * @param quoteProblems Misplaced quotes found when it was read.
 * @returns Columns, problems and counts.
 */
export function checkTable(
  table: ColumnTable,
  badRows: readonly string[],
  delimiter: string | null,
  quoteProblems: readonly string[] = [],
): TableCheck {
  const problems = [...badRows, ...quoteProblems];
  const columns: ColumnInfo[] = table.names.map((name, j) => {
    const cells = table.columns[j];
    const keep: number[] = [], empty: number[] = [], na: number[] = [];
    for (let i = 0; i < cells.length; i++) {
      if (!isMissing(cells[i])) keep.push(i);
      else if (cells[i].trim() === "") empty.push(i);
      else na.push(i);
    }
    const info: ColumnInfo = {
      name,
      kind: "numeric",
      missing: cells.length - keep.length,
      levels: [],
      numLevels: 0,
    };
    const cellProblems = (): string[] => {
      const numbers: number[] = [], texts: number[] = [], infinite: number[] = [];
      for (const i of keep) {
        if (Number.isFinite(cellNumber(cells[i]))) numbers.push(i);
        else if (_nonFinite(cells[i])) infinite.push(i);
        else texts.push(i);
      }
      const numeric = numbers.length + infinite.length >= texts.length;
      return [
        ...(numeric && numbers.length > 0
          ? _cellLines(table, name, texts, (c) => {
            const why = notNumberReason(c);
            return `${JSON.stringify(c)} is not a number in a numeric column${
              why === null ? "" : ` (${why})`
            }`;
          }, "cells that are not numbers")
          : []),
        ..._cellLines(
          table,
          name,
          infinite,
          (c) => `${JSON.stringify(c)} is not finite`,
          "cells that are not finite",
        ),
        ..._cellLines(
          table,
          name,
          empty,
          () => "empty cell (missing: the row is dropped when the model uses the column)",
          "empty cells",
        ),
        ..._cellLines(
          table,
          name,
          na,
          (c) =>
            `${
              JSON.stringify(c)
            } marks a missing value (the row is dropped when the model uses the column)`,
          "missing values",
        ),
      ];
    };
    if (keep.length === 0) {
      problems.push(`column ${JSON.stringify(name)} has no value: every cell is missing`);
      info.kind = "bad";
      return info;
    }
    // The column alone as a formula term, read by the formula path itself.
    const response = name === "\u00b7y" ? "\u00b7z" : "\u00b7y";
    const sub: ColumnTable = {
      names: [response, name],
      columns: [keep.map(() => "0"), keep.map((i) => cells[i])],
      numRows: keep.length,
      lines: table.lines === undefined ? undefined : Int32Array.from(keep, (i) => table.lines![i]),
    };
    if (name.includes("`")) {
      problems.push(...cellProblems());
      return info;
    }
    try {
      const d = buildDesign(sub, `\`${response}\` ~ 0 + \`${name}\``);
      const levels = d.levels[name];
      if (levels !== undefined) {
        info.kind = "text";
        info.numLevels = levels.length;
        info.levels = levels.slice(0, 20);
      }
    } catch (e) {
      info.kind = "bad";
      problems.push((e as Error).message);
    }
    problems.push(...cellProblems());
    return info;
  });
  return { numRows: table.numRows, delimiter, columns, problems, badRows: badRows.length };
}

/**
 * Each response cell outside the support of the flags' family (a count
 * below 0 or not whole for poisson and negative-binomial, above its trials
 * for binomial, not 0 or 1 for logistic), at most {@link MAX_CELLS_LISTED}
 * then how many more; a text response for a family that needs numbers, or
 * with other than two levels for logistic, in one line.
 *
 * @param table The loaded table.
 * @param flags The CLI's flags (`formula`, `family`, `trials`).
 * @returns The problems (none when the response is in the support or unknown).
 */
export function supportProblems(table: ColumnTable, flags: Record<string, unknown>): string[] {
  let response: string;
  try {
    response = parseFormula(String(flags.formula ?? "")).response;
  } catch {
    return [];
  }
  const j = table.names.indexOf(response);
  if (j < 0) return [];
  const family = String(flags.family ?? "");
  const cells = table.columns[j];
  const keep: number[] = [];
  for (let i = 0; i < cells.length; i++) if (!isMissing(cells[i])) keep.push(i);
  const numbers = keep.filter((i) => Number.isFinite(cellNumber(cells[i])));
  const name = JSON.stringify(response);
  if (numbers.length < keep.length - numbers.length) {
    // A text response.
    const levels = new Set(keep.map((i) => cells[i]));
    if (family === "logistic") {
      return levels.size === 2 ? [] : [
        `the response ${name} has ${levels.size} levels (${
          [...levels].slice(0, 5).map((l) => JSON.stringify(l)).join(", ")
        }${levels.size > 5 ? ", …" : ""}); family logistic needs two (a yes/no response)`,
      ];
    }
    return [`the response ${name} is text; family ${family} needs numbers`];
  }
  const trialsAt = typeof flags.trials === "string" ? table.names.indexOf(flags.trials) : -1;
  const rule: [(y: number, i: number) => boolean, string] | null = family === "logistic"
    ? [(y) => y === 0 || y === 1, "a yes/no response: 0 or 1"]
    : family === "poisson" || family === "negative-binomial"
    ? [(y) => y >= 0 && Number.isInteger(y), "counts: 0, 1, 2, …"]
    : family === "binomial"
    ? [
      (y, i) =>
        y >= 0 && Number.isInteger(y) &&
        (trialsAt < 0 || !(y > cellNumber(table.columns[trialsAt][i]))),
      trialsAt < 0
        ? "successes: 0, 1, 2, …"
        : `successes: 0 to the trials in ${JSON.stringify(table.names[trialsAt])}`,
    ]
    : null;
  if (rule === null) return [];
  const outside = numbers.filter((i) => !rule[0](cellNumber(cells[i]), i));
  return _cellLines(
    table,
    response,
    outside,
    (c) => `${c.trim()} is outside the support of family ${family} (${rule[1]})`,
    `cells outside the support of family ${family}`,
  );
}

/** The columns a run's flags read: the formula's, the offset and the trials. */
export function usedColumns(flags: Record<string, unknown>): string[] {
  const f = parseFormula(String(flags.formula ?? ""));
  const out = new Set<string>([f.response, ...f.terms.flat()]);
  for (const k of ["offset", "trials"]) {
    if (typeof flags[k] === "string" && flags[k] !== "") out.add(flags[k] as string);
  }
  return [...out];
}

/** The table without the rows that miss a cell in one of `names`. */
export function dropMissing(
  table: ColumnTable,
  names: readonly string[],
): { table: ColumnTable; dropped: number } {
  const idx = names.map((n) => table.names.indexOf(n)).filter((j) => j >= 0);
  const keep: number[] = [];
  for (let i = 0; i < table.numRows; i++) {
    if (!idx.some((j) => isMissing(table.columns[j][i]))) keep.push(i);
  }
  if (keep.length === table.numRows) return { table, dropped: 0 };
  return {
    table: {
      names: table.names,
      columns: table.columns.map((c) => keep.map((i) => c[i])),
      numRows: keep.length,
      lines: table.lines === undefined ? undefined : Int32Array.from(keep, (i) => table.lines![i]),
    },
    dropped: table.numRows - keep.length,
  };
}

/** A model built from a table and the CLI's flags. */
export interface TableModel extends ModelFromDesign {
  /** Rows dropped for a missing cell. */
  dropped: number;
  /** Rows used. */
  numRows: number;
  /** The design's warnings (constant or collinear columns, …). */
  warnings: readonly string[];
}

/**
 * Build the model of a run over a loaded table: drop the rows with missing
 * cells (or refuse them, as the CLI does), build the design as `sample
 * --formula` does, and the model and prior from the same flags.
 *
 * @param arena The arena.
 * @param table The loaded table.
 * @param flags CLI flag values (`formula`, `family`, `sigma`, `nu`, `offset`, `trials`,
 *   `success`, `prior`, `prior-intercept`, `prior-aux`, `standardize`).
 * @param options `missing`: "drop" (default) the rows with a missing cell in
 *   a column the model uses, or "refuse" them.
 * @returns The model and what to tell the user.
 * @throws {RangeError} With "refuse", naming each used column with missing
 *   cells, how many and the first one's line.
 */
export async function modelFromTable(
  arena: Arena,
  table: ColumnTable,
  flags: Record<string, unknown>,
  options: { missing?: "drop" | "refuse" } = {},
): Promise<TableModel> {
  const choice = familyFromFlags(flags);
  if (options.missing === "refuse") {
    const found: string[] = [];
    for (const name of usedColumns(flags)) {
      const j = table.names.indexOf(name);
      if (j < 0) continue;
      const at: number[] = [];
      table.columns[j].forEach((c, i) => {
        if (isMissing(c)) at.push(i);
      });
      if (at.length > 0) {
        found.push(
          `column ${JSON.stringify(name)} has ${at.length} missing cell${
            at.length > 1 ? "s" : ""
          } (the first at ${_where(table, at[0])})`,
        );
      }
    }
    if (found.length > 0) {
      throw new RangeError(
        `${found.join("; ")}: Missing cells is set to refuse them; ` +
          `choose "drop the rows" to run without those rows`,
      );
    }
  }
  const { table: kept, dropped } = dropMissing(table, usedColumns(flags));
  if (kept.numRows === 0) {
    throw new RangeError("every row misses a cell in a column the model uses; no row is left");
  }
  const d = buildDesign(kept, String(flags.formula), {
    family: choice.family,
    standardize: Boolean(flags.standardize),
    offset: choice.offset,
    trials: choice.trials,
    success: choice.success,
  });
  const data = glmDataFromArrays(arena, d.x, d.y, {
    numCols: d.numCols,
    storage: "f64",
    columnNames: d.columnNames,
  });
  const { x: _x, y: _y, numRows: _n, numCols: _p, ...design } = d;
  const fd: FormulaData = { ...data, warnings: d.warnings, design };
  const built = await modelFromFormulaData(fd, flags);
  return { ...built, dropped, numRows: d.numRows, warnings: d.warnings };
}
