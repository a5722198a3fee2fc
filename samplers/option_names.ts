/**
 * Every option name `sample()`, `sampleParallel()` and the typed runners
 * (`runHmc`, `runHmcEcs`, …) read, so that a misspelt key (`numSample: 7`)
 * is a TypeError naming the closest known one instead of an option silently
 * ignored. The lists are checked against the option types at compile time
 * (a key added to a type and not here fails `deno check`).
 *
 * @module
 */
import { checkOptionNames } from "../math/names.ts";
import type { Model } from "../models/model.ts";
import { assertProperPosterior } from "./proper_posterior.ts";
import type { ApproxMhOptions } from "./austerity/options.ts";
import type { RunOptions } from "./driver.ts";
import type { HmcEcsOptions } from "./hmc_ecs/options.ts";
import type { NaiveOptions } from "./naive/options.ts";
import type { NutsOptions } from "./nuts/options.ts";
import type { QnhmcOptions } from "./qnhmc/options.ts";
import type { HmcSamplerOptions } from "./hmc/options.ts";
import type { RwmhSamplerOptions } from "./rwmh/options.ts";
import type { SgSamplerOptions } from "./sg/options.ts";

/** `K` if it lists every key of `T`, else a type naming the missing ones. */
type _Complete<T, K extends readonly (keyof T)[]> = [Exclude<keyof T, K[number]>] extends [never]
  ? K
  : { missing: Exclude<keyof T, K[number]> };

function _keys<T>(): <const K extends readonly (keyof T)[]>(keys: K & _Complete<T, K>) => K {
  return (keys) => keys;
}

/** The driver's options (every runner takes them). */
export const RUN_OPTION_NAMES = _keys<RunOptions>()([
  "seed",
  "numWarmup",
  "numSamples",
  "numChains",
  "chainIds",
  "thin",
  "initialPositions",
  "initialPosition",
  "jitter",
  "recordWarmupInfo",
  "onProgress",
  "onDraw",
]);

const _HMC = _keys<HmcSamplerOptions>()([
  "stepSize",
  "numIntegrationSteps",
  "trajectoryLength",
  "maxNumIntegrationSteps",
  "metricAdaptation",
  "metric",
  "initialMetric",
  "adaptStepSize",
  "targetAcceptanceRate",
  "updateEvery",
  "hessianFn",
  "initialBuffer",
  "firstWindow",
  "terminalBuffer",
  "divergenceThreshold",
  "warmupScheme",
  "optimizationIterations",
  "init",
  "samplingJitterMin",
  "samplingJitterMax",
  "metricShrinkage",
]);
const _NUTS = _keys<NutsOptions>()([
  "stepSize",
  "metricAdaptation",
  "metric",
  "initialMetric",
  "init",
  "optimizationIterations",
  "adaptStepSize",
  "targetAcceptanceRate",
  "initialBuffer",
  "firstWindow",
  "terminalBuffer",
  "maxTreeDepth",
  "divergenceThreshold",
]);
const _RWMH = _keys<RwmhSamplerOptions>()([
  "scale",
  "proposalCovariance",
  "adaptScale",
  "targetAcceptanceRate",
]);
const _SG = _keys<SgSamplerOptions>()([
  "stepSize",
  "batchSize",
  "controlVariates",
  "controlVariateOrder",
  "friction",
  "numIntegrationSteps",
  "thermalMass",
  "thetaStar",
  "explosionBound",
]);
const _HMC_ECS = _keys<HmcEcsOptions>()([
  "variant",
  "controlVariateOrder",
  "numWarmup",
  "trajectoryLength",
  "numIntegrationSteps",
  "maxNumIntegrationSteps",
  "stepSize",
  "adaptStepSize",
  "targetAcceptanceRate",
  "updateEvery",
  "recenterTolerance",
  "maxNewtonSteps",
  "hessianFraction",
  "thetaStar",
  "centring",
  "subsetFraction",
  "startAtThetaStar",
  "initialMetric",
  "metric",
  "subsampleSize",
  "targetVariance",
  "minSubsampleSize",
  "maxSubsampleSize",
  "numBlocks",
  "batchSize",
  "numProducts",
  "lowerBound",
  "numRefreshed",
  "signedTraining",
  "productRange",
  "pilotSize",
  "numPilotDraws",
  "divergenceThreshold",
]);
const _QNHMC = _keys<QnhmcOptions>()([
  "stepSize",
  "numIntegrationSteps",
  "approximation",
  "product",
  "memory",
  "initialScale",
  "lbfgsScaling",
  "curvatureTolerance",
  "adaptation",
  "adaptStepSize",
  "targetAcceptanceRate",
  "stepSizeJitter",
  "metric",
  "divergenceThreshold",
]);
const _APPROX_MH = _keys<ApproxMhOptions>()([
  "epsilon",
  "batchSize",
  "checkExact",
  "scale",
  "proposalCovariance",
  "adaptScale",
  "targetAcceptanceRate",
  "stepSize",
  "adaptStepSize",
  "gradientBatchSize",
]);
const _NAIVE = _keys<NaiveOptions>()([
  "batchSize",
  "stepSize",
  "adaptStepSize",
  "targetAcceptanceRate",
  "numIntegrationSteps",
  "trajectoryLength",
  "isTrajectoryLengthRandom",
  "candidateBatches",
  "inverseMassDiagonal",
  "divergenceThreshold",
]);

/** The sampler's own option names, by the name it is registered under. */
const _BY_SAMPLER: Record<string, readonly string[]> = {
  hmc: _HMC,
  nuts: _NUTS,
  rwmh: _RWMH,
  sgld: _SG,
  sghmc: _SG,
  sgnht: _SG,
  ccadl: _SG,
  "hmc-ecs": _HMC_ECS,
  qnhmc: _QNHMC,
  "austerity-rwmh": _APPROX_MH,
  "austerity-sgld": _APPROX_MH,
};
for (const v of ["between", "within", "symmetric"]) {
  _BY_SAMPLER[`naive-${v}`] = _NAIVE;
  _BY_SAMPLER[`naive-${v}-mh`] = _NAIVE;
}

/**
 * The worker pool's options (`sampleParallel`'s, samplers/parallel.ts):
 * accepted by `sample()` too, which runs in the calling thread and passes
 * them to neither the driver nor the sampler.
 */
export const WORKER_POOL_OPTION_NAMES: readonly string[] = [
  "workers",
  "workerScratchBytes",
  "initialWorkers",
  "rampSeconds",
];

/** Every key `sample()` reads for some built-in sampler. */
const _ANY_SAMPLE_OPTION = new Set<string>([
  ...RUN_OPTION_NAMES,
  ...Object.values(_BY_SAMPLER).flat(),
  "sampler",
  ...WORKER_POOL_OPTION_NAMES,
]);

/** The typed runners and the sampler options each takes besides the driver's. */
const _BY_RUNNER: Record<string, readonly string[]> = {
  runHmc: _HMC,
  runNuts: _NUTS,
  runRwmh: _RWMH,
  runHmcEcs: _HMC_ECS,
  runQnhmc: _QNHMC,
  runApproxMh: [..._APPROX_MH, "proposal"],
  runSgld: _SG,
  runSghmc: _SG,
  runSgnht: _SG,
  runCcadl: _SG,
  runNaive: [
    ..._NAIVE,
    "variant",
    "isCorrected",
    "seed",
    "numWarmup",
    "numSamples",
    "numChains",
    "initialPosition",
    "initialPositions",
  ],
};

/**
 * Refuse option keys that no built-in sampler reads (a misspelt name), for
 * `sample()` / `sampleParallel()` with a built-in sampler. A key another
 * built-in sampler reads is let through, so that one options object can be
 * passed to several samplers (as the conformance tests do); the typed
 * runners ({@link checkRunOptionNames}) are strict. A sampler registered by
 * a user is not checked: its description does not list every key its
 * `build` reads.
 *
 * @param name The sampler's registered name.
 * @param options The options as passed.
 * @param where `"sample()"` or `"sampleParallel()"`, for the message.
 * @throws {TypeError} Naming the unknown key and the closest known one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkSampleOptionNames } from "./option_names.ts";
 * assert.throws(() => checkSampleOptionNames("hmc", { sampler: "hmc", numSample: 7 }, "sample()"),
 *   /sample\(\) with sampler "hmc": unknown option "numSample"; did you mean "numSamples"\?/);
 * ```
 */
export function checkSampleOptionNames(name: string, options: object, where: string): void {
  const own = _BY_SAMPLER[name];
  if (own === undefined) return;
  checkOptionNames(
    options,
    _ANY_SAMPLE_OPTION,
    `${where} with sampler ${JSON.stringify(name)}`,
    ["sampler", "workers", ...RUN_OPTION_NAMES, ...own],
  );
}

/**
 * What every typed runner checks before it starts: its option names
 * ({@link checkRunOptionNames}) and that a GLM posterior with flat priors
 * is proper (`assertProperPosterior`).
 *
 * @param runner The runner's name (`"runHmc"`, …).
 * @param model The model to sample.
 * @param options The options as passed.
 * @throws {TypeError} For an unknown option name; {@link RangeError} for an improper posterior.
 */
export function checkRunInputs(runner: string, model: Model, options: object): void {
  checkRunOptionNames(runner, options);
  assertProperPosterior(model, `${runner}()`);
}

/**
 * Refuse option keys a typed runner would ignore.
 *
 * @param runner `"runHmc"`, `"runNuts"`, `"runHmcEcs"`, `"runRwmh"`, `"runQnhmc"`, `"runApproxMh"`,
 *   `"runNaive"`, `"runSgld"`, `"runSghmc"`, `"runSgnht"` or `"runCcadl"`.
 * @param options The options as passed.
 * @throws {TypeError} Naming the unknown key and the closest known one.
 */
export function checkRunOptionNames(runner: string, options: object): void {
  const own = _BY_RUNNER[runner];
  if (own === undefined) throw new RangeError(`no option list for ${runner}`);
  checkOptionNames(
    options,
    runner === "runNaive" ? own : [...RUN_OPTION_NAMES, ...own],
    `${runner}()`,
  );
}
