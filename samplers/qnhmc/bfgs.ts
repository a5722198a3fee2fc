/**
 * Dense BFGS approximation of the inverse Hessian (QNHMC for small d).
 *
 * Memory layout: C is one d×d row-major Float64Array, kept exactly
 * symmetric (each update computes the upper triangle and mirrors it).
 * C·v costs d² multiply-adds; folding in one pair costs 2d².
 *
 * Products C·v run in the WASM core for d ≥ {@link WASM_PRODUCT_MIN_DIM}
 * (`product: "auto"`): C is copied into arena scratch (a
 * {@link DenseMatVec}) the first time a new approximation multiplies, i.e.
 * once per accepted update, O(d²) like the update itself, and every
 * leapfrog product then costs one `matvec`. The kernel sums in another order
 * than the TypeScript loop, so the two agree to ~1e-15 relative, not bit for
 * bit; `product: "typescript"` keeps the TypeScript loop (with C = I a QNHMC
 * step then equals `hmc.step` draw for draw). All approximations derived
 * from one {@link denseBfgs} call share one scratch block; `dispose()` on any
 * of them frees it, after which products fall back to TypeScript.
 *
 * With the core's product the update runs there too (`DenseMatVec.bfgsUpdate`,
 * core/as/dense.ts): C is updated in place where the products read it, one
 * pass over C per pair, and copied out once per update. The kernel does the
 * TypeScript update's operations in its order (no fused multiply-add), so C
 * is the same bit for bit whichever runs it.
 *
 * An update computes, with h = C y and ρ = 1/sᵀy,
 * C⁺ = C − ρ (s hᵀ + h sᵀ) + (ρ² yᵀh + ρ) s sᵀ,
 * which is eq. (1) expanded for a symmetric C.
 *
 * References: Fu, Luo & Zhang (2016), eq. (1), §3.5; Nocedal & Wright
 * (2006), eq. (6.17).
 *
 * @module
 */
import type { Arena } from "../../core/arena.ts";
import { DenseMatVec } from "../../core/dense_ops.ts";
import { loadCore } from "../../core/load.ts";
import {
  _checkCommon,
  _checkPairs,
  curvature,
  type CurvatureOptions,
  type CurvaturePair,
  type InverseHessian,
  type InverseHessianUpdate,
} from "./inverse_hessian.ts";

/** Options of {@link denseBfgs}. */
export interface DenseBfgsOptions extends CurvatureOptions {
  /** C₀: γ > 0 for γI (the default, γ = 1, is Algorithm 2's B = I), or a d×d SPD matrix (copied). */
  initial?: number | Float64Array;
  /**
   * Replace C₀ by (sᵀy / yᵀy) I of the first accepted pair just before the
   * first update (Nocedal & Wright eq. 6.20; default false, Algorithm 2 keeps
   * C₀). Puts C on the target's scale in every direction at once, instead of
   * only in the directions the trajectories have probed.
   */
  scaleBeforeFirstUpdate?: boolean;
  /**
   * Where C·v is computed: `"auto"` (default) in the WASM core for
   * d ≥ {@link WASM_PRODUCT_MIN_DIM}, else TypeScript; `"wasm"` always in the
   * core; `"typescript"` never (bit-for-bit reproducible against a plain
   * TypeScript loop).
   */
  product?: "auto" | "wasm" | "typescript";
  /**
   * The arena for the WASM product's scratch, or a function returning it
   * (called at the first product). Default: a new {@link loadCore} arena.
   */
  arena?: Arena | (() => Arena);
}

/**
 * Smallest d for which `product: "auto"` computes C·v in the WASM core.
 * Measured with `deno bench` (relaxed-simd, Deno 2.9, one C·v with a full
 * C; bench/qnhmc_bench.ts "product" groups for d = 100, 784): the TypeScript
 * loop is 1.6× faster at d = 16 (copying v in and C·v out dominates), the
 * core 1.8× faster at d = 24, 2.2× at 32, 3.7× at 64, 3.3× at 100 and
 * 5.7× at 784. 32 keeps a 2× margin over the crossover (16 < d < 24).
 */
export const WASM_PRODUCT_MIN_DIM = 32;

/** The WASM scratch shared by all approximations of one {@link denseBfgs} call. */
interface _Product {
  /** undefined: not created yet; null: TypeScript (chosen, or disposed). */
  op: DenseMatVec | null | undefined;
  /** The matrix currently in the scratch. */
  loaded: Float64Array | null;
  arena: Arena | (() => Arena) | undefined;
}

/**
 * A dense BFGS inverse-Hessian approximation, starting at C₀ = γI or a given matrix.
 *
 * @param dim Dimension d.
 * @param options C₀ and the curvature tolerance.
 * @returns The approximation.
 * @throws {RangeError} On a bad d, γ, tolerance or matrix size.
 *
 * @example
 * ```ts
 * import { denseBfgs } from "./bfgs.ts";
 * // One pair on the quadratic U = θ²/2·4: y = 4s, so the secant equation C y = s holds after it.
 * const c = denseBfgs(1).update([{ s: new Float64Array([1]), y: new Float64Array([4]) }]).approximation;
 * const out = c.multiply(new Float64Array([4]), new Float64Array(1));
 * if (Math.abs(out[0] - 1) > 1e-15) throw new Error();
 * ```
 *
 * References: Fu, Luo & Zhang (2016), eq. (1); Nocedal & Wright (2006), eq. (6.17).
 */
export function denseBfgs(dim: number, options: DenseBfgsOptions = {}): InverseHessian {
  const tol = _checkCommon(dim, options);
  const initial = options.initial ?? 1;
  let h: Float64Array;
  if (typeof initial === "number") {
    if (!(initial > 0) || !Number.isFinite(initial)) {
      throw new RangeError(`initial scale must be positive and finite, got ${initial}`);
    }
    h = new Float64Array(dim * dim);
    for (let i = 0; i < dim; i++) h[i * dim + i] = initial;
  } else {
    if (initial.length !== dim * dim) {
      throw new RangeError(`initial matrix must have length ${dim * dim}, got ${initial.length}`);
    }
    h = Float64Array.from(initial);
  }
  const product = options.product ?? "auto";
  if (product !== "auto" && product !== "wasm" && product !== "typescript") {
    throw new RangeError(
      `product must be "auto", "wasm" or "typescript", got ${JSON.stringify(product)}`,
    );
  }
  const useWasm = product === "wasm" || (product === "auto" && dim >= WASM_PRODUCT_MIN_DIM);
  return _dense(dim, h, 0, {
    tol,
    scaleFirst: options.scaleBeforeFirstUpdate ?? false,
    product: { op: useWasm ? undefined : null, loaded: null, arena: options.arena },
  });
}

function _multiply(
  p: _Product,
  h: Float64Array,
  dim: number,
  v: Float64Array,
  out: Float64Array,
): Float64Array {
  if (p.op === null) return _matVec(h, dim, v, out);
  if (p.op === undefined) {
    const arena = typeof p.arena === "function" ? p.arena() : p.arena ?? loadCore();
    p.op = new DenseMatVec(arena, dim);
  }
  if (p.loaded !== h) {
    p.op.setMatrix(h);
    p.loaded = h;
  }
  return p.op.apply(v, out);
}

function _dense(
  dim: number,
  h: Float64Array,
  numPairs: number,
  config: { tol: number; scaleFirst: boolean; product: _Product },
): InverseHessian {
  const tol = config.tol;
  const self: InverseHessian = {
    kind: "bfgs",
    dim,
    numPairs,
    multiply: (v: Float64Array, out: Float64Array): Float64Array =>
      _multiply(config.product, h, dim, v, out),
    update(pairs: readonly CurvaturePair[]): InverseHessianUpdate {
      _checkPairs(pairs, dim);
      const op = _coreOp(config.product, dim);
      if (op !== null) return _updateInCore(op, pairs);
      const next = Float64Array.from(h);
      const hy = new Float64Array(dim);
      let used = 0;
      for (const pair of pairs) {
        const sy = curvature(pair, tol);
        if (Number.isNaN(sy)) continue;
        if (config.scaleFirst && numPairs + used === 0) {
          let yy = 0;
          for (let i = 0; i < dim; i++) yy += pair.y[i] * pair.y[i];
          next.fill(0);
          for (let i = 0; i < dim; i++) next[i * dim + i] = sy / yy;
        }
        _bfgsInPlace(next, dim, pair.s, pair.y, sy, hy);
        used++;
      }
      return {
        approximation: used === 0 ? self : _dense(dim, next, numPairs + used, config),
        numSkipped: pairs.length - used,
      };
    },
    toDense: () => Float64Array.from(h),
    dispose(): void {
      const p = config.product;
      p.op?.dispose();
      p.op = null;
      p.loaded = null;
    },
  };
  /**
   * The update where the products run: C copied in unless it is already
   * there, each pair folded in place by the core's kernel (the TypeScript
   * update's operations in its order, so the same C⁺ bit for bit), C⁺ copied
   * out once.
   */
  const _updateInCore = (
    op: DenseMatVec,
    pairs: readonly CurvaturePair[],
  ): InverseHessianUpdate => {
    const used: { s: Float64Array; y: Float64Array; sy: number }[] = [];
    for (const pair of pairs) {
      const sy = curvature(pair, tol);
      if (!Number.isNaN(sy)) used.push({ s: pair.s, y: pair.y, sy });
    }
    if (used.length === 0) return { approximation: self, numSkipped: pairs.length };
    const p = config.product;
    if (config.scaleFirst && numPairs === 0) {
      const { y, sy } = used[0];
      let yy = 0;
      for (let i = 0; i < dim; i++) yy += y[i] * y[i];
      const scaled = new Float64Array(dim * dim);
      for (let i = 0; i < dim; i++) scaled[i * dim + i] = sy / yy;
      op.setMatrix(scaled);
    } else if (p.loaded !== h) {
      op.setMatrix(h);
    }
    // The matrix in the core is no longer h: mark it before the kernel runs.
    p.loaded = null;
    op.bfgsUpdate(used);
    const next = op.getMatrix();
    p.loaded = next;
    return {
      approximation: _dense(dim, next, numPairs + used.length, config),
      numSkipped: pairs.length - used.length,
    };
  };
  return self;
}

/**
 * The core's product (created on first use) when it also has the BFGS
 * update kernel, else null: the TypeScript update then runs.
 */
function _coreOp(p: _Product, dim: number): DenseMatVec | null {
  if (p.op === null) return null;
  if (p.op === undefined) {
    const arena = typeof p.arena === "function" ? p.arena() : p.arena ?? loadCore();
    p.op = new DenseMatVec(arena, dim);
  }
  return p.op.hasBfgsUpdate ? p.op : null;
}

/**
 * out = A v for a d×d row-major A, four accumulators per row (about twice
 * as fast as one in V8 at d = 100).
 */
function _matVec(a: Float64Array, dim: number, v: Float64Array, out: Float64Array): Float64Array {
  const d4 = dim - (dim % 4);
  for (let i = 0; i < dim; i++) {
    const row = i * dim;
    let a0 = 0, a1 = 0, a2 = 0, a3 = 0, j = 0;
    for (; j < d4; j += 4) {
      a0 += a[row + j] * v[j];
      a1 += a[row + j + 1] * v[j + 1];
      a2 += a[row + j + 2] * v[j + 2];
      a3 += a[row + j + 3] * v[j + 3];
    }
    for (; j < dim; j++) a0 += a[row + j] * v[j];
    out[i] = (a0 + a1) + (a2 + a3);
  }
  return out;
}

/**
 * C ← C − ρ(s hᵀ + h sᵀ) + (ρ² yᵀh + ρ) s sᵀ with h = C y. Entry (i, j) and
 * (j, i) are computed from the same products in commuted order, so an
 * exactly symmetric C stays exactly symmetric.
 */
function _bfgsInPlace(
  c: Float64Array,
  dim: number,
  s: Float64Array,
  y: Float64Array,
  sy: number,
  hy: Float64Array,
): void {
  const rho = 1 / sy;
  _matVec(c, dim, y, hy);
  let yhy = 0;
  for (let i = 0; i < dim; i++) yhy += y[i] * hy[i];
  const coef = rho * rho * yhy + rho;
  for (let i = 0; i < dim; i++) {
    const row = i * dim, si = s[i], hi = hy[i];
    for (let j = 0; j < dim; j++) {
      c[row + j] += coef * (si * s[j]) - rho * (si * hy[j] + hi * s[j]);
    }
  }
}
