/**
 * Benchmarks of the compute core: fused logistic ℓ + ∇ℓ over rows for each
 * backend, contiguous vs gathered rows, f32 vs f64 storage, the Hessian, the
 * typed layer's overhead over the raw ABI, and control-variate centring of f32
 * data in place vs widened in TypeScript first.
 *
 * d = 30 = 29 features + an intercept column. All backends read the same data
 * in one memory (the reference and the simd build are bound to the memory of
 * the relaxed-simd arena with `bindCore`). Divide time/iter by the rows per
 * call (in each bench name) for ns/row.
 *
 * Run: deno bench --allow-read bench/core_bench.ts
 */

import type { CoreBackend, CoreExports } from "../core/exports.ts";
import { FAMILY_LOGISTIC } from "../core/exports.ts";
import { GlmKernels } from "../core/glm_kernels.ts";
import { availableBackends, bindCore, loadCore } from "../core/load.ts";
import { ControlVariateCache } from "../core/row_buffer.ts";
import { mulberry32 } from "../testing/mulberry32.ts";

const D = 30;
const N = 1_000_000;
const M = 10_000;

const _rng = mulberry32;

const arena = loadCore({ backend: availableBackends()[0], initialBytes: 400 << 20 });
const x = arena.allocF64(N * D);
const x32 = arena.allocF32(N * D);
const y = arena.allocF64(N);
const theta = arena.allocF64(D);
const grad = arena.allocF64(D);
const hess = arena.allocF64(D * D);
const idx = arena.allocI32(M);
{
  const u = _rng(42);
  const th = Array.from({ length: D }, () => (u() - 0.5) * 0.6);
  const xs = arena.f64(x, N * D), xs32 = arena.f32(x32, N * D), ys = arena.f64(y, N);
  for (let i = 0; i < N; i++) {
    let eta = 0;
    for (let j = 0; j < D; j++) {
      const v = j === 0 ? 1 : (u() - 0.5) * 3.4; // intercept + ~unit-variance features
      xs[i * D + j] = v;
      eta += v * th[j];
    }
    ys[i] = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  xs32.set(xs);
  arena.writeF64(theta, th);
  arena.writeI32(idx, Array.from({ length: M }, () => Math.floor(u() * N)));
}

const BACKENDS: CoreBackend[] = ["relaxed-simd", "simd", "reference"].filter((b) =>
  availableBackends().includes(b as CoreBackend)
) as CoreBackend[];
const cores = new Map<CoreBackend, CoreExports>(
  BACKENDS.map((b) => [b, bindCore(arena.memory, b)]),
);

function _ll(core: CoreExports, rows: number): number {
  return core.llRange(FAMILY_LOGISTIC, 0, x, y, D, 0, rows, theta, grad, 0, 0, 0);
}

for (const rows of [100_000, 1_000_000]) {
  for (const b of BACKENDS) {
    const core = cores.get(b)!;
    Deno.bench({
      name: `llRange ll+grad ${b} n=${rows} d=${D}`,
      group: `ll+grad contiguous n=${rows}`,
      baseline: b === "reference",
      n: b === "reference" ? (rows > 100_000 ? 3 : 10) : undefined,
      warmup: b === "reference" ? 1 : undefined,
      fn: () => {
        _ll(core, rows);
      },
    });
  }
}

for (const b of BACKENDS) {
  const core = cores.get(b)!;
  Deno.bench({
    name: `llIdx ll+grad gathered ${b} m=${M} of n=${N}`,
    group: `gathered vs contiguous m=${M}`,
    n: b === "reference" ? 20 : undefined,
    fn: () => {
      core.llIdx(FAMILY_LOGISTIC, 0, x, y, D, idx, M, theta, grad, 0, 0, 0);
    },
  });
  Deno.bench({
    name: `llRange ll+grad contiguous ${b} m=${M}`,
    group: `gathered vs contiguous m=${M}`,
    baseline: b === BACKENDS[0],
    n: b === "reference" ? 20 : undefined,
    fn: () => {
      _ll(core, M);
    },
  });
}

for (const b of BACKENDS.filter((b) => b !== "reference")) {
  const core = cores.get(b)!;
  Deno.bench({
    name: `llRange f64 ${b} n=${N}`,
    group: `f32 vs f64 n=${N}`,
    baseline: b === BACKENDS[0],
    fn: () => {
      _ll(core, N);
    },
  });
  Deno.bench({
    name: `llRangeF32 ${b} n=${N}`,
    group: `f32 vs f64 n=${N}`,
    fn: () => {
      core.llRangeF32(FAMILY_LOGISTIC, 0, x32, y, D, 0, N, theta, grad, 0, 0, 0);
    },
  });
}

for (const b of BACKENDS) {
  const core = cores.get(b)!;
  Deno.bench({
    name: `hessRange ${b} n=${M} d=${D}`,
    group: `hessRange n=${M}`,
    baseline: b === "reference",
    n: b === "reference" ? 5 : undefined,
    warmup: b === "reference" ? 1 : undefined,
    fn: () => {
      core.hessRange(FAMILY_LOGISTIC, 0, x, y, D, 0, M, theta, hess);
    },
  });
}

// ─── the typed layer (core/glm_kernels.ts) over the same memory ─────────────

const kernels = new GlmKernels(arena, { family: "logistic", dim: D });
const data64 = { arena, x, y, numRows: N, numCols: D, storage: "f64" as const };
const data32 = { ...data64, x: x32, storage: "f32" as const };
const thetaArr = arena.readF64(theta, D), gradArr = new Float64Array(D);
const MT = 1000;

Deno.bench({
  name: `raw llRange ll+grad m=${MT}`,
  group: `typed vs raw m=${MT}`,
  baseline: true,
  fn: () => {
    arena.f64(theta, D).set(thetaArr);
    arena.f64(grad, D).fill(0);
    arena.exports.llRange(FAMILY_LOGISTIC, 0, x, y, D, 0, MT, theta, grad, 0, 0, 0);
    gradArr.set(arena.f64(grad, D));
  },
});
Deno.bench({
  name: `GlmKernels.logLikelihood ll+grad m=${MT}`,
  group: `typed vs raw m=${MT}`,
  fn: () => {
    kernels.logLikelihood(data64, thetaArr, { range: { end: MT }, grad: gradArr });
  },
});

const NC = 100_000, CHUNK = 65536;
const cacheNC = new ControlVariateCache(arena, NC);
const cvOld = arena.allocF64(NC * 4), wide = arena.allocF64(CHUNK * D);
const wts = arena.allocF64(CHUNK), vec = arena.allocF64(D);
Deno.bench({
  name: `control-variate centring f32 widened in TS n=${NC}`,
  group: `control-variate centring f32 n=${NC}`,
  baseline: true,
  fn: () => {
    // ControlVariates.recenter before the f32 kernels: widen each chunk, then the f64 kernels
    const core = arena.exports;
    arena.f64(vec, D).fill(0);
    let s = 0;
    for (let start = 0; start < NC; start += CHUNK) {
      const end = Math.min(NC, start + CHUNK), k = end - start, cvp = cvOld + start * 32;
      arena.f64(wide, k * D).set(arena.f32(x32 + start * D * 4, k * D));
      core.cvPrepareRange(FAMILY_LOGISTIC, 0, wide, y + start * 8, D, 0, k, theta, cvp);
      const c = arena.f64(cvp, 4 * k), w = arena.f64(wts, k);
      for (let i = 0; i < k; i++) {
        s += c[4 * i + 1];
        w[i] = c[4 * i + 2];
      }
      core.xtwRange(wide, D, 0, k, wts, vec);
    }
    if (!Number.isFinite(s)) throw new Error("non-finite S");
  },
});
Deno.bench({
  name: `GlmKernels.prepareControlVariates f32 in place n=${NC}`,
  group: `control-variate centring f32 n=${NC}`,
  fn: () => {
    const data = { ...data32, numRows: NC };
    kernels.prepareControlVariates(data, thetaArr, { cache: cacheNC, gradSum: gradArr });
  },
});
