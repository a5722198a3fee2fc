/**
 * What R7 and R8 (the QNHMC paper's experiments) share: the paper's ESS
 * with a fixed maximal lag, and a burn-in rule.
 *
 * The paper (§5.1) defines ESS = n / (1 + 2 Σ_{k=1}^{m} ρ_k) with m = 500
 * "determined empirically" and tabulates Σ|ρ_k|; its Table 1 ESS values are
 * exactly n / (1 + 2 Σ|ρ_k|) with n = 50 000 (253 = 50 000 / (1 + 2·98.27)),
 * so we compute it that way. This is not the ESS the rest of tallmc reports
 * (bulk-ESS with Geyer's initial-sequence truncation, Vehtari et al. 2021):
 * with a fixed lag it cannot see correlation beyond lag m, so for a chain
 * whose autocorrelation time exceeds m it is an overestimate. Both are shown.
 *
 * References: Fu, Luo & Zhang (2016), §5.1 (ESS, Σ|ρ_k|, m = 500).
 *
 * @module
 */
import { autocorrelation } from "../diagnostics/fft.ts";

/** The paper's autocorrelation summary of one chain. */
export interface PaperEss {
  /** Σ_{k=1}^{m} |ρ_k|. */
  sumAbsRho: number;
  /** n / (1 + 2 Σ_{k=1}^{m} |ρ_k|). */
  ess: number;
}

/**
 * Σ|ρ_k| up to lag m and the paper's ESS n / (1 + 2 Σ|ρ_k|).
 *
 * @param x One chain.
 * @param maxLag m (default 500).
 * @returns Σ|ρ_k| and the ESS.
 * @example
 * ```ts
 * import { paperEss } from "./qnhmc_common.ts";
 * import { Rng } from "../random/rng.ts";
 * const x = new Rng(1).fillNormal(new Float64Array(5000));
 * const r = paperEss(x, 50);
 * if (!(r.ess > 1000 && r.ess <= 5000)) throw new Error(`${r.ess}`);
 * ```
 */
export function paperEss(x: Float64Array, maxLag = 500): PaperEss {
  const rho = autocorrelation(x, { maxLag: Math.min(maxLag, x.length - 1) });
  let s = 0;
  for (let k = 1; k < rho.length; k++) s += Math.abs(rho[k]);
  return { sumAbsRho: s, ess: x.length / (1 + 2 * s) };
}

/**
 * The first iteration at which `trace` falls to `level` or below (for a
 * negative log density: the chain has reached the high-density region), or
 * NaN if it never does.
 *
 * @param trace A per-iteration value (e.g. (x − μ)ᵀΣ⁻¹(x − μ) or −log π).
 * @param level The threshold.
 * @returns The 0-based iteration, or NaN.
 * @example
 * ```ts
 * import { burnInIteration } from "./qnhmc_common.ts";
 * if (burnInIteration(new Float64Array([9, 5, 2, 3]), 3) !== 2) throw new Error();
 * ```
 */
export function burnInIteration(trace: ArrayLike<number>, level: number): number {
  for (let i = 0; i < trace.length; i++) if (trace[i] <= level) return i;
  return NaN;
}

/**
 * Iterations at about `count` log-spaced points in [1, n] (for traces drawn
 * on a log iteration axis).
 *
 * @param n The number of iterations.
 * @param count About how many points.
 * @returns Distinct 1-based iterations, increasing.
 * @example
 * ```ts
 * import { logSpacedIterations } from "./qnhmc_common.ts";
 * const it = logSpacedIterations(1000, 20);
 * if (it[0] !== 1 || it[it.length - 1] !== 1000) throw new Error();
 * ```
 */
export function logSpacedIterations(n: number, count: number): number[] {
  const out = new Set<number>();
  for (let k = 0; k < count; k++) {
    out.add(Math.min(n, Math.max(1, Math.round(Math.exp((Math.log(n) * k) / (count - 1))))));
  }
  return [...out].sort((a, b) => a - b);
}
