/**
 * Inline display in a Deno Jupyter kernel (`deno jupyter`): HTML tables and
 * Vega-Lite figures as Jupyter media bundles, for notebooks/tallmc.ipynb.
 *
 * Each helper returns an object with the kernel's display method
 * (`Symbol.for("Jupyter.display")`, `Deno.jupyter.$display`), so it shows
 * when it is a cell's last expression; {@link show} displays it from
 * anywhere in a cell, and prints its `text/plain` form when run outside a
 * kernel (`deno run`), so that the notebook's cells also run as a script.
 *
 * @module
 */
import { renderSvg } from "../replicate/render.ts";

/** The symbol under which the Deno kernel looks for an object's media bundle. */
export const JUPYTER_DISPLAY: unique symbol = Symbol.for("Jupyter.display") as never;

/** A Jupyter media bundle: mime type → data. */
export type MediaBundle = Record<string, string | object>;

/** An object the Deno kernel displays by its bundle. */
export interface Displayable {
  /** The media bundle. */
  [JUPYTER_DISPLAY](): MediaBundle | Promise<MediaBundle>;
}

function _escape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function _cell(v: unknown, digits: number): string {
  return typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(digits)) : String(v);
}

/**
 * A table as HTML (and aligned plain text).
 *
 * @param columns Column titles.
 * @param rows One array of cells per row (numbers shown with `digits` decimals).
 * @param options `caption`, `digits` (default 3).
 * @returns A displayable table.
 */
export function htmlTable(
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  options: { caption?: string; digits?: number } = {},
): Displayable {
  const digits = options.digits ?? 3;
  const cells = rows.map((r) => r.map((v) => _cell(v, digits)));
  const th = columns.map((c) => `<th>${_escape(c)}</th>`).join("");
  const body = cells.map((r) =>
    `<tr>${
      r.map((c, j) => `<td style="text-align:${j === 0 ? "left" : "right"}">${_escape(c)}</td>`)
        .join("")
    }</tr>`
  ).join("\n");
  const caption = options.caption === undefined
    ? ""
    : `<caption>${_escape(options.caption)}</caption>`;
  const html = `<table>${caption}<thead><tr>${th}</tr></thead>\n<tbody>\n${body}\n</tbody></table>`;
  const widths = columns.map((c, j) => Math.max(c.length, ...cells.map((r) => r[j].length)));
  const line = (r: readonly string[]) =>
    r.map((c, j) => (j === 0 ? c.padEnd(widths[j]) : c.padStart(widths[j]))).join("  ");
  const text = [
    ...(options.caption === undefined ? [] : [options.caption]),
    line(columns),
    ...cells.map(line),
  ].join("\n");
  return { [JUPYTER_DISPLAY]: () => ({ "text/html": html, "text/plain": text }) };
}

/**
 * A Vega-Lite figure: the spec under Jupyter's Vega-Lite mime type (drawn by
 * JupyterLab, VS Code and nbviewer) and, as a fallback for front ends without
 * a Vega renderer (GitHub, nbconvert's HTML), the SVG rendered here.
 *
 * @param spec A Vega-Lite specification with its data inlined.
 * @param options `svg: false` to leave the SVG out.
 * @returns A displayable figure.
 */
export function vegaLite(
  spec: Record<string, unknown>,
  options: { svg?: boolean } = {},
): Displayable {
  return {
    [JUPYTER_DISPLAY]: async () => {
      const bundle: MediaBundle = {
        "application/vnd.vegalite.v5+json": {
          ...spec,
          $schema: "https://vega.github.io/schema/vega-lite/v5.json",
        },
        "text/plain": `Vega-Lite figure${
          typeof spec.title === "string" ? `: ${spec.title}` : ""
        } (${(JSON.stringify(spec).length / 1024).toFixed(1)} KiB spec)`,
      };
      if (options.svg !== false) bundle["image/svg+xml"] = await renderSvg(spec);
      return bundle;
    },
  };
}

/** The kernel's API when running in `deno jupyter` (undefined under `deno run`, where reading it throws). */
function _kernel():
  | { display(obj: unknown, options?: { raw?: boolean }): Promise<void> }
  | undefined {
  try {
    return (Deno as unknown as { jupyter?: { display(o: unknown, p?: object): Promise<void> } })
      .jupyter;
  } catch {
    return undefined;
  }
}

/**
 * Display objects now: in a Jupyter kernel by their media bundle, elsewhere
 * by printing their `text/plain` form (a string is shown as text).
 *
 * @param objs Displayables or strings.
 */
export async function show(...objs: (Displayable | string)[]): Promise<void> {
  const kernel = _kernel();
  for (const o of objs) {
    const bundle: MediaBundle = typeof o === "string"
      ? { "text/plain": o }
      : await o[JUPYTER_DISPLAY]();
    if (kernel !== undefined) await kernel.display(bundle, { raw: true });
    else console.log(bundle["text/plain"] ?? "");
  }
}
