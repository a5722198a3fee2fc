/**
 * B-spline bases for additive (spline) regression models.
 *
 * A clamped knot vector of degree p with K basis functions has K + p + 1 knots:
 *
 * ```
 *  t₀ = … = t_p = min(x)  <  t_{p+1} ≤ … ≤ t_{K−1}  <  t_K = … = t_{K+p} = max(x)
 *  └── p+1 boundary ──┘      └ K−p−1 interior knots ┘    └── p+1 boundary ──┘
 *                             at the quantiles j/(K−p), j = 1…K−p−1, of x
 * ```
 *
 * and the basis functions come from the Cox–de Boor recursion
 *
 * ```
 *  B_{k,0}(x) = 1 if t_k ≤ x < t_{k+1} else 0
 *  B_{k,q}(x) = (x − t_k)/(t_{k+q} − t_k) · B_{k,q−1}(x)
 *             + (t_{k+q+1} − x)/(t_{k+q+1} − t_{k+1}) · B_{k+1,q−1}(x)     (0/0 := 0)
 * ```
 *
 * evaluated with de Boor's triangular scheme (only the p + 1 functions that
 * are non-zero at x). On [t_p, t_K] the full basis is non-negative and sums to
 * one in every row (partition of unity).
 *
 * **Identifiability.** Because the K functions sum to one, an additive model
 * `β₀ + Σⱼ fⱼ(xⱼ)` with a full basis per covariate is collinear with the
 * intercept. `dropFirst: true` builds K = numBasis + 1 functions and drops the
 * first, which removes that collinearity while keeping `numBasis` columns per
 * covariate; `centre: true` then subtracts each column's mean over the data so
 * every smooth is mean-zero and the intercept is the average log-odds (this
 * also decorrelates the intercept from the spline coefficients, which helps
 * samplers). Centring alone does not identify the model (the centred full
 * basis still sums to zero in every row), so use it together with `dropFirst`.
 *
 * References: de Boor (1978), *A Practical Guide to Splines*, ch. IX; Piegl &
 * Tiller (1997), *The NURBS Book*, Algorithm A2.2. The additive spline model
 * for bankruptcy data follows Giordani et al. (2014) as used in Dang et al.
 * (2019, HMC-ECS) §6.6.
 *
 * @module
 */

/** Options of {@link bsplineBasis}. */
export interface BsplineBasisOptions {
  /**
   * Number of columns of the returned matrix (default 10). With `dropFirst`,
   * numBasis + 1 B-splines are built and the first is dropped. Ignored when
   * `knots` is given (then it is implied by the knots, and a different value
   * throws).
   */
  numBasis?: number;
  /** Polynomial degree p (default 3, cubic). */
  degree?: number;
  /**
   * A full clamped knot vector (non-decreasing, length K + p + 1); by default
   * {@link quantileKnots} of `values`. Pass the training knots to evaluate the
   * same basis at new points (e.g. a plotting grid).
   */
  knots?: ArrayLike<number>;
  /** Drop the first B-spline (identifiability with an intercept). Default false. */
  dropFirst?: boolean;
  /**
   * `true`: subtract each column's mean over `values`; an array: subtract
   * these values (e.g. the training means, for new points). Default false.
   */
  centre?: boolean | ArrayLike<number>;
}

/** Options of {@link quantileKnots}. */
export interface QuantileKnotsOptions {
  /** Number of B-spline functions K (≥ degree + 1). */
  numSplines: number;
  /** Polynomial degree p (default 3). */
  degree?: number;
}

function _checkDegree(degree: number): void {
  if (!Number.isInteger(degree) || degree < 0 || degree > 20) {
    throw new RangeError(`degree must be an integer in [0, 20], got ${degree}`);
  }
}

/**
 * The q-quantile of sorted values (linear interpolation between order
 * statistics, R's type 7).
 */
function _quantileSorted(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h), hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * A clamped knot vector with interior knots at equally spaced quantiles of
 * `values` and boundary knots (each repeated degree + 1 times) at the minimum
 * and maximum.
 *
 * @param values The covariate (finite numbers, not all equal).
 * @param options `numSplines` K and `degree` p.
 * @returns The K + p + 1 knots.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { quantileKnots } from "./bspline.ts";
 * const knots = quantileKnots([0, 1, 2, 3, 4], { numSplines: 5, degree: 3 });
 * assert.deepEqual(Array.from(knots), [0, 0, 0, 0, 2, 4, 4, 4, 4]);
 * ```
 */
export function quantileKnots(
  values: ArrayLike<number>,
  options: QuantileKnotsOptions,
): Float64Array {
  const degree = options.degree ?? 3;
  _checkDegree(degree);
  const numSplines = options.numSplines;
  if (!Number.isInteger(numSplines) || numSplines < degree + 1) {
    throw new RangeError(
      `numSplines must be an integer ≥ degree + 1 = ${degree + 1}, got ${numSplines}`,
    );
  }
  if (values.length === 0) throw new RangeError("values must not be empty, got 0 values");
  const sorted = Float64Array.from(values);
  for (let i = 0; i < sorted.length; i++) {
    if (!Number.isFinite(sorted[i])) {
      throw new RangeError(`values must be finite, got ${sorted[i]} at index ${i}`);
    }
  }
  sorted.sort();
  const lo = sorted[0], hi = sorted[sorted.length - 1];
  if (!(hi > lo)) {
    throw new RangeError(`values must not all be equal to build knots, got all ${lo}`);
  }
  const numInterior = numSplines - degree - 1;
  const knots = new Float64Array(numSplines + degree + 1);
  for (let k = 0; k <= degree; k++) {
    knots[k] = lo;
    knots[numSplines + k] = hi;
  }
  for (let j = 1; j <= numInterior; j++) {
    knots[degree + j] = _quantileSorted(sorted, j / (numInterior + 1));
  }
  return knots;
}

/**
 * Index s of the knot span [t_s, t_{s+1}) containing x, with p ≤ s ≤ K − 1
 * (x = t_K falls in the last non-empty span).
 */
function _findSpan(
  knots: ArrayLike<number>,
  numSplines: number,
  degree: number,
  x: number,
): number {
  if (x >= knots[numSplines]) {
    let s = numSplines - 1;
    while (s > degree && knots[s] === knots[s + 1]) s--;
    return s;
  }
  let lo = degree, hi = numSplines; // knots[lo] ≤ x < knots[hi]
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (x < knots[mid]) hi = mid;
    else lo = mid;
  }
  return lo;
}

/**
 * Writes the p + 1 B-splines that are non-zero at x (functions s−p … s) into
 * `out[0..p]`. `left`/`right` are scratch arrays of length p + 1.
 */
function _basisFuns(
  knots: ArrayLike<number>,
  span: number,
  x: number,
  degree: number,
  out: Float64Array,
  left: Float64Array,
  right: Float64Array,
): void {
  out[0] = 1;
  for (let j = 1; j <= degree; j++) {
    left[j] = x - knots[span + 1 - j];
    right[j] = knots[span + j] - x;
    let saved = 0;
    for (let r = 0; r < j; r++) {
      const denom = right[r + 1] + left[j - r];
      const temp = denom === 0 ? 0 : out[r] / denom;
      out[r] = saved + right[r + 1] * temp;
      saved = left[j - r] * temp;
    }
    out[j] = saved;
  }
}

/**
 * The B-spline design matrix of one covariate: row i holds the basis
 * functions evaluated at `values[i]` (values outside the boundary knots are
 * clamped to them).
 *
 * @param values The covariate values (finite).
 * @param options `numBasis` (10), `degree` (3), `knots` (quantile knots by
 *   default), `dropFirst` (false), `centre` (false).
 * @returns Row-major n × numBasis values. Without `dropFirst`/`centre` every
 *   entry is in [0, 1] and every row sums to 1.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { bsplineBasis } from "./bspline.ts";
 * const x = Array.from({ length: 50 }, (_, i) => Math.sqrt(i));
 * const basis = bsplineBasis(x, { numBasis: 6 });
 * let sum = 0;
 * for (let k = 0; k < 6; k++) sum += basis[7 * 6 + k];
 * assert.ok(Math.abs(sum - 1) < 1e-12);
 * ```
 */
export function bsplineBasis(
  values: ArrayLike<number>,
  options: BsplineBasisOptions = {},
): Float64Array {
  const degree = options.degree ?? 3;
  _checkDegree(degree);
  const dropFirst = options.dropFirst ?? false;
  let knots: ArrayLike<number>;
  let numSplines: number;
  if (options.knots !== undefined) {
    knots = options.knots;
    numSplines = knots.length - degree - 1;
    if (numSplines < degree + 1) {
      throw new RangeError(
        `knots must have at least 2·(degree + 1) = ${2 * degree + 2} entries, got ${knots.length}`,
      );
    }
    for (let k = 0; k < knots.length; k++) {
      if (!Number.isFinite(knots[k]) || (k > 0 && knots[k] < knots[k - 1])) {
        throw new RangeError(`knots must be finite and non-decreasing, got ${knots[k]} at ${k}`);
      }
    }
    if (!(knots[numSplines] > knots[degree])) {
      throw new RangeError(
        `the boundary knots must differ, got ${knots[degree]} and ${knots[numSplines]}`,
      );
    }
    const implied = numSplines - (dropFirst ? 1 : 0);
    if (options.numBasis !== undefined && options.numBasis !== implied) {
      throw new RangeError(
        `numBasis ${options.numBasis} disagrees with the ${knots.length} knots given (${implied} columns)`,
      );
    }
  } else {
    const numBasis = options.numBasis ?? 10;
    if (!Number.isInteger(numBasis) || numBasis < 1) {
      throw new RangeError(`numBasis must be a positive integer, got ${numBasis}`);
    }
    numSplines = numBasis + (dropFirst ? 1 : 0);
    if (numSplines < degree + 1) {
      throw new RangeError(
        `numBasis must give at least degree + 1 = ${degree + 1} B-splines, got ${numSplines}`,
      );
    }
    knots = quantileKnots(values, { numSplines, degree });
  }
  const numCols = numSplines - (dropFirst ? 1 : 0);
  const n = values.length;
  const out = new Float64Array(n * numCols);
  const local = new Float64Array(degree + 1);
  const left = new Float64Array(degree + 1), right = new Float64Array(degree + 1);
  const lo = knots[degree], hi = knots[numSplines];
  const shift = dropFirst ? 1 : 0;
  for (let i = 0; i < n; i++) {
    let x = values[i];
    if (!Number.isFinite(x)) {
      throw new RangeError(`values must be finite, got ${x} at index ${i}`);
    }
    if (x < lo) x = lo;
    else if (x > hi) x = hi;
    const span = _findSpan(knots, numSplines, degree, x);
    _basisFuns(knots, span, x, degree, local, left, right);
    const base = i * numCols;
    for (let r = 0; r <= degree; r++) {
      const col = span - degree + r - shift;
      if (col >= 0) out[base + col] = local[r];
    }
  }
  const centre = options.centre ?? false;
  if (centre !== false) {
    let means: ArrayLike<number>;
    if (centre === true) {
      const m = new Float64Array(numCols);
      for (let i = 0; i < n; i++) for (let k = 0; k < numCols; k++) m[k] += out[i * numCols + k];
      for (let k = 0; k < numCols; k++) m[k] /= n;
      means = m;
    } else {
      means = centre;
      if (means.length !== numCols) {
        throw new RangeError(`centre must have ${numCols} values, got ${means.length}`);
      }
    }
    for (let i = 0; i < n; i++) for (let k = 0; k < numCols; k++) out[i * numCols + k] -= means[k];
  }
  return out;
}
