/**
 * Chains in workers: 2 short full-data HMC chains on HIGGS-shaped logistic
 * data (n = 2e4, d = 30) on 1 worker (the baseline) and on 2 workers, and
 * the plain two-thread CPU loop the speedup should be read against.
 */
import { sharedLogistic, spinSeconds, timedHmc } from "./_parallel_common.ts";

const model = sharedLogistic(20_000);
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
    name: `plain CPU loop, 2 × 1e8 steps, ${workers} thread(s)`,
    group: "cpu-loop",
    baseline: workers === 1,
    n: 3,
    async fn() {
      await spinSeconds(workers, 2, 1e8);
    },
  });
}
