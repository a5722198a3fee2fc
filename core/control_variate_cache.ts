/**
 * The per-row control-variate cache of a data set in linear memory:
 *
 * ```
 *  ControlVariateCache  n × CV_STRIDE f64: (η*ᵢ, ℓᵢ(η*ᵢ), aᵢ = dℓ/dη(η*ᵢ), bᵢ = d²ℓ/dη²(η*ᵢ))
 * ```
 *
 * filled by `GlmKernels.prepareControlVariates` (core/glm_kernels.ts) and
 * gathered with the rows into a `RowBuffer` (core/row_buffer.ts); shared
 * with other threads over a shared memory as plain data ({@link SharedCache}).
 *
 * References: Dang et al. (2019) eq. 11.
 *
 * @module
 */
import type { Arena } from "./arena.ts";
import { pointerOf, setPointer } from "./_handles.ts";

/** f64 per control-variate cache row (η*, ℓ*, a, b). Core-internal layout. */
export const CV_STRIDE = 4;

/**
 * The per-row control-variate cache of a data set: (η*ᵢ, ℓᵢ*, aᵢ, bᵢ) for every
 * row i, filled by {@link GlmKernels.prepareControlVariates}.
 *
 * @example
 * ```ts
 * import { Arena } from "./arena.ts";
 * import { ControlVariateCache } from "./control_variate_cache.ts";
 * const cache = new ControlVariateCache(new Arena(), 10);
 * if (cache.numRows !== 10) throw new Error();
 * cache.dispose();
 * ```
 */
export class ControlVariateCache {
  /** The arena holding the cache. */
  readonly arena: Arena;
  /** Number of data rows n. */
  readonly numRows: number;

  /**
   * Allocate the cache (zeroed) for `numRows` rows.
   *
   * @param arena The data's arena.
   * @param numRows n.
   */
  constructor(arena: Arena, numRows: number) {
    if (!Number.isInteger(numRows) || numRows < 1) {
      throw new RangeError(`numRows must be a positive integer, got ${numRows}`);
    }
    this.arena = arena;
    this.numRows = numRows;
    setPointer(this, arena.allocF64(numRows * CV_STRIDE));
  }

  /**
   * The cached (η*, ℓ*, dℓ/dη, d²ℓ/dη²) of data row `i` (a copy).
   *
   * @param i Row index in [0, n).
   * @returns Four numbers.
   */
  row(i: number): Float64Array {
    if (!(Number.isInteger(i) && i >= 0 && i < this.numRows)) {
      throw new RangeError(`row index must be an integer in [0, ${this.numRows - 1}], got ${i}`);
    }
    return this.arena.readF64(pointerOf(this) + i * CV_STRIDE * 8, CV_STRIDE);
  }

  /**
   * The cache as plain, structured-cloneable data, for another thread over
   * the same shared memory ({@link ControlVariateCache.attach}).
   *
   * @returns The shared handle (valid until this cache is disposed).
   */
  share(): SharedCache {
    return { numRows: this.numRows, offset: pointerOf(this) };
  }

  /**
   * A view of a cache another thread {@link ControlVariateCache.share | shared}:
   * it reads and fills the same rows; its `dispose` only forgets them (the
   * owner frees the memory).
   *
   * @param arena An arena over the owner's shared memory (e.g. a worker's attached region).
   * @param shared The owner's handle.
   * @returns The view.
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { loadCore } from "./load.ts";
   * import { ControlVariateCache } from "./control_variate_cache.ts";
   * const arena = loadCore({ backend: "reference", shared: true });
   * const cache = new ControlVariateCache(arena, 3);
   * const view = ControlVariateCache.attach(arena, cache.share());
   * assert.equal(view.numRows, 3);
   * view.dispose();
   * assert.deepEqual(Array.from(cache.row(2)), [0, 0, 0, 0]); // still the owner's
   * cache.dispose();
   * ```
   */
  static attach(arena: Arena, shared: SharedCache): ControlVariateCache {
    if (!(Number.isInteger(shared.numRows) && shared.numRows >= 1 && shared.offset > 0)) {
      throw new RangeError(
        `a shared cache needs numRows ≥ 1 and an offset, got ${JSON.stringify(shared)}`,
      );
    }
    const view = Object.create(ControlVariateCache.prototype) as ControlVariateCache;
    Object.defineProperties(view, {
      arena: { value: arena, enumerable: true },
      numRows: { value: shared.numRows, enumerable: true },
    });
    setPointer(view, shared.offset);
    _views.add(view);
    return view;
  }

  /**
   * Release the cache (a view from {@link ControlVariateCache.attach} only
   * forgets its rows).
   *
   * @returns Nothing.
   */
  dispose(): void {
    if (!_views.has(this)) this.arena.free(pointerOf(this));
    setPointer(this, 0);
  }
}

/**
 * A {@link ControlVariateCache} as plain data (structured-cloneable; its
 * offset is opaque outside `core/`).
 */
export interface SharedCache {
  /** Rows n. */
  readonly numRows: number;
  /** @internal Byte offset of row 0. */
  readonly offset: number;
}

const _views = new WeakSet<ControlVariateCache>();
