/**
 * Parquet files as tables of text cells: the footer's column list, the
 * whole table read for a formula (`buildDesign`, data/design.ts), and
 * loading a Parquet file through a formula, as data/design.ts does for CSV.
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { glmDataFromArrays, type Storage } from "./dataset.ts";
import type { ColumnTable, DesignOptions, FormulaData } from "./design.ts";
import { buildDesign } from "./design_matrix.ts";
import type { Formula } from "./formula.ts";
import {
  openParquetSource,
  PARQUET_NUMERIC_TYPES,
  type ParquetDecompressors,
  type ParquetSource,
  readParquetRowGroup,
} from "./parquet_source.ts";

/** A top-level column of a Parquet file, from its footer. */
export interface ParquetColumn {
  /** The column's name. */
  name: string;
  /** Whether it holds text (a BYTE_ARRAY column): a factor, or a two-level response. */
  text: boolean;
}

/**
 * The top-level columns of a Parquet file, read from its footer only.
 *
 * @param source A path, a file URL or the file's bytes.
 * @returns Name and kind of each column, in file order.
 * @throws {Error} Naming the file when it is not a readable Parquet file.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parquetColumns } from "./parquet_formula.ts";
 * import { writeParquet } from "./parquet_write.ts";
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * await writeParquet(path, [{ numRows: 1, x: new Float64Array([2]), y: new Float64Array([1]) }], {
 *   columnNames: ["a"], responseName: "y", storage: "f64",
 * });
 * assert.deepEqual((await parquetColumns(path)).map((c) => c.name).sort(), ["a", "y"]);
 * await Deno.remove(path);
 * ```
 */
export async function parquetColumns(source: ParquetSource): Promise<ParquetColumn[]> {
  // The footer is kept for the read that usually follows (the command line's).
  const o = await openParquetSource(source, true);
  o.close();
  return o.names.map((name, j) => ({ name, text: o.types[j] === "BYTE_ARRAY" }));
}

/** Options of {@link loadParquetWithFormula}. */
export interface FormulaParquetOptions extends DesignOptions {
  /** The formula, e.g. `"y ~ x1 + x2 + x1:x2 + region"` (text columns are categorical). */
  formula: string | Formula;
  /** Storage of X in the arena (default "f64"). */
  storage?: Storage;
  /** Decompressors for codecs other than snappy (see {@link ParquetDecompressors}). */
  compressors?: ParquetDecompressors;
}

/**
 * Load a Parquet file through a formula, as `loadCsvWithFormula` does for
 * CSV: numeric columns are covariates, text (UTF-8) columns categorical.
 * The whole table is read into memory (as the CSV path does), so this suits
 * files that fit in memory several times over.
 *
 * @param arena The arena to allocate X and y in.
 * @param source A path, a file URL, or the file's bytes.
 * @param options `formula`, `family`, `standardize`, `storage`, `compressors`.
 * @returns The data set and what its columns are.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { loadParquetWithFormula } from "./parquet_formula.ts";
 * import { writeParquet } from "./parquet_write.ts";
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * const chunk = { numRows: 3, x: new Float64Array([0.1, 1, 0.5, 2, 0.2, 3]), y: new Float64Array([1, 0, 1]) };
 * await writeParquet(path, [chunk], { columnNames: ["a", "b"], responseName: "y", storage: "f64" });
 * const data = await loadParquetWithFormula(loadCore(), path, { formula: "y ~ a:b", family: "logistic" });
 * assert.deepEqual(data.columnNames, ["(Intercept)", "a:b"]);
 * await Deno.remove(path);
 * ```
 */
export async function loadParquetWithFormula(
  arena: Arena,
  source: ParquetSource,
  options: FormulaParquetOptions,
): Promise<FormulaData> {
  const where = source instanceof Uint8Array
    ? "Parquet bytes: "
    : `${source instanceof URL ? source.href : source}: `;
  const table = await parquetColumnTable(source, { compressors: options.compressors });
  try {
    const d = buildDesign(table, options.formula, options);
    const data = glmDataFromArrays(arena, d.x, d.y, {
      numCols: d.numCols,
      storage: options.storage,
      columnNames: d.columnNames,
    });
    const { x: _x, y: _y, numRows: _n, numCols: _p, ...design } = d;
    return { ...data, warnings: d.warnings, design };
  } catch (e) {
    if (e instanceof RangeError && !e.message.startsWith(where)) {
      throw new RangeError(`${where}${e.message}`, { cause: e });
    }
    throw e;
  }
}

/**
 * Read a whole Parquet file as a table of text cells (numbers written as
 * JavaScript prints them, booleans as 1/0), the table the formula path
 * builds its design from (`buildDesign`, data/design.ts).
 *
 * @param source A path, a file URL or the file's bytes.
 * @param options `compressors`; `nulls`: `"error"` (default: a null cell is
 *   refused, naming its row and column) or `"empty"` (a null becomes an
 *   empty cell, for callers that drop incomplete rows).
 * @returns The table.
 * @throws {TypeError} For a nested or non-numeric, non-text column.
 * @throws {RangeError} For a null cell (`nulls: "error"`) or a file with no rows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parquetColumnTable } from "./parquet_formula.ts";
 * import { writeParquet } from "./parquet_write.ts";
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * const chunk = { numRows: 2, x: new Float64Array([0.5, 2]), y: new Float64Array([1, 0]) };
 * await writeParquet(path, [chunk], { columnNames: ["a"], responseName: "y", storage: "f64" });
 * const t = await parquetColumnTable(await Deno.readFile(path));
 * assert.deepEqual(t.names, ["y", "a"]);
 * assert.deepEqual(t.columns[1], ["0.5", "2"]);
 * await Deno.remove(path);
 * ```
 */
export async function parquetColumnTable(
  source: ParquetSource,
  options: { compressors?: ParquetDecompressors; nulls?: "error" | "empty" } = {},
): Promise<ColumnTable> {
  const o = await openParquetSource(source);
  const columns: string[][] = o.names.map(() => []);
  try {
    o.types.forEach((t, j) => {
      if (t !== "" && (t === "BYTE_ARRAY" || PARQUET_NUMERIC_TYPES.has(t))) return;
      throw new TypeError(
        `${o.where}column ${JSON.stringify(o.names[j])} is ${
          t === "" ? "a nested group" : `of type ${t}`
        }; a formula reads numeric and text columns`,
      );
    });
    let start = 0;
    for (let g = 0; g < o.metadata.row_groups.length; g++) {
      const n = Number(o.metadata.row_groups[g].num_rows);
      const cols = await readParquetRowGroup(o, g, start, o.names, options.compressors);
      o.names.forEach((name, j) => {
        const c = cols.get(name)!, out = columns[j];
        for (let i = 0; i < n; i++) {
          const v = c[i];
          if (v === null || v === undefined) {
            if (options.nulls === "empty") {
              out.push("");
              continue;
            }
            throw new RangeError(
              `${o.where}row ${start + i + 1}, column ${JSON.stringify(name)}: the cell is null ` +
                `(missing values are not allowed)`,
            );
          }
          out.push(typeof v === "boolean" ? (v ? "1" : "0") : String(v));
        }
      });
      start += n;
    }
    if (start === 0) throw new RangeError(`${o.where}the file has no data rows`);
    return { names: o.names, columns, numRows: start };
  } catch (e) {
    if (e instanceof RangeError && !e.message.startsWith(o.where)) {
      throw new RangeError(`${o.where}${e.message}`, { cause: e });
    }
    throw e;
  } finally {
    o.close();
  }
}
