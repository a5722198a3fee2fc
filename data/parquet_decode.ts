/**
 * A Parquet row-group decoder that works in the arena: the selected columns'
 * bytes are read from the file straight into arena memory, their pages are
 * decompressed (snappy) and decoded (PLAIN, dictionary) by the core's
 * kernels into one column buffer each, and the reader gets views of those
 * buffers — the same numbers hyparquet decodes, without its per-page
 * JavaScript arrays.
 *
 * ```
 *  file ──read (no copy in JS)──► raw chunk bytes (arena) ──page headers (here)──►
 *     snappy / PLAIN / dictionary / levels (core/as/parquet_decode.ts) ──► columns (arena)
 *     ──► views: Float32Array (FLOAT), Float64Array (DOUBLE), Int32Array (INT32)
 * ```
 *
 * It decodes only what it fully understands: flat REQUIRED or OPTIONAL
 * columns of physical type FLOAT, DOUBLE or INT32 without a logical or
 * converted type (bar signed integer ones), uncompressed or snappy, data pages v1 or v2 in PLAIN or
 * dictionary encoding, and no null in the row group. Anything else — another
 * codec or encoding, a null, a malformed page — makes {@link
 * ParquetArenaDecoder.read} return null, and the caller decodes that row
 * group with hyparquet as before, so its checks and error messages stay
 * those of the general path.
 *
 * @module
 */
import type { FileMetaData } from "npm:hyparquet@1.31.5";
import type { Arena } from "../core/arena.ts";
import { type CoreBackend, workerCore } from "../core/load.ts";
import { ParquetPageKernels } from "../core/parquet_kernel.ts";
import type { OpenedParquet, ParquetCells } from "./parquet_source.ts";
import type { ParquetGroupPart, ParquetGroupSpec } from "./parquet_group.ts";

/** The message to data/_parquet_worker.ts: a shared memory and byte ranges to touch. */
export interface PrefaultRequest {
  /** Message type. */
  type: "prefault";
  /** The arena's memory (shared). */
  memory: WebAssembly.Memory;
  /** [start, end) byte ranges. */
  ranges: [number, number][];
}

/**
 * Sizes below which the reader's worker threads do not start: the bytes of
 * X and y for {@link prefaultRows}, of the selected column chunks for
 * {@link ParquetDecodeThread}. (Tests shrink them to run the threads on
 * small files, and clear `callerTakes` so that the decoding thread takes
 * every row group: the calling thread then only waits for it.)
 */
export const parquetThreadSizes = {
  prefaultMinBytes: 64 << 20,
  decodeMinBytes: 64 << 20,
  callerTakes: true,
};

/** A worker of data/_parquet_worker.ts (throws where workers cannot start). */
function _parquetWorker(): Worker {
  return new Worker(new URL("./_parquet_worker.ts", import.meta.url), { type: "module" });
}

/**
 * Whether a decoding thread can run over `arena`: a shared memory, the core's
 * kernels with its page decoder, and workers.
 */
function _decodeThreadPossible(arena: Arena): boolean {
  return arena.shared && arena.backend !== "reference" && typeof Worker === "function" &&
    ParquetPageKernels.create(arena) !== null;
}

/**
 * Touches the pages of `ranges` of a shared arena in another thread, last
 * page first (data/_parquet_worker.ts), so that the first touch of fresh
 * memory the reader is about to fill runs on another core. Does nothing
 * for an arena that is not shared, small ranges, or where workers cannot
 * start.
 *
 * @param arena The arena (shared).
 * @param ranges [start, end) byte ranges of freshly allocated blocks.
 * @param minBytes Below this many bytes in all, nothing is started.
 * @returns stop(): ends the thread (safe at any time: it never changes a
 *   value); done: resolves true once every page was touched, false if the
 *   thread was stopped first or never started.
 */
export function prefaultRows(
  arena: Arena,
  ranges: [number, number][],
  minBytes = parquetThreadSizes.prefaultMinBytes,
): { stop(): void; done: Promise<boolean> } {
  const bytes = ranges.reduce((s, [a, b]) => s + (b - a), 0);
  const none = { stop() {}, done: Promise.resolve(false) };
  if (!arena.shared || bytes < minBytes || typeof Worker !== "function") return none;
  let w: Worker;
  try {
    w = _parquetWorker();
  } catch {
    return none; // no workers here
  }
  let finish: (touched: boolean) => void = () => {};
  const done = new Promise<boolean>((resolve) => finish = resolve);
  let ended = false;
  const end = (touched: boolean) => {
    if (ended) return;
    ended = true;
    w.terminate();
    finish(touched);
  };
  w.onmessage = () => end(true);
  w.onerror = (e) => {
    e.preventDefault();
    end(false);
  };
  const request: PrefaultRequest = { type: "prefault", memory: arena.memory, ranges };
  w.postMessage(request);
  return { stop: () => end(false), done };
}

/** Messages to the decoding thread (data/_parquet_worker.ts). */
export interface DecodeRequest {
  type: "open";
  memory: WebAssembly.Memory;
  region: { start: number; end: number };
  backend: CoreBackend;
  module: WebAssembly.Module | undefined;
  /** The file: a path, or a URL's href when `url`. */
  path: string;
  url: boolean;
  where: string;
  /**
   * The footer's fields the decoder reads, as JSON (integers as numbers):
   * parsed in the thread in ≈ 2 ms, where the structured copy of the same
   * objects took 15–40 ms on the thread's path to its first row group.
   */
  metadata: string;
  columns: string[];
  /** The buffers' sizes (see {@link ParquetArenaDecoder.reserve}). */
  sizes: { span: number; decoded: number; page: number; rows: number };
  /** The load's columns and checks. */
  spec: ParquetGroupSpec;
  /** The work: see {@link ParquetGroupWork}. */
  work: ParquetGroupWork;
}

/**
 * The row groups of a load, shared by the threads that check and transpose
 * them: position i of the read order is row group `groups[i]`, rows
 * `starts[i]` … of the table; a thread takes the next position with
 * `Atomics.add` on the i32 at `counter` (so the two threads split the groups
 * as they go) and writes its rows of X (`width` bytes a cell) and y in place.
 */
export interface ParquetGroupWork {
  groups: number[];
  starts: number[];
  rows: number[];
  plans: { first: number; stride: number; take: number }[];
  counter: number;
  xPtr: number;
  yPtr: number;
  width: number;
}

/** Answers of the decoding thread. */
export type DecodeAnswer =
  | { type: "ready" | "failed" | "end" }
  | {
    type: "group";
    /** The position in the read order. */
    i: number;
    /** The group's statistics (null: check it again on the calling thread). */
    part: ParquetGroupPart | null;
  };

/**
 * Takes the next position of `work` (see {@link ParquetGroupWork}), or -1
 * once every position is taken.
 *
 * @param memory The arena's (shared) memory.
 * @param work The load's groups.
 * @returns The position, or -1.
 */
export function claimParquetGroup(memory: WebAssembly.Memory, work: ParquetGroupWork): number {
  const i = Atomics.add(new Int32Array(memory.buffer, work.counter, 1), 0, 1);
  return i < work.groups.length ? i : -1;
}

/**
 * A thread that decodes, checks and transposes row groups of a load
 * (data/_parquet_worker.ts) while the calling thread does the same with
 * others: each takes the next row group as it goes
 * ({@link claimParquetGroup}), so the two cores share the work whatever its
 * balance. The thread writes its groups' rows of X and y in place and
 * answers with their statistics; the caller adds them in file order. A group
 * it cannot take (a kind of page its decoder does not read, a bad cell) comes
 * back empty and the caller reads it again the general way, naming what is
 * wrong. Its buffers (one decoder's, in a region of the arena) take the
 * place of the caller's second one.
 */
export class ParquetDecodeThread {
  readonly #arena: Arena;
  readonly #w: Worker;
  readonly #region: number;
  readonly #parts = new Map<number, ParquetGroupPart | null>();
  readonly #done: Promise<void>;
  #finish: () => void = () => {};
  #dead = false;

  private constructor(arena: Arena, w: Worker, region: number) {
    this.#arena = arena;
    this.#w = w;
    this.#region = region;
    this.#done = new Promise<void>((resolve) => this.#finish = resolve);
  }

  /**
   * Starts the thread, or returns null: an arena that is not shared or has
   * no page kernels, bytes rather than a path, a small file, or no workers.
   * The thread starts taking groups once it is up.
   *
   * @param arena The (shared) arena X lives in.
   * @param o The opened file.
   * @param path Its path.
   * @param columns The columns to read.
   * @param spec The load's columns and checks.
   * @param work The groups, shared with the caller.
   * @param early A worker of data/_parquet_worker.ts started earlier
   *   ({@link ParquetDecodeThread.early}), taken over by the thread; the
   *   caller terminates it when this returns null.
   * @returns The thread, or null.
   */
  static start(
    arena: Arena,
    o: OpenedParquet,
    path: string | URL,
    columns: string[],
    spec: ParquetGroupSpec,
    work: ParquetGroupWork,
    early: Worker | null = null,
  ): ParquetDecodeThread | null {
    const groups = work.groups;
    if (!_decodeThreadPossible(arena) || groups.length < 3) return null;
    // The region: one decoder with one raw buffer, a column buffer and page
    // buffers for the largest row group; the kernel's staging; ones.
    let span = 0, decoded = 0, page = 0, bytes = 0, rows = 0;
    for (const g of groups) {
      const rg = o.metadata.row_groups[g], n = Number(rg.num_rows);
      rows = Math.max(rows, n);
      let lo = Infinity, hi = 0, dec = 0;
      for (const c of rg.columns) {
        const m = c.meta_data;
        if (m === undefined || m.path_in_schema.length !== 1) continue;
        if (!columns.includes(m.path_in_schema[0])) continue;
        const s = Number(m.dictionary_page_offset || m.data_page_offset);
        lo = Math.min(lo, s);
        hi = Math.max(hi, s + Number(m.total_compressed_size));
        dec += Math.ceil((n * (_WIDTH[m.type] ?? 8)) / 16) * 16;
        page = Math.max(page, Number(m.total_uncompressed_size));
      }
      if (hi > lo) span = Math.max(span, hi - lo);
      decoded = Math.max(decoded, dec);
      bytes += hi > lo ? hi - lo : 0;
    }
    if (bytes < parquetThreadSizes.decodeMinBytes || !(span > 0)) return null;
    const sizes = { span, decoded, page, rows };
    const d = spec.numCols;
    const size = span + decoded + 2 * page + d * (_STAGE_BYTES + 64) + rows * 4 + (1 << 20);
    let w: Worker;
    try {
      w = early ?? _parquetWorker();
    } catch {
      return null;
    }
    const region = arena.alloc(size, 16);
    const thread = new ParquetDecodeThread(arena, w, region);
    w.onmessage = (e: MessageEvent<DecodeAnswer>) => {
      const a = e.data;
      if (a.type === "group") thread.#parts.set(a.i, a.part);
      else if (a.type !== "ready") thread.#fail(); // "end" or "failed"
    };
    w.onerror = (e) => {
      e.preventDefault();
      thread.#fail();
    };
    const request: DecodeRequest = {
      type: "open",
      memory: arena.memory,
      region: { start: region, end: region + size },
      backend: arena.backend,
      module: workerCore(arena.backend, true),
      path: path instanceof URL ? path.href : path,
      url: path instanceof URL,
      where: o.where,
      metadata: JSON.stringify(
        _threadMetadata(o.metadata, columns),
        (_k, v) => typeof v === "bigint" ? Number(v) : v,
      ),
      columns,
      sizes,
      spec,
      work,
    };
    w.postMessage(request);
    return thread;
  }

  /**
   * Starts the decoding thread's worker before the file's footer is read,
   * so that its modules load meanwhile (≈ 45 ms), when a thread will likely
   * be wanted: a shared arena of the core's kernels, a path, and a file of
   * at least the thread's size threshold. Null otherwise. Hand it to
   * {@link ParquetDecodeThread.start}, or terminate it.
   *
   * @param arena The arena X will live in.
   * @param path The file.
   * @returns The worker, or null.
   */
  static early(arena: Arena, path: string | URL): Worker | null {
    if (!_decodeThreadPossible(arena)) return null;
    try {
      if (Deno.statSync(path).size < parquetThreadSizes.decodeMinBytes) return null;
      return _parquetWorker();
    } catch {
      return null; // no such file (the reader says so), no permission, or no workers
    }
  }

  /** Resolves once the thread has ended: every group it took is answered, or it failed. */
  done(): Promise<void> {
    return this.#done;
  }

  /**
   * The statistics of the group at position i, once {@link done}: null when
   * the thread did not take it or could not (check it on the calling thread).
   */
  take(i: number): ParquetGroupPart | null {
    return this.#parts.get(i) ?? null;
  }

  /**
   * Ends the thread and frees its region. Call it only once {@link done}
   * has resolved (the thread writes into the region and into X until then).
   */
  close(): void {
    this.#fail();
    this.#arena.free(this.#region);
  }

  #fail(): void {
    if (!this.#dead) this.#w.terminate();
    this.#dead = true;
    this.#finish();
  }
}

/**
 * The footer as the decoding thread needs it: the schema, and per row group
 * its row count and, of the selected columns' chunks, the fields
 * {@link ParquetArenaDecoder} reads (where, codec, type, encryption). The
 * whole footer (statistics, encoding lists, key-value metadata) costs ≈ 30
 * ms to copy into the thread at 100 row groups × 31 columns, on each side.
 * (Its integers may be BigInts; the thread gets them as numbers, which the
 * decoder reads alike: every offset and size of a file it reads is below
 * 2⁵³.)
 */
function _threadMetadata(metadata: FileMetaData, columns: string[]): FileMetaData {
  const wanted = new Set(columns);
  return {
    ...metadata,
    key_value_metadata: undefined,
    row_groups: metadata.row_groups.map((rg) => ({
      num_rows: rg.num_rows,
      total_byte_size: rg.total_byte_size,
      columns: rg.columns.flatMap((c) => {
        const m = c.meta_data;
        if (m === undefined || !m.path_in_schema.some((p) => wanted.has(p))) return [];
        return [{
          file_path: c.file_path,
          file_offset: c.file_offset,
          crypto_metadata: c.crypto_metadata,
          encrypted_column_metadata: c.encrypted_column_metadata,
          meta_data: {
            type: m.type,
            encodings: [],
            path_in_schema: m.path_in_schema,
            codec: m.codec,
            num_values: m.num_values,
            total_uncompressed_size: m.total_uncompressed_size,
            total_compressed_size: m.total_compressed_size,
            data_page_offset: m.data_page_offset,
            dictionary_page_offset: m.dictionary_page_offset,
          },
        }];
      }),
    })),
  };
}

/** Bytes of the kernel's staging block per column (core/parquet_kernel.ts). */
const _STAGE_BYTES = 8192 * 8;

/** Bytes a value, by physical type. */
const _WIDTH: Record<string, number> = { FLOAT: 4, DOUBLE: 8, INT32: 4 };

/** Byte ranges closer than this are read as one. */
const _GAP = 1 << 16;

/** A selected column of one row group: where its chunk is, what it holds. */
interface _Chunk {
  name: string;
  type: string;
  width: number;
  /** Definition level of a present value: 0 (REQUIRED) or 1 (OPTIONAL). */
  maxDef: number;
  snappy: boolean;
  start: number;
  length: number;
}

/** A page header's fields this decoder uses (Thrift compact protocol). */
interface _PageHeader {
  type: number;
  uncompressed: number;
  compressed: number;
  /** DATA_PAGE: num_values, encoding, definition-level encoding. */
  v1?: { numValues: number; encoding: number };
  /** DICTIONARY_PAGE: num_values. */
  dict?: { numValues: number };
  /** DATA_PAGE_V2. */
  v2?: {
    numValues: number;
    numNulls: number;
    numRows: number;
    encoding: number;
    defLen: number;
    repLen: number;
    compressed: boolean;
  };
  /** Bytes of the header. */
  size: number;
}

/** An arena block that grows on demand (its contents are not kept when it grows). */
class _Block {
  ptr = 0;
  size = 0;
  constructor(readonly arena: Arena) {}
  ensure(bytes: number): number {
    if (bytes > this.size) {
      if (this.ptr !== 0) this.arena.free(this.ptr);
      this.ptr = 0;
      this.size = Math.max(bytes, Math.ceil(this.size * 1.25));
      this.ptr = this.arena.alloc(this.size, 16, false);
    }
    return this.ptr;
  }
  free(): void {
    if (this.ptr !== 0) this.arena.free(this.ptr);
    this.ptr = 0;
    this.size = 0;
  }
}

/**
 * Decodes row groups of an opened Parquet file into arena memory (see the
 * module). One row group's columns live in the arena until the next
 * {@link read}; {@link dispose} frees them.
 */
export class ParquetArenaDecoder {
  readonly #arena: Arena;
  readonly #o: OpenedParquet;
  readonly #k: ParquetPageKernels;
  readonly #columns: readonly string[];
  /** Top-level leaf schema elements by name. */
  readonly #leaves: Map<string, { repetition?: string; annotated: boolean }>;
  /** Two raw buffers: one decoded while the next row group is read into the other. */
  readonly #raw: [_Block, _Block];
  readonly #cols: _Block;
  readonly #page: _Block;
  readonly #dict: _Block;
  /** The read of the next row group, started by the previous {@link read}. */
  #next: { g: number; p: Promise<{ chunks: _Chunk[]; base: number; raw: number } | null> } | null =
    null;
  #flip = 0;

  /** One raw buffer (no prefetch): for a decoder in a bounded region. */
  readonly #single: boolean;

  private constructor(
    arena: Arena,
    o: OpenedParquet,
    k: ParquetPageKernels,
    columns: string[],
    single: boolean,
  ) {
    this.#single = single;
    this.#arena = arena;
    this.#o = o;
    this.#k = k;
    this.#columns = columns;
    this.#raw = [new _Block(arena), new _Block(arena)];
    this.#cols = new _Block(arena);
    this.#page = new _Block(arena);
    this.#dict = new _Block(arena);
    this.#leaves = new Map();
    const schema = o.metadata.schema;
    // Walk the top level of the schema tree: element 0 is the root.
    let i = 1;
    const skip = (j: number): number => {
      const n = schema[j]?.num_children ?? 0;
      let next = j + 1;
      for (let c = 0; c < n && next < schema.length; c++) next = skip(next);
      return next;
    };
    const top = schema[0]?.num_children ?? 0;
    for (let c = 0; c < top && i < schema.length; c++) {
      const e = schema[i];
      if ((e.num_children ?? 0) === 0) {
        this.#leaves.set(e.name, {
          repetition: e.repetition_type,
          annotated: !_plainAnnotation(e.converted_type, e.logical_type),
        });
      }
      i = skip(i);
    }
  }

  /**
   * A decoder of the named columns into the arena, or null when the arena's
   * core has no page kernels (the TypeScript backend, an older build).
   *
   * @param arena The arena the columns are decoded into.
   * @param o The opened file.
   * @param columns The columns to read.
   * @param single One raw buffer, for reads without `prefetch` (default false).
   * @returns The decoder, or null.
   */
  static create(
    arena: Arena,
    o: OpenedParquet,
    columns: string[],
    single = false,
  ): ParquetArenaDecoder | null {
    const k = ParquetPageKernels.create(arena);
    return k === null ? null : new ParquetArenaDecoder(arena, o, k, columns, single);
  }

  /**
   * Row group g's columns as views of arena memory (valid until the next
   * call, or until the memory grows), or null when this decoder does not
   * handle the group (decode it with hyparquet). Starts reading row group
   * `prefetch` (if given) while this one is decoded.
   *
   * @param g The row group (0-based).
   * @param prefetch The row group read next, if any.
   * @returns The columns by name, or null.
   */
  async read(g: number, prefetch?: number): Promise<Map<string, ParquetCells> | null> {
    const pending = this.#next !== null && this.#next.g === g ? this.#next.p : this.#fetch(g);
    this.#next = null;
    let got;
    try {
      got = await pending;
    } catch {
      got = null; // the general decoder reads the group again and names what is wrong
    }
    if (prefetch !== undefined) {
      const p = this.#fetch(prefetch);
      p.catch(() => {}); // awaited by the next call; a failure then falls back
      this.#next = { g: prefetch, p };
    }
    if (got === null) return null;
    const numRows = Number(this.#o.metadata.row_groups[g].num_rows);
    // Column buffers: one block, each column 16-byte aligned.
    const offsets: number[] = [];
    let total = 0;
    for (const c of got.chunks) {
      offsets.push(total);
      total += Math.ceil((numRows * c.width) / 16) * 16;
    }
    const colBase = this.#cols.ensure(Math.max(16, total));
    const out = new Map<string, ParquetCells>();
    for (let j = 0; j < got.chunks.length; j++) {
      const c = got.chunks[j];
      const dst = colBase + offsets[j];
      if (!this.#decodeChunk(c, got.raw + (c.start - got.base), dst, numRows)) return null;
    }
    // Views last: the decoding may have grown the memory.
    const buf = this.#arena.memory.buffer;
    for (let j = 0; j < got.chunks.length; j++) {
      const c = got.chunks[j], p = colBase + offsets[j];
      out.set(
        c.name,
        c.type === "FLOAT"
          ? new Float32Array(buf, p, numRows)
          : c.type === "DOUBLE"
          ? new Float64Array(buf, p, numRows)
          : new Int32Array(buf, p, numRows),
      );
    }
    return out;
  }

  /**
   * Allocates the buffers at their final sizes now (so that a decoder in a
   * bounded region never reallocates them): the largest span of a row
   * group's column chunks, of its decoded columns, and of one page.
   *
   * @param span Bytes of the largest row group's chunks, from first to last.
   * @param decoded Bytes of its decoded columns (each rounded up to 16).
   * @param page Bytes of the largest decompressed page.
   */
  reserve(span: number, decoded: number, page: number): void {
    this.#raw[0].ensure(span + 16);
    if (!this.#single) this.#raw[1].ensure(span + 16);
    this.#cols.ensure(Math.max(16, decoded));
    this.#page.ensure(Math.max(16, page));
    this.#dict.ensure(Math.max(16, page));
  }

  /**
   * Frees the arena blocks (the raw buffers once a read still in flight has
   * ended: it writes into one of them).
   */
  dispose(): void {
    for (const b of [this.#cols, this.#page, this.#dict]) b.free();
    const raw = this.#raw, pending = this.#next?.p;
    this.#next = null;
    if (pending === undefined) { for (const b of raw) b.free(); }
    else pending.catch(() => null).finally(() => raw.forEach((b) => b.free()));
  }

  /** The group's chunks, if all are of a kind this decoder takes, read into a raw buffer. */
  async #fetch(g: number): Promise<{ chunks: _Chunk[]; base: number; raw: number } | null> {
    const rg = this.#o.metadata.row_groups[g];
    const chunks: _Chunk[] = [];
    for (const name of this.#columns) {
      const col = rg.columns.find((c) =>
        c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === name
      );
      const m = col?.meta_data, leaf = this.#leaves.get(name);
      if (
        col === undefined || m === undefined || leaf === undefined || leaf.annotated ||
        col.file_path !== undefined || col.crypto_metadata !== undefined ||
        col.encrypted_column_metadata !== undefined || !(m.type in _WIDTH) ||
        (m.codec !== "UNCOMPRESSED" && m.codec !== "SNAPPY") ||
        (leaf.repetition !== "REQUIRED" && leaf.repetition !== "OPTIONAL")
      ) {
        return null;
      }
      const start = Number(m.dictionary_page_offset || m.data_page_offset);
      const length = Number(m.total_compressed_size);
      if (!(start >= 0 && length > 0 && start + length <= this.#o.file.byteLength)) return null;
      chunks.push({
        name,
        type: m.type,
        width: _WIDTH[m.type],
        maxDef: leaf.repetition === "OPTIONAL" ? 1 : 0,
        snappy: m.codec === "SNAPPY",
        start,
        length,
      });
    }
    if (chunks.length === 0) return null;
    // Merge the byte ranges that (nearly) touch; read them into one buffer.
    const ranges = chunks.map((c) => [c.start, c.start + c.length]).sort((a, b) => a[0] - b[0]);
    const merged: number[][] = [];
    for (const r of ranges) {
      const last = merged[merged.length - 1];
      if (last !== undefined && r[0] <= last[1] + _GAP) last[1] = Math.max(last[1], r[1]);
      else merged.push([...r]);
    }
    const base = merged[0][0], span = merged[merged.length - 1][1] - base;
    const block = this.#raw[this.#flip];
    if (!this.#single) this.#flip ^= 1;
    const raw = block.ensure(span + 16);
    // Only the merged ranges are read; the gaps between them stay unread.
    const buf = this.#arena.memory.buffer;
    await Promise.all(
      merged.map(([s, e]) => this.#o.readInto(s, new Uint8Array(buf, raw + (s - base), e - s))),
    );
    return { chunks, base, raw };
  }

  /**
   * Decodes one column chunk (at `src` in the arena) into numRows values at
   * dst; false for anything this decoder does not take.
   */
  #decodeChunk(c: _Chunk, src: number, dst: number, numRows: number): boolean {
    const k = this.#k, w = c.width, end = src + c.length;
    let pos = src, rows = 0;
    let dictPtr = 0, dictN = -1;
    while (rows < numRows) {
      if (pos >= end - 1) return false;
      const u8 = new Uint8Array(this.#arena.memory.buffer);
      const h = _pageHeader(u8, pos, end);
      if (h === null) return false;
      const page = pos + h.size, cs = h.compressed, us = h.uncompressed;
      if (cs < 0 || us < 0 || page + cs > end) return false;
      pos = page + cs;
      if (h.type === 2 && h.dict !== undefined) {
        // Dictionary page: PLAIN values.
        const nv = h.dict.numValues;
        let p = page;
        if (c.snappy) {
          p = this.#dict.ensure(Math.max(16, us));
          if (!k.snappy(page, cs, p, us)) return false;
        } else if (cs !== us) return false;
        if (!(nv >= 0 && nv * w <= us)) return false;
        dictPtr = p;
        dictN = nv;
      } else if (h.type === 0 && h.v1 !== undefined) {
        const nv = h.v1.numValues, enc = h.v1.encoding;
        if (!(nv >= 0 && rows + nv <= numRows)) return false;
        let p = page;
        if (c.snappy) {
          p = this.#page.ensure(Math.max(16, us));
          if (!k.snappy(page, cs, p, us)) return false;
        } else if (cs !== us) return false;
        const pe = p + us;
        if (c.maxDef === 1) {
          if (p + 4 > pe) return false;
          const v = new DataView(this.#arena.memory.buffer);
          const len = v.getUint32(p, true);
          if (p + 4 + len > pe || !k.levelsAll(p + 4, len, 1, nv, 1)) return false;
          p += 4 + len;
        }
        if (!this.#values(enc, p, pe, nv, w, dictPtr, dictN, dst + rows * w)) return false;
        rows += nv;
      } else if (h.type === 3 && h.v2 !== undefined) {
        const { numValues: nv, numNulls, numRows: nr, encoding, defLen, repLen } = h.v2;
        if (
          !(nv >= 0 && rows + nv <= numRows) || numNulls !== 0 || nr !== nv || repLen !== 0 ||
          defLen < 0 || defLen > cs || defLen > us
        ) {
          return false;
        }
        if (c.maxDef === 0 ? defLen !== 0 : !k.levelsAll(page, defLen, 1, nv, 1)) return false;
        const vs = page + defLen, vc = cs - defLen, vu = us - defLen;
        const out = dst + rows * w;
        if (h.v2.compressed && c.snappy) {
          if (encoding === 0 && vu === nv * w) {
            // PLAIN values of exactly the page's length: straight into the column.
            if (!k.snappy(vs, vc, out, vu)) return false;
          } else {
            const p = this.#page.ensure(Math.max(16, vu));
            if (!k.snappy(vs, vc, p, vu)) return false;
            if (!this.#values(encoding, p, p + vu, nv, w, dictPtr, dictN, out)) return false;
          }
        } else {
          if (h.v2.compressed && vc !== vu) return false;
          if (!this.#values(encoding, vs, vs + vc, nv, w, dictPtr, dictN, out)) return false;
        }
        rows += nv;
      } else return false;
    }
    return rows === numRows;
  }

  /** nv values of a data page's value section [p, pe) (PLAIN or dictionary indices) to out. */
  #values(
    encoding: number,
    p: number,
    pe: number,
    nv: number,
    w: number,
    dictPtr: number,
    dictN: number,
    out: number,
  ): boolean {
    if (encoding === 0) {
      if (p + nv * w > pe) return false;
      new Uint8Array(this.#arena.memory.buffer).copyWithin(out, p, p + nv * w);
      return true;
    }
    if (encoding === 2 || encoding === 8) {
      if (dictN < 0 || p >= pe) return false;
      const bw = new Uint8Array(this.#arena.memory.buffer)[p];
      return bw >= 1 && this.#k.dictGather(p + 1, pe - p - 1, bw, nv, dictPtr, dictN, w, out);
    }
    return false;
  }
}

/**
 * Whether a column's annotation leaves hyparquet's values as decoded: none,
 * or a signed integer (INT_8, INT_16, INT_32, logical INTEGER signed).
 * Others (DECIMAL, DATE, unsigned, …) are converted by hyparquet, so this
 * decoder leaves such columns to it.
 */
function _plainAnnotation(
  converted: string | undefined,
  logical: { type: string; isSigned?: boolean } | undefined,
): boolean {
  const c = converted === undefined || converted === "INT_8" || converted === "INT_16" ||
    converted === "INT_32";
  const l = logical === undefined || (logical.type === "INTEGER" && logical.isSigned === true);
  return c && l;
}

/**
 * Parses a PageHeader (Thrift compact protocol) at u8[pos, end); null when
 * malformed or truncated.
 */
function _pageHeader(u8: Uint8Array, pos: number, end: number): _PageHeader | null {
  const r = new _Compact(u8, pos, end);
  const h: _PageHeader = { type: -1, uncompressed: -1, compressed: -1, size: 0 };
  try {
    r.struct((id, t) => {
      if (id === 1 && t === 5) h.type = r.i32();
      else if (id === 2 && t === 5) h.uncompressed = r.i32();
      else if (id === 3 && t === 5) h.compressed = r.i32();
      else if (id === 5 && t === 12) {
        const v = { numValues: -1, encoding: -1 };
        r.struct((f, ft) => {
          if (f === 1 && ft === 5) v.numValues = r.i32();
          else if (f === 2 && ft === 5) v.encoding = r.i32();
          else r.skip(ft);
        });
        h.v1 = v;
      } else if (id === 7 && t === 12) {
        const v = { numValues: -1 };
        r.struct((f, ft) => {
          if (f === 1 && ft === 5) v.numValues = r.i32();
          else r.skip(ft);
        });
        h.dict = v;
      } else if (id === 8 && t === 12) {
        const v = {
          numValues: -1,
          numNulls: -1,
          numRows: -1,
          encoding: -1,
          defLen: -1,
          repLen: -1,
          compressed: true,
        };
        r.struct((f, ft) => {
          if (ft === 5 && f >= 1 && f <= 6) {
            const x = r.i32();
            if (f === 1) v.numValues = x;
            else if (f === 2) v.numNulls = x;
            else if (f === 3) v.numRows = x;
            else if (f === 4) v.encoding = x;
            else if (f === 5) v.defLen = x;
            else v.repLen = x;
          } else if (f === 7 && (ft === 1 || ft === 2)) v.compressed = ft === 1;
          else r.skip(ft);
        });
        h.v2 = v;
      } else r.skip(t);
    });
  } catch (e) {
    if (e instanceof _Malformed) return null;
    throw e;
  }
  h.size = r.pos - pos;
  return h;
}

class _Malformed extends Error {}

/** A reader of the Thrift compact protocol over u8[pos, end). */
class _Compact {
  #depth = 0;
  constructor(readonly u8: Uint8Array, public pos: number, readonly end: number) {}

  byte(): number {
    if (this.pos >= this.end) throw new _Malformed();
    return this.u8[this.pos++];
  }

  /** An unsigned varint as a number (exact up to 2⁵³). */
  varint(): number {
    let v = 0, mul = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      v += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return v;
      mul *= 128;
    }
    throw new _Malformed();
  }

  i32(): number {
    const z = this.varint();
    if (z > 0xffffffff) throw new _Malformed();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  /** Calls field(id, type) for each field of a struct (which must consume or skip it). */
  struct(field: (id: number, type: number) => void): void {
    if (++this.#depth > 32) throw new _Malformed();
    let last = 0;
    for (;;) {
      const b = this.byte();
      if (b === 0) break;
      const delta = b >> 4, type = b & 0x0f;
      const id = delta === 0 ? this.i32() : last + delta;
      last = id;
      field(id, type);
    }
    this.#depth--;
  }

  /** Skips a value of the given compact type. */
  skip(type: number): void {
    switch (type) {
      case 1:
      case 2:
        return; // a boolean field's value is in its type
      case 3:
        this.byte();
        return;
      case 4:
      case 5:
      case 6:
        this.varint();
        return;
      case 7:
        this.#advance(8);
        return;
      case 8:
        this.#advance(this.varint());
        return;
      case 9:
      case 10: {
        const b = this.byte();
        const n = (b >> 4) === 15 ? this.varint() : b >> 4, et = b & 0x0f;
        for (let i = 0; i < n; i++) {
          if (et === 1 || et === 2) this.byte(); // a boolean element is one byte
          else this.skip(et);
        }
        return;
      }
      case 11: {
        const n = this.varint();
        if (n === 0) return;
        const kv = this.byte();
        for (let i = 0; i < n; i++) {
          this.skip(kv >> 4);
          this.skip(kv & 0x0f);
        }
        return;
      }
      case 12:
        this.struct((_, t) => this.skip(t));
        return;
      default:
        throw new _Malformed();
    }
  }

  #advance(n: number): void {
    if (this.pos + n > this.end) throw new _Malformed();
    this.pos += n;
  }
}
