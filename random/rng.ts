/**
 * The one seeded random-number generator of tallmc.
 *
 * Built on `seedrandom`'s xor4096 generator (period 2^4096 − 1, 53-bit
 * doubles). A generator is always passed explicitly; nothing is global.
 * Independent streams for chains come from {@link Rng.stream}, which derives a
 * new seed string from the parent seed and the stream index, so that the same
 * seed gives bit-identical draws on every run, chain by chain.
 *
 * @module
 */
import type seedrandom from "npm:@types/seedrandom@3.0.8";
// The xor4096 generator alone, not the package's index: the index also loads
// its six other generators and, for ARC4's auto-seeding, Node's `crypto`,
// which cost every thread that imports this module 10–15 ms more.
import xor4096Module from "npm:seedrandom@3.0.5/lib/xor4096.js";

/**
 * @internal Length in int32 of a generator state ({@link Rng.saveState}):
 * xor4096's 128 words, its index and its Weyl value.
 */
export const RNG_STATE_LENGTH = 130;

type _Xor4096 = seedrandom.StatefulPRNG<seedrandom.State.Xor4096>;
/** seedrandom's `xor4096(seed, { state })` (the type of the index's `seedrandom.xor4096`). */
type _Xor4096Factory = (
  seed: string,
  options: { state: true | seedrandom.State.Xor4096 },
) => _Xor4096;
const _xor4096 = xor4096Module as unknown as _Xor4096Factory;

/**
 * Doubles drawn from the generator at a time ({@link Rng}'s look-ahead). A
 * refill happens once per this many draws: rarely enough that the compiler
 * does not inline it into the methods that draw.
 */
const _AHEAD = 1024;

/** A seeded source of uniform, normal, Poisson and integer variates. */
export class Rng {
  /** The seed string this generator was created from. */
  readonly seed: string;
  #gen: _Xor4096;
  // The next _AHEAD doubles of #gen, drawn ahead by #refill: the methods that
  // draw read this buffer and call #refill, one function for every generator,
  // and never seedrandom's functions, which are closures made per generator
  // (each chain's would be another call target, and code optimised for the
  // previous chain's generator would be thrown away and compiled again).
  // #gen's numbers and their order are unchanged.
  readonly #ahead = new Float64Array(_AHEAD);
  #next = _AHEAD; // _AHEAD: none left
  // #gen's state before the latest refill (null before the first): where
  // saveState starts to replay the draws read since.
  #mark: seedrandom.State.Xor4096 | null = null;
  #spareNormal = NaN;

  /**
   * Create a generator.
   *
   * @param seed Any integer or string; the same seed gives the same draws.
   *
   * @example
   * ```ts
   * import { Rng } from "./rng.ts";
   * const a = new Rng(42), b = new Rng(42);
   * if (a.uniform() !== b.uniform()) throw new Error("not reproducible");
   * ```
   */
  constructor(seed: number | string) {
    if (typeof seed === "number" && !Number.isFinite(seed)) {
      throw new TypeError(`seed must be a finite number or a string, got ${seed}`);
    }
    this.seed = String(seed);
    // The state option only adds `state()`: the same numbers.
    this.#gen = _xor4096(this.seed, { state: true });
  }

  /**
   * @internal Write the generator's state (not the spare normal of
   * {@link Rng.normal}) into `out` ({@link RNG_STATE_LENGTH} int32s): another
   * thread can continue the same sequence ({@link Rng.loadState}).
   *
   * @param out Where to write the state.
   */
  saveState(out: Int32Array): void {
    if (out.length < RNG_STATE_LENGTH) {
      throw new RangeError(`a state needs ${RNG_STATE_LENGTH} int32s, got ${out.length}`);
    }
    let st = this.#gen.state();
    if (this.#next < _AHEAD && this.#mark !== null) {
      // Drawn ahead: the state after the draws read is the mark's moved on by as many.
      const g = _xor4096("", { state: this.#mark });
      for (let k = 0; k < this.#next; k++) g.double();
      st = g.state();
    }
    for (let k = 0; k < 128; k++) out[k] = st.X[k];
    out[128] = st.i;
    out[129] = st.w;
  }

  /**
   * @internal Continue from a state written by {@link Rng.saveState} (the
   * spare normal of {@link Rng.normal}, if any, is kept): the draws that
   * follow are those that followed the saved state.
   *
   * @param from The state.
   */
  loadState(from: Int32Array): void {
    if (from.length < RNG_STATE_LENGTH) {
      throw new RangeError(`a state needs ${RNG_STATE_LENGTH} int32s, got ${from.length}`);
    }
    const state = { X: Array.from(from.subarray(0, 128)), i: from[128], w: from[129] };
    this.#gen = _xor4096("", { state });
    this.#next = _AHEAD;
    this.#mark = null;
  }

  /** The next double of the generator. */
  #draw(): number {
    const k = this.#next;
    if (k === _AHEAD) return this.#refill();
    this.#next = k + 1;
    return this.#ahead[k];
  }

  /** Draw the next {@link _AHEAD} doubles ahead; returns the first (read). */
  #refill(): number {
    const gen = this.#gen, ahead = this.#ahead;
    this.#mark = gen.state();
    for (let k = 0; k < _AHEAD; k++) ahead[k] = gen.double();
    this.#next = 1;
    return ahead[0];
  }

  /**
   * An independent generator for stream `index` (e.g. one per chain).
   *
   * @param index A non-negative integer stream number.
   * @returns A new generator whose seed is derived from this one's seed and `index`.
   */
  stream(index: number): Rng {
    if (!Number.isInteger(index) || index < 0) {
      throw new RangeError(`stream index must be a non-negative integer, got ${index}`);
    }
    return new Rng(`${this.seed}/stream-${index}`);
  }

  /** A uniform draw on [0, 1) with 53 random bits. */
  uniform(): number {
    return this.#draw();
  }

  /** A uniform draw on the open interval (0, 1). */
  uniformOpen(): number {
    let u = this.#draw();
    while (u === 0) u = this.#draw();
    return u;
  }

  /**
   * A standard normal draw (Marsaglia's polar method; the second value of each
   * pair is kept for the next call).
   *
   * @returns A draw from N(0, 1).
   */
  normal(): number {
    if (!Number.isNaN(this.#spareNormal)) {
      const z = this.#spareNormal;
      this.#spareNormal = NaN;
      return z;
    }
    let u: number, v: number, s: number;
    do {
      u = 2 * this.#draw() - 1;
      v = 2 * this.#draw() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = Math.sqrt((-2 * Math.log(s)) / s);
    this.#spareNormal = v * f;
    return u * f;
  }

  /**
   * Fill `out` with independent N(mean, sd²) draws.
   *
   * @param out The array to fill.
   * @param options `mean` (default 0) and `sd` (default 1).
   * @returns `out`.
   */
  fillNormal(out: Float64Array, options: { mean?: number; sd?: number } = {}): Float64Array {
    const mean = options.mean ?? 0, sd = options.sd ?? 1;
    for (let i = 0; i < out.length; i++) out[i] = mean + sd * this.normal();
    return out;
  }

  /**
   * An exponential draw with rate 1.
   *
   * @returns A draw from Exp(1).
   */
  exponential(): number {
    return -Math.log(this.uniformOpen());
  }

  /**
   * A gamma draw with the given shape and unit scale (Marsaglia & Tsang 2000).
   *
   * @param shape Positive shape parameter.
   * @returns A draw from Gamma(shape, 1).
   */
  gamma(shape: number): number {
    if (!(shape > 0) || !Number.isFinite(shape)) {
      throw new RangeError(`gamma shape must be positive and finite, got ${shape}`);
    }
    if (shape < 1) return this.gamma(shape + 1) * Math.pow(this.uniformOpen(), 1 / shape);
    const dd = shape - 1 / 3, c = 1 / Math.sqrt(9 * dd);
    for (;;) {
      let x: number, v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.uniformOpen();
      if (u < 1 - 0.0331 * x * x * x * x) return dd * v;
      if (Math.log(u) < 0.5 * x * x + dd * (1 - v + Math.log(v))) return dd * v;
    }
  }

  /**
   * A Poisson draw: inversion for small means, the PTRS transformed-rejection
   * method (Hörmann 1993) for mean ≥ 10.
   *
   * @param mean Non-negative finite mean.
   * @returns A draw from Poisson(mean).
   */
  poisson(mean: number): number {
    if (!(mean >= 0) || !Number.isFinite(mean)) {
      throw new RangeError(`poisson mean must be non-negative and finite, got ${mean}`);
    }
    if (mean === 0) return 0;
    if (mean < 10) {
      let k = 0, p = Math.exp(-mean), cdf = p;
      const u = this.#draw();
      while (u > cdf && k < 1000) {
        k++;
        p *= mean / k;
        cdf += p;
      }
      return k;
    }
    const slam = Math.sqrt(mean), loglam = Math.log(mean);
    const b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    const invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
      const u = this.#draw() - 0.5, v = this.#draw();
      const us = 0.5 - Math.abs(u);
      const k = Math.floor((2 * a / us + b) * u + mean + 0.43);
      if (us >= 0.07 && v <= vr) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (
        Math.log(v) + Math.log(invalpha) - Math.log(a / (us * us) + b) <=
          -mean + k * loglam - _logFactorial(k)
      ) return k;
    }
  }

  /**
   * A uniform integer in {0, …, n − 1} (rejection, no modulo bias).
   *
   * @param n Positive integer upper bound (exclusive), at most 2^53.
   * @returns The draw.
   */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0) {
      throw new RangeError(`int bound must be a positive integer, got ${n}`);
    }
    return Math.floor(this.#draw() * n);
  }

  /**
   * m indices drawn uniformly with replacement from {0, …, n − 1}.
   *
   * @param n Population size.
   * @param m Sample size.
   * @param out Optional array of length ≥ m to fill.
   * @returns The indices (`out` if given).
   */
  sampleWithReplacement(n: number, m: number, out?: Int32Array): Int32Array {
    _checkSize(n, m, false);
    const res = out ?? new Int32Array(m);
    for (let k = 0; k < m; k++) res[k] = this.int(n);
    return res;
  }

  /**
   * m distinct indices drawn uniformly from {0, …, n − 1}, in increasing order:
   * the first m distinct values of uniform draws with replacement (a uniformly
   * random m-subset by symmetry), marked in a bit set of n bits and read off in
   * order — m draws and n/32 words, where drawing in random order and sorting
   * costs a hash set of m entries and an m log m sort (≈ 30× the time at
   * m = 1.6·10⁶). For m > n/2 the n − m indices left out are drawn instead.
   *
   * @param n Population size.
   * @param m Sample size, 0 ≤ m ≤ n.
   * @param out Optional array of length ≥ m to fill (its first m entries).
   * @returns The indices, increasing (`out` if given).
   */
  sortedSample(n: number, m: number, out?: Int32Array): Int32Array {
    if (!Number.isInteger(n) || n < 0 || !Number.isInteger(m) || m < 0 || m > n) {
      throw new RangeError(`need integers 0 ≤ m ≤ n, got n = ${n}, m = ${m}`);
    }
    if (out !== undefined && out.length < m) {
      throw new RangeError(`out must hold ${m} indices, got ${out.length}`);
    }
    const res = out ?? new Int32Array(m);
    if (m === 0) return res;
    const complement = 2 * m > n, k = complement ? n - m : m;
    const words = (n + 31) >>> 5, bits = new Uint32Array(words);
    const batch = new Int32Array(Math.max(1, Math.min(k, 1 << 16)));
    for (let have = 0; have < k;) {
      const want = Math.min(batch.length, k - have);
      this.sampleWithReplacement(n, want, batch);
      for (let t = 0; t < want && have < k; t++) {
        const r = batch[t], w = r >>> 5, b = 1 << (r & 31);
        if ((bits[w] & b) === 0) {
          bits[w] |= b;
          have++;
        }
      }
    }
    let o = 0;
    for (let w = 0; w < words; w++) {
      let v = complement ? ~bits[w] : bits[w];
      if (complement && w === words - 1 && (n & 31) !== 0) v &= (1 << (n & 31)) - 1;
      while (v !== 0) {
        const low = v & -v; // lowest set bit
        res[o++] = (w << 5) + (31 - Math.clz32(low));
        v ^= low;
      }
    }
    return res;
  }

  /**
   * m distinct indices drawn uniformly from {0, …, n − 1}, in random order
   * (Floyd's algorithm for m ≪ n, a partial Fisher–Yates shuffle otherwise).
   *
   * @param n Population size.
   * @param m Sample size, at most n.
   * @returns The indices.
   */
  sampleWithoutReplacement(n: number, m: number): Int32Array {
    _checkSize(n, m, true);
    const res = new Int32Array(m);
    if (m * 4 > n) {
      const perm = new Int32Array(n);
      for (let i = 0; i < n; i++) perm[i] = i;
      for (let i = 0; i < m; i++) {
        const j = i + this.int(n - i);
        const t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        res[i] = perm[i];
      }
      return res;
    }
    if (n <= 256 * m) {
      // The same draws with a bit set of n bits for the set (at most 32 bytes per index
      // drawn): a Set of 10⁵ numbers costs ~3× the draws themselves.
      const seen = new Uint32Array((n + 31) >>> 5);
      for (let j = n - m, k = 0; j < n; j++, k++) {
        const t = this.int(j + 1);
        const v = (seen[t >>> 5] & (1 << (t & 31))) !== 0 ? j : t;
        seen[v >>> 5] |= 1 << (v & 31);
        res[k] = v;
      }
    } else {
      const seen = new Set<number>();
      for (let j = n - m, k = 0; j < n; j++, k++) {
        const t = this.int(j + 1);
        const v = seen.has(t) ? j : t;
        seen.add(v);
        res[k] = v;
      }
    }
    // Floyd's algorithm yields a set; shuffle for a uniformly random order.
    for (let i = m - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = res[i];
      res[i] = res[j];
      res[j] = t;
    }
    return res;
  }
}

function _checkSize(n: number, m: number, distinct: boolean): void {
  if (!Number.isInteger(n) || n <= 0 || n > 2 ** 31 - 1) {
    throw new RangeError(`population size must be an integer in [1, 2^31 − 1], got ${n}`);
  }
  if (!Number.isInteger(m) || m < 0) {
    throw new RangeError(`sample size must be a non-negative integer, got ${m}`);
  }
  if (distinct && m > n) {
    throw new RangeError(`cannot draw ${m} distinct indices from a population of ${n}`);
  }
}

const _LOG_FACT_TABLE: number[] = [0];
function _logFactorial(k: number): number {
  if (k < 256) {
    for (let i = _LOG_FACT_TABLE.length; i <= k; i++) {
      _LOG_FACT_TABLE[i] = _LOG_FACT_TABLE[i - 1] + Math.log(i);
    }
    return _LOG_FACT_TABLE[k];
  }
  const x = k + 1; // Stirling series for log Γ(x)
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) -
    1 / (360 * x * x * x);
}
