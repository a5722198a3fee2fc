import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { gaussianLinearRegression, higgsShaped } from "../../data/synthetic.ts";
import { essBulk } from "../../diagnostics/ess.ts";
import { mcseMean } from "../../diagnostics/mcse.ts";
import { inverseSpd } from "../../math/linalg.ts";
import { GlmModel } from "../../models/glm.ts";
import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
import { Rng } from "../../random/rng.ts";
import { parameterDraws, type SamplingResult } from "../../samplers/driver.ts";
import { identityMetric } from "../../samplers/metric.ts";
import { init, step } from "../../samplers/nuts/kernel.ts";
import { runNuts } from "../../samplers/nuts/run.ts";
import { sampleParallel } from "../../samplers/parallel.ts";
import { sample } from "../../samplers/sample.ts";

/** Pooled mean and sd of parameter j, and the MCSE of the mean and of E[(θ − μ)²]. */
function _moments(run: SamplingResult, j: number, mu: number) {
  const chains = parameterDraws(run, j);
  const all = chains.flatMap((c) => Array.from(c));
  const mean = all.reduce((a, b) => a + b, 0) / all.length;
  const sd = Math.sqrt(all.reduce((a, b) => a + (b - mean) ** 2, 0) / (all.length - 1));
  const sq = chains.map((c) => c.map((x) => (x - mu) ** 2));
  const sqAll = sq.flatMap((c) => Array.from(c));
  return {
    mean,
    sd,
    mcse: mcseMean(chains),
    meanSq: sqAll.reduce((a, b) => a + b, 0) / sqAll.length,
    mcseSq: mcseMean(sq),
  };
}

Deno.test("nuts kernel on a 1-d standard normal keeps N(0, 1): mean and variance within 4 MCSE", () => {
  // Fixed ε and metric, no adaptation: a test of the transition alone.
  const fn = (x: Float64Array, g: Float64Array) => {
    g[0] = -x[0];
    return -0.5 * x[0] * x[0];
  };
  const rng = new Rng(2024);
  let s = init(new Float64Array([0.3]), fn);
  const n = 20000;
  const xs = new Float64Array(n), sq = new Float64Array(n);
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const r = step(rng, s, {
      logDensityAndGradientFn: fn,
      stepSize: 0.9,
      metric: identityMetric(1),
    });
    s = r.state;
    xs[i] = s.position[0];
    sq[i] = xs[i] ** 2;
    depth += r.info.treeDepth;
    assert.equal(r.info.numIntegrationSteps >= 2 ** r.info.treeDepth - 1, true);
  }
  const mean = xs.reduce((a, b) => a + b) / n, meanSq = sq.reduce((a, b) => a + b) / n;
  assert.ok(Math.abs(mean) < 4 * mcseMean([xs]), `mean ${mean} (MCSE ${mcseMean([xs])})`);
  assert.ok(
    Math.abs(meanSq - 1) < 4 * mcseMean([sq]),
    `E[x²] ${meanSq} (MCSE ${mcseMean([sq])})`,
  );
  // In one dimension the trajectory stops at the first turning point, so a
  // draw stays correlated with the last (bulk ESS 0.42 n at this seed and ε).
  const ess = essBulk([xs]);
  assert.ok(ess > 0.3 * n, `bulk ESS ${ess} of ${n}`);
  assert.ok(depth / n > 1 && depth / n < 4, `mean tree depth ${depth / n}`);
});

Deno.test("nuts kernel: a step size far too large diverges and keeps the state", () => {
  const fn = (x: Float64Array, g: Float64Array) => {
    g[0] = -1e4 * x[0];
    return -0.5e4 * x[0] * x[0];
  };
  const s = init(new Float64Array([0.01]), fn);
  const r = step(new Rng(1), s, {
    logDensityAndGradientFn: fn,
    stepSize: 10,
    metric: identityMetric(1),
  });
  assert.equal(r.info.isDivergent, true);
  assert.equal(r.info.treeDepth, 0);
  assert.deepEqual(r.state.position, s.position);
  assert.throws(
    () =>
      step(new Rng(1), s, { logDensityAndGradientFn: fn, stepSize: 0, metric: identityMetric(1) }),
    /stepSize must be positive/,
  );
  assert.throws(
    () =>
      step(new Rng(1), s, {
        logDensityAndGradientFn: fn,
        stepSize: 0.1,
        metric: identityMetric(1),
        maxTreeDepth: 0,
      }),
    /maxTreeDepth must be an integer/,
  );
});

Deno.test("runNuts() on a correlated Gaussian: means and sds within MCSE-derived tolerances", async (t) => {
  // ρ = 0.95 between θ0 and θ1, scales 1, 3, 0.1.
  const mean = new Float64Array([1, -2, 0.5]);
  const sd = [1, 3, 0.1];
  const corr = [[1, 0.95, 0], [0.95, 1, 0.3], [0, 0.3, 1]];
  const cov = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) cov[i * 3 + j] = corr[i][j] * sd[i] * sd[j];
  }
  const model = gaussianTarget(mean, cov);
  for (const metric of ["diagonal", "dense"] as const) {
    await t.step(`metric ${metric}`, () => {
      const run = runNuts(model, {
        metricAdaptation: metric,
        seed: 3,
        numWarmup: 500,
        numSamples: 1000,
        numChains: 4,
      });
      for (let j = 0; j < 3; j++) {
        const m = _moments(run, j, mean[j]);
        // 4 MCSE: a false alarm has probability ≈ 6e-5 per check.
        assert.ok(
          Math.abs(m.mean - mean[j]) < 4 * m.mcse,
          `θ${j}: mean ${m.mean} vs ${mean[j]} (MCSE ${m.mcse})`,
        );
        assert.ok(
          Math.abs(m.meanSq - sd[j] ** 2) < 4 * m.mcseSq,
          `θ${j}: E[(θ−μ)²] ${m.meanSq} vs ${sd[j] ** 2} (MCSE ${m.mcseSq})`,
        );
      }
      const info = run.chains[0].info.sampling;
      for (
        const f of ["treeDepth", "numIntegrationSteps", "acceptanceRate", "energy", "isDivergent"]
      ) {
        assert.equal(info[f].length, 1000, f);
      }
      const accept = info.acceptanceRate.reduce((a, b) => a + b) / 1000;
      assert.ok(accept > 0.6 && accept < 0.97, `mean accept_stat ${accept} (target 0.8)`);
      assert.equal(run.chains[0].tuning.metric, metric);
      for (const c of run.chains) assert.equal(c.numDivergent.sampling, 0);
    });
  }
});

Deno.test("runNuts() on Gaussian linear regression matches the analytic posterior", () => {
  const arena = loadCore();
  const sigma = 1.5, priorScale = 10;
  const { data } = gaussianLinearRegression(arena, { n: 2000, d: 4, sigma, seed: 11 });
  const model = new GlmModel(data, { family: "gaussian", sigma, priorScale });
  // Posterior N(Σ Xᵀy/σ², Σ), Σ = (XᵀX/σ² + I/S²)⁻¹ (the prior's mean is 0).
  const { numRows: n, numCols: d } = model.data;
  const prec = new Float64Array(d * d), b = new Float64Array(d);
  const x = model.arena.readF64(model.data.x, n * d), y = model.arena.readF64(model.data.y, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) {
      b[j] += x[i * d + j] * y[i] / sigma ** 2;
      for (let k = 0; k < d; k++) prec[j * d + k] += x[i * d + j] * x[i * d + k] / sigma ** 2;
    }
  }
  for (let j = 0; j < d; j++) prec[j * d + j] += 1 / priorScale ** 2;
  const cov = inverseSpd(prec);
  const run = runNuts(model, { seed: 5, numWarmup: 500, numSamples: 1000, numChains: 4 });
  for (let j = 0; j < d; j++) {
    let mu = 0;
    for (let k = 0; k < d; k++) mu += cov[j * d + k] * b[k];
    const m = _moments(run, j, mu);
    assert.ok(
      Math.abs(m.mean - mu) < 4 * m.mcse,
      `β${j}: mean ${m.mean} vs ${mu} (MCSE ${m.mcse})`,
    );
    assert.ok(
      Math.abs(m.meanSq - cov[j * d + j]) < 4 * m.mcseSq,
      `β${j}: E[(β−μ)²] ${m.meanSq} vs ${cov[j * d + j]} (MCSE ${m.mcseSq})`,
    );
  }
});

Deno.test("nuts: parallel workers give the draws of one thread, bit for bit", async () => {
  const arena = loadCore({ shared: true });
  const { data } = higgsShaped(arena, { n: 1000, seed: 4 });
  const model = new GlmModel(data, { family: "logistic", priorScale: 5 });
  const base = { sampler: "nuts", seed: 11, numWarmup: 60, numSamples: 30, numChains: 2 };
  const sequential = sample(model, base);
  const par = await sampleParallel(model, { ...base, workers: 2 });
  assert.equal(par.parallel.workers, 2);
  assert.deepEqual(par.draws, sequential.draws);
  for (let c = 0; c < 2; c++) {
    assert.deepEqual(par.chains[c].info.sampling, sequential.chains[c].info.sampling);
  }
});

Deno.test("nuts: bad options are refused naming the option", () => {
  const model = gaussianTarget(new Float64Array([0]), new Float64Array([1]));
  const run = (o: Record<string, unknown>) =>
    sample(model, { sampler: "nuts", seed: 1, numWarmup: 10, numSamples: 10, numChains: 1, ...o });
  assert.throws(() => run({ maxTreeDepth: 1.5 }), /maxTreeDepth must be an integer/);
  assert.throws(() => run({ metricAdaptation: "hessian" }), /metricAdaptation must be/);
  assert.throws(() => run({ targetAcceptanceRate: 1 }), /targetAcceptanceRate must be in/);
  assert.throws(() => run({ maxTreeDeph: 3 }), /did you mean "maxTreeDepth"/);
});
