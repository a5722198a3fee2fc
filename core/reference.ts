/**
 * Plain-TypeScript reference implementation of {@link CoreExports}: the oracle
 * every SIMD build is tested against.
 *
 * Memory layout (byte offsets into one `WebAssembly.Memory`, see exports.ts):
 *
 * ```
 *  x ─► ┌ row 0: x₀₀ x₀₁ … x₀,d−1 ┐  f64 (8 B) or f32 (4 B) per entry
 *       │ row 1: …               │  row i at x + i·d·w
 *       └ row n−1                ┘
 *  y ─► y₀ y₁ … y_{n−1}            f64
 *  θ ─► θ₀ … θ_{d−1}               f64
 *  cv ─► (η*, ℓ*, a, b) × n        f64, 32 B per row
 *  idx ─► i₀ i₁ … i_{m−1}          i32
 * ```
 *
 * Every call re-derives its typed-array views from `memory.buffer`, so the
 * reference stays correct after the memory grows. The loops are deliberately
 * plain: clarity over speed. Per-row family terms: reference_family.ts (codes
 * 0–2), reference_ext.ts (3–8); vector kernels: reference_vector.ts.
 *
 * @module
 */

import type { CoreExports } from "./exports.ts";
import { _extRow, _numExtra, _setupExt } from "./reference_ext.ts";
import { _checkFamily, _familyRow } from "./reference_family.ts";
import { referenceVectorKernels } from "./reference_vector.ts";

/** Where the reference's "heap" starts: nothing static lives below it. */
const _REFERENCE_HEAP_BASE = 16;

/**
 * A position outside the likelihood's domain (τ = log σ or log φ, or
 * ω = log(ν − 1), outside (−700, 700)): the density there is zero, so a
 * search or a trajectory that reaches it treats it as log π = −∞ instead of
 * stopping.
 */
export class ParameterDomainError extends RangeError {}

/**
 * f(), with −∞ for a point outside the likelihood's domain (a
 * {@link ParameterDomainError}) or a NaN value: a line search then shortens
 * its step there instead of stopping.
 *
 * @param f The evaluation.
 * @returns Its value, or −∞.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { invalidArgumentError, valueOrMinusInfinity } from "./reference.ts";
 * assert.equal(valueOrMinusInfinity(() => { throw invalidArgumentError(4, -2528); }), -Infinity);
 * assert.equal(valueOrMinusInfinity(() => 1.5), 1.5);
 * ```
 */
export function valueOrMinusInfinity(f: () => number): number {
  try {
    const v = f();
    return Number.isNaN(v) ? -Infinity : v;
  } catch (e) {
    if (e instanceof ParameterDomainError) return -Infinity;
    throw e;
  }
}

/**
 * The error every backend throws for a bad argument code (the wasm builds call
 * the loader's `env.invalidArgument` import, which throws this).
 *
 * @param what 0 = family, 1 = Taylor order, 2 = Gaussian σ, 3 = Student-t ν,
 *   4 = scale parameter τ (log σ or log φ).
 * @param value The value received.
 * @returns A RangeError naming the value.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { invalidArgumentError } from "./reference.ts";
 * assert.equal(invalidArgumentError(1, 3).message, "order must be 0, 1 or 2, got 3");
 * ```
 */
export function invalidArgumentError(what: number, value: number): RangeError {
  if (what === 0) {
    return new RangeError(
      `family must be 0 (logistic), 1 (Gaussian) or 2 (Poisson), got ${value}`,
    );
  }
  if (what === 1) return new RangeError(`order must be 0, 1 or 2, got ${value}`);
  if (what === 3) {
    return new RangeError(`Student-t ν (famParam) must be positive and finite, got ${value}`);
  }
  if (what === 4) {
    return new ParameterDomainError(
      `the log-scale parameter τ = θ[d] (log σ or log φ) must be in (−700, 700), got ${value}`,
    );
  }
  if (what === 5) {
    return new ParameterDomainError(
      `the degrees-of-freedom parameter ω = θ[d + 1] (ν = 1 + e^ω) must be in (−700, 700), got ${value}`,
    );
  }
  return new RangeError(`Gaussian σ (famParam) must be positive and finite, got ${value}`);
}

/** Fresh views over the whole buffer (cheap; no copy). */
function _views(memory: WebAssembly.Memory): {
  f64: Float64Array;
  f32: Float32Array;
  i32: Int32Array;
} {
  const buf = memory.buffer;
  return { f64: new Float64Array(buf), f32: new Float32Array(buf), i32: new Int32Array(buf) };
}

/**
 * Build the reference {@link CoreExports} reading and writing `memory`.
 *
 * @param memory The linear memory holding all data (owned by an `Arena`).
 * @returns Kernels implemented with plain loops over typed arrays.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { createReferenceExports } from "./reference.ts";
 * const memory = new WebAssembly.Memory({ initial: 1 });
 * const core = createReferenceExports(memory);
 * new Float64Array(memory.buffer).set([1, 2, 3, 4], 2); // x at 16, y at 32
 * assert.equal(core.dot(2, 16, 32), 11); // 1·3 + 2·4
 * ```
 */
export function createReferenceExports(memory: WebAssembly.Memory): CoreExports {
  const fam = new Float64Array(3);

  /** η = xᵢᵀθ for row i of an f64 (w = 8) or f32 (w = 4) matrix. */
  function eta(
    v: ReturnType<typeof _views>,
    w: number,
    x: number,
    d: number,
    i: number,
    t: number,
  ) {
    let s = 0;
    if (w === 8) {
      const base = x / 8 + i * d;
      for (let j = 0; j < d; j++) s += v.f64[base + j] * v.f64[t + j];
    } else {
      const base = x / 4 + i * d;
      for (let j = 0; j < d; j++) s += v.f32[base + j] * v.f64[t + j];
    }
    return s;
  }
  function xij(
    v: ReturnType<typeof _views>,
    w: number,
    x: number,
    d: number,
    i: number,
    j: number,
  ) {
    return w === 8 ? v.f64[x / 8 + i * d + j] : v.f32[x / 4 + i * d + j];
  }

  /** Shared body of llRange / llIdx / their f32 variants. */
  function ll(
    w: number,
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    rows: (v: ReturnType<typeof _views>, k: number) => number,
    m: number,
    theta: number,
    grad: number,
    llOut: number,
    dOut: number,
    d2Out: number,
  ): number {
    _checkFamily(family, famParam);
    const v = _views(memory);
    const t = theta / 8, g = grad / 8;
    let sum = 0;
    for (let k = 0; k < m; k++) {
      const i = rows(v, k);
      const e = eta(v, w, x, d, i, t);
      _familyRow(family, famParam, e, v.f64[y / 8 + i], fam);
      sum += fam[0];
      if (grad !== 0) {
        for (let j = 0; j < d; j++) v.f64[g + j] += fam[1] * xij(v, w, x, d, i, j);
      }
      if (llOut !== 0) v.f64[llOut / 8 + k] = fam[0];
      if (dOut !== 0) v.f64[dOut / 8 + k] = fam[1];
      if (d2Out !== 0) v.f64[d2Out / 8 + k] = fam[2];
    }
    return sum;
  }

  function hess(
    w: number,
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    theta: number,
    hessPtr: number,
  ): void {
    _checkFamily(family, famParam);
    const v = _views(memory);
    const t = theta / 8, h = hessPtr / 8;
    for (let i = start; i < end; i++) {
      _familyRow(family, famParam, eta(v, w, x, d, i, t), v.f64[y / 8 + i], fam);
      const wi = fam[2];
      for (let j = 0; j < d; j++) {
        const a = wi * xij(v, w, x, d, i, j);
        for (let k = 0; k < d; k++) v.f64[h + j * d + k] += a * xij(v, w, x, d, i, k);
      }
    }
  }

  /** Shared body of cvPrepareRange and its f32 variant. */
  function cvPrepare(
    w: number,
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    thetaStar: number,
    cv: number,
  ): void {
    _checkFamily(family, famParam);
    const v = _views(memory);
    const t = thetaStar / 8, c = cv / 8;
    for (let i = start; i < end; i++) {
      const e = eta(v, w, x, d, i, t);
      _familyRow(family, famParam, e, v.f64[y / 8 + i], fam);
      const o = c + 4 * (i - start);
      v.f64[o] = e;
      v.f64[o + 1] = fam[0];
      v.f64[o + 2] = fam[1];
      v.f64[o + 3] = fam[2];
    }
  }

  /** Shared body of xtwRange and its f32 variant. */
  function xtw(
    width: number,
    x: number,
    d: number,
    start: number,
    end: number,
    w: number,
    out: number,
  ): void {
    const v = _views(memory);
    for (let i = start; i < end; i++) {
      const wi = v.f64[w / 8 + i - start];
      for (let j = 0; j < d; j++) v.f64[out / 8 + j] += wi * xij(v, width, x, d, i, j);
    }
  }

  const range = (start: number) => (_v: ReturnType<typeof _views>, k: number) => start + k;
  const listed = (idx: number) => (v: ReturnType<typeof _views>, k: number) => v.i32[idx / 4 + k];

  return {
    heapBase: () => _REFERENCE_HEAP_BASE,

    llRange: (family, famParam, x, y, d, start, end, theta, grad, llOut, dOut, d2Out) =>
      ll(
        8,
        family,
        famParam,
        x,
        y,
        d,
        range(start),
        end - start,
        theta,
        grad,
        llOut,
        dOut,
        d2Out,
      ),
    llIdx: (family, famParam, x, y, d, idx, m, theta, grad, llOut, dOut, d2Out) =>
      ll(8, family, famParam, x, y, d, listed(idx), m, theta, grad, llOut, dOut, d2Out),
    llRangeF32: (family, famParam, x, y, d, start, end, theta, grad, llOut, dOut, d2Out) =>
      ll(
        4,
        family,
        famParam,
        x,
        y,
        d,
        range(start),
        end - start,
        theta,
        grad,
        llOut,
        dOut,
        d2Out,
      ),
    llIdxF32: (family, famParam, x, y, d, idx, m, theta, grad, llOut, dOut, d2Out) =>
      ll(4, family, famParam, x, y, d, listed(idx), m, theta, grad, llOut, dOut, d2Out),

    // the combined pass's gradient with ℓ discarded: the same sums, so the same bits
    gradRange: (family, famParam, x, y, d, start, end, theta, grad) => {
      ll(8, family, famParam, x, y, d, range(start), end - start, theta, grad, 0, 0, 0);
    },
    gradRangeF32: (family, famParam, x, y, d, start, end, theta, grad) => {
      ll(4, family, famParam, x, y, d, range(start), end - start, theta, grad, 0, 0, 0);
    },

    hessRange: (family, famParam, x, y, d, start, end, theta, h) =>
      hess(8, family, famParam, x, y, d, start, end, theta, h),
    hessRangeF32: (family, famParam, x, y, d, start, end, theta, h) =>
      hess(4, family, famParam, x, y, d, start, end, theta, h),

    cvPrepareRange: (family, famParam, x, y, d, start, end, thetaStar, cv) =>
      cvPrepare(8, family, famParam, x, y, d, start, end, thetaStar, cv),
    cvPrepareRangeF32: (family, famParam, x, y, d, start, end, thetaStar, cv) =>
      cvPrepare(4, family, famParam, x, y, d, start, end, thetaStar, cv),

    cvDiffRange(family, famParam, x, y, cv, d, start, end, theta, order, diffOut, rOut) {
      _checkFamily(family, famParam);
      if (order !== 0 && order !== 1 && order !== 2) throw invalidArgumentError(1, order);
      const v = _views(memory);
      const t = theta / 8, c = cv / 8;
      let sum = 0;
      for (let i = start; i < end; i++) {
        const k = i - start;
        const e = eta(v, 8, x, d, i, t);
        _familyRow(family, famParam, e, v.f64[y / 8 + i], fam);
        const o = c + 4 * k;
        const etaStar = v.f64[o], llStar = v.f64[o + 1], a = v.f64[o + 2], b = v.f64[o + 3];
        const de = e - etaStar;
        let q = llStar, dq = 0;
        if (order >= 1) {
          q += a * de;
          dq = a;
        }
        if (order === 2) {
          q += 0.5 * b * de * de;
          dq += b * de;
        }
        const diff = fam[0] - q;
        sum += diff;
        if (diffOut !== 0) v.f64[diffOut / 8 + k] = diff;
        if (rOut !== 0) v.f64[rOut / 8 + k] = fam[1] - dq;
      }
      return sum;
    },

    llExt(family, famParam, x, y, aux, d, start, idx, m, theta, grad, derivs, f32) {
      const v = _views(memory), w = f32 !== 0 ? 4 : 8, t = theta / 8;
      const extra = _numExtra(family), S = extra === 2 ? 10 : 6;
      const k = _setupExt(
        family,
        famParam,
        extra >= 1 ? v.f64[t + d] : 0,
        extra === 2 ? v.f64[t + d + 1] : 0,
      );
      const offset = aux !== 0 && (family === 5 || family === 6);
      const out = new Float64Array(10);
      let sum = 0, sumTau = 0, sumOm = 0;
      for (let q = 0; q < m; q++) {
        const i = idx !== 0 ? v.i32[idx / 4 + q] : start + q;
        const a = aux !== 0 ? v.f64[aux / 8 + i] : 0;
        const e = eta(v, w, x, d, i, t) + (offset ? a : 0);
        _extRow(family, k, e, v.f64[y / 8 + i], a, out);
        sum += out[0];
        sumTau += out[3];
        sumOm += out[6];
        if (grad !== 0) {
          for (let j = 0; j < d; j++) v.f64[grad / 8 + j] += out[1] * xij(v, w, x, d, i, j);
        }
        if (derivs !== 0) v.f64.set(out.subarray(0, S), derivs / 8 + S * q);
      }
      if (grad !== 0 && extra >= 1) v.f64[grad / 8 + d] += sumTau;
      if (grad !== 0 && extra === 2) v.f64[grad / 8 + d + 1] += sumOm;
      return sum;
    },
    hessExt(family, famParam, x, y, aux, d, start, end, theta, hessPtr, cross, f32) {
      const v = _views(memory), w = f32 !== 0 ? 4 : 8, t = theta / 8, h = hessPtr / 8;
      const extra = _numExtra(family);
      const k = _setupExt(
        family,
        famParam,
        extra >= 1 ? v.f64[t + d] : 0,
        extra === 2 ? v.f64[t + d + 1] : 0,
      );
      const offset = aux !== 0 && (family === 5 || family === 6);
      const out = new Float64Array(10);
      const c2 = cross / 8 + d + 1;
      let sumTT = 0, sumTO = 0, sumOO = 0;
      for (let i = start; i < end; i++) {
        const a = aux !== 0 ? v.f64[aux / 8 + i] : 0;
        const e = eta(v, w, x, d, i, t) + (offset ? a : 0);
        _extRow(family, k, e, v.f64[y / 8 + i], a, out);
        for (let j = 0; j < d; j++) {
          const xj = xij(v, w, x, d, i, j);
          for (let l = 0; l < d; l++) v.f64[h + j * d + l] += out[2] * xj * xij(v, w, x, d, i, l);
          if (extra >= 1 && cross !== 0) v.f64[cross / 8 + j] += out[4] * xj;
          if (extra === 2 && cross !== 0) v.f64[c2 + j] += out[7] * xj;
        }
        sumTT += out[5];
        sumTO += out[8];
        sumOO += out[9];
      }
      if (extra >= 1 && cross !== 0 && end > start) v.f64[cross / 8 + d] += sumTT;
      if (extra === 2 && cross !== 0 && end > start) {
        v.f64[c2 + d] += sumTO;
        v.f64[c2 + d + 1] += sumOO;
      }
    },

    xtwRange: (x, d, start, end, w, out) => xtw(8, x, d, start, end, w, out),
    xtwRangeF32: (x, d, start, end, w, out) => xtw(4, x, d, start, end, w, out),

    gradMomentsRange(family, famParam, x, y, d, start, end, theta, grad, sq, outer) {
      _checkFamily(family, famParam);
      const v = _views(memory);
      const t = theta / 8;
      for (let i = start; i < end; i++) {
        _familyRow(family, famParam, eta(v, 8, x, d, i, t), v.f64[y / 8 + i], fam);
        const a = fam[1];
        for (let j = 0; j < d; j++) {
          const gj = a * v.f64[x / 8 + i * d + j];
          v.f64[grad / 8 + j] += gj;
          if (sq !== 0) v.f64[sq / 8 + j] += gj * gj;
          if (outer !== 0) {
            for (let k = 0; k < d; k++) {
              v.f64[outer / 8 + j * d + k] += gj * (a * v.f64[x / 8 + i * d + k]);
            }
          }
        }
      }
    },

    gatherF64(src, stride, idx, m, dst) {
      const v = _views(memory);
      for (let k = 0; k < m; k++) {
        const i = v.i32[idx / 4 + k];
        for (let j = 0; j < stride; j++) {
          v.f64[dst / 8 + k * stride + j] = v.f64[src / 8 + i * stride + j];
        }
      }
    },
    gatherF32(src, stride, idx, m, dst) {
      const v = _views(memory);
      for (let k = 0; k < m; k++) {
        const i = v.i32[idx / 4 + k];
        for (let j = 0; j < stride; j++) {
          v.f32[dst / 4 + k * stride + j] = v.f32[src / 4 + i * stride + j];
        }
      }
    },

    gatherF32AsF64(src, stride, idx, m, dst) {
      const v = _views(memory);
      for (let k = 0; k < m; k++) {
        const i = v.i32[idx / 4 + k];
        for (let j = 0; j < stride; j++) {
          v.f64[dst / 8 + k * stride + j] = v.f32[src / 4 + i * stride + j];
        }
      }
    },

    ...referenceVectorKernels(memory),

    llDiffIdx: (family, famParam, x, y, d, idx, m, theta, thetaP, diffOut) =>
      llDiff(8, family, famParam, x, y, d, idx, m, theta, thetaP, diffOut),
    llDiffIdxF32: (family, famParam, x, y, d, idx, m, theta, thetaP, diffOut) =>
      llDiff(4, family, famParam, x, y, d, idx, m, theta, thetaP, diffOut),
  };

  /** Shared body of llDiffIdx and its f32 variant: ℓ(xᵢᵀθ', yᵢ) − ℓ(xᵢᵀθ, yᵢ) per listed row. */
  function llDiff(
    w: number,
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    idx: number,
    m: number,
    theta: number,
    thetaP: number,
    diffOut: number,
  ): number {
    _checkFamily(family, famParam);
    const v = _views(memory);
    let sum = 0;
    for (let k = 0; k < m; k++) {
      const i = v.i32[idx / 4 + k], yi = v.f64[y / 8 + i];
      _familyRow(family, famParam, eta(v, w, x, d, i, thetaP / 8), yi, fam);
      const lP = fam[0];
      _familyRow(family, famParam, eta(v, w, x, d, i, theta / 8), yi, fam);
      const diff = lP - fam[0];
      sum += diff;
      if (diffOut !== 0) v.f64[diffOut / 8 + k] = diff;
    }
    return sum;
  }
}
