/**
 * Bad input through the command line, run as a user would: `cli.ts` in a
 * subprocess. Each case asserts the exit code (0 ok, 2 bad input), that the
 * message names the flag or path the user typed, that no stack trace is
 * printed, and — for runs that sampled — that the draws file exists, is
 * complete CSV and holds every draw made before a stop. A bounded fuzz test
 * of random flag combinations closes the file.
 *
 * Needs `--allow-run` (to start the CLI) besides the usual test permissions.
 */
import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";
import { Rng } from "../random/rng.ts";

const CLI = fromFileUrl(new URL("../cli.ts", import.meta.url));
const CONFIG = fromFileUrl(new URL("../deno.json", import.meta.url));

interface _Run {
  code: number;
  out: string;
  err: string;
}

async function _cli(args: string[], options: { cwd?: string; task?: boolean } = {}): Promise<_Run> {
  const argv = options.task
    ? ["task", "--quiet", "--config", CONFIG, "cli", ...args]
    : ["run", "--allow-read", "--allow-write", "--allow-env=INIT_CWD", CLI, ...args];
  const r = await new Deno.Command(Deno.execPath(), {
    args: argv,
    cwd: options.cwd,
    stdout: "piped",
    stderr: "piped",
    // Without the INIT_CWD of an enclosing `deno task test`: deno task keeps
    // an INIT_CWD it inherits, and the test must see the one its own task sets.
    clearEnv: true,
    env: { ..._envWithout("INIT_CWD"), NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
}

function _envWithout(name: string): Record<string, string> {
  const env = Deno.env.toObject();
  delete env[name];
  return env;
}

function _assertNoStackTrace(r: _Run): void {
  assert.ok(!/^\s+at /m.test(r.err), `stack trace printed:\n${r.err}`);
  assert.ok(!/^\s+at /m.test(r.out), `stack trace printed:\n${r.out}`);
}

/**
 * Parse a draws file strictly: header `chain,iteration,…`, every row with
 * as many numeric, finite cells, newline-terminated. Returns rows per chain.
 */
function _readDraws(path: string): { header: string[]; rowsPerChain: Map<number, number> } {
  const text = Deno.readTextFileSync(path);
  assert.ok(text.endsWith("\n"), "draws file must end with a newline (no partial row)");
  const lines = text.slice(0, -1).split("\n");
  const header = lines[0].split(",");
  assert.deepEqual(header.slice(0, 2), ["chain", "iteration"]);
  const rowsPerChain = new Map<number, number>();
  for (const line of lines.slice(1)) {
    const cells = line.split(",");
    assert.equal(cells.length, header.length, `row ${JSON.stringify(line)} is incomplete`);
    for (const c of cells) assert.ok(Number.isFinite(Number(c)), `non-finite cell ${c}`);
    const chain = Number(cells[0]), it = Number(cells[1]);
    assert.equal(it, rowsPerChain.get(chain) ?? 0, "iterations must be consecutive");
    rowsPerChain.set(chain, it + 1);
  }
  return { header, rowsPerChain };
}

const dir = Deno.makeTempDirSync({ prefix: "tallmc-bad-input-" });
const csv = `${dir}/data.csv`;
{
  const rng = new Rng("bad-input-data");
  const lines = ["x1,x2,y"];
  for (let i = 0; i < 300; i++) {
    const a = rng.normal(), b = rng.normal();
    lines.push(`${a},${b},${rng.uniform() < 1 / (1 + Math.exp(-(0.5 + a - b))) ? 1 : 0}`);
  }
  Deno.writeTextFileSync(csv, lines.join("\n") + "\n");
}
const base = ["sample", "--family", "logistic", "--data", csv, "--response", "y", "--quiet"];
const small = ["--samples", "30", "--warmup", "30", "--chains", "2"];

Deno.test("cli sample: usage errors exit 2 naming the flag, without a stack trace", async (t) => {
  const cases: [string, string[], RegExp][] = [
    ["unknown flag", [...base, "--frobnicate", "1"], /unknown flag --frobnicate/],
    ["misspelt flag gets a suggestion", [...base, "--sampels", "10"], /did you mean --samples/],
    ["extra positional argument", [...base, "extra.csv"], /unexpected argument "extra.csv"/],
    ["missing --response", ["sample", "--family", "logistic", "--data", csv], /--response/],
    ["non-integer --chains", [...base, "--chains", "abc"], /--chains must be an integer.*"abc"/],
    ["unknown --sampler", [...base, "--sampler", "nuts"], /--sampler must be one of hmc, .*"nuts"/],
    [
      "a flag of another sampler",
      [...base, "--sampler", "hmc", "--num-steps", "5"],
      /--num-steps does not apply to --sampler hmc/,
    ],
    [
      "bad --control-variates",
      [...base, "--sampler", "sgld", "--control-variates", "x"],
      /yes or no/,
    ],
    [
      "--data is a directory",
      ["sample", "--family", "logistic", "--data", dir, "--response", "y"],
      new RegExp(`--data ${dir} is a directory`),
    ],
    ["--data missing", [
      "sample",
      "--family",
      "logistic",
      "--data",
      `${dir}/no.csv`,
      "--response",
      "y",
    ], /--data .*no\.csv cannot be read/],
    ["--response not a column", [
      "sample",
      "--family",
      "logistic",
      "--data",
      csv,
      "--response",
      "zz",
    ], /zz/],
    [
      "--out in a missing directory",
      [...base, ...small, "--out", `${dir}/nope/d.csv`],
      /--out .*nope\/d\.csv is not writable/,
    ],
    ["--out is a directory", [...base, ...small, "--out", dir], /--out .* is a directory/],
  ];
  for (const [name, args, pattern] of cases) {
    await t.step(name, async () => {
      const r = await _cli(args);
      assert.equal(r.code, 2, `${name}: exit ${r.code}\n${r.err}`);
      assert.match(r.err, pattern);
      assert.match(r.err, /^tallmc: error: /);
      _assertNoStackTrace(r);
    });
  }
});

Deno.test("cli sample: --samples 1e12 is refused before allocation with the memory needed", async () => {
  const r = await _cli([...base, "--samples", "1e12", "--out", `${dir}/huge.csv`]);
  assert.equal(r.code, 2);
  assert.match(r.err, /--samples 1e12.*would need about [\d.]+ TB of memory/);
  _assertNoStackTrace(r);
  assert.throws(() => Deno.statSync(`${dir}/huge.csv`), Deno.errors.NotFound);
});

Deno.test("cli sample: a diverging SG run stops, names --step-size and keeps its draws", async () => {
  const out = `${dir}/diverged.csv`;
  const r = await _cli([
    ...base,
    "--sampler",
    "sgld",
    "--step-size",
    "10",
    "--warmup",
    "0",
    "--samples",
    "200",
    "--chains",
    "2",
    "--out",
    out,
  ]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /chain 0 stopped at sampling iteration \d+: SGLD diverged.*--step-size/);
  _assertNoStackTrace(r);
  const { header, rowsPerChain } = _readDraws(out);
  assert.deepEqual(header, ["chain", "iteration", "(Intercept)", "x1", "x2"]);
  // Every draw made before the stop is in the file: the stop iteration is
  // the number of draws made (no thinning).
  for (const m of r.err.matchAll(/chain (\d+) stopped at sampling iteration (\d+)/g)) {
    assert.equal(rowsPerChain.get(Number(m[1])) ?? 0, Number(m[2]));
  }
});

Deno.test("cli sample: SG samplers run without --step-size (defaults scale with n)", async () => {
  for (const sampler of ["sgld", "sghmc", "sgnht", "ccadl"]) {
    const out = `${dir}/${sampler}.csv`;
    const r = await _cli([...base, ...small, "--sampler", sampler, "--out", out]);
    assert.equal(r.code, 0, `${sampler}: ${r.err}`);
    assert.equal(_readDraws(out).rowsPerChain.get(1), 30);
  }
});

Deno.test("cli summary: --digits means significant digits", async () => {
  const path = `${dir}/sig.csv`;
  const rows = ["chain,iteration,a"];
  for (let c = 0; c < 2; c++) {
    for (let k = 0; k < 50; k++) rows.push(`${c},${k},${1234.5678 + Math.sin(7 * k + c) * 1e-3}`);
  }
  Deno.writeTextFileSync(path, rows.join("\n") + "\n");
  const r = await _cli(["summary", path, "--digits", "2"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^a +1235 /m); // 2 significant digits never drop integer digits (as R)
  const r5 = await _cli(["summary", path, "--digits", "6"]);
  assert.match(r5.out, /^a +1234\.57 /m);
  const bad = await _cli(["summary", path, "--digits", "0"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--digits must be an integer ≥ 1/);
});

Deno.test("deno task cli resolves relative paths against the caller's directory", async () => {
  const cwd = Deno.makeTempDirSync({ prefix: "tallmc-cwd-" });
  Deno.copyFileSync(csv, `${cwd}/rel.csv`);
  const r = await _cli(
    [
      "sample",
      "--family",
      "logistic",
      "--data",
      "rel.csv",
      "--response",
      "y",
      "--quiet",
      ...small,
      "--out",
      "rel_draws.csv",
    ],
    { cwd, task: true },
  );
  assert.equal(r.code, 0, r.err);
  assert.equal(_readDraws(`${cwd}/rel_draws.csv`).rowsPerChain.get(0), 30);
});

Deno.test("cli sample: fuzzed flag combinations exit 0 or 2, never a stack trace or a partial file", async () => {
  const rng = new Rng("cli-fuzz");
  const pick = <T>(xs: readonly T[]): T => xs[rng.int(xs.length)];
  const values: Record<string, readonly string[]> = {
    "--sampler": ["hmc", "rwmh", "sgld", "sghmc", "sgnht", "ccadl", "hmc-ecs", "nuts", ""],
    "--samples": ["10", "25", "0", "-3", "abc", "1e12", "2.5", "1e1"],
    "--warmup": ["0", "10", "20", "-1", "x"],
    "--chains": ["1", "2", "0", "99999999"],
    "--seed": ["1", "7", "-1", "1e3", "NaN"],
    "--thin": ["1", "2", "0", "3"],
    "--step-size": ["0.001", "1e-5", "10", "0", "-1", "inf"],
    "--batch-size": ["20", "1", "5000", "x"],
    "--num-steps": ["1", "5", "0"],
    "--friction": ["1", "10", "-2"],
    "--metric": ["identity", "dense", "hessian", "euclid"],
    "--cv-order": ["0", "1", "2", "3", "none"],
    "--control-variates": ["yes", "no", "maybe"],
    "--variant": ["perturbed", "signed", "x"],
    "--prior-scale": ["1", "0", "1e300"],
    "--family": ["logistic", "poisson", "gaussian", "probit"],
    "--sigma": ["1", "-1"],
    "--columns": ["x1", "x1,x2", "x3", ""],
  };
  const flags = Object.keys(values);
  const numCases = 60;
  for (let k = 0; k < numCases; k++) {
    const out = `${dir}/fuzz_${k}.csv`;
    const args = ["sample", "--data", csv, "--response", "y", "--quiet", "--out", out];
    const chosen = new Set<string>(["--family", "--samples", "--warmup", "--chains"]);
    for (let i = 0, m = rng.int(5); i < m; i++) chosen.add(pick(flags));
    for (const f of chosen) args.push(`${f}=${pick(values[f])}`);
    if (rng.uniform() < 0.1) args.push(pick(["--bogus", "stray", "--no-intercept", "--f32"]));
    const r = await _cli(args);
    const label = `case ${k}: ${args.slice(7).join(" ")}\n${r.err}`;
    assert.ok(r.code === 0 || r.code === 2, `exit ${r.code} for ${label}`);
    _assertNoStackTrace(r);
    if (r.code !== 0) assert.match(r.err, /^tallmc: error: /m, label);
    let exists = true;
    try {
      Deno.statSync(out);
    } catch {
      exists = false;
    }
    if (r.code === 0) assert.ok(exists, `no draws file for ${label}`);
    if (exists) _readDraws(out);
  }
});
