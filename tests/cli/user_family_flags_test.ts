/**
 * `tallmc sample --family-source FILE.ts` (cli/user_family_flags.ts): the
 * built-in logistic family's formulas written in AssemblyScript give the
 * posterior of `--family logistic` (means within 4 combined MCSEs), with
 * the same draws with the chains in this thread and in workers, from CSV
 * and from Parquet; and
 * every refusal names the flag and the value: a missing file, a missing
 * function, a compile error (FILE:LINE:COLUMN of the user's file), with
 * `--family`, `--offset`, `--trials`, `--f32`, and without the
 * `--allow-env=CI` the compiler needs (a subprocess).
 */
import assert from "node:assert/strict";
import { EXAMPLE_LOGISTIC_SOURCE } from "../../core/user_family.ts";
import { parseDrawsCsv } from "../../data/draws_csv.ts";
import { mcseMean } from "../../diagnostics/mcse.ts";
import { assertMeanWithinMcse } from "../_stat.ts";
import { runCli } from "../_cli_fixtures.ts";

const N = 200;

/** y, x1, x2, expo: logistic rows from a fixed rule (no randomness). */
function _csv(): string {
  const lines = ["y,x1,x2,expo"];
  for (let i = 0; i < N; i++) {
    const x1 = Math.sin(i * 1.7) * 1.3, x2 = Math.cos(i * 0.31) / 3;
    const y = 0.4 + x1 - 2 * x2 + Math.sin(i * 7.1) > 0 ? 1 : 0;
    lines.push(`${y},${x1},${x2},${1 + (i % 3)}`);
  }
  return lines.join("\n") + "\n";
}

const RUN = ["--samples", "40", "--warmup", "40", "--seed", "5", "--quiet"];

async function _draws(path: string): Promise<Float64Array[][]> {
  return parseDrawsCsv(await Deno.readTextFile(path)).draws;
}

/** The rows and the example logistic source in `dir`, and the flags every run shares. */
async function _setup(dir: string, sizes: string[]) {
  const data = `${dir}/rows.csv`, fam = `${dir}/logistic.ts`;
  await Deno.writeTextFile(data, _csv());
  await Deno.writeTextFile(fam, EXAMPLE_LOGISTIC_SOURCE);
  const common = ["--response", "y", "--columns", "x1,x2", "--seed", "5", ...sizes];
  /** One run of two chains over `rows`, its draws written to `dir/out`. */
  const run = async (family: string[], out: string, extra: string[] = [], rows = data) => {
    const r = await runCli([
      "sample",
      ...family,
      "--data",
      rows,
      ...common,
      "--chains",
      "2",
      ...extra,
      "--out",
      `${dir}/${out}`,
    ]);
    assert.equal(r.code, 0, r.err);
    return r;
  };
  return { data, fam, run };
}

Deno.test("sample --family-source: chains in workers and rows from Parquet draw what this thread draws from CSV", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_userfam_" });
  try {
    const { data, fam, run } = await _setup(dir, ["--samples", "40", "--warmup", "40"]);
    await run(["--family-source", fam], "user0.csv", ["--workers", "0", "--quiet"]);
    // Without --quiet: a fallback to this thread would be said in a note.
    const inWorkers = await run(["--family-source", fam], "user2.csv", ["--workers", "2"]);
    assert.doesNotMatch(inWorkers.err, /note: --workers/, inWorkers.err);
    // The same rows from Parquet (f64 columns: the same bits).
    const pq = `${dir}/rows.parquet`;
    const conv = await runCli(["convert", data, pq, "--response", "y", "--columns", "x1,x2"]);
    assert.equal(conv.code, 0, conv.err);
    await run(["--family-source", fam], "userpq.csv", ["--workers", "0", "--quiet"], pq);
    const b = await _draws(`${dir}/user0.csv`);
    assert.deepEqual(await _draws(`${dir}/user2.csv`), b);
    assert.deepEqual(await _draws(`${dir}/userpq.csv`), b);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[e2e] sample --family-source: the user's logistic source gives --family logistic's posterior", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_userfam_" });
  try {
    const { fam, run } = await _setup(dir, ["--samples", "400", "--warmup", "300", "--quiet"]);
    await run(["--family", "logistic"], "ref.csv");
    await run(["--family-source", fam], "user.csv");
    const a = await _draws(`${dir}/ref.csv`), b = await _draws(`${dir}/user.csv`);
    // The built-in family's sampler starts elsewhere (not the same draws):
    // every posterior mean within 4 combined MCSEs.
    for (let j = 0; j < a[0].length; j++) {
      const ref = a.map((c) => c[j]), got = b.map((c) => c[j]);
      const m = ref.flatMap((c) => Array.from(c)).reduce((s, v) => s + v, 0) /
        (ref.length * ref[0].length);
      assertMeanWithinMcse(got, m, { referenceSe: mcseMean(ref), what: `θ${j}` });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sample --family-source: refusals name the flag and the value", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_userfam_" });
  try {
    const data = `${dir}/rows.csv`, fam = `${dir}/logistic.ts`;
    await Deno.writeTextFile(data, _csv());
    await Deno.writeTextFile(fam, EXAMPLE_LOGISTIC_SOURCE);
    const run = (...args: string[]) =>
      runCli(["sample", "--data", data, "--response", "y", ...RUN, "--workers", "0", ...args]);
    const cases: [string[], RegExp][] = [
      [
        ["--family-source", `${dir}/nope.ts`],
        /--family-source \S*nope\.ts cannot be read: .*No such file/,
      ],
      [
        ["--family-source", fam, "--family", "logistic"],
        /--family-source \S*logistic\.ts cannot be combined with --family "logistic"/,
      ],
      [
        ["--family-source", fam, "--offset", "expo"],
        /cannot be combined with --offset "expo": the family's functions take η and y only/,
      ],
      [
        ["--family-source", fam, "--trials", "expo"],
        /cannot be combined with --trials "expo"/,
      ],
      [["--family-source", fam, "--f32"], /cannot be combined with --f32: .* reads X as f64/],
      [["--response", "y"], /sample needs --family or --family-source/],
    ];
    for (const [args, want] of cases) {
      const r = await run(...args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
      assert.match(r.err, want);
    }
    const partial = `${dir}/partial.ts`;
    await Deno.writeTextFile(
      partial,
      "function logLik(eta: f64, y: f64): f64 { return y * eta; }\n",
    );
    const noFn = await run("--family-source", partial);
    assert.equal(noFn.code, 2);
    assert.match(
      noFn.err,
      /--family-source \S*partial\.ts must define function dLogLik\(eta: f64, y: f64\): f64, function d2LogLik/,
    );
    // A compile error: the compiler's message at the line and column of the user's file.
    const broken = `${dir}/broken.ts`;
    const lines = EXAMPLE_LOGISTIC_SOURCE.split("\n");
    const at = lines.findIndex((l) => l.includes("Math.log1p(e)"));
    lines[at] = lines[at].replace("Math.log1p(e)", "undefinedThing(e)");
    await Deno.writeTextFile(broken, lines.join("\n"));
    const col = lines[at].indexOf("undefinedThing") + 1;
    const bad = await run("--family-source", broken);
    assert.equal(bad.code, 2, bad.err);
    assert.match(bad.err, /--family-source \S*broken\.ts does not compile: /);
    assert.ok(
      bad.err.includes(`broken.ts:${at + 1}:${col}`),
      `the message names ${broken}:${at + 1}:${col}: ${bad.err}`,
    );
    assert.match(bad.err, /undefinedThing/);
    // Without --allow-env=CI (the compiler reads it): refused, naming the flag (a subprocess).
    const r = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        new URL("../../cli.ts", import.meta.url).pathname,
        "sample",
        "--family-source",
        fam,
        "--data",
        data,
        "--response",
        "y",
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(r.stderr);
    assert.equal(r.code, 2, err);
    assert.match(err, /--family-source \S*logistic\.ts: .* needs --allow-env=CI/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
