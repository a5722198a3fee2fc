/**
 * One verdict on a run: did it converge, and if not, which parameters or
 * chains fail which check, the likely cause and what to do.
 *
 * Checks (Vehtari et al. 2021; Stan's defaults; Betancourt 2016):
 *
 * - R̂ (rank-normalised, folded) ≤ 1.01 for every parameter;
 * - bulk- and tail-ESS ≥ 100 per chain for every parameter;
 * - no divergent transition after warmup;
 * - E-BFMI ≥ 0.3 in every chain (when the run recorded energies);
 * - every chain ran to its end.
 *
 * Warmup divergences and a start search that did not reach a mode do not
 * fail a run by themselves; they are notes.
 *
 * References: Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021), §4–5;
 * Betancourt (2016), "Diagnosing suboptimal cotangent disintegrations in
 * Hamiltonian Monte Carlo" (E-BFMI); Stan Reference Manual, "Divergent
 * transitions".
 *
 * @module
 */
import { summarize, type SummaryRow } from "./summary.ts";

/** What {@link verdict} reads of a run (a `SamplingResult` has all of it). */
export interface VerdictRun {
  /** Parameter names. */
  readonly parameterNames: readonly string[];
  /** Per chain: draws, counts, per-iteration info, early stop and tuning. */
  readonly chains: readonly {
    readonly chainId?: number;
    readonly draws: readonly Float64Array[];
    readonly numDraws: number;
    readonly numDivergent?: { readonly warmup: number; readonly sampling: number };
    readonly info?: { readonly sampling: Readonly<Record<string, Float64Array>> };
    readonly stop?:
      | { readonly phase: string; readonly iteration: number; readonly reason: string }
      | null;
    readonly tuning?: Readonly<Record<string, unknown>>;
  }[];
}

/** Options of {@link verdict}. */
export interface VerdictOptions {
  /** Largest R̂ that passes (default 1.01). */
  rhatMax?: number;
  /** Smallest bulk- and tail-ESS per chain that passes (default 100). */
  essPerChainMin?: number;
  /** Smallest E-BFMI that passes (default 0.3). */
  ebfmiMin?: number;
  /** Summary rows already computed for these draws (default: computed here). */
  rows?: readonly SummaryRow[];
  /** The sampler's name, to tailor the fixes (e.g. `"rwmh"`). */
  sampler?: string;
}

/** The checks a run can fail. */
export type VerdictCheck = "stopped" | "rhat" | "ess" | "divergences" | "ebfmi";

/** One failed check. */
export interface VerdictProblem {
  /** Which check. */
  check: VerdictCheck;
  /** What failed, in one sentence (counts and the worst values). */
  what: string;
  /** Parameters that fail it, worst first (empty for chain-level checks). */
  parameters: string[];
  /** Chains that fail it (chain ids; empty for parameter-level checks). */
  chains: number[];
  /** The likely cause. */
  cause: string;
  /** What to do. */
  fix: string;
}

/** The verdict on a run. */
export interface Verdict {
  /** True when no check failed. */
  converged: boolean;
  /** The failed checks, in the order stopped, rhat, ess, divergences, ebfmi. */
  problems: VerdictProblem[];
  /**
   * Warnings that do not fail the run by themselves: the start search's
   * (naming the parameter that kept it from a mode), one per distinct text.
   */
  notes: string[];
  /** Number of chains with draws. */
  numChains: number;
  /** Largest finite R̂ over the parameters (−Infinity if none could be computed). */
  maxRhat: number;
  /** Smallest bulk-ESS over the parameters. */
  minEssBulk: number;
  /** Smallest tail-ESS over the parameters. */
  minEssTail: number;
  /** Divergent transitions after warmup, over the chains. */
  numDivergent: number;
  /** Divergent transitions in warmup, over the chains (a note, not a failure). */
  numWarmupDivergent: number;
  /** E-BFMI per chain (NaN where no energy was recorded). */
  ebfmi: number[];
}

/**
 * E-BFMI of one chain: Σ(Eₙ − Eₙ₋₁)² / Σ(Eₙ − Ē)².
 *
 * @param energy The total energy H after each sampling iteration.
 * @returns E-BFMI (NaN for fewer than 3 values or constant energy).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ebfmi } from "./verdict.ts";
 * assert.ok(Math.abs(ebfmi(new Float64Array([0, 1, 0, 1])) - 3) < 1e-12);
 * ```
 *
 * References: Betancourt (2016), §4.2.
 */
export function ebfmi(energy: ArrayLike<number>): number {
  const n = energy.length;
  if (n < 3) return NaN;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += energy[i] / n;
  let num = 0, den = 0;
  for (let i = 0; i < n; i++) {
    den += (energy[i] - mean) ** 2;
    if (i > 0) num += (energy[i] - energy[i - 1]) ** 2;
  }
  return den > 0 && Number.isFinite(num) ? num / den : NaN;
}

/**
 * The verdict on a run: R̂, bulk/tail ESS per chain, post-warmup
 * divergences, E-BFMI and early stops; start-search warnings as notes.
 *
 * @param run A sampling result (or anything with its fields).
 * @param options Thresholds, precomputed summary rows, the sampler's name.
 * @returns The verdict.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { verdict } from "./verdict.ts";
 * // Two chains stuck at different values: R̂ fails.
 * const a = new Float64Array(200).map((_, i) => Math.sin(i)), b = a.map((x) => x + 5);
 * const v = verdict({ parameterNames: ["mu"], chains: [{ draws: [a], numDraws: 200 }, { draws: [b], numDraws: 200 }] });
 * assert.equal(v.converged, false);
 * assert.equal(v.problems[0].check, "rhat");
 * assert.deepEqual(v.problems[0].parameters, ["mu"]);
 * ```
 *
 * References: Vehtari et al. (2021); Betancourt (2016).
 */
export function verdict(run: VerdictRun, options: VerdictOptions = {}): Verdict {
  const rhatMax = options.rhatMax ?? 1.01;
  const essPerChain = options.essPerChainMin ?? 100;
  const ebfmiMin = options.ebfmiMin ?? 0.3;
  const chains = run.chains.filter((c) => c.numDraws > 0);
  const ids = (cs: typeof run.chains) => cs.map((c, k) => c.chainId ?? k);
  const problems: VerdictProblem[] = [];
  // Samplers other than the HMC family: the fix is more iterations or hmc.
  const rwmh = options.sampler !== undefined && !/hmc/.test(options.sampler);
  const randomWalk = options.sampler !== undefined && /rwmh|naive/.test(options.sampler);

  const stopped = run.chains.filter((c) => c.stop != null);
  if (stopped.length > 0) {
    const s = stopped[0].stop!;
    problems.push({
      check: "stopped",
      what:
        `${stopped.length} of ${run.chains.length} chain(s) stopped early (first: at ${s.phase} iteration ${s.iteration}: ${s.reason})`,
      parameters: [],
      chains: ids(stopped),
      cause: "a step reached a non-finite log density or an error",
      fix: "check the data for extreme values and the priors for impropriety; lower --step-size",
    });
  }
  const startWarnings = [
    ...new Set(run.chains.flatMap((c) => {
      const w = c.tuning?.startWarning;
      return typeof w === "string" ? [w] : [];
    })),
  ];
  let rows: readonly SummaryRow[] = [];
  const len = chains.length === 0 ? 0 : Math.min(...chains.map((c) => c.numDraws));
  if (options.rows !== undefined) rows = options.rows;
  else if (len >= 4) {
    rows = summarize(
      chains.map((c) => c.draws.map((d) => d.subarray(0, len))),
      [...run.parameterNames],
    );
  }
  const numChains = chains.length;
  const minEss = essPerChain * Math.max(numChains, 1);
  const badRhat = rows.filter((r) => !(r.rhat <= rhatMax))
    .sort((a, b) =>
      (Number.isFinite(b.rhat) ? b.rhat : Infinity) - (Number.isFinite(a.rhat) ? a.rhat : Infinity)
    );
  if (len > 0 && len < 4) {
    problems.push({
      check: "ess",
      what: `only ${len} draws per chain: too few for any diagnostic`,
      parameters: [...run.parameterNames],
      chains: [],
      cause: "too few draws",
      fix: "run more draws (--samples)",
    });
  }
  if (badRhat.length > 0) {
    problems.push({
      check: "rhat",
      what: `R̂ > ${rhatMax} in ${badRhat.length} of ${rows.length} parameters (worst ${
        _fmt(badRhat[0].rhat)
      })`,
      parameters: badRhat.map((r) => r.name),
      chains: [],
      cause: numChains < 2
        ? "one chain only: R̂ compares its halves, which differ (the chain is still drifting)"
        : "the chains have not mixed: they explore different regions (warmup too short for the posterior's scales or correlations, a stuck chain, or several modes)",
      fix: rwmh
        ? "run many more iterations, or use --sampler hmc"
        : "run longer (--warmup, --samples); standardise columns with extreme values; with correlated parameters try --metric dense",
    });
  }
  const badEss = rows.filter((r) => !(r.essBulk >= minEss) || !(r.essTail >= minEss))
    .sort((a, b) =>
      _nanLow(Math.min(a.essBulk, a.essTail)) - _nanLow(Math.min(b.essBulk, b.essTail))
    );
  if (badEss.length > 0) {
    const w = badEss[0];
    problems.push({
      check: "ess",
      what:
        `bulk- or tail-ESS < ${minEss} (${essPerChain} per chain) in ${badEss.length} of ${rows.length} parameters (worst: bulk ${
          _fmtEss(w.essBulk)
        }, tail ${_fmtEss(w.essTail)})`,
      parameters: badEss.map((r) => r.name),
      chains: [],
      cause: randomWalk
        ? "random-walk proposals: draws are strongly autocorrelated"
        : rwmh
        ? "small steps relative to the posterior's scale: draws are strongly autocorrelated"
        : "strongly autocorrelated draws (correlated or badly scaled parameters, an unadapted metric) or too few draws",
      fix: rwmh
        ? "run more iterations (--samples), or use --sampler hmc"
        : "run more draws (--samples); with correlated parameters try --metric dense",
    });
  }
  let numDivergent = 0, numWarmupDivergent = 0;
  const divergentChains: number[] = [];
  run.chains.forEach((c, k) => {
    numDivergent += c.numDivergent?.sampling ?? 0;
    numWarmupDivergent += c.numDivergent?.warmup ?? 0;
    if ((c.numDivergent?.sampling ?? 0) > 0) divergentChains.push(c.chainId ?? k);
  });
  if (numDivergent > 0) {
    const total = chains.reduce((s, c) => s + c.numDraws, 0);
    problems.push({
      check: "divergences",
      what: `${numDivergent} divergent transition(s) after warmup (${
        (100 * numDivergent / Math.max(total, 1)).toFixed(1)
      }% of draws) in ${divergentChains.length} chain(s)`,
      parameters: [],
      chains: divergentChains,
      cause:
        "the step size is too large for regions of high curvature (a funnel, heavy tails, a weakly identified parameter): the draws may miss them",
      fix:
        "raise --target-acceptance (e.g. 0.95); give weakly identified parameters tighter priors; standardise extreme columns",
    });
  }
  const bfmi = run.chains.map((c) => {
    const e = c.info?.sampling?.energy;
    return e === undefined ? NaN : ebfmi(e.subarray(0, c.numDraws > 0 ? e.length : 0));
  });
  const lowBfmi = run.chains.flatMap((c, k) => bfmi[k] < ebfmiMin ? [c.chainId ?? k] : []);
  if (lowBfmi.length > 0) {
    const worst = Math.min(...bfmi.filter((b) => Number.isFinite(b)));
    problems.push({
      check: "ebfmi",
      what: `E-BFMI < ${ebfmiMin} in ${lowBfmi.length} chain(s) (lowest ${worst.toFixed(2)})`,
      parameters: [],
      chains: lowBfmi,
      cause:
        "momentum resampling moves the energy too little: heavy tails or a metric that fits the posterior badly",
      fix:
        "run a longer warmup; reparameterise (standardise columns, tighter priors on scale parameters)",
    });
  }
  const finite = (xs: number[]) => xs.filter((x) => Number.isFinite(x));
  return {
    converged: problems.length === 0,
    problems,
    notes: startWarnings.map((w) => `start search: ${w}`),
    numChains,
    maxRhat: finite(rows.map((r) => r.rhat)).reduce((a, b) => Math.max(a, b), -Infinity),
    minEssBulk: finite(rows.map((r) => r.essBulk)).reduce((a, b) => Math.min(a, b), Infinity),
    minEssTail: finite(rows.map((r) => r.essTail)).reduce((a, b) => Math.min(a, b), Infinity),
    numDivergent,
    numWarmupDivergent,
    ebfmi: bfmi,
  };
}

/**
 * The verdict as text: one line when converged, else one entry per failed
 * check with its parameters (at most `maxNames`, then "and N more"), cause
 * and fix; a note on warmup divergences.
 *
 * @param v The verdict.
 * @param options `maxNames` listed per check (default 6).
 * @returns Lines to print.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatVerdict, verdict } from "./verdict.ts";
 * const names = Array.from({ length: 1000 }, (_, j) => `b${j}`);
 * const chains = [0, 1].map((c) => ({ draws: names.map((_, j) => new Float64Array(8).fill(c + j)), numDraws: 8 }));
 * const lines = formatVerdict(verdict({ parameterNames: names, chains }));
 * assert.ok(lines.length < 20);
 * assert.match(lines.join("\n"), /and 99\d more/);
 * ```
 */
export function formatVerdict(v: Verdict, options: { maxNames?: number } = {}): string[] {
  const maxNames = options.maxNames ?? 6;
  const lines: string[] = [];
  if (v.converged) {
    lines.push(
      `verdict: converged (${v.numChains} chains; max R̂ ${_fmt(v.maxRhat)} ≤ 1.01, min ESS bulk ${
        _fmtEss(v.minEssBulk)
      } / tail ${_fmtEss(v.minEssTail)}, no divergences after warmup, E-BFMI ${
        v.ebfmi.some(Number.isFinite)
          ? `≥ ${Math.min(...v.ebfmi.filter(Number.isFinite)).toFixed(2)}`
          : "not recorded"
      })`,
    );
  } else {
    lines.push(`verdict: NOT converged: ${v.problems.length} check(s) failed`);
    for (const p of v.problems) {
      lines.push(`  - ${p.what}`);
      if (p.parameters.length > 0) {
        const shown = p.parameters.slice(0, maxNames).map((n) => JSON.stringify(n)).join(", ");
        const more = p.parameters.length - maxNames;
        lines.push(`    parameters: ${shown}${more > 0 ? `, and ${more} more` : ""}`);
      }
      if (p.chains.length > 0) {
        const shown = p.chains.slice(0, maxNames).join(", ");
        const more = p.chains.length - maxNames;
        lines.push(`    chains: ${shown}${more > 0 ? `, and ${more} more` : ""}`);
      }
      lines.push(`    likely cause: ${p.cause}`);
      lines.push(`    fix: ${p.fix}`);
    }
  }
  for (const note of v.notes) lines.push(`  note: ${note}`);
  if (v.numWarmupDivergent > 0) {
    lines.push(
      `  note: ${v.numWarmupDivergent} divergent transition(s) in warmup (expected while the step size adapts; they do not affect the draws)`,
    );
  }
  return lines;
}

function _fmt(x: number): string {
  return Number.isFinite(x) ? x.toFixed(3) : "NA";
}

function _fmtEss(x: number): string {
  // NA, as the summary table prints an undefined ESS (never "NaN" in output).
  return Number.isFinite(x) ? String(Math.round(x)) : "NA";
}

function _nanLow(x: number): number {
  return Number.isFinite(x) ? x : -Infinity;
}
