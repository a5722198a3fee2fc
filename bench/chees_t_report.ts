/**
 * Which integration time T full-data HMC should sample with: the ChEES T of
 * the default warmup (`warmupScheme: "chees"`), multiples of it, and the
 * fixed scheme (εL = 1.2), compared on min bulk-, tail- and sd-ESS per
 * sampling gradient (HIGGS-shaped logistic regression, d = 30).
 *
 * For each seed: one ChEES warmup (4 chains × 1000) gives each chain's ε,
 * metric, T and last position; each scale c then samples 1000 draws per
 * chain from there with L = ⌈h·cT/ε⌉ (Halton h, as the default sampling
 * phase does with c = 1) and no further adaptation. The fixed scheme is its
 * own run (4 × (1000 + 1000)).
 *
 * Usage: `deno run bench/chees_t_report.ts [--n 5e4] [--seeds 1,2] [--scales 1,1.5,2]`
 *
 * References: Hoffman, Radul & Sountsov (2021) (ChEES); Vehtari et al.
 * (2021) (bulk and tail ESS).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { loadCore } from "../core/load.ts";
import { higgsShaped } from "../data/synthetic.ts";
import { essBulk, essSd, essTail } from "../diagnostics/ess.ts";
import { GlmModel } from "../models/glm.ts";
import type { SamplingResult } from "../samplers/driver.ts";
import { denseMetric, diagonalMetric } from "../samplers/metric.ts";
import { runHmc } from "../samplers/hmc/run.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "5e4" },
    seeds: { type: "string", default: "1,2" },
    scales: { type: "string", default: "1,1.5,2" },
  },
});
const n = Number(values.n), numChains = 4, its = 1000;
const { data } = higgsShaped(loadCore(), { n, seed: 1 });
const model = new GlmModel(data, { family: "logistic" });
const d = model.dim;

/** Min bulk-, tail- and sd-ESS over parameters, per sampling gradient, of chains' draws. */
function perGradient(draws: Float64Array[][], gradients: number): string {
  let bulk = Infinity, tail = Infinity, sd = Infinity;
  for (let j = 0; j < d; j++) {
    const cs = draws.map((c) => c[j]);
    bulk = Math.min(bulk, essBulk(cs));
    tail = Math.min(tail, essTail(cs));
    sd = Math.min(sd, essSd(cs));
  }
  return `${
    (gradients / (numChains * its)).toFixed(2)
  } gradients/iteration; min ESS per gradient: ` +
    `bulk ${(bulk / gradients).toFixed(3)}, tail ${(tail / gradients).toFixed(3)}, sd ${
      (sd / gradients).toFixed(3)
    }`;
}
const samplingGradients = (r: SamplingResult) =>
  r.chains.reduce((s, c) => s + c.cost.sampling.numGradRows, 0) / n;

console.log(`n = ${n}, d = ${d}, logistic; ${numChains} chains × ${its} draws per T`);
for (const seed of values.seeds.split(",").map(Number)) {
  const warm = runHmc(model, { seed, numChains, numWarmup: its, numSamples: 1 });
  const tuned = warm.chains.map((c) => ({
    stepSize: c.tuning.stepSize as number,
    T: c.tuning.trajectoryLength as number,
    inverse: c.tuning.inverseMassMatrix as Float64Array,
    kind: c.tuning.metric as string,
    last: Float64Array.from({ length: d }, (_, j) => c.draws[j][0]),
  }));
  console.log(
    `seed ${seed}: ChEES T per chain ${tuned.map((t) => t.T.toFixed(2)).join(", ")}, ε ${
      tuned.map((t) => t.stepSize.toFixed(3)).join(", ")
    }`,
  );
  for (const scale of values.scales.split(",").map(Number)) {
    const draws: Float64Array[][] = [];
    let gradients = 0;
    tuned.forEach((t, c) => {
      const r = runHmc(model, {
        seed: `${seed}-${c}`,
        numChains: 1,
        numWarmup: 0,
        numSamples: its,
        warmupScheme: "chees",
        trajectoryLength: scale * t.T,
        stepSize: t.stepSize,
        metric: t.kind === "dense" ? denseMetric(t.inverse) : diagonalMetric(t.inverse),
        optimizationIterations: 0,
        initialPosition: t.last,
      });
      draws.push(r.chains[0].draws);
      gradients += samplingGradients(r);
    });
    console.log(`  ${scale} × ChEES T: ${perGradient(draws, gradients)}`);
  }
  const fixed = runHmc(model, {
    seed,
    numChains,
    numWarmup: its,
    numSamples: its,
    warmupScheme: "fixed",
  });
  console.log(
    `  fixed εL = 1.2: ${perGradient(fixed.chains.map((c) => c.draws), samplingGradients(fixed))}`,
  );
}
