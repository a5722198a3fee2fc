/**
 * Likelihood and gradient estimators from data subsamples: Taylor control
 * variates, the difference estimator and its bias-corrected likelihood, the
 * block-Poisson estimator, block-updated subsample state, their tuning, and
 * the stochastic-gradient estimators with per-row gradient covariance.
 *
 * References: Dang et al. (2019), §4–5; Quiroz et al. (2019, 2018b);
 * Shang et al. (2015), eqs. 16–19.
 *
 * @module
 */
export * from "./control_variates.ts";
export * from "./difference_estimator.ts";
export * from "./block_poisson.ts";
export * from "./subsample_state.ts";
export * from "./tuning.ts";
export * from "./gradient_estimators.ts";
export * from "./gradient_covariance.ts";
export * from "./austerity.ts";
export * from "./subset_fit.ts";

// Types the signatures above mention, so that the documentation is complete.
export type { Arena } from "../core/arena.ts";
export type { CoreBackend } from "../core/load.ts";
export type { RowBuffer, SharedCache, StoredGlmData } from "../core/row_buffer.ts";
export type { GlmData, Storage } from "../data/dataset.ts";
export type { ExternalGlmModel } from "../models/external_glm.ts";
export type { GlmFamily, GlmModel, GlmModelFamily, GlmOptions } from "../models/glm.ts";
export type { CostCounter, DataModel, Model, PerRowHessianModel } from "../models/model.ts";
export type { NuPrior } from "../models/nu_prior.ts";
export type {
  CompactGlmRows,
  ExternalGlmRows,
  PerRowRows,
  SubsamplingRows,
  SubsamplingSupport,
} from "../models/subsampling_support.ts";
export type { ThreadedGlmModel } from "../models/threaded_glm.ts";
export type { ScalePrior } from "../models/priors.ts";
export type { Rng } from "../random/rng.ts";
