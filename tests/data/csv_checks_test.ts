/**
 * ColumnStats fed in runs of rows summarised elsewhere (the parallel CSV
 * reader's workers) against ColumnStats fed blocks (the one-thread readers):
 * the same ranges, X'X and duplicate groups.
 */

import assert from "node:assert/strict";
import { ColumnStats } from "../../data/csv_checks.ts";

/** The summary of rows [a, b) that a worker computes (ColumnStats.add's arithmetic). */
function _part(x: Float64Array, d: number, a: number, b: number) {
  const lo = new Float64Array(d).fill(Infinity), hi = new Float64Array(d).fill(-Infinity);
  const sum = new Float64Array(d), h = new Int32Array(d).fill(0x811c9dc5 | 0);
  const bits = new Int32Array(x.buffer, x.byteOffset, x.length * 2);
  for (let i = a; i < b; i++) {
    for (let k = 0; k < d; k++) {
      const o = i * d + k, v = x[o];
      if (v < lo[k]) lo[k] = v;
      if (v > hi[k]) hi[k] = v;
      sum[k] += v;
      h[k] = Math.imul(h[k] ^ bits[2 * o + 1], 0x01000193) + bits[2 * o];
    }
  }
  return { lo, hi, sum, h };
}

function _table(n: number, d: number, seed: number): Float64Array {
  let s = seed;
  const u = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  const x = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < d; k++) x[i * d + k] = k === 0 ? 1 : (u() - 0.5) * 10 ** (k % 5);
    x[i * d + 3] = x[i * d + 2]; // a copy
    x[i * d + 4] = u() < 0.5 ? 0 : -0; // ±0 only
    x[i * d + 5] = 2 * x[i * d + 6] - x[i * d + 7]; // collinear
  }
  return x;
}

function _same(a: ColumnStats, b: ColumnStats, what: string): void {
  assert.equal(b.numRows, a.numRows, `${what}: rows`);
  assert.equal(b.gramRows, a.gramRows, `${what}: X'X rows`);
  for (let k = 0; k < a.numCols; k++) {
    assert.ok(Object.is(b.colMin[k], a.colMin[k]), `${what}: minimum of column ${k}`);
    assert.ok(Object.is(b.colMax[k], a.colMax[k]), `${what}: maximum of column ${k}`);
  }
  assert.deepEqual(Array.from(b.gram), Array.from(a.gram), `${what}: X'X`);
  assert.deepEqual(b.duplicates(), a.duplicates(), `${what}: duplicates`);
}

Deno.test("ColumnStats.addSegment: the ranges, X'X and copies of add, whatever the runs", () => {
  const d = 60, n = 20011, blockRows = 517;
  const x = _table(n, d, 7);
  // expectedRows n: X'X on every third row; n / 4: on the first rows, until the budget ends.
  for (const expected of [n, n >> 2]) {
    const ref = new ColumnStats(d, expected);
    for (let a = 0; a < n; a += blockRows) {
      const m = Math.min(blockRows, n - a);
      ref.add(x.slice(a * d, (a + m) * d), m);
    }
    ref.finish();
    assert.ok(ref.gramRows > 100 && ref.gramRows < n, `X'X over ${ref.gramRows} rows`);
    assert.deepEqual(ref.duplicates(), [[2, 3]]);
    for (const runs of [[1], [7, 1, 1], [516, 518], [517], [1034], [4000, 13, 2]]) {
      const seg = new ColumnStats(d, expected);
      let a = 0;
      for (let r = 0; a < n; r++) {
        const m = Math.min(runs[r % runs.length], n - a);
        seg.addSegment(x.subarray(a * d, (a + m) * d), m, blockRows, _part(x, d, a, a + m));
        a += m;
      }
      seg.finish();
      _same(ref, seg, `runs ${runs}, ${expected} rows expected`);
      // The same runs given only the rows X'X takes (a worker that wrote the rows itself).
      const only = new ColumnStats(d, expected);
      const stride = only.gramStride, end = only.gramMaxRows * stride;
      a = 0;
      for (let r = 0; a < n; r++) {
        const m = Math.min(runs[r % runs.length], n - a);
        const rows: number[] = [];
        for (let g = Math.ceil(a / stride) * stride; g < Math.min(a + m, end); g += stride) {
          rows.push(...x.subarray(g * d, (g + 1) * d));
        }
        only.addSegment(new Float64Array(rows), m, blockRows, _part(x, d, a, a + m), true);
        a += m;
      }
      only.finish();
      _same(ref, only, `runs ${runs}, ${expected} rows expected, X'X's rows only`);
    }
  }
});
