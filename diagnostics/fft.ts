/**
 * Autocovariance and autocorrelation of one chain through a radix-2 fast
 * Fourier transform.
 *
 * The chain is centred, zero-padded to a power of two M ≥ 2n (so the circular
 * correlation the FFT computes equals the linear one), transformed, squared in
 * modulus and transformed back: O(n log n) instead of the O(n²) direct sum.
 *
 * References: Geyer (1992) "Practical Markov chain Monte Carlo", Statistical
 * Science 7(4), §3.1 (the biased autocovariance estimator, divisor n);
 * Wiener–Khinchin theorem as used by Vehtari et al. (2021) "Rank-normalization,
 * folding, and localization: an improved R̂", Bayesian Analysis 16(2), §3.2.
 *
 * @module
 */

import { _chain, _integer, _meanF64 } from "./_util.ts";

/** Options for {@linkcode autocovariance} and {@linkcode autocorrelation}. */
export interface AutocovarianceOptions {
  /** Largest lag returned (default n − 1, i.e. every lag). */
  maxLag?: number;
}

const _twiddles = new Map<number, { cos: Float64Array; sin: Float64Array }>();

function _twiddleTable(n: number): { cos: Float64Array; sin: Float64Array } {
  let table = _twiddles.get(n);
  if (table === undefined) {
    const half = n >> 1;
    const cos = new Float64Array(half);
    const sin = new Float64Array(half);
    for (let k = 0; k < half; k++) {
      cos[k] = Math.cos((2 * Math.PI * k) / n);
      sin[k] = Math.sin((2 * Math.PI * k) / n);
    }
    table = { cos, sin };
    if (_twiddles.size > 32) _twiddles.clear();
    _twiddles.set(n, table);
  }
  return table;
}

const _reversals = new Map<number, Uint32Array>();

/** The pairs (i, j), i < j, that the bit-reversal permutation of length n swaps. */
function _reversalPairs(n: number): Uint32Array {
  let pairs = _reversals.get(n);
  if (pairs === undefined) {
    const list: number[] = [];
    for (let i = 1, j = 0; i < n; i++) {
      let bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) list.push(i, j);
    }
    pairs = Uint32Array.from(list);
    if (_reversals.size > 32) _reversals.clear();
    _reversals.set(n, pairs);
  }
  return pairs;
}

/**
 * In-place forward complex FFT, X_k = Σ_j x_j e^{−2πijk/n}, for n a power of
 * two (iterative Cooley–Tukey with bit-reversal permutation). Every
 * butterfly computes tr = re_b·cos + im_b·sin, ti = im_b·cos − re_b·sin,
 * (re_a, re_b) ← (re_a + tr, re_a − tr) and the same for im, with the
 * twiddles of one table; only the order of independent butterflies varies
 * (the first two stages in one pass, then twiddle by twiddle while blocks
 * are many), so the result is the same to the last bit whatever the order.
 */
export function _fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  const pairs = _reversalPairs(n);
  for (let p = 0; p < pairs.length; p += 2) {
    const i = pairs[p], j = pairs[p + 1];
    let t = re[i];
    re[i] = re[j];
    re[j] = t;
    t = im[i];
    im[i] = im[j];
    im[j] = t;
  }
  const { cos, sin } = _twiddleTable(n);
  let size = 2;
  if (n >= 4) {
    // Stages of size 2 (twiddle k = 0) and 4 (k = 0 and n/4) on each block of 4.
    const c0 = cos[0], s0 = sin[0], c1 = cos[n >> 2], s1 = sin[n >> 2];
    for (let a = 0; a < n; a += 4) {
      let r0 = re[a], i0 = im[a], r1 = re[a + 1], i1 = im[a + 1];
      let tr = r1 * c0 + i1 * s0;
      let ti = i1 * c0 - r1 * s0;
      r1 = r0 - tr;
      i1 = i0 - ti;
      r0 += tr;
      i0 += ti;
      let r2 = re[a + 2], i2 = im[a + 2], r3 = re[a + 3], i3 = im[a + 3];
      tr = r3 * c0 + i3 * s0;
      ti = i3 * c0 - r3 * s0;
      r3 = r2 - tr;
      i3 = i2 - ti;
      r2 += tr;
      i2 += ti;
      tr = r2 * c0 + i2 * s0;
      ti = i2 * c0 - r2 * s0;
      re[a + 2] = r0 - tr;
      im[a + 2] = i0 - ti;
      re[a] = r0 + tr;
      im[a] = i0 + ti;
      tr = r3 * c1 + i3 * s1;
      ti = i3 * c1 - r3 * s1;
      re[a + 3] = r1 - tr;
      im[a + 3] = i1 - ti;
      re[a + 1] = r1 + tr;
      im[a + 1] = i1 + ti;
    }
    size = 8;
  }
  for (; size <= n; size <<= 1) {
    const half = size >> 1;
    const stride = n / size;
    if (half < stride) {
      for (let j = 0, k = 0; j < half; j++, k += stride) {
        const c = cos[k], s = sin[k];
        for (let a = j; a < n; a += size) {
          const b = a + half;
          const tr = re[b] * c + im[b] * s;
          const ti = im[b] * c - re[b] * s;
          re[b] = re[a] - tr;
          im[b] = im[a] - ti;
          re[a] += tr;
          im[a] += ti;
        }
      }
    } else {
      for (let start = 0; start < n; start += size) {
        for (let j = 0, k = 0; j < half; j++, k += stride) {
          const a = start + j;
          const b = a + half;
          // (re[b] + i im[b]) · (cos − i sin)
          const tr = re[b] * cos[k] + im[b] * sin[k];
          const ti = im[b] * cos[k] - re[b] * sin[k];
          re[b] = re[a] - tr;
          im[b] = im[a] - ti;
          re[a] += tr;
          im[a] += ti;
        }
      }
    }
  }
}

/**
 * Biased autocovariances γ_t = (1/n) Σ_{i<n−t} (x_i − x̄)(x_{i+t} − x̄),
 * t = 0..maxLag, of equally long validated chains.
 *
 * Two real chains share one complex transform: with z = x + i·y,
 * X_k = (Z_k + conj Z_{M−k})/2 and Y_k = (Z_k − conj Z_{M−k})/(2i), so
 * |X_k|² and |Y_k|² come from one FFT; both power spectra are real and even,
 * so the second FFT of |X|² + i|Y|² returns M·n·γ^x in its real part and
 * M·n·γ^y in its imaginary part. When only a few lags are wanted the direct
 * O(n · maxLag) sum is cheaper and is used instead.
 */
export function _autocovariances(
  chains: readonly Float64Array[],
  maxLag: number = (chains[0]?.length ?? 1) - 1,
): Float64Array[] {
  // No chains, no autocovariances (callers once crashed here reading chains[0]).
  if (chains.length === 0) return [];
  const n = chains[0].length;
  let m = 1;
  while (m < 2 * n) m <<= 1;
  // Measured crossover: the direct sum wins below roughly 8·log₂M lags.
  if (maxLag + 1 <= 4 * Math.log2(m)) return chains.map((x) => _directAutocovariance(x, maxLag));
  const out: Float64Array[] = [];
  const re = new Float64Array(m);
  const im = new Float64Array(m);
  const scale = 1 / (m * n);
  for (let c = 0; c < chains.length; c += 2) {
    const x = chains[c];
    const y = c + 1 < chains.length ? chains[c + 1] : undefined;
    re.fill(0);
    im.fill(0);
    const mx = _meanF64(x);
    for (let i = 0; i < n; i++) re[i] = x[i] - mx;
    if (y !== undefined) {
      const my = _meanF64(y);
      for (let i = 0; i < n; i++) im[i] = y[i] - my;
    }
    _fft(re, im);
    for (let k = 0; k <= m >> 1; k++) {
      const j = (m - k) & (m - 1);
      const sr = re[k] + re[j];
      const dr = re[k] - re[j];
      const si = im[k] + im[j];
      const di = im[k] - im[j];
      const px = 0.25 * (sr * sr + di * di);
      const py = 0.25 * (si * si + dr * dr);
      re[k] = px;
      re[j] = px;
      im[k] = py;
      im[j] = py;
    }
    _fft(re, im);
    const gx = new Float64Array(maxLag + 1);
    for (let t = 0; t <= maxLag; t++) gx[t] = re[t] * scale;
    out.push(gx);
    if (y !== undefined) {
      const gy = new Float64Array(maxLag + 1);
      for (let t = 0; t <= maxLag; t++) gy[t] = im[t] * scale;
      out.push(gy);
    }
  }
  return out;
}

/** Scratch for the centred chain of {@link _directAutocovariance}, reused across calls. */
let _centred = new Float64Array(0);

/**
 * The defining O(n · maxLag) sum of the biased autocovariances. Eight (or
 * four) lags share one pass over the chain (as many running sums), each still summed over
 * i = 0, 1, … in order, so every γ_t is the plain loop's, bit for bit.
 */
function _directAutocovariance(x: Float64Array, maxLag: number): Float64Array {
  const out = new Float64Array(maxLag + 1);
  _directAutocovarianceInto(x, _meanF64(x), out);
  return out;
}

/**
 * The biased autocovariances of `x` at lags `from` … out.length − 1 by the
 * direct sum of {@link _directAutocovariance} into `out`, given the chain's
 * mean (as `_meanF64(x)` computes it), bit for bit those of
 * {@link _autocovariances} for so few lags. Every lag is its own running sum
 * over i in order, so the lags may be computed in several calls.
 */
export function _directAutocovarianceInto(
  x: Float64Array,
  mean: number,
  out: Float64Array,
  from = 0,
): void {
  const n = x.length;
  if (_centred.length < n) _centred = new Float64Array(n);
  const c = _centred;
  for (let i = 0; i < n; i++) c[i] = x[i] - mean;
  const lags = out.length;
  let t = from;
  for (; t + 8 <= lags; t += 8) {
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    // Every lag t … t + 7 has a term at i while i + t + 7 < n.
    const end = n - t - 7;
    let i = 0;
    for (; i < end; i++) {
      const a = c[i];
      const k = i + t;
      s0 += a * c[k];
      s1 += a * c[k + 1];
      s2 += a * c[k + 2];
      s3 += a * c[k + 3];
      s4 += a * c[k + 4];
      s5 += a * c[k + 5];
      s6 += a * c[k + 6];
      s7 += a * c[k + 7];
    }
    for (let j = i; j + t < n; j++) s0 += c[j] * c[j + t];
    for (let j = i; j + t + 1 < n; j++) s1 += c[j] * c[j + t + 1];
    for (let j = i; j + t + 2 < n; j++) s2 += c[j] * c[j + t + 2];
    for (let j = i; j + t + 3 < n; j++) s3 += c[j] * c[j + t + 3];
    for (let j = i; j + t + 4 < n; j++) s4 += c[j] * c[j + t + 4];
    for (let j = i; j + t + 5 < n; j++) s5 += c[j] * c[j + t + 5];
    for (let j = i; j + t + 6 < n; j++) s6 += c[j] * c[j + t + 6];
    out[t] = s0 / n;
    out[t + 1] = s1 / n;
    out[t + 2] = s2 / n;
    out[t + 3] = s3 / n;
    out[t + 4] = s4 / n;
    out[t + 5] = s5 / n;
    out[t + 6] = s6 / n;
    out[t + 7] = s7 / n;
  }
  for (; t + 4 <= lags; t += 4) {
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    // Every lag t … t + 3 has a term at i while i + t + 3 < n.
    const end = n - t - 3;
    let i = 0;
    for (; i < end; i++) {
      const a = c[i];
      const k = i + t;
      s0 += a * c[k];
      s1 += a * c[k + 1];
      s2 += a * c[k + 2];
      s3 += a * c[k + 3];
    }
    for (let j = i; j + t < n; j++) s0 += c[j] * c[j + t];
    for (let j = i; j + t + 1 < n; j++) s1 += c[j] * c[j + t + 1];
    for (let j = i; j + t + 2 < n; j++) s2 += c[j] * c[j + t + 2];
    out[t] = s0 / n;
    out[t + 1] = s1 / n;
    out[t + 2] = s2 / n;
    out[t + 3] = s3 / n;
  }
  for (; t < lags; t++) {
    let s = 0;
    for (let i = 0; i + t < n; i++) s += c[i] * c[i + t];
    out[t] = s / n;
  }
}

/** Autocovariances of one validated chain (see {@linkcode _autocovariances}). */
export function _autocovariance(x: Float64Array, maxLag: number = x.length - 1): Float64Array {
  return _autocovariances([x], maxLag)[0];
}

function _maxLag(options: AutocovarianceOptions, n: number): number {
  if (options.maxLag === undefined) return n - 1;
  const lag = _integer(options.maxLag, "options.maxLag", 0);
  if (lag > n - 1) {
    throw new RangeError(`options.maxLag must be at most n − 1 = ${n - 1}, got ${lag}`);
  }
  return lag;
}

/**
 * Autocovariance of one chain at every lag, computed with an FFT.
 *
 * Uses the biased estimator (divisor n rather than n − t), which Geyer (1992)
 * recommends because it keeps the sequence positive definite. When `maxLag`
 * is small (below about 4·log₂ of the FFT length) the direct sum is cheaper
 * and is used instead; both agree to round-off.
 *
 * References: Geyer (1992) Statistical Science 7(4) §3.1; Vehtari et al.
 * (2021) Bayesian Analysis 16(2) §3.2.
 *
 * @param x One chain of draws (at least 2 finite values).
 * @param options `maxLag`: largest lag to return (default n − 1).
 * @returns γ_0, …, γ_maxLag, where γ_0 is the variance with divisor n.
 * @throws {RangeError} If x has fewer than 2 values, a non-finite value, or
 * maxLag is out of range.
 *
 * @example Autocovariance of a short alternating series
 * ```ts
 * import { autocovariance } from "./fft.ts";
 * import { strict as assert } from "node:assert";
 *
 * const acov = autocovariance([1, -1, 1, -1]);
 * // γ_0 = 4/4 = 1, γ_1 = (−1 − 1 − 1)/4 = −0.75
 * assert.ok(Math.abs(acov[0] - 1) < 1e-12);
 * assert.ok(Math.abs(acov[1] + 0.75) < 1e-12);
 * ```
 */
export function autocovariance(
  x: ArrayLike<number>,
  options: AutocovarianceOptions = {},
): Float64Array {
  const chain = _chain(x, "x", 2);
  return _autocovariance(chain, _maxLag(options, chain.length));
}

/**
 * Autocorrelation of one chain at every lag, ρ_t = γ_t / γ_0, computed with an
 * FFT (see {@linkcode autocovariance}).
 *
 * References: Geyer (1992) Statistical Science 7(4) §3.1; Vehtari et al.
 * (2021) Bayesian Analysis 16(2) §3.2.
 *
 * @param x One chain of draws (at least 2 finite values, not all equal).
 * @param options `maxLag`: largest lag to return (default n − 1).
 * @returns ρ_0 = 1, ρ_1, …, ρ_maxLag.
 * @throws {RangeError} If x is too short, has a non-finite value, or is
 * constant (ρ is then undefined).
 *
 * @example Lag-one autocorrelation of a trend
 * ```ts
 * import { autocorrelation } from "./fft.ts";
 * import { strict as assert } from "node:assert";
 *
 * const rho = autocorrelation([1, 2, 3, 4, 5]);
 * assert.equal(rho[0], 1);
 * // Σ(x_i − 3)(x_{i+1} − 3) / Σ(x_i − 3)² = 4/10
 * assert.ok(Math.abs(rho[1] - 0.4) < 1e-12);
 * ```
 */
export function autocorrelation(
  x: ArrayLike<number>,
  options: AutocovarianceOptions = {},
): Float64Array {
  const chain = _chain(x, "x", 2);
  if (chain.every((v) => v === chain[0])) {
    throw new RangeError(
      `x must not be constant (autocorrelation is undefined), got all values equal to ${chain[0]}`,
    );
  }
  const acov = _autocovariance(chain, _maxLag(options, chain.length));
  const variance = acov[0];
  for (let t = 0; t < acov.length; t++) acov[t] /= variance;
  return acov;
}
