/**
 * Vega-Lite specification → static SVG, headless, in Deno.
 *
 * ```
 *  Vega-Lite spec ──vega-lite compile──► Vega spec ──vega.parse──► View(renderer "none")
 *                                                                       │ toSVG()
 *                                                                       ▼
 *                                                               SVG markup (string)
 * ```
 *
 * No browser and no canvas: without a canvas, vega estimates text widths from
 * the font size (axis labels may be spaced a little loosely; nothing else
 * changes). Specs must inline their data (`data.values`); the loader refuses
 * URLs and files, so rendering needs no network or file permission.
 *
 * @module
 */

import * as vega from "npm:vega@6.4.0";
import * as vegaLite from "npm:vega-lite@6.5.0";

/** Options of {@link renderSvg}. */
export interface RenderSvgOptions {
  /** Called with each warning of the Vega-Lite compiler or the Vega runtime. */
  onWarning?: (message: string) => void;
  /** Scale factor of the SVG's width and height (default 1). */
  scale?: number;
  /**
   * Prefix for every element id in the SVG (and the `url(#…)` references to
   * them). Vega numbers clip paths and gradients from 1 in every SVG, so
   * several SVGs inlined in one HTML page need distinct prefixes.
   */
  idPrefix?: string;
}

function _refusal(what: string): TypeError {
  return new TypeError(
    `figures must inline their data (data.values); refusing to load ${JSON.stringify(what)}`,
  );
}

function _inlineOnlyLoader(refusals: TypeError[]): vega.Loader {
  const refuse = (what: string) => {
    const e = _refusal(what);
    refusals.push(e);
    return Promise.reject(e);
  };
  return { ...vega.loader(), load: refuse, sanitize: refuse, http: refuse, file: refuse };
}

function _logger(onWarning: ((message: string) => void) | undefined, level: number) {
  const emit = (...args: readonly unknown[]) => onWarning?.(args.map(String).join(" "));
  let current = level;
  const logger = {
    level(l?: number) {
      if (l === undefined) return current;
      current = l;
      return logger;
    },
    error(...args: readonly unknown[]) {
      emit(...args);
      return logger;
    },
    warn(...args: readonly unknown[]) {
      emit(...args);
      return logger;
    },
    info() {
      return logger;
    },
    debug() {
      return logger;
    },
  };
  return logger;
}

/**
 * Render a Vega-Lite specification with inline data to an SVG string.
 *
 * @param spec A Vega-Lite (v5/v6) top-level specification object.
 * @param options Warning callback and scale.
 * @returns The SVG markup (`<svg …>…</svg>`).
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { renderSvg } from "./render.ts";
 * const svg = await renderSvg({
 *   data: { values: [{ x: 1, y: 2 }, { x: 2, y: 1 }] },
 *   mark: "point",
 *   encoding: { x: { field: "x", type: "quantitative" }, y: { field: "y", type: "quantitative" } },
 * });
 * assert.ok(svg.startsWith("<svg"));
 * ```
 */
export async function renderSvg(
  spec: Record<string, unknown>,
  options: RenderSvgOptions = {},
): Promise<string> {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
    throw new TypeError(`spec must be a Vega-Lite specification object, got ${_describe(spec)}`);
  }
  const scale = options.scale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) {
    throw new RangeError(`scale must be a positive finite number, got ${scale}`);
  }
  const idPrefix = options.idPrefix ?? "";
  if (!/^[A-Za-z0-9_-]*$/.test(idPrefix)) {
    throw new TypeError(
      `idPrefix may hold only letters, digits, "_" and "-", got ${JSON.stringify(idPrefix)}`,
    );
  }
  spec = _withSmallNumberLabels(spec);
  const logger = _logger(options.onWarning, vega.Warn);
  const refusals: TypeError[] = [];
  // deno-lint-ignore no-explicit-any
  const compiled = vegaLite.compile(spec as any, { logger: logger as any }).spec;
  const view = new vega.View(vega.parse(compiled), {
    renderer: "none",
    loader: _inlineOnlyLoader(refusals),
    logger: logger as unknown as vega.LoggerInterface,
    logLevel: vega.Warn,
  });
  let svg: string;
  try {
    svg = await view.toSVG(scale);
  } finally {
    view.finalize();
  }
  if (refusals.length > 0) throw refusals[0];
  return idPrefix === "" ? svg : _prefixIds(svg, idPrefix);
}

/**
 * Quantitative axis labels below 1e-3 in magnitude in scientific notation
 * ("5.8e-6", not "0.0000058"), as in the report's tables; a spec's own
 * `config.axisQuantitative` settings win.
 */
const _SMALL_LABEL_EXPR =
  "isNumber(datum.value) && abs(datum.value) > 0 && abs(datum.value) < 1e-3 ? format(datum.value, '.2~e') : datum.label";

function _withSmallNumberLabels(spec: Record<string, unknown>): Record<string, unknown> {
  const config = (spec.config ?? {}) as Record<string, unknown>;
  const axisQ = (config.axisQuantitative ?? {}) as Record<string, unknown>;
  return {
    ...spec,
    config: { ...config, axisQuantitative: { labelExpr: _SMALL_LABEL_EXPR, ...axisQ } },
  };
}

/** Prefix `id="…"`, `url(#…)` and `href="#…"` in SVG markup. */
function _prefixIds(svg: string, prefix: string): string {
  return svg
    .replace(/(\s)id="([^"]+)"/g, (_, sp, id) => `${sp}id="${prefix}${id}"`)
    .replace(/url\(#([^)]+)\)/g, (_, id) => `url(#${prefix}${id})`)
    .replace(/href="#([^"]+)"/g, (_, id) => `href="#${prefix}${id}"`);
}

function _describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v;
}
