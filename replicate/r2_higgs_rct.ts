/**
 * R2 — HMC-ECS Table 1 and Figs. 1–3 on HIGGS-like data: relative
 * computational time (RCT) of signed HMC-ECS, SG-HMC and SGLD (with and
 * without second-order control variates) against perturbed HMC-ECS, the bias
 * of every method's posterior moments against full-data HMC, and the ROC
 * curve on held-out rows.
 *
 * Data: logistic regression on HIGGS-like rows (`higgs_like.ts`: a Gaussian
 * copula with the empirical marginals of 5 000 real HIGGS rows, standardised,
 * the label from the logistic model fitted to them), intercept + 28
 * covariates, prior N(0, 10²) per coefficient, X stored as f32.
 * θ* and every method's starting point: the posterior mean of HMC on 1 % of
 * the rows (§6.5). The pipeline is in `comparison.ts`, the cost conventions
 * in `method_outcome.ts`.
 *
 * References: Dang et al. (2019), §6.2–6.5, Tables 1–2, Figs. 1–3.
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { freeGlmData } from "../data/dataset.ts";
import { higgsLike } from "./higgs_like.ts";
import { conditioningTable } from "./rct_tables.ts";
import { rocAuc, rocCurve } from "../diagnostics/mod.ts";
import { GlmModel, type GlmOptions } from "../models/glm.ts";
import type {
  Experiment,
  ExperimentContext,
  ExperimentResult,
  ResultTable,
  Verdict,
} from "./experiment.ts";
import { outcomeOf, rctVerdict } from "./verdicts.ts";
import { thinEvenly, VEGA_LITE_SCHEMA } from "./figures.ts";
import { formatShort } from "./format.ts";
import type { ComparisonConfig, ComparisonOutcome, SgVariant } from "./comparison.ts";
import { COMPARISON_UNITS, runComparison } from "./comparison.ts";
import { medianRct, medianRctPaper, type MethodOutcome, rctOf } from "./method_outcome.ts";
import { momentErrors } from "./moment_errors.ts";
import { predictiveMean } from "./predictive.ts";
import { yieldToEventLoop } from "./progress.ts";
import { densityGridSpec, momentScatterSpec, randomParameters } from "./rct_figures.ts";
import {
  biasTable,
  ecsSettingsTable,
  type PaperEcsTable,
  type PaperRct,
  rctTable,
  seedRctTable,
  stepSizeGridTable,
  timingTable,
} from "./rct_tables.ts";
import { dataViews } from "../core/row_buffer.ts";

interface _Settings {
  n: number;
  numTest: number;
  comparison: Omit<ComparisonConfig, "seed" | "sgVariants">;
  predictiveDraws: number;
}

const _FULL: _Settings = {
  n: 1_000_000,
  numTest: 200_000,
  predictiveDraws: 100,
  comparison: {
    // Seeds of the RCT comparison, re-running perturbed HMC-ECS and the SG
    // methods the verdicts judge (at the paper's ε): ≈ 4 s per extra seed in
    // a measured full run, against 93 s for the full-data HMC reference.
    numSeeds: 5,
    seedVariants: ["sghmc_cv_paper", "sgld_cv_paper"],
    numWarmup: 1000,
    numSamples: 2000,
    updateEvery: 200,
    reference: { numWarmup: 150, numSamples: 1000 },
    subset: { fraction: 0.01, minRows: 1000, numWarmup: 400, numSamples: 600 },
    sgBurnIn: 500,
    sghmcGrid: [0.01, 0.03, 0.06, 0.15, 0.4],
    sgldGrid: [0.01, 0.03, 0.1, 0.3, 1, 3],
  },
};

const _QUICK: _Settings = {
  n: 20_000,
  numTest: 5_000,
  predictiveDraws: 50,
  comparison: {
    // Seeds of the RCT comparison: error bars on the verdicts (time budget: 2),
    // re-running the SG methods the verdicts judge (at the paper's ε).
    numSeeds: 2,
    seedVariants: ["sghmc_cv_paper", "sgld_cv_paper"],
    numWarmup: 300,
    numSamples: 500,
    updateEvery: 100,
    reference: { numWarmup: 100, numSamples: 500 },
    subset: { fraction: 0.01, minRows: 1000, numWarmup: 200, numSamples: 300 },
    sgBurnIn: 100,
    sghmcGrid: [0.03, 0.1, 0.3],
    sgldGrid: [0.03, 0.3, 3],
  },
};

/**
 * The SG methods. Besides the grid-tuned ε, SG-HMC also runs at the paper's
 * ε (dimensionless with M = −∇²log π(θ*)) and SGLD at the paper's ε scaled by
 * n_paper/n (SGLD is not preconditioned: ε must shrink like the posterior
 * variance, ∝ 1/n).
 */
function _variants(n: number): readonly SgVariant[] {
  return [
    {
      key: "sghmc_cv",
      label: "SG-HMC (CV, L = 1.2/ε)",
      kind: "sghmc",
      controlVariates: true,
      steps: "trajectory",
    },
    {
      key: "sghmc_cv_paper",
      label: "SG-HMC (CV, the paper's ε = 0.06, L = 1.2/ε = 20)",
      kind: "sghmc",
      controlVariates: true,
      steps: "trajectory",
      stepSize: 0.06,
    },
    {
      key: "sghmc_cv_matched",
      label: "SG-HMC (CV, L matched)",
      kind: "sghmc",
      controlVariates: true,
      steps: "matched",
      stepSizeFrom: "sghmc_cv",
    },
    {
      key: "sghmc_mb",
      label: "SG-HMC (no CV, L = 1.2/ε)",
      kind: "sghmc",
      controlVariates: false,
      steps: "trajectory",
    },
    {
      key: "sghmc_mb_matched",
      label: "SG-HMC (no CV, L matched)",
      kind: "sghmc",
      controlVariates: false,
      steps: "matched",
      stepSizeFrom: "sghmc_mb",
    },
    { key: "sgld_cv", label: "SGLD (CV)", kind: "sgld", controlVariates: true },
    { key: "sgld_mb", label: "SGLD (no CV)", kind: "sgld", controlVariates: false },
    {
      key: "sgld_cv_paper",
      label: "SGLD (CV) at the paper's ε = 1e-6 × 10.5e6/n",
      kind: "sgld",
      controlVariates: true,
      stepSize: (1e-6 * 10.5e6) / n,
    },
  ];
}

/** Table 1 of the paper (min / median / max RCT against perturbed HMC-ECS). */
const _PAPER_TABLE1: PaperRct = {
  ecs_signed: [0.8, 1.15, 1.95],
  sghmc_cv: [2.43, 2.97, 4.08],
  sghmc_cv_paper: [2.43, 2.97, 4.08],
  sgld_cv: [3.58, 12.46, 326.8],
  sgld_cv_paper: [3.58, 12.46, 326.8],
};

/** Table 2 of the paper: perturbed, signed; HMC benchmark from its caption. */
const _PAPER_TABLE2: PaperEcsTable = {
  perturbed: { acc: 0.98, accU: 1, L: 6, IF: 2.185, ESS: 927, tau: NaN, pct: 0.012 },
  signed: { acc: 0.979, accU: 0.993, L: 6, IF: 2.192, ESS: 922, tau: 1, pct: 0.029 },
  hmc: { acc: 0.98, accU: NaN, L: NaN, IF: 2.084, ESS: NaN, tau: NaN, pct: 100 },
};

const _MODEL_OPTIONS: GlmOptions = { family: "logistic", priorScale: 10 };

function _rocSpec(
  curves: { panel: string; series: string; fpr: number[]; tpr: number[] }[],
): Record<string, unknown> {
  const values: Record<string, string | number>[] = [];
  for (const c of curves) {
    const pts = thinEvenly(c.fpr.map((f, i) => [f, c.tpr[i]] as const), 300);
    for (const [f, t] of pts) values.push({ panel: c.panel, series: c.series, fpr: f, tpr: t });
  }
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: "Fig. 3 — ROC on held-out rows: HMC vs HMC-ECS",
    data: { values },
    facet: { column: { field: "panel", type: "nominal", title: null } },
    spec: {
      width: 240,
      height: 240,
      mark: { type: "line", strokeWidth: 1.5 },
      encoding: {
        x: { field: "fpr", type: "quantitative", title: "false positive rate" },
        y: { field: "tpr", type: "quantitative", title: "true positive rate" },
        color: { field: "series", type: "nominal", title: null },
        strokeDash: { field: "series", type: "nominal", legend: null },
      },
    },
  };
}

async function _run(context: ExperimentContext): Promise<ExperimentResult> {
  const s = context.quick ? _QUICK : _FULL;
  const t0 = performance.now();
  const arena = loadCore();
  const seed = `${context.seed}/r2`;
  context.log(`R2: HIGGS-like n = ${s.n} (+ ${s.numTest} test rows), core ${arena.backend}`);
  const tGen = performance.now();
  const gen = higgsLike(arena, { n: s.n, seed, numTest: s.numTest, storage: "f32" });
  const genSeconds = (performance.now() - tGen) / 1000;
  const model = new GlmModel(gen.data, _MODEL_OPTIONS);
  const d = model.dim;
  let out: ComparisonOutcome;
  try {
    out = await runComparison(model, {
      config: { ...s.comparison, seed, sgVariants: _variants(s.n) },
      context,
      modelOptions: _MODEL_OPTIONS,
      weights: context.quick ? { reference: 2, ecs: 0.3 } : { reference: 200, ecs: 1 },
    });
  } finally {
    model.dispose();
    freeGlmData(gen.data);
  }

  // Fig. 3: ROC of the posterior predictive mean on the held-out rows.
  await yieldToEventLoop();
  const tRoc = performance.now();
  const test = gen.test!;
  const testViews = dataViews(test);
  const xTest = testViews.x;
  const yTest = Float64Array.from(testViews.y);
  const roc = (o: MethodOutcome) => {
    const scores = predictiveMean(xTest, o.result.draws[0], s.predictiveDraws);
    return { curve: rocCurve(scores, yTest), auc: rocAuc(scores, yTest) };
  };
  const rocHmc = roc(out.reference), rocP = roc(out.perturbed), rocS = roc(out.signed);
  freeGlmData(test);
  const rocSeconds = (performance.now() - tRoc) / 1000;

  const methods = [out.perturbed, out.signed, ...out.sg];
  const params = randomParameters(d, `${seed}/fig1`);
  const figures = [
    {
      name: "fig1_density",
      caption:
        "Fig. 1 — kernel density estimates of four randomly chosen parameters: each method (green) against full-data HMC (red). Signed HMC-ECS: KDE of the raw draws (every sign was recorded; see τ̂).",
      spec: densityGridSpec(
        methods,
        out.reference,
        params,
        "Fig. 1 — marginal posteriors vs full-data HMC",
      ),
    },
    {
      name: "fig2_moments",
      caption:
        "Fig. 2 — posterior mean (top) and variance (bottom) of every parameter, each method (y) against full-data HMC (x); dashed: identity.",
      spec: momentScatterSpec(
        methods,
        out.reference,
        "Fig. 2 — posterior means and variances vs full-data HMC",
      ),
    },
    {
      name: "fig3_roc",
      caption:
        `Fig. 3 — ROC curves of the posterior predictive mean on ${s.numTest} held-out rows: HMC vs perturbed (left) and signed (right) HMC-ECS. AUC: HMC ${
          formatShort(rocHmc.auc, 5)
        }, perturbed ${formatShort(rocP.auc, 5)}, signed ${formatShort(rocS.auc, 5)}.`,
      spec: _rocSpec([
        { panel: "HMC vs HMC-ECS (perturbed)", series: "HMC", ...rocHmc.curve },
        { panel: "HMC vs HMC-ECS (perturbed)", series: "HMC-ECS", ...rocP.curve },
        { panel: "HMC vs HMC-ECS (signed)", series: "HMC", ...rocHmc.curve },
        { panel: "HMC vs HMC-ECS (signed)", series: "HMC-ECS", ...rocS.curve },
      ]),
    },
  ];

  const totalSeconds = (performance.now() - t0) / 1000;
  const tables: ResultTable[] = [
    rctTable(out, { name: "table1_rct", title: "Table 1", paper: _PAPER_TABLE1 }),
    seedRctTable(out, { name: "table1_seeds", title: "Table 1", paper: _PAPER_TABLE1 }),
    ecsSettingsTable(out, {
      name: "table2_ecs",
      title: "Table 2",
      n: s.n,
      paper: _PAPER_TABLE2,
      paperStepSize: 0.2,
    }),
    conditioningTable(out, {
      paperRows: 10.5e6,
      paperStepSizes: { sghmc_cv_paper: 0.06, sgld_cv_paper: 1e-6 },
    }),
    biasTable(out, {
      note: "A method is accurate when rms z(mean) is near its floor and z(sd) near 0.",
    }),
    stepSizeGridTable(
      out,
      `Step-size grids of the SG methods, each point run with the same gradient-evaluation budget (perturbed HMC-ECS's post-warmup evaluations), m = ${out.sgBatchSize}; E = √(mean z(mean)² + mean z(sd)²)/√2 against full-data HMC; the chosen ε (smallest E) is then rerun with a fresh seed for the tables. SG-HMC: L = ⌈1.2/ε⌉ (the "L matched" variants reuse the chosen ε with L = ${out.matchedSteps}); SGLD: ε = c/λ_max with λ_max = ${
        formatShort(out.lambdaMax, 4)
      } the largest eigenvalue of −∇²log π(θ*) (stable for ε·λ_max < 4).`,
    ),
    timingTable(out, {
      before: [{ stage: "generate data", seconds: genSeconds }],
      after: [{ stage: "ROC (predictive means)", seconds: rocSeconds }],
      totalSeconds,
    }),
  ];

  const comparison = _comparison(out, {
    n: s.n,
    updateEvery: s.comparison.updateEvery,
    rocHmc: rocHmc.auc,
    rocP: rocP.auc,
    rocS: rocS.auc,
  });
  const st = out.ecsSummary.perturbed;
  const summary = [
    `${
      context.quick ? "**Quick mode** (reduced n and iterations). " : ""
    }HIGGS-like logistic regression: n = ${s.n} training rows (paper: 10.5M real HIGGS rows), ${s.numTest} held-out rows, d = ${d} (intercept + the 28 HIGGS features, standardised, drawn from a Gaussian copula with the empirical marginals and normal-score correlation of 5 000 real HIGGS rows; the label from the logistic model fitted to those rows), prior N(0, 10²), X stored as f32. Per-row Fisher information at θ*: condition number ${
      formatShort(out.conditioning.conditionNumber, 3)
    } (eigenvalues ${formatShort(out.conditioning.perRowMin, 3)}–${
      formatShort(out.conditioning.perRowMax, 3)
    }; the isotropic stand-in used before gave ≈ 1.5). Wall time ${
      formatShort(totalSeconds, 3)
    } s.`,
    `θ* = posterior mean of HMC on the first ${out.subsetRows} rows (1 %, §6.5); every method starts there. HMC-ECS: θ* moved to the full-data MAP by Newton re-centrings (each one counted data pass), then ${s.comparison.numWarmup} warmup iterations (θ*, M and m or λ refreshed every ${s.comparison.updateEvery} iterations as in §6.3 unless the window mean lies within 0.1 sd² per dimension of θ*; the row "§6.3 warmup as written" skips the Newton step and refreshes at every check) + ${s.comparison.numSamples} draws, εL = 1.2, dual averaging to 0.8; perturbed ended with ${out.perturbed.settings}; signed with ${out.signed.settings}. Full-data HMC (reference for bias and for Fig. 3): ${s.comparison.reference.numWarmup} warmup + ${s.comparison.reference.numSamples} draws with M fixed at the Laplace precision at the full-data MAP (the paper's M = I start of §6.3 would cost more than this whole experiment at this n); its evaluations include the Newton fit.`,
    `SG methods (§6.2, §6.4): m = ${out.sgBatchSize} (perturbed HMC-ECS's m), control variates (CV) and M = −∇²log π(θ*) at θ* = the full-data HMC posterior mean — neither the CV pass nor the Hessian is charged to them, as in the paper; C = I, B̂ = 0; ${s.comparison.sgBurnIn} burn-in iterations (SGLD: × L = ${out.paperSteps}), then ${s.comparison.numSamples} kept draws (SGLD runs R = L × ${s.comparison.numSamples} iterations with the paper's L = round(1.2/ε) = ${out.paperSteps} of perturbed HMC-ECS, §6.4; its IF is that of the unthinned chain and CT = IF × E as eq. 2 — the verdicts' convention — and the chain thinned by L gives the per-kept-draw column; "L matched" SG-HMC uses L = ${out.matchedSteps}, HMC-ECS's evaluations per iteration in units of m). Chosen step sizes: ${
      Object.entries(out.chosenStepSize).map(([k, v]) => `${k} ε = ${v.toPrecision(3)}`).join(", ")
    } (grid below; the paper's trial-and-error values at n = 10.5M were ε = 0.06 for SG-HMC and 1e-6 for SGLD).`,
    `Evaluations are per-row likelihood + gradient + Hessian evaluations from the model's cost counter (a fused ℓ and ∇ℓ pass over a row counts 2, a Hessian row 1); SG methods are charged their gradient rows. Perturbed HMC-ECS spent ${
      formatShort(out.perturbed.evaluationsWarmup / s.n, 3)
    } data passes in warmup (each centring: one ℓ+∇ℓ pass, with a subsample or full-data Hessian; ${
      formatShort(out.perturbed.hessianRows / s.n, 3)
    } passes' worth of Hessian rows in all) and ${
      formatShort(out.perturbed.evaluationsSampling / s.n, 3)
    } after it; α_θ = ${formatShort(st.acceptance)}, α_u = ${formatShort(st.subsampleAcceptance)}.`,
  ].join("\n\n");

  return { summary, tables, figures, comparison, verdicts: _verdicts(out, rocHmc.auc, rocP.auc) };
}

function _verdicts(out: ComparisonOutcome, aucHmc: number, aucP: number): Verdict[] {
  const p = out.perturbed;
  const sgldEps = (1e-6 * 10.5e6) / out.conditioning.numRows;
  const byKey = new Map(out.sg.map((o) => [o.key, o]));
  const med = (o: MethodOutcome | undefined) => medianRct(o, p);
  const rmsSd = (o: MethodOutcome | undefined) =>
    o === undefined || o.unstable ? NaN : momentErrors(o.moments, out.reference.moments).rmsSd;
  const note = "";
  const seeds = (key: string) => out.seedRctPaper[key] ?? [NaN];
  const ours = (key: string) =>
    `per kept draw: ${(out.seedRct[key] ?? [NaN]).map((v) => formatShort(v)).join(", ")}`;
  const [sgldMb, sghmcMb] = [byKey.get("sgld_mb"), byKey.get("sghmc_mb")];
  const sgBias = [rmsSd(sgldMb), rmsSd(sghmcMb)];
  return [
    rctVerdict("Table 1: signed vs perturbed HMC-ECS", [med(out.signed)], [0.8, 1.15, 1.95], note),
    rctVerdict(
      "Table 1: SG-HMC (CV) vs perturbed HMC-ECS",
      seeds("sghmc_cv_paper"),
      [2.43, 2.97, 4.08],
      "paper's ε = 0.06",
    ),
    rctVerdict(
      "Table 1: SGLD (CV) vs perturbed HMC-ECS",
      seeds("sgld_cv_paper"),
      [3.58, 12.46, 326.8],
      `paper's ε = 1e-6 × 10.5e6/n, ε·λ_max = ${
        formatShort(sgldEps * out.conditioning.lambdaMax, 3)
      }; ${ours("sgld_cv_paper")}; at the grid's ε (ε·λ_max = ${
        formatShort((out.chosenStepSize.sgld_cv ?? NaN) * out.conditioning.lambdaMax, 3)
      }): ${formatShort(medianRctPaper(byKey.get("sgld_cv"), p))}`,
    ),
    {
      claim: "Figs. 1–2: SG methods without control variates are biased, HMC-ECS is not",
      paper: "SGLD / SG-HMC (no CV) off the identity line",
      ours: `rms z(sd): perturbed ${formatShort(rmsSd(p))}, SGLD ${
        formatShort(sgBias[0])
      }, SG-HMC ${formatShort(sgBias[1])} (no CV)`,
      outcome: outcomeOf(
        sgBias.every((b) => b > 3 * rmsSd(p)),
        sgBias.some((b) => b > 3 * rmsSd(p)),
      ),
      reason:
        "threshold: rms z(sd) against full-data HMC more than 3× perturbed HMC-ECS's for both (partly: for one)",
    },
    {
      claim: "Fig. 3: HMC-ECS ROC indistinguishable from full-data HMC",
      paper: "indistinguishable",
      ours: `AUC ${formatShort(aucP, 4)} vs ${formatShort(aucHmc, 4)}`,
      outcome: outcomeOf(Math.abs(aucP - aucHmc) < 0.002, Math.abs(aucP - aucHmc) < 0.01),
      reason: "threshold: |ΔAUC| < 0.002 (partly < 0.01)",
    },
  ];
}

function _comparison(
  out: ComparisonOutcome,
  x: { n: number; updateEvery: number; rocHmc: number; rocP: number; rocS: number },
): string[] {
  const p = out.perturbed;
  const byKey = new Map(out.sg.map((o) => [o.key, o]));
  const lines: string[] = [];
  const med = (o: MethodOutcome | undefined) => medianRct(o, p);
  const altMed = (o: MethodOutcome | undefined) => medianRct(o, p, { samplingOnly: true });
  const err = (o: MethodOutcome | undefined) =>
    o === undefined || o.unstable ? NaN : momentErrors(o.moments, out.reference.moments).rmsSd;
  const sign = med(out.signed);
  const rowRatio = out.ecsSummary.signed.percentRows / out.ecsSummary.perturbed.percentRows;
  lines.push(
    `Signed vs perturbed HMC-ECS: median RCT ${formatShort(sign)} (paper 1.15), τ̂ = ${
      formatShort(out.signed.tau)
    } (paper 1): ${
      sign < 2
        ? "**reproduced** (signed about as cheap as perturbed)"
        : sign < 5
        ? "**partly reproduced** — same order of magnitude, but signed is dearer here"
        : "**not reproduced** — signed is much dearer here"
    }; its block-Poisson estimator reads ${
      formatShort(rowRatio, 3)
    }× the rows of the perturbed one per evaluation (λ = ${
      String(out.signed.result.chains[0].tuning.numProducts)
    } products of ${
      String(out.signed.result.chains[0].tuning.batchSize)
    } rows against m = ${out.sgBatchSize}; paper: 0.029 % vs 0.012 % of n, 2.4×).`,
  );
  const sgh = byKey.get("sghmc_cv"), sgl = byKey.get("sgld_cv");
  const sghP = byKey.get("sghmc_cv_paper"), sglP = byKey.get("sgld_cv_paper");
  const sghMed = med(sgh), sglMed = med(sgl);
  const bestSg = Math.min(...out.sg.filter((o) => !o.unstable).map((o) => rctOf(o, p).median));
  const passesWarmup = p.evaluationsWarmup / x.n, passesSampling = p.evaluationsSampling / x.n;
  const pw = out.perturbedPaperWarmup;
  lines.push(
    `SG-HMC (CV) vs perturbed HMC-ECS, median RCT under the paper's convention (HMC-ECS charged its whole run, SG methods post burn-in): ${
      formatShort(sghMed)
    } at the grid's ε, ${
      formatShort(med(sghP))
    } at the paper's ε = 0.06 (L = 20); paper 2.97. SGLD (CV): ${
      formatShort(sglMed)
    } at the grid's ε, ${formatShort(med(sglP))} at the paper's ε scaled to this n; paper 12.46. ${
      sghMed > 1 && sglMed > 1
        ? "**Reproduced in direction**: HMC-ECS is cheaper per effective draw."
        : `**Not reproduced** under that convention. Perturbed HMC-ECS made ${
          formatShort(passesWarmup, 3)
        } data passes' worth of evaluations in warmup (Newton centring of θ*, its Hessian and the first iterations) and ${
          formatShort(passesSampling, 3)
        } in its ${p.result.numSamples} sampling iterations; the SG methods get θ*, control variates and M for free. The paper's §6.3 warmup as written (θ* learned from the chain, re-centred every ${x.updateEvery} iterations) costs ${
          formatShort(pw.evaluations / p.evaluations, 3)
        }× ours. No charging of full-data passes can give the paper's ratios: at its n = 10.5M and m = 1300 the sampling phase is 2000 × 7 × 1300 ≈ 1.7 data passes, while §6.3's Hessian and θ* refreshes alone are ≥ 8 passes; the paper's 2.97 is instead what the per-iteration cost ratio gives, (L_SG = 20)/(L + 1 = 7) × IF ratio ≈ 2.9.`
    }`,
  );
  lines.push(
    `Charging every method its post-warmup/post-burn-in evaluations only (the convention the paper's numbers agree with): SG-HMC (CV) ${
      formatShort(altMed(sgh))
    } at the grid's ε and ${formatShort(altMed(sghP))} at the paper's ε (paper 2.97), SGLD (CV) ${
      formatShort(altMed(sgl))
    } and ${formatShort(altMed(sglP))} (paper 12.46), signed ${
      formatShort(altMed(out.signed))
    } (paper 1.15). ${
      altMed(sghP) > 1.5 && altMed(sgh) > 1
        ? "**Reproduced in direction and order of magnitude**: HMC-ECS is several times cheaper than SG-HMC at the paper's ε, and still cheaper at the most accurate ε of our grid, whose larger steps"
        : "At our grid's ε SG-HMC is competitive:"
    } with M = −∇²log π(θ*) keep the bias at the HMC-ECS level (bias table), so the paper's margin depends on its conservative ε.`,
  );
  const c = out.conditioning;
  const sgldEps = (1e-6 * 10.5e6) / x.n;
  const medIf = (o: MethodOutcome | undefined, unthinned: boolean) => {
    const v = o === undefined || o.unstable
      ? []
      : [...((unthinned ? o.inefficiencyUnthinned : o.inefficiency) ?? [])].sort((a, b) => a - b);
    return v.length ? v[Math.floor(v.length / 2)] : NaN;
  };
  lines.push(
    `SGLD under the paper's eq. 2 (CT = IF × E; R = L × ${p.result.numSamples} iterations with L = round(1.2/ε) = ${out.paperSteps}; IF from the unthinned chain): median RCT ${
      formatShort(medianRctPaper(sglP, p))
    } at the paper's ε = 1e-6 × 10.5e6/n = ${
      formatShort(sgldEps, 3)
    } (paper 12.46, range 3.58–326.8 across parameters) and ${
      formatShort(medianRctPaper(sgl, p))
    } at the grid's ε; per kept draw (thinned by L) ${formatShort(med(sglP))} and ${
      formatShort(sglMed)
    }. Median IF of SGLD at the paper's ε: ${formatShort(medIf(sglP, true))} unthinned, ${
      formatShort(medIf(sglP, false))
    } thinned. The paper's ε corresponds here to ε·λ_max = ${
      formatShort(sgldEps * c.lambdaMax, 3)
    } and ε·λ_min = ${
      formatShort(sgldEps * c.lambdaMin, 3)
    } (per-row information: condition number ${
      formatShort(c.conditionNumber, 3)
    }); SGLD is stable only for ε·λ_max < 4, and its slowest direction decorrelates in ≈ 2/(ε·λ_min) ≈ ${
      formatShort(2 / (sgldEps * c.lambdaMin), 3)
    } iterations.${
      sglP === undefined || sglP.unstable
        ? " **At the paper's ε SGLD diverged here**: with the HIGGS rows' per-row information the paper's ε lies beyond the stability limit, so the paper's data or scaling must have had a smaller λ_max per row than the standardised rows."
        : ""
    }`,
  );
  const cvMatched = byKey.get("sghmc_cv_matched");
  if (sgh && cvMatched && sgh.settings.match(/L = (\d+)/)?.[1] === String(out.matchedSteps)) {
    lines.push(
      `At the chosen ε = ${out.chosenStepSize.sghmc_cv}, L = 1.2/ε equals the matched L = ${out.matchedSteps}, so the two SG-HMC (CV) rows are the same sampler (independent runs).`,
    );
  }
  lines.push(
    `Best SG method under the paper's convention: median RCT ${formatShort(bestSg)}.`,
  );
  lines.push(
    `Bias (rms z(sd) vs HMC): perturbed ${formatShort(err(p))}, signed ${
      formatShort(err(out.signed))
    }, SG-HMC (CV) ${formatShort(err(sgh))}, SG-HMC (no CV) ${
      formatShort(err(byKey.get("sghmc_mb")))
    }, SGLD (CV) ${formatShort(err(sgl))} at the grid's ε and ${
      formatShort(err(sglP))
    } at the paper's, SGLD (no CV) ${
      formatShort(err(byKey.get("sgld_mb")))
    }. Paper (Figs. 1–2): HMC-ECS and SG-HMC accurate, SGLD biased, control variates help. ${
      err(byKey.get("sgld_mb")) > 3 * err(p) && err(byKey.get("sghmc_mb")) > 3 * err(p)
        ? `**Reproduced** for the methods without control variates${
          err(sglP) > 3 * err(p)
            ? " and for SGLD at the paper's ε (its variances are inflated)"
            : ""
        }; at the ε our grid selects for accuracy, SGLD with control variates is as accurate as HMC-ECS but pays for it with a small step.`
        : "See the bias table: differences are within a few MC floors."
    }`,
  );
  const hmcRatio = out.reference.evaluations / out.reference.numDraws /
    (p.evaluations / p.numDraws);
  lines.push(
    `Full-data HMC costs ${
      formatShort(hmcRatio, 4)
    }× perturbed HMC-ECS's evaluations per kept draw (median RCT ${
      formatShort(med(out.reference))
    }); the paper reports 642.8× at n = 10.5M with m = 1300 (n/m ≈ 8100; here n/m = ${
      formatShort(x.n / out.sgBatchSize, 4)
    }). **Reproduced** in order of magnitude: the ratio scales roughly with n/m, and our HMC baseline is cheaper than the paper's (M fixed at the MAP, ${out.reference.result.numWarmup} warmup iterations).`,
  );
  lines.push(
    `Fig. 3: AUC of the posterior predictive mean on held-out rows — HMC ${
      formatShort(x.rocHmc, 5)
    }, perturbed ${formatShort(x.rocP, 5)}, signed ${formatShort(x.rocS, 5)}: ${
      Math.abs(x.rocHmc - x.rocP) < 1e-3 && Math.abs(x.rocHmc - x.rocS) < 1e-3
        ? "**reproduced** (indistinguishable curves)"
        : "**differ** by more than 1e-3"
    }.`,
  );
  const t2 = out.ecsSummary.perturbed;
  lines.push(
    `Table 2: perturbed α_θ = ${formatShort(t2.acceptance)} (paper 0.980), L = ${
      formatShort(t2.numSteps)
    } (6), IF = ${formatShort(t2.meanIf)} (2.185), 100·m/n = ${
      formatShort(t2.percentRows)
    } (0.012). HMC-ECS's L = ⌈1.2/ε⌉ = ${
      formatShort(t2.numSteps)
    } (the paper's round(1.2/ε) = ${out.paperSteps} sets SGLD's R). With M = −∇²log π(θ*) the posterior is near-isotropic in HMC-ECS's metric whatever the rows' conditioning, so dual averaging to 0.8 picks a larger ε and fewer steps than the paper's ε = 0.2, L = 6, whose acceptance 0.98 is above the 0.8 target.`,
  );
  return lines;
}

/**
 * R2 — Table 1 and Figs. 1–3 of the HMC-ECS paper on HIGGS-like data: RCT
 * of signed HMC-ECS, SG-HMC and SGLD (with and without control variates)
 * against perturbed HMC-ECS, their bias against full-data HMC, and the ROC on
 * held-out rows.
 *
 * @example
 * ```ts ignore
 * import { r2HiggsRct } from "./r2_higgs_rct.ts";
 * const result = await r2HiggsRct.run({ quick: true, seed: 1, outDir: "out", log: console.error });
 * ```
 */
export const r2HiggsRct: Experiment = {
  name: "r2",
  title: "R2 — HMC-ECS vs SG-HMC/SGLD: RCT and bias on HIGGS-like data (Table 1, Figs. 1–3)",
  source: "hmc-ecs_dang-2019.md §6.2–6.5, Tables 1–2, Figs. 1–3",
  run: _run,
  units: COMPARISON_UNITS,
};
