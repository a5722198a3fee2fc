/**
 * Synchronous loader of the compute core: picks a backend, instantiates the
 * embedded wasm bytes against a memory owned by an {@link Arena}, and returns
 * the arena.
 *
 * ```
 *  wasm_bytes.generated.js ──decode──► WebAssembly.Module (compiled once, cached)
 *                                          │ imports env.memory ◄── Arena.memory
 *                                          │ imports env.abort, env.invalidArgument
 *                                          │         ◄── throw Error / RangeError
 *                                          ▼
 *                                   WebAssembly.Instance ──► Arena.exports
 * ```
 *
 * @module
 */

import { Arena, type ArenaRegion, RESERVED_BYTES } from "./arena.ts";
import type { CoreBackend, CoreExports } from "./exports.ts";

export type { CoreBackend };
import { createReferenceExports, invalidArgumentError } from "./reference.ts";
import {
  CORE_EMBEDDED,
  decodeWasmBase64,
  RELAXED_WASM_BASE64,
  SIMD_WASM_BASE64,
} from "./_embedded_core.ts";
import { appendCustomSection, customSectionText, withSharedMemoryImport } from "./wasm_binary.ts";

/** A core build the host compiled: a module, or the bytes of a `.wasm` file of `dist/wasm/`. */
export type CoreWasm = WebAssembly.Module | ArrayBuffer | ArrayBufferView;

/** Options of {@link loadCore}. */
export interface LoadCoreOptions {
  /** Backend to use; "auto" (default) picks the fastest the runtime validates. */
  backend?: CoreBackend | "auto";
  /** Initial memory size in bytes (default 1 MiB); the arena grows on demand. */
  initialBytes?: number;
  /** Use a shared memory (for workers). Default false. */
  shared?: boolean;
  /**
   * A precompiled core build, for runtimes that forbid compiling WebAssembly
   * from bytes (Cloudflare Workers / workerd): `dist/wasm/tallmc-simd.wasm`
   * or `tallmc-relaxed-simd.wasm` imported as a module. The dist files name
   * their build in a custom section; for other builds say which in
   * `backend`. The module is remembered: later loads and
   * {@link bindCore} use it instead of compiling.
   */
  wasm?: WebAssembly.Module | ArrayBuffer | ArrayBufferView;
  /**
   * What to do if the runtime refuses to compile the embedded bytes:
   * "throw" (default: an error that names the fix) or "reference" (use the
   * TypeScript kernels and report it through `onNote`).
   */
  ifCompileForbidden?: "throw" | "reference";
  /** Receives a note when the loader falls back (default: `console.warn`). */
  onNote?: (note: string) => void;
}

/** The custom section in which the `dist/wasm/` files name their build. */
export const CORE_BACKEND_SECTION = "tallmc.backend";

/** Names every build must export (the {@link CoreExports} interface). */
const _EXPORT_NAMES: readonly (keyof CoreExports)[] = [
  "heapBase",
  "llRange",
  "llIdx",
  "llRangeF32",
  "llIdxF32",
  "gradRange",
  "gradRangeF32",
  "hessRange",
  "hessRangeF32",
  "cvPrepareRange",
  "cvPrepareRangeF32",
  "cvDiffRange",
  "llDiffIdx",
  "llDiffIdxF32",
  "xtwRange",
  "xtwRangeF32",
  "gradMomentsRange",
  "llExt",
  "hessExt",
  "gatherF64",
  "gatherF32",
  "gatherF32AsF64",
  "axpy",
  "dot",
  "matvec",
  "mulElem",
];

const _bytes = new Map<string, Uint8Array<ArrayBuffer>>();
const _modules = new Map<string, WebAssembly.Module>();
/** Builds the host provided precompiled ({@link provideCoreWasm}). */
const _provided = new Set<string>();
/** Bytes of `.wasm` files the host provided (a build that embeds none needs them for shared memory). */
const _fileBytes = new Map<string, Uint8Array<ArrayBuffer>>();

/**
 * Where the package's `.wasm` files are, relative to this module. From the
 * sources that is the repository's dist/wasm/; `deno task dist` rewrites it
 * to the path from the built chunk to dist/wasm/.
 */
const _WASM_DIR = "../dist/wasm/";

/** Why a build that embeds no core cannot load one synchronously, and the fix. */
function _notEmbeddedMessage(): string {
  return "this build of tallmc (a tallmc/* sub-path) does not embed the WebAssembly core: " +
    "call `await loadCoreFrom()` once first (it loads tallmc-relaxed-simd.wasm or " +
    "tallmc-simd.wasm from the package's wasm/ directory), or pass a compiled module: " +
    'loadCore({ wasm: module }), or use backend: "reference" (TypeScript kernels), ' +
    "or import the single-file bundle `tallmc`, which embeds both builds";
}

function _wasmBytes(backend: "simd" | "relaxed-simd", shared: boolean): Uint8Array<ArrayBuffer> {
  const key = `${backend}/${shared}`;
  let bytes = _bytes.get(key);
  if (bytes === undefined) {
    bytes = _fileBytes.get(backend) ??
      decodeWasmBase64(backend === "simd" ? SIMD_WASM_BASE64 : RELAXED_WASM_BASE64);
    if (shared && bytes.length > 0) bytes = withSharedMemoryImport(bytes);
    _bytes.set(key, bytes);
  }
  return bytes;
}

/** Thrown when the runtime will not compile WebAssembly from bytes. */
class _CompileForbidden extends Error {}
/** Thrown when this build embeds no core and none was provided. */
class _NotEmbedded extends Error {}

function _module(backend: "simd" | "relaxed-simd", shared: boolean): WebAssembly.Module {
  const key = `${backend}/${shared}`;
  let mod = _modules.get(key);
  if (mod === undefined) {
    const bytes = _wasmBytes(backend, shared);
    try {
      mod = new WebAssembly.Module(bytes);
    } catch (e) {
      // The bytes validated (see _choose): a refusal is the host's policy.
      const why = e instanceof Error ? e.message : String(e);
      throw new _CompileForbidden(
        `this runtime does not compile WebAssembly from bytes (${why}). Pass the core ` +
          `precompiled: import dist/wasm/tallmc-${backend}.wasm as a module and call ` +
          `loadCore({ wasm: module }), or loadCore({ ifCompileForbidden: "reference" }) ` +
          `for the TypeScript kernels`,
      );
    }
    _modules.set(key, mod);
  }
  return mod;
}

/** Which build a precompiled module or its bytes hold, from its custom section. */
function _backendOf(wasm: CoreWasm): "simd" | "relaxed-simd" | null {
  let mod: WebAssembly.Module;
  if (wasm instanceof WebAssembly.Module) mod = wasm;
  else {
    const bytes = wasm instanceof ArrayBuffer
      ? new Uint8Array(wasm)
      : new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength);
    const value = customSectionText(bytes, CORE_BACKEND_SECTION);
    return value === "simd" || value === "relaxed-simd" ? value : null;
  }
  const sections = WebAssembly.Module.customSections(mod, CORE_BACKEND_SECTION);
  if (sections.length === 0) return null;
  const name = new TextDecoder().decode(sections[0]);
  return name === "simd" || name === "relaxed-simd" ? name : null;
}

/**
 * The bytes of a core build as shipped in `dist/wasm/`: the embedded build
 * plus a custom section that names it, so that {@link loadCore} knows which
 * build a precompiled module holds.
 *
 * @param backend Which build.
 * @returns A `.wasm` file's bytes (empty if the build is missing).
 */
export function coreWasmFile(backend: "simd" | "relaxed-simd"): Uint8Array<ArrayBuffer> {
  const bytes = _wasmBytes(backend, false);
  if (bytes.length === 0) return bytes;
  return appendCustomSection(bytes, CORE_BACKEND_SECTION, backend);
}

/**
 * Remember a precompiled core build, so that every later load and bind of
 * its backend uses it instead of compiling the embedded bytes.
 *
 * @param wasm A module (or bytes) of a `dist/wasm/` file.
 * @param backend Which build it holds (default: read from the module).
 * @returns The backend it was registered as.
 * @throws {TypeError} If the build cannot be told, or lacks a core export.
 */
export function provideCoreWasm(
  wasm: CoreWasm,
  backend?: "simd" | "relaxed-simd",
): "simd" | "relaxed-simd" {
  const named = _backendOf(wasm);
  const chosen = backend ?? named;
  if (chosen === null || (chosen !== "simd" && chosen !== "relaxed-simd")) {
    throw new TypeError(
      `loadCore: wasm is not a dist/wasm/ build (no ${CORE_BACKEND_SECTION} section): ` +
        `say which build it is with backend: "simd" or "relaxed-simd", got ${String(backend)}`,
    );
  }
  if (named !== null && backend !== undefined && named !== backend) {
    throw new TypeError(`loadCore: wasm holds the ${named} build, but backend is "${backend}"`);
  }
  let mod: WebAssembly.Module;
  if (wasm instanceof WebAssembly.Module) mod = wasm;
  else {
    const bytes = wasm instanceof ArrayBuffer
      ? new Uint8Array(wasm).slice()
      : new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength).slice();
    mod = new WebAssembly.Module(bytes);
    _keepFileBytes(chosen, bytes);
  }
  const names = new Set(WebAssembly.Module.exports(mod).map((e) => e.name));
  for (const name of _EXPORT_NAMES) {
    if (!names.has(name)) {
      throw new TypeError(`loadCore: wasm does not export function ${name}(): not a core build`);
    }
  }
  _modules.set(`${chosen}/false`, mod);
  _valid.set(chosen, true);
  _provided.add(chosen);
  return chosen;
}

function _keepFileBytes(backend: string, bytes: Uint8Array<ArrayBuffer>): void {
  if (CORE_EMBEDDED) return;
  _fileBytes.set(backend, bytes);
  _bytes.delete(`${backend}/false`);
  _bytes.delete(`${backend}/true`);
  _modules.delete(`${backend}/true`);
}

/**
 * The bytes of `dist/wasm/<name>`, beside this module: read from disk where
 * the module is a file (Node, Bun, Deno), fetched otherwise (browsers).
 */
async function _readShipped(name: string): Promise<Uint8Array<ArrayBuffer>> {
  const url = new URL(_WASM_DIR + name, import.meta.url);
  const g = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } };
  try {
    if (url.protocol === "file:") {
      const fs = g.process?.getBuiltinModule?.("node:fs/promises") as
        | { readFile(u: URL): Promise<Uint8Array> }
        | undefined;
      if (fs !== undefined) return new Uint8Array(await fs.readFile(url));
    }
    // Browsers, and Deno (whose fetch reads file: URLs).
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw new Error(
      `loadCoreFrom: cannot load the core from ${url.href} ` +
        `(${e instanceof Error ? e.message : String(e)}): serve the package's wasm/ directory ` +
        "beside its esm/ directory, or pass the file: loadCoreFrom(fetch(url)) or loadCoreFrom(bytes)",
    );
  }
}

/** The shipped build to use here: `wanted`, or the fastest this runtime validates. */
async function _shippedCore(
  wanted: CoreBackend | "auto",
): Promise<Uint8Array<ArrayBuffer> | null> {
  const order = wanted === "auto" ? ["relaxed-simd", "simd"] : [wanted];
  for (const backend of order) {
    const bytes = await _readShipped(`tallmc-${backend}.wasm`);
    if (wanted !== "auto" || WebAssembly.validate(bytes)) return bytes;
  }
  return null;
}

/**
 * {@link loadCore} from a `.wasm` file fetched or read by the host: compiles
 * it asynchronously (streaming from a `Response`), registers it with
 * {@link provideCoreWasm}, then loads.
 *
 * Without `source`, the package's sub-path entries (which embed no core)
 * load `tallmc-relaxed-simd.wasm`, or `tallmc-simd.wasm` where relaxed SIMD
 * does not validate, from the package's `wasm/` directory: read from disk in
 * Node and Bun (`process.getBuiltinModule("node:fs/promises")`), fetched
 * elsewhere (browsers; Deno's fetch reads `file:` URLs). Where neither validates, the
 * TypeScript kernels are used and `onNote` says so. Builds that embed the
 * core (Deno source, the single-file bundle) just call {@link loadCore}.
 *
 * @param source A module, bytes, a `Response` or a promise of one of them (optional).
 * @param options As for {@link loadCore}.
 * @returns The arena.
 */
export async function loadCoreFrom(
  source?: CoreWasm | Response | PromiseLike<CoreWasm | Response>,
  options: Omit<LoadCoreOptions, "wasm"> = {},
): Promise<Arena> {
  if (source === undefined) {
    const wanted = options.backend ?? "auto";
    if (CORE_EMBEDDED || wanted === "reference") return loadCore(options);
    if (_provided.size > 0 && wanted === "auto") return loadCore(options);
    const bytes = await _shippedCore(wanted);
    if (bytes === null) {
      (options.onNote ?? console.warn)(
        'tallmc: this runtime validates neither core build; using the TypeScript kernels (backend "reference")',
      );
      return loadCore({ ...options, backend: "reference" });
    }
    source = bytes;
  }
  const got = await source;
  let wasm: CoreWasm;
  if (typeof Response !== "undefined" && got instanceof Response) {
    if (!got.ok) throw new Error(`loadCoreFrom: fetching the core failed: HTTP ${got.status}`);
    wasm = new Uint8Array(await got.arrayBuffer());
  } else wasm = got as CoreWasm;
  const backend = options.backend === "simd" || options.backend === "relaxed-simd"
    ? options.backend
    : undefined;
  const bytes = wasm instanceof WebAssembly.Module
    ? null
    : wasm instanceof ArrayBuffer
    ? new Uint8Array(wasm).slice()
    : new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength).slice();
  const named = provideCoreWasm(
    bytes === null ? wasm as WebAssembly.Module : await WebAssembly.compile(bytes),
    backend ?? _backendOf(wasm) ?? undefined,
  );
  if (bytes !== null) _keepFileBytes(named, bytes);
  return loadCore({ ...options, backend: named });
}

/**
 * @internal The compiled core for a worker over this thread's memory: the
 * module a build that embeds no core needs, and with a build that embeds it,
 * the module this thread has compiled already (undefined if it has not, or
 * for the TypeScript kernels). A `WebAssembly.Module` is
 * structured-cloneable: sent in the worker's init message and registered
 * there by {@link adoptWorkerCore}, it spares the worker decoding and
 * compiling its own, and the threads then run one compiled module (code the
 * engine optimises as it runs serves all of them).
 *
 * @param backend The backend of the memory's arena.
 * @param shared Whether the memory is shared.
 * @returns The module, or undefined.
 */
export function workerCore(
  backend: CoreBackend,
  shared: boolean,
): WebAssembly.Module | undefined {
  if (backend === "reference") return undefined;
  return CORE_EMBEDDED ? _modules.get(`${backend}/${shared}`) : _module(backend, shared);
}

/** @internal Register in a worker the module {@link workerCore} sent. */
export function adoptWorkerCore(
  backend: CoreBackend,
  shared: boolean,
  module: WebAssembly.Module | undefined,
): void {
  if (module === undefined || backend === "reference") return;
  _modules.set(`${backend}/${shared}`, module);
  _valid.set(backend, true);
  _provided.add(backend);
}

const _valid = new Map<string, boolean>();

function _validates(backend: "simd" | "relaxed-simd"): boolean {
  let ok = _valid.get(backend);
  if (ok === undefined) {
    const bytes = _wasmBytes(backend, false);
    ok = bytes.length > 0 && WebAssembly.validate(bytes);
    _valid.set(backend, ok);
  }
  return ok;
}

/**
 * Which backends this runtime can run, fastest first ("reference" always).
 *
 * @returns The available backends.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { availableBackends } from "./load.ts";
 * assert.ok(availableBackends().includes("reference"));
 * ```
 */
export function availableBackends(): CoreBackend[] {
  const out: CoreBackend[] = [];
  if (_validates("relaxed-simd")) out.push("relaxed-simd");
  if (_validates("simd")) out.push("simd");
  out.push("reference");
  return out;
}

function _bind(
  backend: "simd" | "relaxed-simd",
  shared: boolean,
): (memory: WebAssembly.Memory) => CoreExports {
  return (memory) => {
    const instance = new WebAssembly.Instance(_module(backend, shared), {
      env: {
        memory,
        abort(_msg: number, _file: number, line: number, column: number): never {
          throw new Error(`tallmc core (${backend}) aborted at line ${line}, column ${column}`);
        },
        invalidArgument(what: number, value: number): never {
          throw invalidArgumentError(what, value);
        },
      },
    });
    const ex = instance.exports as Record<string, unknown>;
    const heapBase = typeof ex.heapBase === "function" ? (ex.heapBase() as number) >>> 0 : 0;
    if (heapBase > RESERVED_BYTES) {
      throw new RangeError(
        `the ${backend} core's static data ends at ${heapBase}, above the ${RESERVED_BYTES} bytes arenas reserve`,
      );
    }
    const core: Record<string, unknown> = {};
    for (const name of _EXPORT_NAMES) {
      if (typeof ex[name] !== "function") {
        throw new TypeError(`the ${backend} core build does not export function ${name}()`);
      }
      core[name] = ex[name];
    }
    // Optional: builds made before the Parquet kernels lack them (the reader then
    // keeps its TypeScript pass and hyparquet's decoder), and builds made before
    // the ICA, BFGS and estimator kernels lack those (their callers then keep their
    // TypeScript loops), and builds made before the windowed-row kernel lack it (GLMs then
    // keep their dense rows).
    for (
      const name of [
        "pqTranspose",
        "pqSnappy",
        "pqLevelsAll",
        "pqDictGather",
        "icaDiff",
        "icaDiffCached",
        "bfgsUpdate",
        "ecsEstimate",
        "wrRange",
      ]
    ) {
      if (typeof ex[name] === "function") core[name] = ex[name];
    }
    return core as unknown as CoreExports;
  };
}

/**
 * Bind the kernels of `backend` to an existing memory, without an arena: for
 * workers that receive a shared memory (and pointers) from the thread that
 * owns the {@link Arena}, or to run two backends on the same data.
 *
 * Instantiating a wasm build (re)writes its small read-only constant table
 * below `heapBase()` with identical bytes; everything above belongs to the
 * arena.
 *
 * @param memory A memory created by an Arena (maximum 65536 pages).
 * @param backend Which kernels (default "auto": the fastest available).
 * @returns Kernels reading and writing `memory`; allocate only through the owning arena.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { bindCore, loadCore } from "./load.ts";
 * const arena = loadCore({ backend: "reference" });
 * const x = arena.allocF64(2);
 * arena.writeF64(x, [1, 2]);
 * assert.equal(bindCore(arena.memory).dot(2, x, x), 5); // with the fastest backend
 * ```
 */
export function bindCore(
  memory: WebAssembly.Memory,
  backend: CoreBackend | "auto" = "auto",
): CoreExports {
  const chosen = _choose(backend);
  if (chosen === "reference") return createReferenceExports(memory);
  return _bind(chosen, memory.buffer instanceof SharedArrayBuffer)(memory);
}

function _choose(wanted: CoreBackend | "auto"): CoreBackend {
  if (wanted === "auto") {
    // A precompiled build the host provided comes first: compiling may be forbidden.
    if (_provided.has("relaxed-simd")) return "relaxed-simd";
    if (_provided.has("simd")) return "simd";
    if (!CORE_EMBEDDED) throw new _NotEmbedded(_notEmbeddedMessage());
    return availableBackends()[0];
  }
  if (wanted === "relaxed-simd" || wanted === "simd") {
    if (!CORE_EMBEDDED && !_provided.has(wanted)) {
      throw new _NotEmbedded(_notEmbeddedMessage());
    }
    if (!_validates(wanted)) {
      throw new TypeError(
        `backend "${wanted}" is not available in this runtime (or not built: run deno task build)`,
      );
    }
    return wanted;
  }
  if (wanted === "reference") return wanted;
  throw new TypeError(
    `backend must be "auto", "relaxed-simd", "simd" or "reference", got ${String(wanted)}`,
  );
}

/**
 * Load the compute core synchronously and return its memory arena.
 *
 * "auto" picks relaxed-simd if the runtime validates it, else simd, else the
 * TypeScript reference. An explicit wasm backend the runtime cannot run throws.
 *
 * @param options Backend, initial memory size, shared memory.
 * @returns An {@link Arena} whose `exports` are the chosen kernels.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "./load.ts";
 * const arena = loadCore();
 * const x = arena.allocF64(2);
 * arena.writeF64(x, [3, 4]);
 * assert.equal(arena.exports.dot(2, x, x), 25);
 * ```
 */
export function loadCore(options: LoadCoreOptions = {}): Arena {
  const shared = options.shared ?? false;
  let wanted = options.backend ?? "auto";
  if (options.wasm !== undefined) {
    if (shared) {
      throw new TypeError(
        "loadCore: a precompiled wasm imports an unshared memory; shared: true needs the embedded bytes",
      );
    }
    const named = provideCoreWasm(
      options.wasm,
      wanted === "simd" || wanted === "relaxed-simd" ? wanted : undefined,
    );
    if (wanted === "auto") wanted = named;
  }
  const ifForbidden = options.ifCompileForbidden ?? "throw";
  if (ifForbidden !== "throw" && ifForbidden !== "reference") {
    throw new TypeError(
      `loadCore: ifCompileForbidden must be "throw" or "reference", got ${String(ifForbidden)}`,
    );
  }
  let backend: CoreBackend;
  try {
    backend = _choose(wanted);
  } catch (e) {
    if (!(e instanceof _NotEmbedded)) throw e;
    if (ifForbidden === "throw") throw new Error(`loadCore: ${e.message}`);
    (options.onNote ?? console.warn)(
      `tallmc: ${e.message}; using the TypeScript kernels (backend "reference")`,
    );
    backend = "reference";
  }
  if (backend !== "reference") {
    try {
      _module(backend, shared);
    } catch (e) {
      if (!(e instanceof _CompileForbidden) || ifForbidden === "throw") throw e;
      (options.onNote ?? console.warn)(
        `tallmc: ${e.message}; using the TypeScript kernels (backend "reference")`,
      );
      backend = "reference";
    }
  }
  return new Arena({
    backend,
    bindFn: backend === "reference" ? createReferenceExports : _bind(backend, shared),
    initialBytes: options.initialBytes,
    shared,
  });
}

/**
 * An arena over a region of an existing memory, with the kernels of
 * `backend` bound to that memory: how a worker uses the data a shared
 * memory holds (read in place, never copied) while allocating its own
 * scratch only in the block `[start, end)` the owning arena set aside for it.
 *
 * @param memory A memory created by an Arena (shared, for a worker).
 * @param options `region` (a block allocated by the owning arena) and `backend`
 *   (use the owner's, {@link Arena.backend}, for bit-identical results).
 * @returns An attached arena (it never grows the memory).
 * @throws {RangeError} If the region is not inside the memory above the reserved bytes.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { attachCore, loadCore } from "./load.ts";
 * const owner = loadCore({ backend: "reference", shared: true });
 * const x = owner.allocF64(2);
 * owner.writeF64(x, [1, 2]);
 * const start = owner.alloc(4096);
 * const worker = attachCore(owner.memory, { region: { start, end: start + 4096 }, backend: "reference" });
 * const y = worker.allocF64(2);
 * worker.writeF64(y, [3, 4]);
 * assert.equal(worker.exports.dot(2, x, y), 11);
 * assert.ok(y >= start && y < start + 4096);
 * ```
 */
export function attachCore(
  memory: WebAssembly.Memory,
  options: { region: ArenaRegion; backend?: CoreBackend | "auto" },
): Arena {
  const backend = _choose(options.backend ?? "auto");
  const shared = memory.buffer instanceof SharedArrayBuffer;
  return new Arena({
    backend,
    bindFn: backend === "reference" ? createReferenceExports : _bind(backend, shared),
    memory,
    region: options.region,
  });
}
