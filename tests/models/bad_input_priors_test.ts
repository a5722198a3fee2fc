/**
 * Bad input that used to be accepted silently, through the API and the
 * command line: a response outside the family's domain given to GlmModel,
 * misspelt option names, data used after freeGlmData, runs too large for
 * memory, priors on scales the family does not have or on names the model
 * does not know, an intercept prior without an intercept, conflicting
 * sampler flags, and improper posteriors (separated data under a flat
 * prior). Also the documented values refused before: `--approx-mh-epsilon 0`,
 * `--prior "sigma=flat"`, `--prior "sigma=inverse_gamma(2, 1)"` (whose
 * density on log σ is checked by finite differences and by integration).
 *
 * Every refusal asserts its class (or exit code 2), that the message names
 * the option, flag, row or column and what exists, and that no stack trace
 * is printed. CLI runs are small (50 + 50 iterations, one chain).
 *
 * Needs `--allow-read --allow-write=/tmp --allow-run --allow-env`.
 */
import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";
import { loadCore } from "../../core/load.ts";
import { freeGlmData, glmDataFromArrays, glmDataRows } from "../../data/dataset.ts";
import { closestName } from "../../math/names.ts";
import { GlmModel } from "../../models/glm.ts";
import { buildPrior } from "../../models/prior_build.ts";
import { logScaleDensity } from "../../models/prior_density.ts";
import type { ScalePrior } from "../../models/priors.ts";
import { withPrior } from "../../models/with_prior.ts";
import { priorSpecFromFlags } from "../../cli/prior_flags.ts";
import { cliWording } from "../../cli/args.ts";
import { sampleChains } from "../../samplers/driver.ts";
import { sampleParallel } from "../../samplers/parallel.ts";
import { checkGlmPosterior } from "../../samplers/proper_posterior.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { sample } from "../../samplers/sample.ts";
import { newCostCounter } from "../../models/model.ts";

const arena = loadCore({ backend: "reference" });

function refuses(
  fn: () => unknown,
  type: typeof RangeError | typeof TypeError,
  ...patterns: RegExp[]
): string {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof type, `expected a ${type.name}, got ${error}`);
  const message = (error as Error).message;
  for (const p of patterns) assert.match(message, p);
  return message;
}

/** n rows of (1, x1, x2) with y = [x1 > 0]: perfectly separated by x1. */
function separated(n: number): { x: number[]; y: number[] } {
  const x: number[] = [], y: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = 2 * Math.sin(1.3 * i + 0.1), b = Math.cos(0.7 * i);
    x.push(1, a, b);
    y.push(a > 0 ? 1 : 0);
  }
  return { x, y };
}

/** n rows of (1, x1) with y drawn from a logistic model (not separated). */
function overlapping(n: number): { x: number[]; y: number[] } {
  const x: number[] = [], y: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = Math.sin(0.9 * i), u = (Math.sin(12.9898 * i + 78.233) * 43758.5453) % 1;
    x.push(1, a);
    y.push(Math.abs(u) < 1 / (1 + Math.exp(-(0.3 + a))) ? 1 : 0);
  }
  return { x, y };
}

const NAMES = ["(Intercept)", "x1", "x2"];

Deno.test("GlmModel refuses a response outside its family's domain, naming the row and value", () => {
  const x = [1, 0.3, 1, -1.2, 1, 0.8];
  const data = (y: number[]) => glmDataFromArrays(arena, x, y, { numCols: 2 });
  refuses(
    () => new GlmModel(data([1, 0, 2]), { family: "logistic" }),
    RangeError,
    /"logistic" needs a 0\/1 response; y = 2 at row 3/,
  );
  refuses(
    () => new GlmModel(data([1, -3, 2]), { family: "poisson" }),
    RangeError,
    /"poisson" needs integer counts y ≥ 0; y = -3 at row 2/,
  );
  refuses(
    () => new GlmModel(data([1, 1.5, 2]), { family: "poisson" }),
    RangeError,
    /y = 1.5 at row 2/,
  );
  refuses(
    () => new GlmModel(data([0, 2, -1]), { family: "negative-binomial" }),
    RangeError,
    /"negative-binomial" needs integer counts y ≥ 0; y = -1 at row 3/,
  );
  refuses(
    () => new GlmModel(data([1, 4, 2]), { family: "binomial", trials: [2, 3, 2] }),
    RangeError,
    /integer trials ≥ y ≥ 0; y = 4, trials = 3 at row 2/,
  );
  // The accepted domain still builds.
  new GlmModel(data([1, 0, 1]), { family: "logistic" }).dispose();
  new GlmModel(data([0, 3, 7]), { family: "poisson" }).dispose();
});

Deno.test("unknown option names are a TypeError naming the closest known one", async () => {
  const { x, y } = overlapping(60);
  const data = glmDataFromArrays(arena, x, y, { numCols: 2 });
  refuses(
    () => new GlmModel(data, { family: "logistic", priorScal: 3 } as never),
    TypeError,
    /GlmModel: unknown option "priorScal"; did you mean "priorScale"\?/,
  );
  refuses(
    () => new GlmModel(data, { family: "logistik" as never }),
    TypeError,
    /family must be one of logistic, .*got "logistik"/,
  );
  const model = new GlmModel(data, { family: "logistic" });
  const run = { seed: 1, numWarmup: 5, numChains: 1 };
  refuses(
    () => sample(model, { sampler: "hmc", ...run, numSample: 7 } as never),
    TypeError,
    /sample\(\) with sampler "hmc": unknown option "numSample"; did you mean "numSamples"\?/,
  );
  refuses(
    () => runHmc(model, { ...run, numSample: 7 } as never),
    TypeError,
    /runHmc\(\): unknown option "numSample"; did you mean "numSamples"\?/,
  );
  refuses(
    () => runHmc(model, { ...run, batchSize: 7 } as never),
    TypeError,
    /runHmc\(\): unknown option "batchSize"/,
  );
  refuses(
    () => sample(model, { sampler: "sgld", ...run, bananas: 1 } as never),
    TypeError,
    /unknown option "bananas"; known options: .*batchSize.*controlVariates/,
  );
  await assert.rejects(
    () => sampleParallel(model, { sampler: "hmc", ...run, workers: 0, stepsize: 0.1 } as never),
    (e: Error) => e instanceof TypeError && /did you mean "stepSize"\?/.test(e.message),
  );
  // Correct names still run, and so does an option another sampler reads
  // (one options object may be shared by several samplers).
  const r = sample(model, { sampler: "hmc", ...run, numSamples: 7, batchSize: 10 });
  assert.equal(r.chains[0].numDraws, 7);
  assert.equal(closestName("numsamples", ["numSamples", "numWarmup"]), "numSamples");
  assert.equal(closestName("zzz", ["numSamples"]), undefined);
  model.dispose();
});

Deno.test("a data set is refused after freeGlmData, not read as another's rows", () => {
  const { x, y } = overlapping(20);
  const data = glmDataFromArrays(arena, x, y, { numCols: 2 });
  const model = new GlmModel(data, { family: "logistic" });
  const view = glmDataRows(data, 5, 10);
  freeGlmData(data);
  glmDataFromArrays(arena, x.map((v) => v + 1), y, { numCols: 2 }); // may reuse the memory
  refuses(() => new GlmModel(data, { family: "logistic" }), RangeError, /released by freeGlmData/);
  refuses(() => new GlmModel(view, { family: "logistic" }), RangeError, /released by freeGlmData/);
  refuses(() => model.logDensity(new Float64Array(2)), RangeError, /released by freeGlmData/);
  refuses(() => freeGlmData(data), RangeError, /freeGlmData: .*released/);
});

Deno.test("a run whose draws cannot fit in memory is refused before it starts", () => {
  const model = { dim: 3, cost: newCostCounter() };
  const sampler = {
    init: () => {
      throw new Error("must not start");
    },
    step: () => ({ state: 0, info: { isDivergent: false } }),
    position: () => new Float64Array(3),
  };
  refuses(
    () => sampleChains({ sampler, model, seed: 1, numSamples: 1e9, numChains: 4 }),
    RangeError,
    /sampleChains: numSamples = 1000000000, .*numChains = 4 with d = 3 would need about .* GB.*the limit is 2\.15 GB/,
  );
});

Deno.test("priors: unknown scales, log_sigma=, and an intercept prior without an intercept are refused", () => {
  refuses(
    () => buildPrior(NAMES, { scales: { sigma: "half_normal(1)" } }),
    RangeError,
    /prior of scale "sigma": the model has no scale parameter \(σ or φ\) \(parameters: \(Intercept\), x1, x2\)/,
  );
  refuses(
    () => buildPrior([...NAMES, "log_sigma"], { scales: { phi: "exponential(1)" } }),
    RangeError,
    /no scale phi; its scale parameters: sigma \(sampled as log_sigma\)/,
  );
  refuses(
    () => buildPrior([...NAMES, "log_sigma"], { terms: { log_sigma: "flat" } }),
    RangeError,
    /prior of "log_sigma": log_sigma is a scale parameter.*sigma=half_normal\(1\)/,
  );
  refuses(
    () => buildPrior(NAMES, { coeficients: "normal(0, 1)" } as never),
    TypeError,
    /prior spec: unknown option "coeficients"; did you mean "coefficients"\?/,
  );
  refuses(
    () => buildPrior(NAMES, { scales: { x1: "half_normal(1)" } }),
    RangeError,
    /prior of "x1": a coefficient needs normal, .*got the scale prior half_normal\(1\)/,
  );
  refuses(
    () => buildPrior(["x1", "x2"], { intercept: "normal(0, 5)" }),
    RangeError,
    /prior of the intercept was given, but the model has no intercept/,
  );
  // What exists is accepted: sigma=flat and sigma=inverse_gamma on log σ.
  const p = buildPrior([...NAMES, "log_sigma"], { scales: { sigma: "flat" } });
  assert.equal(p.describe()[3], "log_sigma ~ flat");
});

Deno.test("withPrior keeps a sampled ν's own Gamma prior instead of replacing it", () => {
  const { x, y } = overlapping(50);
  const data = glmDataFromArrays(arena, x, y.map((v, i) => v + Math.sin(i)), {
    numCols: 2,
    columnNames: ["(Intercept)", "x1"],
  });
  const own = new GlmModel(data, {
    family: "student-t",
    nu: "sample",
    nuPrior: { shape: 3, rate: 0.2 },
  });
  const w = withPrior(own, { coefficients: "normal(0, 1)", intercept: "normal(0, 1)" });
  assert.equal(w.prior.describe()[3], "log_nu_minus_1 ~ gamma(3, 0.2)");
  // The ν term of both priors is the same function of ω.
  const at = (m: { logPrior(t: Float64Array): number }, omega: number) =>
    m.logPrior(new Float64Array([0.1, 0.2, 0.3, omega]));
  for (const omega of [-1, 0.5, 2]) {
    const a = at(own, omega) - at(own, 0), b = at(w, omega) - at(w, 0);
    assert.ok(Math.abs(a - b) < 1e-12, `ω = ${omega}: ${a} vs ${b}`);
  }
  const plain = withPrior(new GlmModel(data, { family: "student-t", nu: "sample" }), {});
  assert.equal(plain.prior.describe()[3], "log_nu_minus_1 ~ gamma(2, 0.1)");
  refuses(
    () => buildPrior(["x1", "log_sigma", "log_nu_minus_1"], { scales: { nu: "half_normal(1)" } }),
    RangeError,
    /sampled ν of student-t takes gamma\(shape, rate\)/,
  );
});

Deno.test("--prior sigma=flat and sigma=inverse_gamma(2, 1) are scale priors; the IG density on log σ is right", async () => {
  const spec = await priorSpecFromFlags({ prior: ["sigma=inverse_gamma(2, 1)", "x1=flat"] });
  assert.deepEqual(spec.scales, { sigma: { family: "inverse_gamma", shape: 2, scale: 1 } });
  assert.deepEqual(spec.terms, { x1: { family: "flat" } });
  const flat = await priorSpecFromFlags({ prior: ["sigma=flat"] });
  assert.deepEqual(flat.scales, { sigma: { family: "flat" } });
  // log p(τ) = log p_σ(e^τ) + τ with σ² ~ IG(a, b): finite differences of the
  // value and gradient, and ∫ p(τ) dτ = 1 (the Jacobian is included).
  const f = logScaleDensity(spec.scales!.sigma as ScalePrior);
  const h = 1e-5;
  for (const tau of [-1.7, -0.4, 0, 0.3, 1.2]) {
    const [, g, hh] = f(tau);
    const fd = (f(tau + h)[0] - f(tau - h)[0]) / (2 * h);
    const fd2 = (f(tau + h)[1] - f(tau - h)[1]) / (2 * h);
    assert.ok(Math.abs(g - fd) < 1e-6 * (1 + Math.abs(g)), `gradient at ${tau}: ${g} vs ${fd}`);
    assert.ok(Math.abs(hh - fd2) < 1e-5 * (1 + Math.abs(hh)), `Hessian at ${tau}: ${hh} vs ${fd2}`);
  }
  // Closed form at σ = 1 (τ = 0): log(2 b^a / Γ(a)) − b = log 2 − 1 for a = 2, b = 1.
  assert.ok(Math.abs(f(0)[0] - (Math.LN2 - 1)) < 1e-12);
  let mass = 0;
  const step = 1e-3;
  for (let tau = -8; tau < 8; tau += step) mass += Math.exp(f(tau + step / 2)[0]) * step;
  assert.ok(Math.abs(mass - 1) < 1e-6, `∫ p(τ) dτ = ${mass}`);
  // The model samples with it.
  const { x, y } = overlapping(80);
  const data = glmDataFromArrays(arena, x, y.map((v, i) => v + 0.1 * Math.sin(i)), {
    numCols: 2,
    columnNames: ["(Intercept)", "x1"],
  });
  const model = withPrior(new GlmModel(data, { family: "gaussian-scale" }), {
    scales: { sigma: "inverse_gamma(2, 1)" },
  });
  const r = sample(model, {
    sampler: "hmc",
    seed: 3,
    numWarmup: 100,
    numSamples: 50,
    numChains: 1,
  });
  assert.equal(r.chains[0].stop, null);
  assert.ok(r.draws[0][2].every(Number.isFinite));
});

Deno.test("improper posteriors: separated data under a flat prior are refused, under a proper prior warned", () => {
  const { x, y } = separated(300);
  const data = glmDataFromArrays(arena, x, y, { numCols: 3, columnNames: NAMES });
  const flat = new GlmModel(data, { family: "logistic", priorScale: [10, Infinity, 10] });
  const r = checkGlmPosterior(flat);
  assert.match(r.error!, /posterior is improper: the data are separated .* by x1/);
  assert.match(r.error!, /x1 → \+∞/);
  assert.match(r.error!, /give x1 a proper prior/);
  assert.deepEqual(r.columns, ["x1"]);
  assert.deepEqual(flat.cost, newCostCounter(), "the check leaves the cost counter as it was");
  refuses(
    () => sample(flat, { sampler: "hmc", seed: 1, numWarmup: 10, numSamples: 10, numChains: 1 }),
    RangeError,
    /sample\(\): the posterior is improper: .*separated.*x1.*proper prior/,
  );
  refuses(
    () => runHmc(flat, { seed: 1, numWarmup: 10, numSamples: 10, numChains: 1 }),
    RangeError,
    /runHmc\(\): the posterior is improper/,
  );
  const proper = withPrior(new GlmModel(data, { family: "logistic" }), {
    coefficients: "normal(0, 2.5)",
  });
  const w = checkGlmPosterior(proper);
  assert.equal(w.error, null);
  assert.match(w.warnings.join("\n"), /separated .* by x1: the likelihood alone keeps increasing/);
  // A duplicated column under flat priors: log π is constant along x1 − x3.
  const dup = overlapping(300);
  const dx: number[] = [];
  for (let i = 0; i < 300; i++) dx.push(1, dup.x[2 * i + 1], dup.x[2 * i + 1]);
  const dupData = glmDataFromArrays(arena, dx, dup.y, {
    numCols: 3,
    columnNames: ["(Intercept)", "x1", "x3"],
  });
  const collinear = checkGlmPosterior(
    new GlmModel(dupData, { family: "logistic", priorScale: [10, Infinity, Infinity] }),
  );
  assert.match(collinear.error!, /constant along .*x1.*x3.*collinear/);
  assert.deepEqual([...collinear.columns].sort(), ["x1", "x3"]);
  // Overlapping data under a flat prior: nothing to say.
  const ok = overlapping(400);
  const okData = glmDataFromArrays(arena, ok.x, ok.y, { numCols: 2 });
  assert.deepEqual(
    checkGlmPosterior(new GlmModel(okData, { family: "logistic", priorScale: Infinity })),
    { error: null, warnings: [], columns: [] },
  );
});

Deno.test("cliWording names flags instead of library options", () => {
  assert.equal(
    cliWording("standardise the columns (e.g. with standardize()) or rescale x"),
    "standardise the columns (--formula with --standardize) or rescale x",
  );
  assert.equal(
    cliWording('column "a" is listed twice in columns'),
    'column "a" is listed twice in --columns',
  );
  assert.match(cliWording("state it as (scales: { sigma: … })"), /\(--prior sigma=…\)/);
});

// ---------------------------------------------------------------- the CLI

const CLI = fromFileUrl(new URL("../../cli.ts", import.meta.url));

interface _Run {
  code: number;
  out: string;
  err: string;
}

async function cli(args: string[]): Promise<_Run> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env=INIT_CWD", CLI, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  const run = { code: r.code, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
  assert.ok(!/^\s+at /m.test(run.err), `stack trace printed:\n${run.err}`);
  return run;
}

async function pool<T, R>(items: readonly T[], fn: (x: T) => Promise<R>, width = 3): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

interface _Case {
  name: string;
  args: string[];
  code: number;
  err?: RegExp[];
  out?: RegExp[];
}

Deno.test("[e2e] CLI: priors, conflicting flags, documented values and separation", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_bad_priors_" });
  try {
    const sep = separated(200);
    const ok = overlapping(200);
    const csv = (d: { x: number[]; y: number[] }, k: number, header: string) =>
      [header, ...d.y.map((v, i) => [v, ...d.x.slice(i * k + 1, i * k + k)].join(","))].join("\n") +
      "\n";
    await Deno.writeTextFile(`${dir}/sep.csv`, csv(sep, 3, "y,x1,x2"));
    await Deno.writeTextFile(`${dir}/ok.csv`, csv(ok, 2, "y,x1"));
    const gauss = ok.x.filter((_, i) => i % 2 === 1).map((a, i) =>
      `${(0.5 + a + 0.3 * Math.sin(7 * i)).toFixed(4)},${a}`
    );
    await Deno.writeTextFile(`${dir}/gauss.csv`, ["y,x1", ...gauss].join("\n") + "\n");
    const big = ok.x.filter((_, i) => i % 2 === 1).map((a, i) =>
      `${ok.y[i]},${a},${(i % 7) * 1e8}`
    );
    await Deno.writeTextFile(`${dir}/big.csv`, ["y,x1,x2", ...big].join("\n") + "\n");
    const small = ["--samples", "50", "--warmup", "50", "--chains", "1", "--workers", "0"];
    const run = (data: string, family: string, more: string[]) => [
      "sample",
      "--family",
      family,
      "--data",
      `${dir}/${data}`,
      ...(more.includes("--formula") ? [] : ["--response", "y"]),
      ...small,
      ...more,
    ];
    const cases: _Case[] = [
      {
        name: "separated data, flat prior: exit 2 naming separation, the column and the fix",
        args: run("sep.csv", "logistic", ["--prior", "flat", "--out", `${dir}/never.csv`]),
        code: 2,
        err: [/posterior is improper/, /separated .* by x1/, /--prior "normal\(0, 2\.5\)"/],
      },
      {
        name: "separated data, proper prior: runs and warns naming the column",
        args: run("sep.csv", "logistic", ["--prior", "normal(0, 2.5)"]),
        code: 0,
        err: [/warning: the data are separated .* by x1/],
      },
      {
        name: "separated data, default prior: runs and warns",
        args: run("sep.csv", "logistic", []),
        code: 0,
        err: [/warning: the data are separated .* by x1/],
      },
      {
        name: "sigma= on a family without σ",
        args: run("ok.csv", "logistic", ["--prior", "sigma=half_normal(1)"]),
        code: 2,
        err: [
          /--prior: prior of scale "sigma": the model has no scale parameter/,
          /parameters: \(Intercept\), x1/,
        ],
      },
      {
        name: "phi= on a family with σ",
        args: run("gauss.csv", "gaussian", ["--prior", "phi=exponential(1)"]),
        code: 2,
        err: [/no scale phi; its scale parameters: sigma \(sampled as log_sigma\)/],
      },
      {
        name: "log_sigma=flat names the parameter's scale form",
        args: run("gauss.csv", "gaussian", ["--prior", "log_sigma=flat"]),
        code: 2,
        err: [/log_sigma is a scale parameter/, /sigma=half_normal\(1\)/, /--prior sigma=…/],
      },
      {
        name: "--prior-intercept with --no-intercept",
        args: run("ok.csv", "logistic", ["--prior-intercept", "normal(0, 5)", "--no-intercept"]),
        code: 2,
        err: [/--prior-intercept "normal\(0, 5\)" cannot be combined with --no-intercept/],
      },
      {
        name: "--prior-intercept with a formula without intercept",
        args: run("ok.csv", "logistic", [
          "--formula",
          "y ~ 0 + x1",
          "--prior-intercept",
          "normal(0, 5)",
        ]),
        code: 2,
        err: [
          /--prior-intercept: a prior of the intercept was given, but the model has no intercept/,
        ],
      },
      {
        name: "--prior-aux and --prior sigma= both",
        args: run("gauss.csv", "gaussian", [
          "--prior-aux",
          "half_normal(1)",
          "--prior",
          "sigma=flat",
        ]),
        code: 2,
        err: [/--prior-aux "half_normal\(1\)" and --prior "sigma=flat" both set the prior/],
      },
      {
        name: "--prior-scale with --formula is applied, not ignored",
        args: run("ok.csv", "logistic", ["--formula", "y ~ x1", "--prior-scale", "3"]),
        code: 0,
        out: [/prior: \(Intercept\) ~ normal\(0, 3\)/, /prior: x1 ~ normal\(0, 3\)/],
      },
      {
        name: "--prior sigma=flat runs",
        args: run("gauss.csv", "gaussian", ["--prior", "sigma=flat"]),
        code: 0,
        out: [/prior: log_sigma ~ flat/],
      },
      {
        name: "--prior sigma=inverse_gamma(2, 1) runs",
        args: run("gauss.csv", "gaussian", ["--prior", "sigma=inverse_gamma(2, 1)"]),
        code: 0,
        out: [/prior: log_sigma ~ inverse_gamma\(2, 1\)/],
      },
      {
        name: "--approx-mh-epsilon 0 (exact MH) runs",
        args: run("ok.csv", "logistic", [
          "--sampler",
          "austerity-rwmh",
          "--approx-mh-epsilon",
          "0",
        ]),
        code: 0,
      },
      {
        name: "--approx-mh-epsilon -1 is refused",
        args: run("ok.csv", "logistic", [
          "--sampler",
          "austerity-rwmh",
          "--approx-mh-epsilon=-1",
        ]),
        code: 2,
        err: [/--approx-mh-epsilon must be a number ≥ 0, got "-1"/],
      },
      {
        name: "--warmup-scheme chees with --trajectory-length",
        args: run("ok.csv", "logistic", ["--warmup-scheme", "chees", "--trajectory-length", "2"]),
        code: 2,
        err: [/--trajectory-length 2 cannot be combined with --warmup-scheme chees/],
      },
      {
        name: "--cv-order with --control-variates no",
        args: run("ok.csv", "logistic", [
          "--sampler",
          "sgld",
          "--cv-order",
          "1",
          "--control-variates",
          "no",
        ]),
        code: 2,
        err: [/--cv-order 1 cannot be combined with --control-variates no:/],
      },
      {
        name: "--cv-order where the sampler's control variates are off by default",
        args: run("ok.csv", "logistic", ["--sampler", "sgnht", "--cv-order", "2"]),
        code: 2,
        err: [
          /--cv-order 2 cannot be combined with --control-variates no \(the default of --sampler sgnht\)/,
        ],
      },
      {
        name: "--target-acceptance with a fixed --step-size",
        args: run("ok.csv", "logistic", [
          "--sampler",
          "qnhmc",
          "--step-size",
          "0.1",
          "--target-acceptance",
          "0.9",
        ]),
        code: 2,
        err: [
          /--target-acceptance 0.9 cannot be combined with --step-size 0.1 for --sampler qnhmc/,
        ],
      },
      {
        name: "a hint about extreme columns names the flag, not standardize()",
        args: run("big.csv", "logistic", []),
        code: 0,
        err: [/column "x2" has values up to .*--formula with --standardize/],
      },
    ];
    const results = await pool(cases, (c) => cli(c.args));
    cases.forEach((c, i) => {
      const r = results[i];
      assert.equal(r.code, c.code, `${c.name}: exit ${r.code}\n${r.err}`);
      for (const p of c.err ?? []) assert.match(r.err, p, c.name);
      for (const p of c.out ?? []) assert.match(r.out, p, c.name);
      assert.doesNotMatch(r.err, /standardize\(\)/, c.name);
    });
    await assert.rejects(() => Deno.stat(`${dir}/never.csv`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
