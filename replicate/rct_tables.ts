/**
 * The tables of the HMC-ECS cost comparisons R2 and R4: RCT against perturbed
 * HMC-ECS beside the paper's Table 1 / Table 3, the HMC-ECS settings beside
 * Table 2 / Table 4, the bias of every method against full-data HMC, the SG
 * step-size grids and wall times.
 *
 * References: Dang, Quiroz, Kohn, Tran & Villani (2019), JMLR 20, Tables 1–4.
 *
 * @module
 */
import type { ComparisonOutcome } from "./comparison.ts";
import type { ResultTable } from "./experiment.ts";
import { formatShort } from "./format.ts";
import {
  meanInefficiency,
  medianInefficiency,
  rctOf,
  rctPaper,
  rctSamplingOnly,
} from "./method_outcome.ts";
import { momentErrors, monteCarloFloor } from "./moment_errors.ts";

/** Cells of a row (strings, numbers, null). */
type _Row = (string | number | null)[];

/** A stage of an experiment and its wall time. */
export interface StageTime {
  /** What ran. */
  stage: string;
  /** Wall seconds. */
  seconds: number;
}

const _BIAS_CAPTION =
  "Bias against full-data HMC in posterior-sd units: z(mean) = (μ̂ − μ_HMC)/σ_HMC, z(sd) = (σ̂ − σ_HMC)/σ_HMC over all parameters; the MC floor is the rms z(mean) that Monte Carlo error of both runs alone gives.";

/**
 * The bias table: every method's moment errors against full-data HMC, with
 * the Monte Carlo floor of each.
 *
 * @param outcome The comparison's outcome.
 * @param options `note`: a sentence appended to the caption.
 * @returns The table.
 */
export function biasTable(
  outcome: ComparisonOutcome,
  options: { note?: string } = {},
): ResultTable {
  return {
    name: "bias",
    caption: options.note === undefined ? _BIAS_CAPTION : `${_BIAS_CAPTION} ${options.note}`,
    columns: [..._BIAS_COLUMNS],
    rows: _biasRows(outcome),
  };
}

/**
 * The step-size grid table of the SG methods.
 *
 * @param outcome The comparison's outcome.
 * @param caption What the grid was (budget, m, how ε is scaled).
 * @returns The table.
 */
export function stepSizeGridTable(outcome: ComparisonOutcome, caption: string): ResultTable {
  return { name: "step_size_grid", caption, columns: [..._GRID_COLUMNS], rows: _gridRows(outcome) };
}

/**
 * The wall-time table: the experiment's own stages around the comparison's.
 *
 * @param outcome The comparison's outcome.
 * @param stages Stages run `before` and `after` the comparison, and the
 *   experiment's `totalSeconds`.
 * @returns The table.
 */
export function timingTable(
  outcome: ComparisonOutcome,
  stages: { before: StageTime[]; after: StageTime[]; totalSeconds: number },
): ResultTable {
  const all = [...stages.before, ...outcome.timings, ...stages.after];
  return {
    name: "timings",
    caption: `Wall time per stage (seconds); total ${formatShort(stages.totalSeconds, 3)} s.`,
    columns: ["stage", "seconds"],
    rows: [...all.map((t): _Row => [t.stage, t.seconds]), ["total", stages.totalSeconds]],
  };
}

function _biasRows(outcome: ComparisonOutcome): _Row[] {
  const ref = outcome.reference;
  const rows: _Row[] = [];
  for (
    const o of [outcome.perturbed, outcome.signed, outcome.perturbedPaperWarmup, ...outcome.sg]
  ) {
    if (o.unstable) {
      rows.push([o.label, "diverged", null, null, null, null, null, null]);
      continue;
    }
    const e = momentErrors(o.moments, ref.moments);
    rows.push([
      o.label,
      o.settings,
      e.rmsMean,
      e.maxMean,
      monteCarloFloor(o, ref),
      e.rmsSd,
      e.maxSd,
      e.combined,
    ]);
  }
  return rows;
}

const _BIAS_COLUMNS: readonly string[] = [
  "method",
  "settings",
  "rms z(mean)",
  "max |z(mean)|",
  "MC floor of rms z(mean)",
  "rms z(sd)",
  "max |z(sd)|",
  "combined error E",
];

function _gridRows(outcome: ComparisonOutcome): _Row[] {
  return outcome.grid.map((g) => [
    g.label,
    g.stepSize,
    Number.isFinite(g.relative) ? g.relative : null,
    g.numSteps,
    g.iterations,
    g.evaluations,
    g.errors?.rmsMean ?? null,
    g.errors?.rmsSd ?? null,
    g.errors?.combined ?? null,
    Number.isFinite(g.medianIf) ? g.medianIf : null,
    g.errors === null ? "unstable" : g.chosen ? "**chosen**" : "",
  ]);
}

const _GRID_COLUMNS: readonly string[] = [
  "method",
  "ε",
  "ε·λ_max",
  "L",
  "iterations",
  "gradient evaluations",
  "rms z(mean)",
  "rms z(sd)",
  "E",
  "median IF",
  "",
];

/** A paper's min / median / max RCT per method key. */
export type PaperRct = Record<string, readonly [number, number, number]>;

/** One column of a paper's HMC-ECS settings table (Table 2 / Table 4). */
export interface PaperEcsColumn {
  /** α_θ,p. */
  acc: number;
  /** α_u. */
  accU: number;
  /** L. */
  L: number;
  /** Mean IF. */
  IF: number;
  /** ESS. */
  ESS: number;
  /** τ̂. */
  tau: number;
  /** 100·m/n. */
  pct: number;
}

/** A paper's HMC-ECS settings table: perturbed, signed and the HMC benchmark. */
export interface PaperEcsTable {
  /** Perturbed HMC-ECS. */
  perturbed: PaperEcsColumn;
  /** Signed HMC-ECS. */
  signed: PaperEcsColumn;
  /** Full-data HMC (from the table's caption). */
  hmc: PaperEcsColumn;
}

/**
 * The RCT table (the paper's Table 1 / Table 3): min / median / max RCT against
 * perturbed HMC-ECS per method, the paper's values beside ours, the RCT with
 * HMC-ECS charged post-warmup only, and each method's bias against full-data HMC.
 *
 * @param out The comparison's outcome.
 * @param options Table `name`, `title` (caption prefix) and the paper's values.
 * @returns The table.
 */
export function rctTable(
  out: ComparisonOutcome,
  options: { name: string; title: string; paper: PaperRct },
): ResultTable {
  const p = out.perturbed;
  const rows: (string | number | null)[][] = [];
  for (const o of [out.signed, out.perturbedPaperWarmup, ...out.sg, out.reference]) {
    const paper = options.paper[o.key] ?? [null, null, null];
    if (o.unstable) {
      rows.push([
        o.label,
        o.settings,
        null,
        null,
        null,
        ...paper,
        null,
        null,
        null,
        null,
        o.evaluations,
        null,
        null,
        o.tau,
      ]);
      continue;
    }
    const r = rctPaper(o, p), perDraw = rctOf(o, p), alt = rctSamplingOnly(o, p);
    const e = momentErrors(o.moments, out.reference.moments);
    const meanIf = meanInefficiency(o);
    rows.push([
      o.label,
      o.settings,
      r.min,
      r.median,
      r.max,
      ...paper,
      perDraw.median,
      alt.median,
      o.key === "hmc" ? null : e.rmsMean,
      o.key === "hmc" ? null : e.rmsSd,
      o.evaluations,
      o.inefficiencyUnthinned
        ? o.inefficiencyUnthinned.reduce((a, b) => a + b, 0) / o.inefficiencyUnthinned.length
        : null,
      meanIf,
      o.tau,
    ]);
  }
  return {
    name: options.name,
    caption:
      `${options.title} — RCT against perturbed HMC-ECS (min / median / max over the ${p.inefficiency.length} parameters) under the paper's eq. 2: CT = IF/(2τ̂−1)² × evaluations of the run, HMC-ECS and HMC charged their whole run incl. tuning, SG methods post burn-in only, SGLD's IF from its unthinned chain of L × R iterations; paper values beside ours. "median RCT per kept draw" divides CT by the kept draws (SGLD thinned by L); "median RCT (ECS post-warmup)" charges HMC-ECS its sampling phase only (per kept draw); rms z = bias vs full-data HMC in posterior sds.`,
    columns: [
      "method",
      "settings",
      "RCT min",
      "RCT median",
      "RCT max",
      "paper min",
      "paper median",
      "paper max",
      "median RCT per kept draw",
      "median RCT (ECS post-warmup)",
      "rms z(mean)",
      "rms z(sd)",
      "evaluations",
      "mean IF (unthinned chain)",
      "mean IF",
      "τ̂",
    ],
    rows,
  };
}

/**
 * The HMC-ECS settings and efficiency table (the paper's Table 2 / Table 4),
 * sampling phase, paper values beside ours.
 *
 * @param out The comparison's outcome.
 * @param options Table `name`, `title`, data size `n`, the paper's values and its ε (NaN if unreported).
 * @returns The table.
 */
export function ecsSettingsTable(
  out: ComparisonOutcome,
  options: { name: string; title: string; n: number; paper: PaperEcsTable; paperStepSize: number },
): ResultTable {
  const s = out.ecsSummary;
  const P = options.paper;
  const row = (
    what: string,
    get: (x: typeof s.perturbed) => number,
    paper: (x: PaperEcsColumn) => number,
  ) =>
    [
      what,
      get(s.perturbed),
      paper(P.perturbed),
      get(s.signed),
      paper(P.signed),
      get(s.reference),
      paper(P.hmc),
    ].map((v) => (typeof v === "number" && Number.isNaN(v) ? null : v));
  return {
    name: options.name,
    caption:
      `${options.title} — settings and efficiency of HMC-ECS (sampling phase, n = ${options.n}); paper values beside ours (HMC's from the caption of ${options.title}).`,
    columns: [
      "quantity",
      "perturbed (ours)",
      "perturbed (paper)",
      "signed (ours)",
      "signed (paper)",
      "HMC (ours)",
      "HMC (paper)",
    ],
    rows: [
      row("α_θ,p", (x) => x.acceptance, (x) => x.acc),
      row("α_u", (x) => x.subsampleAcceptance, (x) => x.accU),
      row("ε", (x) => x.stepSize, () => options.paperStepSize),
      row("L", (x) => x.numSteps, (x) => x.L),
      row("IF (mean)", (x) => x.meanIf, (x) => x.IF),
      row("ESS = R/IF", (x) => x.ess, (x) => x.ESS),
      row("τ̂", (x) => x.tau, (x) => x.tau),
      row("100·m/n", (x) => x.percentRows, (x) => x.pct),
      row("σ̂²(ℓ̂) or Var log|L̂| (in-run median)", (x) => x.logLikelihoodVariance, () => NaN),
    ],
  };
}

/**
 * Median RCT per seed (the paper's convention) for every SG method, with the
 * mean ± sd over seeds beside the paper's median: the error bars behind the
 * RCT verdicts.
 *
 * @param out The comparison's outcome (`seedRct`).
 * @param options Table `name`, `title` (caption prefix) and the paper's values.
 * @returns The table.
 */
export function seedRctTable(
  out: ComparisonOutcome,
  options: { name: string; title: string; paper: PaperRct },
): ResultTable {
  const labels = new Map(out.sg.map((o) => [o.key, o.label]));
  const rows = Object.entries(out.seedRctPaper).map(([key, values]) => {
    const finite = values.filter(Number.isFinite);
    const mean = finite.length ? finite.reduce((a, b) => a + b, 0) / finite.length : NaN;
    const sd = finite.length > 1
      ? Math.sqrt(finite.reduce((a, b) => a + (b - mean) ** 2, 0) / (finite.length - 1))
      : NaN;
    return [
      labels.get(key) ?? key,
      options.paper[key]?.[1] ?? null,
      mean,
      sd,
      values.map((v) => formatShort(v)).join(", "),
      (out.seedRct[key] ?? []).map((v) => formatShort(v)).join(", "),
    ];
  });
  const numSeeds = Math.max(0, ...Object.values(out.seedRct).map((v) => v.length));
  return {
    name: options.name,
    caption:
      `${options.title} over seeds: median RCT against perturbed HMC-ECS under eq. 2 (HMC-ECS charged its whole run, SG methods post burn-in, SGLD's IF from its unthinned chain) for ${numSeeds} seed(s), and per kept draw; each further seed re-runs perturbed HMC-ECS and the SG method with new streams at the same ε.`,
    columns: [
      "method",
      "paper median",
      "ours mean",
      "ours sd",
      "per seed",
      "per seed, per kept draw",
    ],
    rows,
  };
}

/**
 * The conditioning table: eigenvalues of the per-row Fisher information at
 * θ* and, for every SG method, ε·λ_max and ε·λ_min — of −∇²log π(θ*) for SGLD
 * (unpreconditioned: stable for ε·λ_max < 4, slowest direction mixing in
 * ≈ 2/(ε·λ_min) iterations), of M⁻¹(−∇²log π(θ*)) = I for SG-HMC with
 * M = −∇²log π(θ*) (so ε·λ = ε in every direction).
 *
 * @param out The comparison's outcome.
 * @param options The paper's n and the paper's ε of the variants run at it.
 * @returns The table.
 */
export function conditioningTable(
  out: ComparisonOutcome,
  options: { paperRows: number; paperStepSizes: Record<string, number> },
): ResultTable {
  const c = out.conditioning;
  const rows: _Row[] = [
    [
      "per-row information",
      "λ_max, λ_min, condition number",
      c.perRowMax,
      c.perRowMin,
      c.conditionNumber,
      null,
      null,
    ],
  ];
  for (const o of out.sg) {
    const eps = Number(o.settings.match(/ε = ([0-9.e+-]+)/)?.[1]);
    const sgld = o.key.startsWith("sgld");
    const paperEps = options.paperStepSizes[o.key];
    rows.push([
      o.label,
      sgld ? "ε·λ of −∇²log π(θ*)" : "ε·λ of M⁻¹(−∇²log π(θ*)) = ε",
      sgld ? eps * c.lambdaMax : eps,
      sgld ? eps * c.lambdaMin : eps,
      eps,
      paperEps ?? null,
      o.unstable ? null : medianInefficiency(o),
    ]);
  }
  return {
    name: "conditioning",
    caption:
      `Conditioning at θ* (the SG methods' centre): eigenvalues of the per-row Fisher information −∇²log L(θ*)/n (n = ${c.numRows}; the paper's n = ${options.paperRows}) and ε·λ_max, ε·λ_min of every SG method. SGLD at the paper's ε scaled by n_paper/n has the paper's ε·λ when the per-row information is the paper's: ε·λ_max = ε_paper · n_paper · λ_max(per row). SGLD is stable for ε·λ_max < 4 and its slowest direction decorrelates in ≈ 2/(ε·λ_min) iterations.`,
    columns: [
      "",
      "what",
      "ε·λ_max (or λ_max)",
      "ε·λ_min (or λ_min)",
      "ε (or condition number)",
      "paper's ε",
      "median IF (kept draws)",
    ],
    rows,
  };
}
