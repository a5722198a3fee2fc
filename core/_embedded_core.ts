/**
 * The core builds this copy of the library carries: both, as base64 (what
 * Deno source imports and the single-file bundle use). The package's
 * sub-path build replaces this module by ./_external_core.ts, which carries
 * none, so that the core comes from the `.wasm` files instead.
 *
 * @module
 */
export { RELAXED_WASM_BASE64, SIMD_WASM_BASE64 } from "./wasm_bytes.generated.js";

/** True: the builds are embedded, {@link import("./load.ts").loadCore} needs nothing else. */
export const CORE_EMBEDDED: boolean = true;

type _FromBase64 = (text: string) => Uint8Array<ArrayBuffer>;

/**
 * Decode one of the embedded base64 strings into wasm bytes: with the
 * runtime's `Uint8Array.fromBase64` where it has one (a fraction of a
 * millisecond for a build), else through `atob`, 6–8 ms.
 *
 * @param b64 Base64 text (ASCII whitespace ignored).
 * @returns The bytes.
 * @example
 * ```ts
 * import { decodeWasmBase64, SIMD_WASM_BASE64 } from "./_embedded_core.ts";
 * console.log(WebAssembly.validate(decodeWasmBase64(SIMD_WASM_BASE64))); // true
 * ```
 */
export function decodeWasmBase64(b64: string): Uint8Array<ArrayBuffer> {
  const fromBase64 = (Uint8Array as unknown as { fromBase64?: _FromBase64 }).fromBase64;
  if (typeof fromBase64 === "function") return fromBase64(b64);
  const bin = atob(b64.replace(/\s+/g, ""));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
