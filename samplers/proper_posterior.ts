/**
 * Improper posteriors and separated data, caught before sampling. A GLM
 * posterior with a flat prior on some coefficients has no finite scale when
 * the likelihood keeps increasing along a direction of those coefficients —
 * perfectly separated logistic data (Albert & Anderson 1984), a Poisson
 * column that is non-zero only where y = 0 — and a sampler then drifts
 * without bound (x1 = 8.2e14, and a summary that looks like a result).
 *
 * {@link checkGlmPosterior} runs {@link findUnboundedAscent} (a Newton MAP
 * search that reports divergence) on log π when some coefficient has a flat
 * prior — an unbounded direction is an error naming its columns and the
 * fix — and, for the logistic and binomial families, on the likelihood
 * alone, where an unbounded direction means separated data: the posterior
 * is proper under a proper prior but is set by that prior along the
 * separating columns, which deserves a warning.
 *
 * Cost: each Newton iteration is a Hessian pass and one or more gradient
 * passes. Both searches first run on the first 2,000 rows, then 20,000, …:
 * rows only add constraints, so a search that converges on some rows
 * converges on all; the full data are searched only when none does, and a
 * stage whose Hessian pass would exceed 2e10 rows × d² is not run. Families
 * whose log-likelihood is not concave in θ (gaussian-scale, student-t,
 * negative-binomial) and models with more than 300 parameters are not
 * checked.
 *
 * References: Albert & Anderson (1984), "On the existence of maximum
 * likelihood estimates in logistic regression models"; Gelman et al.
 * (2008), §1 (separation and weakly informative priors).
 *
 * @module
 */
import { glmDataRows } from "../data/dataset.ts";
import { asInMemoryGlm, GlmModel, LOG_CONCAVE_GLM_FAMILIES } from "../models/glm.ts";
import type { Model } from "../models/model.ts";
import { Prior, withPrior } from "../models/priors.ts";
import { findUnboundedAscent } from "./unbounded_ascent.ts";

/** What {@link checkGlmPosterior} found. */
export interface PosteriorCheck {
  /** A sentence for an improper posterior (an unbounded direction under flat priors), else null. */
  readonly error: string | null;
  /** Sentences for separated data under a proper prior. */
  readonly warnings: readonly string[];
  /** The parameters along the unbounded direction (of the error, or of the separation). */
  readonly columns: readonly string[];
}

/** Options of {@link checkGlmPosterior}. */
export interface CheckGlmPosteriorOptions {
  /** Also search the likelihood alone for separation (logistic and binomial; default true). */
  separation?: boolean;
  /** Rows of the first, cheap search (default 2000). */
  subsetRows?: number;
  /** Skip models with more parameters than this (default 300). */
  maxDim?: number;
  /** How the fix is phrased: `"api"` (default, PriorSpec words) or `"cli"` (`--prior` flags). */
  wording?: "api" | "cli";
}

/**
 * Check a GLM posterior for an unbounded direction (an error) and, for
 * logistic and binomial models, the data for separation (a warning). Other
 * models (not a {@link GlmModel}, or a family outside logistic, binomial,
 * Poisson and Gaussian with known σ) pass unchecked. The model's cost
 * counter is left as it was.
 *
 * @param model The model (a GlmModel, with or without `withPrior`).
 * @param options What to check and how to phrase it.
 * @returns The error (or null), the warnings and the columns involved.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { checkGlmPosterior } from "./proper_posterior.ts";
 * const x = [-2, -1, -0.5, 0.5, 1, 2], y = [0, 0, 0, 1, 1, 1];
 * const data = glmDataFromArrays(loadCore({ backend: "reference" }), x, y, { numCols: 1, columnNames: ["x1"] });
 * const flat = checkGlmPosterior(new GlmModel(data, { family: "logistic", priorScale: Infinity }));
 * assert.match(flat.error!, /separated.*x1/);
 * const proper = checkGlmPosterior(new GlmModel(data, { family: "logistic", priorScale: 2.5 }));
 * assert.equal(proper.error, null);
 * assert.match(proper.warnings[0], /separated.*x1/);
 * ```
 */
export function checkGlmPosterior(
  model: Model,
  options: CheckGlmPosteriorOptions = {},
): PosteriorCheck {
  const none: PosteriorCheck = { error: null, warnings: [], columns: [] };
  const inMemory = asInMemoryGlm(model);
  if (inMemory === null || !LOG_CONCAVE_GLM_FAMILIES.includes(inMemory.family)) return none;
  if (model.dim > (options.maxDim ?? 300)) return none;
  const glm = inMemory as GlmModel & { prior?: unknown };
  const prior = glm.prior instanceof Prior ? glm.prior : null;
  const names = model.parameterNames;
  const flat = names.filter((_, j) =>
    prior !== null ? prior.parameters[j].prior.family === "flat" : glm.priorPrecision[j] === 0
  );
  const saved = { ...glm.cost };
  try {
    const m = Math.min(glm.numRows, options.subsetRows ?? 2000);
    const logistic = glm.family === "logistic" || glm.family === "binomial";
    if (flat.length > 0) {
      const dir = _unboundedDirection(glm, prior, m, true);
      if (dir !== null) {
        const cols = _columnsOf(dir.direction, names);
        return {
          error: _improperMessage(
            cols,
            dir.kind === "flat" ? "flat" : logistic,
            flat,
            options.wording ?? "api",
          ),
          warnings: [],
          columns: cols.map((c) => c.name),
        };
      }
    }
    if (logistic && (options.separation ?? true)) {
      const dir = _unboundedDirection(glm, prior, m, false);
      if (dir !== null) {
        const cols = _columnsOf(dir.direction, names);
        return {
          error: null,
          warnings: [_separationWarning(cols)],
          columns: cols.map((c) => c.name),
        };
      }
    }
    return none;
  } finally {
    Object.assign(glm.cost, saved);
  }
}

/**
 * Refuse an improper GLM posterior (an unbounded direction under flat
 * coefficient priors) before a run starts. Does nothing — and costs nothing —
 * unless `model` is a {@link GlmModel} with a flat prior on some coefficient.
 *
 * @param model The model to sample.
 * @param where Who runs it, for the message (`"sample()"`).
 * @throws {RangeError} Naming the columns along the unbounded direction and the fix.
 */
export function assertProperPosterior(model: Model, where: string): void {
  const inMemory = asInMemoryGlm(model);
  if (inMemory === null) return;
  const glm = inMemory as GlmModel & { prior?: unknown };
  const hasFlat = glm.prior instanceof Prior
    ? glm.prior.parameters.some((p) => p.prior.family === "flat" && p.kind !== "log-scale")
    : glm.priorPrecision.some((v) => v === 0);
  if (!hasFlat) return;
  const r = checkGlmPosterior(model, { separation: false });
  if (r.error !== null) throw new RangeError(`${where}: ${r.error}`);
}

/** The drift direction of log π (or of the likelihood alone), from the first m rows, then all. */
function _unboundedDirection(
  model: GlmModel,
  prior: Prior | null,
  m: number,
  withPriorTerm: boolean,
): { kind: "unbounded" | "flat"; direction: Float64Array } | null {
  const search = (target: GlmModel) => {
    const P = target.dim, h2 = new Float64Array(P * P);
    const fn = (theta: Float64Array, grad: Float64Array) => {
      if (withPriorTerm) return target.logDensityAndGradient(theta, grad);
      return target.logLikelihood(theta, grad);
    };
    const hessianFn = (theta: Float64Array, out: Float64Array) => {
      target.logLikelihoodHessian(theta, out);
      if (!withPriorTerm) return;
      target.logPriorHessian(theta, h2);
      for (let k = 0; k < P * P; k++) out[k] += h2[k];
    };
    return findUnboundedAscent(fn, new Float64Array(P), { hessianFn });
  };
  // The first m rows, then 10 m, …: a search that converges on some rows converges on all.
  for (let rows = m; rows < model.numRows; rows *= 10) {
    if (rows * model.dim * model.dim > _MAX_HESSIAN_WORK) return null;
    const sub = _firstRows(model, prior, rows);
    try {
      if (search(sub).kind === "converged") return null;
    } finally {
      sub.dispose();
    }
  }
  if (model.numRows * model.dim * model.dim > _MAX_HESSIAN_WORK) return null;
  const r = search(model);
  return r.kind === "unbounded" || (r.kind === "flat" && withPriorTerm)
    ? { kind: r.kind, direction: r.direction! }
    : null;
}

/** Most rows × d² of one Hessian pass the check spends (beyond it the check is skipped). */
const _MAX_HESSIAN_WORK = 2e10;

/** The model over its first m rows, with the same options and prior. */
function _firstRows(model: GlmModel, prior: Prior | null, m: number): GlmModel {
  const o = { ...model.options };
  if (o.offset !== undefined) o.offset = Array.from(o.offset).slice(0, m);
  if (o.trials !== undefined) o.trials = Array.from(o.trials).slice(0, m);
  const sub = new GlmModel(glmDataRows(model.data, 0, m), o);
  return prior === null ? sub : withPrior(sub, prior);
}

interface _Column {
  name: string;
  weight: number;
}

/** The parameters that carry the direction (|vⱼ| ≥ 0.1 max), largest first. */
function _columnsOf(v: Float64Array, names: readonly string[]): _Column[] {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  return names
    .map((name, j) => ({ name, weight: v[j] / max }))
    .filter((c) => Math.abs(c.weight) >= 0.1)
    .sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight));
}

function _describe(cols: _Column[]): string {
  if (cols.length === 1) return `${cols[0].name} → ${cols[0].weight > 0 ? "+" : "−"}∞`;
  return `the direction ${
    cols.map((c) => `${c.weight >= 0 ? "+" : "−"}${Math.abs(c.weight).toFixed(2)}·${c.name}`)
      .join(" ")
  } (each coefficient in proportion, → ∞)`;
}

function _improperMessage(
  cols: _Column[],
  logistic: boolean | "flat",
  flat: readonly string[],
  wording: "api" | "cli",
): string {
  const list = cols.map((c) => c.name).join(", ");
  const cause = logistic === "flat"
    ? `the likelihood is constant along ${
      _describe(cols).replace(" (each coefficient in proportion, → ∞)", "")
    }: ${list} are collinear (a linear combination of them is constant, or one column ` +
      `repeats another), so the data cannot tell their coefficients apart`
    : logistic
    ? `the data are separated (completely or quasi-completely) by ${list}: the likelihood keeps increasing along ${
      _describe(cols)
    } and never reaches a maximum`
    : `the likelihood keeps increasing along ${_describe(cols)} (an unbounded direction: ` +
      `e.g. a column that is non-zero only in rows with y = 0) and never reaches a maximum`;
  const flats = cols.filter((c) => flat.includes(c.name)).map((c) => c.name);
  const fix = wording === "cli"
    ? `give ${flats.length > 0 ? flats.join(", ") : "these coefficients"} a proper prior, ` +
      `e.g. --prior "normal(0, 2.5)" or --prior "${flats[0] ?? cols[0].name}=normal(0, 2.5)" ` +
      `(instead of "flat")`
    : `give ${
      flats.length > 0 ? flats.join(", ") : "these coefficients"
    } a proper prior (e.g. normal(0, 2.5) instead of flat, or a finite priorScale)`;
  return `the posterior is improper: ${cause}, and ${
    flats.length > 0 ? flats.join(", ") : "the coefficients along it"
  } ${
    flats.length === 1 ? "has" : "have"
  } a flat prior, so the draws would drift without bound; ${fix}`;
}

function _separationWarning(cols: _Column[]): string {
  const list = cols.map((c) => c.name).join(", ");
  return `the data are separated (completely or quasi-completely) by ${list}: the likelihood alone keeps increasing ` +
    `along ${_describe(cols)}, so the posterior of ${list} is set by the prior in that ` +
    `direction, not by the data (check whether ${
      cols.length === 1 ? "this column encodes" : "these columns encode"
    } the response; the estimates and intervals there reflect the prior's scale)`;
}
