/**
 * A fixed-width binary row store: GLM rows written once (from a Parquet or
 * CSV file, or from memory) and then read by index or by range without
 * parsing, so that data larger than one WebAssembly instance can be streamed
 * through the kernels (full-data passes) and gathered by row (subsamples).
 *
 * ```
 *  byte 0      "TALLMCRS"                      magic, 8 ASCII bytes
 *  byte 8      u32 LE version (1)
 *  byte 12     u32 LE dataOffset (4096; a multiple of 4096 when the JSON needs more)
 *  byte 16     UTF-8 JSON of the header fields ({@link RowStoreHeader}), zero padded
 *  dataOffset  numRows rows of rowBytes each:
 *                d cells of X (f32 or f64, LE) | y (f64 LE) | [aux (f64 LE)]
 * ```
 *
 * The file size is always dataOffset + numRows × rowBytes; a store is written
 * to `path + ".partial"` and renamed when complete, so a store that exists is
 * whole. When it records the file it was made from ({@link SourceFingerprint}),
 * opening it checks that file is unchanged (size, mtime and a SHA-256 of its
 * first and last MiB).
 *
 * Reads are synchronous (`pread`-style), as a DataModel's passes are.
 *
 * References: docs/architecture.md, "Data beyond memory".
 *
 * **Files.** This module opens and reads stores; data/row_store_format.ts
 * holds the format (types, constants, header, fingerprint) and
 * data/row_store_write.ts the writers. Their public names are re-exported
 * here.
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { dataViews } from "../core/row_buffer.ts";
import type { GlmData } from "./dataset.ts";
import {
  checkMeta,
  fingerprintSync,
  GATHER_GAP_BYTES,
  LITTLE_ENDIAN,
  MAGIC,
  PAGE,
  readFully,
  rowBytesOf,
  type RowStoreHeader,
  type SourceFingerprint,
  STAGING_BYTES,
  VERSION,
} from "./row_store_format.ts";

export {
  fingerprintFile,
  type RowChunk,
  type RowStoreHeader,
  type RowStoreMeta,
  type SourceFingerprint,
} from "./row_store_format.ts";
export { writeRowStore, writeRowStoreFromGlmData } from "./row_store_write.ts";

/**
 * Open a row store for synchronous reads. Validates the magic, the version,
 * that the file size equals dataOffset + numRows × rowBytes and (unless
 * `checkSource` is false) that a recorded source file that still exists is
 * unchanged.
 *
 * @param path The store.
 * @param options `checkSource` (default true).
 * @returns The open store; {@link RowStore.close} it when done.
 * @throws {Error} Naming the file(s) and the mismatch.
 */
export function openRowStore(path: string, options: { checkSource?: boolean } = {}): RowStore {
  const file = Deno.openSync(path, { read: true });
  try {
    const size = file.statSync().size;
    if (size < 16) {
      throw new Error(`${path} is not a row store: ${size} bytes, shorter than a header`);
    }
    const pre = new Uint8Array(16);
    readFully(file, pre, 0, path);
    const magic = new TextDecoder().decode(pre.subarray(0, 8));
    if (magic !== MAGIC) {
      throw new Error(
        `${path} is not a row store: magic ${JSON.stringify(magic)}, want "${MAGIC}"`,
      );
    }
    const pv = new DataView(pre.buffer);
    const version = pv.getUint32(8, true), dataOffset = pv.getUint32(12, true);
    if (version !== VERSION) {
      throw new Error(`${path}: row store version ${version}, this reader reads ${VERSION}`);
    }
    if (dataOffset < PAGE || dataOffset % PAGE !== 0 || dataOffset > size) {
      throw new Error(
        `${path}: header gives data offset ${dataOffset}, impossible for a file of ${size} bytes`,
      );
    }
    const raw = new Uint8Array(dataOffset - 16);
    readFully(file, raw, 16, path);
    let end = raw.indexOf(0);
    if (end < 0) end = raw.length;
    let header: RowStoreHeader;
    try {
      header = JSON.parse(new TextDecoder().decode(raw.subarray(0, end)));
    } catch (e) {
      throw new Error(`${path}: the row store header is not valid JSON (${(e as Error).message})`);
    }
    checkMeta(header);
    if (header.dataOffset !== dataOffset || header.rowBytes !== rowBytesOf(header)) {
      throw new Error(`${path}: the row store header contradicts itself`);
    }
    const want = dataOffset + header.numRows * header.rowBytes;
    if (size !== want) {
      throw new Error(
        `${path}: file size ${size} bytes does not match the header (${dataOffset} + ${header.numRows} rows × ${header.rowBytes} bytes = ${want}); the file is truncated or was modified`,
      );
    }
    if (options.checkSource !== false && header.source) checkSource(path, header.source);
    return new RowStore(path, header, file);
  } catch (e) {
    file.close();
    throw e;
  }
}

function checkSource(path: string, rec: SourceFingerprint): void {
  let now: SourceFingerprint;
  try {
    now = fingerprintSync(rec.path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return; // the store outlives its source
    throw e;
  }
  const diffs: string[] = [];
  if (now.size !== rec.size) diffs.push(`size ${now.size} bytes, recorded ${rec.size}`);
  if (now.mtimeMs !== rec.mtimeMs) {
    diffs.push(
      `modified ${new Date(now.mtimeMs).toISOString()}, recorded ${
        new Date(rec.mtimeMs).toISOString()
      }`,
    );
  }
  if (now.digest !== rec.digest) diffs.push(`content digest differs`);
  if (diffs.length > 0) {
    throw new Error(
      `${path} was made from ${rec.path}, which has changed since (${
        diffs.join("; ")
      }); rebuild the row store, or open it with checkSource: false`,
    );
  }
}

/**
 * An open row store (see the module notes for the layout): synchronous reads
 * of rows by index or by range.
 */
export class RowStore {
  /** The file. */
  readonly path: string;
  /** Its header. */
  readonly header: RowStoreHeader;
  #file: Deno.FsFile | null;
  #staging = new Uint8Array(0);
  #order = new Int32Array(0);

  /**
   * Wrap an open file (use {@link openRowStore}).
   *
   * @param path The file's path.
   * @param header Its validated header.
   * @param file The open file; the store closes it.
   */
  constructor(path: string, header: RowStoreHeader, file: Deno.FsFile) {
    this.path = path;
    this.header = header;
    this.#file = file;
  }

  #open(): Deno.FsFile {
    if (this.#file === null) throw new Error(`row store ${this.path} is closed`);
    return this.#file;
  }

  #stage(bytes: number): Uint8Array {
    if (this.#staging.length < bytes) this.#staging = new Uint8Array(bytes);
    return this.#staging;
  }

  /** Decode `count` rows at the start of `buf` into outputs at row positions given by `dest`. */
  #decode(
    buf: Uint8Array,
    firstRow: number,
    count: number,
    dest: (r: number) => number,
    x: Float64Array | Float32Array,
    y: Float64Array,
    aux: Float64Array | undefined,
  ): void {
    const { numCols: d, rowBytes, storage } = this.header;
    const view = new DataView(buf.buffer, buf.byteOffset);
    const xBytes = d * (storage === "f32" ? 4 : 8);
    const f32 = storage === "f32";
    const cells = LITTLE_ENDIAN
      ? (f32
        ? new Float32Array(buf.buffer, buf.byteOffset, (count * rowBytes) >> 2)
        : new Float64Array(buf.buffer, buf.byteOffset, (count * rowBytes) >> 3))
      : null;
    const stride = f32 ? rowBytes >> 2 : rowBytes >> 3;
    for (let r = 0; r < count; r++) {
      const k = dest(firstRow + r);
      if (k < 0) continue;
      const o = r * rowBytes, xo = k * d;
      if (cells) {
        const c = r * stride;
        for (let j = 0; j < d; j++) x[xo + j] = cells[c + j];
      } else if (f32) {
        for (let j = 0; j < d; j++) x[xo + j] = view.getFloat32(o + 4 * j, true);
      } else {
        for (let j = 0; j < d; j++) x[xo + j] = view.getFloat64(o + 8 * j, true);
      }
      y[k] = view.getFloat64(o + xBytes, true);
      if (aux) aux[k] = view.getFloat64(o + xBytes + 8, true);
    }
  }

  #checkOutputs(
    count: number,
    x: Float64Array | Float32Array,
    y: Float64Array,
    aux: Float64Array | undefined,
  ): void {
    const d = this.header.numCols;
    if (x.length < count * d || y.length < count) {
      throw new RangeError(
        `reading ${count} rows of ${d} columns needs x of ${
          count * d
        } and y of ${count} values, got ${x.length} and ${y.length}`,
      );
    }
    if (aux !== undefined) {
      if (this.header.auxName === undefined) {
        throw new RangeError(`${this.path} has no aux column, but aux was asked for`);
      }
      if (aux.length < count) {
        throw new RangeError(`aux needs ${count} values, got ${aux.length}`);
      }
    }
    if (x instanceof Float32Array && this.header.storage === "f64") {
      throw new TypeError(
        `${this.path} stores X as f64; reading it into a Float32Array would round it`,
      );
    }
  }

  /**
   * Copy rows by index into `x` (rows.length × d, row-major; f32 cells widen
   * exactly), `y` and, when given, `aux`, in the caller's order. Repeats are
   * allowed; indices are sorted internally and nearby rows read in one call.
   *
   * @param rows Row indices in [0, numRows).
   * @param x Output X.
   * @param y Output y.
   * @param aux Output aux column (the store must have one).
   * @throws {RangeError} Naming the first bad index.
   */
  readRows(rows: Int32Array, x: Float64Array, y: Float64Array, aux?: Float64Array): void {
    const file = this.#open(), m = rows.length, n = this.header.numRows;
    this.#checkOutputs(m, x, y, aux);
    for (let k = 0; k < m; k++) {
      const r = rows[k];
      if (!(r >= 0 && r < n)) {
        throw new RangeError(
          `rows[${k}] = ${r} is not a row of ${this.path} (rows 0 … ${n - 1})`,
        );
      }
    }
    if (m === 0) return;
    if (this.#order.length < m) this.#order = new Int32Array(m);
    const order = this.#order.subarray(0, m);
    for (let k = 0; k < m; k++) order[k] = k;
    order.sort((a, b) => rows[a] - rows[b] || a - b);
    const rowBytes = this.header.rowBytes, dataOffset = this.header.dataOffset;
    const maxGap = Math.max(1, Math.floor(GATHER_GAP_BYTES / rowBytes));
    const maxSpan = Math.max(1, Math.floor(STAGING_BYTES / rowBytes));
    let s = 0;
    while (s < m) {
      const first = rows[order[s]];
      let e = s + 1;
      while (
        e < m && rows[order[e]] - rows[order[e - 1]] <= maxGap &&
        rows[order[e]] - first < maxSpan
      ) e++;
      const last = rows[order[e - 1]];
      const span = last - first + 1;
      const buf = this.#stage(span * rowBytes).subarray(0, span * rowBytes);
      readFully(file, buf, dataOffset + first * rowBytes, this.path);
      // Decode each requested (row, position) pair of this span.
      for (let t = s; t < e; t++) {
        const k = order[t], r = rows[k];
        this.#decode(
          buf.subarray((r - first) * rowBytes, (r - first + 1) * rowBytes),
          0,
          1,
          () => k,
          x,
          y,
          aux,
        );
      }
      s = e;
    }
  }

  /**
   * Copy rows `[start, start + count)` into `x` (count × d, row-major; a
   * Float32Array only for f32 storage), `y` and, when given, `aux`.
   *
   * @param start First row.
   * @param count Number of rows.
   * @param x Output X.
   * @param y Output y.
   * @param aux Output aux column (the store must have one).
   * @throws {RangeError} If the range is not inside the store.
   */
  readRange(
    start: number,
    count: number,
    x: Float64Array | Float32Array,
    y: Float64Array,
    aux?: Float64Array,
  ): void {
    const file = this.#open(), n = this.header.numRows;
    if (
      !Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 0 ||
      start + count > n
    ) {
      throw new RangeError(
        `rows [${start}, ${start + count}) are not inside ${this.path}'s ${n} rows`,
      );
    }
    this.#checkOutputs(count, x, y, aux);
    const rowBytes = this.header.rowBytes;
    const piece = Math.max(1, Math.floor(STAGING_BYTES / rowBytes));
    for (let s = 0; s < count; s += piece) {
      const c = Math.min(piece, count - s);
      const buf = this.#stage(c * rowBytes).subarray(0, c * rowBytes);
      readFully(file, buf, this.header.dataOffset + (start + s) * rowBytes, this.path);
      this.#decode(buf, s, c, (r) => r, x, y, aux);
    }
  }

  /** Close the file; later reads throw. */
  close(): void {
    this.#file?.close();
    this.#file = null;
  }
}

/**
 * Room for up to `capacity` rows of X (f32 or f64) and y in an arena, refilled
 * block after block: how rows read from a {@link RowStore} (by range or by
 * index) reach the kernels without a new allocation per block. The buffers
 * grow when a larger block is asked for and are never shrunk.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { StagedRows } from "./row_store.ts";
 * const arena = loadCore({ backend: "reference" });
 * const staged = new StagedRows(arena, { numCols: 2, storage: "f64", columnNames: ["a", "b"] });
 * const v = staged.views(2);
 * v.x.set([1, 2, 3, 4]);
 * v.y.set([0, 1]);
 * const data = staged.data(2);
 * assert.equal(data.numRows, 2);
 * staged.release();
 * ```
 */
export class StagedRows {
  /** The arena holding the rows. */
  readonly arena: Arena;
  /** Columns d. */
  readonly numCols: number;
  /** Cell type of X. */
  readonly storage: "f32" | "f64";
  /** Column names of the data sets handed out. */
  readonly columnNames: readonly string[];
  #capacity = 0;
  #x = 0;
  #y = 0;

  /**
   * Nothing is allocated until rows are asked for.
   *
   * @param arena Where the rows go.
   * @param layout `numCols`, `storage` and `columnNames`.
   */
  constructor(
    arena: Arena,
    layout: { numCols: number; storage: "f32" | "f64"; columnNames: readonly string[] },
  ) {
    this.arena = arena;
    this.numCols = layout.numCols;
    this.storage = layout.storage;
    this.columnNames = layout.columnNames;
  }

  #reserve(count: number): void {
    if (!Number.isInteger(count) || count < 1) {
      throw new RangeError(`a block needs a positive integer number of rows, got ${count}`);
    }
    if (count <= this.#capacity) return;
    this.release();
    const cells = count * this.numCols, a = this.arena;
    this.#x = this.storage === "f64" ? a.allocF64(cells) : a.allocF32(cells);
    this.#y = a.allocF64(count);
    this.#capacity = count;
  }

  /**
   * Fresh views of the first `count` rows to fill (valid until the arena's
   * memory next grows).
   *
   * @param count Rows wanted (the buffers grow if needed).
   * @returns X (count × d, the storage's type) and y (count).
   */
  views(count: number): { x: Float64Array | Float32Array; y: Float64Array } {
    this.#reserve(count);
    return dataViews(this.data(count));
  }

  /**
   * The first `count` rows as a data set for the kernels (the same memory:
   * valid until the next refill).
   *
   * @param count Rows (at most those reserved by {@link views}).
   * @returns The data set.
   */
  data(count: number): GlmData {
    this.#reserve(count);
    return {
      arena: this.arena,
      x: this.#x,
      y: this.#y,
      numRows: count,
      numCols: this.numCols,
      storage: this.storage,
      columnNames: this.columnNames,
    };
  }

  /** Give the buffers back to the arena (they are allocated again when rows are next asked for). */
  release(): void {
    if (this.#capacity === 0) return;
    this.arena.free(this.#x);
    this.arena.free(this.#y);
    this.#capacity = 0;
  }
}
