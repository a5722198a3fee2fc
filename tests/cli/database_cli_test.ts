/**
 * `tallmc sample --data postgres://…?table=T` and `--data clickhouse://…?table=T`
 * on the live servers of `.ci/postgres.sh` and `.ci/clickhouse.sh`: the draws
 * equal those of the same rows from a CSV file (same seed, same order by
 * `key`), a password in the URL is never printed, and bad tables are errors
 * that name the table and the column. Each part is skipped, saying why, only
 * when its server cannot be installed or started.
 */
import assert from "node:assert/strict";
import pg from "npm:pg@8.16.3";
import { databaseCentring, laplaceStarts } from "../../cli/database_model.ts";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { clickhouseQuery } from "../../engines/clickhouse.ts";
import type { DatabaseGlmModel } from "../../engines/database_glm.ts";
import { cholesky, choleskySolve } from "../../math/linalg.ts";
import { GlmModel } from "../../models/glm.ts";
import { externalFromGlm } from "../../models/in_memory_external.ts";
import { Rng } from "../../random/rng.ts";
import { newtonMap } from "../../replicate/laplace.ts";
import { type ClickHouseCluster, startClickHouse } from "../../testing/clickhouse_fixtures.ts";
import { type PostgresServer, startPostgres } from "../../testing/postgres_fixtures.ts";
import { liveServerTest, type LiveStep } from "../_live_servers.ts";
import { runCli } from "../_cli_fixtures.ts";

// The servers are started by the one `[e2e]` test below, which runs the tests
// on them as its steps: a run without the end-to-end tests starts none.
let cluster: ClickHouseCluster = { skip: "not started" };
let server: PostgresServer = { skip: "not started" };
const onClickHouse: LiveStep[] = [], onPostgres: LiveStep[] = [];

// 300 rows: id, x1, x2 (doubles with full mantissas), y (0/1 from a fixed rule).
const N = 300;
const rows = Array.from({ length: N }, (_, i) => {
  const x1 = Math.sin(i * 1.7) * 1.3, x2 = Math.cos(i * 0.31) / 3;
  return { id: i, x1, x2, y: (0.4 + x1 - 2 * x2 + Math.sin(i * 7.1) > 0) ? 1 : 0 };
});

const RUN = ["--family", "logistic", "--samples", "40", "--warmup", "40"];
const RUN_TAIL = ["--chains", "1", "--seed", "7", "--quiet", "--formula", "y ~ x1 + x2"];

async function drawsFrom(data: string, dir: string, tag: string) {
  const out = `${dir}/${tag}.csv`;
  const r = await runCli(["sample", ...RUN, "--data", data, "--out", out, ...RUN_TAIL]);
  return { ...r, draws: r.code === 0 ? _body(await Deno.readTextFile(out)) : "" };
}

/** The draws file without comment lines (which name the data source). */
function _body(text: string): string {
  return text.split("\n").filter((l) => !l.startsWith("#")).join("\n");
}

async function csvReference(dir: string) {
  const csv = `${dir}/rows.csv`;
  await Deno.writeTextFile(
    csv,
    "id,x1,x2,y\n" + rows.map((r) => `${r.id},${r.x1},${r.x2},${r.y}`).join("\n") + "\n",
  );
  const ref = await drawsFrom(csv, dir, "ref");
  assert.equal(ref.code, 0, ref.err);
  return ref.draws;
}

/** Per-column means and sds of a draws file. */
function _moments(text: string): Map<string, { mean: number; sd: number }> {
  const lines = _body(text).split("\n").filter((l) => l.trim() !== "");
  const names = lines[0].split(","), out = new Map<string, { mean: number; sd: number }>();
  names.forEach((name, j) => {
    const v = lines.slice(1).map((l) => Number(l.split(",")[j]));
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1));
    out.set(name, { mean, sd });
  });
  return out;
}

/**
 * `--sampler hmc-ecs` with `&key=id`: the rows stay in the engine (rows by
 * key, centring passes in SQL). The centring is made once for all chains:
 * `--chains 2` makes as many full-data SQL passes as `--chains 1` (the
 * model's pass counter, printed at the end). The posterior means of the
 * two-chain run agree with the same run on the CSV file within a quarter
 * of a posterior sd (different centrings and starts, so not the same
 * draws). A flag whose meaning needs every row reads the whole table, and
 * says why.
 */
async function hmcEcsInEngine(url: string, dir: string, secret: string | null) {
  const args = (
    data: string,
    out: string,
    model = ["--response", "y", "--columns", "x1,x2"],
    chains = "2",
  ) => [
    "sample",
    "--family",
    "logistic",
    "--sampler",
    "hmc-ecs",
    "--samples",
    "400",
    "--warmup",
    "300",
    "--chains",
    chains,
    "--seed",
    "7",
    ...model,
    "--data",
    data,
    "--out",
    out,
  ];
  const ref = await runCli(args(`${dir}/rows.csv`, `${dir}/ecs_ref.csv`));
  assert.equal(ref.code, 0, ref.err);
  const one = await runCli(args(url, `${dir}/ecs_db1.csv`, undefined, "1"));
  assert.equal(one.code, 0, one.err);
  const got = await runCli(args(url, `${dir}/ecs_db.csv`));
  assert.equal(got.code, 0, got.err);
  assert.match(got.out, /rows stay in the database: 300 rows fetched by key per subsample update/);
  assert.doesNotMatch(got.err, /whole table/);
  if (secret !== null) assert.ok(!(got.err + got.out + one.err + one.out).includes(secret));
  // Every full-data SQL pass, counted by the model: the same for 1 and 2 chains.
  const passes = (out: string) => {
    const m = /database: (\d+) full-data passes in SQL/.exec(out);
    assert.ok(m !== null, out);
    return Number(m[1]);
  };
  const p1 = passes(one.out), p2 = passes(got.out);
  assert.ok(p1 >= 1 && p1 <= 10, `${p1} passes`);
  assert.equal(p2, p1, `2 chains: ${p2} passes, 1 chain: ${p1}`);
  assert.match(got.out, new RegExp(`centring: ${p1} full-data passes in SQL, shared by 2 chains`));
  const a = _moments(await Deno.readTextFile(`${dir}/ecs_ref.csv`));
  const b = _moments(await Deno.readTextFile(`${dir}/ecs_db.csv`));
  for (const name of ["(Intercept)", "x1", "x2"]) {
    const ra = a.get(name)!, rb = b.get(name)!;
    assert.ok(
      Math.abs(ra.mean - rb.mean) < 0.25 * ra.sd,
      `${name}: ${ra.mean} vs ${rb.mean} (sd ${ra.sd})`,
    );
  }
  // --formula takes default priors from every row's moments: the table is read.
  const formula = await runCli(args(url, `${dir}/ecs_f.csv`, ["--formula", "y ~ x1 + x2"]));
  assert.equal(formula.code, 0, formula.err);
  assert.match(formula.err, /the whole table is read into this process: --formula/);
}

onClickHouse.push({
  name: "tallmc sample --data clickhouse://…?table=T over a Distributed table: the CSV run's draws",
  fn: async () => {
    const [s1, s2] = cluster.shards!;
    const dir = await Deno.makeTempDir({ prefix: "tallmc_dbcli_" });
    try {
      for (const [s, url] of [s1, s2].entries()) {
        const run = (sql: string) => clickhouseQuery(url, sql, { json: false });
        await run("DROP TABLE IF EXISTS cli_rows");
        await run("DROP TABLE IF EXISTS cli_rows_local");
        await run(
          "CREATE TABLE cli_rows_local (id UInt32, x1 Float64, x2 Float64, y UInt8) ENGINE = MergeTree ORDER BY id",
        );
        // RowBinary, which ClickHouse reads exactly (its text formats do not
        // always); odd ids on shard 2.
        const mine = rows.filter((r) => r.id % 2 === s);
        const buf = new ArrayBuffer(mine.length * 21), v = new DataView(buf);
        mine.forEach((r, k) => {
          v.setUint32(k * 21, r.id, true);
          v.setFloat64(k * 21 + 4, r.x1, true);
          v.setFloat64(k * 21 + 12, r.x2, true);
          v.setUint8(k * 21 + 20, r.y);
        });
        await clickhouseQuery(url, "INSERT INTO cli_rows_local FORMAT RowBinary", {
          body: new Uint8Array(buf),
        });
        await run(
          "CREATE TABLE cli_rows AS cli_rows_local ENGINE = Distributed(tallmc_two_shards, default, cli_rows_local)",
        );
      }
      const ref = await csvReference(dir);
      const port = new URL(s1).port;
      const got = await drawsFrom(
        `clickhouse://127.0.0.1:${port}/default?table=cli_rows&key=id`,
        dir,
        "ch",
      );
      assert.equal(got.code, 0, got.err);
      assert.equal(got.draws, ref, "the table's draws differ from the CSV file's");
      await hmcEcsInEngine(
        `clickhouse://127.0.0.1:${port}/default?table=cli_rows&key=id`,
        dir,
        null,
      );

      // A wrong password: refused, the URL shown with *** in its place.
      const bad = await drawsFrom(
        `clickhouse://default:Pa55-w0rd-x@127.0.0.1:${port}/default?table=cli_rows`,
        dir,
        "pw",
      );
      assert.equal(bad.code, 2);
      assert.ok(!(bad.err + bad.out).includes("Pa55-w0rd-x"), bad.err);
      assert.match(bad.err, /--data clickhouse:\/\/default:\*\*\*@127\.0\.0\.1/);

      const url = (t: string) => `clickhouse://127.0.0.1:${port}/default?table=${t}`;
      const run = (sql: string) => clickhouseQuery(s1, sql, { json: false });
      await run("DROP TABLE IF EXISTS cli_bad");
      await run(
        "CREATE TABLE cli_bad (x1 Nullable(Float64), x2 Float64, y UInt8, d Date) ENGINE = MergeTree ORDER BY tuple()",
      );
      await run("INSERT INTO cli_bad VALUES (1, 2, 1, '2020-01-01'), (NULL, 1, 0, '2020-01-02')");
      const missing = await drawsFrom(url("no_such"), dir, "e1");
      assert.equal(missing.code, 2);
      assert.match(missing.err, /table no_such: .*no_such doesn't exist/);
      const date = await drawsFrom(url("cli_bad"), dir, "e2");
      assert.equal(date.code, 2);
      assert.match(date.err, /column "d" of table cli_bad is Date, neither a number nor text/);
      await run("ALTER TABLE cli_bad DROP COLUMN d");
      const nul = await drawsFrom(url("cli_bad"), dir, "e3");
      assert.equal(nul.code, 2);
      assert.match(nul.err, /column "x1" of table cli_bad holds NULL \(row \d\)/);
      const noTable = await drawsFrom(`clickhouse://127.0.0.1:${port}/default`, dir, "e4");
      assert.match(noTable.err, /names no table: add \?table=NAME/);
      const text = await drawsFrom(url("cli_rows_local") + "&key=nope", dir, "e5");
      assert.match(text.err, /table cli_rows_local has no column "nope" \(the key\)/);
      await run("DROP TABLE cli_bad");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

onPostgres.push({
  name: "tallmc sample --data postgres://…?table=T: the CSV run's draws, the password never shown",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tallmc_dbcli_" });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      await client.query("DROP TABLE IF EXISTS cli_rows");
      await client.query(
        "CREATE TABLE cli_rows (id INTEGER, x1 DOUBLE PRECISION, x2 DOUBLE PRECISION, y INTEGER)",
      );
      // Reversed insertion order: key=id restores the file's order.
      for (const r of [...rows].reverse()) {
        await client.query("INSERT INTO cli_rows VALUES ($1, $2, $3, $4)", [r.id, r.x1, r.x2, r.y]);
      }
      const ref = await csvReference(dir);
      const u = new URL(server.url!);
      // Loopback trust authentication ignores the password: the run succeeds and never prints it.
      const withPw = `postgres://postgres:Pa55-w0rd-y@127.0.0.1:${u.port}/postgres`;
      const got = await drawsFrom(`${withPw}?table=cli_rows&key=id`, dir, "pg");
      assert.equal(got.code, 0, got.err);
      assert.equal(got.draws, ref, "the table's draws differ from the CSV file's");
      assert.ok(!(got.err + got.out).includes("Pa55-w0rd-y"));
      await hmcEcsInEngine(`${withPw}?table=cli_rows&key=id`, dir, "Pa55-w0rd-y");

      await client.query("DROP TABLE IF EXISTS cli_bad");
      await client.query("CREATE TABLE cli_bad (x1 DOUBLE PRECISION, x2 REAL, y INTEGER, t DATE)");
      await client.query("INSERT INTO cli_bad VALUES (1, 2, 1, NULL)");
      const bad = (t: string) => drawsFrom(`${withPw}?table=${t}`, dir, "e");
      const missing = await bad("no_such");
      assert.equal(missing.code, 2);
      assert.match(missing.err, /table no_such does not exist/);
      assert.ok(!missing.err.includes("Pa55-w0rd-y"));
      const date = await bad("cli_bad");
      assert.match(date.err, /column "t" of table cli_bad is date, neither a number nor text/);
      await client.query("ALTER TABLE cli_bad DROP COLUMN t");
      await client.query("INSERT INTO cli_bad VALUES (NULL, 1, 0)");
      const nul = await bad("cli_bad");
      assert.match(nul.err, /column "x1" of table cli_bad holds NULL \(row 2\)/);
      // Nothing listens on the next port: host and port, never the password.
      const refused = await drawsFrom(
        `postgres://postgres:Pa55-w0rd-y@127.0.0.1:${Number(u.port) + 1}/postgres?table=cli_rows`,
        dir,
        "e",
      );
      assert.equal(refused.code, 2);
      assert.match(refused.err, /could not connect to PostgreSQL at 127\.0\.0\.1:\d+/);
      assert.ok(!refused.err.includes("Pa55-w0rd-y"), refused.err);
      await client.query("DROP TABLE cli_bad");
      await client.query("DROP TABLE cli_rows");
    } finally {
      await client.end();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test(
  liveServerTest("[e2e] database CLI on a live ClickHouse cluster and PostgreSQL server", {
    start: async () => {
      // Ports of its own: test files may run in parallel.
      cluster = await startClickHouse(19300);
      server = await startPostgres(54349);
    },
    stop: async () => {
      if (cluster.skip === undefined) await cluster.stop();
      if (server.skip === undefined) await server.stop();
    },
    skip: (step) => onClickHouse.includes(step) ? cluster.skip : server.skip,
    steps: [...onClickHouse, ...onPostgres],
  }),
);

Deno.test("a database URL without network or environment access names the flags to add, not the driver's variable", async () => {
  const cli = new URL("../../cli.ts", import.meta.url).pathname;
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write=/tmp",
      cli,
      "sample",
      "--data",
      "postgres://me:hunter2@127.0.0.1:1/db?table=visits",
      "--response",
      "y",
      "--family",
      "poisson",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(r.stderr);
  assert.equal(r.code, 2, err);
  assert.match(err, /--allow-net=127\.0\.0\.1 and --allow-env/);
  assert.doesNotMatch(err, /hunter2|Requires env access/);
});

/**
 * 20 000 rows in memory behind the database model's interface (no server),
 * each full-data pass counted (`hessians`: those that summed B).
 */
function countedModel() {
  const n = 20_000, d = 4, rng = new Rng(5);
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * d] = 1;
    for (let j = 1; j < d; j++) x[i * d + j] = rng.normal();
    const eta = 0.3 + x[i * d + 1] - 0.5 * x[i * d + 2] + 0.2 * x[i * d + 3];
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  const glm = new GlmModel(glmDataFromArrays(loadCore(), x, y, { numCols: d }), {
    family: "logistic",
    priorScale: 10,
  });
  const ext = externalFromGlm(glm);
  const counts = { passes: 0, hessians: 0 };
  const model = Object.assign(Object.create(ext), {
    controlVariateSums(t: Float64Array, g: Float64Array, h?: Float64Array) {
      counts.passes++;
      if (h !== undefined) counts.hessians++;
      return ext.controlVariateSums(t, g, h);
    },
  }) as DatabaseGlmModel;
  return { glm, ext, model, counts, d };
}

Deno.test("databaseCentring: Newton from a strided subset's MAP reaches the full-data MAP in a few passes, the sums exact at θ*", () => {
  // The subset is every 20th row.
  const { glm, ext, model, counts, d } = countedModel();
  const shared = databaseCentring(model);
  const passes = counts.passes;
  assert.equal(shared.numPasses, passes);
  assert.ok(shared.converged && passes <= 4, `${passes} passes`);
  const { mode, negHessian } = newtonMap(glm);
  const t = shared.centring.thetaStar;
  const inv = new Float64Array(d * d);
  for (let j = 0; j < d; j++) {
    const e = new Float64Array(d);
    e[j] = 1;
    inv.set(choleskySolve(cholesky(negHessian), e), j * d);
  }
  for (let j = 0; j < d; j++) {
    // The stopping rule δᵀPδ/d < 10⁻⁶ bounds each |δⱼ| by √(d·10⁻⁶) marginal
    // sds (Cauchy–Schwarz), and the remaining distance to the MAP is ≈ δ.
    const sd = Math.sqrt(inv[j * d + j]);
    assert.ok(
      Math.abs(t[j] - mode[j]) < 1.25 * Math.sqrt(d * 1e-6) * sd,
      `θ*[${j}] ${t[j]} vs ${mode[j]} (sd ${sd})`,
    );
  }
  const a = new Float64Array(d), b = new Float64Array(d * d);
  assert.equal(shared.centring.llStarSum, ext.controlVariateSums(t, a, b));
  assert.deepEqual(shared.centring.gradSum, a);
  assert.deepEqual(shared.centring.hessSum, b);
  // Each chain its own start, within a few posterior sds of θ*.
  const starts = laplaceStarts(shared, 3, 7);
  assert.notDeepEqual(starts[0], starts[1]);
  for (const s of starts) {
    for (let j = 0; j < d; j++) {
      assert.ok(Math.abs(s[j] - t[j]) < 6 * Math.sqrt(inv[j * d + j]), `start ${s}, θ* ${t}`);
    }
  }
});

Deno.test("databaseCentring with quasiNewtonFirst and tolerance 1: a pass of S and A, a step with the subset's Hessian, then one pass with B", () => {
  const { glm, ext, model, counts, d } = countedModel();
  const shared = databaseCentring(model, { tolerance: 1, quasiNewtonFirst: true });
  // ñ = 1000 rows: the step lands ≈ (n/ñ)·2d/ñ = 0.16 sd² per dimension from
  // the MAP, below the tolerance, so the pass with B at that point ends it.
  assert.deepEqual(counts, { passes: 2, hessians: 1 });
  assert.equal(shared.numPasses, 2);
  assert.ok(shared.converged);
  const { mode, negHessian } = newtonMap(glm);
  const t = shared.centring.thetaStar;
  // Its squared distance from the MAP per dimension, in posterior sds: far
  // below 1 (the decrement there was < 1).
  const delta = t.map((v, j) => v - mode[j]);
  const pd = new Float64Array(d);
  for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) pd[i] += negHessian[i * d + j] * delta[j];
  const dist = delta.reduce((s, v, j) => s + v * pd[j], 0) / d;
  assert.ok(dist < 1, `δᵀPδ/d = ${dist}`);
  const a = new Float64Array(d), b = new Float64Array(d * d);
  assert.equal(shared.centring.llStarSum, ext.controlVariateSums(t, a, b));
  assert.deepEqual(shared.centring.gradSum, a);
  assert.deepEqual(shared.centring.hessSum, b);
});
