/**
 * Tests of the stochastic-gradient stack, part 2: the Normal-Gamma model and
 * the SGLD, SG-HMC, SGNHT and CCAdL kernels; the gradient estimators and
 * their covariance are in sg_estimators_test.ts.
 *
 * Statistical checks use fixed seeds and tolerances from Monte Carlo standard
 * errors: CLT bounds (4 standard errors) for unbiasedness, non-overlapping
 * batch means for chain averages. Nothing was tuned to pass; each margin is
 * justified where it is set.
 */

import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import { NormalGammaModel } from "../../examples/models/normal_gamma.ts";
import { Rng } from "../../random/rng.ts";
import * as ccadl from "../../samplers/ccadl/kernel.ts";
import { sampleChains } from "../../samplers/driver.ts";
import { sample } from "../../samplers/sample.ts";
import { kineticTemperature, reflectIntoBounds } from "../../samplers/sg/common.ts";
import * as sghmc from "../../samplers/sghmc/kernel.ts";
import * as sgld from "../../samplers/sgld/kernel.ts";
import * as sgnht from "../../samplers/sgnht/kernel.ts";
import { minibatchGradient } from "../../subsampling/gradient_estimators.ts";
import { runCcadl } from "../../samplers/ccadl/run.ts";
import { runSghmc } from "../../samplers/sghmc/run.ts";
import { runSgld } from "../../samplers/sgld/run.ts";
import { runSgnht } from "../../samplers/sgnht/run.ts";

/** Mean and MCSE of a chain by 40 non-overlapping batch means. */
function batchMeans(x: ArrayLike<number>): { mean: number; mcse: number } {
  const n = x.length, B = 40, b = Math.floor(n / B);
  const means: number[] = [];
  let total = 0;
  for (let k = 0; k < B; k++) {
    let s = 0;
    for (let i = k * b; i < (k + 1) * b; i++) s += x[i];
    means.push(s / b);
    total += s / b;
  }
  const m = total / B;
  let v = 0;
  for (const q of means) v += (q - m) ** 2;
  return { mean: m, mcse: Math.sqrt(v / (B - 1) / B) };
}

// ---------------------------------------------------------------- Normal-Gamma model

Deno.test("NormalGammaModel claims: CCAdL §4.1 gradients, analytic marginals", async (t) => {
  const x = new Rng(10).fillNormal(new Float64Array(100));
  const model = new NormalGammaModel(x);
  await t.step("the gradient matches central finite differences", () => {
    const theta = new Float64Array([0.3, 0.8]), g = new Float64Array(2);
    model.logDensityAndGradient(theta, g);
    for (let j = 0; j < 2; j++) {
      const hi = Float64Array.from(theta), lo = Float64Array.from(theta);
      hi[j] += 1e-6;
      lo[j] -= 1e-6;
      const fd = (model.logDensity(hi) - model.logDensity(lo)) / 2e-6;
      assert.ok(
        Math.abs(fd - g[j]) < 1e-5 * Math.max(1, Math.abs(g[j])),
        `coord ${j}: ${fd} vs ${g[j]}`,
      );
    }
  });
  await t.step("the minibatch gradient is the paper's ∇Ũ: ∇μŨ = (N+1)μγ − γ(N/n)Σx", () => {
    const rows = new Int32Array([3, 7, 11]),
      per = new Float64Array(6),
      th = new Float64Array([0.2, 1.3]);
    model.perRowGradients(th, rows, per);
    let sx = 0, sr = 0;
    for (const r of rows) {
      sx += x[r];
      sr += (x[r] - th[0]) ** 2;
    }
    const N = 100, n = 3, prior = new Float64Array(2);
    model.logPrior(th, prior);
    const gMu = prior[0] + (N / n) * (per[0] + per[2] + per[4]);
    const gGa = prior[1] + (N / n) * (per[1] + per[3] + per[5]);
    assert.ok(Math.abs(-gMu - ((N + 1) * th[0] * th[1] - (th[1] * N / n) * sx)) < 1e-10);
    assert.ok(
      Math.abs(-gGa - (1 - (N + 1) / (2 * th[1]) + th[0] ** 2 / 2 + (N / (2 * n)) * sr)) < 1e-10,
    );
  });
  await t.step("marginal densities integrate to 1 and have the posterior moments", () => {
    const mom = model.posteriorMoments();
    for (
      const [j, f] of [[0, (v: number) => model.marginalDensityMu(v)], [
        1,
        (v: number) => model.marginalDensityGamma(v),
      ]] as const
    ) {
      const lo = mom.mean[j] - 12 * Math.sqrt(mom.variance[j]),
        hi = mom.mean[j] + 12 * Math.sqrt(mom.variance[j]);
      const K = 20000, h = (hi - lo) / K;
      let z = 0, m1 = 0, m2 = 0;
      for (let k = 0; k <= K; k++) {
        const v = lo + k * h, w = (k === 0 || k === K ? 0.5 : 1) * h * f(v);
        z += w;
        m1 += w * v;
        m2 += w * v * v;
      }
      assert.ok(Math.abs(z - 1) < 1e-8, `integral ${z}`);
      assert.ok(Math.abs(m1 - mom.mean[j]) < 1e-8);
      assert.ok(Math.abs(m2 - m1 * m1 - mom.variance[j]) < 1e-6 * mom.variance[j]);
    }
  });
  await t.step(
    "γ ≤ 0 has log density −∞; reflectIntoBounds() maps γ < 0 back and flips p_γ",
    () => {
      assert.equal(model.logDensity(new Float64Array([0, -0.1])), -Infinity);
      const th = new Float64Array([0.1, -0.05]), p = new Float64Array([1, -2]);
      assert.equal(reflectIntoBounds(th, { bounds: model.bounds, momentum: p }), 1);
      assert.deepEqual(Array.from(th), [0.1, 0.05]);
      assert.deepEqual(Array.from(p), [1, 2]);
    },
  );
});

// ---------------------------------------------------------------- samplers: h → 0

/** Gaussian linear regression (σ = 10, N = 100): posterior sd ≈ 1, gradient noise Σ ≈ 10. */
function gaussianRegression() {
  const arena = loadCore();
  const N = 100, d = 2, sigma = 10, rng = new Rng(5);
  const x = new Float64Array(N * d), y = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    x[i * d] = 1;
    x[i * d + 1] = rng.normal();
    y[i] = 1 + 2 * x[i * d + 1] + sigma * rng.normal();
  }
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), {
    family: "gaussian",
    sigma,
    priorScale: 10,
  });
  // Posterior precision P = XᵀX/σ² + I/100, mean P⁻¹Xᵀy/σ².
  const P = [0.01, 0, 0, 0.01], b = [0, 0];
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < d; j++) {
      b[j] += (x[i * d + j] * y[i]) / sigma ** 2;
      for (let k = 0; k < d; k++) P[j * d + k] += (x[i * d + j] * x[i * d + k]) / sigma ** 2;
    }
  }
  const det = P[0] * P[3] - P[1] * P[2];
  const S = [P[3] / det, -P[1] / det, -P[2] / det, P[0] / det];
  return {
    model,
    mean: [S[0] * b[0] + S[1] * b[1], S[2] * b[0] + S[3] * b[1]],
    variance: [S[0], S[3]],
  };
}

Deno.test("SG samplers: the bias of mean and variance shrinks as h → 0 (Gaussian linear regression)", async (t) => {
  const { model, mean, variance } = gaussianRegression();
  const estimator = minibatchGradient(model, { batchSize: 10 });
  const T = 50000;
  type Kernel = (h: number, rng: Rng) => (theta: Float64Array) => Float64Array;
  const kernels: Record<
    string,
    { hs: [number, number]; iters: (h: number) => number; make: Kernel }
  > = {
    sgld: {
      hs: [0.4, 0.1],
      iters: () => T,
      make: (h, rng) => {
        let s = sgld.init(new Float64Array(mean));
        return () => (s = sgld.step(rng, s, { estimator, stepSize: h }).state).position;
      },
    },
    sghmc: { // §6.2 form: p resampled each iteration, L = 1/ε steps, C = I.
      hs: [0.2, 0.05],
      iters: () => T / 10,
      make: (h, rng) => {
        let s = sghmc.init(new Float64Array(mean), { rng });
        const L = Math.round(1 / h);
        return () =>
          (s = sghmc.step(rng, s, { estimator, stepSize: h, numIntegrationSteps: L }).state)
            .position;
      },
    },
    sgnht: {
      hs: [0.2, 0.05],
      iters: () => T,
      make: (h, rng) => {
        let s = sgnht.init(new Float64Array(mean), { rng });
        return () => (s = sgnht.step(rng, s, { estimator, stepSize: h }).state).position;
      },
    },
    ccadl: {
      hs: [0.2, 0.05],
      iters: () => T,
      make: (h, rng) => {
        let s = ccadl.init(new Float64Array(mean), { rng });
        return () =>
          (s = ccadl.step(rng, s, { estimator, stepSize: h, isInPlace: true }).state).position;
      },
    },
  };
  for (const [name, k] of Object.entries(kernels)) {
    await t.step(
      `${name}: total |relative variance error| drops beyond 2 MCSE from h = ${k.hs[0]} to ${
        k.hs[1]
      }`,
      () => {
        const out = k.hs.map((h) => {
          const rng = new Rng(11), next = k.make(h, rng), n = k.iters(h);
          const draws = [new Float64Array(n), new Float64Array(n)];
          for (let i = 0; i < n; i++) {
            const p = next(new Float64Array(0));
            draws[0][i] = p[0];
            draws[1][i] = p[1];
          }
          let bias = 0, se2 = 0;
          const meanErr: { err: number; mcse: number }[] = [];
          for (let j = 0; j < 2; j++) {
            const bm = batchMeans(draws[j]);
            const sq = draws[j].map((v) => (v - bm.mean) ** 2);
            const bv = batchMeans(sq);
            bias += Math.abs(bv.mean / variance[j] - 1);
            se2 += (bv.mcse / variance[j]) ** 2;
            meanErr.push({ err: bm.mean - mean[j], mcse: bm.mcse });
          }
          return { bias, se: Math.sqrt(se2), meanErr };
        });
        const [big, small] = out;
        assert.ok(
          small.bias + 2 * small.se < big.bias - 2 * big.se && small.bias < 0.6 * big.bias,
          `${name}: variance bias ${big.bias.toFixed(3)} ± ${big.se.toFixed(3)} → ${
            small.bias.toFixed(3)
          } ± ${small.se.toFixed(3)}`,
        );
        // The mean of a Gaussian target is (nearly) unbiased for all four: 4 MCSE + 5 % of a posterior sd.
        for (let j = 0; j < 2; j++) {
          const { err, mcse } = small.meanErr[j];
          assert.ok(
            Math.abs(err) < 4 * mcse + 0.05 * Math.sqrt(variance[j]),
            `${name} mean[${j}] off by ${err} (MCSE ${mcse})`,
          );
        }
      },
    );
  }
});

// ---------------------------------------------------------------- CCAdL vs SGNHT temperature

Deno.test("ccadl.step() keeps each kinetic temperature ⟨p_j²⟩ ≈ 1 under parameter-dependent noise where sgnht.step() does not", async (t) => {
  // CCAdL §4.1: N = 100, n = 10, h = 0.01, A = 1. The gradient noise of μ (≈ 1000γ²) and
  // of γ (≈ 500) differ, so SGNHT's single thermostat over-heats μ and over-cools γ.
  const model = new NormalGammaModel(new Rng(1).fillNormal(new Float64Array(100)));
  const mom = model.posteriorMoments();
  const estimator = minibatchGradient(model, { batchSize: 10 });
  const T = 150000, burn = 10000, h = 0.01;
  const temps = (kind: "sgnht" | "ccadl") => {
    const rng = new Rng(7);
    const start = new Float64Array(mom.mean);
    const p2 = [new Float64Array(T - burn), new Float64Array(T - burn)],
      total = new Float64Array(T - burn);
    let s1 = sgnht.init(start, { rng }), s2 = ccadl.init(start, { rng });
    const params = { estimator, stepSize: h, friction: 1, bounds: model.bounds };
    for (let i = 0; i < T; i++) {
      let p: Float64Array;
      if (kind === "sgnht") p = (s1 = sgnht.step(rng, s1, params).state).momentum;
      else p = (s2 = ccadl.step(rng, s2, { ...params, isInPlace: true }).state).momentum;
      if (i >= burn) {
        p2[0][i - burn] = p[0] * p[0];
        p2[1][i - burn] = p[1] * p[1];
        total[i - burn] = kineticTemperature(p);
      }
    }
    return { mu: batchMeans(p2[0]), gamma: batchMeans(p2[1]), total: batchMeans(total) };
  };
  const a = temps("sgnht"), b = temps("ccadl");
  await t.step("both thermostats hold the total temperature pᵀp/N_d at 1 (the ξ equation)", () => {
    for (const r of [a, b]) {
      assert.ok(Math.abs(r.total.mean - 1) < 4 * r.total.mcse + 0.03, `${r.total.mean}`);
    }
  });
  await t.step("SGNHT: ⟨p_μ²⟩ and ⟨p_γ²⟩ differ by more than 0.1 and 4 MCSE", () => {
    const diff = a.mu.mean - a.gamma.mean, se = Math.hypot(a.mu.mcse, a.gamma.mcse);
    assert.ok(
      diff > 0.1 && diff > 4 * se,
      `SGNHT ⟨p_μ²⟩ = ${a.mu.mean}, ⟨p_γ²⟩ = ${a.gamma.mean} (MCSE ${se})`,
    );
  });
  await t.step("CCAdL: each ⟨p_j²⟩ within 4 MCSE + 0.03 (an O(h) allowance) of 1", () => {
    for (const r of [b.mu, b.gamma]) {
      assert.ok(Math.abs(r.mean - 1) < 4 * r.mcse + 0.03, `CCAdL ⟨p²⟩ = ${r.mean} ± ${r.mcse}`);
    }
  });
});

// ---------------------------------------------------------------- driver and parameters

Deno.test("SG samplers run through sampleChains() with cost per phase", async (t) => {
  const model = new NormalGammaModel(new Rng(3).fillNormal(new Float64Array(100)));
  const estimator = minibatchGradient(model, { batchSize: 10 });
  const base = { estimator, stepSize: 0.005, bounds: model.bounds };
  const samplers = {
    sgld: sgld.sampler(base),
    sghmc: sghmc.sampler({ ...base, friction: 1, resampleMomentum: false }),
    sgnht: sgnht.sampler(base),
    ccadl: ccadl.sampler({ ...base, covariance: "full" }),
  };
  for (const [name, sampler] of Object.entries(samplers)) {
    await t.step(`${name}: 100 warmup + 200 sampling steps count 10 gradient rows each`, () => {
      const r = sampleChains({
        // deno-lint-ignore no-explicit-any
        sampler: sampler as any,
        model,
        seed: 2,
        numWarmup: 100,
        numSamples: 200,
        numChains: 2,
        initialPosition: new Float64Array([0, 1]),
      });
      assert.equal(r.draws[1][1].length, 200);
      assert.equal(r.chains[0].cost.sampling.numGradRows, 2000);
      assert.equal(r.chains[1].cost.warmup.numGradRows, 1000);
      assert.equal(r.chains[0].info.sampling.numGradRows.length, 200);
      assert.ok(r.draws[0][1].every((g) => g > 0), "γ stays positive");
    });
  }
  await t.step("errors name the bad value", () => {
    const s = sgld.init(new Float64Array([0, 1]));
    assert.throws(
      () => sgld.step(new Rng(1), s, { ...base, stepSize: -0.1 }),
      /stepSize must be positive and finite, got -0.1/,
    );
    const c = sgnht.init(new Float64Array([0, 1]));
    assert.throws(
      () => sgnht.step(new Rng(1), c, { ...base, friction: 0 }),
      /friction must be positive and finite, got 0/,
    );
    assert.throws(
      () =>
        sghmc.step(new Rng(1), sghmc.init(new Float64Array([0, 1])), {
          ...base,
          numIntegrationSteps: 1.5,
        }),
      /numIntegrationSteps must be a positive integer, got 1.5/,
    );
    assert.throws(
      () =>
        ccadl.step(new Rng(1), ccadl.init(new Float64Array([0, 1])), {
          ...base,
          covariance: "full",
        }),
      /params.covariance is "full" but the state holds a diagonal estimate/,
    );
    assert.throws(
      () => sgld.step(new Rng(1), sgld.init(new Float64Array(3)), base),
      /estimator dimension 2 does not match the position's 3/,
    );
  });
});

Deno.test("registry SG samplers at their defaults: the gradient matters", async (t) => {
  // Two data sets that differ only in the response (y and y + 2): the
  // posterior of the intercept moves by ≈ 2 (about 28 posterior sds). Both
  // runs start at the same θ* = 0 (also the control variates' centre), so
  // only the gradients can tell them apart: a sampler whose output did not
  // depend on the gradient (SG-HMC with L = 1 and fresh momenta, the old
  // default) would give the same draws for both.
  const arena = loadCore();
  const rng = new Rng("gradient-matters");
  const n = 200, x = new Float64Array(2 * n), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[2 * i] = 1;
    x[2 * i + 1] = rng.normal();
    y[i] = 0.5 + x[2 * i + 1] + rng.normal();
  }
  const make = (shift: number) =>
    new GlmModel(glmDataFromArrays(arena, x, y.map((v) => v + shift), { numCols: 2 }), {
      family: "gaussian",
      sigma: 1,
    });
  const a = make(0), b = make(2);
  const sd = 1 / Math.sqrt(n); // posterior sd of the intercept (σ = 1, centred covariate)
  for (const name of ["sgld", "sghmc", "sgnht", "ccadl"]) {
    await t.step(name, () => {
      const mean = (model: GlmModel) => {
        const r = sample(model, {
          sampler: name,
          seed: 4,
          numChains: 1,
          numWarmup: 1000,
          numSamples: 1000,
          thetaStar: new Float64Array(2),
        });
        assert.equal(r.chains[0].stop, null);
        const d = r.draws[0][0];
        return d.reduce((s, v) => s + v, 0) / d.length;
      };
      const diff = mean(b) - mean(a);
      // The true difference is 2; allow 10 posterior sds for the SG bias and
      // Monte Carlo error of 1,000 autocorrelated draws.
      assert.ok(Math.abs(diff - 2) < 10 * sd, `${name}: means differ by ${diff}`);
    });
  }
});

Deno.test("the SG runners (runSgld, runSghmc, runSgnht, runCcadl) give sample()'s draws and refuse unknown options", async (t) => {
  const arena = loadCore();
  const rng = new Rng("sg-runners");
  const n = 100, x = new Float64Array(2 * n), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[2 * i] = 1;
    x[2 * i + 1] = rng.normal();
    y[i] = 0.5 + x[2 * i + 1] + rng.normal();
  }
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: 2 }), {
    family: "gaussian",
    sigma: 1,
  });
  const runners = { sgld: runSgld, sghmc: runSghmc, sgnht: runSgnht, ccadl: runCcadl };
  for (const [name, run] of Object.entries(runners)) {
    await t.step(name, () => {
      const options = { seed: 3, numChains: 1, numWarmup: 20, numSamples: 30 };
      const a = run(model, options), b = sample(model, { sampler: name, ...options });
      assert.deepEqual(a.draws, b.draws);
      assert.throws(() => run(model, { ...options, stepSzie: 0.1 } as never), /stepSzie/);
    });
  }
});

Deno.test("SG chain samplers that write into alternating buffers step exactly as the allocating kernels", async (t) => {
  const model = new NormalGammaModel(new Rng(5).fillNormal(new Float64Array(100)));
  const estimator = minibatchGradient(model, { batchSize: 10 });
  const base = { estimator, stepSize: 0.05, bounds: model.bounds };
  const kernels = {
    sghmc: {
      params: { ...base, friction: 1, resampleMomentum: false },
      mod: sghmc,
      init: (rng: Rng) => sghmc.init(new Float64Array([0, 1]), { rng }),
    },
    "sghmc (momentum resampled)": {
      params: { ...base, friction: 1, numIntegrationSteps: 2 },
      mod: sghmc,
      init: (rng: Rng) => sghmc.init(new Float64Array([0, 1]), { rng }),
    },
    sgnht: {
      params: { ...base, friction: 2 },
      mod: sgnht,
      init: (rng: Rng) => sgnht.init(new Float64Array([0, 1]), { rng, friction: 2 }),
    },
    ccadl: {
      params: { ...base, covariance: "full" as const },
      mod: ccadl,
      init: (rng: Rng) => ccadl.init(new Float64Array([0, 1]), { rng, covariance: "full" }),
    },
  };
  for (const [name, k] of Object.entries(kernels)) {
    await t.step(`${name}: 300 steps, every position and momentum bit for bit`, () => {
      // deno-lint-ignore no-explicit-any
      const mod = k.mod as any;
      // Each side its own estimator: an estimator keeps a permutation from call to call.
      const mine = minibatchGradient(model, { batchSize: 10 });
      const other = minibatchGradient(model, { batchSize: 10 });
      const chain = mod.sampler({ ...k.params, estimator: mine });
      const rngA = new Rng(11), rngB = new Rng(11);
      let a = chain.init(new Float64Array([0, 1]), rngA);
      // The allocating kernel with isInPlace: false keeps every state intact.
      let b = k.init(rngB);
      const seen = new Set<Float64Array>();
      for (let i = 0; i < 300; i++) {
        a = chain.step(rngA, a, "sampling", i).state;
        b = mod.step(rngB, b, { ...k.params, estimator: other, isInPlace: false }).state;
        assert.deepEqual([...a.position], [...b.position], `${name} θ at step ${i}`);
        assert.deepEqual([...a.momentum], [...b.momentum], `${name} p at step ${i}`);
        seen.add(a.position);
      }
      assert.equal(seen.size, 2, "the chain sampler alternates between two position arrays");
    });
  }
  await t.step("a step refuses buffers that are the state's own arrays", () => {
    const rng = new Rng(1);
    const s = sgnht.init(new Float64Array([0, 1]), { rng });
    const out = {
      position: s.position,
      momentum: new Float64Array(2),
      scratch: new Float64Array(2),
    };
    assert.throws(
      () => sgnht.step(rng, s, base, out),
      /out\.position must not be the state's own array/,
    );
    const short = {
      position: new Float64Array(1),
      momentum: new Float64Array(2),
      scratch: new Float64Array(2),
    };
    assert.throws(() => sgnht.step(rng, s, base, short), /out\.position must have length 2, got 1/);
  });
});
