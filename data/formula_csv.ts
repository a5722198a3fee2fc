/**
 * CSV text through a formula: the table of text cells
 * ({@link parseColumnTable}) and the loaders that build its design matrix
 * (`buildDesign`, data/design_matrix.ts) in plain arrays or in the arena.
 *
 * @module
 */
import Papa from "npm:papaparse@5.7.1";
import type { Arena } from "../core/arena.ts";
import { MAX_LISTED_PROBLEMS, readInputText } from "./csv.ts";
import { detectDelimiter } from "./csv_checks.ts";
import { glmDataFromArrays } from "./dataset.ts";
import type { ColumnTable, Design, FormulaCsvOptions, FormulaData } from "./design.ts";
import { buildDesign } from "./design_matrix.ts";

/**
 * Read CSV text (with a header row) into a table of text cells.
 *
 * @param text The file's contents.
 * @param options The delimiter (default: detected, as in csv.ts), and
 *   `badRows`: when given, rows with the wrong number of fields are listed
 *   there (every one, naming the line) and left out instead of refused;
 *   `quoteProblems`: when given, every quote the parser found unclosed or
 *   misplaced is listed there (naming the line).
 * @returns The table.
 * @throws {RangeError} For an empty file, a file with no data rows,
 *   duplicate or empty header names, and rows with the wrong number of fields
 *   (naming the line).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseColumnTable } from "./formula_csv.ts";
 * const t = parseColumnTable("y,region\n1,north\n0,south\n");
 * assert.deepEqual(t.columns[1], ["north", "south"]);
 * ```
 */
export function parseColumnTable(
  text: string,
  options: { delimiter?: string; badRows?: string[]; quoteProblems?: string[] } = {},
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
  for (const e of parsed.errors ?? []) {
    if (e.type !== "Quotes") continue;
    options.quoteProblems?.push(
      `line ${(e.row ?? 0) + 1}: ${
        e.code === "MissingQuotes"
          ? "a quoted field is not closed (its quote runs to the end of the file)"
          : 'a quote inside a field that does not start with one (write it as "" inside a quoted field)'
      }`,
    );
  }
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
  ): {
    data: string[][];
    errors?: { type: string; code: string; row?: number }[];
  };
};

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
 * import { parseCsvWithFormula } from "./formula_csv.ts";
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
 * import { loadCsvWithFormula } from "./formula_csv.ts";
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
