/**
 * The reference {@link ExternalGlmModel}: an in-memory {@link GlmModel} seen
 * through the external interface, so that the external path of HMC-ECS can
 * be checked against the in-memory one on the same data.
 *
 * ```
 *  readRows             copies rows out of the model's arena (f32 widened exactly)
 *  controlVariateSums   S, A by the kernels, chunks and summation order the
 *                       in-memory control variates use (GlmKernels.controlVariateSums),
 *                       B by the model's Hessian pass: the same numbers, bit for bit
 *  everything else      the GlmModel's own methods and cost counter
 * ```
 *
 * @module
 */
import { dataViews } from "../core/row_buffer.ts";
import type { ExternalGlmModel } from "./external_glm.ts";
import type { GlmFamily, GlmModel } from "./glm.ts";
import type { CostCounter } from "./model.ts";

/**
 * An {@link ExternalGlmModel} over an in-memory GLM of a compact family
 * ("logistic", "poisson", or "gaussian" with known σ). The adapter shares the
 * GLM's cost counter and does not own the GLM: `close()` leaves it usable.
 *
 * @param model The GLM.
 * @returns The adapter.
 * @throws {TypeError} If the family has a scale parameter or an aux column.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "./glm.ts";
 * import { externalFromGlm } from "./in_memory_external.ts";
 * const glm = new GlmModel(
 *   glmDataFromArrays(loadCore(), [1, 0.5, 1, -1, 1, 2], [1, 0, 1], { numCols: 2 }),
 *   { family: "logistic" },
 * );
 * const ext = externalFromGlm(glm);
 * const x = new Float64Array(4), y = new Float64Array(2);
 * ext.readRows(new Int32Array([2, 0]), x, y);
 * assert.deepEqual(Array.from(x), [1, 2, 1, 0.5]);
 * assert.deepEqual(Array.from(y), [1, 1]);
 * const theta = new Float64Array([0.3, -0.2]), a = new Float64Array(2), g = new Float64Array(2);
 * const s = ext.controlVariateSums(theta, a);
 * assert.ok(Math.abs(s - glm.logLikelihood(theta, g)) < 1e-12);
 * assert.ok(Math.abs(a[1] - g[1]) < 1e-12);
 * ```
 */
export function externalFromGlm(model: GlmModel): ExternalGlmModel {
  if (!model.hasCompactCache) {
    throw new TypeError(
      `externalFromGlm needs a family whose control variates expand in η ("logistic", "poisson", "gaussian" with known sigma), got ${model.family}`,
    );
  }
  const d = model.numCols, n = model.numRows;
  let closed = false;
  const open = (what: string) => {
    if (closed) throw new Error(`${what}: the external model has been closed`);
  };
  return {
    isExternalGlm: true,
    family: model.family as GlmFamily,
    numCols: d,
    storage: model.data.storage,
    glmOptions: model.options,
    dim: model.dim,
    numRows: n,
    parameterNames: model.parameterNames,
    get cost(): CostCounter {
      return model.cost;
    },
    readRows(rows, x, y) {
      open("readRows");
      const k = rows.length;
      if (x.length < k * d || y.length < k) {
        throw new RangeError(
          `readRows of ${k} rows needs x of ${
            k * d
          } and y of ${k} values, got ${x.length} and ${y.length}`,
        );
      }
      const v = dataViews(model.data);
      for (let i = 0; i < k; i++) {
        const r = rows[i];
        if (!(Number.isInteger(r) && r >= 0 && r < n)) {
          throw new RangeError(`row index ${r} at position ${i} is outside [0, ${n - 1}]`);
        }
        x.set(v.x.subarray(r * d, r * d + d), i * d);
        y[i] = v.y[r];
      }
    },
    controlVariateSums(thetaStar, gradSum, hessSum) {
      open("controlVariateSums");
      if (!(thetaStar instanceof Float64Array) || thetaStar.length !== d) {
        throw new RangeError(`thetaStar must be a Float64Array of length ${d}`);
      }
      if (hessSum !== undefined && hessSum.length !== d * d) {
        throw new RangeError(`hessSum must have ${d * d} entries, got ${hessSum.length}`);
      }
      const s = model.kernels.controlVariateSums(model.data, thetaStar, { gradSum });
      model.cost.numLogLikRows += n;
      model.cost.numGradRows += n;
      if (hessSum !== undefined) model.logLikelihoodHessian(thetaStar, hessSum);
      return s;
    },
    close() {
      closed = true;
    },
    logPrior: (theta, grad) => model.logPrior(theta, grad),
    logPriorHessian: (theta, out) => model.logPriorHessian(theta, out),
    logLikelihood: (theta, grad) => model.logLikelihood(theta, grad),
    logLikelihoodRows: (theta, rows, options) => model.logLikelihoodRows(theta, rows, options),
    perRowGradients: (theta, rows, out) => model.perRowGradients(theta, rows, out),
    logLikelihoodHessian: (theta, out) => model.logLikelihoodHessian(theta, out),
    logDensity: (theta) => model.logDensity(theta),
    logDensityAndGradient: (theta, grad) => model.logDensityAndGradient(theta, grad),
  };
}
