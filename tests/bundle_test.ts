/**
 * The browser/edge bundle: built from mod.ts by `deno bundle`, then run in a
 * Deno worker with no permissions at all (no read, net, env, …): the
 * README's "In a web page" worker script samples HMC-ECS with it, which shows
 * the module needs nothing from its host but WebAssembly, and its means equal
 * those of the same run from the source.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { GlmModel, higgsShaped, loadCore, runHmcEcs, summarize } from "../mod.ts";
import { bundleLibrary } from "../web/build.ts";
import { readmeBlock } from "./_serve.ts";

Deno.test("dist/tallmc.js: self-contained, and samples in a worker with permissions none", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_bundle_" });
  try {
    const size = await bundleLibrary(join(dir, "tallmc.js"));
    const text = await Deno.readTextFile(join(dir, "tallmc.js"));

    await t.step("one ES module: no imports, no top-level use of Deno or Node", () => {
      console.log(`bundle: ${(size / 1024).toFixed(0)} KiB`);
      assert.ok(size < 1_000_000, `bundle is ${size} bytes`);
      assert.doesNotMatch(text, /\bimport\s*[("'{*]|\brequire\(["']/);
      assert.doesNotMatch(text, /\bprocess\.(env|versions|platform)/);
    });

    await t.step("the README worker samples HMC-ECS with permissions none", async () => {
      const script = await readmeBlock("bundle-example");
      await Deno.writeTextFile(join(dir, "sampler_worker.js"), script);
      // `deno.permissions` is an unstable worker option (--unstable-worker-options);
      // lib.deno.window's WorkerOptions does not declare it.
      const options = { type: "module", deno: { permissions: "none" } } as WorkerOptions;
      const worker = new Worker(new URL(`file://${dir}/sampler_worker.js`), options);
      try {
        const result = await new Promise<{ backend: string; means: number[] }>(
          (resolve, reject) => {
            const timer = setTimeout(() => reject(new Error("no answer in 30 s")), 30_000);
            worker.onmessage = (e) => {
              clearTimeout(timer);
              resolve(e.data);
            };
            worker.onerror = (e) => {
              clearTimeout(timer);
              e.preventDefault();
              reject(new Error(`worker error: ${e.message}`));
            };
          },
        );
        // Deno validates relaxed SIMD: the bundle must pick it as the source does.
        assert.equal(result.backend, "relaxed-simd");
        assert.equal(result.means.length, 30);
        assert.ok(result.means.every(Number.isFinite));
        // The same seeds from the source give the same draws, bit for bit.
        const arena = loadCore();
        const { data } = higgsShaped(arena, { n: 20_000, seed: 1 });
        const model = new GlmModel(data, { family: "logistic", priorScale: 10 });
        const run = runHmcEcs(model, { numWarmup: 200, numSamples: 200, numChains: 1, seed: 1 });
        assert.deepEqual(result.means, summarize(run.draws).map((row) => row.mean));
      } finally {
        worker.terminate();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
