/**
 * Core-private bookkeeping: the byte offset behind each typed handle (scratch
 * buffers, row buffers, control-variate caches). Only modules in `core/` import
 * this; outside `core/` a handle is an opaque object with typed views.
 *
 * @module
 */

const _pointers = new WeakMap<object, number>();

/** Record the byte offset behind `owner` (0 = released). */
export function setPointer(owner: object, ptr: number): void {
  _pointers.set(owner, ptr);
}

/** The byte offset behind `owner`; throws if it was never set or was released. */
export function pointerOf(owner: object): number {
  const p = _pointers.get(owner);
  if (p === undefined || p === 0) {
    throw new RangeError(`${owner.constructor.name} has been disposed (or was never allocated)`);
  }
  return p;
}
