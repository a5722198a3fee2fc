/**
 * HMC with Energy Conserving Subsampling (HMC-ECS): perturbed and signed.
 *
 * Algorithm 1 as a Gibbs composition over the product state {θ, u}:
 *
 * ```
 *  1. u-step  (eq. 5):  u' = u with one block (perturbed) or κ products
 *     (signed) redrawn; accept with α_u = min(1, L̂(θ; u')/L̂(θ; u)), |L̂| for
 *     signed. Only the redrawn rows are evaluated (the others' dₖ at θ are kept).
 *  2. θ-step  (eq. 7):  the shared HMC kernel ({@link hmc.step}) on
 *     log L̂(θ; u) + log p(θ) for the FIXED u: leapfrog and acceptance use the
 *     same estimated Hamiltonian.
 * ```
 *
 * Perturbed: log L̂ = ℓ̂ₘ − σ̂²ₘ/2 (eq. 12, {@link DifferenceEstimator}).
 * Signed: log|L̂| of the block-Poisson estimator (eq. 15,
 * {@link BlockPoissonEstimator}) with the sign recorded per draw; estimate
 * posterior expectations with {@link signCorrectedMeans} (eq. 17). Use it with
 * second-order control variates: for a fixed u, |L̂(θ)| has zeros where a
 * mini-batch estimate crosses a and grows polynomially beyond them, and only
 * the Gaussian factor exp(Σq) of order 2 keeps that region's mass negligible
 * (with order 1 a chain drifts there and the signs cancel).
 *
 * Tuning (warmup only, §6.3): θ* from the MAP of a 1 % subset
 * ({@link subsetMap}) or given; by default θ* is then moved to the full-data
 * MAP by damped Newton steps, each one re-centring pass (a 10 % subset MAP
 * first when θ* is more than ~5 posterior sds per dimension away; see
 * `maxNewtonSteps`); the chain starts at θ*, M⁻¹ starts at the Laplace
 * covariance; every `updateEvery` = 200 warmup iterations θ* is moved
 * to the mean of the window's draws — unless that mean is within
 * `recenterTolerance` of θ* — the control variates are re-centred
 * (one full-data pass that also yields B = ΣHₖ(θ*)), M⁻¹ = (−∇²log π(θ*))⁻¹
 * from that same pass, and m (perturbed: Var ℓ̂ₘ ≈ `targetVariance`) or
 * (λ, a) (signed: minimum predicted CT, eq. 18) are re-chosen from a pilot
 * at Laplace draws ({@link chooseSubsampleSize}, {@link blockPoissonTuning}).
 * ε is tuned by the shared dual averaging ({@link hmcWarmupUpdate}) with
 * εL = 1.2 and target acceptance 0.8. Every row evaluation, including the
 * subset fit, pilots and full-data passes, is added to `model.cost`.
 *
 * The subsample and control variates live in WebAssembly memory and are
 * updated in place, so a state must be used linearly (step it once; do not
 * step an old state again).
 *
 * References: Dang et al. (2019), Algorithm 1, eqs. 5, 7, 8–18, §6.3;
 * Quiroz et al. (2019, 2018b); Neal (2011); Hoffman & Gelman (2014).
 *
 * @module
 */
import type { GlmModel } from "../models/glm.ts";
import type { Rng } from "../random/rng.ts";
import { BlockPoissonEstimator, signCorrectedMean } from "../subsampling/block_poisson.ts";
import { ControlVariates, type TaylorOrder } from "../subsampling/control_variates.ts";
import { DifferenceEstimator } from "../subsampling/difference_estimator.ts";
import { BlockSubsample, PoissonSubsample } from "../subsampling/subsample_state.ts";
import {
  blockPoissonTuning,
  chooseSubsampleSize,
  laplaceDraws,
  pilotDifferences,
  subsetMap,
} from "../subsampling/tuning.ts";
import { cholesky, choleskySolve, matVec } from "../math/linalg.ts";
import { findReasonableStepSize } from "./dual_averaging.ts";
import { sampleChains, type SampleChainsOptions, type SamplingResult } from "./driver.ts";
import type { ChainSampler, Phase } from "./sampler.ts";
import * as hmc from "./hmc.ts";
import {
  hmcWarmupFinal,
  hmcWarmupInit,
  type HmcWarmupState,
  hmcWarmupUpdate,
} from "./hmc_warmup.ts";
import type { LogDensityGradientFn } from "./integrators.ts";
import { identityMetric, type Metric, metricFromNegativeHessian } from "./metric.ts";

/** Which likelihood estimator HMC-ECS uses. */
export type HmcEcsVariant = "perturbed" | "signed";

/** Options of {@link hmcEcsSampler}. */
export interface HmcEcsOptions {
  /** `"perturbed"` (eq. 12, default) or `"signed"` (eq. 15). */
  variant?: HmcEcsVariant;
  /** Taylor order of the control variates (default 2). */
  order?: TaylorOrder;
  /** Warmup iterations the tuning is planned for (default 1000). */
  numWarmup?: number;
  /** εL (default 1.2, §6.3). Give this or `numIntegrationSteps`. */
  trajectoryLength?: number;
  /** Fixed L instead of εL. */
  numIntegrationSteps?: number;
  /** Cap on L (default 1000). */
  maxNumIntegrationSteps?: number;
  /** Initial ε (default: Hoffman & Gelman's heuristic at θ*). */
  stepSize?: number;
  /** Adapt ε by dual averaging in warmup (default true). */
  adaptStepSize?: boolean;
  /** Dual-averaging target (default 0.8). */
  targetAcceptanceRate?: number;
  /** Re-centre θ* and recompute M every this many warmup iterations (default 200; 0 = never). */
  updateEvery?: number;
  /**
   * Skip a scheduled re-centring when the window's mean θ̄ is still close to
   * θ*: re-centre only if δᵀPδ/d ≥ this, with δ = θ̄ − θ* and P the posterior
   * precision at θ* (the squared offset per dimension in posterior sds).
   * Second-order control variates lose accuracy like (1 + δᵀPδ/d)³, so the
   * default 0.1 skips passes that would buy less than a third in Var ℓ̂.
   * 0 re-centres at every check, the paper's §6.3 schedule. The first
   * re-centring after a signed chain's training is never skipped.
   */
  recenterTolerance?: number;
  /**
   * Before sampling, move θ* by damped Newton steps to the full-data MAP,
   * each step one re-centring pass whose ∑∇ℓₖ and ∑Hₖ the control variates
   * compute anyway, until the Newton decrement gᵀP⁻¹g/d falls below
   * `recenterTolerance` (at most this many steps; default 10, 0 = off, the
   * paper's §6.3, where θ* is learned only from the chain's warmup draws).
   * A subset θ* is ≈ √(n/n_sub) posterior sds off; from there the paper's
   * scheme needs a large m until the first re-centring, while one or two
   * Newton passes land within a fraction of a posterior sd.
   */
  maxNewtonSteps?: number;
  /** Use this θ* instead of fitting one on a subset. */
  thetaStar?: Float64Array;
  /** Subset fraction for the initial θ* (default 0.01). */
  subsetFraction?: number;
  /** Start chains at θ* (default true) instead of the driver's initial position. */
  startAtThetaStar?: boolean;
  /**
   * Initial metric: `"laplace"` (default: the subset fit's Laplace covariance;
   * with a given `thetaStar`, the full-data Hessian at θ*), `"identity"` (the
   * paper's M = I), or a fixed {@link Metric} (also disables M updates).
   */
  initialMetric?: "laplace" | "identity" | Metric;
  /** Perturbed: fixed subsample size m (default: chosen by `targetVariance`). */
  subsampleSize?: number;
  /** Perturbed: target Var ℓ̂ₘ at θ* (default 1). */
  targetVariance?: number;
  /** Perturbed: smallest m considered (default 100). */
  minSubsampleSize?: number;
  /** Perturbed: largest m considered (default n/10). */
  maxSubsampleSize?: number;
  /** Perturbed: number of blocks G (default 100). */
  numBlocks?: number;
  /**
   * Signed: mini-batch size m of each d̂⁽ʰ'ˡ⁾ (default: the smallest m in
   * [2, 30] whose pilot-predicted Var d̂ = n²s̄²/m is ≤ 1, re-chosen with λ).
   */
  batchSize?: number;
  /** Signed: fixed λ (default: minimum predicted CT). */
  numProducts?: number;
  /** Signed: fixed a (default D̃ − λ). */
  lowerBound?: number;
  /** Signed: products refreshed per iteration κ (default 1). */
  numRefreshed?: number;
  /**
   * Signed: run the perturbed estimator until the first θ* re-centring and
   * only then tune (λ, a) and switch to the block-Poisson estimator, as
   * §6.6 tunes λ at the improved θ* (default true when θ* comes from the
   * subset fit, Newton centring is off and a re-centring is scheduled).
   */
  signedTraining?: boolean;
  /**
   * Signed: bounds of the λ search (default 50 and 2000). The lower bound is
   * a safeguard the CT formula does not see: for a fixed u, L̂(θ) has zeros
   * where some d̂(θ) = a, i.e. where |d̂ − D̃| reaches λ, and beyond them |L̂|
   * grows polynomially; with second-order control variates the Gaussian
   * factor exp(Σq) keeps that region's mass ≲ e^(−λ), which λ ≥ 50 makes
   * negligible. (With first-order control variates exp(Σq) does not confine
   * and the signed target is dominated by that region: use order 2.)
   */
  productRange?: [number, number];
  /** Pilot rows (default min(1000, n)) and θ draws (default 10) for tuning m, λ, a. */
  pilotSize?: number;
  /** Number of pilot θ draws (default 10). */
  numPilotDraws?: number;
  /** ΔH above this is a divergence (default 1000). */
  divergenceThreshold?: number;
}

/** The estimate of the state's (θ, u). */
export interface HmcEcsEstimate {
  /** log L̂(θ; u) (perturbed) or log|L̂(θ; u)| (signed). */
  readonly value: number;
  /** σ̂²ₘ (perturbed) or the estimated Var log|L̂| = var(d̂)/λ (signed). */
  readonly variance: number;
  /** sign(L̂) (always 1 for perturbed). */
  readonly sign: number;
}

/** Per-chain state of HMC-ECS. Use linearly (the subsample is updated in place). */
export interface HmcEcsState {
  /** The HMC kernel state: θ, log L̂ + log p and its gradient for the current u. */
  readonly hmc: hmc.HmcState;
  /** The estimator at (θ, u). */
  readonly estimate: HmcEcsEstimate;
  /** Per-row dₖ (perturbed) or per-slot d̂ (signed) at (θ, u). */
  readonly snapshot: Float64Array;
  /** ε of the next step. */
  readonly stepSize: number;
  /** Metric of the next step. */
  readonly metric: Metric;
  /** Warmup adaptation (null after warmup). */
  readonly warmup: HmcWarmupState | null;
  /** The subsample, estimator and control variates (mutable, in WASM memory). */
  readonly engine: HmcEcsEngine;
}

/** Diagnostics of one HMC-ECS iteration (recorded by the driver). */
export interface HmcEcsInfo extends hmc.HmcInfo {
  /** α_u of the u-step (eq. 5). */
  subsampleAcceptanceRate: number;
  /** Whether u' was accepted. */
  isSubsampleAccepted: boolean;
  /** sign(L̂) at the returned state (1 for perturbed). */
  sign: number;
  /** σ̂²ₘ (perturbed) or estimated Var log|L̂| (signed) at the returned state. */
  logLikelihoodVariance: number;
  /** Rows per estimator evaluation: m (perturbed) or S·m (signed). */
  numSubsampleRows: number;
}

/** The mutable machinery of one chain: control variates, subsample, estimator. */
export interface HmcEcsEngine {
  /** The estimator the chain samples with after training. */
  readonly targetVariant: HmcEcsVariant;
  /**
   * The estimator in use: signed chains use the perturbed estimator while
   * training (before the first θ* re-centring), see {@link HmcEcsOptions.signedTraining}.
   */
  variant: HmcEcsVariant;
  /** Whether the chain is still training on the subset θ*. */
  training: boolean;
  /** The control variates (re-centred during warmup). */
  readonly cv: ControlVariates;
  /** Perturbed: the subsample. */
  blockSubsample: BlockSubsample | null;
  /** Perturbed: the estimator. */
  difference: DifferenceEstimator | null;
  /** Signed: the subsample. */
  poissonSubsample: PoissonSubsample | null;
  /** Signed: the estimator. */
  blockPoisson: BlockPoissonEstimator | null;
  /** Number of θ* re-centrings (including the initial centring). */
  numCenterings: number;
  /** Scheduled re-centrings skipped because θ̄ stayed within `recenterTolerance`. */
  numSkippedCenterings: number;
  /** Newton re-centrings made before sampling ({@link HmcEcsOptions.maxNewtonSteps}). */
  numNewtonSteps: number;
}

/**
 * The HMC-ECS sampler description for {@link sampleChains}.
 *
 * @param model A GLM posterior (data in WebAssembly memory).
 * @param options Variant, control variates, tuning (see {@link HmcEcsOptions}).
 * @returns A description; call its `dispose()` after the run to free the
 *   subsample and control-variate buffers.
 * @example
 * ```ts
 * import { loadCore } from "../core/load.ts";
 * import { gaussianLinearRegression } from "../data/synthetic.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { sampleChains } from "./driver.ts";
 * import { hmcEcsSampler } from "./hmc_ecs.ts";
 * const arena = loadCore();
 * const { data } = gaussianLinearRegression(arena, { n: 5000, d: 3, sigma: 1, seed: 1 });
 * const model = new GlmModel(data, { family: "gaussian", sigma: 1, priorScale: 5 });
 * const sampler = hmcEcsSampler(model, { order: 1, numWarmup: 200 });
 * const r = sampleChains({ sampler, model, seed: 1, numWarmup: 200, numSamples: 200, numChains: 1 });
 * sampler.dispose();
 * if (r.chains[0].info.sampling.subsampleAcceptanceRate.length !== 200) throw new Error();
 * ```
 * References: Dang et al. (2019), Algorithm 1, §4–6.3.
 */
export function hmcEcsSampler(
  model: GlmModel,
  options: HmcEcsOptions = {},
): ChainSampler<HmcEcsState, HmcEcsInfo> & { dispose(): void } {
  const o = _resolve(model, options);
  const d = model.dim;
  let cv: ControlVariates | null = null;
  const engines: HmcEcsEngine[] = [];
  const priorGrad = new Float64Array(d);
  const priorHess = new Float64Array(d * d);

  const logDensityFn =
    (engine: HmcEcsEngine, last: { e: HmcEcsEstimate }): LogDensityGradientFn => (theta, grad) => {
      const e = _evaluate(engine, theta, grad);
      last.e = e;
      const lp = model.logPrior(theta, priorGrad);
      for (let j = 0; j < d; j++) grad[j] += priorGrad[j];
      return e.value + lp;
    };

  const params = (state: HmcEcsState, fn: LogDensityGradientFn): hmc.HmcParams => ({
    logDensityAndGradientFn: fn,
    stepSize: state.stepSize,
    metric: state.metric,
    numIntegrationSteps: o.numIntegrationSteps,
    trajectoryLength: o.numIntegrationSteps === undefined ? o.trajectoryLength : undefined,
    maxNumIntegrationSteps: o.maxNumIntegrationSteps,
    divergenceThreshold: o.divergenceThreshold,
  });

  /** Evaluate (θ, u) afresh: HMC state, estimate and snapshot. */
  const evaluateAt = (engine: HmcEcsEngine, theta: Float64Array) => {
    const last = { e: { value: 0, variance: 0, sign: 1 } as HmcEcsEstimate };
    const state = hmc.init(theta, logDensityFn(engine, last));
    return { hmc: state, estimate: last.e, snapshot: _snapshot(engine) };
  };

  /** Choose m or (λ, a) at the current θ* and (re)build the subsample. */
  const retune = (
    engine: HmcEcsEngine,
    precision: Float64Array,
    scale: number,
    rng: Rng,
  ): void => {
    const c = engine.cv;
    const kind: HmcEcsVariant = engine.training ? "perturbed" : engine.targetVariant;
    if (kind !== engine.variant) {
      _disposeEngine(engine);
      engine.variant = kind;
    }
    const needPilot = engine.variant === "perturbed"
      ? options.subsampleSize === undefined
      : options.numProducts === undefined || options.lowerBound === undefined;
    const pilot = needPilot
      ? pilotDifferences(c, {
        thetas: laplaceDraws(c.thetaStar, { precision, count: o.numPilotDraws, rng, scale }),
        rng,
        pilotSize: o.pilotSize,
      })
      : null;
    if (engine.variant === "perturbed") {
      const m = options.subsampleSize ??
        chooseSubsampleSize(pilot!, {
          targetVariance: o.targetVariance,
          minSize: o.minSubsampleSize,
          maxSize: o.maxSubsampleSize,
        });
      const cur = engine.blockSubsample;
      if (cur === null || Math.abs(cur.subsampleSize - m) > 0.1 * cur.subsampleSize) {
        cur?.dispose();
        engine.blockSubsample = new BlockSubsample(c, rng, {
          subsampleSize: m,
          numBlocks: o.numBlocks,
        });
        engine.difference = new DifferenceEstimator(engine.blockSubsample);
      }
    } else {
      // Batch size: given, or the smallest m_b ≤ 30 whose batch estimate d̂
      // has sd ≤ 1 (the perturbed rule Var = n²s̄²/m ≤ 1 per batch), so that
      // nearly exact control variates do not pay for 30-row batches.
      const mb = o.batchSize ??
        (pilot === null
          ? 30
          : chooseSubsampleSize(pilot, { targetVariance: 1, minSize: 2, maxSize: 30 }));
      const t = pilot === null ? null : blockPoissonTuning(pilot, {
        batchSize: mb,
        minProducts: o.productRange[0],
        maxProducts: o.productRange[1],
      });
      const lam = options.numProducts ?? t!.numProducts;
      const a = options.lowerBound ?? (t !== null ? t.differenceSum - lam : -lam);
      const cur = engine.poissonSubsample;
      if (cur === null || cur.numProducts !== lam || cur.batchSize !== mb) {
        cur?.dispose();
        engine.poissonSubsample = new PoissonSubsample(c, rng, {
          batchSize: mb,
          numProducts: lam,
          numRefreshed: Math.min(o.numRefreshed, lam),
        });
        engine.blockPoisson = new BlockPoissonEstimator(engine.poissonSubsample, {
          lowerBound: a,
        });
      } else engine.blockPoisson!.lowerBound = a;
    }
  };

  /** δᵀPδ/d for δ = θ̄ − θ*, P = −∇² log π(θ*): θ̄'s offset in posterior sds². */
  const _recenterDistance = (c: ControlVariates, center: Float64Array): number => {
    const delta = center.map((v, i) => v - c.thetaStar[i]);
    const pDelta = matVec(precisionAtCenter(c), delta);
    let q = 0;
    for (let i = 0; i < d; i++) q += delta[i] * pDelta[i];
    return q / d;
  };

  /**
   * Damped Newton on log π from the control variates' centre: each step
   * solves P s = g with g = A + ∇log p(θ*), P = −(B + ∇²log p(θ*)) from the
   * current centring and re-centres at θ* + t·s (halving t while log π drops;
   * S = Σℓₖ(θ*) comes with the pass). Stops when gᵀP⁻¹g/d < the re-centring
   * tolerance. Returns the number of re-centring passes made.
   */
  const _newtonToMap = (c: ControlVariates, rng: Rng): number => {
    const gPrior = new Float64Array(d), g = new Float64Array(d), cand = new Float64Array(d);
    const tol = Math.max(o.recenterTolerance, 1e-6);
    // log π at the current centre (S comes with the pass); also writes ∇log p there.
    const logPost = () => c.llStarSum + model.logPrior(c.thetaStar, gPrior);
    let passes = 0, fraction = 0.1;
    let lp = logPost();
    for (let k = 0; k < o.maxNewtonSteps; k++) {
      for (let i = 0; i < d; i++) g[i] = c.gradSum[i] + gPrior[i];
      let step: Float64Array;
      try {
        step = choleskySolve(cholesky(precisionAtCenter(c)), g);
      } catch {
        break; // not positive definite here: leave θ* to the warmup windows
      }
      let dec = 0;
      for (let i = 0; i < d; i++) dec += g[i] * step[i];
      if (!(dec / d >= tol)) break;
      if (dec / d > 25 && fraction < 0.5) {
        // More than ~5 sds per dimension away (a small subset's θ*): full-data
        // Newton overshoots where the fitted probabilities are ≈ 0 or 1, so
        // first take the MAP of a 10× larger subset (cost counted), then
        // continue on the full data from there.
        const fit = subsetMap(model, rng, {
          fraction,
          initialPosition: c.thetaStar,
          tolerance: 0.05 * d,
        });
        fraction *= 10;
        c.recenter(fit.thetaStar);
        passes++;
        lp = logPost();
        continue;
      }
      const from = Float64Array.from(c.thetaStar);
      let t = 1;
      for (let tries = 0; tries < 20 && passes < 2 * o.maxNewtonSteps; tries++) {
        for (let i = 0; i < d; i++) cand[i] = from[i] + t * step[i];
        c.recenter(cand);
        passes++;
        const next = logPost();
        if (next >= lp) {
          lp = next;
          break;
        }
        t /= 2;
      }
    }
    return passes;
  };

  /** −∇² log π at θ* from the control variates' B (+ prior), as a precision. */
  const precisionAtCenter = (c: ControlVariates): Float64Array => {
    model.logPriorHessian(c.thetaStar, priorHess);
    const out = new Float64Array(d * d);
    for (let i = 0; i < d * d; i++) out[i] = -(c.hessSum[i] + priorHess[i]);
    return out;
  };

  const description: ChainSampler<HmcEcsState, HmcEcsInfo> & { dispose(): void } = {
    init(position, rng) {
      if (position.length !== d) {
        throw new RangeError(`position must have length ${d}, got ${position.length}`);
      }
      for (const e of engines.splice(0)) _disposeEngine(e);
      // θ* and the Laplace precision: given, or from a subset MAP (§6.3).
      let thetaStar: Float64Array, precision: Float64Array | null = null, scale = 1;
      if (options.thetaStar !== undefined) {
        thetaStar = Float64Array.from(options.thetaStar);
      } else {
        const fit = subsetMap(model, rng, { fraction: o.subsetFraction });
        thetaStar = fit.thetaStar;
        precision = fit.precision;
        scale = Math.sqrt(model.numRows / fit.numSubsetRows);
      }
      if (cv === null) {
        cv = new ControlVariates(model, thetaStar, { order: o.order, computeHessian: true });
      } else cv.recenter(thetaStar);
      let newtonSteps = 0;
      if (o.maxNewtonSteps > 0) {
        newtonSteps = _newtonToMap(cv, rng);
        thetaStar = Float64Array.from(cv.thetaStar);
        precision = null; // the full-data Hessian at the new θ*, below
      }
      if (precision === null) {
        precision = precisionAtCenter(cv);
        scale = 1;
      }
      const training = o.variant === "signed" &&
        (options.signedTraining ??
          (options.thetaStar === undefined && o.maxNewtonSteps === 0 && o.updateEvery > 0 &&
            o.numWarmup > o.updateEvery));
      const engine: HmcEcsEngine = {
        targetVariant: o.variant,
        variant: training ? "perturbed" : o.variant,
        training,
        cv,
        blockSubsample: null,
        difference: null,
        poissonSubsample: null,
        blockPoisson: null,
        numCenterings: 1 + newtonSteps,
        numNewtonSteps: newtonSteps,
        numSkippedCenterings: 0,
      };
      engines.push(engine);
      retune(engine, precision, scale, rng);
      const start = o.startAtThetaStar ? thetaStar : position;
      const fresh = evaluateAt(engine, start);
      let metric: Metric;
      if (typeof o.initialMetric === "object") metric = o.initialMetric;
      else if (o.initialMetric === "identity") metric = identityMetric(d);
      else metric = metricFromNegativeHessian(precision.map((v) => -v));
      const fn = logDensityFn(engine, { e: fresh.estimate });
      const stepSize = options.stepSize ??
        findReasonableStepSize(fresh.hmc, rng, { logDensityAndGradientFn: fn, metric });
      // The probe above moved the estimator's buffers; restore the snapshot's θ.
      const again = evaluateAt(engine, start);
      const adaptMetric = typeof o.initialMetric !== "object" && o.updateEvery > 0;
      const warmup = o.numWarmup > 0
        ? hmcWarmupInit(d, {
          numWarmup: o.numWarmup,
          stepSize,
          adaptStepSize: o.adaptStepSize,
          targetAcceptanceRate: o.targetAcceptanceRate,
          initialMetric: metric,
          metricAdaptation: adaptMetric ? "hessian" : "none",
          updateEvery: o.updateEvery > 0 ? o.updateEvery : undefined,
          hessianFn: adaptMetric
            ? (center, out) => {
              if (!engine.training && _recenterDistance(engine.cv, center) < o.recenterTolerance) {
                engine.numSkippedCenterings++;
                return false;
              }
              // One full-data pass: re-centre the control variates at θ* and
              // take B = ΣHₖ(θ*) from the same pass for M (§6.3).
              engine.cv.recenter(center);
              engine.numCenterings++;
              engine.training = false;
              const p = precisionAtCenter(engine.cv);
              for (let i = 0; i < d * d; i++) out[i] = -p[i];
            }
            : undefined,
        })
        : null;
      return { ...again, stepSize, metric, warmup, engine };
    },

    step(rng, state, _phase: Phase, _iteration: number) {
      const engine = state.engine;
      const theta = state.hmc.position;
      // 1. u-step (eq. 5): propose fresh rows for one block / κ products.
      let cur = state;
      let alphaU: number, acceptedU: boolean;
      if (engine.variant === "perturbed") {
        const u = engine.blockSubsample!, est = engine.difference!;
        const p = u.propose(rng);
        const r = est.evaluateProposal(theta, { proposal: p, currentDiffs: state.snapshot });
        const logRatio = r.estimate.value - state.estimate.value;
        alphaU = logRatio >= 0 ? 1 : Math.exp(logRatio);
        acceptedU = Math.log(rng.uniformOpen()) < logRatio;
        if (acceptedU) u.accept(p);
      } else {
        const u = engine.poissonSubsample!, est = engine.blockPoisson!;
        const p = u.propose(rng);
        const r = est.evaluateProposal(theta, {
          proposal: p,
          currentBatchEstimates: state.snapshot,
        });
        const logRatio = r.estimate.logAbs - state.estimate.value;
        alphaU = logRatio >= 0 ? 1 : Math.exp(logRatio);
        acceptedU = Math.log(rng.uniformOpen()) < logRatio;
        if (acceptedU) u.accept(p);
      }
      if (acceptedU) cur = { ...state, ...evaluateAt(engine, theta) };
      // 2. θ-step (eq. 7): HMC on the estimated Hamiltonian for the fixed u.
      const last = { e: cur.estimate };
      const fn = logDensityFn(engine, last);
      const r = hmc.step(rng, cur.hmc, params(cur, fn));
      let next: HmcEcsState = cur;
      if (r.info.isAccepted) {
        next = { ...cur, hmc: r.state, estimate: last.e, snapshot: _snapshot(engine) };
      }
      const info: HmcEcsInfo = {
        ...r.info,
        subsampleAcceptanceRate: alphaU,
        isSubsampleAccepted: acceptedU,
        sign: next.estimate.sign,
        logLikelihoodVariance: next.estimate.variance,
        numSubsampleRows: _numRows(engine),
      };
      return { state: next, info };
    },

    position: (state) => state.hmc.position,

    adapt: {
      update(state, context) {
        if (state.warmup === null) return state;
        const engine = state.engine;
        const before = engine.cv.version;
        let fresh: ReturnType<typeof evaluateAt> | null = null;
        const warmup = hmcWarmupUpdate(state.warmup, {
          position: state.hmc.position,
          acceptanceRate: context.info.acceptanceRate,
          restartStepSizeFn: () => {
            // θ* moved: re-choose m or (λ, a) at the new centre and re-evaluate
            // the state under the new control variates; keep ε and restart
            // dual averaging from it.
            retune(engine, precisionAtCenter(engine.cv), 1, context.rng);
            fresh = evaluateAt(engine, state.hmc.position);
            return state.stepSize;
          },
        });
        let next: HmcEcsState = {
          ...state,
          warmup,
          stepSize: warmup.stepSize,
          metric: warmup.metric,
        };
        if (engine.cv.version !== before) {
          if (fresh === null) {
            retune(engine, precisionAtCenter(engine.cv), 1, context.rng);
            fresh = evaluateAt(engine, state.hmc.position);
          }
          next = { ...next, ...(fresh as ReturnType<typeof evaluateAt>) };
        }
        return next;
      },
      finish(state) {
        if (state.warmup === null) return state;
        const { stepSize, metric } = hmcWarmupFinal(state.warmup);
        return { ...state, stepSize, metric, warmup: null };
      },
    },

    tuning(state) {
      const e = state.engine;
      return {
        variant: e.targetVariant,
        order: e.cv.order,
        stepSize: state.stepSize,
        numIntegrationSteps: o.numIntegrationSteps ??
          hmc.numStepsForTrajectory(o.trajectoryLength, {
            stepSize: state.stepSize,
            max: o.maxNumIntegrationSteps,
          }),
        inverseMassMatrix: state.metric.inverseMassMatrix,
        thetaStar: Float64Array.from(e.cv.thetaStar),
        numCenterings: e.numCenterings,
        numSkippedCenterings: e.numSkippedCenterings,
        numNewtonSteps: e.numNewtonSteps,
        subsampleSize: e.blockSubsample?.subsampleSize ?? null,
        numBlocks: e.blockSubsample?.numBlocks ?? null,
        batchSize: e.poissonSubsample?.batchSize ?? null,
        numProducts: e.poissonSubsample?.numProducts ?? null,
        numRefreshed: e.poissonSubsample?.numRefreshed ?? null,
        lowerBound: e.blockPoisson?.lowerBound ?? null,
      };
    },

    dispose() {
      for (const e of engines.splice(0)) _disposeEngine(e);
      cv?.dispose();
      cv = null;
    },
  };
  return description;
}

/** Options of {@link runHmcEcs}: the sampler's and the driver's. */
export type RunHmcEcsOptions =
  & HmcEcsOptions
  & Omit<SampleChainsOptions<HmcEcsState, HmcEcsInfo>, "sampler" | "model">;

/**
 * Run HMC-ECS with the common driver (default 4 chains, 1000 warmup + 1000
 * sampling iterations) and free its buffers afterwards.
 *
 * @param model A GLM posterior.
 * @param options Sampler options ({@link HmcEcsOptions}) and driver options.
 * @returns The driver's result; per-iteration `subsampleAcceptanceRate`,
 *   `acceptanceRate`, `sign`, `logLikelihoodVariance` are in
 *   `chains[c].info`, and `chains[c].tuning` holds ε, L, m or (λ, a), θ*, M⁻¹.
 * @example
 * ```ts
 * import { loadCore } from "../core/load.ts";
 * import { higgsShaped } from "../data/synthetic.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { runHmcEcs } from "./hmc_ecs.ts";
 * const arena = loadCore();
 * const { data } = higgsShaped(arena, { n: 20000, seed: 3 });
 * const model = new GlmModel(data, { family: "logistic", priorScale: 10 });
 * const r = runHmcEcs(model, { seed: 1, numWarmup: 200, numSamples: 100, numChains: 1 });
 * if (r.chains[0].tuning.variant !== "perturbed") throw new Error();
 * ```
 * References: Dang et al. (2019), Algorithm 1, §6.3.
 */
export function runHmcEcs(model: GlmModel, options: RunHmcEcsOptions): SamplingResult {
  const numWarmup = options.numWarmup ?? 1000;
  const sampler = hmcEcsSampler(model, { ...options, numWarmup });
  try {
    return sampleChains({ ...options, numWarmup, sampler, model });
  } finally {
    sampler.dispose();
  }
}

/**
 * Sign-corrected posterior means Î_R = Σⱼ θ⁽ʲ⁾s⁽ʲ⁾ / Σⱼ s⁽ʲ⁾ per parameter,
 * pooling chains (eq. 17); equals the plain mean when every sign is +1.
 *
 * @param result A run's result whose sampling info has a `sign` field.
 * @returns One mean per parameter.
 * @example
 * ```ts ignore
 * import { signCorrectedMeans } from "./hmc_ecs.ts";
 * const means = signCorrectedMeans(result); // result of runHmcEcs({variant: "signed"})
 * ```
 * References: Dang et al. (2019), eq. 17; Lyne et al. (2015).
 */
export function signCorrectedMeans(result: SamplingResult): Float64Array {
  const d = result.parameterNames.length;
  const out = new Float64Array(d);
  const signs: number[] = [];
  for (const c of result.chains) {
    const s = c.info.sampling.sign;
    if (s === undefined) throw new RangeError("the run recorded no `sign` info field");
    for (let k = 0; k < result.numDraws; k++) signs.push(s[k * result.thin]);
  }
  for (let j = 0; j < d; j++) {
    const v: number[] = [];
    for (const c of result.chains) for (const x of c.draws[j]) v.push(x);
    out[j] = signCorrectedMean(v, signs);
  }
  return out;
}

interface _Resolved {
  variant: HmcEcsVariant;
  order: TaylorOrder;
  numWarmup: number;
  trajectoryLength: number;
  numIntegrationSteps: number | undefined;
  maxNumIntegrationSteps: number | undefined;
  adaptStepSize: boolean;
  targetAcceptanceRate: number | undefined;
  updateEvery: number;
  recenterTolerance: number;
  maxNewtonSteps: number;
  subsetFraction: number;
  startAtThetaStar: boolean;
  initialMetric: "laplace" | "identity" | Metric;
  targetVariance: number;
  minSubsampleSize: number;
  maxSubsampleSize: number;
  numBlocks: number;
  batchSize: number | undefined;
  numRefreshed: number;
  productRange: [number, number];
  pilotSize: number | undefined;
  numPilotDraws: number;
  divergenceThreshold: number | undefined;
}

function _resolve(model: GlmModel, options: HmcEcsOptions): _Resolved {
  const variant = options.variant ?? "perturbed";
  if (variant !== "perturbed" && variant !== "signed") {
    throw new TypeError(`variant must be "perturbed" or "signed", got ${JSON.stringify(variant)}`);
  }
  const n = model.numRows;
  const numWarmup = options.numWarmup ?? 1000;
  if (!Number.isInteger(numWarmup) || numWarmup < 0) {
    throw new RangeError(`numWarmup must be a non-negative integer, got ${numWarmup}`);
  }
  if (options.numIntegrationSteps !== undefined && options.trajectoryLength !== undefined) {
    throw new TypeError(
      `give numIntegrationSteps or trajectoryLength, not both (got ${options.numIntegrationSteps} and ${options.trajectoryLength})`,
    );
  }
  const updateEvery = options.updateEvery ?? 200;
  if (!Number.isInteger(updateEvery) || updateEvery < 0) {
    throw new RangeError(`updateEvery must be a non-negative integer, got ${updateEvery}`);
  }
  const recenterTolerance = options.recenterTolerance ?? 0.1;
  if (!(recenterTolerance >= 0) || !Number.isFinite(recenterTolerance)) {
    throw new RangeError(
      `recenterTolerance must be a finite number ≥ 0, got ${options.recenterTolerance}`,
    );
  }
  const maxNewtonSteps = options.maxNewtonSteps ?? 10;
  if (!Number.isInteger(maxNewtonSteps) || maxNewtonSteps < 0) {
    throw new RangeError(
      `maxNewtonSteps must be a non-negative integer, got ${options.maxNewtonSteps}`,
    );
  }
  if (options.thetaStar !== undefined && options.thetaStar.length !== model.dim) {
    throw new RangeError(
      `thetaStar must have length ${model.dim}, got ${options.thetaStar.length}`,
    );
  }
  const m = options.subsampleSize;
  if (m !== undefined && (!Number.isInteger(m) || m < 2 || m > 1e9)) {
    throw new RangeError(`subsampleSize must be an integer ≥ 2, got ${m}`);
  }
  const range = options.productRange ?? [50, 2000];
  return {
    variant,
    order: options.order ?? 2,
    numWarmup,
    trajectoryLength: options.trajectoryLength ?? 1.2,
    numIntegrationSteps: options.numIntegrationSteps,
    maxNumIntegrationSteps: options.maxNumIntegrationSteps,
    adaptStepSize: options.adaptStepSize ?? true,
    targetAcceptanceRate: options.targetAcceptanceRate,
    updateEvery,
    recenterTolerance,
    maxNewtonSteps,
    subsetFraction: options.subsetFraction ?? 0.01,
    startAtThetaStar: options.startAtThetaStar ?? true,
    initialMetric: options.initialMetric ?? "laplace",
    targetVariance: options.targetVariance ?? 1,
    minSubsampleSize: Math.min(options.minSubsampleSize ?? 100, n),
    maxSubsampleSize: options.maxSubsampleSize ?? Math.max(2, Math.ceil(n / 10)),
    numBlocks: options.numBlocks ?? 100,
    batchSize: options.batchSize,
    numRefreshed: options.numRefreshed ?? 1,
    productRange: range,
    pilotSize: options.pilotSize,
    numPilotDraws: options.numPilotDraws ?? 10,
    divergenceThreshold: options.divergenceThreshold,
  };
}

function _evaluate(engine: HmcEcsEngine, theta: Float64Array, grad: Float64Array): HmcEcsEstimate {
  if (engine.variant === "perturbed") {
    const e = engine.difference!.evaluate(theta, { grad });
    return { value: e.value, variance: e.variance, sign: 1 };
  }
  const est = engine.blockPoisson!;
  const e = est.evaluate(theta, { grad });
  const S = est.subsample.numSlots, b = est.lastBatchEstimates;
  let mean = 0;
  for (let s = 0; s < S; s++) mean += b[s];
  mean /= Math.max(1, S);
  let ss = 0;
  for (let s = 0; s < S; s++) ss += (b[s] - mean) ** 2;
  const variance = S > 1 ? ss / (S - 1) / est.subsample.numProducts : 0;
  return { value: e.logAbs, variance, sign: e.sign };
}

function _snapshot(engine: HmcEcsEngine): Float64Array {
  if (engine.variant === "perturbed") return engine.difference!.lastDiffs.slice();
  const est = engine.blockPoisson!;
  return est.lastBatchEstimates.slice(0, est.subsample.numSlots);
}

function _numRows(engine: HmcEcsEngine): number {
  return engine.variant === "perturbed"
    ? engine.blockSubsample!.subsampleSize
    : engine.poissonSubsample!.numSlots * engine.poissonSubsample!.batchSize;
}

function _disposeEngine(e: HmcEcsEngine): void {
  e.blockSubsample?.dispose();
  e.poissonSubsample?.dispose();
  e.blockSubsample = e.poissonSubsample = null;
  e.difference = null;
  e.blockPoisson = null;
}
