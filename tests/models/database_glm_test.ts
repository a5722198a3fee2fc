/**
 * The model over a SQL engine's row source (models/database_glm.ts), on a
 * row source in memory with the engines' contract (rows by key, one pass of
 * n, S, A, B): batching and de-duplication of row reads, the fetch counters,
 * a pass that overflows (non-finite log likelihood, an error at θ*), a table
 * whose row count changed, the source closed by the model and by a
 * refusal, and a streamed pass (the rows read in key order through the
 * core's kernels) equal to the in-memory model's on one block. The engines themselves: tests/engines/duckdb_rows_test.ts and the
 * live-server tests of tests/engines/database_glm_test.ts.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import {
  databaseGlmModel,
  type DatabaseRowSource,
  isDatabaseRowSource,
} from "../../models/database_glm.ts";
import { GlmModel } from "../../models/glm.ts";
import { externalFromGlm } from "../../models/in_memory_external.ts";
import { Rng } from "../../random/rng.ts";
import { sample } from "../../samplers/sample.ts";

const N = 400, D = 3;

function rows() {
  const rng = new Rng(9), x = new Float64Array(N * D), y = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    x[i * D] = 1;
    for (let j = 1; j < D; j++) x[i * D + j] = rng.normal();
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-(0.2 + 0.7 * x[i * D + 1]))) ? 1 : 0;
  }
  return { x, y };
}

/**
 * A row source over arrays, keys from 50; `sums` by the in-memory external
 * model's pass, `scanRows` the rows in key order, `batchRows` at a time.
 */
function memorySource(
  glm: GlmModel,
  x: Float64Array,
  y: Float64Array,
  batchRows = 3,
  more: Partial<Pick<DatabaseRowSource, "passes" | "chunkRows">> = {},
) {
  // Built when a pass asks for it (student-t has no such external view).
  let ext: ReturnType<typeof externalFromGlm> | null = null;
  const log = { fetches: [] as number[][], closed: false, overflow: false, n: N, scans: 0 };
  const source: DatabaseRowSource = {
    isDatabaseRowSource: true,
    where: "table t at memory",
    label: "memory",
    engine: "memory",
    numRows: N,
    keyBase: 50,
    columns: ["x1", "x2"],
    intercept: true,
    aux: null,
    sqlFamilies: ["logistic"],
    passes: more.passes ?? "auto",
    chunkRows: more.chunkRows ?? 65536,
    batchRows,
    scanRows(visit) {
      log.scans++;
      const out = new Float64Array(batchRows * 3);
      for (let r = 0; r < log.n; r += batchRows) {
        const m = Math.min(batchRows, log.n - r);
        for (let i = 0; i < m; i++) {
          out.set([x[(r + i) * D + 1], x[(r + i) * D + 2], y[r + i]], i * 3);
        }
        visit(out.subarray(0, m * 3), m);
      }
      return log.n;
    },
    fetchRows(keys, out) {
      if (log.closed) throw new Error("closed");
      log.fetches.push(Array.from(keys));
      keys.forEach((k, i) => {
        const r = k - 50;
        out.set([x[r * D + 1], x[r * D + 2], y[r]], i * 3);
      });
    },
    sums(theta, _family, grad, hess) {
      if (log.overflow) {
        grad.fill(NaN);
        hess?.fill(NaN);
        return { numRows: NaN, logLikelihood: NaN };
      }
      ext ??= externalFromGlm(glm);
      return { numRows: log.n, logLikelihood: ext.controlVariateSums(theta, grad, hess) };
    },
    close() {
      log.closed = true;
    },
  };
  return { source, log };
}

Deno.test("database GLM over a row source: rows by key in batches, the counters, the same HMC-ECS draws as memory", () => {
  const { x, y } = rows();
  const data = glmDataFromArrays(loadCore(), x, y, { numCols: D });
  const glm = new GlmModel(data, { family: "logistic", priorScale: 5 });
  const { source, log } = memorySource(glm, x, y);
  assert.equal(isDatabaseRowSource(source), true);
  const model = databaseGlmModel(source, { family: "logistic", priorScale: 5 });
  assert.deepEqual(model.parameterNames, ["(Intercept)", "x1", "x2"]);
  assert.equal(model.keyBase, 50);
  log.fetches.length = 0;
  // 7 indices, 5 distinct: two queries of at most 3 keys, each key once.
  const xs = new Float64Array(7 * D), ys = new Float64Array(7);
  model.readRows(Int32Array.from([4, 0, 4, 399, 7, 0, 8]), xs, ys);
  assert.deepEqual(log.fetches, [[54, 50, 449], [57, 58]]);
  assert.deepEqual(model.fetches, { numQueries: 2, numRows: 5, numPasses: 0 });
  assert.deepEqual(Array.from(xs.subarray(0, D)), Array.from(x.subarray(4 * D, 5 * D)));
  assert.equal(ys[3], y[399]);
  assert.throws(() => model.readRows(Int32Array.from([N]), xs, ys), /row index 400 .*\[0, 399\]/);
  // The prior is the GLM's; the likelihood is the source's pass (here the
  // control-variate kernels' sums, in another order than the GLM's own pass).
  const th = new Float64Array([0.1, 0.5, -0.2]);
  const g = new Float64Array(D), g1 = new Float64Array(D);
  assert.equal(model.logPrior(th, g), glm.logPrior(th, g1));
  assert.deepEqual(g, g1);
  const lp = model.logDensityAndGradient(th, g), lp1 = glm.logDensityAndGradient(th, g1);
  assert.ok(Math.abs(lp - lp1) <= 1e-13 * Math.abs(lp1), `${lp} vs ${lp1}`);
  g.forEach((v, j) => assert.ok(Math.abs(v - g1[j]) <= 1e-12 * (1 + Math.abs(g1[j]))));
  assert.equal(model.logDensity(th), lp);
  // The HMC-ECS draws are the in-memory model's.
  const run = { sampler: "hmc-ecs", numWarmup: 30, numSamples: 20, numChains: 1, seed: 3 } as const;
  assert.deepEqual(
    sample(model, run).draws,
    sample(externalFromGlm(new GlmModel(data, { family: "logistic", priorScale: 5 })), run).draws,
  );
  assert.ok(model.fetches.numPasses >= 1);
  model.close();
  assert.equal(log.closed, true);
  assert.throws(() => model.logLikelihood(th), /closed/);
});

Deno.test("database GLM over a row source: an overflowing pass, a changed table, refusals close the source", () => {
  const { x, y } = rows();
  const glm = new GlmModel(glmDataFromArrays(loadCore(), x, y, { numCols: D }), {
    family: "logistic",
  });
  const { source, log } = memorySource(glm, x, y);
  const model = databaseGlmModel(source, { family: "logistic" });
  const th = new Float64Array(D), g = new Float64Array(D);
  log.overflow = true;
  // As in memory: a non-finite log density, which a sampler takes as a divergence.
  assert.ok(!Number.isFinite(model.logDensityAndGradient(th, g)));
  assert.throws(
    () => model.controlVariateSums(th, g, new Float64Array(D * D)),
    /table t at memory: the full-data sums at θ\* are not finite/,
  );
  log.overflow = false;
  log.n = N + 1;
  assert.throws(() => model.logLikelihood(th), /table t at memory changed: 401 rows now, 400/);
  model.close();
  for (
    const [options, message] of [
      [
        { family: "poisson", offset: new Float64Array(N) },
        /table t at memory: the offset of rows in a SQL engine is a column: open the source with offset: "COLUMN"/,
      ],
      [{ family: "binomial" }, /"binomial" needs the number of trials: open table t at memory/],
      [{ family: "gaussian", sigma: -1 }, /table t at memory: .*sigma/],
    ] as const
  ) {
    const fresh = memorySource(glm, x, y);
    assert.throws(() => databaseGlmModel(fresh.source, options), message);
    assert.equal(fresh.log.closed, true, JSON.stringify(options));
  }
  // A family the source's SQL cannot sum, with passes: "sql": named, with what to do.
  const sqlOnly = memorySource(glm, x, y, 3, { passes: "sql" });
  assert.throws(
    () => databaseGlmModel(sqlOnly.source, { family: "student-t", nu: 4 }),
    /family "student-t" cannot be summed in memory's SQL \(table t at memory\): .*passes: "auto" or "stream"/,
  );
  assert.equal(sqlOnly.log.closed, true);
  assert.throws(
    () => databaseGlmModel({ sql: "x" } as never, { family: "logistic" }),
    /a database GLM needs a row source opened by an engine .*keys \["sql"\]/,
  );
  glm.dispose();
});

Deno.test("database GLM over a row source: streamed passes through the core's kernels equal the in-memory model's on one block", () => {
  const { x, y } = rows();
  const data = glmDataFromArrays(loadCore(), x, y, { numCols: D });
  for (const family of ["logistic", "student-t"] as const) {
    const options = family === "logistic"
      ? { family, priorScale: 5 }
      : { family, nu: 4, priorScale: 5 };
    const glm = new GlmModel(data, options);
    // student-t is not in the source's SQL families: it streams under "auto".
    const passes = family === "logistic" ? "stream" : "auto";
    const { source, log } = memorySource(glm, x, y, 7, { passes });
    const model = databaseGlmModel(source, options);
    try {
      assert.equal(model.passes, "stream");
      const th = new Float64Array(glm.dim).map((_, j) => 0.1 * (j + 1));
      const g = new Float64Array(glm.dim), g1 = new Float64Array(glm.dim);
      assert.equal(model.logDensityAndGradient(th, g), glm.logDensityAndGradient(th, g1));
      assert.deepEqual(g, g1);
      const h = new Float64Array(glm.dim ** 2), h1 = h.slice();
      model.logLikelihoodHessian(th, h);
      glm.logLikelihoodHessian(th, h1);
      assert.deepEqual(h, h1);
      assert.equal(log.scans, 2);
      assert.equal(model.fetches.numPasses, 2);
      // A table that lost a row since it was opened.
      log.n = N - 1;
      assert.throws(() => model.logLikelihood(th), /table t at memory changed: 399 rows now, 400/);
    } finally {
      model.close();
      glm.dispose();
    }
  }
});
