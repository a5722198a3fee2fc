/**
 * Plain-TypeScript reference of the three base families (codes 0–2:
 * logistic, Gaussian with known σ, Poisson), one row at a time: ℓ, dℓ/dη and
 * d²ℓ/dη² at ηᵢ = xᵢᵀθ, and the check of the family code and σ. Used by
 * core/reference.ts; the extended families are in core/reference_ext.ts.
 *
 * @module
 */
import { logGamma } from "../math/special.ts";
import { FAMILY_GAUSSIAN, FAMILY_LOGISTIC, FAMILY_POISSON } from "./exports.ts";
import { invalidArgumentError } from "./reference.ts";

const _LOG_2PI = 1.8378770664093453; // log(2π)

/**
 * Throw unless `family` (and σ for the Gaussian) are valid.
 *
 * @param family Family code (0, 1 or 2).
 * @param famParam σ for the Gaussian.
 * @throws {RangeError} The backends' error for a bad family or σ.
 */
export function _checkFamily(family: number, famParam: number): void {
  if (family !== FAMILY_LOGISTIC && family !== FAMILY_GAUSSIAN && family !== FAMILY_POISSON) {
    throw invalidArgumentError(0, family);
  }
  if (family === FAMILY_GAUSSIAN && !(famParam > 0 && famParam < Infinity)) {
    throw invalidArgumentError(2, famParam);
  }
}

/**
 * Per-row family evaluation: ℓ, dℓ/dη, d²ℓ/dη² written into `out[0..3]`.
 *
 * @param family Family code (0 logistic, 1 Gaussian, 2 Poisson).
 * @param famParam σ for the Gaussian.
 * @param eta The linear predictor ηᵢ.
 * @param y The response yᵢ.
 * @param out Receives ℓ, dℓ/dη and d²ℓ/dη².
 */
export function _familyRow(
  family: number,
  famParam: number,
  eta: number,
  y: number,
  out: Float64Array,
): void {
  if (family === FAMILY_LOGISTIC) {
    // ℓ = yη − softplus(η), softplus(η) = max(η,0) + log1p(e^{−|η|})
    const e = Math.exp(-Math.abs(eta));
    const p = 1 / (1 + e);
    const sig = eta >= 0 ? p : e * p; // σ(η)
    out[0] = (y * eta - Math.max(eta, 0)) - Math.log1p(e); // no cancellation for y ∈ {0,1}
    out[1] = y - sig;
    out[2] = -(e * p * p); // −σ(η)σ(−η)
  } else if (family === FAMILY_GAUSSIAN) {
    const inv = 1 / (famParam * famParam);
    const c0 = -0.5 * (_LOG_2PI + Math.log(famParam * famParam));
    const r = y - eta;
    out[0] = c0 - 0.5 * (r * r) * inv;
    out[1] = r * inv;
    out[2] = -inv;
  } else {
    const mu = Math.exp(eta);
    out[0] = y * eta - mu - logGamma(y + 1);
    out[1] = y - mu;
    out[2] = -mu;
  }
}
