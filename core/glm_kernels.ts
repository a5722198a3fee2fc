/**
 * Typed GLM kernels: the only way layers above `core/` run the compute core.
 *
 * Each operation takes a row source — a {@link StoredGlmData} (the full data
 * set, f64 or f32 X) or a {@link RowBuffer} (gathered rows, f64) — θ as a
 * `Float64Array`, and a named options object, and writes plain `Float64Array`
 * outputs. Family codes, byte offsets, the control-variate cache layout and the
 * choice between the f64 and f32 kernels stay here; θ, gradients and Hessians
 * pass through scratch buffers this object owns.
 *
 * ```
 *  logLikelihood   Σℓᵢ(θ), ∇ = Σℓ'(ηᵢ)xᵢ, per-row ℓᵢ, ℓ'(ηᵢ)   over a range or a row list
 *  gradient        ∇ = Σℓ'(ηᵢ)xᵢ alone (logLikelihood's bits)     over a range
 *  hessian         Σ ℓ''(ηᵢ) xᵢxᵢᵀ (XᵀWX)                        over a range
 *  rowGradients    ∇ℓᵢ(θ) = ℓ'(ηᵢ)xᵢ per listed row                 (m × d)
 *  prepareControlVariates   cache (η*, ℓ*, a, b) per row, S = Σℓ*, A = Σaᵢxᵢ
 *  controlVariateDifferences  dₖ = ℓₖ − qₖ and rₖ = ∂dₖ/∂ηₖ over gathered rows
 *  weightedRowSum  Σ wₖxₖ (Xᵀw) over gathered rows
 *  gradientMoments Σgₖ, Σgₖ⊙gₖ, Σgₖgₖᵀ of gₖ = ℓ'(ηₖ)xₖ (or rₖxₖ) over gathered rows
 *  rowDerivatives  (ℓ, ℓ_η, ℓ_ηη, ℓ_τ, ℓ_ητ, ℓ_ττ) per listed row   extended families only
 *  gatherRows      the listed rows of X as f64
 * ```
 *
 * The extended families (glm_kernels_ext.ts: Gaussian and Student-t with
 * unknown σ, NB2, Poisson with offset, binomial with trials) run
 * logLikelihood, hessian and rowGradients over the full data set with θ of
 * length {@link GlmKernels.numParams} (β, then τ = log σ or log φ); the
 * compact control-variate operations and RowBuffer sources refuse them with a
 * TypeError, since the cache (η*, ℓ*, a, b) expands in η only.
 *
 * References: Dang et al. (2019) eqs. 8, 11, 14; Shang et al. (2015) eq. 19.
 *
 * @module
 */
import type { Arena } from "./arena.ts";
import { type CoreExports, FAMILY_GAUSSIAN, FAMILY_LOGISTIC, FAMILY_POISSON } from "./exports.ts";
import { pointerOf } from "./_handles.ts";
import {
  type ControlVariateCache,
  CV_STRIDE,
  RowBuffer,
  rowBufferBlocks,
  type StoredGlmData,
} from "./row_buffer.ts";
import { ScratchF64, ScratchI32 } from "./scratch.ts";
import { _checkRows, _positions, _range } from "./_row_ranges.ts";
import { EXT_CODES, ExtKernels, type GlmExtFamilyName } from "./glm_kernels_ext.ts";

/**
 * The GLM families the core implements: the three with the compact
 * control-variate cache, and the extended families of glm_kernels_ext.ts.
 */
export type GlmFamilyName = "logistic" | "gaussian" | "poisson" | GlmExtFamilyName;

/** Rows to run over: a contiguous range of a source, or a list of data rows. */
export interface RowSelection {
  /** Rows [start, end) (default: all rows of the source). Not with `rows`. */
  range?: { start?: number; end?: number };
  /** Data-row indices (full data sets only). Not with `range`. */
  rows?: Int32Array;
}

/** Options of {@link GlmKernels.logLikelihood}. */
export interface LogLikelihoodOptions extends RowSelection {
  /** Write ∇Σℓᵢ(θ) here (length d, overwritten). */
  grad?: Float64Array;
  /** Write ℓᵢ(θ) per selected row here. */
  perRow?: Float64Array;
  /** Write dℓ/dη(ηᵢ) per selected row here. */
  derivative?: Float64Array;
}

/** Outputs of {@link GlmKernels.gradientMoments} (overwritten). */
export interface MomentsOutput {
  /** Σₖ gₖ (length d). */
  sum: Float64Array;
  /** Σₖ gₖ⊙gₖ (length d), if wanted. */
  sq?: Float64Array;
  /** Σₖ gₖgₖᵀ (d × d), if wanted. */
  outer?: Float64Array;
}

/** A range of positions in a {@link RowBuffer}. */
export interface PositionRange {
  /** First position (default 0). */
  start?: number;
  /** One past the last position (default: the buffer's capacity). */
  end?: number;
}

const _CODES: Record<GlmFamilyName, number> = {
  logistic: FAMILY_LOGISTIC,
  gaussian: FAMILY_GAUSSIAN,
  poisson: FAMILY_POISSON,
  ...EXT_CODES,
};

/**
 * The GLM kernels of one family over data in one arena, with their scratch.
 *
 * @example
 * ```ts
 * import { loadCore } from "./load.ts";
 * import { GlmKernels } from "./glm_kernels.ts";
 * const arena = loadCore({ backend: "reference" });
 * const x = arena.allocF64(4), y = arena.allocF64(2);
 * arena.writeF64(x, [1, 0.5, 1, -1]);
 * arena.writeF64(y, [1, 0]);
 * const data = { arena, x, y, numRows: 2, numCols: 2, storage: "f64" as const };
 * const k = new GlmKernels(arena, { family: "logistic", dim: 2 });
 * const grad = new Float64Array(2);
 * const ll = k.logLikelihood(data, new Float64Array([0, 0]), { grad });
 * if (Math.abs(ll - 2 * Math.log(0.5)) > 1e-15 || grad[0] !== 0) throw new Error();
 * k.dispose();
 * ```
 */
export class GlmKernels {
  /** The arena whose data the kernels read. */
  readonly arena: Arena;
  /** The family. */
  readonly family: GlmFamilyName;
  /** σ for the Gaussian family, ν for Student-t, else 0. */
  readonly familyParam: number;
  /** Number of columns d of X (θ has {@link GlmKernels.numParams} values). */
  readonly dim: number;
  readonly #code: number;
  readonly #ext: ExtKernels | null;
  readonly #theta: ScratchF64;
  readonly #vec: ScratchF64;
  readonly #sq: ScratchF64;
  readonly #mat: ScratchF64;
  readonly #zero: ScratchF64;
  readonly #rows: ScratchF64;
  readonly #rows2: ScratchF64;
  readonly #idx: ScratchI32;
  /** θ, θ*, A, B and scratch of {@link differenceEstimate} (allocated on its first call). */
  #est: ScratchF64 | null = null;
  #estView: Float64Array = new Float64Array(0);
  /** Whose θ*, A, B are in #est, under which key (null: none kept). */
  #estOf: object | null = null;
  #estKey = NaN;

  /**
   * Bind the kernels of `family` to an arena for θ of dimension `dim`.
   *
   * @param arena The arena holding the data.
   * @param options `family`, `dim`, `sigma` (Gaussian family, > 0), `nu`
   *   (Student-t, > 0), `aux` (one value per row: the offset of "poisson-offset"
   *   and "negative-binomial", the trials of "binomial").
   */
  constructor(
    arena: Arena,
    options: {
      family: GlmFamilyName;
      dim: number;
      sigma?: number;
      nu?: number;
      aux?: ArrayLike<number>;
    },
  ) {
    const code = _CODES[options.family];
    if (code === undefined || !Object.hasOwn(_CODES, options.family)) {
      throw new TypeError(
        `family must be one of ${Object.keys(_CODES).map((k) => `"${k}"`).join(", ")}, got ${
          JSON.stringify(options.family)
        }`,
      );
    }
    const d = options.dim;
    if (!Number.isInteger(d) || d < 1) {
      throw new RangeError(`dim must be a positive integer, got ${d}`);
    }
    if (options.family === "gaussian") {
      const s = options.sigma;
      if (s === undefined || !(s > 0) || !Number.isFinite(s)) {
        throw new RangeError(
          `sigma must be a positive finite number for the gaussian family, got ${s}`,
        );
      }
      this.familyParam = s;
    } else this.familyParam = 0;
    this.#ext = Object.hasOwn(EXT_CODES, options.family)
      ? new ExtKernels(arena, options.family as GlmExtFamilyName, {
        dim: d,
        nu: options.nu,
        aux: options.aux,
      })
      : null;
    if (this.#ext !== null) this.familyParam = this.#ext.famParam;
    this.arena = arena;
    this.family = options.family;
    this.dim = d;
    this.#code = code;
    this.#theta = new ScratchF64(arena, d);
    this.#vec = new ScratchF64(arena, d);
    this.#sq = new ScratchF64(arena, d);
    this.#mat = new ScratchF64(arena, d * d);
    this.#zero = new ScratchF64(arena, d);
    this.#rows = new ScratchF64(arena);
    this.#rows2 = new ScratchF64(arena);
    this.#idx = new ScratchI32(arena);
  }

  /**
   * Σᵢ ℓᵢ(θ) over the selected rows, with the gradient and per-row values on
   * request. Counts nothing (callers keep their own cost counters).
   *
   * @param source The full data set or a row buffer (ranges only).
   * @param theta θ (length d).
   * @param options Row selection and outputs.
   * @returns The sum.
   */
  logLikelihood(
    source: StoredGlmData | RowBuffer,
    theta: Float64Array,
    options: LogLikelihoodOptions = {},
  ): number {
    if (this.#ext !== null) {
      if (source instanceof RowBuffer) throw this.#noCompact("a RowBuffer source");
      if (options.rows !== undefined && options.range !== undefined) {
        throw new TypeError("give either rows or range, not both");
      }
      const src = this.#source(source);
      if (options.rows !== undefined) _checkRows(options.rows, src.numRows);
      const { start, end } = _range(options.range, src.numRows);
      return this.#ext.logLikelihood(this.#core, src, theta, {
        rows: options.rows,
        start,
        end,
      }, options);
    }
    const d = this.dim, core = this.#core, t = this.#writeTheta(theta);
    const src = this.#source(source);
    const g = options.grad ? pointerOf(this.#vec) : 0;
    if (options.grad) this.#vec.view(0, d).fill(0);
    let ll: number, m: number;
    const perRow = options.perRow !== undefined, deriv = options.derivative !== undefined;
    if (options.rows !== undefined) {
      if (options.range !== undefined) throw new TypeError("give either rows or range, not both");
      if (source instanceof RowBuffer) {
        throw new TypeError("a row list needs the full data set; a RowBuffer takes a range");
      }
      const rows = options.rows;
      m = rows.length;
      const idx = this.#writeRows(rows, src.numRows);
      const lo = perRow ? this.#rowScratch(this.#rows, m) : 0;
      const dl = deriv ? this.#rowScratch(this.#rows2, m) : 0;
      const fn = src.f32 ? core.llIdxF32 : core.llIdx;
      ll = fn(this.#code, this.familyParam, src.x, src.y, d, idx, m, t, g, lo, dl, 0);
    } else {
      const { start, end } = _range(options.range, src.numRows);
      m = end - start;
      const lo = perRow ? this.#rowScratch(this.#rows, m) : 0;
      const dl = deriv ? this.#rowScratch(this.#rows2, m) : 0;
      const fn = src.f32 ? core.llRangeF32 : core.llRange;
      ll = fn(this.#code, this.familyParam, src.x, src.y, d, start, end, t, g, lo, dl, 0);
    }
    if (options.grad) options.grad.set(this.#vec.view(0, d));
    if (options.perRow) options.perRow.set(this.#rows.view(0, m));
    if (options.derivative) options.derivative.set(this.#rows2.view(0, m));
    return ll;
  }

  /**
   * ∇Σᵢ ℓᵢ(θ) = Σᵢ ℓ'(ηᵢ)xᵢ over a range of rows into `grad`, without Σℓᵢ:
   * the gradient {@link GlmKernels.logLikelihood} writes for the same rows,
   * bit for bit, at about 80 % of its cost (the logistic family skips a
   * log1p per row, Poisson a log Γ). The extended families run their
   * combined pass and drop the value. Counts nothing.
   *
   * @param source The full data set or a row buffer.
   * @param theta θ (length {@link GlmKernels.numParams}).
   * @param options `grad` (overwritten) and the `range` of rows (default all).
   * @returns `grad`.
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { loadCore } from "./load.ts";
   * import { GlmKernels } from "./glm_kernels.ts";
   * const arena = loadCore();
   * const x = arena.allocF64(6), y = arena.allocF64(3);
   * arena.writeF64(x, [1, 0.5, 1, -1, 1, 2]);
   * arena.writeF64(y, [1, 0, 1]);
   * const data = { arena, x, y, numRows: 3, numCols: 2, storage: "f64" as const };
   * const k = new GlmKernels(arena, { family: "logistic", dim: 2 });
   * const theta = new Float64Array([0.2, -0.1]), g1 = new Float64Array(2), g2 = new Float64Array(2);
   * k.logLikelihood(data, theta, { grad: g1 });
   * k.gradient(data, theta, { grad: g2 });
   * assert.deepEqual(g2, g1);
   * ```
   */
  gradient(
    source: StoredGlmData | RowBuffer,
    theta: Float64Array,
    options: { grad: Float64Array; range?: { start?: number; end?: number } },
  ): Float64Array {
    if (this.#ext !== null) {
      this.logLikelihood(source, theta, { grad: options.grad, range: options.range });
      return options.grad;
    }
    const d = this.dim, core = this.#core, t = this.#writeTheta(theta);
    const src = this.#source(source);
    const { start, end } = _range(options.range, src.numRows);
    const g = pointerOf(this.#vec);
    this.#vec.view(0, d).fill(0);
    const fn = src.f32 ? core.gradRangeF32 : core.gradRange;
    fn(this.#code, this.familyParam, src.x, src.y, d, start, end, t, g);
    options.grad.set(this.#vec.view(0, d));
    return options.grad;
  }

  /**
   * Σᵢ ∇²ℓᵢ(θ) = Σᵢ ℓ''(ηᵢ)xᵢxᵢᵀ (XᵀWX) over a range of rows into `out`.
   *
   * @param source The full data set or a row buffer.
   * @param theta θ (length d).
   * @param options `out` (d × d row-major, overwritten) and the `range` of rows (default all).
   * @returns `out`.
   */
  hessian(
    source: StoredGlmData | RowBuffer,
    theta: Float64Array,
    options: { out: Float64Array; range?: { start?: number; end?: number } },
  ): Float64Array {
    if (this.#ext !== null) {
      if (source instanceof RowBuffer) throw this.#noCompact("a RowBuffer source");
      const src = this.#source(source);
      const { start, end } = _range(options.range, src.numRows);
      return this.#ext.hessian(this.#core, src, theta, start, end, options.out);
    }
    const d = this.dim, core = this.#core, t = this.#writeTheta(theta), out = options.out;
    if (out.length < d * d) {
      throw new RangeError(`out must hold ${d * d} values, got ${out.length}`);
    }
    const src = this.#source(source);
    const { start, end } = _range(options.range, src.numRows);
    this.#mat.view(0, d * d).fill(0);
    const fn = src.f32 ? core.hessRangeF32 : core.hessRange;
    fn(this.#code, this.familyParam, src.x, src.y, d, start, end, t, pointerOf(this.#mat));
    out.set(this.#mat.view(0, d * d));
    return out;
  }

  /**
   * Per-row gradients ∇ℓᵢ(θ) = ℓ'(ηᵢ)xᵢ of the listed data rows into `out`
   * (m × d row-major).
   *
   * @param data The full data set.
   * @param theta θ (length d).
   * @param options `rows` (data-row indices) and `out` (at least m × d).
   * @returns `out`.
   */
  rowGradients(
    data: StoredGlmData,
    theta: Float64Array,
    options: { rows: Int32Array; out: Float64Array },
  ): Float64Array {
    const { rows, out } = options;
    if (this.#ext !== null) {
      const src = this.#source(data);
      _checkRows(rows, src.numRows);
      return this.#ext.rowGradients(this.#core, src, theta, rows, out);
    }
    const m = rows.length, d = this.dim, core = this.#core;
    if (out.length < m * d) {
      throw new RangeError(`out must hold ${m * d} values, got ${out.length}`);
    }
    const t = this.#writeTheta(theta), src = this.#source(data);
    const idx = this.#writeRows(rows, src.numRows);
    // ℓ'(ηᵢ) per row, then the rows widened to f64 by the gather kernel, scaled in place
    const dl = this.#rowScratch(this.#rows2, m), xs = this.#rowScratch(this.#rows, m * d);
    const ll = src.f32 ? core.llIdxF32 : core.llIdx;
    ll(this.#code, this.familyParam, src.x, src.y, d, idx, m, t, 0, 0, dl, 0);
    (src.f32 ? core.gatherF32AsF64 : core.gatherF64)(src.x, d, idx, m, xs);
    const a = this.#rows2.view(0, m), xv = this.#rows.view(0, m * d);
    for (let k = 0; k < m; k++) {
      const ak = a[k];
      for (let j = 0; j < d; j++) out[k * d + j] = ak * xv[k * d + j];
    }
    return out;
  }

  /**
   * Fill `cache` at θ* in one full-data pass (in chunks of `chunkRows` rows) and
   * return S = Σℓᵢ(θ*), writing A = Σᵢ ℓ'(η*ᵢ)xᵢ into `gradSum`.
   *
   * With `firstRow`, `data` is a block of rows of a larger data set (e.g.
   * `glmDataRows`) whose row i fills cache row `firstRow + i`; each row's
   * arithmetic is the same as in a pass over the whole data set when
   * `firstRow` is even (the kernels take rows in pairs from the start of
   * their range), so a pass split into such blocks fills a bit-identical
   * cache and S, A differ only in the order of the block sums.
   *
   * @param data The full data set (f64 or f32 X, read in place), or a block of it.
   * @param thetaStar θ* (length d).
   * @param options `cache` to fill, `gradSum` output (length d), `chunkRows`,
   *   `firstRow` (the block's first row in the cache; default 0, and then the
   *   cache must have exactly the data's rows).
   * @returns S.
   */
  prepareControlVariates(
    data: StoredGlmData,
    thetaStar: Float64Array,
    options: {
      cache: ControlVariateCache;
      gradSum: Float64Array;
      chunkRows?: number;
      firstRow?: number;
    },
  ): number {
    if (this.#ext !== null) throw this.#noCompact("the compact control-variate cache");
    const n = data.numRows;
    const first = options.firstRow;
    if (
      first === undefined ? options.cache.numRows !== n : !(
        Number.isInteger(first) && first >= 0 && first + n <= options.cache.numRows
      )
    ) {
      throw new RangeError(
        `the cache has ${options.cache.numRows} rows, the data ${n}` +
          (first === undefined ? "" : ` from cache row ${first}`),
      );
    }
    const cache = pointerOf(options.cache) + (first ?? 0) * CV_STRIDE * 8;
    return this.#cvPass(data, thetaStar, {
      gradSum: options.gradSum,
      chunkRows: options.chunkRows,
      cacheAt: (start) => cache + start * CV_STRIDE * 8,
    });
  }

  /**
   * S = Σℓᵢ(θ*) and A = Σᵢ ℓ'(η*ᵢ)xᵢ in one full-data pass with no per-row
   * cache kept: the same kernels, chunks and summation order as
   * {@link GlmKernels.prepareControlVariates} (so the same S and A, bit for
   * bit), in O(chunkRows) scratch.
   *
   * @param data The full data set (f64 or f32 X, read in place).
   * @param thetaStar θ* (length d).
   * @param options `gradSum` output (length d), `chunkRows` (default 65536).
   * @returns S.
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { loadCore } from "./load.ts";
   * import { GlmKernels } from "./glm_kernels.ts";
   * import { ControlVariateCache } from "./row_buffer.ts";
   * const arena = loadCore({ backend: "reference" });
   * const x = arena.allocF64(6), y = arena.allocF64(3);
   * arena.writeF64(x, [1, 0.5, 1, -1, 1, 2]);
   * arena.writeF64(y, [1, 0, 1]);
   * const data = { arena, x, y, numRows: 3, numCols: 2, storage: "f64" as const };
   * const k = new GlmKernels(arena, { family: "logistic", dim: 2 });
   * const theta = new Float64Array([0.2, -0.1]), a1 = new Float64Array(2), a2 = new Float64Array(2);
   * const cache = new ControlVariateCache(arena, 3);
   * const s1 = k.prepareControlVariates(data, theta, { cache, gradSum: a1 });
   * const s2 = k.controlVariateSums(data, theta, { gradSum: a2, chunkRows: 2 });
   * assert.equal(s2, s1);
   * assert.deepEqual(a2, a1);
   * ```
   */
  controlVariateSums(
    data: StoredGlmData,
    thetaStar: Float64Array,
    options: { gradSum: Float64Array; chunkRows?: number },
  ): number {
    if (this.#ext !== null) throw this.#noCompact("the compact control-variate sums");
    const chunk = Math.max(1, Math.min(options.chunkRows ?? 65536, data.numRows));
    const scratch = this.arena.allocF64(chunk * CV_STRIDE);
    try {
      return this.#cvPass(data, thetaStar, {
        gradSum: options.gradSum,
        chunkRows: chunk,
        cacheAt: () => scratch,
      });
    } finally {
      this.arena.free(scratch);
    }
  }

  /**
   * The cache rows (η*, ℓ*, a, b) of positions [start, end) of a row buffer,
   * computed from the buffer's own x and y at θ* — bit for bit the rows
   * {@link GlmKernels.prepareControlVariates} gives them over the full data
   * set of `numRows` rows, for rows loaded from a data set that lives
   * elsewhere.
   *
   * The prepare kernel evaluates rows in pairs and a last odd row alone, and
   * the two can differ in the last bit (a fused multiply-add in the pair's
   * vector lanes, a plain one alone, when d is odd). A full-data pass takes
   * every row in a pair except row n − 1 of an odd n, so here too: an odd
   * range is completed by one neighbouring position (recomputed at the same
   * θ*, so unchanged), and data row n − 1 of an odd n is redone alone.
   *
   * @param rows The buffer (its x, y and indices at those positions written).
   * @param thetaStar θ* (length d).
   * @param range Positions (default: the whole buffer) and n, the full data
   *   set's number of rows.
   * @returns Nothing.
   */
  prepareGatheredControlVariates(
    rows: RowBuffer,
    thetaStar: Float64Array,
    range: PositionRange & { numRows: number },
  ): void {
    if (this.#ext !== null) throw this.#noCompact("the compact control-variate cache");
    const { start, end } = _positions(range, rows.capacity);
    if (end === start) return;
    const n = range.numRows, cap = rows.capacity;
    const prep = (from: number, to: number) => {
      const src = this.#source(rows), b = rowBufferBlocks(rows);
      const t = this.#writeTheta(thetaStar);
      this.#core.cvPrepareRange(
        this.#code,
        this.familyParam,
        src.x,
        src.y,
        this.dim,
        from,
        to,
        t,
        b.cv + from * CV_STRIDE * 8,
      );
    };
    let lo = start, hi = end;
    if ((end - start) % 2 === 0) prep(start, end);
    else if (end - start >= 3) {
      prep(start, end - 1);
      prep(end - 2, end);
    } else if (start > 0) prep(--lo, end);
    else if (end < cap) prep(start, ++hi);
    else prep(start, end); // a one-row buffer: no partner to pair with
    if (n % 2 === 1 && hi - lo > 1) {
      const idx = rows.indices;
      for (let p = lo; p < hi; p++) if (idx[p] === n - 1) prep(p, p + 1);
    }
  }

  #cvPass(
    data: StoredGlmData,
    thetaStar: Float64Array,
    options: { gradSum: Float64Array; chunkRows?: number; cacheAt: (start: number) => number },
  ): number {
    const d = this.dim, n = data.numRows, core = this.#core, a = this.arena;
    if (options.gradSum.length !== d) {
      throw new RangeError(`gradSum must have length ${d}, got ${options.gradSum.length}`);
    }
    const chunk = Math.min(options.chunkRows ?? 65536, n);
    const src = this.#source(data);
    const w = this.#rowScratch(this.#rows, chunk);
    const vec = pointerOf(this.#vec);
    this.#vec.view(0, d).fill(0);
    const prep = src.f32 ? core.cvPrepareRangeF32 : core.cvPrepareRange;
    const xtw = src.f32 ? core.xtwRangeF32 : core.xtwRange;
    let s = 0;
    for (let start = 0; start < n; start += chunk) {
      const end = Math.min(n, start + chunk), k = end - start;
      const t = this.#writeTheta(thetaStar);
      const cvp = options.cacheAt(start);
      prep(this.#code, this.familyParam, src.x, src.y, d, start, end, t, cvp);
      const c = a.f64(cvp, k * CV_STRIDE), wv = a.f64(w, k);
      for (let i = 0; i < k; i++) {
        s += c[i * CV_STRIDE + 1];
        wv[i] = c[i * CV_STRIDE + 2];
      }
      xtw(src.x, d, start, end, w, vec);
    }
    options.gradSum.set(this.#vec.view(0, d));
    return s;
  }

  /**
   * Per-row differences dₖ = ℓₖ(θ) − qₖ(θ) (Taylor order 0, 1 or 2 around the
   * gathered cache rows) over positions [start, end) of a row buffer, written to
   * {@link RowBuffer.diffs}; with `derivative` (default true) also rₖ = ∂dₖ/∂ηₖ
   * to {@link RowBuffer.derivatives}.
   *
   * @param rows The gathered rows (with their cache rows).
   * @param theta θ (length d).
   * @param options Taylor `order`, range of positions, `derivative`.
   * @returns Σₖ dₖ over the range.
   */
  controlVariateDifferences(
    rows: RowBuffer,
    theta: Float64Array,
    options: PositionRange & { order: 0 | 1 | 2; derivative?: boolean },
  ): number {
    if (this.#ext !== null) throw this.#noCompact("the compact control-variate cache");
    const { start, end } = _positions(options, rows.capacity);
    if (end === start) return 0;
    const t = this.#writeTheta(theta), b = rowBufferBlocks(rows);
    const wantR = options.derivative ?? true;
    return this.#core.cvDiffRange(
      this.#code,
      this.familyParam,
      b.x,
      b.y,
      b.cv + start * CV_STRIDE * 8,
      this.dim,
      start,
      end,
      t,
      options.order,
      b.diff + start * 8,
      wantR ? b.r + start * 8 : 0,
    );
  }

  /**
   * out = Σₖ wₖxₖ over positions [start, end) of a row buffer, the weights
   * being {@link RowBuffer.weights} (default) or {@link RowBuffer.derivatives}.
   *
   * @param rows The gathered rows.
   * @param out Output (length d, overwritten).
   * @param options Range of positions and which per-row array weighs the rows.
   * @returns `out`.
   */
  weightedRowSum(
    rows: RowBuffer,
    out: Float64Array,
    options: PositionRange & { weights?: "weights" | "derivatives" } = {},
  ): Float64Array {
    const { start, end } = _positions(options, rows.capacity), d = this.dim;
    const b = rowBufferBlocks(rows), vec = pointerOf(this.#vec);
    this.#vec.view(0, d).fill(0);
    const w = options.weights === "derivatives" ? b.r : b.w;
    if (end > start) this.#core.xtwRange(b.x, d, start, end, w + start * 8, vec);
    out.set(this.#vec.view(0, d));
    return out;
  }

  /**
   * One evaluation of the difference estimator with its gradient over
   * positions [0, m) of a row buffer, in one core call: Σq(θ) and A + Bδ
   * from the Taylor expansion around θ* (orders 0–2), dₖ and rₖ for positions
   * [start, end) as {@link controlVariateDifferences} writes them (the other
   * positions' must be in the buffer already, at this θ), the weights
   * wₖ = rₖ·(n/m − (n/m)²(dₖ − d̄)) (rₖ·n/m when not `corrected`) to
   * {@link RowBuffer.weights}, and grad = A + Bδ + Σwₖxₖ. The same numbers
   * to the last bit as subsampling/difference_estimator.ts's composition of
   * the Taylor sum, {@link controlVariateDifferences} and
   * {@link weightedRowSum}. Null when the core has no such kernel (the
   * reference backend, older builds): the caller composes them then.
   *
   * @param rows The gathered rows (cache rows current).
   * @param theta θ (length d).
   * @param taylor θ*, S, A, B (d × d) and the order.
   * @param options m, the positions to compute, n, the bias correction, the
   *   gradient output (length d, written) and `taylorKey`: with the same
   *   `taylor` object and key as the previous call, its θ*, A and B are taken
   *   as unchanged and not copied into the core again (a centring's version:
   *   B is d² values).
   * @returns ℓ̂ₘ, σ̂²ₘ, ℓ̂ₘ − σ̂²ₘ/2 and Σq(θ), or null.
   */
  differenceEstimate(
    rows: RowBuffer,
    theta: Float64Array,
    taylor: {
      readonly order: 0 | 1 | 2;
      readonly thetaStar: Float64Array;
      readonly llStarSum: number;
      readonly gradSum: Float64Array;
      readonly hessSum: Float64Array;
    },
    options: {
      m: number;
      start: number;
      end: number;
      numRows: number;
      corrected: boolean;
      grad: Float64Array;
      taylorKey?: number;
    },
  ): {
    logLikelihood: number;
    variance: number;
    value: number;
    sumControlVariates: number;
  } | null {
    const fn = this.#core.ecsEstimate;
    if (fn === undefined || this.#ext !== null) return null;
    const d = this.dim, m = options.m;
    if (!(m >= 1 && m <= rows.capacity) || !(options.start >= 0 && options.end <= m)) {
      throw new RangeError(
        `positions [${options.start}, ${options.end}) of m = ${m} are not inside the buffer of capacity ${rows.capacity}`,
      );
    }
    if (theta.length !== d || options.grad.length < d) {
      throw new RangeError(`theta and grad must have length ${d}`);
    }
    // [θ | θ* | A | B | work (3d) | grad | ℓ̂ₘ, σ̂²ₘ, Σq]
    const size = d * d + 7 * d + 3;
    if (this.#est === null) {
      this.#est = new ScratchF64(this.arena, size);
      this.#estView = this.#est.view(0, size);
      this.#estOf = null;
    }
    // A view is kept until the memory's buffer is detached (an unshared memory grew).
    if (this.#estView.length === 0) this.#estView = this.#est.view(0, size);
    const v = this.#estView, p = pointerOf(this.#est);
    v.set(theta, 0);
    const key = options.taylorKey;
    if (key === undefined || this.#estOf !== taylor || this.#estKey !== key) {
      v.set(taylor.thetaStar, d);
      v.set(taylor.gradSum, 2 * d);
      // B's rows in pairs, interleaved column by column (the kernel's layout).
      const B = taylor.hessSum, o = 3 * d;
      let i = 0;
      for (; i + 2 <= d; i += 2) {
        for (let k = 0; k < d; k++) {
          v[o + i * d + 2 * k] = B[i * d + k];
          v[o + i * d + 2 * k + 1] = B[(i + 1) * d + k];
        }
      }
      if (i < d) { for (let k = 0; k < d; k++) v[o + i * d + k] = B[i * d + k]; }
      this.#estOf = key === undefined ? null : taylor;
      this.#estKey = key ?? NaN;
    }
    const work = 3 * d + d * d, g = work + 3 * d, out = g + d;
    const b = rowBufferBlocks(rows);
    const value = fn(
      this.#code,
      this.familyParam,
      b.x,
      b.y,
      b.cv,
      d,
      m,
      options.start,
      options.end,
      p,
      taylor.order,
      b.diff,
      b.r,
      b.w,
      p + 8 * d,
      taylor.llStarSum,
      options.numRows,
      options.corrected ? 1 : 0,
      p + 8 * work,
      p + 8 * g,
      p + 8 * out,
    );
    // The kernel allocates nothing: the memory has not grown and v is still its view.
    for (let j = 0; j < d; j++) options.grad[j] = v[g + j];
    return { logLikelihood: v[out], variance: v[out + 1], value, sumControlVariates: v[out + 2] };
  }

  /**
   * Moments of per-row terms over positions [start, end) of a row buffer:
   * gₖ = ℓ'(ηₖ)xₖ at θ, or gₖ = rₖxₖ with rₖ the buffer's
   * {@link RowBuffer.derivatives} when `theta` is "derivatives". Writes Σgₖ,
   * and Σgₖ⊙gₖ / Σgₖgₖᵀ when `out.sq` / `out.outer` are given.
   *
   * @param rows The gathered rows.
   * @param theta θ (length d), or "derivatives".
   * @param options Outputs `sum`, `sq`, `outer` (overwritten) and the range of positions.
   * @returns Nothing.
   */
  gradientMoments(
    rows: RowBuffer,
    theta: Float64Array | "derivatives",
    options: MomentsOutput & PositionRange,
  ): void {
    if (this.#ext !== null && theta !== "derivatives") throw this.#noCompact("gathered rows");
    const out = options, { start, end } = _positions(options, rows.capacity), d = this.dim;
    const b = rowBufferBlocks(rows), core = this.#core;
    const sum = pointerOf(this.#vec);
    this.#vec.view(0, d).fill(0);
    if (theta === "derivatives" && out.sq === undefined && out.outer === undefined) {
      if (end > start) core.xtwRange(b.x, d, start, end, b.r + start * 8, sum);
      out.sum.set(this.#vec.view(0, d));
      return;
    }
    const sq = out.sq ? pointerOf(this.#sq) : 0, outer = out.outer ? pointerOf(this.#mat) : 0;
    if (out.sq) this.#sq.view(0, d).fill(0);
    if (out.outer) this.#mat.view(0, d * d).fill(0);
    if (theta === "derivatives") {
      // the Gaussian kernel with σ = 1, θ = 0 and y = r has ℓ'(η) = y − η = r
      const z = pointerOf(this.#zero);
      core.gradMomentsRange(FAMILY_GAUSSIAN, 1, b.x, b.r, d, start, end, z, sum, sq, outer);
    } else {
      const t = this.#writeTheta(theta);
      core.gradMomentsRange(
        this.#code,
        this.familyParam,
        b.x,
        b.y,
        d,
        start,
        end,
        t,
        sum,
        sq,
        outer,
      );
    }
    out.sum.set(this.#vec.view(0, d));
    if (out.sq) out.sq.set(this.#sq.view(0, d));
    if (out.outer) out.outer.set(this.#mat.view(0, d * d));
  }

  /**
   * Release the scratch buffers (the data are not freed).
   *
   * @returns Nothing.
   */
  dispose(): void {
    for (const s of [this.#theta, this.#vec, this.#sq, this.#mat, this.#zero, this.#rows]) {
      s.dispose();
    }
    this.#rows2.dispose();
    this.#idx.dispose();
    this.#est?.dispose();
    this.#est = null;
    this.#estOf = null;
    this.#ext?.dispose();
  }

  /** Length of θ: d, plus 1 for the families with a scale parameter τ (θ[d]). */
  get numParams(): number {
    return this.#ext === null ? this.dim : this.#ext.numParams;
  }

  /**
   * Replace the per-row aux column (offset or trials) the kernels were built
   * with by `values`, one per row of the sources that follow: how rows
   * streamed or gathered block by block bring their own column.
   *
   * @param values One finite value per row.
   * @throws {TypeError} If the kernels have no aux column.
   */
  setAux(values: ArrayLike<number>): void {
    if (this.#ext === null) {
      throw new TypeError(`family ${JSON.stringify(this.family)} takes no aux column`);
    }
    this.#ext.setAux(values);
  }

  /** Whether the family has the compact control-variate cache (η*, ℓ*, a, b) per row. */
  get hasCompactCache(): boolean {
    return this.#ext === null;
  }

  /**
   * Per-row derivative records (ℓ, ℓ_η, ℓ_ηη, ℓ_τ, ℓ_ητ, ℓ_ττ) of the listed
   * data rows into `out` (m × 6; τ terms 0 for families without τ). Extended
   * families only: the per-row gradient is (ℓ_η xᵢ, ℓ_τ) and the Hessian
   * [[ℓ_ηη xᵢxᵢᵀ, ℓ_ητ xᵢ], [ℓ_ητ xᵢᵀ, ℓ_ττ]].
   *
   * @param data The full data set.
   * @param theta θ (length {@link GlmKernels.numParams}).
   * @param options `rows` and `out` (at least 6m).
   * @returns `out`.
   */
  rowDerivatives(
    data: StoredGlmData,
    theta: Float64Array,
    options: { rows: Int32Array; out: Float64Array },
  ): Float64Array {
    if (this.#ext === null) throw new TypeError(`rowDerivatives is not for family ${this.family}`);
    const src = this.#source(data);
    _checkRows(options.rows, src.numRows);
    return this.#ext.rowDerivatives(this.#core, src, theta, options.rows, options.out);
  }

  /**
   * The listed rows of X widened to f64 (m × d), through the gather kernels.
   *
   * @param data The full data set.
   * @param rows Data-row indices.
   * @param out At least m × d values.
   * @returns `out`.
   */
  gatherRows(data: StoredGlmData, rows: Int32Array, out: Float64Array): Float64Array {
    const m = rows.length, d = this.dim, src = this.#source(data), core = this.#core;
    if (out.length < m * d) {
      throw new RangeError(`out must hold ${m * d} values, got ${out.length}`);
    }
    const idx = this.#writeRows(rows, src.numRows), xs = this.#rowScratch(this.#rows, m * d);
    (src.f32 ? core.gatherF32AsF64 : core.gatherF64)(src.x, d, idx, m, xs);
    out.set(this.#rows.view(0, m * d));
    return out;
  }

  #noCompact(what: string): TypeError {
    return new TypeError(
      `family ${this.family} has no compact per-row control-variate cache, so ${what} cannot be used with it; its models take the per-row (Hessian) path instead`,
    );
  }

  get #core(): CoreExports {
    return this.arena.exports;
  }

  #writeTheta(theta: Float64Array): number {
    const d = this.dim;
    if (!(theta instanceof Float64Array) || theta.length !== d) {
      throw new RangeError(
        `theta must be a Float64Array of length ${d}, got ${
          theta instanceof Float64Array ? `length ${theta.length}` : typeof theta
        }`,
      );
    }
    this.#theta.view(0, d).set(theta);
    return pointerOf(this.#theta);
  }

  #source(s: StoredGlmData | RowBuffer): { x: number; y: number; numRows: number; f32: boolean } {
    if (s.arena !== this.arena) throw new RangeError("the rows live in a different arena");
    const cols = s instanceof RowBuffer ? s.dim : s.numCols;
    if (cols !== this.dim) throw new RangeError(`the rows have ${cols} columns, θ has ${this.dim}`);
    if (s instanceof RowBuffer) {
      const b = rowBufferBlocks(s);
      return { x: b.x, y: b.y, numRows: s.capacity, f32: false };
    }
    return { x: s.x, y: s.y, numRows: s.numRows, f32: s.storage === "f32" };
  }

  #writeRows(rows: Int32Array, n: number): number {
    const m = rows.length;
    _checkRows(rows, n);
    this.#idx.ensure(Math.max(1, m));
    this.#idx.view(0, m).set(rows);
    return pointerOf(this.#idx);
  }

  #rowScratch(s: ScratchF64, m: number): number {
    s.ensure(Math.max(1, m));
    return pointerOf(s);
  }
}
