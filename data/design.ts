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
 * @module
 */
import Papa from "npm:papaparse@5.7.1";
import type { Arena } from "../core/arena.ts";
import { CSV_INTERCEPT_NAME, MAX_LISTED_PROBLEMS, readInputText } from "./csv.ts";
import {
  cellNumber,
  ColumnStats,
  csvDataWarnings,
  detectDelimiter,
  notNumberReason,
  safeColumnNames,
} from "./csv_checks.ts";
import { type GlmData, glmDataFromArrays, type Storage } from "./dataset.ts";
import { type Formula, parseFormula } from "./formula.ts";

const INTERCEPT_NAME = CSV_INTERCEPT_NAME;

/**
 * A categorical column with more levels than this, and more than half as
 * many levels as rows, is refused as an identifier or free text.
 */
export const MAX_LEVELS = 50;

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
 * Read CSV text (with a header row) into a table of text cells.
 *
 * @param text The file's contents.
 * @param options The delimiter (default: detected, as in csv.ts), and
 *   `badRows`: when given, rows with the wrong number of fields are listed
 *   there (every one, naming the line) and left out instead of refused.
 * @returns The table.
 * @throws {RangeError} For an empty file, a file with no data rows,
 *   duplicate or empty header names, and rows with the wrong number of fields
 *   (naming the line).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseColumnTable } from "./design.ts";
 * const t = parseColumnTable("y,region\n1,north\n0,south\n");
 * assert.deepEqual(t.columns[1], ["north", "south"]);
 * ```
 */
export function parseColumnTable(
  text: string,
  options: { delimiter?: string; badRows?: string[] } = {},
): ColumnTable {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let delimiter = options.delimiter;
  if (delimiter === undefined) {
    const [l1, l2] = text.split(/\r\n|\n|\r/, 2);
    const found = detectDelimiter(l1 ?? "", l2);
    if (typeof found !== "string") throw new RangeError(found.error);
    delimiter = found;
  }
  const parsed = _papa.parse(text, { delimiter });
  const all = parsed.data;
  const rows: string[][] = [], lineOf: number[] = [];
  all.forEach((r, i) => {
    if (r.every((c) => c.trim() === "")) return;
    rows.push(r);
    lineOf.push(i + 1);
  });
  if (rows.length === 0) throw new RangeError("the CSV file is empty");
  const names = rows[0].map((s) => s.trim());
  const seen = new Set<string>();
  names.forEach((n, j) => {
    if (n === "") {
      throw new RangeError(`the header's field ${j + 1} is empty; every column needs a name`);
    }
    if (seen.has(n)) throw new RangeError(`the header names column ${JSON.stringify(n)} twice`);
    seen.add(n);
  });
  if (rows.length < 2) throw new RangeError("the CSV file has a header but no data rows");
  const collect = options.badRows;
  const columns: string[][] = names.map(() => []);
  const problems: string[] = [], kept: number[] = [];
  for (let i = 1; i < rows.length; i++) {
    const r = rows[i];
    if (r.length !== names.length) {
      const problem =
        `data row ${i} has ${r.length} fields, expected ${names.length} (as in the header), at line ${
          lineOf[i]
        }`;
      if (collect !== undefined) {
        collect.push(problem);
        continue;
      }
      problems.push(problem);
      if (problems.length >= MAX_LISTED_PROBLEMS) break;
      continue;
    }
    for (let j = 0; j < names.length; j++) columns[j].push(r[j].trim());
    kept.push(lineOf[i]);
  }
  if (problems.length === 1) throw new RangeError(problems[0]);
  if (problems.length > 1) {
    throw new RangeError(
      `${problems[0]}; and ${problems.length - 1} more rows${
        problems.length === MAX_LISTED_PROBLEMS ? " (at least; reading stopped there)" : ""
      } with the wrong number of fields: ${
        problems.slice(1).map((q, k) => `(${k + 2}) ${q}`).join(" ")
      }`,
    );
  }
  if (kept.length === 0) throw new RangeError("the CSV file has no well-formed data rows");
  return { names, columns, numRows: kept.length, lines: Int32Array.from(kept) };
}

const _papa = Papa as unknown as {
  parse(
    text: string,
    config: { delimiter: string },
  ): { data: string[][] };
};

/** "data row R (line L)" of data row i (0-based). */
function _rowAt(table: ColumnTable, i: number): string {
  return `data row ${i + 1}${table.lines === undefined ? "" : ` (line ${table.lines[i]})`}`;
}

type _Column = { kind: "numeric"; values: Float64Array } | {
  kind: "categorical";
  levels: string[];
  codes: Int32Array;
};

function _readColumn(table: ColumnTable, name: string, formula: Formula): _Column {
  const j = table.names.indexOf(name);
  if (j < 0) {
    throw new RangeError(
      `formula ${JSON.stringify(formula.text)} names column ${
        JSON.stringify(name)
      }, which is not in the data (columns: ${table.names.join(", ")})`,
    );
  }
  const cells = table.columns[j], n = table.numRows;
  const values = new Float64Array(n);
  let firstText = -1, firstNum = -1;
  for (let i = 0; i < n; i++) {
    const c = cells[i];
    if (c === "") {
      throw new RangeError(
        `column ${JSON.stringify(name)} has an empty cell at ${_rowAt(table, i)}`,
      );
    }
    const v = cellNumber(c);
    if (v - v === 0) {
      values[i] = v;
      if (firstNum < 0) firstNum = i;
      continue;
    }
    const asJs = Number(c);
    const reason = Number.isFinite(asJs) || /^[+-]?(inf|infinity|nan)$/i.test(c)
      ? notNumberReason(c)
      : asJs === Infinity || asJs === -Infinity
      ? `overflows to ${asJs}; values must be finite`
      : null;
    if (reason !== null) {
      throw new RangeError(
        `column ${JSON.stringify(name)}, ${_rowAt(table, i)}: ${reason}, got ${
          JSON.stringify(c)
        } (a category needs a label that is not a number, e.g. "h${c}")`,
      );
    }
    if (firstText < 0) firstText = i;
  }
  if (firstText < 0) return { kind: "numeric", values };
  if (firstNum >= 0) {
    const reason = notNumberReason(cells[firstText]);
    if (reason !== null) {
      throw new RangeError(
        `column ${JSON.stringify(name)}, ${_rowAt(table, firstText)}: ${reason}, got ${
          JSON.stringify(cells[firstText])
        }`,
      );
    }
    throw new RangeError(
      `column ${JSON.stringify(name)} mixes numbers (${
        JSON.stringify(cells[firstNum])
      } at data row ${firstNum + 1}) and text (${JSON.stringify(cells[firstText])} at data row ${
        firstText + 1
      }); a numeric column needs numbers only, a categorical one text only`,
    );
  }
  const levels = [...new Set(cells)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (levels.length < 2) {
    throw new RangeError(
      `column ${JSON.stringify(name)} is categorical with one level (${
        JSON.stringify(levels[0])
      }): a categorical column needs at least two levels; drop it from the formula`,
    );
  }
  if (levels.length > MAX_LEVELS && levels.length > n / 2) {
    throw new RangeError(
      `column ${JSON.stringify(name)} is categorical with ${levels.length} levels in ${n} rows ` +
        `(e.g. ${JSON.stringify(levels[0])}): it looks like an identifier or free text, not a ` +
        `category; drop it from the formula`,
    );
  }
  const index = new Map(levels.map((l, k) => [l, k]));
  const codes = new Int32Array(n);
  for (let i = 0; i < n; i++) codes[i] = index.get(cells[i])!;
  return { kind: "categorical", levels, codes };
}

/**
 * Build the design matrix and response of a formula over a table.
 *
 * @param table The table ({@link parseColumnTable}).
 * @param formula The formula, as text or parsed.
 * @param options The family (response domain) and `standardize`.
 * @returns X, y and what the columns are.
 * @throws {RangeError} For a bad formula, unknown columns, a categorical
 *   column with one level, a mixed column, empty cells and responses outside
 *   the family's domain — each naming the column.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildDesign, parseColumnTable } from "./design.ts";
 * const t = parseColumnTable("y,x1,region\n1,0.5,north\n0,1.5,south\n1,2,west\n");
 * const d = buildDesign(t, "y ~ x1 + region");
 * assert.deepEqual(d.columnNames, ["(Intercept)", "x1", "region[south]", "region[west]"]);
 * assert.deepEqual(Array.from(d.x.subarray(4, 8)), [1, 1.5, 1, 0]);
 * assert.throws(() => buildDesign(t, "y ~ x9"), /names column "x9", which is not in the data/);
 * ```
 */
export function buildDesign(
  table: ColumnTable,
  formula: string | Formula,
  options: DesignOptions = {},
): Design {
  const f = typeof formula === "string" ? parseFormula(formula) : formula;
  const cols = new Map<string, _Column>();
  const column = (name: string) => {
    let c = cols.get(name);
    if (c === undefined) cols.set(name, c = _readColumn(table, name, f));
    return c;
  };
  const n = table.numRows;
  const aux = (which: "offset" | "trials"): Float64Array | null => {
    const name = options[which];
    if (name === undefined) return null;
    if (name === f.response || f.terms.some((t) => t.includes(name))) {
      throw new RangeError(
        `the ${which} column ${JSON.stringify(name)} is also in the formula ${
          JSON.stringify(f.text)
        }; it enters the model as the ${which}, not in X`,
      );
    }
    return _auxColumn(table, name, which);
  };
  const offset = aux("offset"), trials = aux("trials");
  const coded = _textResponse(table, f, options);
  const resp = coded === null ? column(f.response) : null;
  if (resp !== null && resp.kind !== "numeric") {
    throw new RangeError(
      `the response ${JSON.stringify(f.response)} must be numeric, got text such as ${
        JSON.stringify(resp.levels[0])
      } (code a binary response as 0/1)`,
    );
  }
  if (resp !== null && options.success !== undefined) {
    throw new RangeError(
      `success ${
        JSON.stringify(options.success)
      } applies to a two-level text response; the response ${
        JSON.stringify(f.response)
      } is numeric`,
    );
  }
  const y = coded?.y ?? (resp as { values: Float64Array }).values;
  _checkResponse(y, f.response, options.family);
  if (trials !== null) {
    for (let i = 0; i < n; i++) {
      if (!(trials[i] >= 1 && trials[i] >= y[i])) {
        throw new RangeError(
          `the trials column ${JSON.stringify(options.trials)} must be ≥ 1 and ≥ the response ${
            JSON.stringify(f.response)
          } in every row, got trials ${trials[i]} and response ${y[i]} at data row ${i + 1}`,
        );
      }
    }
  }

  // Per term: the factors' column generators (value of row i, name suffix).
  type Gen = { names: string[]; value: (i: number, k: number) => number };
  const key = (t: readonly string[]) => [...t].sort().join("\u0000");
  const inModel = new Set(f.terms.map(key));
  if (f.intercept) inModel.add("");
  const blocks: { names: string[]; gens: Gen[] }[] = [];
  for (const term of f.terms) {
    const gens: Gen[] = term.map((v) => {
      const c = column(v);
      if (c.kind === "numeric") return { names: [v], value: (i) => c.values[i] };
      const rest = key(term.filter((u) => u !== v));
      const full = !inModel.has(rest);
      const levels = full ? c.levels : c.levels.slice(1);
      const offset = full ? 0 : 1;
      return {
        names: levels.map((l) => `${v}[${l}]`),
        value: (i, k) => (c.codes[i] === k + offset ? 1 : 0),
      };
    });
    // Names: the first factor varies fastest, as R's model.matrix.
    let names = [""];
    for (let g = 0; g < gens.length; g++) {
      const next: string[] = [];
      for (const s of gens[g].names) {
        for (const prefix of names) next.push(prefix === "" ? s : `${prefix}:${s}`);
      }
      names = next;
    }
    blocks.push({ names, gens });
  }
  const rawNames = blocks.flatMap((b) => b.names);
  const safe = safeColumnNames(
    rawNames,
    rawNames.map((nm) => table.names.indexOf(nm) + 1),
    [...table.names, INTERCEPT_NAME],
  );
  const columnNames = [...(f.intercept ? [INTERCEPT_NAME] : []), ...safe.names];
  const p = columnNames.length;
  const x = new Float64Array(n * p);
  for (let i = 0; i < n; i++) {
    let j = 0;
    if (f.intercept) x[i * p + j++] = 1;
    for (const b of blocks) {
      const sizes = b.gens.map((g) => g.names.length);
      const total = sizes.reduce((a, s) => a * s, 1);
      for (let c = 0; c < total; c++) {
        let rem = c, v = 1;
        for (let g = 0; g < b.gens.length; g++) {
          const k = rem % sizes[g];
          rem = Math.floor(rem / sizes[g]);
          v *= b.gens[g].value(i, k);
        }
        x[i * p + j++] = v === 0 ? 0 : v; // no −0 from a numeric × 0 dummy
      }
    }
  }
  const levels: Record<string, string[]> = {};
  for (const [name, c] of cols) if (c.kind === "categorical") levels[name] = c.levels;

  const columnMean = new Float64Array(p), columnSd = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += x[i * p + j];
    const m = s / n;
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (x[i * p + j] - m) ** 2;
    columnMean[j] = m;
    columnSd[j] = columnNames[j] === INTERCEPT_NAME || n < 2 ? 0 : Math.sqrt(ss / (n - 1));
  }
  const center = new Float64Array(p), scale = new Float64Array(p).fill(1);
  const standardized = Boolean(options.standardize);
  for (let j = 0; j < p; j++) {
    if (columnNames[j] === INTERCEPT_NAME || columnSd[j] === 0 || !standardized) continue;
    if (f.intercept) center[j] = columnMean[j];
    scale[j] = columnSd[j];
  }
  if (standardized) {
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < p; j++) x[i * p + j] = (x[i * p + j] - center[j]) / scale[j];
    }
  }
  // The plain CSV path's warnings, on X as it enters the model.
  const stats = new ColumnStats(p, n);
  stats.add(x, n);
  let yMin = Infinity, yMax = -Infinity;
  for (let i = 0; i < n; i++) {
    if (y[i] < yMin) yMin = y[i];
    if (y[i] > yMax) yMax = y[i];
  }
  const fam = options.family;
  const warnings = [
    ...safe.notes,
    ...csvDataWarnings({
      where: "",
      family: fam === "logistic" ? "logistic" : fam === undefined || fam === "gaussian" ||
          fam === "student-t"
        ? "gaussian"
        : "poisson",
      intercept: f.intercept,
      responseName: f.response,
      columnNames,
      numRows: n,
      numCols: p,
      colMin: stats.colMin,
      colMax: stats.colMax,
      yMin,
      yMax,
      stats,
    }),
  ];
  let ySum = 0;
  for (let i = 0; i < n; i++) ySum += y[i];
  const responseMean = ySum / n;
  let yss = 0;
  for (let i = 0; i < n; i++) yss += (y[i] - responseMean) ** 2;
  return {
    formula: f,
    columnNames,
    levels,
    columnMean,
    columnSd,
    standardized,
    center,
    scale,
    responseMean,
    responseSd: n > 1 ? Math.sqrt(yss / (n - 1)) : 0,
    warnings,
    responseCoding: coded?.coding ?? null,
    offset,
    trials,
    x,
    y: Float64Array.from(y),
    numRows: n,
    numCols: p,
  };
}

function _checkResponse(y: Float64Array, name: string, family: string | undefined): void {
  const counts = family === "poisson" || family === "negative-binomial" || family === "binomial";
  for (let i = 0; i < y.length; i++) {
    const v = y[i];
    if (family === "logistic" && v !== 0 && v !== 1) {
      throw new RangeError(
        `the response ${
          JSON.stringify(name)
        } must be 0 or 1 for the logistic family, got ${v} at data row ${
          i + 1
        } (or text with two levels)`,
      );
    }
    if (counts && !(v >= 0 && Number.isInteger(v))) {
      throw new RangeError(
        `the response ${
          JSON.stringify(name)
        } must be a non-negative integer for the ${family} family, got ${v} at data row ${i + 1}`,
      );
    }
  }
}

/** An offset or trials column: finite numbers (trials: integers ≥ 1 are checked with y). */
function _auxColumn(table: ColumnTable, name: string, which: "offset" | "trials"): Float64Array {
  const j = table.names.indexOf(name);
  if (j < 0) {
    throw new RangeError(
      `the ${which} column ${JSON.stringify(name)} is not in the data (columns: ${
        table.names.join(", ")
      })`,
    );
  }
  const cells = table.columns[j], out = new Float64Array(table.numRows);
  for (let i = 0; i < cells.length; i++) {
    const v = cellNumber(cells[i]);
    if (!Number.isFinite(v) || (which === "trials" && !Number.isInteger(v))) {
      throw new RangeError(
        `the ${which} column ${JSON.stringify(name)} must hold ${
          which === "trials" ? "integers" : "finite numbers"
        } in every row, got ${JSON.stringify(cells[i])} at data row ${i + 1}`,
      );
    }
    out[i] = v;
  }
  return out;
}

/** A logistic response of text cells coded 0/1 (null when the column is not all text). */
function _textResponse(
  table: ColumnTable,
  f: Formula,
  options: DesignOptions,
): { y: Float64Array; coding: ResponseCoding } | null {
  const j = table.names.indexOf(f.response);
  if (options.family !== "logistic" || j < 0) return null;
  const cells = table.columns[j];
  if (cells.some((c) => c === "" || Number.isFinite(Number(c)))) return null;
  const name = JSON.stringify(f.response);
  const levels = [...new Set(cells)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const list = levels.slice(0, 10).map((l) => JSON.stringify(l)).join(", ") +
    (levels.length > 10 ? `, … (${levels.length} in all)` : "");
  if (levels.length !== 2) {
    throw new RangeError(
      `the response ${name} is text with ${levels.length} level${
        levels.length === 1 ? "" : "s"
      } (${list}); a logistic response needs exactly two levels, or 0/1`,
    );
  }
  const success = options.success ?? levels[1];
  if (!levels.includes(success)) {
    throw new RangeError(
      `success ${JSON.stringify(success)} is not a level of the response ${name} (levels: ${list})`,
    );
  }
  const failure = levels[0] === success ? levels[1] : levels[0];
  const rule = options.success === undefined
    ? `the response ${name} is text with levels ${list}: ${
      JSON.stringify(success)
    } is coded 1 and ${
      JSON.stringify(failure)
    } 0 (the level that sorts second is 1; choose it with success)`
    : `the response ${name} is text with levels ${list}: ${
      JSON.stringify(success)
    } is coded 1 and ${JSON.stringify(failure)} 0`;
  const y = new Float64Array(cells.length);
  for (let i = 0; i < cells.length; i++) y[i] = cells[i] === success ? 1 : 0;
  return { y, coding: { levels: [levels[0], levels[1]], success, rule } };
}

/**
 * Parse CSV text and build a formula's design matrix (in plain arrays).
 *
 * @param text CSV text with a header.
 * @param options The formula, family, `standardize` and delimiter.
 * @returns The design.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCsvWithFormula } from "./design.ts";
 * const d = parseCsvWithFormula("y,a,b\n1,2,3\n2,3,5\n3,1,1\n", { formula: "y ~ a*b - 1" });
 * assert.deepEqual(d.columnNames, ["a", "b", "a:b"]);
 * ```
 */
export function parseCsvWithFormula(
  text: string,
  options: Omit<FormulaCsvOptions, "storage">,
): Design {
  return buildDesign(parseColumnTable(text, options), options.formula, options);
}

/**
 * Load a CSV file (text columns allowed) through a formula into the arena.
 *
 * @param arena The arena to allocate in.
 * @param path The CSV file (with a header row).
 * @param options The formula, family, `standardize`, delimiter and storage.
 * @returns GLM data whose `columnNames` name every coefficient, and `design`.
 * @throws {RangeError} As {@link buildDesign}, with the path in the message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { loadCsvWithFormula } from "./design.ts";
 * const path = Deno.makeTempFileSync({ suffix: ".csv" });
 * Deno.writeTextFileSync(path, "y,x,g\n1,0.1,a\n0,0.5,b\n1,0.2,b\n");
 * const data = await loadCsvWithFormula(loadCore(), path, { formula: "y ~ x:g", family: "logistic" });
 * assert.deepEqual(data.columnNames, ["(Intercept)", "x:g[a]", "x:g[b]"]);
 * Deno.removeSync(path);
 * ```
 */
export async function loadCsvWithFormula(
  arena: Arena,
  path: string,
  options: FormulaCsvOptions,
): Promise<FormulaData> {
  const text = await readInputText(path);
  let d: Design;
  try {
    d = parseCsvWithFormula(text, options);
  } catch (e) {
    if (e instanceof RangeError) throw new RangeError(`${path}: ${e.message}`);
    throw e;
  }
  const data = glmDataFromArrays(arena, d.x, d.y, {
    numCols: d.numCols,
    storage: options.storage,
    columnNames: d.columnNames,
  });
  const { x: _x, y: _y, numRows: _n, numCols: _p, ...design } = d;
  // The design keeps the offset and trials: GlmModel takes them as options.
  return { ...data, warnings: d.warnings, design };
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
