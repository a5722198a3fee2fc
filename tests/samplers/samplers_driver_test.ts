/**
 * Tests of samplers/, part 2: mass-matrix and step-size adaptation pieces,
 * RW-MH, the run driver and bad inputs; the integrator, metrics and HMC are in
 * samplers_hmc_test.ts.
 *
 * Statistical checks compare against analytic values of Gaussian targets with
 * tolerances from Monte Carlo standard errors (batch means, in
 * _samplers_fixtures.ts); seeds are fixed. Nothing was tuned to pass: each
 * tolerance is justified where it is set.
 */

import assert from "node:assert/strict";
import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
import { newCostCounter } from "../../models/model.ts";
import { Rng } from "../../random/rng.ts";
import {
  denseMetric,
  diagonalMetric,
  dualAveraging,
  hessianAdaptationInit,
  hessianAdaptationUpdate,
  hmc,
  identityMetric,
  infoAcrossChains,
  metricFromNegativeHessian,
  runHmc,
  runRwmh,
  sampleChains,
  welfordCovariance,
  welfordInit,
  welfordUpdate,
  windowSchedule,
} from "../../samplers/mod.ts";
import { assertMatchesGaussian, fakeDataModel, mean, target2 } from "../_samplers_fixtures.ts";

// ---------------------------------------------------------------- adaptation pieces

Deno.test("windowSchedule() follows Stan's windows", () => {
  const fmt = (n: number) => windowSchedule(n).map((w) => `${w.start}-${w.end}`).join(" ");
  assert.equal(fmt(1000), "75-100 100-150 150-250 250-450 450-950");
  assert.equal(fmt(2000), "75-100 100-150 150-250 250-450 450-850 850-1950");
  // 100 < 75 + 25 + 50: 15 % / 75 % / 10 %.
  assert.equal(fmt(100), "15-90");
  assert.equal(fmt(10), "");
});

Deno.test("welfordCovariance() matches the two-pass covariance", () => {
  const rng = new Rng("welford");
  const xs = Array.from(
    { length: 200 },
    () => rng.fillNormal(new Float64Array(3), { mean: 5, sd: 2 }),
  );
  const w = welfordInit(3, { dense: true });
  for (const x of xs) welfordUpdate(w, x);
  const cov = welfordCovariance(w, { regularize: false });
  const m = [0, 1, 2].map((j) => mean(xs.map((x) => x[j])));
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const c = xs.reduce((s, x) => s + (x[i] - m[i]) * (x[j] - m[j]), 0) / 199;
      assert.ok(Math.abs(cov[i * 3 + j] - c) < 1e-12);
    }
  }
  const reg = welfordCovariance(w);
  assert.ok(Math.abs(reg[0] - ((200 / 205) * cov[0] + 1e-3 * 5 / 205)) < 1e-15);
});

Deno.test("dualAveraging.findReasonableStepSize() scales with the target", () => {
  // Algorithm 4 stops where the one-step acceptance ratio crosses ½, which for
  // N(0, σ²) happens at ε of order σ: the results for σ = 1 and σ = 0.01 should
  // differ by a factor within [25, 400] of 100 (both are powers of 2 times 1).
  const eps = [1, 0.01].map((s) => {
    const t = gaussianTarget(new Float64Array(3), new Float64Array([s * s, s * s, s * s]));
    const st = hmc.init(new Float64Array([s, -s, s]), t.logDensityAndGradient);
    return dualAveraging.findReasonableStepSize(st, new Rng("frss"), {
      logDensityAndGradientFn: t.logDensityAndGradient,
      metric: identityMetric(3),
    });
  });
  assert.ok(eps[0] / eps[1] >= 25 && eps[0] / eps[1] <= 400, `ε: ${eps}`);
});

// ---------------------------------------------------------------- RW-MH

Deno.test("runRwmh() samples a correlated 2-d Gaussian", () => {
  const r = runRwmh(target2, { seed: 21, numWarmup: 1000, numSamples: 10_000, numChains: 4 });
  assertMatchesGaussian(r, target2.mean, target2.sd);
  const acc = mean(infoAcrossChains(r, { field: "acceptanceRate" }).flatMap((a) => Array.from(a)));
  // Robbins–Monro targets 0.234; the 2-d optimum is ≈ 0.35 (Gelman et al. 1996), so only a loose check.
  assert.ok(acc > 0.15 && acc < 0.35, `acceptance ${acc}`);
});

// ---------------------------------------------------------------- driver

Deno.test("sampleChains() is reproducible and attributes cost", async (t) => {
  await t.step("same seed → bit-identical draws and info; chains differ", () => {
    const run = () =>
      runHmc(target2, { seed: "repro", numWarmup: 100, numSamples: 100, numChains: 2, jitter: 1 });
    const a = run(), b = run();
    for (let c = 0; c < 2; c++) {
      for (let j = 0; j < 2; j++) assert.deepEqual(a.draws[c][j], b.draws[c][j]);
      assert.deepEqual(a.chains[c].info.sampling, b.chains[c].info.sampling);
      assert.deepEqual(a.chains[c].info.warmup, b.chains[c].info.warmup);
    }
    assert.notDeepEqual(a.draws[0][0], a.draws[1][0]);
    assert.notDeepEqual(a.chains[0].initialPosition, a.chains[1].initialPosition);
    const c = runHmc(target2, {
      seed: "other",
      numWarmup: 100,
      numSamples: 100,
      numChains: 2,
      jitter: 1,
    });
    assert.notDeepEqual(a.draws[0][0], c.draws[0][0]);
  });

  await t.step("fixed ε: warmup = init + warmup steps, sampling = sampling steps", () => {
    const n = 100;
    const model = fakeDataModel(n);
    const r = runHmc(model, {
      seed: 5,
      numWarmup: 50,
      numSamples: 70,
      numChains: 3,
      stepSize: 0.3,
      adaptStepSize: false,
      metricAdaptation: "identity",
      numIntegrationSteps: 4,
      thin: 2,
      init: "given", // cost of the kernel alone, no start search
    });
    assert.equal(r.numDraws, 35);
    for (const c of r.chains) {
      const wsteps = c.info.warmup.numIntegrationSteps.reduce((s, x) => s + x, 0);
      const ssteps = c.info.sampling.numIntegrationSteps.reduce((s, x) => s + x, 0);
      assert.equal(wsteps, 50 * 4);
      assert.deepEqual(c.cost.warmup, {
        numLogLikRows: n * (1 + wsteps),
        numGradRows: n * (1 + wsteps),
        numHessianRows: 0,
      });
      assert.deepEqual(c.cost.sampling, {
        numLogLikRows: n * ssteps,
        numGradRows: n * ssteps,
        numHessianRows: 0,
      });
      assert.equal(c.draws[0].length, 35);
    }
    assert.equal(model.calls.grad, 3 * (1 + 50 * 4 + 70 * 4));
  });

  await t.step("adaptation (step-size search, Hessians) is charged to warmup", () => {
    const n = 10;
    const model = fakeDataModel(n);
    const r = runHmc(model, {
      seed: 6,
      numWarmup: 200,
      numSamples: 100,
      numChains: 2,
      metricAdaptation: "hessian",
      updateEvery: 50,
      init: "given", // Hessian passes of warmup alone, no start search
    });
    let total = 0;
    for (const c of r.chains) {
      const ssteps = c.info.sampling.numIntegrationSteps.reduce((s, x) => s + x, 0);
      assert.deepEqual(c.cost.sampling, {
        numLogLikRows: n * ssteps,
        numGradRows: n * ssteps,
        numHessianRows: 0,
      });
      // Hessian passes (at warmup iterations 50, 100, 150) add Hessian rows
      // only: the gradient rows are the gradient evaluations'.
      assert.equal(c.cost.warmup.numHessianRows, 3 * n);
      assert.equal(c.cost.warmup.numGradRows, c.cost.warmup.numLogLikRows);
      total += c.cost.warmup.numGradRows + c.cost.sampling.numGradRows;
    }
    assert.equal(model.calls.hessian, 2 * 3);
    assert.equal(total, n * model.calls.grad);
  });

  await t.step("records every numeric and boolean info field", () => {
    let k = 0;
    const r = sampleChains({
      sampler: {
        init: (p) => p,
        step: (_rng, s) => ({
          state: s,
          info: {
            alphaU: 0.5,
            sign: k++ % 2 === 0,
            label: "x",
            extra: k > 5 ? 1 : undefined,
            isDivergent: false,
          },
        }),
        position: (s) => s,
      },
      model: { dim: 1, cost: newCostCounter() },
      seed: 0,
      numWarmup: 0,
      numSamples: 8,
      numChains: 1,
    });
    const info = r.chains[0].info.sampling;
    assert.deepEqual(Object.keys(info).sort(), ["alphaU", "extra", "isDivergent", "sign"]);
    assert.deepEqual(Array.from(info.sign), [1, 0, 1, 0, 1, 0, 1, 0]);
    assert.deepEqual(Array.from(info.extra).map((x) => Number.isNaN(x) ? "nan" : x), [
      "nan",
      "nan",
      "nan",
      "nan",
      "nan",
      1,
      1,
      1,
    ]);
  });
});

Deno.test("hmc.step() flags divergences", async (t) => {
  await t.step("absurd ε: energy error above the threshold", () => {
    const r = runHmc(target2, {
      seed: 7,
      numWarmup: 0,
      numSamples: 20,
      numChains: 1,
      stepSize: 100,
      adaptStepSize: false,
      metricAdaptation: "identity",
      numIntegrationSteps: 10,
    });
    const info = r.chains[0].info.sampling;
    assert.ok(info.isDivergent.every((x) => x === 1));
    assert.ok(info.isAccepted.every((x) => x === 0));
  });
  await t.step("leaving the support", () => {
    const fn = (x: Float64Array, g: Float64Array) => {
      g[0] = 1 / x[0] - 1;
      return x[0] > 0 ? Math.log(x[0]) - x[0] : -Infinity;
    };
    const r = hmc.step(new Rng(1), hmc.init(new Float64Array([0.01]), fn), {
      logDensityAndGradientFn: fn,
      stepSize: 5,
      numIntegrationSteps: 3,
      metric: identityMetric(1),
    });
    assert.equal(r.info.isDivergent, true);
    assert.equal(r.info.isAccepted, false);
    assert.equal(r.info.acceptanceRate, 0);
    assert.equal(r.state.position[0], 0.01);
  });
});

// ---------------------------------------------------------------- bad inputs

Deno.test("samplers reject bad inputs with messages naming the value", async (t) => {
  const fn = target2.logDensityAndGradient;
  const state = hmc.init(new Float64Array(2), fn);
  await t.step("negative stepSize", () => {
    assert.throws(
      () =>
        hmc.step(new Rng(0), state, {
          logDensityAndGradientFn: fn,
          stepSize: -0.1,
          numIntegrationSteps: 3,
          metric: identityMetric(2),
        }),
      { name: "RangeError", message: /stepSize must be positive.*-0\.1/ },
    );
    assert.throws(() => runHmc(target2, { seed: 0, stepSize: -0.1 }), /stepSize.*-0\.1/);
    assert.throws(() => dualAveraging.init(0), /stepSize0.*got 0/);
  });
  await t.step("numSamples 0 and other sizes", () => {
    assert.throws(() => runHmc(target2, { seed: 0, numSamples: 0 }), {
      name: "RangeError",
      message: /numSamples.*got 0/,
    });
    assert.throws(() => runHmc(target2, { seed: 0, numChains: 1.5 }), /numChains.*got 1\.5/);
    assert.throws(
      () =>
        hmc.step(new Rng(0), state, {
          logDensityAndGradientFn: fn,
          stepSize: 0.1,
          numIntegrationSteps: 0,
          metric: identityMetric(2),
        }),
      /numIntegrationSteps.*got 0/,
    );
  });
  await t.step("wrong position length", () => {
    assert.throws(
      () => runHmc(target2, { seed: 0, initialPosition: new Float64Array(3) }),
      { name: "RangeError", message: /initialPosition must have length 2, got 3/ },
    );
    assert.throws(
      () =>
        hmc.step(new Rng(0), state, {
          logDensityAndGradientFn: fn,
          stepSize: 0.1,
          numIntegrationSteps: 1,
          metric: identityMetric(3),
        }),
      /length 3, got 2/,
    );
  });
  await t.step("non-positive-definite mass matrices", () => {
    assert.throws(() => denseMetric(new Float64Array([1, 2, 2, 1])), {
      name: "RangeError",
      message: /inverseMassMatrix is not positive definite: pivot 1 of 2 is -3/,
    });
    assert.throws(() => diagonalMetric(new Float64Array([1, -2])), /got -2 at index 1/);
    assert.throws(() => denseMetric(new Float64Array([1, 0.5, 0, 1])), /must be symmetric/);
    // H positive definite ⇒ −H negative definite: no jitter can fix that, so
    // −H is shrunk toward its |diagonal| (0.1·(−I) + 0.9·I = 0.8 I): warmup
    // goes on with a usable metric instead of stopping.
    const shrunk = metricFromNegativeHessian(new Float64Array([1, 0, 0, 1]));
    Array.from(shrunk.inverseMassMatrix).forEach((v, k) =>
      assert.ok(Math.abs(v - [1.25, 0, 0, 1.25][k]) < 1e-12, `${k}: ${v}`)
    );
    assert.throws(
      () => metricFromNegativeHessian(new Float64Array([NaN, 0, 0, 1])),
      /must be finite/,
    );
    // A barely indefinite −H is rescued by the jitter.
    const m = metricFromNegativeHessian(new Float64Array([-1, -1, -1, -1 + 1e-17]));
    assert.equal(m.kind, "dense");
  });
});

Deno.test("hessianAdaptationUpdate() keeps the metric when the Hessian function declines", () => {
  // The function declines the first update (returns false) and accepts the
  // second: only the second yields a metric and moves the centre, and each
  // window's mean is taken over its own 10 positions.
  let calls = 0;
  const s = hessianAdaptationInit(1, {
    numWarmup: 100,
    updateEvery: 10,
    hessianFn: (_x, out) => {
      out[0] = -4;
      return ++calls > 1;
    },
  });
  const results = [];
  for (let i = 0; i < 20; i++) {
    results.push(hessianAdaptationUpdate(s, new Float64Array([i < 10 ? 0 : 1])));
  }
  assert.equal(calls, 2);
  assert.ok(results.slice(0, 19).every((m) => m === null));
  assert.equal(results[19]?.inverseMassMatrix[0], 0.25);
  assert.deepEqual(Array.from(s.center ?? []), [1]);
  assert.equal(s.numHessianEvaluations, 1);
});
