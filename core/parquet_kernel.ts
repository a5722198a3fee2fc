/**
 * The Parquet reader's column-to-row kernel (`core/as/parquet.ts`) bound to
 * an arena's memory: one row group's decoded columns are copied into a small
 * staging block of the arena, and the kernel checks every cell, updates the
 * column statistics (data/csv_checks.ts's ranges, sums and hashes, in row
 * order) and writes the rows of X straight into the arena, in its storage.
 *
 * ```
 *  columns (JS typed arrays) ──copy, SLICE rows at a time──► staging (f32 or f64 columns)
 *     ──pqTranspose──► X rows in the arena (f32 or f64) + lo, hi, sum, hash per column
 * ```
 *
 * Available for an arena of a WebAssembly backend (the kernel is one of its
 * optional exports, `CoreExports.pqTranspose`); otherwise
 * {@link ParquetTransposer.create} returns null and the reader keeps its
 * TypeScript pass (the same numbers).
 *
 * @module
 */

import type { Arena } from "./arena.ts";
import type { CoreExports } from "./exports.ts";

/** Rows staged and transposed per kernel call. */
const _SLICE = 8192;

type _Exports = Required<Pick<CoreExports, "pqTranspose">>;
type _PageExports = Required<Pick<CoreExports, "pqSnappy" | "pqLevelsAll" | "pqDictGather">>;

/** Columns of one row group → rows of X in an arena, checked and counted (see the module). */
export class ParquetTransposer {
  readonly #arena: Arena;
  readonly #ex: _Exports;
  readonly #d: number;
  /** d column pointers (u32), then lo, hi, sum (f64 × d) and h (i32 × d). */
  readonly #table: number;
  readonly #lo: number;
  readonly #hi: number;
  readonly #sum: number;
  readonly #h: number;
  /** d staging columns of _SLICE f64 (or f32) each. */
  readonly #stage: number;

  private constructor(arena: Arena, ex: _Exports, d: number) {
    this.#arena = arena;
    this.#ex = ex;
    this.#d = d;
    const tableBytes = Math.ceil((d * 4) / 16) * 16;
    this.#table = arena.alloc(tableBytes + d * 28 + 16, 16);
    this.#lo = this.#table + tableBytes;
    this.#hi = this.#lo + d * 8;
    this.#sum = this.#hi + d * 8;
    this.#h = this.#sum + d * 8;
    this.#stage = arena.alloc(d * _SLICE * 8, 16);
  }

  /**
   * A transposer for d columns in the arena, or null when the arena runs
   * the TypeScript kernels or its build has no Parquet kernel. Allocates
   * its staging block (d · 64 KiB) now: views of the arena derived before
   * this call may be detached by it.
   *
   * @param arena The arena X lives in.
   * @param d Columns of X.
   * @returns The transposer (free it with {@link dispose}), or null.
   */
  static create(arena: Arena, d: number): ParquetTransposer | null {
    if (arena.backend === "reference" || !(d >= 1)) return null;
    const transpose = arena.exports.pqTranspose;
    if (transpose === undefined) return null;
    const ex: _Exports = { pqTranspose: transpose };
    return new ParquetTransposer(arena, ex, d);
  }

  /**
   * Writes x[i·d + k] = cols[k][i] for i < n into the arena at `xPtr`
   * (f64 rows when `dstF64`, else f32 rounded to nearest) and updates the
   * statistics lo, hi, sum and h (each d long) in row order. Needs
   * `cols.length` = d and each column at least n long.
   *
   * @param cols The columns (f32 columns are staged as f32, others as f64).
   * @param n Rows.
   * @param xPtr Byte offset of row 0 of the output in the arena.
   * @param dstF64 f64 output (else f32).
   * @param lo Minimum per column, updated.
   * @param hi Maximum per column, updated.
   * @param sum Sum per column, updated.
   * @param h Hash per column, updated.
   * @param minAbs Cells with 0 < |v| < minAbs fail.
   * @param maxAbs Cells with |v| > maxAbs or NaN fail.
   * @returns Whether every cell passed.
   */
  run(
    cols: readonly (Float64Array | Float32Array | Int32Array)[],
    n: number,
    xPtr: number,
    dstF64: boolean,
    lo: Float64Array,
    hi: Float64Array,
    sum: Float64Array,
    h: Int32Array,
    minAbs: number,
    maxAbs: number,
  ): boolean {
    const a = this.#arena, d = this.#d;
    if (cols.length !== d) throw new RangeError(`expected ${d} columns, got ${cols.length}`);
    const src32 = cols.every((c) => c instanceof Float32Array);
    const w = src32 ? 4 : 8, rowBytes = d * (dstF64 ? 8 : 4);
    const table = a.i32(this.#table, d);
    a.f64(this.#lo, d).set(lo);
    a.f64(this.#hi, d).set(hi);
    a.f64(this.#sum, d).set(sum);
    a.i32(this.#h, d).set(h);
    // Columns that already live in the arena in the staged type (the page
    // decoder's output) are read in place; the others are copied.
    const mem = a.memory.buffer;
    const inPlace = cols.map((c) =>
      c.buffer === mem && (src32 ? c instanceof Float32Array : c instanceof Float64Array)
    );
    let ok = true;
    for (let r0 = 0; r0 < n; r0 += _SLICE) {
      const r1 = Math.min(n, r0 + _SLICE), m = r1 - r0;
      for (let k = 0; k < d; k++) {
        if (inPlace[k]) {
          table[k] = cols[k].byteOffset + r0 * w;
          continue;
        }
        table[k] = this.#stage + k * _SLICE * w;
        const dst = src32 ? a.f32(table[k], m) : a.f64(table[k], m);
        dst.set(cols[k].subarray(r0, r1));
      }
      const r = this.#ex.pqTranspose(
        this.#table,
        src32 ? 0 : 1,
        m,
        d,
        xPtr + r0 * rowBytes,
        dstF64 ? 1 : 0,
        this.#lo,
        this.#hi,
        this.#sum,
        this.#h,
        minAbs,
        maxAbs,
      );
      if (r === 0) {
        ok = false; // the caller names the first bad cell and throws
        break;
      }
    }
    lo.set(a.f64(this.#lo, d));
    hi.set(a.f64(this.#hi, d));
    sum.set(a.f64(this.#sum, d));
    h.set(a.i32(this.#h, d));
    return ok;
  }

  /** Frees the staging block. */
  dispose(): void {
    this.#arena.free(this.#stage);
    this.#arena.free(this.#table);
  }
}

/**
 * The byte-level kernels of the Parquet page decoder (`core/as/parquet_decode.ts`)
 * bound to an arena: every pointer is a byte offset into the arena's memory.
 * Each method returns false when its input is not exactly a well-formed
 * page's (the caller then decodes the row group another way).
 */
export class ParquetPageKernels {
  readonly #ex: _PageExports;

  private constructor(ex: _PageExports) {
    this.#ex = ex;
  }

  /**
   * The kernels of the arena's core, or null for the TypeScript backend or a
   * build without them.
   *
   * @param arena The arena the pages are read into.
   * @returns The kernels, or null.
   */
  static create(arena: Arena): ParquetPageKernels | null {
    if (arena.backend === "reference") return null;
    const { pqSnappy, pqLevelsAll, pqDictGather } = arena.exports;
    if (pqSnappy === undefined || pqLevelsAll === undefined || pqDictGather === undefined) {
      return null;
    }
    return new ParquetPageKernels({ pqSnappy, pqLevelsAll, pqDictGather });
  }

  /**
   * Decompresses a snappy block.
   *
   * @param src The block.
   * @param srcLen Its bytes.
   * @param dst Where the output goes.
   * @param dstLen The output's exact length.
   * @returns Whether the block was well formed and exactly dstLen long.
   */
  snappy(src: number, srcLen: number, dst: number, dstLen: number): boolean {
    return this.#ex.pqSnappy(src, srcLen, dst, dstLen) === 1;
  }

  /**
   * Whether n RLE / bit-packed hybrid levels of bw bits all equal `level`.
   *
   * @param src The encoded levels.
   * @param len Their bytes.
   * @param bw Bits a level.
   * @param n Levels.
   * @param level The level every value must have.
   * @returns True when well formed and all equal to `level`.
   */
  levelsAll(src: number, len: number, bw: number, n: number, level: number): boolean {
    return this.#ex.pqLevelsAll(src, len, bw, n, level) === 1;
  }

  /**
   * Writes dict[index] for n RLE / bit-packed hybrid indices of bw bits.
   *
   * @param src The encoded indices.
   * @param len Their bytes.
   * @param bw Bits an index (1–16).
   * @param n Values.
   * @param dict The dictionary's values.
   * @param dictN Its number of values.
   * @param w Bytes a value (4 or 8).
   * @param dst Where the n values go.
   * @returns True when well formed with every index below dictN.
   */
  dictGather(
    src: number,
    len: number,
    bw: number,
    n: number,
    dict: number,
    dictN: number,
    w: number,
    dst: number,
  ): boolean {
    return this.#ex.pqDictGather(src, len, bw, n, dict, dictN, w, dst) === 1;
  }
}
