/**
 * HMC-ECS as a composition: chain ownership of memory, the registry entry,
 * and the generic per-row proxy checked against the GLM's WebAssembly proxy.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../../core/load.ts";
import { glmDataFromArrays } from "../../../data/dataset.ts";
import { GlmModel } from "../../../models/glm.ts";
import type { Model, PerRowHessianModel } from "../../../models/model.ts";
import { NormalGammaModel } from "../../../examples/models/normal_gamma.ts";
import { Rng } from "../../../random/rng.ts";
import type { HmcEcsOptions } from "../../../samplers/hmc_ecs/mod.ts";
import { createProxy, hmcEcsSupport } from "../../../samplers/hmc_ecs/proxy.ts";
import { hmcEcsChainSampler, hmcEcsDescription } from "../../../samplers/hmc_ecs/chain_sampler.ts";

const D = 3;

/** A logistic regression with an intercept and D − 1 normal covariates, prior sd 5. */
function logisticModel(seed: number, n: number) {
  const arena = loadCore();
  const rng = new Rng(seed);
  const x = new Float64Array(n * D), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < D; j++) x[i * D + j] = j === 0 ? 1 : rng.normal();
    y[i] = rng.uniform() < 1 / (1 + Math.exp(0.5 - x[i * D + 1] + 0.7 * x[i * D + 2])) ? 1 : 0;
  }
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: D }), {
    family: "logistic",
    priorScale: 5,
  });
  return { model, x };
}

/**
 * Drives one chain of a chain sampler by hand, one iteration per `next()`,
 * as the driver does (warmup step + adapt.update, adapt.finish, sampling).
 */
function handChain(
  model: Model,
  options: HmcEcsOptions,
  position: Float64Array,
  rng: Rng,
  numWarmup: number,
) {
  const sampler = hmcEcsChainSampler(model, { ...options, numWarmup });
  let state = sampler.init(position, rng);
  let i = 0;
  const draws: number[] = [];
  return {
    next() {
      const warm = i < numWarmup;
      const r = sampler.step(rng, state, warm ? "warmup" : "sampling", warm ? i : i - numWarmup);
      state = r.state;
      if (warm) {
        const ctx = { numWarmup, rng, chain: 0 };
        state = sampler.adapt!.update(state, { ...ctx, info: r.info, iteration: i });
        if (i === numWarmup - 1) state = sampler.adapt!.finish!(state, ctx);
      } else draws.push(...sampler.position(state));
      i++;
    },
    dispose: () => sampler.dispose!(state),
    draws,
  };
}

Deno.test("hmcEcsChainSampler() claim: each chain owns its memory — interleaved chains equal chains run alone, and disposing one leaves the other stepping", async (t) => {
  // Chain 1 is created after chain 0 has stepped, the two are stepped in
  // turn (re-centrings every 40 warmup iterations re-gather and re-tune
  // each chain's own subsample), and chain 0 is disposed half-way through
  // sampling; chain 1 goes on. Each must equal, draw for draw, the same
  // chain run alone on the same random stream.
  const logistic = logisticModel(31, 5000).model;
  const ng = new NormalGammaModel(
    Float64Array.from({ length: 3000 }, (_, i) => 1 + 2 * Math.sin(1.7 * i + 0.3)),
  );
  const cases: [string, Model, HmcEcsOptions, Float64Array][] = [
    ["GLM, perturbed", logistic, { updateEvery: 40, recenterTolerance: 0 }, new Float64Array(D)],
    ["GLM, signed", logistic, { variant: "signed", updateEvery: 40 }, new Float64Array(D)],
    ["normal-gamma, signed", ng, { variant: "signed", updateEvery: 40 }, new Float64Array([0, 1])],
  ];
  const W = 100, T = 200;
  for (const [name, model, options, start] of cases) {
    await t.step(name, () => {
      const alone = [0, 1].map((c) => {
        const h = handChain(model, options, start, new Rng(8).stream(c), W);
        for (let i = 0; i < T; i++) h.next();
        h.dispose();
        return h.draws;
      });
      const c0 = handChain(model, options, start, new Rng(8).stream(0), W);
      for (let i = 0; i < 50; i++) c0.next();
      const c1 = handChain(model, options, start, new Rng(8).stream(1), W);
      for (let i = 50; i < 150; i++) {
        c0.next();
        c1.next();
      }
      c0.dispose();
      for (let i = 0; i < T - 100; i++) c1.next();
      c1.dispose();
      assert.deepEqual(c0.draws, alone[0].slice(0, c0.draws.length));
      assert.equal(c0.draws.length, 50 * model.dim);
      assert.deepEqual(c1.draws, alone[1]);
    });
  }
});

Deno.test("hmcEcsDescription claim: a registry entry that builds the chain sampler and rejects models without control variates", () => {
  assert.equal(hmcEcsDescription.name, "hmc-ecs");
  assert.equal(hmcEcsDescription.requires, "data-model");
  const ng = new NormalGammaModel(Float64Array.from({ length: 12 }, (_, i) => Math.sin(i)));
  const chain = hmcEcsDescription.build(ng, { variant: "signed" });
  assert.equal(typeof chain.init, "function");
  // Too few rows for subsampling: refused, naming the fix.
  assert.throws(
    () => hmcEcsDescription.build(new NormalGammaModel(new Float64Array([0.1, 0.5, -0.3])), {}),
    /at least 2\(d \+ 1\) = 6 data rows .* got n = 3; .*--sampler hmc/,
  );
  const plain = { dim: 1, parameterNames: ["x"], cost: ng.cost, logDensity: () => 0 };
  assert.throws(
    () => hmcEcsDescription.build({ ...plain, logDensityAndGradient: () => 0 }, {}),
    /HMC-ECS needs a GlmModel or a DataModel \(per-row ℓ and ∇ℓ, logLikelihoodHessian\)/,
  );
  assert.throws(
    () => hmcEcsDescription.build(ng, { variant: "exact" as "signed" }),
    /variant must be "perturbed" or "signed", got "exact"/,
  );
});

/** A logistic GlmModel seen as a plain PerRowHessianModel (Hₖ = −pₖ(1 − pₖ)xₖxₖᵀ). */
function asGenericModel(model: GlmModel, x: Float64Array): PerRowHessianModel {
  const d = model.dim;
  return {
    dim: d,
    parameterNames: model.parameterNames,
    cost: model.cost,
    numRows: model.numRows,
    logDensity: (t) => model.logDensity(t),
    logDensityAndGradient: (t, g) => model.logDensityAndGradient(t, g),
    logPrior: (t, g) => model.logPrior(t, g),
    logLikelihood: (t, g) => model.logLikelihood(t, g),
    logLikelihoodRows: (t, rows, o) => model.logLikelihoodRows(t, rows, o),
    perRowGradients: (t, rows, out) => model.perRowGradients(t, rows, out),
    logLikelihoodHessian: (t, out) => model.logLikelihoodHessian(t, out),
    logPriorHessian: (t, out) => model.logPriorHessian(t, out),
    perRowHessians(t, rows, out) {
      for (let k = 0; k < rows.length; k++) {
        let eta = 0;
        for (let j = 0; j < d; j++) eta += x[rows[k] * d + j] * t[j];
        const p = 1 / (1 + Math.exp(-eta)), b = -p * (1 - p);
        for (let i = 0; i < d; i++) {
          for (let j = 0; j < d; j++) {
            out[k * d * d + i * d + j] = b * x[rows[k] * d + i] * x[rows[k] * d + j];
          }
        }
      }
      model.cost.numHessianRows += rows.length;
    },
  };
}

Deno.test("createProxy() claim: the generic per-row path agrees with the GLM's WebAssembly path", async (t) => {
  // The same logistic posterior through both proxies: the same subsample
  // (same generator), so the estimates, their gradients and the proposals'
  // estimates must agree to rounding.
  const { model: glm, x } = logisticModel(41, 3000);
  const generic = asGenericModel(glm, x);
  const star = new Float64Array([-0.4, 0.9, 0.05]), theta = new Float64Array([-0.45, 1, 0]);
  for (const order of [1, 2] as const) {
    await t.step(`order ${order}`, () => {
      const a = createProxy(hmcEcsSupport(glm), star, order),
        b = createProxy(hmcEcsSupport(generic), star, order);
      const close = (u: number, v: number, what: string) =>
        assert.ok(Math.abs(u - v) <= 1e-9 * (1 + Math.abs(u)), `${what}: ${u} vs ${v}`);
      close(a.llStarSum, b.llStarSum, "S");
      for (let i = 0; i < D * D; i++) close(a.hessSum[i], b.hessSum[i], "B");
      const estimators = [
        [
          a.blockSubsample(new Rng(1), { subsampleSize: 60, numBlocks: 6 }),
          b.blockSubsample(new Rng(1), { subsampleSize: 60, numBlocks: 6 }),
        ],
        [
          a.poissonSubsample(new Rng(2), {
            batchSize: 5,
            numProducts: 20,
            numRefreshed: 2,
            lowerBound: -25,
          }),
          b.poissonSubsample(new Rng(2), {
            batchSize: 5,
            numProducts: 20,
            numRefreshed: 2,
            lowerBound: -25,
          }),
        ],
      ];
      for (const [ea, eb] of estimators) {
        const ga = new Float64Array(D), gb = new Float64Array(D);
        const va = ea.evaluate(theta, ga), vb = eb.evaluate(theta, gb);
        close(va.value, vb.value, `${ea.variant} log L̂`);
        close(va.variance, vb.variance, `${ea.variant} variance`);
        assert.equal(va.sign, vb.sign);
        for (let j = 0; j < D; j++) close(ga[j], gb[j], `${ea.variant} ∇${j}`);
        const pa = ea.propose(new Rng(3)), pb = eb.propose(new Rng(3));
        close(
          ea.proposalLogEstimate(theta, pa, ea.snapshot()),
          eb.proposalLogEstimate(theta, pb, eb.snapshot()),
          `${ea.variant} proposal`,
        );
        ea.accept(pa);
        eb.accept(pb);
        close(ea.evaluate(theta).value, eb.evaluate(theta).value, `${ea.variant} after accept`);
        ea.dispose();
        eb.dispose();
      }
      a.dispose();
      b.dispose();
    });
  }
});
