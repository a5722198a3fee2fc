/**
 * The GLM proxy: HMC-ECS's control variates and subsample estimators on the
 * WebAssembly core, as thin adapters over `subsampling/` (the compact per-row
 * cache η*, ℓ*, a, b of {@link ControlVariates}; gathered subsamples
 * {@link BlockSubsample} and {@link PoissonSubsample}; the
 * {@link DifferenceEstimator} and {@link BlockPoissonEstimator}).
 *
 * Each call creates objects owned by one chain; nothing is shared between
 * chains but the model's read-only data. A chain keeps no per-row cache of
 * the n rows (unless its full-data passes run on other threads): the cache
 * rows of its subsample are computed as they are gathered.
 *
 * References: Dang et al. (2019), eqs. 8–15; Quiroz et al. (2019, 2018b).
 *
 * @module
 */
import type { GlmModel } from "../../models/glm.ts";
import type { Rng } from "../../random/rng.ts";
import { BlockPoissonEstimator } from "../../subsampling/block_poisson.ts";
import {
  type ControlVariatePasses,
  ControlVariates,
  type SubsampleControlVariates,
  type TaylorOrder,
} from "../../subsampling/control_variates.ts";
import { DifferenceEstimator } from "../../subsampling/difference_estimator.ts";
import {
  type BlockProposal,
  BlockSubsample,
  PoissonSubsample,
  type ProductProposal,
} from "../../subsampling/subsample_state.ts";
import { pilotDifferences } from "../../subsampling/tuning.ts";
import type {
  BlockSubsampleSettings,
  ControlVariateProxy,
  LikelihoodEstimate,
  PerturbedEstimator,
  PoissonSubsampleSettings,
  RecenterOptions,
  SignedEstimator,
} from "./proxy.ts";
import type { CentringSums } from "./options.ts";

/**
 * A chain's control variates for a GLM, centred at θ* (one full-data pass of
 * ℓ and ∇ℓ; B = ΣHₖ(θ*) at every centring, for the metric and Newton steps,
 * from a full-data Hessian pass or the estimate given).
 *
 * @param model The GLM.
 * @param thetaStar The expansion point.
 * @param order Taylor order.
 * @param options An estimate of B instead of the full-data Hessian pass,
 *   where the full-data passes run (`passes`, e.g. a `ThreadedGlmModel`;
 *   default the model, on the calling thread), whether they keep a per-row
 *   cache (`rowCache`, default true with `passes`), or S, A, B computed before
 *   (`sums`; no pass, passes on the calling thread only).
 * @returns The proxy.
 */
export function glmProxy(
  model: GlmModel,
  thetaStar: Float64Array,
  order: TaylorOrder,
  options: RecenterOptions & {
    passes?: ControlVariatePasses;
    rowCache?: boolean;
    sums?: CentringSums;
  } = {},
): ControlVariateProxy {
  // B is set here rather than by ControlVariates: the exact full-data sum
  // (one Hessian pass, d(d+1)/2 multiply-adds per row, ≈ 4–5 gradient passes
  // at d = 30) or an estimate the caller gives (a subsample's), so that the
  // warmup can centre with one pass of ℓ and ∇ℓ only.
  const passes = options.passes;
  // On the calling thread (or with passes that sum alone, `rowCache: false`)
  // no per-row cache of all n rows is kept (32 B a row, per chain): the
  // subsample's cache rows are computed where they land.
  const cv = new ControlVariates(model, thetaStar, {
    order,
    computeHessian: false,
    passes,
    rowCache: passes !== undefined && options.rowCache !== false,
    sums: options.sums,
  });
  const setHessian = (o: RecenterOptions) => {
    if (o.hessian !== undefined) {
      if (o.hessian.length !== cv.dim * cv.dim) {
        throw new RangeError(
          `hessian must have ${cv.dim * cv.dim} entries, got ${o.hessian.length}`,
        );
      }
      cv.hessSum.set(o.hessian);
    } else {
      (passes ?? model).logLikelihoodHessian(cv.thetaStar, cv.hessSum);
    }
  };
  // Sums given: B is theirs (no pass).
  setHessian(options.sums === undefined ? options : { hessian: options.sums.hessSum });
  return compactProxy(cv, (t, o) => {
    cv.recenter(t);
    setHessian(o);
  });
}

/**
 * The proxy over compact-cache control variates (in memory or external):
 * their sums, subsamples and pilot, with `recenter` as the caller sets B.
 *
 * @param cv The chain's control variates.
 * @param recenter Moves θ* and sets B as the options say.
 * @returns The proxy; `dispose` releases `cv`.
 * @internal
 */
export function compactProxy(
  cv: SubsampleControlVariates & { dispose(): void },
  recenter: (thetaStar: Float64Array, options: RecenterOptions) => void,
): ControlVariateProxy {
  return {
    order: cv.order,
    dim: cv.dim,
    numRows: cv.numRows,
    thetaStar: cv.thetaStar,
    get llStarSum() {
      return cv.llStarSum;
    },
    gradSum: cv.gradSum,
    hessSum: cv.hessSum,
    get version() {
      return cv.version;
    },
    recenter: (t, o = {}) => recenter(t, o),
    pilotDifferences: (thetas, rng, pilotSize) => pilotDifferences(cv, { thetas, rng, pilotSize }),
    blockSubsample: (rng, s) => perturbedEstimator(cv, rng, s),
    poissonSubsample: (rng, s) => signedEstimator(cv, rng, s),
    dispose: () => cv.dispose(),
  };
}

/**
 * A perturbed subsample over compact GLM control variates (in memory or external).
 *
 * @param cv The control variates.
 * @param rng Generator for the initial subsample.
 * @param settings m and G.
 * @returns The chain's estimator.
 */
export function perturbedEstimator(
  cv: SubsampleControlVariates,
  rng: Rng,
  settings: BlockSubsampleSettings,
): PerturbedEstimator {
  return new _PerturbedEstimator(new BlockSubsample(cv, rng, settings));
}

/**
 * {@link perturbedEstimator}'s estimator. Its methods live on the class, not
 * in closures made per estimator: the call sites of a chain's step see one
 * function each whatever the estimator (a chain makes a new one at its
 * start and when the warm-up re-tunes m), so optimised code that inlined
 * them stays valid from chain to chain.
 */
class _PerturbedEstimator implements PerturbedEstimator {
  readonly variant = "perturbed" as const;
  readonly subsampleSize: number;
  readonly numBlocks: number;
  readonly numRowsPerEvaluation: number;
  readonly #u: BlockSubsample;
  readonly #est: DifferenceEstimator;
  #rows = 0;

  constructor(u: BlockSubsample) {
    this.#u = u;
    this.#est = new DifferenceEstimator(u);
    this.subsampleSize = u.subsampleSize;
    this.numBlocks = u.numBlocks;
    this.numRowsPerEvaluation = u.subsampleSize;
  }

  get numRowsEvaluated(): number {
    return this.#rows;
  }

  evaluate(theta: Float64Array, grad?: Float64Array): LikelihoodEstimate {
    const est = this.#est, e = est.evaluate(theta, { grad });
    this.#rows += est.lastRowsEvaluated;
    return { value: e.value, variance: e.variance, sign: 1 };
  }

  snapshot(into?: Float64Array): Float64Array {
    const d = this.#est.lastDiffs;
    if (into === undefined || into.length !== d.length) return d.slice();
    into.set(d);
    return into;
  }

  propose(rng: Rng): unknown {
    return this.#u.propose(rng);
  }

  proposalLogEstimate(theta: Float64Array, proposal: unknown, snapshot: Float64Array): number {
    const p = proposal as BlockProposal;
    this.#rows += p.end - p.start;
    return this.#est.proposalValue(theta, { proposal: p, currentDiffs: snapshot });
  }

  accept(proposal: unknown): void {
    this.#u.accept(proposal as BlockProposal);
  }

  dispose(): void {
    this.#u.dispose();
  }
}

/**
 * A signed subsample over compact GLM control variates (in memory or external).
 *
 * @param cv The control variates.
 * @param rng Generator for the initial subsample.
 * @param settings m, λ, κ and a.
 * @returns The chain's estimator.
 */
export function signedEstimator(
  cv: SubsampleControlVariates,
  rng: Rng,
  settings: PoissonSubsampleSettings,
): SignedEstimator {
  const u = new PoissonSubsample(cv, rng, settings);
  const est = new BlockPoissonEstimator(u, { lowerBound: settings.lowerBound });
  let rows = 0;
  return {
    variant: "signed",
    batchSize: u.batchSize,
    numProducts: u.numProducts,
    numRefreshed: u.numRefreshed,
    get lowerBound() {
      return est.lowerBound;
    },
    set lowerBound(a: number) {
      est.lowerBound = a;
    },
    get numRowsPerEvaluation() {
      return u.numSlots * u.batchSize;
    },
    get numRowsEvaluated() {
      return rows;
    },
    evaluate(theta, grad): LikelihoodEstimate {
      const e = est.evaluate(theta, { grad });
      rows += u.numSlots * u.batchSize;
      const S = u.numSlots, b = est.lastBatchEstimates;
      let mean = 0;
      for (let s = 0; s < S; s++) mean += b[s];
      mean /= Math.max(1, S);
      let ss = 0;
      for (let s = 0; s < S; s++) ss += (b[s] - mean) ** 2;
      const variance = S > 1 ? ss / (S - 1) / u.numProducts : 0;
      return { value: e.logAbs, variance, sign: e.sign };
    },
    snapshot: () => est.lastBatchEstimates.slice(0, u.numSlots),
    propose: (r) => u.propose(r),
    proposalLogEstimate(theta, proposal, snapshot) {
      const p = proposal as ProductProposal;
      rows += p.numSlots * u.batchSize;
      return est.evaluateProposal(theta, { proposal: p, currentBatchEstimates: snapshot })
        .estimate.logAbs;
    },
    accept: (proposal) => {
      u.accept(proposal as ProductProposal);
    },
    dispose: () => u.dispose(),
  };
}
