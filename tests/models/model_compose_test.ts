/**
 * defineModel (models/compose.ts): each prior × likelihood × row source it
 * builds is the class built by hand, with the same seeded HMC and HMC-ECS
 * draws bit for bit; the combinations that do not exist are refused with an
 * error naming the likelihood and the row source.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { EXAMPLE_LOGISTIC_SOURCE } from "../../core/user_family.ts";
import { type GlmData, glmDataFromArrays } from "../../data/dataset.ts";
import { columnMoments } from "../../data/design.ts";
import { writeRowStoreFromGlmData } from "../../data/row_store.ts";
import {
  defineModel,
  RowFunctionHessianModel,
  type RowFunctionLikelihood,
  RowFunctionModel,
} from "../../models/compose.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import type { DataModel } from "../../models/model.ts";
import { buildPrior, defaultPriorSpec, type PriorSpec, withPrior } from "../../models/priors.ts";
import { ShardedGlmModel } from "../../models/sharded_glm.ts";
import { ThreadedGlmModel } from "../../models/threaded_glm.ts";
import { shardedUserGlmModel, UserGlmModel } from "../../models/user_glm.ts";
import { sample } from "../../samplers/sample.ts";
import { familyProblem } from "../_family_fixtures.ts";
import { _normal, _rng } from "../_core_fixtures.ts";

const N = 600, D = 3;
const NAMES = ["(Intercept)", "x1", "x2"];
const HMC = { sampler: "hmc", numWarmup: 40, numSamples: 20, numChains: 1, seed: 11 } as const;
const ECS = {
  sampler: "hmc-ecs",
  numWarmup: 30,
  numSamples: 20,
  numChains: 1,
  seed: 5,
  hessianFraction: 1,
} as const;

function logisticRows(seed: number) {
  const u = _rng(seed), x = new Float64Array(N * D), y = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    let eta = 0;
    for (let j = 0; j < D; j++) {
      x[i * D + j] = j === 0 ? 1 : 0.5 + 2 * _normal(u);
      eta += x[i * D + j] * [0.3, -0.5, 0.4][j];
    }
    y[i] = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  return { x, y };
}

/** The prior the CLI puts on a GLM for a spec: its defaults scaled by the columns' sds. */
function cliPrior(
  model: { parameterNames: readonly string[]; data: GlmData },
  numCols: number,
  spec: PriorSpec,
  family?: string,
) {
  const data = model.data;
  const m = columnMoments(data), columnSd: Record<string, number> = {};
  data.columnNames.forEach((n, j) => (columnSd[n] = m.columnSd[j]));
  const defaults = defaultPriorSpec(data.columnNames, {
    ...(family === undefined ? {} : { family }),
    columnSd,
    responseMean: m.responseMean,
    responseSd: m.responseSd,
  });
  const kinds: Record<string, "coefficient"> = {};
  for (const n of model.parameterNames.slice(0, numCols)) {
    if (n !== "(Intercept)") kinds[n] = "coefficient";
  }
  return buildPrior(model.parameterNames, spec, { defaults, kinds });
}

/** Seeded HMC and HMC-ECS draws of both models are the same, bit for bit. */
function sameDraws(a: DataModel, b: DataModel, ecs = true) {
  assert.deepEqual(sample(a, HMC).draws, sample(b, HMC).draws, "HMC draws");
  if (ecs) assert.deepEqual(sample(a, ECS).draws, sample(b, ECS).draws, "HMC-ECS draws");
}

const SPEC: PriorSpec = { coefficients: "student_t(4, 0, 2)", intercept: "normal(0, 5)" };

Deno.test("defineModel: each combination is the class built by hand, with the same seeded HMC and HMC-ECS draws", async (t) => {
  const arena = loadCore({ shared: true });
  const p = logisticRows(1);
  const data = glmDataFromArrays(arena, p.x, p.y, { numCols: D, columnNames: NAMES });
  const dir = await Deno.makeTempDir();
  const store = `${dir}/logistic.rows`;
  await writeRowStoreFromGlmData(store, data);
  try {
    await t.step("GLM × memory, the GLM's own prior (default and priorScale)", async () => {
      const m = await defineModel({ likelihood: { family: "logistic" }, rows: data });
      assert.ok(m instanceof GlmModel);
      sameDraws(m, new GlmModel(data, { family: "logistic" }));
      const m5 = await defineModel({
        prior: { priorScale: 5 },
        likelihood: { family: "logistic" },
        rows: data,
      });
      sameDraws(m5, new GlmModel(data, { family: "logistic", priorScale: 5 }));
    });

    await t.step("GLM × memory, a prior spec over the CLI's defaults", async () => {
      const m = await defineModel({ prior: SPEC, likelihood: { family: "logistic" }, rows: data });
      assert.ok(m instanceof GlmModel);
      const glm = new GlmModel(data, { family: "logistic" });
      const byHand = withPrior(glm, cliPrior(glm, D, SPEC, "logistic"));
      assert.deepEqual(
        (m as unknown as { prior: { describe(): string[] } }).prior.describe(),
        byHand.prior.describe(),
      );
      sameDraws(m, byHand);
    });

    await t.step("GLM with σ × memory (per-row control variates), a spec on σ", async () => {
      const q = familyProblem("gaussian-scale", N, D, 5);
      const d2 = glmDataFromArrays(loadCore(), q.x, q.y, { numCols: D, columnNames: NAMES });
      const spec: PriorSpec = { scales: { sigma: "half_normal(2)" } };
      const m = await defineModel({
        prior: spec,
        likelihood: { family: "gaussian-scale" },
        rows: d2,
      });
      const glm = new GlmModel(d2, { family: "gaussian-scale" });
      sameDraws(m, withPrior(glm, cliPrior(glm, D, spec, "gaussian")));
    });

    await t.step("GLM × threads", async () => {
      const m = await defineModel({
        prior: SPEC,
        likelihood: { family: "logistic" },
        rows: { data, threads: 2 },
      });
      const glm = new GlmModel(data, { family: "logistic" });
      const byHand = await ThreadedGlmModel.create(
        withPrior(glm, cliPrior(glm, D, SPEC, "logistic")),
        {
          threads: 2,
        },
      );
      try {
        assert.ok(m instanceof ThreadedGlmModel);
        assert.equal(m.threads, 2);
        sameDraws(m, byHand);
      } finally {
        (m as ThreadedGlmModel).close();
        byHand.close();
      }
    });

    await t.step("GLM × shards in memory", async () => {
      const m = await defineModel({
        likelihood: { family: "logistic" },
        rows: { data, shards: 2 },
      });
      const byHand = await ShardedGlmModel.create(data, { family: "logistic" }, { workers: 2 });
      try {
        assert.ok(m instanceof ShardedGlmModel);
        assert.equal(m.shardKind, "memory");
        sameDraws(m, byHand);
      } finally {
        (m as ShardedGlmModel).close();
        byHand.close();
      }
    });

    await t.step("GLM × streamed row store, a prior spec", async () => {
      const m = await defineModel({
        prior: { coefficients: "normal(0, 3)", intercept: "normal(0, 10)" },
        likelihood: { family: "logistic" },
        rows: { rowStore: store, shards: 2, stream: true, chunkRows: 128 },
      });
      const sharded = await ShardedGlmModel.create(store, { family: "logistic" }, {
        workers: 2,
        shardKind: "stream",
        chunkRows: 128,
      });
      const byHand = withPrior(sharded, {
        coefficients: "normal(0, 3)",
        intercept: "normal(0, 10)",
      });
      try {
        assert.ok(m instanceof ShardedGlmModel);
        assert.equal(m.shardKind, "stream");
        sameDraws(m, byHand);
      } finally {
        (m as ShardedGlmModel).close();
        sharded.close();
      }
    });

    await t.step("an AssemblyScript family × memory", async () => {
      const own = glmDataFromArrays(loadCore(), p.x, p.y, { numCols: D, columnNames: NAMES });
      const m = await defineModel({
        prior: { priorScale: 4 },
        likelihood: { assemblyScript: EXAMPLE_LOGISTIC_SOURCE },
        rows: own,
      });
      assert.ok(m instanceof UserGlmModel);
      const byHand = await UserGlmModel.create(own, {
        source: EXAMPLE_LOGISTIC_SOURCE,
        priorScale: 4,
      });
      sameDraws(m, byHand);
      // A prior spec: withPrior over the CLI's defaults (columns' sds), every parameter a column.
      const withSpec = await defineModel({
        prior: SPEC,
        likelihood: { assemblyScript: EXAMPLE_LOGISTIC_SOURCE },
        rows: own,
      });
      // withPrior replaces the model's own prior whole (priorScale 4 plays no part).
      sameDraws(withSpec, withPrior(byHand, cliPrior(byHand, D, SPEC)));
    });

    await t.step(
      "an AssemblyScript family × shards in memory (a spec) and × a streamed row store",
      async () => {
        const as = { assemblyScript: EXAMPLE_LOGISTIC_SOURCE };
        const m = await defineModel({ prior: SPEC, likelihood: as, rows: { data, shards: 2 } });
        const sharded = await shardedUserGlmModel(data, { source: EXAMPLE_LOGISTIC_SOURCE }, {
          workers: 2,
        });
        const s = await defineModel({
          prior: { priorScale: 4 },
          likelihood: as,
          rows: { rowStore: store, shards: 2, stream: true, chunkRows: 128 },
        });
        const streamed = await shardedUserGlmModel(store, {
          source: EXAMPLE_LOGISTIC_SOURCE,
          priorScale: 4,
        }, { workers: 2, shardKind: "stream", chunkRows: 128 });
        try {
          assert.ok(m instanceof ShardedGlmModel && s instanceof ShardedGlmModel);
          assert.equal(m.family, null);
          assert.equal(s.shardKind, "stream");
          // The spec over the CLI's defaults, scaled by the columns' sds of the data in memory.
          sameDraws(
            m,
            withPrior(sharded, cliPrior({ parameterNames: sharded.parameterNames, data }, D, SPEC)),
          );
          sameDraws(s, streamed);
        } finally {
          (m as ShardedGlmModel).close();
          (s as ShardedGlmModel).close();
          sharded.close();
          streamed.close();
        }
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Logistic regression as a TypeScript per-row likelihood over the arrays `x`, `y`. */
function logisticRowFunction(
  x: Float64Array,
  y: Float64Array,
  withHessian: boolean,
): RowFunctionLikelihood {
  const eta = (th: Float64Array, i: number) => {
    let e = 0;
    for (let j = 0; j < D; j++) e += x[i * D + j] * th[j];
    return e;
  };
  return {
    parameterNames: NAMES,
    logLikRow(th, i, grad) {
      const e = eta(th, i), s = 1 / (1 + Math.exp(-e));
      if (grad) { for (let j = 0; j < D; j++) grad[j] = (y[i] - s) * x[i * D + j]; }
      return y[i] * e - Math.log1p(Math.exp(e));
    },
    ...(withHessian
      ? {
        hessianRow(th: Float64Array, i: number, out: Float64Array) {
          const s = 1 / (1 + Math.exp(-eta(th, i))), w = s * (1 - s);
          for (let a = 0; a < D; a++) {
            for (let b = 0; b < D; b++) out[a * D + b] = -w * x[i * D + a] * x[i * D + b];
          }
        },
      }
      : {}),
  };
}

Deno.test("defineModel: a TypeScript per-row likelihood is the GLM's posterior, its draws those of the class", async () => {
  const p = logisticRows(2);
  const data = glmDataFromArrays(loadCore(), p.x, p.y, { numCols: D, columnNames: NAMES });
  const spec: PriorSpec = { coefficients: "normal(0, 2.5)", intercept: "normal(0, 10)" };
  const glm = withPrior(new GlmModel(data, { family: "logistic" }), spec);
  const prior = buildPrior(NAMES, spec);
  for (const withHessian of [true, false]) {
    const lik = logisticRowFunction(p.x, p.y, withHessian);
    const m = await defineModel({ prior: spec, likelihood: lik, rows: { count: N } });
    assert.ok(m instanceof (withHessian ? RowFunctionHessianModel : RowFunctionModel));
    assert.equal("perRowHessians" in m, withHessian);
    const th = new Float64Array([0.2, -0.4, 0.5]);
    const g = new Float64Array(D), g1 = new Float64Array(D);
    const lp = m.logDensityAndGradient(th, g), lp1 = glm.logDensityAndGradient(th, g1);
    assert.ok(Math.abs(lp - lp1) <= 1e-10 * Math.abs(lp1), `log π ${lp} vs ${lp1}`);
    g.forEach((v, j) => assert.ok(Math.abs(v - g1[j]) <= 1e-9 * (1 + Math.abs(g1[j]))));
    const h = new Float64Array(D * D), h1 = new Float64Array(D * D);
    (m as DataModel).logLikelihoodHessian(th, h);
    glm.logLikelihoodHessian(th, h1);
    // Exact with hessianRow; a central difference (error O(h²) ≈ 1e-10 relative) without.
    h.forEach((v, k) => assert.ok(Math.abs(v - h1[k]) <= 1e-6 * (1 + Math.abs(h1[k])), `H${k}`));
    const Cls = withHessian ? RowFunctionHessianModel : RowFunctionModel;
    sameDraws(m as DataModel, new Cls(lik, N, prior));
  }
});

Deno.test("defineModel refuses a combination that does not exist, naming the likelihood and the rows", async () => {
  const arena = loadCore({ shared: true });
  const p = logisticRows(3);
  const data: GlmData = glmDataFromArrays(arena, p.x, p.y, { numCols: D, columnNames: NAMES });
  const as = { assemblyScript: EXAMPLE_LOGISTIC_SOURCE };
  const fn = logisticRowFunction(p.x, p.y, false);
  const glm: GlmOptions = { family: "logistic" };
  const cases: [Parameters<typeof defineModel>[0], RegExp][] = [
    [{ likelihood: as, rows: { rowStore: 42 } as never }, /rows.rowStore must be a file path/],
    [{ likelihood: as, rows: { count: 5 } }, /AssemblyScript family on \{ count \} rows/],
    [{ likelihood: glm, rows: { count: 5 } }, /GLM family "logistic" on \{ count \} rows/],
    [{ likelihood: fn, rows: data }, /TypeScript per-row likelihood on rows in memory/],
    [{ likelihood: fn, rows: { data, threads: 2 } }, /TypeScript per-row likelihood on threads/],
    [
      { likelihood: glm, rows: { sql: "SELECT * FROM t" } },
      /GLM family "logistic" on SQL engine rows is not supported: .*engines\/duckdb\.ts/,
    ],
    [{ likelihood: { famly: "logistic" } as never, rows: data }, /likelihood must be/],
    [
      { likelihood: { family: "logistic", priorScale: 5 } as never, rows: data },
      /give it in prior/,
    ],
    [{ likelihood: glm, rows: { path: "x" } as never }, /rows must be a data set/],
    [{ likelihood: glm, rows: { count: 0 } }, /rows.count must be a positive integer/],
    [
      {
        prior: { priorScale: 2, coefficients: "normal(0, 1)" } as never,
        likelihood: glm,
        rows: data,
      },
      /either a prior spec .* or GLM prior settings/,
    ],
    [{ prior: { scale: 2 } as never, likelihood: glm, rows: data }, /prior: unknown key "scale"/],
    [{ prior: { priorScale: 2 }, likelihood: fn, rows: { count: N } }, /not GLM prior settings/],
  ];
  for (const [definition, message] of cases) {
    await assert.rejects(defineModel(definition), message, JSON.stringify(Object.keys(definition)));
  }
});
