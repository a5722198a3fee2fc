/**
 * The compiled core for the CSV kernels (core/csv_kernels.ts): the embedded
 * SIMD build, compiled once per thread, or null where it cannot be (no
 * embedded bytes in this build, no WebAssembly, a build without the CSV
 * kernels). Kept apart from csv_kernels.ts so that a worker that is sent the
 * module does not load the embedded bytes.
 *
 * @module
 */

import { decodeWasmBase64, SIMD_WASM_BASE64 } from "./_embedded_core.ts";

let _module: WebAssembly.Module | null | undefined;

function _compiled(): WebAssembly.Module | null {
  if (_module === undefined) {
    try {
      const bytes = decodeWasmBase64(SIMD_WASM_BASE64);
      _module = bytes.length > 0 && WebAssembly.validate(bytes)
        ? new WebAssembly.Module(bytes)
        : null;
      if (
        _module !== null &&
        !WebAssembly.Module.exports(_module).some((e) => e.name === "csvParseRows")
      ) {
        _module = null;
      }
    } catch {
      _module = null;
    }
  }
  return _module;
}

/**
 * The compiled core this thread's parsers use, to hand to workers (a
 * compiled module is sent to a worker without compiling it again), or null.
 *
 * @returns The module, or null.
 */
export function csvCoreModule(): WebAssembly.Module | null {
  return _compiled();
}
