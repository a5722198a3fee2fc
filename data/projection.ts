/**
 * Linear dimension reduction and standardisation of row-major feature
 * matrices: a seeded Gaussian random projection, principal components (PCA)
 * by subspace iteration, and column standardisation.
 *
 * ```
 *  x : n × p row-major          projection.matrix : p × k row-major
 *  z = (x − 1·centerᵀ) · matrix : n × k
 * ```
 *
 * The random projection (entries N(0, 1/k), so that E‖Rᵀx‖² = ‖x‖²) is the
 * Johnson–Lindenstrauss map used for MNIST in Shang et al. (2015, CCAdL) §5;
 * PCA to 50 dimensions is the reduction used by Korattikara et al. (2014,
 * austerity MH) §6.
 *
 * @module
 */
import { Rng } from "../random/rng.ts";

/** A fitted linear map from p input features to k outputs. */
export interface Projection {
  /** "random" (Gaussian random projection) or "pca". */
  readonly kind: "random" | "pca";
  /** Number of input features p. */
  readonly inputDim: number;
  /** Number of outputs k. */
  readonly outputDim: number;
  /** p × k row-major: column j is the j-th direction. */
  readonly matrix: Float64Array;
  /** Per-feature value subtracted before projecting (p values; zeros for "random"). */
  readonly center: Float64Array;
  /**
   * For "pca": the variance of the data along each component (k eigenvalues
   * of the sample covariance, non-increasing). Empty for "random".
   */
  readonly variances: Float64Array;
}

/** Options of {@link randomProjection}. */
export interface RandomProjectionOptions {
  /** Output dimension k (≥ 1). */
  k: number;
  /** Seed of the {@link Rng} that draws the matrix. */
  seed: number | string;
}

/** Options of {@link pcaProjection}. */
export interface PcaOptions {
  /** Number of features p per row of `x`. */
  numCols: number;
  /** Number of components k (1 ≤ k ≤ p). */
  k: number;
  /** Seed of the starting subspace (default 0); the result is sign-normalised. */
  seed?: number | string;
  /** Maximum subspace iterations (default 500). */
  maxIterations?: number;
  /** Stop when every wanted eigenvalue changes by less than this relative amount (default 1e-10). */
  tolerance?: number;
}

/** Options of {@link standardize}. */
export interface StandardizeOptions {
  /** Number of columns per row of `x`. */
  numCols: number;
  /** Column means to use (e.g. the training set's); computed from `x` by default. */
  mean?: ArrayLike<number>;
  /** Column sds to use (e.g. the training set's); computed from `x` by default. */
  sd?: ArrayLike<number>;
}

/** Result of {@link standardize}. */
export interface Standardized {
  /** The standardised copy of `x` (row-major n × numCols). */
  values: Float64Array;
  /** Means subtracted per column (0 for skipped constant columns). */
  mean: Float64Array;
  /** Sds divided by per column (1 for skipped constant columns). */
  sd: Float64Array;
}

function _checkMatrix(x: ArrayLike<number>, numCols: number): number {
  if (!Number.isInteger(numCols) || numCols < 1) {
    throw new RangeError(`numCols must be a positive integer, got ${numCols}`);
  }
  if (x.length % numCols !== 0) {
    throw new RangeError(
      `x has ${x.length} values, which is not a multiple of numCols = ${numCols}`,
    );
  }
  return x.length / numCols;
}

/**
 * A seeded Gaussian random projection from `inputDim` features to k: a p × k
 * matrix with independent N(0, 1/k) entries, drawn row by row from
 * `new Rng(seed)`.
 *
 * @param inputDim Number of input features p.
 * @param options `k` and `seed`.
 * @returns The projection (center is zero; variances is empty).
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { applyProjection, randomProjection } from "./projection.ts";
 * const proj = randomProjection(4, { k: 2, seed: 1 });
 * const z = applyProjection(proj, new Float64Array([1, 0, 0, 0]));
 * assert.ok(z[0] === proj.matrix[0]);
 * ```
 */
export function randomProjection(inputDim: number, options: RandomProjectionOptions): Projection {
  if (!Number.isInteger(inputDim) || inputDim < 1) {
    throw new RangeError(`inputDim must be a positive integer, got ${inputDim}`);
  }
  const k = options.k;
  if (!Number.isInteger(k) || k < 1) {
    throw new RangeError(`k must be a positive integer, got ${k}`);
  }
  const rng = new Rng(options.seed);
  const matrix = rng.fillNormal(new Float64Array(inputDim * k), { sd: 1 / Math.sqrt(k) });
  return {
    kind: "random",
    inputDim,
    outputDim: k,
    matrix,
    center: new Float64Array(inputDim),
    variances: new Float64Array(0),
  };
}

/**
 * Project rows: z = (x − center) · matrix.
 *
 * @param projection A projection from {@link randomProjection} or {@link pcaProjection}.
 * @param x Row-major n × p values (p = projection.inputDim).
 * @returns Row-major n × k values.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { applyProjection, pcaProjection } from "./projection.ts";
 * const x = new Float64Array([1, 1, 2, 2, 3, 3, 4, 4.1]);
 * const pca = pcaProjection(x, { numCols: 2, k: 1 });
 * assert.equal(applyProjection(pca, x).length, 4);
 * ```
 */
export function applyProjection(projection: Projection, x: ArrayLike<number>): Float64Array {
  const p = projection.inputDim, k = projection.outputDim;
  const n = _checkMatrix(x, p);
  const { matrix, center } = projection;
  const out = new Float64Array(n * k);
  const row = new Float64Array(p);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) row[j] = x[i * p + j] - center[j];
    const base = i * k;
    for (let j = 0; j < p; j++) {
      const v = row[j];
      if (v === 0) continue; // pixel data are mostly zeros
      const mrow = j * k;
      for (let c = 0; c < k; c++) out[base + c] += v * matrix[mrow + c];
    }
  }
  return out;
}

/**
 * Cyclic Jacobi eigen-decomposition of a small symmetric matrix (m × m,
 * row-major, overwritten). Returns eigenvalues; `vecs` receives eigenvectors
 * as columns.
 */
function _jacobiEigen(a: Float64Array, m: number, vecs: Float64Array): Float64Array {
  vecs.fill(0);
  for (let i = 0; i < m; i++) vecs[i * m + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0, diag = 0;
    for (let i = 0; i < m; i++) {
      diag += a[i * m + i] * a[i * m + i];
      for (let j = i + 1; j < m; j++) off += a[i * m + j] * a[i * m + j];
    }
    if (off <= 1e-30 * diag || off === 0) break;
    for (let p = 0; p < m - 1; p++) {
      for (let q = p + 1; q < m; q++) {
        const apq = a[p * m + q];
        if (apq === 0) continue;
        const app = a[p * m + p], aqq = a[q * m + q];
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1), s = t * c;
        for (let r = 0; r < m; r++) { // columns p, q
          const arp = a[r * m + p], arq = a[r * m + q];
          a[r * m + p] = c * arp - s * arq;
          a[r * m + q] = s * arp + c * arq;
        }
        for (let r = 0; r < m; r++) { // rows p, q
          const apr = a[p * m + r], aqr = a[q * m + r];
          a[p * m + r] = c * apr - s * aqr;
          a[q * m + r] = s * apr + c * aqr;
        }
        for (let r = 0; r < m; r++) {
          const vrp = vecs[r * m + p], vrq = vecs[r * m + q];
          vecs[r * m + p] = c * vrp - s * vrq;
          vecs[r * m + q] = s * vrp + c * vrq;
        }
      }
    }
  }
  const vals = new Float64Array(m);
  for (let i = 0; i < m; i++) vals[i] = a[i * m + i];
  return vals;
}

/** The k-th smallest entry of `a` (Hoare's quickselect; reorders `a`). */
function _select(a: Float64Array, k: number): number {
  let lo = 0, hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}

/** Orthonormalise the b columns of q (p × b, row-major) in place (modified Gram–Schmidt, twice). */
function _orthonormalize(q: Float64Array, p: number, b: number, rng: Rng): void {
  for (let pass = 0; pass < 2; pass++) {
    for (let c = 0; c < b; c++) {
      for (let prev = 0; prev < c; prev++) {
        let dot = 0;
        for (let r = 0; r < p; r++) dot += q[r * b + c] * q[r * b + prev];
        for (let r = 0; r < p; r++) q[r * b + c] -= dot * q[r * b + prev];
      }
      let norm = 0;
      for (let r = 0; r < p; r++) norm += q[r * b + c] * q[r * b + c];
      norm = Math.sqrt(norm);
      if (norm < 1e-12) { // rank-deficient block: restart this column at random
        for (let r = 0; r < p; r++) q[r * b + c] = rng.normal();
        c--;
        continue;
      }
      for (let r = 0; r < p; r++) q[r * b + c] /= norm;
    }
  }
}

/**
 * Principal components of the rows of `x`: the top-k eigenvectors of the
 * sample covariance (divisor n − 1), found by subspace iteration with a
 * Rayleigh–Ritz step (block size k + 8, Jacobi on the small projected
 * matrix). Each component is sign-normalised so that its entry of largest
 * magnitude is positive, so results do not depend on the starting subspace.
 *
 * @param x Row-major n × p data (n ≥ 2).
 * @param options `numCols` p, `k`, optional `seed`, `maxIterations`, `tolerance`.
 * @returns The projection: `center` = column means, `matrix` columns =
 *   orthonormal components, `variances` = their eigenvalues (non-increasing).
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { pcaProjection } from "./projection.ts";
 * const x = new Float64Array([0, 0, 1, 1.1, 2, 1.9, 3, 3.2]);
 * const pca = pcaProjection(x, { numCols: 2, k: 2 });
 * assert.ok(pca.variances[0] >= pca.variances[1]);
 * ```
 */
export function pcaProjection(x: ArrayLike<number>, options: PcaOptions): Projection {
  const p = options.numCols;
  const n = _checkMatrix(x, p);
  const k = options.k;
  if (!Number.isInteger(k) || k < 1 || k > p) {
    throw new RangeError(`k must be an integer in [1, ${p}], got ${k}`);
  }
  if (n < 2) throw new RangeError(`PCA needs at least 2 rows, got ${n}`);
  const maxIterations = options.maxIterations ?? 500;
  const tolerance = options.tolerance ?? 1e-10;
  // Column means, and the covariance of the rows shifted by the column medians:
  // the shift keeps sparse data (pixels) sparse and, being a data value, avoids
  // the cancellation of the raw Σxxᵀ − nμμᵀ form.
  const center = new Float64Array(p), shift = new Float64Array(p);
  const column = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < p; j++) center[j] += x[i * p + j];
  for (let j = 0; j < p; j++) {
    center[j] /= n;
    for (let i = 0; i < n; i++) column[i] = x[i * p + j];
    shift[j] = _select(column, n >> 1);
  }
  const full = new Float64Array(p * p);
  const row = new Float64Array(p);
  const nz = new Int32Array(p);
  for (let i = 0; i < n; i++) {
    let m = 0;
    for (let j = 0; j < p; j++) {
      row[j] = x[i * p + j] - shift[j];
      if (row[j] !== 0) nz[m++] = j;
    }
    for (let a = 0; a < m; a++) {
      const ja = nz[a], va = row[ja], base = ja * p;
      for (let b = a; b < m; b++) full[base + nz[b]] += va * row[nz[b]];
    }
  }
  for (let a = 0; a < p; a++) {
    const da = center[a] - shift[a];
    for (let b = a; b < p; b++) {
      const v = (full[a * p + b] - n * da * (center[b] - shift[b])) / (n - 1);
      full[a * p + b] = v;
      full[b * p + a] = v;
    }
  }
  // Iterate on the non-constant columns only (e.g. MNIST's always-blank border).
  const activeList: number[] = [];
  for (let j = 0; j < p; j++) if (full[j * p + j] > 0) activeList.push(j);
  const active = activeList.length >= k
    ? Int32Array.from(activeList)
    : Int32Array.from({ length: p }, (_, j) => j);
  const fullP = p;
  const pa = active.length;
  const cov = new Float64Array(pa * pa);
  for (let a = 0; a < pa; a++) {
    for (let b = 0; b < pa; b++) cov[a * pa + b] = full[active[a] * fullP + active[b]];
  }
  // Subspace iteration with Rayleigh–Ritz.
  const bsize = Math.min(pa, k + Math.max(8, k >> 1));
  const rng = new Rng(options.seed ?? 0);
  let q = rng.fillNormal(new Float64Array(pa * bsize));
  _orthonormalize(q, pa, bsize, rng);
  let z = new Float64Array(pa * bsize);
  const h = new Float64Array(bsize * bsize), vecs = new Float64Array(bsize * bsize);
  let prev = new Float64Array(bsize).fill(NaN);
  for (let it = 0; it < maxIterations; it++) {
    // z = C q
    z.fill(0);
    for (let a = 0; a < pa; a++) {
      const ca = a * pa, za = a * bsize;
      for (let b = 0; b < pa; b++) {
        const c = cov[ca + b];
        if (c === 0) continue;
        const qb = b * bsize;
        for (let col = 0; col < bsize; col++) z[za + col] += c * q[qb + col];
      }
    }
    // h = qᵀ C q, eigen-decomposed; rotate q ← z then orthonormalise
    h.fill(0);
    for (let r = 0; r < pa; r++) {
      for (let a = 0; a < bsize; a++) {
        const qa = q[r * bsize + a];
        for (let b = 0; b < bsize; b++) h[a * bsize + b] += qa * z[r * bsize + b];
      }
    }
    const vals = _jacobiEigen(h, bsize, vecs);
    let converged = true;
    const order = Array.from({ length: bsize }, (_, i) => i).sort((i, j) => vals[j] - vals[i]);
    const sortedVals = new Float64Array(bsize);
    for (let i = 0; i < bsize; i++) sortedVals[i] = vals[order[i]];
    for (let i = 0; i < k; i++) {
      if (
        !(Math.abs(sortedVals[i] - prev[i]) <=
          tolerance * Math.max(Math.abs(sortedVals[0]), 1e-300))
      ) {
        converged = false;
      }
    }
    prev = sortedVals;
    // Ritz vectors q·V (sorted); on convergence keep them, else iterate on C·q·V.
    const src = converged ? q : z;
    const next = new Float64Array(pa * bsize);
    for (let r = 0; r < pa; r++) {
      for (let c = 0; c < bsize; c++) {
        let s = 0;
        const oc = order[c];
        for (let a = 0; a < bsize; a++) s += src[r * bsize + a] * vecs[a * bsize + oc];
        next[r * bsize + c] = s;
      }
    }
    if (!converged) _orthonormalize(next, pa, bsize, rng);
    q = next;
    z = new Float64Array(pa * bsize);
    if (converged) break;
  }
  // Keep the first k Ritz vectors, sign-normalised.
  const matrix = new Float64Array(fullP * k);
  const variances = new Float64Array(k);
  for (let c = 0; c < k; c++) {
    let big = 0;
    for (let r = 0; r < pa; r++) {
      if (Math.abs(q[r * bsize + c]) > Math.abs(big)) big = q[r * bsize + c];
    }
    const sgn = big < 0 ? -1 : 1;
    for (let r = 0; r < pa; r++) matrix[active[r] * k + c] = sgn * q[r * bsize + c];
    variances[c] = Math.max(prev[c], 0);
  }
  return { kind: "pca", inputDim: p, outputDim: k, matrix, center, variances };
}

/**
 * Standardise columns to mean 0 and sd 1 (sd with divisor n − 1). Constant
 * columns (sd 0, e.g. an intercept column of ones) are left unchanged, with
 * mean 0 and sd 1 recorded for them.
 *
 * @param x Row-major n × numCols values.
 * @param options `numCols`; optional `mean` and `sd` to reuse (e.g. training
 *   statistics applied to a test set; then no column is skipped unless its
 *   given sd is 1 and mean 0).
 * @returns The standardised copy and the statistics used.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { standardize } from "./projection.ts";
 * const { values } = standardize([1, 2, 1, 4, 1, 6], { numCols: 2 });
 * assert.deepEqual(Array.from(values), [1, -1, 1, 0, 1, 1]);
 * ```
 */
export function standardize(x: ArrayLike<number>, options: StandardizeOptions): Standardized {
  const d = options.numCols;
  const n = _checkMatrix(x, d);
  let mean: Float64Array, sd: Float64Array;
  if (options.mean !== undefined || options.sd !== undefined) {
    if (options.mean === undefined || options.sd === undefined) {
      throw new TypeError("standardize() needs both mean and sd, or neither; got only one");
    }
    if (options.mean.length !== d || options.sd.length !== d) {
      throw new RangeError(
        `mean and sd must have ${d} values, got ${options.mean.length} and ${options.sd.length}`,
      );
    }
    mean = Float64Array.from(options.mean);
    sd = Float64Array.from(options.sd);
    for (let j = 0; j < d; j++) {
      if (!(sd[j] > 0)) throw new RangeError(`sd must be positive, got ${sd[j]} for column ${j}`);
    }
  } else {
    if (n < 2) throw new RangeError(`standardize() needs at least 2 rows, got ${n}`);
    mean = new Float64Array(d);
    sd = new Float64Array(d);
    for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) mean[j] += x[i * d + j];
    for (let j = 0; j < d; j++) mean[j] /= n;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < d; j++) sd[j] += (x[i * d + j] - mean[j]) ** 2;
    }
    for (let j = 0; j < d; j++) {
      sd[j] = Math.sqrt(sd[j] / (n - 1));
      // Constant (relative to its size) columns are skipped.
      if (!(sd[j] > 1e-12 * Math.max(1, Math.abs(mean[j])))) {
        mean[j] = 0;
        sd[j] = 1;
      }
    }
  }
  const values = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) values[i * d + j] = (x[i * d + j] - mean[j]) / sd[j];
  }
  return { values, mean, sd };
}
