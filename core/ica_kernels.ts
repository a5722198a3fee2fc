/**
 * The ICA model's per-row log-likelihood differences (Austerity §5.2) in the
 * compute core, behind typed handles.
 *
 * ```
 *  IcaRows      ─► x (n × 4 f64), the f table, W and W' (4 × 4 each), index and output scratch
 *  IcaRowCache  ─► over an IcaRows: four columns f(w_rᵀx_i) at the current W, stamps,
 *                  f at W' of the two changed rows
 *
 *  f(z) = log(4 cosh²(z/2)) = a + g(a), a = |z|: g by cubic Hermite on a table of
 *         512 intervals of [0, 16) (4 f64 each: g, g'/32 at both ends), a + 2e^{−a} beyond
 *  l_i  = f(w_jᵀx_i) + f(w_kᵀx_i) − f(w'_jᵀx_i) − f(w'_kᵀx_i)
 * ```
 *
 * The kernels (core/as/ica.ts) do the TypeScript loop's operations in its
 * order, in both builds (no fused multiply-add), so they return its numbers
 * bit for bit; e^{−a} is fdlibm's exp, as V8's `Math.exp`. The reference
 * backend has no such kernels: {@link IcaRows.isSupported} says so, and the
 * caller keeps its TypeScript loop.
 *
 * The cache: a row is current when it was evaluated (or refreshed) at or after
 * the last accepted proposal. Accepting swaps the columns of the two changed
 * rows with the f at W' just computed, O(1), instead of copying them row by
 * row; a row the accepted proposal did not evaluate is then stale and is
 * refreshed (four evaluations of f) when next drawn. Every row evaluated for
 * the accepted proposal stays current.
 *
 * @module
 */
import type { Arena } from "./arena.ts";
import type { CoreExports } from "./exports.ts";
import { ScratchF64, ScratchI32 } from "./scratch.ts";
import { pointerOf } from "./_handles.ts";

/** Columns of a data row and rows of W. */
const _D = 4;
/** Entries of the f table: 512 intervals × 4. */
export const ICA_TABLE_LENGTH = 4 * 512;

type _Kernels = Required<Pick<CoreExports, "icaDiff" | "icaDiffCached">>;

function _kernels(arena: Arena): _Kernels | null {
  const { icaDiff, icaDiffCached } = arena.exports;
  return icaDiff === undefined || icaDiffCached === undefined ? null : { icaDiff, icaDiffCached };
}

function _checkPair(w: Float64Array, wp: Float64Array, j: number, k: number): void {
  if (w.length !== _D * _D || wp.length !== _D * _D) {
    throw new RangeError(`W and W' must have length 16, got ${w.length} and ${wp.length}`);
  }
  const ok = (r: number) => Number.isInteger(r) && r >= 0 && r < _D;
  if (!ok(j) || !ok(k) || j === k) {
    throw new RangeError(`rows j and k must be distinct integers in 0…3, got ${j} and ${k}`);
  }
}

/**
 * n rows of four f64 and the f table in an arena, with the uncached differences.
 *
 * @example
 * ```ts
 * import { loadCore } from "./load.ts";
 * import { ICA_TABLE_LENGTH, IcaRows } from "./ica_kernels.ts";
 * const arena = loadCore();
 * if (IcaRows.isSupported(arena)) {
 *   const rows = new IcaRows(arena, new Float64Array(8), new Float64Array(ICA_TABLE_LENGTH));
 *   const w = new Float64Array(16);
 *   rows.setPair(w, w, 0, 1);
 *   const out = rows.differences(new Int32Array([0, 1]), new Float64Array(2));
 *   if (out[0] !== 0) throw new Error();
 *   rows.dispose();
 * }
 * ```
 */
export class IcaRows {
  /** The arena the rows live in. */
  readonly arena: Arena;
  /** Number of rows n. */
  readonly numRows: number;
  /** @internal The kernels (core-private). */
  readonly _k: _Kernels;
  readonly #x: ScratchF64;
  readonly #tab: ScratchF64;
  /** W then W' (32 f64). */
  readonly #w: ScratchF64;
  readonly #idx: ScratchI32;
  readonly #out: ScratchF64;
  readonly #g: ScratchF64;
  #j = 0;
  #k = 1;
  #hasPair = false;
  #disposed = false;
  /** Views of the index and output blocks, re-made when the memory grows or they grow. */
  #idxView: Int32Array = new Int32Array(0);
  #outView: Float64Array = new Float64Array(0);
  /** @internal Byte offsets of x, W (W' follows), the table, the indices, the outputs. */
  readonly _p = { x: 0, w: 0, tab: 0, idx: 0, out: 0 };

  /**
   * Whether the arena's build has the ICA kernels (the WebAssembly builds do,
   * the reference backend does not).
   *
   * @param arena The arena.
   * @returns True when {@link IcaRows} can be built on it.
   */
  static isSupported(arena: Arena): boolean {
    return _kernels(arena) !== null;
  }

  /**
   * Copy the rows and the table into the arena.
   *
   * @param arena The arena (its build must have the kernels: {@link IcaRows.isSupported}).
   * @param x n × 4 f64 row-major.
   * @param table The f table, {@link ICA_TABLE_LENGTH} f64: for interval q of
   *   width 1/32, g(q/32), g'(q/32)/32, g((q+1)/32), g'((q+1)/32)/32 with
   *   g(a) = 2 log(1 + e^{−a}).
   * @throws {RangeError} On a length that is not a multiple of 4, a wrong
   *   table length, or an arena without the kernels.
   */
  constructor(arena: Arena, x: Float64Array, table: Float64Array) {
    const k = _kernels(arena);
    if (k === null) {
      throw new RangeError(
        `the ${arena.backend} backend has no ICA kernels (use a WebAssembly build, or TypeScript)`,
      );
    }
    if (x.length === 0 || x.length % _D !== 0) {
      throw new RangeError(`x must hold n ≥ 1 rows of 4 values, got length ${x.length}`);
    }
    if (table.length !== ICA_TABLE_LENGTH) {
      throw new RangeError(`table must have length ${ICA_TABLE_LENGTH}, got ${table.length}`);
    }
    this.arena = arena;
    this._k = k;
    this.numRows = x.length / _D;
    this.#x = new ScratchF64(arena, x.length);
    this.#tab = new ScratchF64(arena, table.length);
    this.#w = new ScratchF64(arena, 2 * _D * _D);
    this.#idx = new ScratchI32(arena, 0);
    this.#out = new ScratchF64(arena, 0);
    this.#g = new ScratchF64(arena, 0);
    this.#x.view(0, x.length).set(x);
    this.#tab.view(0, table.length).set(table);
    this._p.x = pointerOf(this.#x);
    this._p.w = pointerOf(this.#w);
    this._p.tab = pointerOf(this.#tab);
  }

  /**
   * Set W and W' (copied) and the two rows j ≠ k in which they differ.
   *
   * @param w The current W (4 × 4 row-major).
   * @param wp The proposed W'.
   * @param j One changed row.
   * @param k The other.
   * @returns Nothing.
   * @throws {RangeError} On wrong lengths or rows.
   */
  setPair(w: Float64Array, wp: Float64Array, j: number, k: number): void {
    this.#live();
    _checkPair(w, wp, j, k);
    const v = this.#w.view(0, 2 * _D * _D);
    v.set(w);
    v.set(wp, _D * _D);
    this.#j = j;
    this.#k = k;
    this.#hasPair = true;
  }

  /**
   * l_i for the rows given, without a cache (four evaluations of f per row).
   *
   * @param rows Row indices in [0, n).
   * @param out Receives l (length ≥ rows.length).
   * @returns `out`.
   * @throws {RangeError} Before {@link IcaRows.setPair}, on a row out of range or a short `out`.
   */
  differences(rows: Int32Array, out: Float64Array): Float64Array {
    const m = this._stage(rows, out);
    if (m === 0) return out;
    this.#g.ensure(m * _D);
    const p = this._p;
    const status = this._k.icaDiff(
      p.x,
      this.numRows,
      p.w,
      p.w + 8 * _D * _D,
      this.#j,
      this.#k,
      p.tab,
      p.idx,
      m,
      pointerOf(this.#g),
      p.out,
    );
    this._status(status, rows);
    this._read(out, m);
    return out;
  }

  /**
   * Free the arena blocks; further calls throw. Idempotent.
   *
   * @returns Nothing.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const s of [this.#x, this.#tab, this.#w, this.#out, this.#g]) s.dispose();
    this.#idx.dispose();
  }

  /** @internal Check, copy the indices in, size the output; returns m. */
  _stage(rows: Int32Array, out: Float64Array): number {
    this.#live();
    if (!this.#hasPair) throw new RangeError("setPair must be called before differences");
    const m = rows.length;
    if (out.length < m) {
      throw new RangeError(`out must have length ≥ ${m}, got ${out.length}`);
    }
    if (m === 0) return 0;
    const buffer = this.arena.memory.buffer;
    if (this.#idxView.length < m || this.#idxView.buffer !== buffer) {
      this.#idx.ensure(m);
      this.#out.ensure(m);
      this.#idxView = this.#idx.view();
      this.#outView = this.#out.view();
      this._p.idx = pointerOf(this.#idx);
      this._p.out = pointerOf(this.#out);
    }
    this.#idxView.set(rows);
    return m;
  }

  /** @internal The rows of the current pair. */
  _pair(): { j: number; k: number } {
    return { j: this.#j, k: this.#k };
  }

  /** @internal Throw for a kernel's −(q + 1) (row q out of range); else return the status. */
  _status(status: number, rows: Int32Array): number {
    if (status < 0) {
      const row = rows[-status - 1];
      throw new RangeError(`row ${row} is outside 0…${this.numRows - 1}`);
    }
    return status;
  }

  /** @internal Read m outputs into `out`. */
  _read(out: Float64Array, m: number): void {
    out.set(this.#outView.subarray(0, m));
  }

  #live(): void {
    if (this.#disposed) throw new RangeError("IcaRows has been disposed");
  }
}

/**
 * The per-row cache of f(w_rᵀx_i) at the current W over an {@link IcaRows}:
 * a current row costs two evaluations of f, a stale one six.
 *
 * @example
 * ```ts
 * import { loadCore } from "./load.ts";
 * import { ICA_TABLE_LENGTH, IcaRowCache, IcaRows } from "./ica_kernels.ts";
 * const arena = loadCore();
 * if (IcaRows.isSupported(arena)) {
 *   const rows = new IcaRows(arena, new Float64Array(8), new Float64Array(ICA_TABLE_LENGTH));
 *   const cache = new IcaRowCache(rows);
 *   const w = new Float64Array(16);
 *   cache.propose(w, w, 0, 1);
 *   const { refreshed } = cache.differences(new Int32Array([0, 1]), new Float64Array(2));
 *   if (refreshed !== 2) throw new Error();
 *   cache.dispose();
 *   rows.dispose();
 * }
 * ```
 */
export class IcaRowCache {
  /** The rows. */
  readonly rows: IcaRows;
  /** The four columns, column r at index r; then f at W' of rows j and k. */
  readonly #cols: ScratchF64[];
  #nj: ScratchF64;
  #nk: ScratchF64;
  readonly #stamp: ScratchI32;
  /** Proposals made so far (the current one's stamp). */
  #proposal = 0;
  /** The last accepted proposal (rows stamped below it are stale). */
  #valid = 1;
  /** Whether the current proposal is still open (not accepted). */
  #open = false;
  /** Byte offsets of the columns, f at W' and the stamps (fixed once allocated). */
  #ptr: number[] = [];
  #disposed = false;

  /**
   * Allocate the cache (all rows stale).
   *
   * @param rows The rows (kept; dispose the cache before them).
   */
  constructor(rows: IcaRows) {
    this.rows = rows;
    const n = rows.numRows;
    this.#cols = Array.from({ length: _D }, () => new ScratchF64(rows.arena, n));
    this.#nj = new ScratchF64(rows.arena, n);
    this.#nk = new ScratchF64(rows.arena, n);
    this.#stamp = new ScratchI32(rows.arena, n); // zeroed: below #valid, so stale
    this.#pointers();
  }

  #pointers(): void {
    this.#ptr = [...this.#cols, this.#nj, this.#nk, this.#stamp].map((s) => pointerOf(s));
  }

  /**
   * Start a new proposal: W (the cache's current W), W' and the two rows j ≠ k
   * in which they differ. W must be the matrix the last accepted proposal
   * made current (or the start); the cache does not check it.
   *
   * @param w The current W (4 × 4 row-major).
   * @param wp The proposed W'.
   * @param j One changed row.
   * @param k The other.
   * @returns Nothing.
   * @throws {RangeError} On wrong lengths or rows.
   */
  propose(w: Float64Array, wp: Float64Array, j: number, k: number): void {
    this.#live();
    this.rows.setPair(w, wp, j, k);
    this.#proposal++;
    this.#open = true;
  }

  /**
   * l_i for the rows given (distinct rows, drawn for the current proposal).
   *
   * @param rows Row indices in [0, n).
   * @param out Receives l (length ≥ rows.length).
   * @returns `out` and the number of stale rows refreshed.
   * @throws {RangeError} Before {@link IcaRowCache.propose}, on a row out of range or a short `out`.
   */
  differences(rows: Int32Array, out: Float64Array): { out: Float64Array; refreshed: number } {
    this.#live();
    if (!this.#open) throw new RangeError("propose must be called before differences");
    const m = this.rows._stage(rows, out);
    if (m === 0) return { out, refreshed: 0 };
    const p = this.rows._p, { j, k } = this.rows._pair(), c = this.#ptr;
    const status = this.rows._k.icaDiffCached(
      p.x,
      this.rows.numRows,
      c[0],
      c[1],
      c[2],
      c[3],
      c[6],
      this.#proposal,
      this.#valid,
      c[4],
      c[5],
      p.w,
      p.w + 8 * _D * _D,
      j,
      k,
      p.tab,
      p.idx,
      m,
      p.out,
    );
    const refreshed = this.rows._status(status, rows);
    this.rows._read(out, m);
    return { out, refreshed };
  }

  /**
   * Accept the current proposal: W' becomes the cache's W. O(1): the rows
   * it evaluated stay current, every other row becomes stale. The next call
   * must be {@link IcaRowCache.propose}.
   *
   * @returns Nothing.
   * @throws {RangeError} Unless a proposal is open (proposed and not yet accepted).
   */
  accept(): void {
    this.#live();
    if (!this.#open) throw new RangeError("propose must be called before accept");
    this.#open = false;
    const { j, k } = this.rows._pair();
    const cj = this.#cols[j], ck = this.#cols[k];
    this.#cols[j] = this.#nj;
    this.#cols[k] = this.#nk;
    this.#nj = cj;
    this.#nk = ck;
    this.#valid = this.#proposal;
    this.#pointers();
  }

  /**
   * Free the cache's blocks; further calls throw. Idempotent.
   *
   * @returns Nothing.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const s of this.#cols) s.dispose();
    this.#nj.dispose();
    this.#nk.dispose();
    this.#stamp.dispose();
  }

  #live(): void {
    if (this.#disposed) throw new RangeError("IcaRowCache has been disposed");
  }
}
