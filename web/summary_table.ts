/// <reference lib="dom" />
/**
 * The demo page's tables and the numbers in them: the summary table (built
 * once per set of parameters, its cells updated in place while the sampler
 * streams), the cost block, the per-chain table, the verdict, the draws as
 * CSV, and the formatting they share (decimals, significant digits,
 * thousands separators, HTML escapes).
 *
 * @module
 */
import type { SummaryRow } from "../diagnostics/summary.ts";
import { _$ } from "./dom.ts";
import type { ChainReport, Cost } from "./protocol.ts";
import { csvField } from "../data/column_names.ts";

/**
 * A number with `digits` decimals, "–" for NaN, ∞ signs, a true minus.
 *
 * @param x The number.
 * @param digits Decimals (default 3).
 * @returns The text.
 */
export function fmt(x: number, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "−∞";
  return x.toFixed(digits).replace("-", "−");
}

/**
 * Three significant digits (step sizes span orders of magnitude).
 *
 * @param x The number.
 * @returns The text.
 */
export function sig(x: number): string {
  if (!Number.isFinite(x)) return fmt(x);
  return x.toPrecision(3).replace("-", "−");
}

/**
 * An integer with thousands separators ("1,234,567"). Not toLocaleString:
 * its first call loads the locale data, a task of ~40 ms on the page's
 * thread in the middle of a run.
 *
 * @param x The number (rounded).
 * @returns The text.
 */
export function int(x: number): string {
  if (!Number.isFinite(x)) return fmt(x);
  const digits = String(Math.abs(Math.round(x)));
  const grouped = digits.replace(/\B(?=(\d{3})+$)/g, ",");
  return x < 0 && digits !== "0" ? `−${grouped}` : grouped;
}

/**
 * `text` safe inside HTML text and double-quoted attributes.
 *
 * @param text Any text.
 * @returns The text with &, " and < escaped.
 */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}

/**
 * The summary table: built when its parameters change, else its cells
 * updated in place.
 *
 * @param rows The summary (null: empty the table).
 * @param scope What the summary covers (shown beside the title).
 * @param truth The generating values (synthetic data), or null.
 */
export function renderSummary(
  rows: SummaryRow[] | null,
  scope: string,
  truth: number[] | null,
): void {
  const body = _$("summary").querySelector("tbody")!;
  _$("summary-scope").textContent = rows === null ? "" : `(${scope})`;
  if (rows === null) {
    body.textContent = "";
    return;
  }
  if (_updateSummary(body, rows)) return;
  body.innerHTML = rows.map((r, j) => {
    const rhatBad = r.rhat > 1.01 ? " bad" : "";
    const essBad = r.essBulk < 100 ? " bad" : "";
    const value = truth === null ? "" : fmt(truth[j]);
    return `<tr data-param="${r.name}"><td class="name">${r.name}</td>` +
      `<td class="mean">${fmt(r.mean)}</td><td class="sd">${fmt(r.sd)}</td>` +
      `<td>${fmt(r.q5)}</td><td>${fmt(r.q95)}</td>` +
      `<td class="ess${essBad}">${fmt(r.essBulk, 0)}</td><td>${fmt(r.essTail, 0)}</td>` +
      `<td class="rhat${rhatBad}">${fmt(r.rhat)}</td><td>${fmt(r.mcseMean, 4)}</td>` +
      `<td class="truth">${value}</td></tr>`;
  }).join("");
}

/**
 * Update the summary table's cells in place when it already has these
 * parameters (a progress message every 250 ms: no rebuild of the table).
 * Returns false when the table must be built.
 */
function _updateSummary(body: HTMLTableSectionElement, rows: SummaryRow[]): boolean {
  const trs = body.rows;
  if (trs.length !== rows.length || rows.some((r, j) => trs[j].dataset.param !== r.name)) {
    return false;
  }
  rows.forEach((r, j) => {
    const cells = trs[j].cells;
    const values = [
      fmt(r.mean),
      fmt(r.sd),
      fmt(r.q5),
      fmt(r.q95),
      fmt(r.essBulk, 0),
      fmt(r.essTail, 0),
      fmt(r.rhat),
      fmt(r.mcseMean, 4),
    ];
    values.forEach((v, k) => {
      if (cells[k + 1].textContent !== v) cells[k + 1].textContent = v;
    });
    cells[5].classList.toggle("bad", r.essBulk < 100);
    cells[7].classList.toggle("bad", r.rhat > 1.01);
  });
  return true;
}

/**
 * The cost block: rows evaluated, passes over the data and draws per second.
 *
 * @param cost The rows evaluated so far.
 * @param run The run's rows n, draws so far and start time.
 */
export function renderCost(
  cost: Cost,
  run: { numRows: number; numDraws: number; startedAt: number },
): void {
  _$("cost-ll").textContent = int(cost.numLogLikRows);
  _$("cost-grad").textContent = int(cost.numGradRows);
  _$("cost-hess").textContent = int(cost.numHessianRows);
  _$("cost-passes").textContent = run.numRows > 0
    ? (Math.max(cost.numLogLikRows, cost.numGradRows) / run.numRows).toFixed(1)
    : "0";
  const seconds = (performance.now() - run.startedAt) / 1000;
  _$("rate").textContent = run.numDraws > 0 ? (run.numDraws / seconds).toFixed(0) : "–";
}

/**
 * The per-chain table of a finished run: rows evaluated in each phase, rows
 * per draw, step size, acceptance, divergences and wall time.
 *
 * @param chains The chains' reports.
 * @param numSamples Sampling iterations per chain.
 */
export function renderChains(chains: readonly ChainReport[], numSamples: number): void {
  _$("chains").innerHTML = `<h2>Per chain</h2><div class="scroll" role="region" tabindex="0" ` +
    `aria-label="per-chain table (scrolls sideways)"><table><thead><tr><th>chain</th>` +
    `<th>warmup rows (ℓ / ∇ℓ / ∇²ℓ)</th><th>sampling rows (ℓ / ∇ℓ)</th>` +
    `<th>sampling rows per draw</th><th>step size ε</th><th>acceptance</th>` +
    `<th>divergent</th>` +
    `<th>time (warmup + sampling)</th></tr></thead><tbody>` +
    chains.map((c, i) =>
      `<tr><td>${i + 1}</td><td>${int(c.warmup.numLogLikRows)} / ${int(c.warmup.numGradRows)} / ${
        int(c.warmup.numHessianRows)
      }</td>` +
      `<td>${int(c.sampling.numLogLikRows)} / ${int(c.sampling.numGradRows)}</td>` +
      `<td>${int(c.sampling.numGradRows / numSamples)}</td>` +
      `<td>${sig(c.stepSize)}</td><td>${fmt(c.acceptanceRate, 2)}</td>` +
      `<td>${c.numDivergent}</td>` +
      `<td>${(c.wallTimeMs.warmup / 1000).toFixed(2)} + ${
        (c.wallTimeMs.sampling / 1000).toFixed(2)
      } s</td></tr>`
    ).join("") + `</tbody></table></div>`;
}

/**
 * The verdict block beside the summary.
 *
 * @param lines The verdict's lines (null: none yet).
 * @param converged Whether every check passed.
 */
export function renderVerdict(lines: string[] | null, converged: boolean): void {
  const el = _$("verdict");
  el.textContent = lines === null ? "" : lines.join("\n");
  el.hidden = lines === null;
  el.classList.toggle("bad", !converged);
}

/**
 * The draws on screen as CSV, as the worker writes it (for a stopped run).
 *
 * @param run The parameter names, whether the run is signed, and the draw rows.
 * @returns The CSV text.
 */
export function drawsCsv(
  run: { readonly names: string[]; readonly signed: boolean; readonly rows: number[][] },
): string {
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
  return [header.map(csvField).join(","), ...lines].join("\n") + "\n";
}
