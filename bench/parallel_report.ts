/**
 * The parallel and warm-up benchmark in one run: full-data HMC and HMC-ECS's
 * full-data passes on HIGGS-shaped logistic data (d = 30), for each n:
 *
 * - gradient evaluations per chain in warmup and in sampling (full-data
 *   passes; the Newton start's Hessian passes count as one each), for the
 *   default `warmupScheme: "chees"` and, with `--fixed`, the previous εL = 1.2;
 * - whole-run min bulk-ESS/s (4 chains, 1000 + 1000, default workers; from
 *   n = 1e6 on, `--large-chains` chains × `--large-iterations` each, printed);
 * - the speedup from 1 to 2 workers for 2 chains, and of full-data passes
 *   split over 2 threads ({@link ThreadedGlmModel}): full-data HMC's log
 *   density and gradient, and HMC-ECS's control-variate centring (per-row
 *   cache, S, A) and Hessian B = ΣHₖ(θ*); each beside the speedup of a plain
 *   two-thread CPU loop measured in the same run (the machine may be shared:
 *   the loop says how much of a second core was free).
 *
 * Usage: `deno run --allow-read --allow-sys=cpus,loadavg bench/parallel_report.ts [--n 1e5,1e6]
 * [--chains 4] [--fixed] [--speedup-iterations 200] [--large-chains 2]
 * [--large-iterations 300]`
 *
 * @module
 */
import os from "node:os";
import { parseArgs } from "node:util";
import { ThreadedGlmModel } from "../models/threaded_glm.ts";
import { ControlVariates } from "../subsampling/control_variates.ts";
import { sharedLogistic, spinSeconds, timedHmc } from "./_parallel_common.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "1e5" },
    chains: { type: "string", default: "4" },
    fixed: { type: "boolean", default: false },
    "speedup-iterations": { type: "string", default: "200" },
    "large-chains": { type: "string", default: "2" },
    "large-iterations": { type: "string", default: "300" },
    "skip-run": { type: "boolean", default: false },
  },
});
const sizes = values.n.split(",").map(Number);
const LARGE = 1e6;
const cores = navigator.hardwareConcurrency;
// CPU model and load average need --allow-sys=cpus,loadavg (Deno asks for --allow-all to read /proc).
const cpu = (() => {
  try {
    return os.cpus()[0]?.model ?? "unknown CPU";
  } catch {
    return "unknown CPU (run with --allow-sys=cpus,loadavg)";
  }
})();
const load = () => {
  try {
    return os.loadavg().map((v) => v.toFixed(2)).join(" ");
  } catch {
    return "n/a";
  }
};
console.log(
  `machine: ${Deno.build.os} ${Deno.build.arch}, ${cores} logical cores, ${cpu}, Deno ${Deno.version.deno}; ` +
    `load average ${load()}`,
);

for (const n of sizes) {
  const model = sharedLogistic(n);
  const large = n >= LARGE;
  const numChains = Number(large ? values["large-chains"] : values.chains);
  const runIts = large ? Number(values["large-iterations"]) : 1000;
  const its = large
    ? Math.max(20, Math.round(Number(values["speedup-iterations"]) / 4))
    : Number(values["speedup-iterations"]);
  console.log(`\nn = ${n}, d = ${model.dim}, logistic; load average ${load()}`);
  if (large) {
    console.log(
      `  (n ≥ ${LARGE}: ${numChains} chains × (${runIts} + ${runIts}) for the whole run and ` +
        `2 chains × (${its} + ${its}) for the worker speedup, to keep the run short)`,
    );
  }
  if (!values["skip-run"]) {
    for (const warmup of values.fixed ? ["chees", "fixed"] : ["chees"]) {
      const r = await timedHmc(model, {
        warmupScheme: warmup,
        numChains,
        numWarmup: runIts,
        numSamples: runIts,
        workers: Math.min(cores, numChains),
      });
      console.log(
        `  warmup ${warmup}, ${numChains} chains × (${runIts} + ${runIts}): gradients per chain warmup ${
          r.warmupGradients.toFixed(0)
        } ` +
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
  // Full-data passes on 1 thread and split over 2, interleaved pass by pass
  // (so that a change in load hits both), then the loop again.
  const reps = Math.max(5, Math.round(2e7 / n));
  const d = model.dim, theta = new Float64Array(d).fill(0.01), grad = new Float64Array(d);
  const hess = new Float64Array(d * d);
  const threaded = await ThreadedGlmModel.create(model, { threads: 2 });
  const cvOne = new ControlVariates(model, theta, { order: 2, computeHessian: false });
  const cvTwo = new ControlVariates(model, theta, {
    order: 2,
    computeHessian: false,
    passes: threaded,
  });
  const kinds = {
    gradient: [
      () => model.logDensityAndGradient(theta, grad),
      () => threaded.logDensityAndGradient(theta, grad),
    ],
    centring: [() => cvOne.recenter(theta), () => cvTwo.recenter(theta)],
    hessian: [
      () => model.logLikelihoodHessian(theta, hess),
      () => threaded.logLikelihoodHessian(theta, hess),
    ],
  };
  const ms: Record<string, [number, number]> = {};
  for (const [name, [f1, f2]] of Object.entries(kinds)) {
    f1(); // warm up (JIT, workers)
    f2();
    let t1 = 0, t2 = 0;
    for (let k = 0; k < reps; k++) {
      let t0 = performance.now();
      f1();
      t1 += performance.now() - t0;
      t0 = performance.now();
      f2();
      t2 += performance.now() - t0;
    }
    ms[name] = [t1 / reps, t2 / reps];
  }
  const loop1 = await spinSeconds(1, 2, 4e8);
  const loop2 = await spinSeconds(2, 2, 4e8);
  cvOne.dispose();
  cvTwo.dispose();
  threaded.close();
  const fmt = (name: string, what: string) => {
    const [a, b] = ms[name];
    return `${what} ${a.toFixed(2)} → ${b.toFixed(2)} ms, ${(a / b).toFixed(2)}×`;
  };
  const [c1, c2] = ms.centring, [h1, h2] = ms.hessian;
  console.log(
    `  full-data passes, 1 → 2 threads (mean of ${reps}): ${
      fmt("gradient", "HMC log density + gradient")
    }; ` +
      `${fmt("centring", "HMC-ECS centring (cache, S, A)")}; ${fmt("hessian", "Hessian B")}; ` +
      `centring + B ${(c1 + h1).toFixed(2)} → ${(c2 + h2).toFixed(2)} ms, ${
        ((c1 + h1) / (c2 + h2)).toFixed(2)
      }×; plain two-thread CPU loop speedup ${(loop1 / loop2).toFixed(2)}×`,
  );
  model.dispose();
}
console.log(`\nload average at the end ${load()}`);
