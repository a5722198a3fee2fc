/**
 * The full-data GLM gradient alone (`GlmKernels.gradient`, the core's
 * gradRange kernels) against the combined ℓ + ∇ℓ pass
 * (`GlmKernels.logLikelihood` with `grad`) over the same rows: what a leapfrog
 * step between a trajectory's two ends saves. Logistic at d = 29 and d = 81
 * with X stored as f64 and as f32; Poisson and Gaussian at d = 29, f64.
 * Intercept + N(0, 1) features, θ of a typical posterior scale.
 *
 * Before the timed benches it prints, per case, the CPU time per row of each
 * pass (user + system of this process, so that time slices lost to other
 * processes on a shared machine do not count) as the median over 15 rounds in
 * which the two passes alternate, and the median of the per-round ratio
 * gradient-only / combined. Deno's table that follows is wall time per call
 * of n = 100,000 rows (divide by 10⁵ for ns/row). docs/gradient_only.md has
 * the measured numbers.
 *
 * Run: deno bench --allow-read --allow-sys=loadavg bench/gradient_only_bench.ts
 */

import { type GlmFamilyName, GlmKernels } from "../core/glm_kernels.ts";
import { loadCore } from "../core/load.ts";
import { glmDataFromArrays } from "../data/dataset.ts";
import { Rng } from "../random/rng.ts";
import { cpuMs, loadAverage, median } from "./_measure.ts";

const N = 100_000;
const ROUNDS = 15;

function _case(
  family: "logistic" | "poisson" | "gaussian",
  d: number,
  storage: "f64" | "f32",
): void {
  const rng = new Rng(`gradient-only/${family}/${d}`);
  const x = new Float64Array(N * d), y = new Float64Array(N);
  const theta = Float64Array.from({ length: d }, (_, j) => (j === 0 ? 0.2 : 0.3 * rng.normal()));
  for (let i = 0; i < N; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) {
      x[i * d + j] = j === 0 ? 1 : rng.normal() / Math.sqrt(d);
      eta += x[i * d + j] * theta[j];
    }
    y[i] = family === "logistic"
      ? (rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0)
      : family === "poisson"
      ? Math.round(Math.exp(eta) + rng.uniform())
      : eta + rng.normal();
  }
  const arena = loadCore({ initialBytes: N * d * 8 + (16 << 20) });
  const data = glmDataFromArrays(arena, x, y, { numCols: d, storage });
  const k = new GlmKernels(arena, {
    family: family as GlmFamilyName,
    dim: d,
    sigma: family === "gaussian" ? 1 : undefined,
  });
  const grad = new Float64Array(d);
  const group = `${family} d=${d} ${storage} n=${N}`;
  const both = () => k.logLikelihood(data, theta, { grad });
  const only = () => k.gradient(data, theta, { grad });
  both(); // warm up both paths before the rounds
  only();
  const tBoth: number[] = [], tOnly: number[] = [], ratio: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const first = r % 2 === 0;
    const a = first ? cpuMs(both) : 0;
    const g = cpuMs(only);
    const b = first ? a : cpuMs(both);
    tBoth.push(b);
    tOnly.push(g);
    ratio.push(g / b);
  }
  const ns = (ms: number) => ((ms * 1e6) / N).toFixed(1);
  console.log(
    `${group}: ll+grad ${ns(median(tBoth))} ns/row, grad only ${
      ns(median(tOnly))
    } ns/row (CPU, median of ${ROUNDS} alternating rounds); grad only / ll+grad ${
      median(ratio).toFixed(3)
    }; load average ${loadAverage()}`,
  );
  Deno.bench({
    name: `ll+grad ${group}`,
    group,
    baseline: true,
    fn: () => {
      k.logLikelihood(data, theta, { grad });
    },
  });
  Deno.bench({
    name: `grad only ${group}`,
    group,
    fn: () => {
      k.gradient(data, theta, { grad });
    },
  });
}

for (const d of [29, 81]) {
  for (const storage of ["f64", "f32"] as const) _case("logistic", d, storage);
}
_case("poisson", 29, "f64");
_case("gaussian", 29, "f64");
