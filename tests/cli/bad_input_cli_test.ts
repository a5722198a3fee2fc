/**
 * Bad input through the command line, run as a user would: `cli.ts` in a
 * subprocess. Each case asserts the exit code (0 ok, 2 bad input), that the
 * message names the flag or path the user typed, that no stack trace is
 * printed, and — for runs that sampled — that the draws file exists, is
 * complete CSV and holds every draw made before a stop. Cases: usage errors,
 * impossible sizes, a diverging SG run, HMC-ECS on too few rows, awkward and
 * extreme data files (empty, header only, one row, an all-zero response,
 * cells of 1e300 and 1e10, CRLF, BOM and quoted header, a bad cell at row
 * 1,000,000, a non-finite log density at the start), `summary` on CmdStan's,
 * plain and signed draws, and a bounded fuzz test of random flag
 * combinations. Subprocesses run three at a time.
 *
 * Needs `--allow-run` (to start the CLI) besides the usual test permissions.
 */
import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";
import { Rng } from "../../random/rng.ts";

const CLI = fromFileUrl(new URL("../../cli.ts", import.meta.url));
const CONFIG = fromFileUrl(new URL("../../deno.json", import.meta.url));

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

/** Run `fn` over `items` with at most `width` subprocesses at once, results in order. */
async function _pool<T, R>(items: readonly T[], fn: (x: T) => Promise<R>, width = 3): Promise<R[]> {
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

function _exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Parse a draws file strictly: header `.chain,.iteration,.draw,…`, every row
 * with as many numeric, finite cells, newline-terminated. Returns rows per
 * chain, by 0-based chain id (the file's `.chain` is 1-based).
 */
function _readDraws(path: string): { header: string[]; rowsPerChain: Map<number, number> } {
  const text = Deno.readTextFileSync(path);
  assert.ok(text.endsWith("\n"), "draws file must end with a newline (no partial row)");
  const lines = text.slice(0, -1).split("\n");
  const header = lines[0].split(",");
  assert.deepEqual(header.slice(0, 3), [".chain", ".iteration", ".draw"]);
  const rowsPerChain = new Map<number, number>();
  for (const line of lines.slice(1)) {
    const cells = line.split(",");
    assert.equal(cells.length, header.length, `row ${JSON.stringify(line)} is incomplete`);
    for (const c of cells) assert.ok(Number.isFinite(Number(c)), `non-finite cell ${c}`);
    const chain = Number(cells[0]) - 1, it = Number(cells[1]) - 1;
    assert.equal(it, rowsPerChain.get(chain) ?? 0, "iterations must be consecutive");
    rowsPerChain.set(chain, it + 1);
  }
  return { header, rowsPerChain };
}

const dir = Deno.makeTempDirSync({ prefix: "tallmc-bad-input-" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
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

Deno.test("[e2e] cli sample: usage errors exit 2 naming the flag, without a stack trace", async (t) => {
  const cases: [string, string[], RegExp][] = [
    ["unknown flag", [...base, "--frobnicate", "1"], /unknown flag --frobnicate/],
    ["misspelt flag gets a suggestion", [...base, "--sampels", "10"], /did you mean --samples/],
    ["extra positional argument", [...base, "extra.csv"], /unexpected argument "extra.csv"/],
    ["missing --response", ["sample", "--family", "logistic", "--data", csv], /--response/],
    ["non-integer --chains", [...base, "--chains", "abc"], /--chains must be an integer.*"abc"/],
    ["unknown --sampler", [...base, "--sampler", "nutz"], /--sampler must be one of hmc, .*"nutz"/],
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
    [
      "a non-positive step size for a registry sampler",
      [...base, "--sampler", "naive-between", "--step-size=-1"],
      /--step-size must be a positive number, got "-1"/,
    ],
  ];
  const runs = await _pool(cases, ([, args]) => _cli(args));
  for (const [k, [name, , pattern]] of cases.entries()) {
    await t.step(name, () => {
      const r = runs[k];
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
  assert.deepEqual(header, [".chain", ".iteration", ".draw", "(Intercept)", "x1", "x2"]);
  // Every draw made before the stop is in the file: the stop iteration is
  // the number of draws made (no thinning).
  for (const m of r.err.matchAll(/chain (\d+) stopped at sampling iteration (\d+)/g)) {
    assert.equal(rowsPerChain.get(Number(m[1])) ?? 0, Number(m[2]));
  }
});

Deno.test("[e2e] cli sample: SG samplers run without --step-size (defaults scale with n)", async () => {
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

Deno.test("[e2e] cli sample: fuzzed flag combinations and malformed CSV exit 0 or 2, never a stack trace or a partial file", async () => {
  const rng = new Rng("cli-fuzz");
  const pick = <T>(xs: readonly T[]): T => xs[rng.int(xs.length)];
  const values: Record<string, readonly string[]> = {
    "--sampler": ["hmc", "rwmh", "sgld", "sghmc", "sgnht", "ccadl", "hmc-ecs", "nutz", ""],
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
  const numCases = 30;
  const cases: { out: string; args: string[] }[] = [];
  const lines = Deno.readTextFileSync(csv).split("\n").filter((l) => l !== "");
  // One case in three reads a malformed copy of the data file.
  const malformed = (k: number): string => {
    const rows = lines.slice(0, 1 + 20 + rng.int(40));
    const i = 1 + rng.int(rows.length - 1), cells = rows[i].split(",");
    switch (rng.int(7)) {
      case 0:
        cells[rng.int(cells.length)] = pick(["abc", "", "NaN", "1e400", '"1"', "--"]);
        break;
      case 1:
        cells.pop();
        break;
      case 2:
        cells.push("9");
        break;
      case 3:
        rows[0] = rows[0].replace(/,[^,]*$/, ",y");
        break; // duplicate column name
      case 4:
        rows.length = 1 + rng.int(2);
        break; // header only or a single row
      case 5:
        rows[0] = "\uFEFF" + rows[0];
        break;
      default:
        rows.splice(i, 1, rows[i].slice(0, rng.int(rows[i].length)));
    }
    if (cells.length) rows[i] = cells.join(",");
    const path = `${dir}/fuzz_data_${k}.csv`;
    Deno.writeTextFileSync(path, rows.join(rng.uniform() < 0.5 ? "\n" : "\r\n"));
    return path;
  };
  for (let k = 0; k < numCases; k++) {
    const out = `${dir}/fuzz_${k}.csv`;
    const data = k % 3 === 2 ? malformed(k) : csv;
    const args = ["sample", "--data", data, "--response", "y", "--quiet", "--out", out];
    const chosen = new Set<string>(["--family", "--samples", "--warmup", "--chains"]);
    for (let i = 0, m = rng.int(5); i < m; i++) chosen.add(pick(flags));
    for (const f of chosen) args.push(`${f}=${pick(values[f])}`);
    if (rng.uniform() < 0.1) args.push(pick(["--bogus", "stray", "--no-intercept", "--f32"]));
    cases.push({ out, args });
  }
  const runs = await _pool(cases, (c) => _cli(c.args));
  for (const [k, { out, args }] of cases.entries()) {
    const r = runs[k];
    const label = `case ${k}: ${args.slice(7).join(" ")}\n${r.err}`;
    assert.ok(r.code === 0 || r.code === 2, `exit ${r.code} for ${label}`);
    _assertNoStackTrace(r);
    if (r.code !== 0) assert.match(r.err, /^tallmc: error: /m, label);
    const exists = _exists(out);
    if (r.code === 0) assert.ok(exists, `no draws file for ${label}`);
    if (exists) _readDraws(out);
  }
});

Deno.test("cli sample: HMC-ECS on data too small for subsampling refuses, naming --sampler hmc", async () => {
  // Before: coefficients of ±10²–10³ on 30–50 rows (or a crash in essTail).
  const rows = Deno.readTextFileSync(csv).split("\n").slice(0, 31);
  const tiny = `${dir}/tiny.csv`, out = `${dir}/tiny_draws.csv`;
  Deno.writeTextFileSync(tiny, rows.join("\n") + "\n");
  const [refused, signed] = await _pool([
    ["sample", "--family", "logistic", "--data", tiny, "--response", "y", "--quiet", ...small]
      .concat(["--sampler", "hmc-ecs", "--out", out]),
    [...base, ...small, "--sampler", "hmc-ecs", "--variant", "signed", "--out", `${dir}/s.csv`],
  ], (args) => _cli(args));
  assert.equal(refused.code, 2, refused.err);
  assert.match(refused.err, /HMC-ECS cannot subsample n = 30 rows .*--sampler hmc/);
  _assertNoStackTrace(refused);
  assert.ok(!_exists(out), "a refused run writes no draws file");
  // Signed HMC-ECS writes each draw's sign, and summary corrects for it (eq. 17).
  assert.equal(signed.code, 0, signed.err);
  const { header, rowsPerChain } = _readDraws(`${dir}/s.csv`);
  assert.equal(header.at(-1), "sign");
  assert.deepEqual([...rowsPerChain.values()], [30, 30]);
  const summary = await _cli(["summary", `${dir}/s.csv`]);
  assert.equal(summary.code, 0, summary.err);
  assert.match(summary.out, /mean and sd are sign-corrected \(Dang et al\. 2019, eq\. 17\)/);
});

Deno.test("[e2e] cli sample: awkward and extreme data files", async (t) => {
  const lines = Deno.readTextFileSync(csv).trimEnd().split("\n");
  const data = (name: string, text: string) => {
    Deno.writeTextFileSync(`${dir}/${name}.csv`, text);
    return `${dir}/${name}.csv`;
  };
  const withCell = (cell: string) =>
    [lines[0], `${cell},${lines[1].split(",").slice(1).join(",")}`, ...lines.slice(2)].join("\n");
  // A non-numeric cell at data row 1,000,000.
  const million = `${dir}/million.csv`;
  {
    const f = Deno.openSync(million, { write: true, create: true, truncate: true });
    const enc = new TextEncoder(), chunk: string[] = ["x1,x2,y"];
    for (let i = 1; i <= 1_000_000; i++) {
      chunk.push(i === 1_000_000 ? "0.5,abc,1" : `${(i % 7) / 7},${(i % 5) / 5},${i % 2}`);
      if (chunk.length === 100_000) f.writeSync(enc.encode(chunk.splice(0).join("\n") + "\n"));
    }
    f.writeSync(enc.encode(chunk.join("\n") + "\n"));
    f.close();
  }
  // [name, data file, extra flags, exit code, stderr patterns]
  const cases: [string, string, string[], number, RegExp[]][] = [
    ["empty file", data("empty", ""), [], 2, [/--data: .*empty\.csv: the file is empty/]],
    ["header only", data("header", "x1,x2,y\n"), [], 2, [/no data rows/]],
    ["a single row", data("one", `${lines[0]}\n${lines[1]}\n`), [], 0, [/only 1 data row/]],
    [
      "a response of all zeros",
      data("zeros", lines.map((l, i) => (i === 0 ? l : l.replace(/,[01]$/, ",0"))).join("\n")),
      [],
      0,
      [/response "y" is 0 in every one of the 300 rows/],
    ],
    ["a cell of 1e300", data("e300", withCell("1e300")), [], 2, [/column "x1".*"1e300"/]],
    [
      "a cell of 1e10: loads with a warning to standardise",
      data("e10", withCell("1e10")),
      [],
      0,
      [/warning: --data: .*column "x1" has values up to 10000000000.*standardise/],
    ],
    ["Windows line endings", data("crlf", lines.join("\r\n") + "\r\n"), [], 0, []],
    [
      "a UTF-8 BOM and a quoted header",
      data("bom", "\uFEFF" + ['"x1","x2","y"', ...lines.slice(1)].join("\n")),
      [],
      0,
      [],
    ],
    [
      "a non-finite log density at the start names the parameter",
      csv,
      ["--family", "gaussian", "--sigma", "1e-200", "--response", "x2"],
      2,
      [/cannot start: log density at the initial position .*parameter "\(Intercept\)"/],
    ],
    ["a non-numeric cell at row 1,000,000", million, [], 2, [/line 1000001.*"x2".*"abc"/]],
  ];
  const runs = await _pool(cases, ([name, path, extra]) => {
    const flags = ["--family", "logistic", "--response", "y"];
    for (let i = 0; i < extra.length; i += 2) {
      const k = flags.indexOf(extra[i]);
      if (k >= 0) flags[k + 1] = extra[i + 1];
      else flags.push(extra[i], extra[i + 1]);
    }
    const out = `${dir}/awkward_${name.replace(/\W+/g, "_")}.csv`;
    return _cli(["sample", "--data", path, ...flags, "--quiet", ...small, "--out", out]);
  });
  for (const [k, [name, , , code, patterns]] of cases.entries()) {
    await t.step(name, () => {
      const r = runs[k];
      assert.equal(r.code, code, `${name}: exit ${r.code}\n${r.err}`);
      for (const p of patterns) assert.match(r.err, p);
      if (code === 2) assert.match(r.err, /^tallmc: error: /m);
      _assertNoStackTrace(r);
      const out = `${dir}/awkward_${name.replace(/\W+/g, "_")}.csv`;
      if (code === 0) {
        const { header, rowsPerChain } = _readDraws(out);
        assert.deepEqual(header.slice(3), ["(Intercept)", "x1", "x2"]);
        assert.deepEqual([...rowsPerChain.values()], [30, 30]); // every draw made
      }
    });
  }
});

Deno.test("cli summary: several files, CmdStan's and plain CSV, --basic, warnings", async (t) => {
  const stan = (k: number) => {
    const rows = [
      "# model = m",
      "lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,mu",
    ];
    for (let i = 0; i < 50; i++) {
      rows.push(`-1,0.9,0.5,2,3,${k === 0 && i < 3 ? 1 : 0},2,${Math.sin(3.1 * i + k)}`);
    }
    return rows.join("\n") + "\n";
  };
  Deno.writeTextFileSync(`${dir}/out_1.csv`, stan(0));
  Deno.writeTextFileSync(`${dir}/out_2.csv`, stan(1));
  const plain = ["a,b,chain"];
  for (let i = 0; i < 40; i++) plain.push(`${Math.cos(i)},${i % 2 === 0 ? "NaN" : 1},${i % 2}`);
  Deno.writeTextFileSync(`${dir}/plain.csv`, plain.join("\n") + "\n");
  const [cmdstan, plainRun, noFile, empty] = await _pool([
    ["summary", `${dir}/out_1.csv`, `${dir}/out_2.csv`, "--basic"],
    ["summary", `${dir}/plain.csv`],
    ["summary"],
    ["summary", `${dir}/empty.csv`],
  ], (args) => _cli(args));
  await t.step(
    "CmdStan's one file per chain: parameters only, divergent__ counted, --basic",
    () => {
      assert.equal(cmdstan.code, 0, cmdstan.err);
      assert.match(cmdstan.out, /ess_basic +rhat_basic +mcse_q5 +mcse_q95/);
      assert.match(cmdstan.out, /^mu /m);
      assert.doesNotMatch(cmdstan.out, /lp__|divergent__ /);
      assert.match(cmdstan.err, /3 of 100 \(3\.0%\) transitions ended with a divergence/);
      _assertNoStackTrace(cmdstan);
    },
  );
  await t.step("a plain draws CSV with NaN draws: NA diagnostics with the reason", () => {
    assert.equal(plainRun.code, 0, plainRun.err);
    assert.match(plainRun.out, /^a /m);
    assert.match(plainRun.err, /parameter "b": .*NaN because some draws are NaN/);
    _assertNoStackTrace(plainRun);
  });
  await t.step("no file, an empty file: exit 2 naming what is missing", () => {
    assert.equal(noFile.code, 2);
    assert.match(noFile.err, /summary needs at least one draws file/);
    assert.equal(empty.code, 2);
    assert.match(empty.err, /empty\.csv/);
    _assertNoStackTrace(noFile);
    _assertNoStackTrace(empty);
  });
});
