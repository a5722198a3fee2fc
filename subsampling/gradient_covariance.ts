/**
 * Covariance of per-row gradients, for the covariance-controlled thermostat.
 *
 * A minibatch gradient (N/n)Σₖ gₖ with gₖ = ∇ℓ_{rₖ}(θ) has noise covariance
 * Σ(θ) = N² I(θ)/n where I(θ) = Cov[g(θ; x)] is the covariance of one row's
 * gradient (CCAdL eqs. 16–17). This module turns per-row gradient moments of a
 * minibatch (Σgₖ, and Σgₖ⊙gₖ or Σgₖgₖᵀ) into the empirical covariance V(θ)
 * (eq. 19), keeps the running estimate Îₜ = (1 − κₜ)Îₜ₋₁ + κₜV(θₜ), κₜ = 1/t
 * (eq. 18), and applies Σ̂ = N²Î/n to a vector.
 *
 * ```
 *  diagonal: V, Î  are d numbers           (Vⱼ = Var gⱼ)
 *  full:     V, Î  are d × d, row-major    (V = Cov g)
 * ```
 *
 * References: Shang, Zhu, Leimkuhler & Storkey (2015), "Covariance-controlled
 * adaptive Langevin thermostat", eqs. 16–19; Ahn, Korattikara & Welling (2012).
 *
 * @module
 */

/** Which covariance is estimated: per-coordinate variances, or the full matrix. */
export type CovarianceKind = "diagonal" | "full";

/** Per-row gradient moments of one minibatch of `count` rows. */
export interface GradientMoments {
  /** "diagonal": `second` is Σgₖ⊙gₖ (d); "full": Σgₖgₖᵀ (d × d row-major). */
  readonly kind: CovarianceKind;
  /** Number of rows n in the minibatch. */
  readonly count: number;
  /** Σₖ gₖ (length d). */
  readonly sum: Float64Array;
  /** Σₖ gₖ⊙gₖ (length d) or Σₖ gₖgₖᵀ (length d²). */
  readonly second: Float64Array;
}

/** The running estimate Îₜ of the per-row gradient covariance (eq. 18). */
export interface CovarianceEstimate {
  /** Diagonal or full. */
  readonly kind: CovarianceKind;
  /** Dimension d. */
  readonly dim: number;
  /** Number t of updates folded in so far. */
  readonly numUpdates: number;
  /** Îₜ: d variances ("diagonal") or d × d row-major ("full"). */
  readonly value: Float64Array;
}

function _checkKind(kind: string): void {
  if (kind !== "diagonal" && kind !== "full") {
    throw new TypeError(
      `covariance kind must be "diagonal" or "full", got ${JSON.stringify(kind)}`,
    );
  }
}

function _secondLength(kind: CovarianceKind, d: number): number {
  return kind === "full" ? d * d : d;
}

/**
 * Empirical covariance V(θ) of the per-row gradients of one minibatch,
 * V = (Σgₖgₖᵀ − n ḡḡᵀ)/(n − 1) with ḡ = Σgₖ/n (eq. 19), from their moments.
 *
 * @param moments Σgₖ and Σgₖ⊙gₖ (diagonal) or Σgₖgₖᵀ (full) over n ≥ 2 rows.
 * @param out Optional output (d or d²); allocated when omitted.
 * @returns V: d variances or the d × d matrix (row-major).
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { empiricalCovariance } from "./gradient_covariance.ts";
 * // rows g = 1, 3 (d = 1): mean 2, variance ((1−2)² + (3−2)²)/1 = 2
 * const v = empiricalCovariance({
 *   kind: "diagonal", count: 2, sum: new Float64Array([4]), second: new Float64Array([10]),
 * });
 * assert.equal(v[0], 2);
 * ```
 *
 * References: Shang et al. (2015), eq. 19.
 */
export function empiricalCovariance(moments: GradientMoments, out?: Float64Array): Float64Array {
  _checkKind(moments.kind);
  const n = moments.count, d = moments.sum.length;
  if (!Number.isInteger(n) || n < 2) {
    throw new RangeError(`the empirical covariance needs at least 2 rows, got count = ${n}`);
  }
  const len = _secondLength(moments.kind, d);
  if (moments.second.length !== len) {
    throw new RangeError(
      `moments.second must have ${len} values for a ${moments.kind} covariance of dimension ${d}, got ${moments.second.length}`,
    );
  }
  const v = out ?? new Float64Array(len);
  if (v.length < len) throw new RangeError(`out must hold ${len} values, got ${v.length}`);
  const s = moments.sum, s2 = moments.second, c = 1 / (n - 1), invN = 1 / n;
  if (moments.kind === "diagonal") {
    for (let j = 0; j < d; j++) v[j] = (s2[j] - s[j] * s[j] * invN) * c;
  } else {
    for (let j = 0; j < d; j++) {
      const sj = s[j] * invN;
      for (let k = 0; k < d; k++) v[j * d + k] = (s2[j * d + k] - sj * s[k]) * c;
    }
  }
  return v;
}

/**
 * Per-row gradient moments computed in TypeScript from an m × d matrix of
 * per-row gradients (the path for pure-TS models, and the brute-force oracle
 * of the WebAssembly path).
 *
 * @param gradients Row-major per-row gradients, at least `count × dim` values.
 * @param options `dim` d, `count` m (default: gradients.length / dim), `kind`,
 *   and optional `out` arrays (overwritten) for the sums.
 * @returns The moments Σgₖ and Σgₖ⊙gₖ or Σgₖgₖᵀ.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { perRowGradientMoments } from "./gradient_covariance.ts";
 * const m = perRowGradientMoments(new Float64Array([1, 2, 3, 4]), { dim: 2, kind: "full" });
 * assert.deepEqual(Array.from(m.sum), [4, 6]);
 * assert.deepEqual(Array.from(m.second), [10, 14, 14, 20]);
 * ```
 *
 * References: Shang et al. (2015), eq. 19.
 */
export function perRowGradientMoments(
  gradients: Float64Array,
  options: {
    dim: number;
    count?: number;
    kind: CovarianceKind;
    out?: { sum: Float64Array; second: Float64Array };
  },
): GradientMoments {
  const d = options.dim;
  _checkKind(options.kind);
  if (!Number.isInteger(d) || d <= 0) {
    throw new RangeError(`dim must be a positive integer, got ${d}`);
  }
  const m = options.count ?? Math.floor(gradients.length / d);
  if (!Number.isInteger(m) || m < 0 || m * d > gradients.length) {
    throw new RangeError(
      `count must be an integer in [0, ${Math.floor(gradients.length / d)}], got ${m}`,
    );
  }
  const len = _secondLength(options.kind, d);
  const sum = options.out?.sum.fill(0, 0, d) ?? new Float64Array(d);
  const second = options.out?.second.fill(0, 0, len) ?? new Float64Array(len);
  if (sum.length !== d || second.length !== len) {
    throw new RangeError(
      `out.sum and out.second must have ${d} and ${len} values, got ${sum.length} and ${second.length}`,
    );
  }
  for (let k = 0; k < m; k++) {
    const o = k * d;
    for (let j = 0; j < d; j++) {
      const gj = gradients[o + j];
      sum[j] += gj;
      if (options.kind === "diagonal") second[j] += gj * gj;
      else for (let l = 0; l < d; l++) second[j * d + l] += gj * gradients[o + l];
    }
  }
  return { kind: options.kind, count: m, sum, second };
}

/**
 * A fresh running estimate Î₀ = 0 (it is replaced by the first V(θ₁), since
 * κ₁ = 1).
 *
 * @param dim Dimension d.
 * @param kind "diagonal" (default) or "full".
 * @returns The estimate with `numUpdates` 0.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { initCovarianceEstimate } from "./gradient_covariance.ts";
 * assert.equal(initCovarianceEstimate(3, "full").value.length, 9);
 * ```
 *
 * References: Shang et al. (2015), Algorithm 1 (initialisation of I₀).
 */
export function initCovarianceEstimate(
  dim: number,
  kind: CovarianceKind = "diagonal",
): CovarianceEstimate {
  _checkKind(kind);
  if (!Number.isInteger(dim) || dim <= 0) {
    throw new RangeError(`dim must be a positive integer, got ${dim}`);
  }
  return { kind, dim, numUpdates: 0, value: new Float64Array(_secondLength(kind, dim)) };
}

/**
 * {@link updateCovarianceEstimate} and then {@link applyCovariance} of the
 * new estimate in one pass over its values: the same numbers to the last
 * bit, read once instead of twice (CCAdL's full d × d estimate at d = 100
 * is 10⁴ values per step).
 *
 * @param estimate Îₜ₋₁.
 * @param options `covariance` V(θₜ), `weight` κₜ (default 1/t), `out` for Îₜ
 *   (may be `estimate.value`: updated in place), `vector` v, `scale` s
 *   (default 1), `product` for s·Îₜv (default a new array).
 * @returns Îₜ and s·Îₜv.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { initCovarianceEstimate, updateAndApplyCovariance } from "./gradient_covariance.ts";
 * const r = updateAndApplyCovariance(initCovarianceEstimate(2), {
 *   covariance: new Float64Array([2, 3]),
 *   vector: new Float64Array([1, 1]),
 * });
 * assert.deepEqual([...r.product], [2, 3]);
 * ```
 *
 * References: Shang et al. (2015), eqs. 18–19 and Algorithm 1.
 */
export function updateAndApplyCovariance(
  estimate: CovarianceEstimate,
  options: {
    covariance: Float64Array;
    weight?: number;
    out?: Float64Array;
    vector: Float64Array;
    scale?: number;
    product?: Float64Array;
  },
): { estimate: CovarianceEstimate; product: Float64Array } {
  const { v, t, kappa, out } = _updateArgs(estimate, options), d = estimate.dim;
  const x = options.vector, s = options.scale ?? 1;
  if (x.length !== d) throw new RangeError(`vector must have length ${d}, got ${x.length}`);
  const product = options.product ?? new Float64Array(d);
  if (product.length !== d) {
    throw new RangeError(`product must have length ${d}, got ${product.length}`);
  }
  const prev = estimate.value, keep = 1 - kappa;
  if (estimate.kind === "diagonal") {
    for (let j = 0; j < d; j++) {
      const c = keep * prev[j] + kappa * v[j];
      out[j] = c;
      product[j] = s * c * x[j];
    }
  } else {
    for (let j = 0; j < d; j++) {
      let acc = 0;
      const o = j * d;
      for (let k = 0; k < d; k++) {
        const c = keep * prev[o + k] + kappa * v[o + k];
        out[o + k] = c;
        acc += c * x[k];
      }
      product[j] = s * acc;
    }
  }
  return {
    estimate: { kind: estimate.kind, dim: d, numUpdates: t, value: out },
    product,
  };
}

/** The checked arguments of one update Îₜ = (1 − κₜ)Îₜ₋₁ + κₜV(θₜ): V, t, κₜ and the output. */
function _updateArgs(
  estimate: CovarianceEstimate,
  options: { covariance: Float64Array; weight?: number; out?: Float64Array },
): { v: Float64Array; t: number; kappa: number; out: Float64Array } {
  const v = options.covariance, len = estimate.value.length;
  if (v.length !== len) {
    throw new RangeError(
      `covariance must have ${len} values for this ${estimate.kind} estimate, got ${v.length}`,
    );
  }
  const t = estimate.numUpdates + 1;
  const kappa = options.weight ?? 1 / t;
  if (!(kappa > 0 && kappa <= 1)) throw new RangeError(`weight must be in (0, 1], got ${kappa}`);
  const out = options.out ?? new Float64Array(len);
  if (out.length !== len) throw new RangeError(`out must have ${len} values, got ${out.length}`);
  return { v, t, kappa, out };
}

/**
 * Fold one empirical covariance into the running estimate:
 * Îₜ = (1 − κₜ)Îₜ₋₁ + κₜV(θₜ) with κₜ = 1/t by default (eq. 18). Pure: the
 * input estimate is not modified.
 *
 * @param estimate Îₜ₋₁.
 * @param options `covariance` V(θₜ) (same kind and length as the estimate);
 *   `weight` κₜ in (0, 1] (default 1/t); `out` optional array to write Îₜ into
 *   (may be `estimate.value` itself to update in place).
 * @returns Îₜ with `numUpdates` t.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { initCovarianceEstimate, updateCovarianceEstimate } from "./gradient_covariance.ts";
 * let est = initCovarianceEstimate(1);
 * est = updateCovarianceEstimate(est, { covariance: new Float64Array([2]) });
 * est = updateCovarianceEstimate(est, { covariance: new Float64Array([4]) });
 * assert.equal(est.value[0], 3); // the mean of 2 and 4
 * ```
 *
 * References: Shang et al. (2015), eq. 18.
 */
export function updateCovarianceEstimate(
  estimate: CovarianceEstimate,
  options: { covariance: Float64Array; weight?: number; out?: Float64Array },
): CovarianceEstimate {
  const { v, t, kappa, out } = _updateArgs(estimate, options), len = out.length;
  const prev = estimate.value, keep = 1 - kappa;
  for (let i = 0; i < len; i++) out[i] = keep * prev[i] + kappa * v[i];
  return { kind: estimate.kind, dim: estimate.dim, numUpdates: t, value: out };
}

/**
 * out = scale · Î v, the covariance estimate applied to a vector (diagonal:
 * elementwise; full: a matrix-vector product). With scale = N²/n this is
 * Σ̂(θ)v, the covariance-control term of CCAdL.
 *
 * @param estimate Î (diagonal or full).
 * @param options `vector` v (length d), `scale` (default 1), `out` (length d).
 * @returns `out` (allocated if omitted).
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { applyCovariance } from "./gradient_covariance.ts";
 * const est = { kind: "full" as const, dim: 2, numUpdates: 1, value: new Float64Array([2, 1, 1, 3]) };
 * assert.deepEqual(Array.from(applyCovariance(est, { vector: new Float64Array([1, 1]), scale: 2 })), [6, 8]);
 * ```
 *
 * References: Shang et al. (2015), Algorithm 1 line 6, Σ(θ) = N²I/n (eq. 17).
 */
export function applyCovariance(
  estimate: CovarianceEstimate,
  options: { vector: Float64Array; scale?: number; out?: Float64Array },
): Float64Array {
  const d = estimate.dim, v = options.vector, s = options.scale ?? 1;
  if (v.length !== d) throw new RangeError(`vector must have length ${d}, got ${v.length}`);
  const out = options.out ?? new Float64Array(d);
  const c = estimate.value;
  if (estimate.kind === "diagonal") {
    for (let j = 0; j < d; j++) out[j] = s * c[j] * v[j];
  } else {
    for (let j = 0; j < d; j++) {
      let acc = 0;
      const o = j * d;
      for (let k = 0; k < d; k++) acc += c[o + k] * v[k];
      out[j] = s * acc;
    }
  }
  return out;
}
