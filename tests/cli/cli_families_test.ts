/**
 * `tallmc sample --family …` for every family: each run's posterior means
 * (coefficients and σ or φ) against a reference computed apart from the CLI —
 * the conjugate normal–inverse-gamma posterior for Gaussian regression with
 * flat β and σ² ~ IG(a, b), a long full-data HMC run through the API on the
 * same data and prior for the others — within z = 4 standard errors
 * √(MCSE_cli² + MCSE_ref²) (tests/_stat.ts); and bad input naming the flag
 * or column and the value (exit 2).
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { parseDrawsCsv } from "../../data/draws_csv.ts";
import { mcseMean } from "../../diagnostics/mcse.ts";
import { inverseSpd } from "../../math/linalg.ts";
import { logGamma } from "../../math/special.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import type { PriorSpec } from "../../models/priors.ts";
import { withPrior } from "../../models/with_prior.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { familyProblem, NU } from "../_family_fixtures.ts";
import { assertMeanWithinMcse } from "../_stat.ts";
import { runCli } from "../_cli_fixtures.ts";

const _run = runCli;

const N = 400;

/** The CSV text of a family problem: y, x1 and the aux column (exposure offset or trials). */
function _csv(
  p: { x: Float64Array; y: Float64Array; aux: Float64Array },
  aux: string | null,
): string {
  const lines = [aux === null ? "y,x1" : `y,x1,${aux}`];
  for (let i = 0; i < p.y.length; i++) {
    lines.push([p.y[i], p.x[2 * i + 1], ...(aux === null ? [] : [p.aux[i]])].join(","));
  }
  return lines.join("\n") + "\n";
}

/** Posterior means and their MCSEs of a long full-data HMC run through the API. */
function _reference(
  p: { x: Float64Array; y: Float64Array },
  options: GlmOptions,
  prior?: PriorSpec,
): { mean: number[]; se: number[]; names: readonly string[] } {
  const data = glmDataFromArrays(loadCore(), p.x, p.y, {
    numCols: 2,
    columnNames: ["(Intercept)", "x1"],
  });
  const base = new GlmModel(data, options);
  const model = prior === undefined ? base : withPrior(base, prior);
  const run = runHmc(model, { numWarmup: 500, numSamples: 3000, numChains: 2, seed: 11 });
  const mean: number[] = [], se: number[] = [];
  for (let j = 0; j < model.dim; j++) {
    const chains = run.draws.map((c) => c[j]);
    let s = 0, k = 0;
    for (const c of chains) for (const v of c) (s += v, k++);
    mean.push(s / k);
    se.push(mcseMean(chains));
  }
  return { mean, se, names: model.parameterNames };
}

/** Run the CLI, read its draws and check every parameter against the reference. */
async function _checkAgainst(
  args: string[],
  ref: { mean: number[]; se: number[]; names: readonly string[] },
  dir: string,
): Promise<{ out: string; err: string; draws: Float64Array[][]; file: string }> {
  const out = `${dir}/draws_${Math.random().toString(36).slice(2)}.csv`;
  const r = await _run([
    "sample",
    ...args,
    "--warmup",
    "300",
    "--samples",
    "500",
    "--chains",
    "2",
    "--seed",
    "3",
    "--quiet",
    "--out",
    out,
  ]);
  assert.equal(r.code, 0, r.err);
  const table = parseDrawsCsv(await Deno.readTextFile(out));
  assert.deepEqual(table.parameterNames, [...ref.names]);
  ref.names.forEach((name, j) => {
    assert.ok(r.out.includes(name), `the summary names ${name}`);
    assertMeanWithinMcse(table.draws.map((c) => c[j]), ref.mean[j], {
      referenceSe: ref.se[j],
      what: `${args.join(" ")}: ${name}`,
    });
  });
  return { out: r.out, err: r.err, draws: table.draws, file: out };
}

Deno.test("[e2e] sample --family: every family against a reference computed apart", async (t) => {
  const dir = await Deno.makeTempDir();

  await t.step(
    "gaussian without --sigma: the conjugate normal–inverse-gamma posterior",
    async () => {
      const p = familyProblem("gaussian-scale", N, 2, 21);
      const csv = `${dir}/gaussian.csv`;
      await Deno.writeTextFile(csv, _csv(p, null));
      // Flat β, σ² ~ IG(a, b): σ² | y ~ IG(aₙ, bₙ), E β = β̂, E log σ = ½(log bₙ − ψ(aₙ)).
      const a = 2, b = 1, d = 2, xtx = new Float64Array(4), xty = new Float64Array(2);
      for (let i = 0; i < N; i++) {
        for (let j = 0; j < d; j++) {
          xty[j] += p.x[i * d + j] * p.y[i];
          for (let k = 0; k < d; k++) xtx[j * d + k] += p.x[i * d + j] * p.x[i * d + k];
        }
      }
      const c = inverseSpd(xtx),
        beta = [0, 1].map((j) => c[j * d] * xty[0] + c[j * d + 1] * xty[1]);
      let rss = 0;
      for (let i = 0; i < N; i++) {
        rss += (p.y[i] - p.x[2 * i] * beta[0] - p.x[2 * i + 1] * beta[1]) ** 2;
      }
      const an = a + (N - d) / 2, bn = b + rss / 2;
      const digamma = Math.log(an) - 1 / (2 * an) - 1 / (12 * an * an);
      const eLogSigma = 0.5 * (Math.log(bn) - digamma);
      const eSigma = Math.sqrt(bn) * Math.exp(logGamma(an - 0.5) - logGamma(an));
      const ref = {
        mean: [...beta, eLogSigma],
        se: [0, 0, 0],
        names: ["(Intercept)", "x1", "log_sigma"],
      };
      for (const sampler of ["hmc", "hmc-ecs"]) {
        const r = await _checkAgainst(
          [
            "--family",
            "gaussian",
            "--data",
            csv,
            "--response",
            "y",
            "--sampler",
            sampler,
            "--prior",
            "flat",
            "--prior-intercept",
            "flat",
            "--prior-aux",
            "inverse_gamma(2, 1)",
          ],
          ref,
          dir,
        );
        // σ on its natural scale: the summary's row and the draws' exp(log σ).
        assert.match(r.out, /\nsigma +\d/);
        assertMeanWithinMcse(r.draws.map((ch) => ch[2].map(Math.exp)), eSigma, {
          what: `${sampler} σ`,
        });
      }
    },
  );

  await t.step("student-t --nu with --prior-aux half_cauchy (no formula)", async () => {
    const p = familyProblem("student-t", N, 2, 22);
    const csv = `${dir}/student.csv`;
    await Deno.writeTextFile(csv, _csv(p, null));
    const ref = _reference(p, {
      family: "student-t",
      nu: NU,
      priorScale: 10,
      scalePrior: { family: "half_cauchy", scale: 1 },
    });
    await _checkAgainst(
      [
        "--family",
        "student-t",
        "--nu",
        String(NU),
        "--data",
        csv,
        "--response",
        "y",
        "--prior-aux",
        "half-Cauchy(1)",
      ],
      ref,
      dir,
    );
  });

  await t.step(
    "student-t --nu sample: ν sampled as log_nu_minus_1, nu in the summary",
    async () => {
      const p = familyProblem("student-t", N, 2, 24);
      const csv = `${dir}/student_nu.csv`;
      await Deno.writeTextFile(csv, _csv(p, null));
      const ref = _reference(p, { family: "student-t", nu: "sample", priorScale: 10 });
      assert.equal(ref.names.at(-1), "log_nu_minus_1");
      const r = await _checkAgainst(
        ["--family", "student-t", "--nu", "sample", "--data", csv, "--response", "y"],
        ref,
        dir,
      );
      assert.match(r.out, /^\s*nu\b/m, "the summary adds ν on its natural scale");
    },
  );

  await t.step("negative-binomial --offset with --formula and stated priors", async () => {
    const p = familyProblem("negative-binomial", N, 2, 23);
    const csv = `${dir}/nb.csv`;
    await Deno.writeTextFile(csv, _csv(p, "expo"));
    const ref = _reference(p, { family: "negative-binomial", offset: p.aux }, {
      coefficients: "normal(0, 5)",
      intercept: "normal(0, 5)",
      scales: { phi: "exponential(0.5)" },
    });
    const r = await _checkAgainst(
      [
        "--family",
        "negative-binomial",
        "--data",
        csv,
        "--formula",
        "y ~ x1",
        "--offset",
        "expo",
        "--prior",
        "normal(0, 5)",
        "--prior-intercept",
        "normal(0, 5)",
        "--prior-aux",
        "exponential(0.5)",
        "--sampler",
        "hmc-ecs",
      ],
      ref,
      dir,
    );
    assert.match(r.out, /\nphi +\d/);
    const again = await _run(["summary", r.file]);
    assert.match(again.out, /\nphi +\d/, "tallmc summary adds phi too");
    // SG-HMC (θ* from the per-row subset MAP): approximate, but its bias at
    // this step size is within the band.
    await _checkAgainst(
      [
        "--family",
        "negative-binomial",
        "--data",
        csv,
        "--formula",
        "y ~ x1",
        "--offset",
        "expo",
        "--prior",
        "normal(0, 5)",
        "--prior-intercept",
        "normal(0, 5)",
        "--prior-aux",
        "exponential(0.5)",
        "--sampler",
        "sghmc",
      ],
      ref,
      dir,
    );
  });

  await t.step("--workers: the same draws, with the priors of --formula and --prior", async () => {
    const csv = `${dir}/nb.csv`; // written by the step above
    const draws = async (extra: string[]) => {
      const out = `${dir}/workers_${extra.length}.csv`;
      const r = await _run([
        "sample",
        "--family",
        "negative-binomial",
        "--data",
        csv,
        "--formula",
        "y ~ x1",
        "--offset",
        "expo",
        "--prior",
        "normal(0, 0.1)",
        "--prior-aux",
        "exponential(3)",
        "--warmup",
        "50",
        "--samples",
        "50",
        "--chains",
        "2",
        "--quiet",
        "--out",
        out,
        ...extra,
      ]);
      assert.equal(r.code, 0, r.err);
      return parseDrawsCsv(await Deno.readTextFile(out)).draws;
    };
    assert.deepEqual(await draws(["--workers", "2"]), await draws([]));
  });

  await t.step("poisson --offset (no formula: the offset column is not a covariate)", async () => {
    const p = familyProblem("poisson-offset", N, 2, 24);
    const csv = `${dir}/poisson.csv`;
    await Deno.writeTextFile(csv, _csv(p, "expo"));
    const ref = _reference(p, { family: "poisson", offset: p.aux, priorScale: 10 });
    await _checkAgainst(
      ["--family", "poisson", "--data", csv, "--response", "y", "--offset", "expo"],
      ref,
      dir,
    );
  });

  await t.step("binomial --trials with HMC-ECS (per-row control variates)", async () => {
    const p = familyProblem("binomial", N, 2, 25);
    const csv = `${dir}/binomial.csv`;
    await Deno.writeTextFile(csv, _csv(p, "n"));
    const ref = _reference(p, { family: "binomial", trials: p.aux, priorScale: 10 });
    for (const sampler of ["hmc", "hmc-ecs"]) {
      await _checkAgainst(
        [
          "--family",
          "binomial",
          "--data",
          csv,
          "--response",
          "y",
          "--trials",
          "n",
          "--sampler",
          sampler,
        ],
        ref,
        dir,
      );
    }
  });
});

Deno.test("sample --family logistic codes a two-level text response by a stated rule", async (t) => {
  const dir = await Deno.makeTempDir();
  const numeric = ["y,x1"], text = ["y,x1"];
  for (let i = 0; i < 300; i++) {
    const x = Math.sin(i), y = Math.sin(7 * i) < Math.tanh(1.5 * x - 0.3) ? 1 : 0;
    numeric.push(`${y},${x}`);
    text.push(`${y === 1 ? "yes" : "no"},${x}`);
  }
  await Deno.writeTextFile(`${dir}/num.csv`, numeric.join("\n") + "\n");
  await Deno.writeTextFile(`${dir}/text.csv`, text.join("\n") + "\n");
  const run = async (file: string, out: string, extra: string[] = []) => {
    const r = await _run([
      "sample",
      "--family",
      "logistic",
      "--data",
      `${dir}/${file}`,
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
      `${dir}/${out}`,
      ...extra,
    ]);
    assert.equal(r.code, 0, r.err);
    return { ...r, draws: parseDrawsCsv(await Deno.readTextFile(`${dir}/${out}`)).draws };
  };
  await t.step("yes is 1 (it sorts second), announced on stderr; draws as for 0/1", async () => {
    const a = await run("num.csv", "a.csv"), b = await run("text.csv", "b.csv");
    assert.match(b.err, /"yes" is coded 1, "no" 0 \(the level that sorts second is 1/);
    assert.deepEqual(b.draws, a.draws);
  });
  await t.step("--success no flips the coding", async () => {
    const c = await run("text.csv", "c.csv", ["--success", "no"]);
    assert.match(c.err, /"no" is coded 1, "yes" 0 \(--success\)/);
    const a = await run("num.csv", "a.csv");
    const mean = (v: Float64Array) => v.reduce((s, x) => s + x, 0) / v.length;
    // The slope changes sign; its size stays within a few posterior sds.
    assert.ok(mean(c.draws[0][1]) < 0 && mean(a.draws[0][1]) > 0);
  });
});

Deno.test("sample --family: bad input names the flag or column and the value (exit 2)", async (t) => {
  const dir = await Deno.makeTempDir();
  const csv = `${dir}/d.csv`;
  await Deno.writeTextFile(
    csv,
    "y,x1,n,expo,g,yb\n1,0.1,3,0.1,a,yes\n2,0.5,1,inf,b,no\n0,0.2,4,-0.3,c,maybe\n",
  );
  const cases: [string, string[], RegExp][] = [
    ["missing --nu", ["--family", "student-t"], /--family student-t needs --nu/],
    ["--nu 0", ["--family", "student-t", "--nu", "0"], /--nu must be a positive number, got "0"/],
    ["--nu -2", ["--family", "student-t", "--nu=-2"], /--nu must be a positive number, got "-2"/],
    [
      "--nu on another family",
      ["--family", "poisson", "--nu", "3"],
      /--nu applies to --family student-t/,
    ],
    ["binomial without --trials", ["--family", "binomial"], /--family binomial needs --trials/],
    [
      "--trials column absent",
      ["--family", "binomial", "--trials", "size"],
      /--trials "size": no such column/,
    ],
    [
      "trials < y",
      ["--family", "binomial", "--trials", "n", "--columns", "x1"],
      /--trials: .*trials column "n" must be ≥ 1 and ≥ the response "y" in every row, got trials 1 and response 2 at data row 2/,
    ],
    [
      "offset not finite",
      ["--family", "poisson", "--offset", "expo", "--columns", "x1"],
      /--offset: .*offset column "expo" must hold finite numbers in every row, got "inf" at data row 2/,
    ],
    [
      "offset also a covariate",
      ["--family", "poisson", "--offset", "x1", "--columns", "x1"],
      /--columns names the --offset column "x1"/,
    ],
    [
      "unknown --prior-aux form",
      ["--family", "negative-binomial", "--columns", "x1", "--prior-aux", "beta(2, 1)"],
      /--prior-aux "beta\(2, 1\)": .*unknown family "beta"/,
    ],
    [
      "the prior of ν as --prior-aux",
      ["--family", "negative-binomial", "--columns", "x1", "--prior-aux", "gamma(2, 1)"],
      /--prior-aux "gamma\(2, 1\)": a prior of σ or φ must be half_normal.*got gamma/,
    ],
    [
      "a coefficient prior as --prior-aux",
      ["--family", "gaussian", "--columns", "x1", "--prior-aux", "normal(0, 1)"],
      /--prior-aux "normal\(0, 1\)": a prior of σ or φ must be half_normal/,
    ],
    [
      "a prior as --prior-scale",
      ["--family", "gaussian", "--columns", "x1", "--prior-scale", "half_normal(1)"],
      /--prior-scale takes a number .*got "half_normal\(1\)"; the prior of σ or φ goes in --prior-aux/,
    ],
    [
      "--prior-aux without σ or φ",
      ["--family", "poisson", "--columns", "x1", "--prior-aux", "half_normal(1)"],
      /--prior-aux "half_normal\(1\)" is a prior of σ or φ, but --family poisson has neither/,
    ],
  ];
  for (const [name, args, re] of cases) {
    await t.step(name, async () => {
      const r = await _run(["sample", "--data", csv, "--response", "y", "--quiet", ...args]);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, re);
      assert.doesNotMatch(r.err, /\n\s+at /, "no stack trace");
    });
  }
  await t.step("a text response with three levels", async () => {
    const r = await _run([
      "sample",
      "--data",
      csv,
      "--family",
      "logistic",
      "--response",
      "yb",
      "--columns",
      "x1",
      "--quiet",
    ]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /--response: .*"yb" is text with 3 levels \("maybe", "no", "yes"\)/);
  });
  await t.step("--success that is not a level", async () => {
    const two = `${dir}/two.csv`;
    await Deno.writeTextFile(two, "y,x1\nyes,0.1\nno,0.5\nyes,0.3\n");
    const r = await _run([
      "sample",
      "--data",
      two,
      "--family",
      "logistic",
      "--response",
      "y",
      "--success",
      "Yes",
      "--quiet",
    ]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /--success: .*success "Yes" is not a level of the response "y"/);
  });
});
