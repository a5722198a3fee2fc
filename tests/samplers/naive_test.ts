/**
 * Tests of naive subsampled HMC (samplers/naive/) and the Gaussian-mean model
 * of Betancourt (2015) (examples/models/gaussian_mean.ts).
 *
 * The model is Gaussian, so every flow is known in closed form: the exact
 * full-data flow is a harmonic oscillator about μ̂ with frequency ω = √P, and
 * the exact flow of H_j = T + J·V_j is the same oscillator about the batch
 * centre c_j. Trajectory tests compare against these exactly; tolerances come
 * from the integrators' error orders, and the statistical checks from MCSE
 * bands (tests/_stat.ts).
 */
import assert from "node:assert/strict";
import { contiguousBatches } from "../../models/batch_potential.ts";
import { gaussianMeanData, GaussianMeanModel } from "../../examples/models/gaussian_mean.ts";
import { hasPerRowHessians } from "../../models/model.ts";
import { Rng } from "../../random/rng.ts";
import { identityMetric } from "../../samplers/metric.ts";
import {
  between,
  integrateBatches,
  NAIVE_SAMPLERS,
  naiveChainSampler,
  runNaive,
  symmetricSequence,
} from "../../samplers/naive/mod.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { assertMeanWithinMcse, assertSdWithinMcse } from "../_stat.ts";

const model1 = new GaussianMeanModel(gaussianMeanData({ seed: 11 }));

/** Exact flow of ½p² + ½P(μ − c)² for time t from (μ0, p0). */
function exactFlow(mu0: number, p0: number, t: number, precision: number, center: number) {
  const w = Math.sqrt(precision), x = mu0 - center;
  return {
    mu: center + x * Math.cos(w * t) + (p0 / w) * Math.sin(w * t),
    p: -x * w * Math.sin(w * t) + p0 * Math.cos(w * t),
  };
}

function integrate(sequence: Int32Array, stepSize: number, batchSize: number, mu0 = 1.1, p0 = 0.7) {
  const s = {
    position: new Float64Array([mu0]),
    momentum: new Float64Array([p0]),
    logDensity: 0,
    gradient: new Float64Array(1),
  };
  const r = integrateBatches(s, sequence, {
    batches: model1.batches(batchSize),
    metric: identityMetric(1),
    stepSize,
  });
  assert.ok(!r.isDivergent);
  return { mu: s.position[0], p: s.momentum[0] };
}

function distance(a: { mu: number; p: number }, b: { mu: number; p: number }, w: number): number {
  // Phase-space distance in the oscillator's natural units (μ scaled by ω).
  return Math.hypot(w * (a.mu - b.mu), a.p - b.p);
}

Deno.test("GaussianMeanModel closed forms", async (t) => {
  await t.step("batch potentials sum to the full potential and match the generic split", () => {
    const b = model1.batches(20), g = contiguousBatches(model1, 20);
    const theta = new Float64Array([0.83]), grad = new Float64Array(1), ggrad = new Float64Array(1);
    let sum = 0, gsum = 0;
    for (let j = 0; j < b.numBatches; j++) {
      const v = b.batchPotential(theta, j, grad);
      const vg = g.batchPotential(theta, j, ggrad);
      assert.ok(Math.abs(v - vg) < 1e-9 * Math.abs(v), `V_${j}: ${v} vs ${vg}`);
      assert.ok(Math.abs(grad[0] - ggrad[0]) < 1e-9 * (1 + Math.abs(grad[0])));
      sum += v;
      gsum += grad[0];
    }
    const full = new Float64Array(1);
    const ld = model1.logDensityAndGradient(theta, full);
    assert.ok(Math.abs(sum + ld) < 1e-9 * Math.abs(ld));
    assert.ok(Math.abs(gsum + full[0]) < 1e-9);
  });
  await t.step("the posterior mode is where the gradient vanishes; J·V_j is centred at c_j", () => {
    const g = new Float64Array(1);
    model1.logDensityAndGradient(model1.posteriorMean, g);
    assert.ok(Math.abs(g[0]) < 1e-9);
    const b = model1.batches(20);
    b.batchPotential(new Float64Array([b.centers[3]]), 3, g);
    assert.ok(Math.abs(g[0]) < 1e-9);
  });
  await t.step("per-row Hessians −I/σ² match finite differences of the per-row gradients", () => {
    const d = 3, m = new GaussianMeanModel(gaussianMeanData({ dim: d, numRows: 40, seed: 7 }));
    assert.ok(hasPerRowHessians(m));
    const rows = new Int32Array([0, 17, 17, 39]), theta = new Float64Array([0.3, -1.2, 2.1]);
    const h = new Float64Array(rows.length * d * d).fill(NaN);
    const before = { ...m.cost };
    m.perRowHessians(theta, rows, h);
    assert.equal(m.cost.numHessianRows - before.numHessianRows, rows.length);
    assert.equal(m.cost.numGradRows, before.numGradRows);
    const gp = new Float64Array(rows.length * d), gm = new Float64Array(rows.length * d);
    const eps = 1e-5;
    for (let j = 0; j < d; j++) {
      const tp = theta.slice(), tm = theta.slice();
      tp[j] += eps;
      tm[j] -= eps;
      m.perRowGradients(tp, rows, gp);
      m.perRowGradients(tm, rows, gm);
      for (let k = 0; k < rows.length; k++) {
        for (let i = 0; i < d; i++) {
          const fd = (gp[k * d + i] - gm[k * d + i]) / (2 * eps);
          const v = h[k * d * d + i * d + j];
          assert.ok(Math.abs(fd - v) < 1e-6, `row ${k}, (${i}, ${j}): ${v} vs ${fd}`);
        }
      }
    }
    // Summed over all rows they give the full-data Hessian.
    const all = Int32Array.from({ length: m.numRows }, (_, i) => i);
    const hs = new Float64Array(m.numRows * d * d), full = new Float64Array(d * d);
    m.perRowHessians(theta, all, hs);
    m.logLikelihoodHessian(theta, full);
    for (let e = 0; e < d * d; e++) {
      let s = 0;
      for (let k = 0; k < m.numRows; k++) s += hs[k * d * d + e];
      assert.ok(Math.abs(s - full[e]) < 1e-9);
    }
  });
  await t.step("counts B rows per batch evaluation", () => {
    const before = { ...model1.cost };
    model1.batches(20).batchPotential(new Float64Array([0]), 0, new Float64Array(1));
    assert.equal(model1.cost.numLogLikRows - before.numLogLikRows, 20);
    assert.equal(model1.cost.numGradRows - before.numGradRows, 20);
  });
});

Deno.test("symmetric composition claims", async (t) => {
  const B = 20, J = 25, w = Math.sqrt(model1.posteriorPrecision), tau = 1;
  const muHat = model1.posteriorMean[0];
  await t.step("equals a split-Hamiltonian integrator of the full potential", () => {
    // Independent reference: Strang splitting of H = T + Σ_j J·V_j, sub-flows
    // in the order 1 … J, J … 1, each kick by the batch's closed-form gradient.
    const b = model1.batches(B), eps = 0.002, sweeps = 3;
    let mu = 1.1, p = 0.7;
    const kick = (j: number, h: number) => (p -= h * b.precision * (mu - b.centers[j]));
    for (let s = 0; s < sweeps; s++) {
      for (const j of symmetricSequence(J, 1)) {
        kick(j, eps / 2);
        mu += eps * p;
        kick(j, eps / 2);
      }
    }
    const got = integrate(symmetricSequence(J, sweeps), eps, B);
    assert.ok(Math.abs(got.mu - mu) < 1e-12 && Math.abs(got.p - p) < 1e-12, `${got.mu} vs ${mu}`);
  });
  await t.step("trajectory error → 0 at second order in ε (ratio ≈ 4 when ε halves)", () => {
    const exact = exactFlow(1.1, 0.7, tau, model1.posteriorPrecision, muHat);
    const errs = [0.004, 0.002, 0.001].map((eps) => {
      const sweeps = Math.round(tau / (2 * J * eps));
      return distance(integrate(symmetricSequence(J, sweeps), eps, B), exact, w);
    });
    for (let k = 0; k + 1 < errs.length; k++) {
      const ratio = errs[k] / errs[k + 1];
      // Second order: 4 up to the next term of the error expansion (O(ε²) relative).
      assert.ok(ratio > 3.6 && ratio < 4.4, `error ratio ${ratio} (errors ${errs})`);
    }
  });
});

Deno.test("between-trajectory subsampling: the bias does not shrink with ε", () => {
  const B = 20, j = 2, tau = 1, w = Math.sqrt(model1.posteriorPrecision);
  const exactFull = exactFlow(1.1, 0.7, tau, model1.posteriorPrecision, model1.posteriorMean[0]);
  const b = model1.batches(B);
  const exactSub = exactFlow(1.1, 0.7, tau, b.precision, b.centers[j]);
  const errs = [0.01, 0.005].map((eps) => {
    const L = Math.round(tau / eps);
    const end = integrate(new Int32Array(L).fill(j), eps, B);
    // The integrator converges to the subsampled flow (second order) …
    assert.ok(distance(end, exactSub, w) < 0.05 * distance(exactSub, exactFull, w));
    return distance(end, exactFull, w);
  });
  // … so the error against the full flow tends to the bias |φ_τ^{H_j} − φ_τ^H|, not to 0.
  const bias = distance(exactSub, exactFull, w);
  assert.ok(Math.abs(errs[0] / errs[1] - 1) < 0.05, `errors ${errs} should not shrink`);
  assert.ok(Math.abs(errs[1] / bias - 1) < 0.05, `error ${errs[1]} vs bias ${bias}`);
  // Full-data leapfrog at the same ε is orders of magnitude closer.
  const full = integrate(new Int32Array(100), 0.01, 500);
  assert.ok(distance(full, exactFull, w) < 0.01 * errs[1]);
});

Deno.test("full-data HMC acceptance stays above 0.6 at D = 100 with a tuned ε", () => {
  const model = new GaussianMeanModel(gaussianMeanData({ dim: 100, seed: 5 }));
  const r = runHmc(model, {
    seed: 3,
    numChains: 1,
    numWarmup: 300,
    numSamples: 300,
    trajectoryLength: 0.5,
    metricAdaptation: "identity",
    initialPosition: model.posteriorMean,
  });
  const acc = r.chains[0].info.sampling.acceptanceRate;
  const mean = acc.reduce((a, x) => a + x, 0) / acc.length;
  // Dual averaging targets 0.8; the per-iteration sd of the acceptance is < 0.3,
  // so 300 draws put 0.6 more than 10 standard errors below the target.
  assert.ok(mean > 0.6, `mean acceptance ${mean}`);
});

Deno.test("naive samplers claims", async (t) => {
  await t.step("descriptions: names, data-model, exact only with the correction", () => {
    assert.deepEqual(NAIVE_SAMPLERS.map((d) => d.name), [
      "naive-between",
      "naive-within",
      "naive-symmetric",
      "naive-between-mh",
      "naive-within-mh",
      "naive-symmetric-mh",
    ]);
    for (const d of NAIVE_SAMPLERS) {
      assert.equal(d.requires, "data-model");
      assert.equal(d.isExact, d.name.endsWith("-mh"));
    }
    assert.throws(
      () => NAIVE_SAMPLERS[0].build({ dim: 1 } as never, { batchSize: 20, stepSize: 0.1 }),
      TypeError,
    );
  });
  await t.step("isDiagnostic on the three uncorrected ones and naive-between-mh", () => {
    assert.deepEqual(
      NAIVE_SAMPLERS.filter((d) => d.isDiagnostic).map((d) => d.name),
      ["naive-between", "naive-within", "naive-symmetric", "naive-between-mh"],
    );
  });
  await t.step("defaults: J = 25 batches, ε found and dual-averaged, L = 2J", () => {
    const r = runNaive(model1, {
      variant: "within",
      isCorrected: true,
      seed: 8,
      numWarmup: 200,
      numSamples: 200,
      initialPosition: model1.posteriorMean,
    });
    const tuning = r.chains[0].tuning as { stepSize: number; batchSize: number };
    assert.equal(tuning.batchSize, model1.numRows / 25);
    const info = r.chains[0].info.sampling;
    assert.ok(info.stepSize.every((e) => e === tuning.stepSize), "ε is frozen after warmup");
    assert.ok(info.numIntegrationSteps.every((l) => l === 50));
    const acc = info.fullDataAcceptanceRate.reduce((a, x) => a + x, 0) / info.stepSize.length;
    assert.ok(acc > 0.5, `dual averaging targets 0.8, got a mean of ${acc}`);
  });
  await t.step("a given ε stays fixed, with the paper's τ ~ U(0, 2π)", () => {
    const r = runNaive(model1, {
      variant: "within",
      seed: 8,
      numWarmup: 20,
      numSamples: 20,
      batchSize: 20,
      stepSize: 0.01,
      initialPosition: model1.posteriorMean,
    });
    const info = r.chains[0].info;
    assert.ok([...info.warmup.stepSize, ...info.sampling.stepSize].every((e) => e === 0.01));
    assert.ok(new Set(info.sampling.numIntegrationSteps).size > 1, "τ is random");
  });
  await t.step("divergence is reported, not thrown; the state is kept", () => {
    const cs = naiveChainSampler(model1, {
      variant: "between",
      isCorrected: false,
      batchSize: 20,
      stepSize: 1, // εω ≈ 11 ≫ 2: the leapfrog is unstable
      numIntegrationSteps: 50,
    });
    const rng = new Rng(2);
    const s0 = cs.init(model1.posteriorMean, rng);
    const r = cs.step(rng, s0, "sampling", 0);
    assert.equal(r.info.isDivergent, true);
    assert.equal(r.info.isAccepted, false);
    assert.equal(r.state, s0);
  });
  await t.step(
    "uncorrected steps cost (L + 1)·B rows: the full-data diagnostic is not counted",
    () => {
      const cs = naiveChainSampler(model1, {
        variant: "between",
        isCorrected: false,
        batchSize: 20,
        stepSize: 0.01,
        numIntegrationSteps: 30,
      });
      const rng = new Rng(4);
      const s0 = cs.init(model1.posteriorMean, rng);
      const before = model1.cost.numGradRows;
      cs.step(rng, s0, "sampling", 0);
      assert.equal(model1.cost.numGradRows - before, 31 * 20);
    },
  );
  await t.step(
    "the kernel's random τ ~ U(0, 2π) gives integration times spread over (0, 2π)",
    () => {
      const rng = new Rng(6);
      const fullLogDensityFn = (x: Float64Array) => model1.logDensity(x);
      const params = {
        batches: model1.batches(20),
        fullLogDensityFn,
        metric: identityMetric(1),
        stepSize: 0.05,
        trajectoryLength: 2 * Math.PI,
        isTrajectoryLengthRandom: true,
      };
      let s = between.init(model1.posteriorMean, fullLogDensityFn), lo = Infinity, hi = 0;
      for (let i = 0; i < 200; i++) {
        const r = between.step(rng, s, params);
        s = r.state;
        lo = Math.min(lo, r.info.integrationTime);
        hi = Math.max(hi, r.info.integrationTime);
      }
      assert.ok(lo < 0.3 && hi > 2 * Math.PI - 0.3 && hi <= 2 * Math.PI + 0.05, `${lo} … ${hi}`);
    },
  );
  await t.step("with the full-data correction the symmetric composition is exact", () => {
    const r = runNaive(model1, {
      variant: "symmetric",
      isCorrected: true,
      batchSize: 100,
      stepSize: 0.02,
      trajectoryLength: 0.8,
      seed: 7,
      numWarmup: 20,
      numSamples: 1000,
      numChains: 2,
      initialPosition: model1.posteriorMean,
    });
    const draws = r.draws.map((c) => c[0]);
    assertMeanWithinMcse(draws, model1.posteriorMean[0], { what: "mean of μ" });
    assertSdWithinMcse(draws, 1 / Math.sqrt(model1.posteriorPrecision), { what: "sd of μ" });
  });
});
