/**
 * Helpers shared by the diagnostics: input checks (every public function
 * validates its arguments here, so the error messages read the same
 * everywhere: they name the argument, say what was expected and show what was
 * received), moments, pooling and binary search in sorted arrays.
 *
 * @module
 */

/** Short description of a received value for error messages. */
export function _describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}

function _isArrayLike(value: unknown): value is ArrayLike<unknown> {
  return value !== null && typeof value === "object" &&
    typeof (value as { length?: unknown }).length === "number";
}

/**
 * Checks that `x` is an array of finite numbers with at least `minLength`
 * entries and returns a Float64Array copy (the callers may then modify it).
 */
export function _chain(x: unknown, name: string, minLength: number): Float64Array {
  if (!_isArrayLike(x)) {
    throw new TypeError(`${name} must be an array of numbers, got ${_describe(x)}`);
  }
  const n = x.length;
  if (n < minLength) {
    const noun = minLength === 1 ? "value" : "values";
    throw new RangeError(`${name} must have at least ${minLength} ${noun}, got ${n}`);
  }
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = x[i];
    if (typeof v !== "number") {
      throw new TypeError(`${name}[${i}] must be a number, got ${_describe(v)}`);
    }
    if (!Number.isFinite(v)) {
      throw new RangeError(`${name}[${i}] must be finite, got ${v}`);
    }
    out[i] = v;
  }
  return out;
}

/**
 * Checks that `chains` is a non-empty array of equally long chains of finite
 * numbers, each with at least `minLength` draws, and returns Float64Array
 * copies.
 */
export function _chains(chains: unknown, name: string, minLength: number): Float64Array[] {
  if (!Array.isArray(chains)) {
    throw new TypeError(
      `${name} must be an array of chains (arrays of numbers), got ${_describe(chains)}`,
    );
  }
  if (chains.length === 0) {
    throw new RangeError(`${name} must contain at least 1 chain, got 0`);
  }
  const out: Float64Array[] = [];
  for (let c = 0; c < chains.length; c++) {
    const chain = _chain(chains[c], `${name}[${c}]`, minLength);
    if (c > 0 && chain.length !== out[0].length) {
      throw new RangeError(
        `all chains in ${name} must have the same length, got ${
          out[0].length
        } for ${name}[0] and ${chain.length} for ${name}[${c}]`,
      );
    }
    out.push(chain);
  }
  return out;
}

/** Checks a probability in [0, 1]. */
export function _probability(p: unknown, name: string): number {
  if (typeof p !== "number") {
    throw new TypeError(`${name} must be a number, got ${_describe(p)}`);
  }
  if (!(p >= 0 && p <= 1)) {
    throw new RangeError(`${name} must be in [0, 1], got ${p}`);
  }
  return p;
}

/** Checks a probability in the open interval (0, 1). */
export function _openProbability(p: unknown, name: string): number {
  if (typeof p !== "number") {
    throw new TypeError(`${name} must be a number, got ${_describe(p)}`);
  }
  if (!(p > 0 && p < 1)) {
    throw new RangeError(`${name} must be in (0, 1), got ${p}`);
  }
  return p;
}

/** Checks a positive finite number. */
export function _positive(v: unknown, name: string): number {
  if (typeof v !== "number") {
    throw new TypeError(`${name} must be a number, got ${_describe(v)}`);
  }
  if (!(v > 0 && Number.isFinite(v))) {
    throw new RangeError(`${name} must be positive and finite, got ${v}`);
  }
  return v;
}

/** Checks an integer no smaller than `min`. */
export function _integer(v: unknown, name: string, min: number): number {
  if (typeof v !== "number") {
    throw new TypeError(`${name} must be a number, got ${_describe(v)}`);
  }
  if (!Number.isInteger(v) || v < min) {
    throw new RangeError(`${name} must be an integer of at least ${min}, got ${v}`);
  }
  return v;
}

/** Arithmetic mean. */
export function _mean(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s / x.length;
}

/**
 * {@link _mean} of a Float64Array, the same sum in the same order: one
 * element kind at its loads, so hot loops stay monomorphic.
 */
export function _meanF64(x: Float64Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s / x.length;
}

/** {@link _variance} of a Float64Array, bit for bit (see {@link _meanF64}). */
export function _varianceF64(x: Float64Array): number {
  const n = x.length;
  const m = _meanF64(x);
  const first = x[0];
  let s = 0;
  let equal = true;
  for (let i = 0; i < n; i++) {
    const v = x[i];
    const d = v - m;
    s += d * d;
    if (v !== first) equal = false;
  }
  return equal && n > 1 ? 0 : s / (n - 1);
}

/**
 * Sample variance with denominator n − 1 (two-pass). Exactly 0 when all
 * values are equal (the rounded mean of equal values can be an ulp off, which
 * would leave a variance of ~1e-33 and turn R̂ = ∞ for stuck chains into a
 * huge finite number; R's refined mean() gives exactly 0 there).
 */
export function _variance(x: ArrayLike<number>): number {
  const m = _mean(x);
  let s = 0;
  let equal = true;
  for (let i = 0; i < x.length; i++) {
    const d = x[i] - m;
    s += d * d;
    if (x[i] !== x[0]) equal = false;
  }
  return equal && x.length > 1 ? 0 : s / (x.length - 1);
}

/** Concatenates chains into one array of all draws. */
export function _pool(chains: readonly Float64Array[]): Float64Array {
  const n = chains[0].length;
  const out = new Float64Array(chains.length * n);
  for (let c = 0; c < chains.length; c++) out.set(chains[c], c * n);
  return out;
}

/** Index of the first element of `sorted` that is ≥ v (count of values < v). */
export function _lowerBound(sorted: Float64Array, v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first element of `sorted` that is > v (count of values ≤ v). */
export function _upperBound(sorted: Float64Array, v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** log Σ exp(xᵢ), computed from the largest term (−Infinity for no or all −Infinity terms). */
export function _logSumExp(x: ArrayLike<number>): number {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) if (x[i] > m) m = x[i];
  if (m === -Infinity || m === Infinity) return m;
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - m);
  return m + Math.log(s);
}
