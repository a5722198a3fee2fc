/**
 * The warnings of a posterior summary row (diagnostics/summary.ts) in words:
 * why a diagnostic is NaN (posterior's NA rules, listed in summary.ts), an
 * ESS capped at S·log₁₀(S), chains that are constant while others vary, and
 * chains stuck at different values.
 *
 * @module
 */

import type { SummaryDiagnostic, SummaryNaReason, SummaryRow } from "./summary.ts";

const _DIAGNOSTIC_LABELS: Record<SummaryDiagnostic, string> = {
  essBulk: "ess_bulk",
  essTail: "ess_tail",
  rhat: "rhat",
  mcseMean: "mcse_mean",
};

/**
 * Warning sentences for a row's NaN diagnostics, capped ESS, constant chains
 * and an infinite R̂, each naming the parameter.
 *
 * @param reasons Why each NaN diagnostic is NaN.
 * @param row The row (its R̂ and ESS values).
 * @param info The parameter's name, draws per chain, whether every (split)
 *   chain is constant at different values, the constant chains and the
 *   pooled draws sorted.
 * @returns The sentences, in the order reasons, cap, constant chains, stuck.
 */
export function summaryWarnings(
  reasons: Partial<Record<SummaryDiagnostic, SummaryNaReason>>,
  row: SummaryRow,
  info: {
    name: string;
    n: number;
    stuck: boolean;
    constantChains: number[];
    sorted: Float64Array;
  },
): string[] {
  const label = `parameter ${JSON.stringify(info.name)}`;
  const byReason = new Map<SummaryNaReason, string[]>();
  for (const key of Object.keys(_DIAGNOSTIC_LABELS) as SummaryDiagnostic[]) {
    const reason = reasons[key];
    if (reason === undefined) continue;
    if (!byReason.has(reason)) byReason.set(reason, []);
    byReason.get(reason)!.push(_DIAGNOSTIC_LABELS[key]);
  }
  const out: string[] = [];
  for (const [reason, keys] of byReason) {
    const list = keys.length === 1
      ? keys[0]
      : `${keys.slice(0, -1).join(", ")} and ${keys[keys.length - 1]}`;
    const verb = keys.length === 1 ? "is" : "are";
    const why = reason === "non_finite"
      ? `some draws are NaN or infinite (the sampler diverged or the draws file has bad values)`
      : reason === "too_short"
      ? `each chain has only ${info.n} draw${info.n === 1 ? "" : "s"} (${
        keys.includes("rhat")
          ? "R̂ needs at least 4 draws per chain, the ESS and MCSE 6"
          : "the ESS and MCSE need at least 6 draws per chain"
      })`
      : reason === "constant"
      ? `${_constantDescription(info.sorted)}; if the parameter is not meant to be constant, ` +
        `the sampler is stuck`
      : reason === "constant_indicator"
      ? `I(x ≤ q5) or I(x ≤ q95) is the same for every draw (few distinct values, or many ` +
        `draws at the extreme ${_distinct(info.sorted, 2)})`
      : `the draws folded about their median are all equal (two values symmetric about it)`;
    out.push(`${label}: ${list} ${verb} NaN because ${why}`);
  }
  // posterior 1.7.1 warns "The ESS has been capped to avoid unstable
  // estimates." when τ̂ hits its floor 1/log₁₀(S) (the same expression as
  // _ess, so the comparison is exact).
  const total = info.sorted.length;
  const cap = total / (1 / Math.log10(total));
  const capped = (["essBulk", "essTail"] as const).filter((k) => row[k] === cap);
  if (capped.length > 0) {
    out.push(
      `${label}: ${capped.map((k) => _DIAGNOSTIC_LABELS[k]).join(" and ")} ${
        capped.length === 1 ? "was" : "were"
      } capped at S·log₁₀(S) = ${cap.toFixed(0)} to avoid an unstable estimate ` +
        `(strongly anticorrelated draws)`,
    );
  }
  if (info.constantChains.length > 0 && !info.stuck) {
    const k = info.constantChains;
    out.push(
      `${label}: chain${k.length === 1 ? "" : "s"} ${k.join(", ")} ${
        k.length === 1 ? "is" : "are"
      } constant while others vary; ${k.length === 1 ? "that chain" : "those chains"} may be stuck`,
    );
  }
  if (info.stuck) {
    out.push(
      `${label}: every ${info.n >= 4 ? "half-chain" : "chain"} is constant but they sit at ` +
        `different values (${_distinct(info.sorted).replaceAll(" or ", ", ")}), so rhat is ${
          Number.isNaN(row.rhat) ? "NaN" : "infinite"
        }; the sampler is stuck`,
    );
  }
  return out;
}

function _constantDescription(sorted: Float64Array): string {
  const lo = sorted[0], hi = sorted[sorted.length - 1];
  return lo === hi
    ? `all ${sorted.length} draws equal ${lo}`
    : `all ${sorted.length} draws lie within machine epsilon of each other (${lo} to ${hi})`;
}

/** The distinct values of sorted draws for messages: all of up to 4, else the extremes. */
function _distinct(sorted: Float64Array, extremes = 4): string {
  const values: number[] = [];
  for (let i = 0; i < sorted.length && values.length <= extremes; i++) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) values.push(sorted[i]);
  }
  return values.length <= extremes
    ? values.join(" or ")
    : `${sorted[0]} or ${sorted[sorted.length - 1]}`;
}
