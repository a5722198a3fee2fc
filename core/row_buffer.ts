/**
 * Typed data views for GLM kernels: a contiguous buffer of gathered rows,
 * beside the data set in linear memory (core/stored_glm_data.ts) and the
 * per-row control-variate cache (core/control_variate_cache.ts), which this
 * module re-exports.
 *
 * ```
 *  StoredGlmData        x : n × d row-major, f64 or f32      y : n f64
 *  ControlVariateCache  n × CV_STRIDE f64: (η*ᵢ, ℓᵢ(η*ᵢ), aᵢ = dℓ/dη(η*ᵢ), bᵢ = d²ℓ/dη²(η*ᵢ))
 *  RowBuffer            position k = 0 … capacity−1 (data row indices[k]):
 *    x    : capacity × d f64 (f32 rows are widened exactly by the gather kernel)
 *    y    : capacity f64
 *    cv   : capacity × CV_STRIDE f64 cache rows gathered from a ControlVariateCache
 *    diff : capacity f64  dₖ = ℓₖ − qₖ      (written by the difference kernel)
 *    r    : capacity f64  ∂dₖ/∂ηₖ           (written by the difference kernel)
 *    w    : capacity f64  weights of Σ wₖ xₖ (written by callers)
 *    idx  : capacity i32  gather scratch
 * ```
 *
 * Byte offsets stay inside `core/`: callers see the per-row arrays through
 * {@link RowBuffer.diffs}, {@link RowBuffer.derivatives} and
 * {@link RowBuffer.weights}: views kept while they still cover their bytes
 * (re-derived after a growth of an unshared memory or of the buffer).
 *
 * References: Dang et al. (2019) §3.3 (block updates of u keep most rows);
 * docs/architecture.md "Subsampling: what makes it fast".
 *
 * @module
 */
import type { Arena } from "./arena.ts";
import { pointerOf } from "./_handles.ts";
import { type ControlVariateCache, CV_STRIDE } from "./control_variate_cache.ts";
import type { StoredGlmData } from "./stored_glm_data.ts";

export { ControlVariateCache, CV_STRIDE, type SharedCache } from "./control_variate_cache.ts";
export { dataViews, type StoredGlmData } from "./stored_glm_data.ts";

/** Byte offsets of a {@link RowBuffer}'s blocks (core-internal). */
export interface RowBufferBlocks {
  x: number;
  y: number;
  cv: number;
  diff: number;
  r: number;
  w: number;
  idx: number;
}

const _blocks = new WeakMap<RowBuffer, RowBufferBlocks>();

/** Rows per chunk of {@link RowBuffer.gather}: ≈ 80 KB of X at d = 81 (f32), inside L2. */
const _GATHER_CHUNK = 256;
let _touchBuffer: ArrayBufferLike | null = null;
let _touchView: Int32Array = new Int32Array(0);
/** Sum of the words {@link _touchRows} read, so that no engine drops the reads. */
let _touchSink = 0;

/**
 * Read one word of every 64-byte line of the listed rows of X (and of their
 * y and control-variate cache entries) before the gather kernels copy them.
 * The reads do not depend on each other, so the processor has many of the
 * rows' cache misses in flight at once; the gather, which copies one row
 * after another, then finds them in cache. Nothing is written: the gathered
 * values are the same; only the time spent waiting on memory changes (about
 * 1.7× faster gathers of 206 random rows of 81 f32 from 10⁶ rows). Rows
 * `from` … `to − 1` of the list.
 */
function _touchRows(
  buffer: ArrayBufferLike,
  rows: Int32Array,
  from: number,
  to: number,
  at: { x: number; rowBytes: number; y: number; cv: number },
): void {
  if (buffer !== _touchBuffer) {
    _touchBuffer = buffer;
    _touchView = new Int32Array(buffer, 0, buffer.byteLength >>> 2);
  }
  const v = _touchView, rowBytes = at.rowBytes;
  const cvBytes = CV_STRIDE * 8;
  let s = 0;
  for (let i = from; i < to; i++) {
    const r = rows[i];
    const first = at.x + r * rowBytes, last = first + rowBytes - 4;
    for (let p = first; p < last; p += 64) s += v[p >>> 2];
    s += v[last >>> 2];
    s += v[(at.y + r * 8) >>> 2];
    if (at.cv >= 0) s += v[(at.cv + r * cvBytes) >>> 2];
  }
  _touchSink = (_touchSink + s) | 0;
}

/**
 * The blocks of a row buffer, for the kernels in `core/` (never exported from
 * `core/`'s public modules).
 *
 * @param rows The buffer.
 * @returns Its byte offsets.
 */
export function rowBufferBlocks(rows: RowBuffer): RowBufferBlocks {
  const b = _blocks.get(rows);
  if (b === undefined) throw new RangeError("the RowBuffer has been disposed");
  return b;
}

/**
 * A contiguous, growable buffer of rows gathered from a data set, with the
 * per-row scratch the subsampling estimators need.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { Arena } from "./arena.ts";
 * import { RowBuffer } from "./row_buffer.ts";
 * const arena = new Arena();
 * const x = arena.allocF64(6), y = arena.allocF64(3);
 * arena.writeF64(x, [1, 2, 3, 4, 5, 6]);
 * const data = { arena, x, y, numRows: 3, numCols: 2, storage: "f64" as const };
 * const rows = new RowBuffer(data, 4);
 * rows.gather(new Int32Array([2, 0]), 0);
 * assert.deepEqual(Array.from(rows.rowValues(0, 2)), [5, 6, 1, 2]);
 * rows.dispose();
 * ```
 */
export class RowBuffer {
  /** The data set rows are copied from. */
  readonly data: StoredGlmData;
  /** The arena holding data and buffer. */
  readonly arena: Arena;
  /** Number of columns d. */
  readonly dim: number;
  /** Rows the buffer can hold. */
  capacity = 0;
  /** Data-row index held at each position (length capacity; −1 = empty). */
  indices: Int32Array = new Int32Array(0);

  /**
   * Allocate an empty buffer for `capacity` rows of `data`.
   *
   * @param data The data set to gather from (f64 or f32 storage).
   * @param capacity Initial number of rows.
   */
  constructor(data: StoredGlmData, capacity: number) {
    this.data = data;
    this.arena = data.arena;
    this.dim = data.numCols;
    this.ensureCapacity(Math.max(1, capacity));
  }

  /**
   * Grow the buffers to hold at least `capacity` rows, keeping the contents.
   * Views taken before may detach.
   *
   * @param capacity Rows wanted.
   * @returns Nothing.
   */
  ensureCapacity(capacity: number): void {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
    }
    if (capacity <= this.capacity) return;
    const old = this.capacity, d = this.dim, a = this.arena;
    const cap = Math.max(capacity, Math.ceil(old * 1.5));
    const nb: RowBufferBlocks = {
      x: a.allocF64(cap * d),
      y: a.allocF64(cap),
      cv: a.allocF64(cap * CV_STRIDE),
      diff: a.allocF64(cap),
      r: a.allocF64(cap),
      w: a.allocF64(cap),
      idx: a.allocI32(cap),
    };
    const ob = _blocks.get(this);
    if (old > 0 && ob !== undefined) {
      a.f64(nb.x, old * d).set(a.f64(ob.x, old * d));
      a.f64(nb.y, old).set(a.f64(ob.y, old));
      a.f64(nb.cv, old * CV_STRIDE).set(a.f64(ob.cv, old * CV_STRIDE));
      _free(a, ob);
    }
    _blocks.set(this, nb);
    const ind = new Int32Array(cap).fill(-1);
    ind.set(this.indices.subarray(0, old));
    this.indices = ind;
    this.capacity = cap;
  }

  /**
   * Copy data rows `rows` (and their control-variate cache rows, if `cache` is
   * given) into positions `[offset, offset + rows.length)`.
   *
   * @param rows Data-row indices in [0, n).
   * @param offset First position written.
   * @param cache The data set's control-variate cache, to gather too.
   * @returns Nothing.
   */
  gather(rows: Int32Array, offset: number, cache?: ControlVariateCache): void {
    const k = rows.length, n = this.data.numRows, d = this.dim, a = this.arena;
    if (!Number.isInteger(offset) || offset < 0 || offset + k > this.capacity) {
      throw new RangeError(
        `gather of ${k} rows at offset ${offset} exceeds the capacity ${this.capacity}`,
      );
    }
    for (let i = 0; i < k; i++) {
      const r = rows[i];
      if (!(r >= 0 && r < n)) {
        throw new RangeError(`row index ${r} at position ${i} is outside [0, ${n - 1}]`);
      }
    }
    if (k === 0) return;
    if (cache !== undefined) _checkCache(cache, n);
    const b = rowBufferBlocks(this), core = a.exports, data = this.data;
    a.i32(b.idx, k).set(rows);
    const at = {
      x: data.x,
      rowBytes: d * (data.storage === "f64" ? 8 : 4),
      y: data.y,
      cv: cache === undefined ? -1 : pointerOf(cache),
    };
    const gatherX = data.storage === "f64" ? core.gatherF64 : core.gatherF32AsF64;
    // In chunks that stay in cache between the reads of _touchRows and the copies.
    for (let c = 0; c < k; c += _GATHER_CHUNK) {
      const m = Math.min(_GATHER_CHUNK, k - c), idx = b.idx + 4 * c, p = offset + c;
      _touchRows(a.memory.buffer, rows, c, c + m, at);
      gatherX(data.x, d, idx, m, b.x + p * d * 8);
      core.gatherF64(data.y, 1, idx, m, b.y + p * 8);
      if (cache !== undefined) {
        core.gatherF64(at.cv, CV_STRIDE, idx, m, b.cv + p * CV_STRIDE * 8);
      }
    }
    this.indices.set(rows, offset);
  }

  /**
   * Re-gather the control-variate cache rows of positions `[start, end)` (after
   * the cache was recomputed at a new θ*).
   *
   * @param cache The data set's control-variate cache.
   * @param range `start` (default 0) and `end` (default capacity) positions.
   * @returns Nothing.
   */
  regatherCache(cache: ControlVariateCache, range: { start?: number; end?: number } = {}): void {
    const start = range.start ?? 0, end = range.end ?? this.capacity;
    const k = end - start;
    if (k <= 0) return;
    _checkCache(cache, this.data.numRows);
    const ind = this.indices.subarray(start, end);
    for (let i = 0; i < k; i++) {
      if (ind[i] < 0) {
        throw new RangeError(`position ${start + i} holds no row; gather it before its cache`);
      }
    }
    const b = rowBufferBlocks(this);
    this.arena.i32(b.idx, k).set(ind);
    this.arena.exports.gatherF64(
      pointerOf(cache),
      CV_STRIDE,
      b.idx,
      k,
      b.cv + start * CV_STRIDE * 8,
    );
  }

  /**
   * Move `count` gathered rows (x, y, cv and index) from position `from` to
   * position `to` inside the buffer (ranges may overlap).
   *
   * @param from First source position.
   * @param to First destination position.
   * @param count Number of rows.
   * @returns Nothing.
   */
  moveRows(from: number, to: number, count: number): void {
    if (count <= 0 || from === to) return;
    if (from < 0 || to < 0 || from + count > this.capacity || to + count > this.capacity) {
      throw new RangeError(
        `moveRows(${from}, ${to}, ${count}) exceeds the capacity ${this.capacity}`,
      );
    }
    const a = this.arena, d = this.dim, b = rowBufferBlocks(this), cap = this.capacity;
    a.f64(b.x, cap * d).copyWithin(to * d, from * d, (from + count) * d);
    a.f64(b.y, cap).copyWithin(to, from, from + count);
    const s = CV_STRIDE;
    a.f64(b.cv, cap * s).copyWithin(to * s, from * s, (from + count) * s);
    this.indices.copyWithin(to, from, from + count);
  }

  /**
   * The per-row differences dₖ of positions [start, end) (a view).
   *
   * @param start First position (default 0).
   * @param end One past the last (default capacity).
   * @returns A view backed by the arena's memory.
   */
  diffs(start = 0, end: number = this.capacity): Float64Array {
    return this.#view("diff", start, end);
  }

  /**
   * The per-row derivatives rₖ = ∂dₖ/∂ηₖ of positions [start, end) (a view).
   *
   * @param start First position (default 0).
   * @param end One past the last (default capacity).
   * @returns A view backed by the arena's memory.
   */
  derivatives(start = 0, end: number = this.capacity): Float64Array {
    return this.#view("r", start, end);
  }

  /**
   * The per-row weights wₖ of positions [start, end) (a view; write them
   * before {@link GlmKernels.weightedRowSum}).
   *
   * @param start First position (default 0).
   * @param end One past the last (default capacity).
   * @returns A view backed by the arena's memory.
   */
  weights(start = 0, end: number = this.capacity): Float64Array {
    return this.#view("w", start, end);
  }

  /**
   * The gathered X rows of positions [start, end), row-major f64 (a fresh view).
   *
   * @param start First position (default 0).
   * @param end One past the last (default capacity).
   * @returns A view of (end − start) × d values.
   */
  rowValues(start = 0, end: number = this.capacity): Float64Array {
    this.#checkRange(start, end);
    return this.arena.f64(rowBufferBlocks(this).x + start * this.dim * 8, (end - start) * this.dim);
  }

  /**
   * Release the buffers.
   *
   * @returns Nothing.
   */
  dispose(): void {
    if (this.capacity === 0) return;
    const b = _blocks.get(this);
    if (b !== undefined) _free(this.arena, b);
    _blocks.delete(this);
    this.capacity = 0;
    this.indices = new Int32Array(0);
  }

  #view(which: "diff" | "r" | "w", start: number, end: number): Float64Array {
    this.#checkRange(start, end);
    const ptr = rowBufferBlocks(this)[which] + start * 8, n = end - start;
    // The estimators ask for the same views at every evaluation: the last one
    // of each array is kept while it still covers these bytes (same offset and
    // length, its buffer not detached by a growth of an unshared memory).
    const i = which === "diff" ? 0 : which === "r" ? 1 : 2, last = this.#views[i];
    if (
      last !== null && last.byteOffset === ptr && last.length === n && last.byteLength !== 0
    ) return last;
    const view = this.arena.f64(ptr, n);
    if (n > 0) this.#views[i] = view;
    return view;
  }

  /** The latest views of the diff, r and w arrays (see #view). */
  #views: (Float64Array | null)[] = [null, null, null];

  #checkRange(start: number, end: number): void {
    if (!(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end)) {
      throw new RangeError(`row range [${start}, ${end}) is not a valid range`);
    }
    if (end > this.capacity) {
      throw new RangeError(
        `row range [${start}, ${end}) is not inside the buffer of capacity ${this.capacity}`,
      );
    }
  }
}

/**
 * A row buffer for a data set that does not live in the arena (sharded
 * workers, a file, a database): rows are written into it by a reader
 * ({@link LoadedRowBuffer.load}) instead of gathered by the core, and their
 * control-variate cache rows are computed in place
 * (`GlmKernels.prepareGatheredControlVariates`) instead of gathered from a
 * per-row cache. Everything else (moves, views, kernels) is a
 * {@link RowBuffer}'s.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { Arena } from "./arena.ts";
 * import { LoadedRowBuffer } from "./row_buffer.ts";
 * const rows = new LoadedRowBuffer(new Arena(), { numRows: 100, numCols: 2 }, 4);
 * rows.load(new Int32Array([7, 3]), 1, (idx, x, y) => {
 *   for (let i = 0; i < idx.length; i++) {
 *     x.set([idx[i], -idx[i]], 2 * i);
 *     y[i] = idx[i] % 2;
 *   }
 * });
 * assert.deepEqual(Array.from(rows.rowValues(1, 3)), [7, -7, 3, -3]);
 * assert.deepEqual(Array.from(rows.indices.subarray(0, 3)), [-1, 7, 3]);
 * rows.dispose();
 * ```
 */
export class LoadedRowBuffer extends RowBuffer {
  /**
   * Allocate an empty buffer for `capacity` rows of an n × d data set held elsewhere.
   *
   * @param arena The arena to hold the buffer.
   * @param shape n (for index checks) and d.
   * @param capacity Initial number of rows.
   */
  constructor(arena: Arena, shape: { numRows: number; numCols: number }, capacity: number) {
    const { numRows, numCols } = shape;
    if (!Number.isInteger(numRows) || numRows < 1) {
      throw new RangeError(`numRows must be a positive integer, got ${numRows}`);
    }
    if (!Number.isInteger(numCols) || numCols < 1) {
      throw new RangeError(`numCols must be a positive integer, got ${numCols}`);
    }
    // No data in the arena: x and y are never read (gather is refused).
    super({ arena, x: 0, y: 0, numRows, numCols, storage: "f64" }, capacity);
  }

  /**
   * Refused: the data set is not in the arena; use {@link LoadedRowBuffer.load}.
   *
   * @returns Never.
   */
  override gather(): void {
    throw new TypeError("a LoadedRowBuffer's rows live outside the arena: load() them");
  }

  /**
   * Refused: there is no per-row cache to gather from; recompute the cache
   * rows of the positions instead.
   *
   * @returns Never.
   */
  override regatherCache(): void {
    throw new TypeError(
      "a LoadedRowBuffer has no per-row cache to gather from: recompute its cache rows",
    );
  }

  /**
   * Write data rows `rows` into positions `[offset, offset + rows.length)`:
   * `read(rows, x, y)` fills `x` (rows.length × d, row-major) and `y`
   * (rows.length), views of the buffer's own memory. The positions' cache
   * rows are left as they were.
   *
   * @param rows Data-row indices in [0, n).
   * @param offset First position written.
   * @param read Fills the rows' values (must not grow this arena's memory).
   * @returns Nothing.
   */
  load(
    rows: Int32Array,
    offset: number,
    read: (rows: Int32Array, x: Float64Array, y: Float64Array) => void,
  ): void {
    const k = rows.length, n = this.data.numRows, d = this.dim;
    if (!Number.isInteger(offset) || offset < 0 || offset + k > this.capacity) {
      throw new RangeError(
        `load of ${k} rows at offset ${offset} exceeds the capacity ${this.capacity}`,
      );
    }
    for (let i = 0; i < k; i++) {
      const r = rows[i];
      if (!(Number.isInteger(r) && r >= 0 && r < n)) {
        throw new RangeError(`row index ${r} at position ${i} is outside [0, ${n - 1}]`);
      }
    }
    if (k === 0) return;
    const b = rowBufferBlocks(this), a = this.arena;
    const x = a.f64(b.x + offset * d * 8, k * d), y = a.f64(b.y + offset * 8, k);
    read(rows, x, y);
    if (x.length !== k * d || y.length !== k) {
      throw new RangeError("the reader grew the buffer's memory, so its rows were lost");
    }
    this.indices.set(rows, offset);
  }
}

function _free(a: Arena, b: RowBufferBlocks): void {
  for (const p of [b.x, b.y, b.cv, b.diff, b.r, b.w, b.idx]) a.free(p);
}

function _checkCache(cache: ControlVariateCache, n: number): void {
  if (cache.numRows !== n) {
    throw new RangeError(`the control-variate cache has ${cache.numRows} rows, the data ${n}`);
  }
}
