/**
 * HMC-ECS on an ExternalGlmModel: the same draws as on the in-memory GLM for
 * the same seed, every pass counted, O(m) rows read per iteration with no
 * memory of size n, and precomputed centring.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../../core/load.ts";
import { gaussianLinearRegression, higgsShaped } from "../../../data/synthetic.ts";
import type { ExternalGlmModel } from "../../../models/external_glm.ts";
import { GlmModel } from "../../../models/glm.ts";
import { externalFromGlm } from "../../../models/in_memory_external.ts";
import { Rng } from "../../../random/rng.ts";
import { checkCentring, type HmcEcsOptions } from "../../../samplers/hmc_ecs/options.ts";
import { createProxy, hmcEcsSupport } from "../../../samplers/hmc_ecs/proxy.ts";
import { hmcEcsChainSampler } from "../../../samplers/hmc_ecs/chain_sampler.ts";
import { sample } from "../../../samplers/sample.ts";
import { ControlVariates } from "../../../subsampling/control_variates.ts";
import {
  EXTERNAL_CHUNK_ROWS,
  ExternalControlVariates,
  externalKernels,
} from "../../../subsampling/external_rows.ts";
import { subsetHessian } from "../../../subsampling/tuning.ts";
import { glmDataFromArrays } from "../../../data/dataset.ts";

/** A HIGGS-shaped logistic problem (d = 30) and two GLMs over the same data (separate counters). */
function problem(n: number, storage: "f64" | "f32" = "f64") {
  const { data } = higgsShaped(loadCore(), { n, seed: 7, storage });
  const options = { family: "logistic" as const, priorScale: 5 };
  return { glm: new GlmModel(data, options), twin: new GlmModel(data, options) };
}

/** An adapter that logs the rows of each readRows call. */
function counting(model: GlmModel): { ext: ExternalGlmModel; reads: number[] } {
  const inner = externalFromGlm(model), reads: number[] = [];
  const ext = Object.create(inner) as ExternalGlmModel;
  Object.defineProperty(ext, "readRows", {
    value: (rows: Int32Array, x: Float64Array, y: Float64Array) => {
      reads.push(rows.length);
      inner.readRows(rows, x, y);
    },
  });
  return { ext, reads };
}

const RUN = { seed: 11, numWarmup: 150, numSamples: 60, numChains: 1 };

function flat(r: ReturnType<typeof sample>): Float64Array {
  return Float64Array.from(r.draws[0].flatMap((col) => Array.from(col)));
}

for (const variant of ["perturbed", "signed"] as const) {
  Deno.test(`${variant}: the external GLM gives the in-memory GLM's draws and counts every pass`, () => {
    const { glm, twin } = problem(20000);
    const { ext, reads } = counting(twin);
    // Re-centring at every warmup check (two here) exercises the cache rows
    // recomputed for the rows held.
    const options = {
      sampler: "hmc-ecs",
      ...RUN,
      variant,
      updateEvery: 50,
      recenterTolerance: 0,
    } as const;
    const a = sample(glm, options), b = sample(ext, options);
    const t = b.chains[0].tuning;
    assert.equal(
      (t.numCenterings as number) - (t.numNewtonSteps as number),
      3,
      JSON.stringify(t),
    );
    const da = flat(a), db = flat(b);
    assert.equal(da.length, RUN.numSamples * 30);
    assert.ok(da.every(Number.isFinite));
    // Bit for bit: the same kernels on the same values in the same order.
    assert.deepEqual(db, da);
    // Cost: the same passes, plus one ℓ row and one ∇ℓ row per cache row
    // computed for a gathered row (the in-memory path pays for those in its
    // full-data pass). So the extra counts are equal, positive, and O(m) per
    // sampling iteration.
    for (const phase of ["warmup", "sampling"] as const) {
      const ca = a.chains[0].cost[phase], cb = b.chains[0].cost[phase];
      const extra = cb.numLogLikRows - ca.numLogLikRows;
      assert.equal(cb.numGradRows - ca.numGradRows, extra, phase);
      assert.ok(extra > 0, `${phase}: ${extra}`);
    }
    const sampled = b.chains[0].cost.sampling.numLogLikRows -
      a.chains[0].cost.sampling.numLogLikRows;
    if (variant === "perturbed") {
      // Sampling makes no re-centring and no pilot: one read per iteration
      // (the refreshed block), and exactly those rows get cache rows.
      const last = reads.slice(-RUN.numSamples);
      assert.equal(sampled, last.reduce((s, k) => s + k, 0));
      const est = b.chains[0].tuning;
      const block = Math.ceil((est.subsampleSize as number) / (est.numBlocks as number));
      assert.ok(last.every((k) => k <= block), `${last} vs block ${block}`);
    } else {
      // Signed: a refresh with no new mini-batch reads nothing.
      assert.ok(sampled > 0 && sampled <= reads.reduce((s, k) => s + k, 0), `${sampled}`);
    }
  });
}

Deno.test("f32 storage: the external GLM (rows widened exactly) gives the same draws", () => {
  const { glm, twin } = problem(12000, "f32");
  const options = { sampler: "hmc-ecs", ...RUN, numWarmup: 100, numSamples: 30 } as const;
  assert.deepEqual(flat(sample(externalFromGlm(twin), options)), flat(sample(glm, options)));
});

Deno.test("gaussian (known σ) and poisson families, odd d: the same draws through the external interface", () => {
  const { data, sigma } = gaussianLinearRegression(loadCore(), {
    n: 15000,
    d: 5,
    sigma: 2,
    seed: 3,
  });
  const g = { family: "gaussian" as const, sigma, priorScale: 10 };
  const options = { sampler: "hmc-ecs", ...RUN, numWarmup: 100, numSamples: 30 } as const;
  const a = sample(new GlmModel(data, g), options);
  assert.deepEqual(flat(sample(externalFromGlm(new GlmModel(data, g)), options)), flat(a));
  // Poisson counts from the same design: y = round(exp(η/4)).
  const rng = new Rng(8), n = 15000, d = 5;
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) x[i * d + j] = j === 0 ? 1 : 0.5 * rng.normal();
    y[i] = rng.poisson(Math.exp(0.3 + 0.5 * x[i * d + 1] - 0.4 * x[i * d + 2]));
  }
  const pdata = glmDataFromArrays(loadCore(), x, y, { numCols: d });
  const p = { family: "poisson" as const, priorScale: 10 };
  assert.deepEqual(
    flat(sample(externalFromGlm(new GlmModel(pdata, p)), options)),
    flat(sample(new GlmModel(pdata, p), options)),
  );
});

Deno.test("external control variates: S, A, B and per-row differences equal the in-memory ones", () => {
  const { glm, twin } = problem(10001);
  const ext = externalFromGlm(twin);
  const star = new Float64Array(30).map((_, j) => 0.02 * (j % 5) - 0.03);
  const cv = new ControlVariates(glm, star, { order: 2 });
  const xcv = new ExternalControlVariates(ext, star, { order: 2 });
  assert.equal(xcv.llStarSum, cv.llStarSum);
  assert.deepEqual(xcv.gradSum, cv.gradSum);
  assert.deepEqual(xcv.hessSum, cv.hessSum);
  // Odd and even positions, the last row, repeats: the cache rows computed in
  // place are the full-data cache rows.
  const idx = Int32Array.from([10000, 0, 3, 3, 9999, 17, 5000]);
  const r1 = cv.createRows(idx.length + 1), r2 = xcv.createRows(idx.length + 1);
  cv.gatherRows(r1, idx, 1);
  xcv.gatherRows(r2, idx, 1);
  const theta = star.map((v, j) => v + 0.01 * Math.sin(j));
  const range = { start: 1, end: idx.length + 1 };
  assert.equal(xcv.differences(r2, theta, range), cv.differences(r1, theta, range));
  assert.deepEqual(r2.diffs(1, idx.length + 1), r1.diffs(1, idx.length + 1));
  assert.deepEqual(r2.derivatives(1, idx.length + 1), r1.derivatives(1, idx.length + 1));
  // Re-centring: the held rows' cache rows are recomputed, not re-read.
  const star2 = star.map((v) => v + 0.05);
  cv.recenter(star2);
  xcv.recenter(star2, { hessian: true });
  cv.refreshRows(r1, range);
  xcv.refreshRows(r2, range);
  assert.equal(xcv.differences(r2, theta, range), cv.differences(r1, theta, range));
  r1.dispose();
  r2.dispose();
  cv.dispose();
});

Deno.test("cache rows computed in place match the full-data pass for odd d, odd n, odd ranges", () => {
  // d = 5 leaves one column after the 2-lane loops, where the paired and the
  // single-row kernels can round differently; n odd makes row n − 1 a single.
  const { data, sigma } = gaussianLinearRegression(loadCore(), {
    n: 2001,
    d: 5,
    sigma: 1.5,
    seed: 4,
  });
  // (The logistic terms are evaluated at y > 0 of the same rows: the
  // arithmetic is what is compared.)
  const a = data.arena;
  const binary = glmDataFromArrays(
    a,
    a.readF64(data.x, data.numRows * data.numCols),
    Array.from(a.readF64(data.y, data.numRows), (v) => (v > 0 ? 1 : 0)),
    { numCols: data.numCols },
  );
  for (const family of ["gaussian", "logistic"] as const) {
    const o = family === "gaussian" ? { family, sigma } : { family };
    const rows = family === "gaussian" ? data : binary;
    const glm = new GlmModel(rows, o);
    const star = new Float64Array([0.2, -0.1, 0.3, 0.05, -0.2]);
    const cv = new ControlVariates(glm, star, { order: 2 });
    const xcv = new ExternalControlVariates(externalFromGlm(new GlmModel(rows, o)), star);
    const size = 2000, r1 = cv.createRows(size), r2 = xcv.createRows(size);
    const rng = new Rng(6);
    for (let offset = 0, k = 1; offset < size; offset += k) {
      k = Math.min(size - offset, 1 + rng.int(7)); // odd and even ranges at odd and even offsets
      const idx = rng.sampleWithReplacement(2001, k);
      if (k === 3) idx[1] = 2000; // row n − 1 inside a range
      if (k === 1 && offset % 2 === 0) idx[0] = 2000;
      cv.gatherRows(r1, idx, offset);
      xcv.gatherRows(r2, idx, offset);
    }
    const theta = star.map((v, j) => v + 0.1 * Math.cos(j));
    cv.differences(r1, theta);
    xcv.differences(r2, theta);
    assert.deepEqual(r2.diffs(), r1.diffs(), family);
    assert.deepEqual(r2.derivatives(), r1.derivatives(), family);
    for (const range of [{ start: 3, end: 4 }, { start: 0, end: 1 }, { start: 5, end: 10 }]) {
      xcv.refreshRows(r2, range);
      xcv.differences(r2, theta);
      assert.deepEqual(r2.diffs(), r1.diffs(), `${family} after refreshing ${range.start}`);
    }
    r1.dispose();
    r2.dispose();
    cv.dispose();
  }
});

Deno.test("cache rows computed in place: row n − 1 of an odd n is evaluated alone, as the full-data pass does", () => {
  // Whether the paired and the single evaluation of one row differ in the
  // last bit depends on its values: several data sets make a difference certain.
  for (let seed = 1; seed <= 12; seed++) {
    const { data, sigma } = gaussianLinearRegression(loadCore(), { n: 201, d: 5, sigma: 1, seed });
    const o = { family: "gaussian" as const, sigma };
    const star = new Float64Array([0.3, -0.7, 0.2, 0.9, -0.4]);
    const cv = new ControlVariates(new GlmModel(data, o), star);
    const xcv = new ExternalControlVariates(externalFromGlm(new GlmModel(data, o)), star);
    const r1 = cv.createRows(6), r2 = xcv.createRows(6);
    for (const [idx, at] of [[[5, 200, 7], 0], [[200, 9], 3], [[200], 5]] as const) {
      cv.gatherRows(r1, Int32Array.from(idx), at);
      xcv.gatherRows(r2, Int32Array.from(idx), at);
    }
    const theta = star.map((v) => v + 0.25);
    cv.differences(r1, theta);
    xcv.differences(r2, theta);
    assert.deepEqual(r2.diffs(), r1.diffs(), `seed ${seed}`);
    r1.dispose();
    r2.dispose();
    cv.dispose();
  }
});

Deno.test("rows read: the subsample once at start, then at most one block per iteration", () => {
  const { twin } = problem(20000);
  const { ext, reads } = counting(twin);
  const m = 1000, G = 50;
  const sampler = hmcEcsChainSampler(ext, {
    numWarmup: 20,
    subsampleSize: m,
    numBlocks: G,
    maxNewtonSteps: 0,
    updateEvery: 0,
  });
  const rng = new Rng(3);
  let state = sampler.init(new Float64Array(30), rng);
  // init reads the 1 % subset of the MAP fit (1000 rows here) and the m rows
  // of the subsample, each once.
  assert.deepEqual(reads, [1000, m]);
  for (let i = 0; i < 40; i++) {
    reads.length = 0;
    state = sampler.step(rng, state, "sampling", i).state;
    const total = reads.reduce((s, k) => s + k, 0);
    assert.ok(reads.length === 1 && total === m / G, `iteration ${i}: ${reads}`);
  }
  sampler.dispose(state);
});

Deno.test("rows read, signed: the mini-batches once at start, then the refreshed product's only", () => {
  const { twin } = problem(20000);
  const { ext, reads } = counting(twin);
  const mb = 10;
  const sampler = hmcEcsChainSampler(ext, {
    variant: "signed",
    numWarmup: 20,
    batchSize: mb,
    numProducts: 40,
    numRefreshed: 1,
    lowerBound: -45,
    maxNewtonSteps: 0,
    updateEvery: 0,
  });
  const rng = new Rng(4);
  let state = sampler.init(new Float64Array(30), rng);
  assert.equal(reads[0], 1000);
  assert.ok(reads.length === 2 && reads[1] % mb === 0 && reads[1] <= 40 * 8 * mb, `${reads}`);
  let total = 0;
  for (let i = 0; i < 60; i++) {
    reads.length = 0;
    state = sampler.step(rng, state, "sampling", i).state;
    // χ ~ Pois(1) new mini-batches of one product: none, or one read of χ·m rows.
    assert.ok(reads.length <= 1 && (reads[0] ?? 0) % mb === 0, `iteration ${i}: ${reads}`);
    total += reads[0] ?? 0;
  }
  // E χ = 1: about one mini-batch per iteration (60 ± 4·√60 Poisson count).
  assert.ok(Math.abs(total / mb - 60) < 4 * Math.sqrt(60), `${total / mb} mini-batches`);
  sampler.dispose(state);
});

Deno.test("memory on this side does not grow with n", () => {
  const bytes = (n: number) => {
    const { twin } = problem(n);
    const ext = externalFromGlm(twin);
    const o: HmcEcsOptions = {
      numWarmup: 10,
      subsampleSize: 500,
      maxNewtonSteps: 0,
      subsetFraction: 1000 / n,
      updateEvery: 0,
    };
    const sampler = hmcEcsChainSampler(ext, o);
    const rng = new Rng(5);
    let state = sampler.init(new Float64Array(30), rng);
    for (let i = 0; i < 10; i++) state = sampler.step(rng, state, "sampling", i).state;
    const arena = externalKernels(ext).arena;
    const used = { live: arena.bytesInUse, memory: arena.byteLength };
    sampler.dispose(state);
    return used;
  };
  const small = bytes(10000), large = bytes(100000);
  // Live allocations while the chain runs (subsample buffer, scratch) are the
  // same at both n; an in-memory cache alone would be 32 B per row.
  assert.ok(small.live > 500 * 30 * 8, `${small.live}`);
  assert.equal(large.live, small.live);
  assert.ok(large.memory <= small.memory, `${small.memory} B, ${large.memory} B`);
});

Deno.test("precomputed centring: the same draws as centring at the same θ* with one pass", () => {
  const { glm, twin } = problem(20000);
  const ext = externalFromGlm(twin);
  const thetaStar = new Float64Array(30).map((_, j) => (j === 0 ? 0.05 : 0));
  // θ* near the posterior: a few Newton steps of the in-memory model.
  const fit = sample(glm, { sampler: "hmc-ecs", ...RUN, numWarmup: 20, numSamples: 1 });
  thetaStar.set(fit.chains[0].tuning.thetaStar as Float64Array);
  const gradSum = new Float64Array(30), hessSum = new Float64Array(900);
  const llStarSum = ext.controlVariateSums(thetaStar, gradSum, hessSum);
  for (const variant of ["perturbed", "signed"] as const) {
    const base = { sampler: "hmc-ecs", ...RUN, variant } as const;
    const before = { ...ext.cost };
    const given = sample(ext, {
      ...base,
      centring: { thetaStar, llStarSum, gradSum, hessSum },
    });
    const mid = { ...ext.cost };
    const pass = sample(ext, {
      ...base,
      thetaStar,
      maxNewtonSteps: 0,
      recenterTolerance: 1e300,
    });
    assert.deepEqual(flat(given), flat(pass));
    // The equivalent run makes exactly one more full-data pass (S, A and B).
    const n = ext.numRows;
    const g = {
      ll: mid.numLogLikRows - before.numLogLikRows,
      grad: mid.numGradRows - before.numGradRows,
      hess: mid.numHessianRows - before.numHessianRows,
    };
    assert.equal(ext.cost.numLogLikRows - mid.numLogLikRows, g.ll + n);
    assert.equal(ext.cost.numGradRows - mid.numGradRows, g.grad + n);
    // …and B: a Hessian pass over all n rows.
    assert.equal(ext.cost.numHessianRows - mid.numHessianRows, g.hess + n);
    assert.equal(given.chains[0].tuning.numCenterings, 1);
  }
});

Deno.test("precomputed centring: bad input gives clear errors", () => {
  const { glm, twin } = problem(10000);
  const ext = externalFromGlm(twin);
  const ok = {
    thetaStar: new Float64Array(30),
    llStarSum: -6000,
    gradSum: new Float64Array(30),
    hessSum: new Float64Array(900).map((_, i) => (i % 31 === 0 ? -2500 : 0)),
  };
  const run = (model: GlmModel | ExternalGlmModel, centring: unknown, extra = {}) =>
    sample(model, { sampler: "hmc-ecs", ...RUN, numSamples: 1, centring, ...extra });
  assert.throws(() => run(ext, { ...ok, gradSum: new Float64Array(29) }), {
    name: "RangeError",
    message: "centring.gradSum must have 30 entries, got 29",
  });
  assert.throws(
    () => run(ext, { ...ok, hessSum: ok.hessSum.map((v, i) => (i === 5 ? NaN : v)) }),
    { name: "RangeError", message: "centring.hessSum[5] must be finite, got NaN" },
  );
  assert.throws(() => run(ext, { ...ok, llStarSum: Infinity }), {
    name: "RangeError",
    message: "centring.llStarSum must be a finite number, got Infinity",
  });
  assert.throws(() => run(ext, { ...ok, thetaStar: [0, 0] }), {
    name: "TypeError",
    message: "centring.thetaStar must be a Float64Array, got Array",
  });
  assert.throws(
    () => run(ext, { ...ok, hessSum: ok.hessSum.map((v, i) => (i === 1 ? 1 : v)) }),
    /centring\.hessSum must be symmetric, got \[1\]\[0\] = 0 and \[0\]\[1\] = 1/,
  );
  assert.throws(() => run(ext, ok, { thetaStar: ok.thetaStar }), {
    name: "TypeError",
    message: "give centring or thetaStar, not both (centring carries its θ*)",
  });
  // An in-memory GLM whose passes run on the calling thread takes the sums as they are (one
  // centring shared by a run's chains): no pass at θ*.
  const proxy = createProxy(hmcEcsSupport(glm), ok.thetaStar, 2, { sums: ok });
  assert.equal(proxy.llStarSum, ok.llStarSum);
  assert.deepEqual(proxy.gradSum, ok.gradSum);
  assert.deepEqual(proxy.hessSum, ok.hessSum);
  proxy.dispose();
  // A checked copy: later changes to the caller's arrays do not reach the sampler.
  const copy = checkCentring(ok, 30);
  ok.gradSum[0] = 1;
  assert.equal(copy.gradSum[0], 0);
});

Deno.test("a subset Hessian larger than a chunk is read in chunks: the in-memory sum up to rounding", () => {
  const n = 150000, d = 3, rng = new Rng(9);
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x.set([1, rng.normal(), rng.normal()], i * d);
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-x[i * d + 1])) ? 1 : 0;
  }
  const data = glmDataFromArrays(loadCore(), x, y, { numCols: d });
  const glm = new GlmModel(data, { family: "logistic" });
  const { ext, reads } = counting(new GlmModel(data, { family: "logistic" }));
  const theta = new Float64Array([0.1, 0.9, -0.2]);
  for (const fraction of [0.9, 1]) {
    reads.length = 0;
    const a = subsetHessian(glm, new Rng(2), { theta, fraction });
    const b = subsetHessian(ext, new Rng(2), { theta, fraction });
    assert.equal(b.numSubsetRows, a.numSubsetRows);
    for (let i = 0; i < d * d; i++) {
      assert.ok(
        Math.abs(b.hessian[i] - a.hessian[i]) <= 1e-12 * Math.abs(a.hessian[0]),
        `fraction ${fraction} [${i}]: ${b.hessian[i]} vs ${a.hessian[i]}`,
      );
    }
    // 0.9: three chunks read; 1: the model's own full-data pass, no rows read.
    const want = fraction < 1
      ? [EXTERNAL_CHUNK_ROWS, EXTERNAL_CHUNK_ROWS, 135000 - 2 * EXTERNAL_CHUNK_ROWS]
      : [];
    assert.deepEqual(reads, want);
  }
  assert.deepEqual(ext.cost, glm.cost);
});
