/**
 * Full-data samplers side by side with Stan: tallmc `hmc` (ChEES warm-up)
 * and `nuts` (multinomial NUTS, Stan's windows) against Stan's NUTS through
 * rstan, on the same synthetic HIGGS-shaped logistic regression (d = 30 with
 * the intercept column, prior N(0, 10²) on every coefficient, the tallmc
 * GLM's default), 1 chain on 1 core, 1000 + 1000 iterations each.
 *
 * Reported per sampler: wall time of warm-up + sampling (Stan's from
 * `get_elapsed_time`, compilation and data reading excluded; tallmc's from
 * the chain's init to its last draw), gradients (full-data ∇ passes) in
 * warm-up and sampling, min over the 30 coefficients of bulk, tail and sd
 * ESS (the same diagnostics code for every sampler), min bulk-ESS per second
 * and per sampling gradient, and ratios to Stan measured in the same run.
 * The load average is printed at the start and the end: the machine may be
 * shared.
 *
 * Stan runs when `Rscript` and the rstan package are installed (Debian:
 * `apt-get install r-cran-rstan`); otherwise the script says why and reports
 * the tallmc samplers alone.
 *
 * ```
 * deno run -A bench/nuts_stan_bench.ts            # n = 1e5
 * deno run -A bench/nuts_stan_bench.ts 1e5 1e6    # both sizes
 * deno run -A bench/nuts_stan_bench.ts --seeds=4 1e4   # hmc vs nuts ESS per gradient, 4 seeds
 * ```
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { higgsShaped } from "../data/synthetic.ts";
import { essBulk, essSd, essTail } from "../diagnostics/ess.ts";
import { GlmModel } from "../models/glm.ts";
import { parameterDraws, type SamplingResult } from "../samplers/driver.ts";
import { sample } from "../samplers/sample.ts";

interface Row {
  name: string;
  wallS: number;
  /** CPU time of the process (user + system) over the same span. */
  cpuS: number;
  warmupGradients: number;
  samplingGradients: number;
  bulk: number;
  tail: number;
  sd: number;
  stepSize: number;
  meanTreeDepth: number | null;
}

/**
 * CPU seconds (user + system) this process has used, from /proc/self/stat
 * (Linux; clock ticks of 1/100 s). NaN elsewhere.
 */
function _cpuSeconds(): number {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

const NUM_WARMUP = 1000, NUM_SAMPLES = 1000, SEED = 1, PRIOR_SCALE = 10;

function _minEss(chains: (j: number) => Float64Array[], d: number) {
  let bulk = Infinity, tail = Infinity, sd = Infinity;
  for (let j = 0; j < d; j++) {
    const c = chains(j);
    bulk = Math.min(bulk, essBulk(c));
    tail = Math.min(tail, essTail(c));
    sd = Math.min(sd, essSd(c));
  }
  return { bulk, tail, sd };
}

function _tallmc(model: GlmModel, sampler: "hmc" | "nuts", seed = SEED): Row {
  const t0 = performance.now(), c0 = _cpuSeconds();
  const r: SamplingResult = sample(model, {
    sampler,
    seed,
    numWarmup: NUM_WARMUP,
    numSamples: NUM_SAMPLES,
    numChains: 1,
  });
  const wallS = (performance.now() - t0) / 1000, cpuS = _cpuSeconds() - c0;
  const c = r.chains[0];
  const n = model.numRows;
  const depth = c.info.sampling.treeDepth;
  return {
    name: `tallmc ${sampler}`,
    wallS,
    cpuS,
    warmupGradients: c.cost.warmup.numGradRows / n,
    samplingGradients: c.cost.sampling.numGradRows / n,
    ..._minEss((j) => parameterDraws(r, j), model.dim),
    stepSize: Number(c.tuning.stepSize),
    meanTreeDepth: depth === undefined ? null : depth.reduce((a, b) => a + b, 0) / depth.length,
  };
}

const _STAN_MODEL = `
data { int<lower=0> N; int<lower=1> D; matrix[N, D] X; array[N] int<lower=0, upper=1> y; }
parameters { vector[D] beta; }
model { beta ~ normal(0, ${PRIOR_SCALE}); y ~ bernoulli_logit_glm(X, 0, beta); }
`;
// rstan 2.21 (Debian's) takes the older array syntax.
const _STAN_MODEL_221 = _STAN_MODEL.replace(
  "array[N] int<lower=0, upper=1> y;",
  "int<lower=0, upper=1> y[N];",
);

/** Why Stan cannot run here, or null. */
async function _stanMissing(): Promise<string | null> {
  try {
    const out = await new Deno.Command("Rscript", {
      args: ["-e", 'cat(requireNamespace("rstan", quietly = TRUE))'],
      stdout: "piped",
      stderr: "null",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    return text === "TRUE"
      ? null
      : "R is installed but the rstan package is not (apt-get install r-cran-rstan)";
  } catch {
    return "Rscript is not on PATH (apt-get install r-cran-rstan installs R and rstan)";
  }
}

async function _stan(model: GlmModel, dir: string): Promise<Row> {
  const n = model.numRows, d = model.dim;
  const x = model.arena.readF64(model.data.x, n * d), y = model.arena.readF64(model.data.y, n);
  // Binary doubles, read by R's readBin: no CSV parsing in the timing or the result.
  await Deno.writeFile(`${dir}/x.bin`, new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  await Deno.writeFile(`${dir}/y.bin`, new Uint8Array(y.buffer, y.byteOffset, y.byteLength));
  // The compiled model is kept between runs (rstan's auto_write beside the .stan file).
  const cache = `${Deno.env.get("TMPDIR") ?? "/tmp"}/tallmc_nuts_bench_stan`;
  await Deno.mkdir(cache, { recursive: true });
  const stanFile = `${cache}/logistic_glm.stan`;
  let old = "";
  try {
    old = await Deno.readTextFile(stanFile);
  } catch {
    // first run
  }
  if (old !== _STAN_MODEL_221) await Deno.writeTextFile(stanFile, _STAN_MODEL_221);
  const script = `
suppressMessages(library(rstan))
rstan_options(auto_write = TRUE)
n <- ${n}; d <- ${d}
X <- matrix(readBin("${dir}/x.bin", "double", n * d), nrow = n, ncol = d, byrow = TRUE)
y <- as.integer(readBin("${dir}/y.bin", "double", n))
t0 <- proc.time()[["elapsed"]]
sm <- stan_model("${stanFile}")
compile_s <- proc.time()[["elapsed"]] - t0
c0 <- proc.time()
fit <- sampling(sm, data = list(N = n, D = d, X = X, y = y), chains = 1, cores = 1,
  iter = ${NUM_WARMUP + NUM_SAMPLES}, warmup = ${NUM_WARMUP}, seed = ${SEED}, refresh = 0)
cpu <- proc.time() - c0
el <- get_elapsed_time(fit)
sp <- get_sampler_params(fit, inc_warmup = TRUE)[[1]]
w <- seq_len(${NUM_WARMUP})
draws <- as.matrix(fit, pars = "beta")
write.table(draws, "${dir}/draws.csv", sep = ",", row.names = FALSE, col.names = FALSE)
cat(sprintf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\\n", el[1, "warmup"], el[1, "sample"],
  sum(sp[w, "n_leapfrog__"]), sum(sp[-w, "n_leapfrog__"]), sp[-w, "stepsize__"][1],
  mean(sp[-w, "treedepth__"]), compile_s, cpu[["user.self"]] + cpu[["sys.self"]]), file = "${dir}/stats.txt")
`;
  await Deno.writeTextFile(`${dir}/run.R`, script);
  const out = await new Deno.Command("Rscript", {
    args: [`${dir}/run.R`],
    // One thread, as the tallmc chain: no OpenMP, BLAS or TBB threads.
    env: { OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1", STAN_NUM_THREADS: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr);
    const hint = /Boost not found/.test(err)
      ? " (Debian's r-cran-bh has no include folder; with libboost-dev installed, " +
        "ln -s /usr/include /usr/lib/R/site-library/BH/include lets rstan find Boost)"
      : "";
    throw new Error(`Rscript failed: ${err.slice(-2000)}${hint}`);
  }
  const [warmS, sampS, warmG, sampG, eps, depth, compileS, cpuS] = (await Deno.readTextFile(
    `${dir}/stats.txt`,
  )).trim().split(/\s+/).map(Number);
  console.log(`  (Stan: model compiled or loaded in ${compileS.toFixed(1)} s, not counted)`);
  const rows = (await Deno.readTextFile(`${dir}/draws.csv`)).trim().split("\n")
    .map((l) => l.split(",").map(Number));
  return {
    name: "Stan NUTS (rstan)",
    wallS: warmS + sampS,
    cpuS,
    // n_leapfrog counts the steps of the trajectories; Stan also makes one
    // gradient per transition at its start.
    warmupGradients: warmG + NUM_WARMUP,
    samplingGradients: sampG + NUM_SAMPLES,
    ..._minEss((j) => [Float64Array.from(rows, (r) => r[j])], d),
    stepSize: eps,
    meanTreeDepth: depth,
  };
}

function _print(rows: Row[], ref: Row | null): void {
  const f = (x: number, k = 1) => x.toFixed(k);
  console.log(
    "| sampler | wall (s) | CPU (s) | ms per gradient (CPU) | gradients warm-up + sampling | ε | mean tree depth | min bulk / tail / sd ESS | min bulk / tail / sd ESS per CPU s | min bulk / tail / sd ESS per gradient (whole run) | bulk / tail / sd ESS per CPU s ÷ Stan's |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) {
    const grads = r.warmupGradients + r.samplingGradients;
    const ess = [r.bulk, r.tail, r.sd];
    const triple = (xs: number[], k: number) => xs.map((x) => f(x, k)).join(" / ");
    const vsStan = ref === null ? "–" : triple(
      ess.map((e, i) => (e / r.cpuS) / ([ref.bulk, ref.tail, ref.sd][i] / ref.cpuS)),
      2,
    ) + "×";
    console.log(
      `| ${r.name} | ${f(r.wallS)} | ${f(r.cpuS)} | ${f(1000 * r.cpuS / grads, 2)} | ${
        f(r.warmupGradients, 0)
      } + ${f(r.samplingGradients, 0)} | ${r.stepSize.toPrecision(3)} | ${
        r.meanTreeDepth === null ? "–" : f(r.meanTreeDepth, 2)
      } | ${triple(ess, 0)} | ${triple(ess.map((e) => e / r.cpuS), 2)} | ${
        triple(ess.map((e) => e / grads), 3)
      } | ${vsStan} |`,
    );
  }
}

const seedsArg = Deno.args.find((a) => a.startsWith("--seeds="));
const numSeeds = seedsArg === undefined ? 0 : Number(seedsArg.slice("--seeds=".length));
const sizeArgs = Deno.args.filter((a) => !a.startsWith("--seeds="));
const sizes = (sizeArgs.length > 0 ? sizeArgs : ["1e5"]).map(Number);
if (seedsArg !== undefined && (!Number.isInteger(numSeeds) || numSeeds < 1)) {
  console.error(`--seeds must be a positive integer, got ${seedsArg}`);
  Deno.exit(2);
}
for (const n of sizes) {
  if (!Number.isInteger(n) || n < 100) {
    console.error(`each argument must be a row count ≥ 100 (e.g. 1e5), got ${n}`);
    Deno.exit(2);
  }
}
console.log(
  `load average at start: ${
    Deno.loadavg().map((x) => x.toFixed(2)).join(", ")
  }; nproc ${navigator.hardwareConcurrency}`,
);
if (numSeeds > 0) {
  // ESS per gradient of tallmc hmc and nuts over seeds 1..K (no Stan, no clock:
  // gradients do not depend on the machine's load).
  for (const n of sizes) {
    const arena = loadCore();
    const { data } = higgsShaped(arena, { n, seed: 1 });
    const model = new GlmModel(data, { family: "logistic", priorScale: PRIOR_SCALE });
    console.log(`\nn = ${n}: min ESS per gradient (sampling / whole run), seeds 1..${numSeeds}`);
    console.log("| seed | sampler | gradients warm-up + sampling | bulk | tail | sd |");
    console.log("| --- | --- | --- | --- | --- | --- |");
    for (let seed = 1; seed <= numSeeds; seed++) {
      for (const name of ["hmc", "nuts"] as const) {
        const r = _tallmc(model, name, seed);
        const all = r.warmupGradients + r.samplingGradients;
        const per = (e: number) =>
          `${(e / r.samplingGradients).toFixed(3)} / ${(e / all).toFixed(3)}`;
        console.log(
          `| ${seed} | ${name} | ${r.warmupGradients.toFixed(0)} + ${
            r.samplingGradients.toFixed(0)
          } | ${per(r.bulk)} | ${per(r.tail)} | ${per(r.sd)} |`,
        );
      }
    }
  }
  Deno.exit(0);
}
const missing = await _stanMissing();
if (missing !== null) console.log(`Stan is not run: ${missing}.`);
for (const n of sizes) {
  const arena = loadCore();
  const { data } = higgsShaped(arena, { n, seed: 1 });
  const model = new GlmModel(data, { family: "logistic", priorScale: PRIOR_SCALE });
  console.log(`\nn = ${n}, d = ${model.dim}, 1 chain, ${NUM_WARMUP} + ${NUM_SAMPLES} iterations`);
  const rows: Row[] = [];
  let ref: Row | null = null;
  if (missing === null) {
    const dir = await Deno.makeTempDir({ prefix: "tallmc_stan_" });
    try {
      ref = await _stan(model, dir);
      rows.push(ref);
    } catch (e) {
      console.log(`Stan did not run: ${(e as Error).message}`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  rows.push(_tallmc(model, "hmc"), _tallmc(model, "nuts"));
  _print(rows, ref);
  const [hmcRow, nutsRow] = rows.slice(-2);
  console.log(
    `nuts ÷ hmc: min bulk-ESS per sampling gradient ${
      (nutsRow.bulk / nutsRow.samplingGradients / (hmcRow.bulk / hmcRow.samplingGradients))
        .toFixed(2)
    }×, per whole-run gradient ${
      (nutsRow.bulk / (nutsRow.warmupGradients + nutsRow.samplingGradients) /
        (hmcRow.bulk / (hmcRow.warmupGradients + hmcRow.samplingGradients))).toFixed(2)
    }×, per CPU second ${
      ((nutsRow.bulk / nutsRow.cpuS) / (hmcRow.bulk / hmcRow.cpuS)).toFixed(2)
    }×`,
  );
}
console.log(
  `\nload average at end: ${Deno.loadavg().map((x) => x.toFixed(2)).join(", ")}`,
);
