/// <reference lib="dom" />
/**
 * The demo page's plots drawn on a canvas by hand — rank plots, the pairs
 * plot, the posterior predictive check, and the live trace and density
 * plots — each redrawn in a few milliseconds, and the live plots and rank
 * plots one panel at a time (`steps()`, `rankSteps`), so that a caller can
 * give the page's thread back between panels while the sampler streams draws.
 *
 * Rank plots (Vehtari, Gelman, Simpson, Carpenter & Bürkner 2021, "Rank-
 * normalization, folding, and localization: an improved R̂", §4): the draws of
 * all chains are ranked together; each chain's ranks are binned in a
 * histogram, which is flat when every chain samples the same distribution.
 *
 * @module
 */
import type { PpcView } from "./protocol.ts";

/** Chain colours (colour-blind safe, Okabe & Ito). */
export const CHAIN_COLOURS = [
  "#0072b2",
  "#e69f00",
  "#009e73",
  "#cc79a7",
  "#56b4e9",
  "#d55e00",
  "#f0e442",
  "#000000",
];

/** The CSS width a canvas is drawn at: its element's (reading it lays the page out). */
function _cssWidth(canvas: HTMLCanvasElement): number {
  return Math.max(200, canvas.clientWidth || canvas.parentElement?.clientWidth || 400);
}

/**
 * A canvas of `width` (CSS px; default its element's) and `height`, scaled
 * for the screen. Its bitmap is resized (and so cleared) only when its size
 * changes; `clear` clears it otherwise.
 */
function _context(
  canvas: HTMLCanvasElement,
  height: number,
  width = _cssWidth(canvas),
  clear = true,
): {
  g: CanvasRenderingContext2D;
  w: number;
  h: number;
} {
  const w = width;
  const ratio = globalThis.devicePixelRatio || 1;
  const pw = Math.round(w * ratio), ph = Math.round(height * ratio);
  if (canvas.width !== pw || canvas.height !== ph) {
    canvas.width = pw;
    canvas.height = ph;
    canvas.style.height = `${height}px`;
  }
  const g = canvas.getContext("2d")!;
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  if (clear) g.clearRect(0, 0, w, height);
  g.font = "10px system-ui, sans-serif";
  g.textBaseline = "middle";
  return { g, w, h: height };
}

/** A short number for an axis label. */
function _tick(v: number): string {
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-3) return v.toExponential(1).replace("-", "−");
  return Number(v.toPrecision(3)).toString().replace("-", "−");
}

/** The range of `values` (finite ones), widened a little; [−1, 1] when empty. */
function _range(values: Iterable<number>): [number, number] {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo > hi) return [-1, 1];
  if (lo === hi) return [lo - 1, hi + 1];
  const pad = 0.04 * (hi - lo);
  return [lo - pad, hi + pad];
}

/** A panel: a frame, y-axis ticks at its ends, a title on the left. */
function _panel(
  g: CanvasRenderingContext2D,
  x: number,
  y: number,
  w: number,
  h: number,
  yRange: [number, number] | null,
  title: string,
): void {
  g.strokeStyle = "#ccc";
  g.lineWidth = 1;
  g.strokeRect(x + 0.5, y + 0.5, w, h);
  g.fillStyle = "#333";
  g.textAlign = "left";
  g.fillText(title, x + 4, y + 8);
  if (yRange !== null) {
    g.textAlign = "right";
    g.fillStyle = "#666";
    g.fillText(_tick(yRange[1]), x - 3, y + 5);
    g.fillText(_tick(yRange[0]), x - 3, y + h - 5);
  }
}

/** Draws `[chain, iteration, θ…]` rows by chain (rows in any order). */
function _byChain(rows: readonly number[][], numChains: number): number[][][] {
  const out: number[][][] = Array.from({ length: numChains }, () => []);
  for (const r of rows) {
    while (out.length <= r[0]) out.push([]);
    out[r[0]].push(r);
  }
  for (const c of out) c.sort((a, b) => a[1] - b[1]);
  return out;
}

/**
 * Rank plots: one row of panels per parameter, one panel per chain, a
 * histogram of the chain's ranks in 20 bins, with the count a uniform
 * histogram would have (dashed).
 *
 * @param canvas The canvas.
 * @param rows Draw rows `[chain, iteration, θ…]`.
 * @param names All parameter names (the columns of the rows after the first two).
 * @param show The parameters to plot.
 * @param numChains Chains of the run.
 */
export function drawRanks(
  canvas: HTMLCanvasElement,
  rows: readonly number[][],
  names: readonly string[],
  show: readonly string[],
  numChains: number,
): void {
  for (const _ of rankSteps(canvas, rows, names, show, numChains));
}

/**
 * {@link drawRanks} one parameter at a time: each step ranks one
 * parameter's draws and draws its row of panels, so that a caller can
 * spread the plot over several tasks.
 */
export function* rankSteps(
  canvas: HTMLCanvasElement,
  rows: readonly number[][],
  names: readonly string[],
  show: readonly string[],
  numChains: number,
): Generator<void, void, undefined> {
  const bins = 20;
  const chains = _byChain(rows, numChains).filter((c) => c.length > 0);
  const rowH = 62;
  const { g, w } = _context(canvas, Math.max(80, show.length * rowH + 16));
  if (chains.length === 0) return;
  const left = 40, gap = 6;
  const panelW = (w - left - 4 - gap * (chains.length - 1)) / chains.length;
  for (let p = 0; p < show.length; p++) {
    const name = show[p];
    const j = names.indexOf(name);
    if (j < 0) continue;
    const pooled: { v: number; c: number }[] = [];
    chains.forEach((ch, c) => {
      for (const r of ch) pooled.push({ v: r[2 + j], c });
    });
    pooled.sort((a, b) => a.v - b.v);
    const counts = chains.map(() => new Float64Array(bins));
    const total = pooled.length;
    // Ties share their average rank.
    for (let i = 0; i < total;) {
      let k = i;
      while (k + 1 < total && pooled[k + 1].v === pooled[i].v) k++;
      const rank = (i + k) / 2;
      for (let m = i; m <= k; m++) {
        counts[pooled[m].c][Math.min(bins - 1, Math.floor((rank / total) * bins))]++;
      }
      i = k + 1;
    }
    let max = 0;
    for (const c of counts) for (const v of c) max = Math.max(max, v);
    const y0 = 8 + p * rowH, h = rowH - 14;
    chains.forEach((ch, c) => {
      const x0 = left + c * (panelW + gap);
      const expected = ch.length / bins;
      const top = Math.max(max, expected) * 1.1;
      _panel(g, x0, y0, panelW, h, c === 0 ? [0, top] : null, c === 0 ? name : "");
      g.fillStyle = CHAIN_COLOURS[c % CHAIN_COLOURS.length];
      g.globalAlpha = 0.75;
      const bw = panelW / bins;
      for (let b = 0; b < bins; b++) {
        const bh = (counts[c][b] / top) * h;
        g.fillRect(x0 + b * bw + 0.5, y0 + h - bh, Math.max(1, bw - 1), bh);
      }
      g.globalAlpha = 1;
      g.strokeStyle = "#333";
      g.setLineDash([4, 3]);
      g.beginPath();
      const ey = y0 + h - (expected / top) * h;
      g.moveTo(x0, ey);
      g.lineTo(x0 + panelW, ey);
      g.stroke();
      g.setLineDash([]);
      if (p === 0) {
        g.fillStyle = "#333";
        g.textAlign = "right";
        g.fillText(`chain ${c + 1}`, x0 + panelW - 3, y0 + 8);
      }
    });
    yield;
  }
}

/**
 * The pairs plot: `y` against `x`, one point per draw (at most 2000, evenly
 * thinned), coloured by chain.
 *
 * @param canvas The canvas.
 * @param rows Draw rows `[chain, iteration, θ…]`.
 * @param jx Index of the x parameter.
 * @param jy Index of the y parameter.
 * @param xName Its name.
 * @param yName Its name.
 */
export function drawPairs(
  canvas: HTMLCanvasElement,
  rows: readonly number[][],
  jx: number,
  jy: number,
  xName: string,
  yName: string,
): void {
  const { g, w, h } = _context(canvas, 300);
  if (jx < 0 || jy < 0 || rows.length === 0) return;
  const step = Math.max(1, Math.ceil(rows.length / 2000));
  const shown = rows.filter((_, i) => i % step === 0);
  const xr = _range(shown.map((r) => r[2 + jx]));
  const yr = _range(shown.map((r) => r[2 + jy]));
  const left = 48, right = 8, top = 8, bottom = 28;
  const pw = w - left - right, ph = h - top - bottom;
  _panel(g, left, top, pw, ph, yr, "");
  g.textAlign = "left";
  g.fillStyle = "#666";
  g.fillText(_tick(xr[0]), left, h - bottom + 10);
  g.textAlign = "right";
  g.fillText(_tick(xr[1]), left + pw, h - bottom + 10);
  g.textAlign = "center";
  g.fillStyle = "#333";
  g.fillText(xName, left + pw / 2, h - 8);
  g.save();
  g.translate(10, top + ph / 2);
  g.rotate(-Math.PI / 2);
  g.fillText(yName, 0, 0);
  g.restore();
  g.globalAlpha = 0.5;
  for (const r of shown) {
    g.fillStyle = CHAIN_COLOURS[r[0] % CHAIN_COLOURS.length];
    const px = left + ((r[2 + jx] - xr[0]) / (xr[1] - xr[0])) * pw;
    const py = top + ph - ((r[2 + jy] - yr[0]) / (yr[1] - yr[0])) * ph;
    g.fillRect(px - 1.5, py - 1.5, 3, 3);
  }
  g.globalAlpha = 1;
}

/**
 * The posterior predictive check: calibration by decile (binary and
 * binomial responses), the density of y against replicated densities
 * (continuous responses), or a rootogram (counts).
 *
 * @param canvas The canvas.
 * @param p The check.
 * @returns A one-line text alternative of what was drawn.
 */
export function drawPpc(canvas: HTMLCanvasElement, p: PpcView): string {
  const { g, w, h } = _context(canvas, 260);
  const left = 48, right = 8, top = 8, bottom = 30;
  const pw = w - left - right, ph = h - top - bottom;
  const sx = (v: number, r: [number, number]) => left + ((v - r[0]) / (r[1] - r[0])) * pw;
  const sy = (v: number, r: [number, number]) => top + ph - ((v - r[0]) / (r[1] - r[0])) * ph;
  const xLabels = (r: [number, number], label: string) => {
    g.fillStyle = "#666";
    g.textAlign = "left";
    g.fillText(_tick(r[0]), left, h - bottom + 10);
    g.textAlign = "right";
    g.fillText(_tick(r[1]), left + pw, h - bottom + 10);
    g.textAlign = "center";
    g.fillStyle = "#333";
    g.fillText(label, left + pw / 2, h - 8);
  };
  if (p.calibration !== null) {
    const r: [number, number] = [0, 1];
    _panel(g, left, top, pw, ph, r, "observed proportion");
    xLabels(r, "mean fitted probability, by decile");
    g.strokeStyle = "#999";
    g.setLineDash([4, 3]);
    g.beginPath();
    g.moveTo(sx(0, r), sy(0, r));
    g.lineTo(sx(1, r), sy(1, r));
    g.stroke();
    g.setLineDash([]);
    g.strokeStyle = CHAIN_COLOURS[0];
    g.fillStyle = CHAIN_COLOURS[0];
    g.beginPath();
    p.calibration.forEach((b, i) => {
      const x = sx(b.predicted, r), y = sy(b.observed, r);
      if (i === 0) g.moveTo(x, y);
      else g.lineTo(x, y);
    });
    g.stroke();
    for (const b of p.calibration) {
      g.beginPath();
      g.arc(sx(b.predicted, r), sy(b.observed, r), 3, 0, 2 * Math.PI);
      g.fill();
    }
    return `Calibration by decile of fitted probability: observed proportion of successes against the mean fitted probability in each of ${p.calibration.length} groups; the dashed diagonal is perfect calibration.`;
  }
  if (p.density !== null) {
    const d = p.density;
    const xr = _range(d.x);
    const yr: [number, number] = [0, _range([...d.observed, ...d.replicated.flat()])[1]];
    _panel(g, left, top, pw, ph, yr, "density");
    xLabels(xr, "response");
    const line = (ys: readonly number[]) => {
      g.beginPath();
      ys.forEach((v, i) => {
        const x = sx(d.x[i], xr), y = sy(v, yr);
        if (i === 0) g.moveTo(x, y);
        else g.lineTo(x, y);
      });
      g.stroke();
    };
    g.strokeStyle = "rgba(0, 114, 178, 0.25)";
    g.lineWidth = 1;
    for (const rep of d.replicated) line(rep);
    g.strokeStyle = "#000";
    g.lineWidth = 2;
    line(d.observed);
    g.lineWidth = 1;
    return `Posterior predictive densities: the density of the observed response (black) over ${d.replicated.length} replicated data sets (blue).`;
  }
  if (p.rootogram !== null) {
    const bins = p.rootogram;
    const xr: [number, number] = [-0.5, bins.length - 0.5];
    const yr: [number, number] = [
      0,
      Math.sqrt(Math.max(1, ...bins.map((b) => Math.max(b.observed, b.expected)))) * 1.05,
    ];
    _panel(g, left, top, pw, ph, yr, "√ rows");
    xLabels([0, bins.length - 1], "count");
    const bw = pw / bins.length;
    g.fillStyle = "rgba(0, 0, 0, 0.35)";
    bins.forEach((b, k) => {
      const y1 = sy(Math.sqrt(b.observed), yr);
      g.fillRect(left + k * bw + 1, y1, Math.max(1, bw - 2), top + ph - y1);
    });
    g.strokeStyle = CHAIN_COLOURS[5];
    g.lineWidth = 2;
    g.beginPath();
    bins.forEach((b, k) => {
      const x = sx(k, xr), y = sy(Math.sqrt(b.expected), yr);
      if (k === 0) g.moveTo(x, y);
      else g.lineTo(x, y);
    });
    g.stroke();
    g.lineWidth = 1;
    return `Rootogram: square root of the number of rows with each count, observed (grey bars) and expected under the posterior (red line), counts 0 to ${
      bins.length - 1
    }.`;
  }
  return "no posterior predictive figure for this family";
}

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

/** A dashed rule: horizontal at y = `at` from a to b, or vertical at x = `at` from a to b. */
function _dashed(
  g: CanvasRenderingContext2D,
  a: number,
  b: number,
  at: number,
  horizontal: boolean,
): void {
  g.strokeStyle = "#333";
  g.setLineDash([4, 3]);
  g.beginPath();
  if (horizontal) {
    g.moveTo(a, at);
    g.lineTo(b, at);
  } else {
    g.moveTo(at, a);
    g.lineTo(at, b);
  }
  g.stroke();
  g.setLineDash([]);
}

/** Gaussian kernel density of `v` on `grid` points over `range` (Silverman's bandwidth). */
function _kde(all: readonly number[], range: [number, number], grid: number): Float64Array {
  // At most 250 draws, evenly spaced: the curve's shape, at a bounded cost per redraw.
  const step = Math.max(1, Math.ceil(all.length / 250));
  const v = step === 1 ? all : all.filter((_, i) => i % step === 0);
  const n = v.length;
  if (n < 2) return new Float64Array(0);
  let m = 0;
  for (const x of v) m += x;
  m /= n;
  let ss = 0;
  for (const x of v) ss += (x - m) ** 2;
  const sd = Math.sqrt(ss / (n - 1));
  const bw = 1.06 * (sd > 0 ? sd : (range[1] - range[0]) / 10) * n ** -0.2;
  const out = new Float64Array(grid);
  const norm = 1 / (n * bw * Math.sqrt(2 * Math.PI));
  for (let i = 0; i < grid; i++) {
    const x = range[0] + (i / (grid - 1)) * (range[1] - range[0]);
    let s = 0;
    for (const xi of v) {
      const z = (x - xi) / bw;
      if (z < 6 && z > -6) s += Math.exp(-0.5 * z * z);
    }
    out[i] = s * norm;
  }
  return out;
}
