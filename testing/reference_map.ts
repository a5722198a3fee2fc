/**
 * The full-data MAP and Laplace approximation of a model by plain Newton
 * steps with its exact Hessians, written apart from the library's start
 * search and HMC-ECS centring so that tests and benches can check those
 * against it.
 */
import { cholesky, choleskySolve, inverseFromCholesky } from "../math/linalg.ts";
import type { DataModel } from "../models/model.ts";

/** What {@link referenceMap} needs of a model: its log densities with gradients and Hessians. */
export type NewtonTarget = Pick<
  DataModel,
  "dim" | "logLikelihood" | "logPrior" | "logLikelihoodHessian" | "logPriorHessian"
>;

/**
 * Newton steps from θ = 0 (at most 30) until `converged` says so, by
 * default when the step's Euclidean norm falls below 10⁻¹²; the covariance
 * is the inverse of the negative log-posterior Hessian of the last step.
 *
 * @param model The model.
 * @param converged The stopping rule, given the step and the gradient it solved for.
 * @returns The MAP, the Laplace covariance (d×d row-major) and its sds.
 */
export function referenceMap(
  model: NewtonTarget,
  converged: (step: Float64Array, grad: Float64Array) => boolean = (step) =>
    Math.hypot(...step) < 1e-12,
): { map: Float64Array; covariance: Float64Array; sd: number[] } {
  const d = model.dim;
  const theta = new Float64Array(d), g = new Float64Array(d), gp = new Float64Array(d);
  const h = new Float64Array(d * d), hp = new Float64Array(d * d);
  let prec = new Float64Array(d * d);
  for (let it = 0; it < 30; it++) {
    model.logLikelihood(theta, g);
    model.logPrior(theta, gp);
    model.logLikelihoodHessian(theta, h);
    model.logPriorHessian(theta, hp);
    prec = h.map((v, i) => -(v + hp[i]));
    const grad = g.map((v, i) => v + gp[i]);
    const step = choleskySolve(cholesky(prec), grad);
    for (let j = 0; j < d; j++) theta[j] += step[j];
    if (converged(step, grad)) break;
  }
  const covariance = inverseFromCholesky(cholesky(prec));
  return {
    map: theta,
    covariance,
    sd: Array.from({ length: d }, (_, j) => Math.sqrt(covariance[j * d + j])),
  };
}
