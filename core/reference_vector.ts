/**
 * Plain-TypeScript reference of the core's vector kernels (`axpy`, `dot`,
 * `matvec`, `mulElem`) over f64 arrays at byte offsets in one memory. Part of
 * core/reference.ts's {@link CoreExports}.
 *
 * @module
 */
import type { CoreExports } from "./exports.ts";

/** Fresh f64 view over the whole buffer (cheap; no copy, correct after the memory grows). */
function _f64(memory: WebAssembly.Memory): { f64: Float64Array } {
  return { f64: new Float64Array(memory.buffer) };
}

/**
 * The vector kernels reading and writing `memory`.
 *
 * @param memory The linear memory.
 * @returns `axpy`, `dot`, `matvec` and `mulElem` with plain loops.
 */
export function referenceVectorKernels(
  memory: WebAssembly.Memory,
): Pick<CoreExports, "axpy" | "dot" | "matvec" | "mulElem"> {
  return {
    axpy(n, a, x, y) {
      const v = _f64(memory);
      for (let i = 0; i < n; i++) v.f64[y / 8 + i] += a * v.f64[x / 8 + i];
    },
    dot(n, x, y) {
      const v = _f64(memory);
      let s = 0;
      for (let i = 0; i < n; i++) s += v.f64[x / 8 + i] * v.f64[y / 8 + i];
      return s;
    },
    matvec(r, c, a, x, y) {
      const v = _f64(memory);
      for (let i = 0; i < r; i++) {
        let s = 0;
        for (let j = 0; j < c; j++) s += v.f64[a / 8 + i * c + j] * v.f64[x / 8 + j];
        v.f64[y / 8 + i] = s;
      }
    },
    mulElem(n, vv, x, y) {
      const v = _f64(memory);
      for (let i = 0; i < n; i++) v.f64[y / 8 + i] = v.f64[vv / 8 + i] * v.f64[x / 8 + i];
    },
  };
}
