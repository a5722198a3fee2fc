/**
 * The parallel CSV reader: the file's data lines split into segments of
 * `csvParallelSizes.segBytes` that workers (data/_csv_worker.ts) read,
 * parse with the core's kernel and summarise (per-column minimum, maximum,
 * sum and hash of the segment's rows), while this thread places their rows
 * and merges them in file order into csv.ts's sink: the summaries merged,
 * X'X on the rows the one-thread reader would take.
 *
 * The workers start first and count the file's line breaks (ranges handed
 * out one by one; this thread counts some too while they start); the header
 * gives the kernel's plan at once, and the counts size X and y.
 *
 * ```
 *  main: open ──count j──► workers ──counts──► main: allocate (when all are in)
 *  main: header ─► plan ──init──► worker 0: seg 0, 2, 4, …  ──rows parsed──┐
 *                         └─init──► worker 1: seg 1, 3, 5, …  ──rows parsed──┤
 *  main: first row of seg k (once 0 … k-1 are parsed) ──place k──► its worker ┘
 *  worker: X (f32 or f64) and y straight into the shared arena ──summary, X'X's rows──► main
 *  main: sink.addPlaced, segments in order (at most 2 parsed ahead per worker)
 * ```
 *
 * A worker parses into two row ranges of its own memory in turn and is
 * given its next segment once the one two back is placed. With an arena
 * that is not shared, "place" copies the rows into one of two shared slots
 * instead, and this thread copies them into the arena (sink.addSegment).
 *
 * Any segment the kernel does not read (a quote, a bad cell, a line longer
 * than `csvParallelSizes.margin`) makes the whole read answer "fallback".
 *
 * @module
 */
import type { CsvRowParser, CsvRowPlan } from "../core/csv_kernels.ts";
import { csvCoreModule } from "../core/csv_core_module.ts";
import {
  acquireCsvParser,
  csvWasmCounts,
  prepareCsvWasm,
  type ReadCsvWasmOptions,
  releaseCsvParser,
  type RowSink,
  WASM_CSV_BLOCK_BYTES,
} from "./_csv_wasm.ts";

/**
 * Sizes of the parallel reader: files of at least `minBytes` are parsed by
 * workers, in segments of `segBytes`, each read `margin` bytes past its end
 * to finish its last line. (Tests shrink them to run the workers on small
 * files.)
 */
export const csvParallelSizes = { minBytes: 16 << 20, segBytes: 4 << 20, margin: 1 << 20 };

/** The first message to a worker: the file and the sizes. */
export interface CsvWorkerOpen {
  /** Message type. */
  type: "open";
  /** The file. */
  path: string;
  /** The compiled core (null: the worker compiles it). */
  module: WebAssembly.Module | null;
  /** File size in bytes. */
  fileSize: number;
  /** Bytes per segment (and per counted range). */
  segBytes: number;
  /** Bytes read past a segment's end. */
  margin: number;
}

/** The message that starts the parse (after the counts): the kernel's plan. */
export interface CsvWorkerInit {
  /** Message type. */
  type: "init";
  /** The kernel's plan. */
  plan: CsvRowPlan;
  /** Byte offset of the first data line. */
  dataStart: number;
  /** Where the rows go (null: into shared slots; else given with the first "place"). */
  placement: CsvPlacement | null;
}

/**
 * Where the workers write the rows themselves: X (f32 or f64, row-major)
 * and y (f64) in a shared memory, the row a segment starts at given by this
 * thread once the rows before it are known.
 */
export interface CsvPlacement {
  /** The shared memory X and y live in. */
  memory: WebAssembly.Memory;
  /** Byte offset of X. */
  x: number;
  /** Byte offset of y. */
  y: number;
  /** Whether X holds f32 (else f64). */
  f32: boolean;
  /** X'X's rows: g % gramStride = 0 and g / gramStride < gramMaxRows (ColumnStats). */
  gramStride: number;
  /** See gramStride. */
  gramMaxRows: number;
}

/** csv.ts's sink, with what the workers need to write the rows themselves. */
export interface PlacingSink extends RowSink {
  /**
   * Where the rows go (null: the workers hand them over in shared slots and
   * {@link RowSink.addSegment} copies them).
   */
  placement(): CsvPlacement | null;
  /** The first row of the next m rows (throws when there is no room for them). */
  reserveRows(m: number): number;
  /**
   * Takes m rows a worker wrote: their statistics (`part`), response range
   * and the rows among them that X'X takes (`gram`, one after the other).
   */
  addPlaced(
    m: number,
    lines: number,
    part: { lo: Float64Array; hi: Float64Array; sum: Float64Array; h: Int32Array },
    yLo: number,
    yHi: number,
    gram: Float64Array,
  ): void;
}

/** A worker's line-break counts of the file's bytes [j·segBytes, (j+1)·segBytes). */
export interface CsvCountDone {
  /** Message type. */
  type: "count";
  /** Range index. */
  j: number;
  /** "\n" bytes. */
  numLf: number;
  /** "\r" bytes. */
  numCr: number;
  /** Bytes read. */
  numBytes: number;
}

/** A worker's answer for one segment parsed (its rows kept until placed). */
export interface CsvSegmentParsed {
  /** Message type. */
  type: "seg";
  /** Segment index. */
  k: number;
  /** "ok", or "fallback" when the kernel does not read it. */
  status: "ok" | "fallback";
  /** Rows. */
  rows: number;
}

/** A worker's answer for one segment placed. */
export interface CsvSegmentDone {
  /** Message type. */
  type: "placed";
  /** Segment index. */
  k: number;
  /** Rows. */
  rows: number;
  /** Lines (blank ones included). */
  lines: number;
  /** Smallest response (+∞ without rows). */
  yLo: number;
  /** Largest response (-∞ without rows). */
  yHi: number;
  /** The rows X'X takes, one after the other (with a placement; else null). */
  gram: Float64Array | null;
  /**
   * Without a placement: rows × numCols, row-major, at the start of one of
   * the worker's two shared slots (null without rows): the worker writes
   * that slot again only for its next segment but one, which it is given
   * after this one has been taken. With one: null.
   */
  x: Float64Array | null;
  /** rows responses (in the same slot). */
  y: Float64Array | null;
  /** The rows' statistics (see `ColumnStats.addSegment`; null without rows). */
  part: { lo: Float64Array; hi: Float64Array; sum: Float64Array; h: Int32Array } | null;
}

/** Messages to a worker. */
export type CsvWorkerMessage =
  | CsvWorkerOpen
  | CsvWorkerInit
  | { type: "count"; j: number }
  | { type: "seg"; k: number }
  | { type: "place"; k: number; row: number; placement?: CsvPlacement | null }
  | { type: "close" };

const _EMPTY = new Float64Array(0);
const _NO_PART = { lo: _EMPTY, hi: _EMPTY, sum: _EMPTY, h: new Int32Array(0) };

type _Answer =
  | CsvSegmentParsed
  | CsvSegmentDone
  | CsvCountDone
  | { type: "error"; message: string; placing: boolean };

/**
 * The line-break counts of a file, as the workers found them: what the
 * allocation of X and y waits for.
 */
export interface CsvBreakCounts {
  /** "\n" bytes. */
  numLf: number;
  /** "\r" bytes. */
  numCr: number;
  /** Bytes. */
  numBytes: number;
}

/**
 * Reads a regular file with `numWorkers` workers into the sink `counted`
 * makes. The workers start at once and count the line breaks of the file
 * (in ranges of `segBytes`, handed out one by one), and so does this thread
 * once it has read the header, while the workers start up; the header gives
 * the kernel's plan (through `probe`, a sink that allocates nothing) and the
 * workers parse the data lines as soon as they have no range left to count;
 * `counted` is called with the counts (and makes the sink that allocates X
 * and y), then the parsed segments are placed and merged in file order.
 *
 * @param path The file.
 * @param fileSize Its size.
 * @param counted Makes csv.ts's sink (fresh) from the file's counts.
 * @param probe Makes a sink that reads the header and allocates nothing.
 * @param opts The reader's options.
 * @param numWorkers Workers (≥ 1).
 * @returns "done"; "refused" when the kernel does not read the file's
 *   header or layout, or "fallback" when it stopped later (either way, read
 *   again with the papaparse path; when `counted` was not called, the counts
 *   are to be made too).
 */
export async function readCsvParallel(
  path: string,
  fileSize: number,
  counted: (counts: CsvBreakCounts) => PlacingSink,
  probe: () => RowSink,
  opts: ReadCsvWasmOptions,
  numWorkers: number,
): Promise<"done" | "fallback" | "refused"> {
  const r = csvCoreModule() === null
    ? "fallback"
    : await _readParallelWith(path, fileSize, counted, probe, opts, numWorkers);
  csvWasmCounts[r === "done" ? "done" : "fallback"]++;
  if (r === "done") csvWasmCounts.parallel++;
  return r;
}

async function _readAt(file: Deno.FsFile, into: Uint8Array, at: number): Promise<number> {
  await file.seek(at, Deno.SeekMode.Start);
  let n = 0;
  while (n < into.length) {
    const got = await file.read(into.subarray(n));
    if (got === null) break;
    n += got;
  }
  return n;
}

async function _readParallelWith(
  path: string,
  fileSize: number,
  counted: (counts: CsvBreakCounts) => PlacingSink,
  probe: () => RowSink,
  opts: ReadCsvWasmOptions,
  numWorkers: number,
): Promise<"done" | "fallback" | "refused"> {
  const { segBytes, margin } = csvParallelSizes;
  const numRanges = Math.max(1, Math.ceil(fileSize / segBytes));
  const workers: Worker[] = [];
  const parsed = new Map<number, CsvSegmentParsed>();
  const placed = new Map<number, CsvSegmentDone>();
  let numLf = 0, numCr = 0, numBytes = 0, numCounted = 0;
  // Per worker: "place" messages not yet answered (their rows may still be
  // being written), and whether it died (it writes nothing more).
  const pending: number[] = [], dead: boolean[] = [];
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  let nextRange = 0; // next range to count
  let next = 0; // next segment to hand out
  let numSegs = 0;
  const giveRange = (w: Worker) => {
    if (nextRange < numRanges) w.postMessage({ type: "count", j: nextRange++ });
  };
  const give = (w: Worker) => {
    if (next < numSegs) w.postMessage({ type: "seg", k: next++ });
  };
  const until = async (done: () => boolean) => {
    while (!done() && failure === null) {
      await new Promise<void>((r) => wake = r);
      wake = null;
    }
  };
  const file = await Deno.open(path, { read: true });
  let mainParser: CsvRowParser | null = null;
  try {
    for (let i = 0; i < Math.min(numWorkers, numRanges); i++) {
      let w: Worker;
      try {
        w = new Worker(new URL("./_csv_worker.ts", import.meta.url), { type: "module" });
      } catch {
        return "fallback"; // no workers here
      }
      workers.push(w);
      pending.push(0);
      dead.push(false);
      w.onmessage = (e: MessageEvent<_Answer>) => {
        const a = e.data;
        if (a.type === "error") {
          failure ??= new Error(a.message);
          if (a.placing) pending[i]--;
        } else if (a.type === "count") {
          numLf += a.numLf;
          numCr += a.numCr;
          numBytes += a.numBytes;
          numCounted++;
          giveRange(w);
        } else if (a.type === "seg") parsed.set(a.k, a);
        else {
          pending[i]--;
          placed.set(a.k, a);
        }
        wake?.();
      };
      w.onerror = (e) => {
        e.preventDefault();
        dead[i] = true;
        failure ??= new Error(`CSV worker failed: ${e.message}`);
        wake?.();
      };
      const open: CsvWorkerOpen = {
        type: "open",
        path,
        module: csvCoreModule(),
        fileSize,
        segBytes,
        margin,
      };
      w.postMessage(open);
      // Two ranges in flight per worker; each count answered brings the next.
      giveRange(w);
      giveRange(w);
    }
    // The header: the kernel's plan, sent at once, so that a worker parses
    // as soon as it has no range left to count.
    const first = new Uint8Array(Math.min(fileSize, WASM_CSV_BLOCK_BYTES));
    const firstLen = await _readAt(file, first, 0);
    const prep = prepareCsvWasm(first, firstLen, firstLen === fileSize, probe(), opts);
    if (prep === "fallback") return "refused";
    const { plan, dataStart } = prep;
    numSegs = Math.max(1, Math.ceil((fileSize - dataStart) / segBytes));
    const init: CsvWorkerInit = { type: "init", plan, dataStart, placement: null };
    for (const w of workers) w.postMessage(init);
    // Two segments in flight per worker; segment k goes to worker k mod W.
    for (let round = 0; round < 2; round++) for (const w of workers) give(w);
    // Meanwhile this thread counts ranges too (the workers are still starting).
    mainParser = acquireCsvParser();
    if (mainParser !== null) {
      mainParser.reserveInput(segBytes);
      while (nextRange < numRanges && failure === null) {
        const j = nextRange++;
        const a = j * segBytes, b = Math.min(fileSize, a + segBytes);
        const len = await _readAt(file, mainParser.input().subarray(0, b - a), a);
        numLf += mainParser.countByte(0, len, 10);
        numCr += mainParser.countByte(0, len, 13);
        numBytes += len;
        numCounted++;
      }
    }
    await until(() => numCounted === numRanges);
    if (failure !== null) return "fallback";
    if (numBytes !== fileSize) return "fallback"; // the file changed meanwhile
    const sink = counted({ numLf, numCr, numBytes });
    // The same header, now into the sink that allocates X and y.
    if (prepareCsvWasm(first, firstLen, firstLen === fileSize, sink, opts) === "fallback") {
      return "fallback";
    }
    const placement = sink.placement();
    const told: boolean[] = workers.map(() => false);
    // Segment k is placed (its first row known) once the segments before it
    // are parsed, and merged in file order once placed.
    let toPlace = 0;
    for (let k = 0; k < numSegs;) {
      await until(() => placed.has(k) || parsed.has(toPlace));
      if (failure !== null) return "fallback";
      while (parsed.has(toPlace)) {
        const seg = parsed.get(toPlace)!;
        parsed.delete(toPlace);
        if (seg.status === "fallback") return "fallback";
        const wi = toPlace % workers.length;
        const row = placement === null ? 0 : sink.reserveRows(seg.rows);
        pending[wi]++;
        const msg: CsvWorkerMessage = { type: "place", k: toPlace, row };
        if (!told[wi]) msg.placement = placement;
        told[wi] = true;
        workers[wi].postMessage(msg);
        // With a placement, the worker places this segment before it parses its
        // next one (its messages are taken in order): that may use its rows' room.
        if (placement !== null) give(workers[wi]);
        toPlace++;
      }
      const seg = placed.get(k);
      if (seg === undefined) continue;
      placed.delete(k);
      k++;
      if (placement !== null) {
        sink.addPlaced(seg.rows, seg.lines, seg.part ?? _NO_PART, seg.yLo, seg.yHi, seg.gram!);
        continue;
      }
      if (seg.rows > 0) sink.addSegment(seg.x!, seg.y!, seg.rows, seg.lines, seg.part!);
      else sink.addSegment(_EMPTY, _EMPTY, 0, seg.lines, _NO_PART);
      // The worker's slot of this segment is free again: its next segment may use it.
      give(workers[seg.k % workers.length]);
    }
    return "done";
  } finally {
    if (mainParser !== null) releaseCsvParser(mainParser);
    file.close();
    // No worker may still write rows the caller frees after a fallback.
    while (pending.some((n, i) => n > 0 && !dead[i])) {
      await new Promise<void>((r) => wake = r);
      wake = null;
    }
    // An idle worker would keep the process alive: each read ends its own.
    for (const w of workers) w.terminate();
  }
}
