/**
 * The conditioning of a posterior as an unpreconditioned sampler sees it:
 * the eigenvalues of the per-row Fisher information and, for every SG method,
 * ε·λ_max and ε·λ_min — SGLD is stable only for ε·λ_max < 2–4 and mixes in
 * the slowest direction in ≈ 1/(ε·λ_min) iterations.
 *
 * @module
 */

/**
 * Eigenvalues of a symmetric matrix by cyclic Jacobi rotations.
 *
 * @param a Row-major k × k symmetric matrix (not modified).
 * @returns The eigenvalues, ascending.
 * @throws RangeError when `a` is not square.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { symmetricEigenvalues } from "./conditioning.ts";
 * const e = symmetricEigenvalues(Float64Array.from([2, 1, 1, 2]));
 * assert.ok(Math.abs(e[0] - 1) < 1e-12 && Math.abs(e[1] - 3) < 1e-12);
 * ```
 */
export function symmetricEigenvalues(a: Float64Array): Float64Array {
  return symmetricEigen(a).values.sort();
}

/**
 * Eigenvalues and eigenvectors of a symmetric k × k matrix by cyclic Jacobi
 * rotations (k is small here: d ≤ 30): A = V diag(λ) Vᵀ.
 *
 * @param a The matrix, row-major (not modified).
 * @returns `values` λ (in the order of V's columns, not sorted) and `vectors` V (row-major, columns are eigenvectors).
 * @throws {RangeError} When `a` is not square.
 */
export function symmetricEigen(a: Float64Array): { values: Float64Array; vectors: Float64Array } {
  const k = Math.round(Math.sqrt(a.length));
  if (k * k !== a.length) throw new RangeError(`need a square matrix, got ${a.length} entries`);
  const m = Float64Array.from(a), v = new Float64Array(k * k);
  for (let i = 0; i < k; i++) v[i * k + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) off += m[i * k + j] ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < k; p++) {
      for (let q = p + 1; q < k; q++) {
        const apq = m[p * k + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (m[q * k + q] - m[p * k + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1), s = t * c;
        for (let r = 0; r < k; r++) {
          const arp = m[r * k + p], arq = m[r * k + q];
          m[r * k + p] = c * arp - s * arq;
          m[r * k + q] = s * arp + c * arq;
        }
        for (let r = 0; r < k; r++) {
          const apr = m[p * k + r], aqr = m[q * k + r];
          m[p * k + r] = c * apr - s * aqr;
          m[q * k + r] = s * apr + c * aqr;
        }
        for (let r = 0; r < k; r++) {
          const vrp = v[r * k + p], vrq = v[r * k + q];
          v[r * k + p] = c * vrp - s * vrq;
          v[r * k + q] = s * vrp + c * vrq;
        }
      }
    }
  }
  return { values: Float64Array.from({ length: k }, (_, i) => m[i * k + i]), vectors: v };
}

/** The conditioning of −∇²log π(θ*) and of the per-row information. */
export interface Conditioning {
  /** Rows n. */
  readonly numRows: number;
  /** Largest eigenvalue of −∇²log π(θ*). */
  readonly lambdaMax: number;
  /** Smallest eigenvalue of −∇²log π(θ*). */
  readonly lambdaMin: number;
  /** Largest eigenvalue of the per-row information (−∇²log L(θ*) / n). */
  readonly perRowMax: number;
  /** Smallest eigenvalue of the per-row information. */
  readonly perRowMin: number;
  /** perRowMax / perRowMin. */
  readonly conditionNumber: number;
}

/**
 * Conditioning from the log-likelihood Hessian and the prior's.
 *
 * @param logLikHessian ∇²log L(θ*) (row-major d × d; negative definite).
 * @param logPriorHessian ∇²log p(θ*).
 * @param numRows n.
 * @returns Eigenvalue summary.
 */
export function conditioning(
  logLikHessian: Float64Array,
  logPriorHessian: Float64Array,
  numRows: number,
): Conditioning {
  const post = symmetricEigenvalues(logLikHessian.map((v, i) => -v - logPriorHessian[i]));
  const row = symmetricEigenvalues(logLikHessian.map((v) => -v / numRows));
  const perRowMax = row[row.length - 1], perRowMin = row[0];
  return {
    numRows,
    lambdaMax: post[post.length - 1],
    lambdaMin: post[0],
    perRowMax,
    perRowMin,
    conditionNumber: perRowMax / perRowMin,
  };
}
