/**
 * Posterior predictive checks (models/ppc.ts, `tallmc check`): the
 * misspecification test (Poisson on overdispersed counts against the negative
 * binomial), the simulators of every family against their analytic moments,
 * the row subset, the figures' data, and the command line.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import { posteriorPredictiveCheck, type PpcResult } from "../../models/ppc.ts";
import { ppcFigureSpecs } from "../../models/ppc_report.ts";
import { Rng } from "../../random/rng.ts";
import { sample } from "../../samplers/sample.ts";
import { runCli } from "../_cli_fixtures.ts";

const arena = loadCore({ backend: "reference" });

/** Overdispersed counts: NB2 with μ = e^{1 + 0.5 z}, φ = 1.5 (Var = μ + μ²/1.5). */
function _nbCounts(n: number, seed: number): { x: number[]; y: number[]; z: number[] } {
  const rng = new Rng(seed);
  const x: number[] = [], y: number[] = [], z: number[] = [];
  for (let i = 0; i < n; i++) {
    const zi = rng.normal();
    const mu = Math.exp(1 + 0.5 * zi);
    x.push(1, zi);
    z.push(zi);
    y.push(rng.poisson(rng.gamma(1.5) * mu / 1.5));
  }
  return { x, y, z };
}

function _stat(r: PpcResult, name: string) {
  const s = r.statistics.find((t) => t.name === name);
  assert.ok(s, `statistic ${name}`);
  return s;
}

Deno.test("ppc: a Poisson fit on overdispersed counts gets extreme p-values, the negative binomial fit does not", () => {
  const { x, y } = _nbCounts(1000, 11);
  const p: Record<string, Record<string, number>> = {};
  for (const family of ["poisson", "negative-binomial"] as const) {
    const data = glmDataFromArrays(arena, x, y, { numCols: 2, columnNames: ["(Intercept)", "z"] });
    const model = new GlmModel(data, { family });
    const run = sample(model, {
      sampler: "hmc",
      numWarmup: 200,
      numSamples: 200,
      numChains: 1,
      seed: 5,
    });
    const r = posteriorPredictiveCheck(model, run.draws, { seed: 2 });
    assert.equal(r.numDraws, 200);
    assert.equal(r.rows, null);
    p[family] = Object.fromEntries(r.statistics.map((s) => [s.name, s.pValue]));
  }
  // Poisson: sd and the proportion of zeros far below the observed ones.
  assert.ok(p.poisson.sd < 0.005, `poisson sd p = ${p.poisson.sd}`);
  assert.ok(p.poisson.zeros < 0.005, `poisson zeros p = ${p.poisson.zeros}`);
  // Negative binomial: neither is extreme.
  for (const name of ["sd", "zeros", "mean"]) {
    const v = p["negative-binomial"][name];
    assert.ok(v > 0.05 && v < 0.95, `negative-binomial ${name} p = ${v}`);
  }
});

/** A constant-η model (one intercept column) and draws repeating one θ. */
function _fixed(
  options: GlmOptions,
  theta: number[],
  y: number[],
): PpcResult {
  const data = glmDataFromArrays(arena, y.map(() => 1), y, { numCols: 1 });
  const model = new GlmModel(data, options);
  const draws = [theta.map((v) => new Float64Array(200).fill(v))];
  return posteriorPredictiveCheck(model, draws, { seed: 3 });
}

Deno.test("ppc: every family's replicated responses have the family's mean and sd", () => {
  const m = 1000;
  const cases: {
    label: string;
    options: GlmOptions;
    theta: number[];
    y: number[];
    mean: number;
    sd: number;
  }[] = [];
  const e = 1 / (1 + Math.exp(-0.4));
  cases.push({
    label: "logistic",
    options: { family: "logistic" },
    theta: [0.4],
    y: Array.from({ length: m }, (_, i) => i % 2),
    mean: e,
    sd: Math.sqrt(e * (1 - e)),
  });
  for (const N of [10, 200]) {
    cases.push({
      label: `binomial N = ${N}`,
      options: { family: "binomial", trials: new Float64Array(m).fill(N) },
      theta: [0.4],
      y: Array.from({ length: m }, () => 1),
      mean: N * e,
      sd: Math.sqrt(N * e * (1 - e)),
    });
  }
  cases.push({
    label: "poisson",
    options: { family: "poisson" },
    theta: [Math.log(3)],
    y: Array.from({ length: m }, () => 3),
    mean: 3,
    sd: Math.sqrt(3),
  });
  cases.push({
    label: "poisson with offset",
    options: { family: "poisson", offset: new Float64Array(m).fill(Math.log(2)) },
    theta: [Math.log(3)],
    y: Array.from({ length: m }, () => 3),
    mean: 6,
    sd: Math.sqrt(6),
  });
  cases.push({
    label: "negative-binomial",
    options: { family: "negative-binomial" },
    theta: [Math.log(4), Math.log(2)],
    y: Array.from({ length: m }, () => 4),
    mean: 4,
    sd: Math.sqrt(4 + 16 / 2),
  });
  cases.push({
    label: "gaussian",
    options: { family: "gaussian", sigma: 2 },
    theta: [1.5],
    y: Array.from({ length: m }, (_, i) => i / m),
    mean: 1.5,
    sd: 2,
  });
  cases.push({
    label: "gaussian-scale",
    options: { family: "gaussian-scale" },
    theta: [-1, Math.log(0.5)],
    y: Array.from({ length: m }, (_, i) => i / m),
    mean: -1,
    sd: 0.5,
  });
  cases.push({
    label: "student-t",
    options: { family: "student-t", nu: 10 },
    theta: [2, Math.log(3)],
    y: Array.from({ length: m }, (_, i) => i / m),
    mean: 2,
    sd: 3 * Math.sqrt(10 / 8),
  });
  cases.push({
    label: "student-t, ν sampled",
    options: { family: "student-t", nu: "sample" },
    theta: [2, Math.log(3), Math.log(9)],
    y: Array.from({ length: m }, (_, i) => i / m),
    mean: 2,
    sd: 3 * Math.sqrt(10 / 8),
  });
  for (const c of cases) {
    const r = _fixed(c.options, c.theta, c.y);
    const mean = _stat(r, "mean").replicatedMean, sd = _stat(r, "sd").replicatedMean;
    // The mean over 200 replicates of m rows: SE = sd / √(200 m) ≈ sd / 447.
    assert.ok(Math.abs(mean - c.mean) < 6 * c.sd / Math.sqrt(200 * m), `${c.label}: mean ${mean}`);
    assert.ok(Math.abs(sd / c.sd - 1) < 0.02, `${c.label}: sd ${sd}, expected ${c.sd}`);
  }
});

Deno.test("ppc: rows above maxRows are a seeded random subset; p-values count ties half", () => {
  const { x, y } = _nbCounts(3000, 4);
  const data = glmDataFromArrays(arena, x, y, { numCols: 2 });
  const model = new GlmModel(data, { family: "poisson" });
  const draws = [[new Float64Array(50).fill(1), new Float64Array(50).fill(0.5)]];
  const a = posteriorPredictiveCheck(model, draws, { maxRows: 500, seed: 9 });
  const b = posteriorPredictiveCheck(model, draws, { maxRows: 500, seed: 9 });
  assert.equal(a.numRows, 500);
  assert.equal(a.numRowsTotal, 3000);
  assert.ok(a.rows !== null && a.rows.length === 500);
  for (let i = 1; i < 500; i++) assert.ok(a.rows[i] > a.rows[i - 1], "sorted and distinct");
  assert.deepEqual(a.statistics, b.statistics, "same seed, same check");
  assert.equal(a.numDraws, 50, "at most the draws there are");
  // The rootogram's observed frequencies count the subset's rows.
  const obs = a.rootogram!.reduce((s, r) => s + r.observed, 0);
  assert.ok(obs <= 500 && obs > 450, `observed ${obs}`);
  // A statistic equal in every replicate and in y: p = 1/2 (ties half).
  const bin = _fixed({ family: "logistic" }, [0], Array.from({ length: 200 }, (_, i) => i % 2));
  assert.equal(_stat(bin, "max").pValue, 0.5);
});

Deno.test("ppc: calibration by decile of a well-specified logistic fit and the figures' specs", () => {
  const rng = new Rng(21);
  const n = 2000, x: number[] = [], y: number[] = [];
  for (let i = 0; i < n; i++) {
    const z = rng.normal();
    x.push(1, z);
    y.push(rng.uniform() < 1 / (1 + Math.exp(-(0.3 + 1.2 * z))) ? 1 : 0);
  }
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: 2 }), {
    family: "logistic",
  });
  const draws = [[new Float64Array(100).fill(0.3), new Float64Array(100).fill(1.2)]];
  const r = posteriorPredictiveCheck(model, draws);
  const cal = r.calibration!;
  assert.equal(cal.length, 10);
  assert.equal(cal.reduce((s, c) => s + c.numRows, 0), n);
  for (let g = 1; g < 10; g++) assert.ok(cal[g].predicted > cal[g - 1].predicted);
  for (const c of cal) {
    // Binomial SE of a decile's observed proportion: √(p(1 − p)/200) ≤ 0.036.
    assert.ok(Math.abs(c.observed - c.predicted) < 0.12, JSON.stringify(c));
  }
  assert.deepEqual(Object.keys(ppcFigureSpecs(r)), ["calibration"]);
  const cont = _fixed({ family: "gaussian", sigma: 1 }, [0], [0.1, -0.3, 1.2, 0.5]);
  assert.deepEqual(Object.keys(ppcFigureSpecs(cont)), ["density"]);
  assert.equal(cont.density!.replicated.length, 50);
  assert.equal(cont.calibration, null);
});

Deno.test("ppc: draws lacking a model parameter are refused, naming it", () => {
  const data = glmDataFromArrays(arena, [1, 1, 1], [0, 2, 5], {
    numCols: 1,
    columnNames: ["(Intercept)"],
  });
  const model = new GlmModel(data, { family: "negative-binomial" });
  assert.throws(
    () =>
      posteriorPredictiveCheck(model, [[new Float64Array([0.1])]], {
        parameterNames: ["(Intercept)"],
      }),
    /lack the model's parameter "log_phi"/,
  );
  assert.throws(
    () => posteriorPredictiveCheck(model, [[new Float64Array([0.1]), new Float64Array([NaN])]]),
    /non-finite value/,
  );
  assert.throws(
    () =>
      posteriorPredictiveCheck(model, [[new Float64Array([0.1]), new Float64Array([0])]], {
        numDraws: 0,
      }),
    /numDraws must be a positive integer, got 0/,
  );
  assert.throws(
    () => posteriorPredictiveCheck(model, [[new Float64Array([800]), new Float64Array([0])]]),
    /draw 1 gives row 1 the linear predictor η = 800/,
  );
  assert.throws(
    () => posteriorPredictiveCheck(model, [[new Float64Array([0]), new Float64Array([900])]]),
    /draw 1 has log_phi = 900/,
  );
});

Deno.test("tallmc check: prints the table and writes the rootogram; refuses draws of another model", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { z, y } = _nbCounts(400, 3);
    const dataPath = `${dir}/counts.csv`;
    await Deno.writeTextFile(
      dataPath,
      "z,y\n" + z.map((v, i) => `${v},${y[i]}`).join("\n") + "\n",
    );
    const drawsPath = `${dir}/draws.csv`;
    const sampled = await runCli([
      "sample",
      "--family",
      "poisson",
      "--data",
      dataPath,
      "--response",
      "y",
      "--samples",
      "100",
      "--warmup",
      "100",
      "--chains",
      "1",
      "--quiet",
      "--out",
      drawsPath,
    ]);
    assert.equal(sampled.code, 0, sampled.err);
    const plots = `${dir}/plots`;
    const run = await runCli([
      "check",
      drawsPath,
      "--family",
      "poisson",
      "--data",
      dataPath,
      "--response",
      "y",
      "--plots",
      plots,
    ]);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /100 draws, all 400 rows/);
    assert.match(run.out, /^statistic +observed +rep_mean +rep_q5 +rep_q95 +p +p_two_sided$/m);
    for (const s of ["mean", "sd", "zeros", "ones", "max"]) {
      assert.match(run.out, new RegExp(`^${s} .* [01]\\.\\d{3} +[01]\\.\\d{3}$`, "m"), s);
    }
    const svg = await Deno.readTextFile(`${plots}/ppc_rootogram.svg`);
    assert.ok(svg.startsWith("<svg") && svg.includes("</svg>"));
    assert.deepEqual([...Deno.readDirSync(plots)].map((e) => e.name), ["ppc_rootogram.svg"]);

    // Poisson draws checked as a negative binomial: log_phi is missing.
    const bad = await runCli([
      "check",
      drawsPath,
      "--family",
      "negative-binomial",
      "--data",
      dataPath,
      "--response",
      "y",
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /lacks the model's parameter "log_phi"/);
    assert.doesNotMatch(bad.err, /\n\s+at /, "no stack trace");
    // Negative-binomial draws checked as Poisson: log_phi is one too many.
    const nbDraws = `${dir}/nb.csv`;
    await Deno.writeTextFile(
      nbDraws,
      "chain,iteration,(Intercept),z,log_phi\n0,0,1,0.5,0.4\n0,1,1.1,0.4,0.3\n",
    );
    const extra = await runCli([
      "check",
      nbDraws,
      "--family",
      "poisson",
      "--data",
      dataPath,
      "--response",
      "y",
    ]);
    assert.equal(extra.code, 2);
    assert.match(extra.err, /has parameter "log_phi" that the model lacks/);
    const badDraws = await runCli([
      "check",
      drawsPath,
      "--family",
      "poisson",
      "--data",
      dataPath,
      "--response",
      "y",
      "--draws",
      "0",
    ]);
    assert.equal(badDraws.code, 2);
    assert.match(badDraws.err, /--draws must be an integer ≥ 1/);
    const noDraws = await runCli(["check", "--family", "poisson", "--data", dataPath]);
    assert.equal(noDraws.code, 2);
    assert.match(noDraws.err, /check needs a draws file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
