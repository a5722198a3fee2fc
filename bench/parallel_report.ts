/**
 * The parallel and warm-up benchmark in one run: full-data HMC on HIGGS-shaped logistic
 * data (d = 30), for each n:
 *
 * - gradient evaluations per chain in warmup and in sampling (full-data
 *   passes; the Newton start's Hessian passes count as one each), for the
 *   default `warmupScheme: "chees"` and, with `--fixed`, the previous εL = 1.2;
 * - whole-run min bulk-ESS/s (4 chains, 1000 + 1000, default workers);
 * - the speedup from 1 to 2 workers for 2 chains, and of a full-data pass
 *   split over 2 threads ({@link ThreadedGlmModel}), each beside the speedup
 *   of a plain two-thread CPU loop measured in the same run (the machine may
 *   be shared: the loop says how much of a second core was free).
 *
 * Usage: `deno run --allow-read bench/parallel_report.ts [--n 1e5,1e6]
 * [--chains 4] [--fixed] [--speedup-iterations 200]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { ThreadedGlmModel } from "../models/threaded_glm.ts";
import { sharedLogistic, spinSeconds, timedHmc } from "./_parallel_common.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "1e5" },
    chains: { type: "string", default: "4" },
    fixed: { type: "boolean", default: false },
    "speedup-iterations": { type: "string", default: "200" },
    "skip-run": { type: "boolean", default: false },
  },
});
const sizes = values.n.split(",").map(Number);
const numChains = Number(values.chains);
const its = Number(values["speedup-iterations"]);
const cores = navigator.hardwareConcurrency;
console.log(
  `machine: ${Deno.build.os} ${Deno.build.arch}, ${cores} logical cores, Deno ${Deno.version.deno}`,
);

for (const n of sizes) {
  const model = sharedLogistic(n);
  console.log(`\nn = ${n}, d = ${model.dim}, logistic`);
  if (!values["skip-run"]) {
    for (const warmup of values.fixed ? ["chees", "fixed"] : ["chees"]) {
      const r = await timedHmc(model, {
        warmupScheme: warmup,
        numChains,
        workers: Math.min(cores, numChains),
      });
      console.log(
        `  warmup ${warmup}: gradients per chain warmup ${r.warmupGradients.toFixed(0)} ` +
          `(${(r.warmupGradients / r.result.numWarmup).toFixed(2)}/iteration), sampling ${
            r.samplingGradients.toFixed(0)
          } (${(r.samplingGradients / r.result.numSamples).toFixed(2)}/iteration); ` +
          `min bulk-ESS ${r.minBulkEss.toFixed(0)} in ${r.seconds.toFixed(1)} s = ${
            (r.minBulkEss / r.seconds).toFixed(1)
          }/s (${r.result.parallel.workers} workers)`,
      );
    }
  }
  // Speedup 1 → 2 workers for 2 chains, interleaved with the CPU loop reference.
  const short = { numChains: 2, numWarmup: its, numSamples: its };
  const one = await timedHmc(model, { ...short, workers: 1 });
  const spin1 = await spinSeconds(1, 2, 4e8);
  const two = await timedHmc(model, { ...short, workers: 2 });
  const spin2 = await spinSeconds(2, 2, 4e8);
  console.log(
    `  2 chains × (${its} + ${its}): 1 worker ${one.seconds.toFixed(1)} s, 2 workers ${
      two.seconds.toFixed(1)
    } s, speedup ${(one.seconds / two.seconds).toFixed(2)}×; ` +
      `plain two-thread CPU loop: ${spin1.toFixed(1)} s → ${spin2.toFixed(1)} s, speedup ${
        (spin1 / spin2).toFixed(2)
      }×`,
  );
  // Full-data passes (log density + gradient) on 1 thread and split over 2, with the loop again.
  const passes = Math.max(5, Math.round(2e7 / n));
  const theta = new Float64Array(model.dim).fill(0.01), grad = new Float64Array(model.dim);
  const timePasses = (m: { logDensityAndGradient(t: Float64Array, g: Float64Array): number }) => {
    const t0 = performance.now();
    for (let k = 0; k < passes; k++) m.logDensityAndGradient(theta, grad);
    return (performance.now() - t0) / 1000;
  };
  const threaded = await ThreadedGlmModel.create(model, { threads: 2 });
  timePasses(threaded); // warm the workers up
  const p1 = timePasses(model);
  const p2 = timePasses(threaded);
  const loop1 = await spinSeconds(1, 2, 4e8);
  const loop2 = await spinSeconds(2, 2, 4e8);
  threaded.close();
  console.log(
    `  ${passes} full-data passes: 1 thread ${(1000 * p1 / passes).toFixed(2)} ms/pass, 2 threads ${
      (1000 * p2 / passes).toFixed(2)
    } ms/pass, speedup ${(p1 / p2).toFixed(2)}×; plain two-thread CPU loop speedup ${
      (loop1 / loop2).toFixed(2)
    }×`,
  );
  model.dispose();
}
