/**
 * HMC-ECS over a table that stays in PostgreSQL or in the ClickHouse
 * cluster (`engines/database_glm.ts`): rows fetched by key, one query per
 * subsample update, through a worker and `Atomics.wait`. With the engine's
 * centring, the draws equal the in-memory model's for the same seed, bit for
 * bit; the same table as `defineModel`'s row source (`openDatabaseRows`)
 * gives openDatabaseGlm's HMC-ECS, HMC and SGLD draws, bit for bit; a
 * connection that drops mid-run keeps the draws made and names the
 * table and the server. Skipped, saying why, only when a server cannot be
 * installed or started.
 */
import assert from "node:assert/strict";
import pg from "npm:pg@8.16.3";
import { loadCore } from "../../core/load.ts";
import { type GlmData, glmDataFromArrays } from "../../data/dataset.ts";
import { clickhouseNewtonCentring } from "../../engines/clickhouse.ts";
import {
  type DatabaseGlmModel,
  openDatabaseGlm,
  openDatabaseRows,
} from "../../engines/database_glm.ts";
import { defineModel } from "../../models/compose.ts";
import { postgresNewtonCentring } from "../../engines/postgres.ts";
import { writeRowStoreFromGlmData } from "../../data/row_store_write.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import type { PerRowHessianModel } from "../../models/model.ts";
import { ShardedGlmModel } from "../../models/sharded_glm.ts";
import { logGamma } from "../../math/special.ts";
import { centringBounds, scaleCentringBounds } from "../../testing/duckdb_fixtures.ts";
import { familyProblem } from "../_family_fixtures.ts";
import { externalFromGlm } from "../../models/in_memory_external.ts";
import { Rng } from "../../random/rng.ts";
import { sample } from "../../samplers/mod.ts";
import {
  type ClickHouseCluster,
  loadSharded,
  startClickHouse,
} from "../../testing/clickhouse_fixtures.ts";
import { loadTable, type PostgresServer, startPostgres } from "../../testing/postgres_fixtures.ts";
import { liveServerTest, type LiveStep } from "../_live_servers.ts";

// The servers are started by the one `[e2e]` test at the end, which runs the
// tests of this file as its steps: a run without the end-to-end tests starts none.
let cluster: ClickHouseCluster = { skip: "not started" };
let server: PostgresServer = { skip: "not started" };
const onClickHouse: LiveStep[] = [], onPostgres: LiveStep[] = [];

// n = 3 000 logistic rows, intercept + 3 columns with full mantissas.
const N = 3000, D = 4;
function rowsData(): GlmData {
  const rng = new Rng(5), x = new Float64Array(N * D), y = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    x[i * D] = 1;
    for (let j = 1; j < D; j++) x[i * D + j] = rng.normal() * (0.5 + j / 3);
    const eta = 0.3 + 0.8 * x[i * D + 1] - 0.5 * x[i * D + 2] + 0.2 * x[i * D + 3];
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  return glmDataFromArrays(loadCore(), x, y, {
    numCols: D,
    columnNames: ["(Intercept)", "x1", "x2", "x3"],
  });
}
const data = rowsData();
const GLM = { family: "logistic" as const, priorScale: 10 };
const COLS = ["x1", "x2", "x3"];
const RUN = { sampler: "hmc-ecs", seed: 13, numWarmup: 100, numSamples: 60, numChains: 1 } as const;

function flat(r: ReturnType<typeof sample>): Float64Array {
  return Float64Array.from(r.draws[0].flatMap((col) => Array.from(col)));
}

type Centring = {
  thetaStar: Float64Array;
  llStarSum: number;
  gradSum: Float64Array;
  hessSum: Float64Array;
};

/** The engine's run against the in-memory model's with the same centring and seed. */
function sameDraws(model: DatabaseGlmModel, centring: Centring): void {
  const options = { ...RUN, centring };
  const inMemory = sample(externalFromGlm(new GlmModel(data, GLM)), options);
  const before = { ...model.fetches };
  const r = sample(model, options);
  assert.equal(r.chains[0].stop, null);
  assert.deepEqual(flat(r), flat(inMemory));
  assert.equal(r.chains[0].tuning.numCenterings, 1);
  // One query per subsample update, each for at most a block of rows.
  const queries = model.fetches.numQueries - before.numQueries;
  const rows = model.fetches.numRows - before.numRows;
  const t = r.chains[0].tuning;
  const block = Math.ceil((t.subsampleSize as number) / (t.numBlocks as number));
  assert.ok(
    queries >= RUN.numSamples && queries <= 3 * (RUN.numWarmup + RUN.numSamples),
    `${queries}`,
  );
  assert.ok(rows / queries <= (t.subsampleSize as number), `${rows} rows in ${queries} queries`);
  assert.ok(block < N / 10, `block ${block}`);
}

/**
 * The same table through `defineModel({ rows: { database: openDatabaseRows(…) } })`:
 * the draws of `model` (openDatabaseGlm's) for HMC-ECS, full-data HMC and SGLD, bit for bit.
 */
async function sameThroughDefineModel(
  model: DatabaseGlmModel,
  connection: string,
  centring: Centring,
): Promise<void> {
  const defined = await defineModel({
    prior: { priorScale: GLM.priorScale },
    likelihood: { family: GLM.family },
    rows: {
      database: await openDatabaseRows({
        connection,
        columns: COLS,
        response: "y",
        intercept: true,
      }),
    },
  });
  try {
    assert.deepEqual(defined.parameterNames, model.parameterNames);
    const runs = [
      { ...RUN, numWarmup: 30, numSamples: 20, centring },
      {
        sampler: "hmc",
        seed: 3,
        numWarmup: 8,
        numSamples: 6,
        numChains: 1,
        numIntegrationSteps: 3,
      },
      {
        sampler: "sgld",
        seed: 4,
        numWarmup: 10,
        numSamples: 20,
        numChains: 1,
        thetaStar: centring.thetaStar,
      },
    ] as const;
    for (const run of runs) {
      const a = sample(defined, run), b = sample(model, run);
      assert.equal(a.chains[0].stop, null, run.sampler);
      assert.deepEqual(a.draws, b.draws, `${run.sampler}: defineModel's draws`);
    }
  } finally {
    defined.close();
  }
}

/** A proxy worker in front of `port`; `arm(k)` cuts every connection after k more client chunks. */
async function cutProxy(port: number) {
  const w = new Worker(new URL("../_cut_proxy_worker.ts", import.meta.url), { type: "module" });
  const next = () =>
    new Promise<Record<string, number>>((res) => (w.onmessage = (e) => res(e.data)));
  const started = next();
  w.postMessage({ target: port });
  const proxyPort = (await started).port;
  return {
    port: proxyPort,
    arm: async (k: number) => {
      const armed = next();
      w.postMessage({ arm: k });
      await armed;
    },
    stop: () => w.terminate(),
  };
}

/** A run whose connection drops during sampling: draws kept, the error names the table. */
async function dropped(
  model: DatabaseGlmModel,
  arm: (k: number) => Promise<void>,
  centring: Centring,
  table: RegExp,
) {
  await arm(120);
  const r = sample(model, { ...RUN, numWarmup: 20, numSamples: 5000, centring });
  const c = r.chains[0];
  assert.ok(c.stop !== null, "the run should stop");
  assert.equal(c.stop!.kind, "error");
  assert.match(c.stop!.reason, table);
  assert.equal(c.stop!.phase, "sampling", c.stop!.reason);
  assert.ok(c.numDraws > 0 && c.numDraws < 5000, `${c.numDraws}`);
  assert.equal(r.draws[0][0].length, c.numDraws);
  assert.ok(Array.from(r.draws[0][0]).every(Number.isFinite));
  assert.ok(!c.stop!.reason.includes("s3cret"), c.stop!.reason);
}

onPostgres.push({
  name:
    "postgres row source: HMC-ECS draws equal the in-memory model's, defineModel's equal openDatabaseGlm's; a dropped connection keeps the draws",
  fn: async () => {
    const url = server.url!;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const dir = await Deno.makeTempDir({ prefix: "tallmc_pgrows_" });
    try {
      await loadTable(client, data, dir, { fromCol: 1, table: "ecs_rows", key: "id" });
      // Rows stored in another order than their keys: fetched by key all the same.
      await client.query("CLUSTER ecs_rows USING ecs_rows_pkey");
      const c = await postgresNewtonCentring({
        connection: client,
        source: { table: "ecs_rows" },
        family: "logistic",
        columns: COLS,
        response: "y",
        intercept: true,
        priorScale: 10,
      });
      assert.ok(c.converged);
      const model = await openDatabaseGlm({
        connection: `${url}?table=ecs_rows&key=id`,
        columns: COLS,
        response: "y",
        intercept: true,
        glm: GLM,
      });
      try {
        assert.equal(model.numRows, N);
        assert.deepEqual(model.parameterNames, ["(Intercept)", "x1", "x2", "x3"]);
        sameDraws(model, c);
        await sameThroughDefineModel(model, `${url}?table=ecs_rows&key=id`, c);
      } finally {
        model.close();
      }
      // Errors at open name the table.
      await assert.rejects(
        openDatabaseGlm({
          connection: `${url}?table=nope&key=id`,
          columns: COLS,
          response: "y",
          glm: GLM,
        }),
        /table nope at postgres:\/\/.*relation "nope" does not exist/,
      );
      await client.query(
        "CREATE TABLE ecs_gap AS SELECT id * 2 AS id, x1, x2, x3, y FROM ecs_rows",
      );
      await assert.rejects(
        openDatabaseGlm({
          connection: `${url}?table=ecs_gap&key=id`,
          columns: COLS,
          response: "y",
          glm: GLM,
        }),
        /key column "id" must hold the integers base … base \+ n − 1 once each \(n = 3000\); it holds 3000 distinct values from 0 to 5998/,
      );
      await client.query("DROP TABLE ecs_gap");
      // A connection through a proxy that goes away during sampling.
      const port = Number(new URL(url).port);
      const proxy = await cutProxy(port);
      try {
        const via = new URL(url);
        via.port = String(proxy.port);
        via.password = "s3cret"; // trust auth ignores it; it must never be printed
        const m2 = await openDatabaseGlm({
          connection: `${via}?table=ecs_rows&key=id`,
          columns: COLS,
          response: "y",
          intercept: true,
          glm: GLM,
        });
        try {
          await dropped(
            m2,
            proxy.arm,
            c,
            /table ecs_rows at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres/,
          );
        } finally {
          m2.close();
        }
      } finally {
        proxy.stop();
      }
    } finally {
      await client.query("DROP TABLE IF EXISTS ecs_rows").catch(() => {});
      await client.end();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

onClickHouse.push({
  name:
    "clickhouse row source over a Distributed table: HMC-ECS draws equal the in-memory model's, defineModel's equal openDatabaseGlm's; a dropped connection keeps the draws",
  fn: async () => {
    const shards = cluster.shards!;
    await loadSharded(shards, data, {
      fromCol: 1,
      table: "ecs_rows",
      key: "id",
      split: 1100,
      indexGranularity: 256,
    });
    const url = shards[0].replace(/^http:/, "clickhouse:");
    const c = await clickhouseNewtonCentring({
      connection: url,
      source: { table: "ecs_rows" },
      family: "logistic",
      columns: COLS,
      response: "y",
      intercept: true,
      priorScale: 10,
    });
    assert.ok(c.converged);
    const model = await openDatabaseGlm({
      connection: `${url}/default?table=ecs_rows&key=id`,
      columns: COLS,
      response: "y",
      intercept: true,
      glm: GLM,
    });
    try {
      assert.equal(model.numRows, N);
      sameDraws(model, c);
      await sameThroughDefineModel(model, `${url}/default?table=ecs_rows&key=id`, c);
    } finally {
      model.close();
    }
    await assert.rejects(
      openDatabaseGlm({
        connection: `${url}?table=nope&key=id`,
        columns: COLS,
        response: "y",
        glm: GLM,
      }),
      /table nope at clickhouse:\/\/.*nope doesn't exist/,
    );
    const proxy = await cutProxy(Number(new URL(shards[0]).port));
    try {
      const m2 = await openDatabaseGlm({
        connection: `clickhouse://127.0.0.1:${proxy.port}/default?table=ecs_rows&key=id`,
        columns: COLS,
        response: "y",
        intercept: true,
        glm: GLM,
      });
      try {
        await dropped(
          m2,
          proxy.arm,
          c,
          /table ecs_rows at clickhouse:\/\/127\.0\.0\.1:\d+\/default/,
        );
      } finally {
        m2.close();
      }
    } finally {
      proxy.stop();
    }
  },
});

/** A family whose SQL differs by dialect (or that streams), on a live engine. */
interface EngineFamily {
  name: string;
  options: (aux: Float64Array) => GlmOptions;
  aux?: "offset" | "trials";
  /** Whether the engine's SQL sums it: ClickHouse and PostgreSQL 18 have LGAMMA, 15 has not. */
  sql: (engine: "postgres" | "clickhouse", lgamma: boolean) => boolean;
  make: () => { x: Float64Array; y: Float64Array; aux: Float64Array; theta: Float64Array };
}

const FN = 1501;
const ENGINE_FAMILIES: EngineFamily[] = [
  {
    name: "poisson + offset",
    options: (aux) => ({ family: "poisson", offset: aux }),
    aux: "offset",
    sql: (_e, lgamma) => lgamma,
    make: () => familyProblem("poisson-offset", FN, D, 4),
  },
  {
    name: "gaussian-scale",
    options: () => ({ family: "gaussian-scale", scalePrior: "half_normal(2)" }),
    sql: () => true,
    make: () => familyProblem("gaussian-scale", FN, D, 5),
  },
  {
    name: "binomial",
    options: (aux) => ({ family: "binomial", trials: aux }),
    aux: "trials",
    sql: (_e, lgamma) => lgamma,
    make: () => familyProblem("binomial", FN, D, 9),
  },
  {
    name: "student-t, ν sampled",
    options: () => ({ family: "student-t", nu: "sample" }),
    sql: () => false,
    make: () => {
      const p = familyProblem("student-t", FN, D, 7);
      return { ...p, theta: Float64Array.from([...p.theta, Math.log(2.5)]) };
    },
  },
  {
    name: "negative-binomial + offset",
    options: (aux) => ({ family: "negative-binomial", offset: aux }),
    aux: "offset",
    sql: () => false,
    make: () => familyProblem("negative-binomial", FN, D, 8),
  },
];

const U = 2 ** -53;
const ENGINE_ECS = {
  sampler: "hmc-ecs",
  numWarmup: 30,
  numSamples: 20,
  numChains: 1,
  seed: 5,
  hessianFraction: 1,
} as const;

/**
 * Every family of ENGINE_FAMILIES on one engine against a GlmModel over the
 * same rows: the passes the engine picks (SQL where its SQL has the sums,
 * else streamed), log π and ∇ log π within the SQL bound of docs/databases.md
 * or bit for bit when streamed (one block), a subsample's per-row terms bit
 * for bit, HMC-ECS draws within 1e-9·max(1, |draw|); and one family streamed
 * in 256-row blocks equal to a row store streamed alike.
 */
async function familiesOn(
  engine: "postgres" | "clickhouse",
  lgamma: boolean,
  load: (table: string, data: GlmData, aux: Float64Array, name?: string) => Promise<void>,
  connection: (table: string) => string,
): Promise<void> {
  const names = ["(Intercept)", ...COLS];
  const dir = await Deno.makeTempDir({ prefix: "tallmc_engine_families_" });
  try {
    for (const [i, f] of ENGINE_FAMILIES.entries()) {
      const p = f.make();
      const fdata = glmDataFromArrays(loadCore(), p.x, p.y, { numCols: D, columnNames: names });
      const glm = new GlmModel(fdata, f.options(p.aux));
      const P = glm.dim;
      const table = `fam_rows_${i}`;
      await load(table, fdata, p.aux, f.aux === undefined ? undefined : "a");
      const { offset: _o, trials: _t, ...opts } = f.options(p.aux);
      const open = (more: { passes?: "stream"; chunkRows?: number } = {}) =>
        openDatabaseRows({
          connection: connection(table),
          columns: COLS,
          response: "y",
          intercept: true,
          batchRows: 200, // a streamed pass reads 8 chunks
          ...(f.aux === "offset" ? { offset: "a" } : f.aux === "trials" ? { trials: "a" } : {}),
          ...more,
        });
      const model = await defineModel({ likelihood: opts, rows: { database: await open() } });
      try {
        const sql = f.sql(engine, lgamma);
        assert.equal(model.passes, sql ? "sql" : "stream", `${f.name}: passes`);
        let worst = 0;
        for (const k of [0, 1, 2]) {
          const th = p.theta.map((v, j) => v + 0.07 * k * Math.sin(3 * j + k));
          const g = new Float64Array(P), g1 = new Float64Array(P);
          const lp = model.logDensityAndGradient(th, g), lp1 = glm.logDensityAndGradient(th, g1);
          if (!sql) {
            assert.equal(lp, lp1, `${f.name}: log π, one streamed block`);
            assert.deepEqual(g, g1, `${f.name}: ∇ log π, one streamed block`);
            continue;
          }
          const b = f.name === "gaussian-scale" ? scaleCentringBounds(fdata, th) : centringBounds(
            fdata,
            f.aux === "trials" ? "binomial" : "poisson",
            th,
            1,
            logGamma,
            p.aux,
          );
          const bs = b.s + 4 * U * Math.abs(lp1);
          assert.ok(Math.abs(lp - lp1) <= bs, `${f.name}: log π ${lp} vs ${lp1}, bound ${bs}`);
          worst = Math.max(worst, Math.abs(lp - lp1) / bs);
          for (let j = 0; j < P; j++) {
            const bj = b.a[j] + 4 * U * Math.abs(g1[j]);
            assert.ok(Math.abs(g[j] - g1[j]) <= bj, `${f.name}: ∂${j} ${g[j]} vs ${g1[j]}`);
            worst = Math.max(worst, Math.abs(g[j] - g1[j]) / bj);
          }
        }
        const rows = Int32Array.from({ length: 300 }, (_, k) => (k * 613 + 5) % FN);
        const per = new Float64Array(rows.length), per1 = per.slice();
        const h = new Float64Array(rows.length * P * P), h1 = h.slice();
        model.logLikelihoodRows(p.theta, rows, { perRow: per });
        glm.logLikelihoodRows(p.theta, rows, { perRow: per1 });
        (model as unknown as PerRowHessianModel).perRowHessians(p.theta, rows, h);
        glm.perRowHessians(p.theta, rows, h1);
        assert.deepEqual(per, per1, `${f.name}: ℓᵢ of a subsample`);
        assert.deepEqual(h, h1, `${f.name}: ∇²ℓᵢ of a subsample`);
        const got = sample(model, ENGINE_ECS), want = sample(glm, ENGINE_ECS);
        assert.equal(got.chains[0].stop, null, got.chains[0].stop?.reason);
        let gap = 0;
        want.draws[0].forEach((col, j) =>
          col.forEach((b, t) => {
            const rel = Math.abs(got.draws[0][j][t] - b) / Math.max(1, Math.abs(b));
            gap = Math.max(gap, rel);
            assert.ok(rel <= 1e-9, `${f.name}: HMC-ECS draw ${t} of ${j}`);
          })
        );
        console.log(
          `  ${engine} ${f.name} (${model.passes}): SQL |Δ|/bound ${
            worst.toExponential(2)
          }, HMC-ECS draw gap ${gap.toExponential(1)}`,
        );
        if (f.name === "negative-binomial + offset") {
          // 256-row blocks: the sums of a row store streamed in the same blocks, bit for bit.
          const store = `${dir}/${table}.rows`;
          await writeRowStoreFromGlmData(store, fdata, { aux: p.aux, auxName: "offset" });
          const streamed = await defineModel({
            likelihood: opts,
            rows: { database: await open({ passes: "stream", chunkRows: 256 }) },
          });
          const rowStore = await ShardedGlmModel.create(store, opts, {
            shardKind: "stream",
            workers: 1,
            chunkRows: 256,
          });
          try {
            const th = p.theta, gs = new Float64Array(P), gr = new Float64Array(P);
            assert.equal(
              streamed.logDensityAndGradient(th, gs),
              rowStore.logDensityAndGradient(th, gr),
            );
            assert.deepEqual(gs, gr);
          } finally {
            streamed.close();
            rowStore.close();
          }
        }
      } finally {
        model.close();
        glm.dispose();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

onPostgres.push({
  name:
    "postgres row source × families (+ offset, trials): SQL where PostgreSQL has the sums, else streamed by a cursor; per-row terms and HMC-ECS draws against memory",
  fn: async () => {
    const url = server.url!;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const dir = await Deno.makeTempDir({ prefix: "tallmc_pgfam_" });
    try {
      const v = Number(
        (await client.query("SELECT current_setting('server_version_num')::int AS v")).rows[0].v,
      );
      await familiesOn(
        "postgres",
        v >= 180000,
        async (table, fdata, aux, name) => {
          await loadTable(client, fdata, dir, {
            fromCol: 1,
            table,
            key: "id",
            ...(name === undefined ? {} : { extra: { [name]: (_y, i) => aux[i] } }),
          });
        },
        (table) => `${url}?table=${table}&key=id`,
      );
    } finally {
      for (let i = 0; i < ENGINE_FAMILIES.length; i++) {
        await client.query(`DROP TABLE IF EXISTS fam_rows_${i}`).catch(() => {});
      }
      await client.end();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

onClickHouse.push({
  name:
    "clickhouse row source × families (+ offset, trials) over a Distributed table: SQL with lgamma, else streamed by key ranges; per-row terms and HMC-ECS draws against memory",
  fn: async () => {
    const shards = cluster.shards!;
    const url = shards[0].replace(/^http:/, "clickhouse:");
    await familiesOn(
      "clickhouse",
      true,
      async (table, fdata, aux, name) => {
        await loadSharded(shards, fdata, {
          fromCol: 1,
          table,
          key: "id",
          split: 600,
          indexGranularity: 256,
          ...(name === undefined ? {} : { aux: { name, values: aux } }),
        });
      },
      (table) => `${url}/default?table=${table}&key=id`,
    );
  },
});

Deno.test(
  liveServerTest("[e2e] database row sources on a live PostgreSQL server and ClickHouse cluster", {
    start: async () => {
      // Ports of its own: test files may run in parallel.
      [cluster, server] = await Promise.all([startClickHouse(19400), startPostgres(54359)]);
    },
    stop: async () => {
      if (cluster.skip === undefined) await cluster.stop();
      if (server.skip === undefined) await server.stop();
    },
    skip: (step) => (onClickHouse.includes(step) ? cluster.skip : server.skip),
    steps: [...onPostgres, ...onClickHouse],
  }),
);
