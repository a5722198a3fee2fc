/**
 * A GLM data set in linear memory, as the kernels read it:
 *
 * ```
 *  StoredGlmData        x : n × d row-major, f64 or f32      y : n f64
 * ```
 *
 * and fresh views of it for reading the data in TypeScript.
 *
 * @module
 */
import type { Arena } from "./arena.ts";

/**
 * A GLM data set in an arena, as `data/` produces it (`GlmData`): the design
 * matrix and responses at byte offsets that only `core/` reads.
 */
export interface StoredGlmData {
  /** The arena whose memory holds the data. */
  readonly arena: Arena;
  /** Where X starts (core-internal). */
  readonly x: number;
  /** Where y starts (core-internal). */
  readonly y: number;
  /** Number of rows n. */
  readonly numRows: number;
  /** Number of columns d. */
  readonly numCols: number;
  /** Storage type of X ("f64" or "f32"); y is f64. */
  readonly storage: "f64" | "f32";
}

/**
 * Fresh views of a stored data set's X (f64 or f32, as stored, row-major
 * n × d) and y (f64), valid until the memory next grows. For reading the data
 * in TypeScript (analytic posteriors, predictions) without byte offsets.
 *
 * @param data The data set.
 * @returns The two views.
 * @example
 * ```ts
 * import { Arena } from "./arena.ts";
 * import { dataViews } from "./stored_glm_data.ts";
 * const arena = new Arena();
 * const x = arena.allocF32(4), y = arena.allocF64(2);
 * arena.writeF32(x, [1, 2, 3, 4]);
 * const v = dataViews({ arena, x, y, numRows: 2, numCols: 2, storage: "f32" });
 * if (!(v.x instanceof Float32Array) || v.x[3] !== 4 || v.y.length !== 2) throw new Error();
 * ```
 */
export function dataViews(
  data: StoredGlmData,
): { x: Float64Array | Float32Array; y: Float64Array } {
  const cells = data.numRows * data.numCols, a = data.arena;
  return {
    x: data.storage === "f64" ? a.f64(data.x, cells) : a.f32(data.x, cells),
    y: a.f64(data.y, data.numRows),
  };
}
