/**
 * Control variates without the per-row cache of all n rows (`rowCache:
 * false`, what HMC-ECS's GLM proxy uses on the calling thread): the same
 * S and A, the same cache rows of gathered rows and the same differences as
 * with the cache, bit for bit.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { rowBufferBlocks } from "../../core/row_buffer.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import { Rng } from "../../random/rng.ts";
import { ControlVariates } from "../../subsampling/control_variates.ts";

for (const storage of ["f64", "f32"] as const) {
  for (const [n, d] of [[1_001, 7], [1_000, 6], [3, 5]]) {
    Deno.test(`ControlVariates rowCache: false equals the cached ones bit for bit (${storage}, n = ${n}, d = ${d})`, () => {
      const rng = new Rng(n + d);
      const x = new Float64Array(n * d).map((_, i) => i % d === 0 ? 1 : rng.normal());
      const y = new Float64Array(n).map(() => rng.int(2));
      const arena = loadCore();
      const data = glmDataFromArrays(arena, x, y, { numCols: d, storage });
      const model = new GlmModel(data, { family: "logistic" });
      const star = new Float64Array(d).map(() => 0.3 * rng.normal());
      const theta = new Float64Array(d).map((_, j) => star[j] + 0.05 * rng.normal());
      const a = new ControlVariates(model, star, { order: 2 });
      const b = new ControlVariates(model, star, { order: 2, rowCache: false });
      assert.equal(b.llStarSum, a.llStarSum);
      assert.deepEqual(b.gradSum, a.gradSum);
      assert.deepEqual(b.hessSum, a.hessSum);
      assert.throws(() => b.cache, /keep no per-row cache/);
      // Rows in any order, n − 1 among them, odd and even counts, at odd offsets.
      const m = Math.min(n, 41);
      const idx = new Int32Array(m).map(() => rng.int(n));
      idx[m >> 1] = n - 1;
      const ra = a.createRows(m + 2), rb = b.createRows(m + 2);
      for (const [lo, hi] of [[0, m], [1, m - 1], [m - 2, m - 1], [0, 1]]) {
        if (hi <= lo) continue;
        a.gatherRows(ra, idx.subarray(lo, hi), lo + 1);
        b.gatherRows(rb, idx.subarray(lo, hi), lo + 1);
      }
      const cv = (r: typeof ra) => arena.f64(rowBufferBlocks(r).cv + 8 * 4, m * 4).slice();
      assert.deepEqual(cv(rb), cv(ra));
      const opts = { start: 1, end: m + 1 };
      assert.equal(b.differences(rb, theta, opts), a.differences(ra, theta, opts));
      assert.deepEqual(rb.derivatives(1, m + 1), ra.derivatives(1, m + 1));
      // A re-centring: the sums, and the refreshed rows.
      const star2 = star.map((v) => v + 0.1);
      a.recenter(star2);
      b.recenter(star2);
      assert.equal(b.llStarSum, a.llStarSum);
      assert.deepEqual(b.gradSum, a.gradSum);
      a.refreshRows(ra, { start: 1, end: m + 1 });
      b.refreshRows(rb, { start: 1, end: m + 1 });
      assert.deepEqual(cv(rb), cv(ra));
      assert.equal(b.numCacheRows > 0, true);
      assert.throws(() => b.refreshRows(rb, { start: 0, end: 2 }), /position 0 holds no row/);
      ra.dispose();
      rb.dispose();
      a.dispose();
      b.dispose();
    });
  }
}

Deno.test("ControlVariates rowCache: false refuses passes on other threads", () => {
  const arena = loadCore({ backend: "reference" });
  const data = glmDataFromArrays(arena, [1, 0.5, 1, -1], [1, 0], { numCols: 2 });
  const model = new GlmModel(data, { family: "logistic" });
  const passes = { numRows: 2, prepareControlVariates: () => 0, logLikelihoodHessian: () => {} };
  assert.throws(
    () => new ControlVariates(model, new Float64Array(2), { rowCache: false, passes }),
    /rowCache: false computes the centring sums on the calling thread/,
  );
});
