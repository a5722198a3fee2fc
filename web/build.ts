/**
 * Builds the browser/edge bundle of the public API and the demo page's
 * scripts with `deno bundle` (esbuild inside Deno: it resolves `npm:`
 * specifiers and TypeScript itself, so the build needs no bundler
 * dependency of its own).
 *
 * ```
 *  mod.ts ───────────► dist/tallmc.js      one ES module, no imports, WASM inside
 *  worker entries ───► dist/chain_worker.js, _pass_worker.js, _shard_worker.js, _csv_worker.js,
 *                      _parquet_worker.js
 *  web/app.ts ───────► web/dist/app.js     page: controls, canvas plots (web/plots.ts)
 *  web/worker.ts ────► web/dist/worker.js  sampler worker: the core and the samplers
 *
 *  the package (`deno task dist`), dist/:
 *   package.json     exports map: tallmc, tallmc/diagnostics, tallmc/samplers, …
 *   tallmc.js        tallmc (and tallmc/bundle): the single-file bundle of
 *                    mod.ts, with its worker bundles beside it
 *   esm/             the sub-paths (DIST_ENTRIES), one code-split build:
 *                    shared chunks, no file access, so tallmc/diagnostics
 *                    loads only what diagnostics need
 *   wasm/            tallmc-simd.wasm, tallmc-relaxed-simd.wasm (precompilable)
 *   types/           .d.ts of every entry (npm:typescript), named in exports
 * ```
 *
 * Worker URLs stay `new URL("./chain_worker.ts", import.meta.url)` in the
 * sources (resolved when a worker starts); the build rewrites each to the
 * bundled worker's path relative to the file that holds it.
 *
 * Usage: `deno task bundle` (library), `deno task dist` (package) and
 * `deno task web` (page, then serve).
 *
 * @module
 */
import { basename, dirname, join, relative } from "node:path";
import { coreWasmFile } from "../core/load.ts";

const _ROOT = new URL("..", import.meta.url).pathname;

/** One `deno bundle` call's inputs and output. */
export interface BundleJob {
  /** Entry point, relative to the repository root. */
  entry: string;
  /** Output file (absolute, or relative to the repository root). */
  output: string;
  /**
   * Code splitting: modules imported with `import()` become files of their
   * own beside `output` (which must be named as the entry, `.js`).
   */
  splitting?: boolean;
}

/**
 * Bundle one entry point for browsers: ES module, minified, every package
 * inlined (or, with `splitting`, what is imported on demand in files of its
 * own), no source map.
 *
 * @param job Entry and output.
 * @returns The output's size in bytes.
 * @throws {Error} With `deno bundle`'s messages if it fails.
 */
export async function bundle(job: BundleJob): Promise<number> {
  const output = job.output.startsWith("/") ? job.output : join(_ROOT, job.output);
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=browser",
      "--format=esm",
      "--packages=bundle",
      "--minify",
      `--config=${join(_ROOT, "deno.json")}`,
      ...(job.splitting ? ["--code-splitting", `--outdir=${dirname(output)}`] : [
        `--output=${output}`,
      ]),
      join(_ROOT, job.entry),
    ],
    cwd: _ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(`deno bundle ${job.entry} failed:\n${new TextDecoder().decode(stderr)}`);
  }
  return (await Deno.stat(output)).size;
}

/** The worker entry points: source path → the name its bundle gets. */
export const WORKER_ENTRIES: Readonly<Record<string, string>> = {
  "samplers/chain_worker.ts": "chain_worker.js",
  "models/_pass_worker.ts": "_pass_worker.js",
  "models/_shard_worker.ts": "_shard_worker.js",
  "data/_csv_worker.ts": "_csv_worker.js",
  "data/_parquet_worker.ts": "_parquet_worker.js",
};

/**
 * Point the worker URLs in one built file at the bundled workers:
 * `"./chain_worker.ts"` becomes the path of `workerFiles["chain_worker.ts"]`
 * relative to `file`.
 */
async function _rewriteWorkerUrls(
  file: string,
  workerFiles: Record<string, string>,
): Promise<void> {
  let text = await Deno.readTextFile(file);
  let changed = false;
  for (const [source, built] of Object.entries(workerFiles)) {
    const escaped = source.replaceAll(".", "\\.");
    const quoted = new RegExp(`(["'\`])\\./${escaped}\\1`, "g");
    let rel = relative(dirname(file), built);
    if (!rel.startsWith(".")) rel = `./${rel}`;
    text = text.replace(quoted, (_m, q) => {
      changed = true;
      return `${q}${rel}${q}`;
    });
  }
  if (changed) await Deno.writeTextFile(file, text);
}

/**
 * Point core/load.ts's `_WASM_DIR` ("../dist/wasm/", right for the sources)
 * at `wasmDir` relative to the built file that holds it.
 */
async function _rewriteWasmDir(file: string, wasmDir: string): Promise<void> {
  const text = await Deno.readTextFile(file);
  const quoted = /(["'`])\.\.\/dist\/wasm\/\1/g;
  if (!quoted.test(text)) return;
  let rel = relative(dirname(file), wasmDir);
  if (!rel.startsWith(".")) rel = `./${rel}`;
  await Deno.writeTextFile(file, text.replace(quoted, (_m, q) => `${q}${rel}/${q}`));
}

/**
 * The library bundle: `mod.ts` → `outFile`, and beside it one bundle per
 * worker entry point (what `sampleParallel` and the threaded models start).
 *
 * @param outFile Where to write (default `dist/tallmc.js`).
 * @returns Its size in bytes.
 */
export async function bundleLibrary(outFile = "dist/tallmc.js"): Promise<number> {
  const out = outFile.startsWith("/") ? outFile : join(_ROOT, outFile);
  const workerFiles: Record<string, string> = {};
  await Promise.all(
    Object.entries(WORKER_ENTRIES).map(([entry, name]) => {
      workerFiles[basename(entry)] = join(dirname(out), name);
      return bundle({ entry, output: join(dirname(out), name) });
    }),
  );
  const size = await bundle({ entry: "mod.ts", output: out });
  for (const f of [out, ...Object.values(workerFiles)]) await _rewriteWorkerUrls(f, workerFiles);
  return size;
}

/**
 * The package's sub-path entry points: export path → source module. They
 * are built together (code splitting: shared chunks, one instance of each
 * module between them) and hold no file access; the root `tallmc` is the
 * single-file bundle of mod.ts, which includes the Deno file readers.
 */
export const DIST_ENTRIES: Readonly<Record<string, string>> = {
  "./diagnostics": "diagnostics/mod.ts",
  "./diagnostics/verdict": "diagnostics/verdict.ts",
  "./diagnostics/loo": "diagnostics/loo.ts",
  "./core": "core/mod.ts",
  "./data": "data/web.ts",
  "./models": "models/web.ts",
  "./samplers": "samplers/mod.ts",
  "./hmc-ecs": "samplers/hmc_ecs/mod.ts",
  "./subsampling": "subsampling/mod.ts",
  "./examples": "examples/mod.ts",
};

/** What {@link buildDist} wrote. */
export interface DistReport {
  /** Export path → bytes an import of it loads (the entry and every chunk it imports). */
  entryBytes: Record<string, number>;
  /** The single-file bundle's size. */
  bundleBytes: number;
  /** `.wasm` file name → size. */
  wasmBytes: Record<string, number>;
  /** What the declaration build emitted, or null if there are no types. */
  typesNote: string | null;
}

/**
 * The npm-style package in `outDir`: a code-split ES build of every sub-path
 * entry (see {@link DIST_ENTRIES}) and of the workers, the single-file
 * bundle, the core's `.wasm` files and a package.json with an exports map.
 *
 * @param outDir Directory to (re)create (default `dist`).
 * @returns Sizes.
 */
export async function buildDist(
  outDir = "dist",
  options: { types?: boolean } = {},
): Promise<DistReport> {
  const out = outDir.startsWith("/") ? outDir : join(_ROOT, outDir);
  await Deno.remove(out, { recursive: true }).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  await Deno.mkdir(join(out, "wasm"), { recursive: true });
  const esm = join(out, "esm");
  const entries = [...Object.values(DIST_ENTRIES), ...Object.keys(WORKER_ENTRIES)];
  // The sub-paths embed no core: core/_embedded_core.ts (both builds as
  // base64, ≈ 390 KiB) is swapped for core/_external_core.ts by an import
  // map, and the core comes from dist/wasm/ (loadCoreFrom) or the host.
  const config = JSON.parse(await Deno.readTextFile(join(_ROOT, "deno.json")));
  const distConfig = join(out, "deno.dist.json");
  const fileUrl = (p: string) => new URL(p, `file://${_ROOT}`).href;
  await Deno.writeTextFile(
    distConfig,
    JSON.stringify({
      ...config,
      exclude: [],
      imports: {
        ...config.imports,
        [fileUrl("core/_embedded_core.ts")]: fileUrl("core/_external_core.ts"),
      },
    }),
  );
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=browser",
      "--format=esm",
      "--packages=bundle",
      "--minify",
      "--code-splitting",
      `--config=${distConfig}`,
      "--no-lock", // the config is a temporary copy: leave the repository's lock file alone
      `--outdir=${esm}`,
      ...entries.map((e) => join(_ROOT, e)),
    ],
    cwd: _ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  await Deno.remove(distConfig);
  if (code !== 0) {
    throw new Error(`deno bundle (code splitting) failed:\n${new TextDecoder().decode(stderr)}`);
  }
  const js = (f: string) => join(esm, f.replace(/\.ts$/, ".js"));
  const workerFiles = Object.fromEntries(
    Object.keys(WORKER_ENTRIES).map((e) => [basename(e), js(e)]),
  );
  for await (const f of _walk(esm)) {
    await _rewriteWorkerUrls(f, workerFiles);
    await _rewriteWasmDir(f, join(out, "wasm"));
  }
  const bundleBytes = await bundleLibrary(join(out, "tallmc.js"));
  const wasmBytes: Record<string, number> = {};
  for (const backend of ["simd", "relaxed-simd"] as const) {
    const bytes = coreWasmFile(backend);
    await Deno.writeFile(join(out, "wasm", `tallmc-${backend}.wasm`), bytes);
    wasmBytes[`tallmc-${backend}.wasm`] = bytes.length;
  }
  const types = (options.types ?? true) ? await _declarations(out) : null;
  const entry = (source: string, file: string) =>
    types === null ? file : { types: `./types/${source.replace(/\.ts$/, ".d.ts")}`, default: file };
  const exportsMap: Record<string, unknown> = {
    ".": entry("mod.ts", "./tallmc.js"),
    "./bundle": entry("mod.ts", "./tallmc.js"),
  };
  const entryBytes: Record<string, number> = { ".": bundleBytes };
  for (const [path, source] of Object.entries(DIST_ENTRIES)) {
    exportsMap[path] = entry(source, `./esm/${source.replace(/\.ts$/, ".js")}`);
    entryBytes[path] = await closureBytes(js(source));
  }
  exportsMap["./wasm/*"] = "./wasm/*";
  exportsMap["./package.json"] = "./package.json";
  const pkg = {
    name: "tallmc",
    version: config.version,
    description: "Scalable Bayesian MCMC for tall data, with a WebAssembly SIMD core",
    type: "module",
    main: "./tallmc.js",
    exports: exportsMap,
    sideEffects: false,
    engines: { node: ">=20" },
    license: "MIT",
  };
  await Deno.writeTextFile(join(out, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  await Deno.writeTextFile(
    join(out, "README.md"),
    "# tallmc\n\nBuilt by `deno task dist`. See docs/embedding.md in the repository.\n",
  );
  return { entryBytes, bundleBytes, wasmBytes, typesNote: types };
}

/**
 * TypeScript declarations of mod.ts and the sub-path entries into
 * `out/types/`, by the TypeScript compiler (`npm:typescript`, run by Deno).
 * The compiler does not know Deno's globals or `npm:` specifiers; it reports
 * them and emits the declarations anyway (such names become `any`).
 * Relative `.ts` specifiers are rewritten to `.js`, which resolve to the
 * `.d.ts` files beside them.
 *
 * @returns A note on what was emitted, or null if the compiler could not run.
 */
async function _declarations(out: string): Promise<string | null> {
  const typesDir = join(out, "types");
  const tsconfig = join(out, "tsconfig.types.json");
  await Deno.writeTextFile(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        declaration: true,
        emitDeclarationOnly: true,
        allowImportingTsExtensions: true,
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "bundler",
        lib: ["ES2023", "DOM"],
        skipLibCheck: true,
        strict: true,
        noEmitOnError: false,
        types: [],
        outDir: typesDir,
        rootDir: _ROOT,
      },
      files: ["mod.ts", ...Object.values(DIST_ENTRIES)].map((f) => join(_ROOT, f)),
    }),
  );
  try {
    const { stdout } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-config",
        "--no-lock",
        "--quiet",
        "--allow-read",
        `--allow-write=${typesDir}`,
        "--allow-env",
        "--allow-sys",
        "npm:typescript@5.9.3/bin/tsc",
        "-p",
        tsconfig,
      ],
      cwd: out,
      stdout: "piped",
      stderr: "null",
    }).output();
    let files = 0;
    for await (const f of _walk(typesDir, ".d.ts")) {
      const text = await Deno.readTextFile(f);
      await Deno.writeTextFile(
        f,
        text.replace(/(["'])(\.{1,2}\/[^"'\n]+)\.ts\1/g, (_m, q, p) => `${q}${p}.js${q}`),
      );
      files++;
    }
    if (files === 0) return null;
    const errors = (new TextDecoder().decode(stdout).match(/error TS/g) ?? []).length;
    return `${files} declaration files (${errors} compiler errors on Deno globals and npm: specifiers, typed any)`;
  } catch {
    return null;
  } finally {
    await Deno.remove(tsconfig);
  }
}

async function* _walk(dir: string, suffix = ".js"): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return;
    throw e;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory) yield* _walk(p, suffix);
    else if (e.name.endsWith(suffix)) yield p;
  }
}

/**
 * Bytes a page loads when it imports `file` (or all of `files`): the files
 * and every module they import statically, transitively, each counted once
 * (relative imports only: the build inlines packages). Files fetched at run
 * time (the core's `.wasm`, worker bundles) are not counted.
 *
 * @param file A built module, or several.
 * @returns The total size.
 */
export async function closureBytes(file: string | readonly string[]): Promise<number> {
  const seen = new Set<string>();
  const visit = async (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    const text = await Deno.readTextFile(f);
    for (const m of text.matchAll(/(?:from|import)\s*["'](\.[^"']+)["']/g)) {
      await visit(join(dirname(f), m[1]));
    }
  };
  for (const f of typeof file === "string" ? [file] : file) await visit(f);
  let total = 0;
  for (const f of seen) total += (await Deno.stat(f)).size;
  return total;
}

/**
 * The demo page's two scripts, into `web/dist/`: `app.js`, and `worker.js`
 * built with code splitting, so that what the worker imports only on demand
 * (the Parquet codecs, when a Parquet file is opened) is a file of its own,
 * fetched then. Earlier builds' chunks are removed first when the process
 * may write there (`deno task web`; a test's `deno bundle` subprocess
 * overwrites what it builds).
 *
 * @returns Bytes by name: `app.js`; `worker.js`, what starting the worker
 *   loads (worker.js and the chunks it imports statically); and each file it
 *   imports on demand, with the chunks only that file needs.
 */
export async function bundleWeb(): Promise<Record<string, number>> {
  const dir = join(_ROOT, "web/dist");
  if (Deno.permissions.querySync({ name: "write", path: dir }).state === "granted") {
    let entries: Deno.DirEntry[] = [];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch (e) {
      // A fresh clone has no web/dist/ yet: nothing to remove.
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    for (const e of entries) {
      if (e.isFile && e.name.endsWith(".js") && !["app.js", "worker.js"].includes(e.name)) {
        await Deno.remove(join(dir, e.name)).catch(() => {});
      }
    }
  }
  const [app] = await Promise.all([
    bundle({ entry: "web/app.ts", output: "web/dist/app.js" }),
    bundle({ entry: "web/worker.ts", output: "web/dist/worker.js", splitting: true }),
  ]);
  const worker = join(dir, "worker.js");
  const sizes: Record<string, number> = { "app.js": app, "worker.js": await closureBytes(worker) };
  const atStart = await _closure(worker);
  for (const f of atStart) {
    const text = await Deno.readTextFile(f);
    for (const m of text.matchAll(/import\(\s*["'](\.[^"']+)["']\s*\)/g)) {
      const lazy = join(dirname(f), m[1]);
      let bytes = 0;
      for (const g of await _closure(lazy)) if (!atStart.has(g)) bytes += (await Deno.stat(g)).size;
      sizes[basename(lazy)] = bytes;
    }
  }
  return sizes;
}

/** `file` and every module it imports statically (relative imports), transitively. */
async function _closure(file: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const visit = async (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    const text = await Deno.readTextFile(f);
    for (const m of text.matchAll(/(?:from|import)\s*["'](\.[^"']+)["']/g)) {
      await visit(join(dirname(f), m[1]));
    }
  };
  await visit(file);
  return seen;
}

if (import.meta.main) {
  const what = Deno.args[0] ?? "library";
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  if (what === "library") {
    console.log(`dist/tallmc.js: ${kb(await bundleLibrary())}`);
  } else if (what === "dist") {
    const report = await buildDist();
    for (const [path, bytes] of Object.entries(report.entryBytes)) {
      console.log(`tallmc${path.slice(1)}: ${kb(bytes)}`);
    }
    console.log(`tallmc/bundle (dist/tallmc.js): ${kb(report.bundleBytes)}`);
    for (const [name, bytes] of Object.entries(report.wasmBytes)) {
      console.log(`dist/wasm/${name}: ${kb(bytes)}`);
    }
    console.log(
      `dist/types: ${report.typesNote ?? "not built (the TypeScript compiler did not run)"}`,
    );
  } else if (what === "web") {
    for (const [name, size] of Object.entries(await bundleWeb())) {
      console.log(`web/dist/${name}: ${kb(size)}`);
    }
  } else {
    console.error(`usage: deno run … web/build.ts [library|dist|web], got ${what}`);
    Deno.exit(2);
  }
}
