/**
 * Tests of the data layer's synthetic data sets and bases: higgsShaped(),
 * gaussianLinearRegression(), bankruptcyShaped() and bsplineBasis().
 */

import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import {
  bankruptcyShaped,
  bsplineBasis,
  gaussianLinearRegression,
  higgsShaped,
  quantileKnots,
} from "../../data/mod.ts";
import { Rng } from "../../random/rng.ts";
import { _bitsEqual, _readAll, _x } from "../_data_fixtures.ts";

/** Solve the symmetric positive-definite system A x = b (Cholesky); also returns diag(A⁻¹). */
function _spdSolve(
  a: Float64Array,
  b: Float64Array,
  d: number,
): { x: Float64Array; invDiag: Float64Array } {
  const l = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * d + j];
      for (let k = 0; k < j; k++) s -= l[i * d + k] * l[j * d + k];
      l[i * d + j] = i === j ? Math.sqrt(s) : s / l[j * d + j];
    }
  }
  const solve = (rhs: Float64Array) => {
    const z = new Float64Array(d), x = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      let s = rhs[i];
      for (let k = 0; k < i; k++) s -= l[i * d + k] * z[k];
      z[i] = s / l[i * d + i];
    }
    for (let i = d - 1; i >= 0; i--) {
      let s = z[i];
      for (let k = i + 1; k < d; k++) s -= l[k * d + i] * x[k];
      x[i] = s / l[i * d + i];
    }
    return x;
  };
  const invDiag = new Float64Array(d);
  for (let j = 0; j < d; j++) {
    const e = new Float64Array(d);
    e[j] = 1;
    invDiag[j] = solve(e)[j];
  }
  return { x: solve(b), invDiag };
}

function _sigmoid(eta: number): number {
  return 1 / (1 + Math.exp(-eta));
}

Deno.test("higgsShaped() is seeded, shaped like HIGGS and has the model's event rate", async (t) => {
  const arena = loadCore({ backend: "reference" });
  const n = 20_000;
  const a = higgsShaped(arena, { n, seed: 11 });
  await t.step("same seed → bit-identical data, other seed → different", () => {
    const b = higgsShaped(loadCore({ backend: "reference" }), { n, seed: 11 });
    const c = higgsShaped(arena, { n, seed: 12 });
    const [xa, ya] = _readAll(a.data), [xb, yb] = _readAll(b.data), [xc] = _readAll(c.data);
    assert.ok(_bitsEqual(xa, xb) && _bitsEqual(ya, yb));
    assert.ok(_bitsEqual(a.trueCoefficients, b.trueCoefficients));
    assert.ok(!_bitsEqual(xa, xc));
  });
  await t.step("30 columns, intercept first, standard-normal covariates", () => {
    assert.equal(a.data.numCols, 30);
    assert.equal(a.data.columnNames[0], "(Intercept)");
    const x = _x(a.data);
    let mean = 0, sq = 0;
    for (let i = 0; i < n; i++) {
      assert.equal(x[i * 30], 1);
      mean += x[i * 30 + 7];
      sq += x[i * 30 + 7] ** 2;
    }
    mean /= n;
    assert.ok(Math.abs(mean) < 4 / Math.sqrt(n), `mean ${mean}`);
    assert.ok(Math.abs(sq / n - 1) < 4 * Math.sqrt(2 / n), `second moment ${sq / n}`);
  });
  await t.step("event rate within 4 sd of the generating model's, and near 0.5", () => {
    const [x, y] = _readAll(a.data);
    const beta = a.trueCoefficients;
    let sumY = 0, sumP = 0, varSum = 0;
    for (let i = 0; i < n; i++) {
      let eta = 0;
      for (let j = 0; j < 30; j++) eta += x[i * 30 + j] * beta[j];
      const p = _sigmoid(eta);
      sumP += p;
      varSum += p * (1 - p);
      sumY += y[i];
      assert.ok(y[i] === 0 || y[i] === 1);
    }
    assert.ok(Math.abs(sumY - sumP) <= 4 * Math.sqrt(varSum), `Σy = ${sumY}, Σp = ${sumP}`);
    assert.ok(Math.abs(sumP / n - 0.5) < 0.1, `model event rate ${sumP / n}`);
  });
  await t.step(
    "f32 storage holds the f64 values rounded; a test split shares the coefficients",
    () => {
      const f32 = higgsShaped(arena, { n, seed: 11, storage: "f32" });
      assert.equal(f32.data.storage, "f32");
      assert.deepEqual(arena.readF32(f32.data.x, n * 30), Float32Array.from(_x(a.data)));
      const split = higgsShaped(arena, { n, seed: 11, numTest: 500 });
      assert.ok(_bitsEqual(_x(split.data), _x(a.data)), "training rows do not depend on numTest");
      assert.equal(split.test!.numRows, 500);
      assert.ok(_bitsEqual(split.trueCoefficients, a.trueCoefficients));
      assert.ok(!_bitsEqual(_x(split.test!), _x(a.data).subarray(0, 500 * 30)));
    },
  );
  await t.step("bad options throw naming the value", () => {
    assert.throws(() => higgsShaped(arena, { n: 0, seed: 1 }), /n must be .* got 0/);
    assert.throws(() => higgsShaped(arena, { n: 10, seed: 1, storage: "f16" as "f32" }), /"f16"/);
  });
});

Deno.test("gaussianLinearRegression() lets OLS recover the coefficients within 4 standard errors", () => {
  const arena = loadCore({ backend: "reference" });
  const n = 5000, d = 6, sigma = 0.7;
  const gen = gaussianLinearRegression(arena, { n, d, sigma, seed: 3 });
  assert.equal(gen.sigma, sigma);
  const [x, y] = _readAll(gen.data);
  const xtx = new Float64Array(d * d), xty = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) {
      xty[j] += x[i * d + j] * y[i];
      for (let k = 0; k < d; k++) xtx[j * d + k] += x[i * d + j] * x[i * d + k];
    }
  }
  const { x: bhat, invDiag } = _spdSolve(xtx, xty, d);
  let rss = 0;
  for (let i = 0; i < n; i++) {
    let fit = 0;
    for (let j = 0; j < d; j++) fit += x[i * d + j] * bhat[j];
    rss += (y[i] - fit) ** 2;
  }
  const s2 = rss / (n - d);
  assert.ok(
    Math.abs(Math.sqrt(s2) - sigma) < 4 * sigma / Math.sqrt(2 * (n - d)),
    `σ̂ = ${Math.sqrt(s2)}`,
  );
  for (let j = 0; j < d; j++) {
    const se = Math.sqrt(s2 * invDiag[j]);
    assert.ok(
      Math.abs(bhat[j] - gen.trueCoefficients[j]) < 4 * se,
      `coefficient ${j}: OLS ${bhat[j]}, true ${gen.trueCoefficients[j]}, se ${se}`,
    );
  }
  const noIntercept = gaussianLinearRegression(arena, {
    n: 10,
    d: 2,
    sigma: 1,
    seed: 3,
    intercept: false,
  });
  assert.deepEqual(noIntercept.data.columnNames, ["x1", "x2"]);
  assert.notEqual(_x(noIntercept.data)[0], 1);
});

Deno.test("bankruptcyShaped() builds 81 spline columns with a ~1 % event rate", async (t) => {
  const arena = loadCore({ backend: "reference" });
  const n = 30_000;
  const gen = bankruptcyShaped(arena, { n, seed: 5 });
  const [x, y] = _readAll(gen.data);
  await t.step("shape, names and centred spline columns", () => {
    assert.equal(gen.data.numCols, 81);
    assert.equal(gen.data.columnNames.length, 81);
    assert.equal(gen.data.columnNames[1], "earningsRatio_bs1");
    assert.equal(gen.covariates.length, n * 8);
    for (let j = 1; j < 81; j++) {
      let m = 0;
      for (let i = 0; i < n; i++) m += x[i * 81 + j];
      assert.ok(Math.abs(m / n) < 1e-12, `column ${j} mean ${m / n}`);
    }
    for (let i = 0; i < n; i += 997) assert.equal(x[i * 81], 1);
  });
  await t.step("event rate within 4 sd of the model's, which is calibrated to 1 %", () => {
    let sumY = 0, sumP = 0, varSum = 0;
    for (let i = 0; i < n; i++) {
      let eta = gen.trueIntercept;
      for (let j = 0; j < 8; j++) eta += gen.trueEffect(j, gen.covariates[i * 8 + j]);
      const p = _sigmoid(eta);
      sumP += p;
      varSum += p * (1 - p);
      sumY += y[i];
    }
    assert.ok(Math.abs(sumP / n - gen.expectedEventRate) < 1e-12);
    assert.ok(Math.abs(gen.expectedEventRate - 0.01) < 1e-6, `model rate ${gen.expectedEventRate}`);
    assert.ok(Math.abs(sumY - sumP) <= 4 * Math.sqrt(varSum), `Σy = ${sumY}, Σp = ${sumP}`);
  });
  await t.step("macro covariates are constant within periods; firm ratios are skewed", () => {
    const byPeriod = new Map<number, [number, number]>();
    for (let i = 0; i < n; i++) {
      const v: [number, number] = [gen.covariates[i * 8 + 6], gen.covariates[i * 8 + 7]];
      const seen = byPeriod.get(gen.period[i]);
      if (seen === undefined) byPeriod.set(gen.period[i], v);
      else assert.deepEqual(seen, v);
    }
    assert.equal(byPeriod.size, 40);
    let m = 0, m2 = 0, m3 = 0;
    for (let i = 0; i < n; i++) m += gen.covariates[i * 8 + 1];
    m /= n;
    for (let i = 0; i < n; i++) {
      const dv = gen.covariates[i * 8 + 1] - m;
      m2 += dv * dv;
      m3 += dv * dv * dv;
    }
    assert.ok(m3 / n / (m2 / n) ** 1.5 > 2, "interest coverage is right-skewed");
  });
  await t.step("the stored basis rebuilds the design columns of a covariate", () => {
    const j = 0;
    const vals = Array.from({ length: 50 }, (_, i) => gen.covariates[i * 8 + j]);
    const b = bsplineBasis(vals, {
      knots: gen.basis.knots[j],
      dropFirst: true,
      centre: gen.basis.centre[j],
    });
    for (let i = 0; i < 50; i++) {
      for (let k = 0; k < 10; k++) assert.ok(Math.abs(b[i * 10 + k] - x[i * 81 + 1 + k]) < 1e-15);
    }
  });
  await t.step("same seed → bit-identical", () => {
    const again = bankruptcyShaped(arena, { n: 2000, seed: 5, storage: "f32" });
    const again2 = bankruptcyShaped(arena, { n: 2000, seed: 5, storage: "f32" });
    assert.deepEqual(
      arena.readF32(again.data.x, 2000 * 81),
      arena.readF32(again2.data.x, 2000 * 81),
    );
  });
});

/** Direct Cox–de Boor recursion (the oracle for the triangular scheme). */
function _coxDeBoor(knots: Float64Array, k: number, q: number, x: number, last: boolean): number {
  if (q === 0) {
    if (knots[k] <= x && x < knots[k + 1]) return 1;
    // x at the right boundary belongs to the last non-empty span
    return last && x === knots[k + 1] && knots[k] < knots[k + 1] ? 1 : 0;
  }
  const a = knots[k + q] - knots[k], b = knots[k + q + 1] - knots[k + 1];
  return (a > 0 ? ((x - knots[k]) / a) * _coxDeBoor(knots, k, q - 1, x, last) : 0) +
    (b > 0 ? ((knots[k + q + 1] - x) / b) * _coxDeBoor(knots, k + 1, q - 1, x, last) : 0);
}

Deno.test("bsplineBasis() is a non-negative partition of unity on quantile knots", async (t) => {
  const rng = new Rng(9);
  const values = Array.from({ length: 2001 }, () => Math.exp(rng.normal())); // skewed
  await t.step("rows sum to 1 and entries are in [0, 1]", () => {
    for (const degree of [1, 2, 3]) {
      const b = bsplineBasis(values, { numBasis: 10, degree });
      for (let i = 0; i < values.length; i++) {
        let s = 0;
        for (let k = 0; k < 10; k++) {
          const v = b[i * 10 + k];
          assert.ok(v >= 0 && v <= 1 + 1e-15, `entry ${v}`);
          s += v;
        }
        assert.ok(Math.abs(s - 1) < 1e-12, `row ${i} sums to ${s}`);
      }
    }
  });
  await t.step("interior knots are the quantiles of the covariate", () => {
    const knots = quantileKnots(values, { numSplines: 10, degree: 3 });
    assert.equal(knots.length, 14);
    const sorted = [...values].sort((p, q) => p - q);
    for (let k = 0; k < 4; k++) {
      assert.equal(knots[k], sorted[0]);
      assert.equal(knots[10 + k], sorted[2000]);
    }
    // 6 interior knots at j/7; with 2001 values, (2000·j/7) falls between order statistics
    for (let j = 1; j <= 6; j++) {
      const h = 2000 * j / 7, lo = Math.floor(h);
      const expected = sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
      assert.ok(Math.abs(knots[3 + j] - expected) < 1e-12);
      const below = values.filter((v) => v < knots[3 + j]).length;
      assert.ok(Math.abs(below / values.length - j / 7) < 1e-3);
    }
  });
  await t.step("values match the direct Cox–de Boor recursion", () => {
    const knots = quantileKnots(values, { numSplines: 8, degree: 3 });
    const probe = [values[0], values[1], Math.min(...values), Math.max(...values), knots[5], 1.0];
    const b = bsplineBasis(probe, { knots });
    for (let i = 0; i < probe.length; i++) {
      for (let k = 0; k < 8; k++) {
        const direct = _coxDeBoor(knots, k, 3, probe[i], probe[i] === knots[knots.length - 1]);
        assert.ok(Math.abs(b[i * 8 + k] - direct) < 1e-14, `x=${probe[i]} k=${k}`);
      }
    }
  });
  await t.step("dropFirst keeps numBasis columns; centre makes them mean-zero", () => {
    const b = bsplineBasis(values, { numBasis: 10, dropFirst: true, centre: true });
    assert.equal(b.length, values.length * 10);
    for (let k = 0; k < 10; k++) {
      let m = 0;
      for (let i = 0; i < values.length; i++) m += b[i * 10 + k];
      assert.ok(Math.abs(m) < 1e-10);
    }
    assert.throws(() => bsplineBasis(values, { numBasis: 2 }), /numBasis .* got 2/);
    assert.throws(() => bsplineBasis([1, 1, 1]), /not all be equal/);
  });
});
