/**
 * The log density of each prior family, with its first and second
 * derivatives, for one parameter on the scale it is sampled on (the
 * families and the log-scale Jacobian are described in models/priors.ts).
 *
 * @module
 */
import { logGamma } from "../math/special.ts";
import { checkPrior } from "./prior_text.ts";
import { nuLogPrior } from "./nu_prior.ts";
import type { CoefficientPrior, NuGammaPrior, ResolvedPrior, ScalePrior } from "./priors.ts";

const _HALF_LOG_2PI = 0.9189385332046728;

/** One parameter's log prior and its derivatives. */
export interface PriorTerm {
  logDensity(x: number): number;
  gradient(x: number): number;
  hessian(x: number): number;
}

/** Whether a prior is a proper scale prior (not flat). */
export function isScalePrior(
  p: CoefficientPrior | ScalePrior | NuGammaPrior,
): p is Exclude<ScalePrior, { family: "flat" }> {
  return p.family === "half_normal" || p.family === "half_t" || p.family === "half_cauchy" ||
    p.family === "exponential" || p.family === "inverse_gamma";
}

/**
 * The density of a sampled log scale τ = log s under a prior stated on s:
 * log p(τ) = log pₛ(e^τ) + τ, with ∂/∂τ and ∂²/∂τ² (normalised for proper
 * priors; `flat` gives log p(τ) = τ).
 *
 * @param prior The prior on s (checked).
 * @param what Who the prior is for, named in error messages.
 * @returns A function of τ giving `[log p(τ), ∂τ, ∂²τ]`.
 * @throws {RangeError} For a prior that is not a scale prior, or bad numbers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logScaleDensity } from "./prior_density.ts";
 * const [lp, g] = logScaleDensity({ family: "exponential", rate: 2 })(0);
 * assert.ok(Math.abs(lp - (Math.log(2) - 2)) < 1e-15 && Math.abs(g + 1) < 1e-15);
 * ```
 */
export function logScaleDensity(
  prior: ScalePrior,
  what = "the scale",
): (tau: number) => [number, number, number] {
  if (!isScalePrior(prior) && prior.family !== "flat") {
    throw new RangeError(
      `prior of ${what}: a scale parameter needs half_normal, half_t, half_cauchy, exponential, inverse_gamma or flat, got ${
        JSON.stringify((prior as { family?: unknown })?.family)
      }`,
    );
  }
  const t = priorTerm({ name: what, kind: "log-scale", prior });
  return (tau) => [t.logDensity(tau), t.gradient(tau), t.hessian(tau)];
}

/** log f, d log f/dx, d² log f/dx² of a symmetric location-scale density at z = (x − μ)/s. */
function _symmetric(
  p: CoefficientPrior | ScalePrior,
): { lf: (z: number) => number; g: (z: number) => number; h: (z: number) => number; c: number } {
  switch (p.family) {
    case "normal":
    case "half_normal":
      return { lf: (z) => -0.5 * z * z, g: (z) => -z, h: () => -1, c: -_HALF_LOG_2PI };
    case "laplace":
      // Gradient 0 and Hessian 0 at z = 0 (see the module doc).
      return {
        lf: (z) => -Math.abs(z),
        g: (z) => (z > 0 ? -1 : z < 0 ? 1 : 0),
        h: () => 0,
        c: -Math.LN2,
      };
    default: {
      const nu = p.family === "student_t" || p.family === "half_t" ? p.df : 1;
      const c = logGamma((nu + 1) / 2) - logGamma(nu / 2) - 0.5 * Math.log(nu * Math.PI);
      return {
        lf: (z) => -((nu + 1) / 2) * Math.log1p((z * z) / nu),
        g: (z) => (-(nu + 1) * z) / (nu + z * z),
        h: (z) => (-(nu + 1) * (nu - z * z)) / ((nu + z * z) * (nu + z * z)),
        c,
      };
    }
  }
}

/** The log prior of one resolved parameter, checked. */
export function priorTerm(r: ResolvedPrior): PriorTerm {
  const p = r.prior;
  checkPrior(p, JSON.stringify(r.name));
  if (p.family === "gamma" || r.kind === "log-nu-minus-1") {
    if (p.family !== "gamma" || r.kind !== "log-nu-minus-1") {
      throw new RangeError(
        `prior of ${JSON.stringify(r.name)}: gamma(shape, rate) is the prior of a sampled ν ` +
          `(log_nu_minus_1) and only of it, got ${p.family} for a ${r.kind}`,
      );
    }
    const nu = { shape: p.shape, rate: p.rate };
    return {
      logDensity: (w) => nuLogPrior(nu, w)[0],
      gradient: (w) => nuLogPrior(nu, w)[1],
      hessian: (w) => nuLogPrior(nu, w)[2],
    };
  }
  if (p.family === "flat") {
    if (r.kind === "log-scale") {
      return {
        logDensity: (u) => u,
        gradient: () => 1,
        hessian: () => 0,
      };
    }
    if (r.kind === "scale") {
      return { logDensity: (s) => (s > 0 ? 0 : -Infinity), gradient: () => 0, hessian: () => 0 };
    }
    return { logDensity: () => 0, gradient: () => 0, hessian: () => 0 };
  }
  if (!isScalePrior(p)) {
    const mu = p.location ?? 0, s = p.scale, f = _symmetric(p);
    const c = f.c - Math.log(s);
    return {
      logDensity: (x) => c + f.lf((x - mu) / s),
      gradient: (x) => f.g((x - mu) / s) / s,
      hessian: (x) => f.h((x - mu) / s) / (s * s),
    };
  }
  // Density of σ > 0: log p(σ), g(σ) = d/dσ, g'(σ).
  let lp: (s: number) => number, g: (s: number) => number, gp: (s: number) => number;
  if (p.family === "exponential") {
    const rate = p.rate, c = Math.log(rate);
    lp = (s) => c - rate * s;
    g = () => -rate;
    gp = () => 0;
  } else if (p.family === "inverse_gamma") {
    // σ² ~ IG(a, b): log p(σ) = a log b − log Γ(a) + log 2 − (2a + 1) log σ − b/σ².
    const a = p.shape, b = p.scale, k = 2 * a + 1;
    const c = a * Math.log(b) - logGamma(a) + Math.LN2;
    lp = (s) => c - k * Math.log(s) - b / (s * s);
    g = (s) => -k / s + (2 * b) / (s * s * s);
    gp = (s) => k / (s * s) - (6 * b) / (s * s * s * s);
  } else {
    const sc = p.scale, f = _symmetric(p), c = Math.LN2 + f.c - Math.log(sc);
    lp = (s) => c + f.lf(s / sc);
    g = (s) => f.g(s / sc) / sc;
    gp = (s) => f.h(s / sc) / (sc * sc);
  }
  if (r.kind === "log-scale") {
    // u = log σ: log p(u) = log p(σ) + u; d/du = σg + 1; d²/du² = σg + σ²g'.
    return {
      logDensity: (u) => lp(Math.exp(u)) + u,
      gradient: (u) => Math.exp(u) * g(Math.exp(u)) + 1,
      hessian: (u) => {
        const s = Math.exp(u);
        return s * g(s) + s * s * gp(s);
      },
    };
  }
  return {
    logDensity: (s) => (s > 0 ? lp(s) : -Infinity),
    gradient: (s) => (s > 0 ? g(s) : 0),
    hessian: (s) => (s > 0 ? gp(s) : 0),
  };
}
