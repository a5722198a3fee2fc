/**
 * Dense matrix–vector products in the compute core, behind a typed handle.
 *
 * ```
 *  DenseMatVec ─► ScratchF64 A (d×d row-major)   setMatrix: copy in, O(d²)
 *              ─► ScratchF64 x, y (length d)     apply: v → x, matvec(A, x) → y, y → out
 * ```
 *
 * The kernel sums each row with two-lane SIMD accumulators, so results
 * differ from a TypeScript loop in summation order (agreement to about
 * 1e-15·‖A‖‖v‖ per entry, not bit for bit). Views are re-derived on every
 * call, so growth of the arena's memory between calls is harmless.
 *
 * The matrix can also be updated in place by a dense BFGS pair
 * ({@link DenseMatVec.bfgsUpdate}, core/as/dense.ts: the operations of
 * samplers/qnhmc/bfgs.ts's TypeScript update in its order, so the same
 * matrix bit for bit) and read back ({@link DenseMatVec.getMatrix}), so an
 * inverse-Hessian approximation is updated where its products run.
 *
 * @module
 */
import type { Arena } from "./arena.ts";
import { ScratchF64 } from "./scratch.ts";
import { pointerOf } from "./_handles.ts";

/**
 * out = A·v for one fixed d×d matrix A held in an {@link Arena}.
 *
 * @example
 * ```ts
 * import { loadCore } from "./load.ts";
 * import { DenseMatVec } from "./dense_ops.ts";
 * const op = new DenseMatVec(loadCore(), 2);
 * op.setMatrix(new Float64Array([1, 2, 3, 4]));
 * const out = op.apply(new Float64Array([1, 1]), new Float64Array(2));
 * if (out[0] !== 3 || out[1] !== 7) throw new Error();
 * op.dispose();
 * ```
 */
export class DenseMatVec {
  /** The arena the matrix and vectors live in. */
  readonly arena: Arena;
  /** Dimension d. */
  readonly dim: number;
  readonly #a: ScratchF64;
  readonly #x: ScratchF64;
  readonly #y: ScratchF64;
  /** The pairs, ρ and h of {@link DenseMatVec.bfgsUpdate} (allocated at its first call). */
  readonly #pair: ScratchF64;
  #disposed = false;

  /**
   * Allocate scratch for a d×d matrix (zeroed) and two vectors.
   *
   * @param arena The arena to allocate in.
   * @param dim Dimension d (positive integer).
   * @throws {RangeError} On a bad d.
   */
  constructor(arena: Arena, dim: number) {
    if (!Number.isInteger(dim) || dim < 1) {
      throw new RangeError(`dim must be a positive integer, got ${dim}`);
    }
    this.arena = arena;
    this.dim = dim;
    this.#a = new ScratchF64(arena, dim * dim);
    this.#x = new ScratchF64(arena, dim);
    this.#y = new ScratchF64(arena, dim);
    this.#pair = new ScratchF64(arena, 0);
  }

  /**
   * Whether {@link DenseMatVec.bfgsUpdate} runs in this arena's build (the
   * WebAssembly builds have it, the reference backend does not).
   */
  get hasBfgsUpdate(): boolean {
    return this.arena.exports.bfgsUpdate !== undefined;
  }

  /**
   * Fold curvature pairs into the matrix in place, oldest first: for each,
   * with h = A y and ρ = 1/sᵀy, A ← A − ρ(s hᵀ + h sᵀ) + (ρ² yᵀh + ρ) s sᵀ
   * (Nocedal & Wright 2006, eq. 6.17, for a symmetric A). The caller checks
   * the curvature condition; A must be symmetric (it stays so exactly).
   *
   * @param pairs The pairs (s, y of length d each) with sy = sᵀy as the caller computed it.
   * @returns Nothing.
   * @throws {RangeError} On wrong lengths, without the kernel ({@link DenseMatVec.hasBfgsUpdate}),
   *   or after {@link DenseMatVec.dispose}.
   */
  bfgsUpdate(
    pairs: readonly { readonly s: Float64Array; readonly y: Float64Array; readonly sy: number }[],
  ): void {
    this.#live();
    const d = this.dim, kernel = this.arena.exports.bfgsUpdate, count = pairs.length;
    if (kernel === undefined) {
      throw new RangeError(`the ${this.arena.backend} backend has no BFGS update kernel`);
    }
    for (const [k, p] of pairs.entries()) {
      if (p.s.length !== d || p.y.length !== d) {
        throw new RangeError(
          `pair ${k} must have s and y of length ${d}, got ${p.s.length} and ${p.y.length}`,
        );
      }
    }
    if (count === 0) return;
    // Layout: the pairs (2d each), then ρ (count), then h (2d).
    const need = 2 * d * count + count + 2 * d;
    this.#pair.ensure(need);
    const v = this.#pair.view(0, need);
    for (let k = 0; k < count; k++) {
      v.set(pairs[k].s, 2 * d * k);
      v.set(pairs[k].y, 2 * d * k + d);
      v[2 * d * count + k] = 1 / pairs[k].sy;
    }
    const p = pointerOf(this.#pair);
    kernel(d, pointerOf(this.#a), p, p + 16 * d * count, count, p + 8 * (2 * d * count + count));
  }

  /**
   * Copy the matrix out; O(d²).
   *
   * @param out Receives A (length d²; default a new array).
   * @returns `out`.
   * @throws {RangeError} On a wrong length or after {@link DenseMatVec.dispose}.
   */
  getMatrix(out: Float64Array = new Float64Array(this.dim * this.dim)): Float64Array {
    this.#live();
    const d = this.dim;
    if (out.length !== d * d) {
      throw new RangeError(`out must have length ${d * d}, got ${out.length}`);
    }
    out.set(this.#a.view(0, d * d));
    return out;
  }

  /**
   * Copy A (d×d row-major) into the arena; O(d²).
   *
   * @param a The matrix (length d²).
   * @returns Nothing.
   * @throws {RangeError} On a wrong length or after {@link DenseMatVec.dispose}.
   */
  setMatrix(a: Float64Array): void {
    this.#live();
    const d = this.dim;
    if (a.length !== d * d) {
      throw new RangeError(`matrix must have length ${d * d}, got ${a.length}`);
    }
    this.#a.view(0, d * d).set(a);
  }

  /**
   * out = A·v with the matrix last set (zero before the first {@link DenseMatVec.setMatrix}).
   *
   * @param v A vector (length d).
   * @param out Output (length d; may alias `v`).
   * @returns `out`.
   * @throws {RangeError} On wrong lengths or after {@link DenseMatVec.dispose}.
   */
  apply(v: Float64Array, out: Float64Array): Float64Array {
    this.#live();
    const d = this.dim;
    if (v.length !== d || out.length !== d) {
      throw new RangeError(`v and out must have length ${d}, got ${v.length} and ${out.length}`);
    }
    this.#x.view(0, d).set(v);
    this.arena.exports.matvec(d, d, pointerOf(this.#a), pointerOf(this.#x), pointerOf(this.#y));
    out.set(this.#y.view(0, d));
    return out;
  }

  /**
   * Free the scratch; further calls throw. Idempotent.
   *
   * @returns Nothing.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#a.dispose();
    this.#x.dispose();
    this.#y.dispose();
    this.#pair.dispose();
  }

  #live(): void {
    if (this.#disposed) throw new RangeError("DenseMatVec has been disposed");
  }
}
