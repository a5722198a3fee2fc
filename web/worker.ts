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
 * @module
 */
import {
  formatDrawsCsv,
  formatVerdict,
  gaussianLinearRegression,
  getSampler,
  glmDataFromArrays,
  GlmModel,
  higgsShaped,
  loadCore,
  parseCsvText,
  sample,
  samplerNames,
  summarize,
  type SummaryRow,
  verdict,
} from "../mod.ts";
import type { ChainReport, Cost, RunRequest, WorkerMessage } from "./protocol.ts";

const _FLUSH_MS = 250;

function _post(message: WorkerMessage): void {
  self.postMessage(message);
}

/** OLS residual sd: the plug-in σ of a Gaussian GLM on a CSV file. */
function _olsSigma(x: Float64Array, y: Float64Array, n: number, d: number): number {
  const a = new Float64Array(d * (d + 1));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) {
      const xij = x[i * d + j];
      for (let k = 0; k < d; k++) a[j * (d + 1) + k] += xij * x[i * d + k];
      a[j * (d + 1) + d] += xij * y[i];
    }
  }
  for (let j = 0; j < d; j++) { // Gauss–Jordan with partial pivoting
    let p = j;
    for (let r = j + 1; r < d; r++) {
      if (Math.abs(a[r * (d + 1) + j]) > Math.abs(a[p * (d + 1) + j])) p = r;
    }
    for (let c = 0; c <= d; c++) {
      const t = a[j * (d + 1) + c];
      a[j * (d + 1) + c] = a[p * (d + 1) + c];
      a[p * (d + 1) + c] = t;
    }
    const piv = a[j * (d + 1) + j] || 1e-12;
    for (let r = 0; r < d; r++) {
      if (r === j) continue;
      const f = a[r * (d + 1) + j] / piv;
      for (let c = j; c <= d; c++) a[r * (d + 1) + c] -= f * a[j * (d + 1) + c];
    }
  }
  let rss = 0;
  for (let i = 0; i < n; i++) {
    let fit = 0;
    for (let j = 0; j < d; j++) fit += x[i * d + j] * a[j * (d + 1) + d] / a[j * (d + 1) + j];
    rss += (y[i] - fit) ** 2;
  }
  return Math.sqrt(rss / Math.max(1, n - d)) || 1;
}

function _run(request: RunRequest): void {
  const arena = loadCore();
  let model: GlmModel;
  let truth: number[] | null = null;
  let description: string;
  let warnings: string[] = [];
  if (request.dataset === "higgs") {
    const synthetic = higgsShaped(arena, { n: request.n, seed: request.dataSeed });
    model = new GlmModel(synthetic.data, { family: "logistic", priorScale: request.priorScale });
    truth = Array.from(synthetic.trueCoefficients);
    description = `HIGGS-shaped logistic regression, n = ${request.n}, d = 30`;
  } else if (request.dataset === "gaussian") {
    const synthetic = gaussianLinearRegression(arena, {
      n: request.n,
      d: request.d,
      sigma: 1,
      seed: request.dataSeed,
    });
    model = new GlmModel(synthetic.data, {
      family: "gaussian",
      sigma: 1,
      priorScale: request.priorScale,
    });
    truth = Array.from(synthetic.trueCoefficients);
    description = `Gaussian linear regression, n = ${request.n}, d = ${request.d}, σ = 1`;
  } else {
    if (request.csvText === undefined || request.response === undefined) {
      throw new TypeError("a CSV run needs the file's text and a response column");
    }
    const table = parseCsvText(request.csvText, {
      response: request.response,
      family: request.family,
    });
    warnings = table.warnings;
    const data = glmDataFromArrays(arena, table.x, table.y, {
      numCols: table.numCols,
      columnNames: table.columnNames,
    });
    const sigma = request.family === "gaussian"
      ? _olsSigma(table.x, table.y, table.numRows, table.numCols)
      : undefined;
    model = new GlmModel(data, { family: request.family, sigma, priorScale: request.priorScale });
    description =
      `CSV: ${table.responseName} ~ ${
        table.columnNames.join(" + ")
      }, ${request.family}, n = ${table.numRows}` +
      (sigma === undefined ? "" : `, σ = ${sigma.toPrecision(3)} (OLS residual sd)`);
  }
  const names = Array.from(model.parameterNames);
  const d = names.length;
  const signed = request.sampler === "hmc-ecs" && request.options.variant === "signed";
  _post({
    type: "start",
    names,
    truth,
    numRows: model.numRows,
    backend: arena.backend,
    description,
    warnings,
    signed,
  });

  // Streaming: onDraw buffers each draw, flushed every _FLUSH_MS.
  const all: number[][][] = []; // all[chain][param] = draws so far
  let pending: number[][] = [];
  let chain = 0, iteration = 0;
  const total = request.numWarmup + request.numSamples;
  let last = 0;
  const cost = (): Cost => ({
    numLogLikRows: model.cost.numLogLikRows,
    numGradRows: model.cost.numGradRows,
    numHessianRows: model.cost.numHessianRows,
  });
  const liveSummary = (): [SummaryRow[] | null, string] => {
    const done = all.slice(0, chain).filter((c) => c[0].length === request.numSamples);
    if (done.length > 0) {
      return [
        summarize(done, names),
        `${done.length} finished chain${done.length > 1 ? "s" : ""}`,
      ];
    }
    const current = all[chain];
    if (current === undefined || current[0].length < 8) return [null, "no draws yet"];
    return [summarize([current], names), `chain 1, first ${current[0].length} draws`];
  };
  const flush = (force: boolean) => {
    const now = performance.now();
    if (!force && now - last < _FLUSH_MS) return;
    last = now;
    const [summary, summaryScope] = liveSummary();
    _post({
      type: "progress",
      chain,
      iteration,
      total,
      draws: pending,
      cost: cost(),
      summary,
      summaryScope,
    });
    pending = [];
  };

  const result = sample(model, {
    ...request.options,
    sampler: request.sampler,
    seed: request.seed,
    numChains: request.numChains,
    numWarmup: request.numWarmup,
    numSamples: request.numSamples,
    onDraw(c, k, position, info) {
      while (all.length <= c) all.push(Array.from({ length: d }, () => []));
      const row = [c, k];
      for (let j = 0; j < d; j++) {
        all[c][j].push(position[j]);
        row.push(position[j]);
      }
      if (signed) row.push((info as { sign?: number }).sign ?? 1);
      pending.push(row);
    },
    onProgress(c, it) {
      chain = c;
      iteration = it;
      flush(false);
    },
  });
  chain = request.numChains;
  flush(true);
  const chains: ChainReport[] = result.chains.map((c) => {
    const acc = c.info.sampling.acceptanceRate ?? c.info.sampling.isAccepted;
    let meanAcc = NaN;
    if (acc !== undefined && acc.length > 0) {
      meanAcc = acc.reduce((s, a) => s + a, 0) / acc.length;
    }
    return {
      warmup: { ...c.cost.warmup },
      sampling: { ...c.cost.sampling },
      wallTimeMs: c.wallTimeMs,
      stepSize: Number(c.tuning.stepSize),
      acceptanceRate: meanAcc,
      numDivergent: c.numDivergent.sampling,
      stop: c.stop?.reason ?? null,
    };
  });
  // A chain that stopped early has fewer draws: summarise the common length.
  const numDraws = Math.min(...result.chains.map((c) => c.numDraws));
  const draws = result.draws.map((c) => c.map((p) => p.subarray(0, numDraws)));
  // Signed HMC-ECS: sign-corrected means and sds (eq. 17). Thinning is 1, so
  // draw k is sampling iteration k.
  const signs = signed && result.chains.every((c) => c.info.sampling.sign !== undefined)
    ? result.chains.map((c) => c.info.sampling.sign.subarray(0, numDraws))
    : undefined;
  const summary = numDraws >= 4 ? summarize(draws, names, { signs }) : [];
  const v = verdict(result, {
    sampler: request.sampler,
    rows: summary.length > 0 ? summary : undefined,
  });
  let negatives = 0, numSigns = 0;
  for (const s of signs ?? []) {
    for (const x of s) negatives += x < 0 ? 1 : 0;
    numSigns += s.length;
  }
  _post({
    type: "done",
    summary,
    chains,
    cost: cost(),
    csv: formatDrawsCsv({
      parameterNames: names,
      draws,
      extra: signs === undefined ? {} : { sign: signs },
    }),
    converged: v.converged,
    verdict: [...formatVerdict(v), ..._acceptanceLines(chains, request.sampler)].map(_pageWords),
    negativeSignShare: signs === undefined || numSigns === 0 ? null : negatives / numSigns,
  });
}

/**
 * A line on acceptance far below what the sampler aims at (most proposals
 * rejected: the chain barely moves), which the verdict's checks only see
 * indirectly through R̂ and ESS.
 */
function _acceptanceLines(chains: ChainReport[], sampler: string): string[] {
  const low = chains.flatMap((c, i) => c.acceptanceRate < 0.1 ? [[i + 1, c.acceptanceRate]] : []);
  if (low.length === 0) return [];
  const worst = Math.min(...low.map(([, a]) => a));
  const rw = /rwmh|austerity/.test(sampler);
  return [
    `  - acceptance < 0.10 in ${low.length} of ${chains.length} chain(s) (lowest ${
      worst.toFixed(3)
    })`,
    `    chains: ${low.map(([i]) => i).join(", ")}`,
    `    likely cause: ${
      rw
        ? "the proposal scale is too large for the posterior (warmup too short to adapt it)"
        : "the step size is too large for the posterior's curvature"
    }, so almost every proposal is rejected and the chain barely moves`,
    `    fix: ${
      rw
        ? "a longer Warmup, a smaller scale, or the hmc sampler"
        : "a longer Warmup, a smaller stepSize, or a higher targetAcceptanceRate"
    }`,
  ];
}

/** The CLI's flag names in the verdict's fixes, as the page's controls. */
const _WORDS: [RegExp, string][] = [
  [/--sampler (\S+)/g, "the $1 sampler"],
  [/--samples/g, "Draws"],
  [/--warmup/g, "Warmup"],
  [/--metric (\S+)/g, "metric = $1"],
  [/--target-acceptance/g, "targetAcceptanceRate"],
  [/--step-size/g, "stepSize"],
];

function _pageWords(line: string): string {
  return _WORDS.reduce((s, [re, to]) => s.replace(re, to), line);
}

self.onmessage = (event: MessageEvent<RunRequest>) => {
  try {
    _run(event.data);
  } catch (e) {
    _post({ type: "error", message: e instanceof Error ? e.message : String(e) });
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
      // (samplers/naive/descriptions.ts), the corrected three included.
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
