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
import { _autocovariance } from "./fft.ts";

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
  const chain = _chain(x, "x", 4);
  const n = chain.length;
  if (chain.every((v) => v === chain[0])) {
    throw new RangeError(
      `x must not be constant (autocorrelation time is undefined), got all values equal to ${
        chain[0]
      }`,
    );
  }
  const method = options.method ?? "sokal";
  if (method === "geyer") return n / _ess([chain]);
  if (method !== "sokal" && method !== "fixed") {
    throw new TypeError(`options.method must be "sokal", "geyer" or "fixed", got ${method}`);
  }
  let maxLag = n - 1;
  if (method === "fixed") {
    if (options.maxLag === undefined) {
      throw new RangeError('options.maxLag is required with method "fixed", got undefined');
    }
    maxLag = _integer(options.maxLag, "options.maxLag", 1);
    if (maxLag > n - 1) {
      throw new RangeError(`options.maxLag must be at most n − 1 = ${n - 1}, got ${maxLag}`);
    }
  }
  const acov = _autocovariance(chain, maxLag);
  let tau = 1;
  if (method === "fixed") {
    for (let t = 1; t <= maxLag; t++) tau += (2 * acov[t]) / acov[0];
    return tau;
  }
  const c = options.c === undefined ? 5 : _positive(options.c, "options.c");
  for (let m = 1; m <= maxLag; m++) {
    tau += (2 * acov[m]) / acov[0];
    if (m >= c * tau) return tau;
  }
  return tau;
}
