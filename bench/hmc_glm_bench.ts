/**
 * One full-data HMC iteration (L = 6, d = 30) on HIGGS-shaped logistic data
 * with n = 1e5, per core backend; the TypeScript reference is the baseline.
 * Each iteration makes L + 1 full passes over the data (gradients), so the
 * ratio between backends is the kernels' ratio plus the sampler's overhead.
 */
import { availableBackends, loadCore } from "../core/load.ts";
import { higgsShaped } from "../data/synthetic.ts";
import { GlmModel } from "../models/glm.ts";
import * as hmc from "../samplers/hmc/kernel.ts";
import { identityMetric } from "../samplers/metric.ts";
import { Rng } from "../random/rng.ts";

const N = 100_000;
for (const backend of availableBackends()) {
  const arena = loadCore({ backend });
  const { data, trueCoefficients } = higgsShaped(arena, { n: N, seed: 1 });
  const model = new GlmModel(data, { family: "logistic", priorScale: 10 });
  const fn = (theta: Float64Array, grad: Float64Array) => model.logDensityAndGradient(theta, grad);
  const metric = identityMetric(model.dim);
  const rng = new Rng(1);
  let state = hmc.init(trueCoefficients.slice(), fn);
  Deno.bench({
    name: `hmc.step L = 6, n = 1e5, d = 30, ${backend}`,
    group: "hmc-glm",
    baseline: backend === "reference",
    n: backend === "reference" ? 5 : 30,
    fn() {
      state = hmc.step(rng, state, {
        logDensityAndGradientFn: fn,
        stepSize: 0.002,
        numIntegrationSteps: 6,
        metric,
      }).state;
    },
  });
}
