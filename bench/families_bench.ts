/**
 * One log-likelihood-and-gradient pass over n = 1e5 rows, d = 10, per family
 * on the fastest backend: the extended families (τ derivatives, aux column)
 * against the built-in logistic kernel as the baseline.
 */
import { loadCore } from "../core/load.ts";
import { glmDataFromArrays } from "../data/dataset.ts";
import { GlmModel, type GlmOptions } from "../models/glm.ts";

const N = 100_000, D = 10;
const arena = loadCore();
let s = 1;
const u = () => (s = (s * 16807) % 2147483647) / 2147483647;
const x = Float64Array.from({ length: N * D }, (_, k) => (k % D === 0 ? 1 : u() - 0.5));
const counts = Float64Array.from({ length: N }, () => Math.floor(6 * u()));
const binary = counts.map((c) => (c > 2 ? 1 : 0));
const cases: [string, Float64Array, GlmOptions][] = [
  ["logistic", binary, { family: "logistic" }],
  ["poisson", counts, { family: "poisson" }],
  ["poisson + offset", counts, { family: "poisson", offset: new Float64Array(N).fill(0.1) }],
  ["gaussian-scale", counts, { family: "gaussian-scale" }],
  ["student-t", counts, { family: "student-t", nu: 4 }],
  ["student-t, ν sampled", counts, { family: "student-t", nu: "sample" }],
  ["negative-binomial", counts, { family: "negative-binomial" }],
  ["binomial", counts, { family: "binomial", trials: new Float64Array(N).fill(6) }],
];
for (const [name, y, options] of cases) {
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: D }), options);
  const theta = new Float64Array(model.dim).fill(0.05), grad = new Float64Array(model.dim);
  Deno.bench({
    name: `logLikelihood + gradient, n = 1e5, d = 10, ${name}`,
    group: "families",
    baseline: name === "logistic",
    n: 50,
    fn() {
      model.logLikelihood(theta, grad);
    },
  });
}
