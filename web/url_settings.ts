/// <reference lib="dom" />
/**
 * The demo page's settings in its address (query string): written when a
 * run starts, so that the link repeats the run (the same settings and seed
 * give the same draws), and read when the page loads; a file's model is
 * applied when that file is loaded again. Keys the controls cannot take are
 * named in the warnings line.
 *
 * @module
 */
import { _$ } from "./dom.ts";
import type { RunRequest } from "./protocol.ts";

/** Controls written to the address, by element id (each restored into the same id). */
const _URL_COMMON = [
  "priorScale",
  "sampler",
  "numChains",
  "workers",
  "numWarmup",
  "numSamples",
  "seed",
];

/**
 * The file model's controls written to the address (by element id), each
 * only when it applies: `family` sets which of σ, ν, offset, trials, level
 * coded 1 and the σ/φ prior do.
 */
const _URL_MODEL = [
  "formula",
  "sigma",
  "nu",
  "offset",
  "trials",
  "success",
  "standardize",
  "priors",
  "priorIntercept",
  "priorAux",
];

/** The families each family-specific field applies to. */
const _FAMILY_FIELDS: Record<string, string[]> = {
  sigma: ["gaussian"],
  nu: ["student-t"],
  offset: ["poisson", "negative-binomial"],
  trials: ["binomial"],
  success: ["logistic"],
  priorAux: ["gaussian", "student-t", "negative-binomial"],
};

/**
 * Write the run's settings to the address (query string), so that the link
 * repeats the run: the same settings and seed give the same draws. A file
 * cannot travel in a link: a file run writes its name (`file`), how it is
 * read (`delimiter`, `missing`) and its model (`family`, `formula`, the
 * family's options, `priors` one a line, `priorIntercept`, `priorAux`,
 * `standardize`), so that loading the same file repeats the run.
 *
 * @param request The run.
 * @param fileName The loaded file's name (null: none).
 */
export function settingsToUrl(request: RunRequest, fileName: string | null): void {
  const p = new URLSearchParams();
  if (request.dataset === "csv") {
    if (fileName !== null) p.set("file", fileName);
    for (const id of ["delimiter", "missing"]) {
      const v = _$<HTMLSelectElement>(id).value;
      if (v !== "" && v !== "drop") p.set(id, v);
    }
    p.set("family", request.family);
    for (const id of _URL_MODEL) {
      const families = _FAMILY_FIELDS[id];
      if (families !== undefined && !families.includes(request.family)) continue;
      const el = _$<HTMLInputElement>(id);
      const value = id === "standardize"
        ? (el.checked ? "1" : "")
        : id === "formula"
        ? String(request.flags?.formula ?? "")
        : el.value.trim();
      if (value !== "") p.set(id, value);
    }
  } else {
    p.set("dataset", request.dataset);
    p.set("n", String(request.n));
    if (request.dataset === "gaussian") p.set("d", String(request.d));
    p.set("dataSeed", String(request.dataSeed));
  }
  for (const id of _URL_COMMON) p.set(id, _$<HTMLInputElement>(id).value);
  for (const el of _$("sampler-options").querySelectorAll<HTMLInputElement>("[data-option]")) {
    if (el.value !== "") p.set(`opt.${el.dataset.option}`, el.value);
  }
  history.replaceState(null, "", `${location.pathname}?${p}`);
}

/**
 * Set the controls from the address (once the sampler list is known). Every
 * key that is unknown, or whose value the control cannot take, is named in
 * the warnings line and left at its default.
 *
 * @param hooks The page's updates after the controls are set: the controls
 *   shown for the data set and family, and the chosen sampler's options.
 * @returns The file model of the address (applied when the next file is
 *   loaded: {@link applyUrlModel}), or null when it names none.
 */
export function settingsFromUrl(
  hooks: { syncControls(): void; describeSampler(): void },
): Record<string, string> | null {
  const p = new URLSearchParams(location.search);
  const problems: string[] = [];
  const set = (id: string, value: string): void => {
    const el = document.getElementById(id) as HTMLInputElement | HTMLSelectElement | null;
    const ok = el instanceof HTMLSelectElement
      ? Array.from(el.options).some((o) => o.value === value && !o.disabled && value !== "")
      : el !== null && value.trim() !== "" && Number.isFinite(Number(value));
    if (!ok || el === null) {
      problems.push(`${id}=${JSON.stringify(value)}`);
      return;
    }
    el.value = value;
  };
  const ids = [
    "dataset",
    "n",
    "d",
    "dataSeed",
    "family",
    "delimiter",
    "missing",
    ..._URL_COMMON,
  ];
  for (const id of ids) {
    const value = p.get(id);
    if (value !== null) set(id, value);
  }
  // The file model: the text fields now, the family and the column choices
  // when the file is loaded (its columns fill the lists; _showFile).
  const model: Record<string, string> = {};
  for (const id of ["family", ..._URL_MODEL]) {
    const value = p.get(id);
    if (value === null) continue;
    model[id] = value;
    if (id === "standardize") {
      _$<HTMLInputElement>(id).checked = /^(1|true|yes|on)$/i.test(value);
    } else if (id === "sigma" && (value.trim() === "" || !Number.isFinite(Number(value)))) {
      problems.push(`${id}=${JSON.stringify(value)}`);
    } else if (!["family", "offset", "trials", "formula"].includes(id)) {
      _$<HTMLInputElement>(id).value = value;
    }
  }
  const file = p.get("file");
  const urlModel = file !== null || _URL_MODEL.some((id) => p.has(id)) ? model : null;
  if (urlModel !== null) {
    _$("file-info").hidden = false;
    _$("file-summary").textContent = `This link's run read ${
      file === null ? "a file" : JSON.stringify(file)
    }: load it to repeat the run with the link's model.`;
  }
  hooks.syncControls(); // a synthetic data set fixes the family; a CSV file loaded later keeps it
  hooks.describeSampler();
  for (const [key, value] of p) {
    if (key.startsWith("opt.")) set(`opt-${key.slice(4)}`, value);
    else if (!ids.includes(key) && !_URL_MODEL.includes(key) && key !== "file") {
      problems.push(`${key}=${JSON.stringify(value)}`);
    }
  }
  if (problems.length > 0) {
    _$("warnings").textContent = `Ignored in the address (unknown setting or value): ${
      problems.join(", ")
    }.`;
  }
  return urlModel;
}

/**
 * Set the file model's fields from the address once the file's columns are
 * known; a family or column the file does not have is named in the warnings
 * line and left at its default.
 *
 * @param model The address's file model.
 * @param names The file's columns.
 * @param responseFromFormula Shows the formula's response in the Response list.
 */
export function applyUrlModel(
  model: Record<string, string>,
  names: string[],
  responseFromFormula: () => void,
): void {
  const problems: string[] = [];
  const family = _$<HTMLSelectElement>("family");
  if (model.family !== undefined) {
    if (Array.from(family.options).some((o) => o.value === model.family)) {
      family.value = model.family;
    } else problems.push(`family=${JSON.stringify(model.family)}`);
  }
  for (const id of ["offset", "trials"]) {
    if (model[id] === undefined) continue;
    if (names.includes(model[id])) _$<HTMLSelectElement>(id).value = model[id];
    else problems.push(`${id}=${JSON.stringify(model[id])} (no such column)`);
  }
  if (model.formula !== undefined) {
    _$<HTMLInputElement>("formula").value = model.formula;
    responseFromFormula();
  }
  if (problems.length > 0) {
    _$("warnings").textContent = `Ignored in the address (not in this file): ${
      problems.join(", ")
    }.`;
  }
}
