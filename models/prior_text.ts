/**
 * The text form of a prior: {@link parsePriorText} reads `normal(0, 2.5)`,
 * `student_t(3, 0, 2.5)`, `half_cauchy(1)`, `flat` …, {@link formatPrior}
 * writes it back, and {@link checkPrior} checks a prior's numbers (scales,
 * rates and degrees of freedom positive and finite, locations finite). The
 * priors themselves are in priors.ts.
 *
 * @module
 */
import type { CoefficientPrior, NuGammaPrior, ScalePrior } from "./priors.ts";

/** Any prior the text form reads. */
/** Any prior a text can state: a coefficient prior, a scale prior or the gamma prior of ν. */
export type AnyPrior = CoefficientPrior | ScalePrior | NuGammaPrior;

/**
 * Read a prior written as text: `normal(0, 2.5)`, `student_t(3, 0, 2.5)`,
 * `cauchy(0, 1)`, `laplace(0, 1)`, `flat`, `half_normal(1)`, `half_t(3, 1)`,
 * `half_cauchy(1)`, `exponential(1)`, `inverse_gamma(2, 1)` (on σ²),
 * `gamma(2, 0.1)` (on ν > 1, the sampled ν of student-t) (`-` may
 * replace `_`, and `half_cauchy` may be written `half-Cauchy`; a location may
 * be left out: `normal(2.5)` is N(0, 2.5²)).
 *
 * @param text The text.
 * @param what Who the prior is for, named in error messages.
 * @returns The prior.
 * @throws {RangeError} Naming `what` for unknown families, wrong argument counts and bad numbers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePriorText } from "./prior_text.ts";
 * assert.deepEqual(parsePriorText("student-t(3, 0, 2.5)"), { family: "student_t", df: 3, location: 0, scale: 2.5 });
 * assert.throws(() => parsePriorText("normal(0, -1)", "x1"), /prior of x1: normal scale must be positive, got -1/);
 * ```
 */
export function parsePriorText(text: string, what = "a parameter"): AnyPrior {
  const m = /^\s*([A-Za-z_-]+)\s*(?:\(([^()]*)\))?\s*$/.exec(text);
  if (!m) {
    throw new RangeError(
      `prior of ${what}: cannot read ${JSON.stringify(text)}; write e.g. "normal(0, 2.5)"`,
    );
  }
  const family = m[1].toLowerCase().replaceAll("-", "_");
  const args = m[2] === undefined || m[2].trim() === ""
    ? []
    : m[2].split(",").map((s) => s.trim() === "" ? NaN : Number(s));
  const need = (counts: number[], names: string): void => {
    if (!counts.includes(args.length)) {
      throw new RangeError(
        `prior of ${what}: ${family} takes (${names}), got ${JSON.stringify(text)}`,
      );
    }
  };
  let prior: AnyPrior;
  switch (family) {
    case "normal":
    case "cauchy":
    case "laplace":
      need([1, 2], "location, scale");
      prior = args.length === 1
        ? { family, location: 0, scale: args[0] }
        : { family, location: args[0], scale: args[1] };
      break;
    case "student_t":
      need([2, 3], "df, location, scale");
      prior = args.length === 2
        ? { family, df: args[0], location: 0, scale: args[1] }
        : { family, df: args[0], location: args[1], scale: args[2] };
      break;
    case "flat":
      need([0], "");
      prior = { family };
      break;
    case "half_normal":
    case "half_cauchy":
      need([1], "scale");
      prior = { family, scale: args[0] };
      break;
    case "half_t":
      need([2], "df, scale");
      prior = { family, df: args[0], scale: args[1] };
      break;
    case "exponential":
      need([1], "rate");
      prior = { family, rate: args[0] };
      break;
    case "inverse_gamma":
      need([2], "shape, scale");
      prior = { family, shape: args[0], scale: args[1] };
      break;
    case "gamma":
      need([2], "shape, rate");
      prior = { family, shape: args[0], rate: args[1] };
      break;
    default:
      throw new RangeError(
        `prior of ${what}: unknown family ${
          JSON.stringify(m[1])
        }; expected normal, student_t, cauchy, laplace, flat, half_normal, half_t, half_cauchy, exponential, inverse_gamma or gamma (ν of student-t)`,
      );
  }
  checkPrior(prior, what);
  return prior;
}

/**
 * Check a prior's numbers: scales, rates and degrees of freedom positive
 * and finite, locations finite.
 *
 * @param prior The prior.
 * @param what Who the prior is for, named in the message.
 * @throws {RangeError} `prior of x1: normal scale must be positive, got 0`.
 */
export function checkPrior(prior: AnyPrior, what: string): void {
  const p = prior as {
    family: string;
    location?: number;
    scale?: number;
    df?: number;
    rate?: number;
    shape?: number;
  };
  const positive = (v: number | undefined, field: string) => {
    if (!(typeof v === "number" && v > 0 && Number.isFinite(v))) {
      throw new RangeError(
        `prior of ${what}: ${p.family} ${field} must be positive, got ${v}`,
      );
    }
  };
  switch (p.family) {
    case "flat":
      return;
    case "exponential":
      return positive(p.rate, "rate");
    case "gamma":
      positive(p.shape, "shape");
      return positive(p.rate, "rate");
    case "inverse_gamma":
      positive(p.shape, "shape");
      break;
    case "student_t":
    case "half_t":
      positive(p.df, "df");
      break;
    case "normal":
    case "cauchy":
    case "laplace":
    case "half_normal":
    case "half_cauchy":
      break;
    default:
      throw new RangeError(`prior of ${what}: unknown family ${JSON.stringify(p.family)}`);
  }
  positive(p.scale, "scale");
  if (p.location !== undefined && !Number.isFinite(p.location)) {
    throw new RangeError(
      `prior of ${what}: ${p.family} location must be finite, got ${p.location}`,
    );
  }
}

/**
 * A prior as text, the form {@link parsePriorText} reads.
 *
 * @param prior The prior.
 * @returns E.g. `normal(0, 2.5)`.
 */
export function formatPrior(prior: AnyPrior): string {
  const g = (v: number) => Number(v.toPrecision(6)).toString();
  switch (prior.family) {
    case "flat":
      return "flat";
    case "normal":
    case "cauchy":
    case "laplace":
      return `${prior.family}(${g(prior.location ?? 0)}, ${g(prior.scale)})`;
    case "student_t":
      return `student_t(${g(prior.df)}, ${g(prior.location ?? 0)}, ${g(prior.scale)})`;
    case "half_normal":
    case "half_cauchy":
      return `${prior.family}(${g(prior.scale)})`;
    case "half_t":
      return `half_t(${g(prior.df)}, ${g(prior.scale)})`;
    case "exponential":
      return `exponential(${g(prior.rate)})`;
    case "inverse_gamma":
      return `inverse_gamma(${g(prior.shape)}, ${g(prior.scale)})`;
    case "gamma":
      return `gamma(${g(prior.shape)}, ${g(prior.rate)})`;
  }
}
