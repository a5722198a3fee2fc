/**
 * From an opened Parquet file to GLM row chunks: which columns are the
 * response, the covariates and `aux` ({@link ParquetOptions}), and the
 * checks and transposition of one row group's column-major cells into a
 * row-major chunk, with the statistics behind csv.ts's warnings.
 *
 * @module
 */
import { CSV_INTERCEPT_NAME, type CsvOptions } from "./csv.ts";
import {
  checkCsvOptions,
  ColumnStats,
  EXTREME_ABS,
  F32_MAX,
  F32_MIN_NORMAL,
  f32Problem,
  safeColumnNames,
} from "./csv_checks.ts";
import type { ParquetTransposer } from "../core/parquet_kernel.ts";
import {
  foldParquetPart,
  freshParquetPart,
  isTypedParquetCells,
  type ParquetGroupPart,
} from "./parquet_group.ts";
import type { Storage } from "./dataset.ts";
import {
  type OpenedParquet,
  PARQUET_NUMERIC_TYPES,
  type ParquetCells,
  type ParquetDecompressors,
  type ParquetRowChunk,
} from "./parquet_source.ts";

/**
 * Options of {@link loadParquet}, {@link openParquetRows} and
 * {@link parquetRowChunks}: which column is the response, which are the
 * covariates, the intercept and the family — as for CSV files.
 */
export interface ParquetOptions {
  /** The response column: a column name, or a 0-based column index. */
  response: string | number;
  /** The GLM family, which fixes the response's domain. */
  family: CsvOptions["family"];
  /** Prepend a column of ones named "(Intercept)" (default true). */
  intercept?: boolean;
  /** Covariate columns, in order. Default: every column but the response (and `aux`). */
  columns?: readonly string[];
  /** Storage of X: "f64" (default) or "f32" (rounded). */
  storage?: Storage;
  /** A column read into each chunk's `aux` (an offset or a trial count), not into X. */
  aux?: string;
  /** Decompressors for codecs other than snappy (see {@link ParquetDecompressors}). */
  compressors?: ParquetDecompressors;
}

/** The columns a read takes and the names and shape of X. */
export interface ParquetLayout {
  readColumns: string[];
  xCols: string[];
  responseName: string;
  auxName?: string;
  intercept: boolean;
  columnNames: string[];
  numCols: number;
  storage: Storage;
  notes: string[];
}

/** Resolves the options against the file's columns; errors name the file and the column. */
export function parquetLayout(o: OpenedParquet, options: ParquetOptions): ParquetLayout {
  checkCsvOptions(options);
  const storage = options.storage ?? "f64";
  if (storage !== "f64" && storage !== "f32") {
    throw new TypeError(`storage must be "f64" or "f32", got ${JSON.stringify(storage)}`);
  }
  const { names, types, where } = o;
  const listed = names.map((n) => JSON.stringify(n)).join(", ");
  const find = (name: string, what: string): number => {
    const j = names.indexOf(name);
    if (j < 0) {
      throw new RangeError(
        `${where}${what} ${JSON.stringify(name)} not found; the columns are ${listed}`,
      );
    }
    return j;
  };
  let respIdx: number;
  if (typeof options.response === "number") {
    if (
      !Number.isInteger(options.response) || options.response < 0 ||
      options.response >= names.length
    ) {
      throw new RangeError(
        `${where}response index must be an integer in [0, ${
          names.length - 1
        }] (the file has ${names.length} columns), got ${options.response}`,
      );
    }
    respIdx = options.response;
  } else respIdx = find(options.response, "response column");
  const responseName = names[respIdx];
  let auxIdx = -1;
  if (options.aux !== undefined) {
    auxIdx = find(options.aux, "aux column");
    if (auxIdx === respIdx) {
      throw new RangeError(
        `${where}column ${JSON.stringify(options.aux)} is the response and cannot also be aux`,
      );
    }
  }
  let idx: number[];
  if (options.columns !== undefined) {
    idx = [];
    for (const name of options.columns) {
      const j = find(name, "column");
      if (j === respIdx || j === auxIdx) {
        throw new RangeError(
          `${where}column ${JSON.stringify(name)} is the ${
            j === respIdx ? "response" : "aux column"
          } and cannot also be a covariate`,
        );
      }
      if (idx.includes(j)) {
        throw new RangeError(`${where}column ${JSON.stringify(name)} is listed twice in columns`);
      }
      idx.push(j);
    }
  } else {
    idx = names.map((_, j) => j).filter((j) => j !== respIdx && j !== auxIdx);
  }
  for (const j of [respIdx, ...(auxIdx >= 0 ? [auxIdx] : []), ...idx]) {
    if (!PARQUET_NUMERIC_TYPES.has(types[j])) {
      throw new TypeError(
        `${where}column ${JSON.stringify(names[j])} is ${
          types[j] === "" ? "a nested group" : `of type ${types[j]}`
        }, not numeric (DOUBLE, FLOAT, INT32, INT64 or BOOLEAN)${
          options.columns === undefined && j !== respIdx
            ? "; choose the covariates with columns"
            : ""
        }`,
      );
    }
  }
  const intercept = options.intercept ?? true;
  const xCols = idx.map((j) => names[j]);
  // Covariates named like draws-file columns are renamed (csv.ts's rule).
  const safe = safeColumnNames(xCols, idx.map((j) => j + 1), [...names, CSV_INTERCEPT_NAME]);
  const columnNames = [...(intercept ? [CSV_INTERCEPT_NAME] : []), ...safe.names];
  if (columnNames.length === 0) {
    throw new RangeError(`${where}no covariate columns and no intercept: X would be empty`);
  }
  return {
    readColumns: [...new Set([responseName, ...(auxIdx >= 0 ? [names[auxIdx]] : []), ...xCols])],
    xCols,
    responseName,
    auxName: auxIdx >= 0 ? names[auxIdx] : undefined,
    intercept,
    columnNames,
    numCols: columnNames.length,
    storage,
    notes: safe.notes.map((n) => `${where}${n}`),
  };
}

/** Validates and transposes one row group into a chunk. */
export class ParquetChunkBuilder {
  #o: OpenedParquet;
  #l: ParquetLayout;
  #family: CsvOptions["family"];
  colMin: Float64Array;
  colMax: Float64Array;
  yMin = Infinity;
  yMax = -Infinity;

  /** Copies and X'X, as csv.ts accumulates them. */
  stats: ColumnStats;

  /** Column k of X in f64, one row group long (reused from group to group). */
  #xcols: Float64Array[] = [];
  /** Ones, the intercept's column for the kernel. */
  #ones = new Float32Array(0);
  /** A column for the checks that name a bad cell. */
  #scratch = new Float64Array(0);

  constructor(o: OpenedParquet, l: ParquetLayout, family: CsvOptions["family"], numRows?: number) {
    this.#o = o;
    this.#l = l;
    this.#family = family;
    this.stats = new ColumnStats(l.numCols, numRows);
    this.colMin = new Float64Array(l.numCols).fill(Infinity);
    this.colMax = new Float64Array(l.numCols).fill(-Infinity);
  }

  /** A chunk of one row group: fresh row-major X (in the layout's storage), y and aux. */
  build(cols: Map<string, ParquetCells>, numRows: number, firstRow: number): ParquetRowChunk {
    const l = this.#l, d = l.numCols;
    const y = new Float64Array(numRows);
    const x = l.storage === "f64" ? new Float64Array(numRows * d) : new Float32Array(numRows * d);
    const aux = this.#check(cols, numRows, firstRow, x, y);
    return aux === undefined ? { numRows, x, y } : { numRows, x, y, aux };
  }

  /**
   * One row group straight into X and y (e.g. views of the arena): x is
   * numRows × numCols row-major in the layout's storage, y numRows long. The
   * same values, checks, errors and statistics as {@link build}. With `into`,
   * X is written by the core's kernel at `into.xPtr` of the transposer's
   * arena (x must view the same bytes; the same numbers).
   */
  buildInto(
    cols: Map<string, ParquetCells>,
    numRows: number,
    firstRow: number,
    x: Float64Array | Float32Array,
    y: Float64Array,
    into?: { transposer: ParquetTransposer; xPtr: number },
  ): void {
    this.#check(cols, numRows, firstRow, x, y, into);
  }

  /**
   * Adds a row group that {@link parquetFastGroup} checked and transposed
   * (here or on another thread): its statistics, folded in file order, as
   * {@link buildInto} would have added them.
   *
   * @param part The group's statistics.
   * @param numRows Its rows.
   */
  addPart(part: ParquetGroupPart, numRows: number): void {
    if (part.yMin < this.yMin) this.yMin = part.yMin;
    if (part.yMax > this.yMax) this.yMax = part.yMax;
    if (this.#l.intercept) {
      this.colMin[0] = Math.min(this.colMin[0], 1);
      this.colMax[0] = Math.max(this.colMax[0], 1);
    }
    this.stats.addGatheredGram(
      numRows,
      (lo, hi, sum, h) => foldParquetPart(lo, hi, sum, h, part, numRows),
      part.gram,
    );
    this.colMin.set(this.stats.colMin);
    this.colMax.set(this.stats.colMax);
  }

  /**
   * Reads and checks the response (into y), aux (returned) and the columns
   * of X, in that order and each column in row order, so the first bad cell
   * found is the one a row-by-row pass over each column finds; then adds X's
   * columns to the statistics and writes them row-major into x (rounded for
   * f32). Typed columns are checked in that last pass (in TypeScript, or in
   * the core's kernel with `into`); only when it meets a bad cell are they
   * checked one by one, to name it.
   */
  #check(
    cols: Map<string, ParquetCells>,
    numRows: number,
    firstRow: number,
    x: Float64Array | Float32Array,
    y: Float64Array,
    into?: { transposer: ParquetTransposer; xPtr: number },
  ): Float64Array | undefined {
    const l = this.#l, d = l.numCols;
    this.#numbers(cols.get(l.responseName)!, l.responseName, firstRow, y, numRows, false);
    const fam = this.#family;
    let yMin = this.yMin, yMax = this.yMax;
    for (let i = 0; i < numRows; i++) {
      const v = y[i];
      if (fam === "logistic" ? v !== 0 && v !== 1 : fam === "poisson" && (v < 0 || v % 1 !== 0)) {
        throw new RangeError(
          `${this.#at(l.responseName, firstRow + i)}: ${
            fam === "logistic"
              ? "a logistic response must be 0 or 1"
              : "a Poisson response must be a non-negative integer"
          }, got ${v}`,
        );
      }
      if (v < yMin) yMin = v;
      if (v > yMax) yMax = v;
    }
    this.yMin = yMin;
    this.yMax = yMax;
    let aux: Float64Array | undefined;
    if (l.auxName !== undefined) {
      aux = new Float64Array(numRows);
      this.#numbers(cols.get(l.auxName)!, l.auxName, firstRow, aux, numRows, false);
    }
    const f32 = l.storage === "f32";
    const maxAbs = f32 ? F32_MAX : EXTREME_ABS, minAbs = f32 ? F32_MIN_NORMAL : 0;
    const typed = l.xCols.every((name) => isTypedParquetCells(cols.get(name)!));
    if (l.intercept) {
      this.colMin[0] = Math.min(this.colMin[0], 1);
      this.colMax[0] = Math.max(this.colMax[0], 1);
    }
    if (typed && into !== undefined) {
      // The decoded columns go to the kernel as they are (the intercept as a
      // column of ones); X'X's rows are picked from them too (the same values).
      const src: (Float64Array | Float32Array | Int32Array)[] = [];
      if (l.intercept) {
        if (this.#ones.length < numRows) this.#ones = new Float32Array(numRows).fill(1);
        src.push(this.#ones);
      }
      for (const name of l.xCols) src.push(cols.get(name) as Float64Array | Float32Array);
      let ok = true;
      this.stats.addColumns(src as Float64Array[], numRows, (lo, hi, sum, h) => {
        const p = freshParquetPart(d);
        ok = into.transposer.run(
          src,
          numRows,
          into.xPtr,
          x instanceof Float64Array,
          p.lo,
          p.hi,
          p.sum,
          p.h,
          minAbs,
          maxAbs,
        );
        foldParquetPart(lo, hi, sum, h, p, numRows);
      });
      if (!ok) this.#firstBad(cols, numRows, firstRow);
      this.colMin.set(this.stats.colMin);
      this.colMax.set(this.stats.colMax);
      return aux;
    }
    const xcols = this.#xcols;
    if (xcols.length !== d || xcols[0].length < numRows) {
      xcols.length = 0;
      for (let k = 0; k < d; k++) xcols.push(new Float64Array(numRows));
    }
    let k = 0;
    if (l.intercept) {
      xcols[0].fill(1, 0, numRows);
      k = 1;
    }
    if (typed) {
      // Native copies to f64, then the checks in the pass below; if that
      // pass meets a bad cell, the column-by-column checks name the first.
      for (const name of l.xCols) {
        const col = cols.get(name)! as Float64Array | Float32Array | Int32Array;
        xcols[k++].set(col.length === numRows ? col : col.subarray(0, numRows));
      }
    } else {
      for (const name of l.xCols) {
        const [lo, hi] = this.#numbers(cols.get(name)!, name, firstRow, xcols[k], numRows, f32);
        if (lo < this.colMin[k]) this.colMin[k] = lo;
        if (hi > this.colMax[k]) this.colMax[k] = hi;
        k++;
      }
    }
    // Ranges, sums and hashes in the same pass as the transposition.
    let ok = true;
    this.stats.addColumns(xcols, numRows, (lo, hi, sum, h) => {
      const p = freshParquetPart(d);
      ok = into !== undefined
        ? into.transposer.run(
          xcols,
          numRows,
          into.xPtr,
          x instanceof Float64Array,
          p.lo,
          p.hi,
          p.sum,
          p.h,
          minAbs,
          maxAbs,
        )
        : x instanceof Float64Array
        ? _statsTransposeF64(x, xcols, numRows, d, p.lo, p.hi, p.sum, p.h, minAbs, maxAbs)
        : _statsTransposeF32(x, xcols, numRows, d, p.lo, p.hi, p.sum, p.h, minAbs, maxAbs);
      foldParquetPart(lo, hi, sum, h, p, numRows);
    });
    if (typed) {
      if (!ok) this.#firstBad(cols, numRows, firstRow);
      // The running ranges are those of the statistics (the same values in
      // the same order).
      this.colMin.set(this.stats.colMin);
      this.colMax.set(this.stats.colMax);
    }
    return aux;
  }

  /**
   * Checks the typed covariate columns one by one, each top to bottom, and
   * throws naming the first bad cell (the checking pass found one).
   */
  #firstBad(cols: Map<string, ParquetCells>, numRows: number, firstRow: number): never {
    const f32 = this.#l.storage === "f32";
    if (this.#scratch.length < numRows) this.#scratch = new Float64Array(numRows);
    for (const name of this.#l.xCols) {
      this.#numbers(cols.get(name)!, name, firstRow, this.#scratch, numRows, f32);
    }
    throw new Error(`${this.#o.where}a cell failed the checks, but none was found to name`);
  }

  /**
   * Copies a column's first n values to out (f64), checking each, and
   * returns their range.
   */
  #numbers(
    col: ParquetCells,
    name: string,
    firstRow: number,
    out: Float64Array,
    n: number,
    f32: boolean,
  ): [number, number] {
    if (col instanceof Float64Array || col instanceof Float32Array || col instanceof Int32Array) {
      // Typed cells convert to f64 exactly (a native copy), then one check pass.
      out.set(col.length === n ? col : col.subarray(0, n));
      const r = _rangeChecked(out, n, f32);
      if (r.bad >= 0) {
        const v = out[r.bad];
        if (!(v >= -EXTREME_ABS && v <= EXTREME_ABS)) this.#bad(v, name, firstRow + r.bad);
        this.#badF32(v, name, firstRow + r.bad);
      }
      return [r.lo, r.hi];
    }
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const raw = col[i];
      let v: number;
      if (typeof raw === "number") v = raw;
      else if (typeof raw === "bigint") v = Number(raw);
      else if (typeof raw === "boolean") v = raw ? 1 : 0;
      else if (raw === null || raw === undefined) {
        throw new RangeError(
          `${this.#at(name, firstRow + i)}: the cell is null (missing values are not allowed)`,
        );
      } else {
        throw new TypeError(
          `${this.#at(name, firstRow + i)}: expected a number, got ${
            raw instanceof Date ? `the date ${raw.toISOString()}` : JSON.stringify(String(raw))
          }`,
        );
      }
      if (!(v >= -EXTREME_ABS && v <= EXTREME_ABS)) this.#bad(v, name, firstRow + i);
      if (f32 && _notF32(v)) this.#badF32(v, name, firstRow + i);
      if (v < lo) lo = v;
      if (v > hi) hi = v;
      out[i] = v;
    }
    return [lo, hi];
  }

  #at(name: string, row: number): string {
    return `${this.#o.where}row ${row}, column ${JSON.stringify(name)}`;
  }

  #badF32(v: number, name: string, row: number): never {
    throw new RangeError(`${this.#at(name, row)}: ${v} ${f32Problem(v)}`);
  }

  #bad(v: number, name: string, row: number): never {
    const where = this.#at(name, row);
    if (Number.isNaN(v) || v === Infinity || v === -Infinity) {
      throw new RangeError(`${where}: NaN and ±Infinity are not allowed, got ${v}`);
    }
    throw new RangeError(
      `${where}: ${v} is beyond ±${EXTREME_ABS.toExponential()}, which overflows the log ` +
        `density; rescale or standardise the column`,
    );
  }
}

/** Whether a finite v overflows f32 or underflows it to zero or a denormal. */
function _notF32(v: number): boolean {
  return v > F32_MAX || v < -F32_MAX || (v !== 0 && v < F32_MIN_NORMAL && v > -F32_MIN_NORMAL);
}

/**
 * The range of c[0, n) and the first index whose value is NaN, ±Infinity,
 * beyond ±EXTREME_ABS, or (with f32) not a normal f32 or zero; -1 if none.
 */
function _rangeChecked(
  c: Float64Array,
  n: number,
  f32: boolean,
): { lo: number; hi: number; bad: number } {
  let lo = Infinity, hi = -Infinity;
  if (f32) {
    for (let i = 0; i < n; i++) {
      const v = c[i], a = Math.abs(v);
      // a > F32_MAX also catches ±Infinity; !(a <= EXTREME_ABS) NaN.
      if (!(a <= EXTREME_ABS) || a > F32_MAX || (a < F32_MIN_NORMAL && a !== 0)) {
        return { lo, hi, bad: i };
      }
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const v = c[i];
      if (!(v >= -EXTREME_ABS && v <= EXTREME_ABS)) return { lo, hi, bad: i };
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return { lo, hi, bad: -1 };
}

/** Rows per tile of the transposition (the tile's columns stay in cache). */
const TILE = 256;

/**
 * x[i·d + k] = cols[k][i] for i < n, k < d, and each column's range, sum
 * and hash updated in row order (ColumnStats.add's arithmetic). Returns
 * false if some |value| is NaN, above maxAbs, or non-zero below minAbs.
 */
function _statsTransposeF64(
  x: Float64Array,
  cols: Float64Array[],
  n: number,
  d: number,
  lo: Float64Array,
  hi: Float64Array,
  sum: Float64Array,
  h1: Int32Array,
  minAbs: number,
  maxAbs: number,
): boolean {
  let ok = true;
  const bits = cols.map((c) => new Int32Array(c.buffer, c.byteOffset, 2 * n));
  for (let i0 = 0; i0 < n; i0 += TILE) {
    const i1 = Math.min(n, i0 + TILE);
    for (let k = 0; k < d; k++) {
      const c = cols[k], b = bits[k];
      let l = lo[k], u = hi[k], s = sum[k], h = h1[k];
      for (let i = i0, o = i0 * d + k; i < i1; i++, o += d) {
        const v = c[i], a = Math.abs(v);
        if (!(a <= maxAbs) || (a < minAbs && a !== 0)) ok = false;
        if (v < l) l = v;
        if (v > u) u = v;
        s += v;
        h = (Math.imul(h ^ b[2 * i + 1], 0x01000193) + b[2 * i]) | 0;
        x[o] = v;
      }
      lo[k] = l;
      hi[k] = u;
      sum[k] = s;
      h1[k] = h;
    }
  }
  return ok;
}

/**
 * {@link _statsTransposeF64} into f32 (each value rounded to nearest). A copy
 * rather than one function over `Float32Array | Float64Array`: each hot loop
 * then stores into one array type, which V8 keeps monomorphic.
 */
function _statsTransposeF32(
  x: Float32Array,
  cols: Float64Array[],
  n: number,
  d: number,
  lo: Float64Array,
  hi: Float64Array,
  sum: Float64Array,
  h1: Int32Array,
  minAbs: number,
  maxAbs: number,
): boolean {
  let ok = true;
  const bits = cols.map((c) => new Int32Array(c.buffer, c.byteOffset, 2 * n));
  for (let i0 = 0; i0 < n; i0 += TILE) {
    const i1 = Math.min(n, i0 + TILE);
    for (let k = 0; k < d; k++) {
      const c = cols[k], b = bits[k];
      let l = lo[k], u = hi[k], s = sum[k], h = h1[k];
      for (let i = i0, o = i0 * d + k; i < i1; i++, o += d) {
        const v = c[i], a = Math.abs(v);
        if (!(a <= maxAbs) || (a < minAbs && a !== 0)) ok = false;
        if (v < l) l = v;
        if (v > u) u = v;
        s += v;
        h = (Math.imul(h ^ b[2 * i + 1], 0x01000193) + b[2 * i]) | 0;
        x[o] = v;
      }
      lo[k] = l;
      hi[k] = u;
      sum[k] = s;
      h1[k] = h;
    }
  }
  return ok;
}
