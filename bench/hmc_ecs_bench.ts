/**
 * HMC-ECS benchmarks.
 *
 * 1. Time of ONE HMC-ECS iteration (u-step + L leapfrog steps) on HIGGS-shaped
 *    logistic data (d = 30, f32 storage of X) at n = 10⁵, 10⁶ and 10⁷ with the
 *    same m = 1000 (perturbed; G = 100 blocks) or λ = 50 × m = 30 (signed),
 *    L = 6 and a fixed metric: the claim is that it does not grow with n —
 *    only the refreshed block is gathered from the big X, and every leapfrog
 *    step streams the small contiguous subsample buffer.
 * 2. bulk-ESS per second of a whole run (subset fit, tuning, 1000 warmup and
 *    1000 sampling iterations, one chain) at n = 10⁶ for both variants,
 *    measured once at load time and printed as a line per variant
 *    (TALLMC_BENCH_ECS_WHOLE=0 skips it).
 *
 * 3. Warm-up cost in full-data pass-equivalents (samplers/hmc_ecs/passes.ts:
 *    gradient passes of ℓ and ∇ℓ rows plus Hessian rows weighted by the
 *    measured Hessian/gradient pass time w) at each size, perturbed, 1000
 *    warmup iterations, for the default warm-up and for the former one
 *    (`hessianFraction: 1, recenterTolerance: 0.1`: exact full-data Hessians
 *    at every Newton centring; above n = 10⁶ only with
 *    TALLMC_BENCH_ECS_FORMER=1), printed once per size at load time
 *    (TALLMC_BENCH_ECS_WARMUP=0 skips it).
 *
 * Set TALLMC_BENCH_ECS_SIZES (comma-separated, default "1e5,1e6,1e7") to
 * choose the sizes; 10⁷ rows of f32 take 1.2 GB and ~30 s to set up.
 *
 *   deno bench --allow-read --allow-env bench/hmc_ecs_bench.ts
 */
import type { Arena } from "../core/arena.ts";
import { loadCore } from "../core/load.ts";
import type { GlmData } from "../data/dataset.ts";
import { essBulk } from "../diagnostics/ess.ts";
import { GlmModel } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import { parameterDraws } from "../samplers/driver.ts";
import {
  type HmcEcsOptions,
  type HmcEcsState,
  measureHessianCostRatio,
  passEquivalents,
  runHmcEcs,
} from "../samplers/hmc_ecs/mod.ts";
import { hmcEcsChainSampler } from "../samplers/hmc_ecs/chain_sampler.ts";
import { metricFromNegativeHessian } from "../samplers/metric.ts";
import { mulberry32 } from "../testing/mulberry32.ts";

const D = 30;

/** mulberry32 uniform on (0, 1): the [0, 1) value moved by half a step. */
function _uniform(seed: number): () => number {
  const u = mulberry32(seed);
  return () => u() + 0.5 / 4294967296;
}

/** HIGGS-shaped data written straight into the arena (fast for 10⁷ rows). */
function _higgsLike(arena: Arena, n: number, seed: number): { data: GlmData; beta: Float64Array } {
  const u = _uniform(seed);
  const beta = new Float64Array(D);
  const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  beta[0] = 0.1 * normal();
  for (let j = 1; j < D; j++) beta[j] = 0.25 * normal();
  const x = arena.allocF32(n * D), y = arena.allocF64(n);
  const block = 1 << 14;
  for (let s = 0; s < n; s += block) {
    const k = Math.min(block, n - s);
    const xs = arena.f32(x + s * D * 4, k * D), ys = arena.f64(y + s * 8, k);
    for (let i = 0; i < k; i++) {
      xs[i * D] = 1;
      let eta = beta[0];
      for (let j = 1; j < D; j++) {
        const v = Math.fround(normal());
        xs[i * D + j] = v;
        eta += beta[j] * v;
      }
      ys[i] = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    }
  }
  const columnNames = ["(Intercept)", ...Array.from({ length: D - 1 }, (_, j) => `x${j + 1}`)];
  return {
    data: { arena, x, y, numRows: n, numCols: D, storage: "f32", columnNames },
    beta,
  };
}

/** Print the warm-up's pass-equivalents, default and former, at this model's n. */
function _warmupPasses(model: GlmModel): void {
  const n = model.numRows, w = measureHessianCostRatio(model, { repeats: 7 });
  const line = (label: string, options: HmcEcsOptions) => {
    const t0 = performance.now();
    const r = runHmcEcs(model, {
      seed: 1,
      numChains: 1,
      numWarmup: 1000,
      numSamples: 1,
      ...options,
    });
    const secs = (performance.now() - t0) / 1000;
    const c = r.chains[0].cost.warmup, t = r.chains[0].tuning;
    const p = passEquivalents(c, {
      numRows: n,
      hessianCostRatio: w,
    });
    console.log(
      `warm-up at n = ${n.toExponential(0)}, ${label}: ${p.total.toFixed(2)} pass-equivalents ` +
        `(${p.gradientPasses.toFixed(2)} ℓ/∇ℓ + ${p.hessianPasses.toFixed(2)} Hessian at w = ${
          w.toFixed(2)
        }; ${((c.numLogLikRows + c.numGradRows) / n).toFixed(2)} (ℓ + ∇ℓ rows)/n), ` +
        `${t.numCenterings} centrings, m = ${t.subsampleSize}, ${secs.toFixed(2)} s`,
    );
  };
  line("default", {});
  // The former warm-up makes ≈ 25 pass-equivalents at every n: at 10⁷ that is
  // half a minute of `deno task bench`, so above 10⁶ only on request.
  if (n <= 1e6 || Deno.env.get("TALLMC_BENCH_ECS_FORMER") === "1") {
    line("former (exact Hessians, tolerance 0.1)", { hessianFraction: 1, recenterTolerance: 0.1 });
  }
}

const sizes = (Deno.env.get("TALLMC_BENCH_ECS_SIZES") ?? "1e5,1e6,1e7")
  .split(",").map((s) => Math.round(Number(s)));

for (const n of sizes) {
  const arena = loadCore({
    initialBytes: Math.min(4 * 2 ** 30 - 65536, n * (D * 4 + 8 + 40) + (64 << 20)),
  });
  const { data, beta } = _higgsLike(arena, n, 7);
  const model = new GlmModel(data, { family: "logistic", priorScale: 10 });
  if (Deno.env.get("TALLMC_BENCH_ECS_WARMUP") !== "0") _warmupPasses(model);
  const h = new Float64Array(D * D), hp = new Float64Array(D * D);
  model.logLikelihoodHessian(beta, h);
  model.logPriorHessian(beta, hp);
  const metric = metricFromNegativeHessian(h.map((v, i) => v + hp[i]));
  for (const variant of ["perturbed", "signed"] as const) {
    const sampler = hmcEcsChainSampler(model, {
      variant,
      thetaStar: beta,
      metric,
      numWarmup: 0,
      stepSize: 0.2,
      numIntegrationSteps: 6,
      subsampleSize: 1000,
      numProducts: 50,
      lowerBound: -50,
      batchSize: 30,
    });
    const rng = new Rng(1);
    let state: HmcEcsState = sampler.init(beta, rng);
    let i = 0;
    Deno.bench({
      name: `one HMC-ECS iteration, ${variant}, n = ${n.toExponential(0)}, d = 30, L = 6, ${
        variant === "perturbed" ? "m = 1000" : "λ = 50 × m = 30"
      }`,
      group: `iteration-${variant}`,
      baseline: n === sizes[0],
      fn() {
        state = sampler.step(rng, state, "sampling", i++).state;
      },
    });
  }
}

// Whole-run bulk-ESS per second at n = 10⁶, measured once per variant when
// the module loads (a whole run is not something to repeat for statistics);
// TALLMC_BENCH_ECS_WHOLE=0 skips it.
if (Deno.env.get("TALLMC_BENCH_ECS_WHOLE") !== "0") {
  for (const variant of ["perturbed", "signed"] as const) {
    const arena = loadCore({ initialBytes: 1e6 * (D * 4 + 8 + 40) + (64 << 20) });
    const { data } = _higgsLike(arena, 1_000_000, 11);
    const model = new GlmModel(data, { family: "logistic", priorScale: 10 });
    const t0 = performance.now();
    const r = runHmcEcs(model, {
      variant,
      seed: 3,
      numChains: 1,
      numWarmup: 1000,
      numSamples: 1000,
    });
    const secs = (performance.now() - t0) / 1000;
    const ess = r.parameterNames.map((_, j) => essBulk(parameterDraws(r, j)));
    ess.sort((a, b) => a - b);
    const c = r.chains[0].cost;
    const rows = c.warmup.numLogLikRows + c.warmup.numGradRows + c.sampling.numLogLikRows +
      c.sampling.numGradRows;
    console.log(
      `whole run at n = 1e6 (subset fit + tuning + 1000 warmup + 1000 draws), ${variant}: ` +
        `${secs.toFixed(1)} s, bulk-ESS min ${ess[0].toFixed(0)} / median ${ess[15].toFixed(0)}, ` +
        `bulk-ESS/s min ${(ess[0] / secs).toFixed(1)} / median ${(ess[15] / secs).toFixed(1)}, ` +
        `${(rows / 1e6).toFixed(1)} full-data passes of row evaluations (ℓ + ∇)`,
    );
  }
}
