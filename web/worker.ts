/// <reference lib="deno.worker" />
/**
 * The demo page's sampler worker: builds the data and the GLM in the WASM
 * core, runs the chosen sampler through the run driver, and streams the
 * draws, the cost and a summary to the page every ~250 ms, so the page
 * never waits on sampling.
 *
 * Any registered sampler runs (`sample()` by name, with the options the
 * user set and the registry's defaults for the rest); the driver's `onDraw` hands over each draw
 * as it is made, and they are flushed with `postMessage` (which does not
 * wait for the page). On load the worker sends the registry's list.
 *
 * A loaded file (CSV or Parquet) is read once into a table of text cells
 * (`table.ts`) and checked, every problem listed; each run builds its
 * design and model from the CLI's flags, as `tallmc sample` does.
 *
 * Chains in parallel: when the page is cross-origin isolated and asks for
 * several workers, this worker starts that many copies of itself, gives
 * copy w the chains c ≡ w (mod workers) (`chainIds`), relays their draws to
 * the page, and joins their outputs. Chain c draws from `Rng(seed).stream(c)`
 * whichever thread runs it, so the draws are those of the one-worker run.
 * What the run's end message carries is made in run_report.ts.
 *
 * @module
 */
import {
  type ChainOutput,
  gaussianLinearRegression,
  getSampler,
  GlmModel,
  higgsShaped,
  loadCore,
  type Model,
  sample,
  samplerNames,
  summarize,
  type SummaryRow,
} from "../mod.ts";
import type { ColumnTable } from "../data/design.ts";
import { pageWords } from "./page_words.ts";
import { packRows, unpackRows } from "./protocol.ts";
import { doneMessage } from "./run_report.ts";
import type {
  ChainsRequest,
  Cost,
  DescribeRequest,
  LoadRequest,
  RunRequest,
  SubMessage,
  WorkerMessage,
} from "./protocol.ts";
import {
  checkTable,
  csvDelimiter,
  modelFromTable,
  readCsvTable,
  readParquetTable,
  supportProblems,
} from "./table.ts";

const _FLUSH_MS = 250;

function _post(message: WorkerMessage | SubMessage, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

/** The file loaded last (kept so that each run only builds its design). */
let _table: ColumnTable | null = null;
let _tableBadRows = 0;

async function _load(request: LoadRequest): Promise<void> {
  _table = null;
  const bytes = request.bytes;
  const parquet = /\.parquet$/i.test(request.name) ||
    (bytes.length >= 4 && String.fromCharCode(...bytes.subarray(0, 4)) === "PAR1");
  let table: ColumnTable, badRows: string[] = [], quotes: string[] = [];
  let delimiter: string | null = null;
  if (parquet) {
    table = await readParquetTable(bytes);
  } else {
    const text = new TextDecoder().decode(bytes);
    delimiter = request.delimiter ?? csvDelimiter(text);
    ({ table, badRows, quoteProblems: quotes } = readCsvTable(text, delimiter ?? undefined));
  }
  _table = table;
  _tableBadRows = badRows.length;
  _post({
    type: "table",
    name: request.name,
    check: checkTable(table, badRows, delimiter, quotes),
  });
}

/** The prior the fields give over the loaded file (the model is built, not sampled). */
async function _describe(request: DescribeRequest): Promise<void> {
  if (_table === null) return;
  const support = supportProblems(_table, request.flags);
  try {
    const built = await modelFromTable(loadCore(), _table, request.flags);
    _post({
      type: "described",
      priorLines: built.priorLines === null ? null : [...built.priorLines],
      error: null,
      support,
    });
  } catch (e) {
    _post({
      type: "described",
      priorLines: null,
      error: pageWords(e instanceof Error ? e.message : String(e)),
      support,
    });
  }
}

/** The data and model of a run, and what to say about them. */
interface _Built {
  model: Model;
  glm: GlmModel;
  truth: number[] | null;
  description: string;
  warnings: string[];
  notes: string[];
  priorLines: string[] | null;
  dropped: number;
  backend: string;
}

async function _build(request: RunRequest, table: ColumnTable | null): Promise<_Built> {
  const arena = loadCore();
  const base = {
    warnings: [] as string[],
    notes: [] as string[],
    priorLines: null,
    dropped: 0,
    backend: arena.backend,
  };
  if (request.dataset === "higgs") {
    const synthetic = higgsShaped(arena, { n: request.n, seed: request.dataSeed });
    const glm = new GlmModel(synthetic.data, {
      family: "logistic",
      priorScale: request.priorScale,
    });
    return {
      ...base,
      model: glm,
      glm,
      truth: Array.from(synthetic.trueCoefficients),
      description: `HIGGS-shaped logistic regression, n = ${request.n}, d = 30`,
    };
  }
  if (request.dataset === "gaussian") {
    const synthetic = gaussianLinearRegression(arena, {
      n: request.n,
      d: request.d,
      sigma: 1,
      seed: request.dataSeed,
    });
    const glm = new GlmModel(synthetic.data, {
      family: "gaussian",
      sigma: 1,
      priorScale: request.priorScale,
    });
    return {
      ...base,
      model: glm,
      glm,
      truth: Array.from(synthetic.trueCoefficients),
      description: `Gaussian linear regression, n = ${request.n}, d = ${request.d}, σ = 1`,
    };
  }
  if (table === null || request.flags === undefined) {
    throw new TypeError("no file is loaded: drop a CSV or Parquet file first");
  }
  if (_tableBadRows > 0 && table === _table) {
    throw new RangeError(
      `the file has ${_tableBadRows} row${
        _tableBadRows > 1 ? "s" : ""
      } with the wrong number of fields (listed under the file); fix the file and load it again`,
    );
  }
  const built = await modelFromTable(arena, table, request.flags, {
    missing: request.missing ?? "drop",
  });
  const f = request.flags;
  const fam = String(f.family) +
    (f.sigma ? `, σ = ${f.sigma}` : "") + (f.nu ? `, ν = ${f.nu}` : "") +
    (f.offset ? `, offset ${f.offset}` : "") + (f.trials ? `, trials ${f.trials}` : "");
  return {
    ...base,
    model: built.model,
    glm: built.glm,
    truth: null,
    description: `${request.fileName ?? "file"}: ${f.formula}, ${fam}, n = ${built.numRows}` +
      (built.dropped > 0
        ? ` (${built.dropped} row${built.dropped > 1 ? "s" : ""} with a missing cell dropped)`
        : ""),
    warnings: [...built.warnings, ...built.posteriorWarnings].map(pageWords),
    notes: built.notes.map(pageWords),
    priorLines: built.priorLines === null ? null : [...built.priorLines],
    dropped: built.dropped,
  };
}

/** The chain ids worker w of `numWorkers` runs: c ≡ w (mod numWorkers). */
function _chainsOf(w: number, numWorkers: number, numChains: number): number[] {
  const out: number[] = [];
  for (let c = w; c < numChains; c += numWorkers) out.push(c);
  return out;
}

/** A chain's output without what cannot cross to another thread (a caught exception). */
function _portable(c: ChainOutput): ChainOutput {
  const tuning: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c.tuning)) {
    if (typeof v !== "function" && typeof v !== "symbol") tuning[k] = v;
  }
  return {
    ...c,
    stop: c.stop === null ? null : { ...c.stop, error: undefined },
    tuning,
    cost: { warmup: { ...c.cost.warmup }, sampling: { ...c.cost.sampling } },
  };
}

/**
 * Run `chainIds` of the request in this thread, calling `onDraws` every
 * ~250 ms with the new draw rows and the iterations done per chain id.
 */
function _sampleHere(
  request: RunRequest,
  built: _Built,
  chainIds: number[],
  onDraws: (rows: number[][], iterations: Map<number, number>, cost: Cost) => void,
): ChainOutput[] {
  const { model } = built;
  const d = model.dim;
  const signed = _isSigned(request);
  let pending: number[][] = [];
  const iterations = new Map(chainIds.map((c) => [c, 0]));
  let last = 0;
  const flush = (force: boolean) => {
    const now = performance.now();
    if (!force && now - last < _FLUSH_MS) return;
    last = now;
    onDraws(pending, iterations, _cost(model));
    pending = [];
  };
  const result = sample(model, {
    ...request.options,
    sampler: request.sampler,
    seed: request.seed,
    chainIds,
    numWarmup: request.numWarmup,
    numSamples: request.numSamples,
    onDraw(c, k, position, info) {
      const row = [c, k];
      for (let j = 0; j < d; j++) row.push(position[j]);
      if (signed) row.push((info as { sign?: number }).sign ?? 1);
      pending.push(row);
    },
    onProgress(c, it) {
      iterations.set(c, it);
      flush(false);
    },
  });
  flush(true);
  return result.chains.map(_portable);
}

function _cost(model: Model): Cost {
  return {
    numLogLikRows: model.cost.numLogLikRows,
    numGradRows: model.cost.numGradRows,
    numHessianRows: model.cost.numHessianRows,
  };
}

/** Numbers per draw row: chain, iteration, θ…, and the sign of a signed run. */
function _rowWidth(dim: number, request: RunRequest): number {
  return 2 + dim + (_isSigned(request) ? 1 : 0);
}

function _isSigned(request: RunRequest): boolean {
  return request.sampler === "hmc-ecs" && request.options.variant === "signed";
}

/** A sub-worker: run some chains of a request and send them back. */
async function _runChains(m: ChainsRequest): Promise<void> {
  const built = await _build(m.request, m.table);
  const chains = _sampleHere(m.request, built, m.chainIds, (rows, iterations, cost) => {
    const block = packRows(rows, _rowWidth(built.model.dim, m.request));
    _post({ type: "chains-progress", rows: block, iterations: [...iterations], cost }, [
      block.values.buffer,
    ]);
  });
  _post({ type: "chains-done", chains, cost: _cost(built.model) });
}

/** How many workers run the chains (1: this one), and why not more. */
function _numWorkers(request: RunRequest): { n: number; note: string } {
  const wanted = Math.max(1, Math.min(request.workers ?? 1, request.numChains));
  if (wanted === 1) return { n: 1, note: "" };
  if (!(self as unknown as { crossOriginIsolated?: boolean }).crossOriginIsolated) {
    return {
      n: 1,
      note: "The page is not cross-origin isolated (served without COOP/COEP headers): " +
        "the chains ran one after another in one worker.",
    };
  }
  return { n: wanted, note: "" };
}

async function _run(request: RunRequest): Promise<void> {
  const built = await _build(request, _table);
  const { model } = built;
  const names = Array.from(model.parameterNames);
  const signed = _isSigned(request);
  const workers = _numWorkers(request);
  _post({
    type: "start",
    names,
    truth: built.truth,
    numRows: built.glm.numRows,
    backend: built.backend,
    description: built.description,
    warnings: [...built.warnings, ...(workers.note === "" ? [] : [workers.note])],
    notes: built.notes,
    priorLines: built.priorLines,
    dropped: built.dropped,
    workers: workers.n,
    signed,
  });

  // Streaming: draws kept per chain for the live summary, flushed every _FLUSH_MS.
  const all = new Map<number, number[][]>(); // chain id → [param][k]
  let pending: number[][] = [];
  const iterations = new Map<number, number>();
  let last = 0;
  const costs = new Map<number, Cost>(); // per worker
  const total = request.numWarmup + request.numSamples;
  const sumCost = (): Cost => {
    const out = { numLogLikRows: 0, numGradRows: 0, numHessianRows: 0 };
    for (const c of costs.values()) {
      out.numLogLikRows += c.numLogLikRows;
      out.numGradRows += c.numGradRows;
      out.numHessianRows += c.numHessianRows;
    }
    return out;
  };
  const liveSummary = (): [SummaryRow[] | null, string] => {
    const ids = [...all.keys()].sort((a, b) => a - b);
    const done = ids.filter((c) => all.get(c)![0].length === request.numSamples);
    if (done.length > 0) {
      return [
        summarize(done.map((c) => all.get(c)!), names),
        `${done.length} finished chain${done.length > 1 ? "s" : ""}`,
      ];
    }
    const current = all.get(ids[0]);
    if (current === undefined || current[0].length < 8) return [null, "no draws yet"];
    return [summarize([current], names), `chain ${ids[0] + 1}, first ${current[0].length} draws`];
  };
  const receive = (w: number, rows: number[][], its: Iterable<[number, number]>, cost: Cost) => {
    for (const r of rows) {
      let c = all.get(r[0]);
      if (c === undefined) all.set(r[0], c = names.map(() => []));
      for (let j = 0; j < names.length; j++) c[j].push(r[2 + j]);
      pending.push(r);
    }
    for (const [c, it] of its) iterations.set(c, it);
    costs.set(w, cost);
  };
  const flush = (force: boolean) => {
    const now = performance.now();
    if (!force && now - last < _FLUSH_MS) return;
    last = now;
    const [summary, summaryScope] = liveSummary();
    const draws = packRows(pending, _rowWidth(names.length, request));
    _post({
      type: "progress",
      iterations: [...iterations],
      total,
      draws,
      cost: sumCost(),
      summary,
      summaryScope,
    }, [draws.values.buffer]);
    pending = [];
  };

  let chains: ChainOutput[];
  if (workers.n === 1) {
    chains = _sampleHere(
      request,
      built,
      Array.from({ length: request.numChains }, (_, c) => c),
      (rows, its, cost) => {
        receive(0, rows, its, cost);
        flush(true);
      },
    );
  } else {
    const table = request.dataset === "csv" ? _table : null;
    const parts = await Promise.all(
      Array.from({ length: workers.n }, (_, w) =>
        new Promise<ChainOutput[]>((resolve, reject) => {
          const sub = new Worker(import.meta.url, { type: "module" });
          _subWorkers.push(sub);
          sub.onmessage = (e: MessageEvent<WorkerMessage | SubMessage>) => {
            const m = e.data;
            if (m.type === "chains-progress") {
              receive(w, unpackRows(m.rows), m.iterations, m.cost);
              flush(false);
            } else if (m.type === "chains-done") {
              costs.set(w, m.cost);
              sub.terminate();
              resolve(m.chains);
            } else if (m.type === "error") {
              sub.terminate();
              reject(new Error(m.message));
            }
          };
          sub.onerror = (e) => {
            e.preventDefault();
            sub.terminate();
            reject(new Error(e.message || "a chain worker failed"));
          };
          const message: ChainsRequest = {
            type: "chains",
            request,
            table,
            chainIds: _chainsOf(w, workers.n, request.numChains),
          };
          sub.postMessage(message);
        })),
    ).finally(() => {
      for (const s of _subWorkers) s.terminate();
      _subWorkers = [];
    });
    chains = parts.flat().sort((a, b) => a.chainId - b.chainId);
  }
  flush(true);
  _post(doneMessage(request, built.glm, names, chains, sumCost()));
}

let _subWorkers: Worker[] = [];

self.onmessage = async (
  event: MessageEvent<RunRequest | LoadRequest | ChainsRequest | DescribeRequest>,
) => {
  const m = event.data;
  try {
    if (m.type === "describe") await _describe(m);
    else if (m.type === "load") await _load(m);
    else if (m.type === "chains") await _runChains(m);
    else await _run(m);
  } catch (e) {
    for (const s of _subWorkers) s.terminate();
    _subWorkers = [];
    const message = pageWords(e instanceof Error ? e.message : String(e));
    _post(m.type === "load" ? { type: "load-error", message } : { type: "error", message });
  }
};

_post({
  type: "samplers",
  samplers: samplerNames().map((name) => {
    const d = getSampler(name);
    return {
      name,
      summary: d.summary,
      references: d.references,
      isExact: d.isExact,
      // All six naive-* samplers are diagnostics, not inference methods
      // (samplers/naive/chain_sampler.ts), the corrected three included.
      isDiagnostic: d.isDiagnostic === true || name.startsWith("naive-"),
      options: (d.options ?? []).map((o) => ({
        name: o.name,
        type: o.type,
        choices: o.choices,
        min: o.min,
        default: o.default,
        help: o.help,
      })),
    };
  }),
});
