/**
 * `tallmc sample --data FILE.rows` (cli/row_store_data.ts): a row store
 * written by `tallmc convert` is sampled with its rows left in the file
 * (stream shards). HMC-ECS's draws are checked against the full-data
 * posterior's Laplace approximation (MAP and sds of the model the command
 * line builds from the CSV file the store was made from), with tolerances
 * from the draws' Monte Carlo standard errors; the flags a store cannot
 * serve are refused naming the flag; a store without an intercept gives a
 * model without one; the store is never written to.
 */
import assert from "node:assert/strict";
import { familyFromFlags } from "../../cli/model_flags.ts";
import { modelFromFlags } from "../../cli/model_options.ts";
import { loadCore } from "../../core/load.ts";
import { mcseMean } from "../../diagnostics/mcse.ts";
import { cholesky, inverseFromCholesky } from "../../math/linalg.ts";
import { newtonMap } from "../../replicate/laplace.ts";
import { Rng } from "../../random/rng.ts";
import { runCli } from "../_cli_fixtures.ts";

const N = 20_000;

/** A logistic data set: y, a, b, c with a known β; values with full mantissas. */
async function writeCsv(path: string): Promise<void> {
  const rng = new Rng("row-store-cli");
  const lines = ["y,a,b,c"];
  for (let i = 0; i < N; i++) {
    const a = rng.normal(), b = rng.normal() * 0.5, c = rng.uniform() - 0.5;
    const eta = -0.3 + 0.8 * a - 0.5 * b + 1.2 * c;
    lines.push(`${rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0},${a},${b},${c}`);
  }
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
}

/** `tallmc sample --family logistic --data DATA --response y` and `extra`. */
function sampleLogistic(data: string, ...extra: string[]) {
  return runCli(["sample", "--family", "logistic", "--data", data, "--response", "y", ...extra]);
}

/** The draws of each parameter, per chain, from a tallmc draws file. */
function readDraws(text: string): Map<string, number[][]> {
  const lines = text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
  const head = lines[0].split(",");
  const chainCol = head.indexOf(".chain");
  const out = new Map<string, number[][]>();
  for (const name of head) if (!name.startsWith(".")) out.set(name, []);
  for (const line of lines.slice(1)) {
    const cells = line.split(",");
    const c = Number(cells[chainCol]) - 1;
    head.forEach((name, j) => {
      const per = out.get(name);
      if (per === undefined) return;
      (per[c] ??= []).push(Number(cells[j]));
    });
  }
  return out;
}

Deno.test("cli: sample --data FILE.rows runs HMC-ECS out of core on the full-data posterior", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const csv = `${dir}/d.csv`, rows = `${dir}/d.rows`, out = `${dir}/draws.csv`;
    await writeCsv(csv);
    const conv = await runCli(["convert", csv, rows, "--response", "y", "--storage", "f32"]);
    assert.equal(conv.code, 0, conv.err);
    const before = await Deno.readFile(rows);

    await t.step("HMC-ECS's draws match the Laplace approximation", async () => {
      const r = await sampleLogistic(rows, "--sampler", "hmc-ecs", "--seed", "3", "--out", out);
      assert.equal(r.code, 0, r.err);
      assert.match(
        r.out,
        /rows stay in the row store: 20000 rows \(X as f32\) streamed by \d+ worker/,
      );
      assert.match(r.out, /centring: \d+ full-data passes streamed from the row store/);
      assert.match(r.out, /row store: \d+ full-data passes streamed from the file/);
      // The reference: the model the command line builds from the CSV file,
      // with X rounded to f32 as the store holds it.
      const values = { family: "logistic", response: "y" };
      const built = await modelFromFlags(loadCore(), csv, values, {
        choice: familyFromFlags(values),
        storage: "f32",
      });
      const { mode, negHessian } = newtonMap(built.model);
      const cov = inverseFromCholesky(cholesky(negHessian));
      const draws = readDraws(await Deno.readTextFile(out));
      const d = built.model.dim;
      assert.deepEqual([...draws.keys()], built.model.parameterNames);
      built.model.parameterNames.forEach((name, j) => {
        const chains = draws.get(name)!;
        assert.equal(chains.length, 4);
        const all = chains.flat();
        const mean = all.reduce((s, v) => s + v, 0) / all.length;
        const sd = Math.sqrt(all.reduce((s, v) => s + (v - mean) ** 2, 0) / (all.length - 1));
        const lsd = Math.sqrt(cov[j * d + j]);
        // Monte Carlo error of the mean, plus the Laplace approximation's own
        // error at n = 2·10⁴ (≈ d/√n posterior sds, 0.03) as slack.
        const tol = 4 * mcseMean(chains) + 0.05 * lsd;
        assert.ok(
          Math.abs(mean - mode[j]) <= tol,
          `${name}: mean ${mean}, MAP ${mode[j]}, tolerance ${tol}`,
        );
        // The sd's relative standard error ≈ 1/√(2·ESS), ESS = (sd / MCSE)².
        const ess = (sd / mcseMean(chains)) ** 2;
        const rel = 4 / Math.sqrt(2 * ess) + 0.05;
        assert.ok(Math.abs(sd / lsd - 1) <= rel, `${name}: sd ${sd}, Laplace ${lsd}, ±${rel}`);
      });
    });

    await t.step("another sampler reads every row at every step, with a note", async () => {
      const r = await sampleLogistic(
        rows,
        "--sampler",
        "rwmh",
        "--chains",
        "1",
        "--warmup",
        "20",
        "--samples",
        "20",
      );
      assert.equal(r.code === 0 || r.code === 1, true, r.err); // a short run may not converge
      assert.match(r.err, /every step of --sampler rwmh reads all 20000 rows from the file/);
    });

    await t.step("flags a row store cannot serve are refused, naming the flag", async () => {
      const base = ["sample", "--data", rows, "--sampler", "hmc-ecs"];
      const cases: [string[], RegExp][] = [
        [
          ["--family", "logistic", "--response", "z"],
          /--response z: the row store's response is y/,
        ],
        [
          ["--family", "logistic", "--response", "y", "--prior-intercept", "normal(0,5)"],
          /--prior-intercept.*take defaults or transforms from every row/,
        ],
        [
          ["--family", "logistic", "--response", "y", "--columns", "a,b"],
          /--columns: a row store's columns are fixed/,
        ],
        [
          ["--family", "logistic", "--response", "y", "--no-intercept"],
          /--no-intercept: the row store holds an intercept/,
        ],
        [["--family", "poisson", "--response", "y", "--offset", "a"], /--offset: a per-row column/],
      ];
      for (const [flags, want] of cases) {
        const r = await runCli([...base, ...flags]);
        assert.equal(r.code, 2, `${flags.join(" ")}: ${r.err}`);
        assert.match(r.err, want, flags.join(" "));
        assert.match(r.err, new RegExp(rows.replaceAll("/", "\\/")));
      }
    });

    await t.step("--f32 is refused for a store of f64 cells", async () => {
      const f64 = `${dir}/d64.rows`;
      const c = await runCli(["convert", csv, f64, "--response", "y"]);
      assert.equal(c.code, 0, c.err);
      const r = await sampleLogistic(f64, "--f32");
      assert.equal(r.code, 2);
      assert.match(r.err, /--f32: this row store holds X as f64/);
    });

    await t.step("a store without an intercept gives a model without one", async () => {
      const bare = `${dir}/bare.rows`;
      const c = await runCli(["convert", csv, bare, "--response", "y", "--no-intercept"]);
      assert.equal(c.code, 0, c.err);
      const o = `${dir}/bare_draws.csv`;
      const r = await sampleLogistic(
        bare,
        "--sampler",
        "hmc-ecs",
        "--chains",
        "1",
        "--warmup",
        "200",
        "--samples",
        "200",
        "--quiet",
        "--out",
        o,
      );
      assert.ok(r.code === 0 || r.code === 1, r.err);
      assert.deepEqual([...readDraws(await Deno.readTextFile(o)).keys()], ["a", "b", "c"]);
    });

    await t.step("a truncated store is an error naming the file and its size", async () => {
      const cut = `${dir}/cut.rows`;
      const bytes = await Deno.readFile(rows);
      await Deno.writeFile(cut, bytes.subarray(0, bytes.length - 10));
      const r = await sampleLogistic(cut);
      assert.equal(r.code, 2);
      assert.match(r.err, /cut\.rows: file size \d+ bytes does not match the header/);
    });

    await t.step("the store is never written to", async () => {
      assert.deepEqual(await Deno.readFile(rows), before);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
