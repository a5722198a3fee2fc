import assert from "node:assert/strict";
import { Rng } from "../../random/rng.ts";
import {
  ML1M_RATING_FREQUENCIES,
  movieLensShaped,
  PmfModel,
  ratingBatches,
  runPmf,
} from "../../replicate/r17_qnhmc_pmf.ts";

Deno.test("R17: the ratings have ML-1M's rating frequencies, ≥ 20 per user and a long-tailed activity", () => {
  const data = movieLensShaped(4, 300, 500, 15_000);
  const all = [...data.train.rating, ...data.test.rating];
  for (let r = 1; r <= 5; r++) {
    const f = all.filter((v) => v === r).length / all.length;
    assert.ok(Math.abs(f - ML1M_RATING_FREQUENCIES[r - 1]) < 0.01, `rating ${r}: ${f}`);
  }
  assert.ok(Math.min(...data.userCounts) >= 20);
  const sorted = Int32Array.from(data.userCounts).sort();
  assert.ok(sorted[sorted.length - 1] > 4 * sorted[150], "the most active user rates ≫ the median");
  assert.ok(Math.abs(data.test.rating.length / all.length - 0.1) < 0.02);
});

Deno.test("R17: the PMF gradient matches finite differences and vanishes at the ALS optimum", () => {
  const data = movieLensShaped(5, 60, 40, 1_500);
  const model = new PmfModel(data);
  const theta = new Rng(6).fillNormal(new Float64Array(model.dim), { sd: 0.3 });
  const grad = new Float64Array(model.dim);
  model.logDensityAndGradient(theta, grad);
  for (const p of [0, 7, model.dim - 1, 333]) {
    const h = 1e-5, a = Float64Array.from(theta), b = Float64Array.from(theta);
    a[p] += h;
    b[p] -= h;
    const fd = (model.logDensity(a) - model.logDensity(b)) / (2 * h);
    assert.ok(
      Math.abs(fd - grad[p]) < 1e-5 * Math.max(1, Math.abs(fd)),
      `∂/∂θ${p}: ${grad[p]} vs ${fd}`,
    );
  }
  const map = model.mapByAls(new Rng(7), 300);
  model.logDensityAndGradient(map, grad);
  let norm = 0;
  for (const g of grad) norm = Math.max(norm, Math.abs(g));
  assert.ok(norm < 1e-6, `max |∇ log π| at the ALS optimum: ${norm}`);
});

// The smallest size at which 60 HMC iterations at the paper's ε = 0.01, L = 10 move far enough from
// the MAP for the posterior mean to predict better (at 400 × 300 × 12,000 they do not): ≈ 8 s CPU.
Deno.test("R17 (QNHMC Table 3, small): HMC's posterior-mean prediction beats the MAP's test RMSE", () => {
  const { runs } = runPmf({
    seed: 1,
    users: 600,
    items: 400,
    ratings: 20_000,
    iterations: 60,
    alsSweeps: 50,
  });
  const map = runs.find((r) => r.name === "MAP")!, hmc = runs.find((r) => r.name === "HMC")!;
  assert.ok(hmc.acceptance > 0.5, `HMC acceptance ${hmc.acceptance}`);
  assert.ok(hmc.rmse < map.rmse - 0.005, `RMSE HMC ${hmc.rmse} vs MAP ${map.rmse}`);
});

Deno.test("R17: each epoch's rating batches partition the training ratings, in a fresh order", () => {
  const batchOf = ratingBatches(1_003, 9, "b");
  const seen = new Uint8Array(1_003);
  const firstEpoch: number[] = [];
  for (let it = 0; it < 9; it++) {
    const b = batchOf(it);
    assert.ok(b.length === 111 || b.length === 112, `batch ${it}: ${b.length} rows`);
    for (const i of b) seen[i]++, firstEpoch.push(i);
  }
  assert.ok(seen.every((v) => v === 1), "every rating once per epoch");
  const second = Array.from(batchOf(9));
  assert.notDeepEqual(second, firstEpoch.slice(0, second.length));
  assert.throws(() => batchOf(30), RangeError);
  assert.throws(() => ratingBatches(10, 0, "b"), RangeError);
});

Deno.test("R17: the online targets (batch likelihood + prior/B) sum to the posterior, gradients too", () => {
  const data = movieLensShaped(8, 50, 40, 1_200);
  const model = new PmfModel(data);
  const theta = new Rng(9).fillNormal(new Float64Array(model.dim), { sd: 0.3 });
  const full = new Float64Array(model.dim), part = new Float64Array(model.dim);
  const sum = new Float64Array(model.dim);
  const lpFull = model.logDensityAndGradient(theta, full);
  const batchOf = ratingBatches(data.train.rating.length, 4, "s");
  let lpSum = 0;
  for (let b = 0; b < 4; b++) {
    model.setBatch(batchOf(b), 1 / 4);
    lpSum += model.logDensityAndGradient(theta, part);
    for (let p = 0; p < model.dim; p++) sum[p] += part[p];
  }
  model.setBatch(null);
  assert.ok(Math.abs(lpSum - lpFull) < 1e-9 * Math.abs(lpFull), `${lpSum} vs ${lpFull}`);
  for (let p = 0; p < model.dim; p++) assert.ok(Math.abs(sum[p] - full[p]) < 1e-9);
  assert.equal(model.logDensity(theta), lpFull);
});
