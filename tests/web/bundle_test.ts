/**
 * The browser/edge bundle: built from mod.ts by `deno bundle`, then run in a
 * Deno worker with no permissions at all (no read, net, env, …): the
 * README's "In a web page" worker script samples HMC-ECS with it, which shows
 * the module needs nothing from its host but WebAssembly, and its means equal
 * those of the same run from the source.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  gaussianLinearRegression,
  GlmModel,
  higgsShaped,
  loadCore,
  runHmcEcs,
  summarize,
} from "../../mod.ts";
import { bundleLibrary } from "../../web/build.ts";
import { readmeBlock } from "../_serve.ts";
import { importSideEffects } from "../_side_effects.ts";

Deno.test("[e2e] dist/tallmc.js: self-contained, and samples in a worker with permissions none", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_bundle_" });
  try {
    const size = await bundleLibrary(join(dir, "tallmc.js"));
    const text = await Deno.readTextFile(join(dir, "tallmc.js"));

    await t.step("one ES module: no imports, no top-level use of Deno or Node", () => {
      console.log(`bundle: ${(size / 1024).toFixed(0)} KiB`);
      // Budget ≈ 10 % above the measured size (1,045,920 bytes once the core
      // took in the gradient-only pass and the dense BFGS and ICA kernels;
      // docs/development.md).
      assert.ok(size < 1_150_000, `bundle is ${size} bytes`);
      assert.doesNotMatch(text, /\bimport\s*[("'{*]|\brequire\(["']/);
      assert.doesNotMatch(text, /\bprocess\.(env|versions|platform)/);
    });

    await t.step("importing the bundle installs no handler and starts no worker", async () => {
      const result = await importSideEffects(`file://${dir}/tallmc.js`);
      assert.equal(result.onmessageChanged, false, "onmessage changed");
      assert.equal(result.workersStarted, 0, "a worker started");
      assert.equal(result.replies.length, 2, JSON.stringify(result.replies));
    });

    await t.step("worker bundles ship beside it, and its worker URLs point at them", async () => {
      // The root exports sampleParallel and ThreadedGlmModel, so the bundle
      // starts chain and pass workers; the sharded GLM is a sub-path export
      // (./models), so the shard worker ships but the root does not name it.
      for (const name of ["chain_worker.js", "_pass_worker.js", "_shard_worker.js"]) {
        assert.ok((await Deno.stat(join(dir, name))).size > 0, name);
      }
      for (const name of ["chain_worker.js", "_pass_worker.js"]) {
        assert.match(text, new RegExp(`"\\./${name.replace(".", "\\.")}"`), name);
      }
      assert.doesNotMatch(text, /_worker\.ts["']/);
    });

    await t.step(
      "sampleParallel from the bundle runs its chains in the bundled workers",
      async () => {
        const lib = await import(`file://${dir}/tallmc.js`);
        const arena = lib.loadCore({ shared: true });
        const { data } = lib.higgsShaped(arena, { n: 2000, seed: 4 });
        const model = new lib.GlmModel(data, { family: "logistic", priorScale: 5 });
        const base = { sampler: "hmc", seed: 11, numWarmup: 100, numSamples: 50, numChains: 2 };
        const par = await lib.sampleParallel(model, { ...base, workers: 2 });
        assert.equal(par.parallel.workers, 2, String(par.parallel.note));
        assert.equal(par.parallel.note, null);
        assert.deepEqual(par.draws, lib.sample(model, base).draws);
      },
    );

    await t.step(
      "without cross-origin isolation, sampleParallel runs in the calling thread",
      async () => {
        const lib = await import(`file://${dir}/tallmc.js`);
        const { data } = lib.higgsShaped(lib.loadCore({ shared: true }), { n: 500, seed: 4 });
        const model = new lib.GlmModel(data, { family: "logistic", priorScale: 5 });
        const base = { sampler: "hmc", seed: 11, numWarmup: 20, numSamples: 10, numChains: 2 };
        const g = globalThis as { crossOriginIsolated?: boolean };
        g.crossOriginIsolated = false; // what a page served without COOP/COEP reports
        try {
          const par = await lib.sampleParallel(model, { ...base, workers: 2 });
          assert.equal(par.parallel.workers, 0);
          assert.match(String(par.parallel.note), /not cross-origin isolated/);
          assert.deepEqual(par.draws, lib.sample(model, base).draws);
        } finally {
          delete g.crossOriginIsolated;
        }
      },
    );

    // `deno.permissions` is an unstable worker option ("unstable": ["worker-options"]
    // in deno.json); lib.deno.window's WorkerOptions does not declare it.
    const options = { type: "module", deno: { permissions: "none" } } as WorkerOptions;

    await t.step("the README worker samples HMC-ECS with permissions none", async () => {
      const script = await readmeBlock("bundle-example");
      await Deno.writeTextFile(join(dir, "sampler_worker.js"), script);
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

    await t.step("browsers without relaxed SIMD, or without SIMD, fall back", async () => {
      // A runtime that lacks a feature rejects the build that uses it in
      // WebAssembly.validate. The worker makes validate reject the relaxed
      // build (it holds f64x2.relaxed_madd, opcode 0xfd 0x87 0x02) or every
      // build, before it imports the bundle, and reports what loadCore chose.
      await Deno.writeTextFile(
        join(dir, "fallback_worker.js"),
        `const validate = WebAssembly.validate;
        const hasRelaxed = (b) => {
          for (let i = 0; i + 2 < b.length; i++) {
            if (b[i] === 0xfd && b[i + 1] === 0x87 && b[i + 2] === 0x02) return true;
          }
          return false;
        };
        self.onmessage = async ({ data: mode }) => {
          WebAssembly.validate = (b) => mode === "no-simd" ? false : !hasRelaxed(b) && validate(b);
          const { GlmModel, gaussianLinearRegression, loadCore, runHmcEcs, summarize } =
            await import("./tallmc.js");
          const arena = loadCore();
          const { data } = gaussianLinearRegression(arena, { n: 5000, d: 3, sigma: 1, seed: 2 });
          const model = new GlmModel(data, { family: "gaussian", sigma: 1, priorScale: 10 });
          const run = runHmcEcs(model, { numWarmup: 150, numSamples: 150, numChains: 1, seed: 1 });
          postMessage({ backend: arena.backend, means: summarize(run.draws).map((r) => r.mean) });
        };`,
      );
      const arena = loadCore();
      const { data, trueCoefficients } = gaussianLinearRegression(arena, {
        n: 5000,
        d: 3,
        sigma: 1,
        seed: 2,
      });
      const expected = runHmcEcs(
        new GlmModel(data, { family: "gaussian", sigma: 1, priorScale: 10 }),
        { numWarmup: 150, numSamples: 150, numChains: 1, seed: 1 },
      );
      const sourceMeans = summarize(expected.draws).map((row) => row.mean);
      for (const [mode, backend] of [["no-relaxed", "simd"], ["no-simd", "reference"]]) {
        const worker = new Worker(new URL(`file://${dir}/fallback_worker.js`), options);
        try {
          const result = await _answer<{ backend: string; means: number[] }>(worker, mode);
          assert.equal(result.backend, backend, mode);
          for (let j = 0; j < 3; j++) {
            // Same seeds, kernels without FMA: rounding differs in the last
            // bits, the posterior (sd ≈ 1/√5000 ≈ 0.014) does not.
            assert.ok(
              Math.abs(result.means[j] - sourceMeans[j]) < 0.01,
              `${mode}: mean ${result.means[j]} vs ${sourceMeans[j]} from the source`,
            );
            assert.ok(Math.abs(result.means[j] - trueCoefficients[j]) < 0.1);
          }
        } finally {
          worker.terminate();
        }
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The first message `worker` sends after receiving `message`, within 30 s. */
function _answer<T>(worker: Worker, message: unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
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
    worker.postMessage(message);
  });
}
