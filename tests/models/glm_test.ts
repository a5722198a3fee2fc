import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { type GlmFamily, GlmModel } from "../../models/glm.ts";
import { Rng } from "../../random/rng.ts";

function _data(family: GlmFamily, n: number, d: number, seed: number) {
  const rng = new Rng(seed);
  const x = new Float64Array(n * d), y = new Float64Array(n);
  const beta = rng.fillNormal(new Float64Array(d), { sd: 0.4 });
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) {
      x[i * d + j] = j === 0 ? 1 : rng.normal();
      eta += x[i * d + j] * beta[j];
    }
    if (family === "logistic") y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    else if (family === "poisson") y[i] = rng.poisson(Math.exp(eta));
    else y[i] = eta + 0.7 * rng.normal();
  }
  return { x, y };
}

function _lgamma1p(y: number): number {
  let s = 0;
  for (let k = 2; k <= y; k++) s += Math.log(k);
  return s;
}

function _directLogLik(
  family: GlmFamily,
  x: Float64Array,
  y: Float64Array,
  d: number,
  theta: Float64Array,
) {
  let ll = 0;
  const n = y.length;
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) eta += x[i * d + j] * theta[j];
    if (family === "logistic") ll += y[i] * eta - Math.log1p(Math.exp(eta));
    else if (family === "poisson") ll += y[i] * eta - Math.exp(eta) - _lgamma1p(y[i]);
    else ll += -0.5 * Math.log(2 * Math.PI * 0.49) - (y[i] - eta) ** 2 / (2 * 0.49);
  }
  return ll;
}

for (const backend of ["reference", "auto"] as const) {
  Deno.test(`GlmModel (${backend}) matches direct sums and finite differences`, async (t) => {
    const arena = loadCore({ backend });
    for (const family of ["logistic", "gaussian", "poisson"] as const) {
      await t.step(family, () => {
        const n = 301, d = 5;
        const { x, y } = _data(family, n, d, 7);
        const data = glmDataFromArrays(arena, x, y, { numCols: d });
        const model = new GlmModel(data, { family, sigma: 0.7, priorScale: 2 });
        const theta = new Float64Array([0.1, -0.2, 0.3, 0.05, -0.1]);
        const ll = model.logLikelihood(theta);
        const direct = _directLogLik(family, x, y, d, theta);
        assert.ok(Math.abs(ll - direct) <= 1e-10 * Math.abs(direct), `${ll} vs ${direct}`);

        const grad = new Float64Array(d);
        const lp = model.logDensityAndGradient(theta, grad);
        const h = 1e-5;
        for (let j = 0; j < d; j++) {
          const tp = theta.slice(), tm = theta.slice();
          tp[j] += h;
          tm[j] -= h;
          const fd = (model.logDensity(tp) - model.logDensity(tm)) / (2 * h);
          assert.ok(
            Math.abs(fd - grad[j]) <= 1e-6 * (1 + Math.abs(fd)),
            `grad[${j}] ${grad[j]} vs ${fd}`,
          );
        }
        assert.ok(Math.abs(lp - (ll + model.logPrior(theta))) < 1e-9);

        // Hessian vs finite differences of the gradient.
        const hess = new Float64Array(d * d);
        model.logLikelihoodHessian(theta, hess);
        const gp = new Float64Array(d), gm = new Float64Array(d);
        for (let j = 0; j < d; j++) {
          const tp = theta.slice(), tm = theta.slice();
          tp[j] += h;
          tm[j] -= h;
          model.logLikelihood(tp, gp);
          model.logLikelihood(tm, gm);
          for (let k = 0; k < d; k++) {
            const fd = (gp[k] - gm[k]) / (2 * h);
            assert.ok(Math.abs(fd - hess[k * d + j]) <= 1e-5 * (1 + Math.abs(fd)), `H[${k},${j}]`);
          }
        }

        // Rows: sums over a subset equal the per-row values; per-row gradients sum to the subset gradient.
        const rows = new Int32Array([3, 3, 17, 250, 0]);
        const per = new Float64Array(rows.length), g = new Float64Array(d);
        const s = model.logLikelihoodRows(theta, rows, { grad: g, perRow: per });
        assert.ok(Math.abs(s - per.reduce((a, b) => a + b, 0)) < 1e-10);
        const pg = new Float64Array(rows.length * d);
        model.perRowGradients(theta, rows, pg);
        for (let j = 0; j < d; j++) {
          let acc = 0;
          for (let k = 0; k < rows.length; k++) acc += pg[k * d + j];
          assert.ok(Math.abs(acc - g[j]) < 1e-10 * (1 + Math.abs(acc)));
        }
        model.dispose();
      });
    }
  });
}

Deno.test("GlmModel counts per-row evaluations", () => {
  const arena = loadCore({ backend: "reference" });
  const { x, y } = _data("logistic", 50, 3, 1);
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: 3 }), {
    family: "logistic",
  });
  const theta = new Float64Array(3), g = new Float64Array(3);
  model.logDensity(theta);
  assert.deepEqual(model.cost, { numLogLikRows: 50, numGradRows: 0, numHessianRows: 0 });
  model.logDensityAndGradient(theta, g);
  assert.deepEqual(model.cost, { numLogLikRows: 100, numGradRows: 50, numHessianRows: 0 });
  model.logLikelihoodRows(theta, new Int32Array([1, 2]), { grad: g });
  assert.deepEqual(model.cost, { numLogLikRows: 102, numGradRows: 52, numHessianRows: 0 });
  // Hessians are counted as Hessian rows, not gradient rows.
  model.logLikelihoodHessian(theta, new Float64Array(9));
  assert.deepEqual(model.cost, { numLogLikRows: 102, numGradRows: 52, numHessianRows: 50 });
  model.perRowHessians(theta, new Int32Array([0, 3, 3]), new Float64Array(27));
  assert.deepEqual(model.cost, { numLogLikRows: 102, numGradRows: 52, numHessianRows: 53 });
});

Deno.test("GlmModel rejects bad input with a clear message", async (t) => {
  const arena = loadCore({ backend: "reference" });
  const data = glmDataFromArrays(arena, [1, 2, 3, 4], [0, 1], { numCols: 2 });
  await t.step("unknown family", () => {
    assert.throws(
      () => new GlmModel(data, { family: "probit" as unknown as GlmFamily }),
      /family must be .* got "probit"/,
    );
  });
  await t.step("gaussian without sigma", () => {
    assert.throws(
      () => new GlmModel(data, { family: "gaussian" }),
      /sigma must be .* got undefined/,
    );
  });
  await t.step("non-positive prior scale", () => {
    assert.throws(
      () => new GlmModel(data, { family: "logistic", priorScale: [1, -1] }),
      /priorScale .* got -1/,
    );
  });
  await t.step("wrong theta length", () => {
    const m = new GlmModel(data, { family: "logistic" });
    assert.throws(() => m.logDensity(new Float64Array(3)), /theta must have length 2, got 3/);
  });
  await t.step("row index out of range", () => {
    const m = new GlmModel(data, { family: "logistic" });
    assert.throws(
      () => m.logLikelihoodRows(new Float64Array(2), new Int32Array([5])),
      /row index 5/,
    );
  });
  await t.step("ragged and non-finite arrays", () => {
    assert.throws(
      () => glmDataFromArrays(arena, [1, 2, 3], [0], { numCols: 2 }),
      /not a multiple of numCols/,
    );
    assert.throws(
      () => glmDataFromArrays(arena, [1, NaN], [0], { numCols: 2 }),
      /non-finite value NaN at row 1, column 2/,
    );
  });
});

Deno.test('GlmModel rowLayout: "windowed" where the rows repeat per-column values, same posterior to rounding', () => {
  const arena = loadCore();
  // A spline-like design as f32: an intercept and three blocks of 8 columns
  // holding their column's constant except for a run of 3 cells per block.
  const n = 301, d = 25, rng = new Rng(5);
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * d] = 1;
    for (let j = 1; j < d; j++) x[i * d + j] = -0.125 * (j % 5);
    for (let b = 0; b < 3; b++) {
      const s = 1 + 8 * b + Math.floor(rng.uniform() * 6);
      for (let j = s; j < s + 3; j++) x[i * d + j] = rng.uniform();
    }
    y[i] = rng.uniform() < 0.3 ? 1 : 0;
  }
  const data = glmDataFromArrays(arena, x, y, { numCols: d, storage: "f32" });
  const options = { family: "logistic" as const, priorScale: 2, interceptColumn: 0 };
  const dense = new GlmModel(data, options);
  const windowed = new GlmModel(data, { ...options, rowLayout: "windowed" });
  assert.equal(dense.rowLayout, "dense");
  assert.equal(windowed.rowLayout, "windowed");
  assert.equal(windowed.options.rowLayout, "windowed");
  const theta = rng.fillNormal(new Float64Array(d), { sd: 0.3 });
  const g1 = new Float64Array(d), g2 = new Float64Array(d), g3 = new Float64Array(d);
  const l1 = dense.logDensityAndGradient(theta, g1);
  const l2 = windowed.logDensityAndGradient(theta, g2);
  windowed.logDensityGradient(theta, g3);
  assert.ok(Math.abs(l1 - l2) < 1e-12 * Math.abs(l1));
  for (let j = 0; j < d; j++) {
    assert.ok(Math.abs(g1[j] - g2[j]) < 1e-11, `∇${j}`);
    assert.ok(Object.is(g3[j], g2[j]), `gradient-only ∇${j}`);
  }
  assert.ok(Object.is(windowed.logDensity(theta), l2));
  assert.equal(windowed.cost.numGradRows, 2 * n);
  // Rows with no repeated values, a family without the kernel: dense.
  const plain = glmDataFromArrays(
    arena,
    _data("logistic", 50, 6, 1).x,
    _data("logistic", 50, 6, 1).y,
    {
      numCols: 6,
    },
  );
  assert.equal(
    new GlmModel(plain, { family: "logistic", rowLayout: "windowed" }).rowLayout,
    "dense",
  );
  assert.equal(
    new GlmModel(data, {
      family: "binomial",
      trials: new Float64Array(n).fill(1),
      rowLayout: "windowed",
    })
      .rowLayout,
    "dense",
  );
  assert.throws(
    () => new GlmModel(data, { ...options, rowLayout: "sparse" as "dense" }),
    /rowLayout must be "dense" or "windowed", got "sparse"/,
  );
  windowed.dispose();
  dense.dispose();
});
