/**
 * Builds the browser/edge bundle of the public API and the demo page's
 * scripts with `deno bundle` (esbuild inside Deno: it resolves `npm:`
 * specifiers and TypeScript itself, so the build needs no bundler
 * dependency of its own).
 *
 * ```
 *  mod.ts ───────────► dist/tallmc.js      one ES module, no imports, WASM inside
 *  web/app.ts ───────► web/dist/app.js     page: controls, Vega-Lite plots (vega-embed bundled)
 *  web/worker.ts ────► web/dist/worker.js  sampler worker: the core and the samplers
 * ```
 *
 * Usage: `deno task bundle` (library) and `deno task web` (page, then serve).
 *
 * @module
 */
import { join } from "node:path";

const _ROOT = new URL("..", import.meta.url).pathname;

/** One `deno bundle` call's inputs and output. */
export interface BundleJob {
  /** Entry point, relative to the repository root. */
  entry: string;
  /** Output file (absolute, or relative to the repository root). */
  output: string;
}

/**
 * Bundle one entry point for browsers: ES module, minified, every package
 * inlined, no source map.
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
      `--output=${output}`,
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

/**
 * The library bundle: `mod.ts` → `outFile`.
 *
 * @param outFile Where to write (default `dist/tallmc.js`).
 * @returns Its size in bytes.
 */
export function bundleLibrary(outFile = "dist/tallmc.js"): Promise<number> {
  return bundle({ entry: "mod.ts", output: outFile });
}

/**
 * The demo page's two scripts, into `web/dist/`.
 *
 * @returns Sizes in bytes by file name.
 */
export async function bundleWeb(): Promise<Record<string, number>> {
  const [app, worker] = await Promise.all([
    bundle({ entry: "web/app.ts", output: "web/dist/app.js" }),
    bundle({ entry: "web/worker.ts", output: "web/dist/worker.js" }),
  ]);
  return { "app.js": app, "worker.js": worker };
}

if (import.meta.main) {
  const what = Deno.args[0] ?? "library";
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  if (what === "library") {
    console.log(`dist/tallmc.js: ${kb(await bundleLibrary())}`);
  } else if (what === "web") {
    for (const [name, size] of Object.entries(await bundleWeb())) {
      console.log(`web/dist/${name}: ${kb(size)}`);
    }
  } else {
    console.error(`usage: deno run … web/build.ts [library|web], got ${what}`);
    Deno.exit(2);
  }
}
