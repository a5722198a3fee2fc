/**
 * Reference targets with known posteriors, written by hand as plain
 * TypeScript models: the targets the tests, the benchmarks and the
 * replication (replicate/) check the samplers against. They use the library
 * (models/model.ts' interfaces); the library never imports them
 * (tests/project/architecture_test.ts).
 *
 * - {@link gaussianTarget}: a multivariate Gaussian N(μ, Σ) with no data.
 * - {@link NormalGammaModel}: mean and precision of a 1-d Gaussian with a
 *   conjugate prior (CCAdL's §4.1 example).
 * - {@link GaussianMeanModel}: the Gaussian-mean posterior of Betancourt
 *   (2015), eqs. 2–3, split into batches for naive subsampled HMC.
 * - {@link L1RegressionModel}: Bayesian lasso regression with known noise.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { gaussianTarget } from "./mod.ts";
 * const target = gaussianTarget(new Float64Array([1, 2]), new Float64Array([1, 1]));
 * const grad = new Float64Array(2);
 * const logDensity = target.logDensityAndGradient(new Float64Array([1, 2]), grad);
 * assert.ok(Math.abs(logDensity + Math.log(2 * Math.PI)) < 1e-12);
 * assert.ok(grad.every((g) => g === 0)); // the gradient vanishes at the mean
 * ```
 *
 * @module
 */
export {
  type GaussianTarget,
  gaussianTarget,
  type GaussianTargetOptions,
} from "./models/gaussian_target.ts";
export {
  NormalGammaModel,
  type NormalGammaPosterior,
  type NormalGammaPrior,
} from "./models/normal_gamma.ts";
export {
  type GaussianMeanBatches,
  type GaussianMeanData,
  gaussianMeanData,
  type GaussianMeanDataOptions,
  GaussianMeanModel,
  type GaussianMeanOptions,
} from "./models/gaussian_mean.ts";
export { L1RegressionModel, type L1RegressionOptions } from "./models/l1_regression.ts";
