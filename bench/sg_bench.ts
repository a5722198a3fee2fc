/**
 * Benchmarks of the stochastic-gradient samplers: the cost of one iteration of
 * SGLD, SG-HMC (L = 1), SGNHT and CCAdL (diagonal and full covariance) on a
 * logistic regression with minibatch n = 500, at d = 100 (the CCAdL paper's
 * MNIST projection) and d = 785 (raw MNIST pixels + intercept), beside the
 * gradient estimate alone (the baseline) and the gradient with per-row
 * moments (Σgᵢ⊙gᵢ or Σgᵢgᵢᵀ, the core's typed gradientMoments over gathered rows),
 * so that CCAdL's covariance-update overhead can be read as a ratio.
 *
 * Run: deno bench --allow-read bench/sg_bench.ts
 */
import { availableBackends, loadCore } from "../core/load.ts";
import { glmDataFromArrays } from "../data/dataset.ts";
import { GlmModel } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import * as ccadl from "../samplers/ccadl/kernel.ts";
import * as sghmc from "../samplers/sghmc/kernel.ts";
import * as sgld from "../samplers/sgld/kernel.ts";
import * as sgnht from "../samplers/sgnht/kernel.ts";
import { minibatchGradient } from "../subsampling/gradient_estimators.ts";

const N = 12_000, BATCH = 500;
const backend = availableBackends()[0];

function setup(d: number) {
  const arena = loadCore({ backend, initialBytes: (N * d * 8 + (1 << 24)) | 0 });
  const rng = new Rng(d);
  const x = new Float64Array(N * d), y = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    x[i * d] = 1;
    let eta = 0;
    for (let j = 1; j < d; j++) {
      x[i * d + j] = rng.normal() / Math.sqrt(d);
      eta += x[i * d + j] * (j % 3 === 0 ? 1 : -0.5);
    }
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), {
    family: "logistic",
    priorScale: 1,
  });
  const estimator = minibatchGradient(model, { batchSize: BATCH });
  const theta = new Float64Array(d);
  return { estimator, theta, rng };
}

for (const d of [100, 785]) {
  const { estimator, theta, rng } = setup(d);
  const group = `d=${d} n=${BATCH}`;
  const h = 1e-4, base = { estimator, stepSize: h };
  // Few iterations for the O(nd²) full-covariance cases at d = 785 (≈0.1–0.3 s each).
  const heavy = d > 200 ? { n: 20, warmup: 2 } : {};
  Deno.bench(`gradient estimate alone (${group})`, { group, baseline: true }, () => {
    estimator.estimate(theta, rng);
  });
  Deno.bench(`gradient + diagonal per-row moments (${group})`, { group }, () => {
    estimator.estimate(theta, rng, { covariance: "diagonal" });
  });
  Deno.bench(`gradient + full per-row moments (${group})`, { group, ...heavy }, () => {
    estimator.estimate(theta, rng, { covariance: "full" });
  });
  let s1 = sgld.init(theta);
  Deno.bench(`sgld step (${group})`, { group }, () => {
    s1 = sgld.step(rng, s1, base).state;
  });
  let s2 = sghmc.init(theta, { rng });
  Deno.bench(`sghmc step, L = 1 (${group})`, { group }, () => {
    s2 = sghmc.step(rng, s2, { ...base, resampleMomentum: false }).state;
  });
  let s3 = sgnht.init(theta, { rng });
  Deno.bench(`sgnht step (${group})`, { group }, () => {
    s3 = sgnht.step(rng, s3, base).state;
  });
  let s4 = ccadl.init(theta, { rng, covariance: "diagonal" });
  Deno.bench(`ccadl step, diagonal covariance (${group})`, { group }, () => {
    s4 = ccadl.step(rng, s4, { ...base, isInPlace: true }).state;
  });
  let s5 = ccadl.init(theta, { rng, covariance: "full" });
  Deno.bench(`ccadl step, full covariance (${group})`, { group, ...heavy }, () => {
    s5 = ccadl.step(rng, s5, { ...base, isInPlace: true }).state;
  });
}
