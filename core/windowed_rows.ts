/**
 * GLM rows stored as column constants plus short windows of deviations, for
 * designs whose cells mostly repeat a per-column value (a spline or one-hot
 * expansion, centred or not): full-data ℓ and ∇ℓ passes that read only the
 * windows.
 *
 * ```
 *  row i of X = c + δᵢ          c: one constant per column (its most frequent value)
 *  δᵢ ─► windows of 4 columns   ptr (n + 1 i32), col (u16 per window), dev (4 f64 per window)
 *  ηᵢ = cᵀθ + Σ_w dev_w · θ[s_w … s_w + 3]
 *  ∇  = (Σᵢ ℓ'(ηᵢ))·c + Σᵢ ℓ'(ηᵢ) δᵢ
 * ```
 *
 * A window starts at the row's first deviating column not yet held (moved
 * left to fit when it is within 3 of the end) and holds four consecutive
 * columns; δᵢ = xᵢ − c is exact in f64 for every cell (checked), so the model
 * is the stored rows' model. The sums are regrouped (cᵀθ apart, windows in
 * their order), so ℓ and ∇ agree with {@link GlmKernels} over the dense rows
 * to rounding (≈ 1e-15 relative), not bit for bit. Kernel:
 * core/as/windowed_rows.ts. docs/r4_sparse_rows.md has the measurements.
 *
 * @module
 */
import type { Arena } from "./arena.ts";
import { FAMILY_GAUSSIAN, FAMILY_LOGISTIC, FAMILY_POISSON } from "./exports.ts";
import { pointerOf } from "./_handles.ts";
import { ScratchF64 } from "./scratch.ts";
import { dataViews, type StoredGlmData } from "./stored_glm_data.ts";

/** Options of {@link WindowedRows.build}. */
export interface WindowedRowsOptions {
  /** The family ("logistic", "gaussian" or "poisson"; others have no windowed kernel). */
  family: string;
  /** σ of the Gaussian family. */
  sigma?: number;
  /**
   * Build only if the windows hold at most this fraction of the dense cells
   * (4 × windows ≤ maxFraction · n · d; default 0.6, where the pass is
   * measured faster than the dense one).
   */
  maxFraction?: number;
  /** Rows sampled (from the first) to choose the column constants (default 4 096). */
  sampleRows?: number;
}

const _CODES: Record<string, number> = {
  logistic: FAMILY_LOGISTIC,
  gaussian: FAMILY_GAUSSIAN,
  poisson: FAMILY_POISSON,
};

/** Whether a − b is exact in f64 (TwoSum's error term is zero; false for NaN and ±∞). */
function _exactDiff(a: number, b: number): boolean {
  const s = a - b, bv = s - a, av = s - bv;
  return (a - av) + (-b - bv) === 0;
}

/**
 * A data set's rows in the windowed layout, with the family's full-data ℓ
 * and ∇ℓ passes over them. Reads y in place from the data set, which must
 * outlive it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "./load.ts";
 * import { GlmKernels } from "./glm_kernels.ts";
 * import { WindowedRows } from "./windowed_rows.ts";
 * const arena = loadCore(), n = 40, d = 10;
 * const x = arena.allocF64(n * d), y = arena.allocF64(n);
 * const xv = arena.f64(x, n * d), yv = arena.f64(y, n);
 * for (let i = 0; i < n; i++) {
 *   xv.set([1, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, 0.25], i * d); // the constants
 *   xv[i * d + 1 + (i % 8)] = 0.5 + i / 64; // one deviating cell (x − c exact)
 *   yv[i] = i % 3 === 0 ? 1 : 0;
 * }
 * const data = { arena, x, y, numRows: n, numCols: d, storage: "f64" as const };
 * const rows = WindowedRows.build(data, { family: "logistic" });
 * assert.ok(rows !== null);
 * const theta = new Float64Array([0.1, 0.2, -0.3, 0.4, 0.1, -0.2, 0.3, 0, -0.1, 0.5]);
 * const g1 = new Float64Array(d), g2 = new Float64Array(d);
 * const k = new GlmKernels(arena, { family: "logistic", dim: d });
 * const l1 = k.logLikelihood(data, theta, { grad: g1 });
 * const l2 = rows.logLikelihood(theta, g2);
 * assert.ok(Math.abs(l1 - l2) < 1e-12 * Math.abs(l1));
 * g1.forEach((v, j) => assert.ok(Math.abs(v - g2[j]) < 1e-12));
 * rows.dispose();
 * k.dispose();
 * ```
 */
export class WindowedRows {
  /** The arena holding the layout (the data's arena). */
  readonly arena: Arena;
  /** Number of rows n. */
  readonly numRows: number;
  /** Number of columns d. */
  readonly numCols: number;
  /** The column constants c. */
  readonly constants: Float64Array;
  /** Windows per row (mean). */
  readonly windowsPerRow: number;
  readonly #code: number;
  readonly #param: number;
  readonly #y: number;
  readonly #ptr: number;
  readonly #col: number;
  readonly #dev: number;
  readonly #theta: ScratchF64;
  readonly #tab: ScratchF64;
  #live = true;

  private constructor(
    data: StoredGlmData,
    code: number,
    param: number,
    constants: Float64Array,
    blocks: { ptr: number; col: number; dev: number; windows: number },
  ) {
    this.arena = data.arena;
    this.numRows = data.numRows;
    this.numCols = data.numCols;
    this.constants = constants;
    this.windowsPerRow = blocks.windows / data.numRows;
    this.#code = code;
    this.#param = param;
    this.#y = data.y;
    this.#ptr = blocks.ptr;
    this.#col = blocks.col;
    this.#dev = blocks.dev;
    this.#theta = new ScratchF64(data.arena, data.numCols);
    this.#tab = new ScratchF64(data.arena, 4 * data.numCols + 1);
  }

  /**
   * The windowed layout of `data`, or null where it does not apply or would
   * not pay: a family without a windowed kernel, fewer than 4 columns, a
   * backend without the kernel (the TypeScript reference), a cell whose
   * deviation from its column constant is not exact (NaN, ±∞, extreme
   * ranges), or windows holding more than `maxFraction` of the cells.
   * One pass over the rows to count and check, one to fill.
   *
   * @param data The data set (f64 or f32 X).
   * @param options The family (and σ), the size threshold, the sample for the constants.
   * @returns The layout, or null.
   * @throws {RangeError} On a bad `maxFraction` or `sampleRows`.
   */
  static build(data: StoredGlmData, options: WindowedRowsOptions): WindowedRows | null {
    const maxFraction = options.maxFraction ?? 0.6;
    if (!(maxFraction > 0 && maxFraction <= 1)) {
      throw new RangeError(`maxFraction must be in (0, 1], got ${maxFraction}`);
    }
    const sampleRows = options.sampleRows ?? 4096;
    if (!Number.isInteger(sampleRows) || sampleRows < 1) {
      throw new RangeError(`sampleRows must be a positive integer, got ${sampleRows}`);
    }
    const code = Object.hasOwn(_CODES, options.family) ? _CODES[options.family] : undefined;
    const n = data.numRows, d = data.numCols, arena = data.arena;
    if (
      code === undefined || d < 4 || d > 65535 || n < 1 || arena.exports.wrRange === undefined
    ) return null;
    const param = code === FAMILY_GAUSSIAN ? options.sigma ?? NaN : 0;
    if (code === FAMILY_GAUSSIAN && !(param > 0 && Number.isFinite(param))) return null;
    let x = dataViews(data).x;
    // Column constants: the most frequent value of each column in the sample.
    const c = new Float64Array(d), m = Math.min(n, sampleRows);
    for (let j = 0; j < d; j++) {
      const counts = new Map<number, number>();
      let best = 0;
      for (let i = 0; i < m; i++) {
        const v = x[i * d + j], k = (counts.get(v) ?? 0) + 1;
        counts.set(v, k);
        if (k > best) {
          best = k;
          c[j] = v;
        }
      }
      if (!Number.isFinite(c[j])) return null;
    }
    // Count the windows; check every deviation (give up early if the sample's
    // windows already hold too many cells).
    let windows = 0;
    for (let i = 0; i < n; i++) {
      if (i === m && 4 * windows > maxFraction * m * d) return null;
      const o = i * d;
      let held = 0;
      for (let j = 0; j < d; j++) {
        const v = x[o + j];
        if (v === c[j]) continue;
        if (!_exactDiff(v, c[j])) return null;
        if (j >= held) {
          windows++;
          held = Math.min(j, d - 4) + 4;
        }
      }
    }
    if (4 * windows > maxFraction * n * d || windows > 0x7fffffff) return null;
    const ptr = arena.allocI32(n + 1);
    const col = arena.alloc(2 * windows + 2, 8);
    const dev = arena.alloc(32 * windows + 32, 16);
    x = dataViews(data).x; // the allocations may have grown the memory
    const pv = arena.i32(ptr, n + 1);
    const cv = new Uint16Array(arena.memory.buffer, col, windows);
    const dv = arena.f64(dev, 4 * windows);
    let w = 0;
    for (let i = 0; i < n; i++) {
      const o = i * d;
      pv[i] = w;
      let held = 0;
      for (let j = 0; j < d; j++) {
        if (x[o + j] === c[j] || j < held) continue;
        const s = Math.min(j, d - 4);
        cv[w] = s;
        for (let q = 0; q < 4; q++) dv[4 * w + q] = s + q < held ? 0 : x[o + s + q] - c[s + q];
        held = s + 4;
        w++;
      }
    }
    pv[n] = w;
    return new WindowedRows(data, code, param, c, { ptr, col, dev, windows });
  }

  /**
   * Σᵢ ℓᵢ(θ) over all rows, and ∇ = Σᵢ ℓ'(ηᵢ)xᵢ into `grad` if given
   * (overwritten).
   *
   * @param theta θ (length d).
   * @param grad Output (length d), or undefined for ℓ alone.
   * @returns The sum.
   */
  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    return this.#pass(theta, grad, grad === undefined ? 2 : 0);
  }

  /**
   * ∇ = Σᵢ ℓ'(ηᵢ)xᵢ into `grad` (overwritten), without Σℓᵢ: the gradient
   * {@link WindowedRows.logLikelihood} writes, bit for bit.
   *
   * @param theta θ (length d).
   * @param grad Output (length d).
   * @returns `grad`.
   */
  gradient(theta: Float64Array, grad: Float64Array): Float64Array {
    this.#pass(theta, grad, 1);
    return grad;
  }

  /** Release the layout (the data set itself is not freed). */
  dispose(): void {
    if (!this.#live) return;
    this.#live = false;
    this.#theta.dispose();
    this.#tab.dispose();
    this.arena.free(this.#ptr);
    this.arena.free(this.#col);
    this.arena.free(this.#dev);
  }

  #pass(theta: Float64Array, grad: Float64Array | undefined, mode: number): number {
    if (!this.#live) throw new RangeError("WindowedRows has been disposed");
    const d = this.numCols, c = this.constants;
    if (theta.length < d) throw new RangeError(`theta must have ${d} values, got ${theta.length}`);
    if (grad !== undefined && grad.length < d) {
      throw new RangeError(`grad must have ${d} values, got ${grad.length}`);
    }
    this.#theta.view(0, d).set(theta.subarray(0, d));
    let base = 0;
    for (let j = 0; j < d; j++) base += c[j] * theta[j];
    const tabLen = 4 * d;
    if (mode !== 2) this.#tab.view(0, tabLen + 1).fill(0);
    const tab = pointerOf(this.#tab);
    const ll = this.arena.exports.wrRange!(
      this.#code,
      this.#param,
      this.#ptr,
      this.#col,
      this.#dev,
      this.#y,
      0,
      this.numRows,
      pointerOf(this.#theta),
      base,
      tab,
      tab + 8 * tabLen,
      mode,
    );
    if (grad !== undefined) {
      const t = this.#tab.view(0, tabLen + 1), wsum = t[tabLen];
      for (let j = 0; j < d; j++) grad[j] = wsum * c[j];
      for (let s = 0; s + 4 <= d; s++) {
        for (let q = 0; q < 4; q++) grad[s + q] += t[4 * s + q];
      }
    }
    return ll;
  }
}
