/**
 * Options of the stochastic-gradient samplers ({@link SgSamplerOptions}); the
 * defaults per sampler are in chain_sampler.ts's table.
 *
 * @module
 */
import type { TaylorOrder } from "../../subsampling/control_variates.ts";

/** Options of the SG registry entries (each entry lists the ones it reads). */
export interface SgSamplerOptions {
  /** ε (SGLD, SG-HMC) or h (SGNHT, CCAdL); default in the module table. */
  stepSize?: number;
  /** Minibatch size m (default max(100, ⌈n/100⌉), capped at n). */
  batchSize?: number;
  /** Use control-variate gradients (default true for sgld/sghmc, false for sgnht/ccadl). */
  controlVariates?: boolean;
  /** Taylor order of a GLM's control variates (default 2). */
  controlVariateOrder?: TaylorOrder;
  /** Friction: C = c·I for SG-HMC (default 1), A for SGNHT/CCAdL (default 10). */
  friction?: number;
  /** Leapfrog steps per SG-HMC iteration (default ⌈1.2/ε⌉). */
  numIntegrationSteps?: number;
  /** Thermal mass μ of SGNHT/CCAdL (default d). */
  thermalMass?: number;
  /** Expansion point θ* and start (default: subset MAP for a GLM; required otherwise). */
  thetaStar?: Float64Array;
  /** |θⱼ| or |pⱼ| above this is a divergence (default 1e8). */
  explosionBound?: number;
}
