/**
 * Benchmarks of one approximate MH test (ε = 0.05 and 0.1, m = 500) against
 * one exact test (ε = 0: all N rows, the baseline) on a logistic regression
 * with d = 10, at N = 1e5 and 1e6. The pair (θ, θ') is a random-walk move of
 * about one posterior sd from the data-generating θ, so decisions are as hard
 * as in a chain at stationarity. Per-row differences use two
 * `logLikelihoodRows` passes (θ' and θ) through the WASM core.
 *
 * Run: deno bench --allow-read bench/austerity_bench.ts
 */
import { availableBackends, loadCore } from "../core/load.ts";
import { glmDataFromArrays } from "../data/dataset.ts";
import { GlmModel } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import { approxMhTest, dataModelDifferences, newRowOrder } from "../subsampling/austerity.ts";

const D = 10, BATCH = 500;
const backend = availableBackends()[0];

function setup(n: number) {
  const arena = loadCore({ backend, initialBytes: (n * D * 8 + n * 8 + (1 << 24)) | 0 });
  const rng = new Rng(n);
  const beta = Float64Array.from({ length: D }, (_, j) => (j % 2 ? 0.5 : -0.5));
  const x = new Float64Array(n * D), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < D; j++) {
      x[i * D + j] = j === 0 ? 1 : rng.normal();
      eta += x[i * D + j] * beta[j];
    }
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: D }), {
    family: "logistic",
    priorScale: 5,
  });
  const proposed = beta.map((b) => b + (2 / Math.sqrt(n)) * rng.normal());
  return {
    model,
    differencesFn: dataModelDifferences(model, { current: beta, proposed }),
    logPriorRatio: model.logPrior(proposed) - model.logPrior(beta),
    rowOrder: newRowOrder(n),
    rng: new Rng(1),
  };
}

for (const n of [100_000, 1_000_000]) {
  const s = setup(n);
  const label = n === 100_000 ? "1e5" : "1e6";
  for (const epsilon of [0, 0.05, 0.1]) {
    Deno.bench({
      name: `approxMhTest N = ${label}, ε = ${epsilon}, m = ${BATCH}`,
      group: `N = ${label}`,
      baseline: epsilon === 0,
      fn() {
        approxMhTest(s.rng, {
          numRows: n,
          differencesFn: s.differencesFn,
          logPriorRatio: s.logPriorRatio,
          epsilon,
          batchSize: BATCH,
          rowOrder: s.rowOrder,
        });
      },
    });
  }
}
