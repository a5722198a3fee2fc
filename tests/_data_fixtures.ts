/**
 * Shared fixtures of the data-layer tests (tests/data_*_test.ts): reading a
 * GlmData's X and y back out of the arena, and bitwise equality of f64 arrays.
 *
 * @module
 */
import type { GlmData } from "../data/mod.ts";

export function _x(data: GlmData): Float64Array {
  const cells = data.numRows * data.numCols;
  return data.storage === "f64"
    ? data.arena.readF64(data.x, cells)
    : Float64Array.from(data.arena.readF32(data.x, cells));
}

export function _y(data: GlmData): Float64Array {
  return data.arena.readF64(data.y, data.numRows);
}
export function _readAll(data: GlmData): [Float64Array, Float64Array] {
  return [_x(data), _y(data)];
}

export function _bitsEqual(a: Float64Array, b: Float64Array): boolean {
  const ua = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const ub = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return ua.length === ub.length && ua.every((v, i) => v === ub[i]);
}
