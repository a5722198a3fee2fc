/**
 * The extended families' kernels (codes 3–7: Gaussian and Student-t with
 * unknown σ, NB2 with unknown φ and an offset, Poisson with an offset,
 * binomial with trials): every build against the TypeScript reference, the
 * gradient and Hessian against finite differences of Σℓ, and ℓ against an
 * independent direct formula.
 *
 * Run: deno test --allow-read tests/models/glm_families_kernels_test.ts
 */
import assert from "node:assert/strict";
import { GlmKernels } from "../../core/glm_kernels.ts";
import type { GlmExtFamilyName } from "../../core/glm_kernels_ext.ts";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { logGamma } from "../../math/special.ts";
import { _close, AVAILABLE, BACKENDS } from "../_core_fixtures.ts";
import { familyProblem, NU } from "../_family_fixtures.ts";

const FAMILIES: GlmExtFamilyName[] = [
  "gaussian-scale",
  "student-t",
  "negative-binomial",
  "poisson-offset",
  "binomial",
];

/** ℓ of one row by the textbook formula (independent of the kernels' forms). */
function _directRow(family: GlmExtFamilyName, eta: number, y: number, a: number, tau: number) {
  if (family === "gaussian-scale") {
    const s = Math.exp(tau);
    return -0.5 * Math.log(2 * Math.PI * s * s) - ((y - eta) ** 2) / (2 * s * s);
  }
  if (family === "student-t") {
    const s = Math.exp(tau), z = (y - eta) / s;
    return logGamma((NU + 1) / 2) - logGamma(NU / 2) - 0.5 * Math.log(NU * Math.PI) -
      Math.log(s) - ((NU + 1) / 2) * Math.log(1 + (z * z) / NU);
  }
  if (family === "negative-binomial") {
    const phi = Math.exp(tau), mu = Math.exp(eta + a);
    return logGamma(y + phi) - logGamma(phi) - logGamma(y + 1) +
      phi * Math.log(phi / (phi + mu)) + y * Math.log(mu / (phi + mu));
  }
  if (family === "poisson-offset") {
    const mu = Math.exp(eta + a);
    return y * Math.log(mu) - mu - logGamma(y + 1);
  }
  const p = 1 / (1 + Math.exp(-eta));
  return logGamma(a + 1) - logGamma(y + 1) - logGamma(a - y + 1) + y * Math.log(p) +
    (a - y) * Math.log(1 - p);
}

for (const backend of BACKENDS) {
  const ignore = !AVAILABLE.includes(backend);
  Deno.test(
    `GlmKernels extended families match the reference [${backend}]`,
    { ignore },
    async (t) => {
      for (const family of FAMILIES) {
        for (const [n, d] of [[1, 1], [7, 3], [33, 5], [40, 30]] as const) {
          await t.step(`${family} n=${n} d=${d}`, () => {
            const p = familyProblem(family, n, d, 100 * n + d);
            const aux = family === "gaussian-scale" || family === "student-t" ? undefined : p.aux;
            const res = ["f64", "f32"].map((storage) =>
              [backend, "reference"].map((b) => {
                const arena = loadCore({ backend: b as typeof backend });
                const data = glmDataFromArrays(arena, p.x, p.y, {
                  numCols: d,
                  storage: storage as "f64" | "f32",
                });
                const k = new GlmKernels(arena, { family, dim: d, nu: NU, aux });
                const P = k.numParams, grad = new Float64Array(P), perRow = new Float64Array(n);
                const ll = k.logLikelihood(data, p.theta, { grad, perRow });
                const rows = Int32Array.from({ length: n + 1 }, (_, i) => (i * 7) % n);
                const gl = new Float64Array(P);
                const llRows = k.logLikelihood(data, p.theta, { rows, grad: gl });
                const der = k.rowDerivatives(data, p.theta, {
                  rows,
                  out: new Float64Array(6 * rows.length),
                });
                const hess = k.hessian(data, p.theta, { out: new Float64Array(P * P) });
                const rg = k.rowGradients(data, p.theta, {
                  rows,
                  out: new Float64Array(rows.length * P),
                });
                k.dispose();
                return { ll, grad, perRow, llRows, gl, der, hess, rg };
              })
            );
            for (const [a, b] of res) {
              _close(a.ll, b.ll, "Σℓ");
              _close(a.grad, b.grad, "grad");
              _close(a.perRow, b.perRow, "ℓᵢ");
              _close(a.llRows, b.llRows, "Σℓ rows");
              _close(a.gl, b.gl, "grad rows");
              _close(a.der, b.der, "derivs");
              _close(a.hess, b.hess, "hess");
              _close(a.rg, b.rg, "rowGradients");
            }
          });
        }
      }
    },
  );
}

Deno.test("GlmKernels extended families: ℓ, gradient and Hessian are right", async (t) => {
  for (const family of FAMILIES) {
    await t.step(family, () => {
      const n = 25, d = 3, p = familyProblem(family, n, d, 7);
      const aux = family === "gaussian-scale" || family === "student-t" ? undefined : p.aux;
      const arena = loadCore();
      const data = glmDataFromArrays(arena, p.x, p.y, { numCols: d });
      const k = new GlmKernels(arena, { family, dim: d, nu: NU, aux });
      const P = k.numParams, th = p.theta;
      // ℓ against the direct formula
      let direct = 0;
      for (let i = 0; i < n; i++) {
        let eta = 0;
        for (let j = 0; j < d; j++) eta += p.x[i * d + j] * th[j];
        direct += _directRow(family, eta, p.y[i], aux ? p.aux[i] : 0, p.extra ? th[d] : 0);
      }
      const grad = new Float64Array(P);
      const ll = k.logLikelihood(data, th, { grad });
      assert.ok(Math.abs(ll - direct) < 1e-10 * (1 + Math.abs(direct)), `ℓ ${ll} vs ${direct}`);
      // gradient and Hessian against central differences
      const h = 1e-5, hess = k.hessian(data, th, { out: new Float64Array(P * P) });
      for (let j = 0; j < P; j++) {
        const tp = th.slice(), tm = th.slice();
        tp[j] += h;
        tm[j] -= h;
        const gp = new Float64Array(P), gm = new Float64Array(P);
        const fd =
          (k.logLikelihood(data, tp, { grad: gp }) - k.logLikelihood(data, tm, { grad: gm })) /
          (2 * h);
        assert.ok(
          Math.abs(fd - grad[j]) < 1e-6 * (1 + Math.abs(grad[j])),
          `∂${j}: ${grad[j]} vs ${fd}`,
        );
        for (let l = 0; l < P; l++) {
          const fdh = (gp[l] - gm[l]) / (2 * h);
          const hv = hess[j * P + l];
          assert.ok(
            Math.abs(fdh - hv) < 1e-5 * (1 + Math.abs(hv)),
            `H[${j},${l}]: ${hv} vs ${fdh}`,
          );
        }
      }
      k.dispose();
    });
  }
});

Deno.test("GlmKernels extended families stay finite at extreme η and name bad arguments", () => {
  const arena = loadCore();
  const x = [1, 1, 1, 1], y = [0, 3, 250, 1];
  const data = glmDataFromArrays(arena, x, y, { numCols: 1 });
  for (const family of FAMILIES) {
    const aux = [0, 5, 300, 2];
    const k = new GlmKernels(arena, { family, dim: 1, nu: 2, aux });
    for (const b of [-600, -30, 0, 30, 600]) {
      const th = new Float64Array(k.numParams).fill(family === "negative-binomial" ? 0.3 : 0.5);
      th[0] = family === "poisson-offset" || family === "negative-binomial" ? b / 2 : b;
      const grad = new Float64Array(k.numParams);
      const ll = k.logLikelihood(data, th, { grad });
      const h = k.hessian(data, th, { out: new Float64Array(k.numParams ** 2) });
      const ok = family === "poisson-offset" && b > 0 ? true : Number.isFinite(ll);
      assert.ok(
        ok && grad.every((v) => !Number.isNaN(v)) && h.every((v) => !Number.isNaN(v)),
        `${family} β=${b}: ${ll}`,
      );
    }
    k.dispose();
  }
  assert.throws(() => new GlmKernels(arena, { family: "student-t", dim: 1 }), /nu must be/);
  assert.throws(() => new GlmKernels(arena, { family: "binomial", dim: 1 }), /trials/);
  const k = new GlmKernels(arena, { family: "gaussian-scale", dim: 1 });
  assert.throws(() => k.logLikelihood(data, new Float64Array([0, 800])), /τ = θ\[d\].* got 800/);
  assert.throws(() => k.logLikelihood(data, new Float64Array([0])), /length 2/);
  k.dispose();
});

Deno.test("GlmModel extended families: options are checked and the compact cache refuses them", async () => {
  const { GlmModel } = await import("../../models/glm.ts");
  const { ControlVariates } = await import("../../subsampling/control_variates.ts");
  const arena = loadCore({ backend: "reference" });
  const data = glmDataFromArrays(arena, [1, 0.2, 1, -0.4, 1, 1.1], [0, 2, 5], { numCols: 2 });
  const nb = new GlmModel(data, { family: "negative-binomial", offset: [0, 0.1, -0.2] });
  assert.deepEqual(nb.parameterNames, [...data.columnNames, "log_phi"]);
  assert.equal(nb.dim, 3);
  assert.equal(nb.hasCompactCache, false);
  assert.throws(
    () => new ControlVariates(nb, new Float64Array(3)),
    /η only; family negative-binomial/,
  );
  // per-row Hessians sum to the full-data Hessian
  const th = new Float64Array([0.3, -0.2, 0.5]), rows = new Int32Array([0, 1, 2]);
  const per = new Float64Array(27), full = new Float64Array(9);
  nb.perRowHessians(th, rows, per);
  nb.logLikelihoodHessian(th, full);
  for (let j = 0; j < 9; j++) {
    assert.ok(
      Math.abs(per[j] + per[9 + j] + per[18 + j] - full[j]) < 1e-12 * (1 + Math.abs(full[j])),
    );
  }
  nb.dispose();
  assert.throws(() => new GlmModel(data, { family: "binomial" }), /needs trials/);
  assert.throws(
    () => new GlmModel(data, { family: "binomial", trials: [1, 1, 9] }),
    /trials ≥ y ≥ 0; y = 2, trials = 1 at row 2/,
  );
  assert.throws(
    () => new GlmModel(data, { family: "logistic", offset: [0, 0, 0] }),
    /offset applies/,
  );
  assert.throws(() => new GlmModel(data, { family: "poisson", offset: [0, 0] }), /3 values, got 2/);
  assert.throws(() => new GlmModel(data, { family: "gaussian-scale", nu: 3 }), /nu applies/);
  assert.throws(() => new GlmModel(data, { family: "student-t" }), /nu must be/);
  assert.throws(
    () =>
      new GlmModel(data, {
        family: "gaussian-scale",
        scalePrior: { family: "exponential", rate: 0 },
      }),
    /rate must be positive/,
  );
  const g = new GlmModel(data, { family: "gaussian-scale" });
  assert.equal(g.logLikelihood(new Float64Array([0, 0, 800])), -Infinity);
  g.dispose();
});
