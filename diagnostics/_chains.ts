/**
 * Chain transformations of Vehtari et al. (2021) "Rank-normalization,
 * folding, and localization: an improved R̂", Bayesian Analysis 16(2):
 * splitting (§2 / eq. 4 setup), rank normalisation (eq. 14) and folding
 * (eq. 15). They operate on validated Float64Array chains of equal length.
 *
 * @module
 */

import { _normalQuantile } from "./_special.ts";
import { _pool } from "./_util.ts";
import { _quantileSorted } from "./quantile.ts";

/**
 * Splits every chain into its first and second half. For an odd length the
 * middle draw is dropped, as posterior's `.split_chains` does.
 */
export function _splitChains(chains: readonly Float64Array[]): Float64Array[] {
  const n = chains[0].length;
  const half = Math.floor(n / 2);
  const out: Float64Array[] = [];
  for (const chain of chains) {
    out.push(chain.subarray(0, half), chain.subarray(n - half));
  }
  return out;
}

/**
 * Rank normalisation (eq. 14 with Blom's offset 3/8, as posterior's
 * `z_scale`): every draw is replaced by its average rank r among all S pooled
 * draws (ties get the mean of their ranks) and then by Φ⁻¹((r − 3/8)/(S + 1/4)).
 */
export function _zScale(chains: readonly Float64Array[]): Float64Array[] {
  const pooled = _pool(chains);
  const z = _rankScores(pooled, _argsort(pooled));
  const n = chains[0].length;
  return chains.map((_, c) => z.subarray(c * n, (c + 1) * n));
}

/**
 * The 2m split chains (see {@link _splitChains}) of `m` chains of `n` draws
 * pooled in `x`, chain after chain, as views of `x`.
 */
export function _splitViews(x: Float64Array, m: number, n: number): Float64Array[] {
  const h = n >> 1;
  const out: Float64Array[] = [];
  for (let c = 0; c < m; c++) {
    out.push(x.subarray(c * n, c * n + h), x.subarray(c * n + n - h, (c + 1) * n));
  }
  return out;
}

/**
 * {@link _zScale} of the split chains of the chains of `n` draws pooled in
 * `values`, bit for bit, written into `z` at the draws' pooled positions
 * (read them with {@link _splitViews}), given `order`, indices that sort
 * `values` ascending (any order among equal values), and `sorted`, the
 * values in that order: no second sort. For odd `n` the middle draw of every
 * chain is left out (its entry of `z` is not written), as
 * {@link _splitChains} does; the order of the rest stays sorted.
 */
export function _splitScoresInto(
  sorted: Float64Array,
  order: Uint32Array,
  n: number,
  z: Float64Array,
): void {
  const total = order.length;
  const h = n >> 1;
  const count = 2 * h * (total / n);
  let values = sorted, idx = order;
  if (count !== total) {
    values = new Float64Array(count);
    idx = new Uint32Array(count);
    for (let r = 0, k = 0; r < total; r++) {
      if (order[r] % n === h) continue;
      values[k] = sorted[r];
      idx[k++] = order[r];
    }
  }
  const scores = _scoreTable(count);
  for (let i = 0; i < count;) {
    const v = values[i];
    let j = i + 1;
    while (j < count && values[j] === v) j++; // ties: ranks i+1 .. j
    let zi = scores[i + 1 + j];
    if (zi !== zi) zi = _score(scores, i + 1 + j, count);
    for (let k = i; k < j; k++) z[idx[k]] = zi;
    i = j;
  }
}

/**
 * Indices that sort the draws folded about `median` (|x − median|, as
 * {@link _fold}) ascending into `foldedOrder` and the folded draws in that
 * order into `foldedSorted`, from `order`, indices that sort the draws, and
 * `sorted`, the draws in that order: below the median the folded values grow
 * as the draws fall, above it as they rise (x − median is monotone in x also
 * in floating point), so the two runs merge in one pass.
 */
export function _foldSortedInto(
  order: Uint32Array,
  sorted: Float64Array,
  median: number,
  foldedOrder: Uint32Array,
  foldedSorted: Float64Array,
): void {
  const total = sorted.length;
  // First rank whose draw is not below the median.
  let lo = 0, hi = total;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < median) lo = mid + 1;
    else hi = mid;
  }
  let l = lo - 1, r = lo;
  let left = l >= 0 ? Math.abs(sorted[l] - median) : Infinity;
  let right = r < total ? Math.abs(sorted[r] - median) : Infinity;
  for (let k = 0; k < total; k++) {
    // Ties go left first, as a merge of the folded values by index would.
    if (r >= total || (l >= 0 && left <= right)) {
      foldedOrder[k] = order[l];
      foldedSorted[k] = left;
      l--;
      left = l >= 0 ? Math.abs(sorted[l] - median) : Infinity;
    } else {
      foldedOrder[k] = order[r];
      foldedSorted[k] = right;
      r++;
      right = r < total ? Math.abs(sorted[r] - median) : Infinity;
    }
  }
}

/** Scores Φ⁻¹((s/2 − 3/8)/(S + 1/4)) by s = 2r, for the S of the last call (NaN: not yet computed). */
let _scoresFor = -1;
let _scores = new Float64Array(0);

/** The table of {@link _score} for S pooled draws (kept until S changes). */
function _scoreTable(total: number): Float64Array {
  if (_scoresFor !== total) {
    _scores = new Float64Array(2 * total + 2).fill(NaN);
    _scoresFor = total;
  }
  return _scores;
}

/**
 * Φ⁻¹((s/2 − 3/8)/(S + 1/4)), the normal score of the average rank s/2 of a
 * run of ties (s = i + 1 + j for ranks i + 1 … j), computed once per s and S
 * into `table` (read it first; NaN: not yet computed): a summary
 * rank-normalises every parameter twice over the same S draws, and repeated
 * draws (rejected proposals) make runs of two or three equal values. Above
 * ½, where {@link _normalQuantile} returns −Φ⁻¹(1 − p), the mirrored score
 * is reused when its argument is exactly 1 − p: the same value, bit for bit.
 */
function _score(table: Float64Array, s: number, total: number): number {
  const scale = 1 / (total + 0.25);
  const p = (s / 2 - 0.375) * scale;
  const mirror = 2 * total + 2 - s;
  let z: number;
  if (p > 0.5 && 1 - p === (mirror / 2 - 0.375) * scale) {
    z = table[mirror];
    if (z !== z) z = table[mirror] = _normalQuantile(1 - p);
    z = -z;
  } else z = _normalQuantile(p);
  table[s] = z;
  return z;
}

/**
 * Φ⁻¹((r − 3/8)/(S + 1/4)) of every value's average rank r among the S
 * `values` (ties get the mean of their ranks), given `order`, indices that
 * sort them ascending.
 */
function _rankScores(values: Float64Array, order: ArrayLike<number>): Float64Array {
  const total = values.length;
  const z = new Float64Array(total);
  const scores = _scoreTable(total);
  for (let i = 0; i < total;) {
    const v = values[order[i]];
    let j = i + 1;
    while (j < total && values[order[j]] === v) j++; // ties: ranks i+1 .. j
    let zi = scores[i + 1 + j];
    if (zi !== zi) zi = _score(scores, i + 1 + j, total);
    for (let k = i; k < j; k++) z[order[k]] = zi;
    i = j;
  }
  return z;
}

const DIGIT_BITS = 11;

/** Lengths up to which {@link _argsort} sorts on the high words first. */
export const _SMALL_ARGSORT = 1 << 16;

/** Longest run of equal high words {@link _argsortHigh} sorts by insertion. */
const _RUN = 64;

type _Keys = {
  hi: Uint32Array<ArrayBuffer>;
  lo: Uint32Array<ArrayBuffer>;
  index: Uint32Array<ArrayBuffer>;
};

/**
 * The 64-bit sort keys of finite `values` as high and low words (all bits
 * of negatives flipped, the sign bit of the rest set, so unsigned order is
 * numeric order; −0 keyed as +0), and the identity permutation, in `into`
 * when given (arrays of at least `values.length`, only that much is written).
 */
function _sortKeys(
  values: Float64Array,
  into?: _Keys,
): _Keys {
  const n = values.length;
  const bits = new Float64Array(1);
  const words = new Uint32Array(bits.buffer); // [low word, high word] (little-endian)
  const { hi, lo, index } = into ??
    { hi: new Uint32Array(n), lo: new Uint32Array(n), index: new Uint32Array(n) };
  for (let i = 0; i < n; i++) {
    bits[0] = values[i] === 0 ? 0 : values[i];
    const h = words[1];
    const negative = (h & 0x80000000) !== 0;
    hi[i] = negative ? ~h >>> 0 : (h | 0x80000000) >>> 0;
    lo[i] = negative ? ~words[0] >>> 0 : words[0];
    index[i] = i;
  }
  return { hi, lo, index };
}

/** Arrays of {@link _argsortHigh} for one length, reused from call to call. */
let _high:
  | (_Keys & { n: number; hi2: Uint32Array<ArrayBuffer>; index2: Uint32Array<ArrayBuffer> })
  | null = null;

/**
 * The permutation of {@link _argsortRadix}, for short arrays in half its
 * passes: a stable radix sort of the high 32 bits of the keys only (3
 * passes), then every run of equal high words sorted by the low words with
 * a stable insertion sort. Sorting by (high, low) stably is what the 64-bit
 * radix sort does, so the permutation is the same; a run longer than
 * {@link _RUN} (draws that agree in sign, exponent and 20 mantissa bits, as
 * 10¹² + small integers do) falls back to the full radix sort. The
 * permutation returned lives in arrays reused by the next call.
 */
export function _argsortHigh(values: Float64Array): Uint32Array {
  const n = values.length;
  if (_high === null || _high.n !== n) {
    const u = () => new Uint32Array(n);
    _high = { n, hi: u(), lo: u(), index: u(), hi2: u(), index2: u() };
  }
  _sortKeys(values, _high);
  let { hi, index, hi2, index2 } = _high;
  const offsets = new Uint32Array(1 << DIGIT_BITS);
  for (let shift = 0; shift < 32; shift += DIGIT_BITS) {
    if (!_radixPass(hi, index, hi2, index2, offsets, shift)) continue; // nothing moved
    [hi, hi2] = [hi2, hi];
    [index, index2] = [index2, index];
  }
  return _sortRuns(hi, _high.lo, index) ? index : _argsortRadix(values);
}

/** A radix pass's digit counts turned, in place, into each digit's first slot (exclusive prefix sums). */
function _countsToOffsets(offsets: Uint32Array): void {
  let sum = 0;
  for (let d = 0; d < offsets.length; d++) {
    const count = offsets[d];
    offsets[d] = sum;
    sum += count;
  }
}

/*
 * The passes are functions of their own (one loop nest each): called for
 * every parameter of a summary, they are compiled whole, with the feedback
 * of every loop, instead of as one long function entered mid-loop.
 */

/**
 * One stable counting-sort pass of `hi` (and `index` with it) by the digit
 * at `shift` into `hiOut` and `indexOut`; false (nothing written) when every
 * key has the same digit.
 */
function _radixPass(
  hi: Uint32Array,
  index: Uint32Array,
  hiOut: Uint32Array,
  indexOut: Uint32Array,
  offsets: Uint32Array,
  shift: number,
): boolean {
  const n = hi.length;
  offsets.fill(0);
  for (let i = 0; i < n; i++) offsets[(hi[i] >>> shift) & DIGIT_MASK]++;
  if (offsets[(hi[0] >>> shift) & DIGIT_MASK] === n) return false;
  _countsToOffsets(offsets);
  for (let i = 0; i < n; i++) {
    const h = hi[i];
    const p = offsets[(h >>> shift) & DIGIT_MASK]++;
    hiOut[p] = h;
    indexOut[p] = index[i];
  }
  return true;
}

/**
 * Sorts every run of equal (sorted) high words `hi` of `index` by the low
 * words `lo[index[k]]` with a stable insertion sort; false when a run is
 * longer than {@link _RUN} (then `index` is left partly sorted).
 */
function _sortRuns(hi: Uint32Array, lo: Uint32Array, index: Uint32Array): boolean {
  const n = hi.length;
  for (let a = 0; a < n;) {
    const h = hi[a];
    let b = a + 1;
    while (b < n && hi[b] === h) b++;
    if (b - a > _RUN) return false;
    for (let k = a + 1; k < b; k++) {
      const v = index[k], key = lo[v];
      let j = k - 1;
      while (j >= a && lo[index[j]] > key) {
        index[j + 1] = index[j];
        j--;
      }
      index[j + 1] = v;
    }
    a = b;
  }
  return true;
}
const DIGIT_MASK = (1 << DIGIT_BITS) - 1;

/**
 * Indices that sort finite `values` ascending: a stable least-significant-
 * digit radix sort on the IEEE-754 bits (6 passes of 11 bits), with keys made
 * order-preserving by flipping all bits of negatives and the sign bit of the
 * rest; −0 is keyed as +0. Unlike a comparison sort carrying indices (or a
 * binary search per value), its memory traffic is sequential reads and
 * 2048-way streaming writes, which matters for millions of draws. For up
 * to {@link _SMALL_ARGSORT} values the permutation lives in arrays the next
 * call reuses.
 */
export function _argsort(values: Float64Array): Uint32Array {
  return values.length <= _SMALL_ARGSORT ? _argsortHigh(values) : _argsortRadix(values);
}

/** The radix sort of {@link _argsort}, whatever the length. */
export function _argsortRadix(values: Float64Array): Uint32Array {
  const n = values.length;
  let { lo, hi, index } = _sortKeys(values);
  let lo2 = new Uint32Array(n);
  let hi2 = new Uint32Array(n);
  let index2 = new Uint32Array(n);
  const digits = new Uint16Array(n);
  const offsets = new Uint32Array(1 << DIGIT_BITS);
  for (let shift = 0; shift < 64; shift += DIGIT_BITS) {
    for (let i = 0; i < n; i++) {
      digits[i] = shift >= 32
        ? (hi[i] >>> (shift - 32)) & DIGIT_MASK
        : shift + DIGIT_BITS <= 32
        ? (lo[i] >>> shift) & DIGIT_MASK
        : ((lo[i] >>> shift) | (hi[i] << (32 - shift))) & DIGIT_MASK;
    }
    offsets.fill(0);
    for (let i = 0; i < n; i++) offsets[digits[i]]++;
    if (offsets[digits[0]] === n) continue; // one digit value: nothing moves
    _countsToOffsets(offsets);
    for (let i = 0; i < n; i++) {
      const p = offsets[digits[i]]++;
      lo2[p] = lo[i];
      hi2[p] = hi[i];
      index2[p] = index[i];
    }
    [lo, lo2] = [lo2, lo];
    [hi, hi2] = [hi2, hi];
    [index, index2] = [index2, index];
  }
  return index;
}

/** Folding around the pooled median (eq. 15): |x − median(x)|. */
export function _fold(chains: readonly Float64Array[]): Float64Array[] {
  const median = _quantileSorted(_pool(chains).sort(), 0.5);
  return chains.map((chain) => {
    const out = new Float64Array(chain.length);
    for (let i = 0; i < chain.length; i++) out[i] = Math.abs(chain[i] - median);
    return out;
  });
}

/** Indicator chains I(x ≤ q) as 0/1 values. */
export function _indicator(chains: readonly Float64Array[], q: number): Float64Array[] {
  return chains.map((chain) => {
    const out = new Float64Array(chain.length);
    for (let i = 0; i < chain.length; i++) out[i] = chain[i] <= q ? 1 : 0;
    return out;
  });
}

/**
 * True when all draws are (numerically) equal: max − min below machine
 * epsilon, the test posterior's `is_constant` uses.
 */
export function _isConstant(chains: readonly Float64Array[]): boolean {
  let min = Infinity;
  let max = -Infinity;
  for (const chain of chains) {
    for (let i = 0; i < chain.length; i++) {
      if (chain[i] < min) min = chain[i];
      if (chain[i] > max) max = chain[i];
    }
  }
  return Math.abs(max - min) < Number.EPSILON;
}
