/**
 * Approximate ("austerity") Metropolis–Hastings: any proposal, accepted or
 * rejected by the sequential test of `subsampling/austerity.ts`, which looks
 * at only as many data rows as it needs to be confident at level ε.
 *
 * ```
 *  θ', log q(θ|θ')/q(θ'|θ)  ←  proposalFn(rng, θ)         random walk (ratio 0), Langevin (eq. 13/14), yours
 *  accept?                  ←  approxMhTest(u, θ, θ', ε, m)  (Algorithm 1; ε = 0 is exact MH)
 * ```
 *
 * Same shape as every sampler: {@link ApproxMhParams}, {@link ApproxMhState},
 * {@link ApproxMhInfo}, {@link init}, a kernel {@link step}; registry entries
 * {@link austerityRwmhDescription} and {@link austeritySgldDescription}; and
 * {@link runApproxMh}, which runs chains with the driver's `sampleChains`.
 * Every row the test touches is counted in the model's `numLogLikRows` (twice:
 * at θ and at θ'); the Langevin proposal's minibatch gradients at θ and θ' in
 * `numGradRows`.
 *
 * References: Korattikara, Chen & Welling (2014), §4 (eqs. 2–4, Algorithm 1),
 * §5.1 (random walk, eq. 5), §5.4 (SGLD proposal, eqs. 13–14); Welling & Teh
 * (2011).
 *
 * @module
 */
import type { DataModel } from "../../models/model.ts";
import type { SubsamplingSupport } from "../../models/subsampling_support.ts";
import type { Rng } from "../../random/rng.ts";
import { approxMhTest, dataModelDifferences, newRowOrder } from "../../subsampling/austerity.ts";
import { randomWalkDraw } from "../rwmh/kernel.ts";
import { positiveFinite } from "../validate_options.ts";

/** A proposed move and its log proposal ratio log q(θ|θ') − log q(θ'|θ). */
export interface ProposalDraw {
  /** θ'. */
  position: Float64Array;
  /** log q(θ|θ') − log q(θ'|θ) (0 for a symmetric proposal). */
  logProposalRatio: number;
}

/** A proposal: draws θ' from q(·|θ) and returns it with its log proposal ratio. */
export type ProposalFn = (rng: Rng, position: Float64Array) => ProposalDraw;

/** Parameters of {@link step}. */
export interface ApproxMhParams {
  /** The posterior (prior, per-row likelihood, N). */
  model: DataModel;
  /** The proposal. */
  proposalFn: ProposalFn;
  /** The bias knob ε ∈ [0, 1) (0: exact MH on all rows). */
  epsilon: number;
  /** Mini-batch size m of the sequential test (≥ 2). */
  batchSize: number;
  /** Also evaluate the exact decision (uncounted) and report agreement. Default false. */
  checkExact?: boolean;
  /**
   * What the model can do, decided once per run (default: decided at every
   * step by `subsamplingSupport(model)`).
   */
  support?: SubsamplingSupport | null;
}

/** What the next step needs. `rowOrder` is chain-owned scratch (a permutation of the rows). */
export interface ApproxMhState {
  /** θ. */
  readonly position: Float64Array;
  /** log ρ(θ). */
  readonly logPrior: number;
  /** The chain's permutation of 0 … N − 1 the test draws rows from (shuffled in place). */
  readonly rowOrder: Int32Array;
}

/** Diagnostics of one step (a {@link StepInfo}). */
export interface ApproxMhInfo {
  /** θ' or its density was non-finite (NaN/+∞): rejected, reported, never thrown. */
  isDivergent: boolean;
  /** Whether θ' was accepted. */
  isAccepted: boolean;
  /** Fraction of the N rows the test used. */
  fractionOfData: number;
  /** Mini-batches the test drew. */
  numBatches: number;
  /** Rows the test used. */
  numRowsUsed: number;
  /** Whether the exact MH test decides the same (null unless `checkExact`). */
  agreesWithExact: boolean | null;
}

/**
 * A Gaussian random-walk proposal θ' = θ + s·L z, z ~ N(0, I) (symmetric:
 * log proposal ratio 0, so μ₀ has the prior ratio only, eq. 5).
 *
 * @param options Scale s > 0 and optional lower Cholesky factor L (d×d row-major).
 * @returns The proposal.
 * @throws {RangeError} On a non-positive scale.
 * @example
 * ```ts
 * import { randomWalkProposal } from "./kernel.ts";
 * import { Rng } from "../../random/rng.ts";
 * const d = randomWalkProposal({ scale: 0.1 })(new Rng(1), new Float64Array(2));
 * if (d.logProposalRatio !== 0 || d.position.length !== 2) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), §5.1, eq. 5.
 */
export function randomWalkProposal(
  options: { scale: number; proposalCholesky?: Float64Array },
): ProposalFn {
  const { scale, proposalCholesky: l } = options;
  positiveFinite("scale", scale);
  return (rng: Rng, position: Float64Array): ProposalDraw => ({
    position: randomWalkDraw(rng, position, { scale, proposalCholesky: l }),
    logProposalRatio: 0,
  });
}

/**
 * The SGLD (stochastic-gradient Langevin) proposal of eq. 13, with the
 * proposal ratio of eq. 14: draw a minibatch X_n without replacement, set
 * g(θ) = (N/n) Σ_{x∈X_n} ∇log p(x|θ) + ∇log ρ(θ), propose θ' ~ N(θ + (α/2)g(θ), αI),
 * and return log q(θ|θ', X_n) − log q(θ'|θ, X_n) with the same X_n at θ'
 * (each minibatch kernel is reversible on its own, so the mixture is too).
 *
 * @param model The posterior.
 * @param options Step size α > 0 and minibatch size n (1 ≤ n ≤ N).
 * @returns The proposal.
 * @throws {RangeError} On a bad α or n.
 * @example
 * ```ts
 * import { langevinProposal } from "./kernel.ts";
 * import { normalGammaModel } from "../../examples/models/normal_gamma.ts";
 * import { Rng } from "../../random/rng.ts";
 * const model = normalGammaModel(new Float64Array([0.2, -0.1, 0.4, 0.3]));
 * const d = langevinProposal(model, { stepSize: 1e-3, batchSize: 2 })(new Rng(1), new Float64Array([0, 1]));
 * if (!Number.isFinite(d.logProposalRatio) || model.cost.numGradRows !== 4) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), §5.4, eqs. 13–14; Welling & Teh (2011).
 */
export function langevinProposal(
  model: DataModel,
  options: { stepSize: number; batchSize: number },
): ProposalFn {
  const { stepSize: alpha, batchSize: n } = options;
  const bigN = model.numRows, d = model.dim;
  positiveFinite("stepSize", alpha);
  if (!Number.isInteger(n) || n < 1 || n > bigN) {
    throw new RangeError(`batchSize must be an integer in [1, ${bigN}], got ${n}`);
  }
  const gLik = new Float64Array(d), gPrior = new Float64Array(d);
  const gradient = (theta: Float64Array, rows: Int32Array, out: Float64Array): void => {
    model.logLikelihoodRows(theta, rows, { grad: gLik });
    model.logPrior(theta, gPrior);
    for (let j = 0; j < d; j++) out[j] = (bigN / n) * gLik[j] + gPrior[j];
  };
  const half = 0.5 * alpha, sd = Math.sqrt(alpha);
  return (rng: Rng, position: Float64Array): ProposalDraw => {
    const rows = rng.sampleWithoutReplacement(bigN, n);
    const g = new Float64Array(d), gNew = new Float64Array(d);
    gradient(position, rows, g);
    const out = new Float64Array(d);
    for (let j = 0; j < d; j++) out[j] = position[j] + half * g[j] + sd * rng.normal();
    gradient(out, rows, gNew);
    let forward = 0, backward = 0;
    for (let j = 0; j < d; j++) {
      forward += (out[j] - position[j] - half * g[j]) ** 2;
      backward += (position[j] - out[j] - half * gNew[j]) ** 2;
    }
    return { position: out, logProposalRatio: (forward - backward) / (2 * alpha) };
  };
}

/**
 * The initial state at `position`; allocates the chain's row permutation (N int32).
 *
 * @param position θ₀ (copied).
 * @param model The posterior.
 * @returns The state.
 * @throws {RangeError} If log ρ(θ₀) is not finite or θ₀ has the wrong length.
 * @example
 * ```ts
 * import { init } from "./kernel.ts";
 * import { normalGammaModel } from "../../examples/models/normal_gamma.ts";
 * const s = init(new Float64Array([0, 1]), normalGammaModel(new Float64Array([0.1, 0.2])));
 * if (s.rowOrder.length !== 2) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), Algorithm 1.
 */
export function init(position: Float64Array, model: DataModel): ApproxMhState {
  if (!(position instanceof Float64Array) || position.length !== model.dim) {
    throw new RangeError(
      `position must be a Float64Array of length ${model.dim}, got ${
        Object.prototype.toString.call(position)
      } of length ${(position as { length?: number })?.length}`,
    );
  }
  const pos = Float64Array.from(position);
  const logPrior = model.logPrior(pos);
  if (!Number.isFinite(logPrior)) {
    throw new RangeError(`log prior at the initial position must be finite, got ${logPrior}`);
  }
  return { position: pos, logPrior, rowOrder: newRowOrder(model.numRows) };
}

/**
 * One approximate MH transition: propose, then run the sequential test.
 * A non-finite θ', or a NaN/+∞ prior ratio, proposal ratio or likelihood
 * difference, rejects and sets `isDivergent`; θ' outside the support (a
 * −∞ ratio) just rejects. Never throws for non-finite values.
 *
 * @param rng The chain's generator.
 * @param state The current state (its `rowOrder` is shuffled in place).
 * @param params Model, proposal, ε, m.
 * @returns The next state (the same object if rejected) and the info.
 * @example
 * ```ts
 * import { init, randomWalkProposal, step } from "./kernel.ts";
 * import { normalGammaModel } from "../../examples/models/normal_gamma.ts";
 * import { Rng } from "../../random/rng.ts";
 * const model = normalGammaModel(Float64Array.from({ length: 200 }, (_, i) => Math.sin(i)));
 * const params = { model, proposalFn: randomWalkProposal({ scale: 0.05 }), epsilon: 0.05, batchSize: 20 };
 * let s = init(new Float64Array([0, 1]), model);
 * const rng = new Rng(3);
 * let used = 0;
 * for (let i = 0; i < 20; i++) {
 *   const r = step(rng, s, params);
 *   s = r.state;
 *   used += r.info.fractionOfData / 20;
 * }
 * if (!(used > 0 && used <= 1)) throw new Error();
 * ```
 *
 * References: Korattikara et al. (2014), Algorithm 1 and eq. 2.
 */
export function step(
  rng: Rng,
  state: ApproxMhState,
  params: ApproxMhParams,
): { state: ApproxMhState; info: ApproxMhInfo } {
  const { model } = params;
  const draw = params.proposalFn(rng, state.position);
  const proposed = draw.position;
  let logPriorNew = NaN;
  if (proposed.every(Number.isFinite)) logPriorNew = model.logPrior(proposed);
  const cost = model.cost;
  const test = approxMhTest(rng, {
    numRows: model.numRows,
    differencesFn: dataModelDifferences(
      model,
      { current: state.position, proposed },
      params.support,
    ),
    logPriorRatio: logPriorNew - state.logPrior,
    logProposalRatio: draw.logProposalRatio,
    epsilon: params.epsilon,
    batchSize: params.batchSize,
    rowOrder: state.rowOrder,
    checkExact: params.checkExact,
    uncharged: <T>(work: () => T): T => {
      const ll = cost.numLogLikRows, gr = cost.numGradRows, hr = cost.numHessianRows;
      try {
        return work();
      } finally {
        cost.numLogLikRows = ll;
        cost.numGradRows = gr;
        cost.numHessianRows = hr;
      }
    },
  });
  const info: ApproxMhInfo = {
    isDivergent: test.isNonFinite || !proposed.every(Number.isFinite),
    isAccepted: test.isAccepted,
    fractionOfData: test.fractionOfData,
    numBatches: test.numBatches,
    numRowsUsed: test.numRowsUsed,
    agreesWithExact: test.agreesWithExact,
  };
  if (!test.isAccepted) return { state, info };
  return {
    state: { position: proposed, logPrior: logPriorNew, rowOrder: state.rowOrder },
    info,
  };
}
