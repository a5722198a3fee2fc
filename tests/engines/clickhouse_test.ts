/**
 * The centring sums and Newton-to-MAP of `engines/clickhouse.ts` on a live
 * ClickHouse cluster of two shards (Debian's clickhouse-server on loopback,
 * throw-away data directories: `.ci/clickhouse.sh`), over a Distributed
 * table, against the WASM core's `ControlVariates` and MAP over the same rows
 * in memory, within `centringBounds`. Skipped, saying why, only when no
 * cluster can be installed or started.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { type GlmData, glmDataFromArrays, type Storage } from "../../data/dataset.ts";
import { gaussianLinearRegression, higgsShaped } from "../../data/synthetic.ts";
import {
  clickhouseControlVariateSums,
  clickhouseLogLikelihood,
  clickhouseNewtonCentring,
  clickhouseQuery,
} from "../../engines/clickhouse.ts";
import { logGamma } from "../../math/special.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import { newtonMap } from "../../replicate/laplace.ts";
import { ControlVariates } from "../../subsampling/control_variates.ts";
import { Rng } from "../../random/rng.ts";
import { centringBounds, scaleCentringBounds } from "../../testing/duckdb_fixtures.ts";
import {
  type ClickHouseCluster,
  loadSharded,
  startClickHouse,
} from "../../testing/clickhouse_fixtures.ts";
import { liveServerTest, type LiveStep } from "../_live_servers.ts";

const N = 6_000, SPLIT = 2_500; // shard 1 holds rows 0…2 499, shard 2 the other 3 500

// The cluster is started by the one `[e2e]` test at the end, which runs the
// tests of this file as its steps: a run without the end-to-end tests starts none.
let cluster: ClickHouseCluster = { skip: "not started" };
let shards = ["", ""] as [string, string];
const steps: LiveStep[] = [];

type Case = {
  name: string;
  family: "logistic" | "poisson" | "gaussian";
  make: (storage: Storage) => { data: GlmData; theta: Float64Array };
  sigma?: number;
};

const arena = loadCore();

function poissonData(storage: Storage): { data: GlmData; theta: Float64Array } {
  const g = gaussianLinearRegression(arena, { n: N, d: 6, sigma: 1, seed: 7, storage });
  const d = 6,
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
    make: (storage) => {
      const h = higgsShaped(arena, { n: N, seed: 3, storage });
      return { data: h.data, theta: h.trueCoefficients.map((b, j) => b + 0.01 * (j % 3)) };
    },
  },
  {
    name: "gaussian σ = 0.7, d = 8",
    family: "gaussian",
    sigma: 0.7,
    make: (storage) => {
      const g = gaussianLinearRegression(arena, { n: N, d: 8, sigma: 0.7, seed: 5, storage });
      return { data: g.data, theta: g.trueCoefficients.map((b) => b - 0.02) };
    },
  },
  { name: "poisson, d = 6, lgamma in ClickHouse", family: "poisson", make: poissonData },
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
      `${what}[${i}]: ClickHouse ${got[i]} vs WASM ${want[i]}, |diff| ${err} > bound ${bound[i]}`,
    );
    worst = Math.max(worst, err / bound[i]);
  }
  return worst;
}

async function count(url: string, table: string): Promise<number> {
  return Number((await clickhouseQuery(url, `SELECT count() AS n FROM ${table}`)).rows[0].n);
}

steps.push({
  name:
    "clickhouseControlVariateSums() over a Distributed table of two shards matches ControlVariates",
  fn: async (t) => {
    for (const c of CASES) {
      for (const storage of ["f64", "f32"] as const) {
        await t.step(`${c.name}, X as ${storage === "f64" ? "Float64" : "Float32"}`, async () => {
          const { data, theta } = c.make(storage);
          const columns = await loadSharded(shards, data, {
            fromCol: 1,
            table: "glm rows",
            split: SPLIT,
          });
          // Both shards hold rows, and the Distributed table sees all of them.
          assert.equal(await count(shards[0], "`glm rows_local`"), SPLIT);
          assert.equal(await count(shards[1], "`glm rows_local`"), N - SPLIT);
          const common = {
            connection: shards[0],
            source: { table: "glm rows" },
            family: c.family,
            sigma: c.sigma,
            columns,
            response: "y",
            intercept: true,
          };
          const got = await clickhouseControlVariateSums({ ...common, thetaStar: theta });
          assert.equal(got.numRows, N, "the sums query counted every shard's rows");
          const glmOpts: GlmOptions = { family: c.family };
          if (c.sigma !== undefined) glmOpts.sigma = c.sigma;
          const model = new GlmModel(data, glmOpts);
          const cv = new ControlVariates(model, theta, { order: 2 });
          const bound = centringBounds(data, c.family, theta, c.sigma, logGamma);
          const worst = Math.max(
            assertWithin("S", [got.llStarSum], [cv.llStarSum], [bound.s]),
            assertWithin("A", got.gradSum, cv.gradSum, bound.a),
            assertWithin("B", got.hessSum, cv.hessSum, bound.b),
          );
          assert.ok(bound.s < 1e-9 * Math.abs(cv.llStarSum), `bound ${bound.s} too loose`);
          console.log(`  largest |diff| / bound: ${worst.toExponential(2)}`);
          // The same query on each shard's local table: the two partial sums add
          // up to the Distributed table's, so each shard summed its own rows.
          const part = await Promise.all(shards.map((url) =>
            clickhouseControlVariateSums({
              ...common,
              connection: url,
              source: { table: "glm rows_local" },
              thetaStar: theta,
            })
          ));
          assert.deepEqual(part.map((p) => p.numRows), [SPLIT, N - SPLIT]);
          assertWithin("S by shard", [part[0].llStarSum + part[1].llStarSum], [got.llStarSum], [
            bound.s,
          ]);
          assertWithin(
            "A by shard",
            part[0].gradSum.map((v, j) => v + part[1].gradSum[j]),
            got.gradSum,
            bound.a,
          );
          assert.ok(part[0].llStarSum !== 0 && part[1].llStarSum !== 0);

          const ll = await clickhouseLogLikelihood({ ...common, theta });
          assertWithin("S without B", [ll.logLikelihood], [got.llStarSum], [bound.s]);
          if (storage === "f64") {
            // The comparison can fail: θ* moved by 1e-9 in one coordinate is caught.
            const moved = theta.slice();
            moved[1] += 1e-9;
            const off = await clickhouseControlVariateSums({ ...common, thetaStar: moved });
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
  },
});

steps.push({
  name: "clickhouseNewtonCentring() on the Distributed table reaches the WASM model's MAP",
  fn: async (t) => {
    for (const c of CASES) {
      await t.step(c.name, async () => {
        const { data } = c.make("f64");
        const columns = await loadSharded(shards, data, { fromCol: 1, split: SPLIT });
        const prior = { priorScale: 2, interceptColumn: 0, interceptPriorScale: 10 };
        const got = await clickhouseNewtonCentring({
          connection: shards[1], // any shard can be the initiator
          source: { table: "glm_rows" },
          family: c.family,
          sigma: c.sigma,
          columns,
          response: "y",
          intercept: true,
          ...prior,
        });
        assert.ok(got.converged, `${c.family}: not converged in ${got.numPasses} passes`);
        assert.equal(got.numRows, N);
        const glmOpts: GlmOptions = { family: c.family, ...prior };
        if (c.sigma !== undefined) glmOpts.sigma = c.sigma;
        const model = new GlmModel(data, glmOpts);
        const d = model.dim, g = new Float64Array(d), h = new Float64Array(d * d);
        model.logDensityAndGradient(got.thetaStar, g);
        model.logLikelihoodHessian(got.thetaStar, h);
        const bound = centringBounds(data, c.family, got.thetaStar, c.sigma ?? 1, logGamma);
        for (let j = 0; j < d; j++) {
          let hs = model.priorPrecision[j] * 1e-10;
          for (let l = 0; l < d; l++) hs += Math.abs(h[j * d + l]) * 1e-10;
          assert.ok(
            Math.abs(g[j]) <= hs + bound.a[j],
            `${c.family}: ∇log π[${j}] = ${g[j]} at ClickHouse's θ* exceeds ${hs + bound.a[j]}`,
          );
        }
        const { mode } = newtonMap(model);
        for (let j = 0; j < d; j++) assert.ok(Math.abs(mode[j] - got.thetaStar[j]) < 1e-8);
        const cv = new ControlVariates(model, got.thetaStar, { order: 2 });
        assertWithin("S", [got.llStarSum], [cv.llStarSum], [bound.s]);
        assertWithin("A", got.gradSum, cv.gradSum, bound.a);
        assertWithin("B", got.hessSum, cv.hessSum, bound.b);
        console.log(`  ${got.numPasses} passes`);
        cv.dispose();
        model.dispose();
      });
    }
  },
});

steps.push({
  name:
    "gaussian-scale (σ unknown): sums and Newton over the Distributed table match the WASM model",
  fn: async () => {
    const g = gaussianLinearRegression(arena, { n: N, d: 8, sigma: 0.7, seed: 5, storage: "f64" });
    const columns = await loadSharded(shards, g.data, { fromCol: 1, split: SPLIT });
    const d = g.data.numCols;
    const theta = Float64Array.from([...g.trueCoefficients.map((b) => b - 0.02), Math.log(0.75)]);
    const common = {
      connection: shards[0],
      source: { table: "glm_rows" },
      family: "gaussian-scale" as const,
      columns,
      response: "y",
      intercept: true,
    };
    const got = await clickhouseControlVariateSums({ ...common, thetaStar: theta });
    const model = new GlmModel(g.data, { family: "gaussian-scale" });
    assert.equal(model.dim, d + 1);
    const grad = new Float64Array(d + 1), hess = new Float64Array((d + 1) ** 2);
    const ll = model.logLikelihood(theta, grad);
    model.logLikelihoodHessian(theta, hess);
    const bound = scaleCentringBounds(g.data, theta);
    const worst = Math.max(
      assertWithin("S", [got.llStarSum], [ll], [bound.s]),
      assertWithin("A", got.gradSum, grad, bound.a),
      assertWithin("B", got.hessSum, hess, bound.b),
    );
    console.log(`  largest |diff| / bound: ${worst.toExponential(2)}`);
    // The bound can fail: τ moved by 1e-9 is caught.
    const moved = theta.slice();
    moved[d] += 1e-9;
    const off = await clickhouseControlVariateSums({ ...common, thetaStar: moved });
    assert.ok(Math.abs(off.gradSum[d] - grad[d]) > bound.a[d], "τ moved by 1e-9 passes the bound");
    // Newton under a Gaussian prior on every coordinate (τ's too): at θ* the
    // WASM likelihood gradient balances that prior.
    const prior = { priorScale: 2, interceptColumn: 0, interceptPriorScale: 10 };
    const map = await clickhouseNewtonCentring({ ...common, ...prior });
    assert.ok(map.converged, `not converged in ${map.numPasses} passes`);
    model.logLikelihood(map.thetaStar, grad);
    model.logLikelihoodHessian(map.thetaStar, hess);
    const at = scaleCentringBounds(g.data, map.thetaStar);
    for (let j = 0; j <= d; j++) {
      const prec = j === 0 ? 1 / 100 : 1 / 4;
      let hs = prec * 1e-10;
      for (let l = 0; l <= d; l++) hs += Math.abs(hess[j * (d + 1) + l]) * 1e-10;
      const gj = grad[j] - prec * map.thetaStar[j];
      assert.ok(Math.abs(gj) <= hs + at.a[j], `∇log π[${j}] = ${gj} at ClickHouse's θ*`);
    }
    assert.ok(
      Math.abs(Math.exp(map.thetaStar[d]) - 0.7) < 0.05,
      `σ* = ${Math.exp(map.thetaStar[d])}`,
    );
    console.log(`  ${map.numPasses} passes, σ* = ${Math.exp(map.thetaStar[d])}`);
    model.dispose();
  },
});

steps.push({
  name: "clickhouse engine: errors name the table and the column",
  fn: async () => {
    const url = shards[0];
    const run = (sql: string) => clickhouseQuery(url, sql, { json: false });
    await run("DROP TABLE IF EXISTS bad_rows");
    await run(
      "CREATE TABLE bad_rows (x Float64, y Float64, label String, xn Nullable(Float64)) ENGINE = MergeTree ORDER BY tuple()",
    );
    await run("INSERT INTO bad_rows VALUES (0.5, 1, 'a', 1), (-1, 0, 'b', NULL), (2, 1, 'c', 3)");
    const base = {
      connection: url,
      family: "logistic" as const,
      columns: ["x"],
      response: "y",
      thetaStar: [0.3],
    };
    await assert.rejects(
      clickhouseControlVariateSums({ ...base, source: { table: "nope" } }),
      /table `nope`: .*nope doesn't exist/s,
    );
    await assert.rejects(
      clickhouseControlVariateSums({ ...base, source: { table: "bad_rows" }, columns: ["x2"] }),
      /table `bad_rows` has no column "x2" \(it has x, y, label, xn\)/,
    );
    await assert.rejects(
      clickhouseControlVariateSums({ ...base, source: { table: "bad_rows" }, columns: ["label"] }),
      /column "label" of table `bad_rows` is String, not a number type/,
    );
    await assert.rejects(
      clickhouseControlVariateSums({ ...base, source: { table: "bad_rows" }, columns: ["xn"] }),
      /column "xn" of table `bad_rows` has 1 NULL value/,
    );
    await assert.rejects(
      clickhouseControlVariateSums({
        ...base,
        source: { sql: "SELECT * FROM bad_rows WHERE x > 10" },
      }),
      /has no rows/,
    );
    // A wrong password: the server's refusal, never the password.
    const port = new URL(url).port;
    await assert.rejects(
      clickhouseControlVariateSums({
        ...base,
        source: { table: "bad_rows" },
        connection: `clickhouse://default:s3cr3t-pw@127.0.0.1:${port}/default`,
      }),
      (e: Error) =>
        /ClickHouse at 127\.0\.0\.1:\d+ refused/.test(e.message) &&
        !e.message.includes("s3cr3t-pw"),
    );
    // Nothing listens: the host and port, never the password.
    await assert.rejects(
      clickhouseControlVariateSums({
        ...base,
        source: { table: "bad_rows" },
        connection: "clickhouse://default:s3cr3t-pw@127.0.0.1:9/default",
      }),
      (e: Error) =>
        /could not reach ClickHouse at 127\.0\.0\.1:9/.test(e.message) &&
        !e.message.includes("s3cr3t-pw"),
    );
    await run("DROP TABLE bad_rows");
  },
});

steps.push({
  name:
    "clickhouse engine: a connection that drops during Newton's passes is an error naming the table",
  fn: async () => {
    const { data } = CASES[0].make("f64");
    const columns = await loadSharded(shards, data, { fromCol: 1, split: SPLIT });
    // A loopback proxy to shard 1 that, once the first result has passed
    // through it, closes every connection and stops listening.
    const target = new URL(shards[0]);
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const open: Deno.Conn[] = [];
    let dropped = false;
    const drop = () => {
      if (dropped) return;
      dropped = true;
      for (const c of open) {
        try {
          c.close();
        } catch { /* already closed */ }
      }
      try {
        listener.close();
      } catch { /* already closed */ }
    };
    const proxy = (async () => {
      try {
        for await (const conn of listener) {
          const up = await Deno.connect({ hostname: target.hostname, port: Number(target.port) });
          open.push(conn, up);
          conn.readable.pipeTo(up.writable).catch(() => {});
          up.readable.pipeThrough(
            new TransformStream({
              transform(chunk, ctl) {
                ctl.enqueue(chunk);
                setTimeout(drop, 200);
              },
            }),
          ).pipeTo(conn.writable).catch(() => {});
        }
      } catch { /* the listener was closed */ }
    })();
    await assert.rejects(
      clickhouseNewtonCentring({
        connection: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
        source: { table: "glm_rows" },
        family: "logistic",
        columns,
        response: "y",
        intercept: true,
      }),
      /the sums query over `glm_rows` failed: .*ClickHouse at 127\.0\.0\.1:\d+/,
    );
    drop();
    await proxy;
  },
});

Deno.test(
  liveServerTest("[e2e] clickhouse engine on a live cluster of two shards", {
    start: async () => {
      cluster = await startClickHouse();
      if (cluster.shards !== undefined) shards = cluster.shards;
    },
    stop: async () => {
      if (cluster.skip === undefined) await cluster.stop();
    },
    skip: () => cluster.skip,
    steps,
  }),
);
