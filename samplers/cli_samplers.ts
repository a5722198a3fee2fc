/**
 * The subsampling samplers reachable from `cli.ts sample --sampler NAME`,
 * with command-line defaults: HMC-ECS (perturbed and signed) and the
 * stochastic-gradient samplers (SGLD, SG-HMC, SGNHT, CCAdL).
 *
 * The stochastic-gradient samplers have no adaptive step size (none is known
 * that keeps their guarantees; Dang et al. 2019 §6.4 tune ε by trial and
 * error), so the command line requires `--step-size` for them. They start at
 * θ* from a Newton fit on a 1 % subset, which is also the centre of their
 * control variates; warmup iterations are burn-in only.
 *
 * @module
 */
import type { DrawsTable } from "../data/draws_csv.ts";
import type { GlmModel } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import { ControlVariates, type TaylorOrder } from "../subsampling/control_variates.ts";
import {
  controlVariateGradient,
  type GradientEstimator,
  minibatchGradient,
} from "../subsampling/gradient_estimators.ts";
import { subsetMap } from "../subsampling/tuning.ts";
import * as ccadl from "./ccadl.ts";
import { sampleChains, type SamplingResult } from "./driver.ts";
import { runHmcEcs } from "./hmc_ecs.ts";
import * as sghmc from "./sghmc.ts";
import * as sgld from "./sgld.ts";
import * as sgnht from "./sgnht.ts";

/** Names accepted by {@link runCliSampler}. */
export const CLI_SAMPLERS: readonly string[] = [
  "hmc-ecs",
  "hmc-ecs-signed",
  "sgld",
  "sghmc",
  "sgnht",
  "ccadl",
];

/** Sizes, seed and sampler settings of a command-line run. */
export interface CliRunOptions {
  /** Draws per chain after warmup. */
  numSamples: number;
  /** Warmup (burn-in for stochastic-gradient samplers) iterations per chain. */
  numWarmup: number;
  /** Number of chains. */
  numChains: number;
  /** Seed. */
  seed: number;
  /** Thinning. */
  thin: number;
  /** Step size ε (h); required by the stochastic-gradient samplers. */
  stepSize?: number;
  /** Minibatch size (stochastic-gradient samplers; default max(100, ⌈n/100⌉) capped at n). */
  batchSize?: number;
  /** Leapfrog steps per SG-HMC iteration (default 1). */
  numIntegrationSteps?: number;
  /** Friction C = cI (SG-HMC) or A (SGNHT, CCAdL) (default 1). */
  friction?: number;
  /** Taylor order of the control variates, or "none" (default 2). */
  controlVariates?: TaylorOrder | "none";
  /** Progress callback. */
  onProgress?: (chain: number, iteration: number, total: number) => void;
}

/** What {@link runCliSampler} returns. */
export interface CliRunResult {
  /** The driver's result. */
  result: SamplingResult;
  /** Extra per-draw columns for the draws file (`sign` for signed HMC-ECS). */
  extra: DrawsTable["extra"];
}

/**
 * Run a named subsampling sampler on a GLM with command-line defaults.
 *
 * @param name One of {@link CLI_SAMPLERS}.
 * @param model The GLM.
 * @param options Sizes, seed, sampler settings, progress.
 * @returns The driver's result and any extra per-draw columns (e.g. `sign`).
 * @throws {RangeError} For an unknown name or a missing/invalid setting.
 *
 * @example
 * ```ts
 * import { loadCore } from "../core/load.ts";
 * import { higgsShaped } from "../data/synthetic.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { runCliSampler } from "./cli_samplers.ts";
 * const { data } = higgsShaped(loadCore(), { n: 5000, seed: 2 });
 * const model = new GlmModel(data, { family: "logistic" });
 * const { result } = runCliSampler("sgld", model, {
 *   numSamples: 50, numWarmup: 50, numChains: 1, seed: 1, thin: 1, stepSize: 1e-5,
 * });
 * if (result.numDraws !== 50) throw new Error();
 * ```
 *
 * References: Dang et al. (2019), Algorithm 1 and §6.2–6.4; Shang et al. (2015), Algorithm 1.
 */
export function runCliSampler(name: string, model: GlmModel, options: CliRunOptions): CliRunResult {
  if (!CLI_SAMPLERS.includes(name)) {
    throw new RangeError(
      `unknown sampler ${JSON.stringify(name)}; expected one of ${CLI_SAMPLERS.join(", ")}`,
    );
  }
  const { numSamples, numWarmup, numChains, seed, thin, onProgress } = options;
  const driver = { numSamples, numWarmup, numChains, seed, thin, onProgress };
  const order = options.controlVariates ?? 2;
  if (name === "hmc-ecs" || name === "hmc-ecs-signed") {
    if (order === "none") {
      throw new RangeError(
        "HMC-ECS needs control variates: --cv-order must be 0, 1 or 2, got none",
      );
    }
    const result = runHmcEcs(model, {
      ...driver,
      variant: name === "hmc-ecs" ? "perturbed" : "signed",
      order,
    });
    const extra: DrawsTable["extra"] = {};
    if (name === "hmc-ecs-signed") {
      extra.sign = result.chains.map((c) => {
        const s = c.info.sampling.sign;
        return Float64Array.from({ length: result.numDraws }, (_, k) => s[k * thin]);
      });
    }
    return { result, extra };
  }

  const stepSize = options.stepSize;
  if (stepSize === undefined || !(stepSize > 0) || !Number.isFinite(stepSize)) {
    throw new RangeError(
      `${name} needs a positive step size (--step-size); no adaptive rule exists for it, got ${stepSize}`,
    );
  }
  const n = model.numRows;
  const batchSize = options.batchSize ?? Math.min(n, Math.max(100, Math.ceil(n / 100)));
  const fit = subsetMap(model, new Rng(seed).stream(1_000_000));
  let cv: ControlVariates | undefined;
  let estimator: GradientEstimator;
  if (order === "none") estimator = minibatchGradient(model, { batchSize });
  else {
    cv = new ControlVariates(model, fit.thetaStar, { order });
    estimator = controlVariateGradient(model, { batchSize, controlVariates: cv });
  }
  const friction = options.friction ?? 1;
  try {
    const common = { ...driver, model, initialPosition: fit.thetaStar };
    let result: SamplingResult;
    switch (name) {
      case "sgld":
        result = sampleChains({ ...common, sampler: sgld.sampler({ estimator, stepSize }) });
        break;
      case "sghmc":
        result = sampleChains({
          ...common,
          sampler: sghmc.sampler({
            estimator,
            stepSize,
            friction,
            numIntegrationSteps: options.numIntegrationSteps ?? 1,
          }),
        });
        break;
      case "sgnht":
        result = sampleChains({
          ...common,
          sampler: sgnht.sampler({ estimator, stepSize, friction }),
        });
        break;
      default:
        result = sampleChains({
          ...common,
          sampler: ccadl.sampler({ estimator, stepSize, friction, covariance: "diagonal" }),
        });
    }
    return { result, extra: {} };
  } finally {
    estimator.dispose();
    cv?.dispose();
  }
}
