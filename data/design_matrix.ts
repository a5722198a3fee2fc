/**
 * The design matrix of a formula over a column table: {@link buildDesign}
 * (the coding rules are in data/design.ts's module comment).
 *
 * @module
 */
import { CSV_INTERCEPT_NAME } from "./csv.ts";
import { ColumnStats, csvDataWarnings, safeColumnNames } from "./csv_checks.ts";
import { type Formula, parseFormula } from "./formula.ts";
import type { ColumnTable, Design, DesignOptions } from "./design.ts";
import {
  checkDesignResponse,
  type DesignColumn,
  readAuxColumn,
  readDesignColumn,
  textResponse,
} from "./design_columns.ts";

const INTERCEPT_NAME = CSV_INTERCEPT_NAME;

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
 * import { buildDesign } from "./design_matrix.ts";
 * import { parseColumnTable } from "./formula_csv.ts";
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
  const cols = new Map<string, DesignColumn>();
  const column = (name: string) => {
    let c = cols.get(name);
    if (c === undefined) cols.set(name, c = readDesignColumn(table, name, f));
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
    return readAuxColumn(table, name, which);
  };
  const offset = aux("offset"), trials = aux("trials");
  const coded = textResponse(table, f, options);
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
  checkDesignResponse(y, f.response, options.family);
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
