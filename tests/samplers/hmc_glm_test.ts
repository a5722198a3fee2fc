import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { gaussianLinearRegression } from "../../data/synthetic.ts";
import { mcseMean } from "../../diagnostics/mcse.ts";
import { GlmModel } from "../../models/glm.ts";
import { parameterDraws } from "../../samplers/driver.ts";
import { inverseSpd } from "../../math/linalg.ts";
import { runHmc } from "../../samplers/hmc/run.ts";

/** Conjugate posterior N(m, S) of β with known σ and prior N(0, s²I). */
function _analyticPosterior(model: GlmModel, sigma: number, priorScale: number) {
  const { numRows: n, numCols: d } = model.data;
  const x = model.arena.readF64(model.data.x, n * d), y = model.arena.readF64(model.data.y, n);
  const prec = new Float64Array(d * d), b = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) {
      b[j] += (x[i * d + j] * y[i]) / (sigma * sigma);
      for (let k = 0; k < d; k++) {
        prec[j * d + k] += (x[i * d + j] * x[i * d + k]) / (sigma * sigma);
      }
    }
  }
  for (let j = 0; j < d; j++) prec[j * d + j] += 1 / (priorScale * priorScale);
  const cov = inverseSpd(prec);
  const mean = new Float64Array(d);
  for (let j = 0; j < d; j++) for (let k = 0; k < d; k++) mean[j] += cov[j * d + k] * b[k];
  return { mean, sd: Array.from({ length: d }, (_, j) => Math.sqrt(cov[j * d + j])) };
}

Deno.test("runHmc() on Gaussian linear regression matches the analytic posterior", async (t) => {
  const arena = loadCore();
  const sigma = 1.5, priorScale = 10;
  const { data } = gaussianLinearRegression(arena, { n: 2000, d: 4, sigma, seed: 11 });
  for (const metric of ["dense", "hessian"] as const) {
    await t.step(`metric ${metric}`, () => {
      const model = new GlmModel(data, { family: "gaussian", sigma, priorScale });
      const truth = _analyticPosterior(model, sigma, priorScale);
      const run = runHmc(model, {
        metricAdaptation: metric,
        numWarmup: 500,
        numSamples: 1000,
        numChains: 4,
        seed: 5,
      });
      for (let j = 0; j < model.dim; j++) {
        const chains = parameterDraws(run, j);
        const all = chains.flatMap((c) => Array.from(c));
        const mean = all.reduce((a, b) => a + b, 0) / all.length;
        const sd = Math.sqrt(all.reduce((a, b) => a + (b - mean) ** 2, 0) / (all.length - 1));
        const mcse = mcseMean(chains);
        // 4 MCSE: a false alarm has probability ≈ 6e-5 per coordinate.
        assert.ok(
          Math.abs(mean - truth.mean[j]) < 4 * mcse,
          `β${j}: mean ${mean} vs analytic ${truth.mean[j]} (MCSE ${mcse})`,
        );
        // With ≥ 1000 effective draws the relative sd error has sd ≈ 2 %; 10 % is ≥ 5 of those.
        assert.ok(
          Math.abs(sd / truth.sd[j] - 1) < 0.1,
          `β${j}: sd ${sd} vs analytic ${truth.sd[j]}`,
        );
      }
      const cost = run.chains[0].cost;
      assert.ok(cost.sampling.numGradRows > 0 && cost.warmup.numGradRows > 0);
      model.dispose();
    });
  }
});
