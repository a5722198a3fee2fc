/// <reference lib="dom" />
/**
 * The demo page: reads the controls, runs the sampler in a Web Worker
 * (`worker.ts`) and shows what it streams back — trace plots and posterior
 * densities, rank plots, a pairs plot and the posterior predictive check
 * (page_plots.ts: drawn on canvases, each redraw a few milliseconds), the
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
import {
  defaultFormula,
  fileFlags,
  fileSummary,
  responseFromFormula,
  syncControls,
} from "./model_fields.ts";
import {
  addToPlots,
  buildPlots,
  drawAfterRun,
  drawPairsPlot,
  flushPlots,
  plotsForNewRun,
  resetPlots,
  setPlotSource,
} from "./page_plots.ts";
import { describeSampler, fillSamplers, samplerOptions } from "./sampler_controls.ts";
import {
  drawsCsv,
  escapeHtml,
  int,
  renderChains,
  renderCost,
  renderSummary,
  renderVerdict,
} from "./summary_table.ts";
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
  resetPlots();
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
  renderVerdict(null, true);
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

// ---- messages --------------------------------------------------------------

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
      const model = settingsFromUrl({ syncControls: syncControls, describeSampler });
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
    buildPlots();
  } else if (m.type === "progress") {
    // The draws are kept at once (Stop keeps them); the page shows the
    // latest progress in a task of its own (one for the messages queued).
    const rows = unpackRows(m.draws);
    for (const r of rows) run.rows.push(r);
    run.numDraws += rows.length;
    addToPlots(rows);
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
    flushPlots();
    renderSummary(
      m.summary,
      `${m.chains.length} chain${m.chains.length > 1 ? "s" : ""} × ${
        _lastRequest!.numSamples
      } draws`,
      run.truth,
    );
    renderCost(m.cost, run);
    run.csv = m.csv;
    renderVerdict(m.verdict, m.converged);
    _$("sign-note").textContent = m.negativeSignShare === null
      ? ""
      : `Signed HMC-ECS: the summary is sign-corrected (each draw weighted by the sign of its likelihood estimate, Dang et al. 2019, eq. 17); ${
        (100 * m.negativeSignShare).toFixed(1)
      }% of the draws have a negative sign. The CSV has a sign column.`;
    _$("sign-note").dataset.share = String(m.negativeSignShare ?? "");
    _$("bar").style.width = "100%";
    lastPpc = m.ppc;
    drawAfterRun();
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
    syncControls();
    _setState("idle");
  } else {
    _fail(m.message);
  }
}

// ---- controls --------------------------------------------------------------

let _lastRequest: RunRequest | null = null;

function _num(id: string): number {
  return Number(_$<HTMLInputElement>(id).value);
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
  plotsForNewRun();
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
  _$("file-summary").textContent = fileSummary(name, check);
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
  syncControls();
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
    run.csv = drawsCsv(run);
    flushPlots();
    _$("progress-text").textContent = `stopped: ${int(run.rows.length)} draws kept`;
    drawAfterRun();
    _setState("stopped");
  });
  _$("choose-file").addEventListener("click", () => _$<HTMLInputElement>("file").click());
  _$("download").addEventListener("click", () => {
    const url = URL.createObjectURL(new Blob([run.csv], { type: "text/csv" }));
    const a = Object.assign(document.createElement("a"), { href: url, download: "draws.csv" });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  _$("dataset").addEventListener("change", syncControls);
  _$("delimiter").addEventListener("change", () => {
    // Read the file again with the new delimiter (not while a run holds the worker).
    if (document.body.dataset.state === "running") return;
    if (loadedFile !== null && !/\.parquet$/i.test(loadedFile.name)) _loadFile(loadedFile);
  });
  _$("params").addEventListener("change", () => buildPlots());
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
  _$("family").addEventListener("change", syncControls);
  for (const id of ["response", "offset", "trials"]) {
    _$(id).addEventListener("change", () => {
      _$<HTMLInputElement>("formula").value = defaultFormula(fileCheck);
    });
  }
  for (const id of ["pair-x", "pair-y"]) _$(id).addEventListener("change", drawPairsPlot);
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
  syncControls();
  worker = _newWorker(); // the page is ready when it lists the registry's samplers
}

// The run, for the browser console and the end-to-end tests (which count its draws).
(globalThis as Record<string, unknown>).tallmcRun = run;
setPlotSource({ run, request: () => _lastRequest, ppc: () => lastPpc });
_init();
