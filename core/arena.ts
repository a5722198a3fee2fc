/**
 * The memory arena: owns one `WebAssembly.Memory` and the {@link CoreExports}
 * bound to it, hands out byte offsets ("pointers") and is the ONLY module that
 * creates typed-array views over `memory.buffer`.
 *
 * ```
 *  0      heapBase      64 KiB = start                 top        byteLength
 *  ├─ static ─┤ (reserved) ├─ blocks: used | free | … ─┤ unused ───┤ ≤ 4 GiB
 *                                 ▲ free list (first fit,          ▲ bump pointer
 *                                   coalescing neighbours)
 * ```
 *
 * Growing a `WebAssembly.Memory` detaches every view over the old buffer
 * (reads give `undefined`, writes are dropped silently). Views returned by
 * {@link Arena.f64} and friends are therefore valid only until the next
 * {@link Arena.alloc} or {@link Arena.grow} that grows the memory: allocate
 * first, then derive views.
 *
 * @module
 */

import type { CoreBackend, CoreExports } from "./exports.ts";
import { createReferenceExports } from "./reference.ts";
import { adviseHugePages } from "./huge_pages.ts";

/** Bytes per WebAssembly page. */
export const PAGE_BYTES = 65536;
/** Maximum pages of a wasm32 memory (4 GiB). */
export const MAX_PAGES = 65536;
/** Maximum bytes of a wasm32 memory (4 GiB). */
export const MAX_BYTES: number = PAGE_BYTES * MAX_PAGES;
/**
 * Bytes below which the arena never allocates: room for the static data of
 * any core build (each build's `heapBase()` is at most this), so that any
 * backend can be bound to any arena's memory with `bindCore`.
 */
export const RESERVED_BYTES = 65536;

/** Options of the {@link Arena} constructor. */
export interface ArenaOptions {
  /** Which implementation `bindFn` returns (default "reference"). */
  backend?: CoreBackend;
  /** @internal Binds raw kernels to the memory (default: the TS reference); see loadCore. */
  bindFn?: (memory: WebAssembly.Memory) => CoreExports;
  /** Initial memory size in bytes, rounded up to pages (default 1 MiB). */
  initialBytes?: number;
  /** Use a shared memory (SharedArrayBuffer; for workers). Default false. */
  shared?: boolean;
  /**
   * Attach to this existing memory instead of creating one (a worker's view
   * of a shared memory another thread's arena owns). Needs `region`.
   */
  memory?: WebAssembly.Memory;
  /**
   * With `memory`: the byte range `[start, end)` this arena may allocate in,
   * a block the owning arena allocated for it (zeroed). The arena never grows
   * the memory itself. When the region is full it calls `region.extend`, if
   * given, for another zeroed block of at least the bytes it names (the owner
   * allocates it; see `core/shared_region.ts`), and throws otherwise.
   */
  region?: ArenaRegion;
}

/** The block an attached arena allocates in (see {@link ArenaOptions.region}). */
export interface ArenaRegion {
  /** First byte of the block. */
  start: number;
  /** One past its last byte. */
  end: number;
  /**
   * Called when an allocation does not fit: return another zeroed block of
   * at least `bytes` bytes owned by this arena from then on (or throw).
   */
  extend?: (bytes: number) => { start: number; end: number };
}

interface _Block {
  ptr: number;
  size: number;
}

function _alignUp(v: number, a: number): number {
  return Math.ceil(v / a) * a;
}

/**
 * One linear memory, its kernels and a first-fit allocator with coalescing.
 * Pointers are unsigned byte offsets (`>>> 0`), 0 is never returned.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { Arena } from "./arena.ts";
 * const arena = new Arena(); // reference backend
 * const x = arena.allocF64(3), y = arena.allocF64(3);
 * arena.writeF64(x, [1, 2, 3]);
 * arena.writeF64(y, [4, 5, 6]);
 * assert.equal(arena.exports.dot(3, x, y), 32);
 * arena.free(x);
 * arena.free(y);
 * ```
 */
export class Arena {
  /** The linear memory every kernel reads. Do not make views of it elsewhere. */
  readonly memory: WebAssembly.Memory;
  /** @internal The raw kernels, bound to {@link Arena.memory} (used inside `core/` only). */
  readonly exports: CoreExports;
  /** Which implementation {@link Arena.exports} is. */
  readonly backend: CoreBackend;
  /** Whether {@link Arena.memory} is shared. */
  readonly shared: boolean;

  #start: number;
  #top: number;
  /** End of the block an attached arena bumps in (MAX_BYTES for an owning arena). */
  #end: number = MAX_BYTES;
  #attached = false;
  #extend: ArenaRegion["extend"];
  /** Bytes of every block an attached arena was given (its region and extensions). */
  #owned = 0;
  #free: _Block[] = [];
  #used = new Map<number, number>();
  #inUse = 0;
  /**
   * Bytes in [#clean, #end) have never been handed out: still zero. Any other
   * byte is cleared when claimed. An attached arena's region and extensions
   * are not known to be zero (their owner hands them out as they are): every
   * block claimed there is cleared, so only the bytes used are written.
   */
  #clean: number;

  /**
   * Create the memory (maximum 65536 pages = 4 GiB) and bind the kernels.
   *
   * @param options Backend, binder, initial size, sharing.
   * @returns A fresh arena.
   */
  constructor(options: ArenaOptions = {}) {
    const initialBytes = options.initialBytes ?? 1 << 20;
    if (!Number.isFinite(initialBytes) || initialBytes < 0 || initialBytes > MAX_BYTES) {
      throw new RangeError(
        `initialBytes must be between 0 and ${MAX_BYTES} (4 GiB), got ${initialBytes}`,
      );
    }
    if (options.bindFn === undefined && (options.backend ?? "reference") !== "reference") {
      throw new TypeError(`backend "${options.backend}" needs a bindFn; use loadCore() instead`);
    }
    if (options.memory !== undefined) {
      const region = options.region;
      const len = options.memory.buffer.byteLength;
      if (
        region === undefined || !Number.isInteger(region.start) || !Number.isInteger(region.end) ||
        region.start < RESERVED_BYTES || region.end <= region.start || region.end > len
      ) {
        throw new RangeError(
          `an arena attached to a memory needs a region inside its ${len} bytes above ${RESERVED_BYTES}, got ${
            JSON.stringify(region)
          }`,
        );
      }
      this.memory = options.memory;
      this.shared = options.memory.buffer instanceof SharedArrayBuffer;
    } else {
      this.shared = options.shared ?? false;
      const initial = Math.max(1, Math.ceil(initialBytes / PAGE_BYTES));
      this.memory = new WebAssembly.Memory(
        this.shared
          ? { initial, maximum: MAX_PAGES, shared: true }
          : { initial, maximum: MAX_PAGES },
      );
      adviseHugePages(this.memory);
    }
    this.backend = options.backend ?? "reference";
    this.exports = (options.bindFn ?? createReferenceExports)(this.memory);
    const heapBase = this.exports.heapBase() >>> 0;
    this.#start = _alignUp(Math.max(heapBase, RESERVED_BYTES), 16);
    if (options.memory !== undefined) {
      this.#start = _alignUp(options.region!.start, 16);
      this.#end = options.region!.end;
      this.#attached = true;
      this.#extend = options.region!.extend;
      this.#owned = this.#end - this.#start;
    }
    this.#top = this.#start;
    this.#clean = this.#attached ? this.#end : this.#start;
    if (this.#start > this.memory.buffer.byteLength) this.#ensure(this.#start);
  }

  /** Whether this arena allocates in a region of a memory another arena owns. */
  get isAttached(): boolean {
    return this.#attached;
  }

  /**
   * Bytes an attached arena may allocate in: its region plus every block
   * `region.extend` gave it (for an owning arena, the 4 GiB of a wasm32 memory).
   */
  get capacity(): number {
    return this.#attached ? this.#owned : MAX_BYTES;
  }

  /**
   * Whether this attached arena can ask for more room beyond `capacity`
   * (its region has an `extend`); false for an owning arena.
   */
  get extendable(): boolean {
    return this.#attached && this.#extend !== undefined;
  }

  /** Bytes currently allocated (after rounding sizes up to 8). */
  get bytesInUse(): number {
    return this.#inUse;
  }

  /** Current size of the memory in bytes. */
  get byteLength(): number {
    return this.memory.buffer.byteLength;
  }

  /**
   * Allocate `bytes` (rounded up to a multiple of 8), zero-filled, growing the
   * memory if needed. Views derived before this call may be detached by it.
   *
   * @param bytes Requested size in bytes (0 allocates 8).
   * @param align Alignment, a power of two (at least 8 is used).
   * @param zero Zero-fill the block (default true; false: the caller writes
   *   every byte it reads, and a reused block keeps its old bytes).
   * @returns The unsigned byte offset of the block (never 0).
   * @example
   * ```ts
   * import { strict as assert } from "node:assert";
   * import { Arena } from "./arena.ts";
   * const arena = new Arena();
   * const p = arena.alloc(1000, 16);
   * assert.equal(p % 16, 0);
   * ```
   */
  alloc(bytes: number, align = 8, zero = true): number {
    if (!Number.isInteger(bytes) || bytes < 0) {
      throw new RangeError(`alloc() size must be a non-negative integer, got ${bytes}`);
    }
    if (bytes > MAX_BYTES) {
      throw new RangeError(
        `alloc(${bytes}) requests more than the 4 GiB (${MAX_BYTES} bytes) of a wasm32 memory`,
      );
    }
    if (!Number.isInteger(align) || align < 1 || (align & (align - 1)) !== 0 || align > 65536) {
      throw new RangeError(`alloc() align must be a power of two ≤ 65536, got ${align}`);
    }
    align = Math.max(align, 8);
    const size = Math.max(8, _alignUp(bytes, 8));
    // First fit in the free list.
    for (let k = 0; k < this.#free.length; k++) {
      const b = this.#free[k];
      const p = _alignUp(b.ptr, align);
      if (p + size > b.ptr + b.size) continue;
      const rest: _Block[] = [];
      if (p > b.ptr) rest.push({ ptr: b.ptr, size: p - b.ptr });
      if (p + size < b.ptr + b.size) rest.push({ ptr: p + size, size: b.ptr + b.size - p - size });
      this.#free.splice(k, 1, ...rest);
      return this.#claim(p, size, zero);
    }
    // Bump.
    let p = _alignUp(this.#top, align);
    if (p + size > this.#end && this.#attached) {
      if (this.#extend === undefined) {
        throw new RangeError(
          `alloc(${bytes}) does not fit in this attached arena's region of ${this.#owned} bytes (${this.#inUse} in use); give the worker a larger scratch region`,
        );
      }
      this.#moveTo(this.#extend(Math.max(size + align, this.#owned)), size + align);
      p = _alignUp(this.#top, align);
    }
    if (p + size > MAX_BYTES) {
      throw new RangeError(
        `alloc(${bytes}) does not fit in the 4 GiB wasm32 memory (${this.#inUse} bytes in use)`,
      );
    }
    this.#ensure(p + size);
    if (p > this.#top) this.#insertFree({ ptr: this.#top, size: p - this.#top });
    this.#top = p + size;
    return this.#claim(p, size, zero);
  }

  /**
   * Allocate `n` f64 (8-byte aligned, zeroed).
   *
   * @param n Number of elements.
   * @param zero Zero-fill them (default true; see {@link Arena.alloc}).
   * @returns Byte offset.
   * @example
   * ```ts
   * import { strict as assert } from "node:assert";
   * import { Arena } from "./arena.ts";
   * const arena = new Arena();
   * const theta = arena.allocF64(30);
   * assert.equal(arena.f64(theta, 30).length, 30);
   * ```
   */
  allocF64(n: number, zero = true): number {
    return this.alloc(this.#count(n, "allocF64") * 8, 8, zero);
  }

  /**
   * Allocate `n` f32 (8-byte aligned, zeroed).
   *
   * @param n Number of elements.
   * @param zero Zero-fill them (default true; see {@link Arena.alloc}).
   * @returns Byte offset.
   * @example
   * ```ts
   * import { strict as assert } from "node:assert";
   * import { Arena } from "./arena.ts";
   * const p = new Arena().allocF32(5);
   * assert.ok(p > 0);
   * ```
   */
  allocF32(n: number, zero = true): number {
    return this.alloc(this.#count(n, "allocF32") * 4, 8, zero);
  }

  /**
   * Allocate `n` i32 (8-byte aligned, zeroed).
   *
   * @param n Number of elements.
   * @returns Byte offset.
   * @example
   * ```ts
   * import { strict as assert } from "node:assert";
   * import { Arena } from "./arena.ts";
   * const p = new Arena().allocI32(5);
   * assert.ok(p > 0);
   * ```
   */
  allocI32(n: number): number {
    return this.alloc(this.#count(n, "allocI32") * 4, 8);
  }

  /**
   * Return a block to the free list, merging it with free neighbours.
   *
   * @param ptr A pointer returned by {@link Arena.alloc} and not yet freed.
   * @returns Nothing.
   * @example
   * ```ts
   * import { strict as assert } from "node:assert";
   * import { Arena } from "./arena.ts";
   * const arena = new Arena();
   * arena.free(arena.allocF64(10));
   * assert.equal(arena.bytesInUse, 0);
   * ```
   */
  free(ptr: number): void {
    const size = this.#used.get(ptr);
    if (size === undefined) {
      throw new RangeError(`free(${ptr}): not a live allocation of this arena`);
    }
    this.#used.delete(ptr);
    this.#inUse -= size;
    this.#insertFree({ ptr, size });
    // Give the last free block back to the bump pointer.
    const last = this.#free[this.#free.length - 1];
    if (last !== undefined && last.ptr + last.size === this.#top) {
      this.#top = last.ptr;
      this.#free.pop();
    }
  }

  /**
   * Grow the memory by `pages` × 64 KiB (detaches existing views).
   *
   * @param pages Pages to add.
   * @returns The previous size in pages.
   * @example
   * ```ts
   * import { strict as assert } from "node:assert";
   * import { Arena } from "./arena.ts";
   * const arena = new Arena({ initialBytes: 65536 });
   * assert.equal(arena.grow(1), 1);
   * ```
   */
  grow(pages: number): number {
    if (!Number.isInteger(pages) || pages < 0) {
      throw new RangeError(`grow() pages must be a non-negative integer, got ${pages}`);
    }
    if (this.isAttached) {
      throw new RangeError(
        `grow(${pages}): an arena attached to a region of another arena's memory never grows it`,
      );
    }
    const before = this.memory.buffer.byteLength / PAGE_BYTES;
    if (before + pages > MAX_PAGES) {
      throw new RangeError(
        `grow(${pages}) would exceed ${MAX_PAGES} pages (4 GiB); memory has ${before} pages`,
      );
    }
    try {
      return this.memory.grow(pages);
    } catch (e) {
      throw new RangeError(
        `grow(${pages}) failed with ${before} pages already allocated: ${(e as Error).message}`,
      );
    }
  }

  /**
   * A fresh Float64Array view of `n` f64 at `ptr`. Valid until memory grows.
   *
   * @param ptr Byte offset (multiple of 8).
   * @param n Number of elements.
   * @returns A view (writes go to the memory).
   * @example
   * ```ts
   * import { strict as assert } from "node:assert";
   * import { Arena } from "./arena.ts";
   * const arena = new Arena();
   * const p = arena.allocF64(2);
   * arena.f64(p, 2)[1] = 7;
   * assert.deepEqual(Array.from(arena.readF64(p, 2)), [0, 7]);
   * ```
   */
  f64(ptr: number, n: number): Float64Array {
    return new Float64Array(this.#check(ptr, n, 8, "f64"), ptr, n);
  }

  /**
   * A fresh Float32Array view of `n` f32 at `ptr`. Valid until memory grows.
   *
   * @param ptr Byte offset (multiple of 4).
   * @param n Number of elements.
   * @returns A view.
   * @example
   * ```ts
   * import { strict as assert } from "node:assert";
   * import { Arena } from "./arena.ts";
   * const arena = new Arena();
   * assert.equal(arena.f32(arena.allocF32(3), 3).length, 3);
   * ```
   */
  f32(ptr: number, n: number): Float32Array {
    return new Float32Array(this.#check(ptr, n, 4, "f32"), ptr, n);
  }

  /**
   * A fresh Int32Array view of `n` i32 at `ptr`. Valid until memory grows.
   *
   * @param ptr Byte offset (multiple of 4).
   * @param n Number of elements.
   * @returns A view.
   * @example
   * ```ts
   * import { strict as assert } from "node:assert";
   * import { Arena } from "./arena.ts";
   * const arena = new Arena();
   * assert.equal(arena.i32(arena.allocI32(3), 3).length, 3);
   * ```
   */
  i32(ptr: number, n: number): Int32Array {
    return new Int32Array(this.#check(ptr, n, 4, "i32"), ptr, n);
  }

  /**
   * Copy `src` into memory as f64 starting at `ptr`.
   *
   * @param ptr Byte offset (multiple of 8).
   * @param src Values.
   * @returns Nothing.
   * @example
   * ```ts
   * import { Arena } from "./arena.ts";
   * const arena = new Arena();
   * const p = arena.allocF64(2);
   * arena.writeF64(p, [1, 2]);
   * ```
   */
  writeF64(ptr: number, src: ArrayLike<number>): void {
    this.f64(ptr, src.length).set(src);
  }

  /**
   * Copy `src` into memory as f32 (rounded) starting at `ptr`.
   *
   * @param ptr Byte offset (multiple of 4).
   * @param src Values.
   * @returns Nothing.
   * @example
   * ```ts
   * import { Arena } from "./arena.ts";
   * const arena = new Arena();
   * arena.writeF32(arena.allocF32(2), [1, 2]);
   * ```
   */
  writeF32(ptr: number, src: ArrayLike<number>): void {
    this.f32(ptr, src.length).set(src);
  }

  /**
   * Copy `src` into memory as i32 starting at `ptr`.
   *
   * @param ptr Byte offset (multiple of 4).
   * @param src Integer values.
   * @returns Nothing.
   * @example
   * ```ts
   * import { Arena } from "./arena.ts";
   * const arena = new Arena();
   * arena.writeI32(arena.allocI32(2), [3, 1]);
   * ```
   */
  writeI32(ptr: number, src: ArrayLike<number>): void {
    this.i32(ptr, src.length).set(src);
  }

  /**
   * Copy `n` f64 out of memory (the copy survives growth).
   *
   * @param ptr Byte offset (multiple of 8).
   * @param n Number of elements.
   * @returns A new Float64Array not backed by the memory.
   * @example
   * ```ts
   * import { strict as assert } from "node:assert";
   * import { Arena } from "./arena.ts";
   * const arena = new Arena();
   * assert.deepEqual(Array.from(arena.readF64(arena.allocF64(2), 2)), [0, 0]);
   * ```
   */
  readF64(ptr: number, n: number): Float64Array {
    return this.f64(ptr, n).slice();
  }

  /**
   * Copy `n` f32 out of memory.
   *
   * @param ptr Byte offset (multiple of 4).
   * @param n Number of elements.
   * @returns A new Float32Array not backed by the memory.
   * @example
   * ```ts
   * import { strict as assert } from "node:assert";
   * import { Arena } from "./arena.ts";
   * const arena = new Arena();
   * assert.deepEqual(Array.from(arena.readF32(arena.allocF32(1), 1)), [0]);
   * ```
   */
  readF32(ptr: number, n: number): Float32Array {
    return this.f32(ptr, n).slice();
  }

  #count(n: number, what: string): number {
    if (!Number.isInteger(n) || n < 0) {
      throw new RangeError(`${what}() count must be a non-negative integer, got ${n}`);
    }
    return n;
  }

  /** The memory's buffer (read once: a getter that is not free on a shared memory), range checked. */
  #check(ptr: number, n: number, width: number, what: string): ArrayBufferLike {
    if (!Number.isInteger(ptr) || ptr < 0 || ptr % width !== 0) {
      throw new RangeError(`${what}() pointer must be a multiple of ${width} ≥ 0, got ${ptr}`);
    }
    if (!Number.isInteger(n) || n < 0) {
      throw new RangeError(`${what}() count must be a non-negative integer, got ${n}`);
    }
    const buffer = this.memory.buffer, len = buffer.byteLength;
    if (ptr + n * width > len) {
      throw new RangeError(
        `${what}(${ptr}, ${n}) reaches byte ${ptr + n * width}, past the memory's ${len} bytes`,
      );
    }
    return buffer;
  }

  /**
   * An attached arena continues in a new block: what is left of the current
   * one joins the free list (cleared when claimed), the new one is bumped in.
   */
  #moveTo(block: { start: number; end: number }, atLeast: number): void {
    const start = _alignUp(block.start, 16);
    // Another thread may have grown the shared memory: grow(0) refreshes this thread's buffer.
    if (block.end > this.memory.buffer.byteLength) this.memory.grow(0);
    if (
      !Number.isInteger(block.start) || !Number.isInteger(block.end) ||
      block.start < RESERVED_BYTES || block.end > this.memory.buffer.byteLength ||
      block.end - start < atLeast
    ) {
      throw new RangeError(
        `region.extend returned ${
          JSON.stringify(block)
        }, not a block of ${atLeast} bytes inside the memory`,
      );
    }
    if (this.#top < this.#end) this.#insertFree({ ptr: this.#top, size: this.#end - this.#top });
    this.#owned += block.end - block.start;
    this.#top = start;
    this.#clean = block.end; // not known to be zero: cleared when claimed
    this.#end = block.end;
  }

  #claim(ptr: number, size: number, zero: boolean): number {
    ptr = ptr >>> 0;
    this.#used.set(ptr, size);
    this.#inUse += size;
    // fresh memory from growth (or a fresh block) is zero: only reused bytes need clearing
    const outside = ptr >= this.#end;
    const dirty = (outside ? ptr + size : Math.min(ptr + size, this.#clean)) - ptr;
    if (dirty > 0 && zero) new Uint8Array(this.memory.buffer, ptr, dirty).fill(0);
    if (!outside) this.#clean = Math.max(this.#clean, ptr + size);
    return ptr;
  }

  #ensure(end: number): void {
    const len = this.memory.buffer.byteLength;
    if (end <= len) return;
    const needed = Math.ceil((end - len) / PAGE_BYTES);
    const pages = len / PAGE_BYTES;
    // grow by at least half the current size (fewer growths, fewer detached views)
    const generous = Math.min(Math.max(needed, Math.ceil(pages / 2)), MAX_PAGES - pages);
    if (generous > needed) {
      try {
        this.memory.grow(generous);
        return;
      } catch {
        // fall back to the exact amount
      }
    }
    this.grow(needed);
  }

  #insertFree(block: _Block): void {
    const list = this.#free;
    let lo = 0, hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].ptr < block.ptr) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, block);
    // Coalesce with the following, then the preceding block.
    const next = list[lo + 1];
    if (next !== undefined && block.ptr + block.size === next.ptr) {
      block.size += next.size;
      list.splice(lo + 1, 1);
    }
    const prev = list[lo - 1];
    if (prev !== undefined && prev.ptr + prev.size === block.ptr) {
      prev.size += block.size;
      list.splice(lo, 1);
    }
  }
}
