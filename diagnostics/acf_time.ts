/**
 * Integrated autocorrelation time τ = 1 + 2 Σ_{t≥1} ρ_t of a single chain,
 * the number of draws per independent draw (so ESS = n/τ), with three ways to
 * cut the noisy tail of the empirical autocorrelation sum:
 *
 * - `"sokal"`: Sokal's self-consistent window, the smallest M with
 *   M ≥ c · τ̂(M), τ̂(M) = 1 + 2 Σ_{t=1}^{M} ρ̂_t (c = 5 by default);
 * - `"geyer"`: Geyer's initial positive and monotone sequence, as in
 *   {@linkcode essBasic} for one unsplit chain: τ̂ = n / ESS;
 * - `"fixed"`: a fixed maximum lag m, τ̂ = 1 + 2 Σ_{t=1}^{m} ρ̂_t (as the QNHMC
 *   paper's ESS with m = 500).
 *
 * References: Sokal (1997) "Monte Carlo methods in statistical mechanics:
 * foundations and new algorithms", in Functional Integration, §3 (eqs.
 * 3.17–3.19 and the automatic windowing algorithm); Geyer (1992) Statistical
 * Science 7(4) §3.3; Shang, Zhu, Leimkuhler & Storkey (2015) "Covariance-
 * controlled adaptive Langevin thermostat", NeurIPS, Table 1 (autocorrelation
 * time); Fu, Luo & Zhang (2016) "Quasi-Newton Hamiltonian Monte Carlo", UAI,
 * §5.1 (ESS with fixed m).
 *
 * @module
 */

import { _chain, _integer, _positive } from "./_util.ts";
import { _ess } from "./ess.ts";
import { _autocovariances } from "./fft.ts";

/** Options for {@linkcode integratedAutocorrelationTime}. */
export interface AutocorrelationTimeOptions {
  /** How to truncate the sum of autocorrelations (default `"sokal"`). */
  method?: "sokal" | "geyer" | "fixed";
  /** Sokal's window constant c (default 5). */
  c?: number;
  /** Largest lag m summed by `"fixed"` (required there, 1 ≤ m ≤ n − 1). */
  maxLag?: number;
}

/**
 * Integrated autocorrelation time τ = 1 + 2 Σ ρ_t of one chain, estimated
 * from FFT autocorrelations with Sokal's adaptive window (default), Geyer's
 * initial sequences, or a fixed maximum lag.
 *
 * References: Sokal (1997) §3, eqs. 3.17–3.19; Geyer (1992) Statistical
 * Science 7(4) §3.3; Shang et al. (2015) NeurIPS Table 1; Fu et al. (2016)
 * UAI §5.1.
 *
 * @param x One chain (at least 4 finite values, not all equal).
 * @param options `method`, `c` (Sokal) and `maxLag` (fixed).
 * @returns τ̂ (1 for independent draws; ESS = n / τ̂).
 * @throws {RangeError} For a too-short or constant chain, NaN/Inf, c ≤ 0, or
 * a missing or out-of-range `maxLag` with `"fixed"`.
 * @throws {TypeError} For an unknown method.
 *
 * @example The three estimators on an AR(1)-like series
 * ```ts
 * import { integratedAutocorrelationTime } from "./acf_time.ts";
 * import { strict as assert } from "node:assert";
 *
 * let seed = 42;
 * const noise = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
 * const x: number[] = [];
 * let prev = 0;
 * for (let i = 0; i < 4000; i++) x.push(prev = 0.5 * prev + noise());
 * // AR(1) with φ = 0.5: τ = (1 + φ)/(1 − φ) = 3
 * for (const method of ["sokal", "geyer"] as const) {
 *   const tau = integratedAutocorrelationTime(x, { method });
 *   assert.ok(tau > 2 && tau < 4.5);
 * }
 * const tau = integratedAutocorrelationTime(x, { method: "fixed", maxLag: 20 });
 * assert.ok(tau > 2 && tau < 4.5);
 * ```
 */
export function integratedAutocorrelationTime(
  x: ArrayLike<number>,
  options: AutocorrelationTimeOptions = {},
): number {
  return integratedAutocorrelationTimes([x], options)[0];
}

/**
 * {@linkcode integratedAutocorrelationTime} of several chains (each on its
 * own, not pooled), two chains sharing one complex FFT: half the transforms
 * of one call per chain. The autocovariances agree with the one-chain
 * transform to rounding (≈ 1e-16 relative), so the τ̂ do too.
 *
 * @param chains The chains (each at least 4 finite values, not all equal;
 *   they may differ in length).
 * @param options As {@linkcode integratedAutocorrelationTime}.
 * @returns τ̂ of each chain, in order.
 * @throws As {@linkcode integratedAutocorrelationTime}, naming the chain.
 *
 * @example
 * ```ts
 * import { integratedAutocorrelationTimes } from "./acf_time.ts";
 * let seed = 7;
 * const noise = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
 * const a: number[] = [], b: number[] = [];
 * for (let i = 0; i < 4000; i++) a.push(noise()), b.push(noise());
 * const [ta, tb] = integratedAutocorrelationTimes([a, b]);
 * if (!(ta > 0.5 && ta < 2 && tb > 0.5 && tb < 2)) throw new Error("white noise has τ ≈ 1");
 * ```
 */
export function integratedAutocorrelationTimes(
  chains: readonly ArrayLike<number>[],
  options: AutocorrelationTimeOptions = {},
): number[] {
  const method = options.method ?? "sokal";
  if (method !== "sokal" && method !== "fixed" && method !== "geyer") {
    throw new TypeError(`options.method must be "sokal", "geyer" or "fixed", got ${method}`);
  }
  const checked = chains.map((x, k) => {
    const chain = _chain(x, chains.length === 1 ? "x" : `chains[${k}]`, 4);
    if (chain.every((v) => v === chain[0])) {
      throw new RangeError(
        `${
          chains.length === 1 ? "x" : `chains[${k}]`
        } must not be constant (autocorrelation time is undefined), got all values equal to ${
          chain[0]
        }`,
      );
    }
    return chain;
  });
  if (method === "geyer") return checked.map((chain) => chain.length / _ess([chain]));
  const c = method === "sokal"
    ? (options.c === undefined ? 5 : _positive(options.c, "options.c"))
    : 0;
  let fixedLag = 0;
  if (method === "fixed") {
    if (options.maxLag === undefined) {
      throw new RangeError('options.maxLag is required with method "fixed", got undefined');
    }
    fixedLag = _integer(options.maxLag, "options.maxLag", 1);
  }
  const out = new Array<number>(checked.length);
  // Chains of equal length share a transform, two at a time.
  const byLength = new Map<number, number[]>();
  checked.forEach((chain, k) => {
    const list = byLength.get(chain.length) ?? [];
    list.push(k);
    byLength.set(chain.length, list);
  });
  for (const [n, indices] of byLength) {
    const maxLag = method === "fixed" ? fixedLag : n - 1;
    if (maxLag > n - 1) {
      throw new RangeError(`options.maxLag must be at most n − 1 = ${n - 1}, got ${maxLag}`);
    }
    const acovs = _autocovariances(indices.map((k) => checked[k]), maxLag);
    indices.forEach((k, q) => out[k] = _tau(acovs[q], maxLag, method, c));
  }
  return out;
}

/** τ̂ from the autocovariances: a fixed window, or Sokal's smallest M ≥ c·τ̂(M). */
function _tau(acov: Float64Array, maxLag: number, method: "sokal" | "fixed", c: number): number {
  let tau = 1;
  if (method === "fixed") {
    for (let t = 1; t <= maxLag; t++) tau += (2 * acov[t]) / acov[0];
    return tau;
  }
  for (let m = 1; m <= maxLag; m++) {
    tau += (2 * acov[m]) / acov[0];
    if (m >= c * tau) return tau;
  }
  return tau;
}
