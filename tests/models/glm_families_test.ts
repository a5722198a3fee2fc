/**
 * Posterior checks of the extended GLM families: full-data HMC and HMC-ECS on
 * data generated here against an exact reference — the conjugate posterior
 * for Gaussian regression with unknown σ (flat prior on β, inverse gamma on
 * σ²), and a grid quadrature of the model's own posterior (±6 Laplace sds
 * along the Laplace axes) for Student-t, NB2, Poisson-with-offset and
 * binomial. The criterion: means within 0.1 posterior sd, sds within
 * 10 %.
 *
 * Run: deno test --allow-read tests/models/glm_families_test.ts
 */
import assert from "node:assert/strict";
import type { GlmExtFamilyName } from "../../core/glm_kernels_ext.ts";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { cholesky, inverseSpd } from "../../math/linalg.ts";
import { GlmModel, type GlmModelFamily, type GlmOptions } from "../../models/glm.ts";
import { parameterDraws } from "../../samplers/driver.ts";
import { runHmcEcs } from "../../samplers/hmc_ecs/mod.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { samplerNames } from "../../samplers/registry.ts";
import { sample } from "../../samplers/sample.ts";
import { _normal, _rng } from "../_core_fixtures.ts";
import { familyProblem } from "../_family_fixtures.ts";
import { assertPosteriorMatches, posteriorSummary } from "../_stat.ts";

interface Reference {
  mean: Float64Array;
  sd: Float64Array;
}

/** Normal–inverse-gamma posterior: flat β, σ² ~ IG(a, b); returns (β, log σ) moments. */
function _conjugate(x: Float64Array, y: Float64Array, n: number, d: number, a: number, b: number) {
  const xtx = new Float64Array(d * d), xty = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) {
      xty[j] += x[i * d + j] * y[i];
      for (let k = 0; k < d; k++) xtx[j * d + k] += x[i * d + j] * x[i * d + k];
    }
  }
  const c = inverseSpd(xtx), beta = new Float64Array(d);
  for (let j = 0; j < d; j++) for (let k = 0; k < d; k++) beta[j] += c[j * d + k] * xty[k];
  let rss = 0;
  for (let i = 0; i < n; i++) {
    let e = y[i];
    for (let j = 0; j < d; j++) e -= x[i * d + j] * beta[j];
    rss += e * e;
  }
  const an = a + (n - d) / 2, bn = b + rss / 2, nu = 2 * an;
  // β | y ~ t_ν(β̂, (bₙ/aₙ)C); log σ = ½ log σ², σ² ~ IG(aₙ, bₙ): E = ½(log bₙ − ψ(aₙ)), Var = ψ'(aₙ)/4
  const psi = Math.log(an) - 1 / (2 * an) - 1 / (12 * an * an);
  const tri = 1 / an + 1 / (2 * an * an) + 1 / (6 * an ** 3);
  const mean = new Float64Array(d + 1), sd = new Float64Array(d + 1);
  for (let j = 0; j < d; j++) {
    mean[j] = beta[j];
    sd[j] = Math.sqrt((bn / an) * c[j * d + j] * (nu / (nu - 2)));
  }
  mean[d] = 0.5 * (Math.log(bn) - psi);
  sd[d] = 0.5 * Math.sqrt(tri);
  return { mean, sd };
}

/** (A + λI)⁻¹ with the smallest λ ∈ {0, 1e-3, 1e-2, …} that makes A + λI positive definite. */
function _regularisedInverse(a: Float64Array, P: number): Float64Array {
  for (let lambda = 0;; lambda = lambda === 0 ? 1e-3 : 10 * lambda) {
    try {
      return inverseSpd(a.map((v, i) => (i % (P + 1) === 0 ? v + lambda : v)));
    } catch {
      if (lambda > 1e12) throw new Error("no positive-definite regularisation");
    }
  }
}

/** MAP by damped Newton on the model's own gradient and Hessian. */
function _map(model: GlmModel, start: Float64Array): Float64Array {
  const P = model.dim, th = start.slice(), g = new Float64Array(P);
  const h = new Float64Array(P * P), hp = new Float64Array(P * P);
  for (let it = 0; it < 100; it++) {
    const f = model.logDensityAndGradient(th, g);
    model.logLikelihoodHessian(th, h);
    model.logPriorHessian(th, hp);
    const cov = _regularisedInverse(h.map((v, i) => -(v + hp[i])), P);
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
  return th;
}

/** Mean and sd of the posterior by a trapezoid grid of `k` points per axis over ±6 Laplace sds. */
function _quadrature(model: GlmModel, start: Float64Array, k = 25): Reference {
  const P = model.dim, mode = _map(model, start);
  const h = new Float64Array(P * P), hp = new Float64Array(P * P);
  model.logLikelihoodHessian(mode, h);
  model.logPriorHessian(mode, hp);
  const l = cholesky(inverseSpd(h.map((v, i) => -(v + hp[i]))));
  const f0 = model.logDensity(mode), th = new Float64Array(P), z = new Float64Array(P);
  const s1 = new Float64Array(P), s2 = new Float64Array(P);
  let s0 = 0;
  const total = k ** P;
  for (let q = 0; q < total; q++) {
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
    const w = Math.exp(model.logDensity(th) - f0);
    s0 += w;
    for (let j = 0; j < P; j++) {
      s1[j] += w * th[j];
      s2[j] += w * th[j] * th[j];
    }
  }
  const mean = s1.map((v) => v / s0);
  return { mean, sd: s2.map((v, j) => Math.sqrt(v / s0 - mean[j] ** 2)) };
}

const HMC = { numWarmup: 500, numSamples: 1000, numChains: 4 } as const;

Deno.test("GlmModel gaussian-scale: HMC and HMC-ECS match the conjugate posterior", async (t) => {
  const n = 2000, d = 2, u = _rng(3);
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * d] = 1;
    x[i * d + 1] = _normal(u);
    y[i] = 0.5 - 1.2 * x[i * d + 1] + 0.8 * _normal(u);
  }
  const a = 2, b = 1, ref = _conjugate(x, y, n, d, a, b);
  const options: GlmOptions = {
    family: "gaussian-scale",
    priorScale: Infinity,
    scalePrior: { family: "inverse_gamma", shape: a, scale: b },
  };
  const arena = loadCore();
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), options);
  assert.deepEqual(model.parameterNames.slice(-1), ["log_sigma"]);
  await t.step("full-data HMC", () => {
    assertPosteriorMatches(
      "HMC",
      posteriorSummary(runHmc(model, { ...HMC, seed: 1 }), model.dim),
      ref,
    );
  });
  await t.step("HMC-ECS (perturbed, per-row control variates in (β, log σ))", () => {
    const run = runHmcEcs(model, { ...HMC, seed: 2, numChains: 2, numSamples: 2000 });
    assertPosteriorMatches("HMC-ECS", posteriorSummary(run, model.dim), ref);
    const rows = run.chains[0].cost.sampling.numLogLikRows;
    assert.ok(rows < 0.5 * n * 2000, `HMC-ECS evaluated ${rows} rows`);
  });
  model.dispose();
});

const QUAD_CASES: { family: GlmModelFamily; n: number; ecs: boolean }[] = [
  { family: "student-t", n: 400, ecs: false },
  { family: "negative-binomial", n: 2000, ecs: true },
  { family: "poisson", n: 400, ecs: false },
  { family: "binomial", n: 400, ecs: false },
];

for (const c of QUAD_CASES) {
  Deno.test(`GlmModel ${c.family}: HMC${c.ecs ? " and HMC-ECS" : ""} match a grid quadrature`, async (t) => {
    const kernelFamily = (c.family === "poisson" ? "poisson-offset" : c.family) as GlmExtFamilyName;
    const d = 2, p = familyProblem(kernelFamily, c.n, d, 11);
    const options: GlmOptions = {
      family: c.family,
      priorScale: 5,
      ...(c.family === "student-t" ? { nu: 3.5 } : {}),
      ...(c.family === "binomial" ? { trials: p.aux } : {}),
      ...(c.family === "poisson" || c.family === "negative-binomial" ? { offset: p.aux } : {}),
    };
    const arena = loadCore();
    const model = new GlmModel(glmDataFromArrays(arena, p.x, p.y, { numCols: d }), options);
    const ref = _quadrature(model, p.theta);
    await t.step("full-data HMC", () => {
      assertPosteriorMatches(
        c.family,
        posteriorSummary(runHmc(model, { ...HMC, seed: 3 }), model.dim),
        ref,
      );
    });
    if (c.ecs) {
      await t.step("HMC-ECS", () => {
        const run = runHmcEcs(model, { ...HMC, seed: 4, numChains: 2, numSamples: 2000 });
        assertPosteriorMatches(`${c.family} HMC-ECS`, posteriorSummary(run, model.dim), ref);
      });
    }
    model.dispose();
  });
}

Deno.test("every registered sampler runs on a negative-binomial GlmModel with an offset", () => {
  const p = familyProblem("negative-binomial", 600, 2, 5);
  const arena = loadCore();
  const model = new GlmModel(glmDataFromArrays(arena, p.x, p.y, { numCols: 2 }), {
    family: "negative-binomial",
    offset: p.aux,
  });
  for (const name of samplerNames()) {
    // thetaStar, stepSize and batchSize are required by some samplers and ignored by the others
    const run = sample(
      model,
      {
        sampler: name,
        numWarmup: 60,
        numSamples: 40,
        numChains: 1,
        seed: 1,
        thetaStar: p.theta,
        stepSize: 0.01,
        batchSize: 60,
      } as Parameters<typeof sample>[1],
    );
    const draws = parameterDraws(run, "log_phi")[0];
    assert.ok(draws.length > 0 && draws.every(Number.isFinite), `${name}: ${draws.slice(0, 3)}`);
  }
  model.dispose();
});
