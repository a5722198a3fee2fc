/**
 * The three samplers the CCAdL paper compares (its Table 1 and Figs. 1–2,
 * replicated by R9 and R10), built the paper's way: SGHMC as one leapfrog
 * step per iteration without momentum refreshment, SGNHT with its scalar
 * thermostat, CCAdL with the full covariance estimate of the gradient noise.
 *
 * References: Shang, Zhu, Leimkuhler & Storkey (2015) "Covariance-controlled
 * adaptive Langevin thermostat for large-scale Bayesian sampling", NIPS, §4–5;
 * Chen, Fox & Guestrin (2014); Ding et al. (2014).
 *
 * @module
 */
import * as ccadl from "../samplers/ccadl/kernel.ts";
import type { ChainSampler, StepInfo } from "../samplers/sampler.ts";
import * as sghmc from "../samplers/sghmc/kernel.ts";
import * as sgnht from "../samplers/sgnht/kernel.ts";
import type { SgnhtParams } from "../samplers/sgnht/kernel.ts";

/** The methods of the CCAdL paper's comparisons, in its order. */
export const CCADL_METHODS = ["SGHMC", "SGNHT", "CCAdL"] as const;

/** One of {@link CCADL_METHODS}. */
export type CcadlMethod = typeof CCADL_METHODS[number];

/**
 * A sampler of the CCAdL paper's comparison with the shared settings `base`
 * (estimator, step size h, friction A, optional bounds).
 *
 * @param method Which of the three.
 * @param base The parameters the three share.
 * @returns The chain sampler for the driver.
 */
export function ccadlComparisonSampler(
  method: CcadlMethod,
  base: SgnhtParams,
): ChainSampler<unknown, StepInfo> {
  const s = method === "SGHMC"
    ? sghmc.sampler({ ...base, resampleMomentum: false, numIntegrationSteps: 1 })
    : method === "SGNHT"
    ? sgnht.sampler(base)
    : ccadl.sampler({ ...base, covariance: "full" });
  return s as unknown as ChainSampler<unknown, StepInfo>;
}
