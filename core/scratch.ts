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

/** Element width and view constructor of a scratch kind. */
interface _Kind<A> {
  bytes: 4 | 8;
  alloc(arena: Arena, n: number): number;
  view(arena: Arena, ptr: number, n: number): A;
}

const _F64: _Kind<Float64Array> = {
  bytes: 8,
  alloc: (arena, n) => arena.allocF64(n),
  view: (arena, ptr, n) => (n === 0 ? new Float64Array(0) : arena.f64(ptr, n)),
};
const _I32: _Kind<Int32Array> = {
  bytes: 4,
  alloc: (arena, n) => arena.allocI32(n),
  view: (arena, ptr, n) => (n === 0 ? new Int32Array(0) : arena.i32(ptr, n)),
};

/** Shared state and logic of both scratch classes (module-private). */
class _Block<A> {
  capacity = 0;
  constructor(readonly owner: object, readonly arena: Arena, readonly kind: _Kind<A>) {
    setPointer(owner, 0);
  }

  ensure(capacity: number): void {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
    }
    if (capacity <= this.capacity) return;
    const grown = Math.max(capacity, 2 * this.capacity);
    this.release();
    setPointer(this.owner, this.kind.alloc(this.arena, grown));
    this.capacity = grown;
  }

  view(start: number, end: number): A {
    if (!(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end)) {
      throw new RangeError(`view range [${start}, ${end}) is not a valid range`);
    }
    if (end > this.capacity) {
      throw new RangeError(`view range [${start}, ${end}) exceeds the capacity ${this.capacity}`);
    }
    const base = this.capacity === 0 ? 0 : pointerOf(this.owner);
    return this.kind.view(this.arena, base + this.kind.bytes * start, end - start);
  }

  release(): void {
    if (this.capacity > 0) this.arena.free(pointerOf(this.owner));
    setPointer(this.owner, 0);
    this.capacity = 0;
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
export class ScratchF64 {
  /** The arena the buffer lives in. */
  readonly arena: Arena;
  readonly #block: _Block<Float64Array>;

  /**
   * Allocate `capacity` zeroed f64.
   *
   * @param arena The arena to allocate in.
   * @param capacity Elements (default 0: allocate on the first {@link ScratchF64.ensure}).
   */
  constructor(arena: Arena, capacity = 0) {
    this.arena = arena;
    this.#block = new _Block(this, arena, _F64);
    if (capacity > 0) this.ensure(capacity);
  }

  /** Number of elements the buffer holds. */
  get capacity(): number {
    return this.#block.capacity;
  }

  /**
   * Make room for at least `capacity` elements; a larger block replaces the old
   * one (contents are not kept; the new block is zeroed).
   *
   * @param capacity Elements wanted.
   * @returns Nothing.
   */
  ensure(capacity: number): void {
    this.#block.ensure(capacity);
  }

  /**
   * A fresh view of elements [start, end), valid until the memory next grows.
   *
   * @param start First element (default 0).
   * @param end One past the last element (default: the capacity).
   * @returns A view backed by the arena's memory.
   */
  view(start = 0, end: number = this.#block.capacity): Float64Array {
    return this.#block.view(start, end);
  }

  /**
   * Release the block; {@link ScratchF64.ensure} allocates a new one.
   *
   * @returns Nothing.
   */
  dispose(): void {
    this.#block.release();
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
export class ScratchI32 {
  /** The arena the buffer lives in. */
  readonly arena: Arena;
  readonly #block: _Block<Int32Array>;

  /**
   * Allocate `capacity` zeroed i32.
   *
   * @param arena The arena to allocate in.
   * @param capacity Elements (default 0: allocate on the first {@link ScratchI32.ensure}).
   */
  constructor(arena: Arena, capacity = 0) {
    this.arena = arena;
    this.#block = new _Block(this, arena, _I32);
    if (capacity > 0) this.ensure(capacity);
  }

  /** Number of elements the buffer holds. */
  get capacity(): number {
    return this.#block.capacity;
  }

  /**
   * Make room for at least `capacity` elements; a larger block replaces the old
   * one (contents are not kept; the new block is zeroed).
   *
   * @param capacity Elements wanted.
   * @returns Nothing.
   */
  ensure(capacity: number): void {
    this.#block.ensure(capacity);
  }

  /**
   * A fresh view of elements [start, end), valid until the memory next grows.
   *
   * @param start First element (default 0).
   * @param end One past the last element (default: the capacity).
   * @returns A view backed by the arena's memory.
   */
  view(start = 0, end: number = this.#block.capacity): Int32Array {
    return this.#block.view(start, end);
  }

  /**
   * Release the block; {@link ScratchI32.ensure} allocates a new one.
   *
   * @returns Nothing.
   */
  dispose(): void {
    this.#block.release();
  }
}
