/**
 * ICA on the Stiefel manifold for Austerity §5.2: the data (four mixed
 * sources, pre-whitened), the model p(x | W) = |det W| Πⱼ [4 cosh²(½ wⱼᵀx)]⁻¹
 * with W orthonormal (uniform prior on the manifold), Ouyang's random walk on
 * the manifold, and the Amari distance.
 *
 * ```
 *  log p(x | W) = −Σⱼ f(wⱼᵀx),   f(z) = log(4 cosh²(z/2)) = |z| + 2 log(1 + e^{−|z|})
 *                 (|det W| = 1 on the manifold)
 *  proposal:  drop row k; pick row j ≠ k; v = ψ wⱼ + ξ, ξ ~ N(0, I);
 *             project v off the other D − 2 rows, normalise → wⱼ';
 *             wₖ' = the unit vector orthogonal to the other D − 1 rows (sign: det W' = det W)
 *  μ₀ = log(u)/N  (uniform prior, symmetric proposal; eq. 6)
 * ```
 *
 * A proposal changes rows j and k only, so lᵢ = −[f(wⱼ'ᵀxᵢ) + f(wₖ'ᵀxᵢ) −
 * f(wⱼᵀxᵢ) − f(wₖᵀxᵢ)]. {@link IcaTarget} keeps f(wᵣᵀxᵢ) of the current W per
 * row, stamped with the accepted-move count: a row seen since the last
 * accepted move costs two evaluations of f, a stale one six.
 *
 * The sources are synthesised (the paper's audio clips are not available):
 * (a) a "music" signal — harmonic notes with random pitch, attack and
 * exponential decay, and loudness varying from phrase to phrase; (b) "street
 * noise" — Student-t (ν = 5) innovations through a low-pass AR(1) filter with
 * a slowly varying loudness; (c), (d) independent N(0, 1). Each is scaled to
 * mean 0 and variance 1; (a) and (b) are super-Gaussian (excess kurtosis > 0),
 * which the sech² model assumes.
 *
 * References: Korattikara, Chen & Welling (2014), §5.2, eq. 6, Fig. 5;
 * Amari, Cichocki & Yang (1996) for the distance.
 *
 * @module
 */
import { Rng } from "../random/rng.ts";
import { symmetricEigen } from "./conditioning.ts";
import type { RowDifferencesFn } from "../subsampling/austerity.ts";
import type { Arena } from "../core/arena.ts";
import { IcaRowCache, IcaRows } from "../core/ica_kernels.ts";

/** Number of sources D. */
export const ICA_DIM = 4;
/** The paper's sampling rate (Hz) of its 43 s clips. */
export const ICA_SAMPLE_RATE = 44_100;

/** The whitened data set and the true unmixing matrix in whitened coordinates. */
export interface IcaData {
  /** n × 4 row-major whitened observations. */
  readonly x: Float64Array;
  /** Number of observations n. */
  readonly n: number;
  /** W₀ = (V A)⁻¹, 4 × 4 row-major: the inverse of the mixing in whitened coordinates. */
  readonly w0: Float64Array;
  /** Excess kurtosis of each source (before mixing). */
  readonly sourceKurtosis: readonly number[];
}

function _standardise(s: Float64Array): number {
  let mean = 0;
  for (const v of s) mean += v;
  mean /= s.length;
  let m2 = 0, m4 = 0;
  for (let i = 0; i < s.length; i++) {
    const d = s[i] - mean;
    m2 += d * d;
    m4 += d * d * d * d;
  }
  m2 /= s.length;
  m4 /= s.length;
  const sd = Math.sqrt(m2);
  for (let i = 0; i < s.length; i++) s[i] = (s[i] - mean) / sd;
  return m4 / (m2 * m2) - 3;
}

/** Harmonic notes with random pitch, attack and decay; phrase-level loudness. */
function _music(rng: Rng, n: number): Float64Array {
  const s = new Float64Array(n);
  let i = 0, loud = 1;
  while (i < n) {
    if (rng.uniform() < 0.1) loud = Math.exp(0.8 * rng.normal()); // a new phrase
    const len = Math.floor(ICA_SAMPLE_RATE * (0.1 + 0.5 * rng.uniform()));
    const f0 = 110 * Math.pow(2, Math.floor(rng.uniform() * 36) / 12); // A2 … A5, equal temperament
    const decay = 2 + 10 * rng.uniform(); // per second
    const attack = Math.floor(ICA_SAMPLE_RATE * 0.01);
    const amp = loud * Math.exp(0.5 * rng.normal());
    const phases = [rng.uniform(), rng.uniform(), rng.uniform(), rng.uniform()];
    for (let t = 0; t < len && i < n; t++, i++) {
      const sec = t / ICA_SAMPLE_RATE;
      const env = amp * Math.min(1, t / attack) * Math.exp(-decay * sec);
      let v = 0;
      for (let h = 0; h < 4; h++) {
        v += Math.sin(2 * Math.PI * ((h + 1) * f0 * sec + phases[h])) / (h + 1);
      }
      s[i] += env * v;
    }
  }
  return s;
}

/** Low-pass filtered Student-t (ν = 5) noise with a slowly varying loudness. */
function _street(rng: Rng, n: number): Float64Array {
  const s = new Float64Array(n);
  let y = 0, logLoud = 0;
  for (let i = 0; i < n; i++) {
    if (i % 4410 === 0) logLoud = 0.9 * logLoud + 0.2 * rng.normal(); // every 0.1 s
    let chi2 = 0;
    for (let q = 0; q < 5; q++) chi2 += rng.normal() ** 2;
    const t5 = rng.normal() / Math.sqrt(chi2 / 5);
    y = 0.7 * y + t5;
    s[i] = Math.exp(logLoud) * y;
  }
  return s;
}

/** Inverse of a 4 × 4 row-major matrix by Gauss–Jordan elimination with partial pivoting. */
export function invert4(a: Float64Array): Float64Array {
  const d = ICA_DIM, m = Float64Array.from(a), inv = new Float64Array(d * d);
  for (let i = 0; i < d; i++) inv[i * d + i] = 1;
  for (let c = 0; c < d; c++) {
    let p = c;
    for (let r = c + 1; r < d; r++) if (Math.abs(m[r * d + c]) > Math.abs(m[p * d + c])) p = r;
    if (m[p * d + c] === 0) throw new RangeError("matrix is singular");
    for (let k = 0; k < d; k++) {
      [m[c * d + k], m[p * d + k]] = [m[p * d + k], m[c * d + k]];
      [inv[c * d + k], inv[p * d + k]] = [inv[p * d + k], inv[c * d + k]];
    }
    const piv = m[c * d + c];
    for (let k = 0; k < d; k++) m[c * d + k] /= piv, inv[c * d + k] /= piv;
    for (let r = 0; r < d; r++) {
      if (r === c) continue;
      const f = m[r * d + c];
      for (let k = 0; k < d; k++) {
        m[r * d + k] -= f * m[c * d + k], inv[r * d + k] -= f * inv[c * d + k];
      }
    }
  }
  return inv;
}

/** Symmetric inverse square root of a 4 × 4 SPD matrix (Jacobi eigen-decomposition). */
function _invSqrtSym(c: Float64Array): Float64Array {
  const d = ICA_DIM;
  const { values, vectors: v } = symmetricEigen(c);
  const out = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += v[i * d + k] * v[j * d + k] / Math.sqrt(values[k]);
      out[i * d + j] = s;
    }
  }
  return out;
}

/**
 * Synthesise n observations of the four sources, mix them with a random
 * matrix A (entries N(0, 1)), and whiten with the sample covariance
 * (x̃ = V x, V = C^{−1/2}).
 *
 * @param seed Seed of the sources and the mixing.
 * @param n Number of observations (≥ 100).
 * @returns The whitened data and W₀ = (V A)⁻¹.
 * @example
 * ```ts
 * import { icaData } from "./ica_stiefel.ts";
 * const d = icaData(1, 1000);
 * if (d.x.length !== 4000) throw new Error();
 * ```
 */
export function icaData(seed: number | string, n: number): IcaData {
  if (!Number.isInteger(n) || n < 100) {
    throw new RangeError(`n must be an integer ≥ 100, got ${n}`);
  }
  const rng = new Rng(`${seed}/ica-data`);
  const sources = [
    _music(rng.stream(0), n),
    _street(rng.stream(1), n),
    new Float64Array(n),
    new Float64Array(n),
  ];
  rng.stream(2).fillNormal(sources[2]);
  rng.stream(3).fillNormal(sources[3]);
  const sourceKurtosis = sources.map(_standardise);
  const d = ICA_DIM, a = new Float64Array(d * d);
  rng.stream(4).fillNormal(a);
  const x = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < d; r++) {
      let v = 0;
      for (let c = 0; c < d; c++) v += a[r * d + c] * sources[c][i];
      x[i * d + r] = v;
    }
  }
  const mean = new Float64Array(d), cov = new Float64Array(d * d);
  for (let i = 0; i < n; i++) for (let r = 0; r < d; r++) mean[r] += x[i * d + r] / n;
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < d; r++) {
      for (let c = 0; c < d; c++) {
        cov[r * d + c] += (x[i * d + r] - mean[r]) * (x[i * d + c] - mean[c]) / n;
      }
    }
  }
  const v = _invSqrtSym(cov), tmp = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < d; r++) tmp[r] = x[i * d + r] - mean[r];
    for (let r = 0; r < d; r++) {
      let s = 0;
      for (let c = 0; c < d; c++) s += v[r * d + c] * tmp[c];
      x[i * d + r] = s;
    }
  }
  const va = new Float64Array(d * d);
  for (let r = 0; r < d; r++) {
    for (let c = 0; c < d; c++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += v[r * d + k] * a[k * d + c];
      va[r * d + c] = s;
    }
  }
  return { x, n, w0: invert4(va), sourceKurtosis };
}

/**
 * The Amari distance between W and W₀, normalised to [0, 1]: with P = W W₀⁻¹,
 * [Σᵢ(Σⱼ|pᵢⱼ|/maxⱼ|pᵢⱼ| − 1) + Σⱼ(Σᵢ|pᵢⱼ|/maxᵢ|pᵢⱼ| − 1)] / (2D(D − 1)).
 * Zero iff W = Λ Π W₀ (rows rescaled and permuted).
 *
 * @param w D × D row-major.
 * @param w0Inverse W₀⁻¹, D × D row-major.
 * @returns The distance.
 * @example
 * ```ts
 * import { amariDistance } from "./ica_stiefel.ts";
 * const id = new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
 * if (amariDistance(id, id) !== 0) throw new Error();
 * ```
 */
export function amariDistance(w: Float64Array, w0Inverse: Float64Array): number {
  const d = ICA_DIM, p = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += w[i * d + k] * w0Inverse[k * d + j];
      p[i * d + j] = Math.abs(s);
    }
  }
  let total = 0;
  for (let i = 0; i < d; i++) {
    let sum = 0, max = 0;
    for (let j = 0; j < d; j++) sum += p[i * d + j], max = Math.max(max, p[i * d + j]);
    total += sum / max - 1;
  }
  for (let j = 0; j < d; j++) {
    let sum = 0, max = 0;
    for (let i = 0; i < d; i++) sum += p[i * d + j], max = Math.max(max, p[i * d + j]);
    total += sum / max - 1;
  }
  return total / (2 * d * (d - 1));
}

/** 3 × 3 determinant of rows r0, r1, r2 of `w` restricted to columns cols. */
function _det3(w: Float64Array, rows: readonly number[], cols: readonly number[]): number {
  const d = ICA_DIM, g = (r: number, c: number) => w[rows[r] * d + cols[c]];
  return g(0, 0) * (g(1, 1) * g(2, 2) - g(1, 2) * g(2, 1)) -
    g(0, 1) * (g(1, 0) * g(2, 2) - g(1, 2) * g(2, 0)) +
    g(0, 2) * (g(1, 0) * g(2, 1) - g(1, 1) * g(2, 0));
}

/**
 * One draw of the random walk on the Stiefel manifold (Ouyang 2008, as in
 * Austerity §5.2): writes W' into `out` and returns the two rows changed.
 * Symmetric: q(W' | W) = q(W | W').
 *
 * @param rng Generator.
 * @param w The current orthonormal W (4 × 4 row-major).
 * @param psi ψ > 0: larger is a smaller step.
 * @param out Receives W'.
 * @returns `{ j, k }`: the perturbed row and the completed row.
 */
export function stiefelProposal(
  rng: Rng,
  w: Float64Array,
  psi: number,
  out: Float64Array,
): { j: number; k: number } {
  const d = ICA_DIM;
  out.set(w);
  const k = rng.int(d);
  let j = rng.int(d - 1);
  if (j >= k) j++;
  const v = new Float64Array(d);
  for (let c = 0; c < d; c++) v[c] = psi * w[j * d + c] + rng.normal();
  for (let r = 0; r < d; r++) {
    if (r === j || r === k) continue;
    let dot = 0;
    for (let c = 0; c < d; c++) dot += v[c] * w[r * d + c];
    for (let c = 0; c < d; c++) v[c] -= dot * w[r * d + c];
  }
  let norm = 0;
  for (let c = 0; c < d; c++) norm += v[c] * v[c];
  norm = Math.sqrt(norm);
  for (let c = 0; c < d; c++) out[j * d + c] = v[c] / norm;
  // wₖ' = generalised cross product of the other three rows, signed to keep det W.
  const others = [0, 1, 2, 3].filter((r) => r !== k);
  let detOld = 0;
  for (let c = 0; c < d; c++) {
    const cols = [0, 1, 2, 3].filter((q) => q !== c);
    const cof = ((k + c) % 2 === 0 ? 1 : -1) * _det3(out, others, cols);
    out[k * d + c] = cof;
    detOld += w[k * d + c] * ((k + c) % 2 === 0 ? 1 : -1) * _det3(w, others, cols);
  }
  // Cofactor expansion along row k: det W' = Σ_c w'_kc · cof_c = ‖cof‖² > 0 with w'_k = cof.
  let cn = 0;
  for (let c = 0; c < d; c++) cn += out[k * d + c] ** 2;
  const sign = detOld >= 0 ? 1 : -1;
  cn = Math.sqrt(cn);
  for (let c = 0; c < d; c++) out[k * d + c] *= sign / cn;
  return { j, k };
}

// g(a) = 2 log(1 + e^{−a}) on [0, 16] by cubic Hermite interpolation on a grid of step 1/32
// (values and derivatives exact at the knots; |error| < 1e-9); beyond 16, 2e^{−a} (error < 1e-14).
const _H = 32, _A_MAX = 16, _KNOTS = _A_MAX * _H + 1;
const _G = new Float64Array(_KNOTS), _DG = new Float64Array(_KNOTS);
for (let q = 0; q < _KNOTS; q++) {
  const a = q / _H;
  _G[q] = 2 * Math.log1p(Math.exp(-a));
  _DG[q] = -2 / (1 + Math.exp(a)) / _H; // derivative per unit of the knot index
}
// The four numbers interval q needs, side by side: _T[4q..4q+3] = G[q], G'[q], G[q+1], G'[q+1]
// (one array and one cache line per evaluation instead of four lookups in two arrays).
const _T = new Float64Array(4 * (_KNOTS - 1));
for (let q = 0; q < _KNOTS - 1; q++) {
  _T[4 * q] = _G[q], _T[4 * q + 1] = _DG[q], _T[4 * q + 2] = _G[q + 1], _T[4 * q + 3] = _DG[q + 1];
}

/**
 * The table behind {@link logFourCoshSq} (a copy), in the layout the core's
 * ICA kernels read (core/ica_kernels.ts): for interval q of width 1/32 on
 * [0, 16), g(q/32), g'(q/32)/32, g((q+1)/32), g'((q+1)/32)/32 with
 * g(a) = 2 log(1 + e^{−a}).
 *
 * @returns 2048 f64.
 */
export function logFourCoshSqTable(): Float64Array {
  return Float64Array.from(_T);
}

/**
 * f(z) = log(4 cosh²(z/2)) = |z| + 2 log(1 + e^{−|z|}), the second term by
 * a table (cubic Hermite, |error| < 1e-9): four times faster than
 * `Math.log1p(Math.exp(−|z|))`. Every ICA density here, the exact runs' as
 * well, uses this f, so the tests all target the same posterior.
 *
 * @param z The argument.
 * @returns f(z).
 * @example
 * ```ts
 * import { logFourCoshSq } from "./ica_stiefel.ts";
 * if (Math.abs(logFourCoshSq(0.3) - Math.log(4 * Math.cosh(0.15) ** 2)) > 1e-9) throw new Error();
 * ```
 */
export function logFourCoshSq(z: number): number {
  // Math.abs, not a comparison: the sign of wᵀx is a coin flip, and a branch on it is
  // mispredicted half the time.
  const a = Math.abs(z);
  if (a >= _A_MAX) return a + 2 * Math.exp(-a);
  const u = a * _H, q = u | 0, t = u - q, t2 = t * t, t3 = t2 * t, b = q << 2;
  return a + (2 * t3 - 3 * t2 + 1) * _T[b] + (t3 - 2 * t2 + t) * _T[b + 1] +
    (3 * t2 - 2 * t3) * _T[b + 2] + (t3 - t2) * _T[b + 3];
}

/**
 * softplus(t) = log(1 + eᵗ) = max(t, 0) + log(1 + e^{−|t|}), the second term
 * from the table of {@link logFourCoshSq} (½ g(|t|); |error| < 5e-10, no
 * cancellation for t ≪ 0): about five times faster than `Math.log1p(Math.exp(−|t|))`.
 * The logistic log-likelihood of the reversible-jump experiment (R16) uses it
 * in every chain and in its exact reference run alike.
 *
 * @param t The argument.
 * @returns softplus(t).
 * @example
 * ```ts
 * import { softplusTable } from "./ica_stiefel.ts";
 * if (Math.abs(softplusTable(-0.7) - Math.log1p(Math.exp(-0.7))) > 1e-9) throw new Error();
 * ```
 */
export function softplusTable(t: number): number {
  const a = Math.abs(t), pos = Math.max(t, 0);
  if (a >= _A_MAX) return pos + Math.exp(-a);
  const u = a * _H, q = u | 0, v = u - q, v2 = v * v, v3 = v2 * v, b = q << 2;
  return pos + 0.5 * ((2 * v3 - 3 * v2 + 1) * _T[b] + (v3 - 2 * v2 + v) * _T[b + 1] +
        (3 * v2 - 2 * v3) * _T[b + 2] + (v3 - v2) * _T[b + 3]);
}

/**
 * The data rows in the compute core, for {@link IcaTarget}'s `rows` option:
 * one copy of x shared by every target over the same data.
 *
 * @param arena An arena whose build has the ICA kernels (`IcaRows.isSupported`).
 * @param data The data.
 * @returns The rows (dispose them after the targets that use them).
 */
export function icaCoreRows(arena: Arena, data: IcaData): IcaRows {
  return new IcaRows(arena, data.x, _T);
}

/**
 * The log-likelihood differences of the ICA model for the approximate MH
 * test, with a per-row cache of f(wᵣᵀxᵢ) at the current W.
 *
 * With `rows` (the data in the compute core, {@link icaCoreRows}) the
 * per-row loop runs in the core's SIMD kernels (core/ica_kernels.ts), which
 * return the TypeScript loop's numbers bit for bit; without, in TypeScript.
 * The cached paths differ in one bookkeeping detail only: accepting keeps
 * current every row evaluated for the proposal in the core, and the rows
 * passed to {@link IcaTarget.accept} in TypeScript — the same rows when the
 * test evaluates only the rows it uses.
 */
export class IcaTarget {
  /** The data. */
  readonly data: IcaData;
  /** Current W (4 × 4 row-major, orthonormal). */
  readonly current = new Float64Array(ICA_DIM * ICA_DIM);
  /** Proposed W'. */
  readonly proposed = new Float64Array(ICA_DIM * ICA_DIM);
  /** Evaluations of f so far (the hot loop's unit of work). */
  numFEvaluations = 0;
  #cache: Float64Array;
  #stamp: Int32Array;
  #newJ: Float64Array;
  #newK: Float64Array;
  #gathered = new Float64Array(0);
  #version = 0;
  #useCache: boolean;
  #j = 0;
  #k = 1;
  #rows: IcaRows | null;
  #coreCache: IcaRowCache | null;
  /** The differences function of the current (W, W') pair. */
  readonly differences: RowDifferencesFn;

  /**
   * @param data The whitened data.
   * @param start The starting W (orthonormal, copied).
   * @param options `cache` (default true): keep f(wᵣᵀxᵢ) of the current W per
   *   row; without it every row costs four evaluations of f, whichever rows a
   *   test draws, so the work is proportional to the rows used. `rows`: the
   *   data in the compute core ({@link icaCoreRows}, not disposed here) to
   *   run the per-row loop there; default: TypeScript.
   */
  constructor(
    data: IcaData,
    start: Float64Array,
    options: { cache?: boolean; rows?: IcaRows } = {},
  ) {
    this.data = data;
    this.#useCache = options.cache ?? true;
    this.#rows = options.rows ?? null;
    if (this.#rows !== null && this.#rows.numRows !== data.n) {
      throw new RangeError(`rows hold ${this.#rows.numRows} rows, the data ${data.n}`);
    }
    this.#coreCache = this.#rows !== null && this.#useCache ? new IcaRowCache(this.#rows) : null;
    this.current.set(start);
    // Without the cache (or with it in the core) no per-row array is kept here (each would be n long).
    const n = this.#useCache && this.#rows === null ? data.n : 0;
    this.#cache = new Float64Array(n * ICA_DIM);
    this.#stamp = new Int32Array(n).fill(-1);
    this.#newJ = new Float64Array(n);
    this.#newK = new Float64Array(n);
    this.differences = (rows, out) => this.#differences(rows, out);
  }

  /** Draw a proposal into {@link proposed}. */
  propose(rng: Rng, psi: number): void {
    const { j, k } = stiefelProposal(rng, this.current, psi, this.proposed);
    this.#j = j;
    this.#k = k;
    if (this.#coreCache !== null) this.#coreCache.propose(this.current, this.proposed, j, k);
    else if (this.#rows !== null) this.#rows.setPair(this.current, this.proposed, j, k);
  }

  /** Free the core cache, if any (the rows stay). Idempotent. */
  dispose(): void {
    this.#coreCache?.dispose();
  }

  #differences(rows: Int32Array, out: Float64Array): void {
    if (this.#coreCache !== null) {
      const { refreshed } = this.#coreCache.differences(rows, out);
      this.numFEvaluations += ICA_DIM * refreshed + 2 * rows.length;
      return;
    }
    if (this.#rows !== null) {
      this.#rows.differences(rows, out);
      this.numFEvaluations += 4 * rows.length;
      return;
    }
    if (!this.#useCache) {
      this.#differencesUncached(rows, out);
      return;
    }
    const d = ICA_DIM, x = this.data.x, w = this.current, wp = this.proposed;
    const cache = this.#cache, stamp = this.#stamp, version = this.#version;
    const j = this.#j, k = this.#k;
    const pj0 = wp[j * d], pj1 = wp[j * d + 1], pj2 = wp[j * d + 2], pj3 = wp[j * d + 3];
    const pk0 = wp[k * d], pk1 = wp[k * d + 1], pk2 = wp[k * d + 2], pk3 = wp[k * d + 3];
    let fCount = 0;
    for (let q = 0; q < rows.length; q++) {
      const i = rows[q], o = i * d;
      const x0 = x[o], x1 = x[o + 1], x2 = x[o + 2], x3 = x[o + 3];
      if (stamp[i] !== version) {
        for (let r = 0; r < d; r++) {
          cache[o + r] = logFourCoshSq(
            w[r * d] * x0 + w[r * d + 1] * x1 + w[r * d + 2] * x2 + w[r * d + 3] * x3,
          );
        }
        stamp[i] = version;
        fCount += d;
      }
      const fj = logFourCoshSq(pj0 * x0 + pj1 * x1 + pj2 * x2 + pj3 * x3);
      const fk = logFourCoshSq(pk0 * x0 + pk1 * x1 + pk2 * x2 + pk3 * x3);
      this.#newJ[i] = fj;
      this.#newK[i] = fk;
      out[q] = cache[o + j] + cache[o + k] - fj - fk;
    }
    this.numFEvaluations += fCount + 2 * rows.length;
  }

  /**
   * The differences without the cache: f at W and at W' for rows j and k of
   * each row drawn (the same sums as the cached path, in the same order),
   * nothing stored per row.
   */
  #differencesUncached(rows: Int32Array, out: Float64Array): void {
    const d = ICA_DIM, x = this.data.x, w = this.current, wp = this.proposed;
    const j = this.#j, k = this.#k;
    const cj0 = w[j * d], cj1 = w[j * d + 1], cj2 = w[j * d + 2], cj3 = w[j * d + 3];
    const ck0 = w[k * d], ck1 = w[k * d + 1], ck2 = w[k * d + 2], ck3 = w[k * d + 3];
    const pj0 = wp[j * d], pj1 = wp[j * d + 1], pj2 = wp[j * d + 2], pj3 = wp[j * d + 3];
    const pk0 = wp[k * d], pk1 = wp[k * d + 1], pk2 = wp[k * d + 2], pk3 = wp[k * d + 3];
    // Copy the rows drawn into a contiguous buffer first: the loads of this loop do not
    // depend on each other, so the processor overlaps their cache misses (rows are drawn
    // at random from 62 MB); interleaved with the arithmetic below they were paid one by one.
    if (this.#gathered.length < rows.length * d) this.#gathered = new Float64Array(rows.length * d);
    const g = this.#gathered;
    for (let q = 0; q < rows.length; q++) {
      const o = rows[q] * d, b = q * d;
      g[b] = x[o], g[b + 1] = x[o + 1], g[b + 2] = x[o + 2], g[b + 3] = x[o + 3];
    }
    for (let q = 0; q < rows.length; q++) {
      const o = q * d;
      const x0 = g[o], x1 = g[o + 1], x2 = g[o + 2], x3 = g[o + 3];
      const cj = logFourCoshSq(cj0 * x0 + cj1 * x1 + cj2 * x2 + cj3 * x3);
      const ck = logFourCoshSq(ck0 * x0 + ck1 * x1 + ck2 * x2 + ck3 * x3);
      const fj = logFourCoshSq(pj0 * x0 + pj1 * x1 + pj2 * x2 + pj3 * x3);
      const fk = logFourCoshSq(pk0 * x0 + pk1 * x1 + pk2 * x2 + pk3 * x3);
      out[q] = cj + ck - fj - fk;
    }
    this.numFEvaluations += 4 * rows.length;
  }

  /**
   * Accept W': rows evaluated for this proposal (`rowsUsed`) keep a valid
   * cache; every other row becomes stale.
   *
   * @param rowsUsed The rows the test evaluated.
   */
  accept(rowsUsed: Int32Array): void {
    const d = ICA_DIM, j = this.#j, k = this.#k, next = this.#version + 1;
    this.#coreCache?.accept();
    for (let q = 0; this.#useCache && this.#rows === null && q < rowsUsed.length; q++) {
      const i = rowsUsed[q];
      this.#cache[i * d + j] = this.#newJ[i];
      this.#cache[i * d + k] = this.#newK[i];
      this.#stamp[i] = next;
    }
    this.#version = next;
    this.current.set(this.proposed);
  }
}
