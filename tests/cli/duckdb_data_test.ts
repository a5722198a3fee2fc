/**
 * `tallmc sample --data duckdb:FILE.duckdb?table=T[&key=COL]`
 * (cli/duckdb_data.ts) on a DuckDB file written here: the table read whole
 * gives the draws of the same rows from a CSV file (same seed, bit for bit);
 * HMC-ECS over a keyed table keeps the rows in DuckDB (`openDuckDbRows` +
 * `defineModel`) and its posterior means agree with the CSV run's; a family
 * the SQL does not serve and a family written in AssemblyScript read the
 * table, saying why; bad sources name `--data` and the value; without
 * `--allow-ffi` the run is refused naming the flag, and without the
 * variables the row source's worker reads the table is read whole, saying
 * so (subprocesses).
 */
import assert from "node:assert/strict";
import { DuckDBInstance } from "npm:@duckdb/node-api@1.5.5-r.5";
import { EXAMPLE_LOGISTIC_SOURCE } from "../../core/user_family.ts";
import { parseDrawsCsv } from "../../data/draws_csv.ts";
import { runCli } from "../_cli_fixtures.ts";

const N = 300;
const rows = Array.from({ length: N }, (_, i) => {
  const x1 = Math.sin(i * 1.7) * 1.3, x2 = Math.cos(i * 0.31) / 3;
  return { id: i, x1, x2, y: (0.4 + x1 - 2 * x2 + Math.sin(i * 7.1) > 0) ? 1 : 0 };
});

/** The CSV file and a DuckDB file holding the same rows (table `t`, and `bad` with a NULL and a DATE). */
async function _fixture(dir: string): Promise<{ csv: string; db: string }> {
  const csv = `${dir}/rows.csv`, db = `${dir}/rows.duckdb`;
  await Deno.writeTextFile(
    csv,
    "id,x1,x2,y\n" + rows.map((r) => `${r.id},${r.x1},${r.x2},${r.y}`).join("\n") + "\n",
  );
  const instance = await DuckDBInstance.create(db);
  const conn = await instance.connect();
  try {
    await conn.run("CREATE TABLE t (id INTEGER, x1 DOUBLE, x2 DOUBLE, y INTEGER)");
    // Inserted in reverse: the key orders the rows.
    const app = await conn.createAppender("t");
    for (const r of [...rows].reverse()) {
      app.appendInteger(r.id);
      app.appendDouble(r.x1);
      app.appendDouble(r.x2);
      app.appendInteger(r.y);
      app.endRow();
    }
    app.closeSync();
    await conn.run(
      "CREATE TABLE bad AS SELECT id, CASE WHEN id = 7 THEN NULL ELSE x1 END AS x1, x2, y FROM t",
    );
    await conn.run("CREATE TABLE dated AS SELECT *, DATE '2020-01-01' AS d FROM t");
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
  return { csv, db };
}

const RUN = ["--family", "logistic", "--response", "y", "--columns", "x1,x2", "--quiet"];
const SHORT = ["--samples", "40", "--warmup", "40", "--chains", "1", "--seed", "7"];

/** The draws file without comment lines (which name the data source). */
async function _body(path: string): Promise<string> {
  return (await Deno.readTextFile(path)).split("\n").filter((l) => !l.startsWith("#")).join("\n");
}

/** Posterior mean and sd per parameter of a draws file. */
async function _moments(path: string): Promise<Map<string, { mean: number; sd: number }>> {
  const f = parseDrawsCsv(await Deno.readTextFile(path));
  const out = new Map<string, { mean: number; sd: number }>();
  f.parameterNames.forEach((name, j) => {
    const v = f.draws.flatMap((c) => Array.from(c[j]));
    const mean = v.reduce((s, x) => s + x, 0) / v.length;
    const sd = Math.sqrt(v.reduce((s, x) => s + (x - mean) ** 2, 0) / (v.length - 1));
    out.set(name, { mean, sd });
  });
  return out;
}

Deno.test("sample --data duckdb:FILE?table=T: the CSV file's draws (the table read whole); refusals name --data and the value", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_duckcli_" });
  try {
    const { csv, db } = await _fixture(dir);
    const ref = await runCli(["sample", ...RUN, ...SHORT, "--data", csv, "--out", `${dir}/a.csv`]);
    assert.equal(ref.code, 0, ref.err);

    // Read whole (--sampler hmc needs every row at every step), in key order.
    const whole = await runCli([
      "sample",
      ...RUN,
      ...SHORT,
      "--data",
      `duckdb:${db}?table=t&key=id`,
      "--out",
      `${dir}/b.csv`,
    ]);
    assert.equal(whole.code, 0, whole.err);
    assert.equal(await _body(`${dir}/b.csv`), await _body(`${dir}/a.csv`));
    // The .duckdb extension is enough.
    const ext = await runCli([
      "sample",
      ...RUN,
      ...SHORT,
      "--data",
      `${db}?table=t&key=id`,
      "--out",
      `${dir}/c.csv`,
    ]);
    assert.equal(ext.code, 0, ext.err);
    assert.equal(await _body(`${dir}/c.csv`), await _body(`${dir}/a.csv`));

    const cases: [string, RegExp][] = [
      [
        `duckdb:${db}`,
        /--data duckdb:\S+ names no table; give --data duckdb:FILE\.duckdb\?table=T/,
      ],
      [`duckdb:${dir}/none.duckdb?table=t`, /the database file \S+none\.duckdb cannot be read/],
      [`duckdb:${db}?table=nope&key=id`, /--data duckdb:\S+\?table=nope&key=id: .*nope/],
      [`duckdb:${db}?table=bad`, /column "x1" holds 1 NULL/],
      [`duckdb:${db}?table=bad&key=id`, /column "x1" holds 1 NULL \(the first at id = 7\)/],
      [`duckdb:${db}?table=dated`, /column "d" of table dated is DATE, neither a number nor text/],
      [`duckdb:${db}?table=t&tabel=x`, /unknown parameter "tabel"/],
    ];
    for (const [data, want] of cases) {
      const r = await runCli(["sample", ...RUN, ...SHORT, "--data", data]);
      assert.equal(r.code, 2, `${data}: ${r.err}`);
      assert.match(r.err, want);
    }
    // A DuckDB file named otherwise is recognised by its bytes.
    await Deno.copyFile(db, `${dir}/rows.db`);
    const named = await runCli(["sample", ...RUN, ...SHORT, "--data", `${dir}/rows.db`]);
    assert.equal(named.code, 2);
    assert.match(named.err, /is a DuckDB database .*--data duckdb:\S+rows\.db\?table=T/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[e2e] sample --data duckdb:…&key=COL --sampler hmc-ecs: the rows stay in DuckDB (the CSV run's posterior); σ unknown too; --family-source reads the table, saying why", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_duckcli_" });
  try {
    const { csv, db } = await _fixture(dir);
    // HMC-ECS over the keyed table: rows fetched by key, centring in SQL.
    const ecs = (data: string, out: string, extra: string[] = []) =>
      runCli([
        "sample",
        ...RUN,
        "--sampler",
        "hmc-ecs",
        "--samples",
        "400",
        "--warmup",
        "300",
        "--chains",
        "2",
        "--seed",
        "7",
        "--data",
        data,
        "--out",
        out,
        ...extra,
      ]);
    const ecsRef = await ecs(csv, `${dir}/ecs_ref.csv`);
    assert.equal(ecsRef.code, 0, ecsRef.err);
    const ecsDb = await ecs(`duckdb:${db}?table=t&key=id`, `${dir}/ecs_db.csv`);
    assert.equal(ecsDb.code, 0, ecsDb.err);
    assert.match(ecsDb.out, /database: \d+ full-data passes in SQL, \d+ row queries/);
    const a = await _moments(`${dir}/ecs_ref.csv`), b = await _moments(`${dir}/ecs_db.csv`);
    for (const name of ["(Intercept)", "x1", "x2"]) {
      const ra = a.get(name)!, rb = b.get(name)!;
      assert.ok(
        Math.abs(ra.mean - rb.mean) < 0.25 * ra.sd,
        `${name}: ${ra.mean} vs ${rb.mean} (sd ${ra.sd})`,
      );
    }

    // σ unknown (gaussian-scale): its sums are SQL too, so the rows stay in DuckDB.
    const scale = await runCli([
      "sample",
      "--family",
      "gaussian",
      "--response",
      "x1",
      "--columns",
      "x2",
      "--sampler",
      "hmc-ecs",
      ...SHORT,
      "--data",
      `duckdb:${db}?table=t&key=id`,
    ]);
    assert.equal(scale.code, 0, scale.err);
    assert.doesNotMatch(scale.err, /the whole table is read into this process/);
    assert.match(scale.out + scale.err, /full-data passes in SQL/);
    // A family written in AssemblyScript runs in this process, on the table read whole.
    const fam = `${dir}/logistic.ts`;
    await Deno.writeTextFile(fam, EXAMPLE_LOGISTIC_SOURCE);
    const user = await runCli([
      "sample",
      "--family-source",
      fam,
      "--response",
      "y",
      "--columns",
      "x1,x2",
      "--sampler",
      "hmc-ecs",
      ...SHORT,
      "--workers",
      "0",
      "--data",
      `duckdb:${db}?table=t&key=id`,
    ]);
    assert.equal(user.code, 0, user.err);
    assert.match(user.err, /the whole table is read into this process: --family-source/);

    // --allow-ffi and no --allow-env: the rows stay in DuckDB (the worker loads npm:pg only for PostgreSQL).
    const r = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write=/tmp",
        "--allow-ffi",
        new URL("../../cli.ts", import.meta.url).pathname,
        "sample",
        ...RUN.filter((a) => a !== "--quiet"),
        ...SHORT,
        "--sampler",
        "hmc-ecs",
        "--data",
        `duckdb:${db}?table=t&key=id`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(r.stderr);
    assert.equal(r.code, 0, err);
    assert.doesNotMatch(err, /the whole table is read into this process/);
    assert.match(new TextDecoder().decode(r.stdout) + err, /rows stay in the database/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sample --data duckdb:… without --allow-ffi: refused, naming the flag to add", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_duckcli_" });
  try {
    const db = `${dir}/rows.duckdb`;
    await Deno.writeTextFile(db, "not opened");
    const cli = new URL("../../cli.ts", import.meta.url).pathname;
    const r = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write=/tmp",
        cli,
        "sample",
        ...RUN,
        "--data",
        `duckdb:${db}?table=t`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(r.stderr);
    assert.equal(r.code, 2, err);
    assert.match(
      err,
      /--data duckdb:\S+\?table=t: DuckDB's native addon needs --allow-ffi .*deno run --allow-read --allow-write=\. --allow-ffi cli\.ts sample/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
