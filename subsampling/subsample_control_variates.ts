/**
 * What a gathered subsample needs of GLM control variates around θ*
 * ({@link SubsampleControlVariates}), and the parts its implementations
 * share: Σₖ qₖ(θ) from S, A, B ({@link taylorSum}, Dang et al. 2019, eq. 14)
 * and the counted per-row differences over a row buffer
 * ({@link countedDifferences}). The implementations are
 * subsampling/control_variates.ts (a per-row cache of all n rows) and
 * subsampling/external_rows.ts (rows read by index).
 *
 * References: Dang et al. (2019) eqs. 8, 11, 14.
 *
 * @module
 */
import type { GlmKernels } from "../core/glm_kernels.ts";
import type { RowBuffer } from "../core/row_buffer.ts";
import type { CostCounter } from "../models/model.ts";
import { matVecInto } from "../math/linalg.ts";

/** Order of the Taylor expansion used as control variate. */
export type TaylorOrder = 0 | 1 | 2;

/** A range of positions in a {@link GatheredRows} buffer. */
export interface RowRange {
  /** First position (default 0). */
  start?: number;
  /** One past the last position (default: the buffer's capacity). */
  end?: number;
}

/**
 * What a gathered subsample needs of GLM control variates around θ*: the
 * O(d²) sums, the per-row differences over a row buffer, and rows placed in
 * a buffer together with their cache rows (η*ₖ, ℓₖ*, aₖ, bₖ). Implemented by
 * {@link ControlVariates} (cache rows gathered from a per-row cache of all n
 * rows) and by the external GLM's control variates (rows read by index,
 * cache rows computed where they land; no memory of size n).
 */
export interface SubsampleControlVariates {
  /** Taylor order of qₖ. */
  readonly order: TaylorOrder;
  /** Dimension d. */
  readonly dim: number;
  /** Number of data rows n. */
  readonly numRows: number;
  /** The current expansion point θ* (do not mutate). */
  readonly thetaStar: Float64Array;
  /** S = Σₖ ℓₖ(θ*). */
  readonly llStarSum: number;
  /** A = Σₖ ∇ℓₖ(θ*). */
  readonly gradSum: Float64Array;
  /**
   * B = Σₖ Hₖ(θ*). Set it only with a centring, or before any estimator
   * evaluates (the core keeps a copy per {@link version}).
   */
  readonly hessSum: Float64Array;
  /** Incremented at every centring. */
  readonly version: number;
  /** Σₖ qₖ(θ) in O(d²). */
  sum(theta: Float64Array): number;
  /** Σₖ qₖ(θ) and, with `grad`, its gradient A + Bδ. */
  sumAndGradient(theta: Float64Array, grad?: Float64Array): number;
  /**
   * dₖ and rₖ over positions of a buffer (see {@link ControlVariates.differences}).
   *
   * @internal
   */
  differences(
    rows: RowBuffer,
    theta: Float64Array,
    options?: RowRange & { derivative?: boolean },
  ): number;
  /**
   * Σₖ wₖxₖ over positions of a buffer.
   *
   * @internal
   */
  weightedRowSum(rows: RowBuffer, out: Float64Array, range?: RowRange): Float64Array;
  /**
   * The difference estimator with its gradient over positions [0, m) of a
   * buffer in one core call (see {@link estimateInCore}); null where the
   * core has no such kernel. Absent: the caller composes {@link sumAndGradient},
   * {@link differences} and {@link weightedRowSum}. θ*, A and B are copied
   * into the core at the first call of each centring ({@link version}):
   * they change only with a centring.
   *
   * @internal
   */
  estimateWithGradient?(
    rows: RowBuffer,
    theta: Float64Array,
    options: EstimateInCoreOptions,
  ): EstimateInCore | null;
  /**
   * An empty buffer for `capacity` rows (the caller disposes it).
   *
   * @internal
   */
  createRows(capacity: number): RowBuffer;
  /**
   * Place data rows `indices` at `offset` of a buffer, with their cache rows at θ*.
   *
   * @internal
   */
  gatherRows(rows: RowBuffer, indices: Int32Array, offset: number): void;
  /**
   * Bring the cache rows of positions [start, end) to the current θ* (after a re-centring).
   *
   * @internal
   */
  refreshRows(rows: RowBuffer, range: { start: number; end: number }): void;
}

/**
 * dₖ = ℓₖ(θ) − qₖ(θ) (and, with `derivative`, rₖ = ∂dₖ/∂ηₖ) over positions
 * [start, end) of a buffer whose cache rows are current, by the core's kernel,
 * counted in `cv.model.cost` (k ℓ rows, and k ∇ℓ rows with rₖ): the part of
 * `differences` every compact-cache implementation shares.
 *
 * @param kernels The kernels for the buffer's arena.
 * @param cv The order and the model whose cost is counted.
 * @param rows The buffer.
 * @param theta Position (length d), checked by `checkTheta` once the range is non-empty.
 * @param options Range and `derivative` (default true).
 * @param check The θ check.
 * @returns Σₖ dₖ over the range.
 * @internal
 */
export function countedDifferences(
  kernels: GlmKernels,
  cv: {
    readonly order: TaylorOrder;
    readonly dim: number;
    readonly model: { readonly cost: CostCounter };
  },
  rows: RowBuffer,
  theta: Float64Array,
  options: RowRange & { derivative?: boolean },
  check: ThetaCheck,
): number {
  const start = options.start ?? 0, end = options.end ?? rows.capacity;
  if (!(start >= 0 && end <= rows.capacity && start <= end)) {
    throw new RangeError(
      `row range [${start}, ${end}) is not inside the buffer of capacity ${rows.capacity}`,
    );
  }
  const k = end - start;
  if (k === 0) return 0;
  check(theta, cv.dim, "theta");
  const wantR = options.derivative ?? true;
  const s = kernels.controlVariateDifferences(rows, theta, {
    order: cv.order,
    start,
    end,
    derivative: wantR,
  });
  cv.model.cost.numLogLikRows += k;
  if (wantR) cv.model.cost.numGradRows += k;
  return s;
}

/**
 * The θ check of {@link countedDifferences} and {@link estimateInCore}: θ, d
 * and the name to report. A function of the module that passes it, not a
 * closure per instance, so that the call site sees one function whichever
 * control variates (chain) calls it.
 *
 * @internal
 */
export type ThetaCheck = (theta: Float64Array, d: number, what: string) => void;

/** Options of {@link estimateInCore}. */
export interface EstimateInCoreOptions {
  /** Subsample size m (positions [0, m)). */
  m: number;
  /** First position whose dₖ, rₖ are computed (the others' are in the buffer at θ). */
  start: number;
  /** One past the last position computed. */
  end: number;
  /** Differentiate ℓ̂ₘ − σ̂²ₘ/2 (true) or ℓ̂ₘ alone. */
  corrected: boolean;
  /** Output: the gradient (length d, written). */
  grad: Float64Array;
}

/** What {@link estimateInCore} returns. */
export interface EstimateInCore {
  /** ℓ̂ₘ. */
  logLikelihood: number;
  /** σ̂²ₘ. */
  variance: number;
  /** ℓ̂ₘ − σ̂²ₘ/2. */
  value: number;
  /** Σₖ qₖ(θ), as {@link SubsampleControlVariates.sum} gives it. */
  sumControlVariates: number;
}

/**
 * The difference estimator with its gradient in one core call
 * ({@link GlmKernels.differenceEstimate}), with the checks and the counting
 * of {@link taylorSum} and {@link countedDifferences} (end − start ℓ rows and
 * ∇ℓ rows): the part of `estimateWithGradient` every compact-cache
 * implementation shares.
 *
 * @param kernels The kernels for the buffer's arena.
 * @param cv θ*, S, A, B, the order, n and the model whose cost is counted.
 * @param rows The buffer.
 * @param theta Position (length d).
 * @param options m, the positions computed, the bias correction, the gradient output.
 * @param check The θ check of the differences.
 * @returns The estimate, or null when the core has no such kernel (nothing counted).
 * @internal
 */
export function estimateInCore(
  kernels: GlmKernels,
  cv:
    & Pick<
      SubsampleControlVariates,
      "order" | "dim" | "numRows" | "thetaStar" | "llStarSum" | "gradSum" | "hessSum" | "version"
    >
    & { readonly model: { readonly cost: CostCounter } },
  rows: RowBuffer,
  theta: Float64Array,
  options: EstimateInCoreOptions,
  check: ThetaCheck,
): EstimateInCore | null {
  checkTheta(theta, cv.dim, "theta");
  const { start, end } = options;
  if (!(start >= 0 && end <= rows.capacity && start <= end)) {
    throw new RangeError(
      `row range [${start}, ${end}) is not inside the buffer of capacity ${rows.capacity}`,
    );
  }
  const k = end - start;
  if (k > 0) check(theta, cv.dim, "theta");
  const e = kernels.differenceEstimate(rows, theta, cv, {
    ...options,
    numRows: cv.numRows,
    taylorKey: cv.version,
  });
  if (e === null) return null;
  cv.model.cost.numLogLikRows += k;
  cv.model.cost.numGradRows += k;
  return e;
}

/**
 * Σₖ qₖ(θ) = S + Aᵀδ + ½δᵀBδ and its gradient A + Bδ (δ = θ − θ*), by
 * order: the O(d²) part every control-variate implementation shares.
 *
 * @param cv θ*, S, A, B and the order.
 * @param theta Position (length d).
 * @param delta Scratch (length d).
 * @param grad Optional output (length d, overwritten).
 * @returns Σₖ qₖ(θ).
 * @internal
 */
export function taylorSum(
  cv: Pick<
    SubsampleControlVariates,
    "order" | "dim" | "thetaStar" | "llStarSum" | "gradSum" | "hessSum"
  >,
  theta: Float64Array,
  delta: Float64Array,
  grad?: Float64Array,
): number {
  const d = cv.dim, A = cv.gradSum, B = cv.hessSum;
  checkTheta(theta, d, "theta");
  for (let j = 0; j < d; j++) delta[j] = theta[j] - cv.thetaStar[j];
  let v = cv.llStarSum;
  if (grad) grad.fill(0, 0, d);
  if (cv.order === 0) return v;
  for (let j = 0; j < d; j++) v += A[j] * delta[j];
  if (grad) grad.set(A);
  if (cv.order === 1) return v;
  // (Bδ)ᵢ four rows at a time, each summed in order of j as a plain loop would.
  if (_bDelta.length < d) _bDelta = new Float64Array(d);
  const bd = matVecInto(B, d, delta, _bDelta);
  let quad = 0;
  for (let i = 0; i < d; i++) {
    const bi = bd[i];
    quad += delta[i] * bi;
    if (grad) grad[i] += bi;
  }
  return v + 0.5 * quad;
}

/** Scratch for Bδ in {@link taylorSum} (one thread, no re-entry). */
let _bDelta = new Float64Array(0);

/**
 * Refuse θ that is not a Float64Array of length d (and, with `finite`, one
 * with a non-finite value), naming `what`.
 *
 * @internal
 */
export function checkTheta(theta: Float64Array, d: number, what: string, finite = false): void {
  if (!(theta instanceof Float64Array) || theta.length !== d) {
    throw new RangeError(
      `${what} must be a Float64Array of length ${d}, got ${
        theta instanceof Float64Array ? `length ${theta.length}` : typeof theta
      }`,
    );
  }
  for (let j = 0; finite && j < d; j++) {
    if (!Number.isFinite(theta[j])) {
      throw new RangeError(`${what} must be finite, got ${theta[j]} at index ${j}`);
    }
  }
}
