/**
 * Small dense linear algebra for mass matrices and proposal covariances.
 *
 * Matrices are square, row-major `Float64Array`s of length n²; the dimension
 * is inferred from the length. Plain TypeScript, O(n³) factorisations and
 * O(n²) products: adequate for the parameter dimensions of the papers (d up
 * to a few hundred). Nothing here touches data rows.
 *
 * References: Golub & Van Loan, *Matrix Computations* (4th ed.), §4.2
 * (Cholesky factorisation) and §3.1 (triangular systems).
 *
 * @module
 */

/** Where to write a result (allocated when absent). */
export interface OutOption {
  /** Output array of the right length; allocated when absent. */
  out?: Float64Array;
}

/** Options of {@link cholesky} and {@link inverseSpd}. */
export interface CholeskyOptions extends OutOption {
  /** Name of the matrix used in error messages (default `"matrix"`). */
  name?: string;
  /** Added to the diagonal before factorising (default 0). */
  jitter?: number;
}

/**
 * The dimension n of a square row-major matrix of length n².
 *
 * @param a The matrix.
 * @param name Name used in the error message.
 * @returns n.
 *
 * @example
 * ```ts
 * import { squareDim } from "./linalg.ts";
 * if (squareDim(new Float64Array(9)) !== 3) throw new Error();
 * ```
 */
export function squareDim(a: Float64Array, name = "matrix"): number {
  if (!(a instanceof Float64Array)) {
    throw new TypeError(`${name} must be a Float64Array, got ${Object.prototype.toString.call(a)}`);
  }
  const n = Math.round(Math.sqrt(a.length));
  if (n * n !== a.length || n === 0) {
    throw new RangeError(`${name} must be a non-empty square n×n matrix, got length ${a.length}`);
  }
  return n;
}

/**
 * Lower Cholesky factor L of a symmetric positive-definite A (A = L Lᵀ).
 *
 * Checks that A is finite and symmetric (relative tolerance 1e-8 of the largest
 * entry) and that every pivot is positive and above n·2⁻⁵²·max|Aᵢᵢ|
 * (numerically singular matrices are rejected rather than given a factor with
 * round-off pivots). Only the lower triangle of A is read after the symmetry
 * check; the strict upper triangle of L is zero.
 *
 * @param a Symmetric positive-definite n×n matrix, row-major.
 * @param options `name` for error messages, `jitter` added to the diagonal, `out`.
 * @returns L, row-major n×n.
 * @throws {RangeError} If A is not symmetric, not finite or not positive definite
 *   (the message names the failing pivot and its value).
 *
 * @example
 * ```ts
 * import { cholesky } from "./linalg.ts";
 * const l = cholesky(new Float64Array([4, 2, 2, 3]));
 * // L = [[2, 0], [1, √2]]
 * if (l[0] !== 2 || l[2] !== 1 || Math.abs(l[3] - Math.SQRT2) > 1e-15) throw new Error();
 * ```
 *
 * References: Golub & Van Loan (2013), Algorithm 4.2.1.
 */
export function cholesky(a: Float64Array, options: CholeskyOptions = {}): Float64Array {
  const name = options.name ?? "matrix";
  const n = squareDim(a, name);
  const jitter = options.jitter ?? 0;
  let maxAbs = 0, maxDiag = 0;
  for (let i = 0; i < n * n; i++) {
    const v = a[i];
    if (!Number.isFinite(v)) {
      throw new RangeError(
        `${name} must be finite, got ${v} at (${Math.floor(i / n)}, ${i % n})`,
      );
    }
    if (Math.abs(v) > maxAbs) maxAbs = Math.abs(v);
  }
  for (let i = 0; i < n; i++) maxDiag = Math.max(maxDiag, Math.abs(a[i * n + i] + jitter));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < i; j++) {
      const d = Math.abs(a[i * n + j] - a[j * n + i]);
      if (d > 1e-8 * maxAbs) {
        throw new RangeError(
          `${name} must be symmetric, got ${a[i * n + j]} at (${i}, ${j}) and ${
            a[j * n + i]
          } at (${j}, ${i})`,
        );
      }
    }
  }
  const l = options.out ?? new Float64Array(n * n);
  if (l.length !== n * n) throw new RangeError(`out must have length ${n * n}, got ${l.length}`);
  l.fill(0);
  const tol = n * 2.220446049250313e-16 * maxDiag;
  for (let j = 0; j < n; j++) {
    let s = a[j * n + j] + jitter;
    for (let k = 0; k < j; k++) s -= l[j * n + k] * l[j * n + k];
    if (!(s > tol)) {
      throw new RangeError(
        `${name} is not positive definite: pivot ${j} of ${n} is ${s}` +
          (s > 0 ? ` (below the round-off level ${tol})` : ""),
      );
    }
    const ljj = Math.sqrt(s);
    l[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let t = a[i * n + j];
      for (let k = 0; k < j; k++) t -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = t / ljj;
    }
  }
  return l;
}

/**
 * Solve L x = b for lower-triangular L (forward substitution).
 *
 * @param l Lower-triangular n×n matrix, row-major (upper triangle ignored).
 * @param b Right-hand side, length n.
 * @param options `out` (may be `b` itself).
 * @returns x.
 *
 * @example
 * ```ts
 * import { solveLower } from "./linalg.ts";
 * const x = solveLower(new Float64Array([2, 0, 1, 1]), new Float64Array([2, 3]));
 * if (x[0] !== 1 || x[1] !== 2) throw new Error();
 * ```
 *
 * References: Golub & Van Loan (2013), Algorithm 3.1.1.
 */
export function solveLower(
  l: Float64Array,
  b: Float64Array,
  options: OutOption = {},
): Float64Array {
  const n = _checkVec(l, b);
  const x = _out(options.out, n);
  for (let i = 0; i < n; i++) {
    let s = b[i];
    const row = i * n;
    for (let k = 0; k < i; k++) s -= l[row + k] * x[k];
    x[i] = s / l[row + i];
  }
  return x;
}

/**
 * Solve Lᵀ x = b for lower-triangular L (back substitution with the transpose).
 *
 * @param l Lower-triangular n×n matrix, row-major (upper triangle ignored).
 * @param b Right-hand side, length n.
 * @param options `out` (may be `b` itself).
 * @returns x.
 *
 * @example
 * ```ts
 * import { solveLowerTranspose } from "./linalg.ts";
 * // Lᵀ = [[2, 1], [0, 1]]
 * const x = solveLowerTranspose(new Float64Array([2, 0, 1, 1]), new Float64Array([4, 2]));
 * if (x[0] !== 1 || x[1] !== 2) throw new Error();
 * ```
 *
 * References: Golub & Van Loan (2013), Algorithm 3.1.2.
 */
export function solveLowerTranspose(
  l: Float64Array,
  b: Float64Array,
  options: OutOption = {},
): Float64Array {
  const n = _checkVec(l, b);
  const x = _out(options.out, n);
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i];
    for (let k = i + 1; k < n; k++) s -= l[k * n + i] * x[k];
    x[i] = s / l[i * n + i];
  }
  return x;
}

/**
 * Solve A x = b given the Cholesky factor L of A (A = L Lᵀ).
 *
 * @param l Lower Cholesky factor of A.
 * @param b Right-hand side.
 * @param options `out` (may be `b` itself).
 * @returns x = A⁻¹ b.
 *
 * @example
 * ```ts
 * import { cholesky, choleskySolve } from "./linalg.ts";
 * const a = new Float64Array([4, 2, 2, 3]);
 * const x = choleskySolve(cholesky(a), new Float64Array([6, 5]));
 * if (Math.abs(x[0] - 1) > 1e-14 || Math.abs(x[1] - 1) > 1e-14) throw new Error();
 * ```
 *
 * References: Golub & Van Loan (2013), §4.2.
 */
export function choleskySolve(
  l: Float64Array,
  b: Float64Array,
  options: OutOption = {},
): Float64Array {
  const y = solveLower(l, b, options);
  return solveLowerTranspose(l, y, { out: y });
}

/**
 * A⁻¹ from the Cholesky factor L of A, exactly symmetric.
 *
 * @param l Lower Cholesky factor of A (n×n).
 * @param options `out` (n×n).
 * @returns A⁻¹ = L⁻ᵀ L⁻¹, row-major.
 *
 * @example
 * ```ts
 * import { cholesky, inverseFromCholesky } from "./linalg.ts";
 * const inv = inverseFromCholesky(cholesky(new Float64Array([2, 0, 0, 4])));
 * if (Math.abs(inv[0] - 0.5) > 1e-15 || inv[3] !== 0.25 || inv[1] !== 0) throw new Error();
 * ```
 *
 * References: Golub & Van Loan (2013), §4.2 and §3.1.
 */
export function inverseFromCholesky(l: Float64Array, options: OutOption = {}): Float64Array {
  const n = squareDim(l, "cholesky factor");
  const inv = _out(options.out, n * n);
  // W = L⁻¹ (lower), column by column, then A⁻¹ = Wᵀ W.
  const w = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    w[j * n + j] = 1 / l[j * n + j];
    for (let i = j + 1; i < n; i++) {
      let s = 0;
      for (let k = j; k < i; k++) s -= l[i * n + k] * w[k * n + j];
      w[i * n + j] = s / l[i * n + i];
    }
  }
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = i; k < n; k++) s += w[k * n + i] * w[k * n + j];
      inv[i * n + j] = s;
      inv[j * n + i] = s;
    }
  }
  return inv;
}

/**
 * Inverse of a symmetric positive-definite matrix via its Cholesky factor.
 *
 * @param a Symmetric positive-definite n×n matrix.
 * @param options `name` for error messages, `jitter`, `out`.
 * @returns A⁻¹ (exactly symmetric).
 * @throws {RangeError} If A is not symmetric positive definite.
 *
 * @example
 * ```ts
 * import { inverseSpd } from "./linalg.ts";
 * const inv = inverseSpd(new Float64Array([4, 2, 2, 3]));
 * // [[3, −2], [−2, 4]] / 8
 * if (Math.abs(inv[0] - 0.375) > 1e-15 || Math.abs(inv[1] + 0.25) > 1e-15) throw new Error();
 * ```
 *
 * References: Golub & Van Loan (2013), §4.2.
 */
export function inverseSpd(a: Float64Array, options: CholeskyOptions = {}): Float64Array {
  const l = cholesky(a, { name: options.name, jitter: options.jitter });
  return inverseFromCholesky(l, { out: options.out });
}

/**
 * Matrix–vector product A x for square row-major A.
 *
 * @param a n×n matrix.
 * @param x Vector of length n.
 * @param options `out` (must not alias `x`).
 * @returns A x.
 *
 * @example
 * ```ts
 * import { matVec } from "./linalg.ts";
 * const y = matVec(new Float64Array([1, 2, 3, 4]), new Float64Array([1, 1]));
 * if (y[0] !== 3 || y[1] !== 7) throw new Error();
 * ```
 *
 * References: Golub & Van Loan (2013), §1.1.
 */
export function matVec(a: Float64Array, x: Float64Array, options: OutOption = {}): Float64Array {
  const n = _checkVec(a, x);
  return matVecInto(a, n, x, _out(options.out, n));
}

/**
 * out = A x for a row-major n×n `a`, unchecked, for the hot loops of the
 * samplers (a dense metric's velocity, Σqₖ's gradient A + Bδ). Each
 * `out[i]` is the sum 0 + a[i,0]x[0] + a[i,1]x[1] + … in order of k, as the
 * plain loop computes it — the same number to the last bit — but eight
 * (then four) rows are summed side by side, so that their additions overlap
 * instead of each waiting for the one before (four rows ≈ 1.4× faster than
 * one at n = 30, eight ≈ 1.15× faster than four at n = 29).
 *
 * @param a Row-major n×n matrix (at least n² entries).
 * @param n Rows and columns.
 * @param x Vector (at least n entries; must not alias `out`).
 * @param out Output (at least n entries).
 * @returns `out`.
 *
 * @example
 * ```ts
 * import { matVecInto } from "./linalg.ts";
 * const y = matVecInto(new Float64Array([1, 2, 3, 4]), 2, new Float64Array([1, 1]), new Float64Array(2));
 * if (y[0] !== 3 || y[1] !== 7) throw new Error();
 * ```
 *
 * References: Golub & Van Loan (2013), §1.1.
 */
export function matVecInto(
  a: Float64Array,
  n: number,
  x: Float64Array,
  out: Float64Array,
): Float64Array {
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    const r0 = i * n, r1 = r0 + n, r2 = r1 + n, r3 = r2 + n;
    const r4 = r3 + n, r5 = r4 + n, r6 = r5 + n, r7 = r6 + n;
    let t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0, t6 = 0, t7 = 0;
    for (let k = 0; k < n; k++) {
      const xk = x[k];
      t0 += a[r0 + k] * xk;
      t1 += a[r1 + k] * xk;
      t2 += a[r2 + k] * xk;
      t3 += a[r3 + k] * xk;
      t4 += a[r4 + k] * xk;
      t5 += a[r5 + k] * xk;
      t6 += a[r6 + k] * xk;
      t7 += a[r7 + k] * xk;
    }
    out[i] = t0;
    out[i + 1] = t1;
    out[i + 2] = t2;
    out[i + 3] = t3;
    out[i + 4] = t4;
    out[i + 5] = t5;
    out[i + 6] = t6;
    out[i + 7] = t7;
  }
  for (; i + 4 <= n; i += 4) {
    const r0 = i * n, r1 = r0 + n, r2 = r1 + n, r3 = r2 + n;
    let t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (let k = 0; k < n; k++) {
      const xk = x[k];
      t0 += a[r0 + k] * xk;
      t1 += a[r1 + k] * xk;
      t2 += a[r2 + k] * xk;
      t3 += a[r3 + k] * xk;
    }
    out[i] = t0;
    out[i + 1] = t1;
    out[i + 2] = t2;
    out[i + 3] = t3;
  }
  for (; i < n; i++) {
    const r = i * n;
    let t = 0;
    for (let k = 0; k < n; k++) t += a[r + k] * x[k];
    out[i] = t;
  }
  return out;
}

/**
 * Product L x for lower-triangular L (upper triangle ignored).
 *
 * @param l Lower-triangular n×n matrix.
 * @param x Vector of length n.
 * @param options `out` (must not alias `x`).
 * @returns L x.
 *
 * @example
 * ```ts
 * import { lowerMatVec } from "./linalg.ts";
 * const y = lowerMatVec(new Float64Array([2, 99, 1, 1]), new Float64Array([1, 1]));
 * if (y[0] !== 2 || y[1] !== 2) throw new Error();
 * ```
 *
 * References: Golub & Van Loan (2013), §1.1.
 */
export function lowerMatVec(
  l: Float64Array,
  x: Float64Array,
  options: OutOption = {},
): Float64Array {
  const n = _checkVec(l, x);
  const y = _out(options.out, n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const row = i * n;
    for (let k = 0; k <= i; k++) s += l[row + k] * x[k];
    y[i] = s;
  }
  return y;
}

function _checkVec(a: Float64Array, x: Float64Array): number {
  const n = squareDim(a);
  if (x.length !== n) {
    throw new RangeError(
      `vector must have length ${n} to match a ${n}×${n} matrix, got ${x.length}`,
    );
  }
  return n;
}

function _out(out: Float64Array | undefined, len: number): Float64Array {
  if (out === undefined) return new Float64Array(len);
  if (out.length !== len) throw new RangeError(`out must have length ${len}, got ${out.length}`);
  return out;
}
