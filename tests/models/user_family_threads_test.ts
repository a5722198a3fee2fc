/**
 * A user's AssemblyScript family on threads (models/threaded_glm.ts over a
 * UserGlmModel): every worker instantiates the same compiled module over the
 * shared memory, and the passes equal memory's — bit for bit on one block,
 * within the summation bound of docs/placement.md on two — and a seeded HMC
 * run on one thread draws memory's draws.
 *
 * "Memory" is a UserGlmModel over a copy of the rows in an arena of its own
 * (not shared), compiled for that arena.
 *
 * Run: deno test --allow-read --allow-env tests/models/user_family_threads_test.ts
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { EXAMPLE_LOGISTIC_SOURCE } from "../../core/user_family.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { defineModel } from "../../models/compose.ts";
import { ThreadedGlmModel } from "../../models/threaded_glm.ts";
import { UserGlmModel } from "../../models/user_glm.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { sampleParallel } from "../../samplers/parallel.ts";
import { sample } from "../../samplers/sample.ts";
import { _normal, _rng } from "../_core_fixtures.ts";

const N = 1501, D = 4, U = 2 ** -53;
const gamma = (k: number) => (k * U) / (1 - k * U);

function _rows(seed: number) {
  const u = _rng(seed), x = new Float64Array(N * D), y = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    let eta = 0;
    for (let j = 0; j < D; j++) {
      x[i * D + j] = j === 0 ? 1 : _normal(u);
      eta += x[i * D + j] * (j % 2 === 0 ? 0.6 : -0.4);
    }
    y[i] = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  return { x, y };
}

const THETAS = [[0, 0, 0, 0], [0.5, -0.3, 0.8, -0.2], [-1.5, 2, 0.1, 3]].map((t) =>
  new Float64Array(t)
);

Deno.test("ThreadedGlmModel claim: a user AssemblyScript family on threads gives memory's log π, ∇ and Hessian", async () => {
  const p = _rows(5);
  const memory = await UserGlmModel.create(
    glmDataFromArrays(loadCore(), p.x, p.y, { numCols: D }),
    { source: EXAMPLE_LOGISTIC_SOURCE, priorScale: 3 },
  );
  const shared = loadCore({ shared: true });
  const base = await UserGlmModel.create(
    glmDataFromArrays(shared, p.x, p.y, { numCols: D }),
    { source: EXAMPLE_LOGISTIC_SOURCE, priorScale: 3 },
  );
  const one = await ThreadedGlmModel.create(base, { threads: 1 });
  const two = await ThreadedGlmModel.create(base, { threads: 2 });
  try {
    assert.equal(two.threads, 2);
    assert.equal(two.family, null);
    const all = Int32Array.from({ length: N }, (_, i) => i);
    for (const theta of THETAS) {
      const gm = new Float64Array(D), lp = memory.logDensityAndGradient(theta, gm);
      const hm = new Float64Array(D * D);
      memory.logLikelihoodHessian(theta, hm);
      // One block: the same kernel over the same rows in the same order.
      const g1 = new Float64Array(D), h1 = new Float64Array(D * D);
      assert.equal(one.logDensityAndGradient(theta, g1), lp);
      assert.deepEqual(g1, gm);
      assert.equal(one.logDensity(theta), memory.logDensity(theta));
      one.logLikelihoodHessian(theta, h1);
      assert.deepEqual(h1, hm);
      // Two blocks: the same per-row terms, summed in another order.
      const perRow = new Float64Array(N), rowGrads = new Float64Array(N * D);
      memory.logLikelihoodRows(theta, all, { perRow });
      memory.perRowGradients(theta, all, rowGrads);
      const pg = new Float64Array(D), lprior = memory.logPrior(theta, pg);
      const k = 2 * gamma(N + 2 + 1);
      const g2 = new Float64Array(D), lp2 = two.logDensityAndGradient(theta, g2);
      const b = k * (perRow.reduce((s, v) => s + Math.abs(v), 0) + Math.abs(lprior));
      assert.ok(Math.abs(lp2 - lp) <= b, `log π: ${lp2} vs ${lp}, bound ${b}`);
      for (let j = 0; j < D; j++) {
        let sj = Math.abs(pg[j]);
        for (let i = 0; i < N; i++) sj += Math.abs(rowGrads[i * D + j]);
        assert.ok(Math.abs(g2[j] - gm[j]) <= k * sj, `∂${j}: ${g2[j]} vs ${gm[j]}`);
      }
      const h2 = new Float64Array(D * D);
      two.logLikelihoodHessian(theta, h2);
      for (let c = 0; c < D * D; c++) {
        assert.ok(
          Math.abs(h2[c] - hm[c]) <= 1e-12 * Math.max(1, Math.abs(hm[c])),
          `H[${c}]: ${h2[c]} vs ${hm[c]}`,
        );
      }
    }
    // The static block is the compiling arena's: the threads left it as it was.
    const theta = THETAS[1];
    assert.equal(base.logDensity(theta), memory.logDensity(theta));
  } finally {
    one.close();
    two.close();
    base.dispose();
    memory.dispose();
  }
});

Deno.test("ThreadedGlmModel claim: seeded HMC and HMC-ECS on a user family on one thread draw memory's draws; two threads stay close", async () => {
  const p = _rows(6);
  const memory = await UserGlmModel.create(
    glmDataFromArrays(loadCore(), p.x, p.y, { numCols: D }),
    { source: EXAMPLE_LOGISTIC_SOURCE },
  );
  const shared = glmDataFromArrays(loadCore({ shared: true }), p.x, p.y, { numCols: D });
  const one = await defineModel({
    likelihood: { assemblyScript: EXAMPLE_LOGISTIC_SOURCE },
    rows: { data: shared, threads: 1 },
  });
  const two = await defineModel({
    likelihood: { assemblyScript: EXAMPLE_LOGISTIC_SOURCE },
    rows: { data: shared, threads: 2 },
  });
  assert.ok(one instanceof ThreadedGlmModel && two instanceof ThreadedGlmModel);
  try {
    const opts = { numWarmup: 60, numSamples: 40, numChains: 1, seed: 11 };
    const a = runHmc(memory, opts), b = runHmc(one, opts), c = runHmc(two, opts);
    assert.deepEqual(b.draws, a.draws);
    const flat = (r: typeof a) => r.draws.flatMap((chain) => chain.flatMap((x) => Array.from(x)));
    const fa = flat(a), fc = flat(c);
    assert.equal(fc.length, fa.length);
    let worst = 0;
    for (let i = 0; i < fa.length; i++) {
      worst = Math.max(worst, Math.abs(fc[i] - fa[i]) / Math.max(1, Math.abs(fa[i])));
    }
    console.log(`HMC, two threads: largest relative difference from memory's draws ${worst}`);
    assert.ok(worst <= 1e-6, `two threads drift ${worst} from memory's draws`);
    // HMC-ECS: per-row control variates (a user family has no compact cache).
    const ecs = {
      sampler: "hmc-ecs",
      numWarmup: 30,
      numSamples: 20,
      numChains: 1,
      seed: 5,
      hessianFraction: 1,
    } as const;
    const ea = await sample(memory, ecs), eb = await sample(one, ecs), ec = await sample(two, ecs);
    assert.deepEqual(eb.draws, ea.draws);
    const ga = flat(ea as typeof a), gc = flat(ec as typeof a);
    let worstEcs = 0;
    for (let i = 0; i < ga.length; i++) {
      worstEcs = Math.max(worstEcs, Math.abs(gc[i] - ga[i]) / Math.max(1, Math.abs(ga[i])));
    }
    console.log(`HMC-ECS, two threads: largest relative difference ${worstEcs}`);
    assert.ok(worstEcs <= 1e-9, `HMC-ECS on two threads drifts ${worstEcs} from memory's draws`);
  } finally {
    one.close();
    two.close();
    (one.base as UserGlmModel).dispose();
    memory.dispose();
  }
});

Deno.test("sampleParallel claim: chains of a user family in workers over the shared memory draw the calling thread's draws", async () => {
  const p = _rows(7);
  const model = await UserGlmModel.create(
    glmDataFromArrays(loadCore({ shared: true }), p.x, p.y, { numCols: D }),
    { source: EXAMPLE_LOGISTIC_SOURCE },
  );
  try {
    const opts = { sampler: "hmc", numWarmup: 30, numSamples: 10, numChains: 2, seed: 3 } as const;
    const inThread = await sample(model, opts);
    const inWorkers = await sampleParallel(model, { ...opts, workers: 1 });
    assert.equal(inWorkers.parallel.workers, 1, String(inWorkers.parallel.note));
    assert.deepEqual(inWorkers.draws, inThread.draws);
  } finally {
    model.dispose();
  }
});
