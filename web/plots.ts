/// <reference lib="dom" />
/**
 * The demo page's plots of a finished run drawn on a canvas by hand — rank
 * plots, the pairs plot and the posterior predictive check — each redrawn in
 * a few milliseconds, the rank plots one panel at a time (`rankSteps`), so
 * that a caller can give the page's thread back between panels. The live
 * trace and density plots are in live_plot.ts, the drawing primitives they
 * share in canvas.ts.
 *
 * Rank plots (Vehtari, Gelman, Simpson, Carpenter & Bürkner 2021, "Rank-
 * normalization, folding, and localization: an improved R̂", §4): the draws of
 * all chains are ranked together; each chain's ranks are binned in a
 * histogram, which is flat when every chain samples the same distribution.
 *
 * @module
 */
import { _byChain, _context, _panel, _range, _tick, CHAIN_COLOURS } from "./canvas.ts";
import type { PpcView } from "./protocol.ts";

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
