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
 *                      ──► buildDesign ──► modelFromFormulaData (cli/model_options.ts)
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
import { cellNumber, detectDelimiter } from "../data/csv_checks.ts";
import { parquetColumnTable } from "../data/parquet.ts";
import { compressors as parquetDecompressors } from "npm:hyparquet-compressors@1.1.2";
import {
  familyFromFlags,
  type ModelFromDesign,
  modelFromFormulaData,
} from "../cli/model_options.ts";

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
  /** Every problem found: each bad row, then each bad column (its first bad cell). */
  problems: string[];
  /** Rows left out because of their number of fields (a run refuses the file while there are any). */
  badRows: number;
}

/**
 * Read a CSV file's text, keeping every well-formed row and listing each
 * bad one.
 *
 * @param text The file's text.
 * @returns The table and the rows it left out.
 * @throws {RangeError} When there is no table at all (empty file, bad header, no delimiter).
 */
export function readCsvTable(text: string): { table: ColumnTable; badRows: string[] } {
  const badRows: string[] = [];
  const table = parseColumnTable(text, { badRows });
  return { table, badRows };
}

/**
 * Read a Parquet file's bytes as a table of text cells (nulls as empty cells).
 *
 * @param bytes The file.
 * @returns The table.
 */
export async function readParquetTable(bytes: Uint8Array): Promise<ColumnTable> {
  return await parquetColumnTable(bytes, { compressors: parquetDecompressors, nulls: "empty" });
}

/** The delimiter the CLI would detect in a CSV file's text. */
export function csvDelimiter(text: string): string | null {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const [l1, l2] = text.split(/\r\n|\n|\r/, 2);
  const found = detectDelimiter(l1 ?? "", l2);
  return typeof found === "string" ? found : null;
}

/**
 * Check every column of a table as the formula path would read it (numbers
 * only, or text only with at least two levels and not an identifier),
 * listing one problem per bad column after the rows left out.
 *
 * @param table The table.
 * @param badRows Rows left out when it was read.
 * @param delimiter The delimiter (null for Parquet).
 * @returns Columns, problems and counts.
 */
export function checkTable(
  table: ColumnTable,
  badRows: readonly string[],
  delimiter: string | null,
): TableCheck {
  const problems = [...badRows];
  const columns: ColumnInfo[] = table.names.map((name, j) => {
    const cells = table.columns[j];
    const keep: number[] = [];
    for (let i = 0; i < cells.length; i++) if (!isMissing(cells[i])) keep.push(i);
    const info: ColumnInfo = {
      name,
      kind: "numeric",
      missing: cells.length - keep.length,
      levels: [],
      numLevels: 0,
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
    if (name.includes("`")) return info;
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
      problems.push((e as Error).message + _otherBadCells(cells, keep, table.lines));
    }
    return info;
  });
  return { numRows: table.numRows, delimiter, columns, problems, badRows: badRows.length };
}

/**
 * The formula path names a column's first bad cell; this adds how many of
 * its cells are of the minority kind (numbers among text, or text among
 * numbers) and where the first five are, when there are more than one.
 */
function _otherBadCells(
  cells: readonly string[],
  keep: readonly number[],
  lines: Int32Array | undefined,
): string {
  const numbers: number[] = [], texts: number[] = [];
  for (const i of keep) (Number.isFinite(cellNumber(cells[i])) ? numbers : texts).push(i);
  if (numbers.length === 0 || texts.length === 0) return "";
  const odd = texts.length <= numbers.length ? texts : numbers;
  if (odd.length < 2) return "";
  const where = (i: number) => lines === undefined ? `data row ${i + 1}` : `line ${lines[i]}`;
  return `; in all ${odd.length} ${
    odd === texts ? "cells that are not plain numbers" : "numbers"
  } ` +
    `among ${keep.length - odd.length} ${odd === texts ? "numbers" : "text cells"}: ${
      odd.slice(0, 5).map((i) => `${JSON.stringify(cells[i])} (${where(i)})`).join(", ")
    }${odd.length > 5 ? ", …" : ""}`;
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
 * cells, build the design as `sample --formula` does, and the model and
 * prior from the same flags.
 *
 * @param arena The arena.
 * @param table The loaded table.
 * @param flags CLI flag values (`formula`, `family`, `sigma`, `nu`, `offset`, `trials`,
 *   `success`, `prior`, `prior-intercept`, `prior-aux`, `standardize`).
 * @returns The model and what to tell the user.
 */
export async function modelFromTable(
  arena: Arena,
  table: ColumnTable,
  flags: Record<string, unknown>,
): Promise<TableModel> {
  const choice = familyFromFlags(flags);
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
