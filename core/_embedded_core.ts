/**
 * The core builds this copy of the library carries: both, as base64 (what
 * Deno source imports and the single-file bundle use). The package's
 * sub-path build replaces this module by ./_external_core.ts, which carries
 * none, so that the core comes from the `.wasm` files instead.
 *
 * @module
 */
export { decodeWasmBase64, RELAXED_WASM_BASE64, SIMD_WASM_BASE64 } from "./wasm_bytes.generated.ts";

/** True: the builds are embedded, {@link import("./load.ts").loadCore} needs nothing else. */
export const CORE_EMBEDDED: boolean = true;
