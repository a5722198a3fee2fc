/**
 * Euclidean metrics (mass matrices) for Hamiltonian samplers.
 *
 * A metric fixes the Gaussian kinetic energy K(p) = ½ pᵀ M⁻¹ p of HMC and its
 * variants (HMC-ECS eq. 4). It holds the inverse mass matrix M⁻¹ — the scale
 * the position moves on, ideally close to the posterior covariance — and a
 * factor F with F Fᵀ = M for drawing momenta p ~ N(0, M). Three shapes:
 * identity, diagonal (M⁻¹ a vector) and dense (M⁻¹ a d×d matrix).
 *
 * References: Neal (2011), "MCMC using Hamiltonian dynamics", §5.4.1;
 * Dang et al. (2019), HMC-ECS eq. (4) and §6.3 (M = −∇² log π(θ*)).
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { cholesky, inverseFromCholesky, matVecInto, squareDim } from "../math/linalg.ts";
import { positiveInteger } from "./validate_options.ts";

/** The shape of a metric. */
export type MetricKind = "identity" | "diagonal" | "dense";

/** A Euclidean metric: kinetic energy, velocity M⁻¹p and momentum draws. */
export interface Metric {
  /** Shape of the mass matrix. */
  readonly kind: MetricKind;
  /** Dimension d. */
  readonly dim: number;
  /**
   * M⁻¹: for `"identity"` and `"diagonal"` the diagonal (length d), for
   * `"dense"` the d×d row-major matrix. Do not modify.
   */
  readonly inverseMassMatrix: Float64Array;
  /**
   * K(p) = ½ pᵀ M⁻¹ p.
   *
   * @param momentum p (length d).
   * @returns The kinetic energy.
   */
  kineticEnergy(momentum: Float64Array): number;
  /**
   * Write the velocity dθ/dt = M⁻¹ p into `out`.
   *
   * @param momentum p (length d).
   * @param out Output (length d, must not alias `momentum` for dense metrics).
   * @returns `out`.
   */
  velocity(momentum: Float64Array, out: Float64Array): Float64Array;
  /**
   * Draw p ~ N(0, M) into `out`.
   *
   * @param rng The generator.
   * @param out Output (length d).
   * @returns `out`.
   */
  sampleMomentum(rng: Rng, out: Float64Array): Float64Array;
}

/**
 * The identity metric M = M⁻¹ = I.
 *
 * @param dim Dimension d (positive integer).
 * @returns The metric.
 *
 * @example
 * ```ts
 * import { identityMetric } from "./metric.ts";
 * const m = identityMetric(2);
 * if (m.kineticEnergy(new Float64Array([1, 2])) !== 2.5) throw new Error();
 * ```
 *
 * References: Neal (2011), §5.4.1.
 */
export function identityMetric(dim: number): Metric {
  positiveInteger("dim", dim);
  const ones = new Float64Array(dim).fill(1);
  return {
    kind: "identity",
    dim,
    inverseMassMatrix: ones,
    kineticEnergy(p: Float64Array): number {
      let s = 0;
      for (let i = 0; i < dim; i++) s += p[i] * p[i];
      return 0.5 * s;
    },
    velocity(p: Float64Array, out: Float64Array): Float64Array {
      for (let i = 0; i < dim; i++) out[i] = p[i];
      return out;
    },
    sampleMomentum(rng: Rng, out: Float64Array): Float64Array {
      for (let i = 0; i < dim; i++) out[i] = rng.normal();
      return out;
    },
  };
}

/**
 * A diagonal metric with M⁻¹ = diag(invDiag).
 *
 * @param inverseMassDiagonal The diagonal of M⁻¹ (positive, finite), e.g.
 *   posterior variances. Copied.
 * @returns The metric.
 * @throws {RangeError} If an entry is not positive and finite.
 *
 * @example
 * ```ts
 * import { diagonalMetric } from "./metric.ts";
 * const m = diagonalMetric(new Float64Array([4, 1]));
 * const v = m.velocity(new Float64Array([1, 1]), new Float64Array(2));
 * if (v[0] !== 4 || v[1] !== 1) throw new Error();
 * ```
 *
 * References: Neal (2011), §5.4.1.
 */
export function diagonalMetric(inverseMassDiagonal: Float64Array): Metric {
  if (!(inverseMassDiagonal instanceof Float64Array) || inverseMassDiagonal.length === 0) {
    throw new TypeError(
      `inverseMassDiagonal must be a non-empty Float64Array, got ${
        Object.prototype.toString.call(inverseMassDiagonal)
      }`,
    );
  }
  const dim = inverseMassDiagonal.length;
  const inv = Float64Array.from(inverseMassDiagonal);
  const sd = new Float64Array(dim); // √M_ii = 1/√(M⁻¹)_ii
  for (let i = 0; i < dim; i++) {
    const v = inv[i];
    if (!(v > 0) || !Number.isFinite(v)) {
      throw new RangeError(
        `inverseMassDiagonal must be positive and finite (the mass matrix is not positive definite), got ${v} at index ${i}`,
      );
    }
    sd[i] = 1 / Math.sqrt(v);
  }
  return {
    kind: "diagonal",
    dim,
    inverseMassMatrix: inv,
    // Locals, not the captured bindings, in the loops (see the dense metric).
    kineticEnergy(p: Float64Array): number {
      const a = inv, n = dim;
      let s = 0;
      for (let i = 0; i < n; i++) s += a[i] * p[i] * p[i];
      return 0.5 * s;
    },
    velocity(p: Float64Array, out: Float64Array): Float64Array {
      const a = inv, n = dim;
      for (let i = 0; i < n; i++) out[i] = a[i] * p[i];
      return out;
    },
    sampleMomentum(rng: Rng, out: Float64Array): Float64Array {
      const s = sd, n = dim;
      for (let i = 0; i < n; i++) out[i] = s[i] * rng.normal();
      return out;
    },
  };
}

/**
 * A dense metric with the given M⁻¹.
 *
 * M = (M⁻¹)⁻¹ is never formed: with M⁻¹ = C Cᵀ (Cholesky), p = C⁻ᵀ z with
 * z ~ N(0, I) has covariance C⁻ᵀ C⁻¹ = M, so drawing a momentum is one
 * triangular solve and no explicit inverse of a possibly ill-conditioned
 * matrix is needed.
 *
 * @param inverseMassMatrix M⁻¹, symmetric positive definite, d×d row-major
 *   (e.g. a posterior covariance). Copied.
 * @returns The metric.
 * @throws {RangeError} If M⁻¹ is not square, symmetric, finite and positive
 *   definite (the message names the failing pivot).
 *
 * @example
 * ```ts
 * import { denseMetric } from "./metric.ts";
 * const m = denseMetric(new Float64Array([2, 1, 1, 2]));
 * if (m.kineticEnergy(new Float64Array([1, 1])) !== 3) throw new Error();
 * ```
 *
 * References: Neal (2011), §5.4.1; Golub & Van Loan (2013), §4.2.
 */
export function denseMetric(inverseMassMatrix: Float64Array): Metric {
  squareDim(inverseMassMatrix, "inverseMassMatrix");
  const c = cholesky(inverseMassMatrix, { name: "inverseMassMatrix" });
  return _dense(_symmetrized(inverseMassMatrix), c, "inverse");
}

/**
 * The dense metric M = −H of HMC-ECS §6.3: M⁻¹ = (−H)⁻¹ for the Hessian H of
 * the log posterior at some θ*.
 *
 * −H is symmetrised; if it is not numerically positive definite (round-off),
 * a jitter τ·s·I with s = max(mean |diag(−H)|, 1e-300) and τ = 1e-10, 1e-8,
 * 1e-6, 1e-4 is added until the Cholesky factorisation succeeds. If it is
 * indefinite (θ* far from the mode, a posterior that is not log-concave), it
 * is shrunk toward its diagonal, as Stan shrinks its covariance estimate:
 * α(−H) + (1 − α)D with D = diag(max(|−Hᵢᵢ|, 10⁻⁸s)) and α = 0.9, 0.5, 0.1,
 * 0 — the first that is positive definite (α = 0 always is). Momenta are
 * p = L z with the factored matrix = L Lᵀ.
 *
 * @param hessian H = ∇² log π(θ*), d×d row-major.
 * @returns The metric (its `inverseMassMatrix` is the inverse of the factored matrix).
 * @throws {RangeError} If H has a non-finite entry.
 *
 * @example
 * ```ts
 * import { metricFromNegativeHessian } from "./metric.ts";
 * // log π = −½ θᵀ diag(4, 1) θ has Hessian −diag(4, 1): M⁻¹ = diag(1/4, 1).
 * const m = metricFromNegativeHessian(new Float64Array([-4, 0, 0, -1]));
 * if (m.inverseMassMatrix[0] !== 0.25 || m.inverseMassMatrix[3] !== 1) throw new Error();
 * ```
 *
 * References: Dang et al. (2019), §6.3; Neal (2011), §5.4.1.
 */
export function metricFromNegativeHessian(hessian: Float64Array): Metric {
  const n = squareDim(hessian, "hessian");
  const neg = new Float64Array(n * n);
  let meanDiag = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) neg[i * n + j] = -0.5 * (hessian[i * n + j] + hessian[j * n + i]);
    meanDiag += Math.abs(neg[i * n + i]) / n;
  }
  const scale = Math.max(meanDiag, 1e-300);
  const attempt = (a: Float64Array, jitter: number): Metric | null => {
    try {
      const l = cholesky(a, { name: "negative Hessian", jitter });
      const inv = inverseFromCholesky(l);
      return inv.every(Number.isFinite) ? _dense(inv, l, "mass") : null;
    } catch (e) {
      if (!(e instanceof RangeError) || /must be finite/.test(e.message)) throw e;
      return null;
    }
  };
  for (const tau of [0, 1e-10, 1e-8, 1e-6, 1e-4]) {
    const m = attempt(neg, tau * scale);
    if (m !== null) return m;
  }
  // Indefinite: shrink toward the (positive) diagonal.
  const shrunk = new Float64Array(n * n);
  for (const alpha of [0.9, 0.5, 0.1, 0]) {
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        shrunk[i * n + j] = i === j
          ? alpha * neg[i * n + i] +
            (1 - alpha) * Math.max(Math.abs(neg[i * n + i]), 1e-8 * scale)
          : alpha * neg[i * n + j];
      }
    }
    const m = attempt(shrunk, alpha === 0 ? 1e-8 * scale : 0);
    if (m !== null) return m;
  }
  throw new RangeError(`the negative Hessian's diagonal cannot be inverted (scale ${scale})`);
}

/**
 * Build a metric of the given kind from M⁻¹ (diagonal vector or dense matrix).
 *
 * @param kind `"identity"`, `"diagonal"` or `"dense"`.
 * @param options `dim` (for identity) or `inverseMassMatrix` (length d for
 *   diagonal, d² for dense).
 * @returns The metric.
 *
 * @example
 * ```ts
 * import { makeMetric } from "./metric.ts";
 * const m = makeMetric("diagonal", { inverseMassMatrix: new Float64Array([1, 2]) });
 * if (m.kind !== "diagonal") throw new Error();
 * ```
 *
 * References: Neal (2011), §5.4.1.
 */
export function makeMetric(
  kind: MetricKind,
  options: { dim?: number; inverseMassMatrix?: Float64Array },
): Metric {
  switch (kind) {
    case "identity": {
      const dim = options.dim ?? options.inverseMassMatrix?.length;
      return identityMetric(dim as number);
    }
    case "diagonal":
    case "dense": {
      const inv = options.inverseMassMatrix;
      if (inv === undefined) {
        throw new TypeError(`a ${kind} metric needs inverseMassMatrix, got undefined`);
      }
      return kind === "diagonal" ? diagonalMetric(inv) : denseMetric(inv);
    }
    default:
      throw new TypeError(
        `metric kind must be "identity", "diagonal" or "dense", got ${JSON.stringify(kind)}`,
      );
  }
}

function _symmetrized(a: Float64Array): Float64Array {
  const n = Math.round(Math.sqrt(a.length));
  const s = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) s[i * n + j] = 0.5 * (a[i * n + j] + a[j * n + i]);
  }
  return s;
}

/**
 * Dense metric from M⁻¹ and a Cholesky factor: of M⁻¹ (`factorOf = "inverse"`,
 * p = C⁻ᵀ z) or of M (`factorOf = "mass"`, p = L z).
 */
function _dense(inv: Float64Array, factor: Float64Array, factorOf: "inverse" | "mass"): Metric {
  return new _DenseMetric(inv, factor, factorOf === "mass");
}

/**
 * A dense metric's methods live on the class, not in closures made per
 * metric: a call site that calls them then sees one function whatever the
 * metric (a chain makes a new metric at its start and at each re-centring),
 * so the optimising compiler's code for it stays valid.
 */
class _DenseMetric implements Metric {
  readonly kind = "dense" as const;
  readonly dim: number;
  readonly inverseMassMatrix: Float64Array;
  readonly #factor: Float64Array;
  readonly #ofMass: boolean;
  readonly #z: Float64Array;
  readonly #scratch: Float64Array;

  constructor(inv: Float64Array, factor: Float64Array, ofMass: boolean) {
    this.dim = Math.round(Math.sqrt(inv.length));
    this.inverseMassMatrix = inv;
    this.#factor = factor;
    this.#ofMass = ofMass;
    this.#z = new Float64Array(this.dim);
    this.#scratch = new Float64Array(this.dim);
  }

  // The arrays and d are read into locals, and every inner loop that is
  // followed by a store runs in a helper (_dot, _backSub): so the optimising
  // compiler keeps the arrays in registers rather than reloading them at
  // every element (≈ 5× faster at d = 30; the same operations in the same
  // order, so the same numbers).
  // M⁻¹p eight and four rows at a time (matVecInto: each row's sum in the
  // same order, so the same numbers).
  kineticEnergy(p: Float64Array): number {
    const n = this.dim, v = matVecInto(this.inverseMassMatrix, n, p, this.#scratch);
    let s = 0;
    for (let i = 0; i < n; i++) s += p[i] * v[i];
    return 0.5 * s;
  }

  velocity(p: Float64Array, out: Float64Array): Float64Array {
    return matVecInto(this.inverseMassMatrix, this.dim, p, out);
  }

  sampleMomentum(rng: Rng, out: Float64Array): Float64Array {
    const f = this.#factor, zz = this.#z, n = this.dim;
    for (let i = 0; i < n; i++) zz[i] = rng.normal();
    if (this.#ofMass) {
      for (let i = 0; i < n; i++) out[i] = _dot(f, i * n, zz, i + 1);
    } else {
      for (let i = n - 1; i >= 0; i--) out[i] = _backSub(zz[i], f, i, n, out) / f[i * n + i];
    }
    return out;
  }
}

/** Σₖ₌₀^{len−1} a[row + k]·p[k], summed in order of k. */
function _dot(a: Float64Array, row: number, p: Float64Array, len: number): number {
  let t = 0;
  for (let k = 0; k < len; k++) t += a[row + k] * p[k];
  return t;
}

/** s − Σₖ₌ᵢ₊₁^{n−1} f[k·n + i]·x[k], subtracted in order of k (a column of a back substitution). */
function _backSub(s: number, f: Float64Array, i: number, n: number, x: Float64Array): number {
  let t = s;
  for (let k = i + 1; k < n; k++) t -= f[k * n + i] * x[k];
  return t;
}
