/**
 * Tests of samplers/qnhmc: the BFGS and L-BFGS approximations, the kernel,
 * and the sampler in both adaptation modes.
 *
 * Statistical checks use the MCSE bands of tests/_stat.ts (which check ESS
 * first); seeds are fixed. Exact checks (L-BFGS vs dense BFGS, C = I vs
 * hmc.step) use round-off tolerances, not statistical ones.
 */
import assert from "node:assert/strict";
import { DenseMatVec } from "../../core/dense_ops.ts";
import { loadCore } from "../../core/load.ts";
import { cholesky } from "../../math/linalg.ts";
import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
import { Rng } from "../../random/rng.ts";
import * as hmc from "../../samplers/hmc/kernel.ts";
import { identityMetric } from "../../samplers/metric.ts";
import {
  adoptPendingPairs,
  type CurvaturePair,
  denseBfgs,
  init,
  type InverseHessian,
  lbfgs,
  qnhmcChainSampler,
  qnhmcDescription,
  runQnhmc,
  step,
  WASM_PRODUCT_MIN_DIM,
} from "../../samplers/qnhmc/mod.ts";
import { assertMatchesGaussian } from "../_stat.ts";

// ---------------------------------------------------------------- helpers

/** Σ = AAᵀ/d + I for a seeded random A: SPD with a spread of eigenvalues. */
function randomSpd(d: number, seed: number): Float64Array {
  const rng = new Rng(seed), a = new Float64Array(d * d), out = new Float64Array(d * d);
  for (let i = 0; i < d * d; i++) a[i] = rng.normal();
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += a[i * d + k] * a[j * d + k];
      out[i * d + j] = s / d + (i === j ? 1 : 0);
    }
  }
  return out;
}

/** Curvature pairs of the quadratic U = ½θᵀAθ at random points: y = A s. */
function quadraticPairs(a: Float64Array, d: number, n: number, seed: number): CurvaturePair[] {
  const rng = new Rng(seed), pairs: CurvaturePair[] = [];
  for (let k = 0; k < n; k++) {
    const s = new Float64Array(d), y = new Float64Array(d);
    for (let i = 0; i < d; i++) s[i] = rng.normal();
    for (let i = 0; i < d; i++) {
      let v = 0;
      for (let j = 0; j < d; j++) v += a[i * d + j] * s[j];
      y[i] = v;
    }
    pairs.push({ s, y });
  }
  return pairs;
}

function maxRelativeDifference(x: Float64Array, y: Float64Array): number {
  let num = 0, den = 0;
  for (let i = 0; i < x.length; i++) {
    num = Math.max(num, Math.abs(x[i] - y[i]));
    den = Math.max(den, Math.abs(y[i]));
  }
  return num / den;
}

function assertSymmetricPositiveDefinite(c: InverseHessian, what: string): void {
  const m = c.toDense(), d = c.dim;
  let scale = 0;
  for (const v of m) scale = Math.max(scale, Math.abs(v));
  for (let i = 0; i < d; i++) {
    for (let j = i + 1; j < d; j++) {
      assert.ok(
        Math.abs(m[i * d + j] - m[j * d + i]) <= 1e-12 * scale,
        `${what}: C[${i},${j}] = ${m[i * d + j]} vs C[${j},${i}] = ${m[j * d + i]}`,
      );
      m[j * d + i] = m[i * d + j]; // cholesky checks exact symmetry
    }
  }
  assert.doesNotThrow(() => cholesky(m, { name: what }), `${what}: C is not positive definite`);
}

const COV3 = new Float64Array([1, 0.9, 0.3, 0.9, 2, 0.5, 0.3, 0.5, 0.5]);

// ---------------------------------------------------------------- approximations

Deno.test("lbfgs() two-loop product equals the dense BFGS product for the same pairs", async (t) => {
  const d = 20, a = randomSpd(d, 1), pairs = quadraticPairs(a, d, 7, 2);
  const rng = new Rng(3);
  const vectors = Array.from({ length: 5 }, () => rng.fillNormal(new Float64Array(d)));
  const compare = (x: InverseHessian, y: InverseHessian, what: string) => {
    for (const v of vectors) {
      const px = x.multiply(v, new Float64Array(d)), py = y.multiply(v, new Float64Array(d));
      const err = maxRelativeDifference(px, py);
      assert.ok(err <= 1e-10, `${what}: relative difference ${err}`);
    }
  };
  await t.step("fixed γ", () => {
    const dense = denseBfgs(d, { initial: 1.7 }).update(pairs).approximation;
    const limited = lbfgs(d, { memory: 7, initialScale: 1.7, scaling: "fixed" })
      .update(pairs).approximation;
    assert.equal(limited.numPairs, 7);
    compare(limited, dense, "fixed γ");
  });
  await t.step("γ = sᵀy/yᵀy of the newest pair", () => {
    const { s, y } = pairs[6];
    let sy = 0, yy = 0;
    for (let i = 0; i < d; i++) sy += s[i] * y[i], yy += y[i] * y[i];
    const dense = denseBfgs(d, { initial: sy / yy }).update(pairs).approximation;
    compare(lbfgs(d, { memory: 7 }).update(pairs).approximation, dense, "latest γ");
  });
  await t.step("dense scaleBeforeFirstUpdate = dense from (sᵀy/yᵀy) I of the first pair", () => {
    const { s, y } = pairs[0];
    let sy = 0, yy = 0;
    for (let i = 0; i < d; i++) sy += s[i] * y[i], yy += y[i] * y[i];
    compare(
      denseBfgs(d, { scaleBeforeFirstUpdate: true }).update(pairs).approximation,
      denseBfgs(d, { initial: sy / yy }).update(pairs).approximation,
      "first-pair scaling",
    );
  });
  await t.step("memory m keeps the m newest pairs", () => {
    const more = quadraticPairs(a, d, 10, 4);
    const limited = lbfgs(d, { memory: 7, scaling: "fixed" }).update(more.slice(0, 4))
      .approximation.update(more.slice(4)).approximation;
    assert.equal(limited.numPairs, 7);
    compare(limited, denseBfgs(d).update(more.slice(3)).approximation, "m = 7 of 10");
  });
});

Deno.test("denseBfgs() skips pairs that fail the curvature condition and stays SPD", () => {
  const d = 4, c0 = denseBfgs(d);
  const good = quadraticPairs(randomSpd(d, 5), d, 3, 6);
  const bad: CurvaturePair = { s: good[0].s, y: good[0].y.map((v) => -v) };
  const nan: CurvaturePair = { s: good[1].s, y: good[1].y.map(() => NaN) };
  const r = c0.update([good[0], bad, good[1], nan, good[2]]);
  assert.equal(r.numSkipped, 2);
  assert.equal(r.approximation.numPairs, 3);
  assert.deepEqual(r.approximation.toDense(), c0.update(good).approximation.toDense());
  assert.deepEqual(c0.toDense(), denseBfgs(d).toDense(), "update must not modify C");
  assertSymmetricPositiveDefinite(r.approximation, "after skipped pairs");
  // Secant equation for the newest pair: C y = s.
  const cy = r.approximation.multiply(good[2].y, new Float64Array(d));
  assert.ok(maxRelativeDifference(cy, good[2].s) < 1e-12);
});

// ---------------------------------------------------------------- WASM products

Deno.test("DenseMatVec: A·v in the core equals the TypeScript product to round-off", async (t) => {
  const arena = loadCore();
  await t.step("d = 100 and d = 784, and after the memory grew", () => {
    for (const d of [1, 3, 100, 784]) {
      const rng = new Rng(d), a = new Float64Array(d * d), v = new Float64Array(d);
      for (let i = 0; i < d * d; i++) a[i] = rng.normal();
      for (let i = 0; i < d; i++) v[i] = rng.normal();
      const expected = new Float64Array(d);
      for (let i = 0; i < d; i++) {
        for (let j = 0; j < d; j++) expected[i] += a[i * d + j] * v[j];
      }
      const op = new DenseMatVec(arena, d);
      op.setMatrix(a);
      const out = op.apply(v, new Float64Array(d));
      // Summation order differs (SIMD lanes): equal to round-off, not bit for bit.
      assert.ok(maxRelativeDifference(out, expected) < 1e-12, `d = ${d}`);
      arena.allocF64(1 << 18); // grow the memory: views are re-derived per call
      assert.deepEqual(op.apply(v, new Float64Array(d)), out, `d = ${d} after growth`);
      op.dispose();
      op.dispose(); // idempotent
      assert.throws(() => op.apply(v, new Float64Array(d)), /disposed/);
    }
  });
  await t.step("bad sizes throw", () => {
    assert.throws(() => new DenseMatVec(arena, 0), /dim.*0/);
    const op = new DenseMatVec(arena, 2);
    assert.throws(() => op.setMatrix(new Float64Array(3)), /length 4, got 3/);
    assert.throws(() => op.apply(new Float64Array(3), new Float64Array(2)), /length 2/);
    op.dispose();
  });
});

Deno.test("dense BFGS: the WASM product equals the TypeScript product through updates", () => {
  assert.ok(WASM_PRODUCT_MIN_DIM > 1);
  const d = 100, a = randomSpd(d, 4), v = new Rng(5).fillNormal(new Float64Array(d));
  let ts = denseBfgs(d, { product: "typescript" });
  let wasm = denseBfgs(d, { product: "wasm" });
  let auto = denseBfgs(d); // d ≥ WASM_PRODUCT_MIN_DIM: the core
  const old = wasm;
  for (let k = 0; k < 3; k++) {
    const pairs = quadraticPairs(a, d, 5, 10 + k);
    ts = ts.update(pairs).approximation;
    wasm = wasm.update(pairs).approximation;
    auto = auto.update(pairs).approximation;
    assert.deepEqual(wasm.toDense(), ts.toDense(), "the core's update is the TypeScript update");
    const expected = ts.multiply(v, new Float64Array(d));
    assert.ok(maxRelativeDifference(wasm.multiply(v, new Float64Array(d)), expected) < 1e-12);
    assert.ok(maxRelativeDifference(auto.multiply(v, new Float64Array(d)), expected) < 1e-12);
  }
  // An older approximation sharing the scratch reloads its own C.
  assert.deepEqual(old.multiply(v, new Float64Array(d)), v);
  const before = wasm.multiply(v, new Float64Array(d));
  wasm.dispose();
  const after = wasm.multiply(v, new Float64Array(d)); // TypeScript once disposed
  assert.ok(maxRelativeDifference(after, before) < 1e-12);
  assert.deepEqual(after, ts.multiply(v, new Float64Array(d)));
  auto.dispose();
  assert.throws(() => denseBfgs(2, { product: "gpu" as never }), /product.*"gpu"/);
});

Deno.test("dense BFGS: the update in the core gives the TypeScript update's C bit for bit", async (t) => {
  // d = 100 takes the four-column loops only; 37 and 102 the tails (d mod 4 = 1 and 2).
  for (const d of [100, 37, 102]) {
    await t.step(`d = ${d}`, () => {
      const a = randomSpd(d, 7 + d);
      for (const scaleBeforeFirstUpdate of [false, true]) {
        let ts = denseBfgs(d, { product: "typescript", scaleBeforeFirstUpdate });
        let core = denseBfgs(d, { product: "wasm", scaleBeforeFirstUpdate });
        const first = core;
        for (let k = 0; k < 4; k++) {
          const pairs = quadraticPairs(a, d, 1 + 3 * k, 100 * d + k);
          // A pair failing the curvature condition (sᵀy < 0) is skipped by both.
          const flipped = { s: pairs[0].s, y: pairs[0].y.map((v) => -v) };
          const [u, v] = [ts.update([...pairs, flipped]), core.update([...pairs, flipped])];
          assert.equal(v.numSkipped, 1);
          assert.equal(v.approximation.numPairs, u.approximation.numPairs);
          ts = u.approximation;
          core = v.approximation;
          assert.deepEqual(core.toDense(), ts.toDense(), `update ${k}`);
        }
        // Only skipped pairs: the same approximation back.
        const none = core.update([{ s: new Float64Array(d).fill(1), y: new Float64Array(d) }]);
        assert.equal(none.approximation, core);
        // The older approximation still multiplies with its own C (reloaded into the core).
        const v = new Rng(d).fillNormal(new Float64Array(d));
        assert.deepEqual(first.multiply(v, new Float64Array(d)), v);
        assertSymmetricPositiveDefinite(core, `d = ${d}`);
        core.dispose();
        // Disposed: the TypeScript update takes over, with the same C.
        const pairs = quadraticPairs(a, d, 3, 5);
        assert.deepEqual(
          core.update(pairs).approximation.toDense(),
          ts.update(pairs).approximation.toDense(),
        );
      }
    });
  }
  await t.step("DenseMatVec.bfgsUpdate checks its input", () => {
    const op = new DenseMatVec(loadCore(), 3);
    assert.ok(op.hasBfgsUpdate);
    const s = new Float64Array(3);
    assert.throws(
      () => op.bfgsUpdate([{ s, y: new Float64Array(2), sy: 1 }]),
      /pair 0.*length 3.*3 and 2/,
    );
    assert.throws(() => op.getMatrix(new Float64Array(4)), /length 9, got 4/);
    op.bfgsUpdate([]); // nothing to do
    assert.deepEqual(op.getMatrix(), new Float64Array(9));
    op.dispose();
    assert.throws(() => op.bfgsUpdate([]), /disposed/);
    const reference = new DenseMatVec(loadCore({ backend: "reference" }), 2);
    assert.equal(reference.hasBfgsUpdate, false);
    assert.throws(() => reference.bfgsUpdate([]), /reference backend has no BFGS update/);
  });
});

Deno.test("qnhmc chain sampler: WASM and TypeScript products give the same chain; dispose frees", () => {
  const d = 40;
  const model = gaussianTarget(new Float64Array(d), randomSpd(d, 6));
  const run = (product: "wasm" | "typescript") => {
    const sampler = qnhmcChainSampler(model, { stepSize: 0.2, numIntegrationSteps: 5, product });
    const rng = new Rng(7);
    let s = sampler.init(new Float64Array(d).fill(0.5), rng);
    for (let i = 0; i < 30; i++) {
      s = sampler.step(rng, s, "warmup", i).state;
      s = sampler.adapt!.update(s, {
        info: { acceptanceRate: 1 } as never,
        iteration: i,
        numWarmup: 30,
        rng,
        chain: 0,
      });
    }
    assert.ok(s.kernel.inverseHessian.numPairs > 0);
    sampler.dispose!(s);
    return s.kernel.position;
  };
  // Round-off differences can in principle flip an accept; over 30 steps they only move θ slightly.
  assert.ok(maxRelativeDifference(run("wasm"), run("typescript")) < 1e-8);
});

// ---------------------------------------------------------------- kernel

Deno.test("step() with C = I equals hmc.step draw for draw", () => {
  const model = gaussianTarget(new Float64Array([1, -1, 0.5]), COV3);
  const fn = model.logDensityAndGradient;
  const metric = identityMetric(3);
  for (const c of [denseBfgs(3), lbfgs(3)]) {
    let q = init(new Float64Array([2, 2, -2]), { logDensityAndGradientFn: fn, inverseHessian: c });
    let h = hmc.init(new Float64Array([2, 2, -2]), fn);
    const rq = new Rng(9), rh = new Rng(9);
    let accepted = 0;
    for (let i = 0; i < 300; i++) {
      const params = { logDensityAndGradientFn: fn, stepSize: 0.3, numIntegrationSteps: 7, metric };
      const a = step(rq, q, { ...params, collectPairs: false });
      const b = hmc.step(rh, h, params);
      q = a.state, h = b.state;
      assert.deepEqual(q.position, h.position, `${c.kind}: iteration ${i}`);
      assert.equal(a.info.energyError, b.info.energyError);
      assert.equal(a.info.isAccepted, b.info.isAccepted);
      accepted += a.info.isAccepted ? 1 : 0;
    }
    assert.ok(accepted > 100 && accepted < 300, `acceptance must vary, got ${accepted}/300`);
  }
});

Deno.test("step() reports divergences in info instead of throwing", async (t) => {
  const model = gaussianTarget(new Float64Array(3), COV3);
  const metric = identityMetric(3);
  await t.step("huge ε", () => {
    const s = init(new Float64Array([1, 1, 1]), {
      logDensityAndGradientFn: model.logDensityAndGradient,
      inverseHessian: denseBfgs(3),
    });
    const r = step(new Rng(1), s, {
      logDensityAndGradientFn: model.logDensityAndGradient,
      stepSize: 1e3,
      numIntegrationSteps: 10,
      metric,
    });
    assert.equal(r.info.isDivergent, true);
    assert.equal(r.info.isAccepted, false);
    assert.equal(r.state, s);
  });
  await t.step("non-finite log density", () => {
    const fn = (x: Float64Array, g: Float64Array) => {
      g.fill(1);
      return x[0] > 1.5 ? -Infinity : x[0];
    };
    const s = init(new Float64Array([1, 0, 0]), {
      logDensityAndGradientFn: fn,
      inverseHessian: lbfgs(3),
    });
    const r = step(new Rng(2), s, {
      logDensityAndGradientFn: fn,
      stepSize: 1,
      numIntegrationSteps: 5,
      metric,
    });
    assert.equal(r.info.isDivergent, true);
    assert.equal(r.info.energyError, Infinity);
    assert.deepEqual(r.state.position, s.position);
    assert.equal(r.state.pendingPairs.length, 0);
  });
});

Deno.test("adoptPendingPairs() after accepted steps keeps C SPD over a long continuous run", async (t) => {
  const d = 10, cov = randomSpd(d, 11);
  const model = gaussianTarget(new Float64Array(d), cov);
  for (const approximation of ["bfgs", "lbfgs"] as const) {
    await t.step(approximation, () => {
      const sampler = qnhmcChainSampler(model, {
        approximation,
        adaptation: "continuous",
        stepSize: 0.1,
        numIntegrationSteps: 10,
      });
      const rng = new Rng(12);
      let s = sampler.init(new Float64Array(d).fill(3), rng);
      for (let i = 0; i < 3000; i++) {
        s = sampler.step(rng, s, "sampling", i).state;
        if (i % 500 === 499) {
          assertSymmetricPositiveDefinite(s.kernel.inverseHessian, `${approximation} at ${i}`);
        }
      }
      assert.ok(s.kernel.inverseHessian.numPairs > 0);
      if (approximation === "bfgs") {
        // On a Gaussian y = Σ⁻¹s exactly, so BFGS converges to C = Σ.
        const err = maxRelativeDifference(s.kernel.inverseHessian.toDense(), cov);
        assert.ok(err < 1e-6, `C should approach Σ, relative difference ${err}`);
      }
    });
  }
});

Deno.test("adoptPendingPairs() is a no-op after a rejection (Algorithm 2, B = C)", () => {
  const model = gaussianTarget(new Float64Array(3), COV3);
  const s = init(new Float64Array([1, 1, 1]), {
    logDensityAndGradientFn: model.logDensityAndGradient,
    inverseHessian: denseBfgs(3),
  });
  const r = step(new Rng(1), { ...s, pendingPairs: quadraticPairs(COV3, 3, 2, 1) }, {
    logDensityAndGradientFn: model.logDensityAndGradient,
    stepSize: 1e3,
    numIntegrationSteps: 3,
    metric: identityMetric(3),
  });
  assert.equal(r.info.isAccepted, false);
  assert.equal(adoptPendingPairs(r.state).state.inverseHessian, s.inverseHessian);
});

// ---------------------------------------------------------------- sampler

Deno.test("runQnhmc() samples a correlated Gaussian in both adaptation modes", async (t) => {
  const mean = new Float64Array([1, -2, 0.5]);
  const model = gaussianTarget(mean, COV3);
  for (const adaptation of ["warmup", "continuous"] as const) {
    for (const approximation of ["bfgs", "lbfgs"] as const) {
      await t.step(`${adaptation}, ${approximation}`, () => {
        const r = runQnhmc(model, {
          seed: `qnhmc/${adaptation}/${approximation}`,
          numWarmup: 300,
          numSamples: 2000,
          numChains: 4,
          initialPosition: new Float64Array([4, 4, -4]),
          stepSize: 0.2,
          numIntegrationSteps: 8,
          adaptation,
          approximation,
          memory: 3,
        });
        assertMatchesGaussian(r.draws, mean, COV3, { what: `θ (${adaptation}, ${approximation})` });
        const tuning = r.chains[0].tuning as { numPairs: number };
        assert.ok(tuning.numPairs > 0, "warmup must have built C");
      });
    }
  }
});

Deno.test("qnhmcDescription builds a sampler and validates its options", async (t) => {
  const model = gaussianTarget(new Float64Array(2), new Float64Array([1, 1]));
  await t.step("shape", () => {
    assert.equal(qnhmcDescription.name, "qnhmc");
    assert.equal(qnhmcDescription.requires, "log-density");
    assert.equal(qnhmcDescription.isExact, true);
  });
  await t.step("warmup mode freezes C while sampling", () => {
    const sampler = qnhmcDescription.build(model, { stepSize: 0.3 });
    const rng = new Rng(1);
    let s = sampler.init(new Float64Array([1, 1]), rng);
    for (let i = 0; i < 20; i++) {
      s = sampler.step(rng, s, "sampling", i).state;
    }
    const typed = s as { kernel: { inverseHessian: InverseHessian } };
    assert.equal(typed.kernel.inverseHessian.numPairs, 0);
  });
  await t.step("continuous mode adapts C while sampling", () => {
    const sampler = qnhmcDescription.build(model, { stepSize: 0.3, adaptation: "continuous" });
    const rng = new Rng(1);
    let s = sampler.init(new Float64Array([1, 1]), rng);
    for (let i = 0; i < 20; i++) {
      s = sampler.step(rng, s, "sampling", i).state;
    }
    const typed = s as { kernel: { inverseHessian: InverseHessian } };
    assert.ok(typed.kernel.inverseHessian.numPairs > 0);
  });
  await t.step("dual averaging in warmup", () => {
    const r = runQnhmc(model, {
      seed: 3,
      numWarmup: 200,
      numSamples: 10,
      numChains: 1,
      stepSize: 5,
      adaptStepSize: true,
    });
    const eps = (r.chains[0].tuning as { stepSize: number }).stepSize;
    assert.ok(eps < 5 && eps > 0.01, `ε should shrink from 5, got ${eps}`);
  });
  await t.step("defaults: ε found and adapted, jittered; a given ε stays fixed", () => {
    const run = (options: Record<string, unknown>) =>
      runQnhmc(model, { seed: 3, numWarmup: 200, numSamples: 10, numChains: 1, ...options })
        .chains[0].tuning as { stepSize: number; stepSizeJitter: number };
    const adapted = run({});
    assert.ok(adapted.stepSize > 0 && Number.isFinite(adapted.stepSize));
    assert.notEqual(adapted.stepSize, 0.1);
    assert.equal(adapted.stepSizeJitter, 0.2);
    const fixed = run({ stepSize: 0.1 });
    assert.equal(fixed.stepSize, 0.1);
    assert.equal(fixed.stepSizeJitter, 0);
  });
  await t.step("errors name the option and the value", () => {
    assert.throws(() => qnhmcDescription.build(model, { stepSize: -1 }), /stepSize.*-1/);
    assert.throws(() => qnhmcDescription.build(model, { stepSizeJitter: 1 }), /stepSizeJitter.*1/);
    assert.throws(
      () => qnhmcDescription.build(model, { adaptation: "always" as never }),
      /adaptation.*"always"/,
    );
    assert.throws(
      () => qnhmcDescription.build(model, { memory: 0, approximation: "lbfgs" }),
      /memory.*0/,
    );
    assert.throws(() => lbfgs(2, { curvatureTolerance: -1 }), /curvatureTolerance.*-1/);
  });
});
