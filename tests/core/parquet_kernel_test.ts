/**
 * Tests of core/parquet_kernel.ts: the core's column-to-row kernel gives
 * the rows, statistics and check outcome of the scalar definition (the
 * TypeScript pass of data/parquet_chunks.ts), bit for bit, for f32, f64 and
 * INT32 columns into f32 and f64 rows, over several slices and any number of
 * columns.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { ParquetTransposer } from "../../core/parquet_kernel.ts";
import { Rng } from "../../random/rng.ts";

const F32_MAX = 3.4028234663852886e38, F32_MIN_NORMAL = 1.1754943508222875e-38;

/** The definition: rows, then per column in row order min, max, sum, hash; ok flag. */
function _scalar(
  cols: (Float64Array | Float32Array | Int32Array)[],
  n: number,
  f64: boolean,
  minAbs: number,
  maxAbs: number,
) {
  const d = cols.length;
  const x = f64 ? new Float64Array(n * d) : new Float32Array(n * d);
  const lo = new Float64Array(d).fill(Infinity), hi = new Float64Array(d).fill(-Infinity);
  const sum = new Float64Array(d), h = new Int32Array(d).fill(0x811c9dc5 | 0);
  const cell = new Float64Array(1), bits = new Int32Array(cell.buffer);
  let ok = true;
  for (let k = 0; k < d; k++) {
    for (let i = 0; i < n; i++) {
      const v = cols[k][i], a = Math.abs(v);
      if (!(a <= maxAbs) || (a < minAbs && a !== 0)) ok = false;
      if (v < lo[k]) lo[k] = v;
      if (v > hi[k]) hi[k] = v;
      sum[k] += v;
      cell[0] = v;
      h[k] = (Math.imul(h[k] ^ bits[1], 0x01000193) + bits[0]) | 0;
      x[i * d + k] = v;
    }
  }
  return { x, lo, hi, sum, h, ok };
}

function _column(rng: Rng, n: number, kind: number) {
  const c = kind === 0 ? new Float32Array(n) : kind === 1 ? new Float64Array(n) : new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const u = rng.uniform();
    // Signed zeros, ties and repeats among ordinary values.
    c[i] = u < 0.05 ? -0 : u < 0.1 ? 0 : u < 0.15 ? 1 : rng.normal() * 10 ** (rng.int(9) - 4);
  }
  return c;
}

const _bits = (a: Float64Array | Float32Array) =>
  new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

Deno.test("ParquetTransposer: the rows, statistics and checks of the scalar pass, bit for bit", async (t) => {
  const arena = loadCore({ backend: "simd" });
  const rng = new Rng(3);
  for (const d of [1, 3, 4, 5, 8, 11]) {
    for (const kinds of ["f32", "f64", "mixed"] as const) {
      for (const f64 of [false, true]) {
        await t.step(`d = ${d}, ${kinds} columns, ${f64 ? "f64" : "f32"} rows`, () => {
          const tr = ParquetTransposer.create(arena, d);
          assert.ok(tr !== null, "the simd arena has the kernel");
          const n = 2 * 8192 + 77;
          const cols = Array.from(
            { length: d },
            (_, k) => _column(rng, n + 5, kinds === "f32" ? 0 : kinds === "f64" ? 1 : k % 3),
          );
          const [minAbs, maxAbs] = f64 ? [0, 1e100] : [F32_MIN_NORMAL, F32_MAX];
          const want = _scalar(cols, n, f64, minAbs, maxAbs);
          const xPtr = f64 ? arena.allocF64(n * d) : arena.allocF32(n * d);
          const lo = new Float64Array(d).fill(Infinity), hi = new Float64Array(d).fill(-Infinity);
          const sum = new Float64Array(d), h = new Int32Array(d).fill(0x811c9dc5 | 0);
          // In two calls (row groups), as the reader makes them.
          const half = 9000, w = f64 ? 8 : 4;
          const first = cols.map((c) => c.subarray(0, half));
          const rest = cols.map((c) => c.subarray(half));
          let ok = tr.run(first, half, xPtr, f64, lo, hi, sum, h, minAbs, maxAbs);
          ok = tr.run(rest, n - half, xPtr + half * d * w, f64, lo, hi, sum, h, minAbs, maxAbs) &&
            ok;
          const x = f64 ? arena.f64(xPtr, n * d) : arena.f32(xPtr, n * d);
          assert.deepEqual(_bits(x), _bits(want.x));
          assert.deepEqual(_bits(lo), _bits(want.lo));
          assert.deepEqual(_bits(hi), _bits(want.hi));
          assert.deepEqual(_bits(sum), _bits(want.sum));
          assert.deepEqual(h, want.h);
          assert.equal(ok, want.ok);
          arena.free(xPtr);
          tr.dispose();
        });
      }
    }
  }
  await t.step("a bad cell anywhere is reported", () => {
    const d = 6, n = 20_000;
    const tr = ParquetTransposer.create(arena, d)!;
    const xPtr = arena.allocF32(n * d);
    const cases: [number, number, boolean][] = [
      [NaN, 0, false],
      [Infinity, 1, true],
      [1e39, 2, false],
      [1e-40, 3, false],
      [-1e-45, 5, false],
      [1e101, 4, true],
      [1e101, 4, false],
    ];
    for (const [v, k, f64] of cases) {
      const cols = Array.from({ length: d }, () => new Float64Array(n).fill(0.5));
      cols[k][n - 3] = v;
      const [minAbs, maxAbs] = f64 ? [0, 1e100] : [F32_MIN_NORMAL, F32_MAX];
      const s = () => new Float64Array(d);
      const ok = tr.run(cols, n, xPtr, false, s(), s(), s(), new Int32Array(d), minAbs, maxAbs);
      assert.equal(ok, false, `${v} in column ${k}`);
      assert.equal(_scalar(cols, n, f64, minAbs, maxAbs).ok, false);
    }
    arena.free(xPtr);
    tr.dispose();
  });
  await t.step("f32 columns: a bad cell is reported wherever it lies, a good edge passes", () => {
    // f32 columns take the lanes kernel (checks by the bits of |v|): every cell kind at the
    // bounds, in a four-row block and in the rows after the last block, in each column of a
    // quadruple and in the column after the quadruples.
    const d = 5, n = 1031;
    const tr = ParquetTransposer.create(arena, d)!;
    const xPtr = arena.allocF64(n * d);
    const sub = 1e-40, tiny = F32_MIN_NORMAL;
    const values = [NaN, -NaN, Infinity, -Infinity, sub, -sub, 1e-45, tiny, -tiny, F32_MAX, -0, 0];
    for (const v of values) {
      for (const f64 of [false, true]) {
        for (const row of [0, 514, n - 2]) {
          for (const k of [0, 3, 4]) {
            const cols = Array.from({ length: d }, () => new Float32Array(n).fill(0.5));
            cols[k][row] = v;
            const [minAbs, maxAbs] = f64 ? [0, 1e100] : [F32_MIN_NORMAL, F32_MAX];
            const s = () => new Float64Array(d);
            const ok = tr.run(cols, n, xPtr, f64, s(), s(), s(), new Int32Array(d), minAbs, maxAbs);
            const want = _scalar(cols, n, f64, minAbs, maxAbs).ok;
            assert.equal(ok, want, `${v} at row ${row}, column ${k}, ${f64 ? "f64" : "f32"} rows`);
          }
        }
      }
    }
    // The outcomes themselves: a subnormal fails only into f32 rows; ±∞ and NaN always.
    const one = (v: number, f64: boolean) => {
      const cols = Array.from({ length: d }, () => new Float32Array(8).fill(1));
      cols[2][5] = v;
      const [minAbs, maxAbs] = f64 ? [0, 1e100] : [F32_MIN_NORMAL, F32_MAX];
      const s = () => new Float64Array(d);
      return tr.run(cols, 8, xPtr, f64, s(), s(), s(), new Int32Array(d), minAbs, maxAbs);
    };
    assert.equal(one(sub, false), false);
    assert.equal(one(sub, true), true);
    assert.equal(one(tiny, false), true);
    assert.equal(one(Infinity, true), false);
    assert.equal(one(NaN, false), false);
    arena.free(xPtr);
    tr.dispose();
  });
  await t.step("no kernel for an arena of the TypeScript kernels", () => {
    assert.equal(ParquetTransposer.create(loadCore({ backend: "reference" }), 4), null);
  });
  await t.step("a shared arena", () => {
    const shared = loadCore({ backend: "simd", shared: true });
    const tr = ParquetTransposer.create(shared, 2)!;
    const cols = [new Float32Array([1, 2, 3]), new Float32Array([4, 5, 6])];
    const xPtr = shared.allocF64(6);
    const s = () => new Float64Array(2);
    assert.ok(tr.run(cols, 3, xPtr, true, s(), s(), s(), new Int32Array(2), 0, 1e100));
    assert.deepEqual(Array.from(shared.f64(xPtr, 6)), [1, 4, 2, 5, 3, 6]);
    tr.dispose();
  });
});
