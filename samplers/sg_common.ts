/**
 * Pieces shared by the stochastic-gradient samplers (SGLD, SG-HMC, SGNHT,
 * CCAdL): parameter checks, reflection at box constraints, and the kinetic
 * temperature.
 *
 * Reflection: a step that leaves [lower, upper] in coordinate j is mirrored
 * back (θⱼ → 2·lowerⱼ − θⱼ) and, for second-order dynamics, the momentum
 * component is reversed (pⱼ → −pⱼ). A reflecting wall preserves the target
 * restricted to the box; it is how the samplers keep the precision γ of the
 * Normal-Gamma model positive.
 *
 * References: Neal (2011), "MCMC using Hamiltonian dynamics", §5.5.1.5
 * (handling constraints by reflection); Shang et al. (2015), eq. 9 (kinetic
 * temperature pᵀM⁻¹p/N_d).
 *
 * @module
 */
import type { Bounds } from "../models/normal_gamma.ts";
import type { GradientEstimator } from "../subsampling/gradient_estimators.ts";

export type { Bounds };

/** Parameters every stochastic-gradient kernel takes. */
export interface SgBaseParams {
  /** The gradient estimator (minibatch, control-variate or full). */
  estimator: GradientEstimator;
  /** Step size (ε for SGLD/SG-HMC, h for SGNHT/CCAdL), positive. */
  stepSize: number;
  /** Box constraints on θ, enforced by reflection (e.g. a model's `bounds`). */
  bounds?: Bounds;
}

/**
 * Check the parameters shared by all kernels against the state's dimension.
 *
 * @param params The kernel parameters.
 * @param dim Dimension of the state's position.
 * @returns Nothing; throws a RangeError/TypeError naming the bad value.
 * @example
 * ```ts
 * import { checkSgParams } from "./sg_common.ts";
 * try {
 *   checkSgParams({ stepSize: -0.1 } as never, 2);
 * } catch (e) {
 *   console.log((e as Error).message); // stepSize must be positive and finite, got -0.1
 * }
 * ```
 *
 * References: STYLE.md (errors name the bad value).
 */
export function checkSgParams(params: SgBaseParams, dim: number): void {
  const h = params.stepSize;
  if (!(h > 0) || !Number.isFinite(h)) {
    throw new RangeError(`stepSize must be positive and finite, got ${h}`);
  }
  const est = params.estimator;
  if (est === undefined || typeof est.estimate !== "function") {
    throw new TypeError(
      "estimator must be a GradientEstimator (see subsampling/gradient_estimators.ts)",
    );
  }
  if (est.dim !== dim) {
    throw new RangeError(`estimator dimension ${est.dim} does not match the position's ${dim}`);
  }
  const b = params.bounds;
  if (b !== undefined && (b.lower.length !== dim || b.upper.length !== dim)) {
    throw new RangeError(
      `bounds must have ${dim} lower and upper values, got ${b.lower.length} and ${b.upper.length}`,
    );
  }
}

/**
 * Check a non-negative finite scalar parameter (friction, thermal mass…).
 *
 * @param value The value.
 * @param name Its name for the error message.
 * @returns The value.
 * @example
 * ```ts
 * import { checkPositive } from "./sg_common.ts";
 * console.log(checkPositive(1, "friction")); // 1
 * ```
 *
 * References: STYLE.md (errors name the bad value).
 */
export function checkPositive(value: number, name: string): number {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be positive and finite, got ${value}`);
  }
  return value;
}

/**
 * The thermostat constants of SGNHT and CCAdL, checked: the friction A
 * (default 1) and the thermal mass μ (default d).
 *
 * @param params `friction`, `thermalMass`.
 * @param dim Dimension d.
 * @returns `{ friction, thermalMass }`.
 * @example
 * ```ts
 * import { thermostatConstants } from "./sg_common.ts";
 * console.log(thermostatConstants({}, 3)); // { friction: 1, thermalMass: 3 }
 * ```
 *
 * References: Shang et al. (2015), eq. 8 and Algorithm 1.
 */
export function thermostatConstants(
  params: { friction?: number; thermalMass?: number },
  dim: number,
): { friction: number; thermalMass: number } {
  return {
    friction: checkPositive(params.friction ?? 1, "friction"),
    thermalMass: checkPositive(params.thermalMass ?? dim, "thermalMass"),
  };
}

/**
 * Reflect `position` into the box (in place), reversing the matching momentum
 * components (if a momentum is given).
 *
 * @param position θ (modified in place).
 * @param options `bounds`, and `momentum` p (modified in place) for
 *   second-order dynamics.
 * @returns The number of coordinates reflected.
 * @example
 * ```ts
 * import { reflectIntoBounds } from "./sg_common.ts";
 * const theta = new Float64Array([0.3, -0.2]), p = new Float64Array([1, -2]);
 * const bounds = { lower: new Float64Array([-Infinity, 0]), upper: new Float64Array([Infinity, Infinity]) };
 * console.log(reflectIntoBounds(theta, { bounds, momentum: p }), theta[1], p[1]); // 1 0.2 2
 * ```
 *
 * References: Neal (2011), §5.5.1.5.
 */
export function reflectIntoBounds(
  position: Float64Array,
  options: { bounds?: Bounds; momentum?: Float64Array },
): number {
  const b = options.bounds;
  if (b === undefined) return 0;
  const p = options.momentum, lo = b.lower, hi = b.upper;
  let count = 0;
  for (let j = 0; j < position.length; j++) {
    let x = position[j];
    const l = lo[j], u = hi[j];
    if (x >= l && x <= u) continue;
    // Mirror until inside (more than one bounce only for a step longer than the box).
    for (let k = 0; k < 64 && !(x >= l && x <= u); k++) {
      x = x < l ? 2 * l - x : 2 * u - x;
      if (p !== undefined) p[j] = -p[j];
      count++;
    }
    if (!(x >= l && x <= u)) {
      throw new RangeError(`position[${j}] = ${position[j]} cannot be reflected into [${l}, ${u}]`);
    }
    position[j] = x;
  }
  return count;
}

/**
 * Kinetic temperature pᵀp/N_d (with M = I), whose target value is 1.
 *
 * @param momentum p.
 * @returns pᵀp / d.
 * @example
 * ```ts
 * import { kineticTemperature } from "./sg_common.ts";
 * console.log(kineticTemperature(new Float64Array([1, 3]))); // 5
 * ```
 *
 * References: Shang et al. (2015), eq. 9.
 */
export function kineticTemperature(momentum: Float64Array): number {
  let s = 0;
  for (let j = 0; j < momentum.length; j++) s += momentum[j] * momentum[j];
  return s / momentum.length;
}
