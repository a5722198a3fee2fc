/**
 * Benchmarks of samplers/qnhmc: the cost of one QNHMC iteration against one
 * plain HMC iteration (the baseline) with the same ε, L and target, at
 * d = 100 (R7's Gaussian N(0, 11ᵀ + 4I), an O(d) gradient, L = 10) and
 * d = 784 (R8's logistic regression on 1 638 MNIST images, L = 5), for C
 * frozen (sampling after warmup) and adapted at every iteration
 * (Algorithm 2), dense BFGS and L-BFGS (m = 7). C is built by 200 warmup
 * iterations before timing, so products use a full approximation.
 * Dense BFGS runs with its default product (the WASM core at these d) and
 * with `product: "typescript"`; the groups "product d100" and "product
 * d784" time one C·v alone, WASM against the TypeScript baseline.
 *
 * Run: `deno bench --allow-read --allow-env bench/qnhmc_bench.ts`.
 */
import { loadCore } from "../core/load.ts";
import { glmDataFromArrays } from "../data/dataset.ts";
import { loadMnist79, MNIST_PIXELS } from "../data/mnist.ts";
import { GlmModel } from "../models/glm.ts";
import { type Model, newCostCounter } from "../models/model.ts";
import { Rng } from "../random/rng.ts";
import * as hmc from "../samplers/hmc/kernel.ts";
import { identityMetric } from "../samplers/metric.ts";
import {
  type CurvaturePair,
  denseBfgs,
  qnhmcChainSampler,
  type QnhmcOptions,
  step,
} from "../samplers/qnhmc/mod.ts";

function gaussian100(): Model {
  const d = 100, c = 1 / (d + 4);
  const fn = (x: Float64Array, g: Float64Array): number => {
    let sum = 0, ss = 0;
    for (let i = 0; i < d; i++) sum += x[i], ss += x[i] * x[i];
    for (let i = 0; i < d; i++) g[i] = -0.25 * (x[i] - c * sum);
    return -0.125 * (ss - c * sum * sum);
  };
  return {
    dim: d,
    parameterNames: [],
    cost: newCostCounter(),
    logDensity: (x) => fn(x, new Float64Array(d)),
    logDensityAndGradient: fn,
  };
}

function mnist784(): Model {
  const px = loadMnist79({ seed: 1 });
  // Scaled as in R8 so that ε = 0.1 is stable.
  const x = px.trainX.map((v) => v / 13.22);
  const data = glmDataFromArrays(loadCore(), x, px.trainY, { numCols: MNIST_PIXELS });
  return new GlmModel(data, { family: "logistic", priorScale: 1 });
}

function benchGroup(
  group: string,
  model: Model,
  settings: { stepSize: number; numIntegrationSteps: number },
  variants: Record<string, QnhmcOptions>,
): void {
  const d = model.dim, fn = model.logDensityAndGradient.bind(model);
  const metric = identityMetric(d);
  const start = new Rng(`${group}/start`).fillNormal(new Float64Array(d), { sd: 0.1 });
  const params = { logDensityAndGradientFn: fn, metric, ...settings };
  {
    const rng = new Rng(`${group}/hmc`);
    let s = hmc.init(start, fn);
    Deno.bench(`hmc.step, d = ${d}, L = ${settings.numIntegrationSteps}`, {
      group,
      baseline: true,
    }, () => {
      s = hmc.step(rng, s, params).state;
    });
  }
  for (const [name, options] of Object.entries(variants)) {
    const sampler = qnhmcChainSampler(model, { ...settings, ...options });
    const rng = new Rng(`${group}/${name}`);
    let s = sampler.init(start, rng);
    for (let i = 0; i < 200; i++) {
      s = sampler.step(rng, s, "warmup", i).state;
      s = sampler.adapt!.update(s, {
        info: { acceptanceRate: 1 } as never,
        iteration: i,
        numWarmup: 200,
        rng,
        chain: 0,
      });
    }
    if (options.adaptation === "continuous") {
      Deno.bench(`qnhmc ${name}, d = ${d} (C adapted every iteration)`, { group }, () => {
        s = sampler.step(rng, s, "sampling", 0).state;
      });
    } else {
      let k = s.kernel;
      Deno.bench(`qnhmc ${name}, d = ${d} (C frozen)`, { group }, () => {
        k = step(rng, k, { ...params, collectPairs: false }).state;
      });
    }
  }
}

benchGroup("d100", gaussian100(), { stepSize: 0.01, numIntegrationSteps: 10 }, {
  "dense BFGS": { approximation: "bfgs" },
  "dense BFGS, TS product": { approximation: "bfgs", product: "typescript" },
  "dense BFGS continuous": { approximation: "bfgs", adaptation: "continuous" },
  "L-BFGS m=7": { approximation: "lbfgs", memory: 7 },
});
benchGroup("d784", mnist784(), { stepSize: 0.1, numIntegrationSteps: 5 }, {
  "L-BFGS m=7": { approximation: "lbfgs", memory: 7 },
  "L-BFGS m=7 continuous": { approximation: "lbfgs", memory: 7, adaptation: "continuous" },
  "dense BFGS": { approximation: "bfgs" },
  "dense BFGS, TS product": { approximation: "bfgs", product: "typescript" },
});

/** One product C·v with a full dense BFGS C (20 random pairs), TypeScript (baseline) vs WASM. */
function productGroup(d: number): void {
  const rng = new Rng(`product/${d}`);
  const pairs: CurvaturePair[] = [];
  for (let k = 0; k < 20; k++) {
    const s = rng.fillNormal(new Float64Array(d));
    pairs.push({ s, y: Float64Array.from(s, (x, i) => x * (1 + (i % 7))) });
  }
  const v = rng.fillNormal(new Float64Array(d)), out = new Float64Array(d);
  for (const product of ["typescript", "wasm"] as const) {
    const c = denseBfgs(d, { product }).update(pairs).approximation;
    c.multiply(v, out); // copies C into the arena once
    Deno.bench(`dense C·v, ${product}, d = ${d}`, {
      group: `product d${d}`,
      baseline: product === "typescript",
    }, () => {
      c.multiply(v, out);
    });
  }
}
productGroup(100);
productGroup(784);
