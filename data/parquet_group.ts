/**
 * One row group of a Parquet load checked and transposed by the core's
 * kernel on whichever thread decoded it ({@link parquetFastGroup}), and the
 * per-group statistics the load folds in file order. Kept apart from
 * data/parquet_chunks.ts so that the decoding thread (data/_parquet_worker.ts)
 * loads only this and the kernel, not the CSV reader.
 *
 * @module
 */
import type { CsvOptions } from "./csv.ts";
import { EXTREME_ABS, F32_MAX, F32_MIN_NORMAL } from "./csv_checks.ts";
import type { ParquetTransposer } from "../core/parquet_kernel.ts";
import { gramBlock } from "./column_stats.ts";
import type { ParquetLayout } from "./parquet_chunks.ts";
import type { ParquetCells } from "./parquet_source.ts";

/**
 * What {@link parquetFastGroup} needs of a load (plain data, so that it can
 * be sent to another thread).
 */
export interface ParquetGroupSpec {
  responseName: string;
  xCols: string[];
  intercept: boolean;
  family: CsvOptions["family"];
  numCols: number;
  /** X in f64 (else f32). */
  dstF64: boolean;
  minAbs: number;
  maxAbs: number;
}

/** The {@link ParquetGroupSpec} of a layout. */
export function parquetGroupSpec(l: ParquetLayout, family: CsvOptions["family"]): ParquetGroupSpec {
  const f32 = l.storage === "f32";
  return {
    responseName: l.responseName,
    xCols: l.xCols,
    intercept: l.intercept,
    family,
    numCols: l.numCols,
    dstF64: !f32,
    minAbs: f32 ? F32_MIN_NORMAL : 0,
    maxAbs: f32 ? F32_MAX : EXTREME_ABS,
  };
}

/**
 * One row group's statistics, from the start values (+∞, -∞, 0 and the
 * hash's seed), and its terms of X'X (`gramBlock` of the rows
 * `ColumnStats.gramPlan` picks, d × d).
 */
export interface ParquetGroupPart {
  lo: Float64Array;
  hi: Float64Array;
  sum: Float64Array;
  h: Int32Array;
  gram: Float64Array;
  yMin: number;
  yMax: number;
}

/**
 * Checks and transposes one row group of typed columns with the core's
 * kernel, straight into the arena: the response into y, X's rows at xPtr.
 * Returns the group's statistics, or null when a column is not typed or a
 * cell fails a check (the caller then reads the group again the general way,
 * which names the cell). The same values as `ParquetChunkBuilder.buildInto` (data/parquet_chunks.ts);
 * safe to run on any thread that shares the arena's memory.
 *
 * @param cols The decoded columns.
 * @param n Rows of the group.
 * @param spec The load's columns and checks.
 * @param transposer The kernel (bound to the arena of the columns).
 * @param xPtr Where row 0 of the group goes in X.
 * @param y The group's response (a view of the arena).
 * @param ones The intercept's column (at least n ones), if any.
 * @param plan The group's rows for X'X (`ColumnStats.gramPlan`).
 * @returns The group's statistics, or null.
 */
export function parquetFastGroup(
  cols: Map<string, ParquetCells>,
  n: number,
  spec: ParquetGroupSpec,
  transposer: ParquetTransposer,
  xPtr: number,
  y: Float64Array,
  ones: Float32Array | null,
  plan: { first: number; stride: number; take: number },
): ParquetGroupPart | null {
  const yc = cols.get(spec.responseName);
  if (yc === undefined || !isTypedParquetCells(yc)) return null;
  const src: (Float64Array | Float32Array | Int32Array)[] = [];
  if (spec.intercept) {
    if (ones === null || ones.length < n) return null;
    src.push(ones);
  }
  for (const name of spec.xCols) {
    const c = cols.get(name);
    if (c === undefined || !isTypedParquetCells(c) || c.length < n) return null;
    src.push(c as Float64Array | Float32Array | Int32Array);
  }
  if (src.length !== spec.numCols) return null;
  const yt = yc as Float64Array | Float32Array | Int32Array;
  y.set(yt.length === n ? yt : yt.subarray(0, n));
  // The response's checks (finite, within ±EXTREME_ABS, the family's domain)
  // and range, as ParquetChunkBuilder's.
  const range = _responseRange(y, n, spec.family);
  if (range === null) return null;
  const [yMin, yMax] = range;
  const d = spec.numCols, p = freshParquetPart(d);
  const ok = transposer.run(
    src,
    n,
    xPtr,
    spec.dstF64,
    p.lo,
    p.hi,
    p.sum,
    p.h,
    spec.minAbs,
    spec.maxAbs,
  );
  if (!ok) return null;
  const { first, stride, take } = plan;
  const rows = new Float64Array(d * take);
  for (let k = 0; k < d; k++) {
    const c = src[k];
    for (let t = 0; t < take; t++) rows[k * take + t] = c[first + t * stride];
  }
  // The group's terms of X'X are summed here, on the thread that read it.
  return { ...p, gram: gramBlock(d, rows, take), yMin, yMax };
}

/**
 * The response's checks (within ±EXTREME_ABS, so finite; the family's
 * domain) and its range in row order, or null at the first cell that fails.
 * One loop per family: for the logistic family "0 or 1" implies the range
 * check (NaN and ±∞ are neither), so a cell costs two comparisons.
 */
function _responseRange(
  y: Float64Array,
  n: number,
  family: CsvOptions["family"],
): [number, number] | null {
  let yMin = Infinity, yMax = -Infinity;
  if (family === "logistic") {
    for (let i = 0; i < n; i++) {
      const v = y[i];
      if (v !== 0 && v !== 1) return null;
      if (v < yMin) yMin = v;
      if (v > yMax) yMax = v;
    }
  } else if (family === "poisson") {
    for (let i = 0; i < n; i++) {
      const v = y[i];
      if (!(v >= -EXTREME_ABS && v <= EXTREME_ABS) || v < 0 || v % 1 !== 0) return null;
      if (v < yMin) yMin = v;
      if (v > yMax) yMax = v;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const v = y[i];
      if (!(v >= -EXTREME_ABS && v <= EXTREME_ABS)) return null;
      if (v < yMin) yMin = v;
      if (v > yMax) yMax = v;
    }
  }
  return [yMin, yMax];
}

/** Statistics at their start values (ColumnStats's). */
export function freshParquetPart(
  d: number,
): { lo: Float64Array; hi: Float64Array; sum: Float64Array; h: Int32Array } {
  return {
    lo: new Float64Array(d).fill(Infinity),
    hi: new Float64Array(d).fill(-Infinity),
    sum: new Float64Array(d),
    h: new Int32Array(d).fill(0x811c9dc5 | 0),
  };
}

/**
 * Folds one row group's statistics into the running ones: ranges merge
 * exactly (the first of equal values stays, as row by row), sums add, and
 * the hash takes the group's hash and length (ColumnStats.addSegment's
 * rule). The fingerprints are then functions of each column's values and of
 * the row groups' lengths, whichever thread computed which group: equal
 * columns still get equal fingerprints, the duplicate check's use.
 */
export function foldParquetPart(
  lo: Float64Array,
  hi: Float64Array,
  sum: Float64Array,
  h: Int32Array,
  p: { lo: Float64Array; hi: Float64Array; sum: Float64Array; h: Int32Array },
  m: number,
): void {
  for (let k = 0; k < lo.length; k++) {
    if (p.lo[k] < lo[k]) lo[k] = p.lo[k];
    if (p.hi[k] > hi[k]) hi[k] = p.hi[k];
    sum[k] += p.sum[k];
    h[k] = Math.imul(h[k] ^ p.h[k], 0x01000193) + m;
  }
}

/** Cells that copy to f64 natively. */
export function isTypedParquetCells(col: ParquetCells): boolean {
  return col instanceof Float64Array || col instanceof Float32Array || col instanceof Int32Array;
}
