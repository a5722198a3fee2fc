/**
 * The help text of the model and family flags, inserted in the `--help` of
 * the commands that build a model (`sample`, `check`, `compare`).
 *
 * @module
 */

/**
 * The help lines of the model flags (inserted in `sample --help`).
 *
 * @returns Lines of text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelFlagsHelp } from "./model_help.ts";
 * assert.ok(modelFlagsHelp().some((l) => l.includes("normal(0, 2.5)")));
 * ```
 */
export function modelFlagsHelp(): string[] {
  return [
    "",
    "Model (formula, categorical columns, priors):",
    "  --delimiter D       the field delimiter of --data: , ; | or tab (default: detected",
    "                      from the header line among these four). --data - reads standard",
    "                      input; a FIFO is read once, as a stream",
    '  --formula F         R-style formula, e.g. "y ~ x1 + x2 + x1:x2 + region"; replaces',
    "                      --response, --columns and --no-intercept. Intercept by default",
    '                      ("- 1" or "0 +" removes it); a:b interaction; a*b = a + b + a:b.',
    "                      A text column becomes 0/1 columns named region[south], …, against",
    "                      the first level in sorted order (the reference, as R).",
    "  --standardize       centre and scale every column but the intercept (needs --formula)",
    '  --prior P           prior of every coefficient, e.g. "normal(0, 2.5)", "student_t(3, 0, 2.5)",',
    '                      "cauchy(0, 2.5)", "laplace(0, 1)", "flat"; or NAME=P for one',
    '                      coefficient or term ("region=normal(0, 1)" covers region[…]); or',
    '                      sigma=P for a scale: "half_normal(1)", "half_t(3, 1)",',
    '                      "half_cauchy(1)", "exponential(1)", "inverse_gamma(2, 1)",',
    '                      "flat" (sigma=P for log_sigma, phi=P for log_phi); nu=gamma(A, B)',
    "                      for the sampled ν of --nu sample (default gamma(2, 0.1)). Repeatable.",
    "  --prior-intercept P prior of the intercept",
    '  --prior-file FILE   JSON: {"coefficients": P, "intercept": P, "terms": {NAME: P},',
    '                      "scales": {NAME: P}} with P as text or {"family": …, "scale": …}',
    "  Defaults with --formula or a --prior flag (rstanarm's, weakly informative on",
    "  standardised predictors): coefficient j ~ normal(0, 2.5/sd(xⱼ)) (× sd(y) for",
    "  gaussian and student-t), i.e. normal(0, 2.5) with --standardize; intercept ~",
    "  normal(0, 10) (gaussian, student-t: normal(mean(y), 10·sd(y))); σ ~",
    "  exponential(1/sd(y)); φ ~ exponential(1). Otherwise every coefficient ~ normal(0, S²),",
    "  S = --prior-scale (default 10), and σ or φ ~ half_normal(10).",
  ];
}

/**
 * The help lines of the family flags (inserted in `sample --help`).
 *
 * @returns Lines of text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { familyFlagsHelp } from "./model_help.ts";
 * assert.ok(familyFlagsHelp().some((l) => l.includes("gaussian-scale")));
 * ```
 */
export function familyFlagsHelp(): string[] {
  return [
    "",
    "Families (parameters after the coefficients are sampled on the log scale):",
    "  logistic            0/1 response, or text with exactly two levels: the level that",
    "                      sorts second is 1 (no → 0, yes → 1) unless --success LEVEL",
    "  gaussian            with --sigma S: σ known; without --sigma: σ unknown, sampled as",
    '                      log_sigma (the "gaussian-scale" family)',
    "  student-t           --nu V (required): fixed degrees of freedom V > 0, or --nu sample",
    "                      (ν > 1 sampled as log_nu_minus_1, Gamma(2, 0.1) prior); σ as log_sigma",
    "  poisson             counts; --offset COL adds a log-exposure column to η",
    "  negative-binomial   counts, NB2 (Var = μ + μ²/φ), φ sampled as log_phi; --offset COL",
    "  binomial            --trials COL (required): successes y out of COL trials (integers ≥ 1, ≥ y)",
    "  --sigma S           known residual sd of --family gaussian",
    "  --nu V|sample       degrees of freedom of --family student-t",
    "  --offset COL        column of per-row offsets (finite; not a covariate)",
    "  --trials COL        column of per-row trials (not a covariate)",
    "  --success LEVEL     the level of a two-level text response coded 1",
    "  --prior-scale S     every coefficient ~ normal(0, S²) (default 10; not with --prior)",
    '  --prior-aux P       the prior of σ or φ: "half_normal(1)", "half_t(3, 1)",',
    '                      "half_cauchy(1)", "exponential(1)", "inverse_gamma(2, 1)" (on σ²),',
    '                      "flat" (default half_normal(10); with --formula or a --prior flag',
    "                      σ ~ exponential(1/sd(y)), φ ~ exponential(1))",
  ];
}
