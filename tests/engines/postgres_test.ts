/**
 * The centring sums and Newton-to-MAP of `engines/postgres.ts` on a live
 * PostgreSQL server (Debian's, on loopback, with a throw-away data
 * directory: `.ci/postgres.sh`) against the WASM core's `ControlVariates`
 * and MAP over the same rows in memory, within `centringBounds` (different
 * summation orders and libm). Skipped, saying why, only when no server can
 * be installed or started.
 */
import assert from "node:assert/strict";
import pg from "npm:pg@8.16.3";
import { loadCore } from "../../core/load.ts";
import { type GlmData, glmDataFromArrays, type Storage } from "../../data/dataset.ts";
import { gaussianLinearRegression, higgsShaped } from "../../data/synthetic.ts";
import {
  postgresControlVariateSums,
  postgresLogLikelihood,
  postgresNewtonCentring,
} from "../../engines/postgres.ts";
import { logGamma } from "../../math/special.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import { newtonMap } from "../../replicate/laplace.ts";
import { ControlVariates } from "../../subsampling/control_variates.ts";
import { Rng } from "../../random/rng.ts";
import { centringBounds, scaleCentringBounds } from "../../testing/duckdb_fixtures.ts";
import { loadTable, type PostgresServer, startPostgres } from "../../testing/postgres_fixtures.ts";
import { liveServerTest, type LiveStep } from "../_live_servers.ts";

// PostgreSQL evaluates the d(d+3)/2 sums row by row, unvectorised: 5 000 rows keep the file near 10 s.
const N = 5_000;

// The server is started by the one `[e2e]` test at the end, which runs the
// tests of this file as its steps: a run without the end-to-end tests starts none.
let server: PostgresServer = { skip: "not started" };
const steps: LiveStep[] = [];

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
  {
    name: "poisson, d = 10, ln(y!) from a column",
    family: "poisson",
    intercept: true,
    make: poissonData,
  },
];

/** ln(yₖ!) as a column: PostgreSQL before 18 has no LGAMMA. */
const LOG_FACTORIAL = { lf: (y: number) => logGamma(y + 1) };

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
      `${what}[${i}]: PostgreSQL ${got[i]} vs WASM ${want[i]}, |diff| ${err} > bound ${bound[i]}`,
    );
    worst = Math.max(worst, err / bound[i]);
  }
  return worst;
}

async function withClient<T>(run: (c: pg.Client, dir: string) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  const dir = await Deno.makeTempDir({ prefix: "tallmc_pg_" });
  try {
    return await run(client, dir);
  } finally {
    await client.end();
    await Deno.remove(dir, { recursive: true });
  }
}

steps.push({
  name: "postgresControlVariateSums() matches ControlVariates over the same rows in a table",
  fn: (t) =>
    withClient(async (conn, dir) => {
      for (const c of CASES) {
        for (const storage of ["f64", "f32"] as const) {
          const label = storage === "f64" ? "DOUBLE PRECISION" : "REAL";
          await t.step(`${c.name}, X as ${label}`, async () => {
            const { data, theta } = c.make(storage);
            const poisson = c.family === "poisson";
            const columns = await loadTable(conn, data, dir, {
              fromCol: c.intercept ? 1 : 0,
              table: "glm rows",
              extra: poisson ? LOG_FACTORIAL : {},
            });
            const common = {
              connection: conn,
              source: { table: "glm rows" },
              family: c.family,
              sigma: c.sigma,
              columns,
              response: "y",
              intercept: c.intercept,
              ...(poisson ? { logFactorialColumn: "lf" } : {}),
            };
            const got = await postgresControlVariateSums({ ...common, thetaStar: theta });
            const glmOpts: GlmOptions = { family: c.family };
            if (c.sigma !== undefined) glmOpts.sigma = c.sigma;
            const model = new GlmModel(data, glmOpts);
            const cv = new ControlVariates(model, theta, { order: 2 });
            const bound = centringBounds(data, c.family, theta, c.sigma, logGamma);
            assert.equal(got.numRows, N);
            const worst = Math.max(
              assertWithin("S", [got.llStarSum], [cv.llStarSum], [bound.s]),
              assertWithin("A", got.gradSum, cv.gradSum, bound.a),
              assertWithin("B", got.hessSum, cv.hessSum, bound.b),
            );
            assert.ok(bound.s < 1e-9 * Math.abs(cv.llStarSum), `bound ${bound.s} too loose`);
            console.log(`  largest |diff| / bound: ${worst.toExponential(2)}`);

            const ll = await postgresLogLikelihood({ ...common, theta });
            assert.equal(ll.logLikelihood, got.llStarSum, "same S with or without B");
            assert.deepEqual(Array.from(ll.grad), Array.from(got.gradSum));
            if (storage === "f64") {
              // The comparison can fail: θ* moved by 1e-9 in one coordinate is caught.
              const moved = theta.slice();
              moved[1] += 1e-9;
              const off = await postgresControlVariateSums({ ...common, thetaStar: moved });
              assert.ok(
                off.gradSum.some((v, j) => Math.abs(v - cv.gradSum[j]) > bound.a[j]),
                "a θ* moved by 1e-9 passes the bound: the bound is too loose",
              );
            }
            cv.dispose();
            model.dispose();
          });
        }
      }
    }),
});

steps.push({
  name: "postgresNewtonCentring() reaches the WASM model's MAP and returns the sums there",
  fn: (t) =>
    withClient(async (conn, dir) => {
      for (const c of CASES) {
        await t.step(c.name, async () => {
          const { data } = c.make("f64");
          const poisson = c.family === "poisson";
          const columns = await loadTable(conn, data, dir, {
            fromCol: 1,
            extra: poisson ? LOG_FACTORIAL : {},
          });
          const prior = { priorScale: 2, interceptColumn: 0, interceptPriorScale: 10 };
          const common = {
            connection: conn,
            source: { table: "glm_rows" },
            family: c.family,
            sigma: c.sigma,
            columns,
            response: "y",
            intercept: true,
            ...(poisson ? { logFactorialColumn: "lf" } : {}),
          };
          const got = await postgresNewtonCentring({ ...common, ...prior });
          assert.ok(got.converged, `${c.family}: not converged in ${got.numPasses} passes`);
          const glmOpts: GlmOptions = { family: c.family, ...prior };
          if (c.sigma !== undefined) glmOpts.sigma = c.sigma;
          const model = new GlmModel(data, glmOpts);
          // At PostgreSQL's θ*, the WASM log-posterior gradient is zero up to the
          // last Newton step (< 1e-10 per coordinate, times |∇²log π|) and the
          // two engines' gradient difference (centringBounds).
          const d = model.dim, g = new Float64Array(d), h = new Float64Array(d * d);
          model.logDensityAndGradient(got.thetaStar, g);
          model.logLikelihoodHessian(got.thetaStar, h);
          const bound = centringBounds(data, c.family, got.thetaStar, c.sigma ?? 1, logGamma);
          for (let j = 0; j < d; j++) {
            let hs = model.priorPrecision[j] * 1e-10;
            for (let l = 0; l < d; l++) hs += Math.abs(h[j * d + l]) * 1e-10;
            assert.ok(
              Math.abs(g[j]) <= hs + bound.a[j],
              `${c.family}: ∇log π[${j}] = ${g[j]} at PostgreSQL's θ* exceeds ${hs + bound.a[j]}`,
            );
          }
          const { mode } = newtonMap(model);
          for (let j = 0; j < d; j++) assert.ok(Math.abs(mode[j] - got.thetaStar[j]) < 1e-8);
          // The returned sums are those at θ*, and agree with the WASM pass there.
          const cv = new ControlVariates(model, got.thetaStar, { order: 2 });
          assertWithin("S", [got.llStarSum], [cv.llStarSum], [bound.s]);
          assertWithin("A", got.gradSum, cv.gradSum, bound.a);
          assertWithin("B", got.hessSum, cv.hessSum, bound.b);
          console.log(`  ${got.numPasses} passes`);
          cv.dispose();
          model.dispose();
        });
      }
    }),
});

steps.push({
  name: "postgres engine: gaussian-scale (σ unknown) sums and Newton match the WASM model",
  fn: () =>
    withClient(async (conn, dir) => {
      const g = gaussianLinearRegression(arena, {
        n: N,
        d: 6,
        sigma: 0.7,
        seed: 5,
        storage: "f64",
      });
      const columns = await loadTable(conn, g.data, dir, { fromCol: 1 });
      const d = g.data.numCols;
      const theta = Float64Array.from([...g.trueCoefficients.map((b) => b + 0.01), Math.log(0.6)]);
      const common = {
        connection: conn,
        source: { table: "glm_rows" },
        family: "gaussian-scale" as const,
        columns,
        response: "y",
        intercept: true,
      };
      const got = await postgresControlVariateSums({ ...common, thetaStar: theta });
      const model = new GlmModel(g.data, { family: "gaussian-scale" });
      const grad = new Float64Array(d + 1), hess = new Float64Array((d + 1) ** 2);
      const ll = model.logLikelihood(theta, grad);
      model.logLikelihoodHessian(theta, hess);
      const bound = scaleCentringBounds(g.data, theta);
      assertWithin("S", [got.llStarSum], [ll], [bound.s]);
      assertWithin("A", got.gradSum, grad, bound.a);
      assertWithin("B", got.hessSum, hess, bound.b);
      const map = await postgresNewtonCentring({ ...common, priorScale: 2 });
      assert.ok(map.converged, `not converged in ${map.numPasses} passes`);
      model.logLikelihood(map.thetaStar, grad);
      for (let j = 0; j <= d; j++) {
        const gj = grad[j] - map.thetaStar[j] / 4;
        assert.ok(Math.abs(gj) < 1e-6 * N, `∇log π[${j}] = ${gj} at PostgreSQL's θ*`);
      }
      model.dispose();
    }),
});

steps.push({
  name: "postgres engine: errors say what was wrong",
  fn: () =>
    withClient(async (conn) => {
      await conn.query(`DROP TABLE IF EXISTS "small"`);
      await conn.query(`CREATE TABLE "small" (x DOUBLE PRECISION, y DOUBLE PRECISION)`);
      await conn.query(`INSERT INTO "small" VALUES (0.5, 3), (-1, 0), (2, 7)`);
      const base = { connection: conn, columns: ["x"], response: "y", thetaStar: [0.3] };
      await assert.rejects(
        postgresControlVariateSums({ ...base, family: "logistic", source: { table: "nope" } }),
        /"nope".*relation "nope" does not exist/s,
      );
      await assert.rejects(
        postgresControlVariateSums({
          ...base,
          family: "logistic",
          source: { table: "small" },
          columns: ["x2"],
        }),
        /column "x2" does not exist/,
      );
      await assert.rejects(
        postgresControlVariateSums({
          ...base,
          family: "logistic",
          source: { sql: `SELECT * FROM "small" WHERE false` },
        }),
        /has no rows/,
      );
      await conn.query(`INSERT INTO "small" VALUES (NULL, 1), (NULL, 0)`);
      await assert.rejects(
        postgresControlVariateSums({ ...base, family: "logistic", source: { table: "small" } }),
        /2 rows of "small" hold NULL \(column "x" has 2 NULL values\)/,
      );
      await conn.query(`DELETE FROM "small" WHERE x IS NULL`);
      const version = Number(
        (await conn.query("SELECT current_setting('server_version_num')::int AS v")).rows[0].v,
      );
      if (version < 180000) {
        await assert.rejects(
          postgresControlVariateSums({ ...base, family: "poisson", source: { table: "small" } }),
          /has no LGAMMA.*logFactorialColumn/,
        );
      }
      // |η| > 745 makes PostgreSQL's EXP underflow; the SQL clamps it, the sums stay exact.
      const far = await postgresControlVariateSums({
        ...base,
        family: "logistic",
        source: { table: "small" },
        thetaStar: [1000],
      });
      // η = 500, −1000, 2000: ℓ = y·η − max(η, 0) = 1000 − 500 + 0 + 14000 − 2000
      assert.equal(far.llStarSum, 3 * 500 - 500 + 7 * 2000 - 2000);
      assert.equal(far.numRows, 3);
      const port = Number(new URL(server.url!).port) + 1;
      await assert.rejects(
        postgresControlVariateSums({
          ...base,
          family: "logistic",
          source: { table: "small" },
          connection: `postgres://postgres:s3cret@127.0.0.1:${port}/postgres`,
        }),
        (e: Error) =>
          /could not connect to PostgreSQL at 127\.0\.0\.1:\d+/.test(e.message) &&
          !e.message.includes("s3cret"),
      );
    }),
});

Deno.test(
  liveServerTest("[e2e] postgres engine on a live server", {
    start: async () => {
      server = await startPostgres();
    },
    stop: async () => {
      if (server.skip === undefined) await server.stop();
    },
    skip: () => server.skip,
    steps,
  }),
);
