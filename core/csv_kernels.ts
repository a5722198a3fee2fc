/**
 * The numeric CSV kernels of the core (`core/as/csv.ts`) behind a typed
 * object: a {@link CsvRowParser} owns a small private memory of its own (the
 * input bytes of one block, the rows parsed from it) and an instance of the
 * SIMD build bound to it, so it can run on any thread and whatever arena the
 * rows end up in.
 *
 * ```
 *  memory: [static data][state 16 B][hard cells] … [input bytes + '\n' sentinel][colMap][x rows][y]
 *  parse(len, atEof, maxRows) ──csvParseRows──► rows, bytes consumed, status, hard cells
 * ```
 *
 * The compiled module comes from core/csv_core_module.ts, which holds the
 * embedded bytes; a worker is sent the module and does not load them.
 *
 * @module
 */

import { adviseHugePages } from "./huge_pages.ts";

/**
 * The input block starts at or above this byte (as an arena's RESERVED_BYTES
 * in core/arena.ts). Not imported from there: a worker that loads this module
 * then loads nothing else of the core.
 */
const _LOW_BYTES = 65536;

/** What the kernel needs to know about the file and the columns. */
export interface CsvRowPlan {
  /** The delimiter's byte (ASCII, not a character of a number). */
  delimiter: number;
  /** Lines end in "\r\n" (else "\n"). */
  crlf: boolean;
  /** Fields per line. */
  numFields: number;
  /** Per field: its column of X (≥ 0), -1 skipped, -2 the response. */
  colMap: Int32Array;
  /** Columns of X (the intercept included). */
  numCols: number;
  /** Column 0 of X is 1. */
  intercept: boolean;
  /** 0 logistic, 1 Gaussian, 2 Poisson (the response's domain). */
  family: number;
  /** Refuse values that f32 storage cannot hold. */
  f32check: boolean;
  /**
   * Read lines of short decimals by the kernel's fast loop (default true;
   * false: every line by its general loop — the same rows, for tests and
   * benches).
   */
  fastRows?: boolean;
}

/** Outcome of one {@link CsvRowParser.parse} call. */
export interface CsvParseResult {
  /** Rows written (views: {@link CsvRowParser.x}, {@link CsvRowParser.y}). */
  rows: number;
  /** Bytes of the input consumed (whole lines). */
  consumed: number;
  /** Lines consumed (blank ones included). */
  lines: number;
  /** 0 done, 1 maxRows reached, 2 hard-cell list full, 3 fall back. */
  status: number;
  /** Hard cells: (dest, byte offset, length) triples; dest ≥ 0 in X, -(row + 1) in y. */
  hard: Int32Array;
}

/** Status of {@link CsvParseResult}: something the kernel does not read. */
export const CSV_BAIL = 3;

interface _CsvExports {
  heapBase(): number;
  csvParseRows(...args: number[]): number;
  csvCountBreaks(p: number, n: number, out: number): number;
  csvF64ToF32(src: number, dst: number, n: number): void;
  csvColumnStats(
    x: number,
    m: number,
    d: number,
    lo: number,
    hi: number,
    sum: number,
    h: number,
  ): void;
}

const _HARD_CAP = 4096; // cells
const _PAGE = 65536;

/** A parser of numeric CSV lines in WebAssembly (one per thread). */
export class CsvRowParser {
  readonly #memory: WebAssembly.Memory;
  readonly #ex: _CsvExports;
  #plan: CsvRowPlan | null = null;
  #colMap = 0;
  #state: number;
  #hard: number;
  #src: number;
  #srcCap = 0;
  #x = 0;
  #y = 0;
  #stats = 0;
  #rowCap = 0;

  private constructor(memory: WebAssembly.Memory, ex: _CsvExports) {
    this.#memory = memory;
    this.#ex = ex;
    // Above the module's static data (its constant tables).
    this.#state = Math.ceil(ex.heapBase() / 16) * 16;
    this.#hard = this.#state + 16;
    this.#src = Math.max(_LOW_BYTES, Math.ceil((this.#hard + _HARD_CAP * 12) / 16) * 16);
    this.#ensure(this.#src + 32);
  }

  /**
   * A parser, or null when this runtime or build has no WebAssembly core
   * (the caller then uses its TypeScript parser).
   *
   * @param module The compiled core (core/csv_core_module.ts; null: none).
   * @returns The parser, or null.
   */
  static create(module: WebAssembly.Module | null): CsvRowParser | null {
    const mod = module;
    if (mod === null) return null;
    try {
      const memory = new WebAssembly.Memory({ initial: 2, maximum: 65536 });
      adviseHugePages(memory);
      const instance = new WebAssembly.Instance(mod, {
        env: {
          memory,
          abort(): never {
            throw new Error("tallmc core aborted in the CSV kernel");
          },
          invalidArgument(): never {
            throw new Error("tallmc core: invalid argument in the CSV kernel");
          },
        },
      });
      const parser = new CsvRowParser(memory, instance.exports as unknown as _CsvExports);
      parser.#warmUp();
      return parser;
    } catch {
      return null;
    }
  }

  /**
   * Runs the kernels a few times on a small made-up block: the engine
   * compiles its optimised code for them in the background after some
   * work, and a load's first pass (counting line breaks) then leaves it the
   * time to finish before the rows are parsed.
   */
  #warmUp(): void {
    const cols = 8, rows = 512;
    let line = "1";
    for (let j = 1; j < cols; j++) line += `,-${j}.${"0123456789".slice(0, j % 8 + 1)}`;
    const text = new TextEncoder().encode(`${line}\n`.repeat(rows));
    const colMap = Int32Array.from({ length: cols }, (_, j) => (j === 0 ? -2 : j));
    this.setPlan(
      {
        delimiter: 44,
        crlf: false,
        numFields: cols,
        colMap,
        numCols: cols,
        intercept: true,
        family: 0,
        f32check: false,
      },
      text.length,
      rows,
    );
    const lo = new Float64Array(cols), hi = new Float64Array(cols), sum = new Float64Array(cols);
    const h = new Int32Array(cols);
    for (let k = 0; k < 8; k++) {
      this.input().set(text);
      this.parse(0, text.length, true);
      this.blockStats(rows, lo, hi, sum, h);
      this.countBreaks(0, text.length);
    }
    this.#plan = null;
  }

  /**
   * Lays the memory out for a plan: room for `srcCap` input bytes and
   * `rowCap` rows.
   *
   * @param plan The columns and the line format.
   * @param srcCap Input bytes per block.
   * @param rowCap Rows per block.
   */
  setPlan(plan: CsvRowPlan, srcCap: number, rowCap: number): void {
    this.#plan = plan;
    this.#srcCap = srcCap;
    this.#colMap = this.#src + Math.ceil((srcCap + 32) / 16) * 16;
    this.#x = this.#colMap + Math.ceil((plan.numFields * 4) / 16) * 16;
    this.#rowCap = rowCap;
    this.#y = this.#x + rowCap * plan.numCols * 8;
    this.#stats = Math.ceil((this.#y + rowCap * 8) / 16) * 16;
    this.#ensure(this.#stats + plan.numCols * 32 + 16);
    new Int32Array(this.#memory.buffer, this.#colMap, plan.numFields).set(plan.colMap);
  }

  /**
   * Room for `srcCap` input bytes (before a plan, e.g. to count line breaks).
   *
   * @param srcCap Input bytes per block.
   */
  reserveInput(srcCap: number): void {
    this.#srcCap = Math.max(this.#srcCap, srcCap);
    this.#ensure(this.#src + srcCap + 32);
  }

  #ensure(need: number): void {
    const have = this.#memory.buffer.byteLength;
    if (need > have) this.#memory.grow(Math.ceil((need - have) / _PAGE));
  }

  /** Input bytes per block. */
  get srcCap(): number {
    return this.#srcCap;
  }

  /** Rows per block. */
  get rowCap(): number {
    return this.#rowCap;
  }

  /** The input block (write the bytes to parse here). */
  input(): Uint8Array {
    return new Uint8Array(this.#memory.buffer, this.#src, this.#srcCap);
  }

  /**
   * Parses the whole lines among input bytes `[start, len)` into the rows
   * of the block from `rowOffset` on.
   *
   * @param start First byte (a line's start).
   * @param len Bytes in the input block.
   * @param atEof Whether they end the file (a last line without a line break counts).
   * @param rowOffset First row of the block to write.
   * @param maxRows At most this many rows (rowOffset + maxRows ≤ the plan's rowCap).
   * @returns Rows, bytes and lines consumed, status and hard cells (dest relative to
   *   rowOffset, byte offsets relative to start).
   */
  parse(
    start: number,
    len: number,
    atEof: boolean,
    rowOffset = 0,
    maxRows = this.#rowCap - rowOffset,
  ): CsvParseResult {
    const p = this.#plan!;
    if (rowOffset < 0 || rowOffset + maxRows > this.#rowCap || len > this.#srcCap) {
      throw new RangeError(
        `CSV block overrun: rows ${rowOffset} + ${maxRows} of ${this.#rowCap}, ${len} bytes of ${this.#srcCap}`,
      );
    }
    const mem = new Uint8Array(this.#memory.buffer);
    mem[this.#src + len] = 10; // sentinel
    const state = this.#state;
    const rows = this.#ex.csvParseRows(
      this.#src + start,
      this.#src + len,
      atEof ? 1 : 0,
      p.delimiter,
      p.crlf ? 1 : 0,
      p.numFields,
      this.#colMap,
      p.numCols,
      p.intercept ? 1 : 0,
      p.family,
      p.f32check ? 1 : 0,
      this.#x + rowOffset * p.numCols * 8,
      this.#y + rowOffset * 8,
      maxRows,
      this.#hard,
      _HARD_CAP,
      state,
      p.fastRows === false ? 0 : 1,
    );
    const st = new Int32Array(this.#memory.buffer, state, 4);
    const nHard = st[2];
    return {
      rows,
      consumed: Math.min(st[0], len - start),
      status: st[1],
      lines: st[3],
      hard: new Int32Array(this.#memory.buffer, this.#hard, nHard * 3).slice(),
    };
  }

  /** Rows `[from, from + rows)` of the block, row-major (rows × numCols). */
  x(rows: number, from = 0): Float64Array {
    const d = this.#plan!.numCols;
    return new Float64Array(this.#memory.buffer, this.#x + from * d * 8, rows * d);
  }

  /**
   * Rows `[from, from + rows)` of the block rounded to f32 (to nearest, as a
   * `Float32Array` stores them), as the bytes of a row-major f32 table:
   * converted by the kernel into memory after the block's (valid until the
   * next call; it may grow the memory, detaching earlier views).
   */
  xF32Bytes(rows: number, from = 0): Uint8Array {
    const d = this.#plan!.numCols, n = rows * d;
    const dst = Math.ceil((this.#stats + d * 32 + 16) / 16) * 16;
    this.#ensure(dst + n * 4);
    this.#ex.csvF64ToF32(this.#x + from * d * 8, dst, n);
    return new Uint8Array(this.#memory.buffer, dst, n * 4);
  }

  /** The responses of rows `[from, from + rows)` of the block. */
  y(rows: number, from = 0): Float64Array {
    return new Float64Array(this.#memory.buffer, this.#y + from * 8, rows);
  }

  /**
   * Adds rows `[from, from + rows)` of the block to per-column statistics (minimum,
   * maximum, sum in row order, and the hash of csv_checks.ts's ColumnStats),
   * in the kernel: the same numbers as that class's loop, bit for bit.
   *
   * @param rows Rows of the block.
   * @param lo Per-column minima (updated).
   * @param hi Per-column maxima (updated).
   * @param sum Per-column sums (updated).
   * @param h Per-column hashes (updated).
   * @param from First row of the block.
   */
  blockStats(
    rows: number,
    lo: Float64Array,
    hi: Float64Array,
    sum: Float64Array,
    h: Int32Array,
    from = 0,
  ): void {
    const d = this.#plan!.numCols, base = this.#stats;
    const f = new Float64Array(this.#memory.buffer, base, 3 * d);
    const hv = new Int32Array(this.#memory.buffer, base + 24 * d, d);
    f.set(lo, 0);
    f.set(hi, d);
    f.set(sum, 2 * d);
    hv.set(h);
    this.#ex.csvColumnStats(
      this.#x + from * d * 8,
      rows,
      d,
      base,
      base + 8 * d,
      base + 16 * d,
      base + 24 * d,
    );
    lo.set(f.subarray(0, d));
    hi.set(f.subarray(d, 2 * d));
    sum.set(f.subarray(2 * d));
    h.set(hv);
  }

  /**
   * Counts the "\n" and the "\r" bytes of input[start, end) in one pass.
   *
   * @param start First byte.
   * @param end End (exclusive).
   * @returns The counts.
   */
  countBreaks(start: number, end: number): { numLf: number; numCr: number } {
    const numLf = this.#ex.csvCountBreaks(this.#src + start, end - start, this.#state + 8);
    return { numLf, numCr: new Int32Array(this.#memory.buffer, this.#state + 8, 1)[0] };
  }
}
