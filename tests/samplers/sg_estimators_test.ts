/**
 * Tests of the stochastic-gradient stack, part 1: the gradient estimators
 * and their per-row covariance (subsampling/); the Normal-Gamma model and the
 * SG kernels are in sg_samplers_test.ts.
 *
 * Statistical checks use fixed seeds and tolerances from Monte Carlo standard
 * errors: CLT bounds (4 standard errors) for unbiasedness, non-overlapping
 * batch means for chain averages. Nothing was tuned to pass; each margin is
 * justified where it is set.
 */

import assert from "node:assert/strict";
import { availableBackends, loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import { NormalGammaModel } from "../../examples/models/normal_gamma.ts";
import { Rng } from "../../random/rng.ts";
import { ControlVariates } from "../../subsampling/control_variates.ts";
import {
  applyCovariance,
  empiricalCovariance,
  initCovarianceEstimate,
  perRowGradientMoments,
  updateCovarianceEstimate,
} from "../../subsampling/gradient_covariance.ts";
import {
  controlVariateGradient,
  fullGradient,
  type GradientEstimator,
  minibatchGradient,
  passesOverData,
} from "../../subsampling/gradient_estimators.ts";

// ---------------------------------------------------------------- helpers

/** Brute-force (two-pass) covariance of m × d per-row gradients: d variances or d × d. */
function bruteCovariance(g: Float64Array, m: number, d: number, full: boolean): Float64Array {
  const mean = new Float64Array(d);
  for (let k = 0; k < m; k++) for (let j = 0; j < d; j++) mean[j] += g[k * d + j] / m;
  const out = new Float64Array(full ? d * d : d);
  for (let k = 0; k < m; k++) {
    for (let j = 0; j < d; j++) {
      const a = g[k * d + j] - mean[j];
      if (!full) out[j] += (a * a) / (m - 1);
      else for (let l = 0; l < d; l++) out[j * d + l] += (a * (g[k * d + l] - mean[l])) / (m - 1);
    }
  }
  return out;
}

function assertClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  rel: number,
  what: string,
) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  let scale = 0;
  for (let i = 0; i < expected.length; i++) scale = Math.max(scale, Math.abs(expected[i]));
  for (let i = 0; i < expected.length; i++) {
    const err = Math.abs(actual[i] - expected[i]);
    assert.ok(err <= rel * scale, `${what}[${i}]: ${actual[i]} vs ${expected[i]} (scale ${scale})`);
  }
}

/** A logistic-regression GLM with an intercept and d − 1 N(0, 1) covariates. */
function logisticModel(n: number, d: number, seed: number, backend?: "reference") {
  const arena = loadCore(backend ? { backend } : {});
  const rng = new Rng(seed);
  const x = new Float64Array(n * d), y = new Float64Array(n);
  const beta = Float64Array.from({ length: d }, (_, j) => (j === 0 ? -0.3 : 0.8 / j));
  for (let i = 0; i < n; i++) {
    x[i * d] = 1;
    let eta = beta[0];
    for (let j = 1; j < d; j++) {
      x[i * d + j] = rng.normal();
      eta += beta[j] * x[i * d + j];
    }
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  const data = glmDataFromArrays(arena, x, y, { numCols: d });
  return { model: new GlmModel(data, { family: "logistic", priorScale: 5 }), x, beta };
}

/** Sample mean and per-coordinate variance of K draws of an estimator at θ. */
function estimatorMoments(est: GradientEstimator, theta: Float64Array, rng: Rng, K: number) {
  const d = est.dim, s1 = new Float64Array(d), s2 = new Float64Array(d);
  for (let k = 0; k < K; k++) {
    const g = est.estimate(theta, rng).grad;
    for (let j = 0; j < d; j++) {
      s1[j] += g[j];
      s2[j] += g[j] * g[j];
    }
  }
  const mean = s1.map((s) => s / K);
  const variance = s2.map((s, j) => (s - K * mean[j] * mean[j]) / (K - 1));
  return { mean, variance };
}

// ---------------------------------------------------------------- covariance algebra

Deno.test("gradient_covariance claims: eq. 19 moments, eq. 18 running mean, N²Î/n products", async (t) => {
  const rng = new Rng(1);
  const m = 30, d = 4, g = rng.fillNormal(new Float64Array(m * d));
  await t.step("empiricalCovariance() equals the two-pass covariance (diagonal and full)", () => {
    for (const kind of ["diagonal", "full"] as const) {
      const v = empiricalCovariance(perRowGradientMoments(g, { dim: d, kind }));
      assertClose(v, bruteCovariance(g, m, d, kind === "full"), 1e-12, kind);
    }
  });
  await t.step("updateCovarianceEstimate() with κₜ = 1/t is the running mean of the V's", () => {
    let est = initCovarianceEstimate(2, "full");
    const vs = [[1, 0, 0, 2], [3, 1, 1, 4], [2, -1, -1, 0]];
    for (const v of vs) est = updateCovarianceEstimate(est, { covariance: new Float64Array(v) });
    assert.equal(est.numUpdates, 3);
    assertClose(est.value, [2, 0, 0, 2], 1e-15, "running mean");
  });
  await t.step(
    "applyCovariance() multiplies by scale·Î (diagonal elementwise, full matvec)",
    () => {
      const diag = {
        kind: "diagonal" as const,
        dim: 2,
        numUpdates: 1,
        value: new Float64Array([2, 3]),
      };
      assertClose(
        applyCovariance(diag, { vector: new Float64Array([1, -1]), scale: 10 }),
        [20, -30],
        0,
        "diag",
      );
    },
  );
  await t.step("errors name the bad value", () => {
    assert.throws(
      () =>
        empiricalCovariance({
          kind: "diagonal",
          count: 1,
          sum: new Float64Array(1),
          second: new Float64Array(1),
        }),
      /at least 2 rows, got count = 1/,
    );
    assert.throws(
      () => initCovarianceEstimate(2, "dense" as never),
      /"diagonal" or "full", got "dense"/,
    );
    assert.throws(
      () =>
        updateCovarianceEstimate(initCovarianceEstimate(2), { covariance: new Float64Array(3) }),
      /must have 2 values .* got 3/,
    );
  });
});

// ---------------------------------------------------------------- estimators vs brute force

for (const backend of availableBackends()) {
  Deno.test(`minibatchGradient() on the ${backend} core matches a brute-force TS computation`, async (t) => {
    const arena = loadCore({ backend });
    const rng = new Rng(2);
    const N = 200, d = 5, m = 40;
    const x = rng.fillNormal(new Float64Array(N * d)), y = new Float64Array(N);
    for (let i = 0; i < N; i++) y[i] = rng.uniform() < 0.4 ? 1 : 0;
    const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), {
      family: "logistic",
    });
    const theta = Float64Array.from([0.2, -0.4, 0.1, 0.5, -0.3]);
    const per = new Float64Array(m * d), prior = new Float64Array(d);
    model.logPrior(theta, prior);

    for (const kind of [undefined, "diagonal", "full"] as const) {
      await t.step(`gradient and ${kind ?? "no"} covariance (gradientMoments)`, () => {
        const est = minibatchGradient(model, { batchSize: m });
        const before = model.cost.numGradRows;
        const e = est.estimate(theta, rng, { covariance: kind });
        assert.equal(model.cost.numGradRows - before, m, "counts n gradient rows");
        model.perRowGradients(theta, e.rows, per);
        const sum = new Float64Array(d);
        for (let k = 0; k < m; k++) for (let j = 0; j < d; j++) sum[j] += per[k * d + j];
        assertClose(e.grad, sum.map((s, j) => prior[j] + (N / m) * s), 1e-12, "gradient");
        if (kind === undefined) assert.equal(e.covariance, null);
        else {assertClose(
            e.covariance as Float64Array,
            bruteCovariance(per, m, d, kind === "full"),
            1e-10,
            kind,
          );}
      });
    }

    await t.step("control-variate differences' covariance (order 2, diagonal and full)", () => {
      const thetaStar = Float64Array.from([0.1, -0.3, 0.2, 0.4, -0.2]);
      const cv = new ControlVariates(model, thetaStar, { order: 2 });
      const est = controlVariateGradient(model, { batchSize: m, controlVariates: cv });
      const star = new Float64Array(m * d), delta = theta.map((v, j) => v - thetaStar[j]);
      for (const kind of ["diagonal", "full"] as const) {
        const e = est.estimate(theta, rng, { covariance: kind });
        model.perRowGradients(theta, e.rows, per);
        model.perRowGradients(thetaStar, e.rows, star);
        // ∇ℓₖ(θ) − ∇ℓₖ(θ*) − bₖxₖxₖᵀδ with bₖ = −σ(η*)(1 − σ(η*)).
        for (let k = 0; k < m; k++) {
          const o = e.rows[k] * d;
          let etaStar = 0, xd = 0;
          for (let j = 0; j < d; j++) {
            etaStar += x[o + j] * thetaStar[j];
            xd += x[o + j] * delta[j];
          }
          const s = 1 / (1 + Math.exp(-etaStar)), b = -s * (1 - s);
          for (let j = 0; j < d; j++) per[k * d + j] -= star[k * d + j] + b * x[o + j] * xd;
        }
        assertClose(
          e.covariance as Float64Array,
          bruteCovariance(per, m, d, kind === "full"),
          1e-9,
          kind,
        );
      }
      cv.dispose();
    });

    await t.step("dispose() returns the estimator's arena buffers", () => {
      const before = arena.bytesInUse;
      const est = minibatchGradient(model, { batchSize: m });
      est.estimate(theta, rng, { covariance: "full" });
      est.dispose();
      assert.equal(arena.bytesInUse, before);
    });
  });
}

// ---------------------------------------------------------------- unbiasedness and variance

Deno.test("minibatchGradient() is unbiased, with and without replacement", async (t) => {
  const { model } = logisticModel(300, 3, 3);
  const theta = new Float64Array([-0.2, 0.5, 0.3]);
  const full = new Float64Array(3);
  fullGradient(model).estimate(theta, new Rng(0), { grad: full });
  for (const replace of [false, true]) {
    await t.step(
      `replace: ${replace} — the mean of 4000 estimates is within 4 standard errors`,
      () => {
        const K = 4000;
        const { mean, variance } = estimatorMoments(
          minibatchGradient(model, { batchSize: 20, replace }),
          theta,
          new Rng(4),
          K,
        );
        for (let j = 0; j < 3; j++) {
          const se = Math.sqrt(variance[j] / K);
          assert.ok(
            Math.abs(mean[j] - full[j]) < 4 * se,
            `coordinate ${j}: ${mean[j]} vs ${full[j]} ± ${se}`,
          );
        }
      },
    );
  }
  await t.step("batchSize larger than N without replacement is refused", () => {
    assert.throws(
      () => minibatchGradient(model, { batchSize: 301 }),
      /at most the number of rows 300 .* got 301/,
    );
  });
});

Deno.test("controlVariateGradient() is unbiased and has lower variance than the plain one near θ*", async (t) => {
  const { model, beta } = logisticModel(400, 3, 5);
  const thetaStar = Float64Array.from(beta);
  const theta = thetaStar.map((v, j) => v + (j % 2 === 0 ? 0.05 : -0.05));
  const full = new Float64Array(3);
  fullGradient(model).estimate(theta, new Rng(0), { grad: full });
  const K = 3000, n = 20;
  const plain = estimatorMoments(minibatchGradient(model, { batchSize: n }), theta, new Rng(6), K);
  for (const order of [1, 2] as const) {
    await t.step(
      `Taylor order ${order}: mean within 4 standard errors, variance below the plain estimator's`,
      () => {
        const cv = new ControlVariates(model, thetaStar, { order });
        const est = controlVariateGradient(model, { batchSize: n, controlVariates: cv });
        const { mean, variance } = estimatorMoments(est, theta, new Rng(7), K);
        for (let j = 0; j < 3; j++) {
          const se = Math.sqrt(variance[j] / K);
          assert.ok(
            Math.abs(mean[j] - full[j]) <= 4 * se + 1e-9 * Math.abs(full[j]),
            `coord ${j}: ${mean[j]} vs ${full[j]} ± ${se}`,
          );
          // Near θ* the differences are O(|θ − θ*|) (order 1) or O(|θ − θ*|²) (order 2):
          // a factor 4 below the plain variance is far outside sampling error (K = 3000).
          assert.ok(
            variance[j] < plain.variance[j] / 4,
            `coord ${j}: ${variance[j]} vs plain ${plain.variance[j]}`,
          );
        }
        cv.dispose();
      },
    );
  }
  await t.step("a non-GLM model (Normal-Gamma, order 1 around θ*) is unbiased too", () => {
    const ng = new NormalGammaModel(new Rng(8).fillNormal(new Float64Array(100)));
    const at = new Float64Array([0.05, 1.1]);
    const exact = new Float64Array(2);
    ng.logDensityAndGradient(at, exact);
    const est = controlVariateGradient(ng, { batchSize: 10, thetaStar: new Float64Array([0, 1]) });
    const { mean, variance } = estimatorMoments(est, at, new Rng(9), 4000);
    const pl = estimatorMoments(minibatchGradient(ng, { batchSize: 10 }), at, new Rng(9), 4000);
    for (let j = 0; j < 2; j++) {
      assert.ok(Math.abs(mean[j] - exact[j]) < 4 * Math.sqrt(variance[j] / 4000), `coord ${j}`);
      assert.ok(
        variance[j] < pl.variance[j],
        `coord ${j}: variance ${variance[j]} vs plain ${pl.variance[j]}`,
      );
    }
  });
  await t.step("passesOverData() is numGradRows / N", () => {
    assert.equal(
      passesOverData({ numLogLikRows: 0, numGradRows: 1000, numHessianRows: 0 }, 400),
      2.5,
    );
  });
});

Deno.test("gradient estimators count m gradient rows and no likelihood rows per call", () => {
  const arena = loadCore();
  const rng = new Rng(31);
  const n = 500, d = 3;
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * d] = 1;
    for (let j = 1; j < d; j++) x[i * d + j] = rng.normal();
    y[i] = rng.uniform() < 0.5 ? 1 : 0;
  }
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), {
    family: "logistic",
  });
  const cv = new ControlVariates(model, new Float64Array(d), { order: 2 });
  for (
    const est of [
      minibatchGradient(model, { batchSize: 40 }),
      controlVariateGradient(model, { batchSize: 40, controlVariates: cv }),
    ]
  ) {
    const before = { ...model.cost };
    est.estimate(new Float64Array([0.1, -0.2, 0.3]), rng);
    assert.equal(model.cost.numGradRows - before.numGradRows, 40);
    assert.equal(model.cost.numLogLikRows - before.numLogLikRows, 0);
    est.dispose();
  }
});
