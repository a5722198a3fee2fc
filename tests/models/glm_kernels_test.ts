/**
 * The typed core layer (GlmKernels, RowBuffer, ControlVariateCache, scratch),
 * on every backend: f32 storage read in place gives bit for bit the results of
 * f64 storage holding the same (f32-rounded) values, results survive memory
 * growth, and bad arguments are named in the errors.
 *
 * Run: deno test --allow-read tests/models/glm_kernels_test.ts
 */
import assert from "node:assert/strict";
import { GlmRowDifferences } from "../../core/glm_diff.ts";
import { type GlmFamilyName, GlmKernels } from "../../core/glm_kernels.ts";
import { availableBackends, type CoreBackend, loadCore } from "../../core/load.ts";
import { ControlVariateCache, RowBuffer, type StoredGlmData } from "../../core/row_buffer.ts";
import { ScratchF64 } from "../../core/scratch.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { Rng } from "../../random/rng.ts";

const BACKENDS: CoreBackend[] = ["relaxed-simd", "simd", "reference"];
const AVAILABLE = availableBackends();
const FAMILIES: { family: GlmFamilyName; sigma?: number }[] = [
  { family: "logistic" },
  { family: "gaussian", sigma: 1.3 },
  { family: "poisson" },
];

/** X (f32-representable values), y for `family`, θ, θ*; n rows, d columns. */
function _problem(family: GlmFamilyName, n: number, d: number, seed: number) {
  const rng = new Rng(seed);
  const x = new Float64Array(n * d).map(() => Math.fround(rng.normal() / Math.sqrt(d)));
  const theta = rng.fillNormal(new Float64Array(d), { sd: family === "poisson" ? 0.5 : 1 });
  const thetaStar = theta.map((v) => v + 0.1 * rng.normal());
  const y = new Float64Array(n).map((_, i) => {
    let eta = 0;
    for (let j = 0; j < d; j++) eta += x[i * d + j] * theta[j];
    if (family === "logistic") return rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    if (family === "poisson") return rng.poisson(Math.exp(eta));
    return eta + rng.normal();
  });
  return { x, y, theta, thetaStar };
}

/** Everything the typed layer computes for one data set, copied out. */
function _everything(
  kernels: GlmKernels,
  data: StoredGlmData,
  p: ReturnType<typeof _problem>,
) {
  const n = data.numRows, d = kernels.dim, arena = kernels.arena;
  const out: Record<string, number[]> = {};
  const grad = new Float64Array(d), perRow = new Float64Array(n), der = new Float64Array(n);
  out.ll = [kernels.logLikelihood(data, p.theta, { grad, perRow, derivative: der })];
  out.grad = [...grad];
  out.perRow = [...perRow];
  out.derivative = [...der];
  const rows = Int32Array.from({ length: 9 }, (_, k) => (7 * k + 3) % n);
  const g2 = new Float64Array(d), pr2 = new Float64Array(9);
  out.llRows = [
    kernels.logLikelihood(data, p.theta, { rows, grad: g2, perRow: pr2 }),
    ...g2,
    ...pr2,
  ];
  const mid = { start: 1, end: n - 1 };
  out.llRange = [kernels.logLikelihood(data, p.theta, { range: mid })];
  out.hess = [...kernels.hessian(data, p.theta, { out: new Float64Array(d * d), range: mid })];
  out.rowGrads = [...kernels.rowGradients(data, p.theta, { rows, out: new Float64Array(9 * d) })];
  const cache = new ControlVariateCache(arena, n), gradSum = new Float64Array(d);
  out.S = [kernels.prepareControlVariates(data, p.thetaStar, { cache, gradSum, chunkRows: 5 })];
  out.A = [...gradSum];
  out.cache = [...cache.row(0), ...cache.row(n - 1)];
  {
    const buf = new RowBuffer(data, 9);
    buf.gather(rows, 0, cache);
    out.gathered = [...buf.rowValues()];
    for (const order of [0, 1, 2] as const) {
      const s = kernels.controlVariateDifferences(buf, p.theta, { order, start: 1 });
      out[`diff${order}`] = [s, ...buf.diffs(), ...buf.derivatives()];
    }
    buf.weights().set(buf.derivatives());
    out.xtw = [...kernels.weightedRowSum(buf, new Float64Array(d))];
    const sum = new Float64Array(d), sq = new Float64Array(d), outer = new Float64Array(d * d);
    kernels.gradientMoments(buf, p.theta, { sum, sq, outer });
    out.moments = [...sum, ...sq, ...outer];
    kernels.gradientMoments(buf, "derivatives", { sum, sq });
    out.rMoments = [...sum, ...sq];
    kernels.gradientMoments(buf, "derivatives", { sum, start: 2, end: 8 });
    out.rSum = [...sum];
    buf.dispose();
  }
  cache.dispose();
  return out;
}

for (const backend of BACKENDS) {
  const ignore = !AVAILABLE.includes(backend);

  Deno.test(
    `GlmKernels reads f32 X in place, bit for bit like f64 X of the same values [${backend}]`,
    { ignore },
    async (t) => {
      for (const fam of FAMILIES) {
        for (const [n, d] of [[11, 3], [40, 29], [17, 30]] as const) {
          await t.step(`${fam.family} n=${n} d=${d}`, () => {
            const arena = loadCore({ backend, initialBytes: 1 << 16 });
            const p = _problem(fam.family, n, d, 31 * n + d);
            const f64 = glmDataFromArrays(arena, p.x, p.y, { numCols: d });
            const f32 = glmDataFromArrays(arena, p.x, p.y, { numCols: d, storage: "f32" });
            const kernels = new GlmKernels(arena, { ...fam, dim: d });
            assert.deepEqual(_everything(kernels, f32, p), _everything(kernels, f64, p));
            kernels.dispose();
          });
        }
      }
    },
  );

  Deno.test(`GlmKernels gives identical results after memory growth [${backend}]`, {
    ignore,
  }, () => {
    const arena = loadCore({ backend, initialBytes: 1 << 16 });
    const p = _problem("logistic", 50, 7, 3);
    const data = glmDataFromArrays(arena, p.x, p.y, { numCols: 7, storage: "f32" });
    const kernels = new GlmKernels(arena, { family: "logistic", dim: 7 });
    const before = _everything(kernels, data, p);
    const bytes = arena.byteLength;
    const big = arena.allocF64(1 << 20); // forces growth: every old view detaches
    assert.ok(arena.byteLength > bytes);
    assert.deepEqual(_everything(kernels, data, p), before);
    arena.free(big);
    kernels.dispose();
  });
}

for (const backend of BACKENDS) {
  Deno.test(
    `GlmRowDifferences equals two logLikelihood calls, f64 and f32 [${backend}]`,
    { ignore: !AVAILABLE.includes(backend) },
    async (t) => {
      const arena = loadCore({ backend });
      for (const fam of FAMILIES) {
        for (const [n, d] of [[37, 1], [64, 10], [45, 50]]) {
          await t.step(`${fam.family} n=${n} d=${d}`, () => {
            const p = _problem(fam.family, n, d, 11 * n + d);
            const kernels = new GlmKernels(arena, { ...fam, dim: d });
            for (const storage of ["f64", "f32"] as const) {
              const data = glmDataFromArrays(arena, p.x, p.y, { numCols: d, storage });
              const diff = new GlmRowDifferences(kernels, data);
              for (const m of [1, 2, 7, 30]) {
                const rows = Int32Array.from({ length: m }, (_, k) => (13 * k + 5) % n);
                const out = new Float64Array(m), a = new Float64Array(m), b = new Float64Array(m);
                const sum = diff.compute(p.theta, p.thetaStar, rows, out);
                kernels.logLikelihood(data, p.thetaStar, { rows, perRow: a });
                kernels.logLikelihood(data, p.theta, { rows, perRow: b });
                let total = 0;
                for (let k = 0; k < m; k++) {
                  const e = a[k] - b[k], tol = 1e-12 * Math.max(Math.abs(a[k]), Math.abs(b[k]));
                  assert.ok(
                    Math.abs(out[k] - e) <= tol,
                    `${storage} m=${m} row ${k}: ${out[k]} vs ${e}`,
                  );
                  total += out[k];
                }
                assert.ok(Math.abs(sum - total) <= 1e-12 * m * Math.max(1, Math.abs(total)));
                // The kernel keeps llIdx's operation order: in fact bit-identical.
                assert.deepEqual([...out], [...a].map((v, k) => v - b[k]));
              }
              diff.dispose();
            }
            kernels.dispose();
          });
        }
      }
    },
  );
}

Deno.test("GlmRowDifferences refuses extended families and checks its arguments", () => {
  const arena = loadCore({ backend: "reference" });
  const p = _problem("gaussian", 6, 2, 3);
  const data = glmDataFromArrays(arena, p.x, p.y, { numCols: 2 });
  const ext = new GlmKernels(arena, { family: "gaussian-scale", dim: 2 });
  assert.throws(() => new GlmRowDifferences(ext, data), TypeError);
  const kernels = new GlmKernels(arena, { family: "gaussian", sigma: 1, dim: 2 });
  const diff = new GlmRowDifferences(kernels, data);
  const out = new Float64Array(2), th = new Float64Array(2);
  assert.throws(() => diff.compute(th, th, new Int32Array([0, 6]), out), /row index 6/);
  assert.throws(() => diff.compute(th, new Float64Array(3), new Int32Array([0]), out), RangeError);
  assert.throws(() => diff.compute(th, th, new Int32Array(3), out), /out must hold 3/);
});

Deno.test("RowBuffer.gather(), regatherCache() and moveRows() keep rows, cache rows and indices together", () => {
  const arena = loadCore({ backend: "reference" });
  const p = _problem("poisson", 6, 2, 1);
  const data = glmDataFromArrays(arena, p.x, p.y, { numCols: 2, storage: "f32" });
  const kernels = new GlmKernels(arena, { family: "poisson", dim: 2 });
  const cache = new ControlVariateCache(arena, 6);
  kernels.prepareControlVariates(data, p.thetaStar, { cache, gradSum: new Float64Array(2) });
  const buf = new RowBuffer(data, 2);
  buf.ensureCapacity(4); // grows, keeping nothing yet
  buf.gather(new Int32Array([5, 1, 3]), 1, cache);
  assert.deepEqual([...buf.indices], [-1, 5, 1, 3]);
  assert.deepEqual([...buf.rowValues(1, 2)], [p.x[10], p.x[11]]);
  buf.moveRows(1, 0, 3);
  assert.deepEqual([...buf.indices.subarray(0, 3)], [5, 1, 3]);
  assert.deepEqual([...buf.rowValues(0, 1)], [p.x[10], p.x[11]]);
  kernels.prepareControlVariates(data, p.theta, { cache, gradSum: new Float64Array(2) });
  buf.regatherCache(cache, { start: 0, end: 3 });
  // at θ = θ* (the new centre) every difference vanishes
  kernels.controlVariateDifferences(buf, p.theta, { order: 2, start: 0, end: 3 });
  for (const v of buf.diffs(0, 3)) assert.ok(Math.abs(v) < 1e-12, `d = ${v}`);
  const empty = new RowBuffer(data, 2);
  assert.throws(() => empty.regatherCache(cache), /position 0 holds no row/);
  empty.dispose();
  assert.throws(() => buf.gather(new Int32Array([6]), 0), /row index 6 at position 0/);
  assert.throws(() => buf.diffs(0, 5), /not inside the buffer of capacity 4/);
  buf.dispose();
  cache.dispose();
  assert.throws(() => cache.row(0), /disposed/);
});

Deno.test("RowBuffer.gather() of more rows than one chunk copies every row, y and cache row (every backend, f32 and f64)", () => {
  const n = 700, d = 5, k = 600; // 600 rows: three chunks of the gather
  for (const backend of availableBackends()) {
    for (const storage of ["f32", "f64"] as const) {
      const arena = loadCore({ backend });
      const p = _problem("logistic", n, d, 3);
      const data = glmDataFromArrays(arena, p.x, p.y, { numCols: d, storage });
      const kernels = new GlmKernels(arena, { family: "logistic", dim: d });
      const cache = new ControlVariateCache(arena, n);
      kernels.prepareControlVariates(data, p.thetaStar, { cache, gradSum: new Float64Array(d) });
      const rows = new Rng(9).sampleWithReplacement(n, k);
      const all = new RowBuffer(data, k + 3), one = new RowBuffer(data, k + 3);
      all.gather(rows, 3, cache);
      for (let i = 0; i < k; i++) one.gather(rows.subarray(i, i + 1), 3 + i, cache);
      assert.deepEqual([...all.indices.subarray(3)], [...rows]);
      const got = all.rowValues(3, k + 3);
      for (let i = 0; i < k; i++) {
        for (let j = 0; j < d; j++) assert.equal(got[i * d + j], p.x[rows[i] * d + j]);
      }
      // y and the cache rows enter the differences: the same bits as row-by-row gathers
      kernels.controlVariateDifferences(all, p.theta, { order: 2, start: 3, end: k + 3 });
      kernels.controlVariateDifferences(one, p.theta, { order: 2, start: 3, end: k + 3 });
      assert.deepEqual([...all.diffs(3, k + 3)], [...one.diffs(3, k + 3)]);
      assert.ok(all.diffs(3, k + 3).some((v) => v !== 0), `${backend} ${storage}`);
      all.dispose();
      one.dispose();
      cache.dispose();
    }
  }
});

Deno.test("GlmKernels names bad arguments", () => {
  const arena = loadCore({ backend: "reference" });
  const p = _problem("logistic", 4, 2, 2);
  const data = glmDataFromArrays(arena, p.x, p.y, { numCols: 2 });
  assert.throws(
    () => new GlmKernels(arena, { family: "probit" as GlmFamilyName, dim: 2 }),
    { name: "TypeError", message: /family must be .* got "probit"/ },
  );
  assert.throws(() => new GlmKernels(arena, { family: "gaussian", dim: 2 }), /sigma must be/);
  const k = new GlmKernels(arena, { family: "logistic", dim: 2 });
  const rows = new Int32Array([0, 4]);
  assert.throws(() => k.logLikelihood(data, p.theta, { rows }), /row index 4 at position 1/);
  assert.throws(
    () => k.logLikelihood(data, p.theta, { rows, range: {} }),
    /either rows or range/,
  );
  assert.throws(() => k.logLikelihood(data, new Float64Array(3)), /theta must be .* length 3/);
  assert.throws(
    () => k.hessian(data, p.theta, { out: new Float64Array(4), range: { end: 5 } }),
    /\[0, 5\)/,
  );
  k.dispose();
});

Deno.test("ScratchF64.view() is re-derived after memory growth", () => {
  const arena = loadCore({ backend: "reference", initialBytes: 1 << 16 });
  const s = new ScratchF64(arena, 4);
  s.view().set([1, 2, 3, 4]);
  const old = s.view();
  arena.allocF64(1 << 18);
  assert.equal(old.length, 0); // detached by the growth
  assert.deepEqual([...s.view(1, 3)], [2, 3]);
  s.ensure(100); // a new, zeroed block
  assert.equal(s.capacity, 100);
  assert.equal(s.view()[0], 0);
  s.dispose();
  assert.equal(s.capacity, 0);
});
