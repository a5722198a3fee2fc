/**
 * The WebAssembly reader of numeric CSV (data/csv.ts's fast path): the
 * header in TypeScript (papaparse, as the streaming reader reads it), the
 * rows by the core's CSV kernel (`CsvRowParser`, core/csv_kernels.ts) block
 * by block into csv.ts's sink, which keeps the statistics and copies the
 * rows to their destination exactly as for rows it parsed itself.
 *
 * ```
 *  bytes ──read 4 MiB──► parser input ──csvParseRows──► block of rows (f64) ──► sink.addBlock
 *                           ▲  whole lines only; the cut line is carried over       │
 *                           └── hard cells (Number() on their text) ◄───────────────┘
 * ```
 *
 * The reader answers "fallback" — and the caller reads the input again with
 * the papaparse path — for anything it does not read itself: "\r" line
 * breaks, a delimiter that is not one ASCII byte (or could be part of a
 * number), a quote anywhere after the header, a line longer than the input
 * block, and every row the kernel refuses (a blank around a number, an
 * empty or non-numeric cell, a wrong field count, a value out of range).
 * The papaparse path then gives the same data or names the problem with its
 * usual message, so both paths agree bit for bit and message for message.
 *
 * @module
 */
import { CSV_BAIL, CsvRowParser, type CsvRowPlan } from "../core/csv_kernels.ts";
import { csvCoreModule } from "../core/csv_core_module.ts";
import { ChunkFeeder } from "./_csv_chunks.ts";
import { detectDelimiter, EXTREME_ABS, F32_MAX, F32_MIN_NORMAL } from "./csv_checks.ts";

/** The part of csv.ts's sink this reader drives. */
export interface RowSink {
  /** Takes the first line's fields (the header, or the schema of a headerless file). */
  beginRows(fields: string[]): void;
  /** Fields per line, the covariates' and the response's fields. */
  readonly fieldPlan: { numFields: number; colIdx: Int32Array; respIdx: number };
  /** Rows per block. */
  readonly blockRows: number;
  /** Columns of X. */
  readonly numCols: number;
  /** Whether X is checked against f32's range. */
  readonly f32: boolean;
  /**
   * Takes a run of rows summarised elsewhere (`part`: the run's statistics,
   * see `ColumnStats.addSegment`).
   */
  addSegment(
    xs: Float64Array,
    ys: Float64Array,
    m: number,
    lines: number,
    part: { lo: Float64Array; hi: Float64Array; sum: Float64Array; h: Int32Array },
  ): void;
  /** Takes a block of rows (`ranges`: the block's statistics, see `ColumnStats.add`). */
  addBlock(
    xs: Float64Array,
    ys: Float64Array,
    m: number,
    lines: number,
    ranges?: (lo: Float64Array, hi: Float64Array, sum: Float64Array, h: Int32Array) => void,
  ): void;
}

/** Fills `into` from its start; returns the number of bytes, 0 at the end of the input. */
export type ByteSource = (into: Uint8Array) => number;
/** {@link ByteSource}, asynchronous. */
export type AsyncByteSource = (into: Uint8Array) => Promise<number>;

/**
 * How many reads the kernel finished ("done"; "parallel" of them on
 * workers) and left to papaparse ("fallback"); of the parallel reader's
 * guesses of a file's rows, how many missed ("missed": the file read again)
 * and how many gave X'X another stride than the count ("remerged": the
 * summaries merged again).
 */
export const csvWasmCounts = { done: 0, fallback: 0, parallel: 0, missed: 0, remerged: 0 };

/** Input bytes per kernel block. */
export const WASM_CSV_BLOCK_BYTES = 4 << 20;

let _available: boolean | undefined;
const _idle: CsvRowParser[] = [];

/**
 * A parser for one read (null when the core cannot run here); give it back
 * with {@link releaseCsvParser}.
 *
 * @returns A parser no other read uses, or null.
 */
export function acquireCsvParser(): CsvRowParser | null {
  if (_available === false) return null;
  const p = _idle.pop() ?? CsvRowParser.create(csvCoreModule());
  _available = p !== null;
  return p;
}

/**
 * Gives a parser of {@link acquireCsvParser} back.
 *
 * @param p The parser.
 */
export function releaseCsvParser(p: CsvRowParser): void {
  _idle.push(p);
}

/**
 * Counts the line breaks of an input with the core's kernel (16 bytes at a
 * time), reading it in blocks straight into the kernel's memory.
 *
 * @param source The bytes, in order.
 * @returns "\n" and "\r" counts and the length, or null without the core.
 */
export async function countBreaksWasm(
  source: AsyncByteSource,
): Promise<{ numLf: number; numCr: number; numBytes: number } | null> {
  const parser = acquireCsvParser();
  if (parser === null) return null;
  try {
    parser.reserveInput(WASM_CSV_BLOCK_BYTES);
    let numLf = 0, numCr = 0, numBytes = 0;
    for (;;) {
      const got = await source(parser.input().subarray(0, WASM_CSV_BLOCK_BYTES));
      if (got === 0) break;
      numBytes += got;
      const c = parser.countBreaks(0, got);
      numLf += c.numLf;
      numCr += c.numCr;
    }
    return { numLf, numCr, numBytes };
  } finally {
    releaseCsvParser(parser);
  }
}

/** Bytes that may be part of a number or a line break: not delimiters for the kernel. */
const _NOT_DELIMITERS = new Set([...'0123456789.+-eE\r\n"'].map((c) => c.charCodeAt(0)));

/** Number of leading bytes that form a UTF-8 byte-order mark (0 or 3). */
function _bom(b: Uint8Array): number {
  return b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
}

function _fields(line: string, delimiter: string): string[] {
  let out: string[] = [];
  new ChunkFeeder(delimiter, {
    record(f) {
      if (out.length === 0) out = f;
    },
  }).feed(line, true);
  return out;
}

/** Options of {@link readCsvWasm}. */
export interface ReadCsvWasmOptions {
  /** The GLM family. */
  family: string;
  /** Whether the first line is a header. */
  header: boolean;
  /** The delimiter option (undefined: detected). */
  delimiter: string | undefined;
}

/**
 * Reads a numeric CSV input through the core's kernel into `sink`.
 *
 * @param source The bytes, in order.
 * @param sink csv.ts's sink (fresh: nothing recorded yet).
 * @param opts The family, whether the first line is a header, and the delimiter option.
 * @returns "done" (the sink holds every row; call its finish()), or "fallback"
 *   (read the input again with the papaparse path; the sink may hold rows).
 */
export function readCsvWasm(
  source: ByteSource,
  sink: RowSink,
  opts: ReadCsvWasmOptions,
): "done" | "fallback" {
  const steps = _steps(sink, opts);
  let r = steps.next(0);
  while (!r.done) r = steps.next(source(r.value));
  csvWasmCounts[r.value]++;
  return r.value;
}

/**
 * {@link readCsvWasm} with an asynchronous source (other tasks run between reads).
 *
 * @param source The bytes, in order.
 * @param sink csv.ts's sink (fresh).
 * @param opts As {@link readCsvWasm}.
 * @returns "done" or "fallback", as {@link readCsvWasm}.
 */
export async function readCsvWasmAsync(
  source: AsyncByteSource,
  sink: RowSink,
  opts: ReadCsvWasmOptions,
): Promise<"done" | "fallback"> {
  const steps = _steps(sink, opts);
  let r = steps.next(0);
  while (!r.done) r = steps.next(await source(r.value));
  csvWasmCounts[r.value]++;
  return r.value;
}

/**
 * {@link readCsvWasm} as steps the caller drives: each step yields the
 * buffer to fill next and takes the number of bytes put in it (0 at the
 * end of the input); the rows reach `sink` block by block as they are
 * parsed, and the generator returns "done" or "fallback" as
 * {@link readCsvWasm} does. For a reader that hands rows on while it reads
 * (csv.ts's `openCsvRows`).
 *
 * @param sink csv.ts's sink (fresh).
 * @param opts As {@link readCsvWasm}.
 * @returns The steps.
 */
export function csvWasmSteps(
  sink: RowSink,
  opts: ReadCsvWasmOptions,
): Generator<Uint8Array, "done" | "fallback", number> {
  return _steps(sink, opts);
}

/** The line format and the columns, from the first block of the input. */
export interface CsvPrepared {
  /** What the kernel needs. */
  plan: CsvRowPlan;
  /** Byte offset of the first data line. */
  dataStart: number;
}

/**
 * Reads the first line(s) of the input (`input[0, len)`; `eof` when that is
 * all of it) into `sink` and makes the kernel's plan, or answers "fallback".
 *
 * @param input The first block.
 * @param len Its length.
 * @param eof Whether it is the whole input.
 * @param sink The sink (takes the header).
 * @param opts The reader's options.
 * @returns The plan and where the data start, or "fallback".
 */
export function prepareCsvWasm(
  input: Uint8Array,
  len: number,
  eof: boolean,
  sink: RowSink,
  opts: ReadCsvWasmOptions,
): CsvPrepared | "fallback" {
  const start = _bom(input);
  let nl1 = -1;
  for (let i = start; i < len; i++) {
    const c = input[i];
    if (c === 10 || c === 13) {
      nl1 = i;
      break;
    }
  }
  if (nl1 < 0) return "fallback"; // one line, or a line longer than a block
  const crlf = input[nl1] === 13;
  if (crlf && input[nl1 + 1] !== 10) return "fallback"; // "\r" line breaks
  const nlLen = crlf ? 2 : 1;
  let nl2 = input.indexOf(10, nl1 + nlLen);
  if (nl2 >= len) nl2 = -1;
  if (nl2 < 0 && !eof) return "fallback";
  const next0 = nl1 + nlLen;
  const next1 = nl2 < 0 ? len : crlf && input[nl2 - 1] === 13 ? nl2 - 1 : nl2;
  const decoder = new TextDecoder("utf-8");
  const header = decoder.decode(input.subarray(start, nl1));
  let delimiter = opts.delimiter;
  if (delimiter === undefined) {
    const found = detectDelimiter(header, decoder.decode(input.subarray(next0, next1)));
    if (typeof found !== "string") return "fallback"; // the papaparse path names the problem
    delimiter = found;
  }
  const d = delimiter.charCodeAt(0);
  if (delimiter.length !== 1 || d >= 128 || _NOT_DELIMITERS.has(d)) return "fallback";
  // A quote in the first line may open a field that spans lines.
  if ((header.split('"').length - 1) % 2 !== 0) return "fallback";
  const first = _fields(header, delimiter);
  if (first.length === 0 || first.length > 2048) return "fallback";
  sink.beginRows(first); // throws the schema's errors, as the papaparse path would
  const { numFields, colIdx, respIdx } = sink.fieldPlan;
  const numCols = sink.numCols;
  const intercept = numCols === colIdx.length + 1;
  const colMap = new Int32Array(numFields).fill(-1);
  for (let j = 0; j < colIdx.length; j++) colMap[colIdx[j]] = j + (intercept ? 1 : 0);
  colMap[respIdx] = -2;
  const family = opts.family === "logistic" ? 0 : opts.family === "poisson" ? 2 : 1;
  const plan: CsvRowPlan = {
    delimiter: d,
    crlf,
    numFields,
    colMap,
    numCols,
    intercept,
    family,
    f32check: sink.f32,
  };
  return { plan, dataStart: opts.header ? next0 : start };
}

/** The reader, as steps that each ask for bytes to be read into a buffer. */
function* _steps(
  sink: RowSink,
  opts: ReadCsvWasmOptions,
): Generator<Uint8Array, "done" | "fallback", number> {
  const parser = acquireCsvParser();
  if (parser === null) return "fallback";
  try {
    return yield* _read(parser, sink, opts);
  } finally {
    releaseCsvParser(parser);
  }
}

function* _read(
  parser: CsvRowParser,
  sink: RowSink,
  opts: ReadCsvWasmOptions,
): Generator<Uint8Array, "done" | "fallback", number> {
  const cap = WASM_CSV_BLOCK_BYTES;
  parser.reserveInput(cap);
  let input = parser.input();
  // First block: the header, the line after it, the line format, the delimiter.
  let len = 0;
  let eof = false;
  while (len < cap) {
    const got: number = yield input.subarray(len, cap);
    if (got === 0) {
      eof = true;
      break;
    }
    len += got;
  }
  const prep = prepareCsvWasm(input, len, eof, sink, opts);
  if (prep === "fallback") return "fallback";
  const { plan } = prep;
  const { numCols, family } = plan;
  const blockRows = sink.blockRows;
  parser.setPlan(plan, cap, blockRows);
  input = parser.input();
  // The data: from the line after the header (or from the first line).
  let off = prep.dataStart;
  if (off > len) off = len;
  input.copyWithin(0, off, len);
  len -= off;
  let inBlock = 0, linesInBlock = 0;
  let pos = 0; // input[pos, len) is still to parse
  for (;;) {
    if (!eof && len - pos < cap >> 3) {
      // Refill: the unparsed tail to the front, then read.
      if (pos > 0) {
        input.copyWithin(0, pos, len);
        len -= pos;
        pos = 0;
      }
      const got: number = yield input.subarray(len, cap);
      if (got === 0) eof = true;
      else len += got;
      continue;
    }
    const r = parser.parse(pos, len, eof, inBlock, blockRows - inBlock);
    if (r.status === CSV_BAIL) return "fallback";
    if (r.hard.length > 0) {
      const xs = parser.x(blockRows), ys = parser.y(blockRows);
      const h = r.hard;
      for (let k = 0; k < h.length; k += 3) {
        let text = "";
        for (let i = pos + h[k + 1], e = i + h[k + 2]; i < e; i++) {
          text += String.fromCharCode(input[i]);
        }
        const v = +text;
        if (!(v - v === 0) || v > EXTREME_ABS || v < -EXTREME_ABS) return "fallback";
        if (h[k] < 0) {
          if (family === 0 ? v !== 0 && v !== 1 : family === 2 && (v < 0 || v % 1 !== 0)) {
            return "fallback";
          }
          ys[inBlock - h[k] - 1] = v;
        } else {
          if (
            plan.f32check &&
            (v > F32_MAX || v < -F32_MAX || (v !== 0 && v < F32_MIN_NORMAL && v > -F32_MIN_NORMAL))
          ) {
            return "fallback";
          }
          xs[inBlock * numCols + h[k]] = v;
        }
      }
    }
    inBlock += r.rows;
    linesInBlock += r.lines;
    if (inBlock === blockRows) {
      sink.addBlock(
        parser.x(blockRows),
        parser.y(blockRows),
        blockRows,
        linesInBlock,
        (lo, hi, sum, h) => parser.blockStats(blockRows, lo, hi, sum, h),
      );
      inBlock = 0;
      linesInBlock = 0;
    }
    pos += r.consumed;
    if (r.consumed === 0 && r.rows === 0 && r.lines === 0) {
      if (eof) break; // nothing left
      if (pos === 0 && len === cap) return "fallback"; // a line longer than the block
      // Otherwise: an incomplete last line; the refill above brings the rest.
      input.copyWithin(0, pos, len);
      len -= pos;
      pos = 0;
      const got: number = yield input.subarray(len, cap);
      if (got === 0) eof = true;
      else len += got;
    }
    if (eof && pos === len) break;
  }
  if (inBlock > 0 || linesInBlock > 0) {
    sink.addBlock(
      parser.x(inBlock),
      parser.y(inBlock),
      inBlock,
      linesInBlock,
      (lo, hi, sum, h) => parser.blockStats(inBlock, lo, hi, sum, h),
    );
  }
  return "done";
}
