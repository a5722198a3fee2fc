/**
 * When HMC-ECS may run, and a guard that stops a chain once it leaves the
 * region where its likelihood estimate is a density.
 *
 * HMC-ECS targets π̃(θ) ∝ p(θ)·L̂(θ; u) with a subsample estimate L̂ built on
 * Taylor control variates around θ* (Dang et al. 2019, eqs. 8–12). That is a
 * posterior only under assumptions the paper makes tacitly, because its data
 * are tall:
 *
 * ```
 *  m < n                   a subsample smaller than the data (else full-data HMC is
 *                          cheaper and exact)
 *  m ≥ 2(d + 1)            the perturbed estimator's −σ̂²ₘ/2 (eq. 12) bounds the
 *                          remainder (n/m)Σdᵢ only in directions the m rows' dᵢ tell
 *                          apart; with m ≤ d + 1 rows there are directions where
 *                          they all agree, σ̂²ₘ stays ≈ 0 and −(n/m)Σqᵢ grows faster
 *                          than Σq falls: π̃ is improper and the chain runs off
 *                          (n = 30–50 rows of a 3-parameter logistic regression,
 *                          m = ⌈n/10⌉ = 3–5, gave |θ| ≈ 10²–10³ where the
 *                          posterior sd is 0.5)
 *  n ≥ 2(d + 1)            enough rows for the subset fit, the pilot and the
 *                          control variates to see every direction
 *  θ* finite, P ≻ 0        the fit that centres the control variates reached a mode
 *  θ near θ*               the chain stays within {@link RUNAWAY_DISTANCE} of θ*
 *                          (in posterior sds²/dimension), where L̂ is accurate; a
 *                          chain beyond it samples the estimator's error, not the
 *                          posterior, and is stopped
 * ```
 *
 * Each refusal names the fix: full-data HMC (`--sampler hmc`), which needs
 * none of this.
 *
 * References: Dang et al. (2019), eqs. 8–12, §6.3; Quiroz et al. (2019), §3.
 *
 * @module
 */
import { cholesky, matVecInto } from "../../math/linalg.ts";
import type { DataModel } from "../../models/model.ts";
import type { ChainSampler, StepInfo } from "../sampler.ts";
import { precisionAtCenter } from "./centring.ts";
import type { ResolvedHmcEcsOptions } from "./options.ts";
import type { ControlVariateProxy } from "./proxy.ts";
import type { HmcEcsEngine, HmcEcsState } from "./state.ts";

/** What every refusal suggests instead. */
const _FIX = "use full-data HMC instead (--sampler hmc)";

/**
 * δᵀPδ/d (squared posterior sds per dimension, δ = θ − θ*) beyond which a
 * chain is stopped: 100 sds per dimension, far outside anything a posterior
 * draw or a warmup transient from a subset θ* (≈ √(n/ñ) = 10 sds for a 1 %
 * subset) reaches.
 */
export const RUNAWAY_DISTANCE = 1e4;

/**
 * The smallest subsample (and data set) HMC-ECS accepts for d parameters.
 *
 * @param dim d.
 * @returns 2(d + 1).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { minHmcEcsRows } from "./assumptions.ts";
 * assert.equal(minHmcEcsRows(3), 8);
 * ```
 */
export function minHmcEcsRows(dim: number): number {
  return 2 * (dim + 1);
}

/**
 * Refuse, before any allocation, data and options under which HMC-ECS's
 * estimated likelihood is not a posterior (see the module notes).
 *
 * @param model `numRows` n and `dim` d.
 * @param o The resolved options.
 * @throws {RangeError} Naming what does not hold, the values and the fix.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveHmcEcsOptions } from "./options.ts";
 * import { checkHmcEcsAssumptions } from "./assumptions.ts";
 * const model = { numRows: 30, dim: 3 };
 * assert.throws(
 *   () => checkHmcEcsAssumptions(model, resolveHmcEcsOptions(model, {})),
 *   /at most m = 3 rows.*--sampler hmc/,
 * );
 * const tall = { numRows: 10000, dim: 3 };
 * checkHmcEcsAssumptions(tall, resolveHmcEcsOptions(tall, {}));
 * ```
 * References: Dang et al. (2019), eqs. 10–12.
 */
export function checkHmcEcsAssumptions(
  model: { readonly numRows: number; readonly dim: number },
  o: ResolvedHmcEcsOptions,
): void {
  const n = model.numRows, d = model.dim, floor = minHmcEcsRows(d);
  if (n < floor) {
    throw new RangeError(
      `HMC-ECS needs at least 2(d + 1) = ${floor} data rows for d = ${d} parameters ` +
        `(its subset fit and control variates must see every direction), got n = ${n}; ${_FIX}`,
    );
  }
  // A signed chain that trains samples with the perturbed estimator first
  // (the same decision as the chain sampler's init).
  const training = o.variant === "signed" &&
    (o.signedTraining ??
      (o.thetaStar === undefined && o.maxNewtonSteps === 0 && o.updateEvery > 0 &&
        o.numWarmup > o.updateEvery));
  if (o.variant === "perturbed" || training) {
    const given = o.subsampleSize !== undefined;
    const m = o.subsampleSize ?? Math.min(o.maxSubsampleSize, n);
    if (given && m >= n) {
      throw new RangeError(
        `HMC-ECS's subsample must be smaller than the data: subsampleSize must be < n = ${n}, got ${m}; ${_FIX}`,
      );
    }
    if (m < floor) {
      throw new RangeError(
        `HMC-ECS cannot subsample n = ${n} rows for d = ${d} parameters: its subsample of ` +
          `at most m = ${m} rows${given ? "" : " (n/10)"} must hold at least 2(d + 1) = ${floor} ` +
          `for the perturbed likelihood estimate (eq. 12) to be a density; ` +
          `on data this small ${_FIX}`,
      );
    }
  }
  if (o.variant === "signed" && o.batchSize !== undefined && o.batchSize >= n) {
    throw new RangeError(
      `HMC-ECS's mini-batches must be smaller than the data: batchSize must be < n = ${n}, got ${o.batchSize}; ${_FIX}`,
    );
  }
}

/**
 * Check a chain's freshly initialised state: θ*, the precision at θ* and
 * the log density at the start are finite, and the precision is positive
 * definite (the fit that centred the control variates reached a mode).
 *
 * @param state The state `init` returned.
 * @param model The model.
 * @throws {RangeError} Naming what failed and the fix.
 */
export function checkHmcEcsStart(state: HmcEcsState, model: DataModel): void {
  const proxy = state.engine.proxy, star = proxy.thetaStar;
  const names = model.parameterNames;
  for (let j = 0; j < star.length; j++) {
    if (!Number.isFinite(star[j])) {
      throw new RangeError(
        `HMC-ECS's subset fit did not converge: the centre θ* of its control variates is ` +
          `${star[j]} for parameter ${names?.[j] ?? j}; ${_FIX}`,
      );
    }
  }
  try {
    cholesky(precisionAtCenter(proxy, model));
  } catch {
    throw new RangeError(
      `HMC-ECS's subset fit did not converge: the log posterior's Hessian at the centre θ* of ` +
        `its control variates is not negative definite (no mode there); ${_FIX}`,
    );
  }
}

/**
 * The chain sampler with the checks of this module around it: `init`
 * refuses a start that fails {@link checkHmcEcsStart}, and `step` stops the
 * chain (keeping its draws) once θ is more than {@link RUNAWAY_DISTANCE}
 * squared posterior sds per dimension from θ* — or, for a chain started far
 * from θ*, 4× its starting distance.
 *
 * @param sampler The HMC-ECS chain sampler.
 * @param model The model it samples.
 * @returns The same sampler, guarded.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NormalGammaModel } from "../../examples/models/normal_gamma.ts";
 * import { Rng } from "../../random/rng.ts";
 * import { hmcEcsChainSampler } from "./chain_sampler.ts";
 * const x = Float64Array.from({ length: 2000 }, (_, i) => 1 + Math.sin(i));
 * const sampler = hmcEcsChainSampler(new NormalGammaModel(x), { numWarmup: 0 });
 * const rng = new Rng(1);
 * const s = sampler.init(new Float64Array([0, 1]), rng);
 * assert.equal(sampler.step(rng, s, "sampling", 0).stop, undefined);
 * sampler.dispose(s);
 * ```
 */
export function guardHmcEcsChain<T extends ChainSampler<HmcEcsState, StepInfo>>(
  sampler: T,
  model: DataModel,
): T {
  const limits = new WeakMap<HmcEcsEngine, number>();
  return {
    ...sampler,
    init(position, rng) {
      const state = sampler.init(position, rng);
      try {
        checkHmcEcsStart(state, model);
      } catch (e) {
        sampler.dispose?.(state);
        throw e;
      }
      _precisionOf(state.engine.proxy, model);
      const q0 = _distance(state.engine.proxy, model, state.kernel.hmc.position);
      limits.set(state.engine, Math.max(RUNAWAY_DISTANCE, 4 * q0));
      return state;
    },
    step(rng, state, phase, iteration) {
      const r = sampler.step(rng, state, phase, iteration);
      const why = _runaway(r.state, model, limits.get(r.state.engine) ?? RUNAWAY_DISTANCE);
      return why === undefined ? r : { ...r, stop: why };
    },
  };
}

/** The precision at θ* of each proxy, recomputed when it is re-centred. */
const _precisions = new WeakMap<ControlVariateProxy, { version: number; p: Float64Array }>();

/** δᵀPδ/d as `recenterDistance`, with P cached per centring (one matVec per step). */
function _distance(proxy: ControlVariateProxy, model: DataModel, theta: Float64Array): number {
  const p = _precisionOf(proxy, model);
  const d = proxy.dim, star = proxy.thetaStar;
  if (_delta.length !== d) {
    _delta = new Float64Array(d);
    _row = new Float64Array(d);
  }
  for (let j = 0; j < d; j++) _delta[j] = theta[j] - star[j];
  // Pδ four rows at a time, each row summed in order of j (the same numbers).
  const row = matVecInto(p, d, _delta, _row);
  let q = 0;
  for (let i = 0; i < d; i++) q += _delta[i] * row[i];
  return q / d;
}

/**
 * The precision of {@link _distance} for the proxy's current centring,
 * computed and cached when missing. A chain's `init` calls it first, so that
 * the chain's first `_distance` (optimised from the previous chain's steps)
 * does not take a branch its compiled code has no feedback for.
 */
function _precisionOf(proxy: ControlVariateProxy, model: DataModel): Float64Array {
  const c = _precisions.get(proxy);
  if (c !== undefined && c.version === proxy.version) return c.p;
  const p = precisionAtCenter(proxy, model);
  _precisions.set(proxy, { version: proxy.version, p });
  return p;
}

/** Scratch of {@link _distance} (one thread, no re-entry). */
let _delta = new Float64Array(0), _row = new Float64Array(0);

function _runaway(state: HmcEcsState, model: DataModel, limit: number): string | undefined {
  const q = _distance(state.engine.proxy, model, state.kernel.hmc.position);
  if (q <= limit) return undefined;
  return `HMC-ECS's chain ran off to ${
    Number.isFinite(q) ? Math.round(Math.sqrt(q)) : q
  } posterior sds (per dimension) from the centre θ* of its control variates, where its ` +
    `subsampled likelihood estimate is no longer a posterior (too few rows for subsampling); ${_FIX}`;
}
