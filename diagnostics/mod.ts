/**
 * MCMC output diagnostics on plain arrays: effective sample sizes, R̂ and
 * Monte Carlo standard errors (Vehtari et al. 2021, as the `posterior` R
 * package), inefficiency factors and computational time (coda's AR-spectrum
 * ESS; Dang et al. 2019), sign-corrected moments of signed draws,
 * autocorrelations and autocorrelation times, a Stan-style summary table,
 * kernel density estimates, ROC/AUC and covariance ellipses.
 *
 * One chain is an `ArrayLike<number>`; several chains of one parameter are an
 * array of equally long chains. Inputs with NaN or ±Infinity, too few draws or
 * unequal chain lengths are rejected with a RangeError or TypeError that names
 * the offending value.
 *
 * @example
 * ```ts
 * import { essBulk, rhat, summarize } from "./mod.ts";
 * import { strict as assert } from "node:assert";
 *
 * const chain = (k: number) => Array.from({ length: 200 }, (_, i) => Math.sin(i * k));
 * const chains = [chain(1.1), chain(2.3), chain(0.7), chain(1.9)];
 * assert.ok(essBulk(chains) > 100);
 * assert.ok(rhat(chains) < 1.05);
 * assert.equal(summarize([[chains[0]], [chains[1]]])[0].name, "theta[0]");
 * ```
 *
 * @module
 */

export { autocorrelation, autocovariance, type AutocovarianceOptions } from "./fft.ts";
export {
  essBasic,
  type EssBasicOptions,
  essBulk,
  essMean,
  essQuantile,
  essSd,
  essTail,
} from "./ess.ts";
export { rhat, rhatBasic, type RhatBasicOptions } from "./rhat.ts";
export { mcseMean, mcseQuantile, mcseSd } from "./mcse.ts";
export {
  type ArSpectrum,
  effectiveSizeAr,
  inefficiencyFactor,
  spectrum0Ar,
} from "./inefficiency.ts";
export {
  computationalTime,
  type ComputationalTimeOptions,
  type RctSummary,
  relativeComputationalTime,
  relativeComputationalTimeSummary,
  type SamplerCost,
} from "./computational_time.ts";
export {
  signCorrectedMean,
  type SignCorrectedSummary,
  signCorrectedSummary,
  signCorrectedVariance,
} from "./sign_corrected.ts";
export {
  type FormatSummaryOptions,
  formatSummaryTable,
  summarize,
  type SummarizeOptions,
  type SummaryDiagnostic,
  type SummaryNaReason,
  type SummaryRow,
  summaryToCsv,
} from "./summary.ts";
export { kde, type KdeOptions, type KdeResult, silvermanBandwidth } from "./kde.ts";
export { rocAuc, type RocCurve, rocCurve } from "./roc.ts";
export { quantile, quantiles } from "./quantile.ts";
export { type CovarianceEllipse, covarianceEllipse, type EllipseOptions } from "./ellipse.ts";
export {
  type AutocorrelationTimeOptions,
  integratedAutocorrelationTime,
  integratedAutocorrelationTimes,
} from "./acf_time.ts";
