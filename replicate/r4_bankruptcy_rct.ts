/**
 * R4 — HMC-ECS Tables 3–4 and Figs. 4–6 on bankruptcy-shaped data: RCT of
 * signed HMC-ECS, SG-HMC with L = 1.2/ε (the paper's L = 60) and with L
 * matched to HMC-ECS's evaluations (the paper's L = 7), and SGLD against
 * perturbed HMC-ECS; the Table 4 summary; the bias of every method against
 * full-data HMC; and predicted bankruptcy probability against one covariate
 * with 90 % bands beside binned empirical frequencies.
 *
 * Data: additive spline logistic regression, intercept + 10 centred
 * B-spline columns for each of 8 covariates (d = 81, `bankruptcyShaped`,
 * ~1 % events), prior N(0, 3²) on the spline coefficients and N(0, 10²) on
 * the intercept, X stored as f32. Pipeline: `comparison.ts`; cost
 * conventions: `method_outcome.ts`.
 *
 * References: Dang et al. (2019), §6.2–6.4, §6.6, Tables 3–4, Figs. 4–6.
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { freeGlmData } from "../data/dataset.ts";
import { bankruptcyShaped } from "../data/synthetic.ts";
import { GlmModel, type GlmOptions } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import type {
  Experiment,
  ExperimentContext,
  ExperimentResult,
  ResultTable,
  UnitFunction,
  Verdict,
} from "./experiment.ts";
import { formatShort } from "./format.ts";
import type {
  ComparisonConfig,
  ComparisonData,
  ComparisonOutcome,
  SgVariant,
} from "./comparison.ts";
import {
  COMPARISON_UNITS,
  comparisonData,
  modelFromComparisonData,
  runComparison,
} from "./comparison.ts";
import { runHmcEcs } from "../samplers/hmc_ecs/mod.ts";
import { type EcsRunSummary, summarizeEcsRun } from "./r1_ecs_common.ts";
import { outcomeByFactor, outcomeOf, rctVerdict } from "./verdicts.ts";
import { medianRct, medianRctPaper, type MethodOutcome, rctOf } from "./method_outcome.ts";
import { conditioningTable } from "./rct_tables.ts";
import { momentErrors } from "./moment_errors.ts";
import { equalCountBins, type PredictedBand, predictedBand } from "./predictive.ts";
import { probabilityBandSpec } from "./r4_fig6.ts";
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
  comparison: Omit<ComparisonConfig, "seed" | "sgVariants">;
  /** Rows (random subset) used for the predicted curves of Fig. 6, and draws per curve. */
  fig6Rows: number;
  fig6Draws: number;
  /** Expected CPU seconds of the reference and of one HMC-ECS run (scheduling order only). */
  weights: { reference: number; ecs: number };
}

const _FULL: _Settings = {
  // At n = 3e5 (≈ 3000 events for 81 coefficients) the extreme B-splines of
  // the heavy-tailed ratios rest on a handful of rows whose Taylor remainders
  // dominate Var dₖ; signed HMC-ECS then loses its sign (τ̂ 0.2–0.9 by seed).
  // At 1e6 τ̂ = 1 (the paper: 4.7M).
  n: 1_000_000,
  fig6Rows: 40_000,
  fig6Draws: 100,
  weights: { reference: 450, ecs: 5 },
  comparison: {
    // Seeds of the RCT comparison: error bars on the verdicts (time budget: 2),
    // re-running the SG methods the verdicts judge (at the paper's ε).
    numSeeds: 2,
    seedVariants: ["sghmc_cv_paper", "sghmc_cv_matched_paper", "sgld_cv_paper"],
    numWarmup: 1000,
    numSamples: 2000,
    updateEvery: 200,
    reference: { numWarmup: 150, numSamples: 1000, rowLayout: "windowed" },
    subset: { fraction: 0.01, minRows: 3000, numWarmup: 400, numSamples: 600 },
    sgBurnIn: 500,
    sghmcGrid: [0.01, 0.02, 0.06, 0.15, 0.4],
    sgldGrid: [0.01, 0.1, 0.5, 2],
    // Cap λ so that a mis-tuned signed run cannot exhaust R4's time budget.
    signedOptions: { productRange: [50, 200] },
  },
};

const _QUICK: _Settings = {
  n: 20_000,
  fig6Rows: 5_000,
  fig6Draws: 50,
  weights: { reference: 3.7, ecs: 1.3 },
  comparison: {
    // Seeds of the RCT comparison: error bars on the verdicts (time budget: 2),
    // re-running the SG methods the verdicts judge (at the paper's ε).
    numSeeds: 2,
    seedVariants: ["sghmc_cv_paper", "sghmc_cv_matched_paper", "sgld_cv_paper"],
    numWarmup: 200,
    // 200 kept draws after 50 burn-in iterations (was 300 after 100): the two
    // SG-HMC₁ runs at the paper's ε (L = 60, m = 2 000) dominate quick R4.
    numSamples: 200,
    updateEvery: 100,
    reference: { numWarmup: 100, numSamples: 300, rowLayout: "windowed" },
    subset: { fraction: 0.01, minRows: 2000, numWarmup: 150, numSamples: 250 },
    sgBurnIn: 50,
    sghmcGrid: [0.05, 0.2],
    sgldGrid: [0.1, 1],
    gridBudgetFraction: 0.25,
    // The SG grids and runs in parallel units (the two L = 60 runs at the
    // paper's ε are most of quick R4's CPU).
    sgUnits: true,
    // At this n the pilot asks for λ = 2000 products of 30 rows (more rows
    // than the data); cap λ so that the CI run stays short.
    signedOptions: { productRange: [50, 100] },
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
      label: "SG-HMC₁ (L = 1.2/ε)",
      kind: "sghmc",
      controlVariates: true,
      steps: "trajectory",
    },
    {
      key: "sghmc_cv_matched",
      label: "SG-HMC₂ (L matched)",
      kind: "sghmc",
      controlVariates: true,
      steps: "matched",
      stepSizeFrom: "sghmc_cv",
    },
    {
      key: "sghmc_cv_paper",
      label: "SG-HMC₁ at the paper's ε = 0.02 (L = 1.2/ε = 60)",
      kind: "sghmc",
      controlVariates: true,
      steps: "trajectory",
      stepSize: 0.02,
    },
    {
      key: "sghmc_cv_matched_paper",
      label: "SG-HMC₂ at the paper's ε = 0.02, L = 7",
      kind: "sghmc",
      controlVariates: true,
      steps: 7,
      stepSize: 0.02,
    },
    { key: "sgld_cv", label: "SGLD", kind: "sgld", controlVariates: true },
    {
      key: "sgld_cv_paper",
      label: "SGLD at the paper's ε = 2e-5 × 4748089/n",
      kind: "sgld",
      controlVariates: true,
      stepSize: (2e-5 * 4_748_089) / n,
    },
  ];
}

/** Table 3 of the paper (min / median / max RCT against perturbed HMC-ECS). */
const _PAPER_TABLE3: PaperRct = {
  ecs_signed: [1.2, 1.6, 2.6],
  sghmc_cv: [6.8, 9.5, 682.3],
  sghmc_cv_matched: [48.6, 100.2, 246.7],
  sghmc_cv_paper: [6.8, 9.5, 682.3],
  sghmc_cv_matched_paper: [48.6, 100.2, 246.7],
  sgld_cv: [53.9, 230.1, 2784.2],
  sgld_cv_paper: [53.9, 230.1, 2784.2],
};

/** Table 4 of the paper; HMC's benchmark values from its caption. */
const _PAPER_TABLE4: PaperEcsTable = {
  perturbed: { acc: 0.967, accU: 0.994, L: 6, IF: 2.202, ESS: 912, tau: NaN, pct: 0.021 },
  signed: { acc: 0.962, accU: 0.964, L: 6, IF: 2.31, ESS: 871, tau: 1, pct: 0.126 },
  hmc: { acc: 0.966, accU: NaN, L: NaN, IF: 2.195, ESS: NaN, tau: NaN, pct: 100 },
};

/** Covariate drawn in Fig. 6 (the paper's "Earnings ratio"). */
const _FIG6_COVARIATE = 0;

const _MODEL_OPTIONS: GlmOptions = {
  family: "logistic",
  priorScale: 3,
  interceptColumn: 0,
  interceptPriorScale: 10,
};

function _signedAlphaU(out: ComparisonOutcome): number {
  return out.ecsSummary.signed.subsampleAcceptance;
}

/**
 * Table 4 at the paper's own settings: perturbed HMC-ECS with fixed ε = 0.2,
 * L = 6 (εL = 1.2 as the paper reports), no dual averaging. A unit: it needs
 * only the data.
 */
function _paperSettingsUnit(
  _context: ExperimentContext,
  args: { data: ComparisonData; modelOptions: GlmOptions; config: ComparisonConfig; n: number },
): EcsRunSummary {
  const { model, dispose } = modelFromComparisonData(args.data, args.modelOptions);
  try {
    const c = args.config;
    const tPaper = performance.now();
    const paperRun = runHmcEcs(model, {
      variant: "perturbed",
      seed: `${c.seed}/ecs-perturbed/paper-settings`,
      numChains: 1,
      numWarmup: c.numWarmup,
      numSamples: c.numSamples,
      updateEvery: c.updateEvery,
      stepSize: 0.2,
      numIntegrationSteps: 6,
      adaptStepSize: false,
    });
    return summarizeEcsRun(paperRun, {
      numRows: args.n,
      seconds: (performance.now() - tPaper) / 1000,
    });
  } finally {
    dispose();
  }
}

const _UNITS: Readonly<Record<string, UnitFunction>> = {
  ...COMPARISON_UNITS,
  "paper-settings": _paperSettingsUnit,
};

async function _run(context: ExperimentContext): Promise<ExperimentResult> {
  const s = context.quick ? _QUICK : _FULL;
  const t0 = performance.now();
  const arena = loadCore();
  const seed = `${context.seed}/r4`;
  context.log(`R4: bankruptcy-shaped n = ${s.n}, core ${arena.backend}`);
  const tGen = performance.now();
  const gen = bankruptcyShaped(arena, { n: s.n, seed, storage: "f32" });
  const genSeconds = (performance.now() - tGen) / 1000;
  const d = gen.data.numCols;
  const modelOptions = _MODEL_OPTIONS;
  const model = new GlmModel(gen.data, modelOptions);
  const events = dataViews(gen.data).y.reduce((a, b) => a + b, 0);
  let out: ComparisonOutcome;
  let fig6: {
    empirical: { x: number[]; y: number[] };
    bands: { method: string; band: PredictedBand }[];
  };
  let fig6Seconds: number;
  let paperSettings: EcsRunSummary;
  try {
    const config = { ...s.comparison, seed, sgVariants: _variants(s.n) };
    const data = comparisonData(gen.data);
    out = await runComparison(model, {
      data,
      config,
      context,
      modelOptions,
      units: _UNITS,
      weights: s.weights,
      extraUnits: [{
        unit: "paper-settings",
        args: { data, modelOptions, config, n: s.n },
        weight: s.weights.ecs,
        label: "perturbed HMC-ECS at ε = 0.2, L = 6",
      }],
    });
    // Fig. 6: 100 equal-size groups of the covariate over all rows; predicted
    // curves from a random subset of rows.
    const tFig = performance.now();
    const numCov = gen.covariateNames.length;
    const cov = new Float64Array(s.n);
    for (let i = 0; i < s.n; i++) cov[i] = gen.covariates[i * numCov + _FIG6_COVARIATE];
    const y = Float64Array.from(dataViews(gen.data).y);
    const bins = equalCountBins(cov, y, 100);
    const rows = new Rng(`${seed}/fig6`).sampleWithoutReplacement(s.n, Math.min(s.fig6Rows, s.n));
    const group = new Int32Array(rows.length);
    rows.forEach((r, k) => {
      // First group whose upper boundary is ≥ the row's value.
      let lo = 0, hi = bins.upper.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (bins.upper[mid] >= cov[r]) hi = mid;
        else lo = mid + 1;
      }
      group[k] = lo;
    });
    const x = dataViews(gen.data).x;
    const band = (o: MethodOutcome) =>
      predictedBand(x, { rows, group, numGroups: bins.x.length }, {
        draws: o.result.draws[0],
        numDraws: s.fig6Draws,
      });
    fig6 = {
      empirical: { x: bins.x, y: bins.y },
      bands: [
        { method: "HMC-ECS (perturbed)", band: band(out.perturbed) },
        { method: "HMC (full data)", band: band(out.reference) },
      ],
    };
    fig6Seconds = (performance.now() - tFig) / 1000;
    paperSettings = out.extraResults[0] as EcsRunSummary;
  } finally {
    model.dispose();
    freeGlmData(gen.data);
  }

  // A signed run whose signs are mostly negative has no usable sign-corrected
  // moments (Σs ≈ 0); it is left out of Figs. 4–5 and reported in the tables.
  const signedUsable = out.signed.tau >= 0.75;
  const methods = [out.perturbed, ...(signedUsable ? [out.signed] : []), ...out.sg];
  const params = randomParameters(d, `${seed}/fig4`);
  const covName = gen.covariateNames[_FIG6_COVARIATE];
  // Agreement of the two Fig. 6 curves, in units of HMC's 90 % band width.
  const [pb, hb] = [fig6.bands[0].band, fig6.bands[1].band];
  let maxShift = 0, widthRatio = 0;
  for (let g = 0; g < pb.mean.length; g++) {
    const w = Math.max(hb.hi[g] - hb.lo[g], 1e-12);
    maxShift = Math.max(maxShift, Math.abs(pb.mean[g] - hb.mean[g]) / w);
    widthRatio += (pb.hi[g] - pb.lo[g]) / w / pb.mean.length;
  }
  const figures = [
    {
      name: "fig4_density",
      caption:
        `Fig. 4 — kernel density estimates of four randomly chosen parameters: each method (green) against full-data HMC (red). ${
          signedUsable
            ? "Signed HMC-ECS: KDE of the raw draws (not sign-corrected)."
            : `Signed HMC-ECS is left out: τ̂ = ${
              formatShort(out.signed.tau)
            }, its sign-corrected estimates are meaningless.`
        }`,
      spec: densityGridSpec(
        methods,
        out.reference,
        params,
        "Fig. 4 — marginal posteriors vs full-data HMC",
      ),
    },
    {
      name: "fig5_moments",
      caption:
        `Fig. 5 — posterior mean (top) and variance (bottom) of every parameter, each method (y) against full-data HMC (x); dashed: identity.${
          signedUsable ? "" : " Signed HMC-ECS left out (τ̂ < 0.75)."
        }`,
      spec: momentScatterSpec(
        methods,
        out.reference,
        "Fig. 5 — posterior means and variances vs full-data HMC",
      ),
    },
    {
      name: "fig6_probability",
      caption:
        `Fig. 6 — realised bankruptcy frequencies in 100 equal-size groups of ${covName} (dots, all ${s.n} rows) and the predicted probability (group mean of σ(xᵀθ) over ${
          Math.min(s.fig6Rows, s.n)
        } random rows; line: posterior mean, band: pointwise 90 % interval over ${s.fig6Draws} draws) from perturbed HMC-ECS (left) and full-data HMC (right). Largest difference of the two mean curves: ${
          formatShort(maxShift, 2)
        } of HMC's band width; mean band-width ratio ${formatShort(widthRatio, 3)}.`,
      spec: probabilityBandSpec(covName, fig6.empirical, fig6.bands),
    },
  ];

  const totalSeconds = (performance.now() - t0) / 1000;
  const tables: ResultTable[] = [
    rctTable(out, { name: "table3_rct", title: "Table 3", paper: _PAPER_TABLE3 }),
    seedRctTable(out, { name: "table3_seeds", title: "Table 3", paper: _PAPER_TABLE3 }),
    ecsSettingsTable(out, {
      name: "table4_ecs",
      title: "Table 4",
      n: s.n,
      paper: _PAPER_TABLE4,
      paperStepSize: NaN,
    }),
    {
      name: "table4_paper_settings",
      caption:
        `Table 4 at the paper's own settings: perturbed HMC-ECS with fixed ε = 0.2, L = 6 (no dual averaging), n = ${s.n}, 1 chain × (${s.comparison.numWarmup} + ${s.comparison.numSamples}); beside the tuned run of Table 4.`,
      columns: ["quantity", "paper perturbed", "ours ε = 0.2, L = 6", "ours tuned"],
      rows: [
        ["ε", 0.2, paperSettings.stepSize, out.ecsSummary.perturbed.stepSize],
        ["α_θ,p", 0.967, paperSettings.acceptance, out.ecsSummary.perturbed.acceptance],
        [
          "α_u",
          0.994,
          paperSettings.subsampleAcceptance,
          out.ecsSummary.perturbed.subsampleAcceptance,
        ],
        ["IF (mean over θ)", 2.202, paperSettings.inefficiency, out.ecsSummary.perturbed.meanIf],
        ["100·m/n", 0.021, paperSettings.percentRows, out.ecsSummary.perturbed.percentRows],
      ],
    },
    conditioningTable(out, {
      paperRows: 4_748_089,
      paperStepSizes: { sghmc_cv_paper: 0.02, sghmc_cv_matched_paper: 0.02, sgld_cv_paper: 2e-5 },
    }),
    biasTable(out),
    stepSizeGridTable(
      out,
      `Step-size grids, each point run with the same gradient-evaluation budget (perturbed HMC-ECS's post-warmup evaluations), m = ${out.sgBatchSize}; E = √(mean z(mean)² + mean z(sd)²)/√2 against full-data HMC; the chosen ε (smallest E) is rerun with a fresh seed for the tables. SG-HMC₁: L = ⌈1.2/ε⌉; SG-HMC₂ reuses its ε with L = ${out.matchedSteps}; SGLD: ε = c/λ_max, λ_max = ${
        formatShort(out.lambdaMax, 4)
      }.`,
    ),
    timingTable(out, {
      before: [{ stage: "generate data", seconds: genSeconds }],
      after: [{ stage: "Fig. 6 bands", seconds: fig6Seconds }],
      totalSeconds,
    }),
  ];

  const p = out.perturbed;
  const med = (o: MethodOutcome | undefined) => medianRct(o, p);
  const alt = (o: MethodOutcome | undefined) => medianRct(o, p, { samplingOnly: true });
  const err = (o: MethodOutcome | undefined) =>
    o === undefined || o.unstable ? NaN : momentErrors(o.moments, out.reference.moments);
  const byKey = new Map(out.sg.map((o) => [o.key, o]));
  const [sg1, sg2, sgl] = [
    byKey.get("sghmc_cv"),
    byKey.get("sghmc_cv_matched"),
    byKey.get("sgld_cv"),
  ];
  const [sg1P, sg2P, sglP] = [
    byKey.get("sghmc_cv_paper"),
    byKey.get("sghmc_cv_matched_paper"),
    byKey.get("sgld_cv_paper"),
  ];
  const t4 = out.ecsSummary;
  const fmtErr = (o: MethodOutcome | undefined) => {
    const e = err(o);
    return typeof e === "number" ? "—" : `${formatShort(e.rmsMean)}/${formatShort(e.rmsSd)}`;
  };
  const sT = out.signed.result.chains[0].tuning;
  const comparison = [
    `Signed vs perturbed HMC-ECS: median RCT ${formatShort(med(out.signed))} (paper 1.6) with τ̂ = ${
      formatShort(out.signed.tau)
    } (paper 1) and α_u = ${formatShort(_signedAlphaU(out))} (paper 0.964): ${
      out.signed.tau < 0.75
        ? `**not reproduced** — with λ = ${String(sT.numProducts)} products of ${
          String(sT.batchSize)
        } rows a large share of the block-Poisson estimates is negative, so (2τ̂ − 1)² in eq. 18 makes CT ${
          out.signed.tau <= 0.5 ? "infinite" : "huge"
        } and the sign-corrected moments (eq. 17) are unreliable. The per-row differences dₖ = ℓₖ − qₖ are heavy-tailed here: the extreme B-splines of the heavy-tailed ratios rest on few rows, whose Taylor remainders dominate, so a ${
          String(sT.batchSize)
        }-row estimate d̂ is far from the normal law the λ/a tuning assumes (in-run median Var log|L̂| ≈ ${
          formatShort(t4.signed.logLikelihoodVariance)
        })`
        : `${
          med(out.signed) < 2.5 ? "**reproduced**" : "**same direction, dearer than in the paper**"
        }: signed HMC-ECS reads ${
          formatShort(t4.signed.percentRows / t4.perturbed.percentRows, 3)
        }× the rows of perturbed per evaluation (λ = ${String(sT.numProducts)} products of ${
          String(sT.batchSize)
        } rows; paper 0.126 % vs 0.021 %, 6×)${
          out.signed.tau < 0.99
            ? ` and pays the sign penalty 1/(2τ̂ − 1)² = ${
              formatShort(1 / (2 * out.signed.tau - 1) ** 2, 3)
            } of eq. 18`
            : ""
        }; the paper's ratio of 1.6 despite its 6× rows implies that its whole-run cost was dominated by phases common to both variants (its 100 training iterations at m = 62,000 and the full-data refreshes)`
    }.`,
    `Median RCT against perturbed HMC-ECS under the paper's convention (HMC-ECS charged its whole run, SG methods post burn-in), at the grid's ε / at the paper's ε: SG-HMC₁ ${
      formatShort(med(sg1))
    } (L = ${sg1 ? sg1.settings.match(/L = (\d+)/)?.[1] : "?"}) / ${
      formatShort(med(sg1P))
    } (L = 60), paper 9.5; SG-HMC₂ ${formatShort(med(sg2))} (L = ${out.matchedSteps}) / ${
      formatShort(med(sg2P))
    } (L = 7), paper 100.2; SGLD ${formatShort(med(sgl))} / ${
      formatShort(med(sglP))
    }, paper 230.1. ${
      med(sg1P) > 1 && med(sg2P) > 1 && med(sglP) > 1
        ? "At the paper's step sizes **reproduced in direction**: HMC-ECS needs less computation per effective draw than every SG method"
        : "**Not reproduced** for the rows with RCT < 1: HMC-ECS is charged its full-data centring passes, the SG methods get θ*, control variates and M for free"
    }. Charging every method post-warmup evaluations only: SG-HMC₁ ${formatShort(alt(sg1))} / ${
      formatShort(alt(sg1P))
    }, SG-HMC₂ ${formatShort(alt(sg2))} / ${formatShort(alt(sg2P))}, SGLD ${
      formatShort(alt(sgl))
    } / ${formatShort(alt(sglP))}. Max RCT at the paper's ε (paper 682/247/2784): ${
      [sg1P, sg2P, sglP].map((o) => (o && !o.unstable ? formatShort(rctOf(o, p).max) : "—")).join(
        "/",
      )
    }. ${
      med(sg2P) > 3 * med(sg1P)
        ? "**Reproduced**: SG-HMC with few steps at the paper's ε (trajectory 7 × 0.02 = 0.14) is much less efficient than with L = 60."
        : ""
    }${
      sg1 && sg2 && sg1.settings.match(/L = (\d+)/)?.[1] === String(out.matchedSteps)
        ? ` At the grid's ε = ${out.chosenStepSize.sghmc_cv}, L = 1.2/ε equals the matched L, so SG-HMC₁ and SG-HMC₂ are the same sampler there (two independent runs); with M = −∇²log π(θ*) such larger steps stay accurate (see the grid and the bias table).`
        : ""
    }`,
    `Bias (rms z(mean)/rms z(sd) vs full-data HMC): perturbed ${fmtErr(p)}, signed ${
      fmtErr(out.signed)
    }, SG-HMC₁ ${fmtErr(sg1)}, SG-HMC₂ ${fmtErr(sg2)}, SGLD ${
      fmtErr(sgl)
    }; at the paper's ε: SG-HMC₁ ${fmtErr(sg1P)}, SG-HMC₂ ${fmtErr(sg2P)}, SGLD ${
      fmtErr(sglP)
    }. Paper (Figs. 4–5): both HMC-ECS accurate, SG-HMC₁ reasonable with some biased expectations, SG-HMC₂ and SGLD degraded.`,
    `Table 4: perturbed α_θ = ${formatShort(t4.perturbed.acceptance)} (paper 0.967), α_u = ${
      formatShort(t4.perturbed.subsampleAcceptance)
    } (0.994), L = ${formatShort(t4.perturbed.numSteps)} (6), IF = ${
      formatShort(t4.perturbed.meanIf)
    } (2.202), ESS = ${formatShort(t4.perturbed.ess)} (912 of R = 2000), 100·m/n = ${
      formatShort(t4.perturbed.percentRows)
    } (0.021 at n = 4.7M; m/n shrinks with n); signed α_θ = ${
      formatShort(t4.signed.acceptance)
    } (0.962), α_u = ${formatShort(t4.signed.subsampleAcceptance)} (0.964), IF = ${
      formatShort(t4.signed.meanIf)
    } (2.31), τ̂ = ${formatShort(t4.signed.tau)} (1), 100·m/n = ${
      formatShort(t4.signed.percentRows)
    } (0.126); HMC α = ${formatShort(t4.reference.acceptance)} (0.966), IF = ${
      formatShort(t4.reference.meanIf)
    } (2.195).`,
    `Fig. 6: the perturbed HMC-ECS and HMC predicted curves differ by at most ${
      formatShort(maxShift, 2)
    } of HMC's 90 % band width (band-width ratio ${formatShort(widthRatio, 3)}): ${
      maxShift < 0.5 ? "**reproduced** (indistinguishable)" : "**visibly different**"
    }; both follow the binned empirical frequencies.`,
    `Full-data HMC costs ${
      formatShort(
        out.reference.evaluations / out.reference.numDraws / (p.evaluations / p.numDraws),
        4,
      )
    }× perturbed HMC-ECS's evaluations per kept draw (median RCT ${
      formatShort(med(out.reference))
    }); paper: 478.7× at n = 4.7M (the ratio grows roughly ∝ n/m).`,
  ];

  const summary = [
    `${
      context.quick
        ? `**Quick mode** (reduced n and iterations: ${s.comparison.numWarmup} + ${s.comparison.numSamples} HMC-ECS iterations, SG ${s.comparison.sgBurnIn} burn-in + ${s.comparison.numSamples} kept; the SG grids and runs in parallel units, each on fresh gradient estimators). `
        : ""
    }Bankruptcy-shaped additive spline logistic regression: n = ${s.n} rows (paper: 4,748,089 real firm-years), d = ${d} (intercept + 10 centred B-spline columns × 8 covariates), ${events} events (${
      formatShort((100 * events) / s.n, 3)
    } %), prior N(0, 3²) on spline coefficients and N(0, 10²) on the intercept, X stored as f32. The Swedish firm-year data are not public, so the rows are a stand-in; its per-row Fisher information at θ* has condition number ${
      formatShort(out.conditioning.conditionNumber, 3)
    } (eigenvalues ${formatShort(out.conditioning.perRowMin, 3)}–${
      formatShort(out.conditioning.perRowMax, 3)
    }; conditioning table). Wall time ${formatShort(totalSeconds, 3)} s.`,
    `θ* = posterior mean of HMC on the first ${out.subsetRows} rows; every method starts there. HMC-ECS: θ* moved to the full-data MAP by Newton re-centrings (each one counted data pass), then ${s.comparison.numWarmup} warmup iterations (θ*, M and m or λ refreshed every ${s.comparison.updateEvery} iterations as in §6.3 unless the window mean lies within 0.1 sd² per dimension of θ*; the row "§6.3 warmup as written" skips the Newton step and refreshes at every check) + ${s.comparison.numSamples} draws; perturbed ended with ${p.settings}; signed with ${out.signed.settings}. Full-data HMC: ${s.comparison.reference.numWarmup} warmup + ${s.comparison.reference.numSamples} draws with M fixed at the Laplace precision at the full-data MAP (Newton, counted).`,
    `SG methods with second-order control variates and M = −∇²log π(θ*) at θ* = the full-data HMC posterior mean (not charged, as in the paper), m = ${out.sgBatchSize}, C = I; ${s.comparison.sgBurnIn} burn-in iterations then ${s.comparison.numSamples} kept draws (SGLD: R = L × ${s.comparison.numSamples} iterations with the paper's L = round(1.2/ε) = ${out.paperSteps}, IF from the unthinned chain as eq. 2; thinned by L for the per-kept-draw column). Chosen step sizes: ${
      Object.entries(out.chosenStepSize).map(([k, v]) => `${k} ε = ${v.toPrecision(3)}`).join(", ")
    } (paper at n = 4.7M: SG-HMC ε = 0.02, SGLD ε = 2e-5).`,
    `Evaluations: per-row likelihood + gradient + Hessian rows from the model's cost counter (a Hessian row counts 1); SG methods are charged gradient rows. Perturbed HMC-ECS spent ${
      formatShort(p.evaluationsWarmup / s.n, 3)
    } data passes in warmup (${formatShort(p.hessianRows / s.n, 3)} of them Hessian rows) and ${
      formatShort(p.evaluationsSampling / s.n, 3)
    } after it.`,
  ].join("\n\n");

  const rctV = (
    claim: string,
    o: MethodOutcome | undefined,
    paper: readonly [number, number, number],
    label: string,
  ) =>
    rctVerdict(
      claim,
      o === undefined ? [NaN] : (out.seedRctPaper[o.key] ?? [medianRctPaper(o, p)]),
      paper,
      o === undefined || out.seedRct[o.key] === undefined || !o.key.startsWith("sgld")
        ? label
        : `${label}; per kept draw: ${out.seedRct[o.key].map((v) => formatShort(v)).join(", ")}`,
    );
  const errP = err(p), errSgl = err(sgl), errSg2 = err(sg2);
  const rms = (e: ReturnType<typeof err>) => (typeof e === "number" ? NaN : e.rmsMean);
  const verdicts: Verdict[] = [
    {
      claim: "Table 4 α_θ,p and IF at the paper's ε = 0.2, L = 6 (perturbed)",
      paper: "0.967, IF 2.202",
      ours: `${formatShort(paperSettings.acceptance)}, IF ${
        formatShort(paperSettings.inefficiency)
      } (tuned: ${formatShort(t4.perturbed.acceptance)}, IF ${formatShort(t4.perturbed.meanIf)})`,
      outcome: outcomeOf(
        Math.abs(paperSettings.acceptance - 0.967) <= 0.03 &&
          outcomeByFactor(paperSettings.inefficiency, 2.202, { factor: 1.5 }) === "reproduced",
        Math.abs(paperSettings.acceptance - 0.967) <= 0.03 ||
          outcomeByFactor(paperSettings.inefficiency, 2.202, { factor: 1.5 }) === "reproduced",
      ),
      reason: "threshold |α − 0.967| ≤ 0.03 and IF within a factor 1.5 (partly: one of the two)",
    },
    rctV(
      "Table 3: signed vs perturbed HMC-ECS",
      out.signed,
      [1.2, 1.6, 2.6],
      `τ̂ = ${formatShort(out.signed.tau)}`,
    ),
    rctV(
      "Table 3: SG-HMC₁ (L = 60) vs perturbed HMC-ECS",
      sg1P,
      [6.8, 9.5, 682.3],
      "paper's ε = 0.02",
    ),
    rctV(
      "Table 3: SG-HMC₂ (L = 7) vs perturbed HMC-ECS",
      sg2P,
      [48.6, 100.2, 246.7],
      "paper's ε = 0.02",
    ),
    rctV(
      "Table 3: SGLD vs perturbed HMC-ECS",
      sglP,
      [53.9, 230.1, 2784.2],
      `paper's ε = 2e-5 × 4.75e6/n, ε·λ_max = ${
        formatShort(((2e-5 * 4_748_089) / s.n) * out.conditioning.lambdaMax, 3)
      }`,
    ),
    {
      claim: "Figs. 4–5: HMC-ECS more accurate than SG-HMC₂ and SGLD",
      paper: "HMC-ECS accurate; SG-HMC₂, SGLD degraded",
      ours: `rms z(mean): perturbed ${formatShort(rms(errP))}, SG-HMC₂ ${
        formatShort(rms(errSg2))
      }, SGLD ${formatShort(rms(errSgl))}`,
      outcome: outcomeOf(
        rms(errP) < rms(errSg2) && rms(errP) < rms(errSgl),
        rms(errP) < rms(errSg2) || rms(errP) < rms(errSgl),
      ),
      reason:
        "threshold: perturbed HMC-ECS's rms z(mean) against full-data HMC below both (partly: below one); grid-tuned ε; one seed",
    },
    {
      claim: "Fig. 6: HMC-ECS and HMC predicted bankruptcy curves indistinguishable",
      paper: "indistinguishable",
      ours: `max shift ${formatShort(maxShift, 2)} of HMC's 90 % band width`,
      outcome: outcomeOf(maxShift < 0.5, maxShift < 1),
      reason: "threshold: largest mean-curve difference < 0.5 band widths (partly < 1)",
    },
  ];

  return { summary, tables, figures, comparison, verdicts };
}

/**
 * R4 — Tables 3–4 and Figs. 4–6 of the HMC-ECS paper on bankruptcy-shaped
 * data: RCT of signed HMC-ECS, SG-HMC (L = 1.2/ε and L matched) and SGLD
 * against perturbed HMC-ECS, the Table 4 summary, the bias against full-data
 * HMC, and predicted vs realised bankruptcy probability.
 *
 * @example
 * ```ts ignore
 * import { r4BankruptcyRct } from "./r4_bankruptcy_rct.ts";
 * const result = await r4BankruptcyRct.run({ quick: true, seed: 1, outDir: "out", log: console.error });
 * ```
 */
export const r4BankruptcyRct: Experiment = {
  name: "r4",
  title: "R4 — HMC-ECS vs SG-HMC/SGLD on bankruptcy-shaped data (Tables 3–4, Figs. 4–6)",
  source: "hmc-ecs_dang-2019.md §6.2–6.4, §6.6, Tables 3–4, Figs. 4–6",
  run: _run,
  units: _UNITS,
};
