import assert from "node:assert/strict";
import { loadCore } from "../../../core/load.ts";
import { glmDataFromArrays } from "../../../data/dataset.ts";
import { mcseMean } from "../../../diagnostics/mcse.ts";
import { cholesky, choleskySolve, inverseFromCholesky } from "../../../math/linalg.ts";
import { GlmModel } from "../../../models/glm.ts";
import { Rng } from "../../../random/rng.ts";
import { parameterDraws } from "../../../samplers/driver.ts";
import { sample } from "../../../samplers/sample.ts";
import { sharedHmcEcsCentring } from "../../../samplers/hmc_ecs/shared_centring.ts";
import { hmcEcsChainSampler } from "../../../samplers/hmc_ecs/chain_sampler.ts";
import type { HmcEcsOptions } from "../../../samplers/hmc_ecs/options.ts";
import { ControlVariates } from "../../../subsampling/control_variates.ts";

/** Logistic regression, intercept + two covariates, its full-data MAP and Laplace sds. */
function problem(n: number, seed: number) {
  const rng = new Rng(seed), beta = [0.3, -0.8, 0.5], d = 3;
  const x = new Float64Array(d * n), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[d * i] = 1;
    let eta = beta[0];
    for (let j = 1; j < d; j++) {
      const v = rng.normal();
      x[d * i + j] = v;
      eta += beta[j] * v;
    }
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  const model = new GlmModel(glmDataFromArrays(loadCore(), x, y, { numCols: d }), {
    family: "logistic",
    priorScale: 10,
  });
  const theta = new Float64Array(d), g = new Float64Array(d), gp = new Float64Array(d);
  const h = new Float64Array(d * d), hp = new Float64Array(d * d);
  let prec = new Float64Array(d * d);
  for (let it = 0; it < 30; it++) {
    model.logLikelihood(theta, g);
    model.logPrior(theta, gp);
    model.logLikelihoodHessian(theta, h);
    model.logPriorHessian(theta, hp);
    prec = h.map((v, i) => -(v + hp[i]));
    const step = choleskySolve(cholesky(prec), g.map((v, i) => v + gp[i]));
    for (let j = 0; j < d; j++) theta[j] += step[j];
    if (Math.hypot(...step) < 1e-12) break;
  }
  const cov = inverseFromCholesky(cholesky(prec));
  model.cost.numLogLikRows = model.cost.numGradRows = model.cost.numHessianRows = 0;
  return { model, map: theta, sd: Array.from({ length: d }, (_, j) => Math.sqrt(cov[j * d + j])) };
}

Deno.test("ControlVariates({ sums }): no pass, the same sums and estimates as the pass at θ*", () => {
  const { model, map } = problem(5000, 1);
  const thetaStar = map.map((v) => v + 0.01);
  const own = new ControlVariates(model, thetaStar, { rowCache: false });
  const rows = model.cost.numGradRows;
  const given = new ControlVariates(model, thetaStar, {
    rowCache: false,
    sums: { llStarSum: own.llStarSum, gradSum: own.gradSum },
  });
  assert.equal(model.cost.numGradRows, rows, "no full-data pass");
  assert.equal(given.llStarSum, own.llStarSum);
  assert.deepEqual(given.gradSum, own.gradSum);
  assert.deepEqual(given.hessSum, own.hessSum);
  const theta = map.map((v) => v - 0.02);
  assert.equal(given.sum(theta), own.sum(theta));
  assert.throws(
    () => new ControlVariates(model, thetaStar, { sums: { llStarSum: 0, gradSum: own.gradSum } }),
    /rowCache: false/,
  );
  assert.throws(
    () =>
      new ControlVariates(model, thetaStar, {
        rowCache: false,
        sums: { llStarSum: NaN, gradSum: own.gradSum },
      }),
    RangeError,
  );
  own.dispose();
  given.dispose();
});

Deno.test("sharedHmcEcsCentring(): θ* at the MAP, the sums there, one start per chain; null where chains centre themselves", () => {
  const { model, map, sd } = problem(20000, 2);
  const shared = sharedHmcEcsCentring(model, {}, { seed: 3, numChains: 4 })!;
  assert.ok(shared !== null);
  const c = shared.centring;
  for (let j = 0; j < 3; j++) {
    // Newton stops within its tolerance (decrement < 1 per dimension) of the MAP.
    assert.ok(Math.abs(c.thetaStar[j] - map[j]) < 1.5 * sd[j], `θ*[${j}]`);
  }
  const cv = new ControlVariates(model, c.thetaStar, { rowCache: false });
  assert.equal(c.llStarSum, cv.llStarSum);
  assert.deepEqual(c.gradSum, cv.gradSum);
  cv.dispose();
  assert.equal(shared.starts.length, 4);
  assert.equal(new Set(shared.starts.map((s) => s.join())).size, 4, "distinct starts");
  assert.equal(shared.options.centring, c);
  assert.equal(shared.options.startAtThetaStar, false);
  assert.equal(shared.options.recenterTolerance, 1);
  assert.equal(shared.options.hessianFraction, 0.05);
  // The same seed, the same centring.
  const again = sharedHmcEcsCentring(model, {}, { seed: 3, numChains: 4 })!;
  assert.deepEqual(again.centring, c);
  assert.deepEqual(again.starts, shared.starts);
  // Where a chain would not centre at the MAP by Newton steps on this thread.
  assert.equal(sharedHmcEcsCentring(model, { thetaStar: map }, { seed: 3, numChains: 4 }), null);
  assert.equal(sharedHmcEcsCentring(model, { maxNewtonSteps: 0 }, { seed: 3, numChains: 4 }), null);
  assert.equal(
    sharedHmcEcsCentring(model, { hessianFraction: 1 }, { seed: 3, numChains: 4 }),
    null,
  );
  assert.equal(
    sharedHmcEcsCentring(model, { recenterTolerance: 0 }, { seed: 3, numChains: 4 }),
    null,
  );
});

Deno.test("HMC-ECS chains on a shared centring: no full-data pass in their init, the MAP-centred posterior", () => {
  // n = 2·10⁴, d = 3: the posterior is ≈ Gaussian at the MAP with the Laplace
  // sds; tolerance 4 MCSE + 0.05 sd for the means (B̂'s tilt and the
  // perturbed estimator's bias are a few hundredths of a sd here), 10 % for the sds.
  const { model, map, sd } = problem(20000, 4);
  const shared = sharedHmcEcsCentring(model, {}, { seed: 5, numChains: 2 })!;
  // A chain's init: its pilot and step-size probe only, where its own centring makes ≥ 2 passes.
  const initRows = (options: HmcEcsOptions) => {
    const sampler = hmcEcsChainSampler(model, { ...options, numWarmup: 500 });
    const before = model.cost.numGradRows;
    sampler.dispose(sampler.init(shared.starts[0], new Rng(1)));
    return model.cost.numGradRows - before;
  };
  assert.ok(initRows(shared.options) < model.numRows, "no full-data pass");
  assert.ok(initRows({}) >= 2 * model.numRows, "a chain's own centring");
  const run = sample(model, {
    sampler: "hmc-ecs",
    ...shared.options,
    seed: 5,
    numChains: 2,
    numWarmup: 500,
    numSamples: 1000,
    initialPositions: shared.starts,
  });
  for (let j = 0; j < 3; j++) {
    const chains = parameterDraws(run, j);
    const all = chains.flatMap((c) => Array.from(c));
    const mean = all.reduce((a, v) => a + v, 0) / all.length;
    const s = Math.sqrt(all.reduce((a, v) => a + (v - mean) ** 2, 0) / (all.length - 1));
    const mcse = mcseMean(chains);
    assert.ok(
      Math.abs(mean - map[j]) < 4 * mcse + 0.05 * sd[j],
      `mean[${j}] ${mean} vs MAP ${map[j]} (MCSE ${mcse}, sd ${sd[j]})`,
    );
    assert.ok(Math.abs(s / sd[j] - 1) < 0.1, `sd[${j}] ${s} vs Laplace ${sd[j]}`);
  }
});
