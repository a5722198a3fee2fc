/**
 * Fused per-row log-likelihood differences for the compact GLM families:
 *
 * ```
 *  lₖ = ℓ(xᵢᵀθ', yᵢ) − ℓ(xᵢᵀθ, yᵢ),   i = rows[k]      (one kernel pass, both θ)
 * ```
 *
 * The differences the approximate MH test of austerity MCMC consumes
 * (Korattikara et al. 2014, eq. 2). The kernel (core/as/diff_kernels.ts) reads
 * each row once for both dot products and keeps llIdx's operation order, so
 * every lₖ equals — bit for bit — the difference of two
 * {@link GlmKernels.logLikelihood} calls with `perRow`.
 *
 * @module
 */
import type { GlmKernels } from "./glm_kernels.ts";
import { FAMILY_GAUSSIAN, FAMILY_LOGISTIC, FAMILY_POISSON } from "./exports.ts";
import { pointerOf } from "./_handles.ts";
import type { StoredGlmData } from "./row_buffer.ts";
import { ScratchF64, ScratchI32 } from "./scratch.ts";

const _CODES: Readonly<Record<string, number>> = {
  logistic: FAMILY_LOGISTIC,
  gaussian: FAMILY_GAUSSIAN,
  poisson: FAMILY_POISSON,
};

/**
 * Per-row differences ℓᵢ(θ') − ℓᵢ(θ) of one compact-family {@link GlmKernels}
 * over one data set, with their own scratch (θ, θ', the row list, the output).
 *
 * @example
 * ```ts
 * import { loadCore } from "./load.ts";
 * import { GlmKernels } from "./glm_kernels.ts";
 * import { GlmRowDifferences } from "./glm_diff.ts";
 * const arena = loadCore({ backend: "reference" });
 * const x = arena.allocF64(4), y = arena.allocF64(2);
 * arena.writeF64(x, [1, 0.5, 1, -1]);
 * arena.writeF64(y, [1, 0]);
 * const data = { arena, x, y, numRows: 2, numCols: 2, storage: "f64" as const };
 * const k = new GlmKernels(arena, { family: "gaussian", dim: 2, sigma: 1 });
 * const diff = new GlmRowDifferences(k, data);
 * const out = new Float64Array(2);
 * diff.compute(new Float64Array([0, 0]), new Float64Array([1, 0]), new Int32Array([0, 1]), out);
 * // row 0: −½(1 − 1)² + ½·1² = 0.5; row 1: −½(0 − 1)² + ½·0² = −0.5
 * if (out[0] !== 0.5 || out[1] !== -0.5) throw new Error(`${out}`);
 * diff.dispose();
 * k.dispose();
 * ```
 */
export class GlmRowDifferences {
  /** The kernels whose family (and σ) the differences use. */
  readonly kernels: GlmKernels;
  /** The data set the rows index. */
  readonly data: StoredGlmData;
  readonly #code: number;
  readonly #theta: ScratchF64;
  readonly #out: ScratchF64;
  readonly #idx: ScratchI32;

  /**
   * Bind to the kernels of a compact family ("logistic", "gaussian", "poisson")
   * and a data set in the same arena with `kernels.dim` columns.
   *
   * @param kernels The family's kernels.
   * @param data The full data set.
   * @throws {TypeError} For an extended family.
   * @throws {RangeError} If the data live elsewhere or have another width.
   */
  constructor(kernels: GlmKernels, data: StoredGlmData) {
    const code = Object.hasOwn(_CODES, kernels.family) ? _CODES[kernels.family] : undefined;
    if (code === undefined || !kernels.hasCompactCache) {
      throw new TypeError(
        `fused row differences need a compact family (logistic, gaussian, poisson), got ${kernels.family}`,
      );
    }
    if (data.arena !== kernels.arena) throw new RangeError("the rows live in a different arena");
    if (data.numCols !== kernels.dim) {
      throw new RangeError(`the rows have ${data.numCols} columns, θ has ${kernels.dim}`);
    }
    this.kernels = kernels;
    this.data = data;
    this.#code = code;
    this.#theta = new ScratchF64(kernels.arena, 2 * kernels.dim);
    this.#out = new ScratchF64(kernels.arena);
    this.#idx = new ScratchI32(kernels.arena);
  }

  /**
   * out[k] = ℓ(x_{rows[k]}ᵀθ', y) − ℓ(x_{rows[k]}ᵀθ, y) for k < rows.length.
   * Counts nothing (callers keep their own cost counters).
   *
   * @param thetaCurrent θ (length d).
   * @param thetaProposed θ' (length d).
   * @param rows Data-row indices (may repeat).
   * @param out At least rows.length values.
   * @returns Σₖ lₖ.
   */
  compute(
    thetaCurrent: Float64Array,
    thetaProposed: Float64Array,
    rows: Int32Array,
    out: Float64Array,
  ): number {
    const d = this.kernels.dim, m = rows.length, n = this.data.numRows;
    for (const [name, t] of [["thetaCurrent", thetaCurrent], ["thetaProposed", thetaProposed]]) {
      if (!(t instanceof Float64Array) || t.length !== d) {
        throw new RangeError(`${name} must be a Float64Array of length ${d}`);
      }
    }
    if (out.length < m) throw new RangeError(`out must hold ${m} values, got ${out.length}`);
    for (let k = 0; k < m; k++) {
      const r = rows[k];
      if (!(r >= 0 && r < n)) {
        throw new RangeError(`row index ${r} at position ${k} is outside [0, ${n - 1}]`);
      }
    }
    this.#idx.ensure(Math.max(1, m));
    this.#out.ensure(Math.max(1, m));
    this.#idx.view(0, m).set(rows);
    const th = this.#theta.view(0, 2 * d);
    th.set(thetaCurrent);
    th.set(thetaProposed, d);
    const t = pointerOf(this.#theta), core = this.kernels.arena.exports, data = this.data;
    const fn = data.storage === "f32" ? core.llDiffIdxF32 : core.llDiffIdx;
    const sum = fn(
      this.#code,
      this.kernels.familyParam,
      data.x,
      data.y,
      d,
      pointerOf(this.#idx),
      m,
      t,
      t + 8 * d,
      pointerOf(this.#out),
    );
    out.set(this.#out.view(0, m));
    return sum;
  }

  /** Release the scratch (the kernels and data stay). */
  dispose(): void {
    this.#theta.dispose();
    this.#out.dispose();
    this.#idx.dispose();
  }
}
