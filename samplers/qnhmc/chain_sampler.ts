/**
 * QNHMC as a registry entry: per-chain state and the
 * {@link ChainSampler} the driver runs.
 *
 * Per chain, the state holds the kernel state (θ, log π, ∇ log π, C and the
 * pending curvature pairs), ε and the dual-averaging state; the
 * {@link ChainSampler} itself holds nothing that changes, so chains are
 * independent of one another.
 *
 * When C may change is the `adaptation` option:
 *
 * - `"warmup"` (default): C is built from accepted trajectories during warmup
 *   and frozen for sampling. Sampling then runs one fixed Metropolis kernel,
 *   which leaves π invariant for any SPD C (Theorem 3), so the usual
 *   guarantees of a homogeneous Markov chain hold.
 * - `"continuous"`: Algorithm 2 as published, C keeps changing while
 *   sampling. Each transition still leaves π invariant (Theorem 4), but C is
 *   a function of the chain's own past, so the chain is not a homogeneous
 *   Markov chain and invariance of each kernel does not by itself make the
 *   draws converge to π (adaptive-MCMC theory needs e.g. diminishing
 *   adaptation, which BFGS on a non-quadratic U does not provide). Kept for
 *   replicating the paper.
 *
 * References: Fu, Luo & Zhang (2016), "Quasi-Newton Hamiltonian Monte
 * Carlo", eq. (7), Algorithm 2, Theorems 3–4; Roberts & Rosenthal (2007),
 * "Coupling and ergodicity of adaptive MCMC" (why adapting from the chain's
 * past needs more than invariance); Hoffman & Gelman (2014), Algorithm 5.
 *
 * @module
 */
import type { Arena } from "../../core/arena.ts";
import { loadCore } from "../../core/load.ts";
import { gradientOnlyFn, type Model } from "../../models/model.ts";
import type { Rng } from "../../random/rng.ts";
import * as dualAveraging from "../dual_averaging.ts";
import type { LogDensityGradientFn } from "../integrators.ts";
import { identityMetric, type Metric } from "../metric.ts";
import type { ChainSampler, Phase, SamplerDescription, StepResult } from "../sampler.ts";
import { adoptPendingPairs } from "./adaptation.ts";
import { denseBfgs } from "./bfgs.ts";
import type { InverseHessian } from "./inverse_hessian.ts";
import * as kernel from "./kernel.ts";
import { lbfgs } from "./lbfgs.ts";
import type { QnhmcOptions } from "./options.ts";
import { inInterval, positiveFinite, positiveInteger } from "../validate_options.ts";

/** Per-chain state of the QNHMC {@link ChainSampler}. Treat as immutable. */
export interface QnhmcChainState {
  /** Kernel state: θ, log π, ∇ log π, C and pending pairs. */
  readonly kernel: kernel.QnhmcState;
  /** ε used by the next step. */
  readonly stepSize: number;
  /** Dual-averaging state (null when ε is fixed or after warmup). */
  readonly dualAveraging: dualAveraging.DualAveragingState | null;
  /** Pairs skipped so far for failing the curvature condition. */
  readonly numSkippedPairs: number;
}

interface _Settings {
  /** The given ε, or undefined: found at the initial position. */
  stepSize: number | undefined;
  numIntegrationSteps: number;
  approximation: "bfgs" | "lbfgs";
  adaptation: "warmup" | "continuous";
  adaptStepSize: boolean;
  stepSizeJitter: number;
  metric: Metric;
  newInverseHessian: () => InverseHessian;
  /** γ of C₀ = γI. */
  initialGamma: number;
}

function _settings(dim: number, options: QnhmcOptions): _Settings {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object, got ${options}`);
  }
  const stepSize = options.stepSize;
  if (stepSize !== undefined) positiveFinite("stepSize", stepSize);
  const numIntegrationSteps = options.numIntegrationSteps ?? 10;
  positiveInteger("numIntegrationSteps", numIntegrationSteps);
  const approximation = options.approximation ?? (dim <= 200 ? "bfgs" : "lbfgs");
  if (approximation !== "bfgs" && approximation !== "lbfgs") {
    throw new TypeError(
      `approximation must be "bfgs" or "lbfgs", got ${JSON.stringify(approximation)}`,
    );
  }
  const adaptation = options.adaptation ?? "warmup";
  if (adaptation !== "warmup" && adaptation !== "continuous") {
    throw new TypeError(
      `adaptation must be "warmup" or "continuous", got ${JSON.stringify(adaptation)}`,
    );
  }
  const metric = options.metric ?? identityMetric(dim);
  if (metric.dim !== dim) {
    throw new RangeError(`metric must have the model's dimension ${dim}, got ${metric.dim}`);
  }
  const common = { curvatureTolerance: options.curvatureTolerance };
  // One arena per sampler, created at the first WASM product; each chain owns its scratch in it.
  let arena: Arena | undefined;
  const sharedArena = (): Arena => arena ??= loadCore();
  const firstPair = options.initialScale === "first-pair";
  if (
    !firstPair && options.initialScale !== undefined && typeof options.initialScale !== "number"
  ) {
    throw new TypeError(
      `initialScale must be a positive number or "first-pair", got ${
        JSON.stringify(options.initialScale)
      }`,
    );
  }
  const newInverseHessian = approximation === "bfgs"
    ? () =>
      denseBfgs(dim, {
        ...common,
        initial: firstPair ? 1 : options.initialScale as number | undefined,
        scaleBeforeFirstUpdate: firstPair,
        product: options.product,
        arena: sharedArena,
      })
    : () =>
      lbfgs(dim, {
        ...common,
        memory: options.memory,
        initialScale: firstPair ? 1 : options.initialScale as number | undefined,
        scaling: firstPair ? "latest" : options.lbfgsScaling,
      });
  newInverseHessian(); // validate the approximation's options now, not in the first chain
  if (options.targetAcceptanceRate !== undefined) dualAveraging.init(1, options);
  const stepSizeJitter = options.stepSizeJitter ?? (stepSize === undefined ? 0.2 : 0);
  inInterval("stepSizeJitter", stepSizeJitter, "[", 0, 1, ")");
  return {
    stepSize,
    numIntegrationSteps,
    approximation,
    adaptation,
    adaptStepSize: options.adaptStepSize ?? stepSize === undefined,
    stepSizeJitter,
    metric,
    newInverseHessian,
    initialGamma: typeof options.initialScale === "number" ? options.initialScale : 1,
  };
}

/**
 * Build the QNHMC chain sampler for `model` (what {@link qnhmcDescription}
 * `.build` returns, typed).
 *
 * @param model The target (only `dim` and `logDensityAndGradient` are used).
 * @param options See {@link QnhmcOptions}.
 * @returns The chain sampler.
 * @throws {RangeError|TypeError} Naming the option and the value received.
 *
 * @example
 * ```ts
 * import { qnhmcChainSampler } from "./chain_sampler.ts";
 * import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
 * import { Rng } from "../../random/rng.ts";
 * const model = gaussianTarget(new Float64Array(2), new Float64Array([1, 0.9, 0.9, 1]));
 * const sampler = qnhmcChainSampler(model, { stepSize: 0.2, numIntegrationSteps: 5 });
 * const rng = new Rng(1);
 * let s = sampler.init(new Float64Array([3, -3]), rng);
 * for (let i = 0; i < 50; i++) {
 *   s = sampler.step(rng, s, "warmup", i).state;
 *   s = sampler.adapt!.update(s, { info: { acceptanceRate: 1 } as never, iteration: i,
 *     numWarmup: 50, rng, chain: 0 });
 * }
 * // Warmup built C from accepted trajectories.
 * if (s.kernel.inverseHessian.numPairs === 0) throw new Error();
 * ```
 *
 * References: Fu, Luo & Zhang (2016), Algorithm 2.
 */
export function qnhmcChainSampler(
  model: Model,
  options: QnhmcOptions = {},
): ChainSampler<QnhmcChainState, kernel.QnhmcInfo> {
  const dim = model.dim;
  const settings = _settings(dim, options);
  const fn: LogDensityGradientFn = (theta, grad) => model.logDensityAndGradient(theta, grad);
  const gradientFn = gradientOnlyFn(model); // inner leapfrog points: ∇ alone
  const params = (
    stepSize: number,
    collectPairs: boolean,
  ): kernel.QnhmcParams => ({
    logDensityAndGradientFn: fn,
    gradientFn,
    stepSize,
    numIntegrationSteps: settings.numIntegrationSteps,
    metric: settings.metric,
    divergenceThreshold: options.divergenceThreshold,
    collectPairs,
  });
  const adopt = (state: QnhmcChainState): QnhmcChainState => {
    const r = adoptPendingPairs(state.kernel);
    return r.state === state.kernel
      ? state
      : { ...state, kernel: r.state, numSkippedPairs: state.numSkippedPairs + r.numSkipped };
  };
  return {
    init(position: Float64Array, rng: Rng): QnhmcChainState {
      if (position.length !== dim) {
        throw new RangeError(`position must have length ${dim}, got ${position.length}`);
      }
      const state = kernel.init(position, {
        logDensityAndGradientFn: fn,
        inverseHessian: settings.newInverseHessian(),
      });
      // C₀ = γI: a QNHMC step is then a leapfrog step with M⁻¹ scaled by γ² (θ̇ = γM⁻¹p,
      // ṗ = −γ∇U), i.e. plain leapfrog with step γε; the heuristic's ε is divided by γ.
      const stepSize = settings.stepSize ??
        dualAveraging.findReasonableStepSize(state, rng, {
            logDensityAndGradientFn: fn,
            metric: settings.metric,
          }) / settings.initialGamma;
      return {
        kernel: state,
        stepSize,
        dualAveraging: settings.adaptStepSize ? dualAveraging.init(stepSize, options) : null,
        numSkippedPairs: 0,
      };
    },
    step(
      rng: Rng,
      state: QnhmcChainState,
      phase: Phase,
      _iteration: number,
    ): StepResult<QnhmcChainState, kernel.QnhmcInfo> {
      const continuous = settings.adaptation === "continuous";
      const j = settings.stepSizeJitter;
      const stepSize = j === 0
        ? state.stepSize
        : state.stepSize * (1 + j * (2 * rng.uniform() - 1));
      const r = kernel.step(rng, state.kernel, params(stepSize, phase === "warmup" || continuous));
      let next: QnhmcChainState = { ...state, kernel: r.state };
      // Warmup adoption happens in adapt.update; only "continuous" adapts while sampling.
      if (phase === "sampling" && continuous) next = adopt(next);
      return { state: next, info: r.info };
    },
    position: (state: QnhmcChainState): Float64Array => state.kernel.position,
    adapt: {
      update(state: QnhmcChainState, context): QnhmcChainState {
        const next = adopt(state);
        if (next.dualAveraging === null) return next;
        const da = dualAveraging.update(next.dualAveraging, context.info.acceptanceRate);
        return { ...next, dualAveraging: da, stepSize: da.stepSize };
      },
      finish(state: QnhmcChainState): QnhmcChainState {
        if (state.dualAveraging === null) return state;
        return {
          ...state,
          stepSize: dualAveraging.final(state.dualAveraging),
          dualAveraging: null,
        };
      },
    },
    tuning: (state: QnhmcChainState): Record<string, unknown> => ({
      stepSize: state.stepSize,
      stepSizeJitter: settings.stepSizeJitter,
      numIntegrationSteps: settings.numIntegrationSteps,
      approximation: settings.approximation,
      adaptation: settings.adaptation,
      numPairs: state.kernel.inverseHessian.numPairs,
      numSkippedPairs: state.numSkippedPairs,
    }),
    dispose(state: QnhmcChainState): void {
      state.kernel.inverseHessian.dispose();
    },
  };
}

/**
 * The QNHMC registry entry: `"qnhmc"`, needs a log density, exact.
 *
 * `isExact` is true for the default `adaptation: "warmup"`: sampling then
 * runs one Metropolis-corrected kernel with C fixed, which leaves π
 * invariant. With `adaptation: "continuous"` (the paper's Algorithm 2) each
 * transition is still π-invariant but C depends on the chain's history, so
 * exactness of the chain's limit is not guaranteed; conformance tests that
 * rely on `isExact` should use the default.
 *
 * @example
 * ```ts
 * import { qnhmcDescription } from "./chain_sampler.ts";
 * import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
 * const model = gaussianTarget(new Float64Array(3), new Float64Array([1, 2, 3]));
 * const sampler = qnhmcDescription.build(model, { adaptation: "continuous" });
 * if (qnhmcDescription.name !== "qnhmc" || typeof sampler.step !== "function") throw new Error();
 * ```
 *
 * References: Fu, Luo & Zhang (2016), eq. (7), Algorithm 2, Theorems 3–4.
 */
export const qnhmcDescription: SamplerDescription<QnhmcOptions> = {
  name: "qnhmc",
  summary: "quasi-Newton HMC: leapfrog of θ̇ = C M⁻¹p, ṗ = −C∇U with C from BFGS / L-BFGS",
  references: "Fu, Luo & Zhang (2016), eq. (1), (7), Algorithm 2",
  requires: "log-density",
  isExact: true,
  options: [
    {
      name: "stepSize",
      flag: "step-size",
      type: "number",
      default: "Hoffman & Gelman's heuristic, then dual averaging in warmup (given: fixed)",
      help: "initial step size ε",
    },
    {
      name: "numIntegrationSteps",
      flag: "num-integration-steps",
      type: "integer",
      default: "10 (the paper's §5.1)",
      help: "leapfrog steps L per trajectory",
    },
    {
      name: "stepSizeJitter",
      flag: "step-size-jitter",
      type: "number",
      default: "0.2 if ε is adapted, else 0 (Neal 2011 §5.4.2.2)",
      help: "ε drawn from ε·[1 − j, 1 + j] each transition",
    },
    {
      name: "approximation",
      flag: "approximation",
      type: "choice",
      choices: ["bfgs", "lbfgs"],
      default: "bfgs for d ≤ 200, else lbfgs (§3.5)",
      help: "inverse-Hessian approximation C",
    },
    {
      name: "targetAcceptanceRate",
      flag: "target-acceptance",
      type: "number",
      default: "0.8",
      help: "dual-averaging target acceptance rate",
    },
  ],
  build: (model: Model, options: QnhmcOptions): ChainSampler<QnhmcChainState, kernel.QnhmcInfo> =>
    qnhmcChainSampler(model, options),
};
