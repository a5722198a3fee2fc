/**
 * An opened Parquet source: the file (or bytes) behind a byte-range buffer,
 * its footer and top-level schema, and the decoding of one row group's
 * columns. The readers (data/parquet.ts, data/parquet_formula.ts) build on
 * it; errors name the file.
 *
 * @module
 */
import {
  type AsyncBuffer,
  type FileMetaData,
  parquetMetadataAsync,
  parquetRead,
  parquetSchema,
} from "npm:hyparquet@1.31.5";
import { checkCsvFile } from "./csv_checks.ts";
import { parquetFileReader } from "./parquet_file.ts";

/**
 * Decompressors by codec name (`ZSTD`, `GZIP`, `BROTLI`, `LZ4`, …), each
 * `(input, outputLength) => output`. Uncompressed and snappy pages need none;
 * `npm:hyparquet-compressors@1.1.2`'s `compressors` covers the rest (the CLI
 * passes it; the library leaves it out so the browser bundle stays small).
 *
 * Or a function that loads them, called before each row group hyparquet
 * decodes (not before one the core's page decoder reads: a snappy file the
 * core reads whole never loads them): it should return the same promise
 * every time.
 */
export type ParquetDecompressors =
  | { [codec: string]: ((input: Uint8Array, outputLength: number) => Uint8Array) | undefined }
  | (() => Promise<
    { [codec: string]: ((input: Uint8Array, outputLength: number) => Uint8Array) | undefined }
  >);

/** A Parquet file: a path (or file URL), or its bytes already in memory. */
export type ParquetSource = string | URL | Uint8Array;

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

/** Physical types that load as numbers. */
export const PARQUET_NUMERIC_TYPES = new Set(["DOUBLE", "FLOAT", "INT32", "INT64", "BOOLEAN"]);

/** A Parquet source opened by {@link openParquetSource}. */
export interface OpenedParquet {
  file: AsyncBuffer;
  metadata: FileMetaData;
  where: string;
  close(): void;
  /** Top-level column names and their physical types ("" for groups). */
  names: string[];
  types: string[];
  /**
   * Copies the file's bytes [start, start + out.length) into out (a view of
   * any memory, e.g. an arena's), without an intermediate buffer when the
   * platform allows; errors name the file.
   */
  readInto(start: number, out: Uint8Array): Promise<void>;
}

/**
 * The footer kept by the last {@link openParquetSource} told to keep it,
 * for the next opening of the same file (same path, size, modification
 * time, device and inode): the command line reads a file's column names
 * and then the file, and parsing a footer of 100 row groups × 31 columns
 * costs ≈ 30–45 ms. Taken (and dropped) by that next opening.
 */
let _kept: { key: string; metadata: FileMetaData } | null = null;

/** The identity of an opened file for {@link _kept}, or null (no modification time or inode). */
function _footerKey(source: string | URL, info: Deno.FileInfo): string | null {
  if (info.mtime === null || info.ino === null) return null;
  const path = source instanceof URL ? source.href : source;
  return JSON.stringify([path, info.size, info.mtime.getTime(), info.dev, info.ino]);
}

/**
 * Opens a source and reads its footer; errors name the file.
 *
 * @param source The file or bytes.
 * @param keep Keep the footer for the next opening of the same unchanged
 *   file (see {@link _kept}).
 * @returns The opened source.
 */
export async function openParquetSource(
  source: ParquetSource,
  keep = false,
): Promise<OpenedParquet> {
  let file: AsyncBuffer, close = () => {}, where: string;
  let readInto: OpenedParquet["readInto"];
  let key: string | null = null;
  if (source instanceof Uint8Array) {
    where = "Parquet bytes: ";
    const bytes = source;
    readInto = (start, out) => {
      if (start + out.length > bytes.byteLength) {
        return Promise.reject(
          new Error(`${where}byte ${start + out.length} is past the end (${bytes.byteLength})`),
        );
      }
      out.set(bytes.subarray(start, start + out.length));
      return Promise.resolve();
    };
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
    const opened = await parquetFileReader(source, where);
    file = opened.buffer;
    close = opened.close;
    readInto = opened.readInto;
    key = _footerKey(source, opened.info);
  } else {
    throw new TypeError(
      `source must be a path, a file URL or a Uint8Array of Parquet bytes, got ${typeof source}`,
    );
  }
  let metadata: FileMetaData;
  const kept = _kept;
  _kept = null;
  if (kept !== null && key !== null && kept.key === key) metadata = kept.metadata;
  else {
    try {
      if (file.byteLength === 0) throw new Error("the file is empty");
      metadata = await parquetMetadataAsync(file);
    } catch (e) {
      close();
      throw _corrupt(where, e);
    }
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
  if (keep && key !== null) _kept = { key, metadata };
  return { file, metadata, where, close, names, types, readInto };
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

/** The decoded cells of one column of one row group. */
export type ParquetCells = ArrayLike<unknown>;

/** Reads the named columns of row group g, each as one array of the group's length. */
export async function readParquetRowGroup(
  o: OpenedParquet,
  g: number,
  rowStart: number,
  columns: string[],
  compressors: ParquetDecompressors | undefined,
): Promise<Map<string, ParquetCells>> {
  const numRows = Number(o.metadata.row_groups[g].num_rows);
  const parts = new Map<string, { rowStart: number; data: ParquetCells }[]>();
  if (typeof compressors === "function") compressors = await compressors();
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
        list.push({ rowStart: c.rowStart, data: c.columnData as ParquetCells });
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
  const out = new Map<string, ParquetCells>();
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
