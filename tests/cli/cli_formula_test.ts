import assert from "node:assert/strict";
import { parseDrawsCsv } from "../../data/draws_csv.ts";
import { runCli } from "../_cli_fixtures.ts";

const _run = runCli;

Deno.test("sample --formula, --standardize and priors", async (t) => {
  const dir = await Deno.makeTempDir();
  const csv = `${dir}/data.csv`, draws = `${dir}/draws.csv`, priorFile = `${dir}/prior.json`;
  const lines = ["y,x1,x2,region,note"];
  for (let i = 0; i < 300; i++) {
    const x1 = Math.sin(i), x2 = Math.cos(3 * i), r = ["north", "south", "west"][i % 3];
    const eta = 0.5 * x1 - x2 + (r === "south" ? 0.8 : 0);
    lines.push(`${Math.sin(7 * i) < Math.tanh(eta) ? 1 : 0},${x1},${x2},${r},free text ${i}`);
  }
  await Deno.writeTextFile(csv, lines.join("\n") + "\n");
  const base = ["sample", "--family", "logistic", "--data", csv, "--samples", "60", "--warmup"];
  await t.step("the draws and the summary name every coefficient", async () => {
    const r = await _run([
      ...base,
      "60",
      "--chains",
      "2",
      "--formula",
      "y ~ x1*x2 + region",
      "--standardize",
      "--prior",
      "region=student_t(3, 0, 1)",
      "--out",
      draws,
      "--quiet",
    ]);
    assert.equal(r.code, 0, r.err);
    const names = ["(Intercept)", "x1", "x2", "region[south]", "region[west]", "x1:x2"];
    assert.deepEqual(parseDrawsCsv(await Deno.readTextFile(draws)).parameterNames, names);
    for (const n of names) assert.ok(r.out.includes(n), `summary names ${n}`);
  });
  await t.step("--standardize says what it did", async () => {
    const r = await _run([
      ...base,
      "20",
      "--samples",
      "20",
      "--chains",
      "1",
      "--formula",
      "y ~ x1",
      "--standardize",
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /standardized \(coefficients are per sd\): x1 = \(x1 − [-0-9.e]+\) \/ 0\.70/,
    );
    assert.match(r.out, /prior: x1 ~ normal\(0, 2\.5\)/);
  });
  await t.step("--prior-file and the priors printed", async () => {
    await Deno.writeTextFile(
      priorFile,
      JSON.stringify({
        coefficients: "cauchy(0, 2.5)",
        intercept: { family: "normal", location: 0, scale: 5 },
        terms: { "x1:x2": "laplace(0, 1)" },
      }),
    );
    const r = await _run([
      ...base,
      "30",
      "--chains",
      "1",
      "--formula",
      "y ~ x1*x2",
      "--prior-file",
      priorFile,
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /prior: \(Intercept\) ~ normal\(0, 5\)/);
    assert.match(r.out, /prior: x1 ~ cauchy\(0, 2\.5\)/);
    assert.match(r.out, /prior: x1:x2 ~ laplace\(0, 1\)/);
  });
  await t.step("defaults are autoscaled N(0, 2.5/sd(x)) without --standardize", async () => {
    const r = await _run([
      ...base,
      "20",
      "--chains",
      "1",
      "--formula",
      "y ~ x1",
      "--samples",
      "20",
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /prior: \(Intercept\) ~ normal\(0, 10\)/);
    assert.match(r.out, /prior: x1 ~ normal\(0, 3\.5\d*\)/); // sd(sin i) ≈ 0.71
  });
  await t.step("bad input: clear messages naming what is wrong (exit 2)", async () => {
    const cases: [string[], RegExp][] = [
      [["--formula", "y ~ x1 + colour"], /names column "colour", which is not in the data/],
      [["--formula", "y x1"], /--formula: formula "y x1": no "~"/],
      [["--formula", "y ~ x1", "--prior", "normal(0, 0)"], /normal scale must be positive, got 0/],
      [["--formula", "y ~ x1", "--prior", "x9=normal(0, 1)"], /names no parameter: x9/],
      [["--formula", "y ~ x1", "--response", "y"], /--response cannot be combined with --formula/],
      [["--response", "y", "--standardize"], /--standardize needs --formula/],
      [["--response", "y", "--prior-scale", "2", "--prior", "flat"], /--prior-scale cannot be/],
      [["--formula", "y ~ note"], /column "note" is categorical with 300 levels in 300 rows/],
    ];
    for (const [extra, re] of cases) {
      const r = await _run([...base, "10", "--samples", "10", "--chains", "1", ...extra]);
      assert.equal(r.code, 2, `${extra.join(" ")}: ${r.err}`);
      assert.match(r.err, re, extra.join(" "));
    }
  });
  await t.step("--prior without --formula puts priors on the numeric path", async () => {
    const num = `${dir}/num.csv`;
    await Deno.writeTextFile(
      num,
      "y,a\n" + lines.slice(1).map((l) => l.split(",").slice(0, 2).join(",")).join("\n"),
    );
    const r = await _run([
      "sample",
      "--family",
      "logistic",
      "--data",
      num,
      "--response",
      "y",
      "--samples",
      "20",
      "--warmup",
      "20",
      "--chains",
      "1",
      "--prior",
      "a=normal(0, 1)",
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /prior: a ~ normal\(0, 1\)/);
  });
  await t.step("--help shows the model flags and the defaults", async () => {
    const r = await _run(["sample", "--help"]);
    assert.match(r.out, /--formula F/);
    assert.match(r.out, /normal\(0, 2\.5\/sd\(xⱼ\)\)/);
  });
  await Deno.remove(dir, { recursive: true });
});
