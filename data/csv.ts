/**
 * Numeric CSV files → GLM data in WebAssembly memory, streamed.
 *
 * ```
 *  file ──count line breaks (core kernel, v128)──► X, y allocated in the arena
 *       ──read 4 MiB blocks──► core CSV kernel ──rows (f64)──► staging block
 *         (on workers for files ≥ 16 MiB)          ──statistics, copy──► arena: X, y
 *       ──anything the kernel does not read──► the papaparse reader below, from the start
 *
 *  papaparse reader: file ──read 1 MiB──► TextDecoder ──► Papa.Parser (row by row)
 *                    ──validate, Number()──► staging block (≈1 MiB, JS) ──copy──► arena
 * ```
 *
 * **Two readers, one result.** Rows are parsed by the core's CSV kernel
 * (data/_csv_wasm.ts, core/as/csv.ts; on workers: data/_csv_parallel.ts)
 * whenever it can: one-byte delimiters, "\n" or "\r\n" line breaks, no quote
 * after the header, and cells that are all plain decimals within the limits
 * below. Its numbers are those of `Number()` bit for bit (a correctly rounded
 * conversion, with `Number()` itself for the rare cells it cannot settle).
 * For anything else — and for every file with a problem — the file is read
 * again by the papaparse reader, which gives the same data or the messages
 * below; tests/data/csv_wasm_test.ts checks that the two agree. The option
 * `reader: "papaparse"` skips the kernel. Design and speed: docs/csv_reader.md.
 *
 * **Allocation: a counting pre-pass.** Before parsing, one cheap pass over the
 * raw bytes counts line breaks; that bounds the number of rows, so X and y are
 * allocated once at their final size (X as soon as the header fixes the
 * number of columns). Growing by doubling instead would need old + new blocks
 * alive at once (3× the data at the last doubling), which does not fit for
 * the large data sets this library is for (10⁷ × 30 f64 = 2.4 GB of a 4 GiB
 * wasm32 memory); re-reading the bytes costs ~5 % of the parse. The bound is
 * exact for files without blank lines or quoted line breaks; otherwise the
 * slack (a few rows) stays allocated. The parallel reader with a shared
 * arena makes no pre-pass: it allocates for a guess of the rows, counts the
 * line breaks of each segment as it parses it, and checks the guess at the
 * end (the same X, y and warnings; a wrong guess reads the file again).
 *
 * No second full copy of the data is made in JS: parsed values go into a
 * staging block of ≈1 MiB, which is copied into the arena through a view
 * derived afresh for every block, so the load stays correct even if other
 * code allocates (and grows the memory) while it awaits file reads.
 *
 * Parser choice for the text path: papaparse, measured 3.5–5× faster than
 * csv-parse on a 10⁶ × 30 numeric file (2.2–2.6·10⁵ vs 5.1–5.6·10⁴ rows/s on
 * an idle 2-core machine; `bench/csv_bench.ts --parsers` repeats it).
 *
 * **Delimiter.** Without the `delimiter` option it is detected from the
 * header line: the one of comma, tab, semicolon and pipe that occurs there
 * (outside quotes), or, when several do, the one that occurs as often in the
 * next line; a header with none is one column. An ambiguous header is
 * refused with a message naming `--delimiter` (the `delimiter` option).
 *
 * **Numbers.** A cell is a number when it is a plain decimal (digits, one
 * point, an optional sign and exponent: `1`, `-2.5`, `.5`, `5.`, `1e-3`),
 * optionally with spaces or tabs around it; it is then read by `Number()`,
 * correctly rounded, bit for bit. Everything else that JavaScript would
 * also read as a number is refused: `0x10`, `0b11`, `0o7`, `Infinity`, and
 * other blanks (line breaks, no-break spaces); so are `1_000` and `0,5`.
 *
 * Validation errors (RangeError, or TypeError for a non-numeric cell) name
 * the 1-based line number and the column: non-numeric or empty cells, NaN and
 * ±Infinity, rows with the wrong number of fields, responses outside the
 * family's domain (logistic: 0 or 1; Poisson: non-negative integers), cells
 * that overflow f32 (|x| > 3.4028234663852886e38) or underflow it to zero or
 * a denormal with `storage: "f32"`, empty files, header-only files, unknown
 * or duplicate columns, and a path that is a directory or does not exist.
 * Problems in the rows are collected: one error lists the first
 * {@link MAX_LISTED_PROBLEMS} (on one line) and stops reading there. Line
 * numbers count one record per line (a quoted field spanning lines shifts
 * later numbers); messages also give the data row (1-based, header and
 * blank lines not counted).
 *
 * **Column names.** A covariate named like a column of a draws file
 * (`chain`, `iteration`, `sign`, `log_sigma`, `log_phi`, `log_nu_minus_1`,
 * `.chain`, `.iteration`, `.draw`, `lp__`) is renamed with the suffix `_x`,
 * an empty header name becomes `V<field>`, each with a warning; duplicate
 * names are refused.
 *
 * **Streams.** Standard input (the path `-`) and paths that are not regular
 * files (FIFOs) are read once, into memory, and parsed from there; a
 * regular file is read twice (see below) and never held whole.
 *
 * **Extreme values** (the rule; see {@link EXTREME_ABS} and
 * {@link EXTREME_RATIO}): a cell with |x| > 10¹⁰⁰ is refused (RangeError
 * naming the column, line and value) — x·β and x² overflow or swamp every
 * other term of the log density, and HMC returns garbage. A covariate whose
 * largest |x| exceeds 10⁶ × max(1, median over the columns of X of their
 * largest |x|) loads, with a warning naming the column and suggesting
 * standardisation: one step size cannot suit coordinates 10⁶ apart in scale,
 * so HMC sticks. The anchor max(1, ·) makes a lone covariate above 10⁶ count
 * too (priors are set on the unit scale). A Gaussian response above 10⁶ in
 * magnitude also warns.
 *
 * **Other warnings** (the data load; {@link CsvTable.warnings} and
 * {@link GlmData.warnings} list them): a constant response (e.g. all zeros:
 * the likelihood cannot locate the intercept, the posterior follows the
 * prior), a constant covariate next to the intercept (not identified apart
 * from it), fewer rows than columns, covariates that are copies of one
 * another, and sets of linearly dependent covariates (a pivoted Cholesky
 * factorisation of X'X: see `collinearityWarnings` in csv_checks.ts). A
 * warning that concerns many columns is one line naming the first ten and
 * counting the rest.
 *
 * The option and path checks, the extreme-value limits and the warnings are
 * in csv_checks.ts; the papaparse chunk feeding is in _csv_chunks.ts.
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { checkRowsFit, type GlmData, type Storage } from "./dataset.ts";
import { ChunkFeeder, countByte, detectNewline } from "./_csv_chunks.ts";
import {
  countBreaksWasm,
  csvWasmCounts,
  csvWasmSteps,
  readCsvWasm,
  readCsvWasmAsync,
} from "./_csv_wasm.ts";
import {
  csvParallelSizes,
  type CsvPlacement,
  type CsvSpeculation,
  readCsvParallel,
} from "./_csv_parallel.ts";
import {
  cellNumber,
  checkCsvFile,
  checkCsvOptions,
  ColumnStats,
  csvDataWarnings,
  DELIMITER_CANDIDATES,
  delimiterName,
  EXTREME_ABS,
  EXTREME_RATIO,
  F32_MAX,
  F32_MIN_NORMAL,
  f32Problem,
  isPlainDecimal,
  notNumberReason,
  safeColumnNames,
} from "./csv_checks.ts";

export { EXTREME_ABS, EXTREME_RATIO };

/** Name given to the intercept column (a column of ones prepended to X). */
export const CSV_INTERCEPT_NAME = "(Intercept)";

/** Options shared by {@link parseCsvText} and {@link loadCsvToArena}. */
export interface CsvOptions {
  /** The response column: a header name, or a 0-based field index. */
  response: string | number;
  /** The GLM family, which fixes the response's domain. */
  family: "logistic" | "gaussian" | "poisson";
  /** Prepend a column of ones named "(Intercept)" (default true). */
  intercept?: boolean;
  /**
   * Covariate columns, in order (header names; "V1", "V2", … without a
   * header). Default: every column except the response, in file order.
   */
  columns?: readonly string[];
  /** Whether the first line is a header (default true). */
  header?: boolean;
  /** Field delimiter (default: detected from the header line among , tab ; |). */
  delimiter?: string;
  /**
   * "auto" (default): the WebAssembly reader, and the papaparse reader for
   * files it does not read (see data/_csv_wasm.ts); "papaparse": only the
   * papaparse reader (the reader before the WebAssembly one, for comparison).
   */
  reader?: "auto" | "papaparse";
}

/** Options of {@link loadCsvToArena}. */
export interface LoadCsvOptions extends CsvOptions {
  /** Storage of X in the arena: "f64" (default) or "f32" (rounded). */
  storage?: Storage;
  /** Bytes read per file read (default 1 MiB). */
  chunkBytes?: number;
  /**
   * Workers that parse a regular file of 16 MiB or more (default: the
   * number of processors, at most 4; 0 parses on this thread).
   */
  workers?: number;
}

/** A parsed numeric table in plain arrays (see {@link parseCsvText}). */
export interface CsvTable {
  /** Row-major numRows × numCols design matrix (intercept first if requested). */
  x: Float64Array;
  /** numRows responses. */
  y: Float64Array;
  /** Number of data rows. */
  numRows: number;
  /** Number of columns of X. */
  numCols: number;
  /** Names of the columns of X. */
  columnNames: string[];
  /** Name of the response column. */
  responseName: string;
  /**
   * Problems that do not stop the load (constant response, extreme or
   * constant columns, fewer rows than columns), one sentence each naming the
   * column; empty when there are none.
   */
  warnings: string[];
}

/** Writes full staging blocks somewhere (arrays or arena). */
type _Flush = (x: Float64Array, y: Float64Array, rowStart: number, numRows: number) => void;
/** Called once the header fixes the columns; allocates room for maxRows rows. */
type _Schema = (numCols: number) => _Flush;

const _STAGING_CELLS = 1 << 17; // 1 MiB of f64

/** Where X and y are, when workers may write them (a shared memory), else null. */
type _Target = () => {
  memory: WebAssembly.Memory;
  x: number;
  y: number;
  capacity: number;
} | null;

/** A load stops after this many problems in the rows, listing them all. */
export const MAX_LISTED_PROBLEMS = 20;

/**
 * Validates records and writes them into staging blocks. One instance per
 * parse; `record()` is the parser's step callback. Problems in the rows are
 * collected (up to {@link MAX_LISTED_PROBLEMS}) and thrown together.
 */
class _CsvSink {
  lineNo = 0;
  numRows = 0;
  numCols = 0;
  columnNames: string[] = [];
  responseName = "";
  #dataRow = 0;
  #numFields = -1;
  #fieldNames: string[] = [];
  #colIdx = new Int32Array(0);
  #respIdx = -1;
  #intercept: boolean;
  #family: CsvOptions["family"];
  #header: boolean;
  #f32: boolean;
  #where: string;
  #options: CsvOptions;
  #onSchema: _Schema;
  #flush: _Flush | null = null;
  #xs = new Float64Array(0);
  #ys = new Float64Array(0);
  #blockRows = 0;
  #inBlock = 0;
  #blockStart = 0;
  #problems: { type: "range" | "type"; text: string }[] = [];
  #notes: string[] = [];
  #stats: ColumnStats | null = null;

  #expectedRows: number | undefined;
  #target: _Target | undefined;

  constructor(
    options: CsvOptions,
    where: string,
    onSchema: _Schema,
    expectedRows?: number,
    target?: _Target,
  ) {
    this.#options = options;
    this.#expectedRows = expectedRows;
    this.#target = target;
    this.#intercept = options.intercept ?? true;
    this.#family = options.family;
    this.#header = options.header ?? true;
    this.#f32 = (options as LoadCsvOptions).storage === "f32";
    this.#where = where;
    this.#onSchema = onSchema;
  }

  record(fields: string[]): void {
    this.lineNo++;
    if (this.#numFields < 0) {
      this.#schema(fields);
      if (this.#header) return;
    }
    if (fields.length === 1 && fields[0] === "") return; // blank line
    this.#dataRow++;
    if (fields.length !== this.#numFields) {
      this.#ragged(fields);
      return;
    }
    const before = this.#problems.length;
    const xs = this.#xs, colIdx = this.#colIdx, f32 = this.#f32;
    let c = this.#inBlock * this.numCols;
    if (this.#intercept) xs[c++] = 1;
    for (let j = 0; j < colIdx.length; j++) {
      const s = fields[colIdx[j]];
      let v = +s;
      // isPlainDecimal(s), inlined: first char digit, sign or point; last digit or point; no 0x/0b/0o.
      const c0 = s.charCodeAt(0), cl = s.charCodeAt(s.length - 1);
      if (
        v - v !== 0 || v > EXTREME_ABS || v < -EXTREME_ABS ||
        !((c0 >= 48 && c0 <= 57) || c0 === 45 || c0 === 43 || c0 === 46) ||
        !((cl >= 48 && cl <= 57) || cl === 46) ||
        (c0 === 48 && s.length > 2 && !isPlainDecimal(s))
      ) {
        v = this.#slowCell(s, colIdx[j]);
      }
      if (
        f32 &&
        (v > F32_MAX || v < -F32_MAX || (v !== 0 && v < F32_MIN_NORMAL && v > -F32_MIN_NORMAL))
      ) {
        this.#problem("range", `${this.#at(colIdx[j])}: ${JSON.stringify(s)} ${f32Problem(v)}`);
      }
      xs[c++] = v;
    }
    const s = fields[this.#respIdx];
    let v = +s;
    if (v - v !== 0 || !isPlainDecimal(s) || v > EXTREME_ABS || v < -EXTREME_ABS) {
      v = this.#slowCell(s, this.#respIdx);
    }
    if (
      this.#family === "logistic"
        ? v !== 0 && v !== 1
        : this.#family === "poisson" && (v < 0 || v % 1 !== 0)
    ) {
      this.#badResponse(v);
    }
    if (this.#problems.length > before) return; // the row is not stored
    this.#ys[this.#inBlock] = v;
    this.numRows++;
    if (++this.#inBlock === this.#blockRows) this.#flushBlock();
  }

  /**
   * Takes the first line's fields as {@link record} does (the header, or the
   * schema of a file without one, whose first line is then data), for a
   * reader that writes the rows itself ({@link addBlock}).
   */
  beginRows(fields: string[]): void {
    if (this.#header) this.record(fields);
    else this.#schema(fields);
  }

  /** The fields per line, the covariates' fields and the response's field. */
  get fieldPlan(): { numFields: number; colIdx: Int32Array; respIdx: number } {
    return { numFields: this.#numFields, colIdx: this.#colIdx, respIdx: this.#respIdx };
  }

  /** Rows per staging block (blocks of {@link addBlock} must be this long, bar the last). */
  get blockRows(): number {
    return this.#blockRows;
  }

  /** Whether X is checked against f32's range. */
  get f32(): boolean {
    return this.#f32;
  }

  /**
   * Takes `m` rows parsed and checked elsewhere, as {@link record} would
   * have stored them: the column statistics (`ranges`: see
   * `ColumnStats.add`), the response's range, and the copy to the
   * destination.
   */
  addBlock(
    xs: Float64Array,
    ys: Float64Array,
    m: number,
    lines: number,
    ranges?: (lo: Float64Array, hi: Float64Array, sum: Float64Array, h: Int32Array) => void,
  ): void {
    this.lineNo += lines;
    if (m === 0) return;
    this.#dataRow += m;
    this.#stats!.add(xs, m, ranges);
    this.#takeRows(xs, ys, m);
  }

  /**
   * Takes `m` rows parsed, checked and summarised elsewhere (a worker of
   * the parallel reader): their statistics merged (`part`: see
   * `ColumnStats.addSegment`), the response's range, and the copy to the
   * destination.
   */
  addSegment(
    xs: Float64Array,
    ys: Float64Array,
    m: number,
    lines: number,
    part: { lo: Float64Array; hi: Float64Array; sum: Float64Array; h: Int32Array },
  ): void {
    this.lineNo += lines;
    if (m === 0) return;
    this.#dataRow += m;
    this.#stats!.addSegment(xs, m, this.#blockRows, part);
    this.#takeRows(xs, ys, m);
  }

  /**
   * Where the parallel reader's workers write the rows themselves (X and y
   * in a shared memory), or null.
   */
  placement(): CsvPlacement | null {
    const t = this.#target?.();
    if (t === undefined || t === null) return null;
    const stats = this.#stats!;
    return {
      memory: t.memory,
      x: t.x,
      y: t.y,
      f32: this.#f32,
      gramStride: stats.gramStride,
      gramStrideHi: stats.gramStride,
      gramMaxRows: stats.gramMaxRows,
    };
  }

  /** The first row of the next m rows a worker writes (see {@link placement}). */
  reserveRows(m: number): number {
    const at = this.#blockStart, t = this.#target!()!;
    if (at + m > t.capacity) {
      throw new Error(`${this.#where}internal error: more rows than the ${t.capacity} counted`);
    }
    this.#blockStart += m;
    return at;
  }

  /**
   * Takes `m` rows a worker parsed, checked, summarised and wrote itself
   * (see {@link placement}): their statistics merged (`part`: see
   * `ColumnStats.addSegment`; `gram`: the rows among them X'X takes) and the
   * response's range.
   */
  addPlaced(
    m: number,
    lines: number,
    part: { lo: Float64Array; hi: Float64Array; sum: Float64Array; h: Int32Array },
    yLo: number,
    yHi: number,
    gram: Float64Array,
  ): void {
    this.lineNo += lines;
    if (m === 0) return;
    this.#dataRow += m;
    this.#stats!.addSegment(gram, m, this.#blockRows, part, true);
    // The first of equal values stays, as in the row loop.
    if (yLo < this.#yMin) this.#yMin = yLo;
    if (yHi > this.#yMax) this.#yMax = yHi;
    this.numRows += m;
  }

  /** The response's range, and the rows' copy to the destination (after their statistics). */
  #takeRows(xs: Float64Array, ys: Float64Array, m: number): void {
    let lo = this.#yMin, hi = this.#yMax;
    for (let i = 0; i < m; i++) {
      const v = ys[i];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    this.#yMin = lo;
    this.#yMax = hi;
    this.#flush!(xs, ys, this.#blockStart, m);
    this.#blockStart += m;
    this.numRows += m;
  }

  /** Warnings about the loaded data (valid after {@link finish}). */
  warnings: string[] = [];
  #yMin = Infinity;
  #yMax = -Infinity;

  finish(): void {
    if (this.#problems.length > 0) this.#throwProblems(false);
    if (this.#inBlock > 0) this.#flushBlock();
    if (this.numRows === 0) {
      if (this.lineNo === 0) {
        throw new RangeError(`${this.#where}the input is empty: no header and no data rows`);
      }
      throw new RangeError(
        this.#header
          ? `${this.#where}the input has a header (line 1) but no data rows`
          : `${this.#where}the input has no data rows, only blank lines`,
      );
    }
    const stats = this.#stats!;
    stats.finish();
    this.warnings = [
      ...this.#notes.map((n) => `${this.#where}${n}`),
      ...csvDataWarnings({
        where: this.#where,
        family: this.#family,
        intercept: this.#intercept,
        responseName: this.responseName,
        columnNames: this.columnNames,
        numRows: this.numRows,
        numCols: this.numCols,
        colMin: stats.colMin,
        colMax: stats.colMax,
        yMin: this.#yMin,
        yMax: this.#yMax,
        stats,
      }),
    ];
  }

  #flushBlock(): void {
    const ys = this.#ys, m = this.#inBlock;
    this.#stats!.add(this.#xs, m);
    for (let i = 0; i < m; i++) {
      if (ys[i] < this.#yMin) this.#yMin = ys[i];
      if (ys[i] > this.#yMax) this.#yMax = ys[i];
    }
    this.#flush!(this.#xs, this.#ys, this.#blockStart, this.#inBlock);
    this.#blockStart += this.#inBlock;
    this.#inBlock = 0;
  }

  #problem(type: "range" | "type", text: string): void {
    this.#problems.push({ type, text });
    if (this.#problems.length >= MAX_LISTED_PROBLEMS) this.#throwProblems(true);
  }

  #throwProblems(stopped: boolean): never {
    const p = this.#problems;
    const Err = p[0].type === "type" ? TypeError : RangeError;
    if (p.length === 1) throw new Err(`${this.#where}${p[0].text}`);
    throw new Err(
      `${this.#where}${p[0].text}; and ${p.length - 1} more problem${p.length === 2 ? "" : "s"}${
        stopped ? ` in the first ${this.lineNo} lines (reading stopped there)` : ""
      }: ${p.slice(1).map((q, k) => `(${k + 2}) ${q.text}`).join(" ")}`,
    );
  }

  #schema(fields: string[]): void {
    const opts = this.#options;
    if (fields.length === 1 && fields[0] === "" && this.#header) {
      throw new RangeError(`${this.#where}line 1: the header is empty`);
    }
    this.#numFields = fields.length;
    this.#fieldNames = this.#header
      ? fields.map((f, j) => (j === 0 ? f.replace(/^\uFEFF/, "") : f).trim())
      : fields.map((_, j) => `V${j + 1}`);
    const names = this.#fieldNames;
    if (this.#header) {
      const seen = new Map<string, number>();
      names.forEach((name, j) => {
        const k = seen.get(name);
        if (k !== undefined) {
          throw new RangeError(
            `${this.#where}line 1: column ${JSON.stringify(name)} appears twice in the header ` +
              `(fields ${k + 1} and ${j + 1}); rename one of them`,
          );
        }
        seen.set(name, j);
      });
    }
    const listed = names.map((n) => JSON.stringify(n)).join(", ");
    const hint = names.length === 1
      ? (() => {
        const other = DELIMITER_CANDIDATES.find((d) => names[0].includes(d));
        return other === undefined
          ? ""
          : ` (the header is one field that holds ${delimiterName(other)}: give the delimiter ` +
            `with --delimiter ${other === "\t" ? "tab" : JSON.stringify(other)}, or the ` +
            `delimiter option in the API)`;
      })()
      : "";
    if (typeof opts.response === "number") {
      if (!Number.isInteger(opts.response) || opts.response < 0 || opts.response >= names.length) {
        throw new RangeError(
          `${this.#where}response index must be an integer in [0, ${
            names.length - 1
          }] (the line has ${names.length} fields), got ${opts.response}${hint}`,
        );
      }
      this.#respIdx = opts.response;
    } else {
      this.#respIdx = names.indexOf(opts.response);
      if (this.#respIdx < 0) {
        throw new RangeError(
          `${this.#where}response column ${
            JSON.stringify(opts.response)
          } not found; the columns are ${listed}${hint}`,
        );
      }
    }
    this.responseName = names[this.#respIdx];
    let idx: number[];
    if (opts.columns !== undefined) {
      idx = [];
      for (const name of opts.columns) {
        const j = names.indexOf(name);
        if (j < 0) {
          throw new RangeError(
            `${this.#where}column ${
              JSON.stringify(name)
            } not found; the columns are ${listed}${hint}`,
          );
        }
        if (j === this.#respIdx) {
          throw new RangeError(
            `${this.#where}column ${
              JSON.stringify(name)
            } is the response and cannot also be a covariate`,
          );
        }
        if (idx.includes(j)) {
          throw new RangeError(
            `${this.#where}column ${JSON.stringify(name)} is listed twice in columns`,
          );
        }
        idx.push(j);
      }
    } else {
      idx = names.map((_, j) => j).filter((j) => j !== this.#respIdx);
    }
    this.#colIdx = Int32Array.from(idx);
    this.numCols = idx.length + (this.#intercept ? 1 : 0);
    if (this.numCols === 0) {
      throw new RangeError(`${this.#where}no covariate columns and no intercept: X would be empty`);
    }
    const safe = safeColumnNames(
      idx.map((j) => names[j]),
      idx.map((j) => j + 1),
      [...names, CSV_INTERCEPT_NAME],
    );
    this.#notes = safe.notes;
    this.columnNames = [...(this.#intercept ? [CSV_INTERCEPT_NAME] : []), ...safe.names];
    this.#blockRows = Math.max(1, Math.floor(_STAGING_CELLS / this.numCols));
    this.#xs = new Float64Array(this.#blockRows * this.numCols);
    this.#ys = new Float64Array(this.#blockRows);
    this.#stats = new ColumnStats(this.numCols, this.#expectedRows);
    this.#flush = this.#onSchema(this.numCols);
  }

  #ragged(fields: string[]): void {
    const expected = this.#numFields, got = fields.length;
    const names = this.#fieldNames;
    const detail = got < expected
      ? `column ${JSON.stringify(names[got])} is missing`
      : `extra field ${JSON.stringify(fields[expected])} after column ${
        JSON.stringify(names[expected - 1])
      }`;
    this.#problem(
      "range",
      `line ${this.lineNo} (data row ${this.#dataRow}): expected ${expected} fields${
        this.#header ? " (one per header column)" : ""
      }, got ${got}; ${detail}`,
    );
  }

  /** "line L, column "a" (data row R)" for messages. */
  #at(field: number): string {
    return `line ${this.lineNo}, column ${
      JSON.stringify(this.#fieldNames[field])
    } (data row ${this.#dataRow})`;
  }

  /** A cell the fast path did not accept: its value, or 0 after recording the problem. */
  #slowCell(s: string, field: number): number {
    const v = cellNumber(s);
    if (v - v === 0 && v <= EXTREME_ABS && v >= -EXTREME_ABS) return v;
    const where = this.#at(field);
    const reason = notNumberReason(s);
    const w = +s.trim();
    if (reason !== null) {
      this.#problem("range", `${where}: ${reason}, got ${JSON.stringify(s)}`);
    } else if (Math.abs(v) > EXTREME_ABS) {
      this.#problem(
        "range",
        `${where}: ${JSON.stringify(s)} is beyond ±${EXTREME_ABS.toExponential()}, which ` +
          `overflows the log density; rescale or standardise the column`,
      );
    } else if (w === Infinity || w === -Infinity) {
      this.#problem(
        "range",
        `${where}: ${JSON.stringify(s)} overflows to ${w}; values must be finite`,
      );
    } else {
      this.#problem("type", `${where}: expected a number, got ${JSON.stringify(s)}`);
    }
    return 0;
  }

  #badResponse(v: number): void {
    const where = this.#at(this.#respIdx);
    this.#problem(
      "range",
      this.#family === "logistic"
        ? `${where}: a logistic response must be 0 or 1, got ${v}`
        : `${where}: a Poisson response must be a non-negative integer, got ${v}`,
    );
  }
}

/** The path that means standard input. */
export const STDIN_PATH = "-";

/** A source of bytes: a file, a FIFO, or standard input. */
interface _Input {
  read(buf: Uint8Array): Promise<number | null>;
  close(): void;
}

async function _openInput(path: string | URL): Promise<_Input> {
  if (path === STDIN_PATH) {
    return { read: (buf) => Deno.stdin.read(buf), close: () => {} };
  }
  const file = await Deno.open(path, { read: true });
  return { read: (buf) => file.read(buf), close: () => file.close() };
}

/**
 * Whether an input is read once, as a stream: standard input (`-`), or a
 * path that is not a regular file (a FIFO, a character device), which
 * cannot be opened a second time for a second pass.
 *
 * @param path The input.
 * @returns True for a stream.
 */
export async function isStreamInput(path: string | URL): Promise<boolean> {
  if (path === STDIN_PATH) return true;
  try {
    const info = await Deno.stat(path);
    return !info.isFile && !info.isDirectory;
  } catch {
    return false;
  }
}

const _streamCache = new Map<string, Promise<Uint8Array[]>>();

/**
 * The whole content of a stream input ({@link isStreamInput}), as the
 * blocks read. The stream is read once: with `keep`, the blocks stay cached
 * for the next call (a peek at the header before the load); without, the
 * cache entry is dropped.
 *
 * @param path The input.
 * @param keep Keep the blocks for a later call.
 * @returns The blocks, in order.
 */
export function readStreamInput(path: string | URL, keep = false): Promise<Uint8Array[]> {
  const key = String(path);
  let p = _streamCache.get(key);
  if (p === undefined) {
    p = (async () => {
      const input = await _openInput(path);
      const blocks: Uint8Array[] = [];
      try {
        for (;;) {
          const buf = new Uint8Array(1 << 20);
          const got = await input.read(buf);
          if (got === null) break;
          if (got > 0) blocks.push(buf.subarray(0, got));
        }
      } finally {
        input.close();
      }
      return blocks;
    })();
    if (keep) _streamCache.set(key, p);
  } else if (!keep) {
    _streamCache.delete(key);
  }
  return p;
}

/**
 * The text of an input: a file read whole, or a stream input
 * ({@link readStreamInput}) read once.
 *
 * @param path The input.
 * @returns Its text (UTF-8).
 */
export async function readInputText(path: string | URL): Promise<string> {
  if (!(await isStreamInput(path))) return await Deno.readTextFile(path);
  const decoder = new TextDecoder("utf-8");
  let text = "";
  for (const b of await readStreamInput(path)) text += decoder.decode(b, { stream: true });
  return text + decoder.decode();
}

/**
 * The first `maxBytes` bytes of an input as text, without consuming a
 * stream input (its blocks are kept for the load).
 *
 * @param path The input.
 * @param maxBytes How much to read.
 * @returns The text, and whether the input is longer.
 */
export async function peekInputText(
  path: string | URL,
  maxBytes: number,
): Promise<{ text: string; more: boolean }> {
  let bytes: Uint8Array;
  if (await isStreamInput(path)) {
    const blocks = await readStreamInput(path, true);
    let total = 0;
    for (const b of blocks) total += b.length;
    bytes = new Uint8Array(Math.min(total, maxBytes));
    let o = 0;
    for (const b of blocks) {
      if (o >= bytes.length) break;
      const take = Math.min(b.length, bytes.length - o);
      bytes.set(b.subarray(0, take), o);
      o += take;
    }
    return { text: new TextDecoder().decode(bytes), more: total > maxBytes };
  }
  const file = await Deno.open(path, { read: true });
  try {
    const buf = new Uint8Array(maxBytes);
    let n = 0;
    for (;;) {
      const got = await file.read(buf.subarray(n));
      if (got === null || got === 0) break;
      n += got;
      if (n === maxBytes) break;
    }
    return { text: new TextDecoder().decode(buf.subarray(0, n)), more: n === maxBytes };
  } finally {
    file.close();
  }
}

/**
 * Parse CSV text held in memory (tests, browsers, small files) into plain
 * arrays, with the same validation as {@link loadCsvToArena}. Put the result
 * into an arena with `glmDataFromArrays(arena, t.x, t.y, {numCols: t.numCols,
 * columnNames: t.columnNames})`.
 *
 * @param text The CSV text.
 * @param options `response`, `family`, `intercept` (true), `columns`,
 *   `header` (true), `delimiter` (detected).
 * @returns The design matrix, responses, column names and warnings.
 * @throws {RangeError} On an empty or header-only text, a duplicate or
 *   unknown column, a ragged row, NaN, ±Infinity or |x| > 10¹⁰⁰, or a
 *   response outside the family's domain (line, data row, column, value).
 * @throws {TypeError} On a non-numeric cell or bad options.
 * @example
 * ```ts
 * import { parseCsvText } from "./csv.ts";
 * import { strict as assert } from "node:assert";
 *
 * const text = "y,a,b\n1,0.5,2\n0,-1,3\n0,2,2\n";
 * const t = parseCsvText(text, { response: "y", family: "logistic" });
 * assert.deepEqual(t.columnNames, ["(Intercept)", "a", "b"]);
 * assert.deepEqual(Array.from(t.x), [1, 0.5, 2, 1, -1, 3, 1, 2, 2]);
 * assert.deepEqual(t.warnings, []);
 *
 * // An all-zero response loads, with a warning naming it.
 * const z = parseCsvText("y,a\n0,1\n0,2\n", { response: "y", family: "logistic" });
 * assert.match(z.warnings[0], /response "y" is 0 in every one of the 2 rows/);
 * ```
 */
export function parseCsvText(text: string, options: CsvOptions): CsvTable {
  if (typeof text !== "string") throw new TypeError(`text must be a string, got ${typeof text}`);
  checkCsvOptions(options);
  const newline = detectNewline(text);
  let maxRecords = 1;
  if (newline !== null) {
    const ch = newline === "\r" ? "\r" : "\n";
    for (let i = text.indexOf(ch); i >= 0; i = text.indexOf(ch, i + 1)) maxRecords++;
  }
  let x = new Float64Array(0), y = new Float64Array(0);
  const newSink = () =>
    new _CsvSink(options, "CSV text: ", (numCols) => {
      x = new Float64Array(maxRecords * numCols);
      y = new Float64Array(maxRecords);
      return (xs, ys, rowStart, m) => {
        x.set(xs.subarray(0, m * numCols), rowStart * numCols);
        y.set(ys.subarray(0, m), rowStart);
      };
    }, maxRecords);
  let sink = newSink();
  const bytes = options.reader === "papaparse" ? null : new TextEncoder().encode(text);
  let at = 0;
  const fast = bytes === null ? "fallback" : readCsvWasm(
    (into) => {
      const n = Math.min(into.length, bytes.length - at);
      into.set(bytes.subarray(at, at + n));
      at += n;
      return n;
    },
    sink,
    { family: options.family, header: options.header ?? true, delimiter: options.delimiter },
  );
  if (fast === "fallback") {
    sink = newSink();
    new ChunkFeeder(options.delimiter, sink, "CSV text: ").feed(text, true);
  }
  sink.finish();
  const n = sink.numRows;
  return {
    x: x.length === n * sink.numCols ? x : x.slice(0, n * sink.numCols),
    y: y.length === n ? y : y.slice(0, n),
    numRows: n,
    numCols: sink.numCols,
    columnNames: sink.columnNames,
    responseName: sink.responseName,
    warnings: sink.warnings,
  };
}

/** Line breaks and bytes of a file, counted by the core's kernel (null without it). */
async function _countBreaksWasm(
  path: string | URL,
): Promise<{ numLf: number; numCr: number; numBytes: number } | null> {
  const file = await Deno.open(path, { read: true });
  try {
    return await countBreaksWasm(async (into) => (await file.read(into)) ?? 0);
  } finally {
    file.close();
  }
}

/** Reads a file or the blocks of a stream through the core's CSV reader (see _csv_wasm.ts). */
async function _readWasm(
  path: string | URL,
  streamed: Uint8Array[] | null,
  sink: _CsvSink,
  options: CsvOptions,
  chunkBytes: number,
): Promise<"done" | "fallback"> {
  const opts = {
    family: options.family,
    header: options.header ?? true,
    delimiter: options.delimiter,
  };
  if (streamed !== null) {
    let k = 0, at = 0;
    return readCsvWasm(
      (into) => {
        let n = 0;
        while (n < into.length && k < streamed.length) {
          const b = streamed[k], take = Math.min(into.length - n, b.length - at);
          into.set(b.subarray(at, at + take), n);
          n += take;
          at += take;
          if (at === b.length) {
            k++;
            at = 0;
          }
        }
        return n;
      },
      sink,
      opts,
    );
  }
  const file = await Deno.open(path, { read: true });
  try {
    return await readCsvWasmAsync(
      async (into) => (await file.read(into.subarray(0, chunkBytes))) ?? 0,
      sink,
      opts,
    );
  } finally {
    file.close();
  }
}

/**
 * Stream a numeric CSV file into the arena as GLM data: one counting pass
 * over the bytes, then a parsing pass that writes rows block by block
 * straight into X and y in WebAssembly memory (see the module doc). Large
 * files go to the parallel reader (data/_csv_parallel.ts), which with a
 * shared arena counts while it parses.
 *
 * Needs read permission for `path`.
 *
 * @param arena The arena to allocate X and y in.
 * @param path The file.
 * @param options `response`, `family`, `intercept` (true), `columns`,
 *   `storage` ("f64"), `header` (true), `delimiter` (detected), `chunkBytes`.
 * @returns The data set; `columnNames` starts with "(Intercept)" when
 *   `intercept` is true.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { loadCsvToArena } from "./csv.ts";
 * const path = await Deno.makeTempFile({ suffix: ".csv" });
 * await Deno.writeTextFile(path, "y,a\n3,0.5\n0,-1\n");
 * const arena = loadCore({ backend: "reference" });
 * const data = await loadCsvToArena(arena, path, { response: "y", family: "poisson" });
 * assert.equal(data.numRows, 2);
 * assert.deepEqual(Array.from(arena.readF64(data.y, 2)), [3, 0]);
 * await Deno.remove(path);
 * ```
 */
export async function loadCsvToArena(
  arena: Arena,
  path: string | URL,
  options: LoadCsvOptions,
): Promise<GlmData> {
  checkCsvOptions(options);
  const storage = options.storage ?? "f64";
  if (storage !== "f64" && storage !== "f32") {
    throw new TypeError(`storage must be "f64" or "f32", got ${JSON.stringify(storage)}`);
  }
  const chunkBytes = options.chunkBytes ?? 1 << 20;
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1) {
    throw new RangeError(`chunkBytes must be a positive integer, got ${chunkBytes}`);
  }
  const workers = options.workers ??
    Math.min(
      4,
      (globalThis.navigator as { hardwareConcurrency?: number })?.hardwareConcurrency ?? 1,
    );
  if (!Number.isInteger(workers) || workers < 0) {
    throw new RangeError(`workers must be a non-negative integer, got ${workers}`);
  }
  const where = `${path instanceof URL ? path.href : path}: `;
  const stream = await isStreamInput(path);
  if (!stream) await checkCsvFile(path, where);
  // A stream (standard input, a FIFO) is read once, into memory; a file twice.
  const streamed = stream ? await readStreamInput(path) : null;
  const blocks = async function* (size: number): AsyncGenerator<Uint8Array> {
    if (streamed !== null) {
      yield* streamed;
      return;
    }
    const file = await Deno.open(path, { read: true });
    try {
      const buf = new Uint8Array(size);
      for (;;) {
        const got = await file.read(buf);
        if (got === null) break;
        yield buf.subarray(0, got);
      }
    } finally {
      file.close();
    }
  };
  // Pass 1: count line breaks (an upper bound on the number of records,
  // whichever of \n, \r\n or \r the parser settles on). With workers, they
  // count (see _csv_parallel.ts) and this pass runs only if they did not.
  let numLf = 0, numCr = 0, numBytes = 0;
  let maxRecords = 0;
  const countPass = async () => {
    const counted = streamed === null && options.reader !== "papaparse"
      ? await _countBreaksWasm(path)
      : null;
    if (counted !== null) ({ numLf, numCr, numBytes } = counted);
    else {
      for await (const view of blocks(Math.max(chunkBytes, 1 << 22))) {
        numBytes += view.length;
        numLf += countByte(view, 10);
        numCr += countByte(view, 13);
      }
    }
    setCounts();
  };
  const setCounts = () => {
    if (numBytes === 0) {
      throw new RangeError(
        `${where}the ${stream ? "input" : "file"} is empty: no header and no data rows`,
      );
    }
    maxRecords = Math.max(numLf, numCr) + 1;
  };
  // Pass 2: parse and write.
  let xPtr = 0, yPtr = 0;
  // Rows X and y hold: maxRecords, or more when the parallel reader
  // allocated them for a guess of the rows before the count.
  let capRows = 0;
  const width = storage === "f64" ? 8 : 4;
  const allocate = (rows: number, numCols: number) => {
    // Not zero-filled: every row is written, and the rows past the last
    // are cleared at the end (_clearTail), so the memory is as if it were.
    const cells = rows * numCols;
    xPtr = storage === "f64" ? arena.allocF64(cells, false) : arena.allocF32(cells, false);
    yPtr = arena.allocF64(rows, false);
    capRows = rows;
  };
  const newSink = () =>
    new _CsvSink(
      options,
      where,
      (numCols) => {
        if (xPtr === 0) {
          // The line breaks bound the records: refuse what cannot fit before allocating.
          checkRowsFit(
            arena,
            { numRows: maxRecords, numCols, storage, approximate: true },
            where,
          );
          allocate(maxRecords, numCols);
        } // else: allocated for the guess, large enough
        return (xs, ys, rowStart, m) => {
          if (rowStart + m > maxRecords) {
            throw new Error(`${where}internal error: more rows than the ${maxRecords} counted`);
          }
          // Fresh views for every block: the memory may have grown meanwhile.
          const off = xPtr + rowStart * numCols * width, len = m * numCols;
          if (storage === "f64") arena.f64(off, len).set(xs.subarray(0, len));
          else arena.f32(off, len).set(xs.subarray(0, len));
          arena.f64(yPtr + rowStart * 8, m).set(ys.subarray(0, m));
        };
      },
      maxRecords,
      () =>
        // Workers write X and y themselves when they can reach the arena's memory.
        arena.shared && xPtr !== 0
          ? { memory: arena.memory, x: xPtr, y: yPtr, capacity: capRows }
          : null,
    );
  const release = () => {
    if (xPtr !== 0) arena.free(xPtr);
    if (yPtr !== 0) arena.free(yPtr);
    xPtr = yPtr = capRows = 0;
  };
  // With a shared arena, the parallel reader's workers write X and y while
  // they parse, before the line breaks are counted: X and y are allocated
  // for a guess of the records, X'X's rows gathered for each stride it allows.
  const speculation: CsvSpeculation | null = arena.shared
    ? {
      reserve: (numCols, rowsLo, rowsHi) => {
        try {
          allocate(rowsHi, numCols);
        } catch {
          release(); // too large a guess for the memory: count first
          return null;
        }
        const lo = new ColumnStats(numCols, rowsLo), hi = new ColumnStats(numCols, rowsHi);
        return {
          placement: {
            memory: arena.memory,
            x: xPtr,
            y: yPtr,
            f32: storage === "f32",
            gramStride: lo.gramStride,
            gramStrideHi: hi.gramStride,
            gramMaxRows: lo.gramMaxRows,
          },
          capacity: rowsHi,
        };
      },
      discard: release,
      counted: (c) => {
        ({ numLf, numCr, numBytes } = c);
        setCounts();
      },
    }
    : null;
  let sink: _CsvSink | null = null;
  let kernelRefused = false; // the workers' kernel read the header and refused the file
  try {
    // Large files: workers count and parse.
    const size = streamed === null && options.reader !== "papaparse" && workers > 0 &&
        typeof path === "string"
      ? (await Deno.stat(path)).size
      : 0;
    if (size >= csvParallelSizes.minBytes) {
      const opts = {
        family: options.family,
        header: options.header ?? true,
        delimiter: options.delimiter,
      };
      const r = await readCsvParallel(
        path as string,
        size,
        (c) => {
          ({ numLf, numCr, numBytes } = c);
          setCounts();
          sink = newSink();
          return sink;
        },
        // The header's plan before the counts: a sink that allocates nothing.
        () => new _CsvSink(options, where, () => () => {}),
        opts,
        workers,
        speculation,
      );
      if (r === "done") {
        sink!.finish();
        _clearTail(arena, xPtr, yPtr, width, capRows, sink!);
        return _arenaData(arena, xPtr, yPtr, storage, sink!);
      }
      release();
      kernelRefused = r === "refused" || sink !== null;
    }
  } catch (e) {
    release();
    throw e;
  }
  if (maxRecords === 0) await countPass();
  sink = newSink();
  try {
    // The core's reader first; the papaparse reader for what it leaves.
    if (
      options.reader === "papaparse" || kernelRefused ||
      await _readWasm(path, streamed, sink, options, chunkBytes) === "fallback"
    ) {
      release();
      sink = newSink();
      const decoder = new TextDecoder("utf-8");
      const feeder = new ChunkFeeder(options.delimiter, sink, where);
      for await (const view of blocks(chunkBytes)) {
        feeder.feed(decoder.decode(view, { stream: true }), false);
      }
      feeder.feed(decoder.decode(), true);
    }
    sink.finish();
  } catch (e) {
    release();
    throw e;
  }
  _clearTail(arena, xPtr, yPtr, width, capRows, sink);
  return _arenaData(arena, xPtr, yPtr, storage, sink);
}

/** Zeroes X's and y's rows [numRows, capRows): the allocation's rows no line filled. */
function _clearTail(
  arena: Arena,
  x: number,
  y: number,
  width: number,
  capRows: number,
  sink: _CsvSink,
): void {
  const n = sink.numRows, d = sink.numCols;
  if (capRows <= n) return;
  new Uint8Array(arena.memory.buffer, x + n * d * width, (capRows - n) * d * width).fill(0);
  new Uint8Array(arena.memory.buffer, y + n * 8, (capRows - n) * 8).fill(0);
}

function _arenaData(
  arena: Arena,
  x: number,
  y: number,
  storage: Storage,
  sink: _CsvSink,
): GlmData {
  return {
    arena,
    x,
    y,
    numRows: sink.numRows,
    numCols: sink.numCols,
    storage,
    columnNames: sink.columnNames,
    warnings: sink.warnings,
  };
}

/** A block of CSV rows as {@link csvRowChunks} yields it (the row store's `RowChunk` shape). */
export interface CsvRowChunk {
  /** Number of rows in the block. */
  numRows: number;
  /** Row-major numRows × numCols (intercept first if requested). */
  x: Float64Array | Float32Array;
  /** numRows responses. */
  y: Float64Array;
}

/** An opened CSV stream: the columns, known once the header has been read. */
export interface CsvRows extends AsyncIterable<CsvRowChunk> {
  /** Names of the columns of X. */
  readonly columnNames: readonly string[];
  /** Name of the response column. */
  readonly responseName: string;
  /** Number of columns of X. */
  readonly numCols: number;
  /** Storage of X in the chunks. */
  readonly storage: Storage;
  /** The load's warnings, complete once every chunk has been read. */
  readonly warnings: readonly string[];
  /** Releases the file (iteration to the end, or a `break`, also does). */
  close(): void;
}

/**
 * Stream a numeric CSV file as blocks of rows (≈ `chunkRows` each) with the
 * checks of {@link loadCsvToArena}, holding one block and one read buffer in
 * memory whatever the file's size: the input of conversions to Parquet or a
 * row store. The header is read before this resolves, so the column names
 * are known before the first block.
 *
 * The rows come from the core's CSV kernel (data/_csv_wasm.ts) block by
 * block as it parses; where it falls back, the papaparse reader reads the
 * file again from the start and the rows already handed on are skipped (the
 * same numbers), so the blocks, names, warnings and errors are those of the
 * papaparse reader alone (`reader: "papaparse"`), which reads standard input.
 *
 * Needs read permission for `path`.
 *
 * @param path The file.
 * @param options As {@link loadCsvToArena}, plus `chunkRows` (rows per
 *   block, default 65 536).
 * @returns The column names and the blocks (iterate once).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openCsvRows } from "./csv.ts";
 * const path = await Deno.makeTempFile({ suffix: ".csv" });
 * await Deno.writeTextFile(path, "y,a\n1,0.5\n0,-1\n1,2\n");
 * const rows = await openCsvRows(path, { response: "y", family: "logistic", chunkRows: 2 });
 * assert.deepEqual(rows.columnNames, ["(Intercept)", "a"]);
 * const sizes = [];
 * for await (const c of rows) sizes.push(c.numRows);
 * assert.deepEqual(sizes, [2, 1]);
 * await Deno.remove(path);
 * ```
 */
export async function openCsvRows(
  path: string | URL,
  options: LoadCsvOptions & { chunkRows?: number },
): Promise<CsvRows> {
  checkCsvOptions(options);
  const storage = options.storage ?? "f64";
  if (storage !== "f64" && storage !== "f32") {
    throw new TypeError(`storage must be "f64" or "f32", got ${JSON.stringify(storage)}`);
  }
  const chunkRows = options.chunkRows ?? 65_536;
  if (!Number.isInteger(chunkRows) || chunkRows < 1) {
    throw new RangeError(`chunkRows must be a positive integer, got ${chunkRows}`);
  }
  const chunkBytes = options.chunkBytes ?? 1 << 20;
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1) {
    throw new RangeError(`chunkBytes must be a positive integer, got ${chunkBytes}`);
  }
  const where = `${path instanceof URL ? path.href : path}: `;
  const stream = await isStreamInput(path);
  if (!stream) {
    await checkCsvFile(path, where);
    if ((await Deno.stat(path)).size === 0) {
      throw new RangeError(`${where}the file is empty: no header and no data rows`);
    }
  }
  const ready: CsvRowChunk[] = [];
  let numCols = 0, x: Float64Array | Float32Array = new Float64Array(0), y = new Float64Array(0);
  let fill = 0;
  const emit = () => {
    if (fill === 0) return;
    ready.push({
      numRows: fill,
      x: fill === chunkRows ? x : x.slice(0, fill * numCols),
      y: fill === chunkRows ? y : y.slice(0, fill),
    });
    x = storage === "f64"
      ? new Float64Array(chunkRows * numCols)
      : new Float32Array(chunkRows * numCols);
    y = new Float64Array(chunkRows);
    fill = 0;
  };
  // Rows handed to the chunks so far; a reader started over skips them.
  let taken = 0, skip = 0;
  const rowsTo = (xs: Float64Array, ys: Float64Array, _rowStart: number, m: number) => {
    let i = Math.min(m, skip);
    skip -= i;
    while (i < m) {
      const take = Math.min(m - i, chunkRows - fill);
      x.set(xs.subarray(i * numCols, (i + take) * numCols), fill * numCols);
      y.set(ys.subarray(i, i + take), fill);
      fill += take;
      taken += take;
      i += take;
      if (fill === chunkRows) emit();
    }
  };
  // The block buffers are made when the first sink learns the columns; a
  // sink started over after a fall back keeps them (the same columns).
  const newSink = () =>
    new _CsvSink(options, where, (d) => {
      if (numCols === 0) {
        numCols = d;
        x = storage === "f64" ? new Float64Array(chunkRows * d) : new Float32Array(chunkRows * d);
        y = new Float64Array(chunkRows);
      }
      return rowsTo;
    });
  let sink = newSink();
  let file = await _openInput(path);
  const decoder = new TextDecoder("utf-8");
  let feeder = new ChunkFeeder(options.delimiter, sink, where);
  const buf = new Uint8Array(chunkBytes);
  // The core's reader first (not for a stream, which cannot be read again):
  // it hands on rows block by block as it parses. Where it falls back
  // (something it does not read itself, data/_csv_wasm.ts), the papaparse
  // reader reads the file again from the start with a fresh sink, whose
  // first `taken` rows (the same numbers) are dropped.
  let wasm = stream || options.reader === "papaparse" ? null : csvWasmSteps(sink, {
    family: options.family,
    header: options.header ?? true,
    delimiter: options.delimiter,
  });
  let request = wasm?.next(0);
  let done = false;
  const step = async (): Promise<void> => {
    if (wasm !== null && request !== undefined) {
      if (!request.done) {
        const into = request.value;
        request = wasm.next((await file.read(into.subarray(0, chunkBytes))) ?? 0);
        return;
      }
      csvWasmCounts[request.value]++;
      if (request.value === "done") {
        sink.finish();
        emit();
        done = true;
        return;
      }
      wasm = null;
      file.close();
      file = await _openInput(path);
      skip = taken;
      sink = newSink();
      feeder = new ChunkFeeder(options.delimiter, sink, where);
    }
    const got = await file.read(buf);
    if (got === null) {
      feeder.feed(decoder.decode(), true);
      sink.finish();
      emit();
      done = true;
    } else {
      feeder.feed(decoder.decode(buf.subarray(0, got), { stream: true }), false);
    }
  };
  try {
    while (!done && numCols === 0) await step();
  } catch (e) {
    file.close();
    throw e;
  }
  if (numCols === 0) {
    file.close();
    sink.finish(); // throws: no data rows
  }
  let used = false, closed = false;
  const close = () => {
    if (!closed) {
      closed = true;
      file.close();
    }
  };
  return {
    close,
    get columnNames() {
      return sink.columnNames;
    },
    get responseName() {
      return sink.responseName;
    },
    numCols,
    storage,
    get warnings() {
      return sink.warnings;
    },
    async *[Symbol.asyncIterator]() {
      if (used) throw new Error(`${where}the rows were already iterated; open the file again`);
      used = true;
      try {
        for (;;) {
          while (ready.length > 0) yield ready.shift()!;
          if (done) return;
          await step();
        }
      } finally {
        close();
      }
    },
  };
}
