/**
 * Blocks of a shared memory set aside for other threads: the calling
 * thread's arena reserves a block, a worker attaches an arena to it and
 * allocates its scratch there, reading everything else (the data) in place.
 *
 * ```
 *  owner arena: … data … │ region k (reserved, zeroed) │ … │ extension of k │ …
 *                         └── worker k: attachRegion(region) = Arena over [start, end)
 * ```
 *
 * A region reserved with `{ growable: true }` never runs out: when the
 * worker's arena is full it asks the owning thread for another block
 * ({@link attachRegion}'s `request`, e.g. a message), waits on the region's
 * signal (`Atomics.wait`), and the owning thread answers with
 * {@link grantExtension}, which allocates the block in the owning arena (the
 * only allocator of the memory, so no two threads ever claim the same bytes).
 * {@link releaseRegion} frees the region and every extension.
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
  /**
   * @internal With `growable`: [state (0 asked, 1 granted, 2 refused), start, end]
   * of the last extension, as u32.
   */
  readonly signal?: SharedArrayBuffer;
}

/** Extensions granted to each region, freed with it. */
const _extensions = new WeakMap<SharedRegion, number[]>();

/**
 * Reserve `bytes` of `arena` (a shared one) for a worker. The block is not
 * cleared here (at 10⁷ rows two chain workers' regions are hundreds of MB,
 * mostly never used): the worker's attached arena clears each block it
 * claims.
 *
 * @param arena The owning arena (`loadCore({ shared: true })`).
 * @param bytes Size of the block.
 * @param options `growable`: the worker may ask for more (see the module notes).
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
export function reserveRegion(
  arena: Arena,
  bytes: number,
  options: { growable?: boolean } = {},
): SharedRegion {
  if (!arena.shared) {
    throw new TypeError(
      "reserveRegion needs an arena over a shared memory (loadCore({ shared: true }))",
    );
  }
  const start = arena.alloc(bytes, 64, false);
  const region: SharedRegion = {
    memory: arena.memory,
    backend: arena.backend,
    start,
    end: start + bytes,
    ...(options.growable ? { signal: new SharedArrayBuffer(12) } : {}),
  };
  _extensions.set(region, []);
  return region;
}

/**
 * Answer a worker's request for `bytes` more scratch in a growable region:
 * allocate a block in the owning arena (cleared by the worker's arena as it
 * claims it) and wake the worker (or tell it
 * the block could not be had: the memory is full, or the region was released).
 *
 * @param arena The owning arena.
 * @param region A growable region from {@link reserveRegion}.
 * @param bytes Size the worker asked for.
 * @returns Nothing.
 * @throws {TypeError} If the region is not growable.
 */
export function grantExtension(arena: Arena, region: SharedRegion, bytes: number): void {
  if (region.signal === undefined) {
    throw new TypeError("grantExtension needs a region reserved with { growable: true }");
  }
  const signal = new Int32Array(region.signal);
  const words = new Uint32Array(region.signal);
  const granted = _extensions.get(region);
  try {
    // a region already released gets nothing (its worker is being ended)
    if (granted === undefined) throw new RangeError("released");
    const start = arena.alloc(bytes, 64, false); // the worker clears what it claims
    granted.push(start);
    words[1] = start;
    words[2] = start + bytes;
    Atomics.store(signal, 0, 1);
  } catch {
    Atomics.store(signal, 0, 2);
  }
  Atomics.notify(signal, 0);
}

/**
 * Give a region back to the arena that reserved it (after its worker ended).
 *
 * @param arena The owning arena.
 * @param region A region from {@link reserveRegion}.
 * @returns Nothing.
 */
export function releaseRegion(arena: Arena, region: SharedRegion): void {
  for (const p of _extensions.get(region) ?? []) arena.free(p);
  _extensions.delete(region);
  arena.free(region.start);
}

/**
 * An arena that allocates only inside `region`, with the owner's kernels
 * bound to the shared memory (in a worker, after the region was posted).
 *
 * @param region A region from {@link reserveRegion}.
 * @param request For a growable region: how to ask the owning thread for
 *   `bytes` more (it must answer with {@link grantExtension}); the arena then
 *   blocks until the answer (so call it in a worker, where `Atomics.wait` may block).
 * @returns The attached arena.
 */
export function attachRegion(region: SharedRegion, request?: (bytes: number) => void): Arena {
  const signal = region.signal;
  const extend = signal === undefined || request === undefined
    ? undefined
    : (bytes: number) => _extend(signal, request, bytes);
  return attachCore(region.memory, {
    region: { start: region.start, end: region.end, extend },
    backend: region.backend,
  });
}

function _extend(
  buffer: SharedArrayBuffer,
  request: (bytes: number) => void,
  bytes: number,
): { start: number; end: number } {
  const signal = new Int32Array(buffer);
  const words = new Uint32Array(buffer);
  const asked = Math.ceil(bytes / 64) * 64;
  Atomics.store(signal, 0, 0);
  request(asked);
  Atomics.wait(signal, 0, 0);
  if (Atomics.load(signal, 0) !== 1) {
    throw new RangeError(
      `a worker needed ${asked} more bytes of scratch and the shared memory could not provide them (the 4 GiB of a wasm32 memory is full)`,
    );
  }
  return { start: words[1], end: words[2] };
}
