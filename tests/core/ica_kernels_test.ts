/**
 * Tests of core/ica_kernels.ts: the ICA model's per-row differences in the
 * core are the TypeScript loop's (replicate/ica_stiefel.ts) bit for bit,
 * with and without the cache, through accepted and rejected proposals, on
 * rows whose wᵀx reaches the e^{−a} branch of f (|wᵀx| ≥ 16).
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { ICA_TABLE_LENGTH, IcaRowCache, IcaRows } from "../../core/ica_kernels.ts";
import { Rng } from "../../random/rng.ts";
import {
  icaCoreRows,
  icaData,
  IcaTarget,
  logFourCoshSq,
  logFourCoshSqTable,
  stiefelProposal,
} from "../../replicate/ica_stiefel.ts";

const D = 4;

/** Whitened ICA rows, a tenth of them scaled ×12 so that |wᵀx| spans 0 … 60. */
function _data(n: number) {
  const data = icaData(11, n);
  const x = Float64Array.from(data.x);
  for (let i = 0; i < n; i += 10) for (let c = 0; c < D; c++) x[i * D + c] *= 12;
  return { ...data, x };
}

function _identity(): Float64Array {
  const w = new Float64Array(D * D);
  for (let r = 0; r < D; r++) w[r * D + r] = 1;
  return w;
}

Deno.test("ICA kernels: the uncached differences are f(w_jᵀx) + f(w_kᵀx) − f(w'_jᵀx) − f(w'_kᵀx) bit for bit", () => {
  const arena = loadCore();
  assert.ok(IcaRows.isSupported(arena), `the ${arena.backend} build has the ICA kernels`);
  const data = _data(3_000), rows = icaCoreRows(arena, data);
  const rng = new Rng("ica-kernels"), w = _identity(), wp = new Float64Array(D * D);
  let large = 0;
  for (let step = 0; step < 20; step++) {
    const { j, k } = stiefelProposal(rng, w, 2, wp);
    rows.setPair(w, wp, j, k);
    const idx = Int32Array.from({ length: 1 + rng.int(700) }, () => rng.int(data.n));
    const out = rows.differences(idx, new Float64Array(idx.length + 3));
    for (let q = 0; q < idx.length; q++) {
      const o = idx[q] * D, x = data.x;
      const f = (m: Float64Array, r: number) => {
        const z = m[r * D] * x[o] + m[r * D + 1] * x[o + 1] + m[r * D + 2] * x[o + 2] +
          m[r * D + 3] * x[o + 3];
        if (Math.abs(z) >= 16) large++;
        return logFourCoshSq(z);
      };
      const expected = f(w, j) + f(w, k) - f(wp, j) - f(wp, k);
      assert.ok(
        Object.is(out[q], expected),
        `step ${step}, row ${idx[q]}: ${out[q]} vs ${expected}`,
      );
    }
    if (step % 3 !== 2) w.set(wp);
  }
  assert.ok(large > 100, `rows on the e^{−a} branch: ${large}`);
  rows.dispose();
});

Deno.test("ICA kernels: the cache in the core gives IcaTarget's TypeScript numbers and counts", () => {
  const arena = loadCore();
  const data = _data(2_000), rows = icaCoreRows(arena, data), start = _identity();
  for (const cache of [true, false]) {
    const core = new IcaTarget(data, start, { rows, cache });
    const ts = new IcaTarget(data, start, { cache });
    const rngA = new Rng("ica-cache"), rngB = new Rng("ica-cache"), pick = new Rng("ica-rows");
    for (let step = 0; step < 12; step++) {
      core.propose(rngA, 3);
      ts.propose(rngB, 3);
      assert.deepEqual(core.proposed, ts.proposed);
      // Distinct rows in batches of several sizes, as a test draws them.
      const order = Int32Array.from({ length: data.n }, (_, i) => i);
      const used = 1 + pick.int(data.n);
      for (let q = 0; q < used; q++) {
        const r = q + pick.int(data.n - q), t = order[q];
        order[q] = order[r];
        order[r] = t;
      }
      for (let from = 0; from < used; from += 500) {
        const batch = order.subarray(from, Math.min(used, from + 500));
        const a = new Float64Array(batch.length), b = new Float64Array(batch.length);
        core.differences(batch, a);
        ts.differences(batch, b);
        assert.deepEqual(a, b, `cache ${cache}, step ${step}, rows from ${from}`);
      }
      assert.equal(core.numFEvaluations, ts.numFEvaluations, `f evaluations, step ${step}`);
      if (step % 3 !== 1) {
        core.accept(order.subarray(0, used));
        ts.accept(order.subarray(0, used));
      }
    }
    core.dispose();
  }
  rows.dispose();
});

Deno.test("ICA kernels: bad input is a RangeError naming the value", () => {
  const arena = loadCore();
  const rows = new IcaRows(arena, new Float64Array(8), new Float64Array(ICA_TABLE_LENGTH));
  const w = _identity();
  assert.throws(() => rows.differences(new Int32Array([0]), new Float64Array(1)), /setPair/);
  assert.throws(() => rows.setPair(w, w, 1, 1), /distinct.*1 and 1/);
  assert.throws(() => rows.setPair(w, new Float64Array(3), 0, 1), /length 16.*16 and 3/);
  rows.setPair(w, w, 0, 1);
  assert.throws(() => rows.differences(new Int32Array([2]), new Float64Array(1)), /row 2.*0…1/);
  assert.throws(() => rows.differences(new Int32Array([-1]), new Float64Array(1)), /row -1/);
  assert.throws(() => rows.differences(new Int32Array([0, 1]), new Float64Array(1)), /≥ 2, got 1/);
  assert.deepEqual(rows.differences(new Int32Array(0), new Float64Array(0)), new Float64Array(0));
  const cache = new IcaRowCache(rows);
  assert.throws(() => cache.accept(), /propose/);
  cache.propose(w, w, 2, 3);
  assert.throws(() => cache.differences(new Int32Array([0, 9]), new Float64Array(2)), /row 9/);
  cache.accept();
  assert.throws(() => cache.accept(), /propose/, "one accept per proposal");
  cache.dispose();
  assert.throws(() => cache.propose(w, w, 0, 1), /disposed/);
  assert.throws(() => new IcaRows(arena, new Float64Array(6), logFourCoshSqTable()), /length 6/);
  assert.throws(() => new IcaRows(arena, new Float64Array(8), new Float64Array(5)), /2048, got 5/);
  rows.dispose();
  assert.throws(() => rows.setPair(w, w, 0, 1), /disposed/);
  const reference = loadCore({ backend: "reference" });
  assert.equal(IcaRows.isSupported(reference), false);
  assert.throws(
    () => new IcaRows(reference, new Float64Array(8), logFourCoshSqTable()),
    /reference backend has no ICA kernels/,
  );
});
