/**
 * Blocks of a shared memory set aside for other threads: the calling
 * thread's arena reserves a block, a worker attaches an arena to it and
 * allocates its scratch there, reading everything else (the data) in place.
 *
 * ```
 *  owner arena: … data … │ region k (reserved, zeroed) │ …
 *                         └── worker k: attachRegion(region) = Arena over [start, end)
 * ```
 *
 * A {@link SharedRegion} is plain data (structured-cloneable), so it can be
 * posted to a worker; its offsets are opaque outside `core/`.
 *
 * @module
 */
import type { Arena } from "./arena.ts";
import { attachCore, type CoreBackend } from "./load.ts";

/** A reserved block of a shared memory, for one worker. */
export interface SharedRegion {
  /** The shared memory. */
  readonly memory: WebAssembly.Memory;
  /** The kernels the owner uses (workers bind the same ones). */
  readonly backend: CoreBackend;
  /** @internal Byte offsets [start, end). */
  readonly start: number;
  /** @internal */
  readonly end: number;
}

/**
 * Reserve `bytes` of `arena` (a shared one) for a worker.
 *
 * @param arena The owning arena (`loadCore({ shared: true })`).
 * @param bytes Size of the block.
 * @returns The region; give it back with {@link releaseRegion}.
 * @throws {TypeError} If the arena's memory is not shared.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "./load.ts";
 * import { attachRegion, releaseRegion, reserveRegion } from "./shared_region.ts";
 * const owner = loadCore({ backend: "reference", shared: true });
 * const region = reserveRegion(owner, 1 << 16);
 * const worker = attachRegion(region);
 * assert.equal(worker.isAttached, true);
 * releaseRegion(owner, region);
 * ```
 */
export function reserveRegion(arena: Arena, bytes: number): SharedRegion {
  if (!arena.shared) {
    throw new TypeError(
      "reserveRegion needs an arena over a shared memory (loadCore({ shared: true }))",
    );
  }
  const start = arena.alloc(bytes, 64);
  return { memory: arena.memory, backend: arena.backend, start, end: start + bytes };
}

/**
 * Give a region back to the arena that reserved it (after its worker ended).
 *
 * @param arena The owning arena.
 * @param region A region from {@link reserveRegion}.
 * @returns Nothing.
 */
export function releaseRegion(arena: Arena, region: SharedRegion): void {
  arena.free(region.start);
}

/**
 * An arena that allocates only inside `region`, with the owner's kernels
 * bound to the shared memory (in a worker, after the region was posted).
 *
 * @param region A region from {@link reserveRegion}.
 * @returns The attached arena.
 */
export function attachRegion(region: SharedRegion): Arena {
  return attachCore(region.memory, {
    region: { start: region.start, end: region.end },
    backend: region.backend,
  });
}
