/**
 * The stochastic-gradient samplers (SGLD, SG-HMC, SGNHT, CCAdL) as registry
 * entries ({@link SamplerDescription}): the kernels of `sgld.ts`, `sghmc.ts`,
 * `sgnht.ts` and `ccadl.ts` with the papers' defaults, on any
 * {@link DataModel}.
 *
 * Set-up (once per run, in `build`): an expansion point θ* (a Newton fit on
 * a 1 % subset for a {@link GlmModel}, as in HMC-ECS §6.3; `thetaStar` for
 * any other DataModel) and the posterior precision P = −∇² log π(θ*) there.
 * Every chain starts at θ* and owns its gradient estimator (and its control
 * variates), created in `init` and freed in `dispose`.
 *
 * Defaults, from the papers (λ_max is the largest eigenvalue of P, which
 * grows like n, so every default step size shrinks with n):
 *
 * | sampler | step size | other defaults | gradient |
 * | --- | --- | --- | --- |
 * | sgld | ε = 0.2/λ_max | — | control variates (Dang §6.2) |
 * | sghmc | ε = 0.06 with M = P | L = ⌈1.2/ε⌉ = 20, C = I, p resampled | control variates (Dang §6.2) |
 * | sgnht | h = 0.1/√λ_max | A = 10, μ = d | plain minibatch (Shang §4) |
 * | ccadl | h = 0.1/√λ_max | A = 10, μ = d, diagonal Î | plain minibatch (Shang §4) |
 *
 * - SGLD: for a Gaussian target the fixed-step chain has variance
 *   1/(λ(1 − ελ/4)) along an eigendirection of precision λ, so ε = 0.2/λ_max
 *   inflates no variance by more than 5 % (plus the gradient noise).
 * - SG-HMC follows Dang et al. §6.2: M = Σ⁻¹(θ*) (so ε is in posterior-sd
 *   units and need not scale with n), ε = 0.06 and L = 1.2/ε = 20 leapfrog
 *   steps per iteration (their HIGGS values), momentum resampled each
 *   iteration. L = 1 would make it a random walk that ignores the gradient.
 * - SGNHT and CCAdL follow Shang et al. §4: M = I, μ = N_d, A = 10 (their
 *   Figure 2), h·√λ_max = 0.1 (a tenth of the leapfrog stability limit 2),
 *   and plain minibatch gradients, whose parameter-dependent noise is what
 *   CCAdL's covariance term corrects and SGNHT's thermostat only absorbs
 *   on average. With control variates the noise, and so the difference, is
 *   small.
 *
 * A divergent step (non-finite or exploding position, momentum or gradient)
 * ends the chain with a reason naming the step size; the draws before it
 * are kept.
 *
 * References: Welling & Teh (2011); Chen, Fox & Guestrin (2014); Dang et al.
 * (2019), §6.2–6.3; Shang et al. (2015), Algorithm 1 and §4.
 *
 * @module
 */
import { type DataModel, isDataModel, type Model } from "../../models/model.ts";
import { type SubsamplingSupport, subsamplingSupport } from "../../models/subsampling_support.ts";
import { Rng } from "../../random/rng.ts";
import { ControlVariates } from "../../subsampling/control_variates.ts";
import {
  controlVariateGradient,
  type GradientEstimator,
  minibatchGradient,
} from "../../subsampling/gradient_estimators.ts";
import { subsetFit } from "../../subsampling/subset_fit.ts";
import * as ccadl from "../ccadl/kernel.ts";
import { metricFromNegativeHessian } from "../metric.ts";
import type {
  ChainSampler,
  RunPlan,
  SamplerDescription,
  SamplerOption,
  StepInfo,
} from "../sampler.ts";
import { checkPositive, divergenceReason } from "./common.ts";
import type { SgSamplerOptions } from "./options.ts";
import * as sghmc from "../sghmc/kernel.ts";
import * as sgld from "../sgld/kernel.ts";
import * as sgnht from "../sgnht/kernel.ts";
import { positiveInteger } from "../validate_options.ts";

/** The four SG samplers. */
export type SgKind = "sgld" | "sghmc" | "sgnht" | "ccadl";

interface _SgState {
  readonly kernel: { readonly position: Float64Array };
  readonly params: Record<string, unknown> & { stepSize: number };
  readonly estimator: GradientEstimator;
  readonly cv: ControlVariates | null;
}

const _COMMON_OPTIONS: readonly SamplerOption[] = [
  {
    name: "batchSize",
    flag: "batch-size",
    type: "integer",
    min: 2,
    default: "max(100, ⌈n/100⌉), at most n",
    help: "minibatch size m",
  },
  {
    name: "controlVariateOrder",
    flag: "cv-order",
    type: "choice",
    choices: ["0", "1", "2"],
    default: "2",
    help: "Taylor order of the control variates (with --control-variates yes)",
  },
];

function _options(kind: SgKind): SamplerOption[] {
  const stepDefault = {
    sgld: "0.2/λ_max, λ_max the largest eigenvalue of −∇² log π(θ*) (∝ n)",
    sghmc: "0.06 with mass matrix M = −∇² log π(θ*) (Dang et al. §6.2)",
    sgnht: "0.1/√λ_max, λ_max the largest eigenvalue of −∇² log π(θ*) (∝ n)",
    ccadl: "0.1/√λ_max, λ_max the largest eigenvalue of −∇² log π(θ*) (∝ n)",
  }[kind];
  const out: SamplerOption[] = [
    {
      name: "stepSize",
      flag: "step-size",
      type: "number",
      default: stepDefault,
      help: "step size",
    },
    ..._COMMON_OPTIONS,
    {
      name: "controlVariates",
      flag: "control-variates",
      type: "boolean",
      default: kind === "sgld" || kind === "sghmc" ? "yes (Dang §6.2)" : "no (Shang §4)",
      help: "control-variate gradients (no: plain minibatch gradients)",
    },
  ];
  if (kind === "sghmc") {
    out.push(
      {
        name: "numIntegrationSteps",
        flag: "num-steps",
        type: "integer",
        min: 1,
        default: "⌈1.2/ε⌉ (20 at the default ε, Dang et al. §6.2)",
        help: "leapfrog steps per iteration",
      },
      {
        name: "friction",
        flag: "friction",
        type: "number",
        default: "1",
        help: "friction C = c·I",
      },
    );
  } else if (kind !== "sgld") {
    out.push(
      {
        name: "friction",
        flag: "friction",
        type: "number",
        default: "10 (Shang et al. Fig. 2)",
        help: "effective friction A",
      },
      {
        name: "thermalMass",
        flag: "thermal-mass",
        type: "number",
        default: "d",
        help: "thermal mass μ of the thermostat",
      },
    );
  }
  return out;
}

/** The largest eigenvalue of a symmetric positive definite d×d matrix (power iteration). */
function _largestEigenvalue(a: Float64Array, d: number): number {
  let v = new Float64Array(d).fill(1 / Math.sqrt(d)), lambda = 0;
  for (let it = 0; it < 100; it++) {
    const w = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += a[i * d + j] * v[j];
      w[i] = s;
    }
    let norm = 0;
    for (let i = 0; i < d; i++) norm += w[i] * w[i];
    norm = Math.sqrt(norm);
    if (!(norm > 0)) break;
    const next = norm;
    for (let i = 0; i < d; i++) w[i] /= norm;
    v = w;
    if (Math.abs(next - lambda) <= 1e-9 * next) {
      lambda = next;
      break;
    }
    lambda = next;
  }
  return lambda;
}

function _setup(
  kind: SgKind,
  model: Model,
  options: SgSamplerOptions,
  plan: RunPlan | undefined,
): {
  thetaStar: Float64Array;
  precision: Float64Array;
  lambdaMax: number;
  model: DataModel;
  support: SubsamplingSupport | null;
} {
  if (!isDataModel(model)) {
    throw new TypeError(`${kind} needs a DataModel (per-row gradients), got a model without them`);
  }
  // What the model can do is decided here, once per run.
  const support = subsamplingSupport(model);
  const d = model.dim;
  let thetaStar: Float64Array, precision: Float64Array;
  if (options.thetaStar !== undefined) {
    if (options.thetaStar.length !== d) {
      throw new RangeError(`thetaStar must have length ${d}, got ${options.thetaStar.length}`);
    }
    thetaStar = Float64Array.from(options.thetaStar);
    const lik = new Float64Array(d * d), prior = new Float64Array(d * d);
    model.logLikelihoodHessian(thetaStar, lik);
    model.logPriorHessian(thetaStar, prior);
    precision = lik.map((v, i) => -(v + prior[i]));
  } else if (
    support !== null && (support.inMemoryGlm !== null || support.perRowHessians !== null)
  ) {
    // HMC-ECS's subset MAP (§6.3): gathered rows for a compact-family GLM; the
    // other GLM families (σ, φ, offsets, trials) and models with per-row
    // Hessians through their per-row Hessians.
    const fit = subsetFit(support, new Rng(plan?.seed ?? 0).stream(1_000_000), {});
    thetaStar = fit.thetaStar;
    precision = fit.precision;
  } else {
    throw new TypeError(
      `${kind} on a DataModel without per-row Hessians needs thetaStar (its expansion point and start)`,
    );
  }
  const lambdaMax = _largestEigenvalue(precision, d);
  if (!(lambdaMax > 0) || !Number.isFinite(lambdaMax)) {
    throw new RangeError(
      `the posterior precision at θ* is not positive definite (largest eigenvalue ${lambdaMax}); give stepSize`,
    );
  }
  return { thetaStar, precision, lambdaMax, model, support };
}

function _build(
  kind: SgKind,
  model: Model,
  options: SgSamplerOptions,
  plan?: RunPlan,
): ChainSampler<_SgState, StepInfo> {
  const s = _setup(kind, model, options, plan);
  const dm = s.model, d = dm.dim, n = dm.numRows;
  const stepSize = checkPositive(
    options.stepSize ??
      (kind === "sgld"
        ? 0.2 / s.lambdaMax
        : kind === "sghmc"
        ? 0.06
        : 0.1 / Math.sqrt(s.lambdaMax)),
    "stepSize",
  );
  const batchSize = options.batchSize ?? Math.min(n, Math.max(100, Math.ceil(n / 100)));
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > n) {
    throw new RangeError(`batchSize must be an integer in [1, ${n}], got ${batchSize}`);
  }
  if (kind === "ccadl" && batchSize < 2) {
    throw new RangeError(`ccadl estimates a covariance and needs batchSize ≥ 2, got ${batchSize}`);
  }
  const useCv = options.controlVariates ?? (kind === "sgld" || kind === "sghmc");
  const order = options.controlVariateOrder ?? 2;
  if (![0, 1, 2].includes(order)) {
    throw new RangeError(`controlVariateOrder must be 0, 1 or 2, got ${order}`);
  }
  const friction = checkPositive(options.friction ?? (kind === "sghmc" ? 1 : 10), "friction");
  const numIntegrationSteps = options.numIntegrationSteps ??
    Math.max(1, Math.ceil(1.2 / stepSize - 1e-9));
  positiveInteger("numIntegrationSteps", numIntegrationSteps);
  const thermalMass = checkPositive(options.thermalMass ?? d, "thermalMass");
  const metric = kind === "sghmc"
    ? metricFromNegativeHessian(s.precision.map((v) => -v))
    : undefined;
  const base = { stepSize, explosionBound: options.explosionBound, bounds: _bounds(dm) };
  const name = { sgld: "SGLD", sghmc: "SG-HMC", sgnht: "SGNHT", ccadl: "CCAdL" }[kind];
  return {
    init(_position, rng) {
      let cv: ControlVariates | null = null;
      let estimator: GradientEstimator;
      const support = s.support, glm = support?.inMemoryGlm ?? null;
      if (!useCv) estimator = minibatchGradient(dm, { batchSize, support });
      else if (glm !== null) {
        cv = new ControlVariates(glm, s.thetaStar, { order });
        estimator = controlVariateGradient(dm, { batchSize, controlVariates: cv, support });
      } else {
        estimator = controlVariateGradient(dm, { batchSize, thetaStar: s.thetaStar, support });
      }
      const start = s.thetaStar;
      switch (kind) {
        case "sgld":
          return { kernel: sgld.init(start), params: { ...base, estimator }, estimator, cv };
        case "sghmc":
          return {
            kernel: sghmc.init(start, { rng, metric }),
            params: { ...base, estimator, metric, friction, numIntegrationSteps },
            estimator,
            cv,
          };
        case "sgnht":
          return {
            kernel: sgnht.init(start, { rng, friction }),
            params: { ...base, estimator, friction, thermalMass },
            estimator,
            cv,
          };
        default:
          return {
            kernel: ccadl.init(start, { rng, friction, covariance: "diagonal" }),
            params: {
              ...base,
              estimator,
              friction,
              thermalMass,
              covariance: "diagonal",
              isInPlace: true,
            },
            estimator,
            cv,
          };
      }
    },
    step(rng, state) {
      // deno-lint-ignore no-explicit-any
      const p = state.params as any, k = state.kernel as any;
      const r: { state: { position: Float64Array }; info: StepInfo } = kind === "sgld"
        ? sgld.step(rng, k, p)
        : kind === "sghmc"
        ? sghmc.step(rng, k, p)
        : kind === "sgnht"
        ? sgnht.step(rng, k, p)
        : ccadl.step(rng, k, p);
      const next = { ...state, kernel: r.state };
      return r.info.isDivergent
        ? { state: next, info: r.info, stop: divergenceReason(name, stepSize) }
        : { state: next, info: r.info };
    },
    position: (state) => state.kernel.position,
    tuning: () => ({
      stepSize,
      batchSize,
      controlVariates: useCv,
      thetaStar: s.thetaStar,
      ...(kind === "sghmc" ? { numIntegrationSteps, friction } : {}),
      ...(kind === "sgnht" || kind === "ccadl" ? { friction, thermalMass } : {}),
    }),
    dispose(state) {
      state.estimator.dispose();
      state.cv?.dispose();
    },
  };
}

function _bounds(model: DataModel): { lower: Float64Array; upper: Float64Array } | undefined {
  return (model as { bounds?: { lower: Float64Array; upper: Float64Array } }).bounds;
}

/**
 * The registry entry of one SG sampler: its options, and a `build` that makes
 * the set-up (θ*, the precision there) and returns the chain sampler.
 *
 * @param kind Which sampler.
 * @param summary One line for the CLI's and the page's lists.
 * @param references The papers.
 * @returns The description.
 */
export function sgDescription(
  kind: SgKind,
  summary: string,
  references: string,
): SamplerDescription<SgSamplerOptions> {
  return {
    name: kind,
    summary,
    references,
    requires: "data-model",
    isExact: false,
    options: _options(kind),
    build: (model, options, plan) => _build(kind, model, options, plan),
  };
}
