/**
 * The inverse-Hessian approximation C that preconditions quasi-Newton HMC,
 * and the curvature pairs it is built from.
 *
 * ```
 *  pair k      s_k = θ_{k+1} − θ_k,   y_k = ∇U(θ_{k+1}) − ∇U(θ_k)   (U = −log π)
 *  accepted    only if s_kᵀy_k > tol · ‖s_k‖ ‖y_k‖   (curvature condition; else skipped)
 *  BFGS (1)    C⁺ = (I − ρ s yᵀ) C (I − ρ y sᵀ) + ρ s sᵀ,   ρ = 1 / sᵀy
 * ```
 *
 * An approximation is a value: {@link InverseHessian.update} returns a new
 * one and leaves the old one as it was, so a chain state holding C can be
 * kept (and C restored after a rejected proposal, Algorithm 2 line 22)
 * without copies by the caller. With the curvature condition enforced every
 * update keeps C symmetric positive definite (Nocedal & Wright 2006, §6.1).
 *
 * References: Fu, Luo & Zhang (2016), "Quasi-Newton Hamiltonian Monte
 * Carlo", eq. (1) and §2.1; Nocedal & Wright (2006), "Numerical
 * Optimization", eq. (6.17), (6.7) and Algorithm 7.4.
 *
 * @module
 */
import { nonNegativeFinite, positiveInteger } from "../validate_options.ts";

/** One curvature pair (s, y) with y the change of ∇U = −∇ log π along s. */
export interface CurvaturePair {
  /** s = θ_{k+1} − θ_k (length d). */
  readonly s: Float64Array;
  /** y = ∇U(θ_{k+1}) − ∇U(θ_k) (length d). */
  readonly y: Float64Array;
}

/** What an update did. */
export interface InverseHessianUpdate {
  /** The approximation with the accepted pairs folded in (the old one is unchanged). */
  readonly approximation: InverseHessian;
  /** Pairs skipped for failing the curvature condition (or being non-finite). */
  readonly numSkipped: number;
}

/** A symmetric positive-definite approximation C of the inverse Hessian of U. */
export interface InverseHessian {
  /** `"bfgs"` (dense d×d, O(d²) products) or `"lbfgs"` (m pairs, O(md) products). */
  readonly kind: "bfgs" | "lbfgs";
  /** Dimension d. */
  readonly dim: number;
  /** Pairs folded in so far (for L-BFGS: pairs currently held, at most m). */
  readonly numPairs: number;
  /**
   * Write C·v into `out`.
   *
   * @param v A vector (length d).
   * @param out Output (length d; must not alias `v`).
   * @returns `out`.
   */
  multiply(v: Float64Array, out: Float64Array): Float64Array;
  /**
   * A new approximation with `pairs` folded in, oldest first; pairs failing
   * the curvature condition are skipped.
   *
   * @param pairs Curvature pairs.
   * @returns The new approximation and the number of pairs skipped.
   */
  update(pairs: readonly CurvaturePair[]): InverseHessianUpdate;
  /** C as a dense d×d row-major matrix (a copy; O(d²) memory). */
  toDense(): Float64Array;
  /**
   * Free WASM scratch shared by this approximation and those derived from it
   * (dense BFGS with the core product; a no-op otherwise). Products still
   * work afterwards, in TypeScript.
   */
  dispose(): void;
}

/** Options shared by both approximations. */
export interface CurvatureOptions {
  /**
   * A pair is used only if sᵀy > tol · ‖s‖‖y‖ (default 1e-8). Zero gives
   * the bare condition sᵀy > 0; a small positive value also skips pairs so
   * close to orthogonal that ρ = 1/sᵀy would swamp C with round-off.
   */
  curvatureTolerance?: number;
}

/**
 * sᵀy if the pair satisfies the curvature condition (and is finite), else NaN.
 *
 * @param pair The pair.
 * @param tolerance The relative tolerance (≥ 0).
 * @returns sᵀy > 0, or NaN for a pair to skip.
 *
 * @example
 * ```ts
 * import { curvature } from "./inverse_hessian.ts";
 * const s = new Float64Array([1, 0]);
 * if (curvature({ s, y: new Float64Array([2, 0]) }, 0) !== 2) throw new Error();
 * if (!Number.isNaN(curvature({ s, y: new Float64Array([-1, 0]) }, 0))) throw new Error();
 * ```
 *
 * References: Nocedal & Wright (2006), eq. (6.7) (curvature condition).
 */
export function curvature(pair: CurvaturePair, tolerance: number): number {
  const { s, y } = pair;
  let sy = 0, ss = 0, yy = 0;
  for (let i = 0; i < s.length; i++) {
    sy += s[i] * y[i];
    ss += s[i] * s[i];
    yy += y[i] * y[i];
  }
  if (!Number.isFinite(sy) || !Number.isFinite(ss) || !Number.isFinite(yy)) return NaN;
  return sy > 0 && sy > tolerance * Math.sqrt(ss * yy) ? sy : NaN;
}

/** Validate `curvatureTolerance` and `dim`; returns the tolerance. */
export function _checkCommon(dim: number, options: CurvatureOptions): number {
  positiveInteger("dim", dim);
  const tol = options.curvatureTolerance ?? 1e-8;
  nonNegativeFinite("curvatureTolerance", tol);
  return tol;
}

/** Check that every pair has length `dim`. */
export function _checkPairs(pairs: readonly CurvaturePair[], dim: number): void {
  for (const [k, p] of pairs.entries()) {
    if (p.s.length !== dim || p.y.length !== dim) {
      throw new RangeError(
        `pair ${k} must have s and y of length ${dim}, got ${p.s.length} and ${p.y.length}`,
      );
    }
  }
}
