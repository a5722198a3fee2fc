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
import type { Bounds } from "../../models/model.ts";
import type { Rng } from "../../random/rng.ts";
import type { ChainSampler, StepInfo } from "../sampler.ts";
import type { GradientEstimator } from "../../subsampling/gradient_estimators.ts";
import { positive, positiveFinite } from "../validate_options.ts";

export type { Bounds };

/** Parameters every stochastic-gradient kernel takes. */
export interface SgBaseParams {
  /** The gradient estimator (minibatch, control-variate or full). */
  estimator: GradientEstimator;
  /** Step size (ε for SGLD/SG-HMC, h for SGNHT/CCAdL), positive. */
  stepSize: number;
  /** Box constraints on θ, enforced by reflection (e.g. a model's `bounds`). */
  bounds?: Bounds;
  /**
   * A step whose position or momentum has a coordinate above this in
   * absolute value (or a non-finite one, or a non-finite gradient) is
   * divergent: the kernel reports `isDivergent` and returns the previous
   * state (default 1e8).
   */
  explosionBound?: number;
}

/**
 * Check the parameters shared by all kernels against the state's dimension.
 *
 * @param params The kernel parameters.
 * @param dim Dimension of the state's position.
 * @returns Nothing; throws a RangeError/TypeError naming the bad value.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { checkSgParams } from "./common.ts";
 * try {
 *   checkSgParams({ stepSize: -0.1 } as never, 2);
 * } catch (e) {
 *   assert.equal((e as Error).message, "stepSize must be positive and finite, got -0.1");
 * }
 * ```
 *
 * References: docs/architecture.md, "Conventions" (errors name the bad value).
 */
export function checkSgParams(params: SgBaseParams, dim: number): void {
  const h = params.stepSize;
  positiveFinite("stepSize", h);
  const est = params.estimator;
  if (est === undefined || typeof est.estimate !== "function") {
    throw new TypeError(
      "estimator must be a GradientEstimator (see subsampling/gradient_estimators.ts)",
    );
  }
  if (est.dim !== dim) {
    throw new RangeError(`estimator dimension ${est.dim} does not match the position's ${dim}`);
  }
  const e = params.explosionBound;
  if (e !== undefined) positive("explosionBound", e);
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
 * import { strict as assert } from "node:assert";
 * import { checkPositive } from "./common.ts";
 * assert.equal(checkPositive(1, "friction"), 1);
 * ```
 *
 * References: docs/architecture.md, "Conventions" (errors name the bad value).
 */
export function checkPositive(value: number, name: string): number {
  return positiveFinite(name, value);
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
 * import { strict as assert } from "node:assert";
 * import { thermostatConstants } from "./common.ts";
 * assert.deepEqual(thermostatConstants({}, 3), { friction: 1, thermalMass: 3 });
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
 * import { strict as assert } from "node:assert";
 * import { reflectIntoBounds } from "./common.ts";
 * const theta = new Float64Array([0.3, -0.2]), p = new Float64Array([1, -2]);
 * const bounds = { lower: new Float64Array([-Infinity, 0]), upper: new Float64Array([Infinity, Infinity]) };
 * assert.equal(reflectIntoBounds(theta, { bounds, momentum: p }), 1);
 * assert.equal(theta[1], 0.2);
 * assert.equal(p[1], 2);
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
 * import { strict as assert } from "node:assert";
 * import { kineticTemperature } from "./common.ts";
 * assert.equal(kineticTemperature(new Float64Array([1, 3])), 5);
 * ```
 *
 * References: Shang et al. (2015), eq. 9.
 */
export function kineticTemperature(momentum: Float64Array): number {
  let s = 0;
  for (let j = 0; j < momentum.length; j++) s += momentum[j] * momentum[j];
  return s / momentum.length;
}

/**
 * Whether a vector has a non-finite coordinate or one above `bound` in
 * absolute value: the SG samplers' divergence test.
 *
 * @param values θ, p or a gradient.
 * @param bound The explosion bound (`Infinity` tests finiteness only).
 * @returns True if the step that produced `values` diverged.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isExploded } from "./common.ts";
 * assert.equal(isExploded(new Float64Array([1, NaN]), Infinity), true);
 * assert.equal(isExploded(new Float64Array([1, -2e9]), 1e8), true);
 * assert.equal(isExploded(new Float64Array([1, -2]), 1e8), false);
 * ```
 *
 * References: Stan Reference Manual, "Divergent transitions" (the idea: a
 * numerically unstable step is data, not an exception).
 */
export function isExploded(values: Float64Array, bound: number): boolean {
  for (let j = 0; j < values.length; j++) {
    if (!(Math.abs(values[j]) <= bound)) return true;
  }
  return false;
}

/** Default {@link SgBaseParams.explosionBound}. */
export const DEFAULT_EXPLOSION_BOUND = 1e8;

/**
 * The reason a chain of an SG sampler stops after a divergent step, naming
 * the step size to change.
 *
 * @param name The sampler's name (`"SGLD"`).
 * @param stepSize The step size used.
 * @returns A sentence.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { divergenceReason } from "./common.ts";
 * assert.match(divergenceReason("SGLD", 10), /stepSize = 10/);
 * ```
 *
 * References: Dang et al. (2019), §6.4 (SG samplers are unstable above a
 * step size that must be found by trial).
 */
export function divergenceReason(name: string, stepSize: number): string {
  return `${name} diverged (a non-finite or exploding position, momentum or gradient) at stepSize = ${stepSize}; use a smaller stepSize`;
}

/**
 * A kernel with fixed parameters as a {@link ChainSampler}: warmup is plain
 * burn-in (no adaptation) and a divergent step ends the chain with
 * {@link divergenceReason} (an SG sampler has no Metropolis correction to
 * recover from unstable dynamics; the draws before it are kept).
 *
 * @param name The sampler's name for the stop reason.
 * @param kernel `init(position, rng)`, `step(rng, state, params)` and the fixed `params`.
 * @returns The chain sampler.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sgChainSampler } from "./common.ts";
 * import { Rng } from "../../random/rng.ts";
 * const s = sgChainSampler("toy", {
 *   init: (p: Float64Array) => ({ position: p }),
 *   step: (_rng: Rng, st: { position: Float64Array }) => ({ state: st, info: { isDivergent: true } }),
 *   params: { stepSize: 2 },
 * });
 * const r = s.step(new Rng(1), s.init(new Float64Array(1), new Rng(1)), "warmup", 0);
 * assert.match(r.stop ?? "", /stepSize = 2/);
 * ```
 *
 * References: Dang et al. (2019), §6.2 and §6.4.
 */
export function sgChainSampler<
  S extends { readonly position: Float64Array },
  I extends StepInfo,
  P extends { stepSize: number },
>(
  name: string,
  kernel: {
    init: (position: Float64Array, rng: Rng) => S;
    step: (rng: Rng, state: S, params: P) => { state: S; info: I };
    params: P;
  },
): ChainSampler<S, I> {
  const { params } = kernel;
  return {
    init: (position, rng) => kernel.init(position, rng),
    step(rng, state) {
      const r = kernel.step(rng, state, params);
      return r.info.isDivergent ? { ...r, stop: divergenceReason(name, params.stepSize) } : r;
    },
    position: (state) => state.position,
    tuning: () => ({ stepSize: params.stepSize }),
  };
}

/**
 * Arrays a kernel writes its next state into instead of allocating new ones
 * each step (allocating a few small typed arrays cost more than the rest of
 * a step at d = 2). None of them may be an array of the state the step starts from.
 */
export interface SgStepBuffers {
  /** The next θ (length d). */
  readonly position: Float64Array;
  /** The next p (length d). */
  readonly momentum: Float64Array;
  /** Scratch of length d (SG-HMC's velocity, CCAdL's covariance term). */
  readonly scratch: Float64Array;
}

/**
 * Two sets of {@link SgStepBuffers} used in turn: given the current state, the
 * set its arrays are not in. A chain sampler built on it keeps the state a
 * step returns valid until the step after next, which is all the driver
 * needs (it never steps from an older state).
 *
 * @returns The chooser: `(state) => buffers` for the step from `state`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { alternatingBuffers } from "./common.ts";
 * const next = alternatingBuffers();
 * const a = next({ position: new Float64Array(2) });
 * const b = next({ position: a.position });
 * assert.notEqual(a.position, b.position);
 * assert.equal(next({ position: b.position }), a);
 * ```
 *
 * References: docs/architecture.md, "Samplers" (the driver holds only the latest state).
 */
export function alternatingBuffers(): (
  state: { readonly position: Float64Array },
) => SgStepBuffers {
  let a: SgStepBuffers | null = null, b: SgStepBuffers | null = null;
  const make = (d: number): SgStepBuffers => ({
    position: new Float64Array(d),
    momentum: new Float64Array(d),
    scratch: new Float64Array(d),
  });
  return (state) => {
    const d = state.position.length;
    if (a === null || b === null || a.position.length !== d) {
      a = make(d);
      b = make(d);
    }
    return state.position === a.position ? b : a;
  };
}

/**
 * `src` copied into `out.<field>` after checking that the buffer fits and is
 * not `src` itself; a new copy of `src` when `out` is undefined.
 *
 * @param src The state's array.
 * @param out The buffers, or undefined.
 * @param field Which buffer.
 * @returns The array holding the copy.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { copyIntoBuffer } from "./common.ts";
 * const src = new Float64Array([1, 2]);
 * const out = { position: new Float64Array(2), momentum: new Float64Array(2), scratch: new Float64Array(2) };
 * assert.equal(copyIntoBuffer(src, out, "position"), out.position);
 * assert.deepEqual([...out.position], [1, 2]);
 * ```
 *
 * References: see {@link SgStepBuffers}.
 */
export function copyIntoBuffer(
  src: Float64Array,
  out: SgStepBuffers | undefined,
  field: "position" | "momentum",
): Float64Array {
  if (out === undefined) return src.slice();
  const dst = bufferOf(out, field, src.length);
  if (dst === src) throw new RangeError(`out.${field} must not be the state's own array`);
  dst.set(src);
  return dst;
}

/**
 * `out.<field>` checked to have length d, or a new zero array of length d
 * when `out` is undefined.
 *
 * @param out The buffers, or undefined.
 * @param field Which buffer.
 * @param d The dimension.
 * @returns The array.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bufferOf } from "./common.ts";
 * assert.equal(bufferOf(undefined, "scratch", 3).length, 3);
 * ```
 *
 * References: see {@link SgStepBuffers}.
 */
export function bufferOf(
  out: SgStepBuffers | undefined,
  field: keyof SgStepBuffers,
  d: number,
): Float64Array {
  if (out === undefined) return new Float64Array(d);
  const a = out[field];
  if (a.length !== d) throw new RangeError(`out.${field} must have length ${d}, got ${a.length}`);
  return a;
}
