/**
 * The core boundary, checked on the source tree: the numbers-only kernel ABI
 * (byte offsets, family codes, memory-layout constants) is the inside of
 * `core/`; every other layer calls the typed operations of
 * `core/glm_kernels.ts`, `core/row_buffer.ts` and `core/scratch.ts`.
 *
 * References: docs/architecture.md, "Layers", "The WASM core" and "Conventions".
 */
import assert from "node:assert/strict";
import { importSideEffects } from "../_side_effects.ts";

const ROOT = new URL("../../", import.meta.url);
const SKIP_DIRS = new Set([".git", "node_modules", "out", "report", "core", "dist"]);
/** The raw ABI's own oracle tests, their fixtures and benchmark: they exercise the ABI itself. */
const ABI_CLIENTS = new Set([
  "tests/core/core_test.ts",
  "tests/core/core_numerics_test.ts",
  "tests/core/pass_order_test.ts",
  "tests/_core_fixtures.ts",
  "tests/subsampling/control_variates_row_cache_test.ts",
  "bench/core_bench.ts",
  "bench/native_kernel_bench.ts",
]);
/** This file names the patterns it looks for. */
const SELF = "tests/project/architecture_test.ts";
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

/** Modules that only workers load: each sets its worker's `onmessage`. */
const WORKER_ENTRIES = [
  "models/_shard_worker.ts",
  "models/_pass_worker.ts",
  "samplers/chain_worker.ts",
  "cli/signal_watcher.ts",
  "data/_csv_worker.ts",
  "data/_parquet_worker.ts",
  "replicate/experiment_worker.ts",
  "engines/_database_rows_worker.ts",
];

Deno.test("importing a module has no side effects: worker entry points stay out of the static graph", async (t) => {
  const files = (await _sources(ROOT)).filter((f) => f !== SELF);
  const read = (f: string) => Deno.readTextFileSync(new URL(f, ROOT));

  await t.step("only worker entry points install a message handler", () => {
    const pattern =
      /\b(self|globalThis)\.(onmessage|addEventListener)\b|^\s*(onmessage|addEventListener)\s*[=(]/;
    const bad = files
      .filter((f) => !WORKER_ENTRIES.includes(f) && !/^(tests|web|bench)\//.test(f))
      .flatMap((f) => _hits(read(f), pattern).map((h) => `${f}:${h}`));
    assert.deepEqual(bad, []);
  });

  await t.step("no module imports a worker entry point (not even its types)", () => {
    const names = WORKER_ENTRIES.map((f) => f.split("/").pop()!.replace(".", "\\."));
    const pattern = new RegExp(`(from|import)\\s*\\(?\\s*["'][^"']*/(${names.join("|")})["']`);
    const bad = files.flatMap((f) => _hits(read(f), pattern).map((h) => `${f}:${h}`));
    assert.deepEqual(bad, []);
  });

  await t.step(
    "no URL is resolved against import.meta.url at the top level of library code",
    () => {
      const library = files.filter((f) =>
        !/^(tests|testing|bench|web|replicate|validate|cli)\//.test(f) && f !== "cli.ts" &&
        f !== "core/build.ts"
      );
      const bad = library.flatMap((f) =>
        _hits(read(f), /^(export\s+)?(const|let|var)\s+\w+\s*=\s*new URL\(.*import\.meta\.url/)
          .map((h) => `${f}:${h}`)
      );
      assert.deepEqual(bad, []);
    },
  );
});

Deno.test("importing mod.ts in a page-like global scope installs no handler and starts no worker", async () => {
  const before = globalThis.onmessage;
  await import("../../mod.ts");
  assert.equal(globalThis.onmessage, before, "globalThis.onmessage changed in the calling thread");
  for (
    const entry of ["mod.ts", "diagnostics/mod.ts", "models/sharded_glm.ts", "samplers/parallel.ts"]
  ) {
    const result = await importSideEffects(new URL(entry, ROOT).href);
    assert.equal(result.onmessageChanged, false, `${entry}: onmessage changed`);
    assert.equal(result.workersStarted, 0, `${entry}: a worker started`);
    // Exactly the probe's two messages: no library handler answered "ping".
    assert.equal(result.replies.length, 2, `${entry}: ${JSON.stringify(result.replies)}`);
  }
  // The probe sees a handler where there is one: a worker entry point's.
  const entry = await importSideEffects(new URL("models/_pass_worker.ts", ROOT).href, false);
  assert.equal(entry.onmessageChanged, true, "the probe missed a worker entry's onmessage");
});

/**
 * A module specifier that names test code: a `.ts`/`.js` file under `tests/`,
 * reached by a relative path (`./tests/…` from the root, `../tests/…`,
 * `../../tests/…` from deeper folders). Test data read as data
 * (`tests/data/…` CSV files) is not an import.
 */
const TESTS_MODULE = String.raw`["'](?:\.\.?\/)+tests\/[^"']*\.(?:ts|js|mjs|tsx)["']`;
const TESTS_IMPORT = new RegExp(
  // static `from "…"`, side-effect `import "…"`, dynamic `import("…")`, and a
  // worker or module URL `new URL("…", import.meta.url)`
  String.raw`(\bfrom\s*|\bimport\s*\(?\s*|\bnew\s+URL\(\s*)` + TESTS_MODULE,
);

/**
 * The lines of `source` (a file at `path`) that import test code: nothing
 * outside `tests/` may, so benchmarks and tools take shared fixtures from
 * `testing/`.
 *
 * @param path The file's path from the repository root.
 * @param source Its text.
 * @returns `path:line: text` per offending line.
 */
export function testImportViolations(path: string, source: string): string[] {
  if (path.startsWith("tests/")) return [];
  return _hits(source, TESTS_IMPORT).map((h) => `${path}:${h}`);
}

Deno.test("nothing outside tests/ imports from tests/: bench/ takes its fixtures from testing/", async (t) => {
  const files = (await _sources(ROOT)).filter((f) => f !== SELF);
  const read = (f: string) => Deno.readTextFileSync(new URL(f, ROOT));
  const bench = files.filter((f) => f.startsWith("bench/"));
  assert.ok(bench.length > 10 && bench.includes("bench/duckdb_bench.ts"), "bench/ found");

  await t.step("bench/ imports no module under tests/", () => {
    assert.deepEqual(bench.flatMap((f) => testImportViolations(f, read(f))), []);
  });

  await t.step("no other layer imports a module under tests/", () => {
    assert.deepEqual(files.flatMap((f) => testImportViolations(f, read(f))), []);
  });

  await t.step("the rule fails on planted violations", () => {
    const planted = [
      'import { higgsRows } from "../tests/_data_fixtures.ts";',
      'export { approx } from "../tests/_stat.ts";',
      'import "../tests/_side_effects.ts";',
      'const { runCli } = await import("../tests/_cli_fixtures.ts");',
      'const w = new Worker(new URL("../tests/_serve.ts", import.meta.url), { type: "module" });',
      'import { x } from "../../tests/samplers/_fixtures.ts";',
      "import { y } from './tests/_stat.ts';",
    ];
    for (const line of planted) {
      const source = `// a module\n${line}\nexport {};\n`;
      assert.equal(
        testImportViolations("bench/planted.ts", source).length,
        1,
        `not caught: ${line}`,
      );
      assert.deepEqual(testImportViolations("tests/planted_test.ts", source), [], line);
    }
    // Shared fixtures in testing/ and test data read as data are fine.
    const fine = [
      'import { duckdbFixture } from "../testing/duckdb_fixtures.ts";',
      'const DATA_DIR = new URL("../tests/data/posteriordb/", import.meta.url);',
      'const csv = "tests/data/higgs/sample.csv";',
    ];
    for (const line of fine) assert.deepEqual(testImportViolations("bench/planted.ts", line), []);
  });
});

/**
 * Where a model's kind may be examined: `models/` decides what a model can do
 * (`models/subsampling_support.ts`), `core/` is below the models (its kernels'
 * own flags), and tests and their fixtures build models of every kind.
 */
const MODEL_KIND_LAYERS = ["models/", "core/", "tests/", "testing/"];
/** Model-kind predicates: outside models/ their answers come from a `SubsamplingSupport`. */
const MODEL_KIND_PREDICATES = [
  "isExternalGlm",
  "isCompactGlm",
  "compactGlmOf",
  "hasPerRowHessians",
  "hasPerRowGradients",
  "hasCompactCache",
  "asInMemoryGlm",
];
/**
 * Named exceptions, each with its reason. The flat-prior propriety check reads
 * an in-memory GLM's design, family and prior to search for an unbounded
 * direction; it is not a subsampling capability, and its search
 * (samplers/optimize_start.ts) sits above models/.
 */
const MODEL_KIND_EXCEPTIONS: Record<string, readonly string[]> = {
  "samplers/proper_posterior.ts": ["asInMemoryGlm"],
};
/** Layers where a list of GLM family names would be a model-kind check. */
const FAMILY_LIST_LAYERS = ["samplers/", "subsampling/"];
const GLM_FAMILY_NAMES = [
  "logistic",
  "gaussian",
  "poisson",
  "gaussian-scale",
  "student-t",
  "negative-binomial",
  "binomial",
];

/**
 * The lines of `source` (a file at `path`) that examine a model's kind:
 * `instanceof` one of `modelClasses`, a model-kind predicate not excepted for
 * the file, or (in the sampler layers) an array of two or more GLM family names.
 *
 * @param path The file's path from the repository root.
 * @param source Its text.
 * @param modelClasses The classes models/ exports.
 * @returns `path:line: text` per offending line.
 */
export function modelKindViolations(
  path: string,
  source: string,
  modelClasses: readonly string[],
): string[] {
  if (MODEL_KIND_LAYERS.some((p) => path.startsWith(p))) return [];
  const allowed = MODEL_KIND_EXCEPTIONS[path] ?? [];
  const predicates = MODEL_KIND_PREDICATES.filter((p) => !allowed.includes(p));
  // A row source outside models/ implementing ExternalGlmModel declares its
  // brand (`readonly isExternalGlm = true`): that states a kind, it checks none.
  source = source.replace(/^\s*(readonly\s+)?isExternalGlm\s*[=:]\s*true\b.*$/gm, "");
  const patterns = [
    new RegExp(`\\binstanceof\\s+(${modelClasses.join("|")})\\b`),
    new RegExp(`\\b(${predicates.join("|")})\\b`),
  ];
  if (FAMILY_LIST_LAYERS.some((p) => path.startsWith(p))) {
    const name = `["'](${GLM_FAMILY_NAMES.join("|")})["']`;
    patterns.push(new RegExp(`\\[\\s*${name}\\s*,\\s*${name}`));
  }
  return patterns.flatMap((p) => _hits(source, p).map((h) => `${path}:${h}`));
}

/** The model classes exported by models/ (read from its sources: the classes named `…Model`). */
function _modelClasses(files: string[], read: (f: string) => string): string[] {
  const names = files
    .filter((f) => f.startsWith("models/"))
    .flatMap((f) =>
      [...read(f).matchAll(/^export (?:abstract )?class (\w+Model)\b/gm)].map((m) => m[1])
    );
  return [...new Set(names)].sort();
}

Deno.test("what a model can do is decided in models/: no model-kind checks elsewhere", async (t) => {
  const files = (await _sources(ROOT)).filter((f) => f !== SELF);
  const read = (f: string) => Deno.readTextFileSync(new URL(f, ROOT));
  const classes = _modelClasses(files, read);
  assert.ok(
    classes.includes("GlmModel") && classes.includes("ThreadedGlmModel"),
    `model classes found: ${classes.join(", ")}`,
  );

  await t.step("no instanceof on a model class, no model-kind predicate outside models/", () => {
    const bad = files.flatMap((f) => modelKindViolations(f, read(f), classes));
    assert.deepEqual(bad, []);
  });

  await t.step("the rule fails on planted violations", () => {
    const planted = [
      "if (model instanceof GlmModel && x) run();",
      "const t = m instanceof ThreadedGlmModel ? m.base : m;",
      "if (isExternalGlm(model)) return externalProxy(model);",
      "if (m.isExternalGlm === true) gather();",
      "const g = compactGlmOf(model);",
      "if (hasPerRowHessians(model)) fit();",
      "const fast = model.hasCompactCache;",
      'const _CONCAVE = ["logistic", "binomial", "poisson"];',
    ];
    // Declaring the brand of an interface it implements is no check.
    assert.deepEqual(
      modelKindViolations(
        "engines/planted.ts",
        "class R {\n  readonly isExternalGlm = true;\n}\n",
        classes,
      ),
      [],
    );
    for (const line of planted) {
      const source = `// a module\n${line}\nexport {};\n`;
      assert.equal(
        modelKindViolations("samplers/planted.ts", source, classes).length,
        1,
        `not caught: ${line}`,
      );
      assert.deepEqual(modelKindViolations("models/planted.ts", source, classes), [], line);
    }
    // An exception is per file and per name.
    const own = "const glm = asInMemoryGlm(model);";
    assert.deepEqual(modelKindViolations("samplers/proper_posterior.ts", own, classes), []);
    assert.equal(modelKindViolations("samplers/sample.ts", own, classes).length, 1);
    // A family list is a kind check in the sampler layers, not in the CLI's flag handling.
    const list = 'const choices = ["logistic", "poisson"];';
    assert.deepEqual(modelKindViolations("cli/planted.ts", list, classes), []);
    // Nothing else is flagged: the support object's fields are what samplers read.
    const fine = 'const glm = support.inMemoryGlm; if (support.rows.kind === "per-row") f();';
    assert.deepEqual(modelKindViolations("samplers/planted.ts", fine, classes), []);
  });
});

/** The library's folders: none of them may import the reference targets of examples/. */
const LIBRARY_DIRS = [
  "core",
  "models",
  "samplers",
  "subsampling",
  "data",
  "diagnostics",
  "engines",
  "cli",
];

/**
 * The lines of a library module whose import or export statement names a
 * module under examples/ (`path:line: text`). Doc examples (comment lines,
 * type-checked by `deno test --doc`) may use the reference targets: they are
 * not in the library's module graph.
 *
 * @param path The module's path from the repository root.
 * @param source Its text.
 * @returns The offending lines; none outside the library folders.
 */
export function examplesImports(path: string, source: string): string[] {
  if (!LIBRARY_DIRS.some((d) => path.startsWith(`${d}/`))) return [];
  // A statement starts a line (not a comment's `*` or `//`) and may span lines up to its `;`.
  const statement =
    /^(?![ \t]*[*/])[ \t]*(?:(?:import|export)\b[^;]*?["'](?:\.\.?\/)+examples\/|[^\n]*?\bimport\(\s*["'](?:\.\.?\/)+examples\/)/gm;
  return [...source.matchAll(statement)].map((m) => {
    const line = source.slice(0, m.index).split("\n").length;
    return `${path}:${line}: ${source.split("\n")[line - 1].trim()}`;
  });
}

async function _libraryFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL(`${dir}/`, ROOT))) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory && !e.name.startsWith(".")) out.push(...await _libraryFiles(rel));
    else if (e.isFile && e.name.endsWith(".ts")) out.push(rel);
  }
  return out;
}

/** The files every sampler's folder has (docs/samplers_recipe.md). */
const RECIPE_FILES = ["kernel.ts", "options.ts", "chain_sampler.ts", "run.ts", "mod.ts"];

/**
 * What breaks the sampler recipe: a registry import that is not a folder's
 * `chain_sampler.ts`, or a sampler folder without one of {@link RECIPE_FILES}.
 *
 * @param registrySource The text of samplers/registry.ts.
 * @param files The repository's files (paths from the root).
 * @returns One line per violation.
 */
function recipeViolations(registrySource: string, files: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const m of registrySource.matchAll(/^import\s+\{([^}]*)\}\s+from\s+"\.\/([^"]+)";/gm)) {
    const names = m[1].split(",").map((s) => s.trim()).filter((s) => s !== "");
    if (!names.some((n) => /Description$|_SAMPLERS$/.test(n))) continue;
    const folder = /^([a-z0-9_]+)\/chain_sampler\.ts$/.exec(m[2]);
    if (folder === null) {
      out.push(
        `samplers/registry.ts imports ${names.join(", ")} from ./${
          m[2]
        }, not ./<sampler>/chain_sampler.ts`,
      );
      continue;
    }
    for (const f of RECIPE_FILES) {
      if (!files.has(`samplers/${folder[1]}/${f}`)) out.push(`samplers/${folder[1]}/ has no ${f}`);
    }
  }
  return out;
}

Deno.test("the library does not import the reference targets of examples/", async (t) => {
  const files = (await Promise.all(LIBRARY_DIRS.map(_libraryFiles))).flat().sort();
  assert.ok(files.includes("models/glm.ts") && files.includes("core/load.ts"));
  await t.step("no library module imports examples/", () => {
    const bad = files.flatMap((f) => examplesImports(f, Deno.readTextFileSync(new URL(f, ROOT))));
    assert.deepEqual(bad, []);
  });
  await t.step("the rule fails on planted violations", () => {
    const planted = [
      'import { gaussianTarget } from "../examples/models/gaussian_target.ts";',
      'import type { NormalGammaPrior } from "../../examples/mod.ts";',
      'export { L1RegressionModel } from "../examples/models/l1_regression.ts";',
      "export {\n  NormalGammaModel,\n} from '../examples/mod.ts';",
      'const m = await import("../examples/mod.ts");',
    ];
    for (const text of planted) {
      const source = `// a module\n${text}\nexport {};\n`;
      for (const dir of LIBRARY_DIRS) {
        assert.equal(examplesImports(`${dir}/planted.ts`, source).length, 1, `${dir}: ${text}`);
      }
      assert.deepEqual(examplesImports("tests/planted.ts", source), [], text);
      assert.deepEqual(examplesImports("replicate/planted.ts", source), [], text);
    }
    // A doc example is documentation, not an import of the module.
    const doc = ' * import { gaussianTarget } from "../examples/mod.ts";';
    assert.deepEqual(examplesImports("samplers/planted.ts", doc), []);
  });
});

Deno.test("every registered sampler lives in a folder of the recipe (kernel, options, chain_sampler, run, mod)", async (t) => {
  const files = new Set(await _sources(ROOT));
  const registry = Deno.readTextFileSync(new URL("samplers/registry.ts", ROOT));
  await t.step("the tree", () => assert.deepEqual(recipeViolations(registry, files), []));
  await t.step("every registered name comes from a recipe folder's chain_sampler.ts", async () => {
    const { samplerNames } = await import("../../samplers/registry.ts");
    const found = new Set<string>();
    for (const m of registry.matchAll(/from\s+"\.\/([a-z0-9_]+)\/chain_sampler\.ts"/g)) {
      const mod = await import(`../../samplers/${m[1]}/chain_sampler.ts`);
      for (const v of Object.values(mod)) {
        for (const d of Array.isArray(v) ? v : [v]) {
          if (typeof d === "object" && d !== null && "build" in d && "name" in d) {
            found.add(String(d.name));
          }
        }
      }
    }
    assert.deepEqual(samplerNames().filter((n) => !found.has(n)), []);
  });
  await t.step("planted violations are found", () => {
    const planted = registry.replace(
      'from "./hmc/chain_sampler.ts"',
      'from "./run_hmc.ts"',
    );
    assert.equal(recipeViolations(planted, files).length, 1);
    const missing = new Set([...files].filter((f) => f !== "samplers/rwmh/run.ts"));
    assert.deepEqual(recipeViolations(registry, missing), ["samplers/rwmh/ has no run.ts"]);
  });
});

/**
 * Test files that break the layout: every `*_test.ts` sits in the tests/
 * folder named after the source folder it tests (`tests/samplers/hmc_ecs/…`
 * for samplers/hmc_ecs/), or in tests/project/ for the repository-wide
 * checks; none at the top of tests/ (which holds the shared fixtures).
 *
 * @param testFiles Paths of the test files from the repository root.
 * @param sourceDirs The repository's folders (paths from the root, no trailing slash).
 * @returns One line per misplaced file.
 */
export function testLayoutViolations(
  testFiles: readonly string[],
  sourceDirs: ReadonlySet<string>,
): string[] {
  return testFiles.flatMap((f) => {
    const dir = f.slice("tests/".length).split("/").slice(0, -1).join("/");
    if (dir === "") {
      return [`${f}: a test file at the top of tests/ (put it under tests/<folder>/)`];
    }
    if (dir === "project" || sourceDirs.has(dir)) return [];
    return [`${f}: tests/${dir}/ mirrors no source folder`];
  });
}

Deno.test("tests mirror the source layout", async (t) => {
  const all = await _sources(ROOT);
  const tests = all.filter((f) => f.startsWith("tests/") && f.endsWith("_test.ts"));
  const dirs = new Set([
    ...all.filter((f) => !f.startsWith("tests/")).flatMap((f) => {
      const parts = f.split("/").slice(0, -1);
      return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
    }),
    // Folders without TypeScript (notebooks/) are sources too.
    ...[...Deno.readDirSync(ROOT)].filter((e) => e.isDirectory).map((e) => e.name),
  ]);
  assert.ok(tests.length > 50 && dirs.has("samplers/hmc_ecs"), "the scan found the tree");
  await t.step("the tree", () => assert.deepEqual(testLayoutViolations(tests, dirs), []));
  await t.step("planted violations are found", () => {
    assert.equal(testLayoutViolations(["tests/planted_test.ts"], dirs).length, 1);
    assert.equal(testLayoutViolations(["tests/sampler/hmc_test.ts"], dirs).length, 1);
    assert.deepEqual(testLayoutViolations(["tests/samplers/hmc_ecs/x_test.ts"], dirs), []);
  });
});
