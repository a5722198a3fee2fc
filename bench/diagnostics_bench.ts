/**
 * Benchmarks of the diagnostics on 4 chains × 100,000 draws of an AR(1) with
 * φ = 0.9 (ESS ≈ 21,000), the size of a long HMC run. The baseline is
 * essBasic (FFT autocovariances + Geyer's sequences); essBulk adds rank
 * normalisation of the 400,000 pooled draws, essTail two quantile indicators,
 * rhat two rank normalisations, inefficiencyFactor four AR fits. A second
 * group times the FFT autocovariance of one 100,000-draw chain against the
 * direct sum over the first 50 lags.
 *
 * Run: deno bench bench/diagnostics_bench.ts
 */
import {
  autocovariance,
  essBasic,
  essBulk,
  essTail,
  inefficiencyFactor,
  rhat,
  summarize,
} from "../diagnostics/mod.ts";
import { Rng } from "../random/rng.ts";

const NUM_CHAINS = 4;
const NUM_DRAWS = 100_000;
const PHI = 0.9;

const rng = new Rng(2024);
const chains = Array.from({ length: NUM_CHAINS }, () => {
  const x = new Float64Array(NUM_DRAWS);
  let prev = rng.normal() / Math.sqrt(1 - PHI * PHI);
  for (let i = 0; i < NUM_DRAWS; i++) x[i] = prev = PHI * prev + rng.normal();
  return x;
});

const group = "ESS of 4×100k draws";
const options = { group, n: 20, warmup: 2 };
Deno.bench("essBasic 4×100k", { ...options, baseline: true }, () => {
  essBasic(chains);
});
Deno.bench("essBulk 4×100k", options, () => {
  essBulk(chains);
});
Deno.bench("essTail 4×100k", options, () => {
  essTail(chains);
});
Deno.bench("rhat 4×100k", options, () => {
  rhat(chains);
});
Deno.bench("inefficiencyFactor 4×100k", options, () => {
  inefficiencyFactor(chains);
});
Deno.bench("summarize 4×100k, 1 parameter", options, () => {
  summarize(chains.map((c) => [c]));
});

const acovOptions = { group: "autocovariance of 100k draws", n: 50, warmup: 5 };
Deno.bench("autocovariance 100k, all lags (FFT)", { ...acovOptions, baseline: true }, () => {
  autocovariance(chains[0]);
});
Deno.bench("autocovariance 100k, 50 lags (direct sum)", acovOptions, () => {
  autocovariance(chains[0], { maxLag: 49 });
});
