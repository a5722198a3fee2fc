/**
 * The figures of the HMC-ECS cost comparisons R2 and R4 as Vega-Lite specs:
 * marginal densities of every method against full-data HMC (Figs. 1/4) and
 * posterior means and variances against full-data HMC (Figs. 2/5), with the
 * seeded choice of the parameters they show.
 *
 * References: Dang, Quiroz, Kohn, Tran & Villani (2019), JMLR 20, Figs. 1, 2,
 * 4 and 5.
 *
 * @module
 */
import { kde, type KdeResult } from "../diagnostics/mod.ts";
import { Rng } from "../random/rng.ts";
import { VEGA_LITE_SCHEMA } from "./figures.ts";
import type { MethodOutcome } from "./method_outcome.ts";
import { pooledDraws } from "./moment_errors.ts";

/**
 * The "four randomly chosen parameters" of Figs. 1/4: up to 4 distinct
 * indices below `d`, drawn with a seeded generator, in increasing order.
 *
 * @param d Number of parameters.
 * @param seed Seed of the choice.
 * @returns The indices.
 */
export function randomParameters(d: number, seed: string): number[] {
  const rng = new Rng(seed);
  return Array.from(rng.sampleWithoutReplacement(d, Math.min(4, d))).sort((a, b) => a - b);
}

/**
 * Figs. 1/4: a grid of density panels, one row per method, one column per
 * parameter, each with the method's KDE and full-data HMC's.
 *
 * @param methods The methods (signed HMC-ECS: KDE of the raw draws).
 * @param reference Full-data HMC.
 * @param params Parameter indices to show.
 * @param title Figure title.
 * @returns A Vega-Lite spec.
 */
export function densityGridSpec(
  methods: readonly MethodOutcome[],
  reference: MethodOutcome,
  params: readonly number[],
  title: string,
): Record<string, unknown> {
  const values: Record<string, string | number>[] = [];
  const names = reference.result.parameterNames;
  for (const j of params) {
    const refKde = kde(pooledDraws(reference.result, j), { numPoints: 60 });
    const push = (method: string, series: string, est: KdeResult) => {
      for (let i = 0; i < est.x.length; i++) {
        values.push({ method, parameter: names[j], series, x: est.x[i], density: est.density[i] });
      }
    };
    for (const o of methods) {
      if (o.unstable) continue;
      push(o.label, "method", kde(pooledDraws(o.result, j), { numPoints: 60 }));
      push(o.label, "HMC (full data)", refKde);
    }
  }
  return {
    $schema: VEGA_LITE_SCHEMA,
    title,
    data: { values },
    facet: {
      row: {
        field: "method",
        type: "nominal",
        title: null,
        sort: methods.map((m) => m.label),
        header: { labelAngle: 0, labelAlign: "left", labelLimit: 200 },
      },
      column: {
        field: "parameter",
        type: "nominal",
        title: null,
        sort: params.map((j) => names[j]),
      },
    },
    spec: {
      width: 150,
      height: 70,
      mark: { type: "line", strokeWidth: 1.3 },
      encoding: {
        x: { field: "x", type: "quantitative", title: null, scale: { zero: false } },
        y: { field: "density", type: "quantitative", title: null, axis: { labels: false } },
        color: {
          field: "series",
          type: "nominal",
          title: null,
          scale: { domain: ["method", "HMC (full data)"], range: ["#2ca02c", "#d62728"] },
        },
      },
    },
    resolve: { scale: { x: "independent", y: "independent" } },
  };
}

/**
 * Figs. 2/5: posterior mean and variance of every parameter, each method
 * against full-data HMC, with the identity line; in every panel x and y
 * share one domain (the range of both), so the line is the diagonal.
 *
 * @param methods The methods.
 * @param reference Full-data HMC.
 * @param title Figure title.
 * @returns A Vega-Lite spec.
 */
export function momentScatterSpec(
  methods: readonly MethodOutcome[],
  reference: MethodOutcome,
  title: string,
): Record<string, unknown> {
  const values: Record<string, string | number>[] = [];
  const names = reference.result.parameterNames;
  for (const o of methods) {
    if (o.unstable) continue;
    for (const statistic of ["mean", "variance"] as const) {
      let lo = Infinity, hi = -Infinity;
      for (let j = 0; j < names.length; j++) {
        const hmc = reference.moments[statistic][j], estimate = o.moments[statistic][j];
        values.push({
          method: o.label,
          statistic,
          kind: "point",
          parameter: names[j],
          hmc,
          estimate,
        });
        if (Number.isFinite(hmc) && Number.isFinite(estimate)) {
          lo = Math.min(lo, hmc, estimate);
          hi = Math.max(hi, hmc, estimate);
        }
      }
      // The identity line spans [lo, hi] on both axes, so each panel's x and
      // y scales (independent across panels) get the same domain.
      if (lo <= hi) {
        for (const v of [lo, hi]) {
          values.push({ method: o.label, statistic, kind: "identity", hmc: v, estimate: v });
        }
      }
    }
  }
  const axisScale = { zero: false };
  return {
    $schema: VEGA_LITE_SCHEMA,
    title,
    data: { values },
    facet: {
      row: { field: "statistic", type: "nominal", title: null },
      column: { field: "method", type: "nominal", title: null, sort: methods.map((m) => m.label) },
    },
    spec: {
      width: 130,
      height: 130,
      layer: [
        {
          transform: [{ filter: "datum.kind === 'identity'" }],
          mark: { type: "line", color: "#999", strokeDash: [4, 3], strokeWidth: 1 },
          encoding: {
            x: { field: "hmc", type: "quantitative", scale: axisScale },
            y: { field: "estimate", type: "quantitative", scale: axisScale },
          },
        },
        {
          transform: [{ filter: "datum.kind === 'point'" }],
          mark: { type: "point", filled: true, size: 18, color: "#2ca02c" },
          encoding: {
            x: { field: "hmc", type: "quantitative", title: "HMC (full data)", scale: axisScale },
            y: { field: "estimate", type: "quantitative", title: "method", scale: axisScale },
            tooltip: [{ field: "parameter" }, { field: "hmc" }, { field: "estimate" }],
          },
        },
      ],
    },
    resolve: { scale: { x: "independent", y: "independent" } },
  };
}
