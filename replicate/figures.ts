/**
 * Vega-Lite specifications for the figures experiments draw most often:
 * trace plots and posterior densities (KDE) with reference values marked.
 * Each builder returns a plain spec object with inline data, ready for a
 * `ResultFigure` (see `experiment.ts`); {@link renderSvg} turns it into SVG.
 *
 * Keep figures small: traces are thinned to `maxPointsPerChain` points and
 * densities use ~100 grid points, so an SVG stays well under a megabyte.
 *
 * @module
 */

import { kde } from "../diagnostics/kde.ts";

/** Vega-Lite schema URL used by the builders (a label only; never fetched). */
export const VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";

/** Options of {@link traceSpec}. */
export interface TraceSpecOptions {
  /** Figure title. */
  title?: string;
  /** Keep at most this many points per chain and parameter (default 400; draws are thinned evenly). */
  maxPointsPerChain?: number;
  /** Width of each panel in pixels (default 520). */
  width?: number;
  /** Height of each panel in pixels (default 90). */
  height?: number;
}

/** One parameter's draws for {@link traceSpec} / {@link densitySpec}. */
export interface ParameterDraws {
  /** Parameter name (panel title). */
  name: string;
  /** One array of draws per chain. */
  chains: readonly ArrayLike<number>[];
}

/**
 * A trace plot: one panel per parameter (stacked), draw index on x, value on
 * y, one line per chain.
 *
 * @param parameters The parameters to show, each with its chains' draws.
 * @param options Title, thinning and panel size.
 * @returns A Vega-Lite spec with inline data.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { traceSpec } from "./figures.ts";
 * const spec = traceSpec([{ name: "a", chains: [[0, 1, 0.5], [1, 0, 0.2]] }]);
 * assert.ok(Array.isArray((spec.data as { values: unknown[] }).values));
 * ```
 */
export function traceSpec(
  parameters: readonly ParameterDraws[],
  options: TraceSpecOptions = {},
): Record<string, unknown> {
  const maxPoints = options.maxPointsPerChain ?? 400;
  if (!Number.isInteger(maxPoints) || maxPoints < 2) {
    throw new RangeError(`maxPointsPerChain must be an integer ≥ 2, got ${maxPoints}`);
  }
  const values: { parameter: string; chain: string; iteration: number; value: number }[] = [];
  for (const p of parameters) {
    p.chains.forEach((draws, c) => {
      const n = draws.length;
      const stride = Math.max(1, Math.ceil(n / maxPoints));
      for (let i = 0; i < n; i += stride) {
        values.push({
          parameter: p.name,
          chain: `chain ${c + 1}`,
          iteration: i + 1,
          value: draws[i],
        });
      }
    });
  }
  return {
    $schema: VEGA_LITE_SCHEMA,
    ...(options.title ? { title: options.title } : {}),
    data: { values },
    facet: {
      row: {
        field: "parameter",
        type: "nominal",
        title: null,
        sort: parameters.map((p) => p.name),
      },
    },
    spec: {
      width: options.width ?? 520,
      height: options.height ?? 90,
      mark: { type: "line", strokeWidth: 0.8, opacity: 0.85 },
      encoding: {
        x: { field: "iteration", type: "quantitative", title: "draw" },
        y: { field: "value", type: "quantitative", title: null, scale: { zero: false } },
        color: { field: "chain", type: "nominal", title: null },
      },
    },
    resolve: { scale: { y: "independent" } },
  };
}

/** A vertical reference line in a density panel (e.g. the true value). */
export interface ReferenceValue {
  /** Parameter (panel) it belongs to. */
  parameter: string;
  /** Legend label, e.g. "true value", "analytic mean". */
  label: string;
  /** Where the line is drawn. */
  value: number;
}

/** A reference density curve drawn beside the KDE (e.g. the analytic posterior). */
export interface ReferenceCurve {
  /** Parameter (panel) it belongs to. */
  parameter: string;
  /** Legend label, e.g. "analytic posterior". */
  label: string;
  /** Density as a function of the parameter value. */
  densityFn: (x: number) => number;
}

/** Options of {@link densitySpec}. */
export interface DensitySpecOptions {
  /** Figure title. */
  title?: string;
  /** Legend label of the KDE curves (default "HMC (KDE)"). */
  label?: string;
  /** Vertical lines (true values, analytic means). */
  references?: readonly ReferenceValue[];
  /** Extra density curves (analytic posteriors). */
  curves?: readonly ReferenceCurve[];
  /** Grid points per KDE (default 100). */
  numPoints?: number;
  /** Panels per row (default 3). */
  columns?: number;
  /** Panel width (default 180). */
  width?: number;
  /** Panel height (default 120). */
  height?: number;
}

/**
 * Posterior densities: one panel per parameter with the kernel density
 * estimate of all chains' draws pooled, optional reference curves (dashed)
 * and reference values (vertical rules).
 *
 * @param parameters The parameters to show, each with its chains' draws.
 * @param options References, curves, labels and layout.
 * @returns A Vega-Lite spec with inline data.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { densitySpec } from "./figures.ts";
 * const spec = densitySpec([{ name: "a", chains: [[0, 1, 0.5, 0.7], [1, 0, 0.2, 0.4]] }], {
 *   references: [{ parameter: "a", label: "true value", value: 0.5 }],
 * });
 * assert.equal(typeof spec.facet, "object");
 * ```
 */
export function densitySpec(
  parameters: readonly ParameterDraws[],
  options: DensitySpecOptions = {},
): Record<string, unknown> {
  const numPoints = options.numPoints ?? 100;
  const label = options.label ?? "HMC (KDE)";
  const values: Record<string, string | number>[] = [];
  for (const p of parameters) {
    let total = 0;
    for (const c of p.chains) total += c.length;
    const pooled = new Float64Array(total);
    let k = 0;
    for (const c of p.chains) for (let i = 0; i < c.length; i++) pooled[k++] = c[i];
    const est = kde(pooled, { numPoints });
    for (let i = 0; i < est.x.length; i++) {
      values.push({
        kind: "curve",
        parameter: p.name,
        series: label,
        x: est.x[i],
        density: est.density[i],
      });
    }
    for (const curve of options.curves ?? []) {
      if (curve.parameter !== p.name) continue;
      for (let i = 0; i < est.x.length; i++) {
        values.push({
          kind: "curve",
          parameter: p.name,
          series: curve.label,
          x: est.x[i],
          density: curve.densityFn(est.x[i]),
        });
      }
    }
  }
  for (const r of options.references ?? []) {
    values.push({ kind: "rule", parameter: r.parameter, series: r.label, x: r.value });
  }
  // Fixed colours: the KDE blue, reference curves orange/green/purple, reference lines red/black/grey.
  const curveLabels = [...new Set((options.curves ?? []).map((c) => c.label))];
  const ruleLabels = [...new Set((options.references ?? []).map((r) => r.label))];
  const curveColors = ["#f58518", "#54a24b", "#b279a2", "#9d755d"];
  const ruleColors = ["#d62728", "#222222", "#7f7f7f", "#e377c2"];
  const color = {
    field: "series",
    type: "nominal",
    title: null,
    scale: {
      domain: [label, ...curveLabels, ...ruleLabels],
      range: [
        "#4c78a8",
        ...curveLabels.map((_, i) => curveColors[i % curveColors.length]),
        ...ruleLabels.map((_, i) => ruleColors[i % ruleColors.length]),
      ],
    },
  };
  return {
    $schema: VEGA_LITE_SCHEMA,
    ...(options.title ? { title: options.title } : {}),
    data: { values },
    facet: {
      field: "parameter",
      type: "nominal",
      title: null,
      sort: parameters.map((p) => p.name),
    },
    columns: options.columns ?? 3,
    spec: {
      width: options.width ?? 180,
      height: options.height ?? 120,
      layer: [
        {
          transform: [{ filter: "datum.kind === 'curve'" }],
          mark: { type: "line", strokeWidth: 1.5 },
          encoding: {
            x: { field: "x", type: "quantitative", title: null, scale: { zero: false } },
            y: { field: "density", type: "quantitative", title: null },
            color,
            strokeDash: {
              condition: { test: `datum.series === ${JSON.stringify(label)}`, value: [1, 0] },
              value: [5, 3],
            },
          },
        },
        {
          transform: [{ filter: "datum.kind === 'rule'" }],
          mark: { type: "rule", strokeWidth: 1.5 },
          encoding: { x: { field: "x", type: "quantitative" }, color },
        },
      ],
    },
    resolve: { scale: { x: "independent", y: "independent" } },
  };
}

/**
 * Keep at most `max` evenly spaced elements, always including the first and last.
 *
 * @param items The sequence.
 * @param max Largest number kept (≥ 2).
 * @returns The thinned sequence (the input if short enough).
 * @example
 * ```ts
 * import { thinEvenly } from "./figures.ts";
 * import { strict as assert } from "node:assert";
 * assert.deepEqual(thinEvenly([0, 1, 2, 3, 4, 5, 6, 7, 8], 3), [0, 4, 8]);
 * ```
 * References: none (plotting helper).
 */
export function thinEvenly<T>(items: readonly T[], max: number): T[] {
  if (!Number.isInteger(max) || max < 2) {
    throw new RangeError(`max must be an integer ≥ 2, got ${max}`);
  }
  if (items.length <= max) return [...items];
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(items[Math.round((i * (items.length - 1)) / (max - 1))]);
  return out;
}
