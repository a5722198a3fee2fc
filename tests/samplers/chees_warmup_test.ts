import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { higgsShaped } from "../../data/synthetic.ts";
import { mcseMean } from "../../diagnostics/mcse.ts";
import { GlmModel } from "../../models/glm.ts";
import { parameterDraws } from "../../samplers/driver.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { DEFAULT_SAMPLING_JITTER } from "../../samplers/hmc/options.ts";
import { haltonJitter } from "../../samplers/trajectory_adaptation.ts";

Deno.test('runHmc() warmupScheme "chees" costs a fraction of "fixed" and agrees with it', async (t) => {
  const arena = loadCore();
  // n = 2000 (was 5000, 3× the cost): chees/fixed warm-up gradients 0.17 (bound 1/3), chees
  // 2.7 per iteration (bound 7.674), worst mean difference 1.5 combined MCSE (bound 4).
  const { data } = higgsShaped(arena, { n: 2000, seed: 9 });
  const model = new GlmModel(data, { family: "logistic", priorScale: 5 });
  const n = model.numRows;
  const base = { seed: 4, numWarmup: 400, numSamples: 600, numChains: 2 };
  const chees = runHmc(model, base);
  const fixed = runHmc(model, { ...base, warmupScheme: "fixed" });
  const grads = (r: typeof chees, phase: "warmup" | "sampling") =>
    r.chains.reduce((s, c) => s + c.cost[phase].numGradRows, 0) / n / r.numChains;
  await t.step(
    "gradients per warmup iteration: at most a third of the fixed εL = 1.2 warmup's",
    () => {
      const g = grads(chees, "warmup") / base.numWarmup,
        gf = grads(fixed, "warmup") / base.numWarmup;
      assert.ok(
        g < gf / 3,
        `chees ${g.toFixed(1)} vs fixed ${gf.toFixed(1)} gradients per iteration`,
      );
      assert.ok(g < 7.674, `chees warmup used ${g.toFixed(1)} gradients per iteration`);
    },
  );
  await t.step("L is jittered in sampling: ⌈h·T/ε⌉, h = 0.5 + the Halton u ∈ (0, 1)", () => {
    const c = chees.chains[0];
    const T = c.tuning.trajectoryLength as number, eps = c.tuning.stepSize as number;
    const L = c.info.sampling.numIntegrationSteps;
    const k0 = base.numWarmup; // transitions made before sampling
    assert.deepEqual([...DEFAULT_SAMPLING_JITTER], [0.5, 1.5]);
    for (let i = 0; i < 5; i++) {
      const h = 0.5 + haltonJitter(k0 + i);
      assert.equal(L[i], Math.max(1, Math.ceil(h * T / eps - 1e-9)));
    }
    // Every sampling trajectory is at least T/2 long (within one step).
    assert.ok(L.every((l) => l >= Math.ceil(0.5 * T / eps - 1e-9)));
  });
  await t.step("samplingJitterMin/Max set h's range; bad ranges are refused by name", () => {
    const r = runHmc(model, {
      ...base,
      numChains: 1,
      numSamples: 20,
      samplingJitterMin: 0,
      samplingJitterMax: 1,
    });
    const c = r.chains[0];
    const T = c.tuning.trajectoryLength as number, eps = c.tuning.stepSize as number;
    const L = c.info.sampling.numIntegrationSteps;
    for (let i = 0; i < 5; i++) {
      assert.equal(
        L[i],
        Math.max(1, Math.ceil(haltonJitter(base.numWarmup + i) * T / eps - 1e-9)),
      );
    }
    for (const [lo, hi] of [[-0.1, 1], [1, 1], [0.5, Infinity], [NaN, 1]]) {
      assert.throws(
        () => runHmc(model, { ...base, samplingJitterMin: lo, samplingJitterMax: hi }),
        /samplingJitterMin and samplingJitterMax/,
      );
    }
  });
  await t.step("posterior means agree within 4 combined MCSE", () => {
    for (let j = 0; j < model.dim; j++) {
      const a = parameterDraws(chees, j), b = parameterDraws(fixed, j);
      const mean = (cs: Float64Array[]) =>
        cs.reduce((s, c) => s + c.reduce((x, y) => x + y, 0), 0) / (cs.length * cs[0].length);
      const se = Math.hypot(mcseMean(a), mcseMean(b));
      assert.ok(
        Math.abs(mean(a) - mean(b)) < 4 * se,
        `θ${j}: ${mean(a)} vs ${mean(b)} (se ${se})`,
      );
    }
  });
});
