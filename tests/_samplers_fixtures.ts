/**
 * Shared fixtures of the sampler tests (tests/samplers/samplers_hmc_test.ts,
 * tests/samplers/samplers_driver_test.ts): AR(1)-correlated Gaussian targets, batch-means
 * MCSE, the Gaussian-match assertion and a row-counting fake DataModel.
 *
 * @module
 */
import assert from "node:assert/strict";
import { gaussianTarget } from "../examples/models/gaussian_target.ts";
import { type CostCounter, type DataModel, newCostCounter } from "../models/model.ts";
import { parameterDraws, type SamplingResult } from "../samplers/mod.ts";

// ---------------------------------------------------------------- helpers

/** Σᵢⱼ = sᵢ sⱼ ρ^|i−j|. */
export function arCovariance(sd: number[], rho: number): Float64Array {
  const d = sd.length, c = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) c[i * d + j] = sd[i] * sd[j] * Math.pow(rho, Math.abs(i - j));
  }
  return c;
}

export function mean(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s / x.length;
}

/**
 * Pooled mean over chains and its MCSE by non-overlapping batch means
 * (batch size ⌊√n⌋ per chain; Flegal & Jones 2010): Var(chain mean) ≈
 * b·s²_batch/n, chains independent and of equal length.
 */
export function meanAndMcse(chains: Float64Array[]): { mean: number; mcse: number } {
  let m = 0, v = 0;
  for (const x of chains) {
    const n = x.length, b = Math.floor(Math.sqrt(n)), a = Math.floor(n / b);
    const bm = new Float64Array(a);
    for (let k = 0; k < a; k++) bm[k] = mean(x.subarray(k * b, (k + 1) * b));
    const mu = mean(x), mb = mean(bm);
    let s2 = 0;
    for (let k = 0; k < a; k++) s2 += (bm[k] - mb) ** 2;
    s2 /= a - 1;
    m += mu / chains.length;
    v += (b * s2 / n) / (chains.length * chains.length);
  }
  return { mean: m, mcse: Math.sqrt(v) };
}

export function pooledSd(chains: Float64Array[]): number {
  const all = chains.flatMap((c) => Array.from(c));
  const m = mean(all);
  return Math.sqrt(all.reduce((s, x) => s + (x - m) ** 2, 0) / (all.length - 1));
}

/**
 * Posterior means within 4 MCSE of the truth (two-sided normal tail 6e-5 per
 * coordinate) and marginal sds within 10 % (the relative standard error of an
 * sd from n_eff draws is ≈ 1/√(2 n_eff), ≤ 2.5 % for the n_eff ≥ 1000 these
 * runs give, so 10 % is a ≥ 4-SE band).
 */
export function assertMatchesGaussian(
  result: SamplingResult,
  mu: Float64Array,
  sd: Float64Array,
): void {
  for (let j = 0; j < mu.length; j++) {
    const chains = parameterDraws(result, j);
    const { mean: m, mcse } = meanAndMcse(chains);
    assert.ok(
      Math.abs(m - mu[j]) < 4 * mcse,
      `mean of ${j}: ${m} vs ${mu[j]}, |error| ${Math.abs(m - mu[j])} ≥ 4 MCSE = ${4 * mcse}`,
    );
    const s = pooledSd(chains);
    assert.ok(Math.abs(s / sd[j] - 1) < 0.1, `sd of ${j}: ${s} vs ${sd[j]}`);
  }
}

/** A DataModel over a Gaussian "posterior" that counts rows like a real one (n rows per pass). */
export function fakeDataModel(
  numRows: number,
): DataModel & { calls: { grad: number; hessian: number } } {
  const target = gaussianTarget(new Float64Array([0.5, -0.5]), new Float64Array([1, 0.3, 0.3, 2]));
  const cost: CostCounter = newCostCounter();
  const calls = { grad: 0, hessian: 0 };
  return {
    dim: 2,
    parameterNames: ["a", "b"],
    numRows,
    cost,
    calls,
    logDensity(theta) {
      cost.numLogLikRows += numRows;
      return target.logDensity(theta);
    },
    logDensityAndGradient(theta, grad) {
      calls.grad++;
      cost.numLogLikRows += numRows;
      cost.numGradRows += numRows;
      return target.logDensityAndGradient(theta, grad);
    },
    logPrior: (_theta) => 0,
    logLikelihood: (theta) => target.logDensity(theta),
    logLikelihoodRows: () => 0,
    perRowGradients: () => {},
    logLikelihoodHessian(theta, out) {
      calls.hessian++;
      cost.numHessianRows += numRows;
      target.logDensityHessian(theta, out);
    },
    logPriorHessian: (_theta, out) => void out.fill(0),
  };
}
export const mu2 = new Float64Array([1, -2]);
export const target2 = gaussianTarget(mu2, arCovariance([1, 3], 0.9));
export const sd10 = Array.from({ length: 10 }, (_, i) => 0.5 + 0.2 * i);
export const mu10 = new Float64Array(sd10.map((_, i) => i - 4.5));
export const target10 = gaussianTarget(mu10, arCovariance(sd10, 0.5));
