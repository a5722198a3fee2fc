/// <reference lib="dom" />
/**
 * The demo page's sampler controls: the registry's samplers as the worker
 * lists them (diagnostic ones apart), the chosen sampler's summary and
 * references, one input per option it publishes, and the options the user
 * set, typed as the sampler expects.
 *
 * @module
 */
import { _$ } from "./dom.ts";
import type { SamplerEntry } from "./protocol.ts";
import { escapeHtml } from "./summary_table.ts";

/** The registry's samplers, as the worker listed them. */
let _samplers: SamplerEntry[] = [];

/**
 * Fill the sampler list from the registry's entries (diagnostic samplers in
 * a group of their own), keeping the chosen one when it is still there.
 *
 * @param samplers The worker's list.
 */
export function fillSamplers(samplers: SamplerEntry[]): void {
  _samplers = samplers;
  const select = _$<HTMLSelectElement>("sampler");
  const previous = select.value || "hmc-ecs";
  const option = (s: SamplerEntry) =>
    `<option value="${s.name}" title="${escapeHtml(s.summary)}">${s.name}${
      s.isExact ? "" : " (approximate)"
    }</option>`;
  select.innerHTML = samplers.filter((s) => !s.isDiagnostic).map(option).join("") +
    `<optgroup id="diagnostic-samplers" label="diagnostics only — not for inference">` +
    samplers.filter((s) => s.isDiagnostic).map(option).join("") + `</optgroup>`;
  select.value = samplers.some((s) => s.name === previous) ? previous : samplers[0].name;
  describeSampler();
}

/** The chosen sampler's summary, and one input per option it publishes (blank = its default). */
export function describeSampler(): void {
  const entry = _samplers.find((s) => s.name === _$<HTMLSelectElement>("sampler").value);
  _$("sampler-summary").textContent = entry === undefined
    ? ""
    : `${
      entry.isDiagnostic ? "Diagnostic only, not for inference: " : ""
    }${entry.summary}. ${entry.references}.`;
  _$("sampler-ref").textContent = entry === undefined ? "" : `${entry.name}: ${entry.references}.`;
  _$("sampler-options").innerHTML = (entry?.options ?? []).map((o) => {
    const id = `opt-${o.name}`;
    const title = `title="${escapeHtml(o.help)}"`;
    const input = o.type === "choice" || o.type === "boolean"
      ? `<select id="${id}" data-option="${o.name}" data-type="${o.type}" ${title}>` +
        `<option value="">default (${escapeHtml(o.default)})</option>` +
        (o.choices ?? ["true", "false"]).map((c) => `<option>${escapeHtml(c)}</option>`).join("") +
        `</select>`
      : `<input id="${id}" data-option="${o.name}" data-type="${o.type}" type="number" ` +
        `step="${o.type === "integer" ? 1 : "any"}"${
          o.min === undefined ? "" : ` min="${o.min}"`
        } ` +
        `placeholder="${escapeHtml(o.default)}" ${title}>`;
    return `<label>${escapeHtml(o.name)} ${input}</label>`;
  }).join("");
}

/**
 * The options the user set, typed as the sampler expects.
 *
 * @returns Option name → value (blank inputs left out).
 */
export function samplerOptions(): Record<string, number | string | boolean> {
  const out: Record<string, number | string | boolean> = {};
  for (const el of _$("sampler-options").querySelectorAll<HTMLInputElement>("[data-option]")) {
    if (el.value === "") continue;
    const name = el.dataset.option!;
    if (el.dataset.type === "boolean") out[name] = el.value === "true";
    else if (el.dataset.type === "choice") {
      out[name] = /^-?\d+(\.\d+)?$/.test(el.value) ? Number(el.value) : el.value;
    } else out[name] = Number(el.value);
  }
  return out;
}
