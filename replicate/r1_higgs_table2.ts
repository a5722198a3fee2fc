/**
 * R1 — HMC-ECS Table 2 and Fig. 2 on HIGGS-like synthetic logistic data.
 *
 * Perturbed and signed HMC-ECS (second-order control variates, §6.3 tuning)
 * and full-data HMC on the same data; Table 2's α_θ,p, α_u, L, IF, ESS, τ̂ and
 * 100·m/n beside the paper's values, and posterior means and variances of both
 * variants against HMC (Fig. 2), with the accuracy check "every posterior
 * mean within 0.1 posterior sd of full-data HMC".
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { freeGlmData } from "../data/dataset.ts";
import { higgsLike } from "./higgs_like.ts";
import { mcseMean } from "../diagnostics/mcse.ts";
import { GlmModel } from "../models/glm.ts";
import { parameterDraws, type SamplingResult } from "../samplers/driver.ts";
import { runHmcEcs } from "../samplers/hmc_ecs/mod.ts";
import type { Experiment, ExperimentContext, ExperimentResult, Verdict } from "./experiment.ts";
import { formatShort } from "./format.ts";
import { outcomeByFactor, outcomeOf } from "./verdicts.ts";
import { type EcsRunSummary, scatterVsReference, summarizeEcsRun } from "./r1_ecs_common.ts";
import { runReferenceHmc } from "./reference_hmc.ts";
import { posteriorMoments } from "./moment_errors.ts";
import { progressLogger, yieldToEventLoop } from "./progress.ts";

interface _Settings {
  n: number;
  numChains: number;
  numWarmup: number;
  numSamples: number;
  updateEvery: number;
  hmcWarmup: number;
  hmcSamples: number;
  /** Draws of the full-data HMC run at the paper's ε = 0.2, L = 6 (one chain). */
  hmcPaperSamples: number;
}

const _FULL: _Settings = {
  n: 100_000,
  numChains: 2,
  numWarmup: 1000,
  numSamples: 2500,
  updateEvery: 200,
  // The reference starts at the MAP with M⁻¹ fixed at the Laplace covariance:
  // its warmup only tunes ε (as R2's and R4's 150).
  hmcWarmup: 150,
  hmcSamples: 2500,
  // The run at ε = 0.2, L = 6 gives Table 2's α_θ and IF of HMC (6 passes a
  // draw): from 1 250 draws at IF ≈ 2.2 the mean IF over the 29 coefficients
  // has a standard error of a few per cent and α_θ one of ≈ 0.006, against
  // the verdicts' factor 1.5 and ± 0.03 (docs/replication.md, "Less CPU in
  // R0 and R1").
  hmcPaperSamples: 1250,
};

const _QUICK: _Settings = {
  n: 10_000,
  numChains: 2,
  numWarmup: 400,
  numSamples: 800,
  updateEvery: 100,
  hmcWarmup: 200,
  hmcSamples: 800,
  hmcPaperSamples: 800,
};

/** The paper's Table 2 (HIGGS, n = 10.5 M). */
const _PAPER = {
  perturbed: { acc: 0.98, accU: 1, L: 6, IF: 2.185, ESS: 927, tau: NaN, pct: 0.012 },
  signed: { acc: 0.979, accU: 0.993, L: 6, IF: 2.192, ESS: 922, tau: 1, pct: 0.029 },
  hmc: { acc: 0.98, IF: 2.084 },
};

/** The paper's reported ε and L (§6.3: "this strategy gives ε = 0.2 and L = 6"). */
const _PAPER_STEPS = { stepSize: 0.2, numIntegrationSteps: 6 };

/** Verdict thresholds: IF within this factor of the paper's; α_θ within this of the paper's. */
const _IF_FACTOR = 1.5, _ACC_TOL = 0.03;

async function _run(context: ExperimentContext): Promise<ExperimentResult> {
  const s = context.quick ? _QUICK : _FULL;
  const arena = loadCore();
  context.log(`core backend ${arena.backend}; HIGGS-like n = ${s.n}`);
  // X stored as f32 (as R2 and R4): a full-data pass at d = 29 costs ≈ 15 %
  // less CPU than from f64 rows (41 against 49 ns per row).
  const { data } = higgsLike(arena, {
    n: s.n,
    seed: `${context.seed}/r1/higgs`,
    storage: "f32",
  });
  const model = new GlmModel(data, { family: "logistic", priorScale: 10 });
  const d = model.dim;

  const runs: Record<string, { result: SamplingResult; summary: EcsRunSummary }> = {};
  for (const variant of ["perturbed", "signed"] as const) {
    await yieldToEventLoop();
    const t0 = performance.now();
    const result = runHmcEcs(model, {
      variant,
      seed: `${context.seed}/r1/${variant}`,
      numChains: s.numChains,
      numWarmup: s.numWarmup,
      numSamples: s.numSamples,
      updateEvery: s.updateEvery,
      onProgress: progressLogger(context, `HMC-ECS ${variant}`, s.numWarmup + s.numSamples),
    });
    const seconds = (performance.now() - t0) / 1000;
    runs[variant] = { result, summary: summarizeEcsRun(result, { numRows: s.n, seconds }) };
  }
  await yieldToEventLoop();
  const ref = runReferenceHmc(model, {
    seed: `${context.seed}/r1/hmc`,
    numChains: s.numChains,
    numWarmup: s.hmcWarmup,
    numSamples: s.hmcSamples,
    context,
    label: "full-data HMC",
  });
  const hmcSummary = summarizeEcsRun(ref.result, { numRows: s.n, seconds: ref.seconds });
  hmcSummary.costWarmup += ref.mapCost;
  hmcSummary.hessianRowsWarmup += ref.mapHessianRows;

  // The paper's own settings: fixed ε = 0.2, L = 6 (no dual averaging), with
  // the same Hessian metric, so α_θ and IF compare like with like.
  const paperSettings: Record<string, EcsRunSummary> = {};
  for (const variant of ["perturbed", "signed"] as const) {
    await yieldToEventLoop();
    const t0 = performance.now();
    const result = runHmcEcs(model, {
      variant,
      seed: `${context.seed}/r1/${variant}/paper-settings`,
      numChains: s.numChains,
      numWarmup: s.numWarmup,
      numSamples: s.numSamples,
      updateEvery: s.updateEvery,
      ..._PAPER_STEPS,
      adaptStepSize: false,
      onProgress: progressLogger(
        context,
        `HMC-ECS ${variant}, ε = 0.2, L = 6`,
        s.numWarmup + s.numSamples,
      ),
    });
    const seconds = (performance.now() - t0) / 1000;
    paperSettings[variant] = summarizeEcsRun(result, { numRows: s.n, seconds });
  }
  await yieldToEventLoop();
  // One chain, a short burn-in (it starts at the MAP and nothing adapts): at
  // ε = 0.2 a run costs 6 gradient passes per draw, twice the tuned run's.
  const refPaper = runReferenceHmc(model, {
    seed: `${context.seed}/r1/hmc/paper-settings`,
    numChains: 1,
    numWarmup: Math.min(100, s.hmcWarmup),
    numSamples: s.hmcPaperSamples,
    context,
    label: "full-data HMC, ε = 0.2, L = 6",
    fixedSteps: _PAPER_STEPS,
  });
  paperSettings.hmc = summarizeEcsRun(refPaper.result, {
    numRows: s.n,
    seconds: refPaper.seconds,
  });

  // Accuracy vs HMC: |mean − mean_HMC| / sd_HMC, and z with the combined MCSE.
  const refMoments = posteriorMoments(ref.result);
  const accuracy: Record<string, { maxSd: number; maxZ: number; rows: number[][] }> = {};
  const meanPoints: { method: string; parameter: string; reference: number; estimate: number }[] =
    [];
  const varPoints: typeof meanPoints = [];
  for (const variant of ["perturbed", "signed"] as const) {
    const r = runs[variant].result;
    const mom = posteriorMoments(r);
    let maxSd = 0, maxZ = 0;
    const rows: number[][] = [];
    for (let j = 0; j < d; j++) {
      const sd = Math.sqrt(refMoments.variance[j]);
      const diff = mom.mean[j] - refMoments.mean[j];
      const se = Math.hypot(
        mcseMean(parameterDraws(r, j)),
        mcseMean(parameterDraws(ref.result, j)),
      );
      maxSd = Math.max(maxSd, Math.abs(diff) / sd);
      maxZ = Math.max(maxZ, Math.abs(diff) / se);
      rows.push([diff / sd, diff / se, mom.variance[j] / refMoments.variance[j]]);
      const name = r.parameterNames[j];
      meanPoints.push({
        method: variant,
        parameter: name,
        reference: refMoments.mean[j],
        estimate: mom.mean[j],
      });
      varPoints.push({
        method: variant,
        parameter: name,
        reference: refMoments.variance[j],
        estimate: mom.variance[j],
      });
    }
    accuracy[variant] = { maxSd, maxZ, rows };
  }

  const P = runs.perturbed.summary, S = runs.signed.summary, H = hmcSummary;
  const tableRows = [
    [
      "α_θ,p",
      _PAPER.perturbed.acc,
      P.acceptance,
      _PAPER.signed.acc,
      S.acceptance,
      _PAPER.hmc.acc,
      H.acceptance,
    ],
    [
      "α_u",
      _PAPER.perturbed.accU,
      P.subsampleAcceptance,
      _PAPER.signed.accU,
      S.subsampleAcceptance,
      null,
      null,
    ],
    ["L", _PAPER.perturbed.L, P.numSteps, _PAPER.signed.L, S.numSteps, 6, H.numSteps],
    ["ε", 0.2, P.stepSize, 0.2, S.stepSize, 0.2, H.stepSize],
    [
      "IF (mean over θ)",
      _PAPER.perturbed.IF,
      P.inefficiency,
      _PAPER.signed.IF,
      S.inefficiency,
      _PAPER.hmc.IF,
      H.inefficiency,
    ],
    ["ESS = R/IF", _PAPER.perturbed.ESS, P.ess, _PAPER.signed.ESS, S.ess, null, H.ess],
    ["τ̂", null, P.tau, _PAPER.signed.tau, S.tau, null, null],
    ["100·m/n", _PAPER.perturbed.pct, P.percentRows, _PAPER.signed.pct, S.percentRows, 100, 100],
    [
      "row evaluations, warmup + tuning",
      null,
      P.costWarmup,
      null,
      S.costWarmup,
      null,
      H.costWarmup,
    ],
    [
      "of which Hessian rows, warmup + tuning",
      null,
      P.hessianRowsWarmup,
      null,
      S.hessianRowsWarmup,
      null,
      H.hessianRowsWarmup,
    ],
    ["row evaluations, sampling", null, P.costSampling, null, S.costSampling, null, H.costSampling],
    ["wall time (s)", null, P.seconds, null, S.seconds, null, H.seconds],
  ];
  const paperRow = (label: string, key: keyof EcsRunSummary, paper: number[]) => [
    label,
    paper[0],
    paperSettings.perturbed[key],
    paper[1],
    paperSettings.signed[key],
    paper[2],
    paperSettings.hmc[key],
  ];
  const paperSettingsRows = [
    paperRow("α_θ,p", "acceptance", [0.98, 0.979, 0.98]),
    paperRow("α_u", "subsampleAcceptance", [1, 0.993, NaN]),
    paperRow("IF (mean over θ)", "inefficiency", [2.185, 2.192, 2.084]),
    paperRow("ESS = R/IF", "ess", [927, 922, NaN]),
    paperRow("τ̂", "tau", [NaN, 1, NaN]),
    paperRow("wall time (s)", "seconds", [NaN, NaN, NaN]),
  ].map((row) => row.map((c) => (typeof c === "number" && Number.isNaN(c) ? null : c)));
  const tun = (v: string, key: string) =>
    runs[v].result.chains.map((c) => c.tuning[key]).join(", ");
  const R = s.numChains * s.numSamples;
  const comparison = [
    `α_θ,p: paper 0.980 / 0.979 with ε = 0.2, L = 6; ours ${formatShort(P.acceptance)} / ${
      formatShort(S.acceptance)
    } with ε ≈ ${formatShort(P.stepSize)}, L ≈ ${
      formatShort(P.numSteps, 2)
    }. Dual averaging to δ = 0.8 (as §6.3 says) picks a larger ε than the paper's reported 0.2, so our acceptance is near 0.8, not 0.98: a consequence of following the stated tuning rule, not a defect of the estimator. At the paper's own ε = 0.2, L = 6 (table \`table2_paper_settings\`) α_θ,p is ${
      formatShort(paperSettings.perturbed.acceptance)
    } / ${formatShort(paperSettings.signed.acceptance)} (HMC ${
      formatShort(paperSettings.hmc.acceptance)
    }) and IF ${formatShort(paperSettings.perturbed.inefficiency)} / ${
      formatShort(paperSettings.signed.inefficiency)
    } (HMC ${formatShort(paperSettings.hmc.inefficiency)}).`,
    `α_u: paper 1 / 0.993; ours ${formatShort(P.subsampleAcceptance)} / ${
      formatShort(S.subsampleAcceptance)
    } — **reproduced** (correlated block updates, G = 100 / κ = 1).`,
    `IF: paper 2.185 / 2.192 vs HMC 2.084; ours ${formatShort(P.inefficiency)} / ${
      formatShort(S.inefficiency)
    } vs HMC ${
      formatShort(H.inefficiency)
    } — the claim "HMC-ECS mixes about as well as full-data HMC" is ${
      Math.max(P.inefficiency, S.inefficiency) < 1.5 * H.inefficiency
        ? "**reproduced**"
        : "**not reproduced**"
    }. ESS = R/IF with R = ${R} draws (paper R = 2000 per run).`,
    `τ̂: paper 1; ours ${formatShort(S.tau, 4)} — ${
      S.tau > 0.99 ? "**reproduced**" : "**not reproduced**"
    }.`,
    `100·m/n: paper 0.012 / 0.029 at n = 10.5 M; ours ${formatShort(P.percentRows, 3)} / ${
      formatShort(S.percentRows, 3)
    } at n = ${s.n} (m = ${tun("perturbed", "subsampleSize")}; λ = ${
      tun("signed", "numProducts")
    } products × m = ${
      tun("signed", "batchSize")
    }). m does not grow with n here (the floor m ≥ 100 binds: Var ℓ̂ₘ at m = 100 is already ≪ 1 with second-order control variates on this data), so the percentage falls as 1/n; at the paper's n it would be ≈ ${
      formatShort((100 * 100) / 10.5e6, 2)
    } / ${
      formatShort(
        (100 * Number(runs.signed.result.chains[0].tuning.numProducts) *
          Number(runs.signed.result.chains[0].tuning.batchSize)) / 10.5e6,
        2,
      )
    }.`,
    `Posterior accuracy (Fig. 2): max over ${d} coefficients of |mean − mean_HMC|/sd_HMC = ${
      formatShort(accuracy.perturbed.maxSd)
    } (perturbed) and ${formatShort(accuracy.signed.maxSd)} (signed); criterion < 0.1 — ${
      accuracy.perturbed.maxSd < 0.1 && accuracy.signed.maxSd < 0.1 ? "**met**" : "**not met**"
    }. In units of the combined MCSE the largest |z| are ${
      formatShort(accuracy.perturbed.maxZ)
    } and ${formatShort(accuracy.signed.maxZ)} (max of ${d} |N(0,1)| is typically < 3.3).`,
    `Cost: full-data HMC used ${
      formatShort(H.costWarmup + H.costSampling)
    } row evaluations, perturbed ${formatShort(P.costWarmup + P.costSampling)} (${
      formatShort((H.costWarmup + H.costSampling) / (P.costWarmup + P.costSampling))
    }× fewer), signed ${formatShort(S.costWarmup + S.costSampling)} (${
      formatShort((H.costWarmup + H.costSampling) / (S.costWarmup + S.costSampling))
    }× fewer), including every tuning pass; see R3 for how the ratio grows with n (paper: 642.8× / 554.1× at n = 10.5 M).`,
  ];
  const PP = paperSettings.perturbed, PS = paperSettings.signed, PH = paperSettings.hmc;
  const accOk = (x: number, paper: number) => Math.abs(x - paper) <= _ACC_TOL;
  const verdicts: Verdict[] = [
    {
      claim: "Table 2 α_θ,p at the paper's ε = 0.2, L = 6 (perturbed / signed / HMC)",
      paper: "0.980 / 0.979 / 0.980",
      ours: `${formatShort(PP.acceptance)} / ${formatShort(PS.acceptance)} / ${
        formatShort(PH.acceptance)
      }`,
      outcome: outcomeOf(
        accOk(PP.acceptance, 0.98) && accOk(PS.acceptance, 0.979) && accOk(PH.acceptance, 0.98),
        accOk(PP.acceptance, 0.98) || accOk(PH.acceptance, 0.98),
      ),
      reason:
        `threshold |ours − paper| ≤ ${_ACC_TOL} for all three (partly: for one); with dual averaging to 0.8 (ε ≈ ${
          formatShort(P.stepSize, 2)
        }) α_θ is ${formatShort(P.acceptance)}, as the tuning rule asks`,
    },
    {
      claim: "Table 2 IF at ε = 0.2, L = 6 (perturbed / signed / HMC)",
      paper: "2.185 / 2.192 / 2.084",
      ours: `${formatShort(PP.inefficiency)} / ${formatShort(PS.inefficiency)} / ${
        formatShort(PH.inefficiency)
      }`,
      outcome: outcomeOf(
        [
          [PP.inefficiency, _PAPER.perturbed.IF],
          [PS.inefficiency, _PAPER.signed.IF],
          [PH.inefficiency, _PAPER.hmc.IF],
        ].every(([x, y]) => outcomeByFactor(x, y, { factor: _IF_FACTOR }) === "reproduced"),
        Math.max(PP.inefficiency, PS.inefficiency) < _IF_FACTOR * PH.inefficiency,
      ),
      reason:
        `threshold: each IF within a factor ${_IF_FACTOR} of the paper's (partly: HMC-ECS within ${_IF_FACTOR}× our HMC); tuned runs give ${
          formatShort(P.inefficiency)
        } / ${formatShort(S.inefficiency)} / ${formatShort(H.inefficiency)}`,
    },
    {
      claim: "Table 2 α_u (perturbed / signed)",
      paper: "1 / 0.993",
      ours: `${formatShort(P.subsampleAcceptance)} / ${formatShort(S.subsampleAcceptance)}`,
      outcome: outcomeOf(
        accOk(P.subsampleAcceptance, 1) && accOk(S.subsampleAcceptance, 0.993),
        accOk(P.subsampleAcceptance, 1) || accOk(S.subsampleAcceptance, 0.993),
      ),
      reason: `threshold |ours − paper| ≤ ${_ACC_TOL}`,
    },
    {
      claim: "Table 2 τ̂ (signed)",
      paper: "1",
      ours: formatShort(S.tau, 4),
      outcome: outcomeOf(S.tau > 0.99, S.tau > 0.95),
      reason: "threshold τ̂ > 0.99 (partly > 0.95)",
    },
    {
      claim: "Fig. 2: HMC-ECS posterior means match full-data HMC",
      paper: "on the identity line",
      ours: `max |Δ|/sd = ${formatShort(accuracy.perturbed.maxSd, 4)} / ${
        formatShort(accuracy.signed.maxSd, 4)
      }`,
      outcome: outcomeOf(
        accuracy.perturbed.maxSd < 0.1 && accuracy.signed.maxSd < 0.1,
        accuracy.perturbed.maxSd < 0.2 && accuracy.signed.maxSd < 0.2,
      ),
      reason: "threshold max over coefficients |mean − mean_HMC|/sd_HMC < 0.1 (partly < 0.2)",
    },
  ];
  const summary = [
    `HIGGS-like logistic regression (intercept + the 28 standardised HIGGS features from a Gaussian copula fitted to 5 000 real HIGGS rows, the label from the logistic model fitted to them; replicate/higgs_like.ts; prior N(0, 10²I); X stored as f32), n = ${s.n}${
      context.quick ? " (**quick mode**)" : ""
    }. The paper uses the real HIGGS data (n = 10.5 M); full-data HMC as a reference at 10⁶ rows would take ≈ 40 min here, so the full version runs at n = 10⁵ (cost ratios at larger n are in R3).`,
    `HMC-ECS: second-order control variates; θ* from the MAP of a 1 % subset, moved towards the full-data MAP by a Newton step with the exact full-data gradient (one counted pass of ℓ and ∇ℓ each; the Hessian B and M from a subsample of max(5 %, 2000·d) rows, not a full-data Hessian pass); M⁻¹ starts at the Laplace covariance there (the paper: M = I); every ${s.updateEvery} warmup iterations θ*, the control variates, M, and m or (λ, a) are re-computed from one full-data pass unless the window mean is within 1 sd² per dimension of θ*; ε by dual averaging to 0.8 with εL = 1.2; G = 100 blocks (perturbed); κ = 1, the mini-batch size (smallest ≤ 30 with Var d̂ ≤ 1) and λ minimising the predicted CT (signed). ${s.numChains} chains × (${s.numWarmup} warmup + ${s.numSamples} draws).`,
    `Full-data HMC: M⁻¹ = Laplace covariance at the full-data MAP (fixed), dual averaging to 0.8, εL = 1.2, ${s.numChains} chains × (${s.hmcWarmup} + ${s.hmcSamples}). Core backend \`${arena.backend}\`.`,
  ].join("\n\n");

  model.dispose();
  freeGlmData(data);
  return {
    summary,
    tables: [
      {
        name: "table2",
        caption:
          `Table 2 at n = ${s.n}: sampling-phase averages for perturbed and signed HMC-ECS and full-data HMC, paper values beside ours; row evaluations count ℓ and ∇ rows, summed over ${s.numChains} chains.`,
        columns: [
          "quantity",
          "paper perturbed",
          "ours perturbed",
          "paper signed",
          "ours signed",
          "paper HMC",
          "ours HMC",
        ],
        rows: tableRows,
      },
      {
        name: "table2_paper_settings",
        caption:
          `Table 2 at the paper's own settings: fixed ε = 0.2, L = 6 (no dual averaging; same Hessian metric, θ*, m and λ tuning), n = ${s.n}; HMC-ECS ${s.numChains} chains × (${s.numWarmup} + ${s.numSamples}), full-data HMC 1 chain × (${
            Math.min(100, s.hmcWarmup)
          } + ${s.hmcPaperSamples}) from the MAP; compare α_θ and IF like with like.`,
        columns: [
          "quantity",
          "paper perturbed",
          "ours perturbed",
          "paper signed",
          "ours signed",
          "paper HMC",
          "ours HMC",
        ],
        rows: paperSettingsRows,
      },
      {
        name: "accuracy",
        caption:
          "Per coefficient: (mean − mean_HMC)/sd_HMC, the same in combined-MCSE units, and variance ratio to HMC, for both variants.",
        columns: [
          "parameter",
          "perturbed Δ/sd",
          "perturbed z",
          "perturbed var ratio",
          "signed Δ/sd",
          "signed z",
          "signed var ratio",
        ],
        rows: runs.perturbed.result.parameterNames.map((name, j) => [
          name,
          ...accuracy.perturbed.rows[j],
          ...accuracy.signed.rows[j],
        ]),
      },
    ],
    figures: [
      {
        name: "fig2_means",
        caption:
          "Fig. 2 (left): posterior means from perturbed and signed HMC-ECS against full-data HMC; dashed line y = x.",
        spec: scatterVsReference(meanPoints, {
          title: "Posterior means vs full-data HMC",
          xTitle: "HMC",
          yTitle: "HMC-ECS",
        }),
      },
      {
        name: "fig2_variances",
        caption:
          "Fig. 2 (right): posterior variances from perturbed and signed HMC-ECS against full-data HMC; dashed line y = x.",
        spec: scatterVsReference(varPoints, {
          title: "Posterior variances vs full-data HMC",
          xTitle: "HMC",
          yTitle: "HMC-ECS",
        }),
      },
    ],
    comparison,
    verdicts,
  };
}

/**
 * R1 — Table 2 and Fig. 2 of HMC-ECS on HIGGS-like data.
 *
 * @example
 * ```ts ignore
 * import { r1HiggsTable2 } from "./r1_higgs_table2.ts";
 * const res = await r1HiggsTable2.run({ quick: true, seed: 1, outDir: "out", log: console.error });
 * ```
 */
export const r1HiggsTable2: Experiment = {
  name: "r1",
  title: "R1 — HMC-ECS Table 2 on HIGGS-like data",
  source: "hmc-ecs_dang-2019.md §6.5, Table 2 and Fig. 2",
  run: _run,
};
