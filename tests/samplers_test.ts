/**
 * Tests of samplers/: integrator, metrics, HMC, dual averaging and mass-matrix
 * adaptation.
 *
 * Statistical checks compare against analytic values of Gaussian targets with
 * tolerances from Monte Carlo standard errors (batch means, computed here) or
 * from the leapfrog's known error terms; seeds are fixed. Nothing was tuned to
 * pass: each tolerance is justified where it is set.
 */
import assert from "node:assert/strict";
import { gaussianTarget } from "../models/gaussian_target.ts";
import { Rng } from "../random/rng.ts";
import {
  cholesky,
  denseMetric,
  diagonalMetric,
  dualAveraging,
  hmc,
  identityMetric,
  inverseSpd,
  leapfrog,
  matVec,
  metricFromNegativeHessian,
  welfordCovariance,
  welfordInit,
  welfordUpdate,
  windowSchedule,
} from "../samplers/mod.ts";

// ---------------------------------------------------------------- helpers

/** Σᵢⱼ = sᵢ sⱼ ρ^|i−j|. */
function arCovariance(sd: number[], rho: number): Float64Array {
  const d = sd.length, c = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) c[i * d + j] = sd[i] * sd[j] * Math.pow(rho, Math.abs(i - j));
  }
  return c;
}

function mean(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s / x.length;
}

// ---------------------------------------------------------------- linear algebra and metrics

Deno.test("cholesky() and inverseSpd() solve SPD systems", () => {
  const a = arCovariance([1, 2, 0.5, 3, 1.5], 0.7);
  const l = cholesky(a);
  const d = 5;
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += l[i * d + k] * l[j * d + k];
      assert.ok(Math.abs(s - a[i * d + j]) < 1e-12, `L Lᵀ (${i}, ${j})`);
    }
  }
  const inv = inverseSpd(a);
  for (let j = 0; j < d; j++) {
    const e = new Float64Array(d);
    e[j] = 1;
    const col = matVec(a, matVec(inv, e));
    for (let i = 0; i < d; i++) assert.ok(Math.abs(col[i] - e[i]) < 1e-10, `A A⁻¹ (${i}, ${j})`);
  }
});

Deno.test("Metric sampleMomentum() draws N(0, M)", async (t) => {
  // Covariance of N = 40 000 draws vs M; the SE of a sample covariance entry
  // is √((MᵢᵢMⱼⱼ + Mᵢⱼ²)/N); allow 5 SE.
  const n = 40_000;
  const check = (name: string, metric: ReturnType<typeof identityMetric>, m: Float64Array) => {
    const rng = new Rng(`momentum-${name}`);
    const d = metric.dim, p = new Float64Array(d), s = new Float64Array(d * d);
    for (let k = 0; k < n; k++) {
      metric.sampleMomentum(rng, p);
      for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) s[i * d + j] += p[i] * p[j] / n;
    }
    for (let i = 0; i < d; i++) {
      for (let j = 0; j < d; j++) {
        const se = Math.sqrt((m[i * d + i] * m[j * d + j] + m[i * d + j] ** 2) / n);
        assert.ok(Math.abs(s[i * d + j] - m[i * d + j]) < 5 * se, `${name} cov (${i}, ${j})`);
      }
    }
  };
  const invMass = arCovariance([1, 2, 0.5], 0.6);
  await t.step("dense", () => check("dense", denseMetric(invMass), inverseSpd(invMass)));
  await t.step("diagonal", () => {
    check(
      "diagonal",
      diagonalMetric(new Float64Array([4, 0.25])),
      new Float64Array([0.25, 0, 0, 4]),
    );
  });
  await t.step("from negative Hessian: M = −H", () => {
    const h = arCovariance([1, 2, 0.5], -0.4).map((x) => -x);
    check("hessian", metricFromNegativeHessian(h), h.map((x) => -x));
  });
});

Deno.test("Metric kineticEnergy() and velocity() use M⁻¹", () => {
  const invMass = arCovariance([1, 2, 0.5], 0.6);
  const metrics = [
    denseMetric(invMass),
    metricFromNegativeHessian(inverseSpd(invMass).map((x) => -x)),
  ];
  const p = new Float64Array([0.3, -1.2, 2]);
  const v0 = matVec(invMass, p);
  const k0 = 0.5 * (p[0] * v0[0] + p[1] * v0[1] + p[2] * v0[2]);
  for (const m of metrics) {
    const v = m.velocity(p, new Float64Array(3));
    for (let i = 0; i < 3; i++) assert.ok(Math.abs(v[i] - v0[i]) < 1e-12);
    assert.ok(Math.abs(m.kineticEnergy(p) - k0) < 1e-12);
  }
});

// ---------------------------------------------------------------- leapfrog

Deno.test("leapfrog() is time-reversible", async (t) => {
  const target = gaussianTarget(
    new Float64Array([1, 0, -1, 2, 0]),
    arCovariance([1, 2, 0.5, 1, 3], 0.8),
  );
  const fn = target.logDensityAndGradient;
  const metrics = {
    identity: identityMetric(5),
    dense: denseMetric(arCovariance([1, 1.5, 0.7, 1, 2], 0.5)),
  };
  for (const [name, metric] of Object.entries(metrics)) {
    await t.step(name, () => {
      const rng = new Rng(`rev-${name}`);
      const theta0 = rng.fillNormal(new Float64Array(5));
      const p0 = metric.sampleMomentum(rng, new Float64Array(5));
      const g = new Float64Array(5);
      const s = {
        position: Float64Array.from(theta0),
        momentum: Float64Array.from(p0),
        logDensity: fn(theta0, g),
        gradient: g,
      };
      const opts = { logDensityAndGradientFn: fn, metric, stepSize: 0.1, numIntegrationSteps: 50 };
      const fwd = leapfrog(s, opts);
      assert.equal(fwd.numIntegrationSteps, 50);
      assert.equal(fwd.isDivergent, false);
      for (let i = 0; i < 5; i++) s.momentum[i] = -s.momentum[i];
      leapfrog(s, opts);
      for (let i = 0; i < 5; i++) {
        assert.ok(Math.abs(s.position[i] - theta0[i]) < 1e-10, `θ[${i}]`);
        assert.ok(Math.abs(s.momentum[i] + p0[i]) < 1e-10, `p[${i}]`);
      }
    });
  }
});

Deno.test("leapfrog() energy error is O(ε²)", () => {
  // For a quadratic potential the leapfrog conserves the shadow Hamiltonian
  // H̃ = H − Σᵢ ε²ωᵢ²qᵢ²/8 (normal coordinates), so the energy error along a
  // trajectory of fixed time T is exactly Σᵢ ε²ωᵢ²(qᵢ(t)² − qᵢ(0)²)/8 with
  // q(t) following the exact flow up to an O(ε²ω²) frequency shift. Halving ε
  // thus quarters the maximum error up to relative corrections O((εω)²)
  // (frequency shift and the finer grid on which the max is taken). Here
  // εω_max ≤ 0.05·√2 ≈ 0.07, so the corrections are ≈ 1 %: band 4 ± 5 %.
  const target = gaussianTarget(new Float64Array(3), arCovariance([1, 0.8, 1.3], 0.5));
  const fn = target.logDensityAndGradient;
  const metric = identityMetric(3);
  const maxError = (eps: number): number => {
    const theta = new Float64Array([1, -0.5, 0.8]);
    const g = new Float64Array(3);
    const s = {
      position: theta,
      momentum: new Float64Array([0.3, 1, -0.7]),
      logDensity: fn(theta, g),
      gradient: g,
    };
    const h0 = -s.logDensity + metric.kineticEnergy(s.momentum);
    const steps = Math.round(20 / eps);
    let max = 0;
    for (let k = 0; k < steps; k++) {
      leapfrog(s, { logDensityAndGradientFn: fn, metric, stepSize: eps, numIntegrationSteps: 1 });
      max = Math.max(max, Math.abs(-s.logDensity + metric.kineticEnergy(s.momentum) - h0));
    }
    return max;
  };
  const e1 = maxError(0.05), e2 = maxError(0.025);
  const ratio = e1 / e2;
  assert.ok(ratio > 3.8 && ratio < 4.2, `error ratio ${ratio} (${e1} vs ${e2})`);
});

Deno.test("leapfrog() stops and flags non-finite log densities", () => {
  // log π = log θ − θ on θ > 0 (Gamma(2, 1)); −Infinity outside the support.
  const fn = (x: Float64Array, g: Float64Array) => {
    g[0] = 1 / x[0] - 1;
    return x[0] > 0 ? Math.log(x[0]) - x[0] : -Infinity;
  };
  const s = {
    position: new Float64Array([0.5]),
    momentum: new Float64Array([-10]),
    logDensity: fn(new Float64Array([0.5]), new Float64Array(1)),
    gradient: new Float64Array([1]),
  };
  const r = leapfrog(s, {
    logDensityAndGradientFn: fn,
    metric: identityMetric(1),
    stepSize: 0.1,
    numIntegrationSteps: 20,
  });
  assert.equal(r.isDivergent, true);
  assert.ok(r.numIntegrationSteps < 20);
});

// ---------------------------------------------------------------- HMC

const sd10 = Array.from({ length: 10 }, (_, i) => 0.5 + 0.2 * i);
const mu10 = new Float64Array(sd10.map((_, i) => i - 4.5));
const target10 = gaussianTarget(mu10, arCovariance(sd10, 0.5));

Deno.test("hmc.step() accepts almost always with M⁻¹ = Σ and small ε", () => {
  // In whitened coordinates the target is N(0, I) and the energy error is
  // Σᵢ ε²(qᵢ(t)² − qᵢ(0)²)/8 (see the O(ε²) test), so |ΔH| ≤ ε²/8·Σᵢ(pᵢ² + qᵢ²)
  // with expectation ε²·2d/8 = 0.00625 for ε = 0.05, d = 10; since
  // 1 − min(1, e^−x) ≤ max(0, x), mean acceptance ≥ 1 − 0.00625 > 0.99.
  const metric = denseMetric(target10.covariance);
  const fn = target10.logDensityAndGradient;
  let state = hmc.init(target10.mean, fn);
  const rng = new Rng("small-eps");
  let acc = 0;
  const n = 500;
  for (let i = 0; i < n; i++) {
    const r = hmc.step(state, rng, {
      logDensityAndGradientFn: fn,
      stepSize: 0.05,
      numIntegrationSteps: 20,
      metric,
    });
    state = r.state;
    acc += r.info.acceptanceRate / n;
    assert.equal(r.info.numIntegrationSteps, 20);
  }
  assert.ok(acc > 0.99, `mean acceptance ${acc}`);
});

// ---------------------------------------------------------------- adaptation pieces

Deno.test("windowSchedule() follows Stan's windows", () => {
  const fmt = (n: number) => windowSchedule(n).map((w) => `${w.start}-${w.end}`).join(" ");
  assert.equal(fmt(1000), "75-100 100-150 150-250 250-450 450-950");
  assert.equal(fmt(2000), "75-100 100-150 150-250 250-450 450-850 850-1950");
  // 100 < 75 + 25 + 50: 15 % / 75 % / 10 %.
  assert.equal(fmt(100), "15-90");
  assert.equal(fmt(10), "");
});

Deno.test("welfordCovariance() matches the two-pass covariance", () => {
  const rng = new Rng("welford");
  const xs = Array.from(
    { length: 200 },
    () => rng.fillNormal(new Float64Array(3), { mean: 5, sd: 2 }),
  );
  const w = welfordInit(3, { dense: true });
  for (const x of xs) welfordUpdate(w, x);
  const cov = welfordCovariance(w, { regularize: false });
  const m = [0, 1, 2].map((j) => mean(xs.map((x) => x[j])));
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const c = xs.reduce((s, x) => s + (x[i] - m[i]) * (x[j] - m[j]), 0) / 199;
      assert.ok(Math.abs(cov[i * 3 + j] - c) < 1e-12);
    }
  }
  const reg = welfordCovariance(w);
  assert.ok(Math.abs(reg[0] - ((200 / 205) * cov[0] + 1e-3 * 5 / 205)) < 1e-15);
});

Deno.test("dualAveraging.findReasonableStepSize() scales with the target", () => {
  // Algorithm 4 stops where the one-step acceptance ratio crosses ½, which for
  // N(0, σ²) happens at ε of order σ: the results for σ = 1 and σ = 0.01 should
  // differ by a factor within [25, 400] of 100 (both are powers of 2 times 1).
  const eps = [1, 0.01].map((s) => {
    const t = gaussianTarget(new Float64Array(3), new Float64Array([s * s, s * s, s * s]));
    const st = hmc.init(new Float64Array([s, -s, s]), t.logDensityAndGradient);
    return dualAveraging.findReasonableStepSize(st, new Rng("frss"), {
      logDensityAndGradientFn: t.logDensityAndGradient,
      metric: identityMetric(3),
    });
  });
  assert.ok(eps[0] / eps[1] >= 25 && eps[0] / eps[1] <= 400, `ε: ${eps}`);
});
