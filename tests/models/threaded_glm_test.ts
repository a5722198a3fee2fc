import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { higgsShaped } from "../../data/synthetic.ts";
import { GlmModel } from "../../models/glm.ts";
import { ThreadedGlmModel } from "../../models/threaded_glm.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { GatheredRows } from "../../subsampling/gathered_rows.ts";
import { Rng } from "../../random/rng.ts";

Deno.test("ThreadedGlmModel full-data passes match one thread within the summation bound", async (t) => {
  const arena = loadCore({ shared: true });
  const { data } = higgsShaped(arena, { n: 30001, seed: 2 });
  const model = new GlmModel(data, { family: "logistic", priorScale: 5 });
  const d = model.dim, n = model.numRows, u = 2 ** -53;
  const theta = Float64Array.from({ length: d }, (_, j) => 0.05 * Math.sin(j));
  const g1 = new Float64Array(d), h1 = new Float64Array(d * d);
  const ll1 = model.logLikelihood(theta, g1);
  model.logLikelihoodHessian(theta, h1);
  // Σ|ℓᵢ| ≤ n·max|ℓᵢ|; ℓᵢ and its derivatives are O(1) here: bound (n + T)·u·Σ|·| by 1e-10·n.
  for (const threads of [2, 3]) {
    await t.step(`${threads} threads`, async () => {
      const threaded = await ThreadedGlmModel.create(model, { threads });
      try {
        const g = new Float64Array(d), h = new Float64Array(d * d);
        assert.equal(threaded.cost, model.cost, "one cost counter for the data");
        const rows0 = threaded.cost.numGradRows, hess0 = threaded.cost.numHessianRows;
        const ll = threaded.logLikelihood(theta, g);
        threaded.logLikelihoodHessian(theta, h);
        const bound = (n + threads) * u * n * 10;
        assert.ok(Math.abs(ll - ll1) <= bound, `ℓ: ${ll} vs ${ll1}`);
        for (let j = 0; j < d; j++) assert.ok(Math.abs(g[j] - g1[j]) <= bound, `∇ℓ[${j}]`);
        for (let q = 0; q < d * d; q++) assert.ok(Math.abs(h[q] - h1[q]) <= bound, `∇²ℓ[${q}]`);
        assert.equal(threaded.cost.numGradRows - rows0, n);
        assert.equal(threaded.cost.numHessianRows - hess0, n);
        // Deterministic for a given number of threads.
        const again = new Float64Array(d);
        assert.equal(threaded.logLikelihood(theta, again), ll);
        assert.deepEqual(again, g);
      } finally {
        threaded.close();
      }
    });
  }
  await t.step("full-data HMC runs on it", async () => {
    const threaded = await ThreadedGlmModel.create(model, { threads: 2 });
    try {
      const r = runHmc(threaded, { seed: 1, numWarmup: 100, numSamples: 50, numChains: 1 });
      assert.equal(r.chains[0].stop, null);
    } finally {
      threaded.close();
    }
  });
});

Deno.test("ThreadedGlmModel.rowsSums: sums over listed rows on all threads match one thread's, f32 and f64 rows", async (t) => {
  for (const storage of ["f64", "f32"] as const) {
    await t.step(storage, async () => {
      const arena = loadCore({ shared: true });
      const { data } = higgsShaped(arena, { n: 9001, seed: 3, storage });
      const model = new GlmModel(data, { family: "logistic", priorScale: 5 });
      const d = model.dim, n = model.numRows;
      const theta = Float64Array.from({ length: d }, (_, j) => 0.04 * Math.cos(j));
      // Increasing rows spanning every block (and chunks of more than 2048 rows in one block).
      const rows = Int32Array.from({ length: 5000 }, (_, i) => Math.floor((i * n) / 5000));
      const g1 = new Float64Array(d), h1 = new Float64Array(d * d);
      const ll1 = model.logLikelihoodRows(theta, rows, { grad: g1 });
      const gathered = new GatheredRows(model.data, rows.length);
      gathered.gather(rows, 0);
      model.kernels.hessian(gathered, theta, { out: h1, range: { start: 0, end: rows.length } });
      gathered.dispose();
      for (const threads of [1, 2, 3]) {
        const threaded = await ThreadedGlmModel.create(model, { threads });
        try {
          const g = new Float64Array(d), h = new Float64Array(d * d);
          const c0 = { ...model.cost };
          const ll = threaded.rowsSums(theta, rows, { grad: g });
          assert.equal(threaded.rowsSums(theta, rows, { hessian: h }), 0);
          assert.equal(model.cost.numGradRows - c0.numGradRows, rows.length);
          assert.equal(model.cost.numLogLikRows - c0.numLogLikRows, rows.length);
          assert.equal(model.cost.numHessianRows - c0.numHessianRows, rows.length);
          const tol = (a: number) => 1e-10 * Math.max(1, Math.abs(a));
          assert.ok(Math.abs(ll - ll1) <= tol(ll1) * rows.length, `ℓ ${threads}: ${ll} vs ${ll1}`);
          for (let j = 0; j < d; j++) {
            assert.ok(
              Math.abs(g[j] - g1[j]) <= 1e-10 * rows.length,
              `∇ℓ[${j}], ${threads} threads`,
            );
          }
          for (let q = 0; q < d * d; q++) {
            assert.ok(
              Math.abs(h[q] - h1[q]) <= 1e-10 * rows.length,
              `∇²ℓ[${q}], ${threads} threads`,
            );
          }
          assert.throws(
            () => threaded.rowsSums(theta, new Int32Array([5, 5]), { grad: g }),
            /rows must increase/,
          );
          assert.throws(() => threaded.rowsSums(theta, new Int32Array([n]), { grad: g }), /rows/);
          assert.throws(() => threaded.rowsSums(theta, rows, {}), /either grad or hessian/);
          // The pool still answers after a refused call.
          assert.equal(threaded.rowsSums(theta, rows, { grad: g }), ll);
        } finally {
          threaded.close();
        }
      }
    });
  }
});

Deno.test("ThreadedGlmModel({ sumsInOneSweep }).controlVariateSums: S and A by the ℓ, ∇ℓ kernel, within the summation bound of one thread's control-variate sums", async () => {
  const arena = loadCore({ shared: true });
  const { data } = higgsShaped(arena, { n: 20001, seed: 4, storage: "f32" });
  const model = new GlmModel(data, { family: "logistic", priorScale: 5 });
  const d = model.dim, n = model.numRows;
  const theta = Float64Array.from({ length: d }, (_, j) => 0.03 * Math.sin(2 * j));
  const a1 = new Float64Array(d);
  const s1 = model.kernels.controlVariateSums(model.data, theta, { gradSum: a1 });
  for (const threads of [1, 2]) {
    const threaded = await ThreadedGlmModel.create(model, { threads, sumsInOneSweep: true });
    try {
      assert.equal(threaded.sumsInOneSweep, true);
      const a = new Float64Array(d), c0 = model.cost.numGradRows;
      const s = threaded.controlVariateSums(theta, { gradSum: a });
      assert.equal(model.cost.numGradRows, c0, "counts no cost (the control variates do)");
      const bound = (n + threads) * 2 ** -53 * n * 10;
      assert.ok(Math.abs(s - s1) <= bound, `S: ${s} vs ${s1}`);
      for (let j = 0; j < d; j++) assert.ok(Math.abs(a[j] - a1[j]) <= bound, `A[${j}]`);
    } finally {
      threaded.close();
    }
  }
});

Deno.test("ThreadedGlmModel.beginSortedSample/finishSortedSample: a worker draws the calling generator's sorted subset, which then moves on as if it had drawn it", async (t) => {
  const arena = loadCore({ shared: true });
  const { data } = higgsShaped(arena, { n: 20001, seed: 4 });
  const model = new GlmModel(data, { family: "logistic", priorScale: 5 });
  const n = model.numRows, d = model.dim;
  const theta = Float64Array.from({ length: d }, (_, j) => 0.02 * Math.sin(j));
  for (const threads of [1, 2, 3]) {
    await t.step(`${threads} threads`, async () => {
      const threaded = await ThreadedGlmModel.create(model, { threads });
      try {
        for (const m of [3001, 15000, 0]) {
          const mine = new Rng(`ahead-${m}`), theirs = new Rng(`ahead-${m}`);
          mine.uniform();
          theirs.uniform();
          const expected = mine.sortedSample(n, m);
          const started = threaded.beginSortedSample(theirs, m);
          assert.equal(started, threads > 1, "only with workers");
          // A pass meanwhile waits for the draw first and is unchanged.
          const g = new Float64Array(d);
          const ll = threaded.logLikelihood(theta, g);
          assert.equal(ll, threaded.logLikelihood(theta, new Float64Array(d)));
          const got = threaded.finishSortedSample(theirs);
          if (started) assert.deepEqual(got, expected);
          else assert.equal(got, null);
          if (!started) theirs.sortedSample(n, m);
          assert.equal(theirs.uniform(), mine.uniform(), "the generator moved past the draws");
        }
        // Dropped: no generator moves.
        const a = new Rng(9), b = new Rng(9);
        threaded.beginSortedSample(a, 5000);
        assert.equal(threaded.finishSortedSample(null), null);
        assert.equal(threaded.finishSortedSample(a), null, "nothing pending");
        assert.equal(a.uniform(), b.uniform());
        assert.throws(() => threaded.beginSortedSample(a, n + 1), /0 ≤ m ≤ 20001, got 20002/);
        // Pending at close: closed without a worker writing afterwards.
        threaded.beginSortedSample(a, 7000);
      } finally {
        threaded.close();
      }
    });
  }
});
