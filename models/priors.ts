/**
 * Priors users can state: one independent prior per parameter, chosen by the
 * parameter's name, with log p(θ), ∇ log p(θ) and the (diagonal)
 * ∇² log p(θ) — and {@link withPrior}, which puts such a prior on any
 * `DataModel` (a `GlmModel` included) without changing its
 * likelihood.
 *
 * ```
 *  coefficients (and the intercept)      scales σ, dispersion (sampled as u = log σ)
 *  normal(μ, s)      N(μ, s²)            half-normal(s)     σ ~ |N(0, s²)|
 *  student_t(ν, μ, s)                    half-t(ν, s)       σ ~ |t_ν(0, s)|
 *  cauchy(μ, s)      = student_t(1, μ, s) half-cauchy(s)    σ ~ |Cauchy(0, s)|
 *  laplace(μ, s)     exp(−|θ−μ|/s)/(2s)  exponential(λ)     σ ~ Exp(rate λ)
 *  flat              log p = 0            flat               log p(σ) = 0
 *                                        inverse_gamma(a, b) σ² ~ IG(shape a, scale b)
 * ```
 *
 * A scale parameter stored as u = log σ (the default for names `log(σ)`,
 * `log_σ`) gets the density of u: log p(u) = log p_σ(eᵘ) + u (the Jacobian
 * of σ = eᵘ), so a prior stated on σ means what it says. A scale stored as σ
 * itself (`transform: "identity"`) has log p = −∞ for σ ≤ 0.
 *
 * **Laplace at its location.** |θ − μ| has no derivative at θ = μ. The
 * gradient there is 0 (the subgradient of smallest norm) and the Hessian of
 * a Laplace prior is 0 everywhere, at μ too: its true second derivative is
 * a negative point mass at μ, which no finite Hessian can carry. Samplers
 * that only use gradients are unaffected (θ = μ exactly has probability 0);
 * a Newton fit (HMC-ECS's θ*) sees only the likelihood's curvature in that
 * coordinate.
 *
 * **Defaults** ({@link defaultPriorSpec}), as rstanarm's (Gabry & Goodrich,
 * "Prior distributions for rstanarm models", 2020), weakly informative on
 * standardised predictors: every coefficient N(0, 2.5²) on the scale of a
 * predictor with sd 1 — that is N(0, (2.5 / sd(xⱼ))²) on the raw column,
 * times sd(y) for the Gaussian family — so a one-sd change of a predictor is
 * a priori unlikely to move the log-odds (or log-rate) by more than 5, and
 * the posterior does not depend on the units of the columns. The intercept
 * gets N(0, 10²) (Gaussian: N(ȳ, (10 sd(y))²)): wider than rstanarm's 2.5,
 * because rstanarm's intercept is that of centred predictors and ours is at
 * x = 0 unless `--standardize` centres them. Scales: exponential with rate
 * 1/sd(y) for a residual scale (as rstanarm's σ), exponential(1) otherwise.
 *
 * References: Gelman, Jakulin, Pittau & Su (2008), "A weakly informative
 * default prior distribution for logistic and other regression models";
 * Gabry & Goodrich (2020), rstanarm's priors vignette.
 *
 * The text form of a prior (parsePriorText, formatPrior, checkPrior) is in
 * prior_text.ts. The code is in prior_build.ts (buildPrior, the defaults,
 * the Prior class), prior_density.ts (each family's log density) and
 * with_prior.ts (withPrior); this module holds the types and re-exports it.
 *
 * @module
 */

export { buildPrior, defaultPriorSpec, Prior } from "./prior_build.ts";
export { logScaleDensity } from "./prior_density.ts";
export { type WithPrior, withPrior } from "./with_prior.ts";

/** A prior on a real coefficient (or the intercept). */
export type CoefficientPrior =
  | { family: "normal"; location?: number; scale: number }
  | { family: "student_t"; df: number; location?: number; scale: number }
  | { family: "cauchy"; location?: number; scale: number }
  | { family: "laplace"; location?: number; scale: number }
  | { family: "flat" };

/**
 * A prior on a positive scale parameter s (σ, a dispersion φ), stated on s
 * (see the module table). `inverse_gamma(a, b)` is on s² (σ² ~ IG(a, b), the
 * conjugate prior of Gaussian regression with a flat prior on β). `flat` is
 * flat on s itself. The same type serves {@link withPrior} and
 * `GlmModel`'s `scalePrior`; its text form is read by `parsePriorText`.
 */
export type ScalePrior =
  | { family: "half_normal"; scale: number }
  | { family: "half_t"; df: number; scale: number }
  | { family: "half_cauchy"; scale: number }
  | { family: "exponential"; rate: number }
  | { family: "inverse_gamma"; shape: number; scale: number }
  | { family: "flat" };

/**
 * Gamma(shape, rate) on the degrees of freedom ν > 1 of Student-t regression
 * with sampled ν (parameter `log_nu_minus_1`, ω = log(ν − 1)); the density
 * and its Jacobian are those of `nu_prior.ts`. Text form `gamma(2, 0.1)`
 * (the default).
 */
export type NuGammaPrior = { family: "gamma"; shape: number; rate: number };

/** Any prior, or its text form (see {@link parsePriorText}). */
export type PriorInput = CoefficientPrior | ScalePrior | NuGammaPrior | string;

/**
 * What a user states. Each parameter takes the first that applies: its own
 * name (or its term's name: `"region"` covers `region[south]`,
 * `region[west]`) in `terms`, then `intercept` for the intercept, `scales`
 * by name for scale parameters, then `coefficients`.
 */
export interface PriorSpec {
  /** Prior of every coefficient not named in `terms`. */
  coefficients?: CoefficientPrior | string;
  /** Prior of the intercept column. */
  intercept?: CoefficientPrior | string;
  /** Priors by coefficient name or by term (a categorical column's dummies, `x1:x2`). */
  terms?: Record<string, CoefficientPrior | string>;
  /**
   * Priors of scale parameters by name (`"sigma"`, `"phi"`, or the
   * parameter's own name), and of a sampled ν (`"nu"`: a {@link NuGammaPrior}).
   */
  scales?: Record<string, ScalePrior | NuGammaPrior | string>;
}

/** How a parameter enters the model. */
export type ParameterKind =
  | "coefficient"
  | "intercept"
  | "log-scale"
  | "scale"
  /** ω = log(ν − 1) of Student-t with sampled ν (the name `log_nu_minus_1`). */
  | "log-nu-minus-1";

/** Options of {@link buildPrior}: how to tell the parameters apart. */
export interface PriorLayoutOptions {
  /** Name of the intercept (default `"(Intercept)"`). */
  interceptName?: string;
  /**
   * Kinds by parameter name, overriding the default (`(Intercept)` is the
   * intercept, `log(x)` and `log_x` are scales sampled on the log scale,
   * everything else a coefficient).
   */
  kinds?: Record<string, ParameterKind>;
  /** Defaults for what the spec leaves out (default: {@link defaultPriorSpec} with no data). */
  defaults?: PriorSpec;
}

/** One parameter's resolved prior. */
export interface ResolvedPrior {
  /** The parameter's name. */
  readonly name: string;
  /** Its kind. */
  readonly kind: ParameterKind;
  /** Its prior. */
  readonly prior: CoefficientPrior | ScalePrior | NuGammaPrior;
}

/** What {@link defaultPriorSpec} scales its defaults by. */
export interface DefaultPriorOptions {
  /** The GLM family (the Gaussian family scales by sd(y) and centres the intercept at ȳ). */
  family?: string;
  /** Sample sd of each column, by name (the intercept's is ignored). Default: 1 (standardised). */
  columnSd?: Record<string, number>;
  /** Sample mean of y (Gaussian intercept location). */
  responseMean?: number;
  /** Sample sd of y. */
  responseSd?: number;
}
