import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import type { Arena } from "../../core/arena.ts";
import { glmDataFromArrays, type Storage } from "../../data/dataset.ts";
import { type GlmFamily, GlmModel } from "../../models/glm.ts";
import { Rng } from "../../random/rng.ts";
import {
  ControlVariates,
  GatheredRows,
  type TaylorOrder,
} from "../../subsampling/control_variates.ts";
import { differenceEstimate, DifferenceEstimator } from "../../subsampling/difference_estimator.ts";
import { BlockPoissonEstimator } from "../../subsampling/block_poisson.ts";
import { BlockSubsample, PoissonSubsample } from "../../subsampling/subsample_state.ts";
import {
  blockPoissonTuning,
  chooseSubsampleSize,
  normalCdf,
  pilotDifferences,
  predictedBlockPoissonCost,
  subsetMap,
} from "../../subsampling/tuning.ts";

/** A small GLM data set: x = [1, N(0,1)…], y from the family at θ₀. */
function makeModel(
  arena: Arena,
  family: GlmFamily,
  options: { n: number; d: number; seed: number; storage?: Storage },
): { model: GlmModel; theta0: Float64Array } {
  const { n, d } = options;
  const rng = new Rng(options.seed);
  const theta0 = new Float64Array(d);
  for (let j = 0; j < d; j++) theta0[j] = 0.5 * rng.normal();
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) {
      const v = j === 0 ? 1 : rng.normal();
      x[i * d + j] = options.storage === "f32" ? Math.fround(v) : v;
      eta += theta0[j] * x[i * d + j];
    }
    if (family === "logistic") y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    else if (family === "gaussian") y[i] = eta + rng.normal();
    else y[i] = rng.poisson(Math.exp(Math.min(eta, 3)));
  }
  const data = glmDataFromArrays(arena, x, y, { numCols: d, storage: options.storage });
  const model = new GlmModel(data, {
    family,
    sigma: family === "gaussian" ? 1 : undefined,
    priorScale: 5,
  });
  return { model, theta0 };
}

function perturbed(theta: Float64Array, rng: Rng, scale: number): Float64Array {
  return theta.map((v) => v + scale * rng.normal());
}

Deno.test("ControlVariates claim: Σqₖ, ∇Σqₖ and per-row dₖ, ∂dₖ/∂η match direct evaluation", async (t) => {
  const arena = loadCore({ backend: "reference" });
  for (const family of ["logistic", "gaussian", "poisson"] as GlmFamily[]) {
    for (const storage of ["f64", "f32"] as Storage[]) {
      await t.step(`${family}, ${storage} storage`, () => {
        const n = 300, d = 4;
        const { model, theta0 } = makeModel(arena, family, { n, d, seed: 7, storage });
        const rng = new Rng(11);
        const thetaStar = perturbed(theta0, rng, 0.05);
        for (const order of [0, 1, 2] as TaylorOrder[]) {
          const cv = new ControlVariates(model, thetaStar, { order, chunkRows: 128 });
          const theta = perturbed(thetaStar, rng, 0.1);
          // Direct per-row ℓₖ(θ) and ℓₖ(θ*), ∇ℓₖ(θ*), Hₖ(θ*) from the model.
          const all = Int32Array.from({ length: n }, (_, i) => i);
          const ll = new Float64Array(n), llStar = new Float64Array(n);
          model.logLikelihoodRows(theta, all, { perRow: ll });
          model.logLikelihoodRows(thetaStar, all, { perRow: llStar });
          const g = new Float64Array(n * d);
          model.perRowGradients(thetaStar, all, g);
          // Hₖ = bₖ xₖxₖᵀ; get bₖ by finite differences of per-row gradients along xₖ.
          const h = 1e-5;
          const gp = new Float64Array(n * d), gm = new Float64Array(n * d);
          const q = new Float64Array(n);
          const delta = theta.map((v, j) => v - thetaStar[j]);
          // Quadratic form δᵀHₖδ = directional second derivative along δ.
          model.perRowGradients(thetaStar.map((v, j) => v + h * delta[j]), all, gp);
          model.perRowGradients(thetaStar.map((v, j) => v - h * delta[j]), all, gm);
          let sumQ = 0;
          for (let k = 0; k < n; k++) {
            let lin = 0, quad = 0;
            for (let j = 0; j < d; j++) {
              lin += g[k * d + j] * delta[j];
              quad += ((gp[k * d + j] - gm[k * d + j]) / (2 * h)) * delta[j];
            }
            q[k] = llStar[k] + (order >= 1 ? lin : 0) + (order === 2 ? 0.5 * quad : 0);
            sumQ += q[k];
          }
          const grad = new Float64Array(d);
          const s = cv.sumAndGradient(theta, grad);
          assert.ok(Math.abs(s - sumQ) < 1e-6 * (1 + Math.abs(sumQ)), `Σq order ${order}`);
          // ∇Σq vs central differences of Σq (exact for a quadratic).
          for (let j = 0; j < d; j++) {
            const e = 1e-4;
            const tp = theta.slice(), tm = theta.slice();
            tp[j] += e;
            tm[j] -= e;
            const fd = (cv.sum(tp) - cv.sum(tm)) / (2 * e);
            assert.ok(
              Math.abs(fd - grad[j]) < 1e-6 * (1 + Math.abs(fd)),
              `∇Σq[${j}] order ${order}`,
            );
          }
          // Per-row dₖ over a gathered buffer (rows in random order, repeats allowed).
          const idx = rng.sampleWithReplacement(n, 50);
          const rows = new GatheredRows(model.data, 50);
          rows.gather(idx, 0, cv.cache);
          const sumD = cv.differences(rows, theta);
          const dk = rows.diffs(0, 50), rk = rows.derivatives(0, 50).slice();
          let want = 0;
          for (let k = 0; k < 50; k++) {
            const dd = ll[idx[k]] - q[idx[k]];
            want += dd;
            assert.ok(Math.abs(dk[k] - dd) < 1e-7 * (1 + Math.abs(dd)), `d[${k}] order ${order}`);
          }
          assert.ok(Math.abs(sumD - want) < 1e-6 * (1 + Math.abs(want)));
          // ∇dₖ = rₖxₖ: check Σ rₖxₖ against central differences of Σdₖ.
          rows.weights(0, 50).set(rk);
          const gd = cv.weightedRowSum(rows, new Float64Array(d), { start: 0, end: 50 });
          for (let j = 0; j < d; j++) {
            const e = 1e-5;
            const tp = theta.slice(), tm = theta.slice();
            tp[j] += e;
            tm[j] -= e;
            const fd = (cv.differences(rows, tp, { derivative: false }) -
              cv.differences(rows, tm, { derivative: false })) / (2 * e);
            assert.ok(Math.abs(fd - gd[j]) < 1e-5 * (1 + Math.abs(fd)), `∇Σd[${j}] order ${order}`);
          }
          rows.dispose();
          cv.dispose();
        }
      });
    }
  }
});

Deno.test("ControlVariates.recenter() claim: one full pass counted as n ℓ rows, n gradient rows and (for B) n Hessian rows", () => {
  const arena = loadCore({ backend: "reference" });
  const { model, theta0 } = makeModel(arena, "logistic", { n: 500, d: 3, seed: 1 });
  const before = { ...model.cost };
  const cv = new ControlVariates(model, theta0, { order: 2 });
  assert.equal(model.cost.numLogLikRows - before.numLogLikRows, 500);
  assert.equal(model.cost.numGradRows - before.numGradRows, 500);
  assert.equal(model.cost.numHessianRows - before.numHessianRows, 500);
  const cv1 = new ControlVariates(model, theta0, { order: 1 });
  assert.equal(model.cost.numGradRows - before.numGradRows, 1000);
  assert.equal(model.cost.numHessianRows - before.numHessianRows, 500);
  assert.equal(cv.numCenterings, 1);
  // d(θ*) = 0 exactly at the expansion point, for every order.
  const rows = new GatheredRows(model.data, 10);
  rows.gather(Int32Array.from({ length: 10 }, (_, i) => 3 * i), 0, cv1.cache);
  assert.ok(Math.abs(cv1.differences(rows, theta0)) < 1e-12);
  assert.throws(() => new ControlVariates(model, theta0, { order: 3 as TaylorOrder }), /order/);
  assert.throws(() => cv.recenter(new Float64Array([NaN, 0, 0])), /finite/);
});

function fdGradient(f: (t: Float64Array) => number, theta: Float64Array, h = 1e-5): Float64Array {
  const g = new Float64Array(theta.length);
  for (let j = 0; j < theta.length; j++) {
    const tp = theta.slice(), tm = theta.slice();
    tp[j] += h;
    tm[j] -= h;
    g[j] = (f(tp) - f(tm)) / (2 * h);
  }
  return g;
}

/** Central differences have error O(h²)·f‴ + ε|f|/h; 1e-6 relative is far above both here. */
function assertClose(a: Float64Array, b: Float64Array, rel: number, what: string): void {
  for (let j = 0; j < a.length; j++) {
    assert.ok(
      Math.abs(a[j] - b[j]) <= rel * (1 + Math.abs(b[j])),
      `${what}[${j}]: ${a[j]} vs ${b[j]}`,
    );
  }
}

Deno.test("DifferenceEstimator.evaluate() claim: gradients of ℓ̂ₘ and ℓ̂ₘ − σ̂²ₘ/2 match finite differences", async (t) => {
  const arena = loadCore({ backend: "reference" });
  const { model, theta0 } = makeModel(arena, "logistic", { n: 2000, d: 4, seed: 3 });
  const rng = new Rng(5);
  for (const order of [0, 1, 2] as TaylorOrder[]) {
    await t.step(`Taylor order ${order}`, () => {
      const cv = new ControlVariates(model, perturbed(theta0, rng, 0.05), { order });
      const est = new DifferenceEstimator(
        new BlockSubsample(cv, rng, { subsampleSize: 60, numBlocks: 6 }),
      );
      const theta = perturbed(theta0, rng, 0.1);
      const g = new Float64Array(4), gl = new Float64Array(4);
      const e = est.evaluate(theta, { grad: g });
      est.evaluate(theta, { grad: gl, biasCorrected: false });
      assert.ok(e.variance > 0);
      assert.equal(e.value, e.logLikelihood - e.variance / 2);
      assertClose(g, fdGradient((x) => est.evaluate(x).value, theta), 1e-6, "∇(ℓ̂ − σ̂²/2)");
      assertClose(gl, fdGradient((x) => est.evaluate(x).logLikelihood, theta), 1e-6, "∇ℓ̂");
      // The σ̂² part alone, i.e. the derivative of eq. 10.
      const gv = fdGradient((x) => est.evaluate(x).variance, theta);
      assertClose(gl.map((v, j) => v - 0.5 * gv[j]), g, 1e-6, "∇σ̂²");
      cv.dispose();
    });
  }
});

Deno.test("differenceEstimate() claim: eqs. 8–10 and 12 on a hand-computed case", () => {
  const e = differenceEstimate([1, 2, 3, 6], { numRows: 8, sumControlVariates: 10 });
  assert.equal(e.logLikelihood, 10 + 8 * 3); // Σq + n·d̄
  assert.equal(e.variance, (8 / 4) ** 2 * (4 + 1 + 0 + 9)); // (n/m)² Σ(d − d̄)²
  assert.equal(e.value, 34 - 28);
});

Deno.test("DifferenceEstimator.evaluateProposal() claim: scoring a block proposal equals evaluating after acceptance", () => {
  const arena = loadCore({ backend: "reference" });
  const { model, theta0 } = makeModel(arena, "poisson", { n: 1000, d: 3, seed: 9 });
  const rng = new Rng(2);
  const cv = new ControlVariates(model, theta0, { order: 1 });
  const u = new BlockSubsample(cv, rng, { subsampleSize: 50, numBlocks: 7 });
  const est = new DifferenceEstimator(u);
  const theta = perturbed(theta0, rng, 0.05);
  for (let it = 0; it < 20; it++) {
    const cur = est.evaluate(theta);
    const before = { ...model.cost };
    const p = u.propose(rng);
    const { estimate } = est.evaluateProposal(theta, {
      proposal: p,
      currentDiffs: est.lastDiffs.slice(),
    });
    assert.equal(model.cost.numLogLikRows - before.numLogLikRows, p.end - p.start);
    u.accept(p);
    const after = est.evaluate(theta);
    assert.ok(Math.abs(after.value - estimate.value) < 1e-9 * (1 + Math.abs(after.value)));
    assert.ok(cur.value !== after.value);
  }
});

Deno.test("DifferenceEstimator.evaluate() claim: after an accepted block at the same θ, the other rows' values are reused and the estimate is bit for bit a new pass's", async (t) => {
  for (const backend of ["reference", "auto"] as const) {
    await t.step(backend, () => {
      const arena = loadCore({ backend });
      const { model, theta0 } = makeModel(arena, "logistic", { n: 1000, d: 5, seed: 6 });
      const rng = new Rng(3);
      const cv = new ControlVariates(model, theta0, { order: 2 });
      const m = 50;
      const u = new BlockSubsample(cv, rng, { subsampleSize: m, numBlocks: 7 }); // blocks of 7 and 8
      const est = new DifferenceEstimator(u);
      const g = new Float64Array(5), gFull = new Float64Array(5);
      let reused = 0;
      for (let it = 0; it < 30; it++) {
        const theta = perturbed(theta0, rng, 0.05);
        est.evaluate(theta, { grad: g });
        assert.equal(est.lastRowsEvaluated, m);
        const p = u.propose(rng);
        est.evaluateProposal(theta, { proposal: p, currentDiffs: est.lastDiffs.slice() });
        u.accept(p);
        // Every third iteration moves θ first: nothing can be reused then.
        const at = it % 3 === 2 ? perturbed(theta, rng, 0.01) : theta;
        const e = est.evaluate(at, { grad: g });
        const known = est.lastRowsEvaluated < m;
        assert.equal(known, at === theta);
        if (known) reused++;
        est.evaluate(at); // without derivatives: forgets what the buffer holds
        const full = est.evaluate(at, { grad: gFull });
        assert.equal(est.lastRowsEvaluated, m);
        assert.deepEqual(
          [e.value, e.variance, e.logLikelihood],
          [full.value, full.variance, full.logLikelihood],
        );
        assert.deepEqual(Array.from(g), Array.from(gFull));
      }
      assert.equal(reused, 20);
      cv.dispose();
    });
  }
});

Deno.test("BlockSubsample claim: successive ℓ̂ₘ after one block refresh have correlation 1 − 1/G", () => {
  // ℓ̂ₘ = Σq + (n/m)Σ blocks; replacing one of G equal blocks by an independent
  // copy gives corr = 1 − 1/G exactly. Sample correlation of N independent
  // pairs has standard error ≈ (1 − ρ²)/√N; we allow 4 of them.
  const arena = loadCore({ backend: "reference" });
  const { model, theta0 } = makeModel(arena, "logistic", { n: 3000, d: 3, seed: 4 });
  const rng = new Rng(8);
  const cv = new ControlVariates(model, theta0, { order: 1 });
  const G = 10, N = 3000;
  const u = new BlockSubsample(cv, rng, { subsampleSize: 100, numBlocks: G });
  const est = new DifferenceEstimator(u);
  const theta = perturbed(theta0, rng, 0.1);
  const a = new Float64Array(N), b = new Float64Array(N);
  for (let k = 0; k < N; k++) {
    for (let g = 0; g < G; g++) u.accept(u.propose(rng, g)); // independent fresh u
    a[k] = est.evaluate(theta).logLikelihood;
    u.accept(u.propose(rng));
    b[k] = est.evaluate(theta).logLikelihood;
  }
  const rho = correlation(a, b), want = 1 - 1 / G;
  const se = (1 - want * want) / Math.sqrt(N);
  assert.ok(Math.abs(rho - want) < 4 * se, `ρ = ${rho}, want ${want} ± ${4 * se}`);
});

function correlation(a: Float64Array, b: Float64Array): number {
  const n = a.length;
  let ma = 0, mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i] / n;
    mb += b[i] / n;
  }
  let sab = 0, saa = 0, sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}

Deno.test("BlockPoissonEstimator.evaluate() claim: ∇log|L̂ₘ| matches finite differences for fixed u and χ", () => {
  const arena = loadCore({ backend: "reference" });
  const { model, theta0 } = makeModel(arena, "logistic", { n: 2000, d: 4, seed: 13 });
  const rng = new Rng(21);
  const cv = new ControlVariates(model, perturbed(theta0, rng, 0.05), { order: 2 });
  const u = new PoissonSubsample(cv, rng, { batchSize: 10, numProducts: 15 });
  const est = new BlockPoissonEstimator(u, { lowerBound: -15 });
  const theta = perturbed(theta0, rng, 0.1);
  const g = new Float64Array(4);
  const e = est.evaluate(theta, { grad: g });
  assert.ok(Number.isFinite(e.logAbs));
  assertClose(g, fdGradient((x) => est.evaluate(x).logAbs, theta), 1e-6, "∇log|L̂|");
});

Deno.test("BlockPoissonEstimator claim: L̂ₘ/exp(Σq) is unbiased for exp(Σₖ(ℓₖ − qₖ))", async (t) => {
  // Independent draws of (χ, u) at fixed θ; the sample mean of the signed
  // ratio L̂/exp(Σq) must be within 4 standard errors of exp(D), D = Σₖ dₖ(θ)
  // computed exactly over all n rows. Two lower bounds: a = D − λ (signs
  // almost always positive) and a = D − λ/4 (about 12 % negative estimates).
  const arena = loadCore({ backend: "reference" });
  const { model, theta0 } = makeModel(arena, "logistic", { n: 400, d: 3, seed: 17 });
  const rng = new Rng(33);
  const cv = new ControlVariates(model, theta0, { order: 1 });
  const theta = perturbed(theta0, rng, 0.15);
  const all = new GatheredRows(model.data, 400);
  all.gather(Int32Array.from({ length: 400 }, (_, i) => i), 0, cv.cache);
  const D = cv.differences(all, theta, { derivative: false });
  const lam = 8;
  for (const [label, a] of [["a = D − λ", D - lam], ["a = D − λ/4", D - lam / 4]] as const) {
    await t.step(label, () => {
      const u = new PoissonSubsample(cv, rng, {
        batchSize: 5,
        numProducts: lam,
        numRefreshed: lam,
      });
      const est = new BlockPoissonEstimator(u, { lowerBound: a });
      const N = 40000, sumQ = cv.sum(theta);
      let s = 0, s2 = 0, neg = 0;
      for (let k = 0; k < N; k++) {
        u.accept(u.propose(rng));
        const e = est.evaluate(theta);
        const v = e.sign * Math.exp(e.logAbs - sumQ - D); // unbiased for 1
        s += v;
        s2 += v * v;
        if (e.sign < 0) neg++;
      }
      const mean = s / N, se = Math.sqrt((s2 / N - mean * mean) / N);
      assert.ok(Math.abs(mean - 1) < 4 * se, `mean ${mean}, se ${se}, negative ${neg / N}`);
    });
  }
});

Deno.test("PoissonSubsample claim: refreshing κ of λ products gives corr(log|L̂|) = 1 − κ/λ", () => {
  // log|L̂| − const = Σₗ Yₗ with i.i.d. product terms Yₗ, so replacing κ of them
  // gives correlation 1 − κ/λ; standard error (1 − ρ²)/√N as above.
  const arena = loadCore({ backend: "reference" });
  const { model, theta0 } = makeModel(arena, "logistic", { n: 2000, d: 3, seed: 19 });
  const rng = new Rng(44);
  const cv = new ControlVariates(model, theta0, { order: 1 });
  const theta = perturbed(theta0, rng, 0.1);
  const lam = 20, kappa = 2, N = 3000;
  const u = new PoissonSubsample(cv, rng, { batchSize: 5, numProducts: lam, numRefreshed: kappa });
  const est = new BlockPoissonEstimator(u, { lowerBound: -40 });
  const everyProduct = Int32Array.from({ length: lam }, (_, l) => l);
  const a = new Float64Array(N), b = new Float64Array(N);
  for (let k = 0; k < N; k++) {
    u.accept(u.propose(rng, everyProduct)); // an independent fresh (χ, u)
    a[k] = est.evaluate(theta).logAbs;
    const cur = est.lastBatchEstimates.slice(0, u.numSlots);
    const p = u.propose(rng);
    const scored = est.evaluateProposal(theta, { proposal: p, currentBatchEstimates: cur });
    u.accept(p);
    b[k] = est.evaluate(theta).logAbs;
    assert.ok(Math.abs(scored.estimate.logAbs - b[k]) < 1e-9 * (1 + Math.abs(b[k])));
  }
  const rho = correlation(a, b), want = 1 - kappa / lam;
  const se = (1 - want * want) / Math.sqrt(N);
  assert.ok(Math.abs(rho - want) < 4 * se, `ρ = ${rho}, want ${want} ± ${4 * se}`);
});

Deno.test("subsetMap() claim: with the full data it is the MAP (zero gradient) with the exact negative Hessian", () => {
  const arena = loadCore({ backend: "reference" });
  const { model } = makeModel(arena, "logistic", { n: 3000, d: 3, seed: 23 });
  const r = subsetMap(model, new Rng(1), { fraction: 1 });
  const g = new Float64Array(3);
  model.logDensityAndGradient(r.thetaStar, g);
  const h = new Float64Array(9), hp = new Float64Array(9);
  model.logLikelihoodHessian(r.thetaStar, h);
  model.logPriorHessian(r.thetaStar, hp);
  // Newton decrement < 1e-10 ⇒ |g| ≲ √(2e-10 · λmax(−H)); −H ~ n/4 here.
  for (let j = 0; j < 3; j++) {
    assert.ok(Math.abs(g[j]) < Math.sqrt(2e-10 * 3000), `g[${j}] = ${g[j]}`);
  }
  for (let i = 0; i < 9; i++) assert.ok(Math.abs(r.precision[i] + h[i] + hp[i]) < 1e-8 * 3000);
  assert.equal(r.numSubsetRows, 3000);
});

Deno.test("chooseSubsampleSize() claim: the chosen m gives Var ℓ̂ₘ ≈ targetVariance", () => {
  // Pilot over all n rows at one θ gives the exact s²; then Var ℓ̂ₘ = n²s²/m.
  // The empirical variance over N independent subsamples has standard error
  // √((μ₄ − σ⁴)/N), estimated from the same draws; m is rounded up, so the
  // expected variance is n²s²/m ≤ target.
  const arena = loadCore();
  const { model, theta0 } = makeModel(arena, "logistic", { n: 4000, d: 3, seed: 29 });
  const cv = new ControlVariates(model, theta0, { order: 1 });
  const rng = new Rng(3);
  const theta = perturbed(theta0, rng, 0.1);
  const pilot = pilotDifferences(cv, { thetas: [theta], rng, pilotSize: 400000 });
  const m = chooseSubsampleSize(pilot, { targetVariance: 1, minSize: 2 });
  const want = (4000 * 4000 * pilot.variance[0]) / m;
  assert.ok(want <= 1 && want > 0.5, `predicted ${want} at m = ${m}`);
  const u = new BlockSubsample(cv, rng, { subsampleSize: m, numBlocks: 1 });
  const est = new DifferenceEstimator(u);
  const N = 3000, v = new Float64Array(N);
  for (let k = 0; k < N; k++) {
    u.accept(u.propose(rng, 0));
    v[k] = est.evaluate(theta).logLikelihood;
  }
  const mu = v.reduce((a, b) => a + b) / N;
  const s2 = v.reduce((a, b) => a + (b - mu) ** 2, 0) / (N - 1);
  const m4 = v.reduce((a, b) => a + (b - mu) ** 4, 0) / N;
  const se = Math.sqrt((m4 - s2 * s2) / N);
  assert.ok(Math.abs(s2 - want) < 4 * se, `empirical ${s2} vs ${want} ± ${4 * se}`);
});

Deno.test("blockPoissonTuning() claim: Var log|L̂| ≈ σ²/λ and P(factor < 0) ≈ Φ(−λ/σ) for the real estimator", async (t) => {
  const arena = loadCore();
  const { model, theta0 } = makeModel(arena, "logistic", { n: 4000, d: 3, seed: 31 });
  const cv = new ControlVariates(model, theta0, { order: 1 });
  const rng = new Rng(4);
  const theta = perturbed(theta0, rng, 0.08);
  const all = new GatheredRows(model.data, 4000);
  all.gather(Int32Array.from({ length: 4000 }, (_, i) => i), 0, cv.cache);
  const D = cv.differences(all, theta, { derivative: false });
  const dk = all.diffs(0, 4000).slice();
  const mu = D / 4000;
  let m2 = 0, m3 = 0;
  for (const v of dk) {
    m2 += (v - mu) ** 2 / 4000;
    m3 += (v - mu) ** 3 / 4000;
  }
  const m = 200, lam = 10;
  const sigma = (4000 * Math.sqrt(m2)) / Math.sqrt(m); // sd of one mini-batch d̂
  const skew = m3 / m2 ** 1.5 / Math.sqrt(m); // skewness of d̂
  const run = (a: number, draws: number) => {
    const u = new PoissonSubsample(cv, rng, { batchSize: m, numProducts: lam, numRefreshed: lam });
    const est = new BlockPoissonEstimator(u, { lowerBound: a });
    const logs = new Float64Array(draws);
    let neg = 0, slots = 0;
    for (let k = 0; k < draws; k++) {
      u.accept(u.propose(rng));
      logs[k] = est.evaluate(theta).logAbs;
      for (let s = 0; s < u.numSlots; s++) if (est.lastBatchEstimates[s] < a) neg++;
      slots += u.numSlots;
    }
    return { logs, neg, slots };
  };
  await t.step("negative factors at λ/σ ≈ 1.5", () => {
    // Scale λ relative to σ via a: factor (d̂ − a)/λ < 0 ⇔ d̂ − D < a − D = −c.
    const c = 1.5 * sigma;
    const { neg, slots } = run(D - c, 3000);
    const p = neg / slots, z = -c / sigma;
    const want = normalCdf(z);
    // One-term Edgeworth correction of the normal tail for skewness γ.
    const edge = (Math.abs(skew) / 6) * Math.abs(z * z - 1) * Math.exp(-z * z / 2) /
      Math.sqrt(2 * Math.PI);
    const se = Math.sqrt((want * (1 - want)) / slots);
    assert.ok(Math.abs(p - want) < 4 * se + edge, `P(neg) ${p} vs Φ ${want} ± ${4 * se + edge}`);
  });
  await t.step("Var log|L̂| at σ/λ ≤ 0.1", () => {
    // The factor scale λ' = D − a is set to max(λ, 10σ) so that σ/λ' ≤ 0.1;
    // compare with λE[log²|1 + Z/λ'|] ≈ λσ²/λ'² up to the next Taylor terms
    // −μ₃/λ'³ + (11/12)·3σ⁴/λ'⁴ per factor.
    const a = D - lam * Math.max(1, sigma / (0.1 * lam)); // effective scale λ' = D − a
    const lamEff = D - a;
    const { logs } = run(a, 4000);
    const N = logs.length, mean = logs.reduce((x, y) => x + y) / N;
    const v = logs.reduce((x, y) => x + (y - mean) ** 2, 0) / (N - 1);
    // log|L̂| = const + Σ log|(d̂ − a)/λ| = const' + Σ log|1 + Z/λ'|, Var = λE[log²|1 + Z/λ'|].
    const r = sigma / lamEff;
    const lead = lam * r * r;
    const next = lam * (Math.abs(skew) * r ** 3 + (11 / 4) * r ** 4);
    const m4 = logs.reduce((x, y) => x + (y - mean) ** 4, 0) / N;
    const se = Math.sqrt((m4 - v * v) / N);
    assert.ok(Math.abs(v - lead) < 4 * se + next, `Var ${v} vs σ²/λ ${lead} ± ${4 * se + next}`);
  });
});

Deno.test("blockPoissonTuning() claim: λ minimises the predicted CT and a = D̃ − λ", () => {
  const n = 1e6, m = 30;
  const sigma = 20; // mini-batch sd
  const pilot = {
    numRows: n,
    pilotSize: 1000,
    mean: new Float64Array([2e-6, 2e-6]),
    variance: new Float64Array(2).fill((sigma * sigma * m) / (n * n)),
  };
  const t = blockPoissonTuning(pilot, { batchSize: m, minProducts: 1, maxProducts: 5000 });
  assert.ok(Math.abs(t.batchSd - sigma) < 1e-9);
  for (const lam of [t.numProducts - 1, t.numProducts + 1]) {
    assert.ok(
      predictedBlockPoissonCost(sigma, lam) >= predictedBlockPoissonCost(sigma, t.numProducts),
    );
  }
  // For σ ≫ 1 the optimum sits near Var log|L̂| = σ²/λ ≈ 2.5 (module docs).
  assert.ok(t.varianceLogAbs > 2 && t.varianceLogAbs < 3, `Var ${t.varianceLogAbs}`);
  assert.ok(Math.abs(t.lowerBound - (n * 2e-6 - t.numProducts)) < 1e-9);
  assert.ok(t.probPositive > 0.999);
});
