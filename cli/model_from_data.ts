/**
 * The model the flags describe over data already read: the GLM with the
 * family's settings (`--family`, `--sigma`, `--nu`, `--prior-scale`, offset
 * and trials), the default priors of a formula's design, the priors the
 * `--prior*` flags state on top, and the posterior's propriety check.
 * `sample`, `check` and `compare` reach it through ./model_options.ts after
 * loading `--data`; the web page calls {@link modelFromFormulaData} on its
 * own table, so that the same flags and seed give the same draws.
 *
 * @module
 */
import type { GlmData } from "../data/dataset.ts";
import type { FormulaData } from "../data/design.ts";
import { GlmModel, type GlmOptions } from "../models/glm.ts";
import { withCheckedResponses } from "../models/glm_options.ts";
import { buildPrior, defaultPriorSpec } from "../models/prior_build.ts";
import type { CoefficientPrior, PriorSpec } from "../models/priors.ts";
import { withPrior } from "../models/with_prior.ts";
import { checkGlmPosterior } from "../samplers/proper_posterior.ts";
import { CliUsageError } from "./usage.ts";
import {
  checkModelFlags,
  type FamilyChoice,
  familyFromFlags,
  familyScaleName,
  hasModelFlags,
  SCALED_FAMILIES,
} from "./model_flags.ts";
import { priorSpecFromFlags } from "./prior_flags.ts";

/**
 * Default priors of a formula's design, and a note on how a text response was coded.
 *
 * @param fd The data with its design.
 * @param choice The family choice.
 * @param withPriors Whether the flags state priors (else no defaults are made).
 * @param defaultsFamily The family whose defaults apply (default: the
 *   choice's; null: a family without σ, as a family written in AssemblyScript).
 * @returns The default prior spec (undefined without priors) and the notes.
 */
export function describeDesign(
  fd: FormulaData,
  choice: FamilyChoice,
  withPriors: boolean,
  defaultsFamily: string | null = priorFamily(choice),
): { defaults: PriorSpec | undefined; notes: string[] } {
  const d = fd.design, columnSd: Record<string, number> = {};
  d.columnNames.forEach((n, j) => (columnSd[n] = d.columnSd[j] / d.scale[j]));
  const defaults = withPriors
    ? defaultPriorSpec(d.columnNames, {
      ...(defaultsFamily === null ? {} : { family: defaultsFamily }),
      columnSd,
      responseMean: d.responseMean,
      responseSd: d.responseSd,
    })
    : undefined;
  const notes: string[] = [];
  if (d.responseCoding !== null) {
    const c = d.responseCoding, other = c.levels.find((l) => l !== c.success)!;
    notes.push(
      `--response ${JSON.stringify(d.formula.response)} is text with levels ${
        c.levels.map((l) => JSON.stringify(l)).join(", ")
      }: ${JSON.stringify(c.success)} is coded 1, ${JSON.stringify(other)} 0 (${
        choice.success === undefined
          ? "the level that sorts second is 1; --success LEVEL chooses"
          : "--success"
      })`,
    );
  }
  return { defaults, notes };
}

/**
 * The family whose default priors apply ("gaussian" for the families with σ).
 *
 * @param choice The family choice.
 * @returns The family name `defaultPriorSpec` takes.
 */
export function priorFamily(choice: FamilyChoice): string {
  return SCALED_FAMILIES.includes(choice.family) && choice.family !== "negative-binomial"
    ? "gaussian"
    : choice.family;
}

/** What {@link modelFromFormulaData} built. */
export interface ModelFromDesign {
  /** The model with the prior in force. */
  readonly model: GlmModel;
  /** The GLM itself (its data, family, offset and trials; for predictive checks). */
  readonly glm: GlmModel;
  /** The prior in force, in words (null: the GlmModel's own N(0, S²) prior). */
  readonly priorLines: readonly string[] | null;
  /** Notes (how a text response was coded). */
  readonly notes: readonly string[];
  /** Warnings of the posterior check (separated data under a proper prior). */
  readonly posteriorWarnings: readonly string[];
}

/**
 * Build the model the flags describe over data already read through a
 * formula (`FormulaData`, e.g. from `parseCsvWithFormula` or a page's own
 * table), exactly as `sample` does after reading `--data`: the same family
 * settings, prior defaults and prior flags, so the same seed gives the same
 * draws. For callers without a file system (the web page).
 *
 * @param fd The data with its design.
 * @param values The flags' values (`family`, `sigma`, `nu`, `prior`, `prior-intercept`,
 *   `prior-aux`, `prior-scale`, `formula`, …) as `parseFlags` gives them.
 * @returns The model, the GLM, the prior in words, notes and warnings.
 * @throws {CliUsageError} Naming the flag, for bad family and prior flags.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { parseCsvWithFormula } from "../data/formula_csv.ts";
 * import { modelFromFormulaData } from "./model_from_data.ts";
 * const d = parseCsvWithFormula("y,g\n1,a\n0,b\n1,b\n0,a\n", { formula: "y ~ g", family: "logistic" });
 * const data = glmDataFromArrays(loadCore(), d.x, d.y, { numCols: d.numCols, columnNames: d.columnNames });
 * const { x: _x, y: _y, numRows: _n, numCols: _p, ...design } = d;
 * const built = await modelFromFormulaData({ ...data, design }, { family: "logistic", formula: "y ~ g" });
 * assert.deepEqual(built.model.parameterNames, ["(Intercept)", "g[b]"]);
 * assert.ok(built.priorLines!.some((l) => l.includes("normal")));
 * ```
 */
export async function modelFromFormulaData(
  fd: FormulaData,
  values: Record<string, unknown>,
): Promise<ModelFromDesign> {
  checkModelFlags(values);
  const choice = familyFromFlags(values);
  const { withPriors, spec } = await priorsOfFlags(values, choice);
  const { defaults, notes } = describeDesign(fd, choice, withPriors);
  const built = finishModel(fd, values, choice, {
    spec,
    withPriors,
    defaults,
    offset: fd.design.offset,
    trials: fd.design.trials,
  });
  return { ...built, notes };
}

/**
 * The prior spec the flags give, with `--prior-aux` and `--prior-scale` folded in.
 *
 * @param values The flags' values.
 * @param choice The family choice.
 * @param resolvePath How to resolve `--prior-file`.
 * @returns Whether the flags state priors, and the spec.
 */
export async function priorsOfFlags(
  values: Record<string, unknown>,
  choice: FamilyChoice,
  resolvePath?: (path: string) => string,
): Promise<{ withPriors: boolean; spec: PriorSpec }> {
  const withPriors = hasModelFlags(values);
  const spec = withPriors ? await priorSpecFromFlags(values, resolvePath) : {};
  if (withPriors && choice.scalePrior !== undefined) {
    spec.scales = { ...spec.scales, [familyScaleName(choice.family)]: choice.scalePrior };
  }
  if (withPriors && values["prior-scale"] !== undefined) {
    // --prior-scale S with --formula or --prior-intercept: every coefficient
    // (and the intercept, unless --prior-intercept gives it) ~ normal(0, S), as without them.
    const s: CoefficientPrior = { family: "normal", location: 0, scale: choice.priorScale };
    spec.coefficients = s;
    spec.intercept ??= s;
  }
  return { withPriors, spec };
}

/**
 * The GLM over `data` with the family's settings, and the flags' prior on
 * top; an improper posterior is refused, separated data under a proper prior
 * warned about.
 *
 * @param data The data set.
 * @param values The flags' values (which prior flag to name in an error).
 * @param choice The family choice.
 * @param p The prior spec, whether the flags state priors, the defaults, offset and trials.
 * @returns The model, the GLM, the prior in words and the posterior check's warnings.
 * @throws {CliUsageError} Naming the prior flag, or for an improper posterior.
 */
export function finishModel(
  data: GlmData,
  values: Record<string, unknown>,
  choice: FamilyChoice,
  p: {
    spec: PriorSpec;
    withPriors: boolean;
    defaults: PriorSpec | undefined;
    offset: Float64Array | null;
    trials: Float64Array | null;
    /** The loader checked y as the model would (its pass over y is skipped). */
    responsesChecked?: boolean;
  },
): Omit<ModelFromDesign, "notes"> {
  const { spec, withPriors, defaults, offset, trials } = p;
  const options: GlmOptions = { family: choice.family };
  if (choice.sigma !== undefined) options.sigma = choice.sigma;
  if (choice.nu !== undefined) options.nu = choice.nu;
  if (offset !== null) options.offset = offset;
  if (trials !== null) options.trials = trials;
  if (!withPriors) {
    options.priorScale = choice.priorScale;
    if (choice.scalePrior !== undefined) options.scalePrior = choice.scalePrior;
  }
  const glm = p.responsesChecked
    ? withCheckedResponses(() => new GlmModel(data, options))
    : new GlmModel(data, options);
  if (!withPriors) {
    return { model: glm, glm, priorLines: null, posteriorWarnings: _checkPosterior(glm) };
  }
  let prior;
  try {
    // The model's first numCols parameters are X's columns: a column named
    // log_x is a coefficient, not a scale sampled on the log scale (the name
    // rule buildPrior applies to parameters it is not told about).
    const kinds: Record<string, "coefficient"> = {};
    for (const name of glm.parameterNames.slice(0, glm.numCols)) {
      if (name !== "(Intercept)") kinds[name] = "coefficient";
    }
    prior = buildPrior(glm.parameterNames, spec, { defaults, kinds });
  } catch (e) {
    const msg = (e as Error).message;
    const flag = /prior of the intercept/.test(msg) && values["prior-intercept"] !== undefined
      ? "--prior-intercept"
      : /^prior of scale/.test(msg) && values["prior-aux"] !== undefined
      ? "--prior-aux"
      : values["prior-file"] !== undefined && values.prior === undefined
      ? "--prior-file"
      : "--prior";
    throw new CliUsageError(`${flag}: ${msg}`);
  }
  const withFlags = withPrior(glm, prior);
  return {
    model: withFlags,
    glm,
    priorLines: prior.describe(),
    posteriorWarnings: _checkPosterior(withFlags),
  };
}

/**
 * Refuse an improper posterior (an unbounded direction under flat priors:
 * exit 2, naming the columns and the fix) and warn about separated data
 * under a proper prior (returned, naming the columns).
 */
function _checkPosterior(model: GlmModel): readonly string[] {
  const r = checkGlmPosterior(model, { wording: "cli" });
  if (r.error !== null) throw new CliUsageError(r.error);
  return r.warnings;
}
