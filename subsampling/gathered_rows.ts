/**
 * A contiguous buffer of subsampled data rows in WebAssembly memory.
 *
 * Subsampling estimators evaluate the same few rows many times (every leapfrog
 * step of an HMC-ECS trajectory, every SG-MCMC step between refreshes), so the
 * rows are copied once from the full data set into a small contiguous buffer
 * and the kernels then stream that cache-resident block instead of chasing
 * random rows (a random-row gather costs about ten contiguous rows).
 *
 * ```
 *  position k = 0 … capacity−1 (the k-th gathered row; data row indices[k])
 *  x    : capacity × d f64, row-major (f32 data sets are widened when gathered)
 *  y    : capacity f64
 *  cv   : capacity × 4 f64 control-variate cache rows (η*, ℓ*, dℓ/dη*, d²ℓ/dη*²)
 *  diff : capacity f64 scratch for dₖ = ℓₖ − qₖ   (written by estimators)
 *  r    : capacity f64 scratch for ∂dₖ/∂η          (written by estimators)
 *  w    : capacity f64 scratch for gradient weights (Σ wₖ xₖ = Xᵀw)
 *  idx  : capacity i32 scratch for the gather kernel
 * ```
 *
 * Pointers are byte offsets in the arena of the data set and stay valid until
 * {@link GatheredRows.ensureCapacity} reallocates; views must be re-derived
 * from the arena after any allocation.
 *
 * References: Dang et al. (2019) §3.3 (block updates of u keep most rows);
 * DESIGN.md "Subsampling: what makes it fast".
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import type { GlmData } from "../data/dataset.ts";

/** Number of f64 per control-variate cache row (η*, ℓ*, a, b). */
export const CV_STRIDE = 4;

/**
 * A contiguous, growable buffer of gathered data rows plus per-row scratch.
 *
 * @example
 * ```ts
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GatheredRows } from "./gathered_rows.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, [1, 2, 3, 4, 5, 6], [0, 1, 0], { numCols: 2 });
 * const rows = new GatheredRows(data, 4);
 * rows.gather(new Int32Array([2, 0]), 0);
 * console.log(Array.from(arena.f64(rows.x, 4))); // [5, 6, 1, 2]
 * rows.dispose();
 * ```
 */
export class GatheredRows {
  /** The data set rows are copied from. */
  readonly data: GlmData;
  /** The arena holding data and buffer. */
  readonly arena: Arena;
  /** Number of columns d. */
  readonly dim: number;
  /** Rows the buffer can hold. */
  capacity = 0;
  /** Byte offset of the gathered X (capacity × d f64). */
  x = 0;
  /** Byte offset of the gathered y (capacity f64). */
  y = 0;
  /** Byte offset of the gathered control-variate cache rows (capacity × 4 f64). */
  cv = 0;
  /** Byte offset of the per-row difference scratch (capacity f64). */
  diff = 0;
  /** Byte offset of the per-row ∂d/∂η scratch (capacity f64). */
  r = 0;
  /** Byte offset of the per-row weight scratch (capacity f64). */
  w = 0;
  /** Byte offset of the i32 index scratch used by gathers (capacity i32). */
  idx = 0;
  /** Data-row index held at each position (length capacity; −1 = empty). */
  indices: Int32Array = new Int32Array(0);
  #f32Scratch = 0;
  #f32Cap = 0;

  /**
   * Allocate an empty buffer for `capacity` rows of `data`.
   *
   * @param data The data set to gather from (f64 or f32 storage).
   * @param capacity Initial number of rows.
   */
  constructor(data: GlmData, capacity: number) {
    this.data = data;
    this.arena = data.arena;
    this.dim = data.numCols;
    this.ensureCapacity(Math.max(1, capacity));
  }

  /**
   * Grow the buffers to hold at least `capacity` rows, keeping the contents.
   * Reallocates (pointers change; existing views detach).
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
    const nx = a.allocF64(cap * d), ny = a.allocF64(cap), ncv = a.allocF64(cap * CV_STRIDE);
    const nd = a.allocF64(cap), nr = a.allocF64(cap), nw = a.allocF64(cap), ni = a.allocI32(cap);
    if (old > 0) {
      a.f64(nx, old * d).set(a.f64(this.x, old * d));
      a.f64(ny, old).set(a.f64(this.y, old));
      a.f64(ncv, old * CV_STRIDE).set(a.f64(this.cv, old * CV_STRIDE));
      for (const p of [this.x, this.y, this.cv, this.diff, this.r, this.w, this.idx]) a.free(p);
    }
    this.x = nx;
    this.y = ny;
    this.cv = ncv;
    this.diff = nd;
    this.r = nr;
    this.w = nw;
    this.idx = ni;
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
   * @param cache Byte offset of an n × 4 control-variate cache to gather too.
   * @returns Nothing.
   */
  gather(rows: Int32Array, offset: number, cache?: number): void {
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
    if (this.data.storage === "f32" && k * d > this.#f32Cap) {
      if (this.#f32Scratch) a.free(this.#f32Scratch);
      this.#f32Cap = Math.max(k * d, 2 * this.#f32Cap);
      this.#f32Scratch = a.allocF32(this.#f32Cap);
    }
    a.i32(this.idx, k).set(rows);
    const core = a.exports;
    if (this.data.storage === "f64") {
      core.gatherF64(this.data.x, d, this.idx, k, this.x + offset * d * 8);
    } else {
      core.gatherF32(this.data.x, d, this.idx, k, this.#f32Scratch);
      a.f64(this.x + offset * d * 8, k * d).set(a.f32(this.#f32Scratch, k * d));
    }
    core.gatherF64(this.data.y, 1, this.idx, k, this.y + offset * 8);
    if (cache !== undefined && cache !== 0) {
      core.gatherF64(cache, CV_STRIDE, this.idx, k, this.cv + offset * CV_STRIDE * 8);
    }
    this.indices.set(rows, offset);
  }

  /**
   * Re-gather the control-variate cache rows of positions `[start, end)` (after
   * the cache was recomputed at a new θ*).
   *
   * @param cache Byte offset of the n × 4 cache.
   * @param range `start` (default 0) and `end` (default capacity) positions.
   * @returns Nothing.
   */
  regatherCache(cache: number, range: { start?: number; end?: number } = {}): void {
    const start = range.start ?? 0, end = range.end ?? this.capacity;
    const k = end - start;
    if (k <= 0) return;
    const ind = this.indices.subarray(start, end);
    for (let i = 0; i < k; i++) {
      if (ind[i] < 0) {
        throw new RangeError(`position ${start + i} holds no row; gather it before its cache`);
      }
    }
    this.arena.i32(this.idx, k).set(ind);
    this.arena.exports.gatherF64(cache, CV_STRIDE, this.idx, k, this.cv + start * CV_STRIDE * 8);
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
    const a = this.arena, d = this.dim;
    const x = a.f64(this.x, this.capacity * d);
    x.copyWithin(to * d, from * d, (from + count) * d);
    const y = a.f64(this.y, this.capacity);
    y.copyWithin(to, from, from + count);
    const cv = a.f64(this.cv, this.capacity * CV_STRIDE);
    cv.copyWithin(to * CV_STRIDE, from * CV_STRIDE, (from + count) * CV_STRIDE);
    this.indices.copyWithin(to, from, from + count);
  }

  /**
   * Release the buffers.
   *
   * @returns Nothing.
   */
  dispose(): void {
    if (this.capacity === 0) return;
    for (const p of [this.x, this.y, this.cv, this.diff, this.r, this.w, this.idx]) {
      this.arena.free(p);
    }
    if (this.#f32Scratch) this.arena.free(this.#f32Scratch);
    this.#f32Scratch = this.#f32Cap = 0;
    this.capacity = 0;
    this.indices = new Int32Array(0);
  }
}
