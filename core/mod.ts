/**
 * The compute core on its own: load it (from the embedded bytes, or from a
 * build the host compiled, for runtimes that forbid compiling WebAssembly
 * from bytes) and see which backends run here.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { coreWasmFile, loadCore } from "./mod.ts";
 * const module = new WebAssembly.Module(coreWasmFile("simd"));
 * assert.equal(loadCore({ wasm: module }).backend, "simd");
 * ```
 *
 * @module
 */
export { type Arena } from "./arena.ts";
export {
  availableBackends,
  bindCore,
  CORE_BACKEND_SECTION,
  type CoreBackend,
  type CoreWasm,
  coreWasmFile,
  loadCore,
  loadCoreFrom,
  type LoadCoreOptions,
  provideCoreWasm,
} from "./load.ts";
