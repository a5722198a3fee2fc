/// <reference lib="dom" />
/**
 * The demo page: reads the controls, runs the sampler in a Web Worker
 * (`worker.ts`) and shows what it streams back — trace plots and posterior
 * densities, rank plots, a pairs plot and the posterior predictive check
 * (drawn on canvases by `plots.ts` and `live_plot.ts`, each redraw a few milliseconds), the
 * summary table, the cost in rows evaluated — and offers the draws as a CSV
 * file. A CSV or Parquet file is read and checked once by the worker when it
 * is loaded; its model is given as the CLI's flags (formula, family and its
 * options, priors).
 *
 * @module
 */
import { unpackRows } from "./protocol.ts";
import type {
  DescribeRequest,
  Family,
  LoadRequest,
  PpcView,
  ProgressMessage,
  RunRequest,
  WorkerMessage,
} from "./protocol.ts";
import type { TableCheck } from "./table.ts";
import { _$ } from "./dom.ts";
import { LivePlot, type PlotRow } from "./live_plot.ts";
import { defaultFormula, fileFlags, responseFromFormula } from "./model_fields.ts";
import { drawPairs, drawPpc, rankSteps } from "./plots.ts";
import { describeSampler, fillSamplers, samplerOptions } from "./sampler_controls.ts";
import { escapeHtml, int, renderChains, renderCost, renderSummary, sig } from "./summary_table.ts";
import { applyUrlModel, settingsFromUrl, settingsToUrl } from "./url_settings.ts";

/** State of the current run, as the page knows it. */
const run = {
  names: [] as string[],
  truth: null as number[] | null,
  numRows: 0,
  rows: [] as number[][], // [chain, iteration, θ…] per sampling draw
  csv: "",
  startedAt: 0,
  numDraws: 0,
  signed: false,
  workers: 1,
};
let worker: Worker | null = null;
let fileName: string | null = null;
/** The loaded file (read again when the delimiter changes). */
let loadedFile: File | null = null;
let fileCheck: TableCheck | null = null;
let lastPpc: PpcView | null = null;
let views: LivePlot[] = [];
let plotted: string[] = [];

function _newWorker(): Worker {
  const w = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  w.onmessage = (e: MessageEvent<WorkerMessage>) => _onMessage(e.data);
  w.onerror = (e) => _fail(e.message || "the worker failed to start");
  return w;
}

function _setState(state: "idle" | "running" | "done" | "stopped" | "error"): void {
  document.body.dataset.state = state;
  _$<HTMLButtonElement>("run").disabled = state === "running";
  _$<HTMLButtonElement>("stop").disabled = state !== "running";
  _$<HTMLButtonElement>("download").disabled = !(
    state === "done" || (state === "stopped" && run.rows.length > 0)
  );
}

/**
 * Forget the previous run's results: plots, tables, description, verdict,
 * cost and draws, so that nothing on screen belongs to another run.
 */
function _clearResults(): void {
  for (const v of views) v.finalize();
  views = [];
  (globalThis as Record<string, unknown>).tallmcViews = views;
  _queues = [[], []];
  _progress = null;
  for (const id of ["trace", "density"]) {
    _$(id).textContent = "";
    _$(id).setAttribute("aria-label", "no plot yet: no run");
  }
  for (const id of ["rank", "pairs", "ppc"]) {
    const c = _$<HTMLCanvasElement>(id);
    c.getContext("2d")?.clearRect(0, 0, c.width, c.height);
    c.setAttribute("aria-label", "no plot yet: no run");
  }
  _$("ppc-stats").textContent = "";
  _$("ppc-note").textContent = "";
  _$("prior-lines").hidden = true;
  _$("prior-lines").textContent = "";
  lastPpc = null;
  _$("thinning").textContent = "";
  _$("params").textContent = "";
  _$("description").textContent = "";
  _$("chains").textContent = "";
  _$("warnings").textContent = "";
  _$("sign-note").textContent = "";
  _renderVerdict(null, true);
  renderSummary(null, "", run.truth);
  delete document.body.dataset.afterRun;
  for (const id of ["cost-ll", "cost-grad", "cost-hess", "cost-passes"]) _$(id).textContent = "0";
  _$("rate").textContent = "–";
  document.body.classList.remove("has-truth");
  Object.assign(run, { names: [], truth: null, rows: [], csv: "", numDraws: 0, signed: false });
}

function _fail(message: string): void {
  _clearResults();
  _$("bar").style.width = "0";
  _$("warnings").textContent = message;
  _$("progress-text").textContent = "failed";
  _setState("error");
}

/** The verdict block beside the summary (null: none yet). */
function _renderVerdict(lines: string[] | null, converged: boolean): void {
  const el = _$("verdict");
  el.textContent = lines === null ? "" : lines.join("\n");
  el.hidden = lines === null;
  el.classList.toggle("bad", !converged);
}

/** The draws on screen as CSV, as the worker writes it (for a stopped run). */
function _rowsCsv(): string {
  const quote = (s: string) => /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  const header = [
    ".chain",
    ".iteration",
    ".draw",
    ...run.names,
    ...(run.signed ? ["sign"] : []),
  ];
  const rows = [...run.rows].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  // posterior's columns, 1-based; .draw numbers the rows kept.
  const lines = rows.map((r, i) => [r[0] + 1, r[1] + 1, i + 1, ...r.slice(2)].join(","));
  return [header.map(quote).join(","), ...lines].join("\n") + "\n";
}

// ---- plots -----------------------------------------------------------------

/**
 * Plot rows of the plotted parameters, keeping every `_plotStride()`-th
 * draw: at most 500 points per chain, enough for a trace plot and a density,
 * few enough for the page to redraw them while the sampler streams.
 */
function _plotRows(rows: number[][]): PlotRow[] {
  const out: PlotRow[] = [];
  const stride = _plotStride();
  for (const name of plotted) {
    const j = run.names.indexOf(name);
    for (const r of rows) {
      if (r[1] % stride !== 0) continue;
      out.push({
        chain: String(r[0] + 1),
        iteration: r[1],
        param: name,
        value: r[2 + j],
        truth: run.truth === null ? null : run.truth[j],
      });
    }
  }
  return out;
}

function _plotStride(): number {
  return Math.max(1, Math.ceil((_lastRequest?.numSamples ?? 0) / 500));
}

function _buildPlots(): void {
  const t = performance.now();
  for (const v of views) v.finalize();
  plotted = Array.from(_$<HTMLSelectElement>("params").selectedOptions, (o) => o.value);
  if (plotted.length === 0) plotted = run.names.slice(0, 4);
  const numInserted = run.rows.length; // later draws arrive through the queues
  _queues = [[], []];
  _lastUpdate = [0, 0];
  const thinned = Math.ceil((_lastRequest?.numSamples ?? 0) / _plotStride());
  views = (["trace", "density"] as const).map((id) => {
    const container = _$(id);
    container.textContent = "";
    const canvas = container.appendChild(document.createElement("canvas"));
    const plot = new LivePlot(
      canvas,
      id,
      plotted,
      id === "trace" ? (_lastRequest?.numSamples ?? thinned) : thinned,
    );
    plot.add(_plotRows(run.rows.slice(0, numInserted)));
    return plot;
  });
  performance.measure("tallmc:first render", { start: t });
  for (const [i, v] of views.entries()) {
    _inSteps(v.steps(), `first ${i === 0 ? "trace" : "density"}`);
  }
  // Text alternatives: what each plot shows, in one line.
  const names = plotted.join(", ");
  const chains = `${_lastRequest?.numChains ?? 1} chain${
    (_lastRequest?.numChains ?? 1) > 1 ? "s" : ""
  }`;
  const truth = run.truth === null ? "" : "; dashed lines: generating values";
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
  if (["done", "stopped"].includes(document.body.dataset.state ?? "")) _drawAfterRun();
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

function _addToPlots(rows: number[][]): void {
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

// ---- messages --------------------------------------------------------------

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
  const current = views, rows = run.rows;
  for (;;) {
    await _task();
    if (views !== current || run.rows !== rows) return;
    const t = performance.now();
    let done = false;
    while (!done && performance.now() - t < _FRAME_BUDGET_MS) done = steps.next().done === true;
    performance.measure(`tallmc:${name}`, { start: t });
    if (done) return;
  }
}

function _showProgress(m: ProgressMessage): void {
  const request = _lastRequest!;
  const per = request.numWarmup + request.numSamples;
  const done = m.iterations.reduce((s, [, it]) => s + it, 0);
  _$("bar").style.width = `${(100 * done / (per * request.numChains)).toFixed(1)}%`;
  const running = m.iterations.filter(([, it]) => it > 0 && it < per);
  const finished = m.iterations.filter(([, it]) => it >= per).length;
  _$("progress-text").textContent = running.length === 0
    ? (finished >= request.numChains ? "finishing…" : "starting…")
    : running.map(([c, it]) =>
      `chain ${c + 1} of ${request.numChains}: ${
        it <= request.numWarmup ? "warmup" : "sampling"
      }, iteration ${it} of ${per}`
    ).join("; ") + (run.workers > 1 ? ` (${run.workers} workers)` : "");
  renderCost(m.cost, run);
  renderSummary(m.summary, m.summaryScope, run.truth);
}

let _progress: ProgressMessage | null = null;

function _onMessage(m: WorkerMessage): void {
  const t = performance.now();
  _handle(m);
  performance.measure(`tallmc:message ${m.type}`, { start: t });
}

function _handle(m: WorkerMessage): void {
  if (m.type === "samplers") {
    fillSamplers(m.samplers);
    if (document.body.dataset.state === "loading") {
      const model = settingsFromUrl({ syncControls: _syncControls, describeSampler });
      if (model !== null) _urlModel = model;
      _setState("idle");
    }
  } else if (m.type === "start") {
    run.names = m.names;
    run.truth = m.truth;
    run.numRows = m.numRows;
    run.signed = m.signed;
    document.body.classList.toggle("has-truth", m.truth !== null);
    _$("description").textContent = m.description;
    _$("backend").textContent = `compute core: ${m.backend}`;
    _$("warnings").textContent = m.warnings.join(" ");
    if (m.notes.length > 0) _$("description").textContent += `. ${m.notes.join(" ")}`;
    _$("description").dataset.dropped = String(m.dropped);
    _$("prior-lines").textContent = m.priorLines === null
      ? ""
      : `Prior in force:\n${m.priorLines.join("\n")}`;
    _$("prior-lines").hidden = m.priorLines === null;
    run.workers = m.workers;
    const select = _$<HTMLSelectElement>("params");
    select.innerHTML = m.names.map((n, j) =>
      `<option value="${n}"${j < 4 ? " selected" : ""}>${n}</option>`
    ).join("");
    for (const id of ["pair-x", "pair-y"]) {
      _$<HTMLSelectElement>(id).innerHTML = m.names.map((n) => `<option>${escapeHtml(n)}</option>`)
        .join("");
    }
    _$<HTMLSelectElement>("pair-y").value = m.names[Math.min(1, m.names.length - 1)];
    _buildPlots();
  } else if (m.type === "progress") {
    // The draws are kept at once (Stop keeps them); the page shows the
    // latest progress in a task of its own (one for the messages queued).
    const rows = unpackRows(m.draws);
    for (const r of rows) run.rows.push(r);
    run.numDraws += rows.length;
    _addToPlots(rows);
    const first = _progress === null;
    _progress = m;
    if (first) {
      setTimeout(() => {
        const p = _progress;
        _progress = null;
        if (p === null || document.body.dataset.state !== "running") return;
        const t = performance.now();
        _showProgress(p);
        performance.measure("tallmc:progress", { start: t });
      }, 0);
    }
  } else if (m.type === "done") {
    _progress = null;
    _flushAll = true;
    if (!_rendering) _renderQueued();
    renderSummary(
      m.summary,
      `${m.chains.length} chain${m.chains.length > 1 ? "s" : ""} × ${
        _lastRequest!.numSamples
      } draws`,
      run.truth,
    );
    renderCost(m.cost, run);
    run.csv = m.csv;
    _renderVerdict(m.verdict, m.converged);
    _$("sign-note").textContent = m.negativeSignShare === null
      ? ""
      : `Signed HMC-ECS: the summary is sign-corrected (each draw weighted by the sign of its likelihood estimate, Dang et al. 2019, eq. 17); ${
        (100 * m.negativeSignShare).toFixed(1)
      }% of the draws have a negative sign. The CSV has a sign column.`;
    _$("sign-note").dataset.share = String(m.negativeSignShare ?? "");
    _$("bar").style.width = "100%";
    lastPpc = m.ppc;
    _drawAfterRun();
    const secs = (performance.now() - run.startedAt) / 1000;
    _$("progress-text").textContent = `done in ${secs.toFixed(1)} s`;
    renderChains(m.chains, _lastRequest!.numSamples);
    const stops = m.chains.flatMap((c, i) => c.stop === null ? [] : [`chain ${i + 1}: ${c.stop}`]);
    if (stops.length > 0) _$("warnings").textContent = stops.join(" ");
    _setState("done");
  } else if (m.type === "described") {
    const el = _$("prior-preview");
    el.textContent = m.error !== null
      ? `These model settings are refused: ${m.error}`
      : m.priorLines === null
      ? ""
      : `Prior (blank fields take the defaults):\n${m.priorLines.join("\n")}`;
    el.classList.toggle("bad", m.error !== null);
    // The response's cells outside the family's support, after the file's own problems.
    const list = _$("file-problems");
    for (const li of list.querySelectorAll("li.support")) li.remove();
    for (const text of m.support) {
      const li = list.appendChild(document.createElement("li"));
      li.className = "support";
      li.textContent = text;
    }
    list.dataset.count = String(list.children.length);
  } else if (m.type === "table") {
    _showFile(m.name, m.check);
    _describeModel();
  } else if (m.type === "load-error") {
    fileCheck = null;
    _$("file-info").hidden = false;
    _$("file-summary").textContent = `${fileName ?? "the file"} could not be read:`;
    _$("file-problems").innerHTML = `<li>${escapeHtml(m.message)}</li>`;
    const csv = _$<HTMLSelectElement>("dataset").querySelector<HTMLOptionElement>(
      'option[value="csv"]',
    )!;
    csv.disabled = true;
    if (_$<HTMLSelectElement>("dataset").value === "csv") {
      _$<HTMLSelectElement>("dataset").value = "higgs";
    }
    _syncControls();
    _setState("idle");
  } else {
    _fail(m.message);
  }
}

/** The plots drawn once a run has ended (or stopped): ranks, pairs, predictive check. */
async function _drawAfterRun(): Promise<void> {
  // One plot per task, so that the page's thread is never held for all three.
  const rows = run.rows; // a new run replaces the array: then these plots are stale
  delete document.body.dataset.afterRun;
  await _yield();
  if (run.rows !== rows) return;
  const names = plotted.length > 0 ? plotted : run.names.slice(0, 4);
  const ranks = _$<HTMLCanvasElement>("rank");
  await _inSteps(
    rankSteps(ranks, run.rows, run.names, names, _lastRequest?.numChains ?? 1),
    "rank plots",
  );
  if (run.rows !== rows) return;
  ranks.setAttribute(
    "aria-label",
    `Rank plots of ${
      names.join(", ")
    }: for each chain, a histogram of its draws' ranks among all chains' draws (20 bins); uniform when the chains sample the same distribution.`,
  );
  await _task();
  if (run.rows !== rows) return;
  let t = performance.now();
  _drawPairs();
  performance.measure("tallmc:pairs plot", { start: t });
  await _task();
  if (run.rows !== rows) return;
  t = performance.now();
  const ppc = _$<HTMLCanvasElement>("ppc");
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

function _drawPairs(): void {
  const x = _$<HTMLSelectElement>("pair-x").value, y = _$<HTMLSelectElement>("pair-y").value;
  const c = _$<HTMLCanvasElement>("pairs");
  if (run.rows.length === 0 || x === "" || y === "") return;
  drawPairs(c, run.rows, run.names.indexOf(x), run.names.indexOf(y), x, y);
  c.setAttribute(
    "aria-label",
    `Pairs plot: ${y} against ${x}, one point per draw (at most 2000), coloured by chain.`,
  );
}

// ---- controls --------------------------------------------------------------

let _lastRequest: RunRequest | null = null;

function _num(id: string): number {
  return Number(_$<HTMLInputElement>(id).value);
}

function _syncControls(): void {
  const dataset = _$<HTMLSelectElement>("dataset").value;
  const family = _$<HTMLSelectElement>("family");
  if (dataset === "higgs") family.value = "logistic";
  if (dataset === "gaussian") family.value = "gaussian";
  family.disabled = dataset !== "csv";
  _$("d-label").hidden = dataset !== "gaussian";
  _$("n").parentElement!.parentElement!.hidden = dataset === "csv";
  for (const el of document.querySelectorAll<HTMLElement>(".file-only")) {
    el.hidden = dataset !== "csv";
  }
  for (const el of document.querySelectorAll<HTMLElement>(".synthetic-only")) {
    el.hidden = dataset === "csv";
  }
  for (const el of document.querySelectorAll<HTMLElement>(".fam")) {
    el.hidden = !el.classList.contains(`fam-${family.value}`);
  }
}

let _describeTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * Ask the worker for the prior the model fields give (the defaults
 * included), shown under them; again 400 ms after each change. Not while a
 * run holds the worker.
 */
function _describeModel(): void {
  clearTimeout(_describeTimer);
  _describeTimer = setTimeout(() => {
    if (fileCheck === null || document.body.dataset.state === "running") return;
    if (_$<HTMLSelectElement>("dataset").value !== "csv") return;
    const request: DescribeRequest = { type: "describe", flags: fileFlags(fileCheck) };
    worker?.postMessage(request);
  }, 400);
}

/** The number of workers the page can use for `numChains` chains. */
function _workers(): number {
  const asked = Math.max(1, Math.floor(_num("workers")) || 1);
  return Math.min(asked, _num("numChains"));
}

function _start(): void {
  const dataset = _$<HTMLSelectElement>("dataset").value as RunRequest["dataset"];
  const request: RunRequest = {
    type: "run",
    dataset,
    n: _num("n"),
    d: _num("d"),
    dataSeed: _num("dataSeed"),
    flags: dataset === "csv" ? fileFlags(fileCheck) : undefined,
    fileName: dataset === "csv" ? fileName ?? undefined : undefined,
    family: _$<HTMLSelectElement>("family").value as Family,
    priorScale: _num("priorScale"),
    workers: _workers(),
    missing: _$<HTMLSelectElement>("missing").value === "refuse" ? "refuse" : "drop",
    sampler: _$<HTMLSelectElement>("sampler").value,
    options: samplerOptions(),
    numChains: _num("numChains"),
    numWarmup: _num("numWarmup"),
    numSamples: _num("numSamples"),
    seed: _num("seed"),
  };
  _lastRequest = request;
  settingsToUrl(request, fileName);
  _clearResults();
  run.startedAt = performance.now();
  _$("bar").style.width = "0";
  _$("progress-text").textContent = "building the data in WebAssembly memory…";
  _flushAll = false;
  worker ??= _newWorker();
  _setState("running");
  worker.postMessage(request);
}

/** The file model of the page's address, applied when the next file is loaded. */
let _urlModel: Record<string, string> | null = null;

/** Send a file to the worker, which reads and checks it once (again when the delimiter changes). */
async function _loadFile(file: File): Promise<void> {
  fileName = file.name;
  fileCheck = null;
  _$("file-info").hidden = false;
  _$("file-summary").textContent = `reading ${file.name}…`;
  _$("file-problems").textContent = "";
  loadedFile = file;
  // The bytes go to the worker (transferred), which decodes and parses them.
  const bytes = new Uint8Array(await file.arrayBuffer());
  const delimiter = _$<HTMLSelectElement>("delimiter").value;
  const request: LoadRequest = {
    type: "load",
    name: file.name,
    bytes,
    delimiter: delimiter === "" ? undefined : delimiter === "tab" ? "\t" : delimiter,
  };
  worker ??= _newWorker();
  _setState("running");
  _$("progress-text").textContent = `reading ${file.name}…`;
  worker.postMessage(request, [bytes.buffer]);
}

/** A loaded file: its columns, every problem found, and the model controls filled from it. */
function _showFile(name: string, check: TableCheck): void {
  fileCheck = check;
  _setState("idle");
  _$("progress-text").textContent = "";
  const delim = check.delimiter === null
    ? "Parquet"
    : `delimiter ${check.delimiter === "\t" ? "tab" : JSON.stringify(check.delimiter)}`;
  const missing = check.columns.filter((c) => c.missing > 0);
  _$("file-summary").textContent =
    `${name}: ${int(check.numRows)} rows, ${check.columns.length} columns (${delim}); ` +
    check.columns.map((c) =>
      `${c.name} ${
        c.kind === "text"
          ? `text, ${c.numLevels} levels`
          : c.kind === "bad"
          ? "(problem)"
          : "numeric"
      }`
    ).join(", ") +
    (missing.length === 0
      ? ". No missing cells."
      : `. Missing cells (rows dropped when the model uses the column): ${
        missing.map((c) => `${c.name} ${c.missing}`).join(", ")
      }.`);
  _$("file-problems").innerHTML = check.problems.map((p) => `<li>${escapeHtml(p)}</li>`).join("");
  _$("file-problems").dataset.count = String(check.problems.length);
  const names = check.columns.map((c) => c.name);
  const options = names.map((h) => `<option value="${escapeHtml(h)}">${escapeHtml(h)}</option>`)
    .join(
      "",
    );
  const response = _$<HTMLSelectElement>("response");
  response.innerHTML = options;
  // A column named like a response, else the last one.
  response.value = names.find((n) => /^(y|response|target|outcome|label)$/i.test(n)) ??
    names[names.length - 1];
  for (const id of ["offset", "trials"]) {
    _$<HTMLSelectElement>(id).innerHTML = `<option value="">none</option>${options}`;
  }
  _$<HTMLInputElement>("formula").value = defaultFormula(fileCheck);
  if (_urlModel !== null) applyUrlModel(_urlModel, names, responseFromFormula);
  _urlModel = null;
  const dataset = _$<HTMLSelectElement>("dataset");
  const option = dataset.querySelector<HTMLOptionElement>('option[value="csv"]')!;
  option.disabled = false;
  option.textContent = `file: ${name}`;
  dataset.value = "csv";
  _syncControls();
}

function _init(): void {
  _$("controls").addEventListener("submit", (e) => {
    e.preventDefault();
    _start();
  });
  _$("stop").addEventListener("click", () => {
    worker?.terminate();
    worker = _newWorker();
    // The draws received so far stay on screen and in the download.
    run.csv = _rowsCsv();
    _flushAll = true;
    if (!_rendering) _renderQueued();
    _$("progress-text").textContent = `stopped: ${int(run.rows.length)} draws kept`;
    _drawAfterRun();
    _setState("stopped");
  });
  _$("choose-file").addEventListener("click", () => _$<HTMLInputElement>("file").click());
  _$("download").addEventListener("click", () => {
    const url = URL.createObjectURL(new Blob([run.csv], { type: "text/csv" }));
    const a = Object.assign(document.createElement("a"), { href: url, download: "draws.csv" });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  _$("dataset").addEventListener("change", _syncControls);
  _$("delimiter").addEventListener("change", () => {
    // Read the file again with the new delimiter (not while a run holds the worker).
    if (document.body.dataset.state === "running") return;
    if (loadedFile !== null && !/\.parquet$/i.test(loadedFile.name)) _loadFile(loadedFile);
  });
  _$("params").addEventListener("change", () => _buildPlots());
  _$<HTMLInputElement>("file").addEventListener("change", (e) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (f) _loadFile(f);
  });
  const drop = _$("drop");
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const f = e.dataTransfer?.files[0];
    if (f) _loadFile(f);
  });
  _$("sampler").addEventListener("change", describeSampler);
  _$("family").addEventListener("change", _syncControls);
  for (const id of ["response", "offset", "trials"]) {
    _$(id).addEventListener("change", () => {
      _$<HTMLInputElement>("formula").value = defaultFormula(fileCheck);
    });
  }
  for (const id of ["pair-x", "pair-y"]) _$(id).addEventListener("change", _drawPairs);
  _$("formula").addEventListener("change", responseFromFormula);
  for (
    const id of [
      "formula",
      "family",
      "response",
      "sigma",
      "nu",
      "offset",
      "trials",
      "success",
      "standardize",
      "priors",
      "priorIntercept",
      "priorAux",
    ]
  ) {
    _$(id).addEventListener("change", _describeModel);
  }
  if (!crossOriginIsolated) {
    _$<HTMLInputElement>("workers").value = "1";
    _$<HTMLInputElement>("workers").title =
      "this page is not cross-origin isolated (no COOP/COEP headers): chains run in one worker";
  } else {
    _$<HTMLInputElement>("workers").value = String(
      Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 8, _num("numChains"))),
    );
  }
  _syncControls();
  worker = _newWorker(); // the page is ready when it lists the registry's samplers
}

// The run, for the browser console and the end-to-end tests (which count its draws).
(globalThis as Record<string, unknown>).tallmcRun = run;
_init();
