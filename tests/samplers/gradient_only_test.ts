/**
 * Leapfrog steps that take the gradient alone at a trajectory's inner points
 * (samplers/integrators.ts `gradientFn`, a GLM's `logDensityGradient` through
 * the core's gradRange kernels): the gradient is the combined pass's bit for
 * bit, so HMC and QNHMC give the same draws and the same counted rows with
 * and without it.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import type { GlmOptions } from "../../models/glm_options.ts";
import { gradientOnlyFn } from "../../models/model.ts";
import { Rng } from "../../random/rng.ts";
import type { SamplingResult } from "../../samplers/driver.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { leapfrog } from "../../samplers/integrators.ts";
import { identityMetric } from "../../samplers/metric.ts";
import { runQnhmc } from "../../samplers/qnhmc/run.ts";

type Family = "logistic" | "gaussian" | "poisson";

/** A seeded GLM data set of n rows and d columns (intercept first) for `family`. */
function _model(
  family: Family,
  n: number,
  d: number,
  storage: "f64" | "f32",
  seed: number,
): { model: GlmModel; twin: GlmModel; passes: { gradientOnly: number } } {
  const rng = new Rng(seed), x = new Float64Array(n * d), y = new Float64Array(n);
  const beta = Array.from({ length: d }, (_, j) => (j === 0 ? 0.3 : 0.5 * rng.normal()));
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) {
      x[i * d + j] = j === 0 ? 1 : rng.normal() / Math.sqrt(d);
      eta += x[i * d + j] * beta[j];
    }
    if (family === "logistic") y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    else if (family === "gaussian") y[i] = eta + 0.8 * rng.normal();
    else y[i] = Math.floor(Math.exp(eta) + rng.uniform() * 2);
  }
  const arena = loadCore();
  const data = glmDataFromArrays(arena, x, y, { numCols: d, storage });
  const options: GlmOptions = family === "gaussian"
    ? { family, sigma: 0.8, priorScale: 5 }
    : { family, priorScale: 5 };
  // `twin` has no gradient-only pass: every leapfrog point takes the combined one
  const twin = new GlmModel(data, options);
  Object.defineProperty(twin, "logDensityGradient", { value: undefined });
  // count the gradient-only passes the samplers make
  const model = new GlmModel(data, options), passes = { gradientOnly: 0 };
  const gradient = model.kernels.gradient.bind(model.kernels);
  model.kernels.gradient = (...args) => {
    passes.gradientOnly++;
    return gradient(...args);
  };
  return { model, twin, passes };
}

function _bits(a: ArrayLike<number>): string {
  return Array.from(new BigUint64Array(Float64Array.from(a).buffer), (b) => b.toString(16)).join();
}

function _sameRun(a: SamplingResult, b: SamplingResult, what: string): void {
  for (let c = 0; c < a.draws.length; c++) {
    for (let j = 0; j < a.draws[c].length; j++) {
      assert.equal(_bits(a.draws[c][j]), _bits(b.draws[c][j]), `${what}: chain ${c} param ${j}`);
    }
    for (const phase of ["warmup", "sampling"] as const) {
      const ia = a.chains[c].info[phase], ib = b.chains[c].info[phase];
      for (const k of ["acceptanceRate", "numIntegrationSteps", "energy", "stepSize"]) {
        assert.equal(_bits(ia[k]), _bits(ib[k]), `${what}: ${phase} ${k}`);
      }
    }
  }
}

Deno.test("GlmModel.logDensityGradient() writes logDensityAndGradient()'s gradient bit for bit", () => {
  for (const family of ["logistic", "gaussian", "poisson"] as const) {
    for (const storage of ["f64", "f32"] as const) {
      for (const [n, d] of [[1, 1], [7, 3], [203, 5], [130, 29], [61, 81]]) {
        const { model } = _model(family, n, d, storage, n + d);
        const rng = new Rng(`${family}/${storage}/${d}`);
        const theta = Float64Array.from({ length: d }, () => 0.3 * rng.normal());
        const g1 = new Float64Array(d), g2 = new Float64Array(d);
        const lp = model.logDensityAndGradient(theta, g1);
        const before = { ...model.cost };
        model.logDensityGradient(theta, g2);
        const what = `${family} ${storage} n=${n} d=${d}`;
        assert.ok(Number.isFinite(lp) && g1.every(Number.isFinite), what);
        assert.equal(_bits(g2), _bits(g1), what);
        assert.equal(model.cost.numGradRows - before.numGradRows, n, `${what}: ∇ rows`);
        // counted as the combined pass (the cost comparisons' unit)
        assert.equal(model.cost.numLogLikRows - before.numLogLikRows, n, `${what}: ℓ rows`);
      }
    }
  }
});

Deno.test("GlmModel.logDensityGradient() on a family without the kernel is the combined pass's gradient", () => {
  const arena = loadCore();
  const x = [1, 0.2, 1, -0.4, 1, 1.1], y = [0.3, -0.2, 1.4];
  const data = glmDataFromArrays(arena, x, y, { numCols: 2 });
  const model = new GlmModel(data, { family: "gaussian-scale", priorScale: 5 });
  const theta = new Float64Array([0.1, 0.2, -0.3]), g1 = new Float64Array(3);
  const g2 = new Float64Array(3);
  model.logDensityAndGradient(theta, g1);
  model.logDensityGradient(theta, g2);
  assert.equal(_bits(g2), _bits(g1));
  // log σ out of range: the combined pass says −∞, the gradient-only one NaN
  model.logDensityGradient(new Float64Array([0, 0, 800]), g2);
  assert.ok(g2.every(Number.isNaN));
  assert.equal(typeof gradientOnlyFn(model), "function");
});

Deno.test("leapfrog() with gradientFn: ∇ alone at the L − 1 inner points, the same end point", () => {
  const fn = (x: Float64Array, g: Float64Array) => {
    calls.both++;
    g[0] = -x[0];
    g[1] = -4 * x[1];
    return -0.5 * x[0] ** 2 - 2 * x[1] ** 2;
  };
  const gradientFn = (x: Float64Array, g: Float64Array) => {
    calls.grad++;
    g[0] = -x[0];
    g[1] = -4 * x[1];
  };
  const calls = { both: 0, grad: 0 };
  const start = () => ({
    position: new Float64Array([1, -0.5]),
    momentum: new Float64Array([0.3, 0.7]),
    logDensity: -1,
    gradient: new Float64Array([-1, 2]),
  });
  const opts = { logDensityAndGradientFn: fn, metric: identityMetric(2), stepSize: 0.1 };
  const a = start(), b = start();
  const ra = leapfrog(a, { ...opts, numIntegrationSteps: 7 });
  assert.deepEqual(calls, { both: 7, grad: 0 });
  const rb = leapfrog(b, { ...opts, numIntegrationSteps: 7, gradientFn });
  assert.deepEqual(calls, { both: 8, grad: 6 });
  assert.deepEqual(rb, ra);
  assert.deepEqual(b, a);
  // a non-finite gradient at an inner point stops the trajectory there
  const bad = (x: Float64Array, g: Float64Array) => g.fill(x[0] > 1.05 ? NaN : 0);
  const c = start();
  c.momentum[0] = 1;
  const rc = leapfrog(c, { ...opts, numIntegrationSteps: 7, gradientFn: bad });
  assert.equal(rc.isDivergent, true);
  assert.ok(
    rc.numIntegrationSteps < 7 && Number.isNaN(rc.logDensity) && Number.isNaN(c.logDensity),
  );
});

Deno.test("runHmc() draws and counted rows are the same with the gradient-only pass", () => {
  const cases: [Family, "f64" | "f32", number, number][] = [
    ["logistic", "f64", 203, 5],
    ["logistic", "f32", 203, 5],
    ["gaussian", "f32", 101, 3],
    ["poisson", "f64", 101, 3],
  ];
  for (const [family, storage, n, d] of cases) {
    const { model, twin, passes } = _model(family, n, d, storage, 42);
    const opts = { seed: 5, numChains: 2, numWarmup: 120, numSamples: 80 };
    const a = runHmc(model, opts), b = runHmc(twin, opts);
    const what = `${family} ${storage}`;
    _sameRun(a, b, what);
    assert.deepEqual(model.cost, twin.cost, `${what}: counted rows`);
    assert.ok(passes.gradientOnly > 0, `${what}: the gradient-only pass ran`);
  }
});

Deno.test("runQnhmc() draws are the same bits with the gradient-only pass", () => {
  const { model, twin, passes } = _model("logistic", 157, 7, "f32", 9);
  const opts = { seed: 3, numChains: 1, numWarmup: 80, numSamples: 60, numIntegrationSteps: 6 };
  const a = runQnhmc(model, opts), b = runQnhmc(twin, opts);
  _sameRun(a, b, "qnhmc");
  assert.deepEqual(model.cost, twin.cost);
  assert.ok(passes.gradientOnly > 0);
});
