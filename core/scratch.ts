/**
 * Scratch buffers: owned, disposable blocks of the arena with typed views.
 *
 * ```
 *  ScratchF64 ─► arena block of `capacity` f64 (8-byte aligned, zeroed when allocated)
 *  ScratchI32 ─► arena block of `capacity` i32
 * ```
 *
 * A scratch buffer hides its byte offset: callers read and write it through
 * views that are re-derived from the memory on every call, so a view taken
 * after the memory grew is never detached (views kept across an allocation
 * may be). Kernels in `core/` read the offset through `core/_handles.ts`.
 *
 * @module
 */
import type { Arena } from "./arena.ts";
import { pointerOf, setPointer } from "./_handles.ts";

abstract class _Scratch<A extends Float64Array | Int32Array> {
  /** The arena the buffer lives in. */
  readonly arena: Arena;
  #capacity = 0;

  constructor(arena: Arena, capacity: number) {
    this.arena = arena;
    setPointer(this, 0);
    if (capacity > 0) this.ensure(capacity);
  }

  /** Number of elements the buffer holds. */
  get capacity(): number {
    return this.#capacity;
  }

  /**
   * Make room for at least `capacity` elements; a larger block replaces the old
   * one (contents are not kept; the new block is zeroed).
   *
   * @param capacity Elements wanted.
   * @returns Nothing.
   */
  ensure(capacity: number): void {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
    }
    if (capacity <= this.#capacity) return;
    const grown = Math.max(capacity, 2 * this.#capacity);
    this.#release();
    setPointer(this, this.alloc(grown));
    this.#capacity = grown;
  }

  /**
   * A fresh view of elements [start, end), valid until the memory next grows.
   *
   * @param start First element (default 0).
   * @param end One past the last element (default: the capacity).
   * @returns A view backed by the arena's memory.
   */
  view(start = 0, end: number = this.#capacity): A {
    if (!(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end)) {
      throw new RangeError(`view range [${start}, ${end}) is not a valid range`);
    }
    if (end > this.#capacity) {
      throw new RangeError(`view range [${start}, ${end}) exceeds the capacity ${this.#capacity}`);
    }
    return this.make(this.#capacity === 0 ? 0 : pointerOf(this), start, end - start);
  }

  /**
   * Release the block. The buffer can be re-used after {@link ensure}.
   *
   * @returns Nothing.
   */
  dispose(): void {
    this.#release();
    this.#capacity = 0;
  }

  protected abstract alloc(n: number): number;
  protected abstract make(ptr: number, start: number, n: number): A;

  #release(): void {
    if (this.#capacity > 0) this.arena.free(pointerOf(this));
    setPointer(this, 0);
  }
}

/**
 * An owned block of f64 in an {@link Arena}.
 *
 * @example
 * ```ts
 * import { Arena } from "./arena.ts";
 * import { ScratchF64 } from "./scratch.ts";
 * const arena = new Arena();
 * const s = new ScratchF64(arena, 3);
 * s.view().set([1, 2, 3]);
 * arena.allocF64(1 << 20); // grows the memory: old views detach, new ones do not
 * if (s.view()[2] !== 3) throw new Error();
 * s.dispose();
 * ```
 */
export class ScratchF64 extends _Scratch<Float64Array> {
  /**
   * Allocate `capacity` zeroed f64.
   *
   * @param arena The arena to allocate in.
   * @param capacity Elements (default 0: allocate on the first {@link ensure}).
   */
  constructor(arena: Arena, capacity = 0) {
    super(arena, capacity);
  }

  protected alloc(n: number): number {
    return this.arena.allocF64(n);
  }

  protected make(ptr: number, start: number, n: number): Float64Array {
    return n === 0 ? new Float64Array(0) : this.arena.f64(ptr + 8 * start, n);
  }
}

/**
 * An owned block of i32 in an {@link Arena} (row-index lists for the kernels).
 *
 * @example
 * ```ts
 * import { Arena } from "./arena.ts";
 * import { ScratchI32 } from "./scratch.ts";
 * const s = new ScratchI32(new Arena(), 2);
 * s.view().set([4, 7]);
 * if (s.view(1)[0] !== 7) throw new Error();
 * ```
 */
export class ScratchI32 extends _Scratch<Int32Array> {
  /**
   * Allocate `capacity` zeroed i32.
   *
   * @param arena The arena to allocate in.
   * @param capacity Elements (default 0: allocate on the first {@link ensure}).
   */
  constructor(arena: Arena, capacity = 0) {
    super(arena, capacity);
  }

  protected alloc(n: number): number {
    return this.arena.allocI32(n);
  }

  protected make(ptr: number, start: number, n: number): Int32Array {
    return n === 0 ? new Int32Array(0) : this.arena.i32(ptr + 4 * start, n);
  }
}
