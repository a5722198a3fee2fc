/**
 * The package of `deno task dist` in other runtimes: its layout and size
 * budget, then a logistic regression (HMC-ECS) sampled in system Node from
 * the packed tarball installed into a fresh project, in Bun from the same
 * install, and in workerd (the Cloudflare Workers runtime) from a fetch
 * handler that loads the core from the precompiled `.wasm` modules. Each run
 * is compared with the same run in Deno: the posterior means must lie within
 * 4 posterior sd of the generating coefficients and, with the same backend,
 * equal Deno's bit for bit.
 *
 * Bun and workerd come from npm (`bun`, `@cloudflare/workerd-linux-64`),
 * installed once under /tmp/tallmc-runtimes; a runtime that cannot be
 * installed (offline, no npm) or run is skipped with the reason printed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { GlmModel, higgsShaped, loadCore, runHmcEcs, summarize } from "../../mod.ts";
import { buildDist, closureBytes, DIST_ENTRIES, type DistReport } from "../../web/build.ts";

const CACHE = "/tmp/tallmc-runtimes";
/** The run every runtime makes: n rows of the Higgs-shaped logistic regression. */
const RUN = { n: 10_000, seed: 1, numWarmup: 200, numSamples: 200 };

interface RunResult {
  backend: string;
  means: number[];
  sds: number[];
  mcse: number[];
  truth: number[];
  math: number[];
}

const _deno = new Map<string, RunResult>();

/** The run in Deno from the sources, with `backend`. */
function denoRun(backend: "relaxed-simd" | "simd" | "reference"): RunResult {
  let r = _deno.get(backend);
  if (r === undefined) {
    const arena = loadCore({ backend });
    const { data, trueCoefficients } = higgsShaped(arena, { n: RUN.n, seed: RUN.seed });
    const model = new GlmModel(data, { family: "logistic", priorScale: 10 });
    const run = runHmcEcs(model, {
      numWarmup: RUN.numWarmup,
      numSamples: RUN.numSamples,
      numChains: 1,
      seed: 1,
    });
    const rows = summarize(run.draws);
    r = {
      backend,
      means: rows.map((row) => row.mean),
      sds: rows.map((row) => row.sd),
      mcse: rows.map((row) => row.mcseMean),
      truth: Array.from(trueCoefficients),
      math: _mathFingerprint(),
    };
    _deno.set(backend, r);
  }
  return r;
}

/**
 * The JavaScript Math results the samplers' own arithmetic depends on (the
 * kernels run in WebAssembly, which is exactly specified; Math functions
 * are not, and engines differ in the last bit).
 */
const MATH_FINGERPRINT_JS = `
export function mathFingerprint() {
  const out = [];
  for (let k = 1; k <= 64; k++) {
    const x = Math.sin(k * 12.9898) * 43.758 + k / 7;
    out.push(Math.sin(x), Math.cos(x), Math.tan(x / 50), Math.exp(x / 4), Math.expm1(x / 40),
      Math.log(Math.abs(x) + 1e-3), Math.log1p(Math.abs(x)), Math.pow(Math.abs(x) + 0.5, 0.37),
      Math.atan2(x, k), Math.tanh(x / 9), Math.sqrt(Math.abs(x)), Math.cbrt(x), Math.hypot(x, k));
  }
  return out;
}
`;

const _mathFingerprint = (await import(
  `data:application/javascript,${encodeURIComponent(MATH_FINGERPRINT_JS)}`
)).mathFingerprint as () => number[];

/** The sampling code each runtime runs, given the package's namespace and an arena. */
const SAMPLE_JS = `${MATH_FINGERPRINT_JS}
export function sampleLogistic(tallmc, arena) {
  const { GlmModel, higgsShaped, runHmcEcs, summarize } = tallmc;
  const { data, trueCoefficients } = higgsShaped(arena, { n: ${RUN.n}, seed: ${RUN.seed} });
  const model = new GlmModel(data, { family: "logistic", priorScale: 10 });
  const run = runHmcEcs(model, {
    numWarmup: ${RUN.numWarmup}, numSamples: ${RUN.numSamples}, numChains: 1, seed: 1,
  });
  const rows = summarize(run.draws);
  return {
    backend: arena.backend,
    means: rows.map((r) => r.mean),
    sds: rows.map((r) => r.sd),
    mcse: rows.map((r) => r.mcseMean),
    truth: Array.from(trueCoefficients),
    math: mathFingerprint(),
  };
}
`;

/** Node and Bun: import every sub-path, then sample with the package's default core. */
const NODE_RUNNER = `
import * as tallmc from "tallmc";
import * as single from "tallmc/bundle";
import { sampleLogistic } from "./sample.mjs";
const before = globalThis.onmessage;
for (const p of ${JSON.stringify(Object.keys(DIST_ENTRIES).map((k) => `tallmc${k.slice(1)}`))}) {
  await import(p);
}
if (globalThis.onmessage !== before) throw new Error("importing tallmc set onmessage");
const t0 = performance.now();
const result = sampleLogistic(tallmc, tallmc.loadCore());
const ms = performance.now() - t0;
// The sub-paths embed no core: loadCore() names the fix, loadCoreFrom()
// reads the package's wasm/ file, and the same run gives the same draws.
const core = await import("tallmc/core");
let refused = "";
try {
  core.loadCore();
} catch (e) {
  refused = e.message;
}
const { GlmModel } = await import("tallmc/models");
const { higgsShaped } = await import("tallmc/data");
const { runHmcEcs } = await import("tallmc/hmc-ecs");
const { summarize } = await import("tallmc/diagnostics");
const parts = { GlmModel, higgsShaped, runHmcEcs, summarize };
const sub = sampleLogistic(parts, await core.loadCoreFrom());
console.log(JSON.stringify({
  ...result, ms, single: single.loadCore().backend, refused,
  subBackend: sub.backend, subMeans: sub.means,
}));
`;

/** workerd: a fetch handler that loads the core from the precompiled module it was given. */
const WORKERD_HANDLER = `
import * as tallmc from "./tallmc.js";
import relaxed from "./tallmc-relaxed-simd.wasm";
import simd from "./tallmc-simd.wasm";
import { sampleLogistic } from "./sample.mjs";
export default {
  async fetch(request) {
    const core = new URL(request.url).searchParams.get("core");
    try {
      const arena = core === "bytes" ? tallmc.loadCore()
        : core === "fallback" ? tallmc.loadCore({ ifCompileForbidden: "reference", onNote() {} })
        : tallmc.loadCore({ wasm: core === "simd" ? simd : relaxed });
      return Response.json(sampleLogistic(tallmc, arena));
    } catch (e) {
      return Response.json({ error: String(e && e.message) });
    }
  },
};
`;

/** Runs `cmd`; its stdout, or throws with its stderr. */
async function _run(cmd: string, args: string[], cwd: string, timeoutMs = 120_000) {
  const { code, stdout, stderr } = await new Deno.Command(cmd, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(timeoutMs),
  }).output();
  const out = new TextDecoder().decode(stdout), err = new TextDecoder().decode(stderr);
  if (code !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${code}):\n${err}${out}`);
  return out;
}

async function _exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** An npm package installed under CACHE/name; the path of `bin`, or why it is not there. */
async function _npmTool(
  name: string,
  pkg: string,
  bin: string,
): Promise<string | { skip: string }> {
  const dir = join(CACHE, name), path = join(dir, bin);
  if (await _exists(path)) return path;
  try {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(join(dir, "package.json"), '{ "private": true }\n');
    await _run("npm", ["install", "--no-audit", "--no-fund", "--no-save", pkg], dir, 300_000);
  } catch (e) {
    return { skip: `npm install ${pkg} failed (offline?): ${String(e).split("\n")[0]}` };
  }
  return (await _exists(path)) ? path : { skip: `npm install ${pkg} gave no ${bin}` };
}

function _checkRun(label: string, got: RunResult): string {
  assert.equal(got.means.length, got.truth.length, label);
  for (let j = 0; j < got.means.length; j++) {
    assert.ok(
      Math.abs(got.means[j] - got.truth[j]) < 4 * got.sds[j],
      `${label}: coefficient ${j}: mean ${got.means[j]}, generating ${got.truth[j]}, sd ${
        got.sds[j]
      }`,
    );
  }
  const deno = denoRun(got.backend as "relaxed-simd" | "simd" | "reference");
  const sameMath = got.math.every((v, i) => Object.is(v, deno.math[i]));
  if (sameMath) {
    // Same kernels, same Math: the same draws, bit for bit.
    assert.deepEqual(got.means, deno.means, `${label}: means differ from Deno's (${got.backend})`);
    return "draws identical to Deno's";
  }
  // Math differs in the last bits, so the chains diverge: two runs of the same
  // sampler, whose means differ by Monte Carlo error only.
  for (let j = 0; j < got.means.length; j++) {
    const se = Math.hypot(got.mcse[j], deno.mcse[j]);
    assert.ok(
      Math.abs(got.means[j] - deno.means[j]) < 5 * se,
      `${label}: coefficient ${j}: mean ${got.means[j]} vs Deno's ${deno.means[j]} (MCSE ${se})`,
    );
  }
  const differ = got.math.filter((v, i) => !Object.is(v, deno.math[i])).length;
  return `its Math differs from Deno's in ${differ} of ${got.math.length} probe values: ` +
    `draws differ, means agree within 5 MCSE`;
}

Deno.test("[e2e] the dist package: layout, size budget, and sampling in Node, Bun and workerd", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_dist_" });
  try {
    const dist = join(dir, "dist");
    const report: DistReport = await buildDist(dist);
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
    console.log(
      Object.entries(report.entryBytes).map(([p, b]) => `tallmc${p.slice(1)}: ${kb(b)}`).join(", "),
    );

    await t.step("package.json maps every sub-path to a built file; size budget", async () => {
      const pkg = JSON.parse(await Deno.readTextFile(join(dist, "package.json")));
      assert.equal(pkg.type, "module");
      type Target = string | { types: string; default: string };
      const { exports: exportsMap } = pkg as { exports: Record<string, Target> };
      for (const [path, target] of Object.entries(exportsMap)) {
        if (path.includes("*")) continue;
        const files = typeof target === "string" ? [target] : [target.types, target.default];
        for (const f of files) assert.ok(await _exists(join(dist, f)), `${path} → ${f} is missing`);
      }
      for (const w of ["tallmc-simd.wasm", "tallmc-relaxed-simd.wasm"]) {
        assert.ok(WebAssembly.validate(await Deno.readFile(join(dist, "wasm", w))), w);
      }
      assert.ok(
        report.entryBytes["./diagnostics"] <= 35 * 1024,
        `tallmc/diagnostics loads ${report.entryBytes["./diagnostics"]} bytes, budget 35 KiB`,
      );
      // GLM + HMC-ECS + summarize: the modules a page imports for that job
      // (tallmc/models, tallmc/hmc-ecs, tallmc/diagnostics, and tallmc/core for
      // loadCoreFrom) and every chunk they import, each once, minified. The
      // core's .wasm file (139 or 146 KiB, fetched by loadCoreFrom) and the
      // worker bundles are not counted: they are not part of the import.
      const glmJob = await closureBytes(
        ["./models", "./hmc-ecs", "./diagnostics", "./core"].map((p) =>
          join(dist, "esm", DIST_ENTRIES[p].replace(/\.ts$/, ".js"))
        ),
      );
      console.log(`GLM + HMC-ECS + summarize: ${kb(glmJob)}`);
      assert.ok(
        glmJob <= 350 * 1024,
        `GLM + HMC-ECS + summarize loads ${glmJob} bytes, budget 350 KiB`,
      );
      // No sub-path carries the embedded builds (their base64 is ≈ 390 KiB).
      for await (const f of _walk(join(dist, "esm"))) {
        assert.doesNotMatch(await Deno.readTextFile(f), /AGFzbQ[A-Za-z0-9+/]{1000}/, f);
      }
    });

    await t.step("browser entry points hold no file access and no `using`", async () => {
      for (const path of Object.keys(DIST_ENTRIES)) {
        const file = join(dist, "esm", DIST_ENTRIES[path].replace(/\.ts$/, ".js"));
        assert.ok((await closureBytes(file)) > 0);
        const text = await _closureText(file);
        assert.doesNotMatch(
          text,
          /\bDeno\.(open|readFile|readTextFile|writeFile|stat|remove)/,
          path,
        );
      }
      for await (const f of Deno.readDir(join(dist, "esm"))) {
        if (!f.name.endsWith(".js")) continue;
        const text = await Deno.readTextFile(join(dist, "esm", f.name));
        assert.doesNotMatch(text, /\b(await\s+)?using\s+[A-Za-z_$][\w$]*\s*=/, f.name);
      }
    });

    // Node: the packed package in a fresh project.
    const project = join(dir, "project");
    let nodeSkip: string | null = null;
    try {
      await _run("node", ["--version"], dir);
    } catch {
      nodeSkip = "node is not installed";
    }
    await t.step({
      name: "Node: npm install of the packed tarball, import every sub-path, sample",
      ignore: nodeSkip !== null,
      fn: async () => {
        const tgz = (await _run("npm", ["pack", "--silent", "--pack-destination", dir], dist))
          .trim().split("\n").pop()!;
        await Deno.mkdir(project);
        await Deno.writeTextFile(
          join(project, "package.json"),
          '{ "name": "consumer", "private": true, "type": "module" }\n',
        );
        await _run(
          "npm",
          ["install", "--offline", "--no-audit", "--no-fund", join(dir, tgz)],
          project,
        );
        await Deno.writeTextFile(join(project, "sample.mjs"), SAMPLE_JS);
        await Deno.writeTextFile(join(project, "run.mjs"), NODE_RUNNER);
        const t0 = performance.now();
        const got = JSON.parse(await _run("node", ["run.mjs"], project));
        const wall = performance.now() - t0;
        console.log(
          `node ${(await _run("node", ["--version"], dir)).trim()}: backend ${got.backend}, ` +
            `sampling ${got.ms.toFixed(0)} ms, process ${wall.toFixed(0)} ms`,
        );
        assert.equal(got.single, got.backend, "the single-file bundle picks the same backend");
        _checkSubPaths("node", got);
        console.log(`node: ${_checkRun("node", got)}`);
        if (report.typesNote === null) {
          console.log("skipped the type check: dist/ has no types (the compiler did not run)");
        } else await _checkTypes(project);
      },
    });
    if (nodeSkip !== null) console.log(`skipped Node: ${nodeSkip}`);

    const bun = nodeSkip === null
      ? await _npmTool("bun", "bun@1.4.5", "node_modules/.bin/bun")
      : { skip: "needs the Node project" };
    await t.step({
      name: "Bun: the same install, import every sub-path, sample",
      ignore: typeof bun !== "string",
      fn: async () => {
        const t0 = performance.now();
        const got = JSON.parse(await _run(bun as string, ["run.mjs"], project));
        const wall = performance.now() - t0;
        const version = (await _run(bun as string, ["--version"], project)).trim();
        console.log(
          `bun ${version}: backend ${got.backend}, sampling ${got.ms.toFixed(0)} ms, ` +
            `process ${wall.toFixed(0)} ms`,
        );
        console.log(`bun: ${_checkRun("bun", got)}`);
        _checkSubPaths("bun", got);
      },
    });
    if (typeof bun !== "string") console.log(`skipped Bun: ${bun.skip}`);

    const workerd = await _npmTool(
      "workerd",
      "@cloudflare/workerd-linux-64@1.20261117.1",
      "node_modules/@cloudflare/workerd-linux-64/bin/workerd",
    );
    await t.step({
      name: "workerd: a fetch handler samples with the precompiled .wasm modules",
      ignore: typeof workerd !== "string",
      fn: () => _workerd(workerd as string, dist, join(dir, "workerd")),
    });
    if (typeof workerd !== "string") console.log(`skipped workerd: ${workerd.skip}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * The sub-paths' run: sync loadCore() refused with the fix named, and
 * loadCoreFrom() found the same build the single-file bundle picked, so the
 * draws are the bundle's.
 */
function _checkSubPaths(
  runtime: string,
  got: {
    backend: string;
    means: number[];
    refused: string;
    subBackend: string;
    subMeans: number[];
  },
): void {
  assert.match(got.refused, /does not embed the WebAssembly core.*await loadCoreFrom\(\)/, runtime);
  assert.equal(got.subBackend, got.backend, `${runtime}: loadCoreFrom() picks the bundle's build`);
  assert.deepEqual(got.subMeans, got.means, `${runtime}: sub-paths and bundle give the same draws`);
  console.log(`${runtime}: sub-paths loaded the ${got.subBackend} core from wasm/, same means`);
}

async function* _walk(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) yield* _walk(p);
    else if (e.name.endsWith(".js")) yield p;
  }
}

/**
 * The installed package's declarations type a consumer's TypeScript: a
 * correct file compiles, and a wrong one fails on the line that misuses a
 * return type (so the types are not `any`).
 */
async function _checkTypes(project: string): Promise<void> {
  const good = `import { essBulk } from "tallmc/diagnostics";
import { loadCore } from "tallmc/core";
import { GlmModel } from "tallmc";
const ess: number = essBulk([[0.1, 0.5, 0.2, 0.9, 0.4, 0.3, 0.8, 0.6]]);
const backend: "relaxed-simd" | "simd" | "reference" = loadCore().backend;
export const used = [ess, backend, GlmModel];
`;
  const bad = `import { essBulk } from "tallmc/diagnostics";
export const wrong: string = essBulk([[0.1, 0.5, 0.2, 0.9]]);
`;
  await Deno.writeTextFile(join(project, "good.ts"), good);
  await Deno.writeTextFile(join(project, "bad.ts"), bad);
  const tsc = async (file: string) => {
    const { code, stdout } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-config",
        "--no-lock",
        "--quiet",
        "--allow-read",
        "--allow-env",
        "--allow-sys",
        "npm:typescript@5.9.3/bin/tsc",
        "--noEmit",
        "--strict",
        "--skipLibCheck",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--target",
        "es2022",
        "--lib",
        "es2023,dom",
        file,
      ],
      cwd: project,
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(180_000),
    }).output();
    return { code, out: new TextDecoder().decode(stdout) };
  };
  const ok = await tsc("good.ts");
  if (ok.code !== 0 && !/error TS/.test(ok.out)) {
    console.log("skipped the type check: the TypeScript compiler did not run (offline?)");
    return;
  }
  assert.equal(ok.code, 0, `tsc on a correct consumer:\n${ok.out}`);
  const wrong = await tsc("bad.ts");
  assert.notEqual(wrong.code, 0, "tsc accepted a misuse of essBulk's return type");
  assert.match(wrong.out, /bad\.ts\(2,14\): error TS2322/);
  console.log("node: the package's .d.ts types a consumer (tsc, nodenext resolution)");
}

async function _closureText(file: string): Promise<string> {
  const seen = new Set<string>();
  let text = "";
  const visit = async (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    const t = await Deno.readTextFile(f);
    text += t;
    for (const m of t.matchAll(/(?:from|import)\s*["'](\.[^"']+)["']/g)) {
      await visit(join(f, "..", m[1]));
    }
  };
  await visit(file);
  return text;
}

/** CPU time (user + system) of process `pid` so far, in ms (Linux /proc, 100 ticks per second). */
async function _cpuMs(pid: number): Promise<number> {
  // Read by `cat`: Deno grants /proc only with --allow-all, the test has --allow-run.
  const stat = await _run("cat", [`/proc/${pid}/stat`], "/");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime (fields 14, 15)
}

async function _workerd(bin: string, dist: string, dir: string): Promise<void> {
  await Deno.mkdir(dir);
  for (const f of ["tallmc.js", "wasm/tallmc-simd.wasm", "wasm/tallmc-relaxed-simd.wasm"]) {
    await Deno.copyFile(join(dist, f), join(dir, f.replace("wasm/", "")));
  }
  await Deno.writeTextFile(join(dir, "sample.mjs"), SAMPLE_JS);
  await Deno.writeTextFile(join(dir, "worker.js"), WORKERD_HANDLER);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await Deno.writeTextFile(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .w) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const w :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "sample.mjs", esModule = embed "sample.mjs"),
    (name = "tallmc.js", esModule = embed "tallmc.js"),
    (name = "tallmc-simd.wasm", wasm = embed "tallmc-simd.wasm"),
    (name = "tallmc-relaxed-simd.wasm", wasm = embed "tallmc-relaxed-simd.wasm"),
  ],
  compatibilityDate = "2024-09-01",
);
`,
  );
  const child = new Deno.Command(bin, {
    args: ["serve", "config.capnp"],
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const get = async (core: string) => {
      for (let attempt = 0;; attempt++) {
        try {
          const t0 = performance.now();
          const res = await fetch(`http://127.0.0.1:${port}/?core=${core}`);
          const body = await res.json();
          return { body, ms: performance.now() - t0 };
        } catch (e) {
          if (attempt >= 100) throw e;
          await new Promise((r) => setTimeout(r, 100)); // the server is starting
        }
      }
    };
    const bytes = await get("bytes");
    assert.match(String(bytes.body.error), /does not compile WebAssembly from bytes/);
    assert.match(String(bytes.body.error), /loadCore\(\{ wasm: module \}\)/);
    // Before any module is provided (the isolate remembers one).
    const fallback = await get("fallback");
    assert.equal(fallback.body.backend, "reference");
    console.log(`workerd: fallback backend reference, request ${fallback.ms.toFixed(0)} ms`);
    console.log(`workerd fallback: ${_checkRun("workerd fallback", fallback.body)}`);
    for (const core of ["relaxed-simd", "simd"]) {
      // CPU time: the workerd process's (all threads, from /proc) over each
      // request; the first runs cold, the next two warm.
      const cpu: number[] = [];
      let first: { body: RunResult & { error?: string }; ms: number } | null = null;
      for (let k = 0; k < 3; k++) {
        const before = await _cpuMs(child.pid);
        const got = await get(core);
        cpu.push((await _cpuMs(child.pid)) - before);
        first ??= got;
        assert.equal(got.body.error, undefined, String(got.body.error));
        assert.deepEqual(got.body.means, first.body.means, "a repeated request gives other draws");
      }
      const { body, ms } = first!;
      assert.equal(body.backend, core);
      console.log(
        `workerd: backend ${body.backend}, request ${ms.toFixed(0)} ms, ` +
          `CPU ${cpu.map((c) => c.toFixed(0)).join(", ")} ms (first, then warm)`,
      );
      console.log(`workerd ${core}: ${_checkRun(`workerd ${core}`, body)}`);
    }
  } finally {
    child.kill();
    await child.stderr.cancel();
    await child.status;
  }
}
