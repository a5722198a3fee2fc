/**
 * dist/tallmc.js in Chromium, on a page served with and without
 * cross-origin isolation (COOP/COEP): importing it installs no message
 * handler (a `window.postMessage` reaches only the page's own listener), and
 * `sampleParallel` runs two chains in two of the bundled workers when the
 * page is isolated — draws equal to the sequential run's — and in the
 * calling thread with a note when it is not.
 *
 * The package's sub-paths (dist/esm/), which embed no core, on an isolated
 * page: `loadCore()` refuses and names the fix, `loadCoreFrom()` fetches the
 * core from dist/wasm/, and `sampleParallel` hands the compiled module to its
 * two workers; draws equal the sequential run's.
 *
 * Skipped, saying why, when /usr/bin/chromium is missing (`.ci/run`
 * installs it from Debian).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildDist, bundleLibrary } from "../../web/build.ts";
import { REPO_ROOT, serveDirectory } from "../_serve.ts";

const CHROMIUM = "/usr/bin/chromium";

function _hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}
const hasChromium = _hasChromium();
if (!hasChromium) {
  console.log(`embed_chromium_test.ts: skipped: ${CHROMIUM} not found (.ci/run installs it)`);
}

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>tallmc embed check</title>
<body>
<script type="module">
  const result = {};
  try {
    const before = window.onmessage;
    const lib = await import("./tallmc.js");
    result.onmessageUnchanged = window.onmessage === before;
    let heard = 0;
    window.addEventListener("message", () => heard++);
    window.postMessage("ping", "*");
    await new Promise((r) => setTimeout(r, 300));
    result.heard = heard;
    result.isolated = globalThis.crossOriginIsolated;
    const arena = lib.loadCore({ shared: true });
    result.backend = arena.backend;
    const { data } = lib.higgsShaped(arena, { n: 2000, seed: 4 });
    const model = new lib.GlmModel(data, { family: "logistic", priorScale: 5 });
    const base = { sampler: "hmc", seed: 11, numWarmup: 100, numSamples: 50, numChains: 2 };
    const t0 = performance.now();
    const par = await lib.sampleParallel(model, { ...base, workers: 2 });
    result.parallelMs = performance.now() - t0;
    result.workers = par.parallel.workers;
    result.note = par.parallel.note;
    const seq = lib.sample(model, base);
    result.equal = par.draws.length === seq.draws.length &&
      par.draws.every((chain, c) => JSON.stringify(chain) === JSON.stringify(seq.draws[c]));
  } catch (e) {
    result.error = String(e && e.stack || e);
  }
  document.body.dataset.result = JSON.stringify(result);
</script>
`;

interface PageResult {
  onmessageUnchanged?: boolean;
  heard?: number;
  isolated?: boolean;
  backend?: string;
  parallelMs?: number;
  workers?: number;
  note?: string | null;
  equal?: boolean;
  error?: string;
  errors: string[];
}

Deno.test({
  name:
    "[e2e] dist/tallmc.js in Chromium: no handler on import; sampleParallel with and without COOP/COEP",
  ignore: !hasChromium,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "tallmc_chromium_" });
    const isolated = serveDirectory(dir);
    const plain = serveDirectory(dir, 0, { crossOriginIsolated: false });
    try {
      await bundleLibrary(join(dir, "tallmc.js"));
      await Deno.writeTextFile(join(dir, "index.html"), PAGE);
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          "--quiet",
          join(REPO_ROOT, "tests/_embed_chromium_driver.ts"),
          CHROMIUM,
          `${isolated.origin}/index.html`,
          `${plain.origin}/index.html`,
        ],
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(240_000),
      }).output();
      assert.equal(code, 0, new TextDecoder().decode(stderr));
      const [iso, open] = JSON.parse(new TextDecoder().decode(stdout)) as PageResult[];
      for (const [label, r] of [["isolated", iso], ["not isolated", open]] as const) {
        assert.equal(r.error, undefined, `${label}: ${r.error}`);
        assert.deepEqual(r.errors, [], label);
        assert.equal(r.onmessageUnchanged, true, `${label}: importing set window.onmessage`);
        assert.equal(r.heard, 1, `${label}: the page's own listener only`);
        assert.equal(r.equal, true, `${label}: parallel draws differ from the sequential run's`);
        console.log(
          `chromium (${label}): backend ${r.backend}, workers ${r.workers}, ` +
            `sampleParallel ${r.parallelMs?.toFixed(0)} ms`,
        );
      }
      assert.equal(iso.isolated, true);
      assert.equal(iso.workers, 2, String(iso.note));
      assert.equal(iso.note, null);
      assert.equal(open.isolated, false);
      assert.equal(open.workers, 0);
      assert.match(String(open.note), /not cross-origin isolated/);
    } finally {
      await isolated.close();
      await plain.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const SUB_PAGE = `<!doctype html>
<meta charset="utf-8">
<title>tallmc sub-path check</title>
<body>
<script type="module">
  const result = {};
  try {
    const core = await import("./dist/esm/core/mod.js");
    const { GlmModel } = await import("./dist/esm/models/web.js");
    const { higgsShaped } = await import("./dist/esm/data/web.js");
    const { sample, sampleParallel } = await import("./dist/esm/samplers/mod.js");
    try {
      core.loadCore();
      result.refused = "";
    } catch (e) {
      result.refused = String(e.message);
    }
    result.isolated = globalThis.crossOriginIsolated;
    const arena = await core.loadCoreFrom(undefined, { shared: true });
    result.backend = arena.backend;
    const { data } = higgsShaped(arena, { n: 2000, seed: 4 });
    const model = new GlmModel(data, { family: "logistic", priorScale: 5 });
    const base = { sampler: "hmc", seed: 11, numWarmup: 100, numSamples: 50, numChains: 2 };
    const t0 = performance.now();
    const par = await sampleParallel(model, { ...base, workers: 2 });
    result.parallelMs = performance.now() - t0;
    result.workers = par.parallel.workers;
    result.note = par.parallel.note;
    const seq = sample(model, base);
    result.equal = par.draws.length === seq.draws.length &&
      par.draws.every((chain, c) => JSON.stringify(chain) === JSON.stringify(seq.draws[c]));
  } catch (e) {
    result.error = String(e && e.stack || e);
  }
  document.body.dataset.result = JSON.stringify(result);
</script>
`;

Deno.test({
  name:
    "[e2e] dist/esm sub-paths in Chromium: core fetched from dist/wasm/, module sent to 2 workers",
  ignore: !hasChromium,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "tallmc_chromium_sub_" });
    const isolated = serveDirectory(dir);
    try {
      await buildDist(join(dir, "dist"), { types: false });
      await Deno.writeTextFile(join(dir, "sub.html"), SUB_PAGE);
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          "--quiet",
          join(REPO_ROOT, "tests/_embed_chromium_driver.ts"),
          CHROMIUM,
          `${isolated.origin}/sub.html`,
        ],
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(240_000),
      }).output();
      assert.equal(code, 0, new TextDecoder().decode(stderr));
      const [r] = JSON.parse(new TextDecoder().decode(stdout)) as (PageResult & {
        refused?: string;
      })[];
      assert.equal(r.error, undefined, r.error);
      assert.deepEqual(r.errors, []);
      assert.match(
        String(r.refused),
        /does not embed the WebAssembly core.*await loadCoreFrom\(\)/,
      );
      assert.equal(r.isolated, true);
      assert.notEqual(r.backend, "reference");
      assert.equal(r.workers, 2, String(r.note));
      assert.equal(r.equal, true, "parallel draws differ from the sequential run's");
      console.log(
        `chromium (sub-paths): backend ${r.backend} from dist/wasm/, workers ${r.workers}, ` +
          `sampleParallel ${r.parallelMs?.toFixed(0)} ms`,
      );
    } finally {
      await isolated.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
