/**
 * Tests of diagnostics/ outside ESS and MCSE: autocovariance, quantiles, the
 * integrated autocorrelation time, kde, ROC curves and covariance ellipses.
 * Every claim is checked against an analytic answer, a hand computation, or an
 * independent implementation, with tolerances derived from the estimators'
 * sampling variability (see the comments).
 */

import assert from "node:assert/strict";
import {
  autocorrelation,
  autocovariance,
  covarianceEllipse,
  essBasic,
  integratedAutocorrelationTime,
  integratedAutocorrelationTimes,
  kde,
  quantile,
  quantiles,
  rocAuc,
  rocCurve,
  silvermanBandwidth,
} from "../../diagnostics/mod.ts";
import {
  ar1Chain,
  directAutocovariance,
  normalGenerator,
  relativeError,
  xorshift128,
} from "../_diagnostics_fixtures.ts";

// ---------------------------------------------------------------------------

Deno.test("autocovariance() and autocorrelation()", async (t) => {
  await t.step("autocovariance() equals the direct O(n²) sum to 1e-10", () => {
    const normal = normalGenerator(11);
    // Lengths around powers of two exercise the zero padding to M ≥ 2n.
    for (const n of [2, 3, 5, 17, 64, 100, 1000, 1025]) {
      const x = ar1Chain(0.7, n, normal);
      const fast = autocovariance(x);
      const direct = directAutocovariance(x);
      assert.equal(fast.length, n);
      for (let lag = 0; lag < n; lag++) {
        assert.ok(
          Math.abs(fast[lag] - direct[lag]) < 1e-10,
          `n=${n} lag=${lag}: ${fast[lag]} vs ${direct[lag]}`,
        );
      }
    }
  });

  await t.step("autocorrelation() equals the direct sum over γ_0 to 1e-10", () => {
    const x = ar1Chain(0.9, 777, normalGenerator(12));
    const rho = autocorrelation(x);
    const direct = directAutocovariance(x);
    assert.equal(rho[0], 1);
    for (let lag = 0; lag < x.length; lag++) {
      assert.ok(Math.abs(rho[lag] - direct[lag] / direct[0]) < 1e-10);
    }
  });

  await t.step("autocovariance() returns lags 0..maxLag only", () => {
    const x = ar1Chain(0.5, 300, normalGenerator(13));
    const direct = directAutocovariance(x);
    for (const maxLag of [0, 3, 40, 299]) {
      const acov = autocovariance(x, { maxLag });
      assert.equal(acov.length, maxLag + 1);
      for (let lag = 0; lag <= maxLag; lag++) assert.ok(Math.abs(acov[lag] - direct[lag]) < 1e-10);
    }
  });

  await t.step("autocovariance() rejects bad input with messages naming it", () => {
    assert.throws(() => autocovariance([1]), {
      name: "RangeError",
      message: /at least 2 values, got 1/,
    });
    assert.throws(() => autocovariance([1, NaN, 2]), {
      name: "RangeError",
      message: /x\[1\] must be finite, got NaN/,
    });
    assert.throws(() => autocovariance([1, 2, Infinity]), {
      name: "RangeError",
      message: /x\[2\] must be finite, got Infinity/,
    });
    assert.throws(() => autocovariance("abc" as unknown as number[]), {
      name: "TypeError",
      message: /x must be an array of numbers, got string abc/,
    });
    assert.throws(() => autocovariance([1, "2"] as unknown as number[]), {
      name: "TypeError",
      message: /x\[1\] must be a number, got string 2/,
    });
    assert.throws(() => autocovariance([1, 2, 3], { maxLag: 3 }), {
      name: "RangeError",
      message: /maxLag must be at most n − 1 = 2, got 3/,
    });
    assert.throws(() => autocovariance([1, 2, 3], { maxLag: -1 }), {
      name: "RangeError",
      message: /maxLag must be an integer of at least 0, got -1/,
    });
    assert.throws(() => autocorrelation([4, 4, 4]), {
      name: "RangeError",
      message: /must not be constant/,
    });
  });
});

Deno.test("quantile() and quantiles()", async (t) => {
  // x = 3 1 4 1 5 9 2 6, sorted 1 1 2 3 4 5 6 9, h = 7p (0-based):
  // p=0.1: h=0.7 → 1 + 0.7·(1−1) = 1;  p=0.25: h=1.75 → 1 + 0.75·(2−1) = 1.75
  // p=0.5: h=3.5 → 3 + 0.5·(4−3) = 3.5; p=0.9: h=6.3 → 6 + 0.3·(9−6) = 6.9
  // (R: quantile(c(3,1,4,1,5,9,2,6), c(.1,.25,.5,.9)) gives 1.00 1.75 3.50 6.90)
  const x = [3, 1, 4, 1, 5, 9, 2, 6];

  await t.step("quantile() matches hand-computed type-7 values", () => {
    assert.equal(quantile(x, 0), 1);
    assert.equal(quantile(x, 0.1), 1);
    assert.equal(quantile(x, 0.25), 1.75);
    assert.equal(quantile(x, 0.5), 3.5);
    assert.ok(Math.abs(quantile(x, 0.9) - 6.9) < 1e-12);
    assert.equal(quantile(x, 1), 9);
    assert.equal(quantile([42], 0.3), 42);
  });

  await t.step("quantiles() equals quantile() at each probability", () => {
    const probs = [0.05, 0.5, 0.95, 0.333];
    assert.deepEqual(quantiles(x, probs), probs.map((p) => quantile(x, p)));
  });

  await t.step("quantile() rejects bad probabilities and draws", () => {
    assert.throws(() => quantile(x, 1.5), {
      name: "RangeError",
      message: /p must be in \[0, 1\], got 1.5/,
    });
    assert.throws(() => quantile(x, NaN), {
      name: "RangeError",
      message: /p must be in \[0, 1\], got NaN/,
    });
    assert.throws(() => quantile([], 0.5), {
      name: "RangeError",
      message: /x must have at least 1 value, got 0/,
    });
    assert.throws(() => quantiles(x, [0.5, -0.1]), {
      name: "RangeError",
      message: /probs\[1\] must be in \[0, 1\], got -0.1/,
    });
  });
});
Deno.test("integratedAutocorrelationTime()", async (t) => {
  // AR(1), φ = 0.5: τ = 3. Sokal's variance formula var(τ̂) ≈ 2(2M + 1)τ²/n
  // with window M ≈ cτ = 15 gives a relative sd of √(62/131072) = 2.2%
  // (measured over 40 seeds: 2.2%), so the tolerance is 4 sd = 9%.
  const x = ar1Chain(0.5, 131072, normalGenerator(51));

  await t.step(
    "integratedAutocorrelationTime() with Sokal's window is within 9% of (1+φ)/(1−φ)",
    () => {
      const tau = integratedAutocorrelationTime(x);
      assert.ok(relativeError(tau, 3) < 0.09, `${tau}`);
    },
  );

  await t.step("integratedAutocorrelationTime() with Geyer's sequence is n / unsplit ESS", () => {
    const tau = integratedAutocorrelationTime(x, { method: "geyer" });
    assert.ok(relativeError(tau, x.length / essBasic([x], { split: false })) < 1e-12);
    assert.ok(relativeError(tau, 3) < 0.09, `${tau}`);
  });

  await t.step("integratedAutocorrelationTime() with a fixed window sums ρ̂_1..ρ̂_m", () => {
    // x = 1..5: ρ̂_1 = 4/10, ρ̂_2 = −1/10 → τ̂ = 1 + 2(0.4 − 0.1) = 1.6
    const tau = integratedAutocorrelationTime([1, 2, 3, 4, 5], { method: "fixed", maxLag: 2 });
    assert.ok(Math.abs(tau - 1.6) < 1e-12);
  });

  await t.step(
    "integratedAutocorrelationTimes() equals one call per chain, transforms shared",
    () => {
      const y = ar1Chain(0.9, 131072, normalGenerator(52));
      const z = ar1Chain(0.2, 5000, normalGenerator(53)); // another length: its own transform
      for (
        const options of [{}, { method: "fixed" as const, maxLag: 30 }, {
          method: "geyer" as const,
        }]
      ) {
        const taus = integratedAutocorrelationTimes([x, y, z], options);
        const one = [x, y, z].map((c) => integratedAutocorrelationTime(c, options));
        for (let k = 0; k < 3; k++) assert.ok(relativeError(taus[k], one[k]) < 1e-10, `${k}`);
      }
      assert.ok(relativeError(integratedAutocorrelationTimes([x, y])[1], 19) < 0.15);
      assert.throws(() => integratedAutocorrelationTimes([x, [2, 2, 2, 2]]), {
        name: "RangeError",
        message: /chains\[1\] must not be constant/,
      });
    },
  );

  await t.step("integratedAutocorrelationTime() rejects bad input", () => {
    assert.throws(() => integratedAutocorrelationTime([1, 1, 1, 1]), {
      name: "RangeError",
      message: /must not be constant/,
    });
    assert.throws(() => integratedAutocorrelationTime([1, 2, 3]), {
      name: "RangeError",
      message: /at least 4 values, got 3/,
    });
    assert.throws(() => integratedAutocorrelationTime([1, 2, 3, 4], { method: "fixed" }), {
      name: "RangeError",
      message: /maxLag is required/,
    });
    assert.throws(
      () => integratedAutocorrelationTime([1, 2, 3, 4], { method: "fixed", maxLag: 4 }),
      { name: "RangeError", message: /at most n − 1 = 3, got 4/ },
    );
    assert.throws(() => integratedAutocorrelationTime([1, 2, 3, 4], { c: 0 }), {
      name: "RangeError",
      message: /options.c must be positive and finite, got 0/,
    });
    assert.throws(
      () => integratedAutocorrelationTime([1, 2, 3, 4], { method: "batch" as "sokal" }),
      { name: "TypeError", message: /method must be "sokal", "geyer" or "fixed", got batch/ },
    );
  });
});

Deno.test("kde() and silvermanBandwidth()", async (t) => {
  const x = Float64Array.from({ length: 1000 }, normalGenerator(61));
  const trapezoid = (g: ArrayLike<number>, f: ArrayLike<number>): number => {
    let area = 0;
    for (let i = 1; i < g.length; i++) area += ((g[i] - g[i - 1]) * (f[i] + f[i - 1])) / 2;
    return area;
  };

  await t.step("kde() integrates to ≈ 1 on its default grid", () => {
    // The grid spans min − 3h .. max + 3h, so the missing mass is below
    // 2Φ(−3) = 0.0027; the trapezoid error with 512 points is ~1e−5.
    const { x: grid, density } = kde(x);
    assert.equal(grid.length, 512);
    const area = trapezoid(grid, density);
    assert.ok(area <= 1 + 1e-4 && area > 1 - 0.0027 - 1e-4, `${area}`);
  });

  await t.step("kde() integrates to 1 within 1e-6 on a grid ±10h wide", () => {
    const h = silvermanBandwidth(x);
    const lo = Math.min(...x) - 10 * h;
    const hi = Math.max(...x) + 10 * h;
    const grid = Array.from({ length: 4001 }, (_, i) => lo + ((hi - lo) * i) / 4000);
    assert.ok(Math.abs(trapezoid(grid, kde(x, { grid }).density) - 1) < 1e-6);
  });

  await t.step("kde() evaluates the kernel sum at given points", () => {
    // x = 0, 1 with h = 1: f(0) = (φ(0) + φ(1))/2
    const phi = (z: number): number => Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
    const { density, bandwidth } = kde([0, 1], { grid: [0, 0.5], bandwidth: 1 });
    assert.equal(bandwidth, 1);
    assert.ok(Math.abs(density[0] - (phi(0) + phi(1)) / 2) < 1e-15);
    assert.ok(Math.abs(density[1] - phi(0.5)) < 1e-15);
  });

  await t.step("silvermanBandwidth() is 0.9·min(sd, IQR/1.34)·n^(−1/5)", () => {
    // 1..10: sd = √(55/6) = 3.03, IQR = 7.75 − 3.25 = 4.5 → 4.5/1.34 = 3.358
    const h = silvermanBandwidth([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.ok(Math.abs(h - 0.9 * Math.sqrt(55 / 6) * Math.pow(10, -0.2)) < 1e-12);
    assert.ok(silvermanBandwidth([5, 5, 5]) > 0); // R's fallback |x₁| for zero spread
  });

  await t.step("kde() rejects bad input", () => {
    assert.throws(() => kde([]), {
      name: "RangeError",
      message: /x must have at least 1 value, got 0/,
    });
    assert.throws(() => kde([1, NaN]), {
      name: "RangeError",
      message: /x\[1\] must be finite, got NaN/,
    });
    assert.throws(() => kde([1, 2], { bandwidth: 0 }), {
      name: "RangeError",
      message: /bandwidth must be positive and finite, got 0/,
    });
    assert.throws(() => kde([1, 2], { numPoints: 1 }), {
      name: "RangeError",
      message: /numPoints must be an integer of at least 2, got 1/,
    });
    assert.throws(() => kde([1, 2], { grid: [0, Infinity] }), {
      name: "RangeError",
      message: /grid\[1\] must be finite, got Infinity/,
    });
  });
});

Deno.test("rocCurve() and rocAuc()", async (t) => {
  await t.step("rocAuc() is 1 for perfectly separated scores and 0 for reversed ones", () => {
    const labels = [0, 0, 0, 1, 1, 1];
    const scores = [0.1, 0.2, 0.3, 0.7, 0.8, 0.9];
    assert.equal(rocAuc(scores, labels), 1);
    assert.equal(rocAuc(scores.map((s) => -s), labels), 0);
  });

  await t.step("rocAuc() is ≈ 0.5 for random scores", () => {
    // Under no association the AUC (Mann–Whitney U/(n₁n₂)) has sd
    // √((n₁+n₂+1)/(12n₁n₂)) = 0.0091 for n₁ = n₂ = 2000; tolerance 4 sd.
    const u = xorshift128(71);
    const scores = Array.from({ length: 4000 }, () => u());
    const labels = Array.from({ length: 4000 }, (_, i) => i % 2);
    assert.ok(Math.abs(rocAuc(scores, labels) - 0.5) < 0.037);
  });

  await t.step("rocAuc() counts ties as ½ (hand-computed case)", () => {
    // positives {0.4, 0.8}, negatives {0.1, 0.4}: pairs 1 + 1 + 1 + ½ = 3.5 of 4
    assert.equal(rocAuc([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]), 0.875);
    assert.equal(rocAuc([1, 1, 1, 1], [0, 1, 0, 1]), 0.5);
  });

  await t.step("rocCurve() steps through distinct scores with ties together", () => {
    const roc = rocCurve([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]);
    assert.deepEqual(roc.thresholds, [Infinity, 0.8, 0.4, 0.1]);
    assert.deepEqual(roc.fpr, [0, 0, 0.5, 1]);
    assert.deepEqual(roc.tpr, [0, 0.5, 1, 1]);
  });

  await t.step("rocAuc() rejects bad input", () => {
    assert.throws(() => rocAuc([0.1, 0.2], [0, 2]), {
      name: "RangeError",
      message: /labels\[1\] must be 0 or 1, got 2/,
    });
    assert.throws(() => rocAuc([0.1, 0.2], [1, 1]), {
      name: "RangeError",
      message: /both 0 and 1, got 2 ones out of 2/,
    });
    assert.throws(() => rocAuc([0.1, 0.2, 0.3], [0, 1]), {
      name: "RangeError",
      message: /same length, got 3 and 2/,
    });
    assert.throws(() => rocAuc([0.1, NaN], [0, 1]), {
      name: "RangeError",
      message: /scores\[1\] must be finite, got NaN/,
    });
  });
});

Deno.test("covarianceEllipse()", async (t) => {
  // Bivariate normal with sd 1 and 2 and correlation 0.6.
  const normal = normalGenerator(81);
  const n = 4000;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < n; i++) {
    const z1 = normal();
    const z2 = normal();
    xs.push(1 + z1);
    ys.push(-2 + 2 * (0.6 * z1 + 0.8 * z2));
  }
  const e = covarianceEllipse(xs, ys);

  await t.step("covarianceEllipse() points lie on the χ²₂(0.95) Mahalanobis contour", () => {
    const [[a, b], [, d]] = e.covariance;
    const det = a * d - b * b;
    assert.ok(Math.abs(e.radiusSquared + 2 * Math.log(0.05)) < 1e-12);
    for (let k = 0; k < e.x.length; k++) {
      const dx = e.x[k] - e.mean[0];
      const dy = e.y[k] - e.mean[1];
      const m2 = (d * dx * dx - 2 * b * dx * dy + a * dy * dy) / det;
      assert.ok(Math.abs(m2 - e.radiusSquared) < 1e-10);
    }
    assert.equal(e.x.length, 101);
    assert.ok(Math.abs(e.x[0] - e.x[100]) < 1e-12 && Math.abs(e.y[0] - e.y[100]) < 1e-12);
  });

  await t.step("covarianceEllipse() contains ≈ 95% of Gaussian draws", () => {
    // Binomial sd √(0.95·0.05/4000) = 0.0034; tolerance 4 sd ≈ 0.014.
    const [[a, b], [, d]] = e.covariance;
    const det = a * d - b * b;
    let inside = 0;
    for (let i = 0; i < n; i++) {
      const dx = xs[i] - e.mean[0];
      const dy = ys[i] - e.mean[1];
      if ((d * dx * dx - 2 * b * dx * dy + a * dy * dy) / det <= e.radiusSquared) inside++;
    }
    assert.ok(Math.abs(inside / n - 0.95) < 0.014, `${inside / n}`);
  });

  await t.step("covarianceEllipse() honours level and numPoints", () => {
    const e50 = covarianceEllipse(xs, ys, { level: 0.5, numPoints: 8 });
    assert.equal(e50.x.length, 8);
    assert.ok(Math.abs(e50.radiusSquared - 2 * Math.log(2)) < 1e-12);
  });

  await t.step("covarianceEllipse() rejects bad input", () => {
    assert.throws(() => covarianceEllipse([1, 2, 3, 4], [1, 2, 3]), {
      name: "RangeError",
      message: /same length, got 4 and 3/,
    });
    assert.throws(() => covarianceEllipse([1, 2, 3], [2, 4, 6]), {
      name: "RangeError",
      message: /positive definite/,
    });
    assert.throws(() => covarianceEllipse(xs, ys, { level: 1 }), {
      name: "RangeError",
      message: /level must be in \(0, 1\), got 1/,
    });
    assert.throws(() => covarianceEllipse([1, 2], [3, 4]), {
      name: "RangeError",
      message: /x must have at least 3 values, got 2/,
    });
  });
});
