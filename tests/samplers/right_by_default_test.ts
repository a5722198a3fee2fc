/**
 * Right by default: robust starts (damped Newton from a data-based point,
 * per-chain Laplace draws, `--init`), warm-up that survives indefinite
 * Hessians, and the verdict block with `--strict`.
 *
 * The headline check: an unstandardised Gaussian regression (response scale
 * 2·10⁴, slope–intercept posterior correlation below −0.999) sampled with the
 * default CLI settings reaches R̂ < 1.01 and the analytic posterior.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { essBulk, essSd, mcseMean, rhat } from "../../diagnostics/mod.ts";
import { formatVerdict, verdict } from "../../diagnostics/verdict.ts";
import { GlmModel } from "../../models/glm.ts";
import { Rng } from "../../random/rng.ts";
import { metricFromNegativeHessian } from "../../samplers/metric.ts";
import { dataBasedStart, optimizeStart } from "../../samplers/optimize_start.ts";
import { hmcSampler } from "../../samplers/hmc/chain_sampler.ts";
import { parseHmcInit } from "../../samplers/hmc/options.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { denseFitsWarmup } from "../../samplers/window_adaptation.ts";
import {
  dataModelHessianFn,
  windowedAdaptationInit,
  windowedAdaptationUpdate,
} from "../../samplers/mass_matrix_adaptation.ts";
import { cholesky, inverseSpd } from "../../math/linalg.ts";
import { initFromFlag } from "../../cli/verdict_print.ts";
import { runCli } from "../_cli_fixtures.ts";

const N = 1000;

/** x ~ N(1000, 1), y = 2e4 + 5x + 2e4·ε: the slope–intercept correlation is about −0.9999995. */
function _income(seed: number, n = N): { x: Float64Array; y: Float64Array } {
  const rng = new Rng(seed);
  const x = new Float64Array(n), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = 1000 + rng.normal();
    y[i] = 2e4 + 5 * x[i] + 2e4 * rng.normal();
  }
  return { x, y };
}

function _csv(x: Float64Array, y: Float64Array): string {
  const lines = ["x,y"];
  for (let i = 0; i < x.length; i++) lines.push(`${x[i]},${y[i]}`);
  return lines.join("\n") + "\n";
}

/**
 * The posterior of (β₀, β₁) under a flat prior on β and on σ: multivariate t
 * with ν = n − 3 degrees of freedom, mean β̂ (least squares) and covariance
 * S/(ν − 2)·(XᵀX)⁻¹, S the residual sum of squares.
 */
function _analytic(x: Float64Array, y: Float64Array) {
  let sx = 0, sy = 0;
  for (let i = 0; i < N; i++) (sx += x[i], sy += y[i]);
  const mx = sx / N, my = sy / N;
  let sxx = 0, sxy = 0;
  for (let i = 0; i < N; i++) (sxx += (x[i] - mx) ** 2, sxy += (x[i] - mx) * (y[i] - my));
  const b1 = sxy / sxx, b0 = my - b1 * mx;
  let s = 0;
  for (let i = 0; i < N; i++) s += (y[i] - b0 - b1 * x[i]) ** 2;
  const xtx = new Float64Array([N, sx, sx, x.reduce((a, v) => a + v * v, 0)]);
  const inv = inverseSpd(xtx);
  const nu = N - 3;
  const c = s / (nu - 2);
  return { mean: [b0, b1], sd: [Math.sqrt(c * inv[0]), Math.sqrt(c * inv[3])] };
}

function _readDraws(text: string, names: string[]): Float64Array[][] {
  const lines = text.trim().split("\n");
  const header = lines[0].split(",");
  const cols = names.map((n) => header.indexOf(n));
  const byChain = new Map<number, number[][]>();
  for (const line of lines.slice(1)) {
    const f = line.split(",");
    const c = Number(f[0]);
    if (!byChain.has(c)) byChain.set(c, names.map(() => []));
    cols.forEach((k, j) => byChain.get(c)![j].push(Number(f[k])));
  }
  return [...byChain.values()].map((chain) => chain.map((v) => Float64Array.from(v)));
}

Deno.test("an income-scale Gaussian regression with correlation < −0.999 is right with the default settings", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { x, y } = _income(2025);
    const csv = `${dir}/income.csv`, out = `${dir}/draws.csv`;
    await Deno.writeTextFile(csv, _csv(x, y));
    // The prior flags state the model (nearly flat β, flat σ); everything else is default.
    const r = await runCli([
      "sample",
      "--family",
      "gaussian",
      "--data",
      csv,
      "--response",
      "y",
      "--prior-scale",
      "1e8",
      "--prior-aux",
      "flat",
      "--out",
      out,
      "--quiet",
      "--workers",
      "0",
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /verdict: converged/);
    const names = ["(Intercept)", "x"];
    const draws = _readDraws(await Deno.readTextFile(out), names);
    assert.equal(draws.length, 4);
    const truth = _analytic(x, y);
    names.forEach((name, j) => {
      const chains = draws.map((c) => c[j]);
      assert.ok(rhat(chains) < 1.01, `${name}: R̂ ${rhat(chains)}`);
      assert.ok(essBulk(chains) > 400, `${name}: ESS ${essBulk(chains)}`);
      const pooled = chains.flatMap((c) => Array.from(c));
      const mean = pooled.reduce((a, b) => a + b, 0) / pooled.length;
      const sd = Math.sqrt(pooled.reduce((a, b) => a + (b - mean) ** 2, 0) / (pooled.length - 1));
      const mcse = mcseMean(chains);
      // 4 MCSE (the prior's pull is below 1e-4 sd); the sd within 5·sd/√(2·ESS) with the
      // ESS of the sd (of θ and θ²): with antithetic draws the bulk ESS of the mean can
      // exceed the number of draws while the sd's stays below it.
      assert.ok(
        Math.abs(mean - truth.mean[j]) < 4 * mcse,
        `${name}: mean ${mean} vs ${truth.mean[j]} (MCSE ${mcse})`,
      );
      const sdTol = 5 * truth.sd[j] / Math.sqrt(2 * essSd(chains));
      assert.ok(
        Math.abs(sd - truth.sd[j]) < sdTol,
        `${name}: sd ${sd} vs ${truth.sd[j]} (tolerance ${sdTol}, sd ESS ${essSd(chains)})`,
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function _incomeModel(priorScale = 10, n = N) {
  const { x, y } = _income(7, n);
  const xx = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) (xx[2 * i] = 1, xx[2 * i + 1] = x[i]);
  const data = glmDataFromArrays(loadCore(), xx, y, {
    numCols: 2,
    columnNames: ["(Intercept)", "x"],
  });
  return new GlmModel(data, { family: "gaussian-scale", priorScale });
}

Deno.test("--metric hessian completes on a model whose Hessian is indefinite at the start", async () => {
  const model = _incomeModel(10, 200);
  const h = new Float64Array(9);
  dataModelHessianFn(model)(new Float64Array(3), h);
  // −H at θ = 0 is not positive definite: the old warm-up stopped here.
  assert.throws(() => cholesky(h.map((v) => -v)), /not positive definite/);
  // The metric from it is regularised, not an error.
  const m = metricFromNegativeHessian(h);
  assert.ok(m.inverseMassMatrix.every(Number.isFinite));
  const dir = await Deno.makeTempDir();
  try {
    const { x, y } = _income(7, 200);
    const csv = `${dir}/income.csv`;
    await Deno.writeTextFile(csv, _csv(x, y));
    const r = await runCli([
      "sample",
      "--family",
      "gaussian",
      "--data",
      csv,
      "--response",
      "y",
      "--metric",
      "hessian",
      "--warmup",
      "250",
      "--samples",
      "100",
      "--chains",
      "2",
      "--quiet",
      "--workers",
      "0",
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /hmc: 2 chain\(s\) × 100 draws/);
    assert.match(r.out, /^verdict: /m);
    assert.doesNotMatch(r.err, /stopped/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--strict exits 3 on a run that fails its verdict, 0 without it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { x, y } = _income(3);
    const csv = `${dir}/income.csv`;
    await Deno.writeTextFile(csv, _csv(x, y));
    const args = [
      "sample",
      "--family",
      "gaussian",
      "--data",
      csv,
      "--response",
      "y",
      "--sampler",
      "rwmh",
      "--warmup",
      "50",
      "--samples",
      "50",
      "--quiet",
      "--workers",
      "0",
    ];
    const strict = await runCli([...args, "--strict"]);
    assert.equal(strict.code, 3, strict.err);
    assert.match(strict.out, /verdict: NOT converged/);
    assert.match(strict.out, /likely cause: /);
    assert.match(strict.out, /fix: .*--sampler hmc/);
    const lax = await runCli(args);
    assert.equal(lax.code, 0, lax.err);
    assert.match(lax.out, /verdict: NOT converged/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the verdict aggregates long lists: d = 1000 failing parameters print a few lines", () => {
  const names = Array.from({ length: 1000 }, (_, j) => `b${j}`);
  const rng = new Rng(1);
  const chains = [0, 1].map((c) => ({
    draws: names.map(() => Float64Array.from({ length: 50 }, () => 5 * c + rng.normal())),
    numDraws: 50,
    numDivergent: { warmup: 300, sampling: 0 },
  }));
  const v = verdict({ parameterNames: names, chains });
  assert.equal(v.converged, false);
  assert.equal(v.problems.find((p) => p.check === "rhat")?.parameters.length, 1000);
  const lines = formatVerdict(v);
  assert.ok(lines.length <= 12, lines.join("\n"));
  assert.match(lines.join("\n"), /and 994 more/);
  // Warmup divergences: one note, not a failure.
  assert.equal(lines.filter((l) => /in warmup/.test(l)).length, 1);
  // A start-search warning is a note: mixed chains still converge.
  const mixed = [0, 1, 2, 3].map(() => ({
    draws: [Float64Array.from({ length: 400 }, () => rng.normal())],
    numDraws: 400,
    tuning: { startWarning: 'log π still rises fastest in "b"' },
  }));
  const ok = verdict({ parameterNames: ["b"], chains: mixed });
  assert.equal(ok.converged, true);
  const okLines = formatVerdict(ok);
  assert.match(okLines[0], /^verdict: converged/);
  assert.equal(okLines.filter((l) => /note: start search: .*"b"/.test(l)).length, 1);
});

Deno.test("the start search reaches the mode from θ = 0 for a family with σ, and names a flat parameter", () => {
  const model = _incomeModel(1e8);
  const fn = (t: Float64Array, g: Float64Array) => model.logDensityAndGradient(t, g);
  const hessianFn = dataModelHessianFn(model);
  const names = model.parameterNames;
  // From θ = 0 (where −H is indefinite) and from the data-based point: the same mode.
  const fromZero = optimizeStart(fn, new Float64Array(3), {
    hessianFn,
    maxIterations: 200,
    parameterNames: names,
  });
  const start = dataBasedStart(model)!;
  assert.ok(Math.abs(start[2] - Math.log(2e4)) < 0.2, `log σ start ${start[2]}`);
  const fromData = optimizeStart(fn, start, {
    hessianFn,
    maxIterations: 50,
    parameterNames: names,
  });
  for (const r of [fromZero, fromData]) assert.equal(r.warning, null);
  assert.ok(fromData.isConverged);
  const sd = Math.sqrt(fromData.laplaceCovariance![0]);
  assert.ok(Math.abs(fromZero.position[0] - fromData.position[0]) < 0.05 * sd);
  // A direction the posterior does not identify: the warning names it.
  const flat = optimizeStart(
    (t, g) => {
      g[0] = -t[0];
      g[1] = 0;
      return -0.5 * t[0] * t[0];
    },
    new Float64Array([3, 0]),
    { hessianFn: (_t, h) => h.set([-1, 0, 0, 0]), parameterNames: ["a", "b"] },
  );
  assert.match(flat.warning ?? "", /"b"/);
});

Deno.test("init: laplace disperses chains around the mode, 0 keeps the given point, uniform(R) stays within R", () => {
  const model = _incomeModel(1e8);
  const given = new Float64Array([1, 2, 3]);
  const starts = (init: string) =>
    [0, 1, 2].map((c) => hmcSampler(model, { init }).init(given, new Rng(100 + c)).hmc.position);
  const laplace = starts("laplace");
  const mode = optimizeStart(
    (t, g) => model.logDensityAndGradient(t, g),
    dataBasedStart(model)!,
    { hessianFn: dataModelHessianFn(model), maxIterations: 50 },
  );
  const sd = [0, 4, 8].map((k) => Math.sqrt(mode.laplaceCovariance![k]));
  for (const p of laplace) {
    for (let j = 0; j < 3; j++) {
      assert.ok(Math.abs(p[j] - mode.position[j]) < 5 * sd[j], `coordinate ${j}: ${p[j]}`);
    }
  }
  assert.notDeepEqual(laplace[0], laplace[1]);
  for (const p of starts("0")) assert.deepEqual(Array.from(p), [1, 2, 3]);
  const uniform = starts("uniform(0.5)");
  for (const p of uniform) {
    for (let j = 0; j < 3; j++) assert.ok(Math.abs(p[j] - given[j]) <= 0.5);
  }
  assert.notDeepEqual(uniform[0], uniform[1]);
  assert.throws(() => parseHmcInit("uniform(-1)"), /init must be/);
  assert.throws(() => hmcSampler(model, { init: "laplce" }), /init must be/);
});

Deno.test("with no init, every metric and warm-up scheme starts chains dispersed around the mode", () => {
  const model = _incomeModel(1e8);
  const zero = new Float64Array(3);
  const mode = optimizeStart(
    (t, g) => model.logDensityAndGradient(t, g),
    dataBasedStart(model)!,
    { hessianFn: dataModelHessianFn(model), maxIterations: 50 },
  );
  const sd = [0, 4, 8].map((k) => Math.sqrt(mode.laplaceCovariance![k]));
  for (
    const options of [
      { metricAdaptation: "identity" },
      { metricAdaptation: "hessian" },
      { metricAdaptation: "diagonal", numIntegrationSteps: 5 },
    ] as const
  ) {
    const starts = [0, 1].map((c) =>
      hmcSampler(model, options).init(zero, new Rng(200 + c)).hmc.position
    );
    assert.notDeepEqual(starts[0], starts[1], JSON.stringify(options));
    for (const p of starts) {
      for (let j = 0; j < 3; j++) {
        assert.ok(
          Math.abs(p[j] - mode.position[j]) < 5 * sd[j],
          `${options.metricAdaptation} ${j}: ${p[j]}`,
        );
      }
    }
  }
});

Deno.test("metric auto keeps a dense choice only when the warm-up's last window holds 4 draws per dimension", () => {
  const n = 300, d = 20;
  const rng = new Rng(11);
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const z = rng.normal();
    x[i * d] = 1;
    for (let j = 1; j < d; j++) x[i * d + j] = 0.95 * z + Math.sqrt(1 - 0.95 ** 2) * rng.normal();
    y[i] = x[i * d + 1] + rng.normal();
  }
  const model = new GlmModel(glmDataFromArrays(loadCore(), x, y, { numCols: d }), {
    family: "gaussian-scale",
    priorScale: 10,
  });
  const scheme = (numWarmup: number) =>
    runHmc(model, { seed: 3, numWarmup, numSamples: 5, numChains: 1 }).chains[0].tuning
      .metricAdaptation;
  // 200 iterations: last window 100–150, 50 draws < 4·21; 1000: 450–950, 500 draws.
  assert.equal(denseFitsWarmup(model.dim, 200), false);
  assert.equal(scheme(200), "diagonal");
  assert.equal(scheme(1000), "dense");
  // An explicit dense metric is kept whatever the warm-up.
  assert.equal(
    runHmc(model, {
      seed: 3,
      numWarmup: 200,
      numSamples: 5,
      numChains: 1,
      metricAdaptation: "dense",
    })
      .chains[0].tuning.metricAdaptation,
    "dense",
  );
});

Deno.test("--init FILE.json, 0 and uniform(R) on the command line; bad values name the flag", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/init.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify([{ "(Intercept)": 1, x: 2 }, { "(Intercept)": 3, x: 4 }]),
    );
    const c = initFromFlag(file, {
      sampler: "hmc",
      parameterNames: ["(Intercept)", "x"],
      numChains: 2,
    });
    assert.deepEqual(c.driver.initialPositions!.map((p) => Array.from(p)), [[1, 2], [3, 4]]);
    assert.deepEqual(c.samplerOptions, { init: "given" });
    assert.equal(
      initFromFlag("uniform(2)", { sampler: "hmc", parameterNames: ["a"], numChains: 1 }).driver
        .jitter,
      2,
    );
    const rng = new Rng(5);
    const rows = ["a,y"];
    for (let i = 0; i < 200; i++) {
      const a = rng.normal();
      rows.push(`${a},${(rng.uniform() < 1 / (1 + Math.exp(-a)) ? 1 : 0)}`);
    }
    const csv = `${dir}/d.csv`;
    await Deno.writeTextFile(csv, rows.join("\n") + "\n");
    const base = [
      "sample",
      "--family",
      "logistic",
      "--data",
      csv,
      "--response",
      "y",
      "--chains",
      "2",
      "--warmup",
      "100",
      "--samples",
      "100",
      "--quiet",
      "--workers",
      "0",
    ];
    await Deno.writeTextFile(file, JSON.stringify({ "(Intercept)": 0.1, a: 0.2 }));
    for (const init of [file, "0", "uniform(1)", "laplace"]) {
      const r = await runCli([...base, "--init", init]);
      assert.equal(r.code, 0, `${init}: ${r.err}`);
      assert.match(r.out, /^verdict: /m);
    }
    const bad = await runCli([...base, "--init", "uniform(x)"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--init uniform\(R\) needs a positive number R/);
    await Deno.writeTextFile(file, JSON.stringify({ b: 1 }));
    const unknown = await runCli([...base, "--init", file]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /--init .*unknown parameter "b"/);
    const rw = await runCli([...base, "--sampler", "rwmh", "--init", "laplace"]);
    assert.equal(rw.code, 2);
    assert.match(rw.err, /--init laplace applies to --sampler hmc/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a dense window over collinear draws gives a metric, not an error", () => {
  const s = windowedAdaptationInit(2, { numWarmup: 200, metric: "dense" });
  const rng = new Rng(3);
  let metric = null;
  for (let i = 0; i < 200; i++) {
    const v = 1e8 * rng.normal();
    // The second coordinate is exactly twice the first: Σ̂ is singular up to round-off.
    metric = windowedAdaptationUpdate(s, new Float64Array([v, 2 * v])) ?? metric;
  }
  assert.ok(metric !== null);
  assert.ok(metric.inverseMassMatrix.every(Number.isFinite));
});
