/**
 * The SQL cell of the family × placement matrix: a GLM whose rows stay in an
 * embedded DuckDB (`openDuckDbRows`, engines/duckdb.ts), built by
 * `defineModel({ likelihood, rows: { database } })`, against a `GlmModel`
 * over the same rows in memory.
 *
 * The bound: the engine's full-data sums are the in-memory sums of the same
 * rows in another summation order and libm (`centringBounds`,
 * testing/duckdb_fixtures.ts, the bound docs/databases.md states for the
 * database path); log π adds the prior (the same code in both) with one more
 * rounding. Rows fetched by key are exact, so per-row terms of a subsample
 * are bit-identical, and HMC-ECS given one centring draws the in-memory
 * model's draws bit for bit. Runs that use the engine's sums at every step
 * (full-data HMC, HMC-ECS centring itself, the SG samplers' control
 * variates) agree with the in-memory runs to the rounding such a difference
 * leaves: every draw within 1e-9·max(1, |draw|), the criterion of
 * tests/models/family_placement_test.ts for sums added in another order.
 * The second test is the rest of the SQL column, every other family (+ its
 * offset or trials column) and a family written in AssemblyScript: the sums
 * in DuckDB's SQL where it has them, else every row streamed through the
 * core's kernels (bit for bit a streamed row store's sums, and memory's on
 * one block), per-row terms bit for bit, HMC-ECS draws within 1e-9, and the
 * errors of a family the SQL cannot sum or a column a family does not take.
 * Needs `--allow-ffi` (DuckDB's native addon, loaded in the row source's
 * worker).
 */
import assert from "node:assert/strict";
import { DuckDBInstance } from "npm:@duckdb/node-api@1.5.5-r.5";
import { loadCore } from "../../core/load.ts";
import { type GlmData, glmDataFromArrays } from "../../data/dataset.ts";
import { EXAMPLE_LOGISTIC_SOURCE } from "../../core/user_family.ts";
import { writeRowStoreFromGlmData } from "../../data/row_store_write.ts";
import { openDuckDbRows } from "../../engines/duckdb.ts";
import { logGamma } from "../../math/special.ts";
import { defineModel } from "../../models/compose.ts";
import type { DatabaseGlmModel, DatabaseRowSource } from "../../models/database_glm.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import { externalFromGlm } from "../../models/in_memory_external.ts";
import type { DataModel, PerRowHessianModel } from "../../models/model.ts";
import { ShardedGlmModel } from "../../models/sharded_glm.ts";
import { UserGlmModel } from "../../models/user_glm.ts";
import { Rng } from "../../random/rng.ts";
import { newtonMap } from "../../replicate/laplace.ts";
import { sample } from "../../samplers/sample.ts";
import { centringBounds, scaleCentringBounds } from "../../testing/duckdb_fixtures.ts";
import { familyProblem } from "../_family_fixtures.ts";

const U = 2 ** -53;
const N = 1501, D = 4;
const NAMES = ["(Intercept)", "x1", "x2", "x3"];
const COLS = ["x1", "x2", "x3"];

type Family = "logistic" | "gaussian" | "poisson";
const FAMILIES: { family: Family; options: GlmOptions; seed: number }[] = [
  { family: "logistic", options: { family: "logistic" }, seed: 1 },
  { family: "gaussian", options: { family: "gaussian", sigma: 0.8 }, seed: 2 },
  { family: "poisson", options: { family: "poisson" }, seed: 3 },
];

/** Rows with an intercept column and full mantissas, y from the family at β. */
function problem(family: Family, seed: number) {
  const rng = new Rng(seed), x = new Float64Array(N * D), y = new Float64Array(N);
  const beta = [0.3, -0.5, 0.4, 0.2];
  for (let i = 0; i < N; i++) {
    let eta = 0;
    for (let j = 0; j < D; j++) {
      x[i * D + j] = j === 0 ? 1 : rng.normal() / Math.sqrt(D);
      eta += x[i * D + j] * beta[j];
    }
    y[i] = family === "logistic"
      ? (rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0)
      : family === "gaussian"
      ? eta + 0.8 * rng.normal()
      : rng.poisson(Math.exp(eta));
  }
  return { x, y, theta: Float64Array.from(beta, (b) => b + 0.05) };
}

/**
 * Write the rows with a key column `id` (row k has id `base + k`) to a
 * Parquet file, stored in reverse key order (fetched by key all the same).
 */
async function writeKeyedParquet(
  path: string,
  x: Float64Array,
  y: Float64Array,
  base = 0,
): Promise<void> {
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  try {
    await conn.run(
      "CREATE TABLE t (id BIGINT, x1 DOUBLE, x2 DOUBLE, x3 DOUBLE, y DOUBLE)",
    );
    const app = await conn.createAppender("t");
    for (let i = N - 1; i >= 0; i--) {
      app.appendBigInt(BigInt(base + i));
      for (let j = 1; j < D; j++) app.appendDouble(x[i * D + j]);
      app.appendDouble(y[i]);
      app.endRow();
    }
    app.closeSync();
    await conn.run(`COPY t TO '${path.replaceAll("'", "''")}' (FORMAT PARQUET)`);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

function openRows(path: string): Promise<DatabaseRowSource> {
  return openDuckDbRows({
    source: { parquet: path },
    key: "id",
    columns: COLS,
    response: "y",
    intercept: true,
  });
}

/** Every draw of `got` within tol·max(1, |want|) of `want`'s; returns the largest relative gap. */
function assertDrawsClose(
  got: Float64Array[][],
  want: Float64Array[][],
  what: string,
  tol = 1e-9,
): number {
  let worst = 0;
  assert.equal(got.length, want.length);
  for (let c = 0; c < got.length; c++) {
    assert.equal(got[c].length, want[c].length);
    for (let j = 0; j < got[c].length; j++) {
      assert.equal(got[c][j].length, want[c][j].length, `${what}: number of draws`);
      for (let i = 0; i < want[c][j].length; i++) {
        const a = got[c][j][i], b = want[c][j][i];
        const rel = Math.abs(a - b) / Math.max(1, Math.abs(b));
        worst = Math.max(worst, rel);
        assert.ok(rel <= tol, `${what}: chain ${c}, parameter ${j}, draw ${i}: ${a} vs ${b}`);
      }
    }
  }
  return worst;
}

const ECS = {
  sampler: "hmc-ecs",
  numWarmup: 30,
  numSamples: 20,
  numChains: 1,
  seed: 5,
} as const;
const HMC = {
  sampler: "hmc",
  numWarmup: 20,
  numSamples: 10,
  numChains: 1,
  seed: 11,
  numIntegrationSteps: 4,
} as const;
/**
 * Full-data HMC evaluates the engine's sums at every leapfrog step and adapts
 * ε to them through the warm-up, so the rounding differences of the sums
 * grow along the run (measured: 2e-11 logistic, 2e-10 gaussian, 4e-8
 * poisson): its draws are compared to 1e-6·max(1, |draw|).
 */
const HMC_TOLERANCE = 1e-6;
const SG_SAMPLERS = ["sgld", "sghmc", "sgnht", "ccadl"] as const;

Deno.test("SQL rows (DuckDB) × family: log π within the centring bound, HMC-ECS draws = memory's, HMC and SG draws within rounding", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_duckrows_" });
  try {
    for (const f of FAMILIES) {
      await t.step(f.family, async () => {
        const p = problem(f.family, f.seed);
        const data: GlmData = glmDataFromArrays(loadCore(), p.x, p.y, {
          numCols: D,
          columnNames: NAMES,
        });
        const path = `${dir}/${f.family}.parquet`;
        await writeKeyedParquet(path, p.x, p.y);
        const glm = new GlmModel(data, f.options);
        const model = await defineModel({
          likelihood: f.options,
          rows: { database: await openRows(path) },
        });
        try {
          assert.equal(model.numRows, N);
          assert.equal(model.dim, D);
          assert.deepEqual(model.parameterNames, NAMES);
          // log π and ∇ log π: the centring bound plus the prior's one addition.
          let worst = 0;
          for (const k of [0, 1, 2]) {
            const th = p.theta.map((v, j) => v + 0.07 * k * Math.sin(3 * j + k));
            const g = new Float64Array(D), g1 = new Float64Array(D);
            const lp = model.logDensityAndGradient(th, g);
            const lp1 = glm.logDensityAndGradient(th, g1);
            const b = centringBounds(data, f.family, th, f.options.sigma ?? 1, logGamma);
            const bs = b.s + 4 * U * Math.abs(lp1);
            assert.ok(Math.abs(lp - lp1) <= bs, `log π: ${lp} vs ${lp1}, bound ${bs}`);
            worst = Math.max(worst, Math.abs(lp - lp1) / bs);
            for (let j = 0; j < D; j++) {
              const bj = b.a[j] + 4 * U * Math.abs(g1[j]);
              assert.ok(Math.abs(g[j] - g1[j]) <= bj, `∂${j}: ${g[j]} vs ${g1[j]}, bound ${bj}`);
              worst = Math.max(worst, Math.abs(g[j] - g1[j]) / bj);
            }
            assert.equal(model.logDensity(th), lp, "logDensity = logDensityAndGradient's value");
          }
          console.log(
            `  ${f.family}: largest |Δ| / bound of log π, ∇ log π: ${worst.toExponential(2)}`,
          );
          // A subsample (repeats, any order): the same per-row terms, bit for bit.
          const rows = Int32Array.from({ length: 300 }, (_, k) => (k * 613 + 5) % N);
          const per = new Float64Array(rows.length), per1 = per.slice();
          const gr = new Float64Array(rows.length * D), gr1 = gr.slice();
          model.logLikelihoodRows(p.theta, rows, { perRow: per });
          glm.logLikelihoodRows(p.theta, rows, { perRow: per1 });
          model.perRowGradients(p.theta, rows, gr);
          glm.perRowGradients(p.theta, rows, gr1);
          assert.deepEqual(per, per1, "ℓᵢ of a subsample");
          assert.deepEqual(gr, gr1, "∇ℓᵢ of a subsample");

          // HMC-ECS with one centring (the engine's sums at the MAP): memory's draws.
          const thetaStar = newtonMap(glm).mode;
          const gradSum = new Float64Array(D), hessSum = new Float64Array(D * D);
          const llStarSum = (model as DataModel & {
            controlVariateSums(t: Float64Array, g: Float64Array, h: Float64Array): number;
          }).controlVariateSums(thetaStar, gradSum, hessSum);
          const centring = { thetaStar, llStarSum, gradSum, hessSum };
          const ecs = sample(model, { ...ECS, centring });
          assert.equal(ecs.chains[0].stop, null);
          assert.deepEqual(
            ecs.draws,
            sample(externalFromGlm(new GlmModel(data, f.options)), { ...ECS, centring }).draws,
            "HMC-ECS draws with one centring",
          );
          // HMC-ECS centring itself (its passes in SQL), HMC, the SG samplers.
          const gaps: string[] = [];
          const ecsOwn = assertDrawsClose(
            sample(model, ECS).draws,
            sample(new GlmModel(data, f.options), ECS).draws,
            "HMC-ECS draws",
          );
          gaps.push(`hmc-ecs ${ecsOwn.toExponential(1)}`);
          const hmc = assertDrawsClose(
            sample(model, HMC).draws,
            sample(new GlmModel(data, f.options), HMC).draws,
            "HMC draws",
            HMC_TOLERANCE,
          );
          gaps.push(`hmc ${hmc.toExponential(1)}`);
          for (const sampler of SG_SAMPLERS) {
            // Each SG step reads a minibatch by key (a query): short runs.
            const sg = {
              sampler,
              numWarmup: 5,
              numSamples: 10,
              numChains: 1,
              seed: 7,
              thetaStar,
              ...(sampler === "sghmc" ? { numIntegrationSteps: 3 } : {}),
            } as const;
            const r = sample(model, sg);
            assert.equal(r.chains[0].stop, null, sampler);
            const gap = assertDrawsClose(
              r.draws,
              sample(externalFromGlm(new GlmModel(data, f.options)), sg).draws,
              `${sampler} draws`,
            );
            gaps.push(`${sampler} ${gap.toExponential(1)}`);
          }
          console.log(`  ${f.family}: largest relative draw gap: ${gaps.join(", ")}`);
        } finally {
          model.close();
          glm.dispose();
        }
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SQL rows (DuckDB): the priors, the refused cells (the source closed), a database file's table, errors naming the source", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_duckrows_" });
  const p = problem("logistic", 4);
  const data = glmDataFromArrays(loadCore(), p.x, p.y, { numCols: D, columnNames: NAMES });
  const path = `${dir}/rows.parquet`;
  const closed = (s: DatabaseRowSource) =>
    assert.throws(() => s.fetchRows(new Float64Array([0]), new Float64Array(4)), /closed/);
  try {
    await writeKeyedParquet(path, p.x, p.y);
    await t.step("GLM prior settings and a prior spec: the in-memory model's prior", async () => {
      const th = p.theta;
      const a = await defineModel({
        prior: { priorScale: 2.5 },
        likelihood: { family: "logistic" },
        rows: { database: await openRows(path) },
      });
      const b = await defineModel({
        prior: { coefficients: "student_t(4, 0, 2)", intercept: "normal(0, 5)" },
        likelihood: { family: "logistic" },
        rows: { database: await openRows(path) },
      });
      const m = await defineModel({
        prior: { coefficients: "student_t(4, 0, 2)", intercept: "normal(0, 5)" },
        likelihood: { family: "logistic" },
        rows: data,
      });
      try {
        const ga = new Float64Array(D), ga1 = new Float64Array(D);
        assert.equal(
          a.logPrior(th, ga),
          new GlmModel(data, { family: "logistic", priorScale: 2.5 }).logPrior(th, ga1),
        );
        assert.deepEqual(ga, ga1);
        assert.equal(b.logPrior(th), m.logPrior(th));
        assert.notEqual(b.logPrior(th), a.logPrior(th));
        // A withPrior model keeps the row source's interface and counters.
        const fetched = (b as unknown as { fetches: { numQueries: number } }).fetches;
        b.logLikelihoodRows(th, Int32Array.from([3, 1, 3]));
        assert.equal(fetched.numQueries, 1);
      } finally {
        a.close();
        b.close();
        (m as GlmModel).dispose();
      }
    });

    await t.step(
      "refused cells name the likelihood and the rows, and close the source",
      async () => {
        const cases: [Parameters<typeof defineModel>[0]["likelihood"], RegExp][] = [
          [
            { family: "binomial", trials: new Float64Array(N) },
            /"binomial" on SQL engine rows is not supported: the trials of a SQL engine's rows is a column/,
          ],
          [
            { family: "poisson", offset: new Float64Array(N) },
            /"poisson" on SQL engine rows is not supported: the offset of a SQL engine's rows is a column/,
          ],
          [
            { parameterNames: ["a"], logLikRow: () => 0 },
            /a TypeScript per-row likelihood on SQL engine rows/,
          ],
        ];
        for (const [likelihood, message] of cases) {
          const source = await openRows(path);
          await assert.rejects(defineModel({ likelihood, rows: { database: source } }), message);
          closed(source);
        }
        // A bad prior after the model was built closes it too.
        const source = await openRows(path);
        await assert.rejects(
          defineModel({
            prior: { coefficients: "normal(0, -1)" },
            likelihood: { family: "logistic" },
            rows: { database: source },
          }),
        );
        closed(source);
        await assert.rejects(
          defineModel({
            likelihood: { family: "logistic" },
            rows: { database: { sql: "x" } as never },
          }),
          /rows\.database must be a row source opened by an engine's entry point .*got keys \["sql"\]/,
        );
      },
    );

    await t.step("a table of a DuckDB database file, keys from 1000", async () => {
      const file = `${dir}/rows.duckdb`;
      const instance = await DuckDBInstance.create(file);
      const conn = await instance.connect();
      await conn.run(
        `CREATE TABLE "my t" AS SELECT id + 1000 AS id, x1, x2, x3, y FROM read_parquet('${path}')`,
      );
      await conn.run(`CREATE TABLE gaps AS SELECT id * 2 AS id, x1, x2, x3, y FROM "my t"`);
      await conn.run(
        `CREATE TABLE holes AS SELECT * REPLACE (CAST(NULL AS DOUBLE) AS x2) FROM "my t" WHERE id < 1003`,
      );
      conn.closeSync();
      instance.closeSync();
      const rows = (table: string, key = "id") =>
        openDuckDbRows({
          database: file,
          source: { table },
          key,
          columns: COLS,
          response: "y",
          intercept: true,
        });
      const model = await defineModel({
        likelihood: { family: "logistic" },
        rows: { database: await rows("my t") },
      });
      const glm = new GlmModel(data, { family: "logistic" });
      try {
        assert.equal((model as unknown as { keyBase: number }).keyBase, 1000);
        const idx = Int32Array.from([0, N - 1, 17]);
        const per = new Float64Array(3), per1 = new Float64Array(3);
        model.logLikelihoodRows(p.theta, idx, { perRow: per });
        glm.logLikelihoodRows(p.theta, idx, { perRow: per1 });
        assert.deepEqual(per, per1);
      } finally {
        model.close();
        glm.dispose();
      }
      await assert.rejects(
        rows("gaps"),
        /table "gaps" at duckdb:.*key column "id" must hold the integers base … base \+ n − 1 once each \(n = 1501\); it holds 1501 distinct values from 2000 to 5000/,
      );
      await assert.rejects(rows("nope"), /table "nope" at duckdb:.*nope/);
      await assert.rejects(rows("my t", "idx"), /table "my t" at duckdb:.*idx/);
      const holes = await rows("holes");
      try {
        await assert.rejects(
          defineModel({ likelihood: { family: "logistic" }, rows: { database: holes } }),
          /table "holes" at duckdb:.*column "x2" holds NULL at key 1000/,
        );
      } finally {
        holes.close();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A family of the matrix below: its options in memory and on SQL rows, its data. */
interface MatrixFamily {
  name: string;
  /** The in-memory model's options (the per-row column as an option). */
  options: (aux: Float64Array) => GlmOptions;
  /** The source's per-row column, if any. */
  aux?: "offset" | "trials";
  /** How DuckDB serves its full-data passes by default ("auto"). */
  passes: "sql" | "stream";
  make: () => { x: Float64Array; y: Float64Array; aux: Float64Array; theta: Float64Array };
}

const MATRIX: MatrixFamily[] = [
  {
    name: "poisson + offset",
    options: (aux) => ({ family: "poisson", offset: aux }),
    aux: "offset",
    passes: "sql",
    make: () => familyProblem("poisson-offset", N, D, 4),
  },
  {
    name: "gaussian-scale",
    options: () => ({ family: "gaussian-scale", scalePrior: "half_normal(2)" }),
    passes: "sql",
    make: () => familyProblem("gaussian-scale", N, D, 5),
  },
  {
    name: "binomial",
    options: (aux) => ({ family: "binomial", trials: aux }),
    aux: "trials",
    passes: "sql",
    make: () => familyProblem("binomial", N, D, 9),
  },
  {
    name: "student-t",
    options: () => ({ family: "student-t", nu: 3.5 }),
    passes: "stream",
    make: () => familyProblem("student-t", N, D, 6),
  },
  {
    name: "student-t, ν sampled",
    options: () => ({ family: "student-t", nu: "sample" }),
    passes: "stream",
    make: () => {
      const p = familyProblem("student-t", N, D, 7);
      return { ...p, theta: Float64Array.from([...p.theta, Math.log(2.5)]) };
    },
  },
  {
    name: "negative-binomial + offset",
    options: (aux) => ({ family: "negative-binomial", offset: aux }),
    aux: "offset",
    passes: "stream",
    make: () => familyProblem("negative-binomial", N, D, 8),
  },
];

const XCOLS = ["x0", "x1", "x2", "x3"];

/** Rows with every column of X (no implicit intercept) and an aux column "a", in reverse key order. */
async function writeParquet(
  path: string,
  x: Float64Array,
  y: Float64Array,
  aux: Float64Array,
): Promise<void> {
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  try {
    await conn.run(
      "CREATE TABLE t (id BIGINT, x0 DOUBLE, x1 DOUBLE, x2 DOUBLE, x3 DOUBLE, y DOUBLE, a DOUBLE)",
    );
    const app = await conn.createAppender("t");
    for (let i = N - 1; i >= 0; i--) {
      app.appendBigInt(BigInt(i));
      for (let j = 0; j < D; j++) app.appendDouble(x[i * D + j]);
      app.appendDouble(y[i]);
      app.appendDouble(aux[i]);
      app.endRow();
    }
    app.closeSync();
    await conn.run(`COPY t TO '${path.replaceAll("'", "''")}' (FORMAT PARQUET)`);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

function openMatrixRows(
  path: string,
  aux: "offset" | "trials" | undefined,
  more: { passes?: "auto" | "sql" | "stream"; chunkRows?: number; batchRows?: number } = {},
): Promise<DatabaseRowSource> {
  return openDuckDbRows({
    source: { parquet: path },
    key: "id",
    columns: XCOLS,
    response: "y",
    ...(aux === "offset" ? { offset: "a" } : aux === "trials" ? { trials: "a" } : {}),
    ...more,
  });
}

/** The GLM options on SQL rows: the memory options without the per-row column. */
function sqlOptions(o: GlmOptions): GlmOptions {
  const { offset: _o, trials: _t, ...rest } = o;
  return rest;
}

const gammaN = (k: number) => (k * U) / (1 - k * U);

/** Σᵢ|tᵢ| of ℓᵢ and of every ∂ⱼℓᵢ at θ (the in-memory model's per-row terms). */
function absoluteSums(m: DataModel & PerRowHessianModel, theta: Float64Array) {
  const n = m.numRows!, P = m.dim;
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const per = new Float64Array(n), g = new Float64Array(n * P);
  m.logLikelihoodRows(theta, all, { perRow: per });
  m.perRowGradients(theta, all, g);
  const grad = new Float64Array(P);
  for (let i = 0; i < n; i++) for (let j = 0; j < P; j++) grad[j] += Math.abs(g[i * P + j]);
  return { ll: per.reduce((s, v) => s + Math.abs(v), 0), grad };
}

const ECS_MATRIX = {
  sampler: "hmc-ecs",
  numWarmup: 20,
  numSamples: 10,
  numChains: 1,
  seed: 5,
  hessianFraction: 1,
} as const;

/** A subsample's ℓᵢ, ∇ℓᵢ, ∇²ℓᵢ on `m` equal `ref`'s bit for bit. */
function assertRowTermsEqual(
  m: DataModel & PerRowHessianModel,
  ref: DataModel & PerRowHessianModel,
  theta: Float64Array,
): void {
  const P = ref.dim;
  const rows = Int32Array.from({ length: 300 }, (_, k) => (k * 613 + 5) % N);
  const per = new Float64Array(rows.length), per1 = per.slice();
  const gr = new Float64Array(rows.length * P), gr1 = gr.slice();
  const h = new Float64Array(rows.length * P * P), h1 = h.slice();
  m.logLikelihoodRows(theta, rows, { perRow: per });
  ref.logLikelihoodRows(theta, rows, { perRow: per1 });
  m.perRowGradients(theta, rows, gr);
  ref.perRowGradients(theta, rows, gr1);
  m.perRowHessians(theta, rows, h);
  ref.perRowHessians(theta, rows, h1);
  assert.deepEqual(per, per1, "ℓᵢ of a subsample");
  assert.deepEqual(gr, gr1, "∇ℓᵢ of a subsample");
  assert.deepEqual(h, h1, "∇²ℓᵢ of a subsample");
}

Deno.test("SQL rows (DuckDB) × every family (+ offset, trials): SQL sums within their bound, streamed sums = a streamed row store's, per-row terms and HMC-ECS draws", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_duckrows_" });
  try {
    for (const f of MATRIX) {
      await t.step(f.name, async () => {
        const p = f.make();
        const data = glmDataFromArrays(loadCore(), p.x, p.y, { numCols: D, columnNames: XCOLS });
        const glm = new GlmModel(data, f.options(p.aux));
        const P = glm.dim;
        const path = `${dir}/${f.name.replace(/[^a-z]/g, "_")}.parquet`;
        await writeParquet(path, p.x, p.y, p.aux);
        const store = path.replace(/parquet$/, "rows");
        await writeRowStoreFromGlmData(store, data, f.aux ? { aux: p.aux, auxName: f.aux } : {});
        const opts = sqlOptions(f.options(p.aux));
        const auto = await defineModel({
          likelihood: opts,
          rows: { database: await openMatrixRows(path, f.aux) },
        }) as DatabaseGlmModel & PerRowHessianModel;
        // Every family streamed in blocks of 256 rows, and a row store streamed alike.
        const streamed = await defineModel({
          likelihood: opts,
          rows: {
            database: await openMatrixRows(path, f.aux, {
              passes: "stream",
              chunkRows: 256,
              batchRows: 200, // round trips of 200 rows straddle the 256-row blocks
            }),
          },
        }) as DatabaseGlmModel & PerRowHessianModel;
        const rowStore = await ShardedGlmModel.create(store, opts, {
          shardKind: "stream",
          workers: 1,
          chunkRows: 256,
        });
        try {
          assert.equal(auto.passes, f.passes, "how DuckDB serves the family");
          assert.equal(streamed.passes, "stream");
          assert.equal(auto.dim, P);
          assert.deepEqual(auto.parameterNames, glm.parameterNames);
          assert.equal(auto.auxColumn, f.aux ?? null);
          let worstSql = 0, worstStream = 0;
          for (const k of [0, 1, 2]) {
            const th = p.theta.map((v, j) => v + 0.07 * k * Math.sin(3 * j + k));
            const g = new Float64Array(P), g1 = new Float64Array(P), pg = new Float64Array(P);
            const lp1 = glm.logDensityAndGradient(th, g1);
            const prior = glm.logPrior(th, pg);
            const lp = auto.logDensityAndGradient(th, g);
            if (f.passes === "stream") {
              // One block (chunkRows 65 536 ≥ n): the in-memory sums, bit for bit.
              assert.equal(lp, lp1, "log π, one streamed block");
              assert.deepEqual(g, g1, "∇ log π, one streamed block");
              const h = new Float64Array(P * P), h1 = h.slice();
              auto.logLikelihoodHessian(th, h);
              glm.logLikelihoodHessian(th, h1);
              assert.deepEqual(h, h1, "∇²ℓ, one streamed block");
            } else {
              const b = f.name === "gaussian-scale"
                ? scaleCentringBounds(data, th)
                : centringBounds(
                  data,
                  f.aux === "trials" ? "binomial" : "poisson",
                  th,
                  1,
                  logGamma,
                  p.aux,
                );
              const bs = b.s + 4 * U * Math.abs(lp1);
              assert.ok(Math.abs(lp - lp1) <= bs, `log π: ${lp} vs ${lp1}, bound ${bs}`);
              worstSql = Math.max(worstSql, Math.abs(lp - lp1) / bs);
              for (let j = 0; j < P; j++) {
                const bj = b.a[j] + 4 * U * Math.abs(g1[j]);
                assert.ok(Math.abs(g[j] - g1[j]) <= bj, `∂${j}: ${g[j]} vs ${g1[j]}, bound ${bj}`);
                worstSql = Math.max(worstSql, Math.abs(g[j] - g1[j]) / bj);
              }
            }
            // Streamed in 256-row blocks: a streamed row store's sums, bit for bit, and
            // within the summation bound of memory's (docs/placement.md).
            const gs = new Float64Array(P), gr = new Float64Array(P);
            const lps = streamed.logDensityAndGradient(th, gs);
            assert.equal(lps, rowStore.logDensityAndGradient(th, gr), "log π = the row store's");
            assert.deepEqual(gs, gr, "∇ log π = the row store's");
            const hs = new Float64Array(P * P), hr = hs.slice();
            streamed.logLikelihoodHessian(th, hs);
            rowStore.logLikelihoodHessian(th, hr);
            assert.deepEqual(hs, hr, "∇²ℓ = the row store's");
            const abs = absoluteSums(glm, th);
            const kk = 2 * gammaN(N + 1 + Math.ceil(N / 256) + 1);
            const bs = kk * (abs.ll + Math.abs(prior));
            assert.ok(Math.abs(lps - lp1) <= bs, `streamed log π: ${lps} vs ${lp1}, bound ${bs}`);
            worstStream = Math.max(worstStream, Math.abs(lps - lp1) / bs);
            for (let j = 0; j < P; j++) {
              const bj = kk * (abs.grad[j] + Math.abs(pg[j]));
              assert.ok(Math.abs(gs[j] - g1[j]) <= bj, `streamed ∂${j}: ${gs[j]} vs ${g1[j]}`);
              worstStream = Math.max(worstStream, Math.abs(gs[j] - g1[j]) / bj);
            }
          }
          assertRowTermsEqual(auto, glm, p.theta);
          assertRowTermsEqual(streamed, glm, p.theta);
          // HMC-ECS: the per-row path with S, A, B from the rows' pass; memory's draws
          // to the rounding of the sums' order (as tests/models/family_placement_test.ts),
          // and the streamed row store's draws bit for bit.
          const want = sample(glm, ECS_MATRIX);
          const got = sample(auto, ECS_MATRIX);
          assert.equal(got.chains[0].stop, null);
          const gap = assertDrawsClose(got.draws, want.draws, "HMC-ECS draws");
          if (f.name === "negative-binomial + offset") {
            // The passes above equal the row store's bit for bit, and the per-row terms
            // are memory's: so are the draws (one family shows it, each run costs seconds).
            assert.deepEqual(
              sample(streamed, ECS_MATRIX).draws,
              sample(rowStore, ECS_MATRIX).draws,
              "HMC-ECS draws, streamed = the row store's",
            );
          }
          console.log(
            `  ${f.name} (${f.passes}): largest |Δ| / bound: SQL ${
              worstSql.toExponential(2)
            }, 256-row blocks ${worstStream.toExponential(2)}; HMC-ECS draw gap ${
              gap.toExponential(1)
            }`,
          );
        } finally {
          auto.close();
          streamed.close();
          rowStore.close();
          glm.dispose();
        }
      });
    }

    await t.step(
      "the user AssemblyScript family: streamed through the compiled family",
      async () => {
        const p = problem("logistic", 12);
        const aux = new Float64Array(N);
        const path = `${dir}/user.parquet`;
        await writeParquet(path, p.x, p.y, aux);
        const memory = await UserGlmModel.create(
          glmDataFromArrays(loadCore(), p.x, p.y, { numCols: D, columnNames: XCOLS }),
          { source: EXAMPLE_LOGISTIC_SOURCE },
        );
        const model = await defineModel({
          likelihood: { assemblyScript: EXAMPLE_LOGISTIC_SOURCE },
          rows: { database: await openMatrixRows(path, undefined) },
        }) as DatabaseGlmModel & PerRowHessianModel;
        try {
          assert.equal(model.passes, "stream");
          assert.equal(model.family, null);
          assert.deepEqual(model.parameterNames, XCOLS);
          for (const k of [0, 1, 2]) {
            const th = p.theta.map((v, j) => v + 0.07 * k * Math.sin(3 * j + k));
            const g = new Float64Array(D), g1 = new Float64Array(D);
            assert.equal(model.logDensityAndGradient(th, g), memory.logDensityAndGradient(th, g1));
            assert.deepEqual(g, g1);
            const h = new Float64Array(D * D), h1 = h.slice();
            model.logLikelihoodHessian(th, h);
            memory.logLikelihoodHessian(th, h1);
            assert.deepEqual(h, h1);
          }
          assertRowTermsEqual(model, memory, p.theta);
          const gap = assertDrawsClose(
            sample(model, ECS_MATRIX).draws,
            sample(memory, ECS_MATRIX).draws,
            "HMC-ECS draws",
          );
          console.log(`  user family: HMC-ECS draw gap ${gap.toExponential(1)}`);
        } finally {
          model.close();
          memory.dispose();
        }
      },
    );

    await t.step("errors name the family, the engine and what to do", async () => {
      const p = familyProblem("binomial", N, D, 9);
      const path = `${dir}/errors.parquet`;
      await writeParquet(path, p.x, p.y, p.aux);
      const cases: [
        Parameters<typeof defineModel>[0]["likelihood"],
        "offset" | "trials" | undefined,
        "auto" | "sql",
        RegExp,
      ][] = [
        [
          { family: "student-t", nu: 4 },
          undefined,
          "sql",
          /family "student-t" cannot be summed in DuckDB's SQL .*ψ.*passes: "auto" or "stream"/,
        ],
        [
          { assemblyScript: EXAMPLE_LOGISTIC_SOURCE },
          undefined,
          "sql",
          /AssemblyScript cannot be summed in DuckDB's SQL .*passes: "auto" or "stream"/,
        ],
        [
          { family: "binomial" },
          undefined,
          "auto",
          /"binomial" needs the number of trials: open .* with trials: "COLUMN"/,
        ],
        [
          { family: "logistic" },
          "offset",
          "auto",
          /column "a" is read as the offset, which family "logistic" does not take/,
        ],
        [
          { family: "binomial" },
          "offset",
          "auto",
          /which family "binomial" does not take \(it takes the trials\)/,
        ],
        [
          { assemblyScript: EXAMPLE_LOGISTIC_SOURCE },
          "trials",
          "auto",
          /column "a" is read as the trials, which a family written in AssemblyScript does not take/,
        ],
        [
          { family: "poisson", offset: p.aux },
          undefined,
          "auto",
          /"poisson" on SQL engine rows is not supported: the offset of a SQL engine's rows is a column of the table: open the source with offset: "COLUMN"/,
        ],
      ];
      for (const [likelihood, aux, passes, message] of cases) {
        const source = await openMatrixRows(path, aux, { passes });
        await assert.rejects(defineModel({ likelihood, rows: { database: source } }), message);
        assert.throws(() => source.fetchRows(new Float64Array([0]), new Float64Array(6)), /closed/);
      }
      await assert.rejects(
        openDuckDbRows({
          source: { parquet: path },
          key: "id",
          columns: XCOLS,
          response: "y",
          offset: "a",
          trials: "a",
        }),
        /an offset column or a trials column, not both/,
      );
      // A response outside the family's domain, met by a streamed pass: named.
      const y = p.y.slice();
      y[700] = 2.5;
      const badPath = `${dir}/bad.parquet`;
      await writeParquet(badPath, p.x, y, p.aux);
      const bad = await defineModel({
        likelihood: { family: "negative-binomial" },
        rows: { database: await openMatrixRows(badPath, undefined, { chunkRows: 100 }) },
      });
      try {
        assert.throws(
          () => bad.logDensity(new Float64Array(D + 1)),
          /Parquet read_parquet\(.*bad\.parquet'\) at duckdb: .*needs integer counts y ≥ 0; y = 2\.5 at row 701 \(in key order\)/,
        );
      } finally {
        bad.close();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
