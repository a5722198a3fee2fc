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
 * {@link _zScale} of the split chains of `m` chains of `n` draws pooled in
 * `values` (chain after chain), given `order`, indices that sort `values`
 * ascending (any order among equal values): the same scores, bit for bit,
 * without sorting again. For odd `n` the middle draw of every chain is left
 * out, as {@link _splitChains} does; the order of the rest stays sorted.
 */
export function _zScaleSplitSorted(
  values: Float64Array,
  order: Uint32Array,
  n: number,
): Float64Array[] {
  const m = values.length / n;
  const h = Math.floor(n / 2);
  const total = 2 * m * h;
  let idx = order;
  let split = values;
  if (total !== values.length) {
    // Odd n: drop index h of every chain; chain c's draw i > h moves to c·2h + i − 1.
    idx = new Uint32Array(total);
    split = new Float64Array(total);
    let k = 0;
    for (let r = 0; r < order.length; r++) {
      const o = order[r];
      const c = Math.floor(o / n);
      const i = o - c * n;
      if (i === h) continue;
      idx[k++] = c * 2 * h + (i < h ? i : i - 1);
    }
    for (let c = 0; c < m; c++) {
      for (let i = 0; i < h; i++) {
        split[c * 2 * h + i] = values[c * n + i];
        split[c * 2 * h + h + i] = values[c * n + h + 1 + i];
      }
    }
  }
  const z = _rankScores(split, idx);
  const out: Float64Array[] = [];
  for (let c = 0; c < 2 * m; c++) out.push(z.subarray(c * h, (c + 1) * h));
  return out;
}

/**
 * The draws folded about `median` (|x − median|, as {@link _fold}) and
 * indices that sort them ascending, from `order`, indices that sort the
 * draws: below the median the folded values grow as the draws fall, above it
 * as they rise (x − median is monotone in x also in floating point), so the
 * two runs merge in one pass.
 */
export function _foldSorted(
  values: Float64Array,
  order: Uint32Array,
  median: number,
): { folded: Float64Array; order: Uint32Array } {
  const total = values.length;
  const folded = new Float64Array(total);
  for (let i = 0; i < total; i++) folded[i] = Math.abs(values[i] - median);
  // First rank whose draw is not below the median.
  let lo = 0, hi = total;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[order[mid]] < median) lo = mid + 1;
    else hi = mid;
  }
  const out = new Uint32Array(total);
  let l = lo - 1, r = lo;
  for (let k = 0; k < total; k++) {
    if (r >= total || (l >= 0 && folded[order[l]] <= folded[order[r]])) out[k] = order[l--];
    else out[k] = order[r++];
  }
  return { folded, order: out };
}

/** Φ⁻¹((r − 3/8)/(S + 1/4)) for the untied ranks r = 1 … S of the last S asked for. */
let _untiedFor = -1;
let _untied = new Float64Array(0);

/**
 * Φ⁻¹((r − 3/8)/(S + 1/4)) of every value's average rank r among the S
 * `values` (ties get the mean of their ranks), given `order`, indices that
 * sort them ascending.
 */
function _rankScores(values: Float64Array, order: ArrayLike<number>): Float64Array {
  const total = values.length;
  const z = new Float64Array(total);
  const scale = 1 / (total + 0.25);
  const untied = _untiedScores(total);
  for (let i = 0; i < total;) {
    const v = values[order[i]];
    let j = i + 1;
    while (j < total && values[order[j]] === v) j++; // ties: ranks i+1 .. j
    // A rank without ties: its score depends on i and S only (the same value, cached).
    const zi = j === i + 1 ? untied[i] : _normalQuantile(((i + 1 + j) / 2 - 0.375) * scale);
    for (let k = i; k < j; k++) z[order[k]] = zi;
    i = j;
  }
  return z;
}

/**
 * The normal scores of untied ranks for S pooled draws, computed once per S:
 * a summary rank-normalises every parameter (twice) over the same S draws.
 * Each value is the one `_zScale` computes for that rank, bit for bit.
 */
function _untiedScores(total: number): Float64Array {
  if (_untiedFor !== total) {
    const scale = 1 / (total + 0.25), out = new Float64Array(total);
    for (let i = 0; i < total; i++) out[i] = _normalQuantile(((i + 1 + i + 1) / 2 - 0.375) * scale);
    _untied = out;
    _untiedFor = total;
  }
  return _untied;
}

const DIGIT_BITS = 11;

/** Lengths up to which {@link _argsort} sorts on the high words first. */
export const _SMALL_ARGSORT = 1 << 16;

/** Longest run of equal high words {@link _argsortHigh} sorts by insertion. */
const _RUN = 64;

/**
 * The 64-bit sort keys of finite `values` as high and low words (all bits
 * of negatives flipped, the sign bit of the rest set, so unsigned order is
 * numeric order; −0 keyed as +0), and the identity permutation.
 */
function _sortKeys(
  values: Float64Array,
): { hi: Uint32Array<ArrayBuffer>; lo: Uint32Array<ArrayBuffer>; index: Uint32Array<ArrayBuffer> } {
  const n = values.length;
  const bits = new Float64Array(1);
  const words = new Uint32Array(bits.buffer); // [low word, high word] (little-endian)
  const hi = new Uint32Array(n), lo = new Uint32Array(n), index = new Uint32Array(n);
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

/**
 * The permutation of {@link _argsortRadix}, for short arrays in half its
 * passes: a stable radix sort of the high 32 bits of the keys only (3
 * passes), then every run of equal high words sorted by the low words with
 * a stable insertion sort. Sorting by (high, low) stably is what the 64-bit
 * radix sort does, so the permutation is the same; a run longer than
 * {@link _RUN} (draws that agree in sign, exponent and 20 mantissa bits, as
 * 10¹² + small integers do) falls back to the full radix sort.
 */
export function _argsortHigh(values: Float64Array): Uint32Array {
  const n = values.length;
  const keys = _sortKeys(values);
  let hi = keys.hi, index = keys.index;
  const lo = keys.lo;
  let hi2 = new Uint32Array(n);
  let index2 = new Uint32Array(n);
  const offsets = new Uint32Array(1 << DIGIT_BITS);
  for (let shift = 0; shift < 32; shift += DIGIT_BITS) {
    offsets.fill(0);
    for (let i = 0; i < n; i++) offsets[(hi[i] >>> shift) & DIGIT_MASK]++;
    if (offsets[(hi[0] >>> shift) & DIGIT_MASK] === n) continue; // nothing moves
    let sum = 0;
    for (let d = 0; d < offsets.length; d++) {
      const count = offsets[d];
      offsets[d] = sum;
      sum += count;
    }
    for (let i = 0; i < n; i++) {
      const h = hi[i];
      const p = offsets[(h >>> shift) & DIGIT_MASK]++;
      hi2[p] = h;
      index2[p] = index[i];
    }
    [hi, hi2] = [hi2, hi];
    [index, index2] = [index2, index];
  }
  for (let a = 0; a < n;) {
    const h = hi[a];
    let b = a + 1;
    while (b < n && hi[b] === h) b++;
    if (b - a > _RUN) return _argsortRadix(values);
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
  return index;
}
const DIGIT_MASK = (1 << DIGIT_BITS) - 1;

/**
 * Indices that sort finite `values` ascending: a stable least-significant-
 * digit radix sort on the IEEE-754 bits (6 passes of 11 bits), with keys made
 * order-preserving by flipping all bits of negatives and the sign bit of the
 * rest; −0 is keyed as +0. Unlike a comparison sort carrying indices (or a
 * binary search per value), its memory traffic is sequential reads and
 * 2048-way streaming writes, which matters for millions of draws.
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
    let sum = 0;
    for (let d = 0; d < offsets.length; d++) {
      const count = offsets[d];
      offsets[d] = sum;
      sum += count;
    }
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
