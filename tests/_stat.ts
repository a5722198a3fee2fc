/**
 * The statistical tolerances every test uses: bands derived from Monte Carlo
 * standard errors, applied only after checking the effective sample size the
 * band relies on.
 *
 * ```
 *  mean:  |μ̂ − μ|  ≤ z · √(MCSE² + σ_ref²)          MCSE = posterior's mcse_mean
 *  sd:    |σ̂ − σ|  ≤ z · √(MCSE_sd² + σ_ref,sd²)     MCSE_sd = posterior's mcse_sd
 * ```
 *
 * z = 4 by default: a two-sided normal tail of 6e-5 per comparison, so a
 * correct sampler fails a file of ~100 comparisons about once in 150 runs of
 * fresh seeds (never, with the fixed seeds the tests use), while an error of a
 * few MCSE is caught. Before a band is applied, bulk-ESS must be at least
 * `minEss` (default 100): below that the MCSE itself is unreliable
 * (Vehtari et al. 2021, §4.3) and the test fails saying so instead of passing
 * on a band that means nothing.
 *
 * References: Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021), Bayesian
 * Analysis 16(2), §3–4 (ESS, MCSE of mean, sd and quantiles).
 *
 * @module
 */
import { strict as assert } from "node:assert";
import { essBulk } from "../diagnostics/ess.ts";
import { mcseMean, mcseSd } from "../diagnostics/mcse.ts";
import { parameterDraws, type SamplingResult } from "../samplers/driver.ts";

/** Options of the MCSE-band assertions. */
export interface BandOptions {
  /** Width of the band in standard errors (default 4). */
  z?: number;
  /** Bulk-ESS below which the band is not trusted (default 100). */
  minEss?: number;
  /** Standard error of the reference value itself (default 0: exact). */
  referenceSe?: number;
  /** Name used in messages. */
  what?: string;
}

function _mean(chains: readonly ArrayLike<number>[]): number {
  let s = 0, n = 0;
  for (const c of chains) for (let i = 0; i < c.length; i++) s += c[i], n++;
  return s / n;
}

function _sd(chains: readonly ArrayLike<number>[]): number {
  const m = _mean(chains);
  let s = 0, n = 0;
  for (const c of chains) for (let i = 0; i < c.length; i++) s += (c[i] - m) ** 2, n++;
  return Math.sqrt(s / (n - 1));
}

/**
 * Assert bulk-ESS ≥ `minEss` for draws of one parameter.
 *
 * @param chains Draws of one parameter, one array per chain.
 * @param minEss The least ESS a band needs.
 * @param what Name used in the message.
 * @returns The ESS.
 */
export function assertEnoughEss(
  chains: readonly ArrayLike<number>[],
  minEss = 100,
  what = "draws",
): number {
  const ess = essBulk(chains);
  assert.ok(
    ess >= minEss,
    `${what}: bulk-ESS ${ess.toFixed(1)} < ${minEss}, too few effective draws for an MCSE band`,
  );
  return ess;
}

/**
 * Assert that the posterior mean of one parameter is within z MCSE of `expected`.
 *
 * @param chains Draws of one parameter, one array per chain.
 * @param expected The reference mean.
 * @param options z, minEss, the reference's own standard error, a name.
 */
export function assertMeanWithinMcse(
  chains: readonly ArrayLike<number>[],
  expected: number,
  options: BandOptions = {},
): void {
  const { z = 4, minEss = 100, referenceSe = 0, what = "mean" } = options;
  assertEnoughEss(chains, minEss, what);
  const m = _mean(chains), se = Math.hypot(mcseMean(chains), referenceSe);
  assert.ok(
    Math.abs(m - expected) <= z * se,
    `${what}: ${m} vs ${expected}, |error| ${Math.abs(m - expected)} > ${z} × SE ${se}`,
  );
}

/**
 * Assert that the posterior sd of one parameter is within z MCSE_sd of `expected`.
 *
 * @param chains Draws of one parameter, one array per chain.
 * @param expected The reference standard deviation.
 * @param options z, minEss, the reference's own standard error, a name.
 */
export function assertSdWithinMcse(
  chains: readonly ArrayLike<number>[],
  expected: number,
  options: BandOptions = {},
): void {
  const { z = 4, minEss = 100, referenceSe = 0, what = "sd" } = options;
  assertEnoughEss(chains, minEss, what);
  const s = _sd(chains), se = Math.hypot(mcseSd(chains), referenceSe);
  assert.ok(
    Math.abs(s - expected) <= z * se,
    `${what}: ${s} vs ${expected}, |error| ${Math.abs(s - expected)} > ${z} × SE ${se}`,
  );
}

/**
 * Assert means, marginal sds and correlations of a multivariate posterior
 * against a Gaussian reference N(μ, Σ). Correlations are checked through the
 * sd of the sum and difference of each standardised pair, so every check is
 * an sd check with its own MCSE.
 *
 * @param draws `draws[chain][param]`, as the driver returns them.
 * @param mean μ.
 * @param covariance Σ, d × d row-major.
 * @param options z, minEss, a name.
 */
export function assertMatchesGaussian(
  draws: readonly (readonly ArrayLike<number>[])[],
  mean: ArrayLike<number>,
  covariance: ArrayLike<number>,
  options: BandOptions = {},
): void {
  const d = mean.length, what = options.what ?? "θ";
  const param = (j: number) => draws.map((c) => c[j]);
  const sd = Array.from({ length: d }, (_, j) => Math.sqrt(covariance[j * d + j]));
  for (let j = 0; j < d; j++) {
    assertMeanWithinMcse(param(j), mean[j], { ...options, what: `${what}[${j}] mean` });
    assertSdWithinMcse(param(j), sd[j], { ...options, what: `${what}[${j}] sd` });
  }
  for (let j = 0; j < d; j++) {
    for (let k = j + 1; k < d; k++) {
      const rho = covariance[j * d + k] / (sd[j] * sd[k]);
      for (const sign of [1, -1]) {
        const combo = draws.map((c) =>
          Float64Array.from(
            c[j] as ArrayLike<number>,
            (x, i) => (x - mean[j]) / sd[j] + sign * ((c[k][i] - mean[k]) / sd[k]),
          )
        );
        assertSdWithinMcse(combo, Math.sqrt(2 + 2 * sign * rho), {
          ...options,
          what: `${what}[${j}] ${sign > 0 ? "+" : "−"} ${what}[${k}] (standardised) sd`,
        });
      }
    }
  }
}

/** Posterior means and sds per coordinate (a reference to compare with). */
export interface PosteriorMoments {
  /** Mean per coordinate. */
  mean: Float64Array;
  /** Standard deviation per coordinate. */
  sd: Float64Array;
}

/**
 * Pooled posterior mean, sd and bulk-ESS per coordinate of a run.
 *
 * @param run The sampler's result.
 * @param P Number of coordinates.
 * @returns Means, sds and bulk-ESS.
 */
export function posteriorSummary(
  run: SamplingResult,
  P: number,
): PosteriorMoments & { ess: number[] } {
  const mean = new Float64Array(P), sd = new Float64Array(P), ess: number[] = [];
  for (let j = 0; j < P; j++) {
    const chains = parameterDraws(run, j), all = chains.flatMap((c) => Array.from(c));
    const m = all.reduce((a, b) => a + b, 0) / all.length;
    mean[j] = m;
    sd[j] = Math.sqrt(all.reduce((a, b) => a + (b - m) ** 2, 0) / (all.length - 1));
    ess.push(essBulk(chains));
  }
  return { mean, sd, ess };
}

/**
 * The posterior criterion of the families' checks: every mean within 0.1
 * reference sd, every sd within 10 %, with the numbers in the message.
 *
 * @param what Names the run in messages.
 * @param got The run's summary ({@link posteriorSummary}).
 * @param ref The reference moments.
 */
export function assertPosteriorMatches(
  what: string,
  got: PosteriorMoments & { ess: number[] },
  ref: PosteriorMoments,
): void {
  for (let j = 0; j < ref.mean.length; j++) {
    const z = (got.mean[j] - ref.mean[j]) / ref.sd[j], r = got.sd[j] / ref.sd[j] - 1;
    const msg = `${what} θ${j}: mean ${got.mean[j].toFixed(5)} vs ${ref.mean[j].toFixed(5)} (${
      z.toFixed(3)
    } sd), sd ${got.sd[j].toFixed(5)} vs ${ref.sd[j].toFixed(5)} (${(100 * r).toFixed(1)} %), ESS ${
      got.ess[j].toFixed(0)
    }`;
    console.log(msg);
    assert.ok(Math.abs(z) < 0.1 && Math.abs(r) < 0.1, msg);
  }
}
