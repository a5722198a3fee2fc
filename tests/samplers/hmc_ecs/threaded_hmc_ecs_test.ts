import assert from "node:assert/strict";
import { loadCore } from "../../../core/load.ts";
import { dataViews } from "../../../core/row_buffer.ts";
import { higgsShaped } from "../../../data/synthetic.ts";
import { GlmModel } from "../../../models/glm.ts";
import { ThreadedGlmModel } from "../../../models/threaded_glm.ts";
import { sample } from "../../../samplers/sample.ts";
import { ControlVariates } from "../../../subsampling/control_variates.ts";

// n odd (the last block ends in an unpaired row), d = 30, logistic.
const N = 30001;
const U = 2 ** -53;

function _model(): GlmModel {
  const arena = loadCore({ shared: true });
  const { data } = higgsShaped(arena, { n: N, seed: 4 });
  return new GlmModel(data, { family: "logistic", priorScale: 5 });
}

/**
 * Σₖ|tₖ| for the terms of S (ℓₖ), A (aₖxₖⱼ) and B (bₖxₖᵢxₖⱼ), from the cache
 * (ℓₖ*, aₖ, bₖ) and the data: two summation orders of the same n terms, each
 * within (n − 1)·u·Σ|tₖ| + O(u²) of the exact sum (Higham 2002, §4.2), differ
 * by at most 2(n + 2)·u·Σ|tₖ| (the + 2 covers the rounding of the products).
 */
function _absSums(cv: ControlVariates, model: GlmModel) {
  const n = model.numRows, d = model.dim, x = dataViews(model.data).x;
  let s = 0;
  const a = new Float64Array(d), b = new Float64Array(d * d);
  for (let k = 0; k < n; k++) {
    const r = cv.cache.row(k), ak = Math.abs(r[2]), bk = Math.abs(r[3]);
    s += Math.abs(r[1]);
    for (let i = 0; i < d; i++) {
      const xi = Math.abs(x[k * d + i]);
      a[i] += ak * xi;
      for (let j = 0; j < d; j++) b[i * d + j] += bk * xi * Math.abs(x[k * d + j]);
    }
  }
  return { s, a, b };
}

Deno.test("ThreadedGlmModel.prepareControlVariates() fills the cache bit for bit and S, A, B within the summation bound", async (t) => {
  const model = _model();
  const d = model.dim, n = model.numRows;
  const thetaStar = Float64Array.from({ length: d }, (_, j) => 0.04 * Math.cos(j));
  // An odd chunk on one thread: chunk boundaries do not change a row's arithmetic either.
  const one = new ControlVariates(model, thetaStar, { order: 2, chunkRows: 4097 });
  const abs = _absSums(one, model);
  const bound = (sum: number) => 2 * (n + 2) * U * sum;
  for (const threads of [2, 3]) {
    await t.step(`${threads} threads`, async () => {
      const threaded = await ThreadedGlmModel.create(model, { threads });
      try {
        assert.ok(threaded.blockStarts.slice(0, -1).every((r) => r % 2 === 0), "even block starts");
        const before = { ...model.cost };
        const many = new ControlVariates(model, thetaStar, {
          order: 2,
          chunkRows: 4097,
          passes: threaded,
        });
        try {
          assert.equal(model.cost.numLogLikRows - before.numLogLikRows, n, "n ℓ rows");
          assert.equal(model.cost.numGradRows - before.numGradRows, n, "n ∇ℓ rows");
          assert.equal(model.cost.numHessianRows - before.numHessianRows, n, "n rows for B");
          // Each row's arithmetic is one thread's: the cache is identical.
          for (let k = 0; k < n; k++) {
            const p = one.cache.row(k), q = many.cache.row(k);
            for (let c = 0; c < 4; c++) {
              if (!Object.is(p[c], q[c])) assert.fail(`cache row ${k}[${c}]: ${q[c]} vs ${p[c]}`);
            }
          }
          // Only the order of the sums differs.
          const dS = Math.abs(many.llStarSum - one.llStarSum);
          assert.ok(dS <= bound(abs.s), `S: off by ${dS}, bound ${bound(abs.s)}`);
          for (let j = 0; j < d; j++) {
            const dA = Math.abs(many.gradSum[j] - one.gradSum[j]);
            assert.ok(dA <= bound(abs.a[j]), `A[${j}]: off by ${dA}, bound ${bound(abs.a[j])}`);
          }
          for (let q = 0; q < d * d; q++) {
            const dB = Math.abs(many.hessSum[q] - one.hessSum[q]);
            assert.ok(dB <= bound(abs.b[q]), `B[${q}]: off by ${dB}, bound ${bound(abs.b[q])}`);
          }
          // Deterministic for a given number of threads; a re-centring rewrites every row.
          const s = many.llStarSum, a = Float64Array.from(many.gradSum);
          many.recenter(new Float64Array(d));
          assert.notDeepEqual(many.cache.row(n - 1), one.cache.row(n - 1));
          many.recenter(thetaStar);
          assert.equal(many.llStarSum, s);
          assert.deepEqual(many.gradSum, a);
          assert.deepEqual(many.cache.row(n - 1), one.cache.row(n - 1));
        } finally {
          many.dispose();
        }
      } finally {
        threaded.close();
      }
    });
  }
  await t.step(
    "refuses a cache elsewhere or of another size, and more threads than pairs of rows",
    async () => {
      const arena = loadCore({ shared: true });
      const logistic = { family: "logistic" } as const;
      const small = new GlmModel(higgsShaped(model.data.arena, { n: 101, seed: 1 }).data, logistic);
      const other = new GlmModel(higgsShaped(arena, { n: N, seed: 1 }).data, logistic);
      const tiny = new GlmModel(higgsShaped(arena, { n: 3, seed: 1 }).data, logistic);
      const cv = new ControlVariates(small, thetaStar);
      const elsewhere = new ControlVariates(other, thetaStar);
      const threaded = await ThreadedGlmModel.create(model, { threads: 2 });
      try {
        assert.throws(
          () =>
            threaded.prepareControlVariates(thetaStar, { cache: cv.cache, gradSum: cv.gradSum }),
          { name: "RangeError", message: "the cache has 101 rows, the data 30001" },
        );
        assert.throws(
          () =>
            threaded.prepareControlVariates(thetaStar, {
              cache: elsewhere.cache,
              gradSum: cv.gradSum,
            }),
          /the cache must live in this model's shared memory/,
        );
        await assert.rejects(() => ThreadedGlmModel.create(tiny, { threads: 2 }), {
          name: "RangeError",
          message: "threads must be at most 1 for 3 rows (blocks of ≥ 2 rows), got 2",
        });
      } finally {
        threaded.close();
        cv.dispose();
        elsewhere.dispose();
      }
    },
  );
  one.dispose();
  model.dispose();
});

Deno.test("sample(ThreadedGlmModel, hmc-ecs) centres on all threads and draws as on one thread", async (t) => {
  const model = _model();
  const options = {
    sampler: "hmc-ecs",
    seed: 3,
    numChains: 1,
    numWarmup: 150,
    numSamples: 100,
    hessianFraction: 1, // B from full-data Hessian passes, on the threads
  } as const;
  const single = sample(model, options);
  const threaded = await ThreadedGlmModel.create(model, { threads: 2 });
  try {
    const a = sample(threaded, options), b = sample(threaded, options);
    const c1 = single.chains[0], c2 = a.chains[0];
    await t.step("the same centring passes, counted the same way", () => {
      assert.equal(c2.stop, null);
      assert.equal(c2.tuning.numCenterings, c1.tuning.numCenterings);
      assert.equal(c2.tuning.numNewtonSteps, c1.tuning.numNewtonSteps);
      assert.ok((c2.tuning.numNewtonSteps as number) > 0, "Newton steps ran");
      assert.deepEqual(c2.cost, c1.cost);
    });
    await t.step("deterministic for a given number of threads", () => {
      assert.deepEqual(b.draws, a.draws);
    });
    await t.step("draws within the propagated summation error of one thread's", () => {
      // S, A and B differ from one thread's by ≤ 2(n + 2)·u·Σ|tₖ| ≈ 1e-11 relative
      // (test above). The chain is a smooth function of (S, A, B) between MH
      // decisions, and a leapfrog trajectory inside its stability region
      // (acceptance ≈ 0.8) amplifies a perturbation by a bounded factor, so 250
      // iterations of ≤ 100 steps leave the draws within 250·100·1e-11 ≈ 3e-7
      // posterior sds; a decision flips only if its uniform lands within ~1e-11
      // of the acceptance ratio (probability ≈ 250·1e-11), which would move a
      // draw by O(1) sd and fail this test.
      const d = model.dim;
      let worst = 0;
      for (let j = 0; j < d; j++) {
        const x = c1.draws[j], y = c2.draws[j];
        let m = 0, v = 0;
        for (const z of x) m += z / x.length;
        for (const z of x) v += (z - m) ** 2 / (x.length - 1);
        for (let k = 0; k < x.length; k++) {
          worst = Math.max(worst, Math.abs(x[k] - y[k]) / Math.sqrt(v));
        }
      }
      assert.ok(worst <= 3e-7, `largest difference ${worst} posterior sds`);
    });
  } finally {
    threaded.close();
    model.dispose();
  }
});
