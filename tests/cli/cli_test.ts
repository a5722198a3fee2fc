import assert from "node:assert/strict";
import { parseDrawsCsv } from "../../data/draws_csv.ts";
import { runCli } from "../_cli_fixtures.ts";

const _run = runCli;

Deno.test("main() sample then summary on a CSV", async (t) => {
  const dir = await Deno.makeTempDir();
  const csv = `${dir}/data.csv`, draws = `${dir}/draws.csv`;
  const lines = ["x1,x2,y"];
  for (let i = 0; i < 200; i++) {
    const x1 = Math.sin(i), x2 = Math.cos(3 * i);
    lines.push(`${x1},${x2},${(i * 7) % 3 === 0 ? 1 : 0}`);
  }
  await Deno.writeTextFile(csv, lines.join("\n") + "\n");
  await t.step("sample writes a draws file", async () => {
    const r = await _run([
      "sample",
      "--family",
      "logistic",
      "--data",
      csv,
      "--response",
      "y",
      "--samples",
      "50",
      "--warmup",
      "50",
      "--chains",
      "2",
      "--out",
      draws,
      "--quiet",
    ]);
    assert.equal(r.code, 0, r.err);
    const table = parseDrawsCsv(await Deno.readTextFile(draws));
    assert.deepEqual(table.parameterNames, ["(Intercept)", "x1", "x2"]);
    assert.equal(table.draws.length, 2);
    assert.equal(table.draws[0][0].length, 50);
  });
  await t.step("summary reads it back", async () => {
    const r = await _run(["summary", draws]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /ess_bulk/);
    assert.match(r.out, /x2/);
  });
  await t.step("the austerity test takes ε and m from its registry flags", async () => {
    const out = `${dir}/austerity.csv`;
    const r = await _run([
      "sample",
      "--family",
      "logistic",
      "--data",
      csv,
      "--response",
      "y",
      "--sampler",
      "austerity-rwmh",
      "--approx-mh-epsilon",
      "0.05",
      "--batch-size",
      "40",
      "--samples",
      "30",
      "--warmup",
      "30",
      "--chains",
      "1",
      "--out",
      out,
      "--quiet",
    ]);
    assert.equal(r.code, 0, r.err);
    assert.equal(parseDrawsCsv(await Deno.readTextFile(out)).draws[0][0].length, 30);
    const bad = await _run([
      "sample",
      "--family",
      "logistic",
      "--data",
      csv,
      "--response",
      "y",
      "--sampler",
      "austerity-rwmh",
      "--approx-mh-epsilon=-1",
      "--out",
      out,
      "--quiet",
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--approx-mh-epsilon/);
  });
  await t.step("--workers 2 writes the same draws as one thread", async () => {
    // Rows arrive in the order the workers make them; the draws per chain must be equal.
    const files: ReturnType<typeof parseDrawsCsv>[] = [];
    for (const workers of ["0", "2"]) {
      const out = `${dir}/workers_${workers}.csv`;
      const r = await _run([
        "sample",
        "--family",
        "logistic",
        "--data",
        csv,
        "--response",
        "y",
        "--samples",
        "40",
        "--warmup",
        "40",
        "--chains",
        "3",
        "--workers",
        workers,
        "--out",
        out,
        "--quiet",
      ]);
      assert.equal(r.code, 0, r.err);
      files.push(parseDrawsCsv(await Deno.readTextFile(out)));
    }
    assert.deepEqual(files[1].draws, files[0].draws);
  });
  await t.step("random-walk MH runs too", async () => {
    const r = await _run([
      "sample",
      "--family",
      "logistic",
      "--data",
      csv,
      "--response",
      "y",
      "--sampler",
      "rwmh",
      "--samples",
      "50",
      "--warmup",
      "50",
      "--chains",
      "1",
      "--quiet",
    ]);
    assert.equal(r.code, 0, r.err);
  });
  await t.step("a stochastic-gradient sampler runs with --step-size", async () => {
    const r = await _run([
      "sample",
      "--family",
      "logistic",
      "--data",
      csv,
      "--response",
      "y",
      "--sampler",
      "sgld",
      "--step-size",
      "1e-3",
      "--batch-size",
      "20",
      "--samples",
      "50",
      "--warmup",
      "50",
      "--chains",
      "1",
      "--quiet",
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^sgld: 1 chain/m);
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("main() reports bad input as one line with a non-zero exit", async (t) => {
  const dir = await Deno.makeTempDir();
  const bad = `${dir}/bad.csv`;
  await Deno.writeTextFile(bad, "x,y\n1,0\nabc,1\n");
  await Deno.writeTextFile(
    `${dir}/good.csv`,
    "x,y\n" + Array.from({ length: 300 }, (_, i) => `${Math.sin(i)},${i % 2}`).join("\n"),
  );
  const cases: [string, string[], number, RegExp][] = [
    ["no command", [], 2, /^$/],
    ["unknown command", ["fit"], 2, /unknown command "fit"/],
    ["missing --family", ["sample", "--data", bad, "--response", "y"], 2, /needs --family/],
    [
      "bad family",
      ["sample", "--family", "probit", "--data", bad, "--response", "y"],
      2,
      /got "probit"/,
    ],
    [
      "bad samples",
      ["sample", "--family", "logistic", "--data", bad, "--response", "y", "--samples=-3"],
      2,
      /--samples .* got "-3"/,
    ],
    ["negative value without =", ["sample", "--samples", "-3"], 2, /write --samples=VALUE/],
    [
      "sgld with a non-positive step size",
      [
        "sample",
        "--family",
        "logistic",
        "--data",
        bad.replace("bad", "good"),
        "--response",
        "y",
        "--sampler",
        "sgld",
        "--step-size=0",
      ],
      2,
      /--step-size must be a positive number, got "0"/,
    ],
    [
      "bad cv order",
      [
        "sample",
        "--family",
        "logistic",
        "--data",
        bad.replace("bad", "good"),
        "--response",
        "y",
        "--sampler",
        "sgld",
        "--cv-order",
        "3",
      ],
      2,
      /--cv-order must be one of 0, 1, 2, got "3"/,
    ],
    ["unknown flag", ["sample", "--frobnicate"], 2, /frobnicate/],
    [
      "gaussian with a non-positive sigma (without --sigma, σ is sampled)",
      ["sample", "--family", "gaussian", "--sigma", "0", "--data", bad, "--response", "y"],
      2,
      /--sigma must be a positive number, got "0"/,
    ],
    [
      "missing file",
      ["sample", "--family", "logistic", "--data", `${dir}/nope.csv`, "--response", "y"],
      2,
      /--data .*nope\.csv/,
    ],
    [
      "non-numeric cell",
      ["sample", "--family", "logistic", "--data", bad, "--response", "y", "--quiet"],
      2,
      /abc/,
    ],
    ["summary of a missing file", ["summary", `${dir}/nope.csv`], 2, /cannot read/],
    // A data CSV reads as a plain draws CSV; its bad cell is what gets named.
    ["summary of a non-draws file", ["summary", bad], 2, /line 3, column "x".*"abc"/],
  ];
  for (const [name, args, code, pattern] of cases) {
    await t.step(name, async () => {
      const r = await _run(args);
      assert.equal(r.code, code, `exit code for ${name}: ${r.err}`);
      assert.match(r.err, pattern);
      assert.ok(!r.err.includes("\n"), `one line expected, got ${JSON.stringify(r.err)}`);
      if (code !== 0 && args.length > 0) assert.match(r.err, /^tallmc: error: /);
    });
  }
  await Deno.remove(dir, { recursive: true });
});
