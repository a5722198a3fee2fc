/**
 * Stands in for ./_embedded_core.ts in the package's sub-path build
 * (`deno task dist`, dist/esm/): no core build is embedded, so an import
 * ships no base64. The core is loaded from dist/wasm/ by
 * `await loadCoreFrom()`, or passed in as a module (`loadCore({ wasm })`).
 *
 * @module
 */

/** No SIMD build embedded. */
export const SIMD_WASM_BASE64: string = "";
/** No relaxed-SIMD build embedded. */
export const RELAXED_WASM_BASE64: string = "";

/**
 * Nothing to decode here.
 *
 * @param _b64 Ignored.
 * @returns Empty bytes.
 */
export function decodeWasmBase64(_b64: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(0);
}

/** False: the builds come from dist/wasm/ or from the host. */
export const CORE_EMBEDDED: boolean = false;
