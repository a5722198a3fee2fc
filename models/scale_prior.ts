/**
 * Priors for a GLM's scale or dispersion parameter s > 0 (σ of the Gaussian
 * and Student-t families, φ of the negative binomial), stated on s and applied
 * on the sampled coordinate τ = log s with the Jacobian: log p(τ) =
 * log pₛ(e^τ) + τ.
 *
 * ```
 *  half-normal(c)        pₛ ∝ exp(−s²/2c²)            ∂τ = 1 − s²/c²            ∂²τ = −2s²/c²
 *  half-cauchy(c)        pₛ ∝ 1/(1 + s²/c²)           ∂τ = 1 − 2s²/(c² + s²)    ∂²τ = −4s²c²/(c² + s²)²
 *  exponential(λ)        pₛ ∝ e^{−λs}                 ∂τ = 1 − λs               ∂²τ = −λs
 *  inverse-gamma(a, b)   on s²: ∝ (s²)^{−a−1}e^{−b/s²} ∂τ = −2a + 2b/s²          ∂²τ = −4b/s²
 *  log-flat              flat on τ (improper)          0                         0
 * ```
 *
 * The inverse gamma on σ² is the conjugate prior of Gaussian regression
 * (normal–inverse-gamma with a normal prior on β given σ is not the same
 * model; with a flat prior on β it is conjugate).
 *
 * @module
 */
import { logGamma } from "../math/special.ts";

/** A prior on a scale s > 0 (σ or φ), see the module table. */
export type ScalePrior =
  | { type: "half-normal"; scale: number }
  | { type: "half-cauchy"; scale: number }
  | { type: "exponential"; rate: number }
  | { type: "inverse-gamma"; shape: number; scale: number }
  | { type: "log-flat" };

/** The default: half-normal with scale 10 on σ or φ (weakly informative for standardised y). */
export const DEFAULT_SCALE_PRIOR: ScalePrior = { type: "half-normal", scale: 10 };

/**
 * Check a scale prior and return it.
 *
 * @param prior The prior (default {@link DEFAULT_SCALE_PRIOR}).
 * @returns The prior.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkScalePrior } from "./scale_prior.ts";
 * assert.throws(() => checkScalePrior({ type: "half-normal", scale: -1 }), /scale must be positive/);
 * ```
 */
export function checkScalePrior(prior: ScalePrior = DEFAULT_SCALE_PRIOR): ScalePrior {
  const pos = (v: number, what: string) => {
    if (!(v > 0 && v < Infinity)) {
      throw new RangeError(`scalePrior ${what} must be positive and finite, got ${v}`);
    }
  };
  switch (prior?.type) {
    case "half-normal":
    case "half-cauchy":
      pos(prior.scale, "scale");
      return prior;
    case "exponential":
      pos(prior.rate, "rate");
      return prior;
    case "inverse-gamma":
      pos(prior.shape, "shape");
      pos(prior.scale, "scale");
      return prior;
    case "log-flat":
      return prior;
    default:
      throw new TypeError(
        `scalePrior.type must be "half-normal", "half-cauchy", "exponential", "inverse-gamma" or "log-flat", got ${
          JSON.stringify((prior as { type?: unknown })?.type)
        }`,
      );
  }
}

/**
 * log p(τ) for τ = log s, with ∂/∂τ and ∂²/∂τ².
 *
 * @param prior The prior on s.
 * @param tau τ = log s.
 * @returns `[log p(τ), ∂τ, ∂²τ]`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scaleLogPrior } from "./scale_prior.ts";
 * const [lp, g] = scaleLogPrior({ type: "exponential", rate: 2 }, 0);
 * assert.ok(Math.abs(lp - (Math.log(2) - 2)) < 1e-15 && Math.abs(g + 1) < 1e-15);
 * ```
 */
export function scaleLogPrior(prior: ScalePrior, tau: number): [number, number, number] {
  const s = Math.exp(tau);
  switch (prior.type) {
    case "half-normal": {
      const c = prior.scale, r = (s * s) / (c * c);
      return [0.5 * Math.log(2 / Math.PI) - Math.log(c) - 0.5 * r + tau, 1 - r, -2 * r];
    }
    case "half-cauchy": {
      const c2 = prior.scale * prior.scale, s2 = s * s;
      return [
        Math.log(2 / (Math.PI * prior.scale)) - Math.log1p(s2 / c2) + tau,
        1 - (2 * s2) / (c2 + s2),
        (-4 * s2 * c2) / ((c2 + s2) * (c2 + s2)),
      ];
    }
    case "exponential":
      return [Math.log(prior.rate) - prior.rate * s + tau, 1 - prior.rate * s, -prior.rate * s];
    case "inverse-gamma": {
      const a = prior.shape, b = prior.scale, e = b * Math.exp(-2 * tau);
      return [
        a * Math.log(b) - logGamma(a) + Math.LN2 - 2 * a * tau - e,
        -2 * a + 2 * e,
        -4 * e,
      ];
    }
    default:
      return [0, 0, 0];
  }
}
