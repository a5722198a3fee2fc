/**
 * R0 — full-data HMC against answers known without MCMC.
 *
 * (a) Gaussian linear regression with known σ and independent Gaussian
 * priors is conjugate: the posterior is N(m, S) with
 *
 * ```
 *  S = (XᵀX/σ² + P)⁻¹,   m = S (Xᵀy/σ² + P μ₀),   P = diag(1/s²ⱼ)
 * ```
 *
 * computed here in TypeScript from the rows in the arena (independently of the
 * core's kernels). Full-data HMC must match m within its Monte Carlo standard
 * error and the marginal sds √Sⱼⱼ within theirs.
 *
 * (b) Logistic regression on HIGGS-shaped synthetic data (30 columns,
 * Dang et al. 2019 §6.5 shape) has no closed-form posterior, but the data were
 * generated from known coefficients: with n large the posterior should be
 * centred within a few posterior sds of them (Bernstein–von Mises).
 *
 * Both use the HMC-ECS §6.3 tuning: εL = 1.2, dual averaging to δ = 0.8,
 * M = −∇² log π(θ*) refreshed every 200 warmup iterations (every 50 in quick
 * mode, where warmup is short). The warm-up starts from the Laplace metric at
 * the full-data MAP (Newton, as the reference of R1–R4 and HMC-ECS's start,
 * rather than the paper's M = I) and each chain from its own draw of the
 * Laplace approximation: from M = I the first window needs ε near the
 * smallest posterior sd and the capped L = 100, which cost three times the
 * whole sampling phase and told nothing about the posterior.
 *
 * @module
 */

import { loadCore } from "../core/load.ts";
import { gaussianLinearRegression, higgsShaped } from "../data/synthetic.ts";
import { freeGlmData } from "../data/dataset.ts";
import { mcseMean, mcseSd, summarize, type SummaryRow } from "../diagnostics/mod.ts";
import { GlmModel } from "../models/glm.ts";
import { numRowEvaluations } from "../models/model.ts";
import { Rng } from "../random/rng.ts";
import { metricFromNegativeHessian } from "../samplers/metric.ts";
import { subsetMap } from "../subsampling/tuning.ts";
import {
  infoAcrossChains,
  inverseSpd,
  parameterDraws,
  runHmc,
  type SamplingResult,
  totalCost,
} from "../samplers/mod.ts";
import type {
  Experiment,
  ExperimentContext,
  ExperimentResult,
  ResultTable,
  Verdict,
} from "./experiment.ts";
import { outcomeOf } from "./verdicts.ts";
import { densitySpec, traceSpec } from "./figures.ts";
import { formatShort } from "./format.ts";
import { yieldToEventLoop } from "./progress.ts";
import { dataViews } from "../core/row_buffer.ts";

/** Sizes of one R0 run. */
interface _Settings {
  /** Hessian refresh period in warmup (the paper: 200). */
  updateEvery: number;
  /** Cap on L (a guard: the warm-up starts from the Laplace metric). */
  maxNumIntegrationSteps: number;
  linear: { n: number; d: number; sigma: number; priorScale: number; priorMean: number };
  /**
   * (b): its sampling iterations per chain (its warm-up is `numWarmup`, as
   * (a)'s) and its rows' storage.
   */
  higgs: { n: number; priorScale: number; numSamples: number; storage: "f32" | "f64" };
  numChains: number;
  numWarmup: number;
  numSamples: number;
}

const _FULL: _Settings = {
  updateEvery: 200,
  maxNumIntegrationSteps: 100,
  linear: { n: 100_000, d: 10, sigma: 2, priorScale: 1, priorMean: 0.5 },
  // (b) compares the posterior with the generating coefficients in posterior
  // sds, where 2 × 1 000 draws (ESS ≈ 1 500) leave a Monte Carlo error of
  // ≈ 0.03 sd; X as f32 as in R1–R4 (a pass ≈ 15 % cheaper).
  higgs: { n: 100_000, priorScale: 10, numSamples: 1000, storage: "f32" },
  numChains: 2,
  numWarmup: 1000,
  numSamples: 2000,
};

const _QUICK: _Settings = {
  updateEvery: 50,
  maxNumIntegrationSteps: 30,
  linear: { n: 5_000, d: 6, sigma: 2, priorScale: 1, priorMean: 0.5 },
  higgs: { n: 8_000, priorScale: 10, numSamples: 500, storage: "f64" },
  numChains: 2,
  numWarmup: 300,
  numSamples: 500,
};

/** HMC-ECS §6.3 tuning, used for both parts. */
const _HMC_TUNING = {
  trajectoryLength: 1.2,
  targetAcceptanceRate: 0.8,
  metricAdaptation: "hessian",
} as const;

/** Conjugate posterior N(m, S) of a Gaussian GLM, from the rows in the arena. */
function _analyticPosterior(model: GlmModel): { mean: Float64Array; cov: Float64Array } {
  const { data, familyParam: sigma, priorMean, priorPrecision } = model;
  const n = data.numRows, d = data.numCols;
  const { x: xs, y: ys } = dataViews(data);
  const precision = new Float64Array(d * d); // XᵀX/σ² + P
  const rhs = new Float64Array(d); // Xᵀy/σ² + Pμ₀
  const w = 1 / (sigma * sigma);
  for (let i = 0; i < n; i++) {
    const base = i * d, yi = ys[i];
    for (let j = 0; j < d; j++) {
      const xij = xs[base + j];
      rhs[j] += w * xij * yi;
      for (let k = 0; k <= j; k++) precision[j * d + k] += w * xij * xs[base + k];
    }
  }
  for (let j = 0; j < d; j++) {
    for (let k = 0; k < j; k++) precision[k * d + j] = precision[j * d + k];
    precision[j * d + j] += priorPrecision[j];
    rhs[j] += priorPrecision[j] * priorMean[j];
  }
  const cov = inverseSpd(precision, { name: "posterior precision XᵀX/σ² + P" });
  const mean = new Float64Array(d);
  for (let j = 0; j < d; j++) {
    let s = 0;
    for (let k = 0; k < d; k++) s += cov[j * d + k] * rhs[k];
    mean[j] = s;
  }
  return { mean, cov };
}

/** Run statistics shared by both parts. */
interface _RunStats {
  summary: SummaryRow[];
  stepSize: number;
  numIntegrationSteps: number;
  acceptance: number;
  numDivergent: number;
  gradRowsWarmup: number;
  hessianRowsWarmup: number;
  gradRowsSampling: number;
  wallSeconds: number;
}

/**
 * Full-data HMC with the §6.3 tuning, its warm-up started from the Laplace
 * metric at the full-data MAP (Newton; its rows are added to the warm-up's)
 * and each chain from its own Laplace draw.
 */
function _runHmcFromLaplace(
  model: GlmModel,
  options: Parameters<typeof runHmc>[1] & { seed: string },
): { result: SamplingResult; mapRows: number; mapHessianRows: number } {
  const before = numRowEvaluations(model.cost), hessianBefore = model.cost.numHessianRows;
  const fit = subsetMap(model, new Rng(`${options.seed}/map`), { fraction: 1 });
  const mapRows = numRowEvaluations(model.cost) - before;
  const mapHessianRows = model.cost.numHessianRows - hessianBefore;
  const result = runHmc(model, {
    ...options,
    initialMetric: metricFromNegativeHessian(fit.precision.map((v) => -v)),
    init: "laplace",
  });
  return { result, mapRows, mapHessianRows };
}

function _runStats(
  run: { result: SamplingResult; mapRows: number; mapHessianRows: number },
  wallSeconds: number,
): _RunStats {
  const { result } = run;
  const summary = summarize(result.draws, result.parameterNames);
  const acc = infoAcrossChains(result, { field: "acceptanceRate" });
  const div = infoAcrossChains(result, { field: "isDivergent" });
  let a = 0, k = 0, nd = 0;
  for (let c = 0; c < acc.length; c++) {
    for (let i = 0; i < acc[c].length; i++) {
      a += acc[c][i];
      nd += div[c][i];
      k++;
    }
  }
  const tuning = result.chains.map((c) => c.tuning);
  const mean = (key: string) => tuning.reduce((s, t) => s + Number(t[key]), 0) / tuning.length;
  return {
    summary,
    stepSize: mean("stepSize"),
    numIntegrationSteps: mean("numIntegrationSteps"),
    acceptance: a / k,
    numDivergent: nd,
    gradRowsWarmup: totalCost(result, "warmup").numGradRows + run.mapRows,
    hessianRowsWarmup: totalCost(result, "warmup").numHessianRows + run.mapHessianRows,
    gradRowsSampling: totalCost(result, "sampling").numGradRows,
    wallSeconds,
  };
}

/** Wilson–Hilferty approximation of the χ²_k quantile at standard-normal quantile z. */
function _chiSquareQuantile(k: number, z: number): number {
  const a = 2 / (9 * k);
  return k * Math.pow(1 - a + z * Math.sqrt(a), 3);
}

function _progress(context: ExperimentContext, what: string, total: number) {
  let last = -1;
  return (chain: number, iteration: number) => {
    const pct = Math.floor((10 * iteration) / total);
    if (pct !== last && (pct % 5 === 0 || iteration === total)) {
      last = pct;
      context.log(`${what}: chain ${chain + 1}, iteration ${iteration}/${total}`);
    }
  };
}

function _normalDensity(mean: number, sd: number): (x: number) => number {
  const c = 1 / (sd * Math.sqrt(2 * Math.PI));
  return (x) => c * Math.exp(-0.5 * ((x - mean) / sd) ** 2);
}

/** Up to `k` parameter indices spread over 0 … d−1, always including 0. */
function _spread(d: number, k: number): number[] {
  if (d <= k) return Array.from({ length: d }, (_, j) => j);
  return Array.from({ length: k }, (_, i) => Math.round((i * (d - 1)) / (k - 1)));
}

async function _run(context: ExperimentContext): Promise<ExperimentResult> {
  const s = context.quick ? _QUICK : _FULL;
  const arena = loadCore();
  context.log(`core backend: ${arena.backend}`);
  const runOptions = {
    ..._HMC_TUNING,
    updateEvery: s.updateEvery,
    maxNumIntegrationSteps: s.maxNumIntegrationSteps,
    numChains: s.numChains,
    numWarmup: s.numWarmup,
    numSamples: s.numSamples,
  };
  const total = s.numWarmup + s.numSamples;

  // (a) Gaussian linear regression vs its conjugate posterior.
  const lin = gaussianLinearRegression(arena, {
    n: s.linear.n,
    d: s.linear.d,
    sigma: s.linear.sigma,
    seed: `${context.seed}/r0/linear`,
  });
  const linModel = new GlmModel(lin.data, {
    family: "gaussian",
    sigma: lin.sigma,
    priorScale: s.linear.priorScale,
    priorMean: s.linear.priorMean,
  });
  const exact = _analyticPosterior(linModel);
  context.log(`(a) linear regression n=${s.linear.n}, d=${s.linear.d}: running HMC`);
  let t0 = performance.now();
  const linRun = _runHmcFromLaplace(linModel, {
    ...runOptions,
    seed: `${context.seed}/r0/linear/hmc`,
    onProgress: _progress(context, "(a) HMC", total),
  });
  const linResult = linRun.result;
  const linStats = _runStats(linRun, (performance.now() - t0) / 1000);
  const dLin = linModel.dim;
  const linRows: (string | number)[][] = [];
  let sumZ2 = 0, maxAbsZ = 0, maxAbsZsd = 0;
  let minRatio = Infinity, maxRatio = -Infinity;
  for (let j = 0; j < dLin; j++) {
    const chains = parameterDraws(linResult, j);
    const row = linStats.summary[j];
    const sdExact = Math.sqrt(exact.cov[j * dLin + j]);
    const mcse = mcseMean(chains);
    const z = (row.mean - exact.mean[j]) / mcse;
    const zSd = (row.sd - sdExact) / mcseSd(chains);
    sumZ2 += z * z;
    maxAbsZ = Math.max(maxAbsZ, Math.abs(z));
    maxAbsZsd = Math.max(maxAbsZsd, Math.abs(zSd));
    minRatio = Math.min(minRatio, row.sd / sdExact);
    maxRatio = Math.max(maxRatio, row.sd / sdExact);
    linRows.push([
      row.name,
      exact.mean[j],
      row.mean,
      mcse,
      z,
      sdExact,
      row.sd,
      row.sd / sdExact,
      zSd,
      row.essBulk,
      row.rhat,
    ]);
  }
  const linFigureParams = _spread(dLin, 6);
  const linDensity = densitySpec(
    linFigureParams.map((j) => ({
      name: linResult.parameterNames[j],
      chains: parameterDraws(linResult, j),
    })),
    {
      title: "(a) Gaussian linear regression: HMC vs the conjugate posterior",
      curves: linFigureParams.map((j) => ({
        parameter: linResult.parameterNames[j],
        label: "analytic posterior",
        densityFn: _normalDensity(exact.mean[j], Math.sqrt(exact.cov[j * dLin + j])),
      })),
      references: linFigureParams.map((j) => ({
        parameter: linResult.parameterNames[j],
        label: "analytic mean",
        value: exact.mean[j],
      })),
    },
  );
  linModel.dispose();
  freeGlmData(lin.data);

  // (b) HIGGS-shaped logistic regression vs the generating coefficients.
  await yieldToEventLoop(); // runHmc is synchronous: let pending I/O (progress lines) through
  const higgs = higgsShaped(arena, {
    n: s.higgs.n,
    seed: `${context.seed}/r0/higgs`,
    storage: s.higgs.storage,
  });
  const higgsModel = new GlmModel(higgs.data, {
    family: "logistic",
    priorScale: s.higgs.priorScale,
  });
  context.log(`(b) HIGGS-shaped logistic n=${s.higgs.n}, d=${higgsModel.dim}: running HMC`);
  t0 = performance.now();
  const higgsRun = _runHmcFromLaplace(higgsModel, {
    ...runOptions,
    numSamples: s.higgs.numSamples,
    seed: `${context.seed}/r0/higgs/hmc`,
    onProgress: _progress(context, "(b) HMC", s.numWarmup + s.higgs.numSamples),
  });
  const higgsResult = higgsRun.result;
  const higgsStats = _runStats(higgsRun, (performance.now() - t0) / 1000);
  const dH = higgsModel.dim;
  const truth = higgs.trueCoefficients;
  const higgsRows: (string | number)[][] = [];
  let sumZ2h = 0, covered = 0, maxAbsZh = 0;
  for (let j = 0; j < dH; j++) {
    const row = higgsStats.summary[j];
    const z = (row.mean - truth[j]) / row.sd;
    sumZ2h += z * z;
    maxAbsZh = Math.max(maxAbsZh, Math.abs(z));
    const inside = row.q5 <= truth[j] && truth[j] <= row.q95;
    if (inside) covered++;
    higgsRows.push([
      row.name,
      truth[j],
      row.mean,
      row.sd,
      z,
      row.q5,
      row.q95,
      inside ? "yes" : "no",
      row.essBulk,
      row.rhat,
    ]);
  }
  const higgsFigureParams = _spread(dH, 6);
  const higgsPanels = higgsFigureParams.map((j) => ({
    name: higgsResult.parameterNames[j],
    chains: parameterDraws(higgsResult, j),
  }));
  const higgsTrace = traceSpec(higgsPanels.slice(0, 4), {
    title: "(b) HIGGS-shaped logistic regression: HMC traces (sampling phase)",
  });
  const higgsDensity = densitySpec(higgsPanels, {
    title: "(b) HIGGS-shaped logistic regression: posterior densities and true coefficients",
    references: higgsFigureParams.map((j) => ({
      parameter: higgsResult.parameterNames[j],
      label: "true value",
      value: truth[j],
    })),
  });
  higgsModel.dispose();
  freeGlmData(higgs.data);

  // Tables.
  const samplerRow = (what: string, n: number, d: number, st: _RunStats) => {
    const minEss = Math.min(...st.summary.map((r) => r.essBulk));
    const maxRhat = Math.max(...st.summary.map((r) => r.rhat));
    return [
      what,
      n,
      d,
      st.stepSize,
      st.numIntegrationSteps,
      st.acceptance,
      st.numDivergent,
      st.gradRowsWarmup,
      st.hessianRowsWarmup,
      st.gradRowsSampling,
      minEss,
      maxRhat,
      st.wallSeconds,
      minEss / st.wallSeconds,
    ];
  };
  const tables: ResultTable[] = [
    {
      name: "linear_posterior",
      caption:
        `(a) Gaussian linear regression (n = ${s.linear.n}, d = ${dLin}, σ = ${s.linear.sigma}): posterior mean and sd per coefficient, HMC vs the analytic conjugate posterior; z = (HMC − analytic) / MCSE.`,
      columns: [
        "parameter",
        "analytic mean",
        "HMC mean",
        "MCSE mean",
        "z (mean)",
        "analytic sd",
        "HMC sd",
        "sd ratio",
        "z (sd)",
        "ESS bulk",
        "R-hat",
      ],
      rows: linRows,
    },
    {
      name: "higgs_posterior",
      caption:
        `(b) HIGGS-shaped logistic regression (n = ${s.higgs.n}, d = ${dH}): true coefficient vs posterior; z = (mean − true) / posterior sd.`,
      columns: [
        "parameter",
        "true",
        "posterior mean",
        "posterior sd",
        "z",
        "q5",
        "q95",
        "true in 90% CI",
        "ESS bulk",
        "R-hat",
      ],
      rows: higgsRows,
    },
    {
      name: "sampler",
      caption:
        `HMC settings after warmup and cost (${s.numChains} chains × ${s.numWarmup} warmup + ${s.numSamples} draws for (a), ${s.higgs.numSamples} for (b); gradient and Hessian rows summed over chains; warm-up rows include the Newton fit of the starting metric).`,
      columns: [
        "part",
        "n",
        "d",
        "step size ε",
        "L",
        "acceptance",
        "divergences",
        "grad rows (warmup)",
        "Hessian rows (warmup)",
        "grad rows (sampling)",
        "min ESS bulk",
        "max R-hat",
        "wall (s)",
        "min ESS / s",
      ],
      rows: [
        samplerRow("(a) linear", s.linear.n, dLin, linStats),
        samplerRow("(b) HIGGS-shaped", s.higgs.n, dH, higgsStats),
      ],
    },
  ];

  // The honest column.
  const chiLo = (k: number) => _chiSquareQuantile(k, -1.959964);
  const chiHi = (k: number) => _chiSquareQuantile(k, 1.959964);
  const sdTol = 3; // |z| in MCSE units
  const comparison = [
    `(a) posterior means: max |z| = ${formatShort(maxAbsZ)} over ${dLin} coefficients and Σz² = ${
      formatShort(sumZ2)
    } (χ²_${dLin} 95% range ${formatShort(chiLo(dLin))}–${formatShort(chiHi(dLin))}): ${
      sumZ2 <= chiHi(dLin) && maxAbsZ < 4
        ? "**matches** the analytic posterior within Monte Carlo error"
        : "**does not match** — the HMC means are further from the analytic posterior than the MCSE allows"
    }.`,
    `(a) posterior sds: HMC/analytic ratio in [${formatShort(minRatio)}, ${
      formatShort(maxRatio)
    }], max |z| = ${formatShort(maxAbsZsd)} in sd-MCSE units: ${
      maxAbsZsd < sdTol + 1 ? "**matches**" : "**does not match**"
    }.`,
    `(b) true coefficients: ${covered} of ${dH} inside the 90% posterior interval (expected ≈ ${
      formatShort(0.9 * dH, 2)
    }), Σz² = ${formatShort(sumZ2h)} (χ²_${dH} 95% range ${formatShort(chiLo(dH))}–${
      formatShort(chiHi(dH))
    }), max |z| = ${formatShort(maxAbsZh)}: ${
      sumZ2h <= chiHi(dH)
        ? "**consistent** with a posterior that concentrates on the truth"
        : "**not consistent**: the posterior is further from the generating coefficients than its spread — check the sampler"
    }. (This is a check of calibration, not a paper number: the HMC-ECS paper reports no synthetic truth.)`,
    `HMC tuning (HMC-ECS §6.3: εL = 1.2, δ = 0.8, Hessian mass matrix): acceptance ${
      formatShort(linStats.acceptance, 2)
    } (a) and ${formatShort(higgsStats.acceptance, 2)} (b) against the target 0.8; ${
      linStats.numDivergent + higgsStats.numDivergent
    } divergent transitions. The paper reports acceptance 0.980 for full-data HMC on HIGGS with ε = 0.2, L = 6 (its Table 2); dual averaging to δ = 0.8 here picks a larger ε, so lower acceptance is expected, not a discrepancy.`,
  ];

  const summary = [
    `Sanity check of full-data HMC before any subsampling: the same sampler, driver and tuning the later experiments use, run against answers known without MCMC. ${
      context.quick ? "**Quick mode**: reduced n and iterations." : ""
    }`,
    `(a) Gaussian linear regression with known σ = ${s.linear.sigma}, n = ${s.linear.n}, d = ${dLin} (intercept + standard-normal covariates), priors N(${s.linear.priorMean}, ${s.linear.priorScale}²) per coefficient. The conjugate posterior N(m, S), S = (XᵀX/σ² + P)⁻¹, m = S(Xᵀy/σ² + Pμ₀), is computed directly from the rows. (b) Logistic regression on HIGGS-shaped synthetic data (n = ${s.higgs.n}, ${dH} columns including the intercept, X stored as ${s.higgs.storage}, priors N(0, ${s.higgs.priorScale}²)), compared with the coefficients that generated it.`,
    `Both: ${s.numChains} chains, ${s.numWarmup} warmup + ${s.numSamples} sampling iterations (${s.higgs.numSamples} for (b), whose check is in posterior sds: its Monte Carlo error is a few hundredths of one), εL = 1.2, dual averaging to acceptance 0.8, mass matrix = negative Hessian of the log posterior refreshed every ${s.updateEvery} warmup iterations (HMC-ECS §6.3 uses 200), starting from the Laplace metric at the full-data MAP (Newton; the paper's HMC starts from M = I, whose first window costs three times the sampling phase here) with each chain at its own draw of the Laplace approximation, L capped at ${s.maxNumIntegrationSteps}. Core backend: \`${arena.backend}\`.`,
  ].join("\n\n");

  const verdicts: Verdict[] = [
    {
      claim: "Full-data HMC recovers the analytic linear-regression posterior (means)",
      paper: "exact (conjugate)",
      ours: `Σz² = ${formatShort(sumZ2)}, max |z| = ${formatShort(maxAbsZ)} over ${dLin}`,
      outcome: outcomeOf(sumZ2 <= chiHi(dLin) && maxAbsZ < 4),
      reason: `threshold: Σz² ≤ χ²_${dLin} 97.5 % point ${
        formatShort(chiHi(dLin))
      } and max |z| < 4 (z in MCSE units)`,
    },
    {
      claim: "… and its posterior sds",
      paper: "exact (conjugate)",
      ours: `sd ratio ${formatShort(minRatio)}–${formatShort(maxRatio)}, max |z| = ${
        formatShort(maxAbsZsd)
      }`,
      outcome: outcomeOf(maxAbsZsd < sdTol + 1),
      reason: `threshold: max |z| of the sd in sd-MCSE units < ${formatShort(sdTol + 1)}`,
    },
  ];
  return {
    verdicts,
    summary,
    tables,
    figures: [
      {
        name: "linear_density",
        caption:
          "(a) Posterior densities of six coefficients: KDE of the HMC draws (solid) and the analytic posterior (dashed); vertical line at the analytic mean.",
        spec: linDensity,
      },
      {
        name: "higgs_trace",
        caption: "(b) Trace plots of four coefficients in the sampling phase, both chains.",
        spec: higgsTrace,
      },
      {
        name: "higgs_density",
        caption:
          "(b) Posterior densities (KDE of the HMC draws) of six coefficients with the generating value marked.",
        spec: higgsDensity,
      },
    ],
    comparison,
  };
}

/**
 * R0 — full-data HMC vs answers known without MCMC: the conjugate posterior of
 * a Gaussian linear regression and the generating coefficients of
 * HIGGS-shaped logistic data.
 *
 * @example
 * ```ts ignore
 * import { r0FullHmc } from "./r0_full_hmc.ts";
 * const result = await r0FullHmc.run({ quick: true, seed: 1, outDir: "out", log: console.error });
 * ```
 */
export const r0FullHmc: Experiment = {
  name: "r0",
  title: "R0 — Full-data HMC vs analytic posterior",
  source:
    "baseline check (Neal 2011; HMC-ECS tuning of hmc-ecs_dang-2019.md §6.3, data shape of §6.5)",
  run: _run,
};
