/**
 * A user's AssemblyScript logistic family (compiled at run time) against the
 * built-in logistic kernel (the baseline): one log-likelihood-and-gradient
 * pass over n = 1e5 rows, d = 10, the same data in the same arena.
 */
import { loadCore } from "../core/load.ts";
import { glmDataFromArrays } from "../data/dataset.ts";
import { GlmModel } from "../models/glm.ts";
import { UserGlmModel } from "../models/user_glm.ts";
import { EXAMPLE_LOGISTIC_SOURCE as LOGISTIC_SOURCE } from "../core/user_family.ts";

const N = 100_000, D = 10;
const arena = loadCore();
let s = 1;
const u = () => (s = (s * 16807) % 2147483647) / 2147483647;
const x = Float64Array.from({ length: N * D }, (_, k) => (k % D === 0 ? 1 : u() - 0.5));
const y = Float64Array.from({ length: N }, () => (u() < 0.4 ? 1 : 0));
const data = glmDataFromArrays(arena, x, y, { numCols: D });
const models = {
  "built-in": new GlmModel(data, { family: "logistic" }),
  "user AssemblyScript": await UserGlmModel.create(data, { source: LOGISTIC_SOURCE }),
};
const theta = new Float64Array(D).fill(0.05), grad = new Float64Array(D);
for (const [name, model] of Object.entries(models)) {
  Deno.bench({
    name: `logistic logLikelihood + gradient, n = 1e5, d = 10, ${name}`,
    group: "user-family",
    baseline: name === "built-in",
    n: 100,
    fn() {
      model.logLikelihood(theta, grad);
    },
  });
}
