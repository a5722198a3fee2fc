/**
 * Precompiled WebAssembly: `loadCore({ wasm })` with a module the host
 * compiled, the `dist/wasm/` files' build-naming section, and a runtime that
 * refuses to compile WebAssembly from bytes (as workerd does), emulated in a
 * Deno worker whose `WebAssembly.Module` and `WebAssembly.compile` throw.
 */
import assert from "node:assert/strict";
import { coreWasmFile, loadCore, loadCoreFrom, provideCoreWasm } from "../../core/mod.ts";
import { gaussianLinearRegression, GlmModel, runHmcEcs, summarize } from "../../mod.ts";

function _means(
  backendOptions: Parameters<typeof loadCore>[0],
): { backend: string; means: number[] } {
  const arena = loadCore(backendOptions);
  const { data } = gaussianLinearRegression(arena, { n: 2000, d: 3, sigma: 1, seed: 4 });
  const model = new GlmModel(data, { family: "gaussian", sigma: 1, priorScale: 10 });
  const run = runHmcEcs(model, { numWarmup: 100, numSamples: 100, numChains: 1, seed: 3 });
  return { backend: arena.backend, means: summarize(run.draws).map((r) => r.mean) };
}

Deno.test("loadCore({ wasm }): a precompiled dist build samples exactly as the embedded one", async () => {
  for (const backend of ["simd", "relaxed-simd"] as const) {
    const file = coreWasmFile(backend);
    const module = new WebAssembly.Module(file);
    const fromModule = _means({ wasm: module });
    assert.equal(fromModule.backend, backend, "the custom section names the build");
    assert.deepEqual(fromModule.means, _means({ backend }).means);
    const fromBytes = await loadCoreFrom(Promise.resolve(new Response(file)));
    assert.equal(fromBytes.backend, backend);
  }
  // Bytes without the section: the build must be named.
  const bare = new WebAssembly.Module(coreWasmFile("simd").slice(0, -21)); // the 21-byte section removed
  assert.throws(() => provideCoreWasm(bare), /say which build it is with backend/);
  assert.equal(provideCoreWasm(bare, "simd"), "simd");
  assert.throws(
    () => provideCoreWasm(new WebAssembly.Module(coreWasmFile("simd")), "relaxed-simd"),
    /holds the simd build/,
  );
  assert.throws(() => loadCore({ wasm: coreWasmFile("simd"), shared: true }), /shared/);
  // Not a core build at all.
  const empty = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  assert.throws(() => provideCoreWasm(empty, "simd"), /does not export function/);
});

Deno.test("a runtime that forbids compiling from bytes: clear error, precompiled module, or TypeScript fallback", async () => {
  const simd = coreWasmFile("simd");
  const probe = `
    import { loadCore } from ${JSON.stringify(new URL("../../core/load.ts", import.meta.url).href)};
    self.onmessage = ({ data: bytes }) => {
      const module = new WebAssembly.Module(bytes); // the host's own compile step
      const refuse = () => { throw new WebAssembly.CompileError("Wasm code generation disallowed by embedder"); };
      WebAssembly.Module = new Proxy(WebAssembly.Module, { construct: refuse });
      WebAssembly.compile = async () => refuse();
      const out = {};
      try { loadCore(); out.auto = "loaded"; } catch (e) { out.auto = e.message; }
      const notes = [];
      const fallback = loadCore({ ifCompileForbidden: "reference", onNote: (n) => notes.push(n) });
      out.fallback = fallback.backend;
      out.notes = notes;
      out.precompiled = loadCore({ wasm: module }).backend;
      out.afterwards = loadCore().backend; // the provided build is remembered
      postMessage(out);
    };
  `;
  const url = `data:application/javascript,${encodeURIComponent(probe)}`;
  const worker = new Worker(url, { type: "module" });
  try {
    const out = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no answer in 30 s")), 30_000);
      worker.onmessage = (e) => {
        clearTimeout(timer);
        resolve(e.data);
      };
      worker.onerror = (e) => {
        clearTimeout(timer);
        e.preventDefault();
        reject(new Error(e.message));
      };
      worker.postMessage(simd);
    });
    assert.match(String(out.auto), /does not compile WebAssembly from bytes/);
    assert.match(String(out.auto), /loadCore\(\{ wasm: module \}\)/);
    assert.match(String(out.auto), /ifCompileForbidden: "reference"/);
    assert.equal(out.fallback, "reference");
    assert.equal((out.notes as string[]).length, 1);
    assert.match((out.notes as string[])[0], /TypeScript kernels/);
    assert.equal(out.precompiled, "simd");
    assert.equal(out.afterwards, "simd");
  } finally {
    worker.terminate();
  }
});
