/**
 * Mass-matrix (metric) adaptation during warmup — never during sampling.
 *
 * Two schemes:
 *
 * - **Windowed** (Stan): after an initial fast buffer (75 iterations), draws
 *   in slow windows of doubling length (25, 50, 100, …) estimate the posterior
 *   (co)variance with Welford's algorithm; at the end of each window M⁻¹ is
 *   set to the regularised estimate (n/(n+5)) Σ̂ + 10⁻³ (5/(n+5)) I and the
 *   estimator restarts; a terminal fast buffer (50 iterations) lets the step
 *   size settle on the final metric. Diagonal or dense.
 * - **Hessian** (HMC-ECS §6.3): starting from M = I, every `updateEvery`
 *   (200) warmup iterations θ* is re-centred at the mean of the draws since
 *   the last update and M⁻¹ = (−∇² log π(θ*))⁻¹. For a {@link DataModel} the
 *   Hessian is a full data pass, recorded by the model's cost counter.
 *
 * Both update their state in place and return the new {@link Metric} when
 * it changes (else `null`); the caller then restarts step-size adaptation.
 *
 * References: Stan Reference Manual, "HMC algorithm parameters — Automatic
 * parameter tuning" (windowed adaptation); Welford (1962); Dang et al. (2019),
 * HMC-ECS §6.3.
 *
 * @module
 */
import type { DataModel } from "../models/model.ts";
import { denseMetric, diagonalMetric, type Metric, metricFromNegativeHessian } from "./metric.ts";
import { nonNegativeInteger, positiveInteger } from "./validate_options.ts";
import { cholesky, solveLower } from "../math/linalg.ts";

/** A slow adaptation window [start, end) in 0-based warmup iterations. */
export interface AdaptationWindow {
  /** First warmup iteration of the window. */
  readonly start: number;
  /** One past the last warmup iteration of the window. */
  readonly end: number;
}

/** Buffer sizes of the windowed scheme (Stan's defaults). */
export interface WindowScheduleOptions {
  /** Initial fast buffer (default 75). */
  initialBuffer?: number;
  /** Length of the first slow window (default 25; each next one doubles). */
  firstWindow?: number;
  /** Terminal fast buffer (default 50). */
  terminalBuffer?: number;
}

/**
 * Stan's slow-window schedule for `numWarmup` iterations.
 *
 * If the buffers and first window do not fit, they become 15 %, 75 % and 10 %
 * of warmup (Stan's fallback); with fewer than 20 warmup iterations there is
 * no window. A window that would leave less than twice its length before the
 * terminal buffer is stretched to the terminal buffer.
 *
 * @param numWarmup Number of warmup iterations (non-negative integer).
 * @param options Buffer sizes.
 * @returns The slow windows in order.
 *
 * @example
 * ```ts
 * import { windowSchedule } from "./mass_matrix_adaptation.ts";
 * const w = windowSchedule(1000).map((x) => `${x.start}-${x.end}`).join(" ");
 * if (w !== "75-100 100-150 150-250 250-450 450-950") throw new Error(w);
 * ```
 *
 * References: Stan Reference Manual, "Automatic parameter tuning"; Stan's
 * `windowed_adaptation::compute_next_window`.
 */
export function windowSchedule(
  numWarmup: number,
  options: WindowScheduleOptions = {},
): AdaptationWindow[] {
  nonNegativeInteger("numWarmup", numWarmup);
  let init = options.initialBuffer ?? 75;
  let base = options.firstWindow ?? 25;
  let term = options.terminalBuffer ?? 50;
  for (const [name, v] of [["initialBuffer", init], ["terminalBuffer", term]] as const) {
    if (!Number.isInteger(v) || v < 0) {
      throw new RangeError(`${name} must be a non-negative integer, got ${v}`);
    }
  }
  positiveInteger("firstWindow", base);
  if (numWarmup < 20) return [];
  if (init + base + term > numWarmup) {
    init = Math.floor(0.15 * numWarmup);
    term = Math.floor(0.1 * numWarmup);
    base = numWarmup - init - term;
  }
  const boundary = numWarmup - term;
  const windows: AdaptationWindow[] = [];
  let start = init, size = base;
  while (start < boundary) {
    let end = start + size;
    if (end + 2 * size > boundary) end = boundary;
    windows.push({ start, end });
    start = end;
    size *= 2;
  }
  return windows;
}

/** Welford accumulator of a mean and a (co)variance. Updated in place. */
export interface WelfordState {
  /** Number of points n. */
  count: number;
  /** Running mean (length d). */
  readonly mean: Float64Array;
  /** Sum of squared deviations: length d (diagonal) or d×d (dense). */
  readonly m2: Float64Array;
  /** Whether the full covariance is tracked. */
  readonly isDense: boolean;
}

/**
 * An empty Welford accumulator.
 *
 * @param dim Dimension d.
 * @param options `dense` to track the full covariance (default false).
 * @returns The accumulator.
 *
 * @example
 * ```ts
 * import { welfordCovariance, welfordInit, welfordUpdate } from "./mass_matrix_adaptation.ts";
 * const w = welfordInit(1);
 * for (const x of [1, 2, 3, 4]) welfordUpdate(w, new Float64Array([x]));
 * if (welfordCovariance(w, { regularize: false })[0] !== 5 / 3) throw new Error();
 * ```
 *
 * References: Welford (1962); Stan's `welford_var_estimator`.
 */
export function welfordInit(dim: number, options: { dense?: boolean } = {}): WelfordState {
  positiveInteger("dim", dim);
  const isDense = options.dense ?? false;
  return {
    count: 0,
    mean: new Float64Array(dim),
    m2: new Float64Array(isDense ? dim * dim : dim),
    isDense,
  };
}

/**
 * Add one point to a Welford accumulator (in place).
 *
 * @param state The accumulator.
 * @param x The point (length d).
 *
 * @example
 * ```ts
 * import { welfordInit, welfordUpdate } from "./mass_matrix_adaptation.ts";
 * const w = welfordInit(2);
 * welfordUpdate(w, new Float64Array([1, 2]));
 * if (w.count !== 1 || w.mean[1] !== 2) throw new Error();
 * ```
 *
 * References: Welford (1962).
 */
export function welfordUpdate(state: WelfordState, x: Float64Array): void {
  const d = state.mean.length;
  if (x.length !== d) throw new RangeError(`point must have length ${d}, got ${x.length}`);
  state.count++;
  const n = state.count, mean = state.mean, m2 = state.m2;
  if (state.isDense) {
    // m2 += (x − mean_old)(x − mean_new)ᵀ, kept exactly symmetric.
    const delta = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      delta[i] = x[i] - mean[i];
      mean[i] += delta[i] / n;
    }
    for (let i = 0; i < d; i++) {
      for (let j = 0; j <= i; j++) {
        const v = m2[i * d + j] + delta[i] * (x[j] - mean[j]) * 0.5 +
          delta[j] * (x[i] - mean[i]) * 0.5;
        m2[i * d + j] = v;
        m2[j * d + i] = v;
      }
    }
  } else {
    for (let i = 0; i < d; i++) {
      const delta = x[i] - mean[i];
      mean[i] += delta / n;
      m2[i] += delta * (x[i] - mean[i]);
    }
  }
}

/**
 * The sample (co)variance Σ̂ = m2/(n − 1), by default with Stan's
 * regularisation (n/(n+5)) Σ̂ + 10⁻³ (5/(n+5)) I.
 *
 * @param state The accumulator (n ≥ 2).
 * @param options `regularize` (default true).
 * @returns Variances (length d) or covariance (d×d).
 *
 * @example
 * ```ts
 * import { welfordCovariance, welfordInit, welfordUpdate } from "./mass_matrix_adaptation.ts";
 * const w = welfordInit(1);
 * for (const x of [0, 2]) welfordUpdate(w, new Float64Array([x]));
 * // Σ̂ = 2, n = 2: (2/7)·2 + 1e-3·(5/7)
 * if (Math.abs(welfordCovariance(w)[0] - (4 + 5e-3) / 7) > 1e-15) throw new Error();
 * ```
 *
 * References: Stan's `diag_e_adaptation::learn_variance`.
 */
export function welfordCovariance(
  state: WelfordState,
  options: { regularize?: boolean } = {},
): Float64Array {
  const n = state.count, d = state.mean.length;
  if (n < 2) throw new RangeError(`need at least 2 points for a covariance, got ${n}`);
  const out = new Float64Array(state.m2.length);
  const regularize = options.regularize ?? true;
  const a = regularize ? n / (n + 5) : 1, b = regularize ? 1e-3 * (5 / (n + 5)) : 0;
  for (let i = 0; i < out.length; i++) out[i] = a * state.m2[i] / (n - 1);
  for (let i = 0; i < d; i++) out[state.isDense ? i * d + i : i] += b;
  return out;
}

/** Options of {@link windowedAdaptationInit}. */
export interface WindowedAdaptationOptions extends WindowScheduleOptions {
  /** Number of warmup iterations. */
  numWarmup: number;
  /** `"diagonal"` (default) or `"dense"`. */
  metric?: "diagonal" | "dense";
  /**
   * A covariance to shrink each window's estimate toward (its M⁻¹; e.g. the
   * Laplace covariance at the mode): the window's metric is then (1 − δ)Σ̂ + δT
   * with the Ledoit–Wolf intensity δ ({@link shrinkageIntensity}) instead of
   * Stan's (n/(n+5))Σ̂ + 10⁻³(5/(n+5))I. Default none (Stan's).
   */
  shrinkageTarget?: Metric;
}

/** State of the windowed scheme. Updated in place by {@link windowedAdaptationUpdate}. */
export interface WindowedAdaptationState {
  /** Discriminator. */
  readonly scheme: "windowed";
  /** The metric shape being estimated. */
  readonly metric: "diagonal" | "dense";
  /** The slow windows. */
  readonly windows: readonly AdaptationWindow[];
  /** Warmup iterations seen so far. */
  iteration: number;
  /** The estimator of the current window. */
  estimator: WelfordState;
  /** What the window's draws are shrunk toward, or null (Stan's regularisation). */
  readonly target: ShrinkageTarget | null;
  /** The current window's statistics for the shrinkage intensity (null without a target). */
  shrinkage: ShrinkageSums | null;
}

/** A shrinkage target T and the factor that whitens draws by it. */
export interface ShrinkageTarget {
  /** T: d×d row-major (dense) or its diagonal (diagonal scheme). */
  readonly covariance: Float64Array;
  /** Lower Cholesky factor of T (dense) or the square roots of its diagonal. */
  readonly factor: Float64Array;
}

/**
 * A window's draws in T's whitened coordinates, shifted by the window's
 * first draw (so that raw sums are not swamped by the mean): dense keeps
 * them (n × d values); diagonal keeps Σu, Σu², Σu³, Σu⁴ per coordinate.
 */
export interface ShrinkageSums {
  /** The window's first draw. */
  origin: Float64Array | null;
  /** Dense: the whitened, shifted draws. */
  readonly draws: Float64Array[];
  /** Diagonal: 4·d power sums, coordinate-major. */
  readonly powers: Float64Array | null;
  /**
   * Diagonal: per draw, ‖u − ū‖² with ū the mean of the draws before it (for
   * the autocorrelation of the second moments; dense draws give it exactly).
   */
  readonly radii: number[];
  /** Diagonal: the running mean ū. */
  readonly runningMean: Float64Array | null;
}

/**
 * Start Stan's windowed metric adaptation.
 *
 * @param dim Dimension d.
 * @param options `numWarmup`, `metric` and buffer sizes.
 * @returns The state.
 *
 * @example
 * ```ts
 * import { windowedAdaptationInit, windowedAdaptationUpdate } from "./mass_matrix_adaptation.ts";
 * import { Rng } from "../random/rng.ts";
 * const s = windowedAdaptationInit(1, { numWarmup: 200 });
 * const rng = new Rng(0);
 * let changes = 0;
 * for (let i = 0; i < 200; i++) {
 *   if (windowedAdaptationUpdate(s, new Float64Array([3 * rng.normal()])) !== null) changes++;
 * }
 * if (changes !== s.windows.length) throw new Error();
 * ```
 *
 * References: Stan Reference Manual, "Automatic parameter tuning".
 */
export function windowedAdaptationInit(
  dim: number,
  options: WindowedAdaptationOptions,
): WindowedAdaptationState {
  const metric = options.metric ?? "diagonal";
  if (metric !== "diagonal" && metric !== "dense") {
    throw new TypeError(`metric must be "diagonal" or "dense", got ${JSON.stringify(metric)}`);
  }
  const target = options.shrinkageTarget === undefined
    ? null
    : _shrinkageTarget(options.shrinkageTarget, dim, metric === "dense");
  return {
    scheme: "windowed",
    metric,
    windows: windowSchedule(options.numWarmup, options),
    iteration: 0,
    estimator: welfordInit(dim, { dense: metric === "dense" }),
    target,
    shrinkage: target === null ? null : _emptySums(dim, metric === "dense"),
  };
}

/** T (dense or diagonal as the scheme) and its whitening factor from a metric's M⁻¹. */
function _shrinkageTarget(metric: Metric, dim: number, isDense: boolean): ShrinkageTarget {
  if (metric.dim !== dim) {
    throw new RangeError(`shrinkageTarget must have dimension ${dim}, got ${metric.dim}`);
  }
  const m = metric.inverseMassMatrix, isFull = metric.kind === "dense";
  const diag = Float64Array.from({ length: dim }, (_, j) => isFull ? m[j * dim + j] : m[j]);
  if (!isDense) return { covariance: diag, factor: diag.map(Math.sqrt) };
  const covariance = isFull ? Float64Array.from(m) : new Float64Array(dim * dim);
  if (!isFull) { for (let j = 0; j < dim; j++) covariance[j * dim + j] = diag[j]; }
  return { covariance, factor: cholesky(covariance, { name: "shrinkageTarget" }) };
}

function _emptySums(dim: number, isDense: boolean): ShrinkageSums {
  return {
    origin: null,
    draws: [],
    powers: isDense ? null : new Float64Array(4 * dim),
    radii: [],
    runningMean: isDense ? null : new Float64Array(dim),
  };
}

/** Add one draw to a window's shrinkage statistics. */
function _addToSums(sums: ShrinkageSums, target: ShrinkageTarget, x: Float64Array): void {
  const d = x.length;
  sums.origin ??= Float64Array.from(x);
  const u = new Float64Array(d);
  for (let j = 0; j < d; j++) u[j] = x[j] - sums.origin[j];
  if (sums.powers === null) {
    sums.draws.push(solveLower(target.factor, u, { out: u }));
    return;
  }
  const p = sums.powers, mean = sums.runningMean!, k = sums.radii.length;
  let radius = 0;
  for (let j = 0; j < d; j++) {
    const v = u[j] / target.factor[j], v2 = v * v;
    radius += (v - mean[j]) ** 2;
    mean[j] += (v - mean[j]) / (k + 1);
    p[4 * j] += v;
    p[4 * j + 1] += v2;
    p[4 * j + 2] += v2 * v;
    p[4 * j + 3] += v2 * v2;
  }
  sums.radii.push(radius);
}

/**
 * The integrated autocorrelation time τ = 1 + 2Σρₜ of a sequence, summed
 * over Geyer's initial positive sequence (pairs ρ₂ₘ + ρ₂ₘ₊₁ while positive),
 * at least 1.
 */
function _autocorrelationTime(x: readonly number[]): number {
  const n = x.length;
  if (n < 4) return 1;
  let mean = 0;
  for (const v of x) mean += v / n;
  const c = (lag: number) => {
    let s = 0;
    for (let i = 0; i + lag < n; i++) s += (x[i] - mean) * (x[i + lag] - mean);
    return s / n;
  };
  const c0 = c(0);
  if (!(c0 > 0)) return 1;
  let tau = -1;
  for (let m = 0; 2 * m + 1 < n; m++) {
    const pair = (c(2 * m) + c(2 * m + 1)) / c0;
    if (!(pair > 0)) break;
    tau += 2 * pair;
  }
  return Math.max(1, tau);
}

/**
 * The Ledoit–Wolf shrinkage intensity δ ∈ [0, 1] of a window toward the
 * target T, in T's whitened coordinates (y = T^(−1/2)(x − x̄), S = (1/n)Σyyᵀ):
 * δ = π̂/‖S − I‖²_F with π̂ = (1/n²)Σₖ‖yₖyₖᵀ − S‖²_F = (1/n²)(Σₖ‖yₖ‖⁴ − n‖S‖²_F),
 * the estimated sampling variance of S (for the diagonal scheme, of its
 * diagonal alone). Affine-invariant: it does not depend on the parameters'
 * scale, unlike Stan's 10⁻³·I (which at n = 10⁶ rows is larger than the
 * posterior variances). Warm-up draws are autocorrelated: π̂ (computed as for
 * independent draws) is multiplied by the integrated autocorrelation time of
 * ‖yₖ‖² (measured on the HIGGS-shaped logistic posterior, d = 30: τ ≈ 1–4.5,
 * without it δ ≈ 0.25–0.45 where the posterior is its Laplace approximation).
 */
function _intensity(sums: ShrinkageSums, n: number, d: number): number {
  let pi: number, gamma: number, radii = sums.radii;
  if (sums.powers === null) {
    radii = [];
    const mean = new Float64Array(d);
    for (const z of sums.draws) for (let j = 0; j < d; j++) mean[j] += z[j] / n;
    const s = new Float64Array(d * d), y = new Float64Array(d);
    let sum4 = 0;
    for (const z of sums.draws) {
      let r = 0;
      for (let j = 0; j < d; j++) {
        y[j] = z[j] - mean[j];
        r += y[j] * y[j];
      }
      sum4 += r * r;
      radii.push(r);
      for (let i = 0; i < d; i++) {
        const yi = y[i] / n;
        for (let j = 0; j <= i; j++) s[i * d + j] += yi * y[j];
      }
    }
    let norm2 = 0;
    gamma = 0;
    for (let i = 0; i < d; i++) {
      for (let j = 0; j <= i; j++) {
        const v = s[i * d + j], w = i === j ? 1 : 2;
        norm2 += w * v * v;
        gamma += w * (i === j ? (v - 1) ** 2 : v * v);
      }
    }
    pi = (sum4 / n - norm2) / n;
  } else {
    const p = sums.powers;
    pi = 0;
    gamma = 0;
    for (let j = 0; j < d; j++) {
      const m = p[4 * j] / n, s2 = p[4 * j + 1], s3 = p[4 * j + 2], s4 = p[4 * j + 3];
      const c2 = s2 / n - m * m;
      const c4 = (s4 - 4 * m * s3 + 6 * m * m * s2) / n - 3 * m ** 4;
      pi += (c4 - c2 * c2) / n;
      gamma += (c2 - 1) ** 2;
    }
  }
  // Warm-up draws are autocorrelated: the sampling variance of S is τ times
  // that of independent draws, τ that of the squared whitened radius.
  pi *= _autocorrelationTime(radii);
  if (!(pi > 0)) return 0;
  return gamma > pi ? pi / gamma : 1;
}

/**
 * The shrinkage intensity toward T of a set of draws (as a window of
 * {@link windowedAdaptationUpdate} with a `shrinkageTarget` computes it): near 1
 * when the draws' covariance differs from T by no more than its sampling
 * noise, near 0 when it differs by much more.
 *
 * @param draws The draws (each of length d).
 * @param target T as a metric's M⁻¹ (dense or diagonal).
 * @param isDense Use the whole covariance (else only the variances).
 * @returns δ ∈ [0, 1].
 *
 * @example
 * ```ts
 * import { shrinkageIntensity } from "./mass_matrix_adaptation.ts";
 * import { identityMetric } from "./metric.ts";
 * import { Rng } from "../random/rng.ts";
 * const rng = new Rng(1);
 * const draws = Array.from({ length: 200 }, () => Float64Array.from([3 * rng.normal()]));
 * if (!(shrinkageIntensity(draws, identityMetric(1), false) < 0.1)) throw new Error();
 * ```
 *
 * References: Ledoit & Wolf (2004), "A well-conditioned estimator for
 * large-dimensional covariance matrices", J. Multivariate Anal. 88, Lemma 3.3–3.4.
 */
export function shrinkageIntensity(
  draws: readonly Float64Array[],
  target: Metric,
  isDense: boolean,
): number {
  const d = target.dim;
  const t = _shrinkageTarget(target, d, isDense);
  const sums = _emptySums(d, isDense);
  for (const x of draws) _addToSums(sums, t, x);
  return _intensity(sums, draws.length, d);
}

/**
 * Feed the position after one warmup iteration; at the end of a slow window
 * return the new metric (regularised Welford estimate) and reset the estimator.
 *
 * @param state The state (updated in place).
 * @param position The chain's position after this warmup iteration.
 * @returns The new metric if a window just ended, else `null`.
 *
 * @example
 * ```ts
 * import { windowedAdaptationInit, windowedAdaptationUpdate } from "./mass_matrix_adaptation.ts";
 * const s = windowedAdaptationInit(1, { numWarmup: 1000 });
 * if (windowedAdaptationUpdate(s, new Float64Array([0])) !== null) throw new Error();
 * ```
 *
 * References: Stan Reference Manual, "Automatic parameter tuning".
 */
export function windowedAdaptationUpdate(
  state: WindowedAdaptationState,
  position: Float64Array,
): Metric | null {
  const i = state.iteration++;
  const w = state.windows.find((x) => i >= x.start && i < x.end);
  if (w === undefined) return null;
  welfordUpdate(state.estimator, position);
  const target = state.target, sums = state.shrinkage;
  if (target !== null && sums !== null) _addToSums(sums, target, position);
  if (i !== w.end - 1) return null;
  const d = position.length, isDense = state.metric === "dense";
  let cov: Float64Array;
  if (target === null || sums === null) cov = welfordCovariance(state.estimator);
  else {
    const delta = _intensity(sums, state.estimator.count, d);
    cov = welfordCovariance(state.estimator, { regularize: false });
    for (let k = 0; k < cov.length; k++) {
      cov[k] = (1 - delta) * cov[k] + delta * target.covariance[k];
    }
    state.shrinkage = _emptySums(d, isDense);
  }
  state.estimator = welfordInit(d, { dense: isDense });
  return isDense ? _robustDense(cov) : _robustDiagonal(cov);
}

/**
 * The dense metric of a regularised covariance estimate; when round-off
 * leaves it not positive definite (near-collinear draws), 10⁻¹⁰…10⁻⁴ of its
 * mean variance is added to the diagonal, and at worst only its diagonal is kept.
 */
function _robustDense(cov: Float64Array): Metric {
  const d = Math.round(Math.sqrt(cov.length));
  let meanVar = 0;
  for (let i = 0; i < d; i++) meanVar += cov[i * d + i] / d;
  for (const tau of [0, 1e-10, 1e-8, 1e-6, 1e-4]) {
    try {
      const c = Float64Array.from(cov);
      for (let i = 0; i < d; i++) c[i * d + i] += tau * meanVar;
      return denseMetric(c);
    } catch {
      // more jitter
    }
  }
  const diag = new Float64Array(d);
  for (let i = 0; i < d; i++) diag[i] = cov[i * d + i];
  return _robustDiagonal(diag);
}

/** The diagonal metric of variance estimates, with non-positive or non-finite entries floored. */
function _robustDiagonal(variances: Float64Array): Metric {
  const v = Float64Array.from(variances);
  let fallback = 0, count = 0;
  for (const x of v) if (x > 0 && Number.isFinite(x)) (fallback += x, count++);
  fallback = count > 0 ? fallback / count : 1;
  for (let i = 0; i < v.length; i++) if (!(v[i] > 0) || !Number.isFinite(v[i])) v[i] = fallback;
  return diagonalMetric(v);
}

/**
 * Writes ∇² log π(θ) (d×d row-major) into `out`. A function may decline an
 * update by returning `false` (e.g. when θ has hardly moved since the last
 * one): `out` is then ignored and the metric is kept.
 */
export type HessianFn = (position: Float64Array, out: Float64Array) => unknown;

/** Options of {@link hessianAdaptationInit}. */
export interface HessianAdaptationOptions {
  /** Number of warmup iterations (updates happen strictly before its end). */
  numWarmup: number;
  /** The Hessian of the log density. */
  hessianFn: HessianFn;
  /** Update period (default 200). */
  updateEvery?: number;
}

/** State of the HMC-ECS §6.3 scheme. Updated in place by {@link hessianAdaptationUpdate}. */
export interface HessianAdaptationState {
  /** Discriminator. */
  readonly scheme: "hessian";
  /** Number of warmup iterations. */
  readonly numWarmup: number;
  /** Update period. */
  readonly updateEvery: number;
  /** The Hessian of the log density. */
  readonly hessianFn: HessianFn;
  /** Warmup iterations seen so far. */
  iteration: number;
  /** Sum of the positions since the last update. */
  readonly windowSum: Float64Array;
  /** Number of positions in `windowSum`. */
  windowCount: number;
  /** The current θ* (null before the first update). */
  center: Float64Array | null;
  /** Number of Hessian evaluations made. */
  numHessianEvaluations: number;
}

/**
 * Start the HMC-ECS §6.3 metric adaptation (M = I until the first update).
 *
 * @param dim Dimension d.
 * @param options `numWarmup`, `hessianFn`, `updateEvery` (default 200).
 * @returns The state.
 *
 * @example
 * ```ts
 * import { hessianAdaptationInit, hessianAdaptationUpdate } from "./mass_matrix_adaptation.ts";
 * // log π = −½ θᵀ diag(4, 1) θ
 * const s = hessianAdaptationInit(2, { numWarmup: 400, updateEvery: 200,
 *   hessianFn: (_x, out) => out.set([-4, 0, 0, -1]) });
 * let m = null;
 * for (let i = 0; i < 200; i++) m = hessianAdaptationUpdate(s, new Float64Array(2)) ?? m;
 * if (m === null || m.inverseMassMatrix[0] !== 0.25) throw new Error();
 * ```
 *
 * References: Dang et al. (2019), HMC-ECS §6.3.
 */
export function hessianAdaptationInit(
  dim: number,
  options: HessianAdaptationOptions,
): HessianAdaptationState {
  const updateEvery = options.updateEvery ?? 200;
  positiveInteger("dim", dim);
  nonNegativeInteger("numWarmup", options.numWarmup);
  positiveInteger("updateEvery", updateEvery);
  if (typeof options.hessianFn !== "function") {
    throw new TypeError(`hessianFn must be a function, got ${typeof options.hessianFn}`);
  }
  return {
    scheme: "hessian",
    numWarmup: options.numWarmup,
    updateEvery,
    hessianFn: options.hessianFn,
    iteration: 0,
    windowSum: new Float64Array(dim),
    windowCount: 0,
    center: null,
    numHessianEvaluations: 0,
  };
}

/**
 * Feed the position after one warmup iteration. After every `updateEvery`
 * iterations (while warmup iterations remain) set θ* to the mean of the
 * positions since the last update, evaluate H = ∇² log π(θ*) and return the
 * metric with M⁻¹ = (−H)⁻¹, shrunk toward its diagonal where −H is not
 * positive definite ({@link metricFromNegativeHessian}); `null` (keep the
 * metric) when the Hessian function declines or H is not finite.
 *
 * @param state The state (updated in place).
 * @param position The chain's position after this warmup iteration.
 * @returns The new metric after an update, else `null`.
 *
 * @example
 * ```ts
 * import { hessianAdaptationInit, hessianAdaptationUpdate } from "./mass_matrix_adaptation.ts";
 * const s = hessianAdaptationInit(1, { numWarmup: 1000, hessianFn: (_x, o) => o.fill(-1) });
 * if (hessianAdaptationUpdate(s, new Float64Array([0])) !== null) throw new Error();
 * ```
 *
 * References: Dang et al. (2019), HMC-ECS §6.3.
 */
export function hessianAdaptationUpdate(
  state: HessianAdaptationState,
  position: Float64Array,
): Metric | null {
  const d = state.windowSum.length;
  if (position.length !== d) {
    throw new RangeError(`position must have length ${d}, got ${position.length}`);
  }
  const i = ++state.iteration;
  for (let k = 0; k < d; k++) state.windowSum[k] += position[k];
  state.windowCount++;
  if (i % state.updateEvery !== 0 || i >= state.numWarmup) return null;
  const center = new Float64Array(d);
  for (let k = 0; k < d; k++) center[k] = state.windowSum[k] / state.windowCount;
  state.windowSum.fill(0);
  state.windowCount = 0;
  const h = new Float64Array(d * d);
  if (state.hessianFn(center, h) === false) return null;
  state.numHessianEvaluations++;
  // A non-finite Hessian (θ* in an overflow region) keeps the current metric:
  // warmup never stops for the metric.
  if (!h.every(Number.isFinite)) return null;
  state.center = center;
  return metricFromNegativeHessian(h);
}

/**
 * The Hessian of a DataModel's log posterior, ∇² log p(θ) + Σᵢ ∇²ℓᵢ(θ): one
 * full data pass per call, counted by the model's cost counter.
 *
 * @param model The model.
 * @returns A {@link HessianFn}.
 *
 * @example
 * ```ts ignore
 * import { dataModelHessianFn } from "./mass_matrix_adaptation.ts";
 * const hessianFn = dataModelHessianFn(model); // model: a DataModel, e.g. a GLM
 * ```
 *
 * References: Dang et al. (2019), HMC-ECS §6.3.
 */
export function dataModelHessianFn(model: DataModel): HessianFn {
  const d = model.dim;
  const prior = new Float64Array(d * d);
  return (theta: Float64Array, out: Float64Array): void => {
    model.logLikelihoodHessian(theta, out);
    model.logPriorHessian(theta, prior);
    for (let i = 0; i < d * d; i++) out[i] += prior[i];
  };
}
