/// <reference lib="dom" />
/**
 * The demo page's live plots of the streamed draws: traces and densities,
 * one panel per parameter and one colour per chain, redrawn whole (`draw()`)
 * or one panel per step (`steps()`), so that a caller can give the page's
 * thread back between panels while the sampler streams draws.
 *
 * @module
 */
import {
  _context,
  _cssWidth,
  _dashed,
  _kde,
  _panel,
  _range,
  _tick,
  CHAIN_COLOURS,
} from "./canvas.ts";

/** One plotted draw: chain (1-based, as text), iteration, parameter, value, generating value. */
export interface PlotRow {
  /** Chain, 1-based, as text. */
  chain: string;
  /** Sampling iteration (0-based). */
  iteration: number;
  /** Parameter name. */
  param: string;
  /** Its value. */
  value: number;
  /** The generating value (synthetic data), or null. */
  truth: number | null;
}

/**
 * A live plot of the streamed draws — traces (value against iteration) or
 * densities (a Gaussian kernel density per chain, Silverman's bandwidth) —
 * one panel per parameter, one colour per chain, drawn on a canvas. Rows are
 * added as they arrive; `draw()` redraws everything, `steps()` the same one
 * panel per step (a millisecond or two each), so that a redraw can be spread
 * over several frames.
 */
export class LivePlot {
  /** Every row added, in order (what `data("draws")` returns). */
  readonly rows: PlotRow[] = [];
  private readonly series = new Map<string, { x: number[]; y: number[] }[]>();
  private readonly truths = new Map<string, number>();
  /** CSS width, kept up to date by a ResizeObserver (0: not known yet). */
  private width = 0;
  private readonly observer: ResizeObserver | null = null;

  /**
   * @param canvas Where to draw.
   * @param kind "trace" or "density".
   * @param params The parameters, one panel each, in this order.
   * @param numIterations Sampling iterations per chain (the trace's x range).
   */
  constructor(
    readonly canvas: HTMLCanvasElement,
    readonly kind: "trace" | "density",
    readonly params: readonly string[],
    readonly numIterations: number,
  ) {
    if (typeof ResizeObserver !== "undefined") {
      this.observer = new ResizeObserver((entries) => {
        const w = entries[entries.length - 1].contentRect.width;
        if (w > 0) this.width = Math.max(200, w);
      });
      this.observer.observe(canvas);
    }
  }

  /** The rows added (the name is ignored; kept for the tests, which ask for "draws"). */
  data(_name = "draws"): PlotRow[] {
    return this.rows;
  }

  /** Add rows (not drawn until {@link draw}). */
  add(rows: readonly PlotRow[]): void {
    for (const r of rows) {
      this.rows.push(r);
      let s = this.series.get(r.param);
      if (s === undefined) this.series.set(r.param, s = []);
      const c = Number(r.chain) - 1;
      while (s.length <= c) s.push({ x: [], y: [] });
      s[c].x.push(r.iteration);
      s[c].y.push(r.value);
      if (r.truth !== null) this.truths.set(r.param, r.truth);
    }
  }

  /** Forget the rows (and stop watching the canvas's size). */
  finalize(): void {
    this.rows.length = 0;
    this.series.clear();
    this.truths.clear();
    this.observer?.disconnect();
  }

  /** Redraw every panel. */
  draw(): void {
    for (const _ of this.steps());
  }

  /**
   * Redraw one panel per step: each step clears its panel's band of the
   * canvas and draws it, so that the other panels stay on screen meanwhile.
   */
  *steps(): Generator<void, void, undefined> {
    const panelH = Math.max(60, Math.min(110, 420 / Math.max(1, this.params.length)));
    const gap = this.kind === "trace" ? 8 : 16; // densities label their x axis under each panel
    if (this.width === 0) this.width = _cssWidth(this.canvas);
    const height = this.params.length * (panelH + gap) + 22;
    const { g, w } = _context(this.canvas, height, this.width, false);
    const left = 54, right = 8, pw = w - left - right;
    for (let p = 0; p < this.params.length; p++) {
      const param = this.params[p];
      const y0 = 4 + p * (panelH + gap), h = panelH;
      const bandTop = p === 0 ? 0 : y0;
      const bandBottom = p === this.params.length - 1 ? height : y0 + panelH + gap;
      g.clearRect(0, bandTop, w, bandBottom - bandTop);
      const chains = this.series.get(param) ?? [];
      const truth = this.truths.get(param) ?? null;
      if (this.kind === "trace") {
        const yr = _range([...chains.flatMap((c) => c.y), ...(truth === null ? [] : [truth])]);
        const xr: [number, number] = [0, Math.max(1, this.numIterations - 1)];
        _panel(g, left, y0, pw, h, yr, param);
        chains.forEach((c, k) => {
          g.strokeStyle = CHAIN_COLOURS[k % CHAIN_COLOURS.length];
          g.globalAlpha = 0.85;
          g.lineWidth = 0.8;
          g.beginPath();
          for (let i = 0; i < c.x.length; i++) {
            const px = left + ((c.x[i] - xr[0]) / (xr[1] - xr[0])) * pw;
            const py = y0 + h - ((c.y[i] - yr[0]) / (yr[1] - yr[0])) * h;
            if (i === 0) g.moveTo(px, py);
            else g.lineTo(px, py);
          }
          g.stroke();
        });
        g.globalAlpha = 1;
        if (truth !== null) {
          _dashed(g, left, left + pw, y0 + h - ((truth - yr[0]) / (yr[1] - yr[0])) * h, true);
        }
        if (p === this.params.length - 1) {
          g.fillStyle = "#666";
          g.textAlign = "left";
          g.fillText("0", left, y0 + h + 10);
          g.textAlign = "right";
          g.fillText(`${xr[1]} (iteration)`, left + pw, y0 + h + 10);
        }
      } else {
        const all = chains.flatMap((c) => c.y);
        const xr = _range([...all, ...(truth === null ? [] : [truth])]);
        const grid = 64;
        const curves = chains.map((c) => _kde(c.y, xr, grid));
        let top = 0;
        for (const cv of curves) for (const v of cv) top = Math.max(top, v);
        const yr: [number, number] = [0, top > 0 ? top * 1.05 : 1];
        _panel(g, left, y0, pw, h, null, param);
        curves.forEach((cv, k) => {
          if (cv.length === 0) return;
          g.strokeStyle = CHAIN_COLOURS[k % CHAIN_COLOURS.length];
          g.fillStyle = CHAIN_COLOURS[k % CHAIN_COLOURS.length];
          g.beginPath();
          g.moveTo(left, y0 + h);
          for (let i = 0; i < grid; i++) {
            g.lineTo(left + (i / (grid - 1)) * pw, y0 + h - (cv[i] / yr[1]) * h);
          }
          g.lineTo(left + pw, y0 + h);
          g.globalAlpha = 0.3;
          g.fill();
          g.globalAlpha = 1;
          g.stroke();
        });
        if (truth !== null) {
          const tx = left + ((truth - xr[0]) / (xr[1] - xr[0])) * pw;
          _dashed(g, y0, y0 + h, tx, false);
        }
        g.fillStyle = "#666";
        g.textAlign = "left";
        g.fillText(_tick(xr[0]), left, y0 + h + 8);
        g.textAlign = "right";
        g.fillText(_tick(xr[1]), left + pw, y0 + h + 8);
      }
      yield;
    }
  }
}
