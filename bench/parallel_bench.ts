/**
 * Chains in workers: 2 short full-data HMC chains on HIGGS-shaped logistic
 * data (n = 2e4, d = 30) on 1 worker (the baseline) and on 2 workers; HMC-ECS's
 * control-variate centring pass (per-row cache, S, A) at n = 2e5 on 1 thread
 * (the baseline) and split over 2 ({@link ThreadedGlmModel}); and the plain
 * two-thread CPU loop the speedups should be read against.
 */
import { ThreadedGlmModel } from "../models/threaded_glm.ts";
import { ControlVariates } from "../subsampling/control_variates.ts";
import { sharedLogistic, spinSeconds, timedHmc } from "./_parallel_common.ts";

const model = sharedLogistic(20_000);
const big = sharedLogistic(200_000);
const threaded = await ThreadedGlmModel.create(big, { threads: 2 });
const thetaStar = new Float64Array(big.dim).fill(0.01);
const centrings = [
  new ControlVariates(big, thetaStar, { computeHessian: false }),
  new ControlVariates(big, thetaStar, { computeHessian: false, passes: threaded }),
];
globalThis.addEventListener("unload", () => {
  for (const cv of centrings) cv.dispose();
  threaded.close();
});
for (const workers of [1, 2]) {
  Deno.bench({
    name: `2 HMC chains × (100 + 100), n = 2e4, d = 30, ${workers} worker(s)`,
    group: "chains",
    baseline: workers === 1,
    n: 3,
    async fn() {
      await timedHmc(model, { numChains: 2, numWarmup: 100, numSamples: 100, workers });
    },
  });
  Deno.bench({
    name: `HMC-ECS centring pass (cache, S, A), n = 2e5, d = 30, ${workers} thread(s)`,
    group: "centring",
    baseline: workers === 1,
    fn() {
      centrings[workers - 1].recenter(thetaStar);
    },
  });
  Deno.bench({
    name: `plain CPU loop, 2 × 1e8 steps, ${workers} thread(s)`,
    group: "cpu-loop",
    baseline: workers === 1,
    n: 3,
    async fn() {
      await spinSeconds(workers, 2, 1e8);
    },
  });
}
