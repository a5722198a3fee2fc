/**
 * Resolving a prior spec against a model's parameter names
 * ({@link buildPrior}), the weakly informative defaults
 * ({@link defaultPriorSpec}) and the resolved prior's evaluation
 * ({@link Prior}). The rules are in models/priors.ts's module comment.
 *
 * @module
 */
import { assertPosition } from "./model.ts";
import { checkOptionNames } from "../math/names.ts";
import { checkPrior, formatPrior, parsePriorText } from "./prior_text.ts";
import { DEFAULT_NU_PRIOR } from "./nu_prior.ts";
import type {
  CoefficientPrior,
  DefaultPriorOptions,
  PriorInput,
  PriorLayoutOptions,
  PriorSpec,
  ResolvedPrior,
} from "./priors.ts";
import { isScalePrior, type PriorTerm, priorTerm } from "./prior_density.ts";

/**
 * An independent prior per parameter, with log density, gradient and
 * diagonal Hessian.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildPrior } from "./prior_build.ts";
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
  #terms: PriorTerm[];

  /**
   * Build the prior from resolved per-parameter priors (usually through {@link buildPrior}).
   *
   * @param parameters One resolved prior per parameter (checked).
   */
  constructor(parameters: readonly ResolvedPrior[]) {
    this.parameters = parameters;
    this.dim = parameters.length;
    this.#terms = parameters.map((p) => priorTerm(p));
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
 * import { defaultPriorSpec } from "./prior_build.ts";
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
 * import { buildPrior } from "./prior_build.ts";
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
      if (!isScalePrior(prior) && prior.family !== "flat") {
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
    if (isScalePrior(prior) || prior.family === "gamma") {
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
