/**
 * The Laplace approximation the MNIST experiments start from: the MAP by
 * full Newton steps from θ = 0.
 *
 * References: Nocedal & Wright (2006), §3.3 (Newton's method); the papers'
 * starting points (HMC-ECS §6.3, austerity §5.1).
 *
 * @module
 */
import { cholesky, choleskySolve } from "../math/linalg.ts";
import type { GlmModel } from "../models/glm.ts";

/**
 * The MAP by Newton's method from 0 (at most 50 steps, until the largest
 * step is below 1e-10), and −∇² log π at the last iterate a step was taken
 * from.
 *
 * @param model The GLM.
 * @returns The mode and the negative log-posterior Hessian (d × d).
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { newtonMap } from "./laplace.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, [1, 1, 1, 1], [0, 1, 1, 1], { numCols: 1 });
 * const { mode } = newtonMap(new GlmModel(data, { family: "logistic", priorScale: 1e6 }));
 * assert.ok(Math.abs(mode[0] - Math.log(3)) < 1e-6); // logit of 3/4
 * ```
 */
export function newtonMap(model: GlmModel): { mode: Float64Array; negHessian: Float64Array } {
  const d = model.dim, theta = new Float64Array(d), g = new Float64Array(d);
  const h = new Float64Array(d * d), hp = new Float64Array(d * d), neg = new Float64Array(d * d);
  for (let it = 0; it < 50; it++) {
    model.logDensityAndGradient(theta, g);
    model.logLikelihoodHessian(theta, h);
    model.logPriorHessian(theta, hp);
    for (let i = 0; i < d * d; i++) neg[i] = -(h[i] + hp[i]);
    const step = choleskySolve(cholesky(neg), g);
    let size = 0;
    for (let j = 0; j < d; j++) {
      theta[j] += step[j];
      size = Math.max(size, Math.abs(step[j]));
    }
    if (size < 1e-10) break;
  }
  return { mode: theta, negHessian: neg };
}
