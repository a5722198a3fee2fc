/**
 * Tests of core/windowed_rows.ts: ℓ and ∇ℓ over rows stored as column
 * constants plus windows of deviations agree with the dense kernels to
 * rounding (every cell of every row is covered once), for f32 and f64 X, odd
 * and even d and n, rows with no deviation and rows deviating in every
 * column, the three families, in both WebAssembly builds; the gradient-only
 * pass is the combined pass's gradient bit for bit; and the layout is
 * refused where it does not apply.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import type { Arena } from "../../core/arena.ts";
import { GlmKernels } from "../../core/glm_kernels.ts";
import { WindowedRows } from "../../core/windowed_rows.ts";
import { mulberry32 } from "../../testing/mulberry32.ts";

type Storage = "f64" | "f32";

/**
 * n × d rows: column constants (dyadic, so every deviation is exact in f64),
 * row i deviating in a run of up to 4 columns per block of 10, row 0 in no
 * column and row 1 in every column.
 */
function _data(arena: Arena, n: number, d: number, storage: Storage, family: string, seed: number) {
  const u = mulberry32(seed);
  const dyadic = () => Math.round((u() * 2 - 1) * 256) / 256;
  const c = Array.from({ length: d }, (_, j) => (j === 0 ? 1 : dyadic()));
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) x[i * d + j] = c[j];
    if (i === 1) { for (let j = 0; j < d; j++) x[i * d + j] = dyadic() + 2; }
    else if (i > 1) {
      for (let b = 1; b < d; b += 10) {
        const s = b + Math.floor(u() * 7), len = 1 + Math.floor(u() * 4);
        for (let j = s; j < Math.min(s + len, d); j++) x[i * d + j] = dyadic();
      }
    }
    y[i] = family === "logistic"
      ? (u() < 0.3 ? 1 : 0)
      : family === "poisson"
      ? Math.floor(u() * 4)
      : u() * 2 - 1;
  }
  const xp = storage === "f64" ? arena.allocF64(n * d) : arena.allocF32(n * d);
  if (storage === "f64") arena.writeF64(xp, x);
  else arena.writeF32(xp, x);
  const yp = arena.allocF64(n);
  arena.writeF64(yp, y);
  return { arena, x: xp, y: yp, numRows: n, numCols: d, storage };
}

function _theta(d: number, seed: number): Float64Array {
  const u = mulberry32(seed);
  return Float64Array.from({ length: d }, () => 0.3 * (u() * 2 - 1));
}

Deno.test("WindowedRows: ℓ and ∇ℓ equal the dense kernels' to rounding", () => {
  for (const backend of ["simd", "relaxed-simd"] as const) {
    const arena = loadCore({ backend });
    for (const family of ["logistic", "gaussian", "poisson"] as const) {
      for (const storage of ["f64", "f32"] as const) {
        for (const [n, d] of [[1, 4], [2, 5], [7, 9], [40, 21], [65, 81], [64, 4]]) {
          const what = `${backend} ${family} ${storage} n = ${n} d = ${d}`;
          const data = _data(arena, n, d, storage, family, 7 * n + d);
          const rows = WindowedRows.build(data, {
            family,
            sigma: family === "gaussian" ? 0.7 : undefined,
            maxFraction: 1,
          });
          assert.ok(rows !== null, what);
          const k = new GlmKernels(arena, {
            family,
            dim: d,
            sigma: family === "gaussian" ? 0.7 : undefined,
          });
          for (let t = 0; t < 3; t++) {
            const theta = _theta(d, 100 * t + d);
            const gDense = new Float64Array(d), gWin = new Float64Array(d);
            const dl = new Float64Array(n), perRow = new Float64Array(n);
            const lDense = k.logLikelihood(data, theta, { grad: gDense, perRow, derivative: dl });
            const lWin = rows.logLikelihood(theta, gWin);
            const lScale = perRow.reduce((s, v) => s + Math.abs(v), 0);
            assert.ok(Math.abs(lWin - lDense) <= 1e-13 * lScale + 1e-300, `${what}: ℓ`);
            // |∇ⱼ| is bounded by Σᵢ |ℓ'ᵢ|·max|x|; the entries are at most 3.
            const gScale = dl.reduce((s, v) => s + Math.abs(v), 0) * 3;
            for (let j = 0; j < d; j++) {
              assert.ok(Math.abs(gWin[j] - gDense[j]) <= 1e-13 * gScale, `${what}: ∇${j}`);
            }
            // ℓ alone is the combined pass's ℓ, the gradient-only pass its gradient, bit for bit.
            assert.ok(Object.is(rows.logLikelihood(theta), lWin), `${what}: ℓ alone`);
            const gOnly = rows.gradient(theta, new Float64Array(d));
            for (let j = 0; j < d; j++) assert.ok(Object.is(gOnly[j], gWin[j]), `${what}: ∇ only`);
          }
          rows.dispose();
          k.dispose();
        }
      }
    }
  }
});

Deno.test("WindowedRows.build: refused where the layout does not apply or would not pay", () => {
  const arena = loadCore();
  const data = _data(arena, 50, 31, "f32", "logistic", 3);
  assert.ok(WindowedRows.build(data, { family: "logistic" }) !== null);
  // Families without the kernel, the TypeScript reference backend, fewer than 4 columns.
  assert.equal(WindowedRows.build(data, { family: "binomial" }), null);
  assert.equal(WindowedRows.build(data, { family: "gaussian" }), null, "gaussian without σ");
  const ref = loadCore({ backend: "reference" });
  assert.equal(
    WindowedRows.build(_data(ref, 50, 31, "f32", "logistic", 3), { family: "logistic" }),
    null,
  );
  assert.equal(
    WindowedRows.build(_data(arena, 50, 3, "f64", "logistic", 3), {
      family: "logistic",
      maxFraction: 1,
    }),
    null,
  );
  // Windows holding too many cells (every cell different: no column constant).
  const u = mulberry32(9), n = 200, d = 12;
  const x = arena.allocF64(n * d), y = arena.allocF64(n);
  arena.writeF64(x, Array.from({ length: n * d }, () => u()));
  const dense = { arena, x, y, numRows: n, numCols: d, storage: "f64" as const };
  assert.equal(WindowedRows.build(dense, { family: "logistic" }), null);
  // A deviation that is not exact in f64, and a NaN cell.
  const xv = arena.f64(x, n * d);
  xv.fill(0.5);
  xv[5 * d + 3] = 0.375; // 0.375 − 0.5 is exact: built
  assert.ok(WindowedRows.build(dense, { family: "logistic" }) !== null);
  xv[5 * d + 3] = 1e-30; // 1e-30 − 0.5 is not a double
  assert.equal(WindowedRows.build(dense, { family: "logistic" }), null, "inexact deviation");
  xv[5 * d + 3] = NaN;
  assert.equal(WindowedRows.build(dense, { family: "logistic" }), null, "NaN cell");
  assert.throws(
    () => WindowedRows.build(dense, { family: "logistic", maxFraction: 0 }),
    RangeError,
  );
  assert.throws(() => WindowedRows.build(dense, { family: "logistic", sampleRows: 0 }), RangeError);
});

Deno.test("WindowedRows: disposed layouts refuse to run", () => {
  const arena = loadCore();
  const rows = WindowedRows.build(_data(arena, 20, 21, "f32", "logistic", 5), {
    family: "logistic",
  });
  assert.ok(rows !== null);
  rows.dispose();
  rows.dispose();
  assert.throws(() => rows.logLikelihood(new Float64Array(21)), RangeError);
});
