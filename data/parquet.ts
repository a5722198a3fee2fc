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
 * `loadParquet` into an arena of a WebAssembly build decodes the row groups
 * with the core's page decoder instead (data/parquet_decode.ts: the column
 * chunks are read straight into the arena, snappy, PLAIN and dictionary
 * pages decoded there, and the transposer reads the decoded columns in
 * place); a row group that decoder does not take goes through hyparquet, so
 * the data, warnings and errors are the same either way
 * (docs/parquet_read.md).
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
 * **Files.** This module is the entry point of the Parquet code and holds
 * the row readers; data/parquet_source.ts opens a file and decodes row
 * groups, data/parquet_chunks.ts resolves the columns and checks and
 * transposes the cells, data/parquet_formula.ts reads text tables for
 * formulas and data/parquet_write.ts writes files. Their public names are
 * re-exported here.
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { csvDataWarnings } from "./csv_checks.ts";
import { ParquetPageKernels, ParquetTransposer } from "../core/parquet_kernel.ts";
import {
  claimParquetGroup,
  ParquetArenaDecoder,
  ParquetDecodeThread,
  type ParquetGroupWork,
  parquetThreadSizes,
  prefaultRows,
} from "./parquet_decode.ts";
import { checkRowsFit, type GlmData, type Storage } from "./dataset.ts";
import { parquetFastGroup, type ParquetGroupPart, parquetGroupSpec } from "./parquet_group.ts";
import {
  ParquetChunkBuilder,
  type ParquetLayout,
  parquetLayout,
  type ParquetOptions,
} from "./parquet_chunks.ts";
import {
  type OpenedParquet,
  openParquetSource,
  type ParquetCells,
  type ParquetRowChunk,
  type ParquetSource,
  readParquetRowGroup,
} from "./parquet_source.ts";

export type { ParquetOptions } from "./parquet_chunks.ts";
export type { ParquetDecompressors, ParquetRowChunk, ParquetSource } from "./parquet_source.ts";
export {
  type FormulaParquetOptions,
  loadParquetWithFormula,
  type ParquetColumn,
  parquetColumns,
  parquetColumnTable,
} from "./parquet_formula.ts";

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

/**
 * Open a Parquet file for streaming: reads the footer, resolves the columns
 * and returns an object that iterates one {@link ParquetRowChunk} per row
 * group, reading only that row group's selected columns from the file.
 *
 * Needs read permission for a path.
 *
 * With `arena`, row groups the core's page decoder takes (data/parquet_decode.ts:
 * typed columns, snappy or none, no nulls) are decoded into that arena and
 * checked and transposed by the core's kernel, as `loadParquet` reads them
 * (the same numbers, checks and statistics; 5–10× faster than the general
 * path here); the others, and a file with an aux column, take the general
 * path. The arena's buffers are freed when the iteration ends.
 *
 * @param source A path, a file URL, or the file's bytes.
 * @param options `response`, `family`, `intercept` (true), `columns`,
 *   `storage` ("f64"), `aux`, `compressors`.
 * @param arena Where the core decodes and transposes row groups (optional).
 * @returns The opened file: sizes, names, and the chunks (iterate once).
 * @throws {RangeError} For a missing file or column, or bad values (naming
 *   file, column and row, when the chunk holding them is read).
 * @throws {TypeError} For a non-numeric column or bad options.
 * @throws {Error} For a file that is not Parquet, or is truncated or corrupt.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openParquetRows } from "./parquet.ts";
 * import { writeParquet } from "./parquet_write.ts";
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
  arena?: Arena,
): Promise<ParquetRows> {
  const r = await _openRows(source, options);
  const { o, l, rowGroupRows, numRows, builder } = r;
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
      const fast = arena === undefined || l.auxName !== undefined
        ? null
        : _ArenaGroups.create(arena, o, l, rowGroupRows);
      try {
        let start = 0;
        for (let g = 0; g < rowGroupRows.length; g++) {
          const n = rowGroupRows[g];
          if (n === 0) continue;
          let next = g + 1;
          while (next < rowGroupRows.length && rowGroupRows[next] === 0) next++;
          const chunk = (await fast?.read(builder, g, next, n, start)) ??
            builder.build(
              await readParquetRowGroup(o, g, start, l.readColumns, options.compressors),
              n,
              start + 1,
            );
          yield chunk;
          start += n;
        }
        if (numRows === 0) throw new RangeError(`${o.where}the file has no data rows`);
        warnings = r.warnings();
      } finally {
        fast?.dispose();
        o.close();
      }
    },
  };
}

/**
 * Row groups of {@link openParquetRows} read the way `loadParquet` reads
 * them: decoded by the core's page kernels into the arena, checked and
 * transposed by its kernel into one buffer of the largest group's rows,
 * then copied out as the chunk.
 */
class _ArenaGroups {
  private constructor(
    readonly arena: Arena,
    readonly l: ParquetLayout,
    readonly decoder: ParquetArenaDecoder,
    readonly transposer: ParquetTransposer,
    readonly xPtr: number,
    readonly numGroups: number,
  ) {}

  /** The reader, or null when the arena's core has no page or transpose kernels. */
  static create(
    arena: Arena,
    o: OpenedParquet,
    l: ParquetLayout,
    rowGroupRows: number[],
  ): _ArenaGroups | null {
    const transposer = ParquetTransposer.create(arena, l.numCols);
    if (transposer === null) return null;
    const decoder = ParquetArenaDecoder.create(arena, o, l.readColumns);
    if (decoder === null) return null;
    const most = rowGroupRows.reduce((a, b) => Math.max(a, b), 1) * l.numCols;
    // Allocated before any group's columns are viewed (it may grow the memory).
    const xPtr = l.storage === "f64" ? arena.allocF64(most) : arena.allocF32(most);
    return new _ArenaGroups(arena, l, decoder, transposer, xPtr, rowGroupRows.length);
  }

  /**
   * Row group g as a chunk, or null when the page decoder does not take it
   * (it is then read the general way). Starts reading group `next`.
   */
  async read(
    builder: ParquetChunkBuilder,
    g: number,
    next: number,
    n: number,
    start: number,
  ): Promise<ParquetRowChunk | null> {
    let cols: Map<string, ParquetCells> | null;
    try {
      cols = await this.decoder.read(g, next < this.numGroups ? next : undefined);
    } catch {
      return null; // read again the general way, whose errors name the cell
    }
    if (cols === null) return null;
    const d = this.l.numCols, a = this.arena;
    // Fresh views: the memory may have grown while the group was read.
    const x = this.l.storage === "f64" ? a.f64(this.xPtr, n * d) : a.f32(this.xPtr, n * d);
    const y = new Float64Array(n);
    builder.buildInto(cols, n, start + 1, x, y, {
      transposer: this.transposer,
      xPtr: this.xPtr,
    });
    return { numRows: n, x: x.slice(), y };
  }

  /** Free the arena's buffers. */
  dispose(): void {
    this.decoder.dispose();
    this.arena.free(this.xPtr);
  }
}

/** An opened file with its layout and checker, before any row group is read. */
interface _OpenedRows {
  o: OpenedParquet;
  l: ParquetLayout;
  rowGroupRows: number[];
  numRows: number;
  builder: ParquetChunkBuilder;
  /** The load's warnings, once every row group went through the builder. */
  warnings(): string[];
}

async function _openRows(source: ParquetSource, options: ParquetOptions): Promise<_OpenedRows> {
  const o = await openParquetSource(source);
  let l: ParquetLayout;
  try {
    l = parquetLayout(o, options);
  } catch (e) {
    o.close();
    throw e;
  }
  const rowGroupRows = o.metadata.row_groups.map((g) => Number(g.num_rows));
  const numRows = rowGroupRows.reduce((a, b) => a + b, 0);
  const builder = new ParquetChunkBuilder(o, l, options.family, numRows);
  return {
    o,
    l,
    rowGroupRows,
    numRows,
    builder,
    warnings: () => [
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
    ],
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
 * import { parquetRowChunks } from "./parquet.ts";
 * import { writeParquet } from "./parquet_write.ts";
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
 * import { loadParquet } from "./parquet.ts";
 * import { writeParquet } from "./parquet_write.ts";
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
  // A large file's decoding thread starts loading now, while the footer is read.
  let early = typeof source === "string" || source instanceof URL
    ? ParquetDecodeThread.early(arena, source)
    : null;
  let r: _OpenedRows;
  try {
    r = await _openRows(source, options);
  } catch (e) {
    early?.terminate();
    throw e;
  }
  const { o, l, numRows, rowGroupRows, builder } = r;
  const { numCols, storage } = l;
  const width = storage === "f64" ? 8 : 4;
  // Refused before anything is allocated: no rows, or more than the arena holds.
  const name = source instanceof Uint8Array ? "Parquet bytes" : String(source);
  try {
    if (numRows === 0) throw new RangeError(`${name}: the file has no data rows`);
    checkRowsFit(arena, { numRows, numCols, storage }, `${name}: `);
  } catch (e) {
    early?.terminate();
    o.close();
    throw e;
  }
  let xPtr = 0, yPtr = 0, counter = 0, onesPtr = 0;
  let transposer: ParquetTransposer | null = null;
  let decoder: ParquetArenaDecoder | null = null;
  let prefault: ReturnType<typeof prefaultRows> | null = null;
  let thread: ParquetDecodeThread | null = null;
  try {
    xPtr = storage === "f64"
      ? arena.allocF64(numRows * numCols)
      : arena.allocF32(numRows * numCols);
    yPtr = arena.allocF64(numRows);
    // The core's kernel writes the rows of X (null: the TypeScript pass does).
    transposer = ParquetTransposer.create(arena, numCols);
    const groups = rowGroupRows.flatMap((n, g) => n > 0 ? [g] : []);
    const rows = groups.map((g) => rowGroupRows[g]);
    const starts: number[] = [];
    for (let i = 0, s = 0; i < groups.length; s += rows[i++]) starts.push(s);
    const plans = groups.map((_, i) => builder.stats.gramPlan(starts[i], rows[i]));
    const spec = parquetGroupSpec(l, options.family);
    // The row groups this thread checked and transposed with the kernel (by
    // position); the others are read below, in file order.
    const parts: (ParquetGroupPart | null)[] = groups.map(() => null);
    let work: ParquetGroupWork | null = null;
    if (transposer !== null && ParquetPageKernels.create(arena) !== null) {
      counter = arena.alloc(16, 16);
      arena.i32(counter, 4).fill(0);
      work = {
        groups,
        starts,
        rows,
        plans,
        counter,
        xPtr,
        yPtr,
        width,
      };
      // With a shared arena, another thread takes row groups too: each
      // thread decodes, checks and transposes its own into X.
      thread = typeof source === "string" || source instanceof URL
        ? ParquetDecodeThread.start(arena, o, source, l.readColumns, spec, work, early)
        : null;
      if (thread !== null) early = null; // the thread's now
    }
    // Without that thread, the first touch of X's and y's fresh pages runs on
    // another core. With it, each of the two threads touches the rows it
    // writes: a third thread would only compete for the same two cores (its
    // start and module loading cost ≈ 0.1 CPU-s at 10⁷, and three threads
    // faulting in one address space contend in the kernel).
    if (thread === null) {
      prefault = prefaultRows(arena, [
        [xPtr, xPtr + numRows * numCols * width],
        [yPtr, yPtr + numRows * 8],
      ]);
    }
    if (work !== null && transposer !== null) {
      // The core's page decoder reads the columns into the arena (null, or a
      // row group it does not take: hyparquet decodes it below). With the
      // thread, one raw buffer (the thread has the other).
      decoder = ParquetArenaDecoder.create(arena, o, l.readColumns, thread !== null);
      if (l.intercept) {
        const most = rows.reduce((a, b) => Math.max(a, b), 1);
        onesPtr = arena.allocF32(most);
        arena.f32(onesPtr, most).fill(1);
      }
      const mine = thread === null || parquetThreadSizes.callerTakes;
      for (let i = mine ? claimParquetGroup(arena.memory, work) : -1; i >= 0 && decoder !== null;) {
        let cols: Map<string, ParquetCells> | null = null;
        try {
          cols = await decoder.read(
            groups[i],
            thread === null && i + 1 < groups.length ? groups[i + 1] : undefined,
          );
        } catch {
          cols = null; // read again below, the general way
        }
        if (cols !== null) {
          const n = rows[i], buf = arena.memory.buffer;
          parts[i] = parquetFastGroup(
            cols,
            n,
            spec,
            transposer,
            xPtr + starts[i] * numCols * width,
            new Float64Array(buf, yPtr + starts[i] * 8, n),
            onesPtr === 0 ? null : new Float32Array(buf, onesPtr, n),
            plans[i],
          );
        }
        i = claimParquetGroup(arena.memory, work);
      }
      if (thread !== null) {
        await thread.done();
        for (let i = 0; i < groups.length; i++) parts[i] ??= thread.take(i);
      }
    }
    // In file order: the groups' statistics, and the groups no thread took,
    // read and checked here (the general way: its errors name the cell).
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i], n = rows[i], start = starts[i];
      const part = parts[i];
      if (part !== null) {
        builder.addPart(part, n);
        continue;
      }
      const cols = (await decoder?.read(g)) ??
        await readParquetRowGroup(o, g, start, l.readColumns, options.compressors);
      // Checked and transposed straight into the arena; fresh views for
      // every group (the memory may have grown meanwhile).
      const off = xPtr + start * numCols * width, len = n * numCols;
      const x = storage === "f64" ? arena.f64(off, len) : arena.f32(off, len);
      builder.buildInto(
        cols,
        n,
        start + 1,
        x,
        arena.f64(yPtr + start * 8, n),
        transposer === null ? undefined : { transposer, xPtr: off },
      );
    }
  } catch (e) {
    if (thread !== null) await thread.done(); // it writes into X until then
    if (xPtr !== 0) arena.free(xPtr);
    if (yPtr !== 0) arena.free(yPtr);
    throw e;
  } finally {
    if (thread !== null) {
      await thread.done();
      thread.close();
    }
    transposer?.dispose();
    decoder?.dispose();
    prefault?.stop();
    early?.terminate(); // not taken by a thread
    if (counter !== 0) arena.free(counter);
    if (onesPtr !== 0) arena.free(onesPtr);
    o.close();
  }
  const warnings = r.warnings();
  return {
    arena,
    x: xPtr,
    y: yPtr,
    numRows,
    numCols,
    storage,
    columnNames: l.columnNames,
    warnings,
  };
}
