/**
 * Wall time of one centring pass (n, S, A, B at θ*) in PostgreSQL against the
 * WASM core's pass over the same rows in memory, and of Newton to the MAP in
 * PostgreSQL, for the Higgs-shaped logistic data (d = 30). Needs a server:
 * TALLMC_PG_URL, or one started by `.ci/postgres.sh` on 127.0.0.1:54339.
 *
 * deno run --allow-read --allow-write=/tmp --allow-env --allow-net=127.0.0.1 --allow-run \
 *   bench/postgres_centring.ts [n …]
 */
import pg from "npm:pg@8.16.3";
import { loadCore } from "../core/load.ts";
import { higgsShaped } from "../data/synthetic.ts";
import { postgresControlVariateSums, postgresNewtonCentring } from "../engines/postgres.ts";
import { GlmModel } from "../models/glm.ts";
import { ControlVariates } from "../subsampling/control_variates.ts";
import { loadTable, startPostgres } from "../testing/postgres_fixtures.ts";

const sizes = Deno.args.length > 0 ? Deno.args.map(Number) : [100_000, 1_000_000];
const server = await startPostgres();
if (server.skip !== undefined) {
  console.log(`no server: ${server.skip}`);
  Deno.exit(1);
}
const client = new pg.Client({ connectionString: server.url });
await client.connect();
const dir = await Deno.makeTempDir({ prefix: "tallmc_pg_bench_" });
const arena = loadCore();
try {
  console.log("| n | load (COPY) | PostgreSQL pass | WASM pass | Newton in PostgreSQL (passes) |");
  console.log("|---|---|---|---|---|");
  for (const n of sizes) {
    const h = higgsShaped(arena, { n, seed: 3, storage: "f64" });
    const theta = h.trueCoefficients;
    let t0 = performance.now();
    const columns = await loadTable(client, h.data, dir, { fromCol: 1, table: "bench_rows" });
    const load = performance.now() - t0;
    const common = {
      connection: client,
      source: { table: "bench_rows" },
      family: "logistic" as const,
      columns,
      response: "y",
      intercept: true,
    };
    t0 = performance.now();
    await postgresControlVariateSums({ ...common, thetaStar: theta });
    const pgPass = performance.now() - t0;
    const model = new GlmModel(h.data, { family: "logistic" });
    t0 = performance.now();
    const cv = new ControlVariates(model, theta, { order: 2 });
    const wasmPass = performance.now() - t0;
    cv.dispose();
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    let newton = "not run (n > 2·10⁵)";
    if (n <= 200_000) {
      t0 = performance.now();
      const nc = await postgresNewtonCentring({ ...common, init: theta });
      newton = `${s(performance.now() - t0)} (${nc.numPasses})`;
    }
    model.dispose();
    console.log(`| ${n} | ${s(load)} | ${s(pgPass)} | ${s(wasmPass)} | ${newton} |`);
    await client.query(`DROP TABLE "bench_rows"`);
  }
} finally {
  await client.end();
  await Deno.remove(dir, { recursive: true });
  await server.stop();
}
