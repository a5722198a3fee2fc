/// <reference lib="dom" />
/**
 * The demo page's plots of a run: the live trace and density plots, fed by a
 * queue per plot and redrawn by one loop (traces every 400 ms, densities
 * every second, both at once when the run ends), and the plots drawn once a
 * run has ended (ranks, pairs, predictive check). Every drawing runs one
 * step per task within a frame budget, so that the page's thread is never
 * held for a whole plot; a new run's plots make the old drawings stop.
 *
 * @module
 */
import { _$ } from "./dom.ts";
import { LivePlot, type PlotRow } from "./live_plot.ts";
import { drawPairs, drawPpc, rankSteps } from "./plots.ts";
import type { PpcView, RunRequest } from "./protocol.ts";
import { int, sig } from "./summary_table.ts";

/** What the plots read of the page's run. */
export interface PlotSource {
  /** The run: parameter names, generating values and draw rows `[chain, iteration, θ…]`. */
  readonly run: {
    readonly names: string[];
    readonly truth: number[] | null;
    readonly rows: number[][];
  };
  /** The run's request (null before the first run). */
  request(): RunRequest | null;
  /** The last run's predictive check, or null. */
  ppc(): PpcView | null;
}

let _source: PlotSource;

/**
 * Where the plots read the run (once, when the page starts).
 *
 * @param source The page's run, request and predictive check.
 */
export function setPlotSource(source: PlotSource): void {
  _source = source;
}

let views: LivePlot[] = [];
let plotted: string[] = [];

/**
 * Plot rows of the plotted parameters, keeping every `_plotStride()`-th
 * draw: at most 500 points per chain, enough for a trace plot and a density,
 * few enough for the page to redraw them while the sampler streams.
 */
function _plotRows(rows: number[][]): PlotRow[] {
  const out: PlotRow[] = [];
  const stride = _plotStride();
  for (const name of plotted) {
    const j = _source.run.names.indexOf(name);
    for (const r of rows) {
      if (r[1] % stride !== 0) continue;
      out.push({
        chain: String(r[0] + 1),
        iteration: r[1],
        param: name,
        value: r[2 + j],
        truth: _source.run.truth === null ? null : _source.run.truth[j],
      });
    }
  }
  return out;
}

function _plotStride(): number {
  return Math.max(1, Math.ceil((_source.request()?.numSamples ?? 0) / 500));
}

/**
 * Build the live trace and density plots of the chosen parameters (the
 * first four by default) from the draws so far; later draws arrive through
 * {@link addToPlots}.
 */
export function buildPlots(): void {
  const t = performance.now();
  for (const v of views) v.finalize();
  plotted = Array.from(_$<HTMLSelectElement>("params").selectedOptions, (o) => o.value);
  if (plotted.length === 0) plotted = _source.run.names.slice(0, 4);
  const numInserted = _source.run.rows.length; // later draws arrive through the queues
  _queues = [[], []];
  _lastUpdate = [0, 0];
  const thinned = Math.ceil((_source.request()?.numSamples ?? 0) / _plotStride());
  views = (["trace", "density"] as const).map((id) => {
    const container = _$(id);
    container.textContent = "";
    const canvas = container.appendChild(document.createElement("canvas"));
    const plot = new LivePlot(
      canvas,
      id,
      plotted,
      id === "trace" ? (_source.request()?.numSamples ?? thinned) : thinned,
    );
    plot.add(_plotRows(_source.run.rows.slice(0, numInserted)));
    return plot;
  });
  performance.measure("tallmc:first render", { start: t });
  for (const [i, v] of views.entries()) {
    _inSteps(v.steps(), `first ${i === 0 ? "trace" : "density"}`);
  }
  // Text alternatives: what each plot shows, in one line.
  const names = plotted.join(", ");
  const chains = `${_source.request()?.numChains ?? 1} chain${
    (_source.request()?.numChains ?? 1) > 1 ? "s" : ""
  }`;
  const truth = _source.run.truth === null ? "" : "; dashed lines: generating values";
  _$("trace").setAttribute(
    "aria-label",
    `Trace plots of ${names}: sampled value against iteration, one line per chain (${chains})${truth}.`,
  );
  _$("density").setAttribute(
    "aria-label",
    `Posterior densities of ${names}: kernel density of the draws, one curve per chain (${chains})${truth}.`,
  );
  // The plots, for the browser console and the end-to-end tests (which count the plotted rows).
  (globalThis as Record<string, unknown>).tallmcViews = views;
  if (!_rendering) _renderQueued(); // draws that arrived while building
  const stride = _plotStride();
  _$("thinning").textContent = stride > 1 ? `(every ${stride}th draw plotted)` : "";
  if (["done", "stopped"].includes(document.body.dataset.state ?? "")) drawAfterRun();
}

/**
 * Plot updates: draws wait in one queue per plot and are drawn by a single
 * loop. Traces redraw every _TRACE_MS, densities (every KDE recomputed)
 * every _DENSITY_MS, and both at once when the run ends; each redraw is
 * drawn one panel per animation frame (a millisecond or two each), so the
 * page's thread is never held for a whole plot.
 */
const _TRACE_MS = 400;
const _DENSITY_MS = 1000;
let _queues: number[][][] = [[], []];
let _lastUpdate = [0, 0];
let _flushAll = false;
let _rendering = false;

/**
 * Queue new draw rows for the live plots (drawn by the update loop).
 *
 * @param rows Rows `[chain, iteration, θ…]`.
 */
export function addToPlots(rows: number[][]): void {
  for (const q of _queues) for (const r of rows) q.push(r);
  if (!_rendering) _renderQueued();
}

async function _renderQueued(): Promise<void> {
  _rendering = true;
  try {
    while (views.length > 0 && _queues.some((q) => q.length > 0)) {
      await new Promise((resolve) => setTimeout(resolve, _TRACE_MS));
      const current = views;
      for (let i = 0; i < current.length; i++) {
        const now = performance.now();
        const interval = i === 0 ? _TRACE_MS : _DENSITY_MS;
        if (_queues[i].length === 0 || (!_flushAll && now - _lastUpdate[i] < interval)) continue;
        const data = _plotRows(_queues[i]);
        _queues[i] = [];
        _lastUpdate[i] = now;
        current[i].add(data);
        await _inSteps(current[i].steps(), `update ${i === 0 ? "trace" : "density"}`);
        if (views !== current) break;
      }
    }
  } finally {
    _rendering = false;
  }
}

/** Let the page's thread do other work (input, painting) before going on. */
function _yield(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * A task of its own, after the page's pending work (not an animation
 * frame: work done in a frame's callbacks joins the frame's layout and paint
 * in one task, which is then the page's longest).
 */
function _task(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Drawing done in one task before the rest waits for the next (ms). */
const _FRAME_BUDGET_MS = 8;

/**
 * Run a drawing's steps in tasks of their own, as many per task as fit in
 * _FRAME_BUDGET_MS (a whole plot in one task on an idle machine, a panel
 * per task on a busy one), each task measured as `tallmc:<name>`
 * (performance entries, visible in the browser's profiler). Stops early
 * when a new run has replaced the plots.
 */
async function _inSteps(steps: Iterator<void>, name: string): Promise<void> {
  const current = views, rows = _source.run.rows;
  for (;;) {
    await _task();
    if (views !== current || _source.run.rows !== rows) return;
    const t = performance.now();
    let done = false;
    while (!done && performance.now() - t < _FRAME_BUDGET_MS) done = steps.next().done === true;
    performance.measure(`tallmc:${name}`, { start: t });
    if (done) return;
  }
}

/** The plots drawn once a run has ended (or stopped): ranks, pairs, predictive check. */
export async function drawAfterRun(): Promise<void> {
  // One plot per task, so that the page's thread is never held for all three.
  const rows = _source.run.rows; // a new run replaces the array: then these plots are stale
  delete document.body.dataset.afterRun;
  await _yield();
  if (_source.run.rows !== rows) return;
  const names = plotted.length > 0 ? plotted : _source.run.names.slice(0, 4);
  const ranks = _$<HTMLCanvasElement>("rank");
  await _inSteps(
    rankSteps(ranks, _source.run.rows, _source.run.names, names, _source.request()?.numChains ?? 1),
    "rank plots",
  );
  if (_source.run.rows !== rows) return;
  ranks.setAttribute(
    "aria-label",
    `Rank plots of ${
      names.join(", ")
    }: for each chain, a histogram of its draws' ranks among all chains' draws (20 bins); uniform when the chains sample the same distribution.`,
  );
  await _task();
  if (_source.run.rows !== rows) return;
  let t = performance.now();
  drawPairsPlot();
  performance.measure("tallmc:pairs plot", { start: t });
  await _task();
  if (_source.run.rows !== rows) return;
  t = performance.now();
  const ppc = _$<HTMLCanvasElement>("ppc");
  const lastPpc = _source.ppc();
  if (lastPpc === null) {
    ppc.getContext("2d")?.clearRect(0, 0, ppc.width, ppc.height);
    ppc.setAttribute("aria-label", "no posterior predictive check for this run");
    _$("ppc-stats").textContent = "";
  } else {
    const p = lastPpc;
    const what = drawPpc(ppc, p);
    ppc.setAttribute("aria-label", what);
    _$("ppc-note").textContent = `(${int(p.numRows)} of ${
      int(p.numRowsTotal)
    } rows, ${p.numDraws} draws)`;
    _$("ppc-stats").textContent = p.statistics.map((st) =>
      `${st.name}: observed ${sig(st.observed)}, replicated ${sig(st.replicatedQ5)}…${
        sig(st.replicatedQ95)
      } (p = ${st.pValue.toFixed(2)})`
    ).join("; ");
  }
  performance.measure("tallmc:predictive check", { start: t });
  document.body.dataset.afterRun = "drawn";
}

/** The pairs plot of the two chosen parameters. */
export function drawPairsPlot(): void {
  const x = _$<HTMLSelectElement>("pair-x").value, y = _$<HTMLSelectElement>("pair-y").value;
  const c = _$<HTMLCanvasElement>("pairs");
  if (_source.run.rows.length === 0 || x === "" || y === "") return;
  drawPairs(c, _source.run.rows, _source.run.names.indexOf(x), _source.run.names.indexOf(y), x, y);
  c.setAttribute(
    "aria-label",
    `Pairs plot: ${y} against ${x}, one point per draw (at most 2000), coloured by chain.`,
  );
}

/**
 * Draw everything queued now, whatever the update intervals (the run ended
 * or was stopped).
 */
export function flushPlots(): void {
  _flushAll = true;
  if (!_rendering) _renderQueued();
}

/** A new run starts: plot updates keep their intervals again. */
export function plotsForNewRun(): void {
  _flushAll = false;
}

/** Forget the live plots (a new run or a failure clears the page). */
export function resetPlots(): void {
  for (const v of views) v.finalize();
  views = [];
  (globalThis as Record<string, unknown>).tallmcViews = views;
  _queues = [[], []];
}
