/**
 * The centring's full-data pass (S, A and B at θ*) at n = 10⁶ rows of
 * HIGGS-shaped logistic data (intercept + 29 columns, d = 30, f64), three
 * ways:
 *
 * - WASM (baseline): `ControlVariates.recenter` over the data in memory —
 *   the ℓ/∇ℓ pass that also fills the per-row cache, then the Hessian pass;
 * - DuckDB over the Parquet file: `duckdbControlVariateSums`, decoding the
 *   file on every call (the setting it is for: data that are not in memory);
 * - DuckDB over a table already in its memory (the engine's own cost).
 *
 * DuckDB runs on `TALLMC_BENCH_DUCKDB_THREADS` threads (default 1, the WASM
 * pass's one thread). Setup (generating the rows, writing the Parquet file
 * with DuckDB) takes ~30 s. Set `TALLMC_BENCH_DUCKDB_N` to change n.
 *
 *   deno bench --allow-read --allow-write=/tmp --allow-env --allow-ffi bench/duckdb_bench.ts
 */
import { DuckDBInstance } from "npm:@duckdb/node-api@1.5.5-r.5";
import { loadCore } from "../core/load.ts";
import { higgsShaped } from "../data/synthetic.ts";
import { duckdbControlVariateSums } from "../engines/duckdb.ts";
import { GlmModel } from "../models/glm.ts";
import { ControlVariates } from "../subsampling/control_variates.ts";
import { writeParquet } from "../testing/duckdb_fixtures.ts";

const n = Math.round(Number(Deno.env.get("TALLMC_BENCH_DUCKDB_N") ?? "1e6"));
const threads = Number(Deno.env.get("TALLMC_BENCH_DUCKDB_THREADS") ?? "1");
const arena = loadCore({ initialBytes: n * (30 * 8 + 8 + 32) + (64 << 20) });
const { data, trueCoefficients: theta } = higgsShaped(arena, { n, seed: 1 });
const dir = await Deno.makeTempDir({ prefix: "tallmc_duckdb_bench_" });
const path = `${dir}/higgs.parquet`;
const instance = await DuckDBInstance.create(":memory:", { threads: String(threads) });
const conn = await instance.connect();
let t0 = performance.now();
const columns = await writeParquet(conn, data, path, { fromCol: 1 });
console.log(
  `setup: ${n} rows written to Parquet by DuckDB in ${
    ((performance.now() - t0) / 1000).toFixed(1)
  } s ` +
    `(${((await Deno.stat(path)).size / 2 ** 20).toFixed(0)} MiB), DuckDB threads = ${threads}`,
);
await conn.run(`CREATE TABLE higgs AS SELECT * FROM read_parquet('${path}')`);

const model = new GlmModel(data, { family: "logistic" });
t0 = performance.now();
const cv = new ControlVariates(model, theta, { order: 2 });
console.log(`setup: first WASM centring ${(performance.now() - t0).toFixed(0)} ms`);
const common = {
  family: "logistic" as const,
  columns,
  response: "y",
  intercept: true,
  thetaStar: theta,
  connection: conn,
};
const group = `centring S, A, B at n = ${n.toExponential(0)}, d = 30`;

Deno.bench({
  name: "WASM in memory (ControlVariates.recenter)",
  group,
  baseline: true,
  n: 5,
  warmup: 1,
  fn: () => cv.recenter(theta),
});
Deno.bench({
  name: "DuckDB over Parquet (duckdbControlVariateSums)",
  group,
  n: 5,
  warmup: 1,
  fn: async () => {
    await duckdbControlVariateSums({ ...common, source: { parquet: path } });
  },
});
Deno.bench({
  name: "DuckDB over a table in its memory",
  group,
  n: 5,
  warmup: 1,
  fn: async () => {
    await duckdbControlVariateSums({ ...common, source: { table: "higgs" } });
  },
});

globalThis.addEventListener("unload", () => {
  conn.closeSync();
  instance.closeSync();
  Deno.removeSync(dir, { recursive: true });
});
