/**
 * The approximate Metropolis–Hastings test of "austerity" MCMC: decide
 * accept/reject from a growing random subsample of the data with a sequential
 * Student-t test, and stop as soon as the decision is confident at level ε.
 *
 * ```
 *  exact MH:  accept  ⇔  μ > μ₀,   μ  = (1/N) Σᵢ lᵢ,   lᵢ = log p(xᵢ; θ') − log p(xᵢ; θ)
 *                                   μ₀ = (1/N) [log u − log ρ(θ')/ρ(θ) − log q(θ|θ')/q(θ'|θ)]   (eq. 2)
 *  test:      n rows drawn without replacement, m at a time (Algorithm 1)
 *             s = s_l/√n · √(1 − n/N)                                             (eq. 3)
 *             t = (l̄ − μ₀)/s,  δ = 1 − Φ_{n−1}(|t|)                             (eq. 4)
 *             δ < ε  → decide by l̄ > μ₀;  n = N → the exact decision
 * ```
 *
 * ε = 0 never decides early, so it always uses all N rows and reproduces the
 * exact MH decision. The per-row differences come from a caller-supplied
 * {@link RowDifferencesFn}; {@link dataModelDifferences} builds one from any
 * {@link DataModel}: for a {@link GlmModel} of a compact family (logistic,
 * Gaussian, Poisson without offset) one fused core pass evaluates both θ and θ'
 * per row (core/glm_diff.ts, bit-identical to two passes); any other model
 * runs `logLikelihoodRows` at θ' and at θ. Every row a test touches is counted
 * in the model's cost counter (`numLogLikRows`, twice per row: once per θ,
 * fused or not).
 *
 * Rows are drawn by a partial Fisher–Yates shuffle of a chain-owned
 * permutation ({@link newRowOrder}): whatever permutation the buffer holds, the
 * first n entries after the partial shuffle are a uniformly random ordered
 * n-subset, so a test costs O(n), not O(N).
 *
 * References: Korattikara, Chen & Welling (2014), "Austerity in MCMC land:
 * cutting the Metropolis–Hastings budget", §4 (eqs. 2–4, Algorithm 1,
 * Theorem 1) and §5.5 (checking the CLT, Fig. 1).
 *
 * @module
 */
import { studentTCdf } from "../math/student_t.ts";
import { GlmRowDifferences } from "../core/glm_diff.ts";
import type { GlmModel } from "../models/glm.ts";
import { assertPosition, type DataModel } from "../models/model.ts";
import { type SubsamplingSupport, subsamplingSupport } from "../models/subsampling_support.ts";
import type { Rng } from "../random/rng.ts";

/**
 * Writes lᵢ = log p(x_{rows[k]}; θ') − log p(x_{rows[k]}; θ) into `out[k]`
 * for k < rows.length.
 */
export type RowDifferencesFn = (rows: Int32Array, out: Float64Array) => void;

/** Input of {@link approxMhTest}. */
export interface ApproxMhTestOptions {
  /** Number of data rows N. */
  numRows: number;
  /** Per-row log-likelihood differences between θ' and θ. */
  differencesFn: RowDifferencesFn;
  /** log ρ(θ') − log ρ(θ) (−∞ if θ' is outside the prior's support). */
  logPriorRatio: number;
  /** log q(θ|θ') − log q(θ'|θ) (0 for a symmetric proposal). */
  logProposalRatio?: number;
  /** The bias knob ε ∈ [0, 1): decide once the p-value δ < ε (0: exact MH). */
  epsilon: number;
  /** Mini-batch size m ≥ 2 (the last batch may be smaller when m does not divide N). */
  batchSize: number;
  /**
   * A permutation of 0 … N − 1 to draw rows from (see {@link newRowOrder});
   * shuffled in place. Default: a fresh identity permutation (O(N) per call).
   */
  rowOrder?: Int32Array;
  /**
   * Also compute the exact decision (evaluating the rows the test did not
   * use) and report whether it agrees. Evaluation only: the extra rows are
   * not charged to the cost counter. Default false.
   */
  checkExact?: boolean;
  /** A function run around the evaluation-only rows of `checkExact` to undo their cost. */
  uncharged?: <T>(work: () => T) => T;
}

/** Outcome of one approximate MH test. */
export interface ApproxMhTestResult {
  /** The decision. */
  isAccepted: boolean;
  /** Rows used n (≤ N). */
  numRowsUsed: number;
  /** n / N. */
  fractionOfData: number;
  /** Mini-batches drawn. */
  numBatches: number;
  /** μ₀ of eq. 2. */
  mu0: number;
  /** l̄ over the rows used. */
  meanDifference: number;
  /** t statistic at the decision (±∞ when s = 0; NaN when exhausted with l̄ = μ₀). */
  tStatistic: number;
  /** p-value δ at the decision (0 when the data are exhausted). */
  pValue: number;
  /**
   * A NaN or +∞ lᵢ, prior ratio or proposal ratio was met: rejected without a
   * test. (A ratio or lᵢ of −∞ — θ' outside the support — rejects unflagged.)
   */
  isNonFinite: boolean;
  /** Whether the exact test decides the same (only with `checkExact`; else null). */
  agreesWithExact: boolean | null;
}

/**
 * A permutation 0 … N − 1 for {@link ApproxMhTestOptions.rowOrder}: allocate
 * once per chain and pass it to every test.
 *
 * @param numRows N.
 * @returns The identity permutation.
 * @example
 * ```ts
 * import { newRowOrder } from "./austerity.ts";
 * if (newRowOrder(3).join() !== "0,1,2") throw new Error();
 * ```
 *
 * References: Knuth, TAOCP vol. 2, §3.4.2 (Fisher–Yates shuffle).
 */
export function newRowOrder(numRows: number): Int32Array {
  if (!Number.isInteger(numRows) || numRows < 1 || numRows > 2 ** 31 - 1) {
    throw new RangeError(`numRows must be an integer in [1, 2^31 − 1], got ${numRows}`);
  }
  const order = new Int32Array(numRows);
  for (let i = 0; i < numRows; i++) order[i] = i;
  return order;
}

/**
 * The one-sided p-value δ = 1 − Φ_ν(|t|) of a t statistic with ν degrees of
 * freedom, computed as Φ_ν(−|t|) so that small tails keep their precision.
 *
 * @param t The statistic (±∞ gives 0).
 * @param degreesOfFreedom ν > 0.
 * @returns δ ∈ [0, 0.5].
 * @example
 * ```ts
 * import { tPValue } from "./austerity.ts";
 * if (Math.abs(tPValue(2.228, 10) - 0.025) > 1e-4) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), §4 (the p-value of Algorithm 1, line 12).
 */
export function tPValue(t: number, degreesOfFreedom: number): number {
  return studentTCdf(-Math.abs(t), degreesOfFreedom);
}

function _checkTestOptions(o: ApproxMhTestOptions): void {
  const n = o.numRows;
  if (!Number.isInteger(n) || n < 2) {
    throw new RangeError(`numRows must be an integer ≥ 2, got ${n}`);
  }
  if (!(o.epsilon >= 0 && o.epsilon < 1)) {
    throw new RangeError(`epsilon must be in [0, 1), got ${o.epsilon}`);
  }
  if (!Number.isInteger(o.batchSize) || o.batchSize < 2) {
    throw new RangeError(`batchSize must be an integer ≥ 2, got ${o.batchSize}`);
  }
  if (typeof o.differencesFn !== "function") {
    throw new TypeError(`differencesFn must be a function, got ${typeof o.differencesFn}`);
  }
  if (o.rowOrder !== undefined && o.rowOrder.length !== n) {
    throw new RangeError(
      `rowOrder must be a permutation of the ${n} rows, got length ${o.rowOrder.length}`,
    );
  }
}

/**
 * One approximate MH test (Algorithm 1). Draws u ~ U(0, 1) first, then
 * mini-batches of m rows without replacement until δ < ε or all N rows are
 * used, in which case the decision is the exact MH decision
 * log u < Σᵢ lᵢ + log ρ(θ')/ρ(θ) + log q(θ|θ')/q(θ'|θ). A ratio or lᵢ of
 * −∞ rejects; a NaN or +∞ one rejects and sets `isNonFinite`; nothing throws
 * for non-finite values.
 *
 * @param rng Generator (u, and the rows drawn).
 * @param options N, the differences, the ratios, ε, m, the row order.
 * @returns The decision and what it used.
 * @throws {RangeError} On ε ∉ [0, 1), m < 2 or a row order of the wrong length.
 * @example
 * ```ts
 * import { approxMhTest } from "./austerity.ts";
 * import { Rng } from "../random/rng.ts";
 * // 10 000 rows whose differences are 0.01 ± 1: clearly better than μ₀ ≈ log(u)/N for most u.
 * const l = Float64Array.from({ length: 10_000 }, (_, i) => 0.01 + (i % 2 ? 1 : -1));
 * const r = approxMhTest(new Rng(1), {
 *   numRows: l.length, epsilon: 0.05, batchSize: 500, logPriorRatio: 0,
 *   differencesFn: (rows, out) => rows.forEach((i, k) => (out[k] = l[i])),
 * });
 * if (!(r.fractionOfData <= 1 && r.numBatches >= 1)) throw new Error();
 * ```
 *
 * References: Korattikara, Chen & Welling (2014), eqs. 2–4 and Algorithm 1.
 */
export function approxMhTest(rng: Rng, options: ApproxMhTestOptions): ApproxMhTestResult {
  _checkTestOptions(options);
  const bigN = options.numRows, m = options.batchSize, eps = options.epsilon;
  const logU = Math.log(rng.uniform());
  const offset = options.logPriorRatio + (options.logProposalRatio ?? 0);
  const mu0 = (logU - offset) / bigN;
  const result: ApproxMhTestResult = {
    isAccepted: false,
    numRowsUsed: 0,
    fractionOfData: 0,
    numBatches: 0,
    mu0,
    meanDifference: NaN,
    tStatistic: NaN,
    pValue: NaN,
    isNonFinite: false,
    agreesWithExact: null,
  };
  if (offset === -Infinity) return result; // θ' outside the prior's support: reject.
  if (!Number.isFinite(offset)) {
    // NaN or +∞: a broken ratio (e.g. a non-finite θ'). Reject, flagged.
    result.isNonFinite = true;
    return result;
  }
  const order = options.rowOrder ?? newRowOrder(bigN);
  const buf = new Float64Array(Math.min(m, bigN));
  const picks = eps > 0 ? new Int32Array(Math.min(m, bigN)) : null;
  // Running mean and sum of squared deviations (Chan et al.'s batch merge).
  let n = 0, mean = 0, m2 = 0, sum = 0;
  while (n < bigN) {
    const b = Math.min(m, bigN - n);
    // ε = 0 cannot stop before the data run out, so the order of the rows does
    // not matter: skip the shuffle (and its N random draws).
    if (picks !== null) {
      // Draw the batch's positions first, then swap in the same order: the same
      // permutation, but the swaps' loads (at random positions of an N-long
      // array) no longer wait behind the generator and overlap their cache misses.
      for (let k = 0; k < b; k++) picks[k] = n + k + rng.int(bigN - n - k);
      for (let k = 0; k < b; k++) {
        const j = picks[k], tmp = order[n + k];
        order[n + k] = order[j];
        order[j] = tmp;
      }
    }
    const rows = order.subarray(n, n + b), out = buf.subarray(0, b);
    options.differencesFn(rows, out);
    let bSum = 0;
    for (let k = 0; k < b; k++) bSum += out[k];
    const bMean = bSum / b;
    let bM2 = 0;
    for (let k = 0; k < b; k++) bM2 += (out[k] - bMean) ** 2;
    result.numBatches++;
    if (!Number.isFinite(bSum) || !Number.isFinite(bM2)) {
      // Σ = −∞: some row has zero likelihood at θ' (outside its support) — reject.
      // NaN or +∞: a non-finite density — reject, flagged.
      result.isNonFinite = bSum !== -Infinity;
      result.numRowsUsed = n + b;
      result.fractionOfData = (n + b) / bigN;
      return result;
    }
    const nNew = n + b, delta = bMean - mean;
    mean += delta * b / nNew;
    m2 += bM2 + delta * delta * n * b / nNew;
    sum += bSum;
    n = nNew;
    result.numRowsUsed = n;
    result.fractionOfData = n / bigN;
    result.meanDifference = mean;
    if (n === bigN) {
      result.isAccepted = logU < sum + offset;
      result.tStatistic = NaN;
      result.pValue = 0;
      result.agreesWithExact = options.checkExact ? true : null;
      return result;
    }
    const s = Math.sqrt(m2 / (n - 1)) / Math.sqrt(n) * Math.sqrt(1 - n / bigN);
    const t = (mean - mu0) / s;
    const p = tPValue(t, n - 1);
    result.tStatistic = t;
    result.pValue = p;
    if (p < eps) {
      result.isAccepted = mean > mu0;
      break;
    }
  }
  if (options.checkExact) {
    const rest = order.subarray(n), out = new Float64Array(rest.length);
    const run = options.uncharged ?? (<T>(work: () => T): T => work());
    run(() => options.differencesFn(rest, out));
    let total = sum;
    for (let k = 0; k < out.length; k++) total += out[k];
    result.agreesWithExact = (logU < total + offset) === result.isAccepted;
  }
  return result;
}

/**
 * The per-row differences lᵢ = ℓᵢ(θ') − ℓᵢ(θ) of a {@link DataModel}: one
 * fused kernel pass for a {@link GlmModel} with the compact cache (its
 * scratch is kept per model), else two `logLikelihoodRows` passes with
 * `perRow`. Either way each row counts twice in the model's `numLogLikRows`.
 * Buffers grow as needed and are reused.
 *
 * @param model The model.
 * @param pair `{ current: θ, proposed: θ' }` (read at every call, not copied).
 * @param support What the model can do, when the caller has decided it
 *   already (default `subsamplingSupport(model)`): an in-memory compact GLM
 *   takes the fused kernel.
 * @returns The differences function.
 * @example
 * ```ts
 * import { dataModelDifferences } from "./austerity.ts";
 * import { normalGammaModel } from "../examples/models/normal_gamma.ts";
 * const model = normalGammaModel(new Float64Array([0.1, -0.4, 1.2]));
 * const fn = dataModelDifferences(model, {
 *   current: new Float64Array([0, 1]), proposed: new Float64Array([0, 1]),
 * });
 * const out = new Float64Array(3);
 * fn(new Int32Array([0, 1, 2]), out);
 * if (out.some((v) => v !== 0) || model.cost.numLogLikRows !== 6) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), eq. 2.
 */
export function dataModelDifferences(
  model: DataModel,
  pair: { current: Float64Array; proposed: Float64Array },
  support: SubsamplingSupport | null = subsamplingSupport(model),
): RowDifferencesFn {
  const glm = support?.inMemoryGlm ?? null;
  if (glm !== null) {
    const fused = _fusedDifferences(glm);
    return (rows: Int32Array, out: Float64Array): void => {
      assertPosition(pair.proposed, model.dim);
      assertPosition(pair.current, model.dim);
      fused.compute(pair.current, pair.proposed, rows, out);
      model.cost.numLogLikRows += 2 * rows.length;
    };
  }
  let at = new Float64Array(0);
  return (rows: Int32Array, out: Float64Array): void => {
    if (at.length < rows.length) at = new Float64Array(rows.length);
    const a = at.subarray(0, rows.length);
    model.logLikelihoodRows(pair.proposed, rows, { perRow: out });
    model.logLikelihoodRows(pair.current, rows, { perRow: a });
    for (let k = 0; k < rows.length; k++) out[k] -= a[k];
  };
}

// One fused-differences scratch per model: samplers build a differences
// function at every step, and the scratch lives in the model's arena.
const _fused = new WeakMap<GlmModel, GlmRowDifferences>();

function _fusedDifferences(model: GlmModel): GlmRowDifferences {
  let f = _fused.get(model);
  if (f === undefined) {
    f = new GlmRowDifferences(model.kernels, model.data);
    _fused.set(model, f);
  }
  return f;
}

/** Options of {@link cltCheck}. */
export interface CltCheckOptions {
  /** Number of rows N. */
  numRows: number;
  /** Per-row differences between θ' and θ. */
  differencesFn: RowDifferencesFn;
  /** Subsample size n (2 ≤ n < N). */
  sampleSize: number;
  /** Number of resampled t statistics (default 2000). */
  numResamples?: number;
  /** Significance level of the Kolmogorov–Smirnov check (default 0.01). */
  alpha?: number;
  /** Print a warning with `console.warn` when the check fails (default true). */
  warn?: boolean;
}

/** Result of {@link cltCheck}. */
export interface CltCheckResult {
  /** The resampled t statistics (t = (l̄ − μ)/s with μ the full-data mean). */
  tStatistics: Float64Array;
  /** Kolmogorov–Smirnov distance between their empirical CDF and Student-t with n − 1 df. */
  ksDistance: number;
  /** The asymptotic KS critical value at `alpha`, √(−ln(α/2)/2)/√R. */
  criticalValue: number;
  /** Whether the distance is below the critical value. */
  isPassed: boolean;
}

/**
 * Check the CLT assumption of the test for one pair (θ, θ'): compute all N
 * differences, resample n rows without replacement R times, form t = (l̄ −
 * μ)/s with the finite-population correction, and compare the R statistics
 * with Student-t(n − 1) by their Kolmogorov–Smirnov distance. With heavy
 * tails or very sparse data (the failures §5.5 names) the distance exceeds
 * the critical value and a warning is printed. Costs N rows once (counted).
 *
 * @param rng Generator for the resamples.
 * @param options N, the differences, n, R, α, whether to warn.
 * @returns The statistics, the KS distance and the verdict.
 * @throws {RangeError} If n is not in [2, N).
 * @example
 * ```ts
 * import { cltCheck } from "./austerity.ts";
 * import { Rng } from "../random/rng.ts";
 * const rng = new Rng(4);
 * const l = Float64Array.from({ length: 5000 }, () => rng.normal());
 * const r = cltCheck(rng, {
 *   numRows: l.length, sampleSize: 200, numResamples: 500,
 *   differencesFn: (rows, out) => rows.forEach((i, k) => (out[k] = l[i])),
 * });
 * if (!r.isPassed) throw new Error(`KS ${r.ksDistance}`);
 * ```
 *
 * References: Korattikara et al. (2014), §5.5 and Fig. 1; Marsaglia, Tsang &
 * Wang (2003) for the KS distribution.
 */
export function cltCheck(rng: Rng, options: CltCheckOptions): CltCheckResult {
  const bigN = options.numRows, n = options.sampleSize;
  const numResamples = options.numResamples ?? 2000, alpha = options.alpha ?? 0.01;
  if (!Number.isInteger(n) || n < 2 || n >= bigN) {
    throw new RangeError(`sampleSize must be an integer in [2, ${bigN}), got ${n}`);
  }
  if (!Number.isInteger(numResamples) || numResamples < 2) {
    throw new RangeError(`numResamples must be an integer ≥ 2, got ${numResamples}`);
  }
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  const all = newRowOrder(bigN), l = new Float64Array(bigN);
  options.differencesFn(all, l);
  let mu = 0;
  for (let i = 0; i < bigN; i++) mu += l[i];
  mu /= bigN;
  const ts = new Float64Array(numResamples), order = newRowOrder(bigN);
  const fpc = Math.sqrt(1 - n / bigN);
  for (let r = 0; r < numResamples; r++) {
    let mean = 0;
    for (let k = 0; k < n; k++) {
      const j = k + rng.int(bigN - k);
      const tmp = order[k];
      order[k] = order[j];
      order[j] = tmp;
      mean += l[order[k]];
    }
    mean /= n;
    let ss = 0;
    for (let k = 0; k < n; k++) ss += (l[order[k]] - mean) ** 2;
    ts[r] = (mean - mu) / (Math.sqrt(ss / (n - 1) / n) * fpc);
  }
  const sorted = Float64Array.from(ts).sort();
  let ks = 0;
  for (let r = 0; r < numResamples; r++) {
    const f = studentTCdf(sorted[r], n - 1);
    ks = Math.max(ks, Math.abs(f - r / numResamples), Math.abs((r + 1) / numResamples - f));
  }
  if (Number.isNaN(ks) || sorted.some(Number.isNaN)) ks = 1;
  const criticalValue = Math.sqrt(-Math.log(alpha / 2) / 2) / Math.sqrt(numResamples);
  const isPassed = ks <= criticalValue;
  if (!isPassed && (options.warn ?? true)) {
    console.warn(
      `austerity CLT check failed: the KS distance ${ks.toFixed(4)} between the resampled t ` +
        `statistics (n = ${n}) and Student-t(${n - 1}) exceeds ${criticalValue.toFixed(4)} ` +
        `(α = ${alpha}); the sequential test's error rates may exceed ε (heavy tails or sparse data?)`,
    );
  }
  return { tStatistics: ts, ksDistance: ks, criticalValue, isPassed };
}
