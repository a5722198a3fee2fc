/**
 * Benchmarks of one approximate MH test (ε = 0.05 and 0.1, m = 500) against
 * one exact test (ε = 0: all N rows, the baseline) on a logistic regression
 * with d = 10, at N = 1e5 and 1e6. The pair (θ, θ') is a random-walk move of
 * about one posterior sd from the data-generating θ, so decisions are as hard
 * as in a chain at stationarity. Per-row differences come from the fused
 * one-pass kernel (both θ and θ' per row, core/glm_diff.ts).
 *
 * Second group: one batch of m = 500 random rows of N = 1e5, d = 10 and 50 —
 * the fused differences against the former two `logLikelihoodRows` passes
 * (the baseline; deno bench prints the ratio).
 *
 * Run: deno bench --allow-read bench/austerity_bench.ts
 */
import { availableBackends, loadCore } from "../core/load.ts";
import { glmDataFromArrays } from "../data/dataset.ts";
import { GlmModel } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import {
  approxMhTest,
  dataModelDifferences,
  newRowOrder,
  type RowDifferencesFn,
} from "../subsampling/austerity.ts";

const BATCH = 500;
const backend = availableBackends()[0];

function setup(n: number, D = 10) {
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

/** The pre-fusion differences: ℓ(θ') and ℓ(θ) in two passes. */
function twoCall(
  model: GlmModel,
  current: Float64Array,
  proposed: Float64Array,
): RowDifferencesFn {
  const a = new Float64Array(BATCH);
  return (rows, out) => {
    model.logLikelihoodRows(proposed, rows, { perRow: out });
    model.logLikelihoodRows(current, rows, { perRow: a });
    for (let k = 0; k < rows.length; k++) out[k] -= a[k];
  };
}

for (const d of [10, 50]) {
  const n = 100_000, s = setup(n, d), rng = new Rng(d);
  const current = Float64Array.from({ length: d }, () => 0.3 * rng.normal());
  const proposed = current.map((v) => v + 0.01 * rng.normal());
  const rows = Int32Array.from({ length: BATCH }, () => rng.int(n));
  const out = new Float64Array(BATCH);
  const fused = dataModelDifferences(s.model, { current, proposed });
  const two = twoCall(s.model, current, proposed);
  Deno.bench({
    name: `differences two-call d = ${d}, m = ${BATCH}`,
    group: `differences d = ${d}`,
    baseline: true,
    fn: () => two(rows, out),
  });
  Deno.bench({
    name: `differences fused d = ${d}, m = ${BATCH}`,
    group: `differences d = ${d}`,
    fn: () => fused(rows, out),
  });
}
