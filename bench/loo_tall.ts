/**
 * Subsampling PSIS-LOO on tall data, step by step, beside the sampling run
 * and one full-data pass: logistic regression with an intercept and two
 * N(0, 1) covariates, n rows generated in memory, HMC-ECS with 2 chains ×
 * (500 + 500), then `elpdLooApproximation` (plpd) and PSIS on m rows by
 * `looFromModel`, as `tallmc compare` runs them (docs/loo.md).
 *
 *   deno run --allow-read --allow-env bench/loo_tall.ts            # n = 10⁷, m = 400
 *   deno run --allow-read --allow-env bench/loo_tall.ts 1e6 1000   # n, m
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { glmDataFromArrays } from "../data/dataset.ts";
import {
  elpdLooApproximation,
  looFromModel,
  looSubsampleFromPointwise,
  subsampleIndices,
} from "../diagnostics/loo_subsample.ts";
import { GlmModel } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import { sample } from "../samplers/sample.ts";

const n = Number(Deno.args[0] ?? 1e7), m = Number(Deno.args[1] ?? 400);
const rng = new Rng(7);
const x = new Float64Array(n * 3), y = new Float64Array(n);
for (let i = 0; i < n; i++) {
  const z = rng.normal(), w = rng.normal();
  x[i * 3] = 1;
  x[i * 3 + 1] = z;
  x[i * 3 + 2] = w;
  y[i] = rng.uniform() < 1 / (1 + Math.exp(0.5 - 0.8 * z + 0.3 * w)) ? 1 : 0;
}
const model = new GlmModel(glmDataFromArrays(loadCore(), x, y, { numCols: 3 }), {
  family: "logistic",
});
const time = <T>(what: string, f: () => T): T => {
  const t = performance.now();
  const r = f();
  console.log(`${what.padEnd(52)} ${((performance.now() - t) / 1000).toFixed(2)} s`);
  return r;
};
console.log(`n = ${n}, m = ${m}`);
const run = time(
  "HMC-ECS, 2 chains × (500 + 500)",
  () =>
    sample(model, { sampler: "hmc-ecs", numChains: 2, numWarmup: 500, numSamples: 500, seed: 1 }),
);
const draws: Float64Array[] = [], chainIds: number[] = [];
run.draws.forEach((c, k) => {
  for (let s = 0; s < c[0].length; s++) {
    draws.push(Float64Array.from(c, (p) => p[s]));
    chainIds.push(k);
  }
});
time("one full-data log-likelihood pass", () => model.logLikelihood(draws[0]));
const approx = time(
  "plpd approximation (all rows at the mean)",
  () => elpdLooApproximation(model, draws, "plpd"),
);
const rows = subsampleIndices(n, m, 1);
const r = time(
  `PSIS on ${m} rows × ${draws.length} draws (r_eff from chains)`,
  () =>
    looSubsampleFromPointwise(approx, rows, looFromModel(model, draws, { rows, chainIds }), "plpd"),
);
console.log(
  `elpd_loo ${r.elpdLoo.estimate.toFixed(1)}, SE ${r.elpdLoo.se.toFixed(1)}, ` +
    `subsampling SE ${r.elpdLoo.subsamplingSe.toFixed(3)}; k̂ above threshold: ${
      r.bands.bad + r.bands.veryBad
    }`,
);
model.dispose();
