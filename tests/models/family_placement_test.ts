/**
 * The family × placement matrix: every GLM family on every place its rows can
 * live — one arena of its own ("memory"), threads over one shared memory
 * ("threads", ThreadedGlmModel), worker shards holding their rows ("shards",
 * ShardedGlmModel "memory") and worker shards streaming a row store
 * ("stream", ShardedGlmModel "stream") — against the reference, a GlmModel
 * over the same rows in the shared memory the threads read.
 *
 * The bound: a placement computes the same per-row terms tᵢ (the same
 * arithmetic per row) and adds them in another order (blocks, shards, chunks).
 * Every summation order of N numbers is within γ_{N−1}·Σ|tᵢ| of the exact sum,
 * γₖ = ku/(1 − ku), u = 2⁻⁵³ (Higham 2002, §4.2); so two orders differ by at
 * most 2γ_N·Σ|tᵢ|. The log posterior adds log p(θ) as one more term, so with
 * N = n + W + 1 (n rows, W partial sums, the prior)
 *
 *   |Δ log π| ≤ 2γ_N·(Σᵢ|ℓᵢ| + |log p(θ)|),  |Δ ∂ⱼ log π| ≤ 2γ_N·(Σᵢ|∂ⱼℓᵢ| + |∂ⱼ log p|).
 *
 * Where a placement keeps the summation order (one thread, one shard, one
 * streamed block) the values are bit-identical, and so are the draws of a
 * seeded HMC and HMC-ECS run; a subsample's per-row terms are bit-identical
 * on every layout. A cell that does not run is listed in REFUSALS (the model
 * cannot be built) with its error message, so a change in what runs where
 * fails here; ECS_ROUNDING lists the HMC-ECS cells whose centring sums are
 * added in another order even on one block. docs/placement.md has
 * the matrix.
 *
 * The user AssemblyScript family has its own test below (a UserGlmModel is
 * its reference, and each placement compiles or instantiates the module).
 */
import assert from "node:assert/strict";
import type { Arena } from "../../core/arena.ts";
import { loadCore } from "../../core/load.ts";
import { dataViews } from "../../core/row_buffer.ts";
import { EXAMPLE_LOGISTIC_SOURCE } from "../../core/user_family.ts";
import { type GlmData, glmDataFromArrays } from "../../data/dataset.ts";
import { writeRowStoreFromGlmData } from "../../data/row_store_write.ts";
import { defineModel } from "../../models/compose.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import type { DataModel, PerRowHessianModel } from "../../models/model.ts";
import { ShardedGlmModel } from "../../models/sharded_glm.ts";
import { ThreadedGlmModel } from "../../models/threaded_glm.ts";
import { UserGlmModel } from "../../models/user_glm.ts";
import { sample } from "../../samplers/sample.ts";
import { familyProblem } from "../_family_fixtures.ts";
import { _normal, _rng } from "../_core_fixtures.ts";

const U = 2 ** -53;
const gamma = (k: number) => (k * U) / (1 - k * U);

const N = 1501, D = 4;

interface Family {
  name: string;
  options: (aux: Float64Array) => GlmOptions;
  /** What the row store's aux column holds ("offset" or "trials"), if any. */
  auxName?: string;
  make: () => { x: Float64Array; y: Float64Array; aux: Float64Array; theta: Float64Array };
}

/** Compact families' data: X with an intercept, y from the family at β. */
function compactProblem(family: "logistic" | "gaussian" | "poisson", seed: number) {
  const u = _rng(seed), x = new Float64Array(N * D), y = new Float64Array(N);
  const beta = [0.3, -0.5, 0.4, 0.2];
  for (let i = 0; i < N; i++) {
    let eta = 0;
    for (let j = 0; j < D; j++) {
      x[i * D + j] = j === 0 ? 1 : _normal(u) / Math.sqrt(D);
      eta += x[i * D + j] * beta[j];
    }
    if (family === "logistic") y[i] = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    else if (family === "gaussian") y[i] = eta + 0.8 * _normal(u);
    else {
      let k = 0, p = u();
      while (p > Math.exp(-Math.exp(eta))) {
        k++;
        p *= u();
      }
      y[i] = k;
    }
  }
  return { x, y, aux: new Float64Array(N), theta: Float64Array.from(beta, (b) => b + 0.05) };
}

const FAMILIES: Family[] = [
  {
    name: "logistic",
    options: () => ({ family: "logistic" }),
    make: () => compactProblem("logistic", 1),
  },
  {
    name: "gaussian",
    options: () => ({ family: "gaussian", sigma: 0.8 }),
    make: () => compactProblem("gaussian", 2),
  },
  {
    name: "poisson",
    options: () => ({ family: "poisson" }),
    make: () => compactProblem("poisson", 3),
  },
  {
    name: "poisson + offset",
    options: (aux) => ({ family: "poisson", offset: aux }),
    auxName: "offset",
    make: () => familyProblem("poisson-offset", N, D, 4),
  },
  {
    name: "gaussian-scale",
    options: () => ({ family: "gaussian-scale", scalePrior: "half_normal(2)" }),
    make: () => familyProblem("gaussian-scale", N, D, 5),
  },
  {
    name: "student-t",
    options: () => ({ family: "student-t", nu: 3.5 }),
    make: () => familyProblem("student-t", N, D, 6),
  },
  {
    name: "student-t, ν sampled",
    options: () => ({ family: "student-t", nu: "sample" }),
    make: () => {
      const p = familyProblem("student-t", N, D, 7);
      return { ...p, theta: Float64Array.from([...p.theta, Math.log(2.5)]) };
    },
  },
  {
    name: "negative-binomial + offset",
    options: (aux) => ({ family: "negative-binomial", offset: aux }),
    auxName: "offset",
    make: () => familyProblem("negative-binomial", N, D, 8),
  },
  {
    name: "binomial",
    options: (aux) => ({ family: "binomial", trials: aux }),
    auxName: "trials",
    make: () => familyProblem("binomial", N, D, 9),
  },
];

type Placement = "memory" | "threads" | "shards" | "stream";
const PLACEMENTS: Placement[] = ["memory", "threads", "shards", "stream"];

/** Cells that refuse today: family → placement → the error message (a substring). */
const REFUSALS: Record<string, Partial<Record<Placement, RegExp>>> = {};

interface Built {
  model: DataModel;
  /** Partial sums added after the per-row terms (threads, shards, streamed blocks). */
  parts: number;
  close(): void;
}

async function place(
  where: Placement,
  glm: GlmModel,
  data: GlmData,
  store: string,
  f: Family,
  aux: Float64Array,
  split: boolean,
): Promise<Built> {
  const W = split ? 2 : 1;
  if (where === "memory") {
    // The reference's rows lie in a shared memory (threads need it); the same
    // rows in an arena of their own are the plain in-memory model.
    const own = glmDataFromArrays(loadCore(), dataViews(data).x, dataViews(data).y, {
      numCols: data.numCols,
    });
    const m = new GlmModel(own, f.options(aux));
    return { model: m, parts: 1, close: () => m.dispose() };
  }
  if (where === "threads") {
    const m = await ThreadedGlmModel.create(glm, { threads: W });
    return { model: m, parts: W, close: () => m.close() };
  }
  const options = f.options(aux);
  const storeOptions = { ...options };
  delete storeOptions.offset;
  delete storeOptions.trials;
  if (where === "shards") {
    // Memory shards from arrays (the options carry the per-row column) on
    // one shard, loaded from the row store (its aux column) on two.
    const m = split
      ? await ShardedGlmModel.create(store, storeOptions, { shardKind: "memory", workers: W })
      : await ShardedGlmModel.create(data, options, { shardKind: "memory", workers: W });
    return { model: m, parts: W, close: () => m.close() };
  }
  const chunkRows = split ? 256 : N;
  const m = await ShardedGlmModel.create(store, storeOptions, {
    shardKind: "stream",
    workers: W,
    chunkRows,
  });
  return { model: m, parts: W + Math.ceil(N / chunkRows), close: () => m.close() };
}

/** Σᵢ|ℓᵢ| and Σᵢ|∂ⱼℓᵢ| at θ from the in-memory model's per-row terms. */
function absoluteSums(glm: GlmModel, theta: Float64Array) {
  const n = glm.numRows, P = glm.dim;
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const perRow = new Float64Array(n), g = new Float64Array(n * P);
  glm.logLikelihoodRows(theta, all, { perRow });
  glm.perRowGradients(theta, all, g);
  const grad = new Float64Array(P);
  for (let i = 0; i < n; i++) for (let j = 0; j < P; j++) grad[j] += Math.abs(g[i * P + j]);
  return { ll: perRow.reduce((s, v) => s + Math.abs(v), 0), grad };
}

function thetas(theta0: Float64Array): Float64Array[] {
  return [0, 1, 2].map((k) => theta0.map((v, j) => v + 0.07 * k * Math.sin(3 * j + k)));
}

/**
 * HMC-ECS cells whose centring sums S, A, B are not the in-memory model's bits:
 * rows outside this instance (shards, stream) of a family without the compact
 * cache take the per-row path with S, A, B from the rows' own pass (the
 * family's fused kernel sums), where the in-memory model adds its per-row
 * terms in TypeScript. Both are sums of the same n per-row terms in another
 * order (the bound above), and the per-row terms of a subsample are the same
 * bits; so a short seeded run's draws agree to the rounding such a
 * difference leaves: |Δ| ≤ 1e-9·max(1, |draw|) for every draw, on one block
 * and on two.
 */
const ECS_ROUNDING: Record<string, Partial<Record<Placement, true>>> = Object.fromEntries(
  [
    "poisson + offset",
    "gaussian-scale",
    "student-t",
    "student-t, ν sampled",
    "negative-binomial + offset",
    "binomial",
  ].map((f) => [f, { shards: true, stream: true }]),
);

/** Every draw of `got` within 1e-9·max(1, |want|) of `want`'s. */
function assertDrawsClose(got: Float64Array[][], want: Float64Array[][], what: string): void {
  assert.equal(got.length, want.length);
  for (let c = 0; c < got.length; c++) {
    assert.equal(got[c].length, want[c].length);
    for (let j = 0; j < got[c].length; j++) {
      for (let i = 0; i < want[c][j].length; i++) {
        const a = got[c][j][i], b = want[c][j][i];
        assert.ok(
          Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)),
          `${what}: chain ${c}, parameter ${j}, draw ${i}: ${a} vs ${b}`,
        );
      }
    }
  }
}

const ECS = {
  sampler: "hmc-ecs",
  numWarmup: 30,
  numSamples: 20,
  numChains: 1,
  seed: 5,
  hessianFraction: 1,
} as const;

const HMC = { sampler: "hmc", numWarmup: 40, numSamples: 20, numChains: 1, seed: 11 } as const;

Deno.test("family × placement: log π, ∇ log π, subsample terms and seeded HMC / HMC-ECS draws against memory", async (t) => {
  const arena: Arena = loadCore({ shared: true });
  const dir = await Deno.makeTempDir();
  try {
    for (const f of FAMILIES) {
      const p = f.make();
      const data = glmDataFromArrays(arena, p.x, p.y, { numCols: D });
      const glm = new GlmModel(data, f.options(p.aux));
      const P = glm.dim;
      const store = `${dir}/${f.name.replace(/[^a-z]/g, "_")}.rows`;
      await writeRowStoreFromGlmData(
        store,
        data,
        f.auxName ? { aux: p.aux, auxName: f.auxName } : {},
      );
      const ref = thetas(p.theta).map((th) => {
        const g = new Float64Array(P), pg = new Float64Array(P);
        const lp = glm.logDensityAndGradient(th, g);
        const prior = glm.logPrior(th, pg);
        return { th, lp, g, prior, pg, abs: absoluteSums(glm, th) };
      });
      const want = sample(glm, HMC), wantEcs = sample(glm, ECS);
      for (const where of PLACEMENTS) {
        await t.step(`${f.name} × ${where}`, async () => {
          const refusal = REFUSALS[f.name]?.[where];
          if (refusal !== undefined) {
            await assert.rejects(place(where, glm, data, store, f, p.aux, true), refusal);
            return;
          }
          for (const split of where === "memory" ? [false] : [false, true]) {
            const built = await place(where, glm, data, store, f, p.aux, split);
            try {
              const m = built.model;
              assert.equal(m.dim, P);
              assert.deepEqual(m.parameterNames, glm.parameterNames);
              const k = 2 * gamma(N + built.parts + 1);
              for (const r of ref) {
                const g = new Float64Array(P);
                const lp = m.logDensityAndGradient(r.th, g);
                if (!split) {
                  assert.equal(lp, r.lp, "log π, one block");
                  assert.deepEqual(g, r.g, "∇ log π, one block");
                  continue;
                }
                const b = k * (r.abs.ll + Math.abs(r.prior));
                assert.ok(Math.abs(lp - r.lp) <= b, `log π: ${lp} vs ${r.lp}, bound ${b}`);
                for (let j = 0; j < P; j++) {
                  const bj = k * (r.abs.grad[j] + Math.abs(r.pg[j]));
                  assert.ok(
                    Math.abs(g[j] - r.g[j]) <= bj,
                    `∂${j} log π: ${g[j]} vs ${r.g[j]}, bound ${bj}`,
                  );
                }
              }
              if (ECS_ROUNDING[f.name]?.[where]) {
                assertDrawsClose(sample(m, ECS).draws, wantEcs.draws, "HMC-ECS draws");
              }
              if (!split) {
                assert.deepEqual(sample(m, HMC).draws, want.draws, "HMC draws");
                if (!ECS_ROUNDING[f.name]?.[where]) {
                  assert.deepEqual(sample(m, ECS).draws, wantEcs.draws, "HMC-ECS draws");
                }
              }
              // A subsample (repeats, any order): the same per-row terms, bit for bit.
              const rows = Int32Array.from({ length: 300 }, (_, k) => (k * 613 + 5) % N);
              const th = ref[1].th;
              const per = new Float64Array(rows.length), per1 = new Float64Array(rows.length);
              const gr = new Float64Array(rows.length * P), gr1 = new Float64Array(rows.length * P);
              m.logLikelihoodRows(th, rows, { perRow: per });
              glm.logLikelihoodRows(th, rows, { perRow: per1 });
              m.perRowGradients(th, rows, gr);
              glm.perRowGradients(th, rows, gr1);
              assert.deepEqual(per, per1, "ℓᵢ of a subsample");
              assert.deepEqual(gr, gr1, "∇ℓᵢ of a subsample");
              const hm = m as Partial<PerRowHessianModel>;
              if (typeof hm.perRowHessians === "function") {
                const h = new Float64Array(rows.length * P * P), h1 = h.slice();
                hm.perRowHessians(th, rows, h);
                glm.perRowHessians(th, rows, h1);
                assert.deepEqual(h, h1, "∇²ℓᵢ of a subsample");
              }
            } finally {
              built.close();
            }
          }
        });
      }
      glm.dispose();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * The user AssemblyScript family (the example logistic source) on every
 * placement, built by defineModel, against a UserGlmModel over a copy of the
 * rows in an arena of its own ("memory"). The same claims as the GLM cells:
 * log π, ∇ log π and ∇²ℓ bit-identical on one block, within the summation
 * bound on two; a subsample's per-row ℓᵢ, ∇ℓᵢ and ∇²ℓᵢ bit-identical; seeded
 * HMC draws on one block memory's; HMC-ECS draws memory's on one thread and
 * within 1e-9·max(1, |draw|) on shards and streams (rows outside this
 * instance take the per-row path with S, A, B from the shards' pass, which
 * adds the same per-row terms in another order: as ECS_ROUNDING).
 */
Deno.test("family × placement: the user AssemblyScript family on memory / threads / shards / stream against memory", async (t) => {
  const p = FAMILIES[0].make();
  const as = { assemblyScript: EXAMPLE_LOGISTIC_SOURCE };
  const memory = await UserGlmModel.create(
    glmDataFromArrays(loadCore(), p.x, p.y, { numCols: D }),
    { source: EXAMPLE_LOGISTIC_SOURCE },
  );
  const data = glmDataFromArrays(loadCore({ shared: true }), p.x, p.y, { numCols: D });
  const dir = await Deno.makeTempDir();
  const store = `${dir}/user.rows`;
  await writeRowStoreFromGlmData(store, data);
  const all = Int32Array.from({ length: N }, (_, i) => i);
  const ref = thetas(p.theta).map((th) => {
    const g = new Float64Array(D), pg = new Float64Array(D), h = new Float64Array(D * D);
    const lp = memory.logDensityAndGradient(th, g);
    const prior = memory.logPrior(th, pg);
    memory.logLikelihoodHessian(th, h);
    // Σᵢ|tᵢ| of every per-row term: ℓᵢ, ∂ⱼℓᵢ, ∂ⱼ∂ₖℓᵢ.
    const per = new Float64Array(N), gr = new Float64Array(N * D), hr = new Float64Array(N * D * D);
    memory.logLikelihoodRows(th, all, { perRow: per });
    memory.perRowGradients(th, all, gr);
    memory.perRowHessians(th, all, hr);
    const absGrad = new Float64Array(D), absHess = new Float64Array(D * D);
    for (let i = 0; i < N; i++) {
      for (let j = 0; j < D; j++) absGrad[j] += Math.abs(gr[i * D + j]);
      for (let c = 0; c < D * D; c++) absHess[c] += Math.abs(hr[i * D * D + c]);
    }
    const absLl = per.reduce((s, v) => s + Math.abs(v), 0);
    return { th, lp, g, h, prior, pg, absLl, absGrad, absHess };
  });
  const want = sample(memory, HMC), wantEcs = sample(memory, ECS);
  const build = async (where: Placement, split: boolean) => {
    const W = split ? 2 : 1;
    const rows = where === "memory"
      ? glmDataFromArrays(loadCore(), p.x, p.y, { numCols: D })
      : where === "threads"
      ? { data, threads: W }
      : where === "shards"
      // One memory shard from the data set in memory, two loaded from the row store.
      ? (split ? { rowStore: store, shards: W } : { data, shards: W })
      : { rowStore: store, shards: W, stream: true, chunkRows: split ? 256 : N };
    const m = await defineModel({ likelihood: as, rows });
    const parts = where === "memory"
      ? 1
      : where === "stream"
      ? W + Math.ceil(N / (split ? 256 : N))
      : W;
    const close = () => {
      if (m instanceof ThreadedGlmModel) {
        m.close();
        (m.base as UserGlmModel).dispose();
      } else if (m instanceof ShardedGlmModel) m.close();
      else (m as UserGlmModel).dispose();
    };
    return { model: m as DataModel, parts, close };
  };
  /** The largest |Δ|/bound over the split cells, and the largest relative HMC-ECS draw difference. */
  const worst = { ratio: 0, ecs: 0 };
  const within = (got: number, want: number, bound: number, what: string) => {
    assert.ok(Math.abs(got - want) <= bound, `${what}: ${got} vs ${want}, bound ${bound}`);
    if (bound > 0) worst.ratio = Math.max(worst.ratio, Math.abs(got - want) / bound);
  };
  try {
    for (const where of PLACEMENTS) {
      await t.step(`user family × ${where}`, async () => {
        for (const split of where === "memory" ? [false] : [false, true]) {
          const built = await build(where, split);
          try {
            const m = built.model;
            assert.equal(m.dim, D);
            assert.deepEqual(m.parameterNames, memory.parameterNames);
            const k = 2 * gamma(N + built.parts + 1);
            for (const r of ref) {
              const g = new Float64Array(D), h = new Float64Array(D * D);
              const lp = m.logDensityAndGradient(r.th, g);
              m.logLikelihoodHessian(r.th, h);
              if (!split) {
                assert.equal(lp, r.lp, "log π, one block");
                assert.deepEqual(g, r.g, "∇ log π, one block");
                assert.deepEqual(h, r.h, "∇²ℓ, one block");
                continue;
              }
              within(lp, r.lp, k * (r.absLl + Math.abs(r.prior)), "log π");
              for (let j = 0; j < D; j++) {
                within(g[j], r.g[j], k * (r.absGrad[j] + Math.abs(r.pg[j])), `∂${j} log π`);
              }
              for (let c = 0; c < D * D; c++) within(h[c], r.h[c], k * r.absHess[c], `H[${c}]`);
            }
            const outside = where === "shards" || where === "stream";
            if (outside) {
              const got = sample(m, ECS).draws;
              assertDrawsClose(got, wantEcs.draws, "HMC-ECS draws");
              got[0].forEach((draws, j) =>
                draws.forEach((v, i) => {
                  const w = wantEcs.draws[0][j][i];
                  worst.ecs = Math.max(worst.ecs, Math.abs(v - w) / Math.max(1, Math.abs(w)));
                })
              );
            }
            if (!split) {
              assert.deepEqual(sample(m, HMC).draws, want.draws, "HMC draws");
              if (!outside) assert.deepEqual(sample(m, ECS).draws, wantEcs.draws, "HMC-ECS draws");
            }
            // A subsample (repeats, any order): the same per-row terms, bit for bit.
            const rows = Int32Array.from({ length: 300 }, (_, k) => (k * 613 + 5) % N);
            const th = ref[1].th;
            const per = new Float64Array(rows.length), per1 = new Float64Array(rows.length);
            const gr = new Float64Array(rows.length * D), gr1 = new Float64Array(rows.length * D);
            m.logLikelihoodRows(th, rows, { perRow: per });
            memory.logLikelihoodRows(th, rows, { perRow: per1 });
            m.perRowGradients(th, rows, gr);
            memory.perRowGradients(th, rows, gr1);
            assert.deepEqual(per, per1, "ℓᵢ of a subsample");
            assert.deepEqual(gr, gr1, "∇ℓᵢ of a subsample");
            const hm = m as Partial<PerRowHessianModel>;
            if (typeof hm.perRowHessians === "function") {
              const h = new Float64Array(rows.length * D * D), h1 = h.slice();
              hm.perRowHessians(th, rows, h);
              memory.perRowHessians(th, rows, h1);
              assert.deepEqual(h, h1, "∇²ℓᵢ of a subsample");
            }
          } finally {
            built.close();
          }
        }
      });
    }
    console.log(
      `user family, split layouts: largest |Δ| ${worst.ratio.toExponential(2)} of its bound; ` +
        `HMC-ECS on shards and streams: largest relative draw difference ${
          worst.ecs.toExponential(2)
        }`,
    );
    await t.step("user family × stream of an f32 row store: the cells widen exactly", async () => {
      const f32 = glmDataFromArrays(loadCore(), p.x, p.y, { numCols: D, storage: "f32" });
      const path = `${dir}/user_f32.rows`;
      await writeRowStoreFromGlmData(path, f32);
      const widened = await UserGlmModel.create(
        glmDataFromArrays(loadCore(), Float64Array.from(Float32Array.from(p.x)), p.y, {
          numCols: D,
        }),
        { source: EXAMPLE_LOGISTIC_SOURCE },
      );
      const m = await defineModel({
        likelihood: as,
        rows: { rowStore: path, stream: true, shards: 1 },
      });
      try {
        assert.ok(m instanceof ShardedGlmModel && m.storage === "f32" && m.family === null);
        for (const r of ref) {
          const g = new Float64Array(D), g1 = new Float64Array(D);
          assert.equal(m.logDensityAndGradient(r.th, g), widened.logDensityAndGradient(r.th, g1));
          assert.deepEqual(g, g1);
        }
      } finally {
        (m as ShardedGlmModel).close();
        widened.dispose();
      }
    });
    await t.step(
      "user family × a row store with an offset or trials column: refused, naming the file",
      async () => {
        const path = `${dir}/user_aux.rows`;
        await writeRowStoreFromGlmData(path, data, {
          aux: new Float64Array(N).fill(1),
          auxName: "trials",
        });
        await assert.rejects(
          defineModel({ likelihood: as, rows: { rowStore: path } }),
          /user_aux\.rows has a per-row column "trials" .* which a family written in AssemblyScript does not take/,
        );
      },
    );
  } finally {
    memory.dispose();
    await Deno.remove(dir, { recursive: true });
  }
});
