/// <reference lib="dom" />
/**
 * The drawing primitives every plot of the demo page shares: the chain
 * colours, a canvas scaled for the screen, panels with their axis ticks,
 * ranges, dashed rules, draws grouped by chain, and a kernel density of at
 * most 250 draws.
 *
 * @module
 */

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
export function _cssWidth(canvas: HTMLCanvasElement): number {
  return Math.max(200, canvas.clientWidth || canvas.parentElement?.clientWidth || 400);
}

/**
 * A canvas of `width` (CSS px; default its element's) and `height`, scaled
 * for the screen. Its bitmap is resized (and so cleared) only when its size
 * changes; `clear` clears it otherwise.
 */
export function _context(
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
export function _tick(v: number): string {
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-3) return v.toExponential(1).replace("-", "−");
  return Number(v.toPrecision(3)).toString().replace("-", "−");
}

/** The range of `values` (finite ones), widened a little; [−1, 1] when empty. */
export function _range(values: Iterable<number>): [number, number] {
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
export function _panel(
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
export function _byChain(rows: readonly number[][], numChains: number): number[][][] {
  const out: number[][][] = Array.from({ length: numChains }, () => []);
  for (const r of rows) {
    while (out.length <= r[0]) out.push([]);
    out[r[0]].push(r);
  }
  for (const c of out) c.sort((a, b) => a[1] - b[1]);
  return out;
}

/** A dashed rule: horizontal at y = `at` from a to b, or vertical at x = `at` from a to b. */
export function _dashed(
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
export function _kde(all: readonly number[], range: [number, number], grid: number): Float64Array {
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
