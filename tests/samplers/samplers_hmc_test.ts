/**
 * Tests of samplers/, part 1: linear algebra, metrics, the leapfrog
 * integrator and HMC; adaptation pieces, RW-MH and the run driver are in
 * samplers_driver_test.ts.
 *
 * Statistical checks compare against analytic values of Gaussian targets with
 * tolerances from Monte Carlo standard errors (batch means, in
 * _samplers_fixtures.ts) or from the leapfrog's known error terms; seeds are
 * fixed. Nothing was tuned to pass: each tolerance is justified where it is set.
 */

import assert from "node:assert/strict";
import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
import { Rng } from "../../random/rng.ts";
import {
  cholesky,
  denseMetric,
  diagonalMetric,
  hmc,
  identityMetric,
  infoAcrossChains,
  inverseSpd,
  leapfrog,
  matVec,
  metricFromNegativeHessian,
  runHmc,
} from "../../samplers/mod.ts";
import {
  arCovariance,
  assertMatchesGaussian,
  mean,
  target10,
  target2,
} from "../_samplers_fixtures.ts";

// ---------------------------------------------------------------- linear algebra and metrics

Deno.test("cholesky() and inverseSpd() solve SPD systems", () => {
  const a = arCovariance([1, 2, 0.5, 3, 1.5], 0.7);
  const l = cholesky(a);
  const d = 5;
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += l[i * d + k] * l[j * d + k];
      assert.ok(Math.abs(s - a[i * d + j]) < 1e-12, `L Lᵀ (${i}, ${j})`);
    }
  }
  const inv = inverseSpd(a);
  for (let j = 0; j < d; j++) {
    const e = new Float64Array(d);
    e[j] = 1;
    const col = matVec(a, matVec(inv, e));
    for (let i = 0; i < d; i++) assert.ok(Math.abs(col[i] - e[i]) < 1e-10, `A A⁻¹ (${i}, ${j})`);
  }
});

Deno.test("Metric sampleMomentum() draws N(0, M)", async (t) => {
  // Covariance of N = 40 000 draws vs M; the SE of a sample covariance entry
  // is √((MᵢᵢMⱼⱼ + Mᵢⱼ²)/N); allow 5 SE.
  const n = 40_000;
  const check = (name: string, metric: ReturnType<typeof identityMetric>, m: Float64Array) => {
    const rng = new Rng(`momentum-${name}`);
    const d = metric.dim, p = new Float64Array(d), s = new Float64Array(d * d);
    for (let k = 0; k < n; k++) {
      metric.sampleMomentum(rng, p);
      for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) s[i * d + j] += p[i] * p[j] / n;
    }
    for (let i = 0; i < d; i++) {
      for (let j = 0; j < d; j++) {
        const se = Math.sqrt((m[i * d + i] * m[j * d + j] + m[i * d + j] ** 2) / n);
        assert.ok(Math.abs(s[i * d + j] - m[i * d + j]) < 5 * se, `${name} cov (${i}, ${j})`);
      }
    }
  };
  const invMass = arCovariance([1, 2, 0.5], 0.6);
  await t.step("dense", () => check("dense", denseMetric(invMass), inverseSpd(invMass)));
  await t.step("diagonal", () => {
    check(
      "diagonal",
      diagonalMetric(new Float64Array([4, 0.25])),
      new Float64Array([0.25, 0, 0, 4]),
    );
  });
  await t.step("from negative Hessian: M = −H", () => {
    const h = arCovariance([1, 2, 0.5], -0.4).map((x) => -x);
    check("hessian", metricFromNegativeHessian(h), h.map((x) => -x));
  });
});

Deno.test("Metric kineticEnergy() and velocity() use M⁻¹", () => {
  const invMass = arCovariance([1, 2, 0.5], 0.6);
  const metrics = [
    denseMetric(invMass),
    metricFromNegativeHessian(inverseSpd(invMass).map((x) => -x)),
  ];
  const p = new Float64Array([0.3, -1.2, 2]);
  const v0 = matVec(invMass, p);
  const k0 = 0.5 * (p[0] * v0[0] + p[1] * v0[1] + p[2] * v0[2]);
  for (const m of metrics) {
    const v = m.velocity(p, new Float64Array(3));
    for (let i = 0; i < 3; i++) assert.ok(Math.abs(v[i] - v0[i]) < 1e-12);
    assert.ok(Math.abs(m.kineticEnergy(p) - k0) < 1e-12);
  }
});

// ---------------------------------------------------------------- leapfrog

Deno.test("leapfrog() is time-reversible", async (t) => {
  const target = gaussianTarget(
    new Float64Array([1, 0, -1, 2, 0]),
    arCovariance([1, 2, 0.5, 1, 3], 0.8),
  );
  const fn = target.logDensityAndGradient;
  const metrics = {
    identity: identityMetric(5),
    dense: denseMetric(arCovariance([1, 1.5, 0.7, 1, 2], 0.5)),
  };
  for (const [name, metric] of Object.entries(metrics)) {
    await t.step(name, () => {
      const rng = new Rng(`rev-${name}`);
      const theta0 = rng.fillNormal(new Float64Array(5));
      const p0 = metric.sampleMomentum(rng, new Float64Array(5));
      const g = new Float64Array(5);
      const s = {
        position: Float64Array.from(theta0),
        momentum: Float64Array.from(p0),
        logDensity: fn(theta0, g),
        gradient: g,
      };
      const opts = { logDensityAndGradientFn: fn, metric, stepSize: 0.1, numIntegrationSteps: 50 };
      const fwd = leapfrog(s, opts);
      assert.equal(fwd.numIntegrationSteps, 50);
      assert.equal(fwd.isDivergent, false);
      for (let i = 0; i < 5; i++) s.momentum[i] = -s.momentum[i];
      leapfrog(s, opts);
      for (let i = 0; i < 5; i++) {
        assert.ok(Math.abs(s.position[i] - theta0[i]) < 1e-10, `θ[${i}]`);
        assert.ok(Math.abs(s.momentum[i] + p0[i]) < 1e-10, `p[${i}]`);
      }
    });
  }
});

Deno.test("leapfrog() energy error is O(ε²)", () => {
  // For a quadratic potential the leapfrog conserves the shadow Hamiltonian
  // H̃ = H − Σᵢ ε²ωᵢ²qᵢ²/8 (normal coordinates), so the energy error along a
  // trajectory of fixed time T is exactly Σᵢ ε²ωᵢ²(qᵢ(t)² − qᵢ(0)²)/8 with
  // q(t) following the exact flow up to an O(ε²ω²) frequency shift. Halving ε
  // thus quarters the maximum error up to relative corrections O((εω)²)
  // (frequency shift and the finer grid on which the max is taken). Here
  // εω_max ≤ 0.05·√2 ≈ 0.07, so the corrections are ≈ 1 %: band 4 ± 5 %.
  const target = gaussianTarget(new Float64Array(3), arCovariance([1, 0.8, 1.3], 0.5));
  const fn = target.logDensityAndGradient;
  const metric = identityMetric(3);
  const maxError = (eps: number): number => {
    const theta = new Float64Array([1, -0.5, 0.8]);
    const g = new Float64Array(3);
    const s = {
      position: theta,
      momentum: new Float64Array([0.3, 1, -0.7]),
      logDensity: fn(theta, g),
      gradient: g,
    };
    const h0 = -s.logDensity + metric.kineticEnergy(s.momentum);
    const steps = Math.round(20 / eps);
    let max = 0;
    for (let k = 0; k < steps; k++) {
      leapfrog(s, { logDensityAndGradientFn: fn, metric, stepSize: eps, numIntegrationSteps: 1 });
      max = Math.max(max, Math.abs(-s.logDensity + metric.kineticEnergy(s.momentum) - h0));
    }
    return max;
  };
  const e1 = maxError(0.05), e2 = maxError(0.025);
  const ratio = e1 / e2;
  assert.ok(ratio > 3.8 && ratio < 4.2, `error ratio ${ratio} (${e1} vs ${e2})`);
});

Deno.test("leapfrog() stops and flags non-finite log densities", () => {
  // log π = log θ − θ on θ > 0 (Gamma(2, 1)); −Infinity outside the support.
  const fn = (x: Float64Array, g: Float64Array) => {
    g[0] = 1 / x[0] - 1;
    return x[0] > 0 ? Math.log(x[0]) - x[0] : -Infinity;
  };
  const s = {
    position: new Float64Array([0.5]),
    momentum: new Float64Array([-10]),
    logDensity: fn(new Float64Array([0.5]), new Float64Array(1)),
    gradient: new Float64Array([1]),
  };
  const r = leapfrog(s, {
    logDensityAndGradientFn: fn,
    metric: identityMetric(1),
    stepSize: 0.1,
    numIntegrationSteps: 20,
  });
  assert.equal(r.isDivergent, true);
  assert.ok(r.numIntegrationSteps < 20);
});

// ---------------------------------------------------------------- HMC
Deno.test("runHmc() samples Gaussian targets", async (t) => {
  await t.step("correlated 2-d, diagonal windowed metric", () => {
    const r = runHmc(target2, { seed: 11, numWarmup: 1000, numSamples: 2000, numChains: 4 });
    assertMatchesGaussian(r, target2.mean, target2.sd);
  });
  await t.step("10-d, dense windowed metric", () => {
    const r = runHmc(target10, {
      seed: 12,
      numWarmup: 1000,
      numSamples: 1000,
      numChains: 4,
      metricAdaptation: "dense",
    });
    assertMatchesGaussian(r, target10.mean, target10.sd);
  });
});

Deno.test("hmc.step() accepts almost always with M⁻¹ = Σ and small ε", () => {
  // In whitened coordinates the target is N(0, I) and the energy error is
  // Σᵢ ε²(qᵢ(t)² − qᵢ(0)²)/8 (see the O(ε²) test), so |ΔH| ≤ ε²/8·Σᵢ(pᵢ² + qᵢ²)
  // with expectation ε²·2d/8 = 0.00625 for ε = 0.05, d = 10; since
  // 1 − min(1, e^−x) ≤ max(0, x), mean acceptance ≥ 1 − 0.00625 > 0.99.
  const metric = denseMetric(target10.covariance);
  const fn = target10.logDensityAndGradient;
  let state = hmc.init(target10.mean, fn);
  const rng = new Rng("small-eps");
  let acc = 0;
  const n = 500;
  for (let i = 0; i < n; i++) {
    const r = hmc.step(rng, state, {
      logDensityAndGradientFn: fn,
      stepSize: 0.05,
      numIntegrationSteps: 20,
      metric,
    });
    state = r.state;
    acc += r.info.acceptanceRate / n;
    assert.equal(r.info.numIntegrationSteps, 20);
  }
  assert.ok(acc > 0.99, `mean acceptance ${acc}`);
});

Deno.test("dualAveraging reaches the target acceptance rate", () => {
  // HMC-ECS §6.3 setting: εL = 1.2, δ = 0.8; identity metric on the 10-d
  // target. Tolerance ±0.05 as specified for the sampler foundation.
  const r = runHmc(target10, {
    seed: 13,
    numWarmup: 1000,
    numSamples: 1000,
    numChains: 4,
    metricAdaptation: "identity",
    trajectoryLength: 1.2,
    targetAcceptanceRate: 0.8,
  });
  const acc = mean(infoAcrossChains(r, { field: "acceptanceRate" }).flatMap((a) => Array.from(a)));
  assert.ok(Math.abs(acc - 0.8) < 0.05, `mean acceptance after warmup ${acc}`);
  for (const c of r.chains) {
    assert.equal(c.info.sampling.stepSize.every((e) => e === c.tuning.stepSize), true);
  }
});

Deno.test('runHmc() metric "hessian" sets M⁻¹ = (−∇² log π)⁻¹ (HMC-ECS §6.3)', () => {
  const r = runHmc(target10, {
    seed: 14,
    numWarmup: 450,
    numSamples: 10,
    numChains: 1,
    metricAdaptation: "hessian",
    updateEvery: 200,
  });
  const inv = r.chains[0].tuning.inverseMassMatrix as Float64Array;
  assert.equal(r.chains[0].tuning.metric, "dense");
  for (let i = 0; i < 100; i++) {
    assert.ok(
      Math.abs(inv[i] - target10.covariance[i]) < 1e-10 * (1 + Math.abs(target10.covariance[i])),
    );
  }
});

Deno.test('runHmc() metric "hessian" starts from initialMetric when given', () => {
  // With the true covariance as the starting metric, the trajectories before the
  // first Hessian update need far fewer leapfrog steps than from M = I.
  const run = (initialMetric?: ReturnType<typeof denseMetric>) =>
    runHmc(target10, {
      seed: 15,
      numWarmup: 150,
      numSamples: 10,
      numChains: 1,
      metricAdaptation: "hessian",
      updateEvery: 200,
      initialMetric,
    });
  const steps = (r: ReturnType<typeof runHmc>) =>
    r.chains[0].info.warmup.numIntegrationSteps.reduce((a, b) => a + b, 0);
  const fromIdentity = run(), fromTruth = run(denseMetric(target10.covariance));
  assert.equal(fromTruth.chains[0].tuning.metric, "dense");
  assert.ok(
    steps(fromTruth) < steps(fromIdentity),
    `${steps(fromTruth)} vs ${steps(fromIdentity)}`,
  );
  assert.throws(
    () =>
      runHmc(target10, {
        seed: 1,
        metricAdaptation: "hessian",
        initialMetric: denseMetric(new Float64Array([1])),
      }),
    /initialMetric must have the model's dimension 10, got 1/,
  );
});
