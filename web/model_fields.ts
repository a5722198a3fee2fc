/// <reference lib="dom" />
/**
 * The demo page's loaded file and its model fields: the file in one line,
 * the fields (family and its options, formula, priors) as the CLI's flags,
 * which the worker hands to the CLI's own model code, the default formula
 * `response ~ every other column`, the Response list following the formula,
 * and which fields are shown.
 *
 * @module
 */
import { _$ } from "./dom.ts";
import { int } from "./summary_table.ts";
import type { TableCheck } from "./table.ts";

/** A column name as a formula term (back-quoted unless a plain name). */
function _term(name: string): string {
  return /^[A-Za-z_.][A-Za-z0-9_.]*$/.test(name) ? name : `\`${name}\``;
}

/**
 * `response ~ every other column` (not the offset or trials column).
 *
 * @param fileCheck The loaded file (null: none, then "").
 * @returns The formula.
 */
export function defaultFormula(fileCheck: TableCheck | null): string {
  if (fileCheck === null) return "";
  const response = _$<HTMLSelectElement>("response").value;
  const aux = [_$<HTMLSelectElement>("offset").value, _$<HTMLSelectElement>("trials").value];
  const rhs = fileCheck.columns.map((c) => c.name).filter((n) =>
    n !== response && !aux.includes(n)
  );
  return `${_term(response)} ~ ${rhs.length === 0 ? "1" : rhs.map(_term).join(" + ")}`;
}

/** Show the formula's response in the Response list (when it names a column). */
export function responseFromFormula(): void {
  const lhs = _$<HTMLInputElement>("formula").value.split("~")[0].trim().replace(/^`(.*)`$/, "$1");
  const select = _$<HTMLSelectElement>("response");
  if (Array.from(select.options).some((o) => o.value === lhs)) select.value = lhs;
}

/**
 * The file model's settings as the CLI's flags.
 *
 * @param fileCheck The loaded file (for the default formula).
 * @returns Flag name → value, as `parseFlags` gives them.
 */
export function fileFlags(
  fileCheck: TableCheck | null,
): Record<string, string | string[] | boolean> {
  const family = _$<HTMLSelectElement>("family").value;
  const v = (id: string) => _$<HTMLInputElement>(id).value.trim();
  const flags: Record<string, string | string[] | boolean> = {
    formula: v("formula") || defaultFormula(fileCheck),
    family,
  };
  if (family === "gaussian" && v("sigma") !== "") flags.sigma = v("sigma");
  if (family === "student-t") flags.nu = v("nu");
  if ((family === "poisson" || family === "negative-binomial") && v("offset") !== "") {
    flags.offset = v("offset");
  }
  if (family === "binomial" && v("trials") !== "") flags.trials = v("trials");
  if (family === "logistic" && v("success") !== "") flags.success = v("success");
  if (_$<HTMLInputElement>("standardize").checked) flags.standardize = true;
  const priors = _$<HTMLTextAreaElement>("priors").value.split("\n").map((l) => l.trim())
    .filter((l) => l !== "");
  if (priors.length > 0) flags.prior = priors;
  if (v("priorIntercept") !== "") flags["prior-intercept"] = v("priorIntercept");
  if (["gaussian", "student-t", "negative-binomial"].includes(family) && v("priorAux") !== "") {
    flags["prior-aux"] = v("priorAux");
  }
  return flags;
}

/**
 * Show the controls that apply: the family fixed by a synthetic data set,
 * the file's fields for a file, the family's own fields.
 */
export function syncControls(): void {
  const dataset = _$<HTMLSelectElement>("dataset").value;
  const family = _$<HTMLSelectElement>("family");
  if (dataset === "higgs") family.value = "logistic";
  if (dataset === "gaussian") family.value = "gaussian";
  family.disabled = dataset !== "csv";
  _$("d-label").hidden = dataset !== "gaussian";
  _$("n").parentElement!.parentElement!.hidden = dataset === "csv";
  for (const el of document.querySelectorAll<HTMLElement>(".file-only")) {
    el.hidden = dataset !== "csv";
  }
  for (const el of document.querySelectorAll<HTMLElement>(".synthetic-only")) {
    el.hidden = dataset === "csv";
  }
  for (const el of document.querySelectorAll<HTMLElement>(".fam")) {
    el.hidden = !el.classList.contains(`fam-${family.value}`);
  }
}

/**
 * A loaded file in one line: rows, columns with their kinds, the delimiter,
 * and the missing cells per column.
 *
 * @param name The file's name.
 * @param check The file's check.
 * @returns The line.
 */
export function fileSummary(name: string, check: TableCheck): string {
  const delim = check.delimiter === null
    ? "Parquet"
    : `delimiter ${check.delimiter === "\t" ? "tab" : JSON.stringify(check.delimiter)}`;
  const missing = check.columns.filter((c) => c.missing > 0);
  return `${name}: ${int(check.numRows)} rows, ${check.columns.length} columns (${delim}); ` +
    check.columns.map((c) =>
      `${c.name} ${
        c.kind === "text"
          ? `text, ${c.numLevels} levels`
          : c.kind === "bad"
          ? "(problem)"
          : "numeric"
      }`
    ).join(", ") +
    (missing.length === 0
      ? ". No missing cells."
      : `. Missing cells (rows dropped when the model uses the column): ${
        missing.map((c) => `${c.name} ${c.missing}`).join(", ")
      }.`);
}
