/**
 * Priors users can state: one independent prior per parameter, chosen by the
 * parameter's name, with log p(θ), ∇ log p(θ) and the (diagonal)
 * ∇² log p(θ) — and {@link withPrior}, which puts such a prior on any
 * {@link DataModel} (a {@link GlmModel} included) without changing its
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
 * prior_text.ts.
 *
 * @module
 */
import { logGamma } from "../math/special.ts";
import { assertPosition, type DataModel } from "./model.ts";
import { checkOptionNames } from "../math/names.ts";
import { checkPrior, formatPrior, parsePriorText } from "./prior_text.ts";
import { DEFAULT_NU_PRIOR, nuLogPrior } from "./nu_prior.ts";

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

const _HALF_LOG_2PI = 0.9189385332046728;

/**
 * An independent prior per parameter, with log density, gradient and
 * diagonal Hessian.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildPrior } from "./priors.ts";
 * const prior = buildPrior(["(Intercept)", "x1"], { coefficients: "normal(0, 2.5)", intercept: "flat" });
 * const grad = new Float64Array(2);
 * prior.logDensity(new Float64Array([3, 2.5]), grad);
 * assert.deepEqual(Array.from(grad), [0, -0.4]);
 * assert.deepEqual(prior.describe(), ["(Intercept) ~ flat", "x1 ~ normal(0, 2.5)"]);
 * ```
 */
export class Prior {
  /** Number of parameters. */
  readonly dim: number;
  /** The parameters and their priors, in order. */
  readonly parameters: readonly ResolvedPrior[];
  #terms: _Term[];

  /**
   * Build the prior from resolved per-parameter priors (usually through {@link buildPrior}).
   *
   * @param parameters One resolved prior per parameter (checked).
   */
  constructor(parameters: readonly ResolvedPrior[]) {
    this.parameters = parameters;
    this.dim = parameters.length;
    this.#terms = parameters.map((p) => _term(p));
  }

  /**
   * log p(θ) (normalised for proper priors); if `grad` is given, writes
   * ∇ log p(θ) into it.
   *
   * @param theta Position (length dim).
   * @param grad Optional output (length dim, overwritten).
   * @returns log p(θ), −∞ outside the support.
   */
  logDensity(theta: Float64Array, grad?: Float64Array): number {
    assertPosition(theta, this.dim);
    let lp = 0;
    for (let j = 0; j < this.dim; j++) {
      const t = this.#terms[j];
      lp += t.logDensity(theta[j]);
      if (grad) grad[j] = t.gradient(theta[j]);
    }
    return lp;
  }

  /**
   * ∇² log p(θ) into `out` (dim × dim row-major, overwritten; diagonal).
   *
   * @param theta Position.
   * @param out Output of length dim².
   */
  hessian(theta: Float64Array, out: Float64Array): void {
    const d = this.dim;
    out.fill(0, 0, d * d);
    for (let j = 0; j < d; j++) out[j * d + j] = this.#terms[j].hessian(theta[j]);
  }

  /**
   * The prior in words.
   *
   * @returns One line per parameter, `name ~ prior`, as the CLI prints them.
   */
  describe(): string[] {
    return this.parameters.map((p) => `${p.name} ~ ${formatPrior(p.prior)}`);
  }
}

interface _Term {
  logDensity(x: number): number;
  gradient(x: number): number;
  hessian(x: number): number;
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

/**
 * The default priors (see the module doc): N(0, (2.5/sd(xⱼ))²) per
 * coefficient (× sd(y) for Gaussian), N(0, 10²) intercept (Gaussian
 * N(ȳ, (10 sd(y))²)), exponential(1/sd(y)) for σ.
 *
 * @param names Parameter names.
 * @param options Family and the data's column sds.
 * @returns A spec naming every coefficient.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultPriorSpec } from "./priors.ts";
 * const spec = defaultPriorSpec(["(Intercept)", "x"], { family: "logistic", columnSd: { x: 0.5 } });
 * assert.deepEqual(spec.terms?.x, { family: "normal", location: 0, scale: 5 });
 * ```
 */
export function defaultPriorSpec(
  names: readonly string[],
  options: DefaultPriorOptions = {},
): PriorSpec {
  const gaussian = options.family === "gaussian";
  const sy = gaussian && options.responseSd !== undefined && options.responseSd > 0
    ? options.responseSd
    : 1;
  const terms: Record<string, CoefficientPrior> = {};
  for (const name of names) {
    const sd = options.columnSd?.[name];
    const sx = sd !== undefined && sd > 0 && Number.isFinite(sd) ? sd : 1;
    terms[name] = { family: "normal", location: 0, scale: (2.5 * sy) / sx };
  }
  const ySd = options.responseSd !== undefined && options.responseSd > 0 ? options.responseSd : 1;
  return {
    coefficients: { family: "normal", location: 0, scale: 2.5 * sy },
    intercept: {
      family: "normal",
      location: gaussian ? options.responseMean ?? 0 : 0,
      scale: 10 * sy,
    },
    terms,
    // No σ for the families without one, so that the spec can be given to buildPrior as it is.
    ...(_NO_SIGMA.includes(options.family ?? "")
      ? {}
      : { scales: { sigma: { family: "exponential" as const, rate: 1 / ySd } } }),
  };
}

const _NO_SIGMA = ["logistic", "poisson", "binomial", "negative-binomial"];

/**
 * Resolve a spec against parameter names into a {@link Prior}.
 *
 * @param names Parameter names (the model's `parameterNames`).
 * @param spec What the user stated (text or typed priors).
 * @param options The intercept's name, parameter kinds and the defaults.
 * @returns The prior.
 * @throws {RangeError} For a bad prior (naming the parameter) or a `terms`
 *   key that names no parameter.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildPrior } from "./priors.ts";
 * const p = buildPrior(["(Intercept)", "region[south]", "region[west]"], {
 *   terms: { region: "student_t(3, 0, 1)" },
 * });
 * assert.equal(p.describe()[2], "region[west] ~ student_t(3, 0, 1)");
 * assert.throws(() => buildPrior(["x1"], { terms: { x9: "normal(0, 1)" } }), /names no parameter: x9/);
 * ```
 */
export function buildPrior(
  names: readonly string[],
  spec: PriorSpec = {},
  options: PriorLayoutOptions = {},
): Prior {
  const interceptName = options.interceptName ?? "(Intercept)";
  if (typeof spec !== "object" || spec === null) {
    throw new TypeError(`a prior spec must be an object, got ${String(spec)}`);
  }
  checkOptionNames(spec, ["coefficients", "intercept", "terms", "scales"], "prior spec");
  checkOptionNames(options, ["interceptName", "kinds", "defaults"], "buildPrior options");
  const defaults = options.defaults ?? defaultPriorSpec(names);
  const asPrior = (v: PriorInput, what: string) => {
    if (typeof v !== "string" && (typeof v !== "object" || v === null || Array.isArray(v))) {
      throw new RangeError(
        `prior of ${what}: expected text such as "normal(0, 2.5)" or an object such as ` +
          `{ family: "normal", location: 0, scale: 2.5 }, got ${JSON.stringify(v)}`,
      );
    }
    const p = typeof v === "string" ? parsePriorText(v, what) : v;
    checkPrior(p, what);
    return p;
  };
  const used = new Set<string>();
  const fromTerms = (name: string, terms: Record<string, PriorInput> | undefined) => {
    if (!terms) return undefined;
    if (terms[name] !== undefined) return (used.add(name), terms[name]);
    // A term key covers a categorical column's dummies and interactions containing them.
    for (const key of Object.keys(terms)) {
      if (_termOf(name) === key) return (used.add(key), terms[key]);
    }
    return undefined;
  };
  const parameters = names.map((name): ResolvedPrior => {
    const kind = options.kinds?.[name] ??
      (name === interceptName
        ? "intercept"
        : name === "log_nu_minus_1"
        ? "log-nu-minus-1"
        : /^log(\(.*\)|_.+)$/.test(name)
        ? "log-scale"
        : "coefficient");
    const what = JSON.stringify(name);
    if (kind === "log-nu-minus-1") {
      if (spec.terms?.[name] !== undefined || spec.terms?.nu !== undefined) {
        throw new RangeError(
          `prior of ${name}: state the prior of ν as a scale prior on nu, e.g. nu=gamma(2, 0.1) ` +
            `(scales: { nu: … })`,
        );
      }
      const key = spec.scales?.[name] !== undefined ? name : "nu";
      const v = spec.scales?.[key] ?? defaults.scales?.[name] ?? defaults.scales?.nu ??
        { family: "gamma", ...DEFAULT_NU_PRIOR };
      if (spec.scales?.[key] !== undefined) used.add(`scale:${key}`);
      const prior = asPrior(v, what);
      if (prior.family !== "gamma") {
        throw new RangeError(
          `prior of ${what}: the sampled ν of student-t takes gamma(shape, rate) on ν > 1 ` +
            `(default gamma(2, 0.1)), got ${prior.family}`,
        );
      }
      return { name, kind, prior };
    }
    if (kind === "log-scale" || kind === "scale") {
      const bare = _bareScaleName(name);
      if (spec.terms?.[name] !== undefined || spec.terms?.[bare] !== undefined) {
        const key = spec.terms?.[name] !== undefined ? name : bare;
        throw new RangeError(
          `prior of ${JSON.stringify(key)}: ${name} is a scale parameter (sampled as ${name}); ` +
            `state its prior on ${bare} as a scale prior, e.g. ${bare}=half_normal(1) ` +
            `(scales: { ${bare}: … })`,
        );
      }
      const v = spec.scales?.[name] ?? spec.scales?.[bare] ?? defaults.scales?.[name] ??
        defaults.scales?.[bare] ?? { family: "exponential", rate: 1 };
      if (spec.scales?.[name] !== undefined) used.add(`scale:${name}`);
      else if (spec.scales?.[bare] !== undefined) used.add(`scale:${bare}`);
      const prior = asPrior(v, what);
      if (!_isScalePrior(prior) && prior.family !== "flat") {
        throw new RangeError(
          `prior of ${what}: a scale parameter needs half_normal, half_t, half_cauchy, exponential, inverse_gamma or flat, got ${prior.family}`,
        );
      }
      return { name, kind, prior };
    }
    const v = fromTerms(name, spec.terms) ??
      (kind === "intercept" ? spec.intercept : spec.coefficients) ??
      (kind === "intercept" ? defaults.intercept : fromTerms(name, defaults.terms)) ??
      defaults.coefficients ?? { family: "normal", location: 0, scale: 2.5 };
    const prior = asPrior(v, what);
    if (_isScalePrior(prior) || prior.family === "gamma") {
      throw new RangeError(
        `prior of ${what}: a coefficient needs normal, student_t, cauchy, laplace or flat, got ${prior.family}`,
      );
    }
    return { name, kind, prior };
  });
  for (const key of Object.keys(spec.terms ?? {})) {
    if (!used.has(key) && !names.some((n) => n === key || _termOf(n) === key)) {
      throw new RangeError(
        `prior terms names no parameter: ${key} (parameters: ${names.join(", ")})`,
      );
    }
  }
  const scales = parameters.filter((p) =>
    p.kind === "log-scale" || p.kind === "scale" || p.kind === "log-nu-minus-1"
  );
  for (const key of Object.keys(spec.scales ?? {})) {
    if (used.has(`scale:${key}`)) continue;
    if (names.includes(key) || names.some((n) => _termOf(n) === key)) {
      throw new RangeError(
        `prior of ${JSON.stringify(key)}: a coefficient needs normal, student_t, cauchy, ` +
          `laplace or flat, got the scale prior ${formatPrior(asPrior(spec.scales![key], key))}`,
      );
    }
    throw new RangeError(
      `prior of scale ${JSON.stringify(key)}: the model has ${
        scales.length === 0
          ? "no scale parameter (σ or φ)"
          : `no scale ${key}; its scale parameters: ${
            scales.map((p) =>
              `${
                p.kind === "log-nu-minus-1" ? "nu" : _bareScaleName(p.name)
              } (sampled as ${p.name})`
            ).join(", ")
          }`
      } (parameters: ${names.join(", ")})`,
    );
  }
  if (spec.intercept !== undefined && !parameters.some((p) => p.kind === "intercept")) {
    throw new RangeError(
      `a prior of the intercept was given, but the model has no intercept ${
        JSON.stringify(interceptName)
      } (parameters: ${names.join(", ")})`,
    );
  }
  return new Prior(parameters);
}

/** `log_sigma` → `sigma`, `log(σ)` → `σ`. */
function _bareScaleName(name: string): string {
  return name.replace(/^log\((.*)\)$/, "$1").replace(/^log_/, "");
}

/** `region[south]` → `region`; `x1:region[south]` → `x1:region`. */
function _termOf(name: string): string {
  return name.split(":").map((f) => f.replace(/\[[^\]]*\]$/, "")).join(":");
}

function _isScalePrior(
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
 * import { logScaleDensity } from "./priors.ts";
 * const [lp, g] = logScaleDensity({ family: "exponential", rate: 2 })(0);
 * assert.ok(Math.abs(lp - (Math.log(2) - 2)) < 1e-15 && Math.abs(g + 1) < 1e-15);
 * ```
 */
export function logScaleDensity(
  prior: ScalePrior,
  what = "the scale",
): (tau: number) => [number, number, number] {
  if (!_isScalePrior(prior) && prior.family !== "flat") {
    throw new RangeError(
      `prior of ${what}: a scale parameter needs half_normal, half_t, half_cauchy, exponential, inverse_gamma or flat, got ${
        JSON.stringify((prior as { family?: unknown })?.family)
      }`,
    );
  }
  const t = _term({ name: what, kind: "log-scale", prior });
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

function _term(r: ResolvedPrior): _Term {
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
  if (!_isScalePrior(p)) {
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

/** A {@link DataModel} whose prior was replaced by {@link withPrior}. */
export type WithPrior<M extends DataModel> = M & {
  /** The prior now in force. */
  readonly prior: Prior;
};

/**
 * Put `prior` on `model` in place of the model's own prior: a model that
 * is the original for every purpose — the same likelihood, data, cost
 * counter, and `instanceof` its class, so HMC-ECS still takes a
 * {@link GlmModel}'s WebAssembly control-variate path — except
 * `logPrior`, `logPriorHessian`, `logDensity` and `logDensityAndGradient`,
 * which use the new prior. The original model is not changed.
 *
 * @param model Any DataModel (its methods are bound to it, so classes with
 *   private fields work).
 * @param prior A {@link Prior}, or a {@link PriorSpec} resolved against the
 *   model's parameter names with {@link buildPrior}.
 * @returns The model with the new prior.
 * @throws {RangeError} If the prior's dimension differs from the model's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "./glm.ts";
 * import { withPrior } from "./priors.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, [1, 0.3, 1, -1.2], [1, 0], {
 *   numCols: 2, columnNames: ["(Intercept)", "x"] });
 * const model = withPrior(new GlmModel(data, { family: "logistic" }), { coefficients: "cauchy(0, 2.5)" });
 * assert.ok(model instanceof GlmModel);
 * assert.equal(model.prior.describe()[1], "x ~ cauchy(0, 2.5)");
 * assert.equal(model.logPrior(new Float64Array([0, 0])), model.prior.logDensity(new Float64Array([0, 0])));
 * ```
 */
export function withPrior<M extends DataModel>(model: M, prior: Prior | PriorSpec): WithPrior<M> {
  // A model's own prior on a sampled ν (GlmModel's nuPrior) stays unless the spec states one.
  const ownNu = (model as { nuPrior?: { shape: number; rate: number } | null }).nuPrior;
  const spec = prior instanceof Prior || ownNu == null || prior.scales?.nu !== undefined ||
      prior.scales?.log_nu_minus_1 !== undefined
    ? prior
    : { ...prior, scales: { ...prior.scales, nu: { family: "gamma" as const, ...ownNu } } };
  const p = spec instanceof Prior ? spec : buildPrior(model.parameterNames, spec);
  if (p.dim !== model.dim) {
    throw new RangeError(`the prior has ${p.dim} parameters but the model has ${model.dim}`);
  }
  const out = Object.create(model) as WithPrior<M>;
  // Bind the class's methods and getters to the model itself, so private
  // fields and `this` inside them still refer to the original.
  for (
    let proto = Object.getPrototypeOf(model);
    proto !== null && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key === "constructor" || Object.prototype.hasOwnProperty.call(out, key)) continue;
      const desc = Object.getOwnPropertyDescriptor(proto, key)!;
      if (typeof desc.value === "function") {
        Object.defineProperty(out, key, { value: desc.value.bind(model), configurable: true });
      } else if (desc.get) {
        Object.defineProperty(out, key, {
          get: () => (model as unknown as Record<string, unknown>)[key],
          configurable: true,
        });
      }
    }
  }
  const d = model.dim, priorGrad = new Float64Array(d);
  const own: Record<string, unknown> = {
    prior: p,
    logPrior: (theta: Float64Array, grad?: Float64Array) => p.logDensity(theta, grad),
    logPriorHessian: (theta: Float64Array, o: Float64Array) => p.hessian(theta, o),
    logDensity: (theta: Float64Array) => p.logDensity(theta) + model.logLikelihood(theta),
    logDensityAndGradient: (theta: Float64Array, grad: Float64Array) => {
      const ll = model.logLikelihood(theta, grad);
      const lp = p.logDensity(theta, priorGrad);
      for (let j = 0; j < d; j++) grad[j] += priorGrad[j];
      return ll + lp;
    },
  };
  for (const [key, value] of Object.entries(own)) {
    Object.defineProperty(out, key, { value, configurable: true, enumerable: key === "prior" });
  }
  return out;
}
