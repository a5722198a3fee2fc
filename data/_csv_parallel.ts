/**
 * The parallel CSV reader: the file's data lines split into segments of
 * `csvParallelSizes.segBytes` that workers (data/_csv_worker.ts) read and
 * parse with the core's kernel, while this thread takes their rows in file
 * order into csv.ts's sink (statistics, copy to the arena) in blocks of the
 * sink's length — exactly as the one-thread reader does.
 *
 * ```
 *  main: header ─► plan ──init──► worker 0: seg 0, 2, 4, …  ──rows──┐
 *                        └─init──► worker 1: seg 1, 3, 5, …  ──rows──┤
 *                                                                   ▼
 *        sink.addBlock ◄── blocks of blockRows ◄── segments in order (at most 2 ahead per worker)
 * ```
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
} from "./_csv_wasm.ts";

/**
 * Sizes of the parallel reader: files of at least `minBytes` are parsed by
 * workers, in segments of `segBytes`, each read `margin` bytes past its end
 * to finish its last line. (Tests shrink them to run the workers on small
 * files.)
 */
export const csvParallelSizes = { minBytes: 16 << 20, segBytes: 4 << 20, margin: 1 << 20 };

/** The start message of a worker. */
export interface CsvWorkerInit {
  /** Message type. */
  type: "init";
  /** The file. */
  path: string;
  /** The compiled core (null: the worker compiles it). */
  module: WebAssembly.Module | null;
  /** The kernel's plan. */
  plan: CsvRowPlan;
  /** Byte offset of the first data line. */
  dataStart: number;
  /** File size in bytes. */
  fileSize: number;
  /** Bytes per segment. */
  segBytes: number;
  /** Bytes read past a segment's end. */
  margin: number;
}

/** A worker's answer for one segment. */
export interface CsvSegmentDone {
  /** Message type. */
  type: "seg";
  /** Segment index. */
  k: number;
  /** "ok", or "fallback" when the kernel does not read it. */
  status: "ok" | "fallback";
  /** Rows. */
  rows: number;
  /** Lines (blank ones included). */
  lines: number;
  /** rows × numCols, row-major (null without rows). */
  x: Float64Array | null;
  /** rows responses. */
  y: Float64Array | null;
}

/** Messages to a worker. */
export type CsvWorkerMessage = CsvWorkerInit | { type: "seg"; k: number } | { type: "close" };

type _Answer = CsvSegmentDone | { type: "error"; message: string };

/**
 * Reads a regular file with `numWorkers` workers into `sink`.
 *
 * @param path The file.
 * @param first The file's first bytes (at least one block, or all of it).
 * @param fileSize Its size.
 * @param sink csv.ts's sink (fresh).
 * @param opts The reader's options.
 * @param numWorkers Workers (≥ 1).
 * @returns "done", or "fallback" (read again with the papaparse path).
 */
export async function readCsvParallel(
  path: string,
  first: Uint8Array,
  fileSize: number,
  sink: RowSink,
  opts: ReadCsvWasmOptions,
  numWorkers: number,
): Promise<"done" | "fallback"> {
  const r = await _readParallel(path, first, fileSize, sink, opts, numWorkers);
  csvWasmCounts[r]++;
  if (r === "done") csvWasmCounts.parallel++;
  return r;
}

async function _readParallel(
  path: string,
  first: Uint8Array,
  fileSize: number,
  sink: RowSink,
  opts: ReadCsvWasmOptions,
  numWorkers: number,
): Promise<"done" | "fallback"> {
  const staging = acquireCsvParser();
  if (staging === null) return "fallback";
  try {
    return await _readParallelWith(staging, path, first, fileSize, sink, opts, numWorkers);
  } finally {
    releaseCsvParser(staging);
  }
}

async function _readParallelWith(
  staging: CsvRowParser,
  path: string,
  first: Uint8Array,
  fileSize: number,
  sink: RowSink,
  opts: ReadCsvWasmOptions,
  numWorkers: number,
): Promise<"done" | "fallback"> {
  const prep = prepareCsvWasm(first, first.length, first.length === fileSize, sink, opts);
  if (prep === "fallback") return "fallback";
  const { plan, dataStart } = prep;
  const { segBytes, margin } = csvParallelSizes;
  const numSegs = Math.max(1, Math.ceil((fileSize - dataStart) / segBytes));
  const blockRows = sink.blockRows, numCols = plan.numCols;
  const workers: Worker[] = [];
  const waiting = new Map<number, CsvSegmentDone>();
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  let next = 0; // next segment to hand out
  const give = (w: Worker) => {
    if (next < numSegs) w.postMessage({ type: "seg", k: next++ });
  };
  try {
    for (let i = 0; i < Math.min(numWorkers, numSegs); i++) {
      let w: Worker;
      try {
        w = new Worker(new URL("./_csv_worker.ts", import.meta.url), { type: "module" });
      } catch {
        return "fallback"; // no workers here
      }
      workers.push(w);
      w.onmessage = (e: MessageEvent<_Answer>) => {
        if (e.data.type === "error") failure ??= new Error(e.data.message);
        else waiting.set(e.data.k, e.data);
        wake?.();
      };
      w.onerror = (e) => {
        e.preventDefault();
        failure ??= new Error(`CSV worker failed: ${e.message}`);
        wake?.();
      };
      const init: CsvWorkerInit = {
        type: "init",
        path,
        module: csvCoreModule(),
        plan,
        dataStart,
        fileSize,
        segBytes,
        margin,
      };
      w.postMessage(init);
    }
    // Two segments in flight per worker; segment k goes to worker k mod W.
    for (let round = 0; round < 2; round++) for (const w of workers) give(w);
    // Blocks are gathered in the staging parser's memory, where the kernel takes their statistics.
    staging.setPlan(plan, 16, blockRows);
    const stats =
      (m: number) => (lo: Float64Array, hi: Float64Array, sum: Float64Array, h: Int32Array) =>
        staging.blockStats(m, lo, hi, sum, h);
    let inBlock = 0, lines = 0;
    for (let k = 0; k < numSegs; k++) {
      while (!waiting.has(k) && failure === null) {
        await new Promise<void>((r) => wake = r);
        wake = null;
      }
      if (failure !== null) return "fallback";
      const seg = waiting.get(k)!;
      waiting.delete(k);
      if (seg.status === "fallback") return "fallback";
      give(workers[k % workers.length]);
      lines += seg.lines;
      const xs = staging.x(blockRows), ys = staging.y(blockRows);
      for (let i = 0; i < seg.rows;) {
        const take = Math.min(seg.rows - i, blockRows - inBlock);
        xs.set(seg.x!.subarray(i * numCols, (i + take) * numCols), inBlock * numCols);
        ys.set(seg.y!.subarray(i, i + take), inBlock);
        inBlock += take;
        i += take;
        if (inBlock === blockRows) {
          sink.addBlock(xs, ys, blockRows, lines, stats(blockRows));
          inBlock = 0;
          lines = 0;
        }
      }
    }
    if (inBlock > 0 || lines > 0) {
      sink.addBlock(staging.x(inBlock), staging.y(inBlock), inBlock, lines, stats(inBlock));
    }
    return "done";
  } finally {
    for (const w of workers) w.terminate();
  }
}
