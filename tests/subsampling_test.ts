import assert from "node:assert/strict";
import { loadCore } from "../core/load.ts";
import type { Arena } from "../core/arena.ts";
import { glmDataFromArrays, type Storage } from "../data/dataset.ts";
import { type GlmFamily, GlmModel } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import {
  ControlVariates,
  GatheredRows,
  type TaylorOrder,
} from "../subsampling/control_variates.ts";

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
          const dk = arena.f64(rows.diff, 50), rk = arena.readF64(rows.r, 50);
          let want = 0;
          for (let k = 0; k < 50; k++) {
            const dd = ll[idx[k]] - q[idx[k]];
            want += dd;
            assert.ok(Math.abs(dk[k] - dd) < 1e-7 * (1 + Math.abs(dd)), `d[${k}] order ${order}`);
          }
          assert.ok(Math.abs(sumD - want) < 1e-6 * (1 + Math.abs(want)));
          // ∇dₖ = rₖxₖ: check Σ rₖxₖ against central differences of Σdₖ.
          arena.f64(rows.w, 50).set(rk);
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

Deno.test("ControlVariates.recenter() claim: one full pass counted as n ℓ rows and n (+n for B) gradient rows", () => {
  const arena = loadCore({ backend: "reference" });
  const { model, theta0 } = makeModel(arena, "logistic", { n: 500, d: 3, seed: 1 });
  const before = { ...model.cost };
  const cv = new ControlVariates(model, theta0, { order: 2 });
  assert.equal(model.cost.numLogLikRows - before.numLogLikRows, 500);
  assert.equal(model.cost.numGradRows - before.numGradRows, 1000);
  const cv1 = new ControlVariates(model, theta0, { order: 1 });
  assert.equal(model.cost.numGradRows - before.numGradRows, 1500);
  assert.equal(cv.numCenterings, 1);
  // d(θ*) = 0 exactly at the expansion point, for every order.
  const rows = new GatheredRows(model.data, 10);
  rows.gather(Int32Array.from({ length: 10 }, (_, i) => 3 * i), 0, cv1.cache);
  assert.ok(Math.abs(cv1.differences(rows, theta0)) < 1e-12);
  assert.throws(() => new ControlVariates(model, theta0, { order: 3 as TaylorOrder }), /order/);
  assert.throws(() => cv.recenter(new Float64Array([NaN, 0, 0])), /finite/);
});
