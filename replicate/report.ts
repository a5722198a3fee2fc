/**
 * The report writer: experiment results → Markdown, a static HTML page, CSV
 * tables and SVG figures in one directory.
 *
 * ```
 *  outDir/
 *    report.md                 title, date, command, machine; one section per experiment
 *    report.html               the same, self-contained: inline SVG, inline CSS, no scripts
 *    <experiment>_<table>.csv  one per table (RFC 4180, full precision)
 *    <experiment>_<figure>.svg one per figure (Vega-Lite → SVG)
 * ```
 *
 * A failed experiment gets a section saying that it failed and why; the other
 * sections are written as usual.
 *
 * @module
 */

import type { ExperimentResult, ResultFigure, ResultTable } from "./experiment.ts";
import { type Cell, formatCell, formatDuration, toCsv } from "./format.ts";
import { blockMarkdown, escapeHtml, inlineMarkdown } from "./markup.ts";
import { renderSvg } from "./render.ts";
import { validateVerdicts, verdictTableHtml, verdictTableMarkdown } from "./verdicts.ts";

export { escapeHtml };

/** The outcome of running one experiment, as the report shows it. */
export interface ExperimentOutcome {
  /** The experiment's short name (file-name prefix and anchor). */
  readonly name: string;
  /** Its title. */
  readonly title: string;
  /** Which paper and table/figure it reproduces. */
  readonly source: string;
  /** What it returned; absent when it failed. */
  readonly result?: ExperimentResult;
  /** Why it failed (message, optionally followed by a stack); absent when it succeeded. */
  readonly error?: string;
  /** Wall-clock seconds the run took (until it returned or threw). */
  readonly wallSeconds: number;
  /** CPU seconds of the thread that ran it, where measured. */
  readonly cpuSeconds?: number | null;
}

/** The machine a report was produced on. */
export interface MachineInfo {
  /** Logical cores (`navigator.hardwareConcurrency`). */
  readonly cores: number;
  /** Operating system (`Deno.build.os`). */
  readonly os: string;
  /** CPU architecture (`Deno.build.arch`). */
  readonly arch: string;
  /** Deno version. */
  readonly deno: string;
  /** V8 version. */
  readonly v8: string;
}

/** What the report says about the run as a whole. */
export interface ReportInfo {
  /** Page title (default "tallmc replication report"). */
  readonly title?: string;
  /** When the run started. */
  readonly date: Date;
  /** The command line that produced the report. */
  readonly commandLine: string;
  /** Whether the reduced (quick) versions ran. */
  readonly quick: boolean;
  /** The base seed. */
  readonly seed: number;
  /** The machine. */
  readonly machine: MachineInfo;
  /** Total wall-clock seconds so far (default: the sum over experiments). */
  readonly wallSeconds?: number;
}

/** Options of {@link writeReport}. */
export interface WriteReportOptions {
  /** Directory to write into (created if missing). */
  outDir: string;
  /** Run-level information. */
  info: ReportInfo;
  /** Figure renderer (default {@link renderSvg}); tests may substitute one. */
  renderFn?: RenderFn;
}

/**
 * Renders one figure spec to SVG markup; `onWarning` receives the renderer's
 * warnings (e.g. an infinite extent from a field that is missing).
 */
export type RenderFn = (
  spec: Record<string, unknown>,
  idPrefix: string,
  onWarning: (message: string) => void,
) => Promise<string>;

/** What {@link writeReport} wrote. */
export interface WrittenReport {
  /** Path of report.md. */
  readonly markdownPath: string;
  /** Path of report.html. */
  readonly htmlPath: string;
  /** Every file written (including the two above). */
  readonly files: readonly string[];
  /** Problems met while writing (figures that failed to render); empty if none. */
  readonly problems: readonly string[];
  /** Renderer warnings per figure ("experiment: figure: message"), each once. */
  readonly warnings: readonly string[];
}

const _SAFE_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * The machine this process runs on (needs no permission).
 *
 * @returns Cores, OS, architecture and runtime versions.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { machineInfo } from "./report.ts";
 * assert.ok(machineInfo().cores >= 1);
 * ```
 */
export function machineInfo(): MachineInfo {
  return {
    cores: navigator.hardwareConcurrency,
    os: Deno.build.os,
    arch: Deno.build.arch,
    deno: Deno.version.deno,
    v8: Deno.version.v8,
  };
}

/**
 * Check that an experiment's result follows the contract of `experiment.ts`:
 * file-name-safe, unique table and figure names, rows as long as the header,
 * cells that are strings, numbers or null, figure specs that are objects.
 *
 * @param result The result to check.
 * @param experimentName Used in error messages.
 * @throws TypeError or RangeError naming the bad table, row or value.
 * @example
 * ```ts
 * import { validateResult } from "./report.ts";
 * validateResult({ summary: "", tables: [], figures: [], comparison: [] }, "r0");
 * ```
 */
export function validateResult(result: ExperimentResult, experimentName: string): void {
  const where = `experiment ${experimentName}`;
  if (result === null || typeof result !== "object") {
    throw new TypeError(
      `${where} must return an object, got ${result === null ? "null" : typeof result}`,
    );
  }
  if (typeof result.summary !== "string") {
    throw new TypeError(`${where}: summary must be a string, got ${typeof result.summary}`);
  }
  for (const key of ["tables", "figures", "comparison"] as const) {
    if (!Array.isArray(result[key])) {
      throw new TypeError(`${where}: ${key} must be an array, got ${typeof result[key]}`);
    }
  }
  const seen = new Set<string>();
  const checkName = (kind: string, name: unknown) => {
    if (typeof name !== "string" || !_SAFE_NAME.test(name)) {
      throw new TypeError(
        `${where}: ${kind} name must be letters, digits, "_" or "-", got ${JSON.stringify(name)}`,
      );
    }
    if (seen.has(`${kind}/${name}`)) {
      throw new RangeError(`${where}: two ${kind}s are named "${name}"`);
    }
    seen.add(`${kind}/${name}`);
  };
  for (const table of result.tables) {
    checkName("table", table.name);
    if (!Array.isArray(table.columns) || table.columns.some((c) => typeof c !== "string")) {
      throw new TypeError(`${where}: table "${table.name}" columns must be an array of strings`);
    }
    if (!Array.isArray(table.rows)) {
      throw new TypeError(
        `${where}: table "${table.name}" rows must be an array, got ${typeof table.rows}`,
      );
    }
    table.rows.forEach((row, i) => {
      if (!Array.isArray(row) || row.length !== table.columns.length) {
        throw new RangeError(
          `${where}: table "${table.name}" row ${i + 1} has ${
            Array.isArray(row) ? row.length : "no"
          } cells, expected ${table.columns.length}`,
        );
      }
      row.forEach((cell, j) => {
        if (cell !== null && typeof cell !== "string" && typeof cell !== "number") {
          throw new TypeError(
            `${where}: table "${table.name}" row ${i + 1} column "${
              table.columns[j]
            }" holds a ${typeof cell}; cells must be strings, numbers or null`,
          );
        }
      });
    });
  }
  for (const figure of result.figures) {
    checkName("figure", figure.name);
    if (figure.spec === null || typeof figure.spec !== "object" || Array.isArray(figure.spec)) {
      throw new TypeError(`${where}: figure "${figure.name}" spec must be a Vega-Lite object`);
    }
  }
  validateVerdicts(result.verdicts, where);
  result.comparison.forEach((line, i) => {
    if (typeof line !== "string") {
      throw new TypeError(
        `${where}: comparison line ${i + 1} must be a string, got ${typeof line}`,
      );
    }
  });
}

/**
 * Rendered figures are cached per spec object (and renderer), so rewriting
 * the report after each experiment does not render earlier figures again.
 */
const _svgCache = new WeakMap<
  object,
  { renderFn: unknown; idPrefix: string; svg: Promise<string>; warnings: string[] }
>();

async function _renderFigures(
  outcomes: readonly ExperimentOutcome[],
  renderFn: RenderFn,
): Promise<Map<ResultFigure, { svg?: string; error?: string; warnings: string[] }>> {
  const out = new Map<ResultFigure, { svg?: string; error?: string; warnings: string[] }>();
  for (const o of outcomes) {
    for (const figure of o.result?.figures ?? []) {
      const idPrefix = `${o.name}-${figure.name}-`;
      let cached = _svgCache.get(figure.spec);
      if (cached === undefined || cached.renderFn !== renderFn || cached.idPrefix !== idPrefix) {
        const warnings: string[] = [];
        const svg = renderFn(figure.spec, idPrefix, (m) => {
          if (!warnings.includes(m)) warnings.push(m);
        });
        cached = { renderFn, idPrefix, svg, warnings };
        _svgCache.set(figure.spec, cached);
      }
      try {
        out.set(figure, { svg: await cached.svg, warnings: cached.warnings });
      } catch (e) {
        out.set(figure, {
          error: e instanceof Error ? e.message : String(e),
          warnings: cached.warnings,
        });
      }
    }
  }
  return out;
}

/**
 * Write report.md, report.html, one CSV per table and one SVG per figure into
 * `options.outDir`.
 *
 * @param outcomes The experiments, in report order (failed ones included).
 * @param options Output directory, run information, renderer.
 * @returns The paths written and any problems (figures that failed to render).
 * @example
 * ```ts ignore
 * import { machineInfo, writeReport } from "./report.ts";
 * await writeReport([], {
 *   outDir: "out/replicate",
 *   info: { date: new Date(), commandLine: "deno task replicate", quick: true, seed: 1, machine: machineInfo() },
 * });
 * ```
 */
export async function writeReport(
  outcomes: readonly ExperimentOutcome[],
  options: WriteReportOptions,
): Promise<WrittenReport> {
  const { outDir, info } = options;
  if (typeof outDir !== "string" || outDir === "") {
    throw new TypeError(`outDir must be a non-empty path, got ${JSON.stringify(outDir)}`);
  }
  const names = new Set<string>();
  for (const o of outcomes) {
    if (!_SAFE_NAME.test(o.name)) {
      throw new TypeError(
        `experiment name must be letters, digits, "_" or "-", got ${JSON.stringify(o.name)}`,
      );
    }
    if (names.has(o.name)) throw new RangeError(`two experiments are named "${o.name}"`);
    names.add(o.name);
  }
  const renderFn = options.renderFn ?? _defaultRender;
  await Deno.mkdir(outDir, { recursive: true });
  const files: string[] = [];
  const problems: string[] = [];
  const warnings: string[] = [];
  const write = async (name: string, text: string) => {
    const path = _join(outDir, name);
    await Deno.writeTextFile(path, text);
    files.push(path);
  };

  const svgs = await _renderFigures(outcomes, renderFn);
  for (const o of outcomes) {
    for (const table of o.result?.tables ?? []) {
      await write(`${o.name}_${table.name}.csv`, toCsv(table.columns, table.rows));
    }
    for (const figure of o.result?.figures ?? []) {
      const r = svgs.get(figure)!;
      for (const w of r.warnings) warnings.push(`${o.name}: figure "${figure.name}": ${w}`);
      if (r.svg !== undefined) await write(`${o.name}_${figure.name}.svg`, r.svg);
      else problems.push(`${o.name}: figure "${figure.name}" could not be rendered: ${r.error}`);
    }
  }
  await write("report.md", renderMarkdown(outcomes, info, svgs));
  await write("report.html", renderHtml(outcomes, info, svgs));
  return {
    markdownPath: _join(outDir, "report.md"),
    htmlPath: _join(outDir, "report.html"),
    files,
    problems,
    warnings,
  };
}

function _defaultRender(
  spec: Record<string, unknown>,
  idPrefix: string,
  onWarning: (message: string) => void,
): Promise<string> {
  return renderSvg(spec, { idPrefix, onWarning });
}

/** Rendered figures: SVG markup, or why rendering failed, per figure. */
export type RenderedFigures = ReadonlyMap<ResultFigure, { svg?: string; error?: string }>;

function _join(dir: string, name: string): string {
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
}

function _cpuText(o: ExperimentOutcome): string {
  return o.cpuSeconds === undefined || o.cpuSeconds === null
    ? ""
    : ` (CPU ${formatDuration(o.cpuSeconds)})`;
}

function _totalSeconds(outcomes: readonly ExperimentOutcome[], info: ReportInfo): number {
  return info.wallSeconds ?? outcomes.reduce((s, o) => s + o.wallSeconds, 0);
}

function _machineText(m: MachineInfo): string {
  return `${m.cores} logical cores, ${m.os} ${m.arch}, Deno ${m.deno} (V8 ${m.v8})`;
}

function _status(o: ExperimentOutcome): string {
  return o.result ? "ok" : "FAILED";
}

/** Whether a column holds numbers only (ignoring nulls), so it is right-aligned. */
function _numericColumns(table: ResultTable): boolean[] {
  return table.columns.map((_, j) => {
    let any = false;
    for (const row of table.rows) {
      const c = row[j];
      if (c === null) continue;
      if (typeof c !== "number") return false;
      any = true;
    }
    return any;
  });
}

function _mdCell(cell: Cell): string {
  return formatCell(cell).replaceAll("\\", "\\\\").replaceAll("|", "\\|").replace(/\r?\n/g, " ");
}

function _mdTable(table: ResultTable): string {
  const numeric = _numericColumns(table);
  const lines = [
    `| ${table.columns.map(_mdCell).join(" | ")} |`,
    `|${numeric.map((n) => (n ? " ---: " : " --- ")).join("|")}|`,
  ];
  for (const row of table.rows) lines.push(`| ${row.map(_mdCell).join(" | ")} |`);
  return lines.join("\n");
}

function _errorParts(error: string): { message: string; detail: string } {
  const lines = error.split("\n");
  return { message: lines[0], detail: lines.slice(1, 16).join("\n") };
}

/**
 * The Markdown report (what report.md holds).
 *
 * @param outcomes The experiments.
 * @param info Run-level information.
 * @param svgs Rendered figures (only which ones failed matters here; figures are linked).
 * @returns Markdown text.
 */
export function renderMarkdown(
  outcomes: readonly ExperimentOutcome[],
  info: ReportInfo,
  svgs: RenderedFigures = new Map(),
): string {
  const out: string[] = [];
  out.push(`# ${info.title ?? "tallmc replication report"}`, "");
  if (outcomes.length > 0) out.push(...verdictTableMarkdown(outcomes), "## Run", "");
  out.push(`- Date: ${info.date.toISOString()}`);
  out.push(`- Command: \`${info.commandLine}\``);
  out.push(`- Mode: ${info.quick ? "quick (reduced sizes)" : "full"}; seed ${info.seed}`);
  out.push(`- Machine: ${_machineText(info.machine)}`);
  out.push(`- Total wall time: ${formatDuration(_totalSeconds(outcomes, info))}`);
  const failed = outcomes.filter((o) => !o.result).length;
  out.push(`- Experiments: ${outcomes.length} run, ${failed} failed`, "");
  if (outcomes.length > 0) {
    out.push("## Contents", "");
    for (const o of outcomes) out.push(`- [${o.title}](#${o.name}) — ${_status(o)}`);
    out.push("");
  }
  for (const o of outcomes) {
    out.push(`<a id="${o.name}"></a>`, "", `## ${o.title}`, "");
    out.push(`- Source: ${o.source}`);
    out.push(`- Wall time: ${formatDuration(o.wallSeconds)}${_cpuText(o)}`);
    out.push(`- Status: ${_status(o)}`, "");
    if (!o.result) {
      const { message, detail } = _errorParts(o.error ?? "unknown error");
      out.push(`**This experiment failed:** ${message.replace(/\r?\n/g, " ")}`, "");
      if (detail) out.push("```text", detail, "```", "");
      continue;
    }
    const r = o.result;
    if (r.summary.trim()) out.push(r.summary.trim(), "");
    for (const t of r.tables) {
      out.push(
        `### Table \`${t.name}\``,
        "",
        `*${t.caption}* ([CSV](${o.name}_${t.name}.csv))`,
        "",
      );
      out.push(_mdTable(t), "");
    }
    for (const f of r.figures) {
      out.push(`### Figure \`${f.name}\``, "");
      const s = svgs.get(f);
      if (s?.error !== undefined) out.push(`*The figure could not be rendered: ${s.error}*`, "");
      else out.push(`![${f.caption.replace(/[[\]]/g, "")}](${o.name}_${f.name}.svg)`, "");
      out.push(`*${f.caption}*`, "");
    }
    if (r.comparison.length > 0) {
      out.push("### Comparison with the paper", "");
      for (const line of r.comparison) out.push(`- ${line.replace(/\r?\n/g, " ")}`);
      out.push("");
    }
  }
  return out.join("\n");
}

const _CSS = `
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f;
  max-width: 64rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.7rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05rem; margin-top: 1.5rem; }
code { font: 0.9em ui-monospace, Menlo, Consolas, monospace; background: #f3f3f3; padding: 0 .2em; }
pre { background: #f6f6f6; padding: .6rem; overflow-x: auto; }
table { border-collapse: collapse; margin: .4rem 0 1rem; font-size: 0.9rem; }
.table-scroll { overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #d4d4d4; padding: .2rem .5rem; }
th { background: #f3f3f3; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
caption { caption-side: top; text-align: left; font-style: italic; padding-bottom: .2rem; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-style: italic; font-size: 0.9rem; }
.meta { color: #555; } .failed { color: #a40000; font-weight: 600; }
.ok { color: #1a6e1a; } ul.comparison li { margin: .2rem 0; }
table.verdicts { font-size: 0.85rem; } table.verdicts td { vertical-align: top; }
td.yes { background: #dff0d8; font-weight: 600; } td.partly { background: #fcf3cf; font-weight: 600; }
td.no { background: #f8d7da; font-weight: 600; } td.none { color: #777; font-style: italic; }
`;

function _htmlTable(table: ResultTable, csvName: string): string {
  const numeric = _numericColumns(table);
  const head = table.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join("");
  const body = table.rows.map((row) =>
    `<tr>${
      row.map((c, j) => `<td${numeric[j] ? ' class="num"' : ""}>${escapeHtml(formatCell(c))}</td>`)
        .join("")
    }</tr>`
  ).join("\n");
  // A table wider than the page (R2's and R4's have 14 columns) scrolls in
  // its own box instead of widening the whole page.
  return `<div class="table-scroll">\n<table>\n<caption>${
    inlineMarkdown(table.caption)
  } (<a href="${csvName}">CSV</a>)</caption>\n` +
    `<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>\n</div>`;
}

/** Strip an XML prolog/doctype so the SVG can be inlined in HTML. */
function _inlineSvg(svg: string): string {
  return svg.replace(/^\s*<\?xml[^>]*>\s*/, "").replace(/^\s*<!DOCTYPE[^>]*>\s*/i, "");
}

/**
 * The static HTML report (what report.html holds): self-contained, figures as
 * inline SVG, inline CSS, no scripts.
 *
 * @param outcomes The experiments.
 * @param info Run-level information.
 * @param svgs Rendered figures.
 * @returns HTML text.
 */
export function renderHtml(
  outcomes: readonly ExperimentOutcome[],
  info: ReportInfo,
  svgs: RenderedFigures = new Map(),
): string {
  const title = info.title ?? "tallmc replication report";
  const out: string[] = [];
  out.push(
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${_CSS}</style>`,
    "</head>",
    "<body>",
    `<h1>${escapeHtml(title)}</h1>`,
    ...(outcomes.length > 0 ? [...verdictTableHtml(outcomes), "<h2>Run</h2>"] : []),
    '<ul class="meta">',
    `<li>Date: ${escapeHtml(info.date.toISOString())}</li>`,
    `<li>Command: <code>${escapeHtml(info.commandLine)}</code></li>`,
    `<li>Mode: ${info.quick ? "quick (reduced sizes)" : "full"}; seed ${info.seed}</li>`,
    `<li>Machine: ${escapeHtml(_machineText(info.machine))}</li>`,
    `<li>Total wall time: ${escapeHtml(formatDuration(_totalSeconds(outcomes, info)))}</li>`,
    `<li>Experiments: ${outcomes.length} run, ${
      outcomes.filter((o) => !o.result).length
    } failed</li>`,
    "</ul>",
  );
  if (outcomes.length > 0) {
    out.push("<h2>Contents</h2>", "<ul>");
    for (const o of outcomes) {
      out.push(
        `<li><a href="#${o.name}">${escapeHtml(o.title)}</a> — <span class="${
          o.result ? "ok" : "failed"
        }">${_status(o)}</span></li>`,
      );
    }
    out.push("</ul>");
  }
  for (const o of outcomes) {
    out.push(`<section id="${o.name}">`, `<h2>${escapeHtml(o.title)}</h2>`, '<ul class="meta">');
    out.push(`<li>Source: ${inlineMarkdown(o.source)}</li>`);
    out.push(`<li>Wall time: ${escapeHtml(formatDuration(o.wallSeconds) + _cpuText(o))}</li>`);
    out.push(
      `<li>Status: <span class="${o.result ? "ok" : "failed"}">${_status(o)}</span></li>`,
      "</ul>",
    );
    if (!o.result) {
      const { message, detail } = _errorParts(o.error ?? "unknown error");
      out.push(`<p class="failed">This experiment failed: ${escapeHtml(message)}</p>`);
      if (detail) out.push(`<pre>${escapeHtml(detail)}</pre>`);
      out.push("</section>");
      continue;
    }
    const r = o.result;
    if (r.summary.trim()) out.push(blockMarkdown(r.summary));
    for (const t of r.tables) out.push(_htmlTable(t, `${o.name}_${t.name}.csv`));
    for (const f of r.figures) {
      const s = svgs.get(f);
      out.push("<figure>");
      if (s?.svg !== undefined) out.push(_inlineSvg(s.svg));
      else {
        out.push(
          `<p class="failed">The figure could not be rendered: ${
            escapeHtml(s?.error ?? "not rendered")
          }</p>`,
        );
      }
      out.push(
        `<figcaption>${
          inlineMarkdown(f.caption)
        } (<a href="${o.name}_${f.name}.svg">SVG</a>)</figcaption>`,
        "</figure>",
      );
    }
    if (r.comparison.length > 0) {
      out.push("<h3>Comparison with the paper</h3>", '<ul class="comparison">');
      for (const line of r.comparison) out.push(`<li>${inlineMarkdown(line)}</li>`);
      out.push("</ul>");
    }
    out.push("</section>");
  }
  out.push("</body>", "</html>", "");
  return out.join("\n");
}
