/**
 * The end of a run in the demo page's sampler worker (worker.ts): what the
 * "done" message carries — per-chain reports, the summary (sign-corrected
 * for signed HMC-ECS, Dang et al. 2019, eq. 17), the verdict in the page's
 * words with a line on very low acceptance, the draws as CSV, and the
 * posterior predictive check's figure data.
 *
 * @module
 */
import {
  type ChainOutput,
  formatDrawsCsv,
  formatVerdict,
  type GlmModel,
  summarize,
  verdict,
} from "../mod.ts";
import { posteriorPredictiveCheck } from "../models/ppc.ts";
import { pageWords } from "./page_words.ts";
import type { ChainReport, Cost, DoneMessage, PpcView, RunRequest } from "./protocol.ts";

/**
 * The end of a run as the page shows it: per-chain reports, the summary
 * (sign-corrected for signed HMC-ECS), the verdict with a line on very low
 * acceptance, the draws as CSV and the posterior predictive check.
 *
 * @param request The run.
 * @param glm The GLM (for the predictive check).
 * @param names The parameter names.
 * @param outputs The chains, in chain order.
 * @param cost The rows evaluated by all chains.
 * @returns The "done" message.
 */
export function doneMessage(
  request: RunRequest,
  glm: GlmModel,
  names: string[],
  outputs: ChainOutput[],
  cost: Cost,
): DoneMessage {
  const signed = request.sampler === "hmc-ecs" && request.options.variant === "signed";
  const chains: ChainReport[] = outputs.map((c) => {
    const acc = c.info.sampling.acceptanceRate ?? c.info.sampling.isAccepted;
    let meanAcc = NaN;
    if (acc !== undefined && acc.length > 0) {
      meanAcc = acc.reduce((s, a) => s + a, 0) / acc.length;
    }
    return {
      warmup: { ...c.cost.warmup },
      sampling: { ...c.cost.sampling },
      wallTimeMs: c.wallTimeMs,
      stepSize: Number(c.tuning.stepSize),
      acceptanceRate: meanAcc,
      numDivergent: c.numDivergent.sampling,
      stop: c.stop?.reason ?? null,
    };
  });
  // A chain that stopped early has fewer draws: summarise the common length.
  const numDraws = Math.min(...outputs.map((c) => c.numDraws));
  const draws = outputs.map((c) => c.draws.map((p) => p.subarray(0, numDraws)));
  // Signed HMC-ECS: sign-corrected means and sds (eq. 17). Thinning is 1, so
  // draw k is sampling iteration k.
  const signs = signed && outputs.every((c) => c.info.sampling.sign !== undefined)
    ? outputs.map((c) => c.info.sampling.sign.subarray(0, numDraws))
    : undefined;
  const summary = numDraws >= 4 ? summarize(draws, names, { signs }) : [];
  const v = verdict({ parameterNames: names, chains: outputs }, {
    sampler: request.sampler,
    rows: summary.length > 0 ? summary : undefined,
  });
  let negatives = 0, numSigns = 0;
  for (const s of signs ?? []) {
    for (const x of s) negatives += x < 0 ? 1 : 0;
    numSigns += s.length;
  }
  return {
    type: "done",
    summary,
    chains,
    cost,
    csv: formatDrawsCsv({
      parameterNames: names,
      draws,
      extra: signs === undefined ? {} : { sign: signs },
    }),
    converged: v.converged,
    verdict: [...formatVerdict(v), ..._acceptanceLines(chains, request.sampler)].map(pageWords),
    negativeSignShare: signs === undefined || numSigns === 0 ? null : negatives / numSigns,
    ppc: numDraws >= 4 ? _ppc(glm, draws, names) : null,
  };
}

/** The posterior predictive check's figure data, on at most 20 000 rows and 100 draws. */
function _ppc(glm: GlmModel, draws: Float64Array[][], names: string[]): PpcView | null {
  try {
    const r = posteriorPredictiveCheck(glm, draws, {
      parameterNames: names,
      numDraws: 100,
      maxRows: 20_000,
      numOverlay: 20,
    });
    return {
      family: r.family,
      numRows: r.numRows,
      numRowsTotal: r.numRowsTotal,
      numDraws: r.numDraws,
      statistics: r.statistics,
      calibration: r.calibration,
      rootogram: r.rootogram,
      density: r.density === null ? null : {
        x: Array.from(r.density.x),
        observed: Array.from(r.density.observed),
        replicated: r.density.replicated.map((d) => Array.from(d)),
      },
    };
  } catch {
    return null;
  }
}

/**
 * A line on acceptance far below what the sampler aims at (most proposals
 * rejected: the chain barely moves), which the verdict's checks only see
 * indirectly through R̂ and ESS.
 */
function _acceptanceLines(chains: ChainReport[], sampler: string): string[] {
  const low = chains.flatMap((c, i) => c.acceptanceRate < 0.1 ? [[i + 1, c.acceptanceRate]] : []);
  if (low.length === 0) return [];
  const worst = Math.min(...low.map(([, a]) => a));
  const rw = /rwmh|austerity/.test(sampler);
  return [
    `  - acceptance < 0.10 in ${low.length} of ${chains.length} chain(s) (lowest ${
      worst.toFixed(3)
    })`,
    `    chains: ${low.map(([i]) => i).join(", ")}`,
    `    likely cause: ${
      rw
        ? "the proposal scale is too large for the posterior (warmup too short to adapt it)"
        : "the step size is too large for the posterior's curvature"
    }, so almost every proposal is rejected and the chain barely moves`,
    `    fix: ${
      rw
        ? "a longer Warmup, a smaller scale, or the hmc sampler"
        : "a longer Warmup, a smaller stepSize, or a higher targetAcceptanceRate"
    }`,
  ];
}
