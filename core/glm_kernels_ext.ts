/**
 * The extended GLM families behind {@link GlmKernels}: typed calls of the
 * `llExt` / `hessExt` kernels (core/as/likelihood_ext.ts), whose θ may end
 * with a log-scale parameter τ and whose rows may carry an aux column (offset
 * or trials), owned here in the arena.
 *
 * ```
 *  family name           code  θ                aux
 *  "gaussian-scale"        3   (β, log σ)       —
 *  "student-t"             4   (β, log σ)       —          ν = famParam
 *  "negative-binomial"     5   (β, log φ)       offset (optional)
 *  "poisson-offset"        6   β                offset
 *  "binomial"              7   β                trials
 *  "student-t-nu"          8   (β, log σ, ω)    —          ν = 1 + e^ω sampled
 * ```
 *
 * Per-row derivatives come out as (ℓ, ℓ_η, ℓ_ηη, ℓ_τ, ℓ_ητ, ℓ_ττ), from which
 * ∇ℓᵢ = (ℓ_η xᵢ, ℓ_τ) and ∇²ℓᵢ = [[ℓ_ηη xᵢxᵢᵀ, ℓ_ητ xᵢ], [ℓ_ητ xᵢᵀ, ℓ_ττ]];
 * "student-t-nu" appends (ℓ_ω, ℓ_ηω, ℓ_τω, ℓ_ωω) to each record (10 values,
 * {@link extDerivStride}) and a row and column in ω to ∇ℓᵢ and ∇²ℓᵢ.
 *
 * @module
 */
import type { Arena } from "./arena.ts";
import {
  type CoreExports,
  FAMILY_BINOMIAL,
  FAMILY_GAUSSIAN_SCALE,
  FAMILY_NEGBIN,
  FAMILY_POISSON_OFFSET,
  FAMILY_STUDENT_T,
  FAMILY_STUDENT_T_NU,
} from "./exports.ts";
import { pointerOf } from "./_handles.ts";
import { ScratchF64, ScratchI32 } from "./scratch.ts";

/** The extended families (see the module table). */
export type GlmExtFamilyName =
  | "gaussian-scale"
  | "student-t"
  | "negative-binomial"
  | "poisson-offset"
  | "binomial"
  | "student-t-nu";

/** Family codes of the extended families. */
export const EXT_CODES: Record<GlmExtFamilyName, number> = {
  "gaussian-scale": FAMILY_GAUSSIAN_SCALE,
  "student-t": FAMILY_STUDENT_T,
  "negative-binomial": FAMILY_NEGBIN,
  "poisson-offset": FAMILY_POISSON_OFFSET,
  "binomial": FAMILY_BINOMIAL,
  "student-t-nu": FAMILY_STUDENT_T_NU,
};

/** Per-row derivative record length: ℓ, ℓ_η, ℓ_ηη, ℓ_τ, ℓ_ητ, ℓ_ττ. */
export const EXT_DERIV_STRIDE = 6;

/**
 * Per-row derivative record length of a family code: 10 for "student-t-nu"
 * (the record then ends with ℓ_ω, ℓ_ηω, ℓ_τω, ℓ_ωω), else 6.
 *
 * @param code Family code.
 * @returns 6 or 10.
 * @example
 * ```ts
 * import { EXT_CODES, extDerivStride } from "./glm_kernels_ext.ts";
 * if (extDerivStride(EXT_CODES["student-t-nu"]) !== 10) throw new Error();
 * if (extDerivStride(EXT_CODES["student-t"]) !== 6) throw new Error();
 * ```
 */
export function extDerivStride(code: number): number {
  return code === FAMILY_STUDENT_T_NU ? 10 : EXT_DERIV_STRIDE;
}

/** A stored data set as the kernels read it. */
interface _Src {
  x: number;
  y: number;
  numRows: number;
  f32: boolean;
}

/**
 * The extended-family kernels of one GlmKernels: scratch, aux column and the
 * typed calls. Core-internal (GlmKernels is the public face).
 */
export class ExtKernels {
  /** Family code (3–7). */
  readonly code: number;
  /** ν (Student-t), else 0. */
  readonly famParam: number;
  /** Number of columns d. */
  readonly dim: number;
  /** Parameters after β: 2 (τ, ω), 1 (τ) or 0. */
  readonly numExtra: number;
  /** Per-row derivative record length (6, or 10 with ω). */
  readonly stride: number;
  readonly #arena: Arena;
  readonly #theta: ScratchF64;
  readonly #vec: ScratchF64;
  readonly #mat: ScratchF64;
  readonly #rows: ScratchF64;
  readonly #idx: ScratchI32;
  readonly #aux: ScratchF64 | null;

  /**
   * @param arena The arena.
   * @param family Extended family name.
   * @param options `dim` (columns), `nu` (Student-t), `aux` (offset/trials per row).
   */
  constructor(
    arena: Arena,
    family: GlmExtFamilyName,
    options: { dim: number; nu?: number; aux?: ArrayLike<number> },
  ) {
    this.code = EXT_CODES[family];
    this.#arena = arena;
    this.dim = options.dim;
    this.numExtra = this.code === FAMILY_STUDENT_T_NU ? 2 : this.code <= FAMILY_NEGBIN ? 1 : 0;
    this.stride = extDerivStride(this.code);
    if (family === "student-t") {
      const nu = options.nu;
      if (nu === undefined || !(nu > 0) || !Number.isFinite(nu)) {
        throw new RangeError(`nu must be a positive finite number for student-t, got ${nu}`);
      }
      this.famParam = nu;
    } else this.famParam = 0;
    const needsAux = family === "poisson-offset" || family === "binomial";
    if (needsAux && options.aux === undefined) {
      throw new TypeError(
        `family ${family} needs its ${family === "binomial" ? "trials" : "offset"} column`,
      );
    }
    const p = this.dim + this.numExtra;
    this.#theta = new ScratchF64(arena, p);
    this.#vec = new ScratchF64(arena, 2 * this.dim + 3);
    this.#mat = new ScratchF64(arena, this.dim * this.dim);
    this.#rows = new ScratchF64(arena);
    this.#idx = new ScratchI32(arena);
    if (options.aux !== undefined) {
      const aux = options.aux;
      for (let i = 0; i < aux.length; i++) {
        if (!Number.isFinite(aux[i])) {
          throw new RangeError(`the aux column must be finite, got ${aux[i]} at row ${i}`);
        }
      }
      this.#aux = new ScratchF64(arena, Math.max(1, aux.length));
      this.#aux.view(0, aux.length).set(Array.from(aux));
    } else this.#aux = null;
  }

  /** Length of θ: d + numExtra. */
  get numParams(): number {
    return this.dim + this.numExtra;
  }

  /**
   * Overwrite the aux column with `values` (a block of rows read elsewhere:
   * row i of the next source is `values[i]`), growing it if needed.
   *
   * @param values One finite value per row of the next source.
   * @throws {TypeError} If the kernels were built without an aux column.
   */
  setAux(values: ArrayLike<number>): void {
    if (this.#aux === null) {
      throw new TypeError("these kernels were built without an aux column (offset or trials)");
    }
    for (let i = 0; i < values.length; i++) {
      if (!Number.isFinite(values[i])) {
        throw new RangeError(`the aux column must be finite, got ${values[i]} at row ${i}`);
      }
    }
    this.#aux.ensure(Math.max(1, values.length));
    this.#aux.view(0, values.length).set(values);
  }

  /** Rows the aux column holds (−1 without one). */
  get auxRows(): number {
    return this.#aux === null ? -1 : this.#aux.capacity;
  }

  /**
   * Σℓᵢ over rows (list or range), with ∇ (length P), per-row ℓᵢ, ℓ_η or the
   * full per-row derivative records (m × 6).
   */
  logLikelihood(
    core: CoreExports,
    src: _Src,
    theta: Float64Array,
    sel: { rows?: Int32Array; start: number; end: number },
    out: {
      grad?: Float64Array;
      perRow?: Float64Array;
      derivative?: Float64Array;
      derivs?: Float64Array;
    },
  ): number {
    this.#checkAux(src.numRows);
    const P = this.numParams, t = this.#writeTheta(theta);
    const g = out.grad ? pointerOf(this.#vec) : 0;
    if (out.grad) this.#vec.view(0, P).fill(0);
    let idx = 0, m: number, start = 0;
    if (sel.rows !== undefined) {
      m = sel.rows.length;
      this.#idx.ensure(Math.max(1, m));
      this.#idx.view(0, m).set(sel.rows);
      idx = pointerOf(this.#idx);
    } else {
      start = sel.start;
      m = sel.end - sel.start;
    }
    const want = out.perRow !== undefined || out.derivative !== undefined ||
      out.derivs !== undefined;
    const S = this.stride;
    if (want) this.#rows.ensure(Math.max(1, m * S));
    const dv = want ? pointerOf(this.#rows) : 0;
    const aux = this.#aux === null ? 0 : pointerOf(this.#aux);
    const ll = core.llExt(
      this.code,
      this.famParam,
      src.x,
      src.y,
      aux,
      this.dim,
      start,
      idx,
      m,
      t,
      g,
      dv,
      src.f32 ? 1 : 0,
    );
    if (out.grad) out.grad.set(this.#vec.view(0, P));
    if (want) {
      const r = this.#rows.view(0, m * S);
      if (out.derivs) out.derivs.set(r);
      for (let k = 0; k < m; k++) {
        if (out.perRow) out.perRow[k] = r[k * S];
        if (out.derivative) out.derivative[k] = r[k * S + 1];
      }
    }
    return ll;
  }

  /** Per-row records (ℓ, ℓ_η, ℓ_ηη, ℓ_τ, ℓ_ητ, ℓ_ττ[, ω terms]) of the listed rows (m × stride). */
  rowDerivatives(
    core: CoreExports,
    src: _Src,
    theta: Float64Array,
    rows: Int32Array,
    out: Float64Array,
  ): Float64Array {
    const need = rows.length * this.stride;
    if (out.length < need) throw new RangeError(`out must hold ${need} values, got ${out.length}`);
    this.logLikelihood(core, src, theta, { rows, start: 0, end: 0 }, { derivs: out });
    return out;
  }

  /** Per-row gradients (ℓ_η xᵢ, ℓ_τ[, ℓ_ω]) of the listed rows into out (m × P). */
  rowGradients(
    core: CoreExports,
    src: _Src,
    theta: Float64Array,
    rows: Int32Array,
    out: Float64Array,
  ): Float64Array {
    const m = rows.length, d = this.dim, P = this.numParams, S = this.stride;
    if (out.length < m * P) {
      throw new RangeError(`out must hold ${m * P} values, got ${out.length}`);
    }
    const dv = new Float64Array(m * S);
    this.logLikelihood(core, src, theta, { rows, start: 0, end: 0 }, { derivs: dv });
    // the rows widened to f64 by the gather kernel (idx still holds `rows`)
    this.#rows.ensure(Math.max(1, m * d));
    const xs = pointerOf(this.#rows);
    (src.f32 ? core.gatherF32AsF64 : core.gatherF64)(src.x, d, pointerOf(this.#idx), m, xs);
    const xv = this.#rows.view(0, m * d);
    for (let k = 0; k < m; k++) {
      const a = dv[k * S + 1];
      for (let j = 0; j < d; j++) out[k * P + j] = a * xv[k * d + j];
      if (P > d) out[k * P + d] = dv[k * S + 3];
      if (P > d + 1) out[k * P + d + 1] = dv[k * S + 6];
    }
    return out;
  }

  /** Σ∇²ℓᵢ over rows [start, end) into out (P × P, overwritten). */
  hessian(
    core: CoreExports,
    src: _Src,
    theta: Float64Array,
    start: number,
    end: number,
    out: Float64Array,
  ): Float64Array {
    this.#checkAux(src.numRows);
    const d = this.dim, P = this.numParams, t = this.#writeTheta(theta);
    if (out.length < P * P) {
      throw new RangeError(`out must hold ${P * P} values, got ${out.length}`);
    }
    this.#mat.view(0, d * d).fill(0);
    this.#vec.view(0, 2 * d + 3).fill(0);
    const aux = this.#aux === null ? 0 : pointerOf(this.#aux);
    core.hessExt(
      this.code,
      this.famParam,
      src.x,
      src.y,
      aux,
      d,
      start,
      end,
      t,
      pointerOf(this.#mat),
      pointerOf(this.#vec),
      src.f32 ? 1 : 0,
    );
    const h = this.#mat.view(0, d * d), c = this.#vec.view(0, 2 * d + 3);
    const o = d + 1; // code 8: Σℓ_ηω xᵢ, Σℓ_τω, Σℓ_ωω start here
    for (let j = 0; j < d; j++) {
      for (let k = 0; k < d; k++) out[j * P + k] = h[j * d + k];
      if (P > d) out[j * P + d] = out[d * P + j] = c[j];
      if (P > d + 1) out[j * P + d + 1] = out[(d + 1) * P + j] = c[o + j];
    }
    if (P > d) out[d * P + d] = c[d];
    if (P > d + 1) {
      out[d * P + d + 1] = out[(d + 1) * P + d] = c[o + d];
      out[(d + 1) * P + d + 1] = c[o + d + 1];
    }
    return out;
  }

  /** Release scratch and the aux column. */
  dispose(): void {
    for (const s of [this.#theta, this.#vec, this.#mat, this.#rows]) s.dispose();
    this.#idx.dispose();
    this.#aux?.dispose();
  }

  #checkAux(n: number): void {
    if (this.#aux !== null && this.#aux.capacity < n) {
      throw new RangeError(`the aux column has ${this.#aux.capacity} rows, the data ${n}`);
    }
  }

  #writeTheta(theta: Float64Array): number {
    const P = this.numParams;
    if (!(theta instanceof Float64Array) || theta.length !== P) {
      throw new RangeError(
        `theta must be a Float64Array of length ${P}, got ${
          theta instanceof Float64Array ? `length ${theta.length}` : typeof theta
        }`,
      );
    }
    this.#theta.view(0, P).set(theta);
    return pointerOf(this.#theta);
  }

  /** The arena (for checks). */
  get arena(): Arena {
    return this.#arena;
  }
}
