/**
 * HMC-ECS on a DataModel without per-row Hessians: first-order control
 * variates from ℓₖ* and ∇ℓₖ*, the metric from the full-data Hessian, and a
 * clear refusal of order 2.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../../core/load.ts";
import { glmDataFromArrays } from "../../../data/dataset.ts";
import { GlmModel } from "../../../models/glm.ts";
import { type CostCounter, type DataModel, hasPerRowHessians } from "../../../models/model.ts";
import type { SamplingResult } from "../../../samplers/driver.ts";
import { runHmcEcs } from "../../../samplers/hmc_ecs/mod.ts";
import { createProxy, hmcEcsSupport } from "../../../samplers/hmc_ecs/proxy.ts";
import { runHmc } from "../../../samplers/hmc/run.ts";
import { _normal, _rng } from "../../_core_fixtures.ts";
import { posteriorSummary } from "../../_stat.ts";

/** A GlmModel seen only through DataModel: no perRowHessians, not a GlmModel. */
class GradientsOnly implements DataModel {
  constructor(readonly inner: GlmModel) {}
  get dim(): number {
    return this.inner.dim;
  }
  get parameterNames(): readonly string[] {
    return this.inner.parameterNames;
  }
  get cost(): CostCounter {
    return this.inner.cost;
  }
  get numRows(): number {
    return this.inner.numRows;
  }
  logDensity(t: Float64Array): number {
    return this.inner.logDensity(t);
  }
  logDensityAndGradient(t: Float64Array, g: Float64Array): number {
    return this.inner.logDensityAndGradient(t, g);
  }
  logPrior(t: Float64Array, g?: Float64Array): number {
    return this.inner.logPrior(t, g);
  }
  logLikelihood(t: Float64Array, g?: Float64Array): number {
    return this.inner.logLikelihood(t, g);
  }
  logLikelihoodRows(
    t: Float64Array,
    rows: Int32Array,
    o?: { grad?: Float64Array; perRow?: Float64Array },
  ): number {
    return this.inner.logLikelihoodRows(t, rows, o);
  }
  perRowGradients(t: Float64Array, rows: Int32Array, out: Float64Array): void {
    this.inner.perRowGradients(t, rows, out);
  }
  logLikelihoodHessian(t: Float64Array, out: Float64Array): void {
    this.inner.logLikelihoodHessian(t, out);
  }
  logPriorHessian(t: Float64Array, out: Float64Array): void {
    this.inner.logPriorHessian(t, out);
  }
}

function _model(n: number) {
  const d = 3, u = _rng(17), x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x.set([1, _normal(u), _normal(u)], i * d);
    const eta = -0.3 + 0.8 * x[i * d + 1] - 0.5 * x[i * d + 2];
    y[i] = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  return new GlmModel(glmDataFromArrays(loadCore(), x, y, { numCols: d }), {
    family: "logistic",
    priorScale: 10,
  });
}

Deno.test("runHmcEcs() on a DataModel without perRowHessians: order 1, matches full-data HMC", async (t) => {
  const n = 5000, glm = _model(n), model = new GradientsOnly(glm);
  assert.equal(hasPerRowHessians(model), false);
  const ref = posteriorSummary(
    runHmc(glm, { numWarmup: 500, numSamples: 3000, numChains: 4, seed: 1 }),
    glm.dim,
  );
  await t.step("the proxy stores order-1 control variates, B = the full-data Hessian", () => {
    const th = ref.mean.slice(), proxy = createProxy(hmcEcsSupport(model), th, 1);
    const h = new Float64Array(9);
    glm.logLikelihoodHessian(th, h);
    assert.deepEqual(Array.from(proxy.hessSum), Array.from(h));
    assert.equal(proxy.order, 1);
    proxy.dispose();
  });
  for (const variant of ["perturbed", "signed"] as const) {
    await t.step(`${variant} HMC-ECS (default order 1) within 0.1 sd and 10 %`, () => {
      _check(
        runHmcEcs(model, { variant, numWarmup: 500, numSamples: 2000, numChains: 2, seed: 2 }),
      );
    });
  }
  function _check(run: SamplingResult) {
    const got = posteriorSummary(run, glm.dim);
    for (let j = 0; j < glm.dim; j++) {
      const z = (got.mean[j] - ref.mean[j]) / ref.sd[j], r = got.sd[j] / ref.sd[j] - 1;
      const msg = `θ${j}: mean ${got.mean[j].toFixed(5)} vs ${ref.mean[j].toFixed(5)} (${
        z.toFixed(3)
      } sd), sd ${got.sd[j].toFixed(5)} vs ${ref.sd[j].toFixed(5)} (${
        (100 * r).toFixed(1)
      } %), ESS ${got.ess[j].toFixed(0)}`;
      console.log(msg);
      assert.ok(Math.abs(z) < 0.1 && Math.abs(r) < 0.1, msg);
    }
    const rows = run.chains[0].cost.sampling.numLogLikRows;
    assert.ok(rows < 0.5 * n * 2000, `HMC-ECS evaluated ${rows} rows`);
  }
  await t.step("order 2 is refused, naming perRowHessians and controlVariateOrder 1", () => {
    assert.throws(
      () =>
        runHmcEcs(model, {
          controlVariateOrder: 2,
          numWarmup: 10,
          numSamples: 10,
          numChains: 1,
          seed: 3,
        }),
      (e: unknown) =>
        e instanceof TypeError && /perRowHessians/.test(e.message) &&
        /controlVariateOrder: 1/.test(e.message),
    );
    assert.throws(() => createProxy(hmcEcsSupport(model), ref.mean.slice(), 2), /perRowHessians/);
  });
  glm.dispose();
});
