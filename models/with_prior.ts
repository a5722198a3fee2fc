/**
 * {@link withPrior}: a data model with its prior replaced.
 *
 * @module
 */
import type { DataModel } from "./model.ts";
import type { PriorSpec } from "./priors.ts";
import { buildPrior, Prior } from "./prior_build.ts";

/** A {@link DataModel} whose prior was replaced by {@link withPrior}. */
export type WithPrior<M extends DataModel> = M & {
  /** The prior now in force. */
  readonly prior: Prior;
};

/**
 * Put `prior` on `model` in place of the model's own prior: a model that
 * is the original for every purpose — the same likelihood, data, cost
 * counter, and `instanceof` its class, so HMC-ECS still takes a
 * {@link GlmModel}'s WebAssembly control-variate path — except
 * `logPrior`, `logPriorHessian`, `logDensity` and `logDensityAndGradient`,
 * which use the new prior. The original model is not changed.
 *
 * @param model Any DataModel (its methods are bound to it, so classes with
 *   private fields work).
 * @param prior A {@link Prior}, or a {@link PriorSpec} resolved against the
 *   model's parameter names with {@link buildPrior}.
 * @returns The model with the new prior.
 * @throws {RangeError} If the prior's dimension differs from the model's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "./glm.ts";
 * import { withPrior } from "./with_prior.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, [1, 0.3, 1, -1.2], [1, 0], {
 *   numCols: 2, columnNames: ["(Intercept)", "x"] });
 * const model = withPrior(new GlmModel(data, { family: "logistic" }), { coefficients: "cauchy(0, 2.5)" });
 * assert.ok(model instanceof GlmModel);
 * assert.equal(model.prior.describe()[1], "x ~ cauchy(0, 2.5)");
 * assert.equal(model.logPrior(new Float64Array([0, 0])), model.prior.logDensity(new Float64Array([0, 0])));
 * ```
 */
export function withPrior<M extends DataModel>(model: M, prior: Prior | PriorSpec): WithPrior<M> {
  // A model's own prior on a sampled ν (GlmModel's nuPrior) stays unless the spec states one.
  const ownNu = (model as { nuPrior?: { shape: number; rate: number } | null }).nuPrior;
  const spec = prior instanceof Prior || ownNu == null || prior.scales?.nu !== undefined ||
      prior.scales?.log_nu_minus_1 !== undefined
    ? prior
    : { ...prior, scales: { ...prior.scales, nu: { family: "gamma" as const, ...ownNu } } };
  const p = spec instanceof Prior ? spec : buildPrior(model.parameterNames, spec);
  if (p.dim !== model.dim) {
    throw new RangeError(`the prior has ${p.dim} parameters but the model has ${model.dim}`);
  }
  const out = Object.create(model) as WithPrior<M>;
  // Bind the class's methods and getters to the model itself, so private
  // fields and `this` inside them still refer to the original.
  for (
    let proto = Object.getPrototypeOf(model);
    proto !== null && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key === "constructor" || Object.prototype.hasOwnProperty.call(out, key)) continue;
      const desc = Object.getOwnPropertyDescriptor(proto, key)!;
      if (typeof desc.value === "function") {
        Object.defineProperty(out, key, { value: desc.value.bind(model), configurable: true });
      } else if (desc.get) {
        Object.defineProperty(out, key, {
          get: () => (model as unknown as Record<string, unknown>)[key],
          configurable: true,
        });
      }
    }
  }
  const d = model.dim, priorGrad = new Float64Array(d);
  const own: Record<string, unknown> = {
    prior: p,
    logPrior: (theta: Float64Array, grad?: Float64Array) => p.logDensity(theta, grad),
    logPriorHessian: (theta: Float64Array, o: Float64Array) => p.hessian(theta, o),
    logDensity: (theta: Float64Array) => p.logDensity(theta) + model.logLikelihood(theta),
    logDensityAndGradient: (theta: Float64Array, grad: Float64Array) => {
      const ll = model.logLikelihood(theta, grad);
      const lp = p.logDensity(theta, priorGrad);
      for (let j = 0; j < d; j++) grad[j] += priorGrad[j];
      return ll + lp;
    },
    // The model's own gradient-only pass adds the model's prior, not this
    // one: it must not be inherited through the binding above. The combined
    // pass gives this prior's gradient (NaN where the density is not finite,
    // as GlmModel.logDensityGradient's contract says).
    logDensityGradient: (theta: Float64Array, grad: Float64Array) => {
      if (!Number.isFinite((out as DataModel).logDensityAndGradient(theta, grad))) grad.fill(NaN);
    },
  };
  for (const [key, value] of Object.entries(own)) {
    Object.defineProperty(out, key, { value, configurable: true, enumerable: key === "prior" });
  }
  return out;
}
