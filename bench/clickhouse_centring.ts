/**
 * Wall time of one centring pass (n, S, A, B at θ*) over a Distributed
 * ClickHouse table of two shards against the WASM core's pass over the same
 * rows in memory, and of Newton to the MAP in ClickHouse, for the
 * Higgs-shaped logistic data (d = 30). Needs a cluster: TALLMC_CH_URLS, or
 * one started by `.ci/clickhouse.sh` on 127.0.0.1:19200.
 *
 * deno run --allow-read --allow-write=/tmp --allow-env --allow-net=127.0.0.1 --allow-run \
 *   bench/clickhouse_centring.ts [n …]
 */
import { loadCore } from "../core/load.ts";
import { higgsShaped } from "../data/synthetic.ts";
import { clickhouseControlVariateSums, clickhouseNewtonCentring } from "../engines/clickhouse.ts";
import { GlmModel } from "../models/glm.ts";
import { ControlVariates } from "../subsampling/control_variates.ts";
import { loadSharded, startClickHouse } from "../testing/clickhouse_fixtures.ts";

const sizes = Deno.args.length > 0 ? Deno.args.map(Number) : [100_000, 1_000_000];
const cluster = await startClickHouse();
if (cluster.skip !== undefined) {
  console.log(`no cluster: ${cluster.skip}`);
  Deno.exit(1);
}
const arena = loadCore();
try {
  console.log(
    "| n | load (RowBinary) | ClickHouse pass (2 shards) | WASM pass | Newton in ClickHouse (passes) |",
  );
  console.log("|---|---|---|---|---|");
  for (const n of sizes) {
    const h = higgsShaped(arena, { n, seed: 3, storage: "f64" });
    const theta = h.trueCoefficients;
    let t0 = performance.now();
    const columns = await loadSharded(cluster.shards, h.data, { fromCol: 1, table: "bench_rows" });
    const load = performance.now() - t0;
    const common = {
      connection: cluster.shards[0],
      source: { table: "bench_rows" },
      family: "logistic" as const,
      columns,
      response: "y",
      intercept: true,
    };
    t0 = performance.now();
    await clickhouseControlVariateSums({ ...common, thetaStar: theta });
    const chPass = performance.now() - t0;
    const model = new GlmModel(h.data, { family: "logistic" });
    t0 = performance.now();
    const cv = new ControlVariates(model, theta, { order: 2 });
    const wasmPass = performance.now() - t0;
    cv.dispose();
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    let newton = "not run (n > 2·10⁵)";
    if (n <= 200_000) {
      t0 = performance.now();
      const nc = await clickhouseNewtonCentring({ ...common, init: theta });
      newton = `${s(performance.now() - t0)} (${nc.numPasses})`;
    }
    model.dispose();
    console.log(`| ${n} | ${s(load)} | ${s(chPass)} | ${s(wasmPass)} | ${newton} |`);
  }
} finally {
  await cluster.stop();
}
