/**
 * Student-t regression with sampled ν (`GlmModel` family "student-t" with
 * `nu: "sample"`, kernel family "student-t-nu"): exact values of the ν terms
 * (log Γ, ψ and ψ' at half-integers), finite differences of the gradient and
 * Hessian in every parameter on every backend, and HMC and HMC-ECS against a
 * quadrature whose weights come from a plain loop written here.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { cholesky, inverseSpd } from "../../math/linalg.ts";
import { logGamma } from "../../math/special.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import { DEFAULT_NU_PRIOR, nuLogPrior } from "../../models/nu_prior.ts";
import { runHmcEcs } from "../../samplers/hmc_ecs/mod.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { _normal, _rng } from "../_core_fixtures.ts";
import { assertPosteriorMatches, posteriorSummary } from "../_stat.ts";

const BACKENDS = ["reference", "simd", "relaxed-simd"] as const;

/** y = 0.5 − 1.2x + σ·t_ν noise (t as normal / √(χ²_ν/ν), ν integer). */
function _data(n: number, nu: number, sigma: number, seed: number) {
  const d = 2, u = _rng(seed), x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * d] = 1;
    x[i * d + 1] = _normal(u);
    let chi = 0;
    for (let k = 0; k < nu; k++) chi += _normal(u) ** 2;
    y[i] = 0.5 - 1.2 * x[i * d + 1] + sigma * _normal(u) / Math.sqrt(chi / nu);
  }
  return { x, y, d };
}

const OPTIONS: GlmOptions = { family: "student-t", nu: "sample", priorScale: 5 };

/**
 * Exact ℓ, ℓ_ω, ℓ_ωω of one row with y = η (r = 0) and τ = 0 at ν = 1 + e^ω:
 * ℓ = log Γ((ν+1)/2) − log Γ(ν/2) − ½log νπ, ℓ_ν = ½(Δψ − 1/ν), ℓ_νν = ¼Δψ' + 1/(2ν²)
 * with Δψ = ψ((ν+1)/2) − ψ(ν/2), Δψ' likewise; ℓ_ω = ν'ℓ_ν, ℓ_ωω = ν'²ℓ_νν + ν'ℓ_ν (ν' = ν − 1).
 * Δlog Γ, Δψ, Δψ' at half-integers from Γ(½) = √π, ψ(1) = −γ, ψ(½) = −γ − 2 log 2,
 * ψ'(1) = π²/6, ψ'(½) = π²/2 and the recurrences ψ(x+1) = ψ(x) + 1/x, ψ'(x+1) = ψ'(x) − 1/x².
 */
const EXACT = [
  // ν = 2: (ν+1)/2 = 3/2, ν/2 = 1
  {
    nu: 2,
    dlg: Math.log(Math.sqrt(Math.PI) / 2),
    dpsi: 2 - 2 * Math.LN2,
    dtri: Math.PI ** 2 / 3 - 4,
  },
  // ν = 3: 2 and 3/2
  {
    nu: 3,
    dlg: -Math.log(Math.sqrt(Math.PI) / 2),
    dpsi: 2 * Math.LN2 - 1,
    dtri: 3 - Math.PI ** 2 / 3,
  },
  // ν = 5: 3 and 5/2
  {
    nu: 5,
    dlg: Math.LN2 - Math.log(0.75 * Math.sqrt(Math.PI)),
    dpsi: 2 * Math.LN2 - 7 / 6,
    dtri: 2.75 + 4 / 9 - Math.PI ** 2 / 3,
  },
];

Deno.test("GlmModel student-t nu: sample, exact values at ν = 2, 3, 5 on every backend", () => {
  for (const backend of BACKENDS) {
    const arena = loadCore({ backend });
    const model = new GlmModel(glmDataFromArrays(arena, [1], [0.7], { numCols: 1 }), OPTIONS);
    assert.deepEqual(model.parameterNames.slice(1), ["log_sigma", "log_nu_minus_1"]);
    for (const c of EXACT) {
      const nm1 = c.nu - 1;
      const lnu = 0.5 * (c.dpsi - 1 / c.nu), lnn = 0.25 * c.dtri + 0.5 / c.nu ** 2;
      const want = {
        l: c.dlg - 0.5 * Math.log(c.nu * Math.PI),
        g: nm1 * lnu,
        h: nm1 * nm1 * lnn + nm1 * lnu,
      };
      const th = new Float64Array([0.7, 0, Math.log(nm1)]), g = new Float64Array(3);
      const h = new Float64Array(9);
      const l = model.logLikelihood(th, g);
      model.logLikelihoodHessian(th, h);
      const msg = `${backend} ν = ${c.nu}: ℓ ${l} vs ${want.l}, ℓ_ω ${g[2]} vs ${want.g}, ` +
        `ℓ_ωω ${h[8]} vs ${want.h}`;
      assert.ok(Math.abs(l - want.l) < 1e-13, msg);
      assert.ok(Math.abs(g[2] - want.g) < 1e-13, msg);
      assert.ok(Math.abs(h[8] - want.h) < 1e-13, msg);
    }
    // ω out of the kernels' range: zero density, no exception mid-trajectory
    const g = new Float64Array(3);
    assert.equal(model.logDensityAndGradient(new Float64Array([0.7, 0, 800]), g), -Infinity);
    model.dispose();
  }
});

Deno.test("GlmModel student-t nu: sample, gradient and Hessian match finite differences", async (t) => {
  const { x, y, d } = _data(60, 3, 0.8, 5);
  // points include ν ≈ 1.05 (ω = −3), ν = 2 and ν ≈ 21
  const points = [
    [0.4, -1.1, -0.2, -3],
    [0.6, -1.3, 0.3, 0],
    [0.5, -1.2, -0.5, 3],
  ];
  const ref: number[][] = [];
  for (const backend of BACKENDS) {
    await t.step(backend, () => {
      const arena = loadCore({ backend });
      const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), OPTIONS);
      const P = model.dim, g = new Float64Array(P), gp = new Float64Array(P);
      const gm = new Float64Array(P), h = new Float64Array(P * P);
      assert.equal(P, 4);
      for (const [pi, pt] of points.entries()) {
        const th = new Float64Array(pt);
        const f = model.logLikelihood(th, g);
        model.logLikelihoodHessian(th, h);
        if (backend === "reference") ref[pi] = [f, ...g, ...h];
        else {
          const all = [f, ...g, ...h];
          all.forEach((v, k) =>
            assert.ok(
              Math.abs(v - ref[pi][k]) <= 1e-11 * (1 + Math.abs(v)),
              `${backend} vs reference at point ${pi}, entry ${k}: ${v} vs ${ref[pi][k]}`,
            )
          );
        }
        for (let j = 0; j < P; j++) {
          const e = 1e-5, tp = th.slice(), tm = th.slice();
          tp[j] += e;
          tm[j] -= e;
          const fd = (model.logLikelihood(tp, gp) - model.logLikelihood(tm, gm)) / (2 * e);
          assert.ok(
            Math.abs(fd - g[j]) < 1e-6 * (1 + Math.abs(g[j])),
            `point ${pi} ∂${j}: ${g[j]} vs FD ${fd}`,
          );
          for (let k = 0; k < P; k++) {
            const fdh = (gp[k] - gm[k]) / (2 * e);
            assert.ok(
              Math.abs(fdh - h[j * P + k]) < 1e-6 * (1 + Math.abs(h[j * P + k])),
              `point ${pi} ∂²${j}${k}: ${h[j * P + k]} vs FD ${fdh}`,
            );
          }
        }
        // per-row gradients and Hessians sum to the full ones
        const rows = Int32Array.from({ length: 60 }, (_, i) => i);
        const pg = new Float64Array(60 * P), ph = new Float64Array(60 * P * P);
        model.perRowGradients(th, rows, pg);
        model.perRowHessians(th, rows, ph);
        for (let j = 0; j < P; j++) {
          let s = 0;
          for (let i = 0; i < 60; i++) s += pg[i * P + j];
          assert.ok(Math.abs(s - g[j]) < 1e-9 * (1 + Math.abs(g[j])), `Σ per-row ∂${j}`);
          for (let k = 0; k < P; k++) {
            let sh = 0;
            for (let i = 0; i < 60; i++) sh += ph[i * P * P + j * P + k];
            assert.ok(
              Math.abs(sh - h[j * P + k]) < 1e-9 * (1 + Math.abs(sh)),
              `Σ per-row ∂²${j}${k}`,
            );
          }
        }
      }
      model.dispose();
    });
  }
});

Deno.test("nuLogPrior() derivatives match finite differences", () => {
  for (const w of [-4, -1, 0, 1.5, 3, 5]) {
    const [, g, h] = nuLogPrior(DEFAULT_NU_PRIOR, w), e = 1e-5;
    const fd = (nuLogPrior(DEFAULT_NU_PRIOR, w + e)[0] - nuLogPrior(DEFAULT_NU_PRIOR, w - e)[0]) /
      (2 * e);
    const fdh = (nuLogPrior(DEFAULT_NU_PRIOR, w + e)[1] - nuLogPrior(DEFAULT_NU_PRIOR, w - e)[1]) /
      (2 * e);
    assert.ok(Math.abs(fd - g) < 1e-7 * (1 + Math.abs(g)), `ω ${w}: ${g} vs ${fd}`);
    assert.ok(Math.abs(fdh - h) < 1e-7 * (1 + Math.abs(h)), `ω ${w}: ${h} vs ${fdh}`);
  }
  // normalised: ∫ p(ω) dω = 1 (trapezoid over ω ∈ [−30, 8])
  let s = 0;
  for (let w = -30; w <= 8; w += 1e-3) s += Math.exp(nuLogPrior({ shape: 3, rate: 0.5 }, w)[0]);
  assert.ok(Math.abs(s * 1e-3 - 1) < 1e-6, `∫p = ${s * 1e-3}`);
});

Deno.test("GlmModel student-t nu: sample rejects misused options", () => {
  const arena = loadCore({ backend: "reference" });
  const data = glmDataFromArrays(arena, [1, 2], [0.1, 0.3], { numCols: 1 });
  assert.throws(
    () => new GlmModel(data, { family: "student-t", nu: "guess" as unknown as "sample" }),
    /nu must be a positive number or "sample"/,
  );
  assert.throws(
    () => new GlmModel(data, { family: "student-t", nu: 4, nuPrior: { shape: 2, rate: 0.1 } }),
    /nuPrior applies/,
  );
  assert.throws(
    () => new GlmModel(data, { ...OPTIONS, nuPrior: { shape: 0, rate: 0.1 } }),
    /nuPrior.shape must be positive/,
  );
});

// ---- posterior against an independent reference ---------------------------------------------

interface Reference {
  mean: Float64Array;
  sd: Float64Array;
}

/** log π(θ) by a plain loop (β ~ N(0, 5²), σ half-normal(10), ν Gamma(2, 0.1) on ν > 1). */
function _plainLogPosterior(x: Float64Array, y: Float64Array, d: number, th: Float64Array) {
  const n = y.length, tau = th[d], sigma = Math.exp(tau), nu = 1 + Math.exp(th[d + 1]);
  let lp = 0;
  for (let j = 0; j < d; j++) lp -= th[j] * th[j] / 50;
  lp += -0.5 * (sigma / 10) ** 2 + tau;
  lp += Math.log(nu) - 0.1 * nu + th[d + 1];
  const c = logGamma((nu + 1) / 2) - logGamma(nu / 2) - 0.5 * Math.log(nu * Math.PI) - tau;
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) eta += x[i * d + j] * th[j];
    const z = (y[i] - eta) / sigma;
    lp += c - 0.5 * (nu + 1) * Math.log1p(z * z / nu);
  }
  return lp;
}

/** Newton MAP on the model (it only places the grid; the weights are the plain loop's). */
function _map(model: GlmModel, start: Float64Array) {
  const P = model.dim, th = start.slice(), g = new Float64Array(P);
  const h = new Float64Array(P * P), hp = new Float64Array(P * P);
  let cov: Float64Array = new Float64Array(P * P);
  for (let it = 0; it < 100; it++) {
    const f = model.logDensityAndGradient(th, g);
    model.logLikelihoodHessian(th, h);
    model.logPriorHessian(th, hp);
    cov = inverseSpd(h.map((v, i) => -(v + hp[i])));
    const step = new Float64Array(P);
    for (let j = 0; j < P; j++) for (let k = 0; k < P; k++) step[j] += cov[j * P + k] * g[k];
    let t = 1;
    for (; t > 1e-8; t /= 2) {
      const tn = th.map((v, j) => v + t * step[j]);
      if (model.logDensity(tn) >= f - 1e-12) {
        th.set(tn);
        break;
      }
    }
    if (step.reduce((a, v) => a + Math.abs(v), 0) < 1e-10) break;
  }
  return { mode: th, cov };
}

/** Trapezoid quadrature over ±6 Laplace sds, k points per axis, weights from the plain loop. */
function _quadrature(model: GlmModel, x: Float64Array, y: Float64Array, d: number, k: number) {
  const P = model.dim, { mode, cov } = _map(model, new Float64Array([0.5, -1.2, 0, 1]));
  const l = cholesky(cov), f0 = _plainLogPosterior(x, y, d, mode);
  const th = new Float64Array(P), z = new Float64Array(P);
  const s1 = new Float64Array(P), s2 = new Float64Array(P);
  let s0 = 0;
  for (let q = 0; q < k ** P; q++) {
    let r = q;
    for (let j = 0; j < P; j++) {
      z[j] = -6 + (12 * (r % k)) / (k - 1);
      r = Math.floor(r / k);
    }
    for (let j = 0; j < P; j++) {
      let v = mode[j];
      for (let i = 0; i <= j; i++) v += l[j * P + i] * z[i];
      th[j] = v;
    }
    const w = Math.exp(_plainLogPosterior(x, y, d, th) - f0);
    s0 += w;
    for (let j = 0; j < P; j++) {
      s1[j] += w * th[j];
      s2[j] += w * th[j] * th[j];
    }
  }
  const mean = s1.map((v) => v / s0);
  return { mean, sd: s2.map((v, j) => Math.sqrt(v / s0 - mean[j] ** 2)) };
}

Deno.test("GlmModel student-t nu: sample, HMC and HMC-ECS match a plain-loop quadrature", async (t) => {
  const n = 2000, { x, y, d } = _data(n, 4, 0.8, 21);
  const arena = loadCore();
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), OPTIONS);
  const ref = _quadrature(model, x, y, d, 15);
  console.log(`quadrature: mean ${Array.from(ref.mean)}, sd ${Array.from(ref.sd)}`);
  const HMC = { numWarmup: 500, numSamples: 1000, numChains: 4 } as const;
  await t.step("full-data HMC", () => {
    assertPosteriorMatches(
      "HMC",
      posteriorSummary(runHmc(model, { ...HMC, seed: 3 }), model.dim),
      ref,
    );
  });
  await t.step("HMC-ECS (perturbed)", () => {
    const run = runHmcEcs(model, { ...HMC, seed: 4, numChains: 2, numSamples: 2000 });
    assertPosteriorMatches("HMC-ECS", posteriorSummary(run, model.dim), ref);
    const rows = run.chains[0].cost.sampling.numLogLikRows;
    assert.ok(rows < 0.5 * n * 2000, `HMC-ECS evaluated ${rows} rows`);
  });
  model.dispose();
});
