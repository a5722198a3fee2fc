/**
 * The centring sums computed by DuckDB over Parquet files against the WASM
 * core's `ControlVariates` over the same rows in memory: all three families,
 * X stored as DOUBLE (against f64 storage) and FLOAT (against f32 storage),
 * within the bounds of `centringBounds` (different summation orders and
 * libm). Needs `--allow-ffi` (DuckDB's native addon).
 */
import assert from "node:assert/strict";
import { DuckDBInstance } from "npm:@duckdb/node-api@1.5.5-r.5";
import { loadCore } from "../../core/load.ts";
import { type GlmData, glmDataFromArrays, type Storage } from "../../data/dataset.ts";
import { gaussianLinearRegression, higgsShaped } from "../../data/synthetic.ts";
import { controlVariateSql, logLikelihoodSql } from "../../engines/control_variate_sql.ts";
import {
  type DuckDbCentring,
  duckdbControlVariateSums,
  duckdbLogLikelihood,
  duckdbNewtonCentring,
} from "../../engines/duckdb.ts";
import { logGamma } from "../../math/special.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import { newtonMap } from "../../replicate/laplace.ts";
import { ControlVariates } from "../../subsampling/control_variates.ts";
import { Rng } from "../../random/rng.ts";
import { writeRowStoreFromGlmData } from "../../data/row_store_write.ts";
import { ShardedGlmModel } from "../../models/sharded_glm.ts";
import { parameterDraws } from "../../samplers/driver.ts";
import { sample } from "../../samplers/sample.ts";
import { centringBounds, writeParquet } from "../../testing/duckdb_fixtures.ts";

const N = 20_000;

type Case = {
  name: string;
  family: "logistic" | "poisson" | "gaussian";
  make: (storage: Storage) => { data: GlmData; theta: Float64Array };
  /** Column 0 is all ones and goes to the SQL as `intercept: true`, not as a column. */
  intercept: boolean;
  sigma?: number;
};

const arena = loadCore();

/** Poisson rows: X as in the Gaussian generator (intercept + 9 normals), y ~ Poisson(e^{xᵀβ}). */
function poissonData(storage: Storage): { data: GlmData; theta: Float64Array } {
  const g = gaussianLinearRegression(arena, { n: N, d: 10, sigma: 1, seed: 7, storage });
  const d = 10,
    x = storage === "f64" ? g.data.arena.f64(g.data.x, N * d) : g.data.arena.f32(g.data.x, N * d);
  const beta = Float64Array.from({ length: d }, (_, j) => (j === 0 ? 0.5 : 0.3 / (1 + j)));
  const rng = new Rng(11), y = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) eta += beta[j] * x[i * d + j];
    y[i] = rng.poisson(Math.exp(eta));
  }
  const data = glmDataFromArrays(arena, Array.from(x), y, {
    numCols: d,
    storage,
    columnNames: g.data.columnNames,
  });
  return { data, theta: beta.map((b) => b * 0.9 + 0.01) };
}

const CASES: Case[] = [
  {
    name: "logistic, Higgs-shaped, d = 30 (intercept + 29)",
    family: "logistic",
    intercept: true,
    make: (storage) => {
      const h = higgsShaped(arena, { n: N, seed: 3, storage });
      return { data: h.data, theta: h.trueCoefficients.map((b, j) => b + 0.01 * (j % 3)) };
    },
  },
  {
    name: "gaussian σ = 0.7, d = 10, the intercept column named (Intercept)",
    family: "gaussian",
    sigma: 0.7,
    intercept: false,
    make: (storage) => {
      const g = gaussianLinearRegression(arena, { n: N, d: 10, sigma: 0.7, seed: 5, storage });
      return { data: g.data, theta: g.trueCoefficients.map((b) => b - 0.02) };
    },
  },
  { name: "poisson, d = 10", family: "poisson", intercept: true, make: poissonData },
];

function assertWithin(
  what: string,
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  bound: ArrayLike<number>,
): number {
  assert.equal(got.length, want.length, `${what}: length`);
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i] - want[i]);
    assert.ok(
      err <= bound[i],
      `${what}[${i}]: DuckDB ${got[i]} vs WASM ${want[i]}, |diff| ${err} > bound ${bound[i]}`,
    );
    worst = Math.max(worst, err / bound[i]);
  }
  return worst;
}

Deno.test("duckdbControlVariateSums() matches ControlVariates over the same rows in Parquet", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_duckdb_" });
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  try {
    for (const c of CASES) {
      for (const storage of ["f64", "f32"] as const) {
        await t.step(`${c.name}, X as ${storage === "f64" ? "DOUBLE" : "FLOAT"}`, async () => {
          const { data, theta } = c.make(storage);
          const path = `${dir}/${c.family}_${storage}.parquet`;
          const columns = await writeParquet(conn, data, path, { fromCol: c.intercept ? 1 : 0 });
          const types = await conn.runAndReadAll(
            `SELECT type FROM parquet_schema('${path}') WHERE name = '${columns.at(-1)}'`,
          );
          assert.equal(types.getRows()[0][0], storage === "f64" ? "DOUBLE" : "FLOAT");
          const got = await duckdbControlVariateSums({
            source: { parquet: path },
            family: c.family,
            sigma: c.sigma,
            columns,
            response: "y",
            intercept: c.intercept,
            thetaStar: theta,
            connection: conn,
          });
          const opts: GlmOptions = { family: c.family };
          if (c.sigma !== undefined) opts.sigma = c.sigma;
          const model = new GlmModel(data, opts);
          const cv = new ControlVariates(model, theta, { order: 2 });
          const bound = centringBounds(data, c.family, theta, c.sigma, logGamma);
          assert.equal(got.numRows, N);
          assert.deepEqual(Array.from(got.thetaStar), Array.from(theta));
          const worst = Math.max(
            assertWithin("S", [got.llStarSum], [cv.llStarSum], [bound.s]),
            assertWithin("A", got.gradSum, cv.gradSum, bound.a),
            assertWithin("B", got.hessSum, cv.hessSum, bound.b),
          );
          // The bound is not vacuous: it is far below the sums' own size.
          assert.ok(bound.s < 1e-9 * Math.abs(cv.llStarSum), `bound ${bound.s} too loose`);
          console.log(`  largest |diff| / bound: ${worst.toExponential(2)}`);

          const ll = await duckdbLogLikelihood({
            source: { parquet: path },
            family: c.family,
            sigma: c.sigma,
            columns,
            response: "y",
            intercept: c.intercept,
            theta,
            connection: conn,
          });
          assert.equal(ll.logLikelihood, got.llStarSum, "same S with or without the Hessian sums");
          assert.deepEqual(Array.from(ll.grad), Array.from(got.gradSum));
          if (storage === "f64") {
            // The comparison can fail: moving θ* by 1e-9 in one coordinate moves A
            // by ≈ 1e-9·|B_j1| and is caught.
            const moved = theta.slice();
            moved[1] += 1e-9;
            const off = await duckdbControlVariateSums({
              source: { parquet: path },
              family: c.family,
              sigma: c.sigma,
              columns,
              response: "y",
              intercept: c.intercept,
              thetaStar: moved,
              connection: conn,
            });
            assert.ok(
              off.gradSum.some((v, j) => Math.abs(v - cv.gradSum[j]) > bound.a[j]),
              "a θ* moved by 1e-9 passes the bound: the bound is too loose to catch a wrong pass",
            );
          }
          cv.dispose();
          model.dispose();
        });
      }
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("duckdbNewtonCentring() reaches the WASM model's MAP and returns the sums there", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_duckdb_" });
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  try {
    for (const c of [CASES[0], CASES[2]]) {
      const { data } = c.make("f64");
      const path = `${dir}/${c.family}.parquet`;
      const columns = await writeParquet(conn, data, path, { fromCol: 1 });
      const prior = { priorScale: 2, interceptColumn: 0, interceptPriorScale: 10 };
      const got: DuckDbCentring & { converged: boolean; numPasses: number } =
        await duckdbNewtonCentring({
          source: { parquet: path },
          family: c.family,
          columns,
          response: "y",
          intercept: true,
          connection: conn,
          ...prior,
        });
      assert.ok(got.converged, `${c.family}: Newton did not converge in ${got.numPasses} passes`);
      const model = new GlmModel(data, { family: c.family, ...prior });
      // At DuckDB's θ*, the WASM log-posterior gradient is zero up to the last
      // Newton step (< 1e-10 per coordinate, times |∇²log π|) and the
      // two engines' gradient difference (centringBounds).
      const d = model.dim, g = new Float64Array(d), h = new Float64Array(d * d);
      model.logDensityAndGradient(got.thetaStar, g);
      model.logLikelihoodHessian(got.thetaStar, h);
      const bound = centringBounds(data, c.family, got.thetaStar, 1, logGamma);
      for (let j = 0; j < d; j++) {
        let hs = model.priorPrecision[j] * 1e-10;
        for (let l = 0; l < d; l++) hs += Math.abs(h[j * d + l]) * 1e-10;
        assert.ok(
          Math.abs(g[j]) <= hs + bound.a[j],
          `${c.family}: ∇log π[${j}] = ${g[j]} at DuckDB's θ* exceeds ${hs + bound.a[j]}`,
        );
      }
      const { mode } = newtonMap(model);
      for (let j = 0; j < d; j++) assert.ok(Math.abs(mode[j] - got.thetaStar[j]) < 1e-8);
      // The returned sums are those at θ*.
      const again = await duckdbControlVariateSums({
        source: { parquet: path },
        family: c.family,
        columns,
        response: "y",
        intercept: true,
        thetaStar: got.thetaStar,
        connection: conn,
      });
      assert.equal(again.llStarSum, got.llStarSum);
      assert.deepEqual(Array.from(again.hessSum), Array.from(got.hessSum));
      model.dispose();
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("duckdb sources and bad input", async (t) => {
  await t.step("a table of an open database, a column name needing quotes", async () => {
    const instance = await DuckDBInstance.create(":memory:");
    const conn = await instance.connect();
    try {
      await conn.run(`CREATE TABLE "my ""t""" ("we""ird x" DOUBLE, "y" DOUBLE)`);
      await conn.run(`INSERT INTO "my ""t""" VALUES (1, 2), (3, 1)`);
      const r = await duckdbControlVariateSums({
        source: { table: 'my "t"' },
        family: "gaussian",
        sigma: 1,
        columns: ['we"ird x'],
        response: "y",
        thetaStar: [0.5],
        connection: conn,
      });
      // residuals 1.5, −0.5: A = 1·1.5 + 3·(−0.5) = 0, B = −(1 + 9)
      assert.equal(r.gradSum[0], 0);
      assert.equal(r.hessSum[0], -10);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
  await t.step("dialects quote the user's identifiers their way", () => {
    const base = { family: "logistic" as const, columns: ["x`1"], response: "y", from: "t" };
    const spark = controlVariateSql({ ...base, theta: [1], dialect: "spark" });
    assert.ok(spark.includes("CAST(`x``1` AS DOUBLE) AS cv_x_0"), spark);
    const bq = controlVariateSql({ ...base, theta: [1], dialect: "bigquery" });
    assert.ok(bq.includes("CAST(`x\\`1` AS FLOAT64) AS cv_x_0") && !bq.includes("DOUBLE"), bq);
    assert.ok(!spark.includes('"') && !bq.includes('"'), "no ANSI quotes left");
    const pg = controlVariateSql({ ...base, theta: [1], dialect: "postgres" });
    assert.ok(pg.includes('CAST("x`1" AS DOUBLE PRECISION) AS cv_x_0'), pg);
    assert.throws(
      () => controlVariateSql({ ...base, theta: [1], dialect: "mysql" as "ansi" }),
      /dialect must be "ansi", "postgres", "spark", "bigquery" or "clickhouse", got "mysql"/,
    );
  });
  await t.step("poisson with ln(y!) from a column gives the LGAMMA sums", async () => {
    const instance = await DuckDBInstance.create(":memory:");
    const conn = await instance.connect();
    try {
      await conn.run(
        "CREATE TABLE p AS SELECT x, y, LGAMMA(y + 1) AS lf FROM (VALUES (0.5, 3.0), (-1.0, 0.0), (2.0, 7.0)) AS v(x, y)",
      );
      const common = { family: "poisson" as const, columns: ["x"], response: "y", from: "p" };
      const run = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjects()[0];
      const a = await run(controlVariateSql({ ...common, theta: [0.3] }));
      const b = await run(controlVariateSql({ ...common, theta: [0.3], logFactorialColumn: "lf" }));
      assert.deepEqual(b, a);
      assert.ok(
        !controlVariateSql({ ...common, theta: [0.3], logFactorialColumn: "lf" })
          .includes("LGAMMA"),
      );
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
  await t.step("errors say what was wrong", async () => {
    const base = { family: "logistic" as const, columns: ["x"], response: "y" };
    await assert.rejects(
      duckdbControlVariateSums({
        ...base,
        source: { sql: "SELECT 1.0 AS x, 1.0 AS y WHERE false" },
        thetaStar: [0],
      }),
      /no rows/,
    );
    await assert.rejects(
      duckdbControlVariateSums({ ...base, source: { sql: "SELECT 1.0 AS x" }, thetaStar: [0] }),
      /"y"/,
    );
    assert.throws(
      () => controlVariateSql({ ...base, from: "t", theta: [0, 1] }),
      /theta must have 1 values/,
    );
    assert.throws(
      () => logLikelihoodSql({ ...base, family: "gaussian", from: "t", theta: [0] }),
      /known sigma/,
    );
    assert.throws(
      () => controlVariateSql({ ...base, from: "t", theta: [NaN] }),
      /theta must be finite, got NaN at index 0/,
    );
  });
});

Deno.test("tallmc centring-sql prints the query the library runs", async () => {
  const { main } = await import("../../cli.ts");
  const printed: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => printed.push(a.join(" "));
  let code: number;
  try {
    code = await main([
      "centring-sql",
      "--family",
      "poisson",
      "--columns",
      "x1, x2",
      "--response",
      "y",
      "--from",
      '"t"',
      "--theta",
      "0.1,-0.2,0.3",
      "--intercept",
    ]);
  } finally {
    console.log = log;
  }
  assert.equal(code, 0);
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  try {
    await conn.run(
      `CREATE TABLE t AS SELECT * FROM (VALUES (0.5, 1.5, 2.0), (-1.0, 0.25, 0.0), (2.0, -0.5, 5.0)) AS v(x1, x2, y)`,
    );
    const fromCli = (await conn.runAndReadAll(printed.join("\n"))).getRowObjects()[0];
    const lib = await duckdbControlVariateSums({
      source: { table: "t" },
      family: "poisson",
      columns: ["x1", "x2"],
      response: "y",
      intercept: true,
      thetaStar: [0.1, -0.2, 0.3],
      connection: conn,
    });
    assert.equal(fromCli.s, lib.llStarSum);
    assert.equal(fromCli.b_1_2, lib.hessSum[1 * 3 + 2]);
    // ℓ by hand from the three rows
    let s = 0;
    for (const [x1, x2, y] of [[0.5, 1.5, 2], [-1, 0.25, 0], [2, -0.5, 5]]) {
      const eta = 0.1 - 0.2 * x1 + 0.3 * x2;
      s += y * eta - Math.exp(eta) - logGamma(y + 1);
    }
    assert.ok(Math.abs(lib.llStarSum - s) <= 1e-14 * 10, `${lib.llStarSum} vs ${s}`);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
  const err = console.error;
  console.error = () => {};
  try {
    assert.equal(await main(["centring-sql", "--family", "logistic"]), 2);
    assert.equal(
      await main(["centring-sql", ...["--family", "logistic", "--columns", "x", "--response"]]
        .concat(["y", "--from", "t", "--theta", "a"])),
      2,
    );
  } finally {
    console.error = err;
  }
});

Deno.test("HMC-ECS samples a row store streamed out of core from a centring DuckDB computed over Parquet", async () => {
  // The cluster workflow end to end: the centring pass (Newton to the MAP and
  // S, A, B there) runs as SQL where the rows live; the sampler reads only
  // subsample rows, from a row store streamed by shard workers. Against the
  // same run centred by the sampler's own full-data pass at DuckDB's θ*, only
  // the sums' rounding differs (centringBounds), so the posteriors agree far
  // inside 0.1 posterior sd.
  const dir = await Deno.makeTempDir({ prefix: "tallmc_duckdb_ecs_" });
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  try {
    const { data } = CASES[0].make("f64");
    const parquet = `${dir}/rows.parquet`, store = `${dir}/rows.rows`;
    const columns = await writeParquet(conn, data, parquet, { fromCol: 1 });
    const prior = { priorScale: 10, interceptColumn: 0, interceptPriorScale: 10 };
    const centring = await duckdbNewtonCentring({
      source: { parquet },
      family: "logistic",
      columns,
      response: "y",
      intercept: true,
      connection: conn,
      ...prior,
    });
    await writeRowStoreFromGlmData(store, data);
    const model = await ShardedGlmModel.create(store, { family: "logistic", ...prior }, {
      workers: 2,
      shardKind: "stream",
    });
    try {
      const settings = {
        sampler: "hmc-ecs",
        numChains: 1,
        numWarmup: 300,
        numSamples: 600,
        seed: 4,
      };
      const before = { ...model.cost };
      const given = sample(model, {
        ...settings,
        centring: {
          thetaStar: centring.thetaStar,
          llStarSum: centring.llStarSum,
          gradSum: centring.gradSum,
          hessSum: centring.hessSum,
        },
      });
      const mid = { ...model.cost };
      const own = sample(model, {
        ...settings,
        thetaStar: centring.thetaStar,
        maxNewtonSteps: 0,
        recenterTolerance: 1e300,
      });
      // The sampler's own centring is the one full-data pass the SQL spared:
      // n more ℓ rows, n more ∇ℓ rows and n Hessian rows for B.
      const n = data.numRows;
      assert.equal(
        model.cost.numLogLikRows - mid.numLogLikRows,
        mid.numLogLikRows - before.numLogLikRows + n,
      );
      assert.equal(
        model.cost.numHessianRows - mid.numHessianRows,
        mid.numHessianRows - before.numHessianRows + n,
      );
      for (let j = 0; j < model.dim; j++) {
        const a = parameterDraws(given, j)[0], b = parameterDraws(own, j)[0];
        const mean = (v: Float64Array) => v.reduce((s, x) => s + x, 0) / v.length;
        const mb = mean(b);
        const sd = Math.sqrt(b.reduce((s, x) => s + (x - mb) ** 2, 0) / (b.length - 1));
        assert.ok(
          Math.abs(mean(a) - mb) <= 0.1 * sd,
          `θ${j}: ${mean(a)} with DuckDB's sums vs ${mb} (sd ${sd})`,
        );
      }
    } finally {
      model.close();
    }
  } finally {
    conn.closeSync();
    instance.closeSync();
    await Deno.remove(dir, { recursive: true });
  }
});
