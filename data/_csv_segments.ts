/**
 * The segment reader of the parallel CSV reader (data/_csv_parallel.ts),
 * in a worker (data/_csv_worker.ts) or on the calling thread: it counts the
 * line breaks of the byte ranges it is sent, reads the segments it is sent,
 * parses their lines with the core's CSV kernel, takes their per-column
 * statistics and, once told the row a segment starts at, writes its rows
 * into the shared arena (or a shared slot), one answer per message.
 *
 * ```
 *  count j:   the "\n" and "\r" of the file's bytes [j·S, (j+1)·S)
 *  segment k: the lines whose first byte lies in [dataStart + k·S, dataStart + (k+1)·S)
 *  main ──open──► reader: parser, file ──ready──► main
 *  main ──count j──► reader: read, count ──counts of j──► main
 *  main ──plan, seg k──►   reader: read, count, parse (row range k's turn mod 2), Number() the
 *                          hard cells, statistics ──rows and line breaks of k──► main
 *  main ──place k at row r──► reader: X, y of k into the arena from row r ──statistics,
 *                          X'X's rows──► main   (no shared arena: into slot k's turn mod 2)
 * ```
 *
 * @module
 */
import { CSV_BAIL, CsvRowParser } from "../core/csv_kernels.ts";
import type {
  CsvCountDone,
  CsvSegmentDone,
  CsvSegmentParsed,
  CsvWorkerInit,
  CsvWorkerMessage,
  CsvWorkerOpen,
} from "./_csv_parallel.ts";
import { EXTREME_ABS, F32_MAX, F32_MIN_NORMAL } from "./csv_checks.ts";

/** Bytes read past a segment's end at first (the rest of the margin if its last line needs it). */
const _FIRST_MARGIN = 1 << 16;

/** A reader's answer to a message (null: none). */
export type CsvReaderAnswer =
  | CsvCountDone
  | CsvSegmentParsed
  | CsvSegmentDone
  | { type: "ready" };

/**
 * A segment reader: a function that takes the parallel reader's messages
 * one at a time, in order, and answers them (synchronously; it throws on
 * an error, which the caller reports).
 *
 * @returns The message handler.
 */
export function csvSegmentReader(): (msg: CsvWorkerMessage) => CsvReaderAnswer | null {
  let opened: CsvWorkerOpen | null = null;
  let init: CsvWorkerInit | null = null;
  let parser: CsvRowParser | null = null;
  let file: Deno.FsFile | null = null;
  let rowCap = 0;
  /** The two shared slots the rows of this worker's segments alternate between. */
  const slots: { x: Float64Array; y: Float64Array }[] = [];
  let segsDone = 0;
  let placesDone = 0;

  /**
   * Reads the file's bytes from `at` into `into` (all of them, or up to the
   * end of the file). Synchronous: this thread has nothing else to do
   * meanwhile, and a blocking read copies the bytes once, on this thread.
   */
  function _readAt(into: Uint8Array, at: number): number {
    file!.seekSync(at, Deno.SeekMode.Start);
    let n = 0;
    while (n < into.length) {
      const got = file!.readSync(into.subarray(n));
      if (got === null || got === 0) break;
      n += got;
    }
    return n;
  }

  /** Counts the line breaks of the file's bytes [j·segBytes, (j+1)·segBytes). */
  function _count(j: number): CsvCountDone {
    const { fileSize, segBytes } = opened!;
    const a = j * segBytes, b = Math.min(fileSize, a + segBytes);
    const len = _readAt(parser!.input().subarray(0, b - a), a);
    return { type: "count", j, ...parser!.countBreaks(0, len), numBytes: len };
  }

  /** A segment parsed, its rows kept in one of the two row ranges of the parser's block. */
  interface _Parsed {
    /** First row of its range. */
    from: number;
    rows: number;
    lines: number;
    part: CsvSegmentDone["part"];
    yLo: number;
    yHi: number;
  }

  /** Segments parsed and not yet placed (at most two), by index. */
  const parsedSegs = new Map<number, _Parsed>();

  /**
   * Parses segment k into the next of the two row ranges: its rows, or
   * "fallback"; with the line breaks of the segment's bytes.
   */
  function _segment(k: number): CsvSegmentParsed {
    const { fileSize, segBytes, margin } = opened!;
    const { plan, dataStart } = init!;
    const from = (segsDone++ % init!.ranges) * rowCap;
    const a = dataStart + k * segBytes, b = Math.min(fileSize, a + segBytes);
    const at = k === 0 ? a : a - 1;
    // The segment and a little more (its last line's end, as a rule); the rest
    // of the margin only when that line is longer.
    let to = Math.min(fileSize, b + Math.min(margin, _FIRST_MARGIN));
    const input = parser!.input();
    let len = _readAt(input.subarray(0, to - at), at);
    if (len === to - at && to < Math.min(fileSize, b + margin)) {
      const tail = input.subarray(Math.max(0, b - 1 - at), len);
      if (tail.indexOf(10) < 0) {
        to = Math.min(fileSize, b + margin);
        len += _readAt(input.subarray(len, to - at), at + len);
      }
    }
    // The line breaks of the segment's own bytes [a, b), read now for the
    // parse: the segments' counts add up to the data's (see CsvSegmentParsed).
    const c0 = a - at, c1 = Math.max(c0, Math.min(len, b - at));
    const counts = { ...parser!.countBreaks(c0, c1), numBytes: c1 - c0 };
    const none = (lines: number): CsvSegmentParsed => {
      parsedSegs.set(k, { from, rows: 0, lines, part: null, yLo: Infinity, yHi: -Infinity });
      return { type: "seg", k, status: "ok", rows: 0, ...counts };
    };
    const fallback: CsvSegmentParsed = { type: "seg", k, status: "fallback", rows: 0, ...counts };
    // First line: at a (segment 0), else after the first '\n' at or after a - 1.
    let start = 0;
    if (k > 0) {
      const nl = input.subarray(0, len).indexOf(10);
      if (nl < 0 || at + nl + 1 >= b) return none(0); // no line starts here
      start = nl + 1;
    }
    // End: after the first '\n' at or after b - 1, or the end of the file.
    let end: number;
    const atEof = to === fileSize;
    if (b === fileSize) end = len;
    else {
      const nl = input.subarray(0, len).indexOf(10, b - 1 - at);
      if (nl < 0) {
        if (!atEof) return fallback; // a line longer than the margin
        end = len;
      } else end = nl + 1;
    }
    const family = plan.family, numCols = plan.numCols;
    let pos = start, rows = 0, lines = 0;
    while (pos < end) {
      const r = parser!.parse(pos, end, end === len && atEof, from + rows, rowCap - rows);
      if (r.status === CSV_BAIL) return fallback;
      if (r.hard.length > 0) {
        const xs = parser!.x(rowCap, from), ys = parser!.y(rowCap, from);
        const h = r.hard, inp = parser!.input();
        for (let q = 0; q < h.length; q += 3) {
          let text = "";
          for (let i = pos + h[q + 1], e = i + h[q + 2]; i < e; i++) {
            text += String.fromCharCode(inp[i]);
          }
          const v = +text;
          if (!(v - v === 0) || v > EXTREME_ABS || v < -EXTREME_ABS) return fallback;
          if (h[q] < 0) {
            if (family === 0 ? v !== 0 && v !== 1 : family === 2 && (v < 0 || v % 1 !== 0)) {
              return fallback;
            }
            ys[rows - h[q] - 1] = v;
          } else {
            if (
              plan.f32check &&
              (v > F32_MAX || v < -F32_MAX ||
                (v !== 0 && v < F32_MIN_NORMAL && v > -F32_MIN_NORMAL))
            ) {
              return fallback;
            }
            xs[rows * numCols + h[q]] = v;
          }
        }
      }
      rows += r.rows;
      lines += r.lines;
      if (r.consumed === 0) break;
      pos += r.consumed;
    }
    if (pos < end) return fallback;
    if (rows === 0) return none(lines);
    // The rows' statistics, merged on the main thread (ColumnStats.addSegment),
    // taken while the rows are in the cache.
    const lo = new Float64Array(numCols).fill(Infinity);
    const hi = new Float64Array(numCols).fill(-Infinity);
    const sum = new Float64Array(numCols), h = new Int32Array(numCols).fill(0x811c9dc5 | 0);
    parser!.blockStats(rows, lo, hi, sum, h, from);
    // The response's range: the first of equal values stays, as in the row loop.
    const ys = parser!.y(rows, from);
    let yLo = Infinity, yHi = -Infinity;
    for (let i = 0; i < rows; i++) {
      const v = ys[i];
      if (v < yLo) yLo = v;
      if (v > yHi) yHi = v;
    }
    parsedSegs.set(k, { from, rows, lines, part: { lo, hi, sum, h }, yLo, yHi });
    return { type: "seg", k, status: "ok", rows, ...counts };
  }

  /**
   * Places segment k's rows from row `row` on: straight into X and y when the
   * main thread gave a placement (X rounded to f32 when it holds f32), with
   * the rows among them that X'X takes; else into a shared slot.
   */
  function _place(k: number, row: number): CsvSegmentDone {
    const seg = parsedSegs.get(k);
    if (seg === undefined) throw new Error(`CSV worker: segment ${k} was not parsed here`);
    parsedSegs.delete(k);
    const { from, rows, lines, part, yLo, yHi } = seg;
    const done: CsvSegmentDone = {
      type: "placed",
      k,
      rows,
      lines,
      yLo,
      yHi,
      gram: null,
      gramRows: null,
      x: null,
      y: null,
      part,
    };
    if (rows === 0) return done;
    const numCols = init!.plan.numCols, place = init!.placement;
    // X rounded to f32 by the kernel (it may grow the parser's memory: before the views below).
    const f32 = place !== null && place.f32 ? parser!.xF32Bytes(rows, from) : null;
    const xs = parser!.x(rows, from), ys = parser!.y(rows, from);
    if (place !== null) {
      // Fresh views: the memory may have grown since.
      const buf = place.memory.buffer;
      if (f32 !== null) new Uint8Array(buf, place.x + row * numCols * 4, f32.length).set(f32);
      else new Float64Array(buf, place.x + row * numCols * 8, rows * numCols).set(xs);
      new Float64Array(buf, place.y + row * 8, rows).set(ys);
      // Rows g = row + i with g % stride = 0 and g / stride < maxRows, for
      // any stride of [gramStride, gramStrideHi] (X'X's stride is not known
      // yet when the main thread guessed the file's rows).
      const lo = place.gramStride, hi = place.gramStrideHi, maxRows = place.gramMaxRows;
      const taken: number[] = [];
      if (lo === hi) {
        const end = Math.min(row + rows, maxRows * lo);
        for (let g = Math.ceil(row / lo) * lo; g < end; g += lo) taken.push(g);
      } else {
        // Each stride's rows marked, then taken in order.
        const mark = new Uint8Array(rows);
        for (let s = lo; s <= hi; s++) {
          const end = Math.min(row + rows, maxRows * s);
          for (let g = Math.ceil(row / s) * s; g < end; g += s) mark[g - row] = 1;
        }
        for (let i = 0; i < rows; i++) if (mark[i] !== 0) taken.push(row + i);
      }
      const gram = new Float64Array(taken.length * numCols);
      for (let t = 0; t < taken.length; t++) {
        const i = taken[t] - row;
        gram.set(xs.subarray(i * numCols, (i + 1) * numCols), t * numCols);
      }
      done.gram = gram;
      done.gramRows = Int32Array.from(taken);
      return done;
    }
    // The rows to this segment's slot (see CsvSegmentDone).
    const s = placesDone++ & 1;
    let slot = slots[s];
    if (slot === undefined || slot.y.length < rows) {
      const cap = Math.max(1024, Math.ceil(rows * 1.25));
      const buf = new SharedArrayBuffer(cap * (numCols + 1) * 8);
      slot = {
        x: new Float64Array(buf, 0, cap * numCols),
        y: new Float64Array(buf, cap * numCols * 8),
      };
      slots[s] = slot;
    }
    slot.x.set(xs);
    slot.y.set(ys);
    done.x = slot.x;
    done.y = slot.y;
    return done;
  }

  return (msg: CsvWorkerMessage): CsvReaderAnswer | null => {
    if (msg.type === "open") {
      opened = msg;
      parser = CsvRowParser.create(msg.module);
      if (parser === null) throw new Error("the WebAssembly core does not run in this thread");
      parser.reserveInput(msg.segBytes + msg.margin + 16);
      file = Deno.openSync(msg.path, { read: true });
      return { type: "ready" };
    }
    if (msg.type === "init") {
      init = msg;
      // A line holds numFields - 1 delimiters, a line break (but the last)
      // and at least one byte for the response: a bound on a segment's rows.
      const srcCap = opened!.segBytes + opened!.margin + 16;
      rowCap = Math.floor(srcCap / (msg.plan.numFields + 1)) + 2;
      // Ranges of rowCap rows: a segment is parsed while the ones before wait to be placed.
      parser!.setPlan(msg.plan, srcCap, msg.ranges * rowCap);
      return null;
    }
    if (msg.type === "count") return _count(msg.j);
    if (msg.type === "close") {
      file?.close();
      file = null;
      return null;
    }
    if (msg.type === "place") {
      if (msg.placement !== undefined) init!.placement = msg.placement;
      return _place(msg.k, msg.row);
    }
    return _segment(msg.k);
  };
}
