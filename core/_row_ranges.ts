/**
 * Row-selection checks of GlmKernels: data-row lists, row ranges of a
 * source and position ranges of a row buffer, resolved to [start, end) or
 * refused with a RangeError. Core-internal.
 *
 * @module
 */
import type { PositionRange } from "./glm_kernels.ts";

/** Throws a RangeError unless every listed row is in [0, n). */
export function _checkRows(rows: Int32Array, n: number): void {
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k];
    if (!(r >= 0 && r < n)) {
      throw new RangeError(`row index ${r} at position ${k} is outside [0, ${n - 1}]`);
    }
  }
}

/** The rows [start, end) of a source of n rows (default: all); throws a RangeError outside. */
export function _range(
  range: { start?: number; end?: number } | undefined,
  n: number,
): { start: number; end: number } {
  const start = range?.start ?? 0, end = range?.end ?? n;
  if (
    !(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end && end <= n)
  ) {
    throw new RangeError(`row range [${start}, ${end}) is not inside [0, ${n})`);
  }
  return { start, end };
}

/** The positions [start, end) of a row buffer (default: all); throws a RangeError outside. */
export function _positions(range: PositionRange, capacity: number): { start: number; end: number } {
  const start = range.start ?? 0, end = range.end ?? capacity;
  if (!(start >= 0 && end <= capacity && start <= end)) {
    throw new RangeError(
      `row range [${start}, ${end}) is not inside the buffer of capacity ${capacity}`,
    );
  }
  return { start, end };
}
