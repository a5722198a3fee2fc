/**
 * The core's logistic ℓ + ∇ℓ pass (n = 10⁶ rows, d = 30 = 29 features + an
 * intercept, f64, contiguous) beside the same loop in C built by the machine's
 * C compiler (bench/native/logistic_pass.c, gcc -O3 -march=native, with and
 * without -ffast-math, one row and four rows per step), called through Deno's
 * FFI in the same process on the same data: the ratio WASM / native is what
 * this bench is for (absolute times on a shared machine mean little).
 *
 * Before the timed benches it prints that ratio directly: core time / C time
 * per round, the passes alternating (core, C, C, core, …) over 15 rounds, in
 * CPU time of this process (user + system, so that time slices lost to other
 * processes on a shared machine do not count), as the median and the 10th–90th
 * percentiles. Below 1 the core is faster. Deno's own summary that follows
 * says the same thing the other way round ("1.29x faster than C …" is a
 * ratio of 0.78).
 *
 * Without a C compiler the native builds are skipped with the reason printed
 * and only the WASM pass is timed.
 *
 * Run: deno bench --allow-read --allow-write=/tmp --allow-env --allow-sys=loadavg --allow-ffi --allow-run=gcc bench/native_kernel_bench.ts
 */

import { FAMILY_LOGISTIC } from "../core/exports.ts";
import { availableBackends, bindCore, loadCore } from "../core/load.ts";
import { mulberry32 } from "../testing/mulberry32.ts";
import { cpuMs, loadAverage } from "./_measure.ts";

const D = 30;
const N = 1_000_000;
/** Timed passes per Deno.bench entry (each 50–400 ms: the default count would take minutes). */
const BENCH_N = 10;

const _rng = mulberry32;

const backend = availableBackends()[0];
const arena = loadCore({ backend, initialBytes: 300 << 20 });
const x = arena.allocF64(N * D);
const y = arena.allocF64(N);
const theta = arena.allocF64(D);
const grad = arena.allocF64(D);
const hostX = new Float64Array(N * D), hostY = new Float64Array(N);
const hostTheta = new Float64Array(D), hostGrad = new Float64Array(D);
{
  const u = _rng(42);
  for (let j = 0; j < D; j++) hostTheta[j] = (u() - 0.5) * 0.6;
  for (let i = 0; i < N; i++) {
    let eta = 0;
    for (let j = 0; j < D; j++) {
      const v = j === 0 ? 1 : (u() - 0.5) * 3.4;
      hostX[i * D + j] = v;
      eta += v * hostTheta[j];
    }
    hostY[i] = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  arena.f64(x, N * D).set(hostX);
  arena.f64(y, N).set(hostY);
  arena.writeF64(theta, hostTheta);
}
const core = bindCore(arena.memory, backend);
const wasmPass = (): number =>
  core.llRange(FAMILY_LOGISTIC, 0, x, y, D, 0, N, theta, grad, 0, 0, 0);

type Pass = (
  x: Float64Array,
  y: Float64Array,
  n: number,
  d: number,
  theta: Float64Array,
  grad: Float64Array,
) => number;

/** Build the C file with `flags` into /tmp and open it; null (with the reason printed) if it cannot. */
function _native(flags: string[], tag: string): { one: Pass; four: Pass } | null {
  const source = new URL("./native/logistic_pass.c", import.meta.url).pathname;
  const lib = `/tmp/tallmc_logistic_pass_${tag}_${Deno.pid}.so`;
  try {
    const r = new Deno.Command("gcc", {
      args: [...flags, "-shared", "-fPIC", "-o", lib, source, "-lm"],
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    if (!r.success) {
      console.log(`native ${tag}: gcc failed: ${new TextDecoder().decode(r.stderr).trim()}`);
      return null;
    }
  } catch (e) {
    console.log(`native ${tag}: skipped, no C compiler (${(e as Error).message})`);
    return null;
  }
  const sig = {
    parameters: ["buffer", "buffer", "i32", "i32", "buffer", "buffer"],
    result: "f64",
  } as const;
  const h = Deno.dlopen(lib, { logistic_pass: sig, logistic_pass4: sig });
  return { one: h.symbols.logistic_pass, four: h.symbols.logistic_pass4 };
}

const builds = [
  { tag: "O3", flags: ["-O3", "-march=native"] },
  { tag: "O3-fast-math", flags: ["-O3", "-march=native", "-ffast-math"] },
].map((b) => ({ ...b, lib: _native(b.flags, b.tag) }));

// The same sum from every build (round-off apart) before anything is timed.
{
  const wasm = wasmPass();
  for (const b of builds) {
    if (b.lib === null) continue;
    hostGrad.fill(0);
    const c = b.lib.four(hostX, hostY, N, D, hostTheta, hostGrad);
    const rel = Math.abs(c - wasm) / Math.abs(wasm);
    console.log(`native ${b.tag}: Σℓ relative difference to the core ${rel.toExponential(2)}`);
  }
}

// Core time / C time, alternating rounds, CPU time (see the module notes).
{
  const ROUNDS = 15;
  const quantile = (a: number[], q: number) =>
    [...a].sort((u, v) => u - v)[Math.min(a.length - 1, Math.floor(q * a.length))];
  for (const b of builds) {
    if (b.lib === null) continue;
    const lib = b.lib;
    const c = () => lib.four(hostX, hostY, N, D, hostTheta, hostGrad);
    const ratios: number[] = [], core: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const first = r % 2 === 0;
      const a = first ? cpuMs(wasmPass) : 0;
      const t = cpuMs(c);
      const w = first ? a : cpuMs(wasmPass);
      ratios.push(w / t);
      core.push(w);
    }
    console.log(
      `core / C ${b.tag} 4 rows/step (CPU time, ${ROUNDS} alternating rounds): median ${
        quantile(ratios, 0.5).toFixed(3)
      } [p10 ${quantile(ratios, 0.1).toFixed(3)}, p90 ${
        quantile(ratios, 0.9).toFixed(3)
      }]; core pass ${quantile(core, 0.5).toFixed(1)} ms; load average ${loadAverage()}`,
    );
  }
}

Deno.bench({
  name: `core (${backend}) ll+grad n=${N} d=${D}`,
  group: "ll+grad vs native C",
  baseline: true,
  n: BENCH_N,
  warmup: 1,
  fn: () => {
    wasmPass();
  },
});
// The core's gradient alone over the same rows (what HMC's inner leapfrog points run).
Deno.bench({
  name: `core (${backend}) grad only n=${N} d=${D}`,
  group: "ll+grad vs native C",
  n: BENCH_N,
  warmup: 1,
  fn: () => {
    core.gradRange(FAMILY_LOGISTIC, 0, x, y, D, 0, N, theta, grad);
  },
});
for (const b of builds) {
  if (b.lib === null) continue;
  const lib = b.lib;
  Deno.bench({
    name: `C ${b.tag}, 1 row/step`,
    group: "ll+grad vs native C",
    n: BENCH_N,
    warmup: 1,
    fn: () => {
      lib.one(hostX, hostY, N, D, hostTheta, hostGrad);
    },
  });
  Deno.bench({
    name: `C ${b.tag}, 4 rows/step`,
    group: "ll+grad vs native C",
    n: BENCH_N,
    warmup: 1,
    fn: () => {
      lib.four(hostX, hostY, N, D, hostTheta, hostGrad);
    },
  });
}
