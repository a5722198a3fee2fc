/**
 * Where one chain of an HMC-family sampler starts and the metric it starts
 * with: the start search's result turned into a start point and a first
 * metric, and the choice `metricAdaptation: "auto"` makes from the Laplace
 * covariance. Shared by `hmc` (samplers/hmc/chain_sampler.ts) and `nuts`
 * (samplers/nuts/chain_sampler.ts).
 *
 * @module
 */
import type { Rng } from "../../random/rng.ts";
import type { OptimizedStart } from "../optimize_start.ts";
import type { MetricAdaptation } from "./warmup.ts";
import type { Metric } from "../metric.ts";
import { inverseSpd } from "../../math/linalg.ts";
import { laplaceMetric, startPoint } from "../window_adaptation.ts";
import { AUTO_DENSE_MAX_DIM, AUTO_DENSE_MIN_CORRELATION, type parseHmcInit } from "./options.ts";

/**
 * Where one chain of an HMC-family sampler starts and the metric it starts
 * with: the Newton search's result (if any) gives the Laplace draw or the
 * search's point plus noise ({@link HmcInit}), `"auto"` chooses the scheme
 * from the Laplace covariance ({@link chooseMetric}; diagonal without one),
 * and an adaptive scheme's first metric is that covariance (dense or its
 * diagonal) when the caller asks for a Laplace metric.
 *
 * @param setup The sampler's start search, parsed init, given metric and scheme.
 * @param position The driver's initial position.
 * @param rng The chain's generator.
 * @returns The start, the first metric, the chain's scheme, the search's result and
 *   whether the first metric is the Laplace covariance.
 */
export function chainStart(
  setup: {
    startSearch: (position: Float64Array) => OptimizedStart | null;
    init: ReturnType<typeof parseHmcInit>;
    givenMetric: Metric;
    metricAdaptation: MetricAdaptation | "auto";
    isLaplaceMetric: boolean;
  },
  position: Float64Array,
  rng: Rng,
): {
  start: Float64Array;
  metric: Metric;
  metricAdaptation: MetricAdaptation;
  opt: OptimizedStart | null;
  isLaplaceMetric: boolean;
} {
  const dim = position.length, scheme = setup.metricAdaptation;
  const opt = setup.startSearch(position);
  const cov = opt?.laplaceCovariance ?? null;
  const metricAdaptation: MetricAdaptation = scheme !== "auto"
    ? scheme
    : cov === null
    ? "diagonal"
    : chooseMetric(cov, dim);
  const isLaplaceMetric = setup.isLaplaceMetric && cov !== null && scheme !== "none";
  const metric = isLaplaceMetric
    ? laplaceMetric(cov, dim, metricAdaptation === "diagonal")
    : setup.givenMetric;
  return {
    start: startPoint(setup.init, position, opt, rng),
    metric,
    metricAdaptation,
    opt,
    isLaplaceMetric,
  };
}

/**
 * The metric `"auto"` chooses from the Laplace covariance Σ: `"dense"` when
 * d ≤ {@link AUTO_DENSE_MAX_DIM} and some parameter's multiple correlation
 * with the others, Rⱼ = √(1 − 1/(Σⱼⱼ (Σ⁻¹)ⱼⱼ)), is at least
 * {@link AUTO_DENSE_MIN_CORRELATION}, else `"diagonal"` (also without a
 * Laplace approximation). Σⱼⱼ (Σ⁻¹)ⱼⱼ is the variance inflation of θⱼ: the
 * squared ratio of its marginal to its conditional sd, by which a diagonal
 * metric shortens the steps along the correlated direction. Rⱼ is at least
 * the largest pairwise |correlation| of θⱼ, and also sees a parameter
 * correlated with a combination of many others (collinear predictors).
 *
 * @param covariance The Laplace covariance (d×d row-major) or null.
 * @param dim d.
 * @returns `"dense"` or `"diagonal"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chooseMetric } from "./chain_start.ts";
 * assert.equal(chooseMetric(new Float64Array([1, -0.999, -0.999, 1]), 2), "dense");
 * assert.equal(chooseMetric(new Float64Array([1, 0.3, 0.3, 1]), 2), "diagonal");
 * ```
 */
export function chooseMetric(covariance: Float64Array | null, dim: number): "dense" | "diagonal" {
  if (covariance === null || dim > AUTO_DENSE_MAX_DIM) return "diagonal";
  let precision: Float64Array;
  try {
    precision = inverseSpd(covariance);
  } catch {
    return "diagonal";
  }
  const minInflation = 1 / (1 - AUTO_DENSE_MIN_CORRELATION ** 2);
  for (let j = 0; j < dim; j++) {
    if (covariance[j * dim + j] * precision[j * dim + j] >= minInflation) return "dense";
  }
  return "diagonal";
}
