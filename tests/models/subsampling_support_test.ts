/**
 * subsamplingSupport(): what each kind of model can do for subsampling, a
 * model that states its own support, and HMC-ECS taking its defaults and its
 * path from the object alone.
 *
 * References: docs/subsampling_support.md.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import { externalFromGlm } from "../../models/in_memory_external.ts";
import type { CostCounter, DataModel } from "../../models/model.ts";
import { NormalGammaModel } from "../../examples/models/normal_gamma.ts";
import { withPrior } from "../../models/with_prior.ts";
import {
  type SubsamplingSupport,
  subsamplingSupport,
  type SubsamplingSupportProvider,
} from "../../models/subsampling_support.ts";
import { ShardedGlmModel } from "../../models/sharded_glm.ts";
import { ThreadedGlmModel } from "../../models/threaded_glm.ts";
import { sample } from "../../samplers/sample.ts";
import { resolveHmcEcsOptions } from "../../samplers/hmc_ecs/options.ts";
import { _normal, _rng } from "../_core_fixtures.ts";

function _glm(family: "logistic" | "gaussian-scale", n = 3000, shared = false) {
  const d = 3, u = _rng(23), x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x.set([1, _normal(u), _normal(u)], i * d);
    const eta = 0.2 + 0.7 * x[i * d + 1] - 0.4 * x[i * d + 2];
    y[i] = family === "logistic" ? (u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0) : eta + _normal(u);
  }
  const arena = loadCore(shared ? { shared: true } : {});
  return new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), {
    family,
    priorScale: 10,
  });
}

/** A GlmModel seen through DataModel only (no perRowHessians, not a GlmModel). */
class Wrapped implements DataModel {
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

/** The same wrapper stating its support: its rows are the inner GLM's compact rows. */
class WrappedWithSupport extends Wrapped implements SubsamplingSupportProvider {
  subsamplingSupport(): SubsamplingSupport {
    return {
      model: this,
      rows: { kind: "compact-glm", glm: this.inner, passes: null },
      maxTaylorOrder: 2,
      subsampleHessian: true,
      perRowHessians: null,
      inMemoryGlm: null,
    };
  }
}

Deno.test("subsamplingSupport() claim: each kind of model gets its rows, order and Hessian estimate", async (t) => {
  await t.step("compact-family GlmModel: the η-cache in memory, order 2, subsample B", () => {
    const glm = _glm("logistic");
    const s = subsamplingSupport(glm)!;
    assert.equal(s.rows.kind, "compact-glm");
    assert.ok(s.rows.kind === "compact-glm" && s.rows.glm === glm && s.rows.passes === null);
    assert.equal(s.model, glm);
    assert.equal(s.inMemoryGlm, glm);
    assert.equal(s.perRowHessians, glm);
    assert.equal(s.maxTaylorOrder, 2);
    assert.equal(s.subsampleHessian, true);
  });

  await t.step("withPrior of a GlmModel: the same path, on the model with the new prior", () => {
    const glm = withPrior(_glm("logistic"), { coefficients: "normal(0, 2)" });
    const s = subsamplingSupport(glm)!;
    assert.ok(s.rows.kind === "compact-glm" && s.rows.glm === glm);
    assert.equal(s.inMemoryGlm, glm);
  });

  await t.step("a GLM family with a scale parameter: the per-row path with its Hessians", () => {
    const glm = _glm("gaussian-scale");
    const s = subsamplingSupport(glm)!;
    assert.ok(s.rows.kind === "per-row" && s.rows.model === glm);
    assert.ok(s.rows.kind === "per-row" && s.rows.perRowHessians === glm);
    assert.equal(s.inMemoryGlm, null);
    assert.equal(s.maxTaylorOrder, 2);
    assert.equal(s.subsampleHessian, false);
  });

  await t.step("an external GLM: rows by index, order 2", () => {
    const ext = externalFromGlm(_glm("logistic"));
    const s = subsamplingSupport(ext)!;
    assert.ok(s.rows.kind === "external-glm" && s.rows.glm === ext);
    assert.equal(s.inMemoryGlm, null);
    assert.equal(s.maxTaylorOrder, 2);
    assert.equal(s.subsampleHessian, true);
  });

  await t.step(
    "sharded rows of a family with a scale: the per-row path over rows read by index",
    async () => {
      const base = _glm("gaussian-scale", 3000);
      const sharded = await ShardedGlmModel.create(base.data, base.options, { workers: 2 });
      try {
        const s = subsamplingSupport(sharded)!;
        assert.ok(s.rows.kind === "per-row" && s.rows.model === sharded);
        assert.ok(s.rows.kind === "per-row" && s.rows.external === sharded);
        assert.ok(s.rows.kind === "per-row" && s.rows.perRowHessians === sharded);
        assert.equal(s.perRowHessians, null); // the SG samplers' subset fit stays off
        assert.equal(s.maxTaylorOrder, 2);
        assert.equal(s.subsampleHessian, false);
      } finally {
        sharded.close();
        base.dispose();
      }
    },
  );

  await t.step("a ThreadedGlmModel: its base's η-cache, passes on its threads", async () => {
    const base = _glm("logistic", 3000, true);
    const threaded = await ThreadedGlmModel.create(base, { threads: 2 });
    try {
      const s = subsamplingSupport(threaded)!;
      assert.ok(s.rows.kind === "compact-glm" && s.rows.glm === base);
      assert.ok(s.rows.kind === "compact-glm" && s.rows.passes === threaded);
      assert.equal(s.model, threaded);
      assert.equal(s.inMemoryGlm, null);
      assert.equal(s.maxTaylorOrder, 2);
    } finally {
      threaded.close();
    }
  });

  await t.step("a DataModel with per-row Hessians, one without, and a plain Model", () => {
    const ng = new NormalGammaModel(new Float64Array([0.1, -0.3, 0.7]));
    const s = subsamplingSupport(ng)!;
    assert.ok(s.rows.kind === "per-row" && s.rows.perRowHessians === ng);
    assert.equal(s.maxTaylorOrder, 2);
    const bare = new Wrapped(_glm("logistic", 200));
    const b = subsamplingSupport(bare)!;
    assert.ok(b.rows.kind === "per-row" && b.rows.perRowHessians === null);
    assert.equal(b.maxTaylorOrder, 1);
    assert.equal(b.subsampleHessian, false);
    assert.equal(subsamplingSupport({ dim: 1, parameterNames: ["x"] } as never), null);
  });
});

Deno.test("resolveHmcEcsOptions() claim: the support object feeds the defaults", () => {
  const model = { numRows: 10000, dim: 3 };
  const s = subsamplingSupport(new Wrapped(_glm("logistic", 200)))!;
  const o = resolveHmcEcsOptions(model, { hessianFraction: 0.2 }, s);
  assert.equal(o.controlVariateOrder, 1); // the highest order without per-row Hessians
  assert.equal(o.hessianFraction, 1); // the per-row path computes B exactly
  assert.throws(() => resolveHmcEcsOptions(model, { controlVariateOrder: 2 }, s), /perRowHessians/);
  // A bad value is still refused, whatever the support.
  assert.throws(() => resolveHmcEcsOptions(model, { hessianFraction: 2 }, s), /hessianFraction/);
  const glm = resolveHmcEcsOptions(model, {}, subsamplingSupport(_glm("logistic", 200))!);
  assert.equal(glm.controlVariateOrder, 2);
  assert.equal(glm.hessianFraction, 0.05);
});

Deno.test("a model that states its own support is sampled by what it states", () => {
  const glm = _glm("logistic");
  const run = { sampler: "hmc-ecs", seed: 5, numWarmup: 150, numSamples: 60, numChains: 2 };
  const direct = sample(glm, run);
  // Without its own support the wrapper takes the per-row path at order 1 …
  const plain = sample(new Wrapped(glm), run);
  assert.equal(plain.chains[0].tuning?.controlVariateOrder, 1);
  // … with it, the GLM's compact path at order 2: the GlmModel's draws, bit for bit.
  const own = sample(new WrappedWithSupport(glm), run);
  assert.equal(own.chains[0].tuning?.controlVariateOrder, 2);
  assert.deepEqual(own.draws, direct.draws);
  assert.notDeepEqual(plain.draws, direct.draws);
  // withPrior binds the class's methods to the original, but the support's model is the one given.
  const priored = withPrior(new WrappedWithSupport(glm), { coefficients: "normal(0, 1)" });
  const stated = subsamplingSupport(priored)!;
  assert.equal(stated.model, priored);
  assert.equal(stated.rows.kind, "compact-glm");
});
