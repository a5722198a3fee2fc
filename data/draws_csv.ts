/**
 * Draws files: the CSV format `cli.ts sample` writes and `cli.ts summary`
 * reads, and the draws CSVs of other tools.
 *
 * ```
 *  tallmc    .chain,.iteration,.draw,<params>[,sign]     posterior's names, 1-based
 *  tallmc 1  chain,iteration,<param 1>,…,<param d>[,sign]     (older files) chain 0-based
 *  plain     <param 1>,…,<param d>[,chain][,sign]             one chain without `chain`
 *  CmdStan   # comments … ; lp__,accept_stat__,…,energy__,<params>   one file per chain
 * ```
 *
 * {@link parseDrawsCsv} detects the format from the header: `.chain,.iteration`
 * or `chain,iteration` first is tallmc's; a column ending in `__` (lp__, accept_stat__,
 * stepsize__, treedepth__, n_leapfrog__, divergent__, energy__) or a `#`
 * comment line makes it CmdStan's output CSV, whose sampler columns are not
 * parameters (they are kept in `extra`) and whose warmup rows are dropped when
 * the comments say `save_warmup = 1` (the rows before `# Adaptation
 * terminated`); anything else is a plain draws CSV. In plain and tallmc files
 * the columns `chain` / `.chain` give the chain (any numbers; chains are
 * ordered by id), `iteration`, `.iteration`, `draw` and `.draw` are ignored,
 * and a `sign` column (signed HMC-ECS draws) goes to `extra.sign`. Several
 * texts (e.g. one CmdStan file per chain) are read as consecutive chains.
 *
 * Cells may be NaN, NA or ±Inf (a diverged run; the summary reports them);
 * empty or non-numeric cells, ragged rows, duplicate columns and unequal
 * chains are refused with a RangeError or TypeError naming the source, the
 * line, the column and the value — except that with `interrupted: true` (an
 * interrupted run's file) a cut last row is dropped and unequal chains are
 * cut to the shortest, each said in `warnings`.
 *
 * @module
 */
import { isPlainDecimal } from "./csv_checks.ts";

/** Draws of several chains, as read from or written to a draws file. */
export interface DrawsTable {
  /** Parameter names, in column order. */
  parameterNames: string[];
  /** `draws[chain][param]`: one array of draws per chain and parameter. */
  draws: Float64Array[][];
  /**
   * Extra per-draw columns, `extra[name][chain]`: `sign` of signed HMC-ECS,
   * and CmdStan's sampler columns (`lp__`, `divergent__`, …).
   */
  extra: Record<string, Float64Array[]>;
  /** The format {@link parseDrawsCsv} detected (absent on tables built by hand). */
  format?: "tallmc" | "plain" | "cmdstan";
  /** The chain ids of the file(s), one per chain (set by {@link parseDrawsCsv}). */
  chainIds?: number[];
  /**
   * What {@link parseDrawsCsv} dropped to read an interrupted run's file (a
   * row cut mid-way, chains cut to the shortest), one sentence each; absent
   * when nothing was dropped.
   */
  warnings?: string[];
}

function _quote(name: string): string {
  return /[",\n\r]/.test(name) ? `"${name.replaceAll('"', '""')}"` : name;
}

/**
 * Format draws as CSV text.
 *
 * @param table Parameter names, draws per chain and parameter, optional extra columns.
 * @returns The CSV text (header + one line per draw): posterior's `.chain`,
 *   `.iteration`, `.draw` (1-based), the parameters, then the extra columns.
 *
 * @example
 * ```ts
 * import { formatDrawsCsv } from "./draws_csv.ts";
 * const text = formatDrawsCsv({ parameterNames: ["a"], draws: [[new Float64Array([1, 2])]], extra: {} });
 * if (text !== ".chain,.iteration,.draw,a\n1,1,1,1\n1,2,2,2\n") throw new Error(text);
 * ```
 */
export function formatDrawsCsv(table: DrawsTable): string {
  const { parameterNames, draws, extra } = table;
  const extraNames = Object.keys(extra);
  const header = [".chain", ".iteration", ".draw", ...parameterNames, ...extraNames].map(_quote)
    .join(",");
  const lines = [header];
  let drawId = 0;
  for (let c = 0; c < draws.length; c++) {
    const chain = draws[c];
    if (chain.length !== parameterNames.length) {
      throw new RangeError(
        `chain ${c} has draws for ${chain.length} parameters, expected ${parameterNames.length}`,
      );
    }
    const n = chain[0]?.length ?? 0;
    for (let k = 0; k < n; k++) {
      const cells: (string | number)[] = [c + 1, k + 1, ++drawId];
      for (const p of chain) cells.push(p[k]);
      for (const name of extraNames) cells.push(extra[name][c][k]);
      lines.push(cells.join(","));
    }
  }
  return lines.join("\n") + "\n";
}

function _splitLine(line: string, where: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let cell = "";
      i++;
      for (;;) {
        if (i >= line.length) {
          throw new RangeError(
            `${where}: a quoted field is not closed, got ${JSON.stringify(line)}`,
          );
        }
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            cell += '"';
            i += 2;
          } else {
            i++;
            break;
          }
        } else cell += line[i++];
      }
      out.push(cell);
      if (i < line.length && line[i] !== ",") {
        throw new RangeError(
          `${where}: unexpected text after the quoted field ${JSON.stringify(cell)}, got ${
            JSON.stringify(line.slice(i, i + 20))
          }`,
        );
      }
      i++;
    } else {
      const j = line.indexOf(",", i);
      const end = j < 0 ? line.length : j;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

/** Cells that stand for NaN or ±Infinity (R, CmdStan, JavaScript spellings). */
const _SPECIAL: Record<string, number> = {
  nan: NaN,
  na: NaN,
  inf: Infinity,
  "+inf": Infinity,
  "-inf": -Infinity,
  infinity: Infinity,
  "+infinity": Infinity,
  "-infinity": -Infinity,
};

/** Columns of plain and tallmc files that are neither parameters nor extras. */
const _IGNORED = new Set(["iteration", ".iteration", "draw", ".draw"]);

/** One text's chains before they are merged. */
interface _Parsed {
  format: "tallmc" | "plain" | "cmdstan";
  parameterNames: string[];
  extraNames: string[];
  /** chain id → [per-parameter values, per-extra values] */
  chains: Map<number, { params: number[][]; extra: number[][] }>;
  /** A description of the cut last row that was dropped, or null. */
  cutRow: string | null;
}

function _parseOne(text: string, source: string, interrupted: boolean): _Parsed {
  const label = source === "" ? "" : `${source}: `;
  if (typeof text !== "string") {
    throw new TypeError(`${label}the draws must be CSV text (a string), got ${typeof text}`);
  }
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split(/\r\n|\n|\r/);
  let li = 0;
  let hasComments = false;
  let saveWarmup = false;
  const isSkipped = (line: string) => line.trim() === "" || line.startsWith("#");
  for (; li < lines.length && isSkipped(lines[li]); li++) {
    if (lines[li].startsWith("#")) {
      hasComments = true;
      if (/^#\s*save_warmup\s*=\s*(1|true)\b/.test(lines[li])) saveWarmup = true;
    }
  }
  if (li === lines.length) {
    throw new RangeError(
      `${label}the draws file is empty${hasComments ? " (only comment lines)" : ""}: no header`,
    );
  }
  const header = _splitLine(lines[li], `${label}line ${li + 1}`).map((h) => h.trim());
  const headerLine = li + 1;
  const seen = new Map<string, number>();
  header.forEach((name, j) => {
    if (name === "") {
      throw new RangeError(`${label}line ${headerLine}: column ${j + 1} of the header is empty`);
    }
    const k = seen.get(name);
    if (k !== undefined) {
      throw new RangeError(
        `${label}line ${headerLine}: column ${JSON.stringify(name)} appears twice in the header ` +
          `(fields ${k + 1} and ${j + 1})`,
      );
    }
    seen.set(name, j);
  });
  const format = (header[0] === "chain" && header[1] === "iteration") ||
      (header[0] === ".chain" && header[1] === ".iteration")
    ? "tallmc"
    : hasComments || header.some((h) => h.endsWith("__"))
    ? "cmdstan"
    : "plain";
  // Role of every column: parameter, extra, chain id or ignored.
  const chainIdx = format === "cmdstan"
    ? -1
    : header.findIndex((h) => h === "chain" || h === ".chain");
  const paramIdx: number[] = [];
  const extraIdx: number[] = [];
  header.forEach((h, j) => {
    if (j === chainIdx) return;
    if (format === "cmdstan" ? h.endsWith("__") : h === "sign") extraIdx.push(j);
    else if (format !== "cmdstan" && _IGNORED.has(h)) return;
    else paramIdx.push(j);
  });
  if (paramIdx.length === 0) {
    throw new RangeError(
      `${label}line ${headerLine}: the draws file has no parameter columns, got the header ${
        JSON.stringify(lines[li])
      }`,
    );
  }
  const chains: _Parsed["chains"] = new Map();
  // With save_warmup, CmdStan writes the warmup draws before this comment.
  let inWarmup = format === "cmdstan" && saveWarmup &&
    lines.some((l) => /^#\s*Adaptation terminated/.test(l));
  let numRows = 0;
  // Without a final newline the last line may be a row cut mid-way.
  let lastLine = lines.length - 1;
  while (lastLine >= headerLine && lines[lastLine].trim() === "") lastLine--;
  const mayBeCut = interrupted && lastLine >= headerLine && lastLine === lines.length - 1 &&
    !lines[lastLine].startsWith("#");
  let cutRow: string | null = null;
  for (li = headerLine; li < lines.length; li++) {
    const line = lines[li];
    if (line.trim() === "") continue;
    if (mayBeCut && li === lastLine) {
      let cells: string[] | null = null;
      try {
        cells = _splitLine(line, "");
      } catch {
        // an unclosed quote: cut
      }
      const bad = cells === null || cells.length !== header.length || format === "tallmc" ||
        cells.some((c) => c.trim() === "");
      if (bad) {
        cutRow =
          `${label}line ${li + 1} is cut mid-row (${
            cells?.length ?? 0
          } of ${header.length} fields, no final newline): it was dropped and the ${numRows} ` +
          `complete rows before it are read`;
        break;
      }
    }
    if (line.startsWith("#")) {
      if (/^#\s*Adaptation terminated/.test(line)) inWarmup = false;
      continue;
    }
    if (inWarmup) continue;
    const where = `${label}line ${li + 1}`;
    const cells = _splitLine(line, where);
    if (cells.length !== header.length) {
      const detail = cells.length < header.length
        ? `column ${JSON.stringify(header[cells.length])} is missing`
        : `extra field ${JSON.stringify(cells[header.length])} after the last column`;
      throw new RangeError(
        `${where}: expected ${header.length} fields (one per header column), got ${cells.length}; ${detail}`,
      );
    }
    const value = (j: number): number => {
      const cell = cells[j].trim();
      const special = _SPECIAL[cell.toLowerCase()];
      if (special !== undefined) return special;
      const v = cell === "" || !isPlainDecimal(cell) ? NaN : Number(cell); // no 0x10, 0b11
      if (Number.isNaN(v)) {
        throw new TypeError(
          `${where}, column ${JSON.stringify(header[j])}: expected a number, got ${
            JSON.stringify(cells[j])
          }`,
        );
      }
      return v;
    };
    let id = 0;
    if (chainIdx >= 0) {
      id = value(chainIdx);
      if (!Number.isFinite(id)) {
        throw new RangeError(
          `${where}, column ${JSON.stringify(header[chainIdx])}: a chain id must be a finite ` +
            `number, got ${JSON.stringify(cells[chainIdx])}`,
        );
      }
      if (!chains.has(id) && chains.size >= 10_000) {
        throw new RangeError(
          `${where}, column ${JSON.stringify(header[chainIdx])}: more than 10000 distinct ` +
            `chain ids, got ${JSON.stringify(cells[chainIdx])}; is this column really the chain?`,
        );
      }
    }
    let chain = chains.get(id);
    if (chain === undefined) {
      chain = { params: paramIdx.map(() => []), extra: extraIdx.map(() => []) };
      chains.set(id, chain);
    }
    for (let k = 0; k < paramIdx.length; k++) chain.params[k].push(value(paramIdx[k]));
    for (let k = 0; k < extraIdx.length; k++) {
      const v = value(extraIdx[k]);
      if (v !== 1 && v !== -1 && header[extraIdx[k]] === "sign" && format !== "cmdstan") {
        throw new RangeError(
          `${where}, column "sign": a sign must be 1 or -1, got ${
            JSON.stringify(cells[extraIdx[k]])
          }`,
        );
      }
      chain.extra[k].push(v);
    }
    numRows++;
  }
  if (numRows === 0) {
    throw new RangeError(
      `${label}the draws file has a header (line ${headerLine}) but no draws`,
    );
  }
  return {
    format,
    parameterNames: paramIdx.map((j) => header[j]),
    extraNames: extraIdx.map((j) => header[j]),
    chains,
    cutRow,
  };
}

/**
 * Parse draws CSV text: tallmc's own format, a plain draws CSV, or CmdStan's
 * output CSV, detected from the header (see the module doc). An array of
 * texts (e.g. CmdStan's one file per chain) is read as consecutive chains;
 * every text must have the same parameters.
 *
 * @param text The CSV text, or one text per file.
 * @param options `sources`: a name per text (e.g. the file path) that
 *   prefixes error messages; `interrupted` (default false): read an
 *   interrupted run's file — a last row cut mid-way (no final newline, and
 *   the row short or in tallmc's format, whose writer ends every row with
 *   one) is dropped and chains of unequal length are cut to the shortest,
 *   each drop said in `warnings`.
 * @returns The draws per chain and parameter; `sign` and CmdStan's sampler
 *   columns in `extra`; the detected `format`, the `chainIds` and any `warnings`.
 * @throws {RangeError} On an empty file, a header without draws, a ragged row,
 *   duplicate or mismatched columns, or chains of unequal length (unless
 *   `interrupted`).
 * @throws {TypeError} On a non-numeric or empty cell (naming line, column and
 *   value), or input that is not text.
 *
 * @example
 * ```ts
 * import { parseDrawsCsv } from "./draws_csv.ts";
 * import { strict as assert } from "node:assert";
 *
 * const t = parseDrawsCsv("chain,iteration,a\n0,0,1\n1,0,3\n");
 * assert.equal(t.format, "tallmc");
 * assert.equal(t.draws[1][0][0], 3);
 * const p = parseDrawsCsv(".chain,.iteration,.draw,a\n1,1,1,1\n2,1,2,3\n");
 * assert.equal(p.format, "tallmc");
 * assert.deepEqual(p.parameterNames, ["a"]);
 * assert.deepEqual(p.chainIds, [1, 2]);
 *
 * const stan = "# model = m\nlp__,accept_stat__,mu\n-1.5,0.9,0.2\n-1.2,0.8,0.4\n";
 * const s = parseDrawsCsv([stan, stan], { sources: ["m_1.csv", "m_2.csv"] });
 * assert.equal(s.format, "cmdstan");
 * assert.deepEqual(s.parameterNames, ["mu"]);
 * assert.equal(s.draws.length, 2);
 * assert.deepEqual(Array.from(s.extra.lp__[0]), [-1.5, -1.2]);
 * ```
 */
export function parseDrawsCsv(
  text: string | readonly string[],
  options: { sources?: readonly string[]; interrupted?: boolean } = {},
): DrawsTable {
  const texts = typeof text === "string" ? [text] : text;
  if (!Array.isArray(texts)) {
    throw new TypeError(`text must be CSV text or an array of texts, got ${typeof text}`);
  }
  if (texts.length === 0) throw new RangeError("text must hold at least 1 draws file, got 0");
  const sources = options.sources ?? [];
  if (sources.length !== 0 && sources.length !== texts.length) {
    throw new RangeError(
      `options.sources must name every text (${texts.length}), got ${sources.length}`,
    );
  }
  const interrupted = options.interrupted ?? false;
  const parsed = texts.map((t, k) =>
    _parseOne(t, sources[k] ?? (texts.length > 1 ? `text ${k + 1}` : ""), interrupted)
  );
  const warnings = parsed.flatMap((p) => p.cutRow === null ? [] : [p.cutRow]);
  const first = parsed[0];
  const source = (k: number) => sources[k] ?? `text ${k + 1}`;
  for (let k = 1; k < parsed.length; k++) {
    const p = parsed[k];
    if (p.parameterNames.join("\u0000") !== first.parameterNames.join("\u0000")) {
      const missing = first.parameterNames.find((n) => !p.parameterNames.includes(n));
      const added = p.parameterNames.find((n) => !first.parameterNames.includes(n));
      throw new RangeError(
        `${source(k)}: the parameters differ from ${source(0)}'s${
          missing !== undefined ? `; ${JSON.stringify(missing)} is missing` : ""
        }${added !== undefined ? `; ${JSON.stringify(added)} is new` : ""}${
          missing === undefined && added === undefined ? " (they are in another order)" : ""
        }`,
      );
    }
    if (p.extraNames.join("\u0000") !== first.extraNames.join("\u0000")) {
      throw new RangeError(
        `${source(k)}: the extra columns ${JSON.stringify(p.extraNames)} differ from ${
          source(0)
        }'s ${JSON.stringify(first.extraNames)}`,
      );
    }
  }
  const draws: Float64Array[][] = [];
  const extra: Record<string, Float64Array[]> = {};
  for (const name of first.extraNames) extra[name] = [];
  const chainIds: number[] = [];
  const lengths: { n: number; what: string }[] = [];
  parsed.forEach((p, k) => {
    const ids = [...p.chains.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      const chain = p.chains.get(id)!;
      draws.push(chain.params.map((v) => Float64Array.from(v)));
      p.extraNames.forEach((name, e) => extra[name].push(Float64Array.from(chain.extra[e])));
      chainIds.push(p.format === "cmdstan" ? chainIds.length + 1 : id);
      const where = parsed.length > 1 ? `${source(k)}, ` : "";
      lengths.push({
        n: chain.params[0].length,
        what: p.format === "cmdstan" || ids.length === 1 && parsed.length > 1
          ? source(k)
          : `${where}chain ${id}`,
      });
    }
  });
  const short = lengths.find((l) => l.n !== lengths[0].n);
  if (short !== undefined && interrupted) {
    const n = Math.min(...lengths.map((l) => l.n));
    const dropped = lengths.filter((l) => l.n > n).map((l) =>
      `the last ${l.n - n} draws of ${l.what}`
    );
    warnings.push(
      `the chains have unequal lengths (${
        lengths.map((l) => `${l.what}: ${l.n}`).join(", ")
      } draws), as an interrupted run leaves them; each is cut to the shortest, ${n} draws: ` +
        `dropped ${dropped.join(", ")}`,
    );
    for (let c = 0; c < draws.length; c++) {
      if (draws[c][0].length === n) continue;
      draws[c] = draws[c].map((v) => v.slice(0, n));
      for (const name of first.extraNames) extra[name][c] = extra[name][c].slice(0, n);
    }
  } else if (short !== undefined) {
    throw new RangeError(
      `chains must be equally long, got ${lengths[0].n} draws in ${
        lengths[0].what
      } and ${short.n} in ${short.what}`,
    );
  }
  return {
    parameterNames: first.parameterNames,
    draws,
    extra,
    format: first.format,
    chainIds,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
