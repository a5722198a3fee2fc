/**
 * The prior on the degrees of freedom ν of Student-t regression with sampled
 * ν (`GlmModel` with `family: "student-t", nu: "sample"`).
 *
 * ν is sampled as ω = log(ν − 1), so ν ∈ (1, ∞): the mean of the t
 * distribution exists (β stays the location of a mean, and ν near 0 — where
 * the likelihood of a few outliers grows without bound — is excluded). The
 * prior is Gamma(shape, rate) on ν truncated to ν > 1, by default
 * Gamma(2, 0.1) (Juárez & Steel 2010; brms' default, with the same lower
 * bound 1): prior mean ≈ 21, and mass on heavy (ν < 5) as on near-normal
 * (ν > 30) tails. On ω, with the Jacobian dν/dω = e^ω = ν − 1:
 *
 * ```
 *  log p(ω) = a log b − log Γ(a) − log Q(a, b) + (a − 1) log ν − bν + ω
 *  ∂ω  = ((a − 1)/ν − b)(ν − 1) + 1
 *  ∂²ω = −(a − 1)(ν − 1)²/ν² + ((a − 1)/ν − b)(ν − 1)
 * ```
 *
 * with Q(a, b) = P(ν > 1) under Gamma(a, b), the regularised upper incomplete
 * gamma function.
 *
 * References: Juárez, M. A. & Steel, M. F. J. (2010), Model-based clustering
 * of non-Gaussian panel data based on skew-t distributions, JBES 28(1), §2.
 *
 * @module
 */
import { logGamma } from "../math/special.ts";

/** Gamma(shape, rate) on ν, truncated to ν > 1. */
export interface NuPrior {
  /** Shape a > 0. */
  shape: number;
  /** Rate b > 0. */
  rate: number;
}

/** The default prior on ν: Gamma(2, 0.1) truncated to ν > 1. */
export const DEFAULT_NU_PRIOR: Readonly<NuPrior> = { shape: 2, rate: 0.1 };

/**
 * Check a prior on ν and return it (the default when undefined).
 *
 * @param prior The prior.
 * @returns The prior.
 * @throws {RangeError} If shape or rate is not positive and finite.
 * @example
 * ```ts
 * import { checkNuPrior } from "./nu_prior.ts";
 * if (checkNuPrior(undefined).shape !== 2) throw new Error();
 * let threw = false;
 * try {
 *   checkNuPrior({ shape: 2, rate: -1 });
 * } catch {
 *   threw = true;
 * }
 * if (!threw) throw new Error();
 * ```
 */
export function checkNuPrior(prior: NuPrior | undefined): NuPrior {
  const p = prior ?? DEFAULT_NU_PRIOR;
  for (const k of ["shape", "rate"] as const) {
    const v = p[k];
    if (!(typeof v === "number" && v > 0 && Number.isFinite(v))) {
      throw new RangeError(`nuPrior.${k} must be positive and finite, got ${v}`);
    }
  }
  return { shape: p.shape, rate: p.rate };
}

/** log Q(a, x) = log(1 − P(a, x)), P by its power series (x moderate). */
function _logUpperGammaQ(a: number, x: number): number {
  let term = 1 / a, sum = term;
  for (let n = 1; n < 10_000; n++) {
    term *= x / (a + n);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  const p = Math.exp(a * Math.log(x) - x - logGamma(a)) * sum;
  return Math.log1p(-Math.min(p, 1));
}

/**
 * log p(ω), ∂/∂ω and ∂²/∂ω² of the prior on ω = log(ν − 1) (see the module
 * docs).
 *
 * @param prior The prior (checked).
 * @param omega ω.
 * @returns [log p(ω), ∂ω, ∂²ω] ([−∞, 0, 0] where e^ω overflows).
 * @example
 * ```ts
 * import { DEFAULT_NU_PRIOR, nuLogPrior } from "./nu_prior.ts";
 * // ν = 3: Gamma(2, 0.1) density 0.01·3·e^{−0.3}/Q(2, 0.1), Jacobian 2
 * const [lp] = nuLogPrior(DEFAULT_NU_PRIOR, Math.log(2));
 * const q = Math.exp(-0.1) * 1.1;
 * const want = Math.log((0.01 * 3 * Math.exp(-0.3) / q) * 2);
 * if (Math.abs(lp - want) > 1e-12) throw new Error(`${lp} vs ${want}`);
 * ```
 */
export function nuLogPrior(prior: NuPrior, omega: number): [number, number, number] {
  const a = prior.shape, b = prior.rate;
  const nm1 = Math.exp(omega), nu = 1 + nm1;
  if (!(nm1 < Infinity)) return [-Infinity, 0, 0]; // ν overflows: zero density
  const lp = a * Math.log(b) - logGamma(a) - _logUpperGammaQ(a, b) + (a - 1) * Math.log(nu) -
    b * nu + omega;
  const s = (a - 1) / nu - b;
  return [lp, s * nm1 + 1, -(a - 1) * (nm1 * nm1) / (nu * nu) + s * nm1];
}
