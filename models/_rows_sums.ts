/**
 * Sums over listed rows of one block of a {@link GlmModel}: Σℓₖ and Σ∇ℓₖ
 * (rows read in place by index), or Σ∇²ℓₖ (rows gathered into a small
 * buffer, a chunk at a time, then summed by the Hessian kernel), each in
 * chunks of {@link ROWS_SUMS_CHUNK} rows so that the scratch stays small. The
 * calling thread of a {@link import("./threaded_glm.ts").ThreadedGlmModel}
 * and its pass workers (./_pass_worker.ts) run the same function on their own
 * blocks, so a thread's partial sum depends only on its rows.
 *
 * @module
 */
import { RowBuffer } from "../core/row_buffer.ts";
import type { GlmModel } from "./glm.ts";

/** Rows per kernel call. */
export const ROWS_SUMS_CHUNK = 2048;

/** @internal What {@link blockRowsSums} sums: 1 ℓ and ∇ℓ, 2 ∇²ℓ. */
export const ROWS_GRAD = 1, ROWS_HESS = 2;

/**
 * The positions [lo, hi) of `rows` (increasing) that fall in [start, end).
 *
 * @internal
 */
export function rowsWithin(rows: Int32Array, start: number, end: number): [number, number] {
  const lower = (v: number) => {
    let a = 0, b = rows.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (rows[m] < v) a = m + 1;
      else b = m;
    }
    return a;
  };
  return [lower(start), lower(end)];
}

/**
 * Σℓₖ(θ) with Σ∇ℓₖ(θ) into `grad` (ROWS_GRAD), or Σ∇²ℓₖ(θ) into `hess`
 * (ROWS_HESS), over the block's rows `local` (indices into the block's data).
 * Counts nothing.
 *
 * @internal
 * @param model The block's model (a built-in family with compact kernels).
 * @param theta θ.
 * @param local The block's rows, increasing.
 * @param what ROWS_GRAD or ROWS_HESS.
 * @param grad Σ∇ℓₖ (length d, overwritten; ROWS_GRAD).
 * @param hess Σ∇²ℓₖ (d × d, overwritten; ROWS_HESS).
 * @returns Σℓₖ (0 for ROWS_HESS).
 */
export function blockRowsSums(
  model: GlmModel,
  theta: Float64Array,
  local: Int32Array,
  what: number,
  grad: Float64Array,
  hess: Float64Array,
): number {
  const d = model.dim, m = local.length, kernels = model.kernels, data = model.data;
  const chunk = ROWS_SUMS_CHUNK;
  if (what === ROWS_GRAD) {
    const gv = new Float64Array(d);
    grad.fill(0);
    let ll = 0;
    for (let s = 0; s < m; s += chunk) {
      ll += kernels.logLikelihood(data, theta, {
        rows: local.subarray(s, Math.min(m, s + chunk)),
        grad: gv,
      });
      for (let j = 0; j < d; j++) grad[j] += gv[j];
    }
    return ll;
  }
  if (what !== ROWS_HESS) throw new RangeError(`unknown row sums ${what}`);
  hess.fill(0);
  if (m === 0) return 0;
  const hv = new Float64Array(d * d);
  const buffer = new RowBuffer(data, Math.min(m, chunk));
  try {
    for (let s = 0; s < m; s += chunk) {
      const k = Math.min(chunk, m - s);
      buffer.gather(local.subarray(s, s + k), 0);
      kernels.hessian(buffer, theta, { out: hv, range: { start: 0, end: k } });
      for (let i = 0; i < d * d; i++) hess[i] += hv[i];
    }
  } finally {
    buffer.dispose();
  }
  return 0;
}
