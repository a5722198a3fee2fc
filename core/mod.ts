/**
 * The WebAssembly core, as a user sees it: {@link loadCore} validates and
 * instantiates the fastest build this host runs (relaxed-SIMD, SIMD, or the
 * TypeScript reference of the same kernels) and returns its {@link Arena},
 * the linear memory that data sets live in; {@link availableBackends} lists
 * the builds the host can run. A runtime that forbids compiling WebAssembly
 * from bytes passes a build it compiled itself ({@link loadCoreFrom},
 * `loadCore({ wasm })`, {@link coreWasmFile}). The typed kernel layer stays
 * inside `core/`. The seeded generator {@link Rng} (seedrandom's xor4096)
 * is re-exported here because every kernel takes one.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { availableBackends, coreWasmFile, loadCore, Rng } from "./mod.ts";
 * const arena = loadCore({ backend: "reference" });
 * assert.equal(arena.backend, "reference");
 * assert.ok(availableBackends().includes("reference"));
 * assert.equal(new Rng(1).uniform(), new Rng(1).uniform());
 * const module = new WebAssembly.Module(coreWasmFile("simd"));
 * assert.equal(loadCore({ wasm: module }).backend, "simd");
 * ```
 *
 * @module
 */
export { type Arena } from "./arena.ts";
export {
  availableBackends,
  CORE_BACKEND_SECTION,
  type CoreBackend,
  type CoreWasm,
  coreWasmFile,
  loadCore,
  loadCoreFrom,
  type LoadCoreOptions,
  provideCoreWasm,
} from "./load.ts";
export { Rng } from "../random/rng.ts";
