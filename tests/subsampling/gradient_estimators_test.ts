/**
 * The gradient estimators of subsampling/gradient_estimators.ts against the
 * combined ℓ + ∇ℓ pass: the minibatch estimate has the bits of the combined
 * pass over the listed rows, the full gradient (a gradient-only pass for
 * compact GLMs) those of the combined pass over all rows, and both count
 * only gradient rows.
 */

import assert from "node:assert/strict";
import { availableBackends, loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import { Rng } from "../../random/rng.ts";
import { fullGradient, minibatchGradient } from "../../subsampling/gradient_estimators.ts";

const CASES = [
  { family: "logistic", storage: "f64" },
  { family: "logistic", storage: "f32" },
  { family: "poisson", storage: "f64" },
  { family: "gaussian", storage: "f32" },
] as const;

function bitsEqual(a: Float64Array, b: Float64Array, what: string): void {
  assert.equal(a.length, b.length, `${what}: length`);
  for (let j = 0; j < a.length; j++) {
    assert.ok(Object.is(a[j], b[j]), `${what}[${j}]: ${a[j]} ≠ ${b[j]}`);
  }
}

for (const backend of availableBackends()) {
  Deno.test(`minibatchGradient() on the ${backend} core has the combined pass's bits and counts`, () => {
    const arena = loadCore({ backend });
    for (const { family, storage } of CASES) {
      for (const d of [1, 3, 29]) {
        for (const m of [1, 2, 3, 5, 7, 23]) {
          for (const replace of [false, true]) {
            const rng = new Rng(11 + d + m);
            const N = 60;
            const x = rng.fillNormal(new Float64Array(N * d)), y = new Float64Array(N);
            for (let i = 0; i < N; i++) {
              const u = rng.uniform();
              y[i] = family === "logistic"
                ? (u < 0.4 ? 1 : 0)
                : family === "poisson"
                ? Math.floor(4 * u)
                : 2 * u - 1;
            }
            const data = glmDataFromArrays(arena, x, y, { numCols: d, storage });
            const model = new GlmModel(
              data,
              family === "gaussian" ? { family, sigma: 0.7 } : { family },
            );
            const est = minibatchGradient(model, { batchSize: m, replace });
            const what = `${family} ${storage} d=${d} m=${m} replace=${replace}`;
            for (let call = 0; call < 3; call++) {
              const theta = rng.fillNormal(new Float64Array(d)).map((v) => 0.3 * v);
              const ll = model.cost.numLogLikRows, gr = model.cost.numGradRows;
              const e = est.estimate(theta, rng);
              assert.equal(model.cost.numGradRows - gr, m, `${what}: gradient rows`);
              assert.equal(model.cost.numLogLikRows, ll, `${what}: ℓ rows`);
              // What the estimator computed before: the combined pass over the listed rows.
              const sum = new Float64Array(d), prior = new Float64Array(d);
              model.kernels.logLikelihood(data, theta, { rows: e.rows, grad: sum });
              model.logPrior(theta, prior);
              const expected = prior.map((p, j) => p + (N / m) * sum[j]);
              bitsEqual(e.grad, expected, what);
            }
            est.dispose();
            model.dispose();
          }
        }
      }
    }
  });
}

for (const backend of availableBackends()) {
  Deno.test(`fullGradient() on the ${backend} core has the combined pass's bits and counts`, () => {
    const arena = loadCore({ backend });
    for (const { family, storage } of CASES) {
      for (const d of [1, 3, 29]) {
        for (const N of [1, 2, 3, 5, 7, 23]) {
          const rng = new Rng(31 + d + N);
          const x = rng.fillNormal(new Float64Array(N * d)), y = new Float64Array(N);
          for (let i = 0; i < N; i++) {
            const u = rng.uniform();
            y[i] = family === "logistic"
              ? (u < 0.4 ? 1 : 0)
              : family === "poisson"
              ? Math.floor(4 * u)
              : 2 * u - 1;
          }
          const data = glmDataFromArrays(arena, x, y, { numCols: d, storage });
          const model = new GlmModel(
            data,
            family === "gaussian" ? { family, sigma: 0.7 } : { family },
          );
          const est = fullGradient(model);
          const what = `${family} ${storage} d=${d} N=${N}`;
          const theta = rng.fillNormal(new Float64Array(d)).map((v) => 0.3 * v);
          const ll = model.cost.numLogLikRows, gr = model.cost.numGradRows;
          const e = est.estimate(theta, rng);
          assert.equal(model.cost.numGradRows - gr, N, `${what}: gradient rows`);
          assert.equal(model.cost.numLogLikRows, ll, `${what}: ℓ rows`);
          // What the estimator computed before: ∇Σℓᵢ from the combined pass, plus ∇ log p.
          const expected = new Float64Array(d), prior = new Float64Array(d);
          model.kernels.logLikelihood(data, theta, { grad: expected });
          model.logPrior(theta, prior);
          for (let j = 0; j < d; j++) expected[j] += prior[j];
          bitsEqual(e.grad, expected, what);
          model.dispose();
        }
      }
    }
  });
}
