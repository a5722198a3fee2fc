/**
 * Parquet files → GLM data, row group by row group; and GLM rows → Parquet.
 *
 * ```
 *  file ──footer──► metadata (schema, row groups)
 *       ──row group g (only the selected columns' byte ranges)──► hyparquet
 *            decode: one typed array per column (column-major)
 *                 │ validate, transpose
 *                 ▼
 *            chunk {numRows, x (row-major, intercept first), y, aux?}
 *                 ├──► loadParquet: copied into the arena (X and y sized once
 *                 │    from the footer's row count)
 *                 └──► parquetRowChunks: handed to the caller (convert, row store,
 *                      full-data passes)
 * ```
 *
 * The file is read through a file-backed buffer that fetches byte ranges on
 * demand, so memory holds the footer and one row group at a time, never the
 * whole file. Bytes already in memory (a `Uint8Array`, e.g. a browser
 * upload) are read the same way.
 *
 * **Library choice: hyparquet (read) and hyparquet-writer (write)**, pure
 * JavaScript with no native code, so they run in Deno, in browsers and from
 * the URL import. Measured on a 10⁶ × 30 file of random numbers on the
 * 2-core development machine (bench/parquet_bench.ts repeats it at 2·10⁵
 * rows): hyparquet decodes DOUBLE columns in 0.4–0.55 s (5–7·10⁷ cells/s)
 * and FLOAT columns in 0.08–0.16 s; hyparquet-writer writes them in 1.05 s
 * and 0.85 s. parquet-wasm 0.8.0 (Rust compiled to wasm) took 2.4 s and
 * 0.44 s just to decode the same files into Arrow IPC bytes (still to be
 * decoded into JS arrays by another library) and 1.8–3.0 s to write them.
 * DuckDB reads Parquet faster still but is a native addon (`--allow-ffi`),
 * kept out of this module.
 *
 * **Columns.** Flat columns of physical type DOUBLE, FLOAT, INT32, INT64 or
 * BOOLEAN (false/true read as 0/1) load; nested, text and binary columns are
 * refused by name (text columns can still be categorical terms of a formula,
 * see {@link loadParquetWithFormula}). A null cell is a missing value and is
 * refused, naming the row.
 *
 * **Checks** are those of CSV loading (data/csv.ts, data/csv_checks.ts):
 * NaN, ±Infinity and |x| > 10¹⁰⁰ are refused, the response must lie in the
 * family's domain, and the same warnings are raised (constant response,
 * extreme or constant columns, fewer rows than columns). Errors name the
 * file, the column and the 1-based data row. A file that is not Parquet, or
 * is truncated or corrupt, gives an Error naming the file.
 *
 * @module
 */
import {
  type AsyncBuffer,
  type Compressors,
  type FileMetaData,
  parquetMetadataAsync,
  parquetRead,
  parquetSchema,
} from "npm:hyparquet@1.31.5";
import { ByteWriter, ParquetWriter } from "npm:hyparquet-writer@0.17.0";
import type { Arena } from "../core/arena.ts";
import { CSV_INTERCEPT_NAME, type CsvOptions } from "./csv.ts";
import {
  checkCsvFile,
  checkCsvOptions,
  ColumnStats,
  csvDataWarnings,
  EXTREME_ABS,
  F32_MAX,
  F32_MIN_NORMAL,
  f32Problem,
  safeColumnNames,
} from "./csv_checks.ts";
import { type GlmData, glmDataFromArrays, type Storage } from "./dataset.ts";
import { buildDesign, type ColumnTable, type DesignOptions, type FormulaData } from "./design.ts";
import type { Formula } from "./formula.ts";

/**
 * Decompressors by codec name (`ZSTD`, `GZIP`, `BROTLI`, `LZ4`, …), each
 * `(input, outputLength) => output`. Uncompressed and snappy pages need none;
 * `npm:hyparquet-compressors@1.1.2`'s `compressors` covers the rest (the CLI
 * passes it; the library leaves it out so the browser bundle stays small).
 */
export type ParquetDecompressors = Compressors;

/** A Parquet file: a path (or file URL), or its bytes already in memory. */
export type ParquetSource = string | URL | Uint8Array;

/**
 * Options of {@link loadParquet}, {@link openParquetRows} and
 * {@link parquetRowChunks}: which column is the response, which are the
 * covariates, the intercept and the family — as for CSV files.
 */
export interface ParquetOptions {
  /** The response column: a column name, or a 0-based column index. */
  response: string | number;
  /** The GLM family, which fixes the response's domain. */
  family: CsvOptions["family"];
  /** Prepend a column of ones named "(Intercept)" (default true). */
  intercept?: boolean;
  /** Covariate columns, in order. Default: every column but the response (and `aux`). */
  columns?: readonly string[];
  /** Storage of X: "f64" (default) or "f32" (rounded). */
  storage?: Storage;
  /** A column read into each chunk's `aux` (an offset or a trial count), not into X. */
  aux?: string;
  /** Decompressors for codecs other than snappy (see {@link ParquetDecompressors}). */
  compressors?: ParquetDecompressors;
}

/**
 * One block of rows: row-major X (intercept first if requested), y and the
 * optional `aux` column. The same shape as the row store's `RowChunk`.
 */
export interface ParquetRowChunk {
  /** Number of rows in the block. */
  numRows: number;
  /** Row-major numRows × numCols. */
  x: Float64Array | Float32Array;
  /** numRows responses. */
  y: Float64Array;
  /** numRows values of the `aux` column, when one was named. */
  aux?: Float64Array;
}

/** An opened Parquet file, iterable as one {@link ParquetRowChunk} per row group. */
export interface ParquetRows extends AsyncIterable<ParquetRowChunk> {
  /** Number of data rows (from the footer). */
  readonly numRows: number;
  /** Number of columns of X (intercept included). */
  readonly numCols: number;
  /** Names of the columns of X. */
  readonly columnNames: readonly string[];
  /** Name of the response column. */
  readonly responseName: string;
  /** Name of the `aux` column, if any. */
  readonly auxName?: string;
  /** Storage of X in the chunks. */
  readonly storage: Storage;
  /** Rows per row group, in file order. */
  readonly rowGroupRows: readonly number[];
  /**
   * The load's warnings (csv.ts's rules), complete once every chunk has been
   * read; empty before.
   */
  readonly warnings: readonly string[];
  /** Releases the file (iteration to the end, or a `break`, also does). */
  close(): void;
}

/** Physical types that load as numbers. */
const _NUMERIC = new Set(["DOUBLE", "FLOAT", "INT32", "INT64", "BOOLEAN"]);

interface _Opened {
  file: AsyncBuffer;
  metadata: FileMetaData;
  where: string;
  close(): void;
  /** Top-level column names and their physical types ("" for groups). */
  names: string[];
  types: string[];
}

/** Opens a source and reads its footer; errors name the file. */
async function _open(source: ParquetSource): Promise<_Opened> {
  let file: AsyncBuffer, close = () => {}, where: string;
  if (source instanceof Uint8Array) {
    where = "Parquet bytes: ";
    const bytes = source;
    file = {
      byteLength: bytes.byteLength,
      slice: (start, end) =>
        bytes.buffer.slice(
          bytes.byteOffset + start,
          bytes.byteOffset + (end ?? bytes.byteLength),
        ) as ArrayBuffer,
    };
  } else if (typeof source === "string" || source instanceof URL) {
    where = `${source instanceof URL ? source.href : source}: `;
    try {
      await checkCsvFile(source, where);
    } catch (e) {
      if (e instanceof TypeError) {
        throw new TypeError(
          `${where}is a directory, not a Parquet file; give the path of the file`,
        );
      }
      throw e;
    }
    const opened = await _fileBuffer(source, where);
    file = opened.buffer;
    close = opened.close;
  } else {
    throw new TypeError(
      `source must be a path, a file URL or a Uint8Array of Parquet bytes, got ${typeof source}`,
    );
  }
  let metadata: FileMetaData;
  try {
    if (file.byteLength === 0) throw new Error("the file is empty");
    metadata = await parquetMetadataAsync(file);
  } catch (e) {
    close();
    throw _corrupt(where, e);
  }
  const names: string[] = [], types: string[] = [];
  try {
    for (const child of parquetSchema(metadata).children) {
      names.push(child.element.name);
      types.push(child.children.length > 0 ? "" : child.element.type ?? "");
    }
  } catch (e) {
    close();
    throw _corrupt(where, e);
  }
  return { file, metadata, where, close, names, types };
}

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
 * import { parquetColumns, writeParquet } from "./parquet.ts";
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * await writeParquet(path, [{ numRows: 1, x: new Float64Array([2]), y: new Float64Array([1]) }], {
 *   columnNames: ["a"], responseName: "y", storage: "f64",
 * });
 * assert.deepEqual((await parquetColumns(path)).map((c) => c.name).sort(), ["a", "y"]);
 * await Deno.remove(path);
 * ```
 */
export async function parquetColumns(source: ParquetSource): Promise<ParquetColumn[]> {
  const o = await _open(source);
  o.close();
  return o.names.map((name, j) => ({ name, text: o.types[j] === "BYTE_ARRAY" }));
}

/** "file: not a readable Parquet file (…)" for errors from the decoder. */
function _corrupt(where: string, e: unknown): Error {
  if (e instanceof RangeError && e.message.startsWith(where)) return e;
  if (e instanceof TypeError && e.message.startsWith(where)) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new Error(
    `${where}not a readable Parquet file: it is truncated, corrupt or not Parquet (${msg})`,
    { cause: e },
  );
}

/**
 * An AsyncBuffer over a file: each slice is one seek and read, serialised so
 * that concurrent requests do not interleave their seeks.
 */
async function _fileBuffer(
  path: string | URL,
  where: string,
): Promise<{ buffer: AsyncBuffer; close(): void }> {
  const handle = await Deno.open(path, { read: true });
  const size = (await handle.stat()).size;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  const read = async (start: number, end: number): Promise<ArrayBuffer> => {
    if (closed) throw new Error(`${where}the file was closed while it was being read`);
    const out = new Uint8Array(end - start);
    await handle.seek(start, Deno.SeekMode.Start);
    for (let off = 0; off < out.length;) {
      const got = await handle.read(out.subarray(off));
      if (got === null) {
        throw new Error(
          `${where}the file ended at byte ${start + off}, before byte ${end} that its ` +
            `footer points to (it was truncated or changed while being read)`,
        );
      }
      off += got;
    }
    return out.buffer;
  };
  return {
    buffer: {
      byteLength: size,
      slice(start: number, end?: number): Promise<ArrayBuffer> {
        const stop = Math.min(end ?? size, size);
        const p = queue.then(() => read(start, Math.max(start, stop)));
        queue = p.catch(() => {});
        return p;
      },
    },
    close() {
      if (!closed) {
        closed = true;
        handle.close();
      }
    },
  };
}

interface _Layout {
  readColumns: string[];
  xCols: string[];
  responseName: string;
  auxName?: string;
  intercept: boolean;
  columnNames: string[];
  numCols: number;
  storage: Storage;
  notes: string[];
}

function _layout(o: _Opened, options: ParquetOptions): _Layout {
  checkCsvOptions(options);
  const storage = options.storage ?? "f64";
  if (storage !== "f64" && storage !== "f32") {
    throw new TypeError(`storage must be "f64" or "f32", got ${JSON.stringify(storage)}`);
  }
  const { names, types, where } = o;
  const listed = names.map((n) => JSON.stringify(n)).join(", ");
  const find = (name: string, what: string): number => {
    const j = names.indexOf(name);
    if (j < 0) {
      throw new RangeError(
        `${where}${what} ${JSON.stringify(name)} not found; the columns are ${listed}`,
      );
    }
    return j;
  };
  let respIdx: number;
  if (typeof options.response === "number") {
    if (
      !Number.isInteger(options.response) || options.response < 0 ||
      options.response >= names.length
    ) {
      throw new RangeError(
        `${where}response index must be an integer in [0, ${
          names.length - 1
        }] (the file has ${names.length} columns), got ${options.response}`,
      );
    }
    respIdx = options.response;
  } else respIdx = find(options.response, "response column");
  const responseName = names[respIdx];
  let auxIdx = -1;
  if (options.aux !== undefined) {
    auxIdx = find(options.aux, "aux column");
    if (auxIdx === respIdx) {
      throw new RangeError(
        `${where}column ${JSON.stringify(options.aux)} is the response and cannot also be aux`,
      );
    }
  }
  let idx: number[];
  if (options.columns !== undefined) {
    idx = [];
    for (const name of options.columns) {
      const j = find(name, "column");
      if (j === respIdx || j === auxIdx) {
        throw new RangeError(
          `${where}column ${JSON.stringify(name)} is the ${
            j === respIdx ? "response" : "aux column"
          } and cannot also be a covariate`,
        );
      }
      if (idx.includes(j)) {
        throw new RangeError(`${where}column ${JSON.stringify(name)} is listed twice in columns`);
      }
      idx.push(j);
    }
  } else {
    idx = names.map((_, j) => j).filter((j) => j !== respIdx && j !== auxIdx);
  }
  for (const j of [respIdx, ...(auxIdx >= 0 ? [auxIdx] : []), ...idx]) {
    if (!_NUMERIC.has(types[j])) {
      throw new TypeError(
        `${where}column ${JSON.stringify(names[j])} is ${
          types[j] === "" ? "a nested group" : `of type ${types[j]}`
        }, not numeric (DOUBLE, FLOAT, INT32, INT64 or BOOLEAN)${
          options.columns === undefined && j !== respIdx
            ? "; choose the covariates with columns"
            : ""
        }`,
      );
    }
  }
  const intercept = options.intercept ?? true;
  const xCols = idx.map((j) => names[j]);
  // Covariates named like draws-file columns are renamed (csv.ts's rule).
  const safe = safeColumnNames(xCols, idx.map((j) => j + 1), [...names, CSV_INTERCEPT_NAME]);
  const columnNames = [...(intercept ? [CSV_INTERCEPT_NAME] : []), ...safe.names];
  if (columnNames.length === 0) {
    throw new RangeError(`${where}no covariate columns and no intercept: X would be empty`);
  }
  return {
    readColumns: [...new Set([responseName, ...(auxIdx >= 0 ? [names[auxIdx]] : []), ...xCols])],
    xCols,
    responseName,
    auxName: auxIdx >= 0 ? names[auxIdx] : undefined,
    intercept,
    columnNames,
    numCols: columnNames.length,
    storage,
    notes: safe.notes.map((n) => `${where}${n}`),
  };
}

type _Column = ArrayLike<unknown>;

/** Whether a finite v overflows f32 or underflows it to zero or a denormal. */
function _notF32(v: number): boolean {
  return v > F32_MAX || v < -F32_MAX || (v !== 0 && v < F32_MIN_NORMAL && v > -F32_MIN_NORMAL);
}

/** Reads the named columns of row group g, each as one array of the group's length. */
async function _readGroup(
  o: _Opened,
  g: number,
  rowStart: number,
  columns: string[],
  compressors: ParquetDecompressors | undefined,
): Promise<Map<string, _Column>> {
  const numRows = Number(o.metadata.row_groups[g].num_rows);
  const parts = new Map<string, { rowStart: number; data: _Column }[]>();
  try {
    await parquetRead({
      file: o.file,
      metadata: o.metadata,
      rowStart,
      rowEnd: rowStart + numRows,
      columns,
      compressors,
      onChunk: (c) => {
        let list = parts.get(c.columnName);
        if (list === undefined) parts.set(c.columnName, list = []);
        list.push({ rowStart: c.rowStart, data: c.columnData as _Column });
      },
    });
  } catch (e) {
    const codec = /unsupported compression codec: (\w+)/.exec(String((e as Error)?.message));
    if (codec) {
      throw new TypeError(
        `${o.where}row group ${g + 1} is compressed with ${codec[1]}, which needs a ` +
          `decompressor: pass compressors (e.g. from npm:hyparquet-compressors@1.1.2, as the ` +
          `tallmc command line does), or rewrite the file with snappy or no compression`,
        { cause: e },
      );
    }
    throw _corrupt(o.where, e);
  }
  const out = new Map<string, _Column>();
  for (const name of columns) {
    const list = (parts.get(name) ?? []).sort((a, b) => a.rowStart - b.rowStart);
    let got = 0;
    for (const p of list) got += p.data.length;
    if (got !== numRows || (list.length > 0 && list[0].rowStart !== rowStart)) {
      throw new Error(
        `${o.where}not a readable Parquet file: row group ${g + 1} of column ${
          JSON.stringify(name)
        } decodes to ${got} values, but the footer says ${numRows} rows (the file is corrupt)`,
      );
    }
    if (list.length === 1) out.set(name, list[0].data);
    else {
      const all: unknown[] = [];
      for (const p of list) for (let i = 0; i < p.data.length; i++) all.push(p.data[i]);
      out.set(name, all);
    }
  }
  return out;
}

/** Validates and transposes one row group into a chunk. */
class _ChunkBuilder {
  #o: _Opened;
  #l: _Layout;
  #family: CsvOptions["family"];
  colMin: Float64Array;
  colMax: Float64Array;
  yMin = Infinity;
  yMax = -Infinity;

  /** Copies and X'X, as csv.ts accumulates them. */
  stats: ColumnStats;

  constructor(o: _Opened, l: _Layout, family: CsvOptions["family"], numRows?: number) {
    this.#o = o;
    this.#l = l;
    this.#family = family;
    this.stats = new ColumnStats(l.numCols, numRows);
    this.colMin = new Float64Array(l.numCols).fill(Infinity);
    this.colMax = new Float64Array(l.numCols).fill(-Infinity);
  }

  build(cols: Map<string, _Column>, numRows: number, firstRow: number): ParquetRowChunk {
    const l = this.#l, d = l.numCols;
    // X is built in f64 (the checks see the values read), then rounded for f32.
    const x = new Float64Array(numRows * d);
    const y = new Float64Array(numRows);
    this.#numbers(cols.get(l.responseName)!, l.responseName, firstRow, y, 0, 1);
    const fam = this.#family;
    for (let i = 0; i < numRows; i++) {
      const v = y[i];
      if (fam === "logistic" ? v !== 0 && v !== 1 : fam === "poisson" && (v < 0 || v % 1 !== 0)) {
        throw new RangeError(
          `${this.#at(l.responseName, firstRow + i)}: ${
            fam === "logistic"
              ? "a logistic response must be 0 or 1"
              : "a Poisson response must be a non-negative integer"
          }, got ${v}`,
        );
      }
      if (v < this.yMin) this.yMin = v;
      if (v > this.yMax) this.yMax = v;
    }
    let aux: Float64Array | undefined;
    if (l.auxName !== undefined) {
      aux = new Float64Array(numRows);
      this.#numbers(cols.get(l.auxName)!, l.auxName, firstRow, aux, 0, 1);
    }
    let k = 0;
    if (l.intercept) {
      for (let i = 0; i < numRows; i++) x[i * d] = 1;
      this.colMin[0] = Math.min(this.colMin[0], 1);
      this.colMax[0] = Math.max(this.colMax[0], 1);
      k = 1;
    }
    for (const name of l.xCols) {
      const [lo, hi] = this.#numbers(cols.get(name)!, name, firstRow, x, k, d, l.storage === "f32");
      if (lo < this.colMin[k]) this.colMin[k] = lo;
      if (hi > this.colMax[k]) this.colMax[k] = hi;
      k++;
    }
    this.stats.add(x, numRows);
    const xs = l.storage === "f64" ? x : Float32Array.from(x);
    return aux === undefined ? { numRows, x: xs, y } : { numRows, x: xs, y, aux };
  }

  /**
   * Copies column values to out[offset + i·stride], checking each, and
   * returns their (unrounded) range.
   */
  #numbers(
    col: _Column,
    name: string,
    firstRow: number,
    out: Float64Array | Float32Array,
    offset: number,
    stride: number,
    f32 = false,
  ): [number, number] {
    let lo = Infinity, hi = -Infinity;
    const n = col.length;
    if (col instanceof Float64Array || col instanceof Float32Array || col instanceof Int32Array) {
      for (let i = 0, o = offset; i < n; i++, o += stride) {
        const v = col[i];
        if (!(v >= -EXTREME_ABS && v <= EXTREME_ABS)) this.#bad(v, name, firstRow + i);
        if (f32 && _notF32(v)) this.#badF32(v, name, firstRow + i);
        if (v < lo) lo = v;
        if (v > hi) hi = v;
        out[o] = v;
      }
      return [lo, hi];
    }
    for (let i = 0, o = offset; i < n; i++, o += stride) {
      const raw = col[i];
      let v: number;
      if (typeof raw === "number") v = raw;
      else if (typeof raw === "bigint") v = Number(raw);
      else if (typeof raw === "boolean") v = raw ? 1 : 0;
      else if (raw === null || raw === undefined) {
        throw new RangeError(
          `${this.#at(name, firstRow + i)}: the cell is null (missing values are not allowed)`,
        );
      } else {
        throw new TypeError(
          `${this.#at(name, firstRow + i)}: expected a number, got ${
            raw instanceof Date ? `the date ${raw.toISOString()}` : JSON.stringify(String(raw))
          }`,
        );
      }
      if (!(v >= -EXTREME_ABS && v <= EXTREME_ABS)) this.#bad(v, name, firstRow + i);
      if (f32 && _notF32(v)) this.#badF32(v, name, firstRow + i);
      if (v < lo) lo = v;
      if (v > hi) hi = v;
      out[o] = v;
    }
    return [lo, hi];
  }

  #at(name: string, row: number): string {
    return `${this.#o.where}row ${row}, column ${JSON.stringify(name)}`;
  }

  #badF32(v: number, name: string, row: number): never {
    throw new RangeError(`${this.#at(name, row)}: ${v} ${f32Problem(v)}`);
  }

  #bad(v: number, name: string, row: number): never {
    const where = this.#at(name, row);
    if (Number.isNaN(v) || v === Infinity || v === -Infinity) {
      throw new RangeError(`${where}: NaN and ±Infinity are not allowed, got ${v}`);
    }
    throw new RangeError(
      `${where}: ${v} is beyond ±${EXTREME_ABS.toExponential()}, which overflows the log ` +
        `density; rescale or standardise the column`,
    );
  }
}

/**
 * Open a Parquet file for streaming: reads the footer, resolves the columns
 * and returns an object that iterates one {@link ParquetRowChunk} per row
 * group, reading only that row group's selected columns from the file.
 *
 * Needs read permission for a path.
 *
 * @param source A path, a file URL, or the file's bytes.
 * @param options `response`, `family`, `intercept` (true), `columns`,
 *   `storage` ("f64"), `aux`, `compressors`.
 * @returns The opened file: sizes, names, and the chunks (iterate once).
 * @throws {RangeError} For a missing file or column, or bad values (naming
 *   file, column and row, when the chunk holding them is read).
 * @throws {TypeError} For a non-numeric column or bad options.
 * @throws {Error} For a file that is not Parquet, or is truncated or corrupt.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openParquetRows, writeParquet } from "./parquet.ts";
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * const chunk = { numRows: 3, x: new Float64Array([0.5, -1, 2]), y: new Float64Array([1, 0, 1]) };
 * await writeParquet(path, [chunk], { columnNames: ["a"], responseName: "y", storage: "f64" });
 * const rows = await openParquetRows(path, { response: "y", family: "logistic" });
 * assert.deepEqual(rows.columnNames, ["(Intercept)", "a"]);
 * for await (const c of rows) assert.deepEqual(Array.from(c.x), [1, 0.5, 1, -1, 1, 2]);
 * await Deno.remove(path);
 * ```
 */
export async function openParquetRows(
  source: ParquetSource,
  options: ParquetOptions,
): Promise<ParquetRows> {
  const o = await _open(source);
  let l: _Layout;
  try {
    l = _layout(o, options);
  } catch (e) {
    o.close();
    throw e;
  }
  const rowGroupRows = o.metadata.row_groups.map((g) => Number(g.num_rows));
  const numRows = rowGroupRows.reduce((a, b) => a + b, 0);
  const builder = new _ChunkBuilder(o, l, options.family, numRows);
  let warnings: string[] = [];
  let used = false;
  return {
    numRows,
    numCols: l.numCols,
    columnNames: l.columnNames,
    responseName: l.responseName,
    auxName: l.auxName,
    storage: l.storage,
    rowGroupRows,
    get warnings() {
      return warnings;
    },
    close: o.close,
    async *[Symbol.asyncIterator]() {
      if (used) throw new Error(`${o.where}the rows were already iterated; open the file again`);
      used = true;
      try {
        let start = 0;
        for (let g = 0; g < rowGroupRows.length; g++) {
          const n = rowGroupRows[g];
          if (n === 0) continue;
          const cols = await _readGroup(o, g, start, l.readColumns, options.compressors);
          yield builder.build(cols, n, start + 1);
          start += n;
        }
        if (numRows === 0) throw new RangeError(`${o.where}the file has no data rows`);
        warnings = [
          ...l.notes,
          ...csvDataWarnings({
            where: o.where,
            family: options.family,
            intercept: l.intercept,
            responseName: l.responseName,
            columnNames: l.columnNames,
            numRows,
            numCols: l.numCols,
            colMin: builder.colMin,
            colMax: builder.colMax,
            yMin: builder.yMin,
            yMax: builder.yMax,
            stats: builder.stats,
          }),
        ];
      } finally {
        o.close();
      }
    },
  };
}

/**
 * Stream a Parquet file as one {@link ParquetRowChunk} per row group (row-major
 * X with the intercept first, y, and `aux`), in file order, holding one row
 * group in memory at a time. {@link openParquetRows} gives the column names
 * and sizes as well.
 *
 * @param source A path, a file URL, or the file's bytes.
 * @param options `response`, `family`, `intercept` (true), `columns`,
 *   `storage` ("f64"), `aux`, `compressors`.
 * @returns The chunks.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parquetRowChunks, writeParquet } from "./parquet.ts";
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * const x = new Float64Array(10).map((_, i) => i), y = new Float64Array(10);
 * await writeParquet(path, [{ numRows: 10, x, y }], {
 *   columnNames: ["a"], responseName: "y", storage: "f64", rowGroupSize: 4,
 * });
 * const sizes = [];
 * for await (const c of parquetRowChunks(path, { response: "y", family: "gaussian" })) {
 *   sizes.push(c.numRows);
 * }
 * assert.deepEqual(sizes, [4, 4, 2]);
 * await Deno.remove(path);
 * ```
 */
export async function* parquetRowChunks(
  source: ParquetSource,
  options: ParquetOptions,
): AsyncGenerator<ParquetRowChunk, void, undefined> {
  const rows = await openParquetRows(source, options);
  try {
    yield* rows;
  } finally {
    rows.close();
  }
}

/**
 * Load a Parquet file into the arena as GLM data: the same `GlmData` as
 * `loadCsvToArena` gives for the same table (X and y allocated once from the
 * footer's row count, then filled one row group at a time).
 *
 * Needs read permission for a path.
 *
 * @param arena The arena to allocate X and y in.
 * @param source A path, a file URL, or the file's bytes.
 * @param options `response`, `family`, `intercept` (true), `columns`,
 *   `storage` ("f64"), `compressors`.
 * @returns The data set, with the load's warnings.
 * @throws {RangeError} Naming file, column and row for a bad value; or a
 *   missing file or column.
 * @throws {TypeError} For a non-numeric column or bad options.
 * @throws {Error} For a file that is not Parquet, or is truncated or corrupt.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { loadParquet, writeParquet } from "./parquet.ts";
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * const chunk = { numRows: 2, x: new Float64Array([0.5, -1]), y: new Float64Array([3, 0]) };
 * await writeParquet(path, [chunk], { columnNames: ["a"], responseName: "y", storage: "f64" });
 * const arena = loadCore({ backend: "reference" });
 * const data = await loadParquet(arena, path, { response: "y", family: "poisson" });
 * assert.equal(data.numRows, 2);
 * assert.deepEqual(Array.from(arena.readF64(data.y, 2)), [3, 0]);
 * assert.deepEqual(Array.from(arena.readF64(data.x, 4)), [1, 0.5, 1, -1]);
 * await assert.rejects(
 *   loadParquet(arena, path, { response: "y", family: "logistic" }),
 *   /row 1, column "y": a logistic response must be 0 or 1, got 3/,
 * );
 * await Deno.remove(path);
 * ```
 */
export async function loadParquet(
  arena: Arena,
  source: ParquetSource,
  options: ParquetOptions,
): Promise<GlmData> {
  if (options?.aux !== undefined) {
    throw new TypeError(
      `loadParquet takes no aux column (GlmData holds X and y), got ${JSON.stringify(options.aux)}`,
    );
  }
  const rows = await openParquetRows(source, options);
  const { numRows, numCols, storage } = rows;
  if (numRows === 0) {
    rows.close();
    throw new RangeError(
      `${
        source instanceof Uint8Array ? "Parquet bytes" : String(source)
      }: the file has no data rows`,
    );
  }
  const width = storage === "f64" ? 8 : 4;
  const xPtr = storage === "f64"
    ? arena.allocF64(numRows * numCols)
    : arena.allocF32(numRows * numCols);
  let yPtr = 0;
  try {
    yPtr = arena.allocF64(numRows);
    let start = 0;
    for await (const c of rows) {
      // Fresh views for every chunk: the memory may have grown meanwhile.
      const off = xPtr + start * numCols * width, len = c.numRows * numCols;
      if (storage === "f64") arena.f64(off, len).set(c.x);
      else arena.f32(off, len).set(c.x);
      arena.f64(yPtr + start * 8, c.numRows).set(c.y);
      start += c.numRows;
    }
  } catch (e) {
    arena.free(xPtr);
    if (yPtr !== 0) arena.free(yPtr);
    throw e;
  } finally {
    rows.close();
  }
  return {
    arena,
    x: xPtr,
    y: yPtr,
    numRows,
    numCols,
    storage,
    columnNames: rows.columnNames,
    warnings: rows.warnings,
  };
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
 * import { loadParquetWithFormula, writeParquet } from "./parquet.ts";
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
 * import { parquetColumnTable, writeParquet } from "./parquet.ts";
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
  const o = await _open(source);
  const columns: string[][] = o.names.map(() => []);
  try {
    o.types.forEach((t, j) => {
      if (t !== "" && (t === "BYTE_ARRAY" || _NUMERIC.has(t))) return;
      throw new TypeError(
        `${o.where}column ${JSON.stringify(o.names[j])} is ${
          t === "" ? "a nested group" : `of type ${t}`
        }; a formula reads numeric and text columns`,
      );
    });
    let start = 0;
    for (let g = 0; g < o.metadata.row_groups.length; g++) {
      const n = Number(o.metadata.row_groups[g].num_rows);
      const cols = await _readGroup(o, g, start, o.names, options.compressors);
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

/** Options of {@link writeParquet}: what the chunks' columns are, and the file layout. */
export interface WriteParquetOptions {
  /**
   * Names of the chunks' X columns. A leading "(Intercept)" column is not
   * written (it is a column of ones that loading adds back).
   */
  columnNames: readonly string[];
  /** Name of the response column (written first). */
  responseName: string;
  /** Name of the chunks' `aux` column, written last when given. */
  auxName?: string;
  /** X columns as DOUBLE ("f64") or FLOAT ("f32"); y and aux are always DOUBLE. */
  storage: Storage;
  /** Rows per row group (default 100 000). */
  rowGroupSize?: number;
}

/** What {@link writeParquet} wrote. */
export interface ParquetWriteResult {
  /** Rows written. */
  numRows: number;
  /** Row groups written. */
  numRowGroups: number;
  /** Size of the file in bytes. */
  numBytes: number;
}

/**
 * Write row chunks to a Parquet file, streaming: rows are gathered into one
 * row group of `rowGroupSize` rows (column-major), encoded, appended to the
 * file and dropped, so memory holds one row group whatever the file's size.
 * Columns are REQUIRED (no nulls), snappy-compressed, with min/max
 * statistics; a leading "(Intercept)" column of X is left out. If a chunk
 * is refused, the partial file is removed.
 *
 * Needs write permission for `path`.
 *
 * @param path The file to create (or overwrite).
 * @param chunks Row chunks (sync or async), all with the same number of columns.
 * @param options `columnNames`, `responseName`, `auxName`, `storage`, `rowGroupSize`.
 * @returns Rows, row groups and bytes written.
 * @throws {RangeError} For a chunk of the wrong shape, a value that is not
 *   finite (or overflows f32), or bad options.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeParquet } from "./parquet.ts";
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * const chunk = { numRows: 2, x: new Float32Array([1, 0.5, 1, -1]), y: new Float64Array([1, 0]) };
 * const r = await writeParquet(path, [chunk], {
 *   columnNames: ["(Intercept)", "a"], responseName: "y", storage: "f32",
 * });
 * assert.equal(r.numRows, 2);
 * assert.equal(new TextDecoder().decode((await Deno.readFile(path)).subarray(0, 4)), "PAR1");
 * await Deno.remove(path);
 * ```
 */
export async function writeParquet(
  path: string | URL,
  chunks: AsyncIterable<ParquetRowChunk> | Iterable<ParquetRowChunk>,
  options: WriteParquetOptions,
): Promise<ParquetWriteResult> {
  const { columnNames, responseName, auxName, storage } = options;
  const rowGroupSize = options.rowGroupSize ?? 100_000;
  if (!Number.isInteger(rowGroupSize) || rowGroupSize < 1) {
    throw new RangeError(`rowGroupSize must be a positive integer, got ${rowGroupSize}`);
  }
  if (storage !== "f64" && storage !== "f32") {
    throw new TypeError(`storage must be "f64" or "f32", got ${JSON.stringify(storage)}`);
  }
  const numCols = columnNames.length;
  if (numCols === 0) throw new RangeError("columnNames must name at least one column");
  const skip = columnNames[0] === CSV_INTERCEPT_NAME ? 1 : 0;
  const xNames = columnNames.slice(skip);
  const names = [responseName, ...xNames, ...(auxName !== undefined ? [auxName] : [])];
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) {
      throw new RangeError(`column ${JSON.stringify(n)} appears twice (names must differ)`);
    }
    seen.add(n);
  }
  const where = `${path instanceof URL ? path.href : path}: `;
  const schema = [
    { name: "root", num_children: names.length },
    ...names.map((name, j) => ({
      name,
      type: j >= 1 && j <= xNames.length && storage === "f32" ? "FLOAT" : "DOUBLE",
      repetition_type: "REQUIRED",
    })),
  ];
  // Column-major buffers for one row group.
  const xCols = xNames.map(() =>
    storage === "f64" ? new Float64Array(rowGroupSize) : new Float32Array(rowGroupSize)
  );
  const yCol = new Float64Array(rowGroupSize);
  const auxCol = auxName !== undefined ? new Float64Array(rowGroupSize) : undefined;
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  try {
    const writer = new ByteWriter(1 << 20);
    // Every row group is appended to the file and the buffer emptied.
    const flush = async () => {
      let bytes = writer.getBytes();
      while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
      writer.index = 0;
    };
    (writer as unknown as { flush: () => Promise<void> }).flush = flush;
    const pw = new ParquetWriter({
      writer,
      schema: schema as ConstructorParameters<typeof ParquetWriter>[0]["schema"],
    });
    let inGroup = 0, numRows = 0, numRowGroups = 0;
    const emit = async () => {
      if (inGroup === 0) return;
      const columnData = [
        { name: responseName, data: yCol.subarray(0, inGroup) },
        ...xNames.map((name, j) => ({ name, data: xCols[j].subarray(0, inGroup) })),
        ...(auxCol !== undefined ? [{ name: auxName!, data: auxCol.subarray(0, inGroup) }] : []),
      ];
      await pw.write({ columnData, rowGroupSize: inGroup });
      numRowGroups++;
      inGroup = 0;
    };
    for await (const c of chunks) {
      const m = c.numRows;
      if (!Number.isInteger(m) || m < 0 || c.x.length !== m * numCols || c.y.length !== m) {
        throw new RangeError(
          `${where}a chunk of ${m} rows must have x of ${m} × ${numCols} values and y of ${m}; got ${c.x.length} and ${c.y.length}`,
        );
      }
      if (auxCol !== undefined && (c.aux === undefined || c.aux.length !== m)) {
        throw new RangeError(
          `${where}aux column ${JSON.stringify(auxName)}: a chunk of ${m} rows has ${
            c.aux?.length ?? "no"
          } aux values`,
        );
      }
      for (let i = 0; i < m;) {
        const take = Math.min(m - i, rowGroupSize - inGroup);
        for (let r = 0; r < take; r++) {
          const row = i + r, dst = inGroup + r, o = row * numCols + skip;
          const v = c.y[row];
          if (!Number.isFinite(v)) _badWrite(where, responseName, numRows + row + 1, v);
          yCol[dst] = v;
          for (let j = 0; j < xNames.length; j++) {
            const xv = c.x[o + j];
            xCols[j][dst] = xv;
            if (!Number.isFinite(xCols[j][dst])) {
              _badWrite(where, xNames[j], numRows + row + 1, xv, storage);
            }
          }
          if (auxCol !== undefined) {
            const av = c.aux![row];
            if (!Number.isFinite(av)) _badWrite(where, auxName!, numRows + row + 1, av);
            auxCol[dst] = av;
          }
        }
        i += take;
        inGroup += take;
        if (inGroup === rowGroupSize) await emit();
      }
      numRows += m;
    }
    await emit();
    await pw.finish();
    await flush();
    return { numRows, numRowGroups, numBytes: (await file.stat()).size };
  } catch (e) {
    // No half-written file is left to be mistaken for data.
    await Deno.remove(path).catch(() => {});
    throw e;
  } finally {
    file.close();
  }
}

function _badWrite(where: string, name: string, row: number, v: number, storage?: Storage): never {
  throw new RangeError(
    Number.isFinite(v)
      ? `${where}row ${row}, column ${JSON.stringify(name)}: ${v} overflows ${storage} storage`
      : `${where}row ${row}, column ${JSON.stringify(name)}: values must be finite, got ${v}`,
  );
}
