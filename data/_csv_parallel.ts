/**
 * The parallel CSV reader: the file's data lines split into segments of
 * `csvParallelSizes.segBytes` that readers (data/_csv_segments.ts: workers,
 * data/_csv_worker.ts, and this thread) read, count, parse with the core's
 * kernel and summarise (per-column minimum, maximum, sum and hash of the
 * segment's rows), while this thread places their rows and merges them in
 * file order into csv.ts's sink: the summaries merged, X'X on the rows the
 * one-thread reader would take.
 *
 * With a shared arena (the CLI's) nothing waits for a count of the file's
 * line breaks: X and y are allocated for a guess of the records (the first
 * block's line breaks per byte, ± {@link CSV_GUESS_SPREAD}), the readers
 * write the rows while they parse, with X'X's candidate rows for every
 * stride the guess allows, and each segment's line breaks are counted on
 * the bytes read for its parse. Once all is parsed, the counts give X'X's
 * stride and the read is what it would have been with the count first (or,
 * when the guess missed, the file is read again with the counts).
 *
 * ```
 *  main: open ──► worker (starting)            main: header ─► plan, guess, X and y
 *  seg k to whichever reader is ready and has room (a few row ranges each):
 *     worker: read, count, parse, summary ──┐     main (as a reader): the same ──┐
 *  main: first row of seg k (once 0 … k-1 are parsed) ──place k──► its reader ──┘
 *  reader: X (f32 or f64) and y straight into the shared arena ──summary, X'X's rows──► main
 *  main: sink.addPlaced, segments in order; at the end the counts check the guess
 * ```
 *
 * Without a shared arena the readers count the line breaks first (ranges
 * handed out one by one), and "place" copies the rows into one of two
 * shared slots instead, from which this thread copies them into the arena
 * (sink.addSegment).
 *
 * Any segment the kernel does not read (a quote, a bad cell, a line longer
 * than `csvParallelSizes.margin`) makes the whole read answer "refused".
 *
 * @module
 */
import type { CsvRowParser, CsvRowPlan } from "../core/csv_kernels.ts";
import { csvCoreModule } from "../core/csv_core_module.ts";
import { countByte } from "./_csv_chunks.ts";
import { ColumnStats } from "./column_stats.ts";
import type { CsvReaderAnswer, csvSegmentReader } from "./_csv_segments.ts";
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
export const csvParallelSizes = {
  minBytes: 16 << 20,
  segBytes: 4 << 20,
  margin: 1 << 20,
  /**
   * Bytes of the first block (the header, and the sample of lines the guess
   * of the rows takes). When it holds fewer than two line breaks, a block of
   * `WASM_CSV_BLOCK_BYTES` (4 MiB) is read instead.
   */
  headBytes: 1 << 20,
};

/**
 * The guess of a file's records (from the first block's line breaks per
 * byte) is widened by this fraction either way: X and y are allocated for
 * the upper end, and X'X's rows are gathered for every stride of the range.
 */
export const CSV_GUESS_SPREAD = 1 / 32;

/** At most this many strides of X'X are gathered for a guess (else the count comes first). */
const _MAX_GUESS_STRIDES = 8;

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
  /** Row ranges of the reader's memory: segments it may hold parsed and not yet placed. */
  ranges: number;
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
  /**
   * The largest stride X'X may have (= gramStride once the rows are
   * counted): before, the workers send the rows of every stride of
   * [gramStride, gramStrideHi].
   */
  gramStrideHi: number;
  /** See gramStride. */
  gramMaxRows: number;
}

/**
 * X and y allocated before the file's line breaks are counted, for a guess
 * of its records.
 */
export interface CsvGuess {
  /** Where the workers write (the strides of X'X for every count of the guess). */
  placement: CsvPlacement;
  /** Rows X and y hold. */
  capacity: number;
}

/**
 * What csv.ts gives the parallel reader to write the rows before the line
 * breaks are counted (a shared arena).
 */
export interface CsvSpeculation {
  /**
   * Allocates X and y for `rowsHi` rows of `numCols` columns: the placement,
   * with the strides X'X has for `rowsLo` … `rowsHi` records, or null when
   * it cannot.
   */
  reserve(numCols: number, rowsLo: number, rowsHi: number): CsvGuess | null;
  /** Frees what {@link reserve} allocated (the guess missed, or the read stopped). */
  discard(): void;
  /**
   * The file's counts, once they are in, when the sink made for the guess
   * (`counted` with the guessed records) is the one the read ends with.
   */
  counted(counts: CsvBreakCounts): void;
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
  /** "\n" bytes among the segment's bytes [dataStart + k·segBytes, dataStart + (k+1)·segBytes). */
  numLf: number;
  /** "\r" bytes among them. */
  numCr: number;
  /** Those bytes read (less than segBytes at the end of the file). */
  numBytes: number;
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
  /**
   * The rows X'X may take, one after the other (with a placement; else
   * null): those of every stride of the placement's range.
   */
  gram: Float64Array | null;
  /** Their rows' indices in X (with a placement; else null). */
  gramRows: Int32Array | null;
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

type _Answer = CsvReaderAnswer | { type: "error"; message: string; placing: boolean };

/** What the reader needs of a worker (a `Worker`, or {@link _localReader}). */
interface _Reader {
  postMessage(msg: CsvWorkerMessage): void;
  onmessage: ((e: MessageEvent<_Answer>) => void) | null;
  onerror: ((e: ErrorEvent) => void) | null;
  terminate(): void;
}

/**
 * The segment reader on the calling thread, with a worker's interface: each
 * message is handled in a task of its own (a `MessageChannel` hop), so that
 * the workers' answers are taken in between, as they come.
 */
function _localReader(segmentReader: typeof csvSegmentReader): _Reader {
  const handle = segmentReader();
  const queue: CsvWorkerMessage[] = [];
  const channel = new MessageChannel();
  let closed = false;
  const reader: _Reader = {
    onmessage: null,
    onerror: null,
    postMessage(msg: CsvWorkerMessage): void {
      if (closed) return;
      queue.push(msg);
      channel.port2.postMessage(null);
    },
    terminate(): void {
      if (closed) return;
      closed = true;
      handle({ type: "close" });
      channel.port1.close();
      channel.port2.close();
    },
  };
  channel.port1.onmessage = () => {
    const msg = queue.shift();
    if (msg === undefined || closed) return;
    let answer: _Answer | null;
    try {
      answer = handle(msg);
    } catch (e) {
      answer = {
        type: "error",
        message: e instanceof Error ? e.message : String(e),
        placing: msg.type === "place",
      };
    }
    if (answer !== null) reader.onmessage?.({ data: answer } as MessageEvent<_Answer>);
  };
  return reader;
}

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
 * makes. The workers start at once; the header gives the kernel's plan
 * (through `probe`, a sink that allocates nothing) and the workers parse
 * the data lines, each segment's line breaks counted on the bytes read for
 * the parse. `counted` is called with the file's line-break counts (and
 * makes the sink that allocates X and y, or takes those `speculation`
 * reserved), and the parsed segments are merged in file order.
 *
 * With a `speculation` (a shared arena), X and y are allocated before the
 * count, for a guess of the records (the first block's line breaks per
 * byte, widened by {@link CSV_GUESS_SPREAD}): the workers write the rows
 * while they parse, with the rows every stride of X'X the guess allows
 * would take; once all is parsed, the counts give the true stride and the
 * summaries are merged with its rows, as if the count had come first. A
 * guess that missed (more rows than X holds, or a stride out of its range)
 * reads the file again with the counts known. Without a speculation, the
 * workers count the line breaks first (ranges handed out one by one, this
 * thread counts some too), and the parsed segments are placed once the
 * counts are in.
 *
 * @param path The file.
 * @param fileSize Its size.
 * @param counted Makes csv.ts's sink (fresh) from the file's counts.
 * @param probe Makes a sink that reads the header and allocates nothing.
 * @param opts The reader's options.
 * @param numWorkers Workers (≥ 1).
 * @param speculation Allocates X and y before the count (null: count first).
 * @returns "done"; "refused" when the kernel does not read the file's
 *   header, layout or lines, or "fallback" when it stopped for another
 *   reason (either way, read again with the papaparse path; when `counted`
 *   was not called, the counts are to be made too).
 */
export async function readCsvParallel(
  path: string,
  fileSize: number,
  counted: (counts: CsvBreakCounts) => PlacingSink,
  probe: () => RowSink,
  opts: ReadCsvWasmOptions,
  numWorkers: number,
  speculation: CsvSpeculation | null = null,
): Promise<"done" | "fallback" | "refused"> {
  let r: _Outcome = "fallback";
  if (csvCoreModule() !== null) {
    r = await _readParallelWith(path, fileSize, counted, probe, opts, numWorkers, speculation);
    if (typeof r !== "string") {
      // The guess missed: again, with the counts if they are known.
      speculation!.discard();
      csvWasmCounts.missed++;
      r = await _readParallelWith(path, fileSize, counted, probe, opts, numWorkers, null, r.counts);
      if (typeof r !== "string") r = "fallback";
    }
  }
  csvWasmCounts[r === "done" ? "done" : "fallback"]++;
  if (r === "done") csvWasmCounts.parallel++;
  return r;
}

/** A read's outcome; an object when a guess of the rows missed (with the counts, if known). */
type _Outcome = "done" | "fallback" | "refused" | { counts: CsvBreakCounts | null };

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

/** Whether `bytes` holds two line breaks or more (two "\n", or two "\r" when they end lines). */
function _twoLineBreaks(bytes: Uint8Array): boolean {
  for (const c of [10, 13]) {
    const first = bytes.indexOf(c);
    if (first >= 0 && bytes.indexOf(c, first + 1) >= 0) return true;
  }
  return false;
}

/** The rows of `seg.gram` X'X takes with this stride (rows g with g % stride = 0, g < maxRows · stride). */
function _gramOf(
  seg: CsvSegmentDone,
  numCols: number,
  stride: number,
  maxRows: number,
): Float64Array {
  const g = seg.gramRows!, all = seg.gram!;
  let take = 0;
  for (let t = 0; t < g.length; t++) if (g[t] % stride === 0 && g[t] < maxRows * stride) take++;
  if (take === g.length) return all;
  const out = new Float64Array(take * numCols);
  for (let t = 0, o = 0; t < g.length; t++) {
    if (g[t] % stride === 0 && g[t] < maxRows * stride) {
      out.set(all.subarray(t * numCols, (t + 1) * numCols), o);
      o += numCols;
    }
  }
  return out;
}

/** A placed segment of a guess added to `sink` with X'X's rows of `stride`. */
function _addGuessed(
  sink: PlacingSink,
  seg: CsvSegmentDone,
  numCols: number,
  stride: number,
  maxRows: number,
): void {
  const gram = seg.rows > 0 ? _gramOf(seg, numCols, stride, maxRows) : _EMPTY;
  sink.addPlaced(seg.rows, seg.lines, seg.part ?? _NO_PART, seg.yLo, seg.yHi, gram);
}

async function _readParallelWith(
  path: string,
  fileSize: number,
  counted: (counts: CsvBreakCounts) => PlacingSink,
  probe: () => RowSink,
  opts: ReadCsvWasmOptions,
  numWorkers: number,
  speculation: CsvSpeculation | null,
  known: CsvBreakCounts | null = null,
): Promise<_Outcome> {
  const { segBytes, margin, headBytes } = csvParallelSizes;
  const numRanges = Math.max(1, Math.ceil(fileSize / segBytes));
  // The readers: workers, and this thread too (see below).
  const workers: _Reader[] = [];
  // Per reader: whether it answered "open", its segments not yet placed (at
  // most `ranges`, its row ranges), and which reader has each segment.
  const ready: boolean[] = [], inFlight: number[] = [];
  const owner = new Map<number, number>();
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
  // Count first (ranges handed out at once) unless the counts are known or a guess may do.
  const countFirst = known === null && speculation === null;
  // Segments a reader may hold parsed and not placed: three when the rows are
  // placed before the count (each reader's range is free again once "place"
  // is sent), two otherwise (the shared slots of the rows handed over
  // alternate between two segments). The third keeps a worker busy while the
  // calling thread, also parsing, takes a while to answer it.
  const ranges = speculation !== null ? 3 : 2;
  const giveRange = (w: _Reader) => {
    if (nextRange < numRanges) w.postMessage({ type: "count", j: nextRange++ });
  };
  // The next segments to reader i, while it has room (segments go to the
  // readers that are free: a worker still starting gets none).
  const give = (i: number) => {
    while (ready[i] && inFlight[i] < ranges && next < numSegs) {
      owner.set(next, i);
      inFlight[i]++;
      workers[i].postMessage({ type: "seg", k: next++ });
    }
  };
  const until = async (done: () => boolean) => {
    while (!done() && failure === null) {
      await new Promise<void>((r) => wake = r);
      wake = null;
    }
  };
  const file = await Deno.open(path, { read: true });
  // The first block is read while the workers start: `new Worker` blocks this
  // thread until the worker's runtime exists (20–35 ms), and the read runs on
  // the runtime's I/O threads meanwhile.
  let first = new Uint8Array(Math.min(fileSize, headBytes));
  const firstRead = _readAt(file, first, 0);
  firstRead.catch(() => {}); // a return before it is awaited closes the file under it
  let mainParser: CsvRowParser | null = null;
  try {
    const numReaders = Math.min(numWorkers, numRanges);
    for (let i = 0; i < numReaders; i++) {
      let w: _Reader;
      try {
        // The last reader is this thread (with two readers or more), when the
        // rows are placed as they are parsed; when the line breaks are counted
        // first and the rows handed over in slots, this thread counts and
        // copies, and the readers are all workers. The segment reader is
        // imported here, after the workers started: a bundle whose code never
        // reads a file (the browser's) then holds none of its file access.
        w = speculation !== null && numReaders >= 2 && i === numReaders - 1
          ? _localReader((await import("./_csv_segments.ts")).csvSegmentReader)
          : new Worker(new URL("./_csv_worker.ts", import.meta.url), { type: "module" });
      } catch {
        return "fallback"; // no workers here
      }
      workers.push(w);
      pending.push(0);
      dead.push(false);
      ready.push(false);
      inFlight.push(0);
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
        else if (a.type === "ready") {
          ready[i] = true;
          give(i);
        } else {
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
      if (countFirst) {
        // Two ranges in flight per worker; each count answered brings the next.
        giveRange(w);
        giveRange(w);
      }
    }
    // The header: the kernel's plan, sent at once, so that a worker parses
    // as soon as it has no range left to count.
    let firstLen = await firstRead;
    if (firstLen < fileSize && first.length < WASM_CSV_BLOCK_BYTES && !_twoLineBreaks(first)) {
      // A header and a first line longer than the block: as much as the one-thread reader takes.
      first = new Uint8Array(Math.min(fileSize, WASM_CSV_BLOCK_BYTES));
      firstLen = await _readAt(file, first, 0);
    }
    const probed = probe();
    const prep = prepareCsvWasm(first, firstLen, firstLen === fileSize, probed, opts);
    if (prep === "fallback") return "refused";
    const { plan, dataStart } = prep;
    numSegs = Math.max(1, Math.ceil((fileSize - dataStart) / segBytes));
    const init: CsvWorkerInit = { type: "init", plan, dataStart, placement: null, ranges };
    for (const w of workers) w.postMessage(init);
    // The counts: known, or those of the first block when it is the whole
    // file, or else (with a speculation) a guess from the first block.
    let counts = known;
    // The line breaks of the header and of the first block's data lines,
    // counted once (the whole file's when the block is the file).
    const head = first.subarray(0, dataStart), sample = first.subarray(dataStart, firstLen);
    const headLf = countByte(head, 10), headCr = countByte(head, 13);
    const withSample = counts === null && (firstLen === fileSize || speculation !== null);
    const sampleLf = withSample ? countByte(sample, 10) : 0;
    const sampleCr = withSample ? countByte(sample, 13) : 0;
    if (counts === null && firstLen === fileSize) {
      counts = { numLf: headLf + sampleLf, numCr: headCr + sampleCr, numBytes: firstLen };
    }
    let guess: CsvGuess | null = null;
    let est = 0; // the guess of the records
    if (counts === null && speculation !== null) {
      const rest = (fileSize - dataStart) / Math.max(1, sample.length);
      est = Math.round(Math.max(headLf + sampleLf * rest, headCr + sampleCr * rest) + 1);
      if (sampleLf + sampleCr > 0) {
        const lo = Math.floor(est * (1 - CSV_GUESS_SPREAD));
        const hi = Math.ceil(est * (1 + CSV_GUESS_SPREAD)) + 64;
        guess = speculation.reserve(probed.numCols, lo, hi);
        const p = guess?.placement;
        if (p !== undefined && p.gramStrideHi - p.gramStride >= _MAX_GUESS_STRIDES) {
          speculation.discard();
          guess = null;
        }
      }
      if (guess === null) {
        // No guess: count first.
        for (const w of workers) {
          giveRange(w);
          giveRange(w);
        }
      }
    }
    // Two segments in flight per reader that is ready (the others get theirs when they are).
    for (let i = 0; i < workers.length; i++) give(i);
    if (counts === null && guess === null) {
      // Meanwhile this thread counts ranges too (the workers are still starting).
      mainParser = acquireCsvParser();
      if (mainParser !== null) {
        mainParser.reserveInput(segBytes);
        while (nextRange < numRanges && failure === null) {
          const j = nextRange++;
          const a = j * segBytes, b = Math.min(fileSize, a + segBytes);
          const len = await _readAt(file, mainParser.input().subarray(0, b - a), a);
          const c = mainParser.countBreaks(0, len);
          numLf += c.numLf;
          numCr += c.numCr;
          numBytes += len;
          numCounted++;
        }
      }
      await until(() => numCounted === numRanges);
      if (failure !== null) return "fallback";
      counts = { numLf, numCr, numBytes };
    }
    const makeSink = (c: CsvBreakCounts): PlacingSink | "fallback" => {
      if (c.numBytes !== fileSize) return "fallback"; // the file changed meanwhile
      const s = counted(c);
      // The same header, now into the sink that allocates X and y.
      if (prepareCsvWasm(first, firstLen, firstLen === fileSize, s, opts) === "fallback") {
        return "fallback";
      }
      return s;
    };
    // With a guess, the sink is made for the guessed records: the same sink
    // as the count's when X'X's stride is the same for both (its only use of
    // the count besides X's size), checked once the counts are in.
    const sink = makeSink(counts ?? { numLf: est - 1, numCr: 0, numBytes: fileSize });
    if (sink === "fallback") return "fallback";
    const placement = guess === null ? sink.placement() : guess.placement;
    const sinkStride = sink.placement()?.gramStride ?? 1;
    // With a guess: the segments' rows, counts and summaries until the counts are in.
    let rowAt = 0;
    let segLf = headLf, segCr = headCr, segBytesRead = head.length;
    const held: CsvSegmentDone[] = [];
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
        if (seg.status === "fallback") return "refused";
        segLf += seg.numLf;
        segCr += seg.numCr;
        segBytesRead += seg.numBytes;
        const wi = owner.get(toPlace)!;
        // More rows than X holds: a guess that missed.
        if (guess !== null && (rowAt += seg.rows) > guess.capacity) return { counts: null };
        const row = placement === null ? 0 : sink.reserveRows(seg.rows);
        pending[wi]++;
        const msg: CsvWorkerMessage = { type: "place", k: toPlace, row };
        if (!told[wi]) msg.placement = placement;
        told[wi] = true;
        workers[wi].postMessage(msg);
        // With a placement, the worker places this segment before it parses its
        // next one (its messages are taken in order): that may use its rows' room.
        if (placement !== null) {
          inFlight[wi]--;
          give(wi);
        }
        toPlace++;
      }
      const seg = placed.get(k);
      if (seg === undefined) continue;
      placed.delete(k);
      k++;
      if (guess !== null) {
        held.push(seg);
        _addGuessed(sink, seg, plan.numCols, sinkStride, placement!.gramMaxRows);
        continue;
      }
      if (placement !== null) {
        sink.addPlaced(seg.rows, seg.lines, seg.part ?? _NO_PART, seg.yLo, seg.yHi, seg.gram!);
        continue;
      }
      if (seg.rows > 0) sink.addSegment(seg.x!, seg.y!, seg.rows, seg.lines, seg.part!);
      else sink.addSegment(_EMPTY, _EMPTY, 0, seg.lines, _NO_PART);
      // The worker's slot of this segment is free again: its next segment may use it.
      const wi = owner.get(seg.k)!;
      inFlight[wi]--;
      give(wi);
    }
    if (guess !== null) {
      // The counts are in now. X must hold the records they allow, and X'X's
      // stride for them be one the workers gathered rows for.
      const c = { numLf: segLf, numCr: segCr, numBytes: segBytesRead };
      if (c.numBytes !== fileSize) return "fallback"; // the file changed meanwhile
      const records = Math.max(c.numLf, c.numCr) + 1;
      if (records > guess.capacity) return { counts: c };
      const numCols = plan.numCols;
      const stride = new ColumnStats(numCols, records).gramStride;
      const { gramStride, gramStrideHi } = guess.placement;
      if (stride < gramStride || stride > gramStrideHi) return { counts: c };
      if (stride !== sinkStride) {
        // Merged again, into the sink of the counts, with X'X's rows of its stride.
        csvWasmCounts.remerged++;
        const again = makeSink(c);
        if (again === "fallback") return "fallback";
        for (const seg of held) {
          if (seg.rows > 0) again.reserveRows(seg.rows);
          _addGuessed(again, seg, numCols, stride, guess.placement.gramMaxRows);
        }
      } else speculation!.counted(c);
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
