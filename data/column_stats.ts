/**
 * Per-column statistics of a table accumulated block by block in one pass
 * ({@link ColumnStats}): ranges, fingerprints for exact duplicates, and X'X
 * for the rank check of `collinearityWarnings` (data/csv_checks.ts).
 *
 * @module
 */

/**
 * X'X is accumulated over about max(2d, ⌊{@link GRAM_BUDGET} / (d(d+1)/2)⌋)
 * rows, spread evenly over the table when its length is known (the first
 * ones otherwise); the warning says so when that is not every row. Above
 * {@link GRAM_MAX_COLS} columns only exact copies are looked for.
 */
export const GRAM_BUDGET = 1e7;

/** The rank check runs up to this many columns of X. */
export const GRAM_MAX_COLS = 500;

/**
 * Per-column statistics of a row-major table, accumulated block by block in
 * one pass: ranges, a hash of each column's bits and its sum (exact duplicates)
 * and the lower triangle of X'X (rank deficiency).
 */
export class ColumnStats {
  /** Number of columns. */
  readonly numCols: number;
  /** Smallest value per column. */
  readonly colMin: Float64Array;
  /** Largest value per column. */
  readonly colMax: Float64Array;
  /** X'X (lower triangle, row-major d × d) over the first {@link gramRows} rows. */
  readonly gram: Float64Array;
  /** Rows in {@link gram}. */
  gramRows = 0;
  /** Rows seen. */
  numRows = 0;
  #h1: Int32Array;
  #sum: Float64Array;
  #maxGramRows: number;
  #cols = new Float64Array(0);

  #stride: number;

  /**
   * @param numCols Number of columns.
   * @param expectedRows An upper bound on the number of rows, if known
   *   (the rows of X'X are then spread over the table).
   */
  constructor(numCols: number, expectedRows?: number) {
    this.numCols = numCols;
    this.colMin = new Float64Array(numCols).fill(Infinity);
    this.colMax = new Float64Array(numCols).fill(-Infinity);
    this.gram = new Float64Array(numCols * numCols);
    this.#h1 = new Int32Array(numCols).fill(0x811c9dc5 | 0);
    this.#sum = new Float64Array(numCols);
    this.#maxGramRows = numCols > GRAM_MAX_COLS ? 0 : Math.max(
      2 * numCols,
      Math.floor(GRAM_BUDGET / Math.max(1, (numCols * (numCols + 1)) / 2)),
    );
    this.#stride = expectedRows === undefined || this.#maxGramRows === 0
      ? 1
      : Math.max(1, Math.floor(expectedRows / this.#maxGramRows));
  }

  /**
   * Adds rows `[0, m)` of a row-major block.
   *
   * @param xs The block.
   * @param m Its rows.
   * @param ranges Computes the ranges, sums and hashes of the block instead
   *   of the loop here (the same numbers; the CSV kernel's `blockStats`).
   */
  add(
    xs: Float64Array,
    m: number,
    ranges?: (lo: Float64Array, hi: Float64Array, sum: Float64Array, h: Int32Array) => void,
  ): void {
    const d = this.numCols, lo = this.colMin, hi = this.colMax, h1 = this.#h1, sum = this.#sum;
    const bits = new Int32Array(xs.buffer, xs.byteOffset, xs.length * 2);
    if (ranges !== undefined) ranges(lo, hi, sum, h1);
    else {
      for (let i = 0; i < m; i++) {
        for (let k = 0, o = i * d; k < d; k++) {
          const v = xs[o + k];
          if (v < lo[k]) lo[k] = v;
          if (v > hi[k]) hi[k] = v;
          sum[k] += v;
          h1[k] = Math.imul(h1[k] ^ bits[2 * (o + k) + 1], 0x01000193) + bits[2 * (o + k)];
        }
      }
    }
    this.#gramRows(m, (cols, take, first, stride) => {
      for (let t = 0; t < take; t++) {
        for (let k = 0, o = (first + t * stride) * d; k < d; k++) cols[k * take + t] = xs[o + k];
      }
    });
  }

  /**
   * Adds rows `[0, m)` of a block given by columns (cols[k] is column k):
   * the same numbers as {@link add} on the row-major block.
   *
   * @param cols The block's columns, each at least m long.
   * @param m Its rows.
   * @param ranges Computes the ranges, sums and hashes instead of the loop
   *   here (the same numbers).
   */
  addColumns(
    cols: readonly Float64Array[],
    m: number,
    ranges?: (lo: Float64Array, hi: Float64Array, sum: Float64Array, h: Int32Array) => void,
  ): void {
    const d = this.numCols, lo = this.colMin, hi = this.colMax, h1 = this.#h1, sum = this.#sum;
    if (ranges !== undefined) ranges(lo, hi, sum, h1);
    else {
      for (let k = 0; k < d; k++) {
        const c = cols[k], bits = new Int32Array(c.buffer, c.byteOffset, m * 2);
        let l = lo[k], u = hi[k], s = sum[k], h = h1[k];
        for (let i = 0; i < m; i++) {
          const v = c[i];
          if (v < l) l = v;
          if (v > u) u = v;
          s += v;
          h = (Math.imul(h ^ bits[2 * i + 1], 0x01000193) + bits[2 * i]) | 0;
        }
        lo[k] = l;
        hi[k] = u;
        sum[k] = s;
        h1[k] = h;
      }
    }
    this.#gramRows(m, (g, take, first, stride) => {
      for (let k = 0; k < d; k++) {
        const c = cols[k];
        for (let t = 0; t < take; t++) g[k * take + t] = c[first + t * stride];
      }
    });
  }

  /**
   * The rows of a block of m rows starting at table row `start` that X'X
   * takes when every earlier row was added first (by any of the add
   * methods): rows first, first + stride, … (take of them, 0-based in the
   * block). A function of start and m only, so a block can be gathered
   * before the blocks ahead of it are added ({@link addGatheredGram}).
   *
   * @param start The block's first row in the table.
   * @param m Its rows.
   * @returns The first row taken, the step and how many are taken.
   */
  gramPlan(start: number, m: number): { first: number; stride: number; take: number } {
    const stride = this.#stride;
    const first = (stride - (start % stride)) % stride;
    const before = Math.min(Math.ceil(start / stride), this.#maxGramRows);
    const take = first >= m
      ? 0
      : Math.min(Math.ceil((m - first) / stride), this.#maxGramRows - before);
    return { first, stride, take };
  }

  /**
   * Adds the block's rows numRows + i with (numRows + i) % stride === 0 to
   * X'X while the budget lasts; fill copies them column-major into cols
   * (cols[k·take + t] = row first + t·stride, column k).
   */
  #gramRows(
    m: number,
    fill: (cols: Float64Array, take: number, first: number, stride: number) => void,
  ): void {
    const d = this.numCols;
    const stride = this.#stride;
    const first = (stride - (this.numRows % stride)) % stride;
    const take = first >= m
      ? 0
      : Math.min(Math.ceil((m - first) / stride), this.#maxGramRows - this.gramRows);
    if (take > 0) {
      // Column-major copy, then one dot product per pair: sums stay in registers.
      if (this.#cols.length < d * take) this.#cols = new Float64Array(d * take);
      fill(this.#cols, take, first, stride);
      this.#gramAdd(this.#cols, take, take);
    }
    this.gramRows += take;
    this.numRows += m;
  }

  /**
   * Adds a block whose rows for X'X were gathered and summed elsewhere
   * ({@link gramPlan}, then {@link gramBlock} on them): the same numbers as
   * {@link addColumns} on the block, since X'X adds each block's sum of
   * products as one term either way.
   *
   * @param m The block's rows.
   * @param ranges Updates the ranges, sums and hashes.
   * @param block {@link gramBlock} of the plan's rows (d × d, lower triangle).
   */
  addGatheredGram(
    m: number,
    ranges: (lo: Float64Array, hi: Float64Array, sum: Float64Array, h: Int32Array) => void,
    block: Float64Array,
  ): void {
    ranges(this.colMin, this.colMax, this.#sum, this.#h1);
    const d = this.numCols, g = this.gram;
    const { take } = this.gramPlan(this.numRows, m);
    if (take > 0) {
      if (block.length < d * d) throw new RangeError(`expected ${d * d} sums, got ${block.length}`);
      for (let a = 0; a < d; a++) {
        for (let b = 0; b <= a; b++) g[a * d + b] += block[a * d + b];
      }
    }
    this.gramRows += take;
    this.numRows += m;
  }

  /** X'X += the `take` rows held column-major in cols (column k at cols[k·ld, k·ld + take)). */
  #gramAdd(cols: Float64Array, take: number, ld: number): void {
    _gramTerms(this.numCols, cols, take, ld, this.gram, true);
  }

  // Segment mode (addSegment): the rows of the block being gathered.
  #segBlockRows = 0;
  #segLd = 0;
  #segTake = 0;

  /**
   * Adds rows `[0, m)` of a row-major run of rows that continues the table,
   * with the run's own statistics computed elsewhere (on another thread):
   * its minima and maxima, which merge exactly (the first of equal values
   * stays, as in {@link add}), and its sums and hashes, which are folded into
   * the column's fingerprint in run order. A table fed this way is fed only
   * this way: its fingerprints are then functions of the column's values and
   * of the runs' lengths, so two columns have the same fingerprint when they
   * are equal (the duplicate check's use) — not the numbers of {@link add}.
   * X'X gets exactly the numbers of {@link add} fed blocks of `blockRows`
   * rows: the rows are gathered block by block across runs ({@link finish}
   * adds the last block).
   *
   * @param xs The run, row-major.
   * @param m Its rows.
   * @param blockRows Rows per block of the reader this replaces.
   * @param part The run's minima, maxima, sums and hashes (ColumnStats.add's
   *   arithmetic, from the start values +∞, -∞, 0 and 0x811c9dc5).
   * @param gramOnly Whether `xs` holds only the run's rows X'X takes (rows
   *   g with g % {@link gramStride} = 0 and g / gramStride < {@link gramMaxRows},
   *   g counted from the table's first row), one after the other, instead of
   *   all m rows.
   */
  addSegment(
    xs: Float64Array,
    m: number,
    blockRows: number,
    part: { lo: Float64Array; hi: Float64Array; sum: Float64Array; h: Int32Array },
    gramOnly = false,
  ): void {
    const d = this.numCols, lo = this.colMin, hi = this.colMax;
    if (m === 0) return;
    for (let k = 0; k < d; k++) {
      if (part.lo[k] < lo[k]) lo[k] = part.lo[k];
      if (part.hi[k] > hi[k]) hi[k] = part.hi[k];
      this.#sum[k] += part.sum[k];
      this.#h1[k] = Math.imul(this.#h1[k] ^ part.h[k], 0x01000193) + m;
    }
    const stride = this.#stride;
    if (this.#segBlockRows === 0) {
      this.#segBlockRows = blockRows;
      this.#segLd = Math.ceil(blockRows / stride) + 1;
      if (this.#cols.length < d * this.#segLd) this.#cols = new Float64Array(d * this.#segLd);
    }
    const cols = this.#cols, ld = this.#segLd;
    // Rows g = numRows + i: in X'X when g % stride === 0, while the budget lasts.
    let i = 0, q = 0;
    while (i < m) {
      const inBlock = this.numRows % blockRows;
      const n = Math.min(m - i, blockRows - inBlock);
      const g0 = this.numRows;
      let r = g0 % stride === 0 ? 0 : stride - (g0 % stride);
      for (; r < n && this.gramRows + this.#segTake < this.#maxGramRows; r += stride) {
        const o = (gramOnly ? q++ : i + r) * d, t = this.#segTake++;
        for (let k = 0; k < d; k++) cols[k * ld + t] = xs[o + k];
      }
      this.numRows += n;
      i += n;
      if (this.numRows % blockRows === 0) this.#segFlush();
    }
  }

  /** X'X takes the rows g (from 0) with g % gramStride = 0 … */
  get gramStride(): number {
    return this.#stride;
  }

  /** … and g / gramStride < gramMaxRows. */
  get gramMaxRows(): number {
    return this.#maxGramRows;
  }

  #segFlush(): void {
    if (this.#segTake > 0) this.#gramAdd(this.#cols, this.#segTake, this.#segLd);
    this.gramRows += this.#segTake;
    this.#segTake = 0;
  }

  /** Ends the table: adds the last block gathered by {@link addSegment}. */
  finish(): void {
    if (this.#segTake > 0) this.#segFlush();
  }

  /** Groups of columns with equal hashes (exact duplicates), each group's first column first. */
  duplicates(): number[][] {
    const groups = new Map<string, number[]>();
    for (let k = 0; k < this.numCols; k++) {
      const key = `${this.#h1[k]}:${this.#sum[k]}:${this.colMin[k]}:${this.colMax[k]}`;
      const g = groups.get(key);
      if (g === undefined) groups.set(key, [k]);
      else g.push(k);
    }
    return [...groups.values()].filter((g) => g.length > 1);
  }
}

/**
 * One block's terms of X'X from its gathered rows (column-major, column k at
 * `rows[k·take, (k+1)·take)`), as {@link ColumnStats.addGatheredGram} adds
 * them: a d × d array whose lower triangle holds the sums of products.
 * Computed on any thread (the Parquet reader's decoding threads do).
 *
 * @param d Columns.
 * @param rows The rows {@link ColumnStats.gramPlan} picked.
 * @param take How many.
 * @returns The block's terms.
 */
export function gramBlock(d: number, rows: Float64Array, take: number): Float64Array {
  const out = new Float64Array(d * d);
  _gramTerms(d, rows, take, take, out, false);
  return out;
}

/**
 * For b ≤ a: term = Σ_i cols[a·ld + i]·cols[b·ld + i] in four interleaved
 * partial sums; g[a·d + b] += term (`add`) or = term.
 */
function _gramTerms(
  d: number,
  cols: Float64Array,
  take: number,
  ld: number,
  g: Float64Array,
  add: boolean,
): void {
  const end4 = take - (take % 4);
  for (let a = 0; a < d; a++) {
    const oa = a * ld;
    for (let b = 0; b <= a; b++) {
      const ob = b * ld;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      let i = 0;
      for (; i < end4; i += 4) {
        s0 += cols[oa + i] * cols[ob + i];
        s1 += cols[oa + i + 1] * cols[ob + i + 1];
        s2 += cols[oa + i + 2] * cols[ob + i + 2];
        s3 += cols[oa + i + 3] * cols[ob + i + 3];
      }
      for (; i < take; i++) s0 += cols[oa + i] * cols[ob + i];
      const term = (s0 + s1) + (s2 + s3);
      if (add) g[a * d + b] += term;
      else g[a * d + b] = term;
    }
  }
}
