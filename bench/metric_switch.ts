/**
 * Where the dense metric stops paying: full-data HMC with `metricAdaptation: "dense"`
 * against `"diagonal"` on Gaussian regressions whose predictors are
 * equicorrelated (ρ = 0.9, so every coefficient's multiple correlation with
 * the others is high), for d from 25 to 200, n = 20·d rows. Prints, per d,
 * min bulk-ESS per second and per gradient evaluation of both metrics and
 * their ratio, measured in the same run (the machine's load is printed with
 * them). The default `metricAdaptation: "auto"` chooses dense up to
 * `AUTO_DENSE_MAX_DIM` (samplers/hmc/chain_sampler.ts); this run is the evidence for
 * that bound.
 *
 * Run: `deno run --allow-read --allow-env --allow-sys=loadavg bench/metric_switch.ts [--warmup=N] [d …]`
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { glmDataFromArrays } from "../data/dataset.ts";
import { essBulk } from "../diagnostics/mod.ts";
import { GlmModel } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import { sample } from "../samplers/sample.ts";

function _model(d: number, seed: number): GlmModel {
  const n = 20 * d;
  const rng = new Rng(seed);
  const x = new Float64Array(n * d), y = new Float64Array(n);
  const rho = 0.9;
  for (let i = 0; i < n; i++) {
    const z = rng.normal();
    x[i * d] = 1;
    let eta = 0.5;
    for (let j = 1; j < d; j++) {
      const v = Math.sqrt(rho) * z + Math.sqrt(1 - rho) * rng.normal();
      x[i * d + j] = v;
      eta += (j % 3 === 0 ? 0.2 : -0.1) * v;
    }
    y[i] = eta + rng.normal();
  }
  const data = glmDataFromArrays(loadCore(), x, y, {
    numCols: d,
    columnNames: Array.from({ length: d }, (_, j) => (j === 0 ? "(Intercept)" : `x${j}`)),
  });
  return new GlmModel(data, { family: "gaussian-scale", priorScale: 10 });
}

function _run(model: GlmModel, metric: "dense" | "diagonal", numWarmup: number) {
  const t0 = performance.now();
  const r = sample(model, {
    sampler: "hmc",
    metricAdaptation: metric,
    seed: 1,
    numChains: 2,
    numWarmup,
    numSamples: 500,
  });
  const seconds = (performance.now() - t0) / 1000;
  let minEss = Infinity;
  for (let j = 0; j < model.dim; j++) {
    minEss = Math.min(minEss, essBulk(r.draws.map((c) => c[j])));
  }
  let grads = 0;
  for (const c of r.chains) grads += c.cost.warmup.numGradRows + c.cost.sampling.numGradRows;
  grads /= model.numRows;
  return { minEss, seconds, grads };
}

const args = Deno.args.filter((a) => !a.startsWith("--warmup="));
const warmupArg = Deno.args.find((a) => a.startsWith("--warmup="));
const numWarmup = warmupArg === undefined ? 500 : Number(warmupArg.slice("--warmup=".length));
const dims = args.length > 0 ? args.map(Number) : [25, 50, 100, 150, 200];
console.log(
  `warm-up ${numWarmup}, 500 draws, 2 chains; load average: ${
    Deno.loadavg().map((v) => v.toFixed(1)).join(" ")
  }`,
);
console.log(
  "d\tmetric\tmin bulk-ESS\tgradients\ts\tESS/s\tESS/grad",
);
for (const d of dims) {
  const model = _model(d, d);
  const out: Record<string, ReturnType<typeof _run>> = {};
  for (const metric of ["diagonal", "dense"] as const) {
    const r = (out[metric] = _run(model, metric, numWarmup));
    console.log(
      `${d}\t${metric}\t${r.minEss.toFixed(0)}\t${r.grads.toFixed(0)}\t${r.seconds.toFixed(1)}\t${
        (r.minEss / r.seconds).toFixed(1)
      }\t${(r.minEss / r.grads).toFixed(4)}`,
    );
  }
  const ratioS = (out.dense.minEss / out.dense.seconds) /
    (out.diagonal.minEss / out.diagonal.seconds);
  const ratioG = (out.dense.minEss / out.dense.grads) / (out.diagonal.minEss / out.diagonal.grads);
  console.log(`${d}\tdense/diagonal\tESS/s ×${ratioS.toFixed(2)}\tESS/grad ×${ratioG.toFixed(2)}`);
}
