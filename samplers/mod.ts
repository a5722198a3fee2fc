/**
 * Samplers of tallmc: kernels, integrators, metrics and adaptation.
 *
 * Kernel modules share one shape (`State`, `Info`, `init`, `step`) and are
 * re-exported as namespaces: `hmc`, `rwmh`, `dualAveraging`. Building blocks
 * are re-exported flat.
 *
 * @module
 */
export * as hmc from "./hmc.ts";
export * as rwmh from "./rwmh.ts";
export * as dualAveraging from "./dual_averaging.ts";
export * from "./integrators.ts";
export * from "./metric.ts";
export * from "./linalg.ts";
export * from "./mass_matrix_adaptation.ts";
export * from "./hmc_warmup.ts";
export * from "./scale_adaptation.ts";
// Types the API mentions, re-exported flat so that documentation tools see them.
export type { HmcInfo, HmcParams, HmcState } from "./hmc.ts";
export type { LogDensityFn, RwmhInfo, RwmhParams, RwmhState } from "./rwmh.ts";
export type {
  DualAveragingOptions,
  DualAveragingState,
  FindStepSizeOptions,
} from "./dual_averaging.ts";
export type { CostCounter, DataModel, Model } from "../models/model.ts";
export type { Rng } from "../random/rng.ts";
