/**
 * A contiguous buffer of subsampled data rows in WebAssembly memory.
 *
 * Subsampling estimators evaluate the same few rows many times (every leapfrog
 * step of an HMC-ECS trajectory, every SG-MCMC step between refreshes), so the
 * rows are copied once from the full data set into a small contiguous buffer
 * and the kernels then stream that cache-resident block instead of chasing
 * random rows (a random-row gather costs about ten contiguous rows).
 *
 * The buffer itself — its memory layout and the gather kernels — is the core's
 * {@link RowBuffer}; this module gives it the name the subsampling layer uses.
 * Per-row results are read through typed views: `diffs()` (dₖ = ℓₖ − qₖ),
 * `derivatives()` (rₖ = ∂dₖ/∂ηₖ) and `weights()` (wₖ of Σ wₖxₖ).
 *
 * References: Dang et al. (2019) §3.3 (block updates of u keep most rows);
 * docs/architecture.md "Subsampling: what makes it fast".
 *
 * @module
 */
import { RowBuffer } from "../core/row_buffer.ts";
import type { GlmData } from "../data/dataset.ts";

/**
 * A contiguous, growable buffer of gathered data rows plus per-row scratch.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GatheredRows } from "./gathered_rows.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, [1, 2, 3, 4, 5, 6], [0, 1, 0], { numCols: 2 });
 * const rows = new GatheredRows(data, 4);
 * rows.gather(new Int32Array([2, 0]), 0);
 * assert.deepEqual(Array.from(rows.rowValues(0, 2)), [5, 6, 1, 2]);
 * rows.dispose();
 * ```
 */
export class GatheredRows extends RowBuffer {
  /** The data set rows are copied from. */
  declare readonly data: GlmData;

  /**
   * Allocate an empty buffer for `capacity` rows of `data`.
   *
   * @param data The data set to gather from (f64 or f32 storage).
   * @param capacity Initial number of rows.
   */
  constructor(data: GlmData, capacity: number) {
    super(data, capacity);
  }
}
