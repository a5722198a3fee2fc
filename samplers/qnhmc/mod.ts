/**
 * Quasi-Newton Hamiltonian Monte Carlo (Fu, Luo & Zhang 2016): the kernel,
 * the BFGS and L-BFGS inverse-Hessian approximations, the adoption of
 * curvature pairs, the registry entry and a run helper.
 *
 * ```
 *  inverse_hessian.ts  C: the interface, curvature pairs, sᵀy > 0
 *  bfgs.ts             dense BFGS, eq. (1)
 *  lbfgs.ts            L-BFGS, two-loop recursion, memory m
 *  kernel.ts           Params/State/Info, init, step (eq. 7, Algorithm 2)
 *  adaptation.ts       folding an accepted trajectory's pairs into C
 *  options.ts          QnhmcOptions
 *  chain_sampler.ts    the ChainSampler, qnhmcDescription
 *  run.ts              runQnhmc: chains through the run driver
 * ```
 *
 * @example
 * ```ts
 * import { runQnhmc } from "./mod.ts";
 * import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
 * const r = runQnhmc(gaussianTarget(new Float64Array(1), new Float64Array([1])), {
 *   seed: 1, numWarmup: 20, numSamples: 20, numChains: 1 });
 * if (r.draws[0][0].length !== 20) throw new Error();
 * ```
 *
 * @module
 */
export { adoptPendingPairs, type AdoptResult } from "./adaptation.ts";
export { denseBfgs, type DenseBfgsOptions, WASM_PRODUCT_MIN_DIM } from "./bfgs.ts";
export { qnhmcChainSampler, type QnhmcChainState, qnhmcDescription } from "./chain_sampler.ts";
export { type QnhmcOptions } from "./options.ts";
export {
  curvature,
  type CurvatureOptions,
  type CurvaturePair,
  type InverseHessian,
  type InverseHessianUpdate,
} from "./inverse_hessian.ts";
export { init, type QnhmcInfo, type QnhmcParams, type QnhmcState, step } from "./kernel.ts";
export { lbfgs, type LbfgsOptions } from "./lbfgs.ts";
export { runQnhmc, type RunQnhmcOptions } from "./run.ts";
