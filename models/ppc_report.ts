/**
 * The report of a posterior predictive check (models/ppc.ts): the Vega-Lite
 * specifications of its figures (density overlay, calibration by decile,
 * hanging rootogram) with their data inlined, and its statistics as a text
 * table.
 *
 * References: Kleiber & Zeileis (2016) "Visualizing count data regressions
 * using rootograms", The American Statistician 70(3).
 *
 * @module
 */
import type { PpcResult } from "./ppc.ts";

const _SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";

/**
 * The Vega-Lite specifications of a check's figures, by file stem:
 * `density` (continuous), `calibration` (binary and binomial), `rootogram`
 * (counts: a hanging rootogram of √frequency, observed bars hanging from the
 * √expected curve).
 *
 * @param result A {@link PpcResult}.
 * @returns Specifications with their data inlined.
 */
export function ppcFigureSpecs(result: PpcResult): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const size = { width: 420, height: 260 };
  if (result.density !== null) {
    const { x, observed, replicated } = result.density;
    const values: Record<string, unknown>[] = [];
    replicated.forEach((dens, s) => {
      for (let k = 0; k < x.length; k++) {
        values.push({ y: x[k], density: dens[k], series: `y_rep ${s + 1}`, kind: "replicated" });
      }
    });
    for (let k = 0; k < x.length; k++) {
      values.push({ y: x[k], density: observed[k], series: "y", kind: "observed" });
    }
    out.density = {
      $schema: _SCHEMA,
      ...size,
      title: `Density of y and of ${replicated.length} replicated data sets`,
      data: { values },
      mark: { type: "line" },
      encoding: {
        x: { field: "y", type: "quantitative", title: "y" },
        y: { field: "density", type: "quantitative" },
        detail: { field: "series" },
        color: {
          field: "kind",
          type: "nominal",
          scale: { domain: ["replicated", "observed"], range: ["#9ecae1", "#08306b"] },
        },
        strokeWidth: {
          field: "kind",
          type: "nominal",
          scale: { domain: ["replicated", "observed"], range: [0.6, 2] },
          legend: null,
        },
        opacity: {
          field: "kind",
          type: "nominal",
          scale: { domain: ["replicated", "observed"], range: [0.5, 1] },
          legend: null,
        },
      },
    };
  }
  if (result.calibration !== null) {
    out.calibration = {
      $schema: _SCHEMA,
      ...size,
      title: "Calibration by decile of fitted probability",
      layer: [
        {
          data: { values: [{ p: 0, o: 0 }, { p: 1, o: 1 }] },
          mark: { type: "line", color: "#999999", strokeDash: [4, 4] },
          encoding: {
            x: { field: "p", type: "quantitative", title: "mean fitted probability" },
            y: { field: "o", type: "quantitative", title: "observed proportion" },
          },
        },
        {
          data: { values: result.calibration },
          mark: { type: "line", point: true, color: "#08306b" },
          encoding: {
            x: { field: "predicted", type: "quantitative" },
            y: { field: "observed", type: "quantitative" },
          },
        },
      ],
    };
  }
  if (result.rootogram !== null) {
    const values = result.rootogram.map((b) => ({
      count: b.count,
      top: Math.sqrt(b.expected),
      bottom: Math.sqrt(b.expected) - Math.sqrt(b.observed),
      expected: Math.sqrt(b.expected),
    }));
    out.rootogram = {
      $schema: _SCHEMA,
      ...size,
      title: "Hanging rootogram: observed bars hang from the expected curve",
      data: { values },
      layer: [
        {
          mark: { type: "bar", color: "#9ecae1" },
          encoding: {
            x: { field: "count", type: "ordinal", title: "count" },
            y: { field: "top", type: "quantitative", title: "√frequency" },
            y2: { field: "bottom" },
          },
        },
        {
          mark: { type: "line", point: true, color: "#cb181d" },
          encoding: {
            x: { field: "count", type: "ordinal" },
            y: { field: "expected", type: "quantitative" },
          },
        },
        {
          data: { values: [{ zero: 0 }] },
          mark: { type: "rule", color: "#333333" },
          encoding: { y: { field: "zero", type: "quantitative" } },
        },
      ],
    };
  }
  return out;
}

/**
 * The statistics as a text table (one line per statistic).
 *
 * @param result A {@link PpcResult}.
 * @returns The lines.
 */
export function formatPpcTable(result: PpcResult): string[] {
  const f = (v: number) => {
    if (v === 0 || (Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6)) {
      return String(Number(v.toPrecision(4)));
    }
    return v.toExponential(3);
  };
  const head = ["statistic", "observed", "rep_mean", "rep_q5", "rep_q95", "p", "p_two_sided"];
  const body = result.statistics.map((s) => [
    s.name,
    f(s.observed),
    f(s.replicatedMean),
    f(s.replicatedQ5),
    f(s.replicatedQ95),
    s.pValue.toFixed(3),
    s.pValueTwoSided.toFixed(3),
  ]);
  const widths = head.map((h, k) => Math.max(h.length, ...body.map((r) => r[k].length)));
  return [head, ...body].map((r) =>
    r.map((c, k) => (k === 0 ? c.padEnd(widths[k]) : c.padStart(widths[k]))).join("  ")
  );
}
