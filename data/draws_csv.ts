/**
 * Draws files: the CSV format `cli.ts sample` writes and `cli.ts summary`
 * reads.
 *
 * ```
 *  chain,iteration,<param 1>,…,<param d>[,<extra column>…]
 *  0,0,0.12,…
 * ```
 *
 * One row per kept draw; `chain` and `iteration` are 0-based integers. Columns
 * after the parameters (e.g. `sign` of signed HMC-ECS) are kept as extra
 * per-draw values. A column named `sign` is read as the per-draw sign.
 *
 * @module
 */

/** Draws of several chains, as read from or written to a draws file. */
export interface DrawsTable {
  /** Parameter names, in column order. */
  parameterNames: string[];
  /** `draws[chain][param]`: one array of draws per chain and parameter. */
  draws: Float64Array[][];
  /** Extra per-draw columns (e.g. `sign`), `extra[name][chain]`. */
  extra: Record<string, Float64Array[]>;
}

function _quote(name: string): string {
  return /[",\n\r]/.test(name) ? `"${name.replaceAll('"', '""')}"` : name;
}

/**
 * Format draws as CSV text.
 *
 * @param table Parameter names, draws per chain and parameter, optional extra columns.
 * @returns The CSV text (header + one line per draw).
 *
 * @example
 * ```ts
 * import { formatDrawsCsv } from "./draws_csv.ts";
 * const text = formatDrawsCsv({ parameterNames: ["a"], draws: [[new Float64Array([1, 2])]], extra: {} });
 * if (text !== "chain,iteration,a\n0,0,1\n0,1,2\n") throw new Error(text);
 * ```
 */
export function formatDrawsCsv(table: DrawsTable): string {
  const { parameterNames, draws, extra } = table;
  const extraNames = Object.keys(extra);
  const header = ["chain", "iteration", ...parameterNames, ...extraNames].map(_quote).join(",");
  const lines = [header];
  for (let c = 0; c < draws.length; c++) {
    const chain = draws[c];
    if (chain.length !== parameterNames.length) {
      throw new RangeError(
        `chain ${c} has draws for ${chain.length} parameters, expected ${parameterNames.length}`,
      );
    }
    const n = chain[0]?.length ?? 0;
    for (let k = 0; k < n; k++) {
      const cells: (string | number)[] = [c, k];
      for (const p of chain) cells.push(p[k]);
      for (const name of extraNames) cells.push(extra[name][c][k]);
      lines.push(cells.join(","));
    }
  }
  return lines.join("\n") + "\n";
}

function _splitLine(line: string, lineNumber: number): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let cell = "";
      i++;
      for (;;) {
        if (i >= line.length) {
          throw new SyntaxError(`line ${lineNumber}: unterminated quoted field`);
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
        throw new SyntaxError(`line ${lineNumber}: unexpected text after a quoted field`);
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

/**
 * Parse a draws file.
 *
 * @param text CSV text with a `chain,iteration,…` header.
 * @returns The draws per chain and parameter; the `sign` column, if any, in `extra.sign`.
 * @throws {SyntaxError} On a missing header, a non-numeric cell, a ragged row, or chains of unequal length.
 *
 * @example
 * ```ts
 * import { parseDrawsCsv } from "./draws_csv.ts";
 * const t = parseDrawsCsv("chain,iteration,a\n0,0,1\n1,0,3\n");
 * if (t.draws.length !== 2 || t.draws[1][0][0] !== 3) throw new Error();
 * ```
 */
export function parseDrawsCsv(text: string): DrawsTable {
  const lines = text.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length === 0) throw new SyntaxError("the draws file is empty");
  const header = _splitLine(lines[0], 1);
  if (header[0] !== "chain" || header[1] !== "iteration") {
    throw new SyntaxError(
      `a draws file starts with the columns chain,iteration; got ${
        JSON.stringify(header.slice(0, 2).join(","))
      }`,
    );
  }
  const names = header.slice(2);
  if (names.length === 0) throw new SyntaxError("the draws file has no parameter columns");
  const signIdx = names.indexOf("sign");
  const parameterNames = names.filter((_, j) => j !== signIdx);
  const perChain: number[][][] = [];
  const signs: number[][] = [];
  for (let li = 1; li < lines.length; li++) {
    const cells = _splitLine(lines[li], li + 1);
    if (cells.length !== header.length) {
      throw new SyntaxError(`line ${li + 1} has ${cells.length} fields, expected ${header.length}`);
    }
    const values = cells.map((s, j) => {
      const v = s.trim() === "" ? NaN : Number(s);
      if (!Number.isFinite(v)) {
        throw new SyntaxError(
          `line ${li + 1}, column ${JSON.stringify(header[j])}: not a finite number: ${
            JSON.stringify(s)
          }`,
        );
      }
      return v;
    });
    const c = values[0];
    if (!Number.isInteger(c) || c < 0 || c > 10_000) {
      throw new SyntaxError(
        `line ${li + 1}: chain must be a small non-negative integer, got ${cells[0]}`,
      );
    }
    while (perChain.length <= c) {
      perChain.push(parameterNames.map(() => []));
      signs.push([]);
    }
    let p = 0;
    for (let j = 0; j < names.length; j++) {
      if (j === signIdx) signs[c].push(values[j + 2]);
      else perChain[c][p++].push(values[j + 2]);
    }
  }
  if (perChain.length === 0) throw new SyntaxError("the draws file has a header but no draws");
  const n0 = perChain[0][0].length;
  perChain.forEach((ch, c) => {
    if (ch[0].length !== n0) {
      throw new SyntaxError(
        `chain ${c} has ${ch[0].length} draws but chain 0 has ${n0}; chains must be equally long`,
      );
    }
  });
  const extra: Record<string, Float64Array[]> = {};
  if (signIdx >= 0) extra.sign = signs.map((s) => Float64Array.from(s));
  return {
    parameterNames,
    draws: perChain.map((ch) => ch.map((p) => Float64Array.from(p))),
    extra,
  };
}
