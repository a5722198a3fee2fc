/**
 * One method's run in the HMC-ECS cost comparisons (R2, R4), summarised for
 * the tables: posterior moments, inefficiency factors, τ̂, the evaluations it
 * is charged, its Table 2 / Table 4 quantities and its relative computational
 * time (RCT) against another method.
 *
 * Conventions (Dang et al. 2019, §6.2 and the captions of Tables 1 and 3):
 *
 * ```
 *  CT_j  = IF_j / (2τ̂ − 1)² × E / R      E: evaluations, R: kept draws (τ̂ = 1 unless signed)
 *  RCT_j = CT_j(method) / CT_j(perturbed HMC-ECS)                (eq. 19, per parameter j)
 * ```
 *
 * computed by the library's {@link relativeComputationalTimeSummary}. Every
 * method keeps the same number of draws R (SGLD is thinned to R), so this is
 * eq. 2 up to the common factor R. E counts, as the paper does, "likelihood
 * and gradient evaluations" (per-row `numLogLikRows + numGradRows +
 * numHessianRows` of the model's cost counter, a Hessian row charged as one
 * evaluation, {@link numRowEvaluations}) for HMC-ECS over the whole run including the
 * subset-free tuning and warmup, and for full-data HMC over its whole run;
 * for SG-HMC and SGLD it counts the per-row gradient evaluations after
 * burn-in only.
 *
 * References: Dang, Quiroz, Kohn, Tran & Villani (2019), JMLR 20, §6.2–6.6,
 * eqs. 2, 17, 18, 19; Plummer et al. (2006).
 *
 * @module
 */
import {
  inefficiencyFactor,
  type RctSummary,
  relativeComputationalTimeSummary,
  type SamplerCost,
} from "../diagnostics/mod.ts";
import { numRowEvaluations } from "../models/model.ts";
import {
  infoAcrossChains,
  parameterDraws,
  type SamplingResult,
  totalCost,
} from "../samplers/driver.ts";
import { drawSigns, type PosteriorMoments, posteriorMoments } from "./moment_errors.ts";

/** One method's run and everything the tables need. */
export interface MethodOutcome {
  /** Identifier (file-name safe). */
  key: string;
  /** Display name. */
  label: string;
  /** Settings in words (ε, L, m, …). */
  settings: string;
  /** The driver's result. */
  result: SamplingResult;
  /** (Sign-corrected) posterior moments. */
  moments: PosteriorMoments;
  /** IF per parameter (of the kept draws). */
  inefficiency: number[];
  /**
   * IF per parameter of the unthinned chain, when the run was thinned after
   * it ran (SGLD: the paper's IF, eq. 2); absent when the kept draws are the chain.
   */
  inefficiencyUnthinned?: number[];
  /** τ̂ (1 for non-signed methods). */
  tau: number;
  /** Kept draws over chains. */
  numDraws: number;
  /** Evaluations charged (see the module comment). */
  evaluations: number;
  /** Likelihood + gradient + Hessian rows in warmup / burn-in. */
  evaluationsWarmup: number;
  /**
   * Hessian rows among the evaluations (warmup and sampling; not those of
   * `extraWarmupEvaluations`).
   */
  hessianRows: number;
  /** Likelihood + gradient + Hessian rows after warmup. */
  evaluationsSampling: number;
  /** Wall time of the run in seconds. */
  seconds: number;
  /** Whether the run diverged (then its numbers are not meaningful). */
  unstable: boolean;
}

/** Table 2 / Table 4 quantities of an HMC-ECS (or HMC) run. */
export interface EcsSummary {
  /** Mean α_θ,p (sampling). */
  acceptance: number;
  /** Mean α_u (sampling; NaN for HMC). */
  subsampleAcceptance: number;
  /** ε after warmup. */
  stepSize: number;
  /** L. */
  numSteps: number;
  /** Mean IF over parameters. */
  meanIf: number;
  /** R / mean IF. */
  ess: number;
  /** τ̂. */
  tau: number;
  /** 100 × rows per estimate / n. */
  percentRows: number;
  /** Median over iterations of σ̂² of ℓ̂ₘ (perturbed) or of the estimated Var log|L̂| (signed); NaN for HMC. */
  logLikelihoodVariance: number;
  /** m (perturbed) or λ (signed), for the text. */
  tuning: Record<string, unknown>;
}

function _mean(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s / a.length;
}

/** Median of a list (mean of the two middle values for an even count). */
function _median(a: readonly number[]): number {
  const s = [...a].sort((x, y) => x - y);
  const k = s.length;
  return k % 2 === 1 ? s[(k - 1) / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
}

function _finiteDraws(result: SamplingResult): boolean {
  for (const chain of result.draws) {
    for (const x of chain) {
      for (let k = 0; k < x.length; k++) {
        if (!Number.isFinite(x[k]) || Math.abs(x[k]) > 1e8) return false;
      }
    }
  }
  return true;
}

function _ifs(result: SamplingResult): number[] {
  const d = result.parameterNames.length;
  const out: number[] = [];
  for (let j = 0; j < d; j++) {
    try {
      out.push(inefficiencyFactor(parameterDraws(result, j)));
    } catch {
      out.push(Infinity);
    }
  }
  return out;
}

/**
 * Summarise one run as a {@link MethodOutcome}: (sign-corrected) moments, IFs,
 * τ̂, and the evaluations it is charged (see the module comment). A run with
 * a non-finite or huge (|θ| > 1e8) draw is marked unstable; its moments are
 * NaN and its IFs Infinity.
 *
 * @param result The driver's result.
 * @param options Key, label and settings text; `charge` "whole" (every
 *   likelihood and gradient row of the run) or "sampling-gradient" (gradient
 *   rows after burn-in); extra warmup evaluations made outside the driver.
 * @returns The outcome.
 */
export function methodOutcome(
  result: SamplingResult,
  options: {
    key: string;
    label: string;
    settings: string;
    charge: "whole" | "sampling-gradient";
    extraWarmupEvaluations?: number;
    thinAfter?: number;
  },
): MethodOutcome {
  const thinAfter = options.thinAfter ?? 1;
  let inefficiencyUnthinned: number[] | undefined;
  if (thinAfter > 1) {
    inefficiencyUnthinned = _finiteDraws(result)
      ? _ifs(result)
      : result.parameterNames.map(() => Infinity);
    result = thinResult(result, thinAfter);
  }
  const w = totalCost(result, "warmup"), s = totalCost(result, "sampling");
  const evaluationsWarmup = numRowEvaluations(w) + (options.extraWarmupEvaluations ?? 0);
  const evaluationsSampling = numRowEvaluations(s);
  const stable = _finiteDraws(result);
  const signs = drawSigns(result);
  const numDraws = result.numChains * result.numDraws;
  let tau = 1;
  if (signs !== undefined) {
    let pos = 0;
    for (let k = 0; k < signs.length; k++) if (signs[k] > 0) pos++;
    tau = pos / numDraws;
  }
  const seconds = result.chains.reduce(
    (a, c) => a + (c.wallTimeMs.warmup + c.wallTimeMs.sampling) / 1000,
    0,
  );
  return {
    key: options.key,
    label: options.label,
    settings: options.settings,
    result,
    moments: stable ? posteriorMoments(result) : {
      mean: result.parameterNames.map(() => NaN),
      variance: result.parameterNames.map(() => NaN),
    },
    inefficiency: stable ? _ifs(result) : result.parameterNames.map(() => Infinity),
    ...(inefficiencyUnthinned ? { inefficiencyUnthinned } : {}),
    tau,
    numDraws,
    evaluations: options.charge === "whole"
      ? evaluationsWarmup + evaluationsSampling
      : s.numGradRows,
    evaluationsWarmup,
    evaluationsSampling,
    hessianRows: w.numHessianRows + s.numHessianRows,
    seconds,
    unstable: !stable,
  };
}

/**
 * Table 2 / 4 quantities of an HMC-ECS or HMC run.
 *
 * @param outcome The method's outcome.
 * @param numRows n.
 * @returns Acceptance rates, ε, L, mean IF, ESS = R/IF, τ̂ and 100·m/n.
 */
export function ecsSummary(outcome: MethodOutcome, numRows: number): EcsSummary {
  const r = outcome.result;
  const has = (f: string) => r.chains[0].info.sampling[f] !== undefined;
  const field = (f: string) =>
    _mean(infoAcrossChains(r, { field: f }).flatMap((c) => Array.from(c)));
  const meanIf = meanInefficiency(outcome);
  const t = r.chains[0].tuning;
  return {
    acceptance: field("acceptanceRate"),
    subsampleAcceptance: has("subsampleAcceptanceRate") ? field("subsampleAcceptanceRate") : NaN,
    stepSize: Number(t.stepSize),
    numSteps: has("numIntegrationSteps")
      ? field("numIntegrationSteps")
      : Number(t.numIntegrationSteps),
    meanIf,
    ess: outcome.numDraws / meanIf,
    tau: outcome.tau,
    percentRows: has("numSubsampleRows") ? (100 * field("numSubsampleRows")) / numRows : 100,
    logLikelihoodVariance: has("logLikelihoodVariance")
      ? _median(
        infoAcrossChains(r, { field: "logLikelihoodVariance" }).flatMap((c) => Array.from(c)),
      )
      : NaN,
    tuning: t,
  };
}

/**
 * Mean IF over parameters (Table 2 / 4's "IF").
 *
 * @param outcome The method's outcome.
 * @returns The mean inefficiency factor.
 */
export function meanInefficiency(outcome: MethodOutcome): number {
  return _mean(outcome.inefficiency);
}

/**
 * Median IF over parameters.
 *
 * @param outcome The method's outcome.
 * @returns The median inefficiency factor.
 */
export function medianInefficiency(outcome: MethodOutcome): number {
  return _median(outcome.inefficiency);
}

/** A method's cost record for the library's CT/RCT, charged `evaluations`. */
function _cost(o: MethodOutcome, evaluations: number): SamplerCost {
  return {
    inefficiencyFactors: o.inefficiency,
    numEvaluations: evaluations,
    numDraws: o.numDraws,
    tau: o.tau,
  };
}

/** RCT per parameter of two cost records; every RCT is Infinity when the method has an infinite IF. */
function _rct(
  method: MethodOutcome,
  methodEvaluations: number,
  reference: MethodOutcome,
  referenceEvaluations: number,
): RctSummary {
  const k = method.inefficiency.length;
  if (!method.inefficiency.every(Number.isFinite) || !(reference.tau > 0.5)) {
    if (reference.inefficiency.length !== k) {
      throw new RangeError(
        `method and reference must have IFs for the same parameters, got ${k} and ${reference.inefficiency.length}`,
      );
    }
    return {
      min: Infinity,
      median: Infinity,
      max: Infinity,
      values: new Array<number>(k).fill(Infinity),
    };
  }
  return relativeComputationalTimeSummary(
    _cost(method, methodEvaluations),
    _cost(reference, referenceEvaluations),
  );
}

/**
 * RCT of a method against a reference (perturbed HMC-ECS in the paper), each
 * charged the evaluations of the module comment: min, median and max over
 * parameters and the per-parameter values (all Infinity when the method's
 * τ̂ ≤ ½ or one of its IFs is not finite).
 *
 * @param method The method.
 * @param reference The reference.
 * @returns The RCT summary.
 * @throws RangeError if the parameter counts differ.
 * References: Dang et al. (2019), eq. 19, Tables 1 and 3.
 */
export function rctOf(method: MethodOutcome, reference: MethodOutcome): RctSummary {
  return _rct(method, method.evaluations, reference, reference.evaluations);
}

/**
 * RCT under the paper's convention exactly (eq. 2: CT = IF × E per run, not
 * per kept draw): the method's IF is that of its unthinned chain when it was
 * thinned after the run (SGLD runs R = L × 2,000 iterations), so SGLD pays
 * both for its L-times-longer chain (E) and for the autocorrelation of every
 * iteration (IF). For methods that keep every draw of an equally long run this
 * equals {@link rctOf}.
 *
 * @param method The method.
 * @param reference The reference (perturbed HMC-ECS).
 * @returns The RCT summary.
 * References: Dang et al. (2019), eqs. 2 and 19, §6.4.
 */
export function rctPaper(method: MethodOutcome, reference: MethodOutcome): RctSummary {
  const ifs = (o: MethodOutcome) => o.inefficiencyUnthinned ?? o.inefficiency;
  const k = method.inefficiency.length;
  if (!ifs(method).every(Number.isFinite) || !(reference.tau > 0.5)) {
    const inf = new Array<number>(k).fill(Infinity);
    return { min: Infinity, median: Infinity, max: Infinity, values: inf };
  }
  const cost = (o: MethodOutcome): SamplerCost => ({
    inefficiencyFactors: ifs(o),
    numEvaluations: o.evaluations,
    numDraws: 1,
    tau: o.tau,
  });
  return relativeComputationalTimeSummary(cost(method), cost(reference));
}

/**
 * Median of {@link rctPaper}: NaN when the method did not run or diverged.
 *
 * @param method The method, if it ran.
 * @param perturbed Perturbed HMC-ECS.
 * @returns The median RCT over parameters, or NaN.
 */
export function medianRctPaper(
  method: MethodOutcome | undefined,
  perturbed: MethodOutcome,
): number {
  if (method === undefined || method.unstable) return NaN;
  return rctPaper(method, perturbed).median;
}

/**
 * Every k-th draw of a run (the last of each block of k), as if it had been
 * run with `thin` = k; costs, info and tuning are the run's.
 *
 * @param result The unthinned run.
 * @param k Thinning (integer ≥ 1).
 * @returns The thinned result.
 */
export function thinResult(result: SamplingResult, k: number): SamplingResult {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`thin must be an integer ≥ 1, got ${k}`);
  if (k === 1) return result;
  const pick = (x: Float64Array) => {
    const m = Math.floor(x.length / k);
    const out = new Float64Array(m);
    for (let i = 0; i < m; i++) out[i] = x[(i + 1) * k - 1];
    return out;
  };
  const chains = result.chains.map((c) => {
    const draws = c.draws.map(pick);
    return { ...c, draws, numDraws: draws[0]?.length ?? 0 };
  });
  return {
    ...result,
    thin: result.thin * k,
    numDraws: Math.floor(result.numDraws / k),
    draws: chains.map((c) => c.draws),
    chains,
  };
}

/**
 * RCT of a method when HMC-ECS and HMC are charged their post-warmup
 * evaluations only (the SG methods' convention), for the sensitivity column.
 *
 * @param method The method.
 * @param perturbed Perturbed HMC-ECS.
 * @returns The RCT summary.
 */
export function rctSamplingOnly(method: MethodOutcome, perturbed: MethodOutcome): RctSummary {
  const charged = (o: MethodOutcome) =>
    o.key.startsWith("ecs_") || o.key === "hmc" ? o.evaluationsSampling : o.evaluations;
  return _rct(method, charged(method), perturbed, charged(perturbed));
}

/**
 * Median RCT of a method against perturbed HMC-ECS for the prose of a report
 * ({@link rctOf}, or {@link rctSamplingOnly} with `samplingOnly`): NaN when the
 * method did not run or diverged.
 *
 * @param method The method, if it ran.
 * @param perturbed Perturbed HMC-ECS.
 * @param options `samplingOnly`: charge HMC-ECS and HMC their post-warmup evaluations only.
 * @returns The median RCT over parameters, or NaN.
 */
export function medianRct(
  method: MethodOutcome | undefined,
  perturbed: MethodOutcome,
  options: { samplingOnly?: boolean } = {},
): number {
  if (method === undefined || method.unstable) return NaN;
  return (options.samplingOnly ? rctSamplingOnly : rctOf)(method, perturbed).median;
}
