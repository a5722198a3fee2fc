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
  }

  #live(): void {
    if (this.#disposed) throw new RangeError("DenseMatVec has been disposed");
  }
}
