import assert from "node:assert/strict";
import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
import {
  shrinkageIntensity,
  windowedAdaptationInit,
  windowedAdaptationUpdate,
} from "../../samplers/mass_matrix_adaptation.ts";
import { denseMetric, diagonalMetric, type Metric } from "../../samplers/metric.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { Rng } from "../../random/rng.ts";

/** n draws of N(μ, c²·Σ) with Σ = L Lᵀ (row-major d × d). */
function _draws(rng: Rng, n: number, mu: number[], l: number[], c = 1): Float64Array[] {
  const d = mu.length;
  return Array.from({ length: n }, () => {
    const z = Array.from({ length: d }, () => rng.normal());
    return Float64Array.from(mu, (m, i) => {
      let s = 0;
      for (let k = 0; k <= i; k++) s += l[i * d + k] * z[k];
      return m + c * s;
    });
  });
}

// Σ = L Lᵀ with L = [[1, 0, 0], [0.9, 0.3, 0], [-0.5, 0.2, 0.4]] (correlations ±0.9).
const L3 = [1, 0, 0, 0.9, 0.3, 0, -0.5, 0.2, 0.4];
const SIGMA3 = (() => {
  const s = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      for (let k = 0; k < 3; k++) s[i * 3 + j] += L3[i * 3 + k] * L3[j * 3 + k];
    }
  }
  return s;
})();

Deno.test("shrinkageIntensity() is near 1 for draws of the target, near 0 far from it", async (t) => {
  const target = denseMetric(SIGMA3);
  const diagTarget = diagonalMetric(Float64Array.from([0, 4, 8], (k) => SIGMA3[k]));
  await t.step("draws of N(μ, T): the estimate differs from T by its noise alone", () => {
    // Over 20 windows of 100 draws, mean δ (seeded; 0.8–1 expected from the LW formula).
    let dense = 0, diag = 0;
    const rng = new Rng(3);
    for (let w = 0; w < 20; w++) {
      const x = _draws(rng, 100, [5, -2, 1e3], L3);
      dense += shrinkageIntensity(x, target, true) / 20;
      diag += shrinkageIntensity(x, diagTarget, false) / 20;
    }
    assert.ok(dense > 0.6, `dense mean δ ${dense}`);
    assert.ok(diag > 0.6, `diagonal mean δ ${diag}`);
  });
  await t.step("draws of N(μ, 4T) or of another shape: δ small", () => {
    const rng = new Rng(4);
    const wide = _draws(rng, 200, [5, -2, 1e3], L3, 2);
    assert.ok(shrinkageIntensity(wide, target, true) < 0.1);
    assert.ok(shrinkageIntensity(wide, diagTarget, false) < 0.1);
    // The right variances but no correlation: only the dense estimate sees it.
    const indep = _draws(rng, 200, [0, 0, 0], [1, 0, 0, 0, Math.sqrt(SIGMA3[4]), 0, 0, 0, 0.7]);
    assert.ok(shrinkageIntensity(indep, target, true) < 0.1);
  });
});

Deno.test("windowed adaptation with a shrinkage target is scale-free; Stan's 1e-3·I is not", () => {
  // Tall data: posterior sds ~1e-3. Scaling the draws and T by c scales the
  // metric by c² (to round-off) with the target; Stan's regularisation adds
  // the same absolute 1e-3·5/(n+5) whatever c is.
  const run = (c: number, withTarget: boolean): Float64Array => {
    const t = Float64Array.from(SIGMA3, (v) => c * c * v);
    const s = windowedAdaptationInit(3, {
      numWarmup: 200,
      metric: "dense",
      shrinkageTarget: withTarget ? denseMetric(t) : undefined,
    });
    const rng = new Rng(5);
    let m: Metric | null = null;
    for (const x of _draws(rng, 200, [0.3, 0.1, -0.2], L3, c)) {
      m = windowedAdaptationUpdate(s, x) ?? m;
    }
    assert.ok(m !== null);
    return Float64Array.from(m.inverseMassMatrix, (v) => v / (c * c));
  };
  for (const withTarget of [true, false]) {
    const a = run(1, withTarget), b = run(1e-3, withTarget);
    const worst = Math.max(...a.map((v, k) => Math.abs(v - b[k]) / Math.abs(SIGMA3[k])));
    if (withTarget) assert.ok(worst < 1e-9, `relative difference ${worst}`);
    else assert.ok(worst > 1, `Stan's regularisation changed by only ${worst}`);
  }
});

Deno.test("hmc's warm-up is scale-free with the Laplace shrinkage, not with Stan's", () => {
  // The posterior of tall data is small: its variances fall as 1/n. With the
  // Laplace start and the Laplace shrinkage target every warm-up quantity is
  // in the metric's whitened units, so a scaled target gives the same tuning
  // up to round-off (which can flip an accept decision: a few % apart).
  // Stan's absolute 1e-3·I swamps variances of 1e-6 (measured: ε 0.022,
  // 9,416 warm-up gradients against 538 at sd 1).
  const tuned = (c: number, metricShrinkage: "laplace" | "stan") => {
    const model = gaussianTarget(
      new Float64Array([1, -1, 0.5]),
      Float64Array.from(SIGMA3, (v) => c * c * v),
    );
    const r = runHmc(model, {
      seed: 2,
      numWarmup: 300,
      numSamples: 10,
      numChains: 1,
      metricShrinkage,
    });
    const ch = r.chains[0];
    return {
      eps: ch.tuning.stepSize as number,
      T: ch.tuning.trajectoryLength as number,
      grads: ch.info.warmup.numIntegrationSteps.reduce((x, y) => x + y, 0),
    };
  };
  const a = tuned(1, "laplace"), b = tuned(1e-3, "laplace");
  assert.ok(Math.abs(a.eps / b.eps - 1) < 0.15, `ε ${a.eps} vs ${b.eps}`);
  assert.ok(Math.abs(a.T / b.T - 1) < 0.15, `T ${a.T} vs ${b.T}`);
  assert.ok(Math.abs(a.grads / b.grads - 1) < 0.1, `gradients ${a.grads} vs ${b.grads}`);
  const s = tuned(1e-3, "stan");
  assert.ok(s.grads > 5 * a.grads, `Stan's at sd 1e-3: ${s.grads} gradients`);
});
