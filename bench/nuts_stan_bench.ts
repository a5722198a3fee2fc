/**
 * Full-data samplers side by side with Stan, per core: tallmc `hmc` (ChEES
 * warm-up) and `nuts` (multinomial NUTS, Stan's windows) against Stan's NUTS
 * through rstan, on one HIGGS-shaped logistic regression (d = 30 with the
 * intercept column, prior N(0, 10²) on every coefficient, the tallmc GLM's
 * default), read by both tools from the same CSV file, 1000 + 1000
 * iterations per chain, the same seed.
 *
 * - `--chains=1`: one chain on one core (tallmc in the calling thread, Stan
 *   in one R process).
 * - `--chains=4`: four chains on two cores (tallmc: `sampleParallel` with two
 *   workers; Stan: four single-chain fits forked two at a time by
 *   `parallel::mclapply`, chain ids 1–4, as `sampling(chains = 4, cores = 2)`).
 *
 * Reported per run: wall time, CPU seconds (user + system of every thread or
 * forked process that sampled; /proc/self/stat for Deno, `proc.time()` inside
 * each R chain), full-data gradients in warm-up and sampling, min over the 30
 * coefficients of bulk, tail and sd ESS (tallmc's diagnostics for every tool),
 * ESS per CPU second (per core) and per whole-run gradient, and the ratio to
 * Stan's per CPU second. Wall time on a shared machine says little; CPU
 * seconds are the per-core measure. The load average is printed with every
 * row.
 *
 * The CSV (y, x1…x29; `higgsShaped(n, seed 1)`, every value to 17
 * significant digits) is made once per n in `--dir` and reused. Stan runs when
 * `Rscript` with rstan and data.table is installed (Debian: `apt-get install
 * r-cran-rstan r-cran-data.table`); otherwise the script says why and
 * reports tallmc alone. Rows can be appended to a JSON-lines file
 * (`--out=FILE`) by separate processes (Stan's runs at 10⁶ take long) and
 * tabled together with `--table=FILE`.
 *
 * ```
 * deno run -A bench/nuts_stan_bench.ts                         # n = 1e5, 1 chain, Stan, hmc, nuts
 * deno run -A bench/nuts_stan_bench.ts 1e5 1e6 --chains=4
 * deno run -A bench/nuts_stan_bench.ts 1e6 --run=stan --out=/tmp/rows.jsonl   # Stan alone
 * deno run -A bench/nuts_stan_bench.ts 1e6 --run=hmc --out=/tmp/rows.jsonl    # tallmc alone
 * deno run -A bench/nuts_stan_bench.ts --table=/tmp/rows.jsonl
 * deno run -A bench/nuts_stan_bench.ts --seeds=4 1e4 --run=hmc --run=nuts \
 *   --run=hmc:samplingTrajectoryScale=2          # ESS per gradient over seeds, no Stan
 * ```
 *
 * `--run=SAMPLER[:option=value…]` chooses what runs (`stan`, or a tallmc
 * sampler with options; default `stan`, `hmc`, `nuts`).
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { higgsShaped } from "../data/synthetic.ts";
import { loadCsvToArena } from "../data/csv.ts";
import { essBulk, essSd, essTail } from "../diagnostics/ess.ts";
import { GlmModel } from "../models/glm.ts";
import { parameterDraws, type SamplingResult } from "../samplers/driver.ts";
import { sample } from "../samplers/sample.ts";
import { sampleParallel } from "../samplers/parallel.ts";

/** One measured run. */
interface Row {
  name: string;
  n: number;
  chains: number;
  wallS: number;
  /** CPU seconds (user + system) of everything that sampled. */
  cpuS: number;
  warmupGradients: number;
  samplingGradients: number;
  bulk: number;
  tail: number;
  sd: number;
  stepSize: number;
  meanTreeDepth: number | null;
  /** tallmc `hmc`: ChEES's final integration time T (metric's whitened units); else absent. */
  trajectoryLength?: number;
  /** Full-data Hessian passes (the Newton start's), counted apart from the gradients. */
  hessianPasses?: number;
  loadStart: string;
  loadEnd: string;
  startedAt: string;
}

const NUM_WARMUP = 1000, NUM_SAMPLES = 1000, SEED = 1, PRIOR_SCALE = 10, D = 30;

/**
 * CPU seconds (user + system) this process has used, all threads, from
 * /proc/self/stat (Linux; clock ticks of 1/100 s). NaN elsewhere.
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

function _load(): string {
  return Deno.loadavg().map((x) => x.toFixed(1)).join(" ");
}

/** Min over coefficients of bulk, tail and sd ESS; `chains[c][j]` is chain c's draws of θⱼ. */
function _minEss(chains: Float64Array[][], d: number) {
  let bulk = Infinity, tail = Infinity, sd = Infinity;
  for (let j = 0; j < d; j++) {
    const c = chains.map((ch) => ch[j]);
    bulk = Math.min(bulk, essBulk(c));
    tail = Math.min(tail, essTail(c));
    sd = Math.min(sd, essSd(c));
  }
  return { bulk, tail, sd };
}

/** The CSV of n rows (made once in `dir`, by atomic rename). */
async function _csv(n: number, dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const path = `${dir}/higgs_n${n}_seed1.csv`;
  try {
    await Deno.stat(path);
    return path;
  } catch {
    // make it
  }
  const arena = loadCore();
  const { data } = higgsShaped(arena, { n, seed: 1 });
  const x = arena.readF64(data.x, n * D), y = arena.readF64(data.y, n);
  const tmp = `${path}.${Deno.pid}.tmp`;
  const file = await Deno.open(tmp, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  const header = ["y", ...Array.from({ length: D - 1 }, (_, j) => `x${j + 1}`)].join(",");
  let buf = header + "\n";
  for (let i = 0; i < n; i++) {
    const row = [String(y[i])];
    // Column 0 is the intercept; both tools add it back.
    for (let j = 1; j < D; j++) row.push(x[i * D + j].toPrecision(17));
    buf += row.join(",") + "\n";
    if (buf.length > 1 << 22) {
      await file.write(enc.encode(buf));
      buf = "";
    }
  }
  await file.write(enc.encode(buf));
  file.close();
  await Deno.rename(tmp, path);
  return path;
}

/** A tallmc run spec: sampler name and options from `name:key=value:…`. */
function _parseRun(spec: string): { sampler: string; options: Record<string, unknown> } {
  const [sampler, ...kv] = spec.split(":");
  const options: Record<string, unknown> = {};
  for (const p of kv) {
    const eq = p.indexOf("=");
    if (eq < 1) throw new TypeError(`--run option must be key=value, got ${JSON.stringify(p)}`);
    const raw = p.slice(eq + 1);
    options[p.slice(0, eq)] = raw === "" || Number.isNaN(Number(raw)) ? raw : Number(raw);
  }
  return { sampler, options };
}

async function _model(csv: string, shared: boolean): Promise<GlmModel> {
  const arena = loadCore({ shared });
  const data = await loadCsvToArena(arena, csv, { response: "y", family: "logistic" });
  return new GlmModel(data, { family: "logistic", priorScale: PRIOR_SCALE });
}

async function _tallmc(
  model: GlmModel,
  spec: string,
  chains: number,
  seed = SEED,
): Promise<Row> {
  const { sampler, options } = _parseRun(spec);
  const loadStart = _load(), startedAt = new Date().toISOString();
  const t0 = performance.now(), c0 = _cpuSeconds();
  const opts = {
    ...options,
    sampler,
    seed,
    numWarmup: NUM_WARMUP,
    numSamples: NUM_SAMPLES,
    numChains: chains,
  };
  const r: SamplingResult = chains === 1
    ? sample(model, opts)
    : await sampleParallel(model, { ...opts, workers: 2 });
  const wallS = (performance.now() - t0) / 1000, cpuS = _cpuSeconds() - c0;
  const n = model.numRows;
  let warm = 0, samp = 0, eps = 0, depthSum = 0, depthCount = 0, T = 0, hess = 0;
  for (const c of r.chains) {
    T += Number(c.tuning.trajectoryLength) / r.chains.length;
    hess += (c.cost.warmup.numHessianRows + c.cost.sampling.numHessianRows) / n;
    warm += c.cost.warmup.numGradRows / n;
    samp += c.cost.sampling.numGradRows / n;
    eps += Number(c.tuning.stepSize) / r.chains.length;
    const depth = c.info.sampling.treeDepth;
    if (depth !== undefined) {
      depthSum += depth.reduce((a, b) => a + b, 0);
      depthCount += depth.length;
    }
  }
  const perChain = r.chains.map((_, c) =>
    Array.from({ length: model.dim }, (_, j) => parameterDraws(r, j)[c])
  );
  return {
    name: `tallmc ${spec}`,
    n,
    chains,
    wallS,
    cpuS,
    warmupGradients: warm,
    samplingGradients: samp,
    ..._minEss(perChain, model.dim),
    stepSize: eps,
    meanTreeDepth: depthCount === 0 ? null : depthSum / depthCount,
    ...(Number.isFinite(T) ? { trajectoryLength: T } : {}),
    hessianPasses: hess,
    loadStart,
    loadEnd: _load(),
    startedAt,
  };
}

const _STAN_MODEL = `
data { int<lower=0> N; int<lower=1> D; matrix[N, D] X; int<lower=0, upper=1> y[N]; }
parameters { vector[D] beta; }
model { beta ~ normal(0, ${PRIOR_SCALE}); y ~ bernoulli_logit_glm(X, 0, beta); }
`;

/** Why Stan cannot run here, or null. */
async function _stanMissing(): Promise<string | null> {
  try {
    const out = await new Deno.Command("Rscript", {
      args: [
        "-e",
        'cat(requireNamespace("rstan", quietly = TRUE) && requireNamespace("data.table", quietly = TRUE))',
      ],
      stdout: "piped",
      stderr: "null",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    return text === "TRUE" ? null : "R is installed but rstan or data.table is not " +
      "(apt-get install r-cran-rstan r-cran-data.table)";
  } catch {
    return "Rscript is not on PATH (apt-get install r-cran-rstan r-cran-data.table)";
  }
}

async function _stan(csv: string, n: number, chains: number): Promise<Row> {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_stan_" });
  try {
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
    if (old !== _STAN_MODEL) await Deno.writeTextFile(stanFile, _STAN_MODEL);
    const script = `
suppressMessages({ library(rstan); library(parallel); library(data.table) })
rstan_options(auto_write = TRUE)
tab <- fread("${csv}", header = TRUE)
y <- as.integer(tab[[1]])
X <- cbind(1, as.matrix(tab[, -1]))
rm(tab)
stopifnot(nrow(X) == ${n}, ncol(X) == ${D})
sm <- stan_model("${stanFile}")
dat <- list(N = nrow(X), D = ncol(X), X = X, y = y)
w <- seq_len(${NUM_WARMUP})
one <- function(id) {
  c0 <- proc.time()
  fit <- sampling(sm, data = dat, chains = 1, chain_id = id, cores = 1,
    iter = ${NUM_WARMUP + NUM_SAMPLES}, warmup = ${NUM_WARMUP}, seed = ${SEED}, refresh = 0)
  cpu <- proc.time() - c0
  sp <- get_sampler_params(fit, inc_warmup = TRUE)[[1]]
  el <- get_elapsed_time(fit)
  write.table(as.matrix(fit, pars = "beta"), sprintf("${dir}/draws_%d.csv", id), sep = ",",
    row.names = FALSE, col.names = FALSE)
  sprintf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g", cpu[["user.self"]] + cpu[["sys.self"]],
    el[1, "warmup"] + el[1, "sample"], sum(sp[w, "n_leapfrog__"]), sum(sp[-w, "n_leapfrog__"]),
    sp[-w, "stepsize__"][1], mean(sp[-w, "treedepth__"]), ${NUM_WARMUP + NUM_SAMPLES})
}
t0 <- proc.time()[["elapsed"]]
res <- if (${chains} == 1) list(one(1)) else
  mclapply(seq_len(${chains}), one, mc.cores = 2, mc.preschedule = FALSE)
wall <- proc.time()[["elapsed"]] - t0
bad <- !vapply(res, is.character, TRUE)
if (any(bad)) stop(paste(sapply(res[bad], as.character), collapse = "; "))
writeLines(c(sprintf("%.17g", wall), unlist(res)), "${dir}/stats.txt")
`;
    await Deno.writeTextFile(`${dir}/run.R`, script);
    const loadStart = _load(), startedAt = new Date().toISOString();
    const out = await new Deno.Command("Rscript", {
      args: [`${dir}/run.R`],
      // One thread per chain, as tallmc's: no OpenMP, BLAS or TBB threads.
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
    const lines = (await Deno.readTextFile(`${dir}/stats.txt`)).trim().split("\n");
    const wall = Number(lines[0]);
    let cpuS = 0, chainWall = 0, warmG = 0, sampG = 0, eps = 0, depth = 0;
    for (const l of lines.slice(1)) {
      const [cpu, el, wg, sg, e, dp] = l.trim().split(/\s+/).map(Number);
      cpuS += cpu;
      chainWall = Math.max(chainWall, el);
      // n_leapfrog counts the steps of the trajectories; Stan also makes one
      // gradient per transition at its start.
      warmG += wg + NUM_WARMUP;
      sampG += sg + NUM_SAMPLES;
      eps += e / chains;
      depth += dp / chains;
    }
    const perChain: Float64Array[][] = [];
    for (let c = 1; c <= chains; c++) {
      const rows = (await Deno.readTextFile(`${dir}/draws_${c}.csv`)).trim().split("\n")
        .map((l) => l.split(",").map(Number));
      perChain.push(Array.from({ length: D }, (_, j) => Float64Array.from(rows, (r) => r[j])));
    }
    return {
      name: "Stan NUTS (rstan)",
      n,
      chains,
      // One chain: Stan's own warm-up + sampling time; several: the fork's wall.
      wallS: chains === 1 ? chainWall : wall,
      cpuS,
      warmupGradients: warmG,
      samplingGradients: sampG,
      ..._minEss(perChain, D),
      stepSize: eps,
      meanTreeDepth: depth,
      loadStart,
      loadEnd: _load(),
      startedAt,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function _print(rows: Row[]): void {
  const f = (x: number, k = 1) => x.toFixed(k);
  const triple = (xs: number[], k: number) => xs.map((x) => f(x, k)).join(" / ");
  console.log(
    "| n | chains | sampler | load (start → end) | wall (s) | CPU (s) | CPU ms per gradient | gradients warm-up + sampling | ε | T | tree depth | min bulk / tail / sd ESS | per CPU s | per gradient | per CPU s ÷ Stan's |",
  );
  console.log(
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  for (const r of rows) {
    const ref = rows.find((s) => s.name.startsWith("Stan") && s.n === r.n && s.chains === r.chains);
    const grads = r.warmupGradients + r.samplingGradients;
    const ess = [r.bulk, r.tail, r.sd];
    const vsStan = ref === undefined ? "–" : triple(
      ess.map((e, i) => (e / r.cpuS) / ([ref.bulk, ref.tail, ref.sd][i] / ref.cpuS)),
      2,
    ) + "×";
    console.log(
      `| ${r.n} | ${r.chains} | ${r.name} | ${r.loadStart.split(" ")[0]} → ${
        r.loadEnd.split(" ")[0]
      } | ${f(r.wallS)} | ${f(r.cpuS)} | ${f(1000 * r.cpuS / grads, 2)} | ${
        f(r.warmupGradients, 0)
      } + ${f(r.samplingGradients, 0)} | ${r.stepSize.toPrecision(3)} | ${
        r.trajectoryLength?.toPrecision(3) ?? "–"
      } | ${r.meanTreeDepth === null ? "–" : f(r.meanTreeDepth, 2)} | ${triple(ess, 0)} | ${
        triple(ess.map((e) => e / r.cpuS), 2)
      } | ${triple(ess.map((e) => e / grads), 3)} | ${vsStan} |`,
    );
  }
}

const flags = Object.fromEntries(
  Deno.args.filter((a) => a.startsWith("--") && !a.startsWith("--run=")).map((a) => {
    const eq = a.indexOf("=");
    return eq < 0 ? [a.slice(2), "true"] : [a.slice(2, eq), a.slice(eq + 1)];
  }),
);
for (const k of Object.keys(flags)) {
  if (!["seeds", "chains", "dir", "out", "table"].includes(k)) {
    console.error(`unknown flag --${k} (known: --seeds, --chains, --dir, --out, --table, --run)`);
    Deno.exit(2);
  }
}
const runs = Deno.args.filter((a) => a.startsWith("--run=")).map((a) => a.slice(6));
if (flags.table !== undefined) {
  const rows = (await Deno.readTextFile(flags.table)).trim().split("\n").filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Row);
  rows.sort((a, b) =>
    a.n - b.n || a.chains - b.chains || Number(!a.name.startsWith("Stan")) -
      Number(!b.name.startsWith("Stan"))
  );
  _print(rows);
  Deno.exit(0);
}
const numSeeds = flags.seeds === undefined ? 0 : Number(flags.seeds);
const chains = flags.chains === undefined ? 1 : Number(flags.chains);
const dir = flags.dir ?? `${Deno.env.get("TMPDIR") ?? "/tmp"}/tallmc_stan_bench`;
const sizes = Deno.args.filter((a) => !a.startsWith("--")).map(Number);
if (sizes.length === 0) sizes.push(1e5);
if (flags.seeds !== undefined && (!Number.isInteger(numSeeds) || numSeeds < 1)) {
  console.error(`--seeds must be a positive integer, got ${flags.seeds}`);
  Deno.exit(2);
}
if (chains !== 1 && chains !== 4) {
  console.error(`--chains must be 1 or 4, got ${flags.chains}`);
  Deno.exit(2);
}
for (const n of sizes) {
  if (!Number.isInteger(n) || n < 100) {
    console.error(`each size must be a row count ≥ 100 (e.g. 1e5), got ${n}`);
    Deno.exit(2);
  }
}
console.log(`load average at start: ${_load()}; nproc ${navigator.hardwareConcurrency}`);
if (numSeeds > 0) {
  // ESS per gradient of tallmc samplers over seeds 1..K (no Stan, no clock:
  // gradients do not depend on the machine's load).
  const specs = runs.length > 0 ? runs : ["hmc", "nuts"];
  for (const n of sizes) {
    const model = await _model(await _csv(n, dir), false);
    console.log(`\nn = ${n}: min ESS per gradient (sampling / whole run), seeds 1..${numSeeds}`);
    console.log(
      "| seed | sampler | gradients warm-up + sampling | Hessian passes | ε | T | bulk | tail | sd |",
    );
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (let seed = 1; seed <= numSeeds; seed++) {
      for (const spec of specs) {
        const r = await _tallmc(model, spec, 1, seed);
        const all = r.warmupGradients + r.samplingGradients;
        const per = (e: number) =>
          `${(e / r.samplingGradients).toFixed(3)} / ${(e / all).toFixed(3)}`;
        console.log(
          `| ${seed} | ${spec} | ${r.warmupGradients.toFixed(0)} + ${
            r.samplingGradients.toFixed(0)
          } | ${(r.hessianPasses ?? 0).toFixed(0)} | ${r.stepSize.toPrecision(3)} | ${
            r.trajectoryLength?.toPrecision(3) ?? "–"
          } | ${per(r.bulk)} | ${per(r.tail)} | ${per(r.sd)} |`,
        );
      }
    }
  }
  Deno.exit(0);
}
const specs = runs.length > 0 ? runs : ["stan", "hmc", "nuts"];
const missing = specs.includes("stan") ? await _stanMissing() : null;
if (missing !== null) console.log(`Stan is not run: ${missing}.`);
const all: Row[] = [];
for (const n of sizes) {
  const csv = await _csv(n, dir);
  console.log(
    `\nn = ${n}, d = ${D}, ${chains} chain(s)${
      chains > 1 ? " on 2 cores" : ""
    }, ${NUM_WARMUP} + ${NUM_SAMPLES} iterations, ${csv}`,
  );
  const model = specs.some((s) => s !== "stan") ? await _model(csv, chains > 1) : null;
  for (const spec of specs) {
    let row: Row;
    try {
      if (spec === "stan") {
        if (missing !== null) continue;
        row = await _stan(csv, n, chains);
      } else row = await _tallmc(model!, spec, chains);
    } catch (e) {
      console.log(`${spec} did not run: ${(e as Error).message}`);
      continue;
    }
    all.push(row);
    if (flags.out !== undefined) {
      await Deno.writeTextFile(flags.out, JSON.stringify(row) + "\n", { append: true });
    }
    console.log(
      `  ${row.name}: CPU ${row.cpuS.toFixed(1)} s, min bulk/tail/sd ESS ${row.bulk.toFixed(0)}/${
        row.tail.toFixed(0)
      }/${row.sd.toFixed(0)}, load ${row.loadStart} → ${row.loadEnd}`,
    );
  }
}
console.log("");
_print(all);
console.log(`\nload average at end: ${_load()}`);
