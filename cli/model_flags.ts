/**
 * The model and family flags of `tallmc sample` (and `check`, `compare`):
 * their `parseFlags` specs, the checks made before any data are read, and
 * the family settings they state ({@link familyFromFlags}). Their help text
 * is in ./model_help.ts, the priors they state in ./prior_flags.ts, the
 * model they build in ./model_options.ts. No Node or Deno imports: the web
 * page builds its models with this code too.
 *
 * @module
 */
import { parseFormula } from "../data/formula.ts";
import type { GlmModelFamily } from "../models/glm.ts";
import { parsePriorText } from "../models/prior_text.ts";
import type { ScalePrior } from "../models/priors.ts";
import type { FlagSpec } from "./args.ts";
import { CliUsageError, positiveFlag } from "./usage.ts";

/** The families `sample --family` takes (gaussian without --sigma is "gaussian-scale"). */
export const CLI_FAMILIES: readonly string[] = [
  "logistic",
  "gaussian",
  "poisson",
  "student-t",
  "negative-binomial",
  "binomial",
];

/** The family's own flags, for `parseFlags` (`--family`, `--sigma` and `--prior-scale` are common). */
export const FAMILY_OPTION_FLAGS: FlagSpec = {
  "prior-aux": { type: "string" },
  nu: { type: "string" },
  offset: { type: "string" },
  trials: { type: "string" },
  success: { type: "string" },
};

/**
 * The flags that name the data and the GLM, for `parseFlags`: the same in
 * every command that builds a model from a file (`sample`, `check`).
 */
export const GLM_DATA_FLAGS: FlagSpec = {
  family: { type: "string" },
  data: { type: "string" },
  response: { type: "string" },
  sigma: { type: "string" },
  "prior-scale": { type: "string" },
  columns: { type: "string" },
  "no-intercept": { type: "boolean" },
};

/** The model flags, for `parseFlags`. */
export const MODEL_FLAGS: FlagSpec = {
  delimiter: { type: "string" },
  formula: { type: "string" },
  standardize: { type: "boolean" },
  prior: { type: "string", multiple: true },
  "prior-intercept": { type: "string" },
  "prior-file": { type: "string" },
};

/** Whether any model flag was given (otherwise `sample` builds its model as before). */
export function hasModelFlags(values: Record<string, unknown>): boolean {
  return Object.keys(MODEL_FLAGS).some((k) =>
    k !== "delimiter" && values[k] !== undefined && values[k] !== false
  );
}

/**
 * The `--delimiter` value (undefined: detect it): one character, or `tab`.
 *
 * @param values Parsed flag values.
 * @returns The delimiter, or undefined.
 * @throws {CliUsageError} Naming the flag and the value.
 */
export function delimiterFromFlags(values: Record<string, unknown>): string | undefined {
  const v = values.delimiter;
  if (v === undefined) return undefined;
  const d = v === "tab" || v === "\\t" ? "\t" : v;
  if (typeof d !== "string" || d.length !== 1 || /["\r\n]/.test(d)) {
    throw new CliUsageError(
      `--delimiter must be one character (e.g. "," ";" "|") or tab, got ${JSON.stringify(v)}`,
    );
  }
  return d;
}

/**
 * Check the model flags against the others (before any data are read).
 *
 * @param values Parsed flag values.
 * @throws {CliUsageError} For flags that contradict each other.
 */
export function checkModelFlags(values: Record<string, unknown>): void {
  delimiterFromFlags(values);
  if (values.formula !== undefined) {
    try {
      parseFormula(values.formula as string);
    } catch (e) {
      throw new CliUsageError(`--formula: ${(e as Error).message}`);
    }
    for (const f of ["response", "columns", "no-intercept"]) {
      if (values[f] !== undefined && values[f] !== false) {
        throw new CliUsageError(
          `--${f} cannot be combined with --formula (the formula names the response, the columns and the intercept)`,
        );
      }
    }
  } else if (values.standardize) {
    throw new CliUsageError("--standardize needs --formula");
  }
  if (values["prior-intercept"] !== undefined && values["no-intercept"]) {
    throw new CliUsageError(
      `--prior-intercept ${
        JSON.stringify(values["prior-intercept"])
      } cannot be combined with --no-intercept (the model has no intercept)`,
    );
  }
  const scalePriors = ((values.prior as string[] | undefined) ?? [])
    .filter((p) => SCALE_PRIOR_NAMES.includes(p.slice(0, Math.max(p.indexOf("="), 0)).trim()));
  if (values["prior-aux"] !== undefined && scalePriors.length > 0) {
    throw new CliUsageError(
      `--prior-aux ${JSON.stringify(values["prior-aux"])} and --prior ${
        JSON.stringify(scalePriors[0])
      } both set the prior of σ or φ; give one`,
    );
  }
  if (
    values["prior-scale"] !== undefined &&
    (values.prior !== undefined || values["prior-file"] !== undefined)
  ) {
    throw new CliUsageError(
      "--prior-scale cannot be combined with --prior or --prior-file " +
        "(it is the coefficients' sd); give the coefficients' prior with --prior \"normal(0, S)\"",
    );
  }
}

/**
 * The value of `--nu`: a positive finite number (ν fixed), or `sample`
 * (ν > 1 sampled as log_nu_minus_1 with a Gamma(2, 0.1) prior).
 *
 * @param value The text typed, or undefined.
 * @returns ν.
 * @throws {CliUsageError} Naming `--nu` and the value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nuFlag } from "./model_flags.ts";
 * assert.equal(nuFlag("4"), 4);
 * assert.equal(nuFlag("sample"), "sample");
 * assert.throws(() => nuFlag(undefined), /--family student-t needs --nu/);
 * assert.throws(() => nuFlag("0"), /--nu must be a positive number, got "0"/);
 * ```
 */
export function nuFlag(value: string | boolean | undefined): number | "sample" {
  if (value === undefined) {
    throw new CliUsageError(
      "--family student-t needs --nu (its degrees of freedom: a positive number, e.g. --nu 4, " +
        "or sample)",
    );
  }
  if (typeof value === "string" && value.trim() === "sample") return "sample";
  return positiveFlag(value, "nu")!;
}

/** What the family flags state. */
export interface FamilyChoice {
  /** The family as `GlmModel` takes it (`gaussian` without `--sigma` is `gaussian-scale`). */
  readonly family: GlmModelFamily;
  /** `--sigma`. */
  readonly sigma?: number;
  /** `--nu`. */
  readonly nu?: number | "sample";
  /** `--offset` (a column name). */
  readonly offset?: string;
  /** `--trials` (a column name). */
  readonly trials?: string;
  /** `--success` (a level). */
  readonly success?: string;
  /** The prior sd of every coefficient (`--prior-scale`; default 10). */
  readonly priorScale: number;
  /** The prior of σ or φ (`--prior-aux`). */
  readonly scalePrior?: ScalePrior;
}

/** The families with a sampled scale (σ, or φ for negative-binomial). */
export const SCALED_FAMILIES = ["gaussian-scale", "student-t", "negative-binomial"];

/**
 * Read and check the family flags (before any data are read).
 *
 * @param values Parsed flag values.
 * @returns The family and its settings.
 * @throws {CliUsageError} Naming the flag and the value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { familyFromFlags } from "./model_flags.ts";
 * assert.equal(familyFromFlags({ family: "gaussian" }).family, "gaussian-scale");
 * assert.deepEqual(familyFromFlags({ family: "negative-binomial", "prior-aux": "half_cauchy(2)" }).scalePrior,
 *   { family: "half_cauchy", scale: 2 });
 * assert.throws(() => familyFromFlags({ family: "binomial" }), /--family binomial needs --trials/);
 * ```
 */
export function familyFromFlags(values: Record<string, unknown>): FamilyChoice {
  const name = values.family as string;
  if (!CLI_FAMILIES.includes(name)) {
    throw new CliUsageError(
      `--family must be one of ${CLI_FAMILIES.join(", ")}, got ${JSON.stringify(name)}`,
    );
  }
  const sigma = positiveFlag(values.sigma as string | undefined, "sigma");
  if (name !== "gaussian" && sigma !== undefined) {
    throw new CliUsageError(`--sigma applies to --family gaussian only, got --family ${name}`);
  }
  const family: GlmModelFamily = name === "gaussian" && sigma === undefined
    ? "gaussian-scale"
    : name as GlmModelFamily;
  const only = (flag: string, families: string[]) => {
    const v = values[flag];
    if (v !== undefined && !families.includes(name)) {
      throw new CliUsageError(
        `--${flag} applies to --family ${families.join(" or ")}, got --family ${name} (--${flag} ${
          JSON.stringify(v)
        })`,
      );
    }
    if (v !== undefined && (typeof v !== "string" || v.trim() === "")) {
      throw new CliUsageError(`--${flag} needs a value, got ${JSON.stringify(v)}`);
    }
    return v as string | undefined;
  };
  const nuRaw = only("nu", ["student-t"]);
  const nu = name === "student-t" ? nuFlag(nuRaw) : undefined;
  const offset = only("offset", ["poisson", "negative-binomial"])?.trim();
  const trials = only("trials", ["binomial"])?.trim();
  if (name === "binomial" && trials === undefined) {
    throw new CliUsageError(
      "--family binomial needs --trials COL (the column of the number of trials per row)",
    );
  }
  const success = only("success", ["logistic"]);
  let priorScale = 10, scalePrior: ScalePrior | undefined;
  const ps = values["prior-scale"] as string | undefined;
  if (ps !== undefined) {
    if (!/^\s*[-+0-9.]/.test(ps) && ps.trim() !== "") {
      throw new CliUsageError(
        `--prior-scale takes a number (the prior sd of every coefficient), got ${
          JSON.stringify(ps)
        }; the prior of σ or φ goes in --prior-aux`,
      );
    }
    priorScale = positiveFlag(ps, "prior-scale")!;
  }
  const pa = values["prior-aux"] as string | undefined;
  if (pa !== undefined) {
    let p;
    try {
      p = parsePriorText(pa, SCALED_FAMILIES.includes(family) ? familyScaleName(family) : "σ or φ");
    } catch (e) {
      throw new CliUsageError(
        `--prior-aux ${JSON.stringify(pa)}: ${(e as Error).message}` +
          "; --prior-aux takes a prior of σ or φ " +
          "(half_normal, half_t, half_cauchy, exponential, inverse_gamma, flat)",
      );
    }
    if (!SCALE_PRIOR_FAMILIES.includes(p.family)) {
      throw new CliUsageError(
        `--prior-aux ${
          JSON.stringify(pa)
        }: a prior of σ or φ must be half_normal, half_t, half_cauchy, exponential, inverse_gamma or flat, got ${p.family} (coefficient priors go in --prior)`,
      );
    }
    if (!SCALED_FAMILIES.includes(family)) {
      throw new CliUsageError(
        `--prior-aux ${JSON.stringify(pa)} is a prior of σ or φ, but --family ${name}${
          name === "gaussian" ? " with --sigma" : ""
        } has neither`,
      );
    }
    scalePrior = p as ScalePrior;
  }
  return { family, sigma, nu, offset, trials, success, priorScale, scalePrior };
}

/** The names `--prior NAME=P` takes for the scales. */
export const SCALE_PRIOR_NAMES = ["sigma", "phi"];

/** The prior families a scale (σ or φ) takes. */
export const SCALE_PRIOR_FAMILIES = [
  "half_normal",
  "half_t",
  "half_cauchy",
  "exponential",
  "inverse_gamma",
  "flat",
];

/** "sigma" or "phi": the name of the family's scale in prior specs. */
export function familyScaleName(family: GlmModelFamily): string {
  return family === "negative-binomial" ? "phi" : "sigma";
}
