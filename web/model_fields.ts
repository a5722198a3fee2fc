/// <reference lib="dom" />
/**
 * The demo page's file model fields (family and its options, formula,
 * priors) as the CLI's flags, which the worker hands to the CLI's own model
 * code; the default formula `response ~ every other column` of a loaded file,
 * and the Response list following the formula.
 *
 * @module
 */
import { _$ } from "./dom.ts";
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
