import assert from "node:assert/strict";
import { loadCore } from "../../../core/load.ts";
import { glmDataFromArrays } from "../../../data/dataset.ts";
import { mcseMean } from "../../../diagnostics/mcse.ts";
import { GlmModel } from "../../../models/glm.ts";
import { externalFromGlm } from "../../../models/in_memory_external.ts";
import { Rng } from "../../../random/rng.ts";
import { parameterDraws } from "../../../samplers/driver.ts";
import { runHmcEcs } from "../../../samplers/hmc_ecs/mod.ts";
import { sample } from "../../../samplers/sample.ts";
import { refineFraction, stayRows } from "../../../samplers/hmc_ecs/centring.ts";
import { referenceMap } from "../../../testing/reference_map.ts";

/** Logistic regression, intercept + one covariate, and its full-data MAP and Laplace sds. */
function problem(n: number, seed: number) {
  const rng = new Rng(seed), beta = [0.3, -0.8];
  const x = new Float64Array(2 * n), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = rng.normal();
    x[2 * i] = 1;
    x[2 * i + 1] = v;
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-(beta[0] + beta[1] * v))) ? 1 : 0;
  }
  const model = new GlmModel(glmDataFromArrays(loadCore(), x, y, { numCols: 2 }), {
    family: "logistic",
    priorScale: 10,
  });
  // Full-data Newton to the MAP (not counted: the cost counter is reset below).
  const { map, sd } = referenceMap(model);
  model.cost.numLogLikRows = model.cost.numGradRows = model.cost.numHessianRows = 0;
  return { model, map, sd };
}

Deno.test("refineFraction() and stayRows(): a larger subset step only where staying pays", () => {
  assert.equal(refineFraction({ numRows: 1e6, dim: 30 }), null); // f ≈ 0.5
  const f = refineFraction({ numRows: 1e7, dim: 30 })!;
  assert.ok(f > 0.1 && f < 0.2, `f = ${f}`);
  assert.equal(stayRows(30, 0.2), 60000); // 2000·d within 1 sd²
  assert.equal(stayRows(30, 4), 240000);
});

Deno.test("runHmcEcs() claim: a θ* found on subsets, one centring pass, the MAP-centred posterior", () => {
  // n = 2·10⁵, d = 2: the 1 % fit is refined on a ≈ 14 % subset and B̂ sized
  // for that θ*'s distance from the MAP costs less than half a pass, so the
  // warm-up makes a single full-data pass. The posterior (≈ Gaussian at this
  // n) must still be centred at the full-data MAP: tolerance 4 MCSE plus
  // 0.05 sd (B̂'s tilt is sized to ≲ 0.03 sd), where θ*'s own offset from
  // the MAP (√q ≈ 2–3 sd) would show if the control variates were wrong.
  const n = 200_000;
  const { model, map, sd } = problem(n, 3);
  const r = runHmcEcs(model, { seed: 7, numChains: 2, numWarmup: 1000, numSamples: 2000 });
  for (const c of r.chains) {
    assert.equal(c.tuning.numNewtonSteps, 0);
    assert.equal(c.tuning.numCenterings, 1);
    assert.ok((c.tuning.toleratedDistance as number) >= 1.25);
  }
  const thetaStar = r.chains[0].tuning.thetaStar as Float64Array;
  const offset = Math.max(...[0, 1].map((j) => Math.abs(thetaStar[j] - map[j]) / sd[j]));
  assert.ok(offset > 0.2, `θ* is ${offset} sd from the MAP: the test would not test staying`);
  for (let j = 0; j < 2; j++) {
    const chains = parameterDraws(r, j);
    const all = chains.flatMap((c) => Array.from(c));
    const mean = all.reduce((a, b) => a + b, 0) / all.length;
    const tol = 4 * mcseMean(chains) + 0.05 * sd[j];
    assert.ok(Math.abs(mean - map[j]) < tol, `θ${j}: ${mean} vs MAP ${map[j]} (tol ${tol})`);
    const v = all.reduce((a, b) => a + (b - mean) ** 2, 0) / (all.length - 1);
    assert.ok(Math.abs(Math.sqrt(v) / sd[j] - 1) < 0.1, `θ${j} sd ${Math.sqrt(v)} vs ${sd[j]}`);
  }
});

Deno.test("runHmcEcs() on rows held elsewhere: the same subset step and single centring pass as in memory", () => {
  // n = 10⁵, d = 2 is past refineFraction's threshold: an external GLM (rows
  // read by index, as from worker shards or a row store) must take the
  // f-subset step and stay at its θ* too, with the in-memory draws bit for
  // bit (the same rows summed in the same chunks and order).
  const { model } = problem(100_000, 5);
  const twin = new GlmModel(model.data, { family: "logistic", priorScale: 10 });
  const options = {
    sampler: "hmc-ecs",
    seed: 3,
    numChains: 1,
    numWarmup: 200,
    numSamples: 50,
  } as const;
  const a = sample(model, options), b = sample(externalFromGlm(twin), options);
  for (const r of [a, b]) {
    assert.equal(r.chains[0].tuning.numNewtonSteps, 0);
    assert.equal(r.chains[0].tuning.numCenterings, 1);
  }
  const flat = (r: typeof a) => Float64Array.from(r.draws[0].flatMap((c) => Array.from(c)));
  assert.deepEqual(flat(b), flat(a));
  // The f-subset step's ℓ and ∇ℓ rows are counted on both sides.
  const subsetRows = Math.ceil(refineFraction({ numRows: 100_000, dim: 2 })! * 100_000);
  assert.ok(b.chains[0].cost.warmup.numGradRows >= 100_000 + subsetRows);
});
