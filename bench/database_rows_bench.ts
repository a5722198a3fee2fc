/**
 * HMC-ECS with the rows in PostgreSQL or in the two-shard ClickHouse cluster
 * (`engines/database_glm.ts`: rows fetched by key, one query per subsample
 * update) against the in-memory sampler, per sampling iteration: rows
 * fetched, queries, wall time. Logistic, intercept + 4 columns, f64.
 *
 * For each n: θ* by Newton in memory; the in-memory GlmModel's run from θ*
 * (its own centring pass); then per engine: bulk load (PostgreSQL COPY from
 * a CSV file into a table with a primary key; ClickHouse RowBinary into a
 * MergeTree per shard ordered by the key), one centring pass in the engine
 * at θ*, and two runs from that centring with the same seed — the in-memory
 * rows through the external interface and the engine's rows — whose draws
 * must be equal (checked). Servers: its own, started by `.ci/postgres.sh`
 * (port 54369) and `.ci/clickhouse.sh` (19500), stopped at the end.
 *
 * deno run --allow-read --allow-write=/tmp --allow-env --allow-net=127.0.0.1 --allow-run --allow-sys=loadavg \
 *   bench/database_rows_bench.ts [--n 1000000,10000000] [--warmup 200] [--samples 200] \
 *   [--engines postgres,clickhouse] [--granularity 8192] [--m M --blocks G]
 *
 * `--m` and `--blocks` fix HMC-ECS's subsample size and number of blocks
 * (default: its own tuning, which for this easy problem picks m = 100 in
 * 100 blocks, one new row per iteration).
 */
import pg from "npm:pg@8.16.3";
import { loadCore } from "../core/load.ts";
import { freeGlmData, type GlmData, glmDataFromArrays } from "../data/dataset.ts";
import { clickhouseQuery } from "../engines/clickhouse.ts";
import { type DatabaseGlmModel, openDatabaseGlm } from "../engines/database_glm.ts";
import { GlmModel } from "../models/glm.ts";
import { externalFromGlm } from "../models/in_memory_external.ts";
import { Rng } from "../random/rng.ts";
import { newtonMap } from "../replicate/laplace.ts";
import { sample } from "../samplers/mod.ts";
import { loadSharded, startClickHouse } from "../testing/clickhouse_fixtures.ts";
import { loadTable, startPostgres } from "../testing/postgres_fixtures.ts";

const args: Record<string, string> = {
  n: "1000000,10000000",
  warmup: "200",
  samples: "200",
  engines: "postgres,clickhouse",
  granularity: "8192",
  m: "",
  blocks: "",
};
for (let i = 0; i < Deno.args.length; i += 2) {
  const name = Deno.args[i].replace(/^--/, "");
  if (!(name in args) || Deno.args[i + 1] === undefined) {
    console.error(`unknown or incomplete option ${Deno.args[i]}`);
    Deno.exit(2);
  }
  args[name] = Deno.args[i + 1];
}
const sizes = args.n.split(",").map(Number);
const W = Number(args.warmup), S = Number(args.samples);
const engines = args.engines.split(",");
const D = 5, COLS = ["x1", "x2", "x3", "x4"];
const GLM = { family: "logistic" as const, priorScale: 10 };
const load = () => Deno.loadavg().map((v) => v.toFixed(1)).join(" ");

function makeData(n: number): GlmData {
  const rng = new Rng(17), x = new Float64Array(n * D), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * D] = 1;
    let eta = -0.4;
    for (let j = 1; j < D; j++) {
      const v = rng.normal();
      x[i * D + j] = v;
      eta += (j % 2 === 0 ? -0.5 : 0.7) * v / j;
    }
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  return glmDataFromArrays(loadCore(), x, y, {
    numCols: D,
    columnNames: ["(Intercept)", ...COLS],
  });
}

function flat(r: ReturnType<typeof sample>): Float64Array {
  return Float64Array.from(r.draws[0].flatMap((col) => Array.from(col)));
}

const pgServer = engines.includes("postgres") ? await startPostgres(54369) : null;
const chCluster = engines.includes("clickhouse") ? await startClickHouse(19500) : null;
if (pgServer?.skip) console.log(`postgres skipped: ${pgServer.skip}`);
if (chCluster?.skip) console.log(`clickhouse skipped: ${chCluster.skip}`);
// Without a server there is nothing to compare against (under `deno task bench`
// none can be started): skip the 10⁶- and 10⁷-row in-memory runs too.
const anyEngine = pgServer?.url !== undefined || chCluster?.shards !== undefined;
if (!anyEngine) console.log("no database engine is available: nothing is measured");
const dir = await Deno.makeTempDir({ prefix: "tallmc_rows_bench_" });
const rows: string[] = [];
try {
  for (const n of anyEngine ? sizes : []) {
    const t0 = performance.now();
    const data = makeData(n);
    const glm = new GlmModel(data, GLM);
    const mode = newtonMap(glm).mode;
    console.log(`n = ${n}: data and θ* in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const base = {
      sampler: "hmc-ecs",
      seed: 3,
      numWarmup: W,
      numSamples: S,
      numChains: 1,
      ...(args.m === "" ? {} : { subsampleSize: Number(args.m) }),
      ...(args.blocks === "" ? {} : { numBlocks: Number(args.blocks) }),
    } as const;
    const mem = sample(glm, { ...base, thetaStar: mode, maxNewtonSteps: 0 });
    const tm = mem.chains[0].tuning;
    const memMs = mem.chains[0].wallTimeMs.sampling / S;
    const m = tm.subsampleSize as number, G = tm.numBlocks as number;
    rows.push(
      `| ${n} | in memory (GlmModel) | – | – | – | ${m} / ${G} | 0 | ${
        memMs.toFixed(2)
      } | 1 | ${load()} |`,
    );
    console.log(rows.at(-1));
    for (const engine of engines) {
      let url: string;
      let la = performance.now();
      if (engine === "postgres") {
        if (pgServer?.url === undefined) continue;
        url = pgServer.url;
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        try {
          await loadTable(c, data, dir, { fromCol: 1, table: "bench_rows", key: "id" });
          await c.query("ANALYZE bench_rows");
        } finally {
          await c.end();
        }
      } else {
        if (chCluster?.shards === undefined) continue;
        await loadSharded(chCluster.shards, data, {
          fromCol: 1,
          table: "bench_rows",
          key: "id",
          indexGranularity: Number(args.granularity),
        });
        url = chCluster.shards[0].replace(/^http:/, "clickhouse:") + "/default";
      }
      const loadS = (performance.now() - la) / 1000;
      la = performance.now();
      const model = await openDatabaseGlm({
        connection: `${url}?table=bench_rows&key=id`,
        columns: COLS,
        response: "y",
        intercept: true,
        glm: GLM,
      });
      const openS = (performance.now() - la) / 1000;
      try {
        la = performance.now();
        const gradSum = new Float64Array(D), hessSum = new Float64Array(D * D);
        const llStarSum = model.controlVariateSums(mode, gradSum, hessSum);
        const passS = (performance.now() - la) / 1000;
        const centring = { thetaStar: mode, llStarSum, gradSum, hessSum };
        const ref = sample(externalFromGlm(glm), { ...base, centring });
        const refMs = ref.chains[0].wallTimeMs.sampling / S;
        const log: { k: number; ms: number; q: number }[] = [];
        const logged = new Proxy(model, {
          get(t, key) {
            if (key === "readRows") {
              return (r: Int32Array, x: Float64Array, y: Float64Array) => {
                const q0 = t.fetches.numQueries, r0 = t.fetches.numRows, s0 = performance.now();
                t.readRows(r, x, y);
                log.push({
                  k: t.fetches.numRows - r0,
                  ms: performance.now() - s0,
                  q: t.fetches.numQueries - q0,
                });
              };
            }
            const v = Reflect.get(t, key, t);
            return typeof v === "function" ? v.bind(t) : v;
          },
        }) as DatabaseGlmModel;
        const db = sample(logged, { ...base, centring });
        const same = flat(db).every((v, i) => v === flat(ref)[i]) &&
          db.chains[0].numDraws === S;
        const dbMs = db.chains[0].wallTimeMs.sampling / S;
        // Perturbed HMC-ECS reads one refreshed block per sampling iteration.
        const last = log.slice(-S);
        const fetched = last.reduce((s, e) => s + e.k, 0) / S;
        const queries = last.reduce((s, e) => s + e.q, 0) / S;
        const fetchMs = last.reduce((s, e) => s + e.ms, 0) / S;
        rows.push(
          `| ${n} | ${engine} | ${loadS.toFixed(1)} s | ${passS.toFixed(1)} s | ${
            openS.toFixed(1)
          } s | ${m} / ${G} | ${fetched.toFixed(1)} rows, ${queries.toFixed(2)} queries (${
            fetchMs.toFixed(2)
          } ms) | ${dbMs.toFixed(2)} (same centring in memory: ${refMs.toFixed(2)}) | ${
            (dbMs / memMs).toFixed(1)
          } | ${load()} |${same ? "" : " DRAWS DIFFER"}`,
        );
        console.log(rows.at(-1));
      } finally {
        model.close();
      }
      if (engine === "postgres") {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query("DROP TABLE bench_rows");
        await c.end();
      } else {
        for (const s of chCluster!.shards!) {
          await clickhouseQuery(s, "DROP TABLE IF EXISTS bench_rows", { json: false });
          await clickhouseQuery(s, "DROP TABLE IF EXISTS bench_rows_local", { json: false });
        }
      }
    }
    freeGlmData(data);
  }
} finally {
  if (chCluster?.skip === undefined) await chCluster?.stop();
  if (pgServer?.skip === undefined) await pgServer?.stop();
  await Deno.remove(dir, { recursive: true });
}
console.log(
  `\nlogistic, d = ${D}, warmup ${W}, ${S} sampling iterations, 1 chain; load average (1, 5, 15 min) at the end of each row\n`,
);
console.log(
  "| n | rows in | load | centring pass at θ* | open (key check) | m / G | fetched per iteration | ms per iteration | × in memory | load avg |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
