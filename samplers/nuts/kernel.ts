/**
 * The No-U-Turn Sampler in its multinomial form (Betancourt 2017), the
 * transition Stan runs.
 *
 * One transition draws p ~ N(0, M) and doubles a trajectory of leapfrog steps
 * in a random direction (forwards or backwards in time) until it makes a
 * U-turn, diverges or reaches 2^maxTreeDepth − 1 steps. Each point z on the
 * trajectory has weight exp(H₀ − H(z)). The sample is drawn as the tree grows:
 *
 * - within a subtree, uniformly by weight: when two halves of a subtree merge,
 *   the right half's candidate replaces the left's with probability
 *   w_right / (w_left + w_right);
 * - between the old trajectory and the new subtree, biased towards the new
 *   subtree: its candidate replaces the current sample with probability
 *   min(1, w_new / w_old) (Betancourt 2017, Appendix A.3.2), which moves
 *   the sample away from the start more often and keeps the transition
 *   invariant.
 *
 * The U-turn test is the generalised criterion on the summed momenta
 * ρ = Σ pᵢ: a (sub)tree from p₋ to p₊ keeps growing while
 * p♯₋ · ρ > 0 and p♯₊ · ρ > 0, with p♯ = M⁻¹p (Betancourt 2017, §A.4.2).
 * As in Stan, two more checks are made at every merge of two halves
 * (left ‖ right): the left half plus the first point of the right half, and
 * the last point of the left half plus the right half — they catch U-turns a
 * merge of two halves that each still point outwards would miss.
 *
 * A point with H(z) − H₀ above `divergenceThreshold` (1000), or a non-finite
 * log density or gradient, is a divergence: the subtree that holds it is
 * dropped and the transition ends. The acceptance statistic that dual
 * averaging reads is the mean over every leapfrog step of min(1, exp(H₀ − H(z))).
 *
 * The gradient is whatever `logDensityAndGradientFn` computes (a GLM's fused
 * WebAssembly pass for full-data models); this module only moves d-vectors.
 *
 * References: Hoffman & Gelman (2014), "The No-U-Turn Sampler", Algorithms
 * 3 and 6; Betancourt (2017), "A Conceptual Introduction to Hamiltonian Monte
 * Carlo", §4 and Appendix A; Stan Reference Manual, "Hamiltonian Monte Carlo
 * sampling" (tree depth, divergences, accept_stat).
 *
 * @module
 */
import type { Rng } from "../../random/rng.ts";
import { leapfrog, type LogDensityGradientFn } from "../integrators.ts";
import type { Metric } from "../metric.ts";
import type { StepInfo } from "../sampler.ts";
import { type HmcState, init as hmcInit } from "../hmc/kernel.ts";
import { integerInRange, positive, positiveFinite } from "../validate_options.ts";

/** What the next NUTS transition needs: θ, log π(θ), ∇ log π(θ). Treat as immutable. */
export type NutsState = HmcState;

/** Diagnostics of one NUTS transition (the columns Stan writes per draw). */
export interface NutsInfo extends StepInfo {
  /** Stan's accept_stat: the mean of min(1, exp(H₀ − H)) over the leapfrog steps made. */
  acceptanceRate: number;
  /** A subtree diverged (ΔH above the threshold or a non-finite value); the transition ended there. */
  isDivergent: boolean;
  /** H = −log π + K(p) at the returned point. */
  energy: number;
  /** log π at the returned point. */
  logDensity: number;
  /** Doublings completed (Stan's treedepth). */
  treeDepth: number;
  /** Leapfrog steps made = gradient evaluations (Stan's n_leapfrog). */
  numIntegrationSteps: number;
  /** ε used. */
  stepSize: number;
}

/** Parameters of {@link step}. */
export interface NutsParams {
  /** The target's log density and gradient. */
  logDensityAndGradientFn: LogDensityGradientFn;
  /** ε > 0. */
  stepSize: number;
  /** The metric (mass matrix). */
  metric: Metric;
  /** Most doublings (default 10: at most 1023 leapfrog steps). */
  maxTreeDepth?: number;
  /** H − H₀ above this is a divergence (default 1000). */
  divergenceThreshold?: number;
}

/**
 * Initial NUTS state at `position` (one evaluation of log π and its gradient).
 *
 * @param position θ₀ (copied).
 * @param logDensityAndGradientFn The target.
 * @param options `parameterNames` to name a non-finite coordinate in the error.
 * @returns The state.
 * @throws {RangeError} If log π or its gradient at θ₀ is not finite.
 *
 * @example
 * ```ts
 * import { init } from "./kernel.ts";
 * const fn = (x: Float64Array, g: Float64Array) => { g[0] = -x[0]; return -0.5 * x[0] ** 2; };
 * if (init(new Float64Array([1]), fn).logDensity !== -0.5) throw new Error();
 * ```
 */
export function init(
  position: Float64Array,
  logDensityAndGradientFn: LogDensityGradientFn,
  options: { parameterNames?: readonly string[] } = {},
): NutsState {
  return hmcInit(position, logDensityAndGradientFn, options);
}

/** A phase-space point with its log density and gradient. */
interface _Point {
  position: Float64Array;
  momentum: Float64Array;
  logDensity: number;
  gradient: Float64Array;
}

function _point(d: number): _Point {
  return {
    position: new Float64Array(d),
    momentum: new Float64Array(d),
    logDensity: 0,
    gradient: new Float64Array(d),
  };
}

function _copy(dst: _Point, src: _Point): void {
  dst.position.set(src.position);
  dst.momentum.set(src.momentum);
  dst.gradient.set(src.gradient);
  dst.logDensity = src.logDensity;
}

/** The buffers one level of the recursion keeps across its two halves. */
interface _Level {
  proposeFinal: _Point;
  pInitEnd: Float64Array;
  pSharpInitEnd: Float64Array;
  rhoInit: Float64Array;
  pFinalBeg: Float64Array;
  pSharpFinalBeg: Float64Array;
  rhoFinal: Float64Array;
}

function _logAddExp(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

function _dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** p♯₋ · ρ > 0 and p♯₊ · ρ > 0: the trajectory from p₋ to p₊ has not turned back. */
function _noUTurn(pSharpMinus: Float64Array, pSharpPlus: Float64Array, rho: Float64Array): boolean {
  return _dot(pSharpPlus, rho) > 0 && _dot(pSharpMinus, rho) > 0;
}

function _sum(out: Float64Array, a: Float64Array, b: Float64Array): Float64Array {
  for (let i = 0; i < out.length; i++) out[i] = a[i] + b[i];
  return out;
}

/**
 * One multinomial NUTS transition.
 *
 * Consumes the generator in a data-dependent but deterministic order (d
 * normals for the momentum, then one uniform per doubling for its direction
 * and at most one per merge), so a seed fixes the chain.
 *
 * @param rng The generator.
 * @param state The current state (not modified).
 * @param params ε, the metric, the target, the maximum tree depth and the divergence threshold.
 * @returns The next state and the transition's info.
 * @throws {RangeError} On a non-positive ε, a bad tree depth or threshold, or
 *   a state whose length differs from the metric's dimension.
 *
 * @example
 * ```ts
 * import { init, step } from "./kernel.ts";
 * import { identityMetric } from "../metric.ts";
 * import { Rng } from "../../random/rng.ts";
 * const fn = (x: Float64Array, g: Float64Array) => { g[0] = -x[0]; return -0.5 * x[0] ** 2; };
 * let s = init(new Float64Array([0]), fn);
 * const rng = new Rng(1);
 * let sq = 0;
 * for (let i = 0; i < 2000; i++) {
 *   const r = step(rng, s, { logDensityAndGradientFn: fn, stepSize: 0.5, metric: identityMetric(1) });
 *   s = r.state;
 *   sq += s.position[0] ** 2;
 * }
 * if (Math.abs(sq / 2000 - 1) > 0.15) throw new Error(`variance ${sq / 2000}`);
 * ```
 *
 * References: Betancourt (2017), Appendix A.3–A.4; Hoffman & Gelman (2014), Algorithm 3.
 */
export function step(
  rng: Rng,
  state: NutsState,
  params: NutsParams,
): { state: NutsState; info: NutsInfo } {
  const { metric, stepSize, logDensityAndGradientFn: fn } = params;
  const d = metric.dim;
  if (state.position.length !== d) {
    throw new RangeError(
      `position must have the metric's length ${d}, got ${state.position.length}`,
    );
  }
  positiveFinite("stepSize", stepSize);
  const maxTreeDepth = params.maxTreeDepth ?? 10;
  integerInRange("maxTreeDepth", maxTreeDepth, 1, 30);
  const threshold = params.divergenceThreshold ?? 1000;
  positive("divergenceThreshold", threshold);

  const scratch = new Float64Array(d);
  const levels: _Level[] = [];
  const level = (j: number): _Level =>
    levels[j] ??= {
      proposeFinal: _point(d),
      pInitEnd: new Float64Array(d),
      pSharpInitEnd: new Float64Array(d),
      rhoInit: new Float64Array(d),
      pFinalBeg: new Float64Array(d),
      pSharpFinalBeg: new Float64Array(d),
      rhoFinal: new Float64Array(d),
    };
  const rhoExtended = new Float64Array(d);

  // The moving point z, the two ends of the trajectory and the candidates.
  const z = _point(d);
  z.position.set(state.position);
  z.gradient.set(state.gradient);
  z.logDensity = state.logDensity;
  metric.sampleMomentum(rng, z.momentum);
  const h0 = -state.logDensity + metric.kineticEnergy(z.momentum);
  const zFwd = _point(d), zBck = _point(d), zSample = _point(d), zPropose = _point(d);
  _copy(zFwd, z);
  _copy(zBck, z);
  _copy(zSample, z);

  // p and p♯ at the two ends of the forward and the backward part.
  const pSharp0 = metric.velocity(z.momentum, new Float64Array(d));
  const pFwdFwd = Float64Array.from(z.momentum), pSharpFwdFwd = Float64Array.from(pSharp0);
  const pFwdBck = Float64Array.from(z.momentum), pSharpFwdBck = Float64Array.from(pSharp0);
  const pBckFwd = Float64Array.from(z.momentum), pSharpBckFwd = Float64Array.from(pSharp0);
  const pBckBck = Float64Array.from(z.momentum), pSharpBckBck = Float64Array.from(pSharp0);
  const rho = Float64Array.from(z.momentum);
  const rhoFwd = new Float64Array(d), rhoBck = new Float64Array(d);

  let numLeapfrog = 0, sumMetroProb = 0, isDivergent = false;

  /** One leapfrog step of z in direction `sign` (backwards: flip p, step, flip back). */
  const evolve = (sign: number): number => {
    const p = z.momentum;
    if (sign < 0) { for (let i = 0; i < d; i++) p[i] = -p[i]; }
    const r = leapfrog(z, {
      logDensityAndGradientFn: fn,
      metric,
      stepSize,
      numIntegrationSteps: 1,
      scratch,
    });
    if (sign < 0) { for (let i = 0; i < d; i++) p[i] = -p[i]; }
    const h = -z.logDensity + metric.kineticEnergy(p);
    return r.isDivergent || Number.isNaN(h) ? Infinity : h;
  };

  /**
   * Build a subtree of 2^depth steps from z in direction `sign`. Returns
   * whether it is valid (no divergence, no U-turn inside); writes its
   * candidate into `propose`, its end momenta and summed momentum, and adds
   * its log weight to `logSumWeight.value`.
   */
  const buildTree = (
    depth: number,
    propose: _Point,
    pSharpBeg: Float64Array,
    pSharpEnd: Float64Array,
    rhoOut: Float64Array,
    pBeg: Float64Array,
    pEnd: Float64Array,
    sign: number,
    logSumWeight: { value: number },
  ): boolean => {
    if (depth === 0) {
      const h = evolve(sign);
      numLeapfrog++;
      if (h - h0 > threshold) isDivergent = true;
      logSumWeight.value = _logAddExp(logSumWeight.value, h0 - h);
      sumMetroProb += h0 - h > 0 ? 1 : Math.exp(h0 - h);
      _copy(propose, z);
      metric.velocity(z.momentum, pSharpBeg);
      pSharpEnd.set(pSharpBeg);
      for (let i = 0; i < d; i++) rhoOut[i] += z.momentum[i];
      pBeg.set(z.momentum);
      pEnd.set(z.momentum);
      return !isDivergent;
    }
    const lv = level(depth);
    const weightInit = { value: -Infinity };
    lv.rhoInit.fill(0);
    const isInitValid = buildTree(
      depth - 1,
      propose,
      pSharpBeg,
      lv.pSharpInitEnd,
      lv.rhoInit,
      pBeg,
      lv.pInitEnd,
      sign,
      weightInit,
    );
    if (!isInitValid) return false;
    const weightFinal = { value: -Infinity };
    lv.rhoFinal.fill(0);
    const isFinalValid = buildTree(
      depth - 1,
      lv.proposeFinal,
      lv.pSharpFinalBeg,
      pSharpEnd,
      lv.rhoFinal,
      lv.pFinalBeg,
      pEnd,
      sign,
      weightFinal,
    );
    if (!isFinalValid) return false;
    // Uniform (by weight) between the two halves.
    const weightSubtree = _logAddExp(weightInit.value, weightFinal.value);
    logSumWeight.value = _logAddExp(logSumWeight.value, weightSubtree);
    if (
      weightFinal.value > weightSubtree ||
      rng.uniform() < Math.exp(weightFinal.value - weightSubtree)
    ) {
      _copy(propose, lv.proposeFinal);
    }
    for (let i = 0; i < d; i++) {
      const s = lv.rhoInit[i] + lv.rhoFinal[i];
      rhoExtended[i] = s; // the subtree's ρ
      rhoOut[i] += s;
    }
    let persist = _noUTurn(pSharpBeg, pSharpEnd, rhoExtended);
    // The extra checks across the two halves.
    persist = _noUTurn(pSharpBeg, lv.pSharpFinalBeg, _sum(rhoExtended, lv.rhoInit, lv.pFinalBeg)) &&
      persist;
    persist = _noUTurn(lv.pSharpInitEnd, pSharpEnd, _sum(rhoExtended, lv.rhoFinal, lv.pInitEnd)) &&
      persist;
    return persist;
  };

  let logSumWeight = 0; // log exp(H₀ − H₀)
  let depth = 0;
  while (depth < maxTreeDepth) {
    rhoFwd.fill(0);
    rhoBck.fill(0);
    const weightSubtree = { value: -Infinity };
    let isValid: boolean;
    if (rng.uniform() > 0.5) {
      // Forwards: the old trajectory becomes the backward part.
      _copy(z, zFwd);
      rhoBck.set(rho);
      pBckFwd.set(pFwdFwd);
      pSharpBckFwd.set(pSharpFwdFwd);
      isValid = buildTree(
        depth,
        zPropose,
        pSharpFwdBck,
        pSharpFwdFwd,
        rhoFwd,
        pFwdBck,
        pFwdFwd,
        1,
        weightSubtree,
      );
      _copy(zFwd, z);
    } else {
      // Backwards: the old trajectory becomes the forward part.
      _copy(z, zBck);
      rhoFwd.set(rho);
      pFwdBck.set(pBckBck);
      pSharpFwdBck.set(pSharpBckBck);
      isValid = buildTree(
        depth,
        zPropose,
        pSharpBckFwd,
        pSharpBckBck,
        rhoBck,
        pBckFwd,
        pBckBck,
        -1,
        weightSubtree,
      );
      _copy(zBck, z);
    }
    if (!isValid) break;
    depth++;
    // Biased progressive sampling: favour the new subtree.
    if (
      weightSubtree.value > logSumWeight ||
      rng.uniform() < Math.exp(weightSubtree.value - logSumWeight)
    ) {
      _copy(zSample, zPropose);
    }
    logSumWeight = _logAddExp(logSumWeight, weightSubtree.value);
    _sum(rho, rhoBck, rhoFwd);
    let persist = _noUTurn(pSharpBckBck, pSharpFwdFwd, rho);
    persist = _noUTurn(pSharpBckBck, pSharpFwdBck, _sum(rhoExtended, rhoBck, pFwdBck)) &&
      persist;
    persist = _noUTurn(pSharpBckFwd, pSharpFwdFwd, _sum(rhoExtended, rhoFwd, pBckFwd)) &&
      persist;
    if (!persist) break;
  }

  const energy = -zSample.logDensity + metric.kineticEnergy(zSample.momentum);
  const info: NutsInfo = {
    acceptanceRate: numLeapfrog > 0 ? sumMetroProb / numLeapfrog : 0,
    isDivergent,
    energy,
    logDensity: zSample.logDensity,
    treeDepth: depth,
    numIntegrationSteps: numLeapfrog,
    stepSize,
  };
  return {
    state: {
      position: zSample.position,
      logDensity: zSample.logDensity,
      gradient: zSample.gradient,
    },
    info,
  };
}
