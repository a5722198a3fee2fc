/**
 * Inefficiency factors, the efficiency measure of the HMC-ECS paper, with the
 * effective sample size of R's coda package (`effectiveSize`, i.e.
 * `spectrum0.ar`).
 *
 * For one chain x₁..xₙ an AR(p) model is fitted by Yule–Walker (Levinson–
 * Durbin on the biased autocovariances), the order p ∈ {0..p_max},
 * p_max = min(n − 1, ⌊10 log₁₀ n⌋), minimising AIC = n log σ̂²_p + 2p, as R's
 * `ar()` does. With R's innovation variance σ̂²_p = γ̂₀ Π_{k≤p}(1 − φ̂²_kk) ·
 * n/(n − (p + 1)), the spectral density at frequency zero is
 * S(0) = σ̂²_p / (1 − Σφ̂)², and ESS = n · var(x) / S(0). Several chains add
 * their ESS (coda's `mcmc.list` method). The inefficiency factor is
 * IF = n / ESS; the computational time built on it (CT, RCT) is in
 * `computational_time.ts`.
 *
 * References: Dang, Quiroz, Kohn, Tran & Villani (2019) "Hamiltonian Monte
 * Carlo with energy conserving subsampling", JMLR 20, eq. 2 and §6.2;
 * Plummer, Best, Cowles & Vines (2006) "CODA", R News 6(1); Brockwell &
 * Davis (1991) "Time Series: Theory and Methods" §8.1–8.2 (Yule–Walker,
 * Durbin–Levinson); Akaike (1974) IEEE TAC 19(6).
 *
 * @module
 */

import { _chain, _chains, _mean, _variance } from "./_util.ts";
import { _autocovariance } from "./fft.ts";

/** The AR fit behind {@linkcode spectrum0Ar}. */
export interface ArSpectrum {
  /** Spectral density at frequency zero, σ̂²_p / (1 − Σφ̂)² (0 for a constant or linear series). */
  spectrum: number;
  /** AR order p chosen by AIC. */
  order: number;
  /** Yule–Walker coefficients φ̂₁..φ̂_p. */
  coefficients: number[];
  /** Innovation variance σ̂²_p as R's `ar.yw` reports it (`var.pred`). */
  varPred: number;
}

/** √ε: the tolerance of R's `all.equal`, used by coda to detect a constant series. */
const ALL_EQUAL_TOLERANCE = Math.sqrt(Number.EPSILON);

/** Standard deviation of the residuals of a least-squares line through (i, xᵢ). */
function _detrendedSd(x: Float64Array): number {
  const n = x.length;
  const tMean = (n - 1) / 2;
  const xMean = _mean(x);
  let sxt = 0;
  let stt = 0;
  for (let i = 0; i < n; i++) {
    sxt += (i - tMean) * (x[i] - xMean);
    stt += (i - tMean) * (i - tMean);
  }
  const slope = sxt / stt;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const r = x[i] - xMean - slope * (i - tMean);
    ss += r * r;
  }
  return Math.sqrt(ss / (n - 1));
}

/** `spectrum0.ar` of coda for one validated chain. */
function _spectrum0Ar(x: Float64Array): ArSpectrum {
  const n = x.length;
  if (_detrendedSd(x) <= ALL_EQUAL_TOLERANCE) {
    return { spectrum: 0, order: 0, coefficients: [], varPred: 0 };
  }
  const maxOrder = Math.min(n - 1, Math.floor(10 * Math.log10(n)));
  const r = _autocovariance(x, maxOrder);
  // Durbin–Levinson recursion: phi holds the order-k coefficients, v[k] the
  // innovation variance γ̂₀ Π_{j≤k}(1 − φ̂²_jj).
  const v = new Float64Array(maxOrder + 1);
  v[0] = r[0];
  let phi = new Float64Array(0);
  let bestOrder = 0;
  let bestAic = n * Math.log(v[0]);
  let bestPhi = phi;
  for (let k = 1; k <= maxOrder; k++) {
    let acc = r[k];
    for (let j = 1; j < k; j++) acc -= phi[j - 1] * r[k - j];
    const partial = acc / v[k - 1];
    const next = new Float64Array(k);
    for (let j = 1; j < k; j++) next[j - 1] = phi[j - 1] - partial * phi[k - j - 1];
    next[k - 1] = partial;
    phi = next;
    v[k] = v[k - 1] * (1 - partial * partial);
    const aic = n * Math.log(v[k]) + 2 * k;
    if (aic < bestAic) {
      bestAic = aic;
      bestOrder = k;
      bestPhi = phi;
    }
  }
  const varPred = (v[bestOrder] * n) / (n - (bestOrder + 1));
  let sumPhi = 0;
  for (let j = 0; j < bestOrder; j++) sumPhi += bestPhi[j];
  return {
    spectrum: varPred / ((1 - sumPhi) * (1 - sumPhi)),
    order: bestOrder,
    coefficients: Array.from(bestPhi),
    varPred,
  };
}

/** Validates one chain or an array of chains; returns the chains. */
function _chainOrChains(x: unknown): Float64Array[] {
  const isChains = Array.isArray(x) && x.length > 0 && typeof x[0] === "object" &&
    x[0] !== null;
  return isChains ? _chains(x, "chains", 4) : [_chain(x, "x", 4)];
}

/** coda ESS of validated chains: Σ_c n·var(x_c)/S_c(0) (0 where S(0) = 0). */
function _effectiveSizeAr(chains: Float64Array[]): number {
  let ess = 0;
  for (const chain of chains) {
    const { spectrum } = _spectrum0Ar(chain);
    if (spectrum !== 0) ess += (chain.length * _variance(chain)) / spectrum;
  }
  return ess;
}

/**
 * Spectral density at frequency zero of one chain from an AR(p) fit, exactly
 * as coda's `spectrum0.ar` (Yule–Walker fit of R's `ar()`, order by AIC).
 *
 * References: Plummer et al. (2006) R News 6(1); Brockwell & Davis (1991)
 * §8.1–8.2; Akaike (1974) IEEE TAC 19(6).
 *
 * @param x One chain (at least 4 finite values).
 * @returns The fitted order, coefficients, innovation variance and S(0).
 * @throws {RangeError} If x is too short or has a non-finite value.
 *
 * @example An AR(1) series is fitted with order 1
 * ```ts
 * import { spectrum0Ar } from "./inefficiency.ts";
 * import { strict as assert } from "node:assert";
 *
 * // x_i = 0.8 x_{i−1} + e_i with uniform noise from a Park–Miller generator
 * let seed = 42;
 * const noise = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
 * const x: number[] = [];
 * let prev = 0;
 * for (let i = 0; i < 2000; i++) x.push(prev = 0.8 * prev + noise());
 * const fit = spectrum0Ar(x);
 * assert.ok(fit.order >= 1);
 * assert.ok(Math.abs(fit.coefficients[0] - 0.8) < 0.1);
 * ```
 */
export function spectrum0Ar(x: ArrayLike<number>): ArSpectrum {
  return _spectrum0Ar(_chain(x, "x", 4));
}

/**
 * Effective sample size of coda's `effectiveSize`: n · var(x) / S(0) with
 * S(0) from an AR fit ({@linkcode spectrum0Ar}); for several chains the sum of
 * the per-chain values. Returns 0 for a constant (or exactly linear) chain.
 *
 * References: Plummer et al. (2006) R News 6(1); Dang et al. (2019) JMLR 20
 * §6.2 (IF computed with CODA).
 *
 * @param x One chain, or an array of equally long chains of one parameter
 * (at least 4 draws each).
 * @returns The ESS (sum over chains).
 * @throws {TypeError} If x is not an array of numbers or of chains.
 * @throws {RangeError} For too-short or unequal chains, or NaN/Inf.
 *
 * @example White noise has an ESS near its length
 * ```ts
 * import { effectiveSizeAr } from "./inefficiency.ts";
 * import { strict as assert } from "node:assert";
 *
 * let seed = 7;
 * const x = Array.from({ length: 1000 }, () => (seed = (seed * 16807) % 2147483647) / 2147483647);
 * const ess = effectiveSizeAr(x);
 * assert.ok(ess > 700 && ess < 1400);
 * ```
 */
export function effectiveSizeAr(x: ArrayLike<number> | readonly ArrayLike<number>[]): number {
  return _effectiveSizeAr(_chainOrChains(x));
}

/**
 * Inefficiency factor IF = (number of draws) / ESS, with ESS from
 * {@linkcode effectiveSizeAr}: how many draws give the information of one
 * independent draw. Infinity for a constant chain.
 *
 * References: Dang et al. (2019) JMLR 20, eq. 2 and §6.2; Plummer et al.
 * (2006) R News 6(1).
 *
 * @param x One chain, or an array of equally long chains of one parameter
 * (at least 4 draws each).
 * @returns IF ≥ 0 (1 for independent draws).
 * @throws {TypeError} If x is not an array of numbers or of chains.
 * @throws {RangeError} For too-short or unequal chains, or NaN/Inf.
 *
 * @example
 * ```ts
 * import { inefficiencyFactor } from "./inefficiency.ts";
 * import { strict as assert } from "node:assert";
 *
 * let seed = 42;
 * const noise = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
 * const x: number[] = [];
 * let prev = 0;
 * for (let i = 0; i < 5000; i++) x.push(prev = 0.9 * prev + noise());
 * const inefficiency = inefficiencyFactor(x); // AR(1), φ = 0.9: (1 + φ)/(1 − φ) = 19
 * assert.ok(inefficiency > 12 && inefficiency < 30);
 * ```
 */
export function inefficiencyFactor(x: ArrayLike<number> | readonly ArrayLike<number>[]): number {
  const chains = _chainOrChains(x);
  return (chains.length * chains[0].length) / _effectiveSizeAr(chains);
}
