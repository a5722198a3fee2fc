/**
 * The core boundary, checked on the source tree: the numbers-only kernel ABI
 * (byte offsets, family codes, memory-layout constants) is the inside of
 * `core/`; every other layer calls the typed operations of
 * `core/glm_kernels.ts`, `core/row_buffer.ts` and `core/scratch.ts`.
 *
 * References: docs/architecture.md, "Layers", "The WASM core" and "Conventions".
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const SKIP_DIRS = new Set([".git", "node_modules", "out", "report", "core"]);
/** The raw ABI's own oracle tests, their fixtures and benchmark: they exercise the ABI itself. */
const ABI_CLIENTS = new Set([
  "tests/core_test.ts",
  "tests/core_numerics_test.ts",
  "tests/_core_fixtures.ts",
  "bench/core_bench.ts",
]);
/** This file names the patterns it looks for. */
const SELF = "tests/architecture_test.ts";
/** Vector kernels whose names are common words elsewhere (`.exports` catches their use). */
const GENERIC = new Set(["axpy", "dot", "matvec", "mulElem"]);
/**
 * Where arena offsets may still appear outside core/: the data layer writes data
 * sets into the arena (a `GlmData` is a pair of offsets that only core/ reads),
 * and tests and benches build fixtures. Every other layer holds no offsets.
 */
const OFFSET_LAYERS = ["data/", "tests/", "testing/", "bench/"];

async function _sources(dir: URL, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const rel = prefix + e.name;
    if (e.isDirectory) {
      if (SKIP_DIRS.has(e.name) && (e.name !== "core" || prefix === "")) continue;
      if (e.name.startsWith(".")) continue;
      out.push(...await _sources(new URL(`${e.name}/`, dir), `${rel}/`));
    } else if (e.isFile && e.name.endsWith(".ts")) out.push(rel);
  }
  return out.sort();
}

/** The kernel names of the raw ABI, read from the CoreExports interface. */
function _kernelNames(exportsSource: string): string[] {
  const body = exportsSource.slice(exportsSource.indexOf("export interface CoreExports"));
  const names = [...body.matchAll(/^ {2}([A-Za-z0-9]+)\(/gm)].map((m) => m[1]);
  return [...new Set(names)];
}

function _hits(text: string, pattern: RegExp): string[] {
  return text.split("\n").flatMap((
    line,
    i,
  ) => (pattern.test(line) ? [`${i + 1}: ${line.trim()}`] : []));
}

Deno.test("the raw kernel ABI stays inside core/", async (t) => {
  const files = (await _sources(ROOT)).filter((f) => !ABI_CLIENTS.has(f) && f !== SELF);
  const read = (f: string) => Deno.readTextFileSync(new URL(f, ROOT));
  const kernels = _kernelNames(read("core/exports.ts")).filter((k) => !GENERIC.has(k));
  assert.ok(kernels.includes("llRange") && kernels.includes("gatherF32AsF64"), "kernel names");
  assert.ok(files.length > 50 && files.includes("models/glm.ts"), "source scan found the tree");

  await t.step("no module outside core/ imports core/exports.ts or core/_handles.ts", () => {
    const bad = files.flatMap((f) =>
      _hits(read(f), /from\s+["'][^"']*core\/(exports|_handles)\.ts["']/).map((h) => `${f}:${h}`)
    );
    assert.deepEqual(bad, []);
  });

  await t.step("no module outside core/ names ABI types, family codes or layout constants", () => {
    const names = ["CoreExports", "FAMILY_[A-Z]+", "CV_STRIDE", "rowBufferBlocks", "pointerOf"];
    const pattern = new RegExp(`\\b(${names.join("|")})\\b`);
    const bad = files.flatMap((f) => _hits(read(f), pattern).map((h) => `${f}:${h}`));
    assert.deepEqual(bad, []);
  });

  await t.step("no module outside core/ calls a raw kernel or reaches arena.exports", () => {
    const pattern = new RegExp(`\\.exports\\b|\\b(${kernels.join("|")})\\s*\\(`);
    const bad = files.flatMap((f) => _hits(read(f), pattern).map((h) => `${f}:${h}`));
    assert.deepEqual(bad, []);
  });

  await t.step("layers above data/ hold no arena offsets (no alloc, free or views)", () => {
    const pattern =
      /\.(alloc|allocF64|allocF32|allocI32|free|f64|f32|i32|readF64|readF32|writeF64|writeF32|writeI32)\(/;
    const bad = files
      .filter((f) => !OFFSET_LAYERS.some((p) => f.startsWith(p)))
      .flatMap((f) => _hits(read(f), pattern).map((h) => `${f}:${h}`));
    assert.deepEqual(bad, []);
  });

  await t.step("data/mod.ts and mod.ts re-export no raw ABI", () => {
    for (const f of ["data/mod.ts", "mod.ts"]) {
      assert.deepEqual(_hits(read(f), /core\/(exports|_handles|reference)\.ts|CoreExports/), [], f);
    }
  });
});

Deno.test("nothing outside tests/ imports from tests/", async () => {
  const files = (await _sources(ROOT)).filter((f) => !f.startsWith("tests/"));
  const bad = files.flatMap((f) =>
    _hits(Deno.readTextFileSync(new URL(f, ROOT)), /from\s+["'](\.\.\/)+tests\//).map((h) =>
      `${f}:${h}`
    )
  );
  assert.deepEqual(bad, []);
});
