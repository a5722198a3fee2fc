import assert from "node:assert/strict";
import type { Arena } from "../../core/arena.ts";
import { loadCore } from "../../core/load.ts";
import { dataViews } from "../../core/row_buffer.ts";
import { type GlmData, glmDataFromArrays } from "../../data/dataset.ts";
import { writeRowStoreFromGlmData } from "../../data/row_store_write.ts";
import { higgsShaped } from "../../data/synthetic.ts";
import { isExternalGlm } from "../../models/external_glm.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import { ShardedGlmModel, type ShardedGlmOptions } from "../../models/sharded_glm.ts";
import { sampledRowOf } from "../../models/_pass_pool.ts";
import { sample } from "../../samplers/sample.ts";
import { ControlVariates } from "../../subsampling/control_variates.ts";

const U = 2 ** -53;
/** γₖ = ku/(1 − ku) (Higham 2002, §3.1): the relative bound of a k-term recursive sum. */
const gamma = (k: number) => (k * U) / (1 - k * U);

/** Deterministic pseudo-normal draws (sum of sines), enough for test data. */
function wobble(i: number): number {
  return Math.sin(i * 12.9898) * 1.3 + Math.sin(i * 78.233 + 1) * 0.7;
}

function countData(arena: Arena, n: number, family: "poisson" | "gaussian"): GlmData {
  const d = 5, x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * d] = 1;
    let eta = 0.3;
    for (let j = 1; j < d; j++) {
      x[i * d + j] = 0.5 * wobble(i * d + j);
      eta += 0.2 * x[i * d + j];
    }
    y[i] = family === "poisson"
      ? Math.floor(Math.exp(eta) * (1 + Math.sin(i * 3.7)))
      : eta + 0.5 * wobble(7 * i + 3);
  }
  return glmDataFromArrays(arena, x, y, { numCols: d, storage: "f64" });
}

/** Σᵢ|tᵢ| of the per-row terms of ℓ, ∇ℓ and ∇²ℓ at θ: what the summation bound scales. */
function absoluteSums(model: GlmModel, theta: Float64Array) {
  const n = model.numRows, d = model.dim;
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const perRow = new Float64Array(n), g = new Float64Array(n * d);
  model.logLikelihoodRows(theta, all, { perRow });
  model.perRowGradients(theta, all, g);
  const ll = perRow.reduce((s, v) => s + Math.abs(v), 0);
  const grad = new Float64Array(d), hess = new Float64Array(d * d);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) grad[j] += Math.abs(g[i * d + j]);
  const block = 500, h = new Float64Array(block * d * d);
  for (let s = 0; s < n; s += block) {
    const rows = all.subarray(s, Math.min(n, s + block));
    model.perRowHessians(theta, rows, h);
    for (let k = 0; k < rows.length; k++) {
      for (let q = 0; q < d * d; q++) hess[q] += Math.abs(h[k * d * d + q]);
    }
  }
  return { ll, grad, hess };
}

function near(a: number, b: number, bound: number, what: string): void {
  assert.ok(Math.abs(a - b) <= bound, `${what}: ${a} vs ${b}, |Δ| = ${Math.abs(a - b)} > ${bound}`);
}

const CASES: { name: string; options: GlmOptions; make: (a: Arena) => GlmData }[] = [
  {
    name: "logistic f32",
    options: { family: "logistic", priorScale: 5 },
    make: (a) => higgsShaped(a, { n: 20_001, seed: 4, storage: "f32" }).data,
  },
  {
    name: "logistic f64",
    options: { family: "logistic" },
    make: (a) => higgsShaped(a, { n: 10_003, seed: 5 }).data,
  },
  { name: "poisson", options: { family: "poisson" }, make: (a) => countData(a, 30_000, "poisson") },
  {
    name: "gaussian",
    options: { family: "gaussian", sigma: 0.7 },
    make: (a) => countData(a, 30_000, "gaussian"),
  },
];

const SETUPS: ShardedGlmOptions[] = [
  { shardKind: "memory", workers: 1 },
  { shardKind: "memory", workers: 2 },
  { shardKind: "stream", workers: 1, chunkRows: 4096 },
  { shardKind: "stream", workers: 2, chunkRows: 4096 },
];

/** One case's in-memory model, θ and Σ|tᵢ| there, for {@link eachSetup}. */
interface CaseRun {
  name: string;
  options: GlmOptions;
  model: GlmModel;
  n: number;
  d: number;
  theta: Float64Array;
  abs: ReturnType<typeof absoluteSums>;
}

/**
 * For each case: its model and a row store of its rows, `prepare`'s extra
 * (disposed after the case), then one step per setup with a ShardedGlmModel
 * over the store (closed after the step).
 */
async function eachSetup<E>(
  t: Deno.TestContext,
  cases: typeof CASES,
  prepare: (k: CaseRun) => { extra: E; dispose?: () => void },
  body: (k: CaseRun, extra: E, sharded: ShardedGlmModel, setup: ShardedGlmOptions) => void,
): Promise<void> {
  const arena = loadCore();
  for (const c of cases) {
    const data = c.make(arena);
    const model = new GlmModel(data, c.options);
    const d = model.dim;
    const theta = Float64Array.from({ length: d }, (_, j) => 0.05 * Math.cos(j + 1));
    const k: CaseRun = {
      name: c.name,
      options: c.options,
      model,
      n: model.numRows,
      d,
      theta,
      abs: absoluteSums(model, theta),
    };
    const { extra, dispose } = prepare(k);
    const path = await Deno.makeTempFile({ suffix: ".rows" });
    await writeRowStoreFromGlmData(path, data);
    try {
      for (const setup of SETUPS) {
        await t.step(`${c.name}, ${setup.shardKind} × ${setup.workers}`, async () => {
          const sharded = await ShardedGlmModel.create(path, c.options, setup);
          try {
            body(k, extra, sharded, setup);
          } finally {
            sharded.close();
          }
        });
      }
    } finally {
      await Deno.remove(path);
      dispose?.();
    }
  }
}

Deno.test("ShardedGlmModel full-data passes equal GlmModel's within the summation bound", async (t) => {
  await eachSetup(t, CASES, ({ model, d, theta }) => {
    const g1 = new Float64Array(d), h1 = new Float64Array(d * d);
    const ll1 = model.logLikelihood(theta, g1);
    model.logLikelihoodHessian(theta, h1);
    const cv = new ControlVariates(model, theta, { order: 2 });
    return { extra: { g1, h1, ll1, cv }, dispose: () => cv.dispose() };
  }, ({ model, n, d, theta, abs }, { g1, h1, ll1, cv }, sharded, setup) => {
    assert.ok(isExternalGlm(sharded));
    assert.equal(sharded.numRows, n);
    assert.deepEqual(sharded.parameterNames, model.parameterNames);
    // Two summation orders of the same n terms (plus W shard partials):
    // |Δ| ≤ 2γ_{n+W}·Σ|tᵢ| (module notes of models/sharded_glm.ts).
    const k = 2 * gamma(n + (setup.workers ?? 2) + 1);
    const g = new Float64Array(d), h = new Float64Array(d * d);
    near(sharded.logLikelihood(theta, g), ll1, k * abs.ll, "ℓ");
    for (let j = 0; j < d; j++) near(g[j], g1[j], k * abs.grad[j], `∇ℓ[${j}]`);
    sharded.logLikelihoodHessian(theta, h);
    for (let q = 0; q < d * d; q++) near(h[q], h1[q], k * abs.hess[q], `∇²ℓ[${q}]`);
    // The same sums as the in-memory control variates (S, A, B).
    const a = new Float64Array(d), b = new Float64Array(d * d);
    const s = sharded.controlVariateSums(theta, a, b);
    near(s, cv.llStarSum, k * abs.ll, "S");
    for (let j = 0; j < d; j++) near(a[j], cv.gradSum[j], k * abs.grad[j], `A[${j}]`);
    for (let q = 0; q < d * d; q++) near(b[q], cv.hessSum[q], k * abs.hess[q], `B[${q}]`);
    // Deterministic for a given layout; costs counted the model.ts way.
    assert.equal(sharded.logLikelihood(theta), sharded.logLikelihood(theta));
    assert.equal(sharded.cost.numLogLikRows, 4 * n);
    assert.equal(sharded.cost.numGradRows, 2 * n);
    assert.equal(sharded.cost.numHessianRows, 2 * n);
    // Prior: GlmModel's own.
    const pg = new Float64Array(d), pg1 = new Float64Array(d);
    assert.equal(sharded.logPrior(theta, pg), model.logPrior(theta, pg1));
    assert.deepEqual(pg, pg1);
  });
});

Deno.test("ShardedGlmModel.readRows returns the data rows exactly; subsample evaluations match", async (t) => {
  const arena = loadCore();
  const data = higgsShaped(arena, { n: 12_345, seed: 6, storage: "f32" }).data;
  const model = new GlmModel(data, { family: "logistic" });
  const n = data.numRows, d = data.numCols;
  const path = await Deno.makeTempFile({ suffix: ".rows" });
  await writeRowStoreFromGlmData(path, data);
  // More rows than one round trip of the shared gather buffer (8192), with repeats.
  const m = 20_000;
  const rows = Int32Array.from({ length: m }, (_, k) => (k * 7919 + (k % 13) * 101) % n);
  const sources: [string, string | GlmData, ShardedGlmOptions][] = [
    ["memory shards from the file", path, { shardKind: "memory", workers: 2 }],
    ["memory shards from arrays", data, { shardKind: "memory", workers: 2 }],
    ["stream shards", path, { shardKind: "stream", workers: 2 }],
  ];
  try {
    for (const [name, source, setup] of sources) {
      await t.step(name, async () => {
        const sharded = await ShardedGlmModel.create(source, { family: "logistic" }, setup);
        try {
          const x = new Float64Array(m * d), y = new Float64Array(m);
          sharded.readRows(rows, x, y);
          const v = dataViews(data); // fresh: the arena may have grown since

          for (let k = 0; k < m; k++) {
            const r = rows[k];
            assert.equal(y[k], v.y[r]);
            for (let j = 0; j < d; j++) {
              if (x[k * d + j] !== v.x[r * d + j]) assert.fail(`row ${r}, column ${j}`);
            }
          }
          assert.throws(
            () => sharded.readRows(new Int32Array([0, n]), x, y),
            (e: Error) =>
              e instanceof RangeError && e.message.startsWith(`rows[1] = ${n} is not a row`),
          );
          // Subsample sums: same per-row terms, m-term sums in possibly different order.
          const sub = rows.subarray(0, 3000);
          const theta = Float64Array.from({ length: d }, (_, j) => 0.03 * Math.sin(j));
          const g = new Float64Array(d), g1 = new Float64Array(d);
          const p = new Float64Array(sub.length), p1 = new Float64Array(sub.length);
          const ll = sharded.logLikelihoodRows(theta, sub, { grad: g, perRow: p });
          const ll1 = model.logLikelihoodRows(theta, sub, { grad: g1, perRow: p1 });
          const absLl = p1.reduce((s, q) => s + Math.abs(q), 0);
          near(ll, ll1, 2 * gamma(sub.length) * absLl, "Σℓ over the subsample");
          const pr = new Float64Array(sub.length * d), pr1 = new Float64Array(sub.length * d);
          sharded.perRowGradients(theta, sub, pr);
          model.perRowGradients(theta, sub, pr1);
          // Per-row values are the same operations on the same numbers: exact.
          assert.deepEqual(p, p1);
          assert.deepEqual(pr, pr1);
          for (let j = 0; j < d; j++) {
            let a = 0;
            for (let k = 0; k < sub.length; k++) a += Math.abs(pr1[k * d + j]);
            near(g[j], g1[j], 2 * gamma(sub.length) * a, `Σ∇ℓ[${j}]`);
          }
          assert.equal(sharded.cost.numLogLikRows, sub.length);
          assert.equal(sharded.cost.numGradRows, 2 * sub.length);
        } finally {
          sharded.close();
        }
      });
    }
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("full-data HMC on one shard gives GlmModel's draws exactly", async (t) => {
  const arena = loadCore();
  const data = higgsShaped(arena, { n: 3000, seed: 8, storage: "f32" }).data;
  const options: GlmOptions = { family: "logistic", priorScale: 5 };
  const run = (m: GlmModel | ShardedGlmModel) =>
    sample(m, { sampler: "hmc", numWarmup: 60, numSamples: 40, numChains: 1, seed: 3 });
  const model = new GlmModel(data, options);
  const want = run(model);
  const path = await Deno.makeTempFile({ suffix: ".rows" });
  await writeRowStoreFromGlmData(path, data);
  try {
    // One shard computes the same sums in the same order: identical arithmetic.
    // A streamed shard does too when it reads all its rows as one block.
    for (
      const setup of [{ shardKind: "memory" }, { shardKind: "stream", chunkRows: 4096 }] as const
    ) {
      await t.step(setup.shardKind, async () => {
        const sharded = await ShardedGlmModel.create(path, options, { ...setup, workers: 1 });
        try {
          const got = run(sharded);
          assert.deepEqual(got.draws, want.draws);
          assert.deepEqual({ ...sharded.cost }, { ...model.cost });
        } finally {
          sharded.close();
        }
      });
    }
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("ShardedGlmModel errors are clear", async (t) => {
  const arena = loadCore();
  const data = higgsShaped(arena, { n: 2000, seed: 9 }).data;
  const path = await Deno.makeTempFile({ suffix: ".rows" });
  await writeRowStoreFromGlmData(path, data);
  try {
    await t.step("a worker's failure surfaces in the caller, not as a hang", async () => {
      const sharded = await ShardedGlmModel.create(path, { family: "logistic" }, {
        shardKind: "stream",
        workers: 2,
      });
      try {
        await Deno.truncate(path, 4096 + 100 * sharded.numCols * 8);
        assert.throws(
          () => sharded.logLikelihood(new Float64Array(sharded.dim)),
          /worker [01] failed: .*the file ended/,
        );
      } finally {
        sharded.close();
      }
      assert.throws(() => sharded.logLikelihood(new Float64Array(30)), /has been closed/);
      await assert.rejects(
        ShardedGlmModel.create(path, { family: "logistic" }),
        (e: Error) => e.message.includes(path) && /does not match the header/.test(e.message),
      );
    });
    await t.step("bad options", async () => {
      await assert.rejects(
        ShardedGlmModel.create(data, { family: "logistic" }, { shardKind: "stream" }),
        /reads a row store file/,
      );
      await assert.rejects(
        ShardedGlmModel.create(data, { family: "gaussian" }),
        /sigma must be a positive finite number/,
      );
      const withAux = `${path}.aux`;
      await writeRowStoreFromGlmData(withAux, data, {
        aux: new Float64Array(2000),
        auxName: "offset",
      });
      await assert.rejects(
        ShardedGlmModel.create(withAux, { family: "logistic" }),
        (e: Error) =>
          e instanceof TypeError &&
          e.message.includes(`${withAux} has a per-row column "offset"`) &&
          e.message.includes(`which family "logistic" does not take`),
      );
      await assert.rejects(
        ShardedGlmModel.create(withAux, { family: "poisson", offset: new Float64Array(2000) }),
        (e: Error) =>
          e instanceof TypeError &&
          e.message ===
            `the offset of rows in a row store is its aux column; give no offset option with ${withAux}`,
      );
      await Deno.remove(withAux);
      const plain = `${path}.plain`; // (the first step truncated `path`)
      await writeRowStoreFromGlmData(plain, data);
      await assert.rejects(
        ShardedGlmModel.create(plain, { family: "binomial" }),
        (e: Error) =>
          e instanceof TypeError &&
          e.message.startsWith(`family "binomial" needs trials: ${plain} has no aux column`),
      );
      await Deno.remove(plain);
      await assert.rejects(
        ShardedGlmModel.create(data, {
          family: "binomial",
          trials: new Float64Array(2000).fill(1),
          offset: new Float64Array(2000),
        }),
        {
          name: "TypeError",
          message: 'offset applies to family negative-binomial, not "binomial"',
        },
      );
      await assert.rejects(
        ShardedGlmModel.create(data, { family: "poisson", offset: new Float64Array(3) }),
        { name: "RangeError", message: "offset must have 2000 values, got 3" },
      );
      // A streamed shard checks each block it reads: the pass fails naming the row.
      const bad = `${path}.binomial`;
      const counts2 = glmDataFromArrays(arena, [1, 0, 1, 1, 1, 2, 1, 3], [1, 0, 3, 1], {
        numCols: 2,
      });
      await writeRowStoreFromGlmData(bad, counts2, {
        aux: [2, 2, 2, 2],
        auxName: "trials",
      });
      const streamed = await ShardedGlmModel.create(bad, { family: "binomial" }, {
        shardKind: "stream",
        workers: 2,
        chunkRows: 1,
      });
      try {
        assert.throws(
          () => streamed.logLikelihood(new Float64Array(2)),
          /worker 1 failed: .*family "binomial" needs integer trials ≥ y ≥ 0; y = 3, trials = 2 at row 3/,
        );
      } finally {
        streamed.close();
        await Deno.remove(bad);
      }
      // Every shard checks its responses against the family's domain, naming the row.
      const counts = glmDataFromArrays(arena, [1, 0.5, 1, -1, 1, 2], [1, 2, 0.5], { numCols: 2 });
      await assert.rejects(
        ShardedGlmModel.create(counts, { family: "poisson" }, { workers: 2 }),
        /shard 1 .*needs integer counts y ≥ 0; y = 0\.5 at row 3/,
      );
      await assert.rejects(
        ShardedGlmModel.create(`${path}.missing`, { family: "logistic" }),
        (e: Error) => e.message.includes(`${path}.missing`),
      );
    });
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("controlVariateSumsSampledHessian: S and A of the full pass, B̂ = stride·Σ over one hashed row per group, unbiased for B", async (t) => {
  await eachSetup(t, CASES.slice(0, 3), () => ({ extra: null }), (
    { model, n, d, theta, abs },
    _extra,
    sharded,
    setup,
  ) => {
    const stride = 7, seed = 12345;
    const a0 = new Float64Array(d), a = new Float64Array(d), b = new Float64Array(d * d);
    const s0 = sharded.controlVariateSums(theta, a0);
    const s = sharded.controlVariateSumsSampledHessian(theta, a, b, { stride, seed });
    // ℓ and ∇ℓ: the pass of controlVariateSums without B, the same operations.
    assert.equal(s, s0);
    assert.deepEqual(a, a0);
    // B̂: stride × Σ ∇²ℓₖ over the rows sampledRowOf chooses, computed apart.
    const chosen: number[] = [];
    for (let g = 0; g * stride < n; g++) {
      const r = sampledRowOf(g, stride, seed);
      assert.ok(r >= g * stride && r < (g + 1) * stride);
      if (r < n) chosen.push(r);
    }
    const h = new Float64Array(chosen.length * d * d);
    model.perRowHessians(theta, Int32Array.from(chosen), h);
    const k = 2 * gamma(n + (setup.workers ?? 2) + 1);
    for (let q = 0; q < d * d; q++) {
      let want = 0;
      for (let i = 0; i < chosen.length; i++) want += h[i * d * d + q];
      near(b[q], stride * want, stride * k * abs.hess[q], `B̂[${q}]`);
    }
    assert.equal(sharded.cost.numHessianRows, Math.ceil(n / stride));
    // Stride 1 is the exact pass.
    const b1 = new Float64Array(d * d), bx = new Float64Array(d * d);
    sharded.controlVariateSumsSampledHessian(theta, a, b1, { stride: 1, seed });
    sharded.controlVariateSums(theta, a0, bx);
    assert.deepEqual(b1, bx);
    assert.throws(
      () => sharded.controlVariateSumsSampledHessian(theta, a, b, { stride: 0, seed }),
      /stride must be an integer/,
    );
  });
  const arena = loadCore();
  await t.step(
    "a per-row offset travels with the sampled rows (memory and stream shards)",
    async () => {
      const data = countData(arena, 3001, "poisson");
      const offset = Float64Array.from({ length: 3001 }, (_, i) => 0.3 * Math.sin(i * 0.7));
      const model = new GlmModel(data, { family: "poisson", offset });
      const d = model.dim, theta = new Float64Array(d).fill(0.05);
      const path = await Deno.makeTempFile({ suffix: ".rows" });
      await writeRowStoreFromGlmData(path, data, { aux: offset, auxName: "offset" });
      try {
        const stride = 5, seed = 99;
        const chosen: number[] = [];
        for (let g = 0; g * stride < 3001; g++) {
          const r = sampledRowOf(g, stride, seed);
          if (r < 3001) chosen.push(r);
        }
        const h = new Float64Array(chosen.length * d * d);
        model.perRowHessians(theta, Int32Array.from(chosen), h);
        const want = new Float64Array(d * d), scale = new Float64Array(d * d);
        for (let i = 0; i < chosen.length; i++) {
          for (let q = 0; q < d * d; q++) {
            want[q] += stride * h[i * d * d + q];
            scale[q] += stride * Math.abs(h[i * d * d + q]);
          }
        }
        const shards = [
          await ShardedGlmModel.create(data, { family: "poisson", offset }, {
            shardKind: "memory",
            workers: 2,
          }),
          await ShardedGlmModel.create(path, { family: "poisson" }, {
            shardKind: "stream",
            workers: 2,
            chunkRows: 512,
          }),
        ];
        for (const sharded of shards) {
          try {
            const a = new Float64Array(d), b = new Float64Array(d * d);
            sharded.controlVariateSumsSampledHessian(theta, a, b, { stride, seed });
            for (let q = 0; q < d * d; q++) {
              near(b[q], want[q], 2 * gamma(3001) * scale[q], `${sharded.shardKind}: B̂[${q}]`);
            }
            // The full pass after it still sees every row's own offset.
            const g = new Float64Array(d), g1 = new Float64Array(d);
            const ll = sharded.logLikelihood(theta, g), ll1 = model.logLikelihood(theta, g1);
            near(ll, ll1, 1e-9 * Math.abs(ll1), `${sharded.shardKind}: ℓ after`);
          } finally {
            sharded.close();
          }
        }
      } finally {
        await Deno.remove(path);
      }
    },
  );
  await t.step("over seeds, the mean of B̂ is B within 4 standard errors", async () => {
    const data = countData(arena, 2000, "poisson");
    const model = new GlmModel(data, { family: "poisson" });
    const d = model.dim, theta = new Float64Array(d).fill(0.05);
    const exact = new Float64Array(d * d);
    model.logLikelihoodHessian(theta, exact);
    const sharded = await ShardedGlmModel.create(data, { family: "poisson" }, {
      shardKind: "memory",
      workers: 2,
    });
    try {
      const seeds = 200, sum = new Float64Array(d * d), sq = new Float64Array(d * d);
      const a = new Float64Array(d), b = new Float64Array(d * d);
      for (let seed = 0; seed < seeds; seed++) {
        sharded.controlVariateSumsSampledHessian(theta, a, b, { stride: 10, seed: seed * 7919 });
        for (let q = 0; q < d * d; q++) {
          sum[q] += b[q];
          sq[q] += b[q] * b[q];
        }
      }
      for (let q = 0; q < d * d; q++) {
        const mean = sum[q] / seeds,
          sd = Math.sqrt((sq[q] / seeds - mean * mean) * seeds / (seeds - 1));
        assert.ok(sd > 0, `B̂[${q}] varies with the seed`);
        near(mean, exact[q], 4 * sd / Math.sqrt(seeds), `mean B̂[${q}]`);
      }
    } finally {
      sharded.close();
    }
  });
});
