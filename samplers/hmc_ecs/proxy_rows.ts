/**
 * The generic proxy: HMC-ECS's control variates and subsample estimators for
 * any {@link DataModel}, in TypeScript.
 *
 * One full-data pass at θ* stores, per row, ℓₖ(θ*), ∇ℓₖ(θ*) and (order 2)
 * Hₖ(θ*) — O(n d²) memory, fine for small d — and the sums S, A, B. A model
 * without `perRowHessians` gets order-0 or order-1 control variates only
 * (O(n d) memory): B is then its full-data `logLikelihoodHessian` at θ* (the
 * metric and the Newton steps need B, the control variates do not), and the
 * subset fit's Newton steps and the Hessian estimate use that full-data
 * Hessian instead of a sum over the subset's rows. Then
 *
 * ```
 *  qₖ(θ) = ℓₖ* + ∇ℓₖ*ᵀδ + ½ δᵀHₖ*δ,   ∇qₖ(θ) = ∇ℓₖ* + Hₖ*δ,   δ = θ − θ*   (eq. 11)
 *  Σₖ qₖ(θ) = S + Aᵀδ + ½ δᵀBδ                                              (eq. 14)
 *  dₖ = ℓₖ(θ) − qₖ(θ),  ∇dₖ = ∇ℓₖ(θ) − ∇qₖ(θ)
 * ```
 *
 * and the estimators are those of the GLM path (difference estimator eq. 12
 * on G blocks; block-Poisson eq. 15 on λ products) over row indices instead of
 * gathered WebAssembly rows.
 *
 * Rows outside this instance (`rows.external`: a GLM on shards or streamed
 * from a row store, of a family without the compact cache) keep no per-row
 * arrays of n rows: S, A, B come from the model's `controlVariateSums` (one
 * pass where the rows live), and ℓₖ*, ∇ℓₖ*, Hₖ* are computed on the rows
 * read by index when a subsample is evaluated — once per subsample and
 * centring for the estimator's own rows (recomputed after an accepted
 * refresh) and for a pilot's rows, at every call for a proposal's rows. The same
 * per-row values as the kept arrays, so the same qₖ and dₖ; memory O(m·P²). Rows are evaluated through the model's
 * `logLikelihoodRows` and `perRowGradients`, so the model's cost counter sees
 * every row.
 *
 * References: Dang et al. (2019), eqs. 8–15, §6.3; Bardenet et al. (2017).
 *
 * @module
 */
import type { ExternalGlmModel } from "../../models/external_glm.ts";
import type { DataModel, PerRowHessianModel } from "../../models/model.ts";
import { orderTwoError, type PerRowRows } from "../../models/subsampling_support.ts";
import type { Rng } from "../../random/rng.ts";
import { blockPoissonEstimate } from "../../subsampling/block_poisson.ts";
import type { TaylorOrder } from "../../subsampling/control_variates.ts";
import { differenceEstimate } from "../../subsampling/difference_estimator.ts";
import { type PilotDifferences, pilotMomentsInto } from "../../subsampling/tuning.ts";
import type { CentringSums } from "./options.ts";
import type {
  BlockSubsampleSettings,
  ControlVariateProxy,
  LikelihoodEstimate,
  PerturbedEstimator,
  PoissonSubsampleSettings,
  SignedEstimator,
} from "./proxy.ts";
import { integerAtLeast, positiveInteger } from "../validate_options.ts";

/**
 * A chain's control variates for a DataModel, centred at θ* (order 2 needs
 * per-row Hessians).
 *
 * @param rows The model's per-row access ({@link subsamplingSupport}'s `rows`).
 * @param thetaStar The expansion point.
 * @param order Taylor order.
 * @param sums S, A, B at θ* computed elsewhere (rows outside this instance
 *   only: no pass is made).
 * @returns The proxy.
 * @throws {TypeError} For order 2 on a model without `perRowHessians`, or
 *   sums for rows kept in this instance.
 */
export function rowsProxy(
  rows: PerRowRows,
  thetaStar: Float64Array,
  order: TaylorOrder,
  sums?: CentringSums,
): ControlVariateProxy {
  if (order !== 0 && order !== 1 && order !== 2) {
    throw new RangeError(`order must be 0, 1 or 2, got ${order}`);
  }
  if (order === 2 && rows.perRowHessians === null) throw orderTwoError(rows.model);
  const cache = new _RowCache(rows, order);
  if (sums === undefined) cache.recenter(thetaStar);
  else cache.setSums(thetaStar, sums);
  return {
    order,
    dim: cache.dim,
    numRows: cache.numRows,
    thetaStar: cache.thetaStar,
    get llStarSum() {
      return cache.llStarSum;
    },
    gradSum: cache.gradSum,
    hessSum: cache.hessSum,
    get version() {
      return cache.version;
    },
    recenter: (t) => cache.recenter(t),
    pilotDifferences: (thetas, rng, pilotSize) => _pilot(cache, thetas, rng, pilotSize),
    blockSubsample: (rng, s) => _perturbed(cache, rng, s),
    poissonSubsample: (rng, s) => _signed(cache, rng, s),
    dispose: () => cache.dispose(),
  };
}

/**
 * Per-row ℓₖ*, ∇ℓₖ*, Hₖ* at θ* (Hₖ* only for a model with per-row Hessians)
 * and their sums; dₖ and ∇dₖ at any θ.
 */
class _RowCache {
  readonly model: DataModel;
  readonly #perRow: PerRowHessianModel | null;
  /** Rows outside this instance: sums from its pass, per-row terms at θ* on demand. */
  readonly #external: ExternalGlmModel | null;
  readonly order: TaylorOrder;
  readonly dim: number;
  readonly numRows: number;
  readonly thetaStar: Float64Array;
  llStarSum = 0;
  readonly gradSum: Float64Array;
  readonly hessSum: Float64Array;
  version = 0;
  llStar: Float64Array;
  gradStar: Float64Array;
  hessStar: Float64Array;
  readonly #all: Int32Array;
  readonly #delta: Float64Array;

  constructor(rows: PerRowRows, order: TaylorOrder) {
    const model = rows.model, n = model.numRows, d = model.dim;
    this.model = model;
    this.#perRow = rows.perRowHessians;
    this.#external = rows.external ?? null;
    this.order = order;
    this.dim = d;
    this.numRows = n;
    this.thetaStar = new Float64Array(d);
    this.gradSum = new Float64Array(d);
    this.hessSum = new Float64Array(d * d);
    const kept = this.#external === null ? n : 0;
    this.llStar = new Float64Array(kept);
    this.gradStar = new Float64Array(kept * d);
    this.hessStar = new Float64Array(this.#perRow ? kept * d * d : 0);
    this.#all = Int32Array.from({ length: kept }, (_, i) => i);
    this.#delta = new Float64Array(d);
  }

  /** One full-data pass at θ* (n ℓ rows, n gradient rows and n Hessian rows counted). */
  recenter(thetaStar: Float64Array): void {
    const d = this.dim, n = this.numRows, m = this.model;
    if (!(thetaStar instanceof Float64Array) || thetaStar.length !== d) {
      throw new RangeError(`thetaStar must be a Float64Array of length ${d}`);
    }
    for (let j = 0; j < d; j++) {
      if (!Number.isFinite(thetaStar[j])) {
        throw new RangeError(`thetaStar must be finite, got ${thetaStar[j]} at index ${j}`);
      }
    }
    this.thetaStar.set(thetaStar);
    if (this.#external !== null) {
      this.llStarSum = this.#external.controlVariateSums(
        this.thetaStar,
        this.gradSum,
        this.hessSum,
      );
      this.version++;
      return;
    }
    this.llStarSum = m.logLikelihoodRows(thetaStar, this.#all, { perRow: this.llStar });
    m.perRowGradients(thetaStar, this.#all, this.gradStar);
    this.gradSum.fill(0);
    this.hessSum.fill(0);
    if (this.#perRow === null) m.logLikelihoodHessian(thetaStar, this.hessSum);
    else this.#perRow.perRowHessians(thetaStar, this.#all, this.hessStar);
    for (let k = 0; k < n; k++) {
      for (let j = 0; j < d; j++) this.gradSum[j] += this.gradStar[k * d + j];
      if (this.#perRow === null) continue;
      for (let i = 0; i < d * d; i++) this.hessSum[i] += this.hessStar[k * d * d + i];
    }
    this.version++;
  }

  /** θ* and S, A, B computed elsewhere (rows outside this instance only; no pass). */
  setSums(thetaStar: Float64Array, sums: CentringSums): void {
    const d = this.dim;
    if (this.#external === null) {
      throw new TypeError(
        "precomputed centring sums need an ExternalGlmModel: an in-memory model's control variates make their own pass",
      );
    }
    const finite = (v: ArrayLike<number>, len: number, what: string) => {
      if (v.length !== len) {
        throw new RangeError(`${what} must have ${len} entries, got ${v.length}`);
      }
      for (let j = 0; j < len; j++) {
        if (!Number.isFinite(v[j])) {
          throw new RangeError(`${what} must be finite, got ${v[j]} at index ${j}`);
        }
      }
    };
    finite(thetaStar, d, "thetaStar");
    finite(sums.gradSum, d, "gradSum");
    finite(sums.hessSum, d * d, "hessSum");
    finite([sums.llStarSum], 1, "llStarSum");
    this.thetaStar.set(thetaStar);
    this.llStarSum = sums.llStarSum;
    this.gradSum.set(sums.gradSum);
    this.hessSum.set(sums.hessSum);
    this.version++;
  }

  /**
   * ℓₖ*, ∇ℓₖ*, Hₖ* (as far as the order needs) of the listed rows: the kept
   * arrays indexed by row, or for rows outside this instance computed on
   * them (indexed by position), from `memo` when it holds them for this
   * centring.
   */
  #star(rows: Int32Array, memo?: StarRows): StarRows {
    if (this.#external === null) {
      return {
        version: this.version,
        byPosition: false,
        ll: this.llStar,
        grad: this.gradStar,
        hess: this.hessStar,
      };
    }
    if (memo !== undefined && memo.version === this.version) return memo;
    const k = rows.length, d = this.dim, m = this.model, t = this.thetaStar;
    const ll = new Float64Array(k);
    const grad = new Float64Array(this.order >= 1 ? k * d : 0);
    const hess = new Float64Array(this.order === 2 ? k * d * d : 0);
    if (k > 0) {
      m.logLikelihoodRows(t, rows, { perRow: ll });
      if (this.order >= 1) m.perRowGradients(t, rows, grad);
      if (this.order === 2) this.#perRow!.perRowHessians(t, rows, hess);
    }
    return { version: this.version, byPosition: true, ll, grad, hess };
  }

  /** Σₖ qₖ(θ) and, with `grad`, its gradient A + Bδ (orders 1, 2), as in ControlVariates. */
  sumAndGradient(theta: Float64Array, grad?: Float64Array): number {
    const d = this.dim, delta = this.#delta, A = this.gradSum, B = this.hessSum;
    for (let j = 0; j < d; j++) delta[j] = theta[j] - this.thetaStar[j];
    let v = this.llStarSum;
    if (grad) grad.fill(0, 0, d);
    if (this.order === 0) return v;
    for (let j = 0; j < d; j++) v += A[j] * delta[j];
    if (grad) grad.set(A);
    if (this.order === 1) return v;
    let quad = 0;
    for (let i = 0; i < d; i++) {
      let bi = 0;
      for (let j = 0; j < d; j++) bi += B[i * d + j] * delta[j];
      quad += delta[i] * bi;
      if (grad) grad[i] += bi;
    }
    return v + 0.5 * quad;
  }

  /**
   * dₖ(θ) of the listed rows into `out`; with `gradOut` (rows.length × d),
   * ∇dₖ(θ) too. Counts the rows as ℓ rows (and gradient rows), and for rows
   * outside this instance the θ* terms computed on them. `memo` keeps those
   * terms for rows evaluated again (the caller forgets it when they change).
   *
   * @returns The θ* terms used (a memo for the same rows).
   */
  differences(
    theta: Float64Array,
    rows: Int32Array,
    out: Float64Array,
    gradOut?: Float64Array,
    memo?: StarRows,
  ): StarRows {
    const d = this.dim, delta = this.#delta, o = this.order, k = rows.length;
    const star = this.#star(rows, memo);
    const llStar = star.ll, gradStar = star.grad, hessStar = star.hess;
    for (let j = 0; j < d; j++) delta[j] = theta[j] - this.thetaStar[j];
    this.model.logLikelihoodRows(theta, rows, { perRow: out });
    if (gradOut) this.model.perRowGradients(theta, rows, gradOut);
    for (let i = 0; i < k; i++) {
      const r = star.byPosition ? i : rows[i];
      let q = llStar[r];
      if (o >= 1) {
        const g0 = r * d;
        for (let j = 0; j < d; j++) {
          q += gradStar[g0 + j] * delta[j];
          if (gradOut) gradOut[i * d + j] -= gradStar[g0 + j];
        }
      }
      if (o === 2) {
        const h0 = r * d * d;
        let quad = 0;
        for (let a = 0; a < d; a++) {
          let ha = 0;
          for (let b = 0; b < d; b++) ha += hessStar[h0 + a * d + b] * delta[b];
          quad += delta[a] * ha;
          if (gradOut) gradOut[i * d + a] -= ha;
        }
        q += 0.5 * quad;
      }
      out[i] -= q;
    }
    return star;
  }

  dispose(): void {
    this.llStar = this.gradStar = this.hessStar = new Float64Array(0);
  }
}

/** ℓₖ*, ∇ℓₖ*, Hₖ* of a list of rows at one centring (see `_RowCache.differences`). */
interface StarRows {
  /** The centring they belong to. */
  readonly version: number;
  /** Indexed by position in the list (rows outside this instance), else by row. */
  readonly byPosition: boolean;
  readonly ll: Float64Array;
  readonly grad: Float64Array;
  readonly hess: Float64Array;
}

function _pilot(
  cache: _RowCache,
  thetas: readonly Float64Array[],
  rng: Rng,
  pilotSize: number | undefined,
): PilotDifferences {
  const n = cache.numRows, size = pilotSize ?? Math.min(1000, n);
  integerAtLeast("pilotSize", size, 2);
  const rows = rng.sampleWithReplacement(n, size), dv = new Float64Array(size);
  const K = thetas.length, mean = new Float64Array(K), variance = new Float64Array(K);
  let memo: StarRows | undefined;
  for (let k = 0; k < K; k++) {
    memo = cache.differences(thetas[k], rows, dv, undefined, memo);
    pilotMomentsInto(dv, size, mean, variance, k);
  }
  return { numRows: n, pilotSize: size, mean, variance };
}

/** Σᵢ wᵢ ∇dᵢ over the first k rows of a (k × d) per-row gradient array, added to `out`. */
function _addWeighted(
  rowGrads: Float64Array,
  weights: ArrayLike<number>,
  k: number,
  out: Float64Array,
): void {
  const d = out.length;
  for (let i = 0; i < k; i++) {
    const w = weights[i];
    for (let j = 0; j < d; j++) out[j] += w * rowGrads[i * d + j];
  }
}

interface _BlockProposal {
  block: number;
  indices: Int32Array;
}

function _perturbed(
  cache: _RowCache,
  rng: Rng,
  settings: BlockSubsampleSettings,
): PerturbedEstimator {
  const m = settings.subsampleSize, n = cache.numRows, d = cache.dim;
  integerAtLeast("subsampleSize", m, 2);
  positiveInteger("numBlocks", settings.numBlocks);
  const G = Math.min(settings.numBlocks, m);
  const blockStart = Int32Array.from({ length: G + 1 }, (_, g) => Math.round((g * m) / G));
  const indices = rng.sampleWithReplacement(n, m);
  const lastDiffs = new Float64Array(m), rowGrads = new Float64Array(m * d);
  const qGrad = new Float64Array(d), weights = new Float64Array(m);
  let numRowsEvaluated = 0;
  let memo: StarRows | undefined; // θ* terms of `indices` (rows outside this instance)
  return {
    variant: "perturbed",
    subsampleSize: m,
    numBlocks: G,
    numRowsPerEvaluation: m,
    get numRowsEvaluated() {
      return numRowsEvaluated;
    },
    evaluate(theta, grad): LikelihoodEstimate {
      numRowsEvaluated += m;
      const sumQ = cache.sumAndGradient(theta, grad ? qGrad : undefined);
      memo = cache.differences(theta, indices, lastDiffs, grad ? rowGrads : undefined, memo);
      const e = differenceEstimate(lastDiffs, { numRows: n, sumControlVariates: sumQ });
      if (grad) {
        const nm = n / m, nm2 = nm * nm;
        let mean = 0;
        for (let i = 0; i < m; i++) mean += lastDiffs[i];
        mean /= m;
        for (let i = 0; i < m; i++) weights[i] = nm - nm2 * (lastDiffs[i] - mean);
        grad.set(qGrad);
        _addWeighted(rowGrads, weights, m, grad);
      }
      return { value: e.value, variance: e.variance, sign: 1 };
    },
    snapshot: () => lastDiffs.slice(),
    propose(r): _BlockProposal {
      const block = r.int(G);
      return {
        block,
        indices: r.sampleWithReplacement(n, blockStart[block + 1] - blockStart[block]),
      };
    },
    proposalLogEstimate(theta, proposal, snapshot) {
      const p = proposal as _BlockProposal;
      numRowsEvaluated += p.indices.length;
      const fresh = new Float64Array(p.indices.length);
      cache.differences(theta, p.indices, fresh);
      const diffs = Float64Array.from(snapshot);
      diffs.set(fresh, blockStart[p.block]);
      return differenceEstimate(diffs, {
        numRows: n,
        sumControlVariates: cache.sumAndGradient(theta),
      })
        .value;
    },
    accept(proposal) {
      const p = proposal as _BlockProposal;
      indices.set(p.indices, blockStart[p.block]);
      memo = undefined;
    },
    dispose() {},
  };
}

interface _ProductProposal {
  products: Int32Array;
  chi: Int32Array;
  rows: Int32Array;
  slotProduct: Int32Array;
}

function _signed(cache: _RowCache, rng: Rng, settings: PoissonSubsampleSettings): SignedEstimator {
  const { batchSize: m, numProducts: lam, numRefreshed: kappa } = settings;
  const n = cache.numRows, d = cache.dim;
  positiveInteger("batchSize", m);
  positiveInteger("numProducts", lam);
  if (!Number.isInteger(kappa) || kappa < 1 || kappa > lam) {
    throw new RangeError(`numRefreshed must be an integer in [1, ${lam}], got ${kappa}`);
  }
  const chi = new Int32Array(lam);
  let S = 0;
  for (let l = 0; l < lam; l++) S += chi[l] = rng.poisson(1);
  let slotProduct = new Int32Array(S);
  for (let l = 0, s = 0; l < lam; l++) for (let h = 0; h < chi[l]; h++) slotProduct[s++] = l;
  let rows = S > 0 ? rng.sampleWithReplacement(n, S * m) : new Int32Array(0);
  let batch = new Float64Array(S);
  const qGrad = new Float64Array(d);
  let numRowsEvaluated = 0;
  let memo: StarRows | undefined; // θ* terms of `rows` (rows outside this instance)
  const self: SignedEstimator = {
    variant: "signed",
    batchSize: m,
    numProducts: lam,
    numRefreshed: kappa,
    lowerBound: settings.lowerBound,
    get numRowsPerEvaluation() {
      return slotProduct.length * m;
    },
    get numRowsEvaluated() {
      return numRowsEvaluated;
    },
    evaluate(theta, grad): LikelihoodEstimate {
      const S = slotProduct.length, a = self.lowerBound, nm = n / m;
      numRowsEvaluated += S * m;
      const sumQ = cache.sumAndGradient(theta, grad ? qGrad : undefined);
      const dv = new Float64Array(S * m), rowGrads = grad ? new Float64Array(S * m * d) : undefined;
      if (S > 0) memo = cache.differences(theta, rows, dv, rowGrads, memo);
      batch = new Float64Array(S);
      for (let s = 0; s < S; s++) {
        let t = 0;
        for (let i = s * m; i < (s + 1) * m; i++) t += dv[i];
        batch[s] = nm * t;
      }
      const e = blockPoissonEstimate(batch, {
        numProducts: lam,
        lowerBound: a,
        sumControlVariates: sumQ,
      });
      if (grad) {
        grad.set(qGrad);
        const w = new Float64Array(S * m);
        for (let s = 0; s < S; s++) w.fill(nm / (batch[s] - a), s * m, (s + 1) * m);
        _addWeighted(rowGrads!, w, S * m, grad);
      }
      let mean = 0;
      for (let s = 0; s < S; s++) mean += batch[s];
      mean /= Math.max(1, S);
      let ss = 0;
      for (let s = 0; s < S; s++) ss += (batch[s] - mean) ** 2;
      return { value: e.logAbs, variance: S > 1 ? ss / (S - 1) / lam : 0, sign: e.sign };
    },
    snapshot: () => batch.slice(),
    propose(r): _ProductProposal {
      const products = kappa === lam
        ? Int32Array.from({ length: lam }, (_, i) => i)
        : r.sampleWithoutReplacement(lam, kappa);
      const newChi = new Int32Array(products.length);
      let P = 0;
      for (let i = 0; i < products.length; i++) P += newChi[i] = r.poisson(1);
      const sp = new Int32Array(P);
      for (let i = 0, s = 0; i < products.length; i++) {
        for (let h = 0; h < newChi[i]; h++) sp[s++] = products[i];
      }
      const newRows = P > 0 ? r.sampleWithReplacement(n, P * m) : new Int32Array(0);
      return { products, chi: newChi, rows: newRows, slotProduct: sp };
    },
    proposalLogEstimate(theta, proposal, snapshot) {
      const p = proposal as _ProductProposal, P = p.slotProduct.length, nm = n / m;
      numRowsEvaluated += P * m;
      const dv = new Float64Array(P * m);
      if (P > 0) cache.differences(theta, p.rows, dv);
      const removed = new Uint8Array(lam);
      for (const l of p.products) removed[l] = 1;
      const all: number[] = [];
      for (let s = 0; s < slotProduct.length; s++) {
        if (!removed[slotProduct[s]]) all.push(snapshot[s]);
      }
      for (let s = 0; s < P; s++) {
        let t = 0;
        for (let i = s * m; i < (s + 1) * m; i++) t += dv[i];
        all.push(nm * t);
      }
      return blockPoissonEstimate(all, {
        numProducts: lam,
        lowerBound: self.lowerBound,
        sumControlVariates: cache.sumAndGradient(theta),
      }).logAbs;
    },
    accept(proposal) {
      const p = proposal as _ProductProposal;
      const removed = new Uint8Array(lam);
      for (const l of p.products) removed[l] = 1;
      const keptSlots: number[] = [];
      for (let s = 0; s < slotProduct.length; s++) if (!removed[slotProduct[s]]) keptSlots.push(s);
      const K = keptSlots.length, P = p.slotProduct.length;
      const nextRows = new Int32Array((K + P) * m), nextProduct = new Int32Array(K + P);
      keptSlots.forEach((s, i) => {
        nextRows.set(rows.subarray(s * m, (s + 1) * m), i * m);
        nextProduct[i] = slotProduct[s];
      });
      nextRows.set(p.rows, K * m);
      nextProduct.set(p.slotProduct, K);
      for (let i = 0; i < p.products.length; i++) chi[p.products[i]] = p.chi[i];
      rows = nextRows;
      slotProduct = nextProduct;
      memo = undefined;
    },
    dispose() {},
  };
  return self;
}
