/**
 * Fig. 6 of the HMC-ECS paper as a Vega-Lite spec: binned empirical event
 * frequencies against one covariate, with each method's predicted mean curve
 * and pointwise 90 % band (R4).
 *
 * @module
 */
import { VEGA_LITE_SCHEMA } from "./figures.ts";
import type { PredictedBand } from "./predictive.ts";

/**
 * One facet per method: band (area), predicted mean (line), empirical
 * frequencies (points).
 *
 * @param name The covariate's name (axis and title).
 * @param empirical Group means x and event frequencies y.
 * @param bands Predicted bands per method, in facet order.
 * @returns A Vega-Lite spec with inline data.
 * References: Dang et al. (2019), Fig. 6.
 */
export function probabilityBandSpec(
  name: string,
  empirical: { x: number[]; y: number[] },
  bands: { method: string; band: PredictedBand }[],
): Record<string, unknown> {
  const values: Record<string, string | number>[] = [];
  for (const { method, band } of bands) {
    for (let g = 0; g < empirical.x.length; g++) {
      values.push({
        method,
        kind: "predicted",
        x: empirical.x[g],
        mean: band.mean[g],
        lo: band.lo[g],
        hi: band.hi[g],
      });
      values.push({ method, kind: "empirical", x: empirical.x[g], y: empirical.y[g] });
    }
  }
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: `Fig. 6 — predicted and realised bankruptcy probability vs ${name}`,
    data: { values },
    facet: {
      column: { field: "method", type: "nominal", title: null, sort: bands.map((b) => b.method) },
    },
    spec: {
      width: 280,
      height: 220,
      layer: [
        {
          transform: [{ filter: "datum.kind === 'predicted'" }],
          mark: { type: "area", opacity: 0.3, color: "#7f7f7f" },
          encoding: {
            x: { field: "x", type: "quantitative", title: `${name} (group mean)` },
            y: { field: "lo", type: "quantitative", title: "probability of bankruptcy" },
            y2: { field: "hi" },
          },
        },
        {
          transform: [{ filter: "datum.kind === 'predicted'" }],
          mark: { type: "line", color: "#222", strokeWidth: 1.5 },
          encoding: {
            x: { field: "x", type: "quantitative" },
            y: { field: "mean", type: "quantitative" },
          },
        },
        {
          transform: [{ filter: "datum.kind === 'empirical'" }],
          mark: { type: "point", filled: true, size: 16, color: "#1f77b4" },
          encoding: {
            x: { field: "x", type: "quantitative" },
            y: { field: "y", type: "quantitative" },
          },
        },
      ],
    },
  };
}
