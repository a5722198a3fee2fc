/// <reference lib="dom" />
/**
 * The demo page: reads the controls, runs the sampler in a Web Worker
 * (`worker.ts`) and shows what it streams back — trace plots and posterior
 * densities (Vega-Lite, compiled and rendered by Vega in the page, bundled:
 * nothing is fetched from a CDN), the summary table, the cost in rows
 * evaluated — and offers the draws as a CSV file.
 *
 * Plot data live in one Vega dataset per view (`draws`, rows of
 * `{chain, iteration, param, value, truth}`); new draws are inserted with a
 * changeset, so a plot update costs the new rows, not a redraw from scratch.
 *
 * @module
 */
import * as vega from "npm:vega@6.4.0";
import * as vegaLite from "npm:vega-lite@6.5.0";
import type { SummaryRow } from "../diagnostics/summary.ts";
import type { Cost, Family, RunRequest, SamplerEntry, WorkerMessage } from "./protocol.ts";

const _$ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

interface _PlotRow {
  chain: string;
  iteration: number;
  param: string;
  value: number;
  truth: number | null;
}

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
};
let worker: Worker | null = null;
let csvText: string | null = null;
let views: vega.View[] = [];
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
  _buildGeneration++; // a plot build under way stops at its next step
  for (const v of views) v.finalize();
  views = [];
  (globalThis as Record<string, unknown>).tallmcViews = views;
  _queues = [[], []];
  for (const id of ["trace", "density"]) {
    _$(id).textContent = "";
    _$(id).setAttribute("aria-label", "no plot yet: no run");
  }
  _$("thinning").textContent = "";
  _$("params").textContent = "";
  _$("description").textContent = "";
  _$("chains").textContent = "";
  _$("warnings").textContent = "";
  _$("sign-note").textContent = "";
  _renderVerdict(null, true);
  _renderSummary(null, "");
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

function _fmt(x: number, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "−∞";
  return x.toFixed(digits).replace("-", "−");
}

/** Three significant digits (step sizes span orders of magnitude). */
function _sig(x: number): string {
  if (!Number.isFinite(x)) return _fmt(x);
  return x.toPrecision(3).replace("-", "−");
}

function _int(x: number): string {
  return Math.round(x).toLocaleString("en-US");
}

// ---- plots -----------------------------------------------------------------

function _traceSpec(numParams: number, width: number): vegaLite.TopLevelSpec {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    data: { name: "draws" },
    facet: { row: { field: "param", type: "nominal", title: null, sort: plotted } },
    spec: {
      width,
      height: Math.max(60, Math.min(110, 420 / numParams)),
      layer: [
        {
          mark: { type: "line", strokeWidth: 0.8, opacity: 0.85 },
          encoding: {
            x: { field: "iteration", type: "quantitative", title: "iteration" },
            y: { field: "value", type: "quantitative", title: null, scale: { zero: false } },
            color: { field: "chain", type: "nominal", title: "chain" },
          },
        },
        {
          transform: [{ filter: "datum.truth != null" }, {
            aggregate: [{ op: "max", field: "truth", as: "truth" }],
          }],
          mark: { type: "rule", strokeDash: [4, 3], color: "#333" },
          encoding: { y: { field: "truth", type: "quantitative" } },
        },
      ],
    },
    resolve: { scale: { y: "independent" } },
    config: { view: { stroke: "#ddd" }, axis: { labelFontSize: 10 } },
  } as vegaLite.TopLevelSpec;
}

function _densitySpec(numParams: number, width: number): vegaLite.TopLevelSpec {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    data: { name: "draws" },
    facet: { row: { field: "param", type: "nominal", title: null, sort: plotted } },
    spec: {
      width,
      height: Math.max(60, Math.min(110, 420 / numParams)),
      layer: [
        {
          transform: [{ density: "value", groupby: ["chain"], steps: 80 }],
          mark: { type: "area", opacity: 0.35, line: { strokeWidth: 1 } },
          encoding: {
            x: {
              field: "value",
              type: "quantitative",
              title: null,
              scale: { zero: false },
              axis: { tickCount: 5 },
            },
            y: { field: "density", type: "quantitative", title: null, stack: null },
            color: { field: "chain", type: "nominal", title: "chain" },
          },
        },
        {
          transform: [{ filter: "datum.truth != null" }, {
            aggregate: [{ op: "max", field: "truth", as: "truth" }],
          }],
          mark: { type: "rule", strokeDash: [4, 3], color: "#333" },
          encoding: { x: { field: "truth", type: "quantitative" } },
        },
      ],
    },
    resolve: { scale: { x: "independent", y: "independent" } },
    config: { view: { stroke: "#ddd" }, axis: { labelFontSize: 10 } },
  } as vegaLite.TopLevelSpec;
}

/**
 * Plot rows of the plotted parameters, keeping every `_plotStride()`-th
 * draw: at most 500 points per chain, enough for a trace plot and a density,
 * few enough for the page to redraw them while the sampler streams.
 */
function _plotRows(rows: number[][]): _PlotRow[] {
  const out: _PlotRow[] = [];
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

/** Incremented by each plot build and each clearing: an older build gives up. */
let _buildGeneration = 0;

async function _buildPlots(): Promise<void> {
  const generation = ++_buildGeneration;
  for (const v of views) v.finalize();
  views = [];
  plotted = Array.from(_$<HTMLSelectElement>("params").selectedOptions, (o) => o.value);
  if (plotted.length === 0) plotted = run.names.slice(0, 4);
  // Facets need a fixed width: the figure's, less the axis and legend.
  const width = (id: string) => Math.max(160, _$(id).clientWidth - 110);
  const specs: [string, vegaLite.TopLevelSpec][] = [
    ["trace", _traceSpec(plotted.length, width("trace"))],
    ["density", _densitySpec(plotted.length, width("density"))],
  ];
  const numInserted = run.rows.length; // later draws arrive through the queues
  _queues = [[], []];
  _lastUpdate = [0, 0];
  const built: vega.View[] = [];
  for (const [id, spec] of specs) {
    const container = _$(id);
    container.textContent = "";
    // Compiling, parsing and the first render are separate tasks, each
    // measured (performance entries "tallmc:…", seen in the browser's profiler).
    let t = performance.now();
    const compiled = vega.parse(vegaLite.compile(spec).spec);
    performance.measure(`tallmc:compile ${id}`, { start: t });
    await _yield();
    if (generation !== _buildGeneration) return _abandon(built);
    t = performance.now();
    // Each view draws into an element of its own, which an abandoned build removes.
    const holder = container.appendChild(document.createElement("div"));
    const view = new vega.View(compiled, { renderer: "canvas", container: holder, hover: false });
    view.insert("draws", _plotRows(run.rows.slice(0, numInserted)));
    await view.runAsync();
    performance.measure(`tallmc:first render ${id}`, { start: t });
    built.push(view);
    await _yield();
    if (generation !== _buildGeneration) return _abandon(built);
  }
  views = built;
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
  // The views, for the browser console and the end-to-end test (which counts the plotted rows).
  (globalThis as Record<string, unknown>).tallmcViews = views;
  if (!_rendering) _renderQueued(); // draws that arrived while building
  const stride = _plotStride();
  _$("thinning").textContent = stride > 1 ? `(every ${stride}th draw plotted)` : "";
}

/**
 * Plot updates: draws wait in one queue per view and are inserted by a single
 * loop, at most one Vega run in flight. Traces update every _TRACE_MS,
 * densities (every KDE recomputed, the costlier redraw) every _DENSITY_MS,
 * and both at once when the run ends, so a long run never floods the page's
 * thread with renders.
 */
const _TRACE_MS = 400;
const _DENSITY_MS = 1500;
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
        const v = current[i];
        // An empty facet has no rows yet: the first data need a new layout.
        const first = v.data("draws").length === 0;
        const changed = v.change("draws", vega.changeset().insert(data));
        const t = performance.now();
        await (first ? changed.resize() : changed).runAsync();
        performance.measure(`tallmc:update ${i === 0 ? "trace" : "density"}`, { start: t });
      }
    }
  } finally {
    _rendering = false;
  }
}

// ---- tables ----------------------------------------------------------------

function _renderSummary(rows: SummaryRow[] | null, scope: string): void {
  const body = _$("summary").querySelector("tbody")!;
  _$("summary-scope").textContent = rows === null ? "" : `(${scope})`;
  if (rows === null) {
    body.textContent = "";
    return;
  }
  body.innerHTML = rows.map((r, j) => {
    const rhatBad = r.rhat > 1.01 ? " bad" : "";
    const essBad = r.essBulk < 100 ? " bad" : "";
    const truth = run.truth === null ? "" : _fmt(run.truth[j]);
    return `<tr data-param="${r.name}"><td class="name">${r.name}</td>` +
      `<td class="mean">${_fmt(r.mean)}</td><td class="sd">${_fmt(r.sd)}</td>` +
      `<td>${_fmt(r.q5)}</td><td>${_fmt(r.q95)}</td>` +
      `<td class="ess${essBad}">${_fmt(r.essBulk, 0)}</td><td>${_fmt(r.essTail, 0)}</td>` +
      `<td class="rhat${rhatBad}">${_fmt(r.rhat)}</td><td>${_fmt(r.mcseMean, 4)}</td>` +
      `<td class="truth">${truth}</td></tr>`;
  }).join("");
}

function _renderCost(cost: Cost): void {
  _$("cost-ll").textContent = _int(cost.numLogLikRows);
  _$("cost-grad").textContent = _int(cost.numGradRows);
  _$("cost-hess").textContent = _int(cost.numHessianRows);
  _$("cost-passes").textContent = run.numRows > 0
    ? (Math.max(cost.numLogLikRows, cost.numGradRows) / run.numRows).toFixed(1)
    : "0";
  const seconds = (performance.now() - run.startedAt) / 1000;
  _$("rate").textContent = run.numDraws > 0 ? (run.numDraws / seconds).toFixed(0) : "–";
}

// ---- messages --------------------------------------------------------------

let _samplers: SamplerEntry[] = [];

function _fillSamplers(samplers: SamplerEntry[]): void {
  _samplers = samplers;
  const select = _$<HTMLSelectElement>("sampler");
  const previous = select.value || "hmc-ecs";
  const option = (s: SamplerEntry) =>
    `<option value="${s.name}" title="${_escape(s.summary)}">${s.name}${
      s.isExact ? "" : " (approximate)"
    }</option>`;
  select.innerHTML = samplers.filter((s) => !s.isDiagnostic).map(option).join("") +
    `<optgroup id="diagnostic-samplers" label="diagnostics only — not for inference">` +
    samplers.filter((s) => s.isDiagnostic).map(option).join("") + `</optgroup>`;
  select.value = samplers.some((s) => s.name === previous) ? previous : samplers[0].name;
  _describeSampler();
}

function _escape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}

/** The chosen sampler's summary, and one input per option it publishes (blank = its default). */
function _describeSampler(): void {
  const entry = _samplers.find((s) => s.name === _$<HTMLSelectElement>("sampler").value);
  _$("sampler-summary").textContent = entry === undefined
    ? ""
    : `${
      entry.isDiagnostic ? "Diagnostic only, not for inference: " : ""
    }${entry.summary}. ${entry.references}.`;
  _$("sampler-ref").textContent = entry === undefined ? "" : `${entry.name}: ${entry.references}.`;
  _$("sampler-options").innerHTML = (entry?.options ?? []).map((o) => {
    const id = `opt-${o.name}`;
    const title = `title="${_escape(o.help)}"`;
    const input = o.type === "choice" || o.type === "boolean"
      ? `<select id="${id}" data-option="${o.name}" data-type="${o.type}" ${title}>` +
        `<option value="">default (${_escape(o.default)})</option>` +
        (o.choices ?? ["true", "false"]).map((c) => `<option>${_escape(c)}</option>`).join("") +
        `</select>`
      : `<input id="${id}" data-option="${o.name}" data-type="${o.type}" type="number" ` +
        `step="${o.type === "integer" ? 1 : "any"}"${
          o.min === undefined ? "" : ` min="${o.min}"`
        } ` +
        `placeholder="${_escape(o.default)}" ${title}>`;
    return `<label>${_escape(o.name)} ${input}</label>`;
  }).join("");
}

/** The options the user set, typed as the sampler expects. */
function _samplerOptions(): Record<string, number | string | boolean> {
  const out: Record<string, number | string | boolean> = {};
  for (const el of _$("sampler-options").querySelectorAll<HTMLInputElement>("[data-option]")) {
    if (el.value === "") continue;
    const name = el.dataset.option!;
    if (el.dataset.type === "boolean") out[name] = el.value === "true";
    else if (el.dataset.type === "choice") {
      out[name] = /^-?\d+(\.\d+)?$/.test(el.value) ? Number(el.value) : el.value;
    } else out[name] = Number(el.value);
  }
  return out;
}

/** Drop the views of a build that a newer build or a clearing replaced. */
function _abandon(built: vega.View[]): void {
  for (const v of built) {
    v.finalize();
    v.container()?.remove(); // the view's own element, inside #trace or #density
  }
}

/** Let the page's thread do other work (input, painting) before going on. */
function _yield(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function _onMessage(m: WorkerMessage): void {
  const t = performance.now();
  _handle(m);
  performance.measure(`tallmc:message ${m.type}`, { start: t });
}

function _handle(m: WorkerMessage): void {
  if (m.type === "samplers") {
    _fillSamplers(m.samplers);
    if (document.body.dataset.state === "loading") {
      _settingsFromUrl();
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
    const select = _$<HTMLSelectElement>("params");
    select.innerHTML = m.names.map((n, j) =>
      `<option value="${n}"${j < 4 ? " selected" : ""}>${n}</option>`
    ).join("");
    _buildPlots();
  } else if (m.type === "progress") {
    const request = _lastRequest!;
    const per = request.numWarmup + request.numSamples;
    const done = Math.min(m.chain, request.numChains) * per +
      (m.chain < request.numChains ? m.iteration : 0);
    _$("bar").style.width = `${(100 * done / (per * request.numChains)).toFixed(1)}%`;
    const phase = m.iteration <= request.numWarmup ? "warmup" : "sampling";
    _$("progress-text").textContent = m.chain < request.numChains
      ? `chain ${m.chain + 1} of ${request.numChains}: ${phase}, iteration ${m.iteration} of ${per}`
      : "finishing…";
    run.rows.push(...m.draws);
    run.numDraws += m.draws.length;
    _addToPlots(m.draws);
    _renderCost(m.cost);
    _renderSummary(m.summary, m.summaryScope);
  } else if (m.type === "done") {
    _flushAll = true;
    if (!_rendering) _renderQueued();
    _renderSummary(
      m.summary,
      `${m.chains.length} chain${m.chains.length > 1 ? "s" : ""} × ${
        _lastRequest!.numSamples
      } draws`,
    );
    _renderCost(m.cost);
    run.csv = m.csv;
    _renderVerdict(m.verdict, m.converged);
    _$("sign-note").textContent = m.negativeSignShare === null
      ? ""
      : `Signed HMC-ECS: the summary is sign-corrected (each draw weighted by the sign of its likelihood estimate, Dang et al. 2019, eq. 17); ${
        (100 * m.negativeSignShare).toFixed(1)
      }% of the draws have a negative sign. The CSV has a sign column.`;
    _$("sign-note").dataset.share = String(m.negativeSignShare ?? "");
    _$("bar").style.width = "100%";
    const secs = (performance.now() - run.startedAt) / 1000;
    _$("progress-text").textContent = `done in ${secs.toFixed(1)} s`;
    _$("chains").innerHTML = `<h2>Per chain</h2><div class="scroll" role="region" tabindex="0" ` +
      `aria-label="per-chain table (scrolls sideways)"><table><thead><tr><th>chain</th>` +
      `<th>warmup rows (ℓ / ∇ℓ / ∇²ℓ)</th><th>sampling rows (ℓ / ∇ℓ)</th>` +
      `<th>sampling rows per draw</th><th>step size ε</th><th>acceptance</th>` +
      `<th>divergent</th>` +
      `<th>time (warmup + sampling)</th></tr></thead><tbody>` +
      m.chains.map((c, i) =>
        `<tr><td>${i + 1}</td><td>${_int(c.warmup.numLogLikRows)} / ${
          _int(c.warmup.numGradRows)
        } / ${_int(c.warmup.numHessianRows)}</td>` +
        `<td>${_int(c.sampling.numLogLikRows)} / ${_int(c.sampling.numGradRows)}</td>` +
        `<td>${_int(c.sampling.numGradRows / _lastRequest!.numSamples)}</td>` +
        `<td>${_sig(c.stepSize)}</td><td>${_fmt(c.acceptanceRate, 2)}</td>` +
        `<td>${c.numDivergent}</td>` +
        `<td>${(c.wallTimeMs.warmup / 1000).toFixed(2)} + ${
          (c.wallTimeMs.sampling / 1000).toFixed(2)
        } s</td></tr>`
      ).join("") + `</tbody></table></div>`;
    const stops = m.chains.flatMap((c, i) => c.stop === null ? [] : [`chain ${i + 1}: ${c.stop}`]);
    if (stops.length > 0) _$("warnings").textContent = stops.join(" ");
    _setState("done");
  } else {
    _fail(m.message);
  }
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
  _$("response-label").hidden = dataset !== "csv";
}

function _start(): void {
  const dataset = _$<HTMLSelectElement>("dataset").value as RunRequest["dataset"];
  const request: RunRequest = {
    type: "run",
    dataset,
    n: _num("n"),
    d: _num("d"),
    dataSeed: _num("dataSeed"),
    csvText: dataset === "csv" ? csvText ?? undefined : undefined,
    response: dataset === "csv" ? _$<HTMLSelectElement>("response").value : undefined,
    family: _$<HTMLSelectElement>("family").value as Family,
    priorScale: _num("priorScale"),
    sampler: _$<HTMLSelectElement>("sampler").value,
    options: _samplerOptions(),
    numChains: _num("numChains"),
    numWarmup: _num("numWarmup"),
    numSamples: _num("numSamples"),
    seed: _num("seed"),
  };
  _lastRequest = request;
  _settingsToUrl(request);
  _clearResults();
  run.startedAt = performance.now();
  _$("bar").style.width = "0";
  _$("progress-text").textContent = "building the data in WebAssembly memory…";
  _flushAll = false;
  worker ??= _newWorker();
  _setState("running");
  worker.postMessage(request);
}

// ---- settings in the address ----------------------------------------------

/** Controls written to the address, by element id (each restored into the same id). */
const _URL_COMMON = ["priorScale", "sampler", "numChains", "numWarmup", "numSamples", "seed"];

/**
 * Write the run's settings to the address (query string), so that the link
 * repeats the run: the same settings and seed give the same draws. A CSV
 * file cannot travel in a link: its runs keep the model and sampler settings
 * only.
 */
function _settingsToUrl(request: RunRequest): void {
  const p = new URLSearchParams();
  if (request.dataset === "csv") p.set("family", request.family);
  else {
    p.set("dataset", request.dataset);
    p.set("n", String(request.n));
    if (request.dataset === "gaussian") p.set("d", String(request.d));
    p.set("dataSeed", String(request.dataSeed));
  }
  for (const id of _URL_COMMON) p.set(id, _$<HTMLInputElement>(id).value);
  for (const el of _$("sampler-options").querySelectorAll<HTMLInputElement>("[data-option]")) {
    if (el.value !== "") p.set(`opt.${el.dataset.option}`, el.value);
  }
  history.replaceState(null, "", `${location.pathname}?${p}`);
}

/**
 * Set the controls from the address (once the sampler list is known). Every
 * key that is unknown, or whose value the control cannot take, is named in
 * the warnings line and left at its default.
 */
function _settingsFromUrl(): void {
  const p = new URLSearchParams(location.search);
  const problems: string[] = [];
  const set = (id: string, value: string): void => {
    const el = document.getElementById(id) as HTMLInputElement | HTMLSelectElement | null;
    const ok = el instanceof HTMLSelectElement
      ? Array.from(el.options).some((o) => o.value === value && !o.disabled && value !== "")
      : el !== null && value.trim() !== "" && Number.isFinite(Number(value));
    if (!ok || el === null) {
      problems.push(`${id}=${JSON.stringify(value)}`);
      return;
    }
    el.value = value;
  };
  const ids = ["dataset", "n", "d", "dataSeed", "family", ..._URL_COMMON];
  for (const id of ids) {
    const value = p.get(id);
    if (value !== null) set(id, value);
  }
  _syncControls(); // a synthetic data set fixes the family; a CSV file loaded later keeps it
  _describeSampler();
  for (const [key, value] of p) {
    if (key.startsWith("opt.")) set(`opt-${key.slice(4)}`, value);
    else if (!ids.includes(key)) problems.push(`${key}=${JSON.stringify(value)}`);
  }
  if (problems.length > 0) {
    _$("warnings").textContent = `Ignored in the address (unknown setting or value): ${
      problems.join(", ")
    }.`;
  }
}

async function _loadFile(file: File): Promise<void> {
  csvText = await file.text();
  const header = csvText.slice(0, csvText.search(/\r?\n/)).split(",").map((s) =>
    s.trim().replace(/^"|"$/g, "")
  );
  const response = _$<HTMLSelectElement>("response");
  response.innerHTML = header.map((h) => `<option>${h}</option>`).join("");
  response.value = header[header.length - 1];
  const dataset = _$<HTMLSelectElement>("dataset");
  dataset.querySelector<HTMLOptionElement>('option[value="csv"]')!.disabled = false;
  dataset.querySelector<HTMLOptionElement>('option[value="csv"]')!.textContent =
    `CSV file: ${file.name}`;
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
    _$("progress-text").textContent = `stopped: ${_int(run.rows.length)} draws kept`;
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
  _$("sampler").addEventListener("change", _describeSampler);
  _syncControls();
  worker = _newWorker(); // the page is ready when it lists the registry's samplers
}

// The run, for the browser console and the end-to-end tests (which count its draws).
(globalThis as Record<string, unknown>).tallmcRun = run;
_init();
