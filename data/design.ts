/**
 * Design matrices from a formula over a CSV file whose columns may be text:
 * the formula path beside the numeric streaming loader of `csv.ts`.
 *
 * ```
 *  CSV text ──papaparse──► column table (strings) ──formula──► X (n × p), y ──► arena
 *                            numeric or categorical per column
 * ```
 *
 * **Columns.** A number is a plain decimal, as in csv.ts (`0x10`, `0b11`,
 * `0o7` and `Infinity` are refused by column and line, `1_000` too when the
 * rest of the column is numeric). A column whose every cell is a number is numeric and enters
 * as itself. A column with no numeric cell is categorical: its levels are its
 * distinct values in sorted order (JavaScript's code-unit order, which is
 * R's for ASCII names in the C locale), and the **first level is the
 * reference**. A column that mixes numbers and text is refused with the
 * first offending cell named (numeric codes meant as categories must be
 * written as text, e.g. `r1`, `r2`). A text column with more than
 * {@link MAX_LEVELS} levels and more than half as many levels as rows is
 * refused as an identifier or free text. Empty cells in a column the formula uses
 * are refused; columns the formula does not name are never read.
 *
 * **Coding** (R's `model.matrix` rule): in a term, a categorical column is
 * coded by treatment contrasts — one 0/1 column per level but the reference
 * — when the term without it is in the model (the empty term being the
 * intercept); otherwise by one indicator per level. So `y ~ region` gives
 * `region[south]`, `region[west]` beside `(Intercept)`; `y ~ 0 + region`
 * gives all three levels; `y ~ x1 + x1:region` gives `x1:region[south]`,
 * `x1:region[west]`. Column names say what each coefficient is: `x1`,
 * `region[south]`, `x1:x2`, `x1:region[south]`.
 *
 * **A two-level text response** (logistic family): a response column whose
 * cells are text with exactly two distinct values (`yes`/`no`) is coded 0/1,
 * the level that sorts second (code-unit order, as the levels above) being 1
 * — `no` → 0, `yes` → 1 — unless `success` names the level coded 1;
 * `responseCoding` says what was done. More than two levels are refused with
 * the levels named.
 *
 * **Offset and trials columns** (`offset`, `trials`): read by name from the
 * same table beside the formula's columns, never entering X: an offset
 * (log exposure, "poisson" and "negative-binomial") must be finite in every
 * row; trials ("binomial") integers ≥ 1 and ≥ y.
 *
 * **Standardising** (`standardize: true`): every column but the intercept is
 * centred at its mean and divided by its sd (sample sd, n − 1), so that the
 * default priors (N(0, 2.5²), `models/priors.ts`) are on standardised
 * predictors; without an intercept the columns are only scaled (centring
 * would change the model). The coefficients are then per sd of the
 * predictor; `center` and `scale` give the transformation back.
 *
 * **Warnings** are csv.ts's, computed on X as it enters the model (after
 * standardising): a constant response, constant and extreme columns,
 * copies and linearly dependent sets of columns, fewer rows than columns. A
 * numeric column named like a draws-file column (`chain`, `sign`, …) is
 * renamed with the suffix `_x`, with a warning.
 *
 * The whole file is read into memory as text (the formula path is for data
 * that fit in memory twice; numeric data beyond that use `loadCsvToArena`).
 *
 * References: Chambers & Hastie (1992), "Statistical Models in S", §2.3
 * (coding factors in model matrices).
 *
 * **Files.** This module holds the types and re-exports the code:
 * data/formula_csv.ts (CSV text → column table, the CSV loaders),
 * data/design_columns.ts (reading and checking the formula's columns),
 * data/design_matrix.ts (`buildDesign`).
 *
 * @module
 */
import type { GlmData, Storage } from "./dataset.ts";
import type { Formula } from "./formula.ts";

export { MAX_LEVELS } from "./design_columns.ts";
export { buildDesign } from "./design_matrix.ts";
export { loadCsvWithFormula, parseColumnTable, parseCsvWithFormula } from "./formula_csv.ts";

/** A CSV file's cells by column, as text. */
export interface ColumnTable {
  /** Header names. */
  readonly names: readonly string[];
  /** Cells per column (trimmed), `columns[j][i]` = row i of column j. */
  readonly columns: readonly (readonly string[])[];
  /** Number of data rows. */
  readonly numRows: number;
  /** The 1-based line of each data row in the file, when known (for messages). */
  readonly lines?: Int32Array;
}

/** Options of {@link buildDesign}. */
export interface DesignOptions {
  /**
   * The GLM family, which fixes the response's domain (logistic: 0/1 or two
   * text levels; poisson, negative-binomial, binomial: counts).
   */
  family?: string;
  /** Centre and scale every column but the intercept (default false). */
  standardize?: boolean;
  /**
   * The level of a two-level text response coded 1 (logistic family).
   * Default: the level that sorts second.
   */
  success?: string;
  /** A column holding a per-row offset (log exposure), kept out of X. */
  offset?: string;
  /** A column holding the binomial number of trials per row, kept out of X. */
  trials?: string;
}

/** How a two-level text response was coded 0/1. */
export interface ResponseCoding {
  /** The two levels, sorted. */
  readonly levels: readonly [string, string];
  /** The level coded 1. */
  readonly success: string;
  /** The rule, in words (for a note to the user). */
  readonly rule: string;
}

/** What a design matrix's columns are. */
export interface DesignInfo {
  /** The formula. */
  readonly formula: Formula;
  /** Names of the columns of X, e.g. `(Intercept)`, `x1`, `region[south]`, `x1:x2`. */
  readonly columnNames: readonly string[];
  /** The levels of each categorical column the formula uses, sorted; the first is the reference. */
  readonly levels: Readonly<Record<string, readonly string[]>>;
  /** Mean of each column of X before standardising. */
  readonly columnMean: Float64Array;
  /** Sample sd of each column of X before standardising (0 for the intercept). */
  readonly columnSd: Float64Array;
  /** Whether X was standardised. */
  readonly standardized: boolean;
  /** What was subtracted from each column (all 0 when not standardised). */
  readonly center: Float64Array;
  /** What each column was divided by (all 1 when not standardised). */
  readonly scale: Float64Array;
  /** Mean of y. */
  readonly responseMean: number;
  /** Sample sd of y. */
  readonly responseSd: number;
  /** Problems that did not stop the build, one sentence each. */
  readonly warnings: readonly string[];
  /** How a text response was coded 0/1, or null for a numeric response. */
  readonly responseCoding: ResponseCoding | null;
  /** The offset column's values (option `offset`), or null. */
  readonly offset: Float64Array | null;
  /** The trials column's values (option `trials`), or null. */
  readonly trials: Float64Array | null;
}

/** A design matrix in plain arrays. */
export interface Design extends DesignInfo {
  /** Row-major numRows × numCols. */
  readonly x: Float64Array;
  /** Responses. */
  readonly y: Float64Array;
  /** n. */
  readonly numRows: number;
  /** p. */
  readonly numCols: number;
}

/** A data set in the arena built from a formula, with what its columns are. */
export type FormulaData = GlmData & { readonly design: DesignInfo };

/** Options of {@link loadCsvWithFormula}. */
export interface FormulaCsvOptions extends DesignOptions {
  /** The formula, e.g. `"y ~ x1 + x2 + x1:x2 + region"`. */
  formula: string | Formula;
  /** Field delimiter (default: detected from the header line among , tab ; |). */
  delimiter?: string;
  /** Storage of X in the arena (default "f64"). */
  storage?: Storage;
}

/**
 * Column means and sample sds of a data set in the arena (one pass over X
 * and y), for the default priors of data loaded without a formula.
 *
 * @param data The data set.
 * @returns Per-column mean and sd (0 for a constant column), and y's mean and sd.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "./dataset.ts";
 * import { columnMoments } from "./design.ts";
 * const data = glmDataFromArrays(loadCore(), [1, 1, 1, 3], [0, 2], { numCols: 2 });
 * const m = columnMoments(data);
 * assert.deepEqual(Array.from(m.columnSd), [0, Math.SQRT2]);
 * assert.equal(m.responseMean, 1);
 * ```
 */
export function columnMoments(data: GlmData): {
  columnMean: Float64Array;
  columnSd: Float64Array;
  responseMean: number;
  responseSd: number;
} {
  const n = data.numRows, p = data.numCols;
  const x = data.storage === "f64" ? data.arena.f64(data.x, n * p) : data.arena.f32(data.x, n * p);
  const y = data.arena.f64(data.y, n);
  const columnMean = new Float64Array(p), columnSd = new Float64Array(p);
  for (let i = 0; i < n; i++) for (let j = 0; j < p; j++) columnMean[j] += x[i * p + j];
  for (let j = 0; j < p; j++) columnMean[j] /= n;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) columnSd[j] += (x[i * p + j] - columnMean[j]) ** 2;
  }
  for (let j = 0; j < p; j++) columnSd[j] = n > 1 ? Math.sqrt(columnSd[j] / (n - 1)) : 0;
  let ym = 0, yss = 0;
  for (let i = 0; i < n; i++) ym += y[i];
  ym /= n;
  for (let i = 0; i < n; i++) yss += (y[i] - ym) ** 2;
  return {
    columnMean,
    columnSd,
    responseMean: ym,
    responseSd: n > 1 ? Math.sqrt(yss / (n - 1)) : 0,
  };
}
