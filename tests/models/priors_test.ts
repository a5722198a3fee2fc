import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import { hasPerRowHessians } from "../../models/model.ts";
import { NormalGammaModel } from "../../examples/models/normal_gamma.ts";
import { buildPrior, defaultPriorSpec } from "../../models/prior_build.ts";
import type { ParameterKind } from "../../models/priors.ts";
import { withPrior } from "../../models/with_prior.ts";
import { parsePriorText } from "../../models/prior_text.ts";
import { Rng } from "../../random/rng.ts";
import { sample } from "../../samplers/sample.ts";

const _COEF = [
  "normal(0.3, 2)",
  "student_t(3, -1, 1.5)",
  "cauchy(0, 2.5)",
  "laplace(0.5, 0.7)",
  "flat",
];
const _SCALE = [
  "half_normal(1.5)",
  "half_t(4, 2)",
  "half_cauchy(1)",
  "exponential(0.8)",
  "inverse_gamma(2, 1.5)",
  "flat",
];

/** Central differences of f at x, and of its gradient. */
function _fd(f: (x: number) => number, x: number, h = 1e-5): number {
  return (f(x + h) - f(x - h)) / (2 * h);
}

Deno.test("Prior gradients and Hessians match finite differences", async (t) => {
  const cases: { text: string; kind: ParameterKind; points: number[] }[] = [];
  for (const text of _COEF) cases.push({ text, kind: "coefficient", points: [-2.1, 0.13, 1.7] });
  for (const text of _SCALE) cases.push({ text, kind: "log-scale", points: [-1.3, 0.2, 1.1] });
  for (const text of _SCALE) cases.push({ text, kind: "scale", points: [0.3, 1.4, 3.2] });
  for (const c of cases) {
    await t.step(`${c.kind} ${c.text}`, () => {
      const spec = c.kind === "coefficient" ? { terms: { p: c.text } } : { scales: { p: c.text } };
      const prior = buildPrior(["p"], spec, { kinds: { p: c.kind } });
      const lp = (x: number) => prior.logDensity(new Float64Array([x]));
      const g = (x: number) => {
        const grad = new Float64Array(1);
        prior.logDensity(new Float64Array([x]), grad);
        return grad[0];
      };
      const h = (x: number) => {
        const out = new Float64Array(1);
        prior.hessian(new Float64Array([x]), out);
        return out[0];
      };
      for (const x of c.points) {
        assert.ok(Math.abs(g(x) - _fd(lp, x)) < 1e-6 * (1 + Math.abs(g(x))), `gradient at ${x}`);
        assert.ok(Math.abs(h(x) - _fd(g, x)) < 1e-5 * (1 + Math.abs(h(x))), `Hessian at ${x}`);
      }
    });
  }
  await t.step("proper priors integrate to 1 (σ on the log scale includes the Jacobian)", () => {
    for (const text of [..._COEF.slice(0, 4), ..._SCALE.slice(0, 4)]) {
      const isScale = _SCALE.includes(text);
      const prior = buildPrior(["p"], isScale ? { scales: { p: text } } : { terms: { p: text } }, {
        kinds: { p: isScale ? "log-scale" : "coefficient" },
      });
      // Trapezoid on a wide grid (Cauchy tails: substitute x = tan(v)).
      let sum = 0;
      const k = 40_000;
      for (let i = 1; i < k; i++) {
        const v = -Math.PI / 2 + (Math.PI * i) / k;
        const x = Math.tan(v), dx = 1 / Math.cos(v) ** 2;
        sum += Math.exp(prior.logDensity(new Float64Array([x]))) * dx * (Math.PI / k);
      }
      assert.ok(Math.abs(sum - 1) < 2e-3, `${text}: ∫ = ${sum}`);
    }
  });
  await t.step("Laplace at its location: gradient 0 and Hessian 0 (stated convention)", () => {
    const prior = buildPrior(["p"], { coefficients: "laplace(0.5, 0.7)" });
    const grad = new Float64Array(1), hess = new Float64Array(1);
    prior.logDensity(new Float64Array([0.5]), grad);
    prior.hessian(new Float64Array([0.5]), hess);
    assert.equal(grad[0], 0);
    assert.equal(hess[0], 0);
  });
});

Deno.test("buildPrior() errors name the parameter and the bad value", async (t) => {
  await t.step("non-positive scale", () => {
    assert.throws(
      () => buildPrior(["(Intercept)", "x1"], { coefficients: "normal(0, 0)" }),
      /prior of "x1": normal scale must be positive, got 0/,
    );
    assert.throws(
      () => buildPrior(["x1"], { coefficients: { family: "cauchy", scale: -2 } }),
      /prior of "x1": cauchy scale must be positive, got -2/,
    );
    assert.throws(
      () => buildPrior(["log(sigma)"], { scales: { sigma: "half_normal(0)" } }),
      /prior of "log\(sigma\)": half_normal scale must be positive, got 0/,
    );
    assert.throws(
      () => buildPrior(["log(sigma)"], { scales: { sigma: "exponential(-1)" } }),
      /exponential rate must be positive, got -1/,
    );
    assert.throws(() => parsePriorText("student_t(0, 0, 1)", "x"), /student_t df must be positive/);
  });
  await t.step("unknown family, wrong arity, wrong kind, unknown term", () => {
    assert.throws(() => parsePriorText("beta(1, 1)", "x"), /unknown family "beta"/);
    assert.throws(
      () => buildPrior(["x"], { coefficients: "gamma(1, 1)" }),
      /a coefficient needs normal/,
    );
    assert.throws(() => parsePriorText("normal(1, 2, 3)", "x"), /normal takes \(location, scale\)/);
    assert.throws(
      () => buildPrior(["x"], { coefficients: "exponential(1)" }),
      /a coefficient needs normal/,
    );
    assert.throws(() => buildPrior(["x"], { terms: { z: "flat" } }), /names no parameter: z/);
    assert.throws(
      () => buildPrior(["x"], { coefficients: 5 as unknown as string }),
      /prior of "x": expected text such as "normal\(0, 2.5\)".*got 5/,
    );
  });
});

Deno.test("withPrior() keeps the model and replaces its prior", async (t) => {
  const arena = loadCore();
  const rng = new Rng(3);
  const n = 400, x: number[] = [], y: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = rng.normal();
    x.push(1, a);
    y.push(rng.uniform() < 1 / (1 + Math.exp(-(0.3 + a))) ? 1 : 0);
  }
  const data = glmDataFromArrays(arena, x, y, { numCols: 2, columnNames: ["(Intercept)", "x"] });
  const base = new GlmModel(data, { family: "logistic", priorScale: 2, interceptColumn: 0 });
  await t.step("normal priors reproduce GlmModel's own prior, draw for draw", () => {
    const wrapped = withPrior(new GlmModel(data, { family: "logistic" }), {
      coefficients: "normal(0, 2)",
      intercept: "normal(0, 2)",
    });
    const theta = new Float64Array([0.2, -0.4]);
    const g1 = new Float64Array(2), g2 = new Float64Array(2);
    const a = base.logDensityAndGradient(theta, g1), b = wrapped.logDensityAndGradient(theta, g2);
    assert.ok(Math.abs(a - b) < 1e-9);
    assert.ok(Math.abs(g1[0] - g2[0]) < 1e-12 && Math.abs(g1[1] - g2[1]) < 1e-12);
    for (const sampler of ["hmc", "hmc-ecs"]) {
      const opts = { sampler, seed: 5, numWarmup: 150, numSamples: 100, numChains: 1 };
      const r1 = sample(base, opts), r2 = sample(wrapped, opts);
      const d1 = r1.chains[0].draws, d2 = r2.chains[0].draws;
      let maxDiff = 0;
      assert.equal(d1[0].length, 100);
      for (let j = 0; j < 2; j++) { // draws[param][k]
        for (let k = 0; k < 100; k++) maxDiff = Math.max(maxDiff, Math.abs(d1[j][k] - d2[j][k]));
      }
      assert.ok(maxDiff < 1e-8, `${sampler}: max |Δ draw| = ${maxDiff}`);
    }
  });
  await t.step("a model class with private fields, through HMC-ECS's generic path", () => {
    const xs = Array.from({ length: 300 }, (_, i) => 1 + Math.sin(i));
    const m = new NormalGammaModel(xs);
    const prior = buildPrior(m.parameterNames, {
      coefficients: "normal(0, 10)",
      scales: { gamma: "exponential(1)" },
    }, { kinds: { gamma: "scale" } });
    const w = withPrior(m, prior);
    assert.ok(hasPerRowHessians(w));
    const r = sample(w, {
      sampler: "hmc-ecs",
      seed: 2,
      numWarmup: 200,
      numSamples: 200,
      numChains: 1,
      initialPosition: new Float64Array([1, 1]),
    });
    assert.equal(r.chains[0].stop, null);
    let mean = 0;
    const mu = r.chains[0].draws[0]; // draws[param][k]
    for (const v of mu) mean += v / mu.length;
    assert.ok(Math.abs(mean - 1) < 0.2, `mean of mu ${mean}`);
    assert.equal(w.logPrior(new Float64Array([0, -1])), -Infinity);
  });
  await t.step("the wrapper counts cost on the model's counter and is a GlmModel", () => {
    const m = new GlmModel(data, { family: "logistic" });
    const w = withPrior(m, { coefficients: "laplace(0, 1)" });
    assert.ok(w instanceof GlmModel);
    w.logLikelihood(new Float64Array(2));
    assert.equal(m.cost.numLogLikRows, n);
    assert.equal(w.dim, 2);
    assert.deepEqual(w.parameterNames, ["(Intercept)", "x"]);
  });
});

Deno.test("defaultPriorSpec() is rstanarm's autoscaled default", () => {
  const names = ["(Intercept)", "x", "g[b]"];
  const logistic = buildPrior(names, {}, {
    defaults: defaultPriorSpec(names, { family: "logistic", columnSd: { x: 2, "g[b]": 0.5 } }),
  });
  assert.deepEqual(logistic.describe(), [
    "(Intercept) ~ normal(0, 10)",
    "x ~ normal(0, 1.25)",
    "g[b] ~ normal(0, 5)",
  ]);
  const gaussian = buildPrior([...names, "log(sigma)"], { coefficients: "normal(0, 1)" }, {
    defaults: defaultPriorSpec(names, {
      family: "gaussian",
      columnSd: { x: 2 },
      responseMean: 3,
      responseSd: 4,
    }),
  });
  assert.deepEqual(gaussian.describe(), [
    "(Intercept) ~ normal(3, 40)",
    "x ~ normal(0, 1)", // stated priors are used as given
    "g[b] ~ normal(0, 1)",
    "log(sigma) ~ exponential(0.25)",
  ]);
});

Deno.test("withPrior(): the gradient-only pass carries the replaced prior, not the model's own", () => {
  const arena = loadCore();
  const rng = new Rng(11);
  const n = 200, x: number[] = [], y: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = rng.normal();
    x.push(1, a);
    y.push(rng.uniform() < 1 / (1 + Math.exp(-(0.3 + a))) ? 1 : 0);
  }
  const data = glmDataFromArrays(arena, x, y, { numCols: 2, columnNames: ["(Intercept)", "x"] });
  // The inner model's prior (scale 1) differs from the one put in its place.
  const inner = new GlmModel(data, { family: "logistic", priorScale: 1, interceptColumn: 0 });
  const wrapped = withPrior(inner, { coefficients: "normal(3, 0.5)", intercept: "normal(-1, 4)" });
  const theta = new Float64Array([0.4, -0.7]);
  const combined = new Float64Array(2), only = new Float64Array(2), own = new Float64Array(2);
  wrapped.logDensityAndGradient(theta, combined);
  wrapped.logDensityGradient!(theta, only);
  inner.logDensityGradient(theta, own);
  assert.deepEqual(only, combined);
  assert.ok(Math.abs(own[1] - combined[1]) > 1, "the two priors' gradients must differ here");
});

Deno.test("withPrior(): every GlmModel method is either replaced or known not to involve the prior", () => {
  // withPrior binds the wrapped model's methods; a method that adds the
  // model's own prior and is not replaced would silently use the wrong prior
  // (as the gradient-only pass once did). A new method must be classified here.
  const replaced = [
    "logPrior",
    "logPriorHessian",
    "logDensity",
    "logDensityAndGradient",
    "logDensityGradient",
  ];
  const priorFree = [
    "constructor",
    "dispose",
    "hasCompactCache",
    "logLikelihood",
    "logLikelihoodHessian",
    "logLikelihoodRows",
    "perRowGradients",
    "perRowHessians",
    "rowLayout",
  ];
  const names = new Set<string>();
  for (
    let p: object | null = GlmModel.prototype;
    p !== null && p !== Object.prototype;
    p = Object.getPrototypeOf(p)
  ) {
    for (const k of Object.getOwnPropertyNames(p)) names.add(k);
  }
  const unclassified = [...names].filter((k) => !replaced.includes(k) && !priorFree.includes(k));
  assert.deepEqual(unclassified, [], "classify these methods for withPrior");
  // And the replaced ones really are the wrapper's own, not bound copies.
  const arena = loadCore();
  const data = glmDataFromArrays(arena, [1, 0.5, 1, -0.5], [1, 0], {
    numCols: 2,
    columnNames: ["(Intercept)", "x"],
  });
  const inner = new GlmModel(data, { family: "logistic" });
  const wrapped = withPrior(inner, { coefficients: "normal(2, 0.1)" });
  const theta = new Float64Array([0.1, 0.2]);
  for (const k of replaced) {
    assert.ok(Object.prototype.hasOwnProperty.call(wrapped, k), `${k} is the wrapper's own`);
  }
  assert.notEqual(wrapped.logDensity(theta), inner.logDensity(theta));
});
