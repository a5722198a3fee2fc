/**
 * Tests of samplers/: integrator, metrics, HMC, dual averaging, mass-matrix
 * adaptation, RW-MH and the run driver.
 *
 * Statistical checks compare against analytic values of Gaussian targets with
 * tolerances from Monte Carlo standard errors (batch means, computed here) or
 * from the leapfrog's known error terms; seeds are fixed. Nothing was tuned to
 * pass: each tolerance is justified where it is set.
 */
import assert from "node:assert/strict";
import { gaussianTarget } from "../models/gaussian_target.ts";
import { type CostCounter, type DataModel, newCostCounter } from "../models/model.ts";
import { Rng } from "../random/rng.ts";
import {
  cholesky,
  denseMetric,
  diagonalMetric,
  dualAveraging,
  hessianAdaptationInit,
  hessianAdaptationUpdate,
  hmc,
  identityMetric,
  infoAcrossChains,
  inverseSpd,
  leapfrog,
  matVec,
  metricFromNegativeHessian,
  parameterDraws,
  runHmc,
  runRwmh,
  sampleChains,
  type SamplingResult,
  welfordCovariance,
  welfordInit,
  welfordUpdate,
  windowSchedule,
} from "../samplers/mod.ts";

// ---------------------------------------------------------------- helpers

/** Σᵢⱼ = sᵢ sⱼ ρ^|i−j|. */
function arCovariance(sd: number[], rho: number): Float64Array {
  const d = sd.length, c = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) c[i * d + j] = sd[i] * sd[j] * Math.pow(rho, Math.abs(i - j));
  }
  return c;
}

function mean(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s / x.length;
}

/**
 * Pooled mean over chains and its MCSE by non-overlapping batch means
 * (batch size ⌊√n⌋ per chain; Flegal & Jones 2010): Var(chain mean) ≈
 * b·s²_batch/n, chains independent and of equal length.
 */
function meanAndMcse(chains: Float64Array[]): { mean: number; mcse: number } {
  let m = 0, v = 0;
  for (const x of chains) {
    const n = x.length, b = Math.floor(Math.sqrt(n)), a = Math.floor(n / b);
    const bm = new Float64Array(a);
    for (let k = 0; k < a; k++) bm[k] = mean(x.subarray(k * b, (k + 1) * b));
    const mu = mean(x), mb = mean(bm);
    let s2 = 0;
    for (let k = 0; k < a; k++) s2 += (bm[k] - mb) ** 2;
    s2 /= a - 1;
    m += mu / chains.length;
    v += (b * s2 / n) / (chains.length * chains.length);
  }
  return { mean: m, mcse: Math.sqrt(v) };
}

function pooledSd(chains: Float64Array[]): number {
  const all = chains.flatMap((c) => Array.from(c));
  const m = mean(all);
  return Math.sqrt(all.reduce((s, x) => s + (x - m) ** 2, 0) / (all.length - 1));
}

/**
 * Posterior means within 4 MCSE of the truth (two-sided normal tail 6e-5 per
 * coordinate) and marginal sds within 10 % (the relative standard error of an
 * sd from n_eff draws is ≈ 1/√(2 n_eff), ≤ 2.5 % for the n_eff ≥ 1000 these
 * runs give, so 10 % is a ≥ 4-SE band).
 */
function assertMatchesGaussian(result: SamplingResult, mu: Float64Array, sd: Float64Array): void {
  for (let j = 0; j < mu.length; j++) {
    const chains = parameterDraws(result, j);
    const { mean: m, mcse } = meanAndMcse(chains);
    assert.ok(
      Math.abs(m - mu[j]) < 4 * mcse,
      `mean of ${j}: ${m} vs ${mu[j]}, |error| ${Math.abs(m - mu[j])} ≥ 4 MCSE = ${4 * mcse}`,
    );
    const s = pooledSd(chains);
    assert.ok(Math.abs(s / sd[j] - 1) < 0.1, `sd of ${j}: ${s} vs ${sd[j]}`);
  }
}

/** A DataModel over a Gaussian "posterior" that counts rows like a real one (n rows per pass). */
function fakeDataModel(numRows: number): DataModel & { calls: { grad: number; hessian: number } } {
  const target = gaussianTarget(new Float64Array([0.5, -0.5]), new Float64Array([1, 0.3, 0.3, 2]));
  const cost: CostCounter = newCostCounter();
  const calls = { grad: 0, hessian: 0 };
  return {
    dim: 2,
    parameterNames: ["a", "b"],
    numRows,
    cost,
    calls,
    logDensity(theta) {
      cost.numLogLikRows += numRows;
      return target.logDensity(theta);
    },
    logDensityAndGradient(theta, grad) {
      calls.grad++;
      cost.numLogLikRows += numRows;
      cost.numGradRows += numRows;
      return target.logDensityAndGradient(theta, grad);
    },
    logPrior: (_theta) => 0,
    logLikelihood: (theta) => target.logDensity(theta),
    logLikelihoodRows: () => 0,
    perRowGradients: () => {},
    logLikelihoodHessian(theta, out) {
      calls.hessian++;
      cost.numGradRows += numRows;
      target.logDensityHessian(theta, out);
    },
    logPriorHessian: (_theta, out) => void out.fill(0),
  };
}

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

const mu2 = new Float64Array([1, -2]);
const target2 = gaussianTarget(mu2, arCovariance([1, 3], 0.9));
const sd10 = Array.from({ length: 10 }, (_, i) => 0.5 + 0.2 * i);
const mu10 = new Float64Array(sd10.map((_, i) => i - 4.5));
const target10 = gaussianTarget(mu10, arCovariance(sd10, 0.5));

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
      metric: "dense",
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
    metric: "identity",
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
    metric: "hessian",
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
      metric: "hessian",
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
        metric: "hessian",
        initialMetric: denseMetric(new Float64Array([1])),
      }),
    /initialMetric must have the model's dimension 10, got 1/,
  );
});

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
      metric: "identity",
      numIntegrationSteps: 4,
      thin: 2,
    });
    assert.equal(r.numDraws, 35);
    for (const c of r.chains) {
      const wsteps = c.info.warmup.numIntegrationSteps.reduce((s, x) => s + x, 0);
      const ssteps = c.info.sampling.numIntegrationSteps.reduce((s, x) => s + x, 0);
      assert.equal(wsteps, 50 * 4);
      assert.deepEqual(c.cost.warmup, {
        numLogLikRows: n * (1 + wsteps),
        numGradRows: n * (1 + wsteps),
      });
      assert.deepEqual(c.cost.sampling, { numLogLikRows: n * ssteps, numGradRows: n * ssteps });
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
      metric: "hessian",
      updateEvery: 50,
    });
    let total = 0;
    for (const c of r.chains) {
      const ssteps = c.info.sampling.numIntegrationSteps.reduce((s, x) => s + x, 0);
      assert.deepEqual(c.cost.sampling, { numLogLikRows: n * ssteps, numGradRows: n * ssteps });
      // Hessian passes (at warmup iterations 50, 100, 150) add gradient rows only.
      assert.equal(c.cost.warmup.numGradRows - c.cost.warmup.numLogLikRows, 3 * n);
      total += c.cost.warmup.numGradRows + c.cost.sampling.numGradRows;
    }
    assert.equal(model.calls.hessian, 2 * 3);
    assert.equal(total, n * (model.calls.grad + model.calls.hessian));
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
      metric: "identity",
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
    // H positive definite ⇒ −H negative definite: no jitter can fix that.
    assert.throws(
      () => metricFromNegativeHessian(new Float64Array([1, 0, 0, 1])),
      /negative Hessian is not positive definite.*jitter/,
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
