/**
 * `tallmc compare` (cli/compare_command.ts): full and subsampled PSIS-LOO
 * comparisons of draws files sampled by `tallmc sample`, and its errors.
 */
import assert from "node:assert/strict";
import { Rng } from "../../random/rng.ts";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { parseDrawsCsv } from "../../data/draws_csv.ts";
import { looCompare, looFromModel } from "../../diagnostics/loo.ts";
import { GlmModel } from "../../models/glm.ts";
import { familyFromFlags } from "../../cli/model_flags.ts";
import { modelFromFlags } from "../../cli/model_options.ts";
import type { GlmData } from "../../data/dataset.ts";
import { runCli } from "../_cli_fixtures.ts";

/** Negative-binomial counts (φ = 1.5) with log mean 1 + 0.5 z. */
function nbCsv(n: number, seed: number): { text: string; z: number[]; y: number[] } {
  const rng = new Rng(seed);
  const z: number[] = [], y: number[] = [];
  for (let i = 0; i < n; i++) {
    const zi = Math.round(rng.normal() * 1e4) / 1e4;
    z.push(zi);
    y.push(rng.poisson((rng.gamma(1.5) * Math.exp(1 + 0.5 * zi)) / 1.5));
  }
  return { text: "z,y\n" + z.map((v, i) => `${v},${y[i]}`).join("\n") + "\n", z, y };
}

/** The numbers of a table line starting with `name`. */
function row(out: string, name: string): number[] {
  const line = out.split("\n").find((l) => l.startsWith(name + " "));
  assert.ok(line, `no line for ${name} in\n${out}`);
  return line.trim().split(/\s+/).slice(1).map(Number);
}

Deno.test("[e2e] tallmc compare: ranks NB above Poisson on overdispersed counts, full and subsampled", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const n = 400;
    const data = nbCsv(n, 5);
    const dataPath = `${dir}/counts.csv`;
    await Deno.writeTextFile(dataPath, data.text);
    for (const family of ["poisson", "negative-binomial"]) {
      const r = await runCli([
        "sample",
        "--family",
        family,
        "--data",
        dataPath,
        "--response",
        "y",
        "--samples",
        "100",
        "--warmup",
        "100",
        "--chains",
        "2",
        "--quiet",
        "--out",
        `${dir}/${family}.csv`,
      ]);
      assert.equal(r.code, 0, r.err);
    }
    const fits = [
      "--fit",
      `pois=${dir}/poisson.csv`,
      "--family",
      "poisson",
      "--fit",
      `${dir}/negative-binomial.csv`,
      "--family",
      "negative-binomial",
    ];
    const common = ["compare", "--data", dataPath, "--response", "y"];

    // n ≤ 10 000: full PSIS-LOO by default, as looCompare on the same draws.
    const full = await runCli([...common, ...fits]);
    assert.equal(full.code, 0, full.err);
    assert.match(full.out, /PSIS-LOO: all 400 rows; 200, 200 draws/);
    assert.match(
      full.out,
      /^model +elpd_diff +se_diff +elpd_loo +se_elpd_loo +p_loo +se_p_loo +looic$/m,
    );
    const lines = full.out.split("\n");
    const head = lines.findIndex((l) => /^model +elpd_diff/.test(l));
    assert.ok(lines[head + 1].startsWith("negative-binomial "), full.out);
    const fPois = row(full.out, "pois"), fNb = row(full.out, "negative-binomial");
    assert.deepEqual(fNb.slice(0, 2), [0, 0]);
    assert.ok(fPois[0] < -4 * fPois[1], `Poisson clearly worse: ${fPois}`);
    // The same numbers from the API.
    const arena = loadCore();
    const x = data.z.flatMap((v) => [1, v]);
    const api: Record<string, ReturnType<typeof looFromModel>> = {};
    for (
      const [name, family, file] of [
        ["pois", "poisson", "poisson.csv"],
        ["negative-binomial", "negative-binomial", "negative-binomial.csv"],
      ] as const
    ) {
      const model = new GlmModel(
        glmDataFromArrays(arena, x, data.y, { numCols: 2 }),
        { family },
      );
      const t = parseDrawsCsv(await Deno.readTextFile(`${dir}/${file}`));
      const draws: Float64Array[] = [], chainIds: number[] = [];
      t.draws.forEach((c, k) => {
        for (let s = 0; s < c[0].length; s++) {
          draws.push(Float64Array.from(c, (p) => p[s]));
          chainIds.push(k);
        }
      });
      api[name] = looFromModel(model, draws, { chainIds });
      model.dispose();
    }
    const cmp = looCompare(api);
    assert.equal(cmp[1].name, "pois");
    assert.equal(fPois[0], Number(cmp[1].elpdDiff.toFixed(1)));
    assert.equal(fPois[1], Number(cmp[1].seDiff.toFixed(1)));
    assert.equal(fPois[2], Number(api.pois.elpdLoo.estimate.toFixed(1)));

    // A subsample of 100 rows: the difference within 3 subsampling SEs of the full one.
    const sub = await runCli([...common, "--observations", "100", "--seed", "3", ...fits]);
    assert.equal(sub.code, 0, sub.err);
    assert.match(sub.out, /100 of 400 rows \(simple random sample, seed 3\), approximation plpd/);
    const sPois = row(sub.out, "pois");
    assert.ok(sPois[2] > 0, "a subsampling SE");
    assert.ok(
      Math.abs(sPois[0] - cmp[1].elpdDiff) < 3 * sPois[2] + 0.1,
      `subsampled ${sPois[0]} (subsampling SE ${sPois[2]}) vs full ${cmp[1].elpdDiff}`,
    );
    assert.ok(Math.abs(sPois[3] - api.pois.elpdLoo.estimate) < 3 * sPois[5] + 0.1);

    // --target-se: the subsample grows until every subsampling SE is at most 0.5.
    const target = await runCli([
      ...common,
      "--observations",
      "20",
      "--target-se",
      "0.5",
      "--approximation",
      "lpd",
      "--approximation-draws",
      "50",
      ...fits,
    ]);
    assert.equal(target.code, 0, target.err);
    const m = Number(/: (\d+) of 400 rows/.exec(target.out)?.[1]);
    assert.ok(m > 20 && m <= 400, target.out);
    for (const name of ["pois", "negative-binomial"]) {
      const r = row(target.out, name);
      assert.ok(r[2] <= 0.5 && r[5] <= 0.5, `${name}: ${r}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tallmc compare: clear errors for mismatched rows, responses, draws and flags", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const a = nbCsv(60, 1), b = nbCsv(59, 1), c = nbCsv(60, 2);
    await Deno.writeTextFile(`${dir}/a.csv`, a.text);
    await Deno.writeTextFile(`${dir}/b.csv`, b.text);
    await Deno.writeTextFile(`${dir}/c.csv`, c.text);
    const draws = ".chain,.iteration,.draw,(Intercept),z\n" +
      Array.from({ length: 8 }, (_, i) => `1,${i + 1},${i + 1},${1 + 0.01 * i},0.5`).join("\n");
    await Deno.writeTextFile(`${dir}/d1.csv`, draws + "\n");
    await Deno.writeTextFile(`${dir}/d2.csv`, draws + "\n");
    const base = ["compare", "--response", "y", "--family", "poisson"];
    const run = async (args: string[], code: number, pattern: RegExp) => {
      const r = await runCli(args);
      assert.equal(r.code, code, `${args.join(" ")}\n${r.out}\n${r.err}`);
      assert.match(r.err, pattern);
      assert.doesNotMatch(r.err, /\n\s+at /, "no stack trace");
    };
    const f1 = ["--fit", `${dir}/d1.csv`], f2 = ["--fit", `${dir}/d2.csv`];
    await run([...base, "--data", `${dir}/a.csv`, ...f1], 2, /at least 2 fits/);
    await run(
      [...base, ...f1, "--data", `${dir}/a.csv`, ...f2, "--data", `${dir}/b.csv`],
      2,
      /fit "d2" has 59 rows, fit "d1" 60: LOO compares models of the same observations/,
    );
    await run(
      [...base, ...f1, "--data", `${dir}/a.csv`, ...f2, "--data", `${dir}/c.csv`],
      2,
      /fit "d2" has response \d+ in row \d+, fit "d1" \d+/,
    );
    await run(
      [...base, "--data", `${dir}/a.csv`, ...f1, ...f1],
      2,
      /two fits are named "d1"/,
    );
    await run(
      [...base, "--data", `${dir}/a.csv`, ...f1, ...f2, "--family", "negative-binomial"],
      2,
      /fit "d2": the draws .* have parameters "\(Intercept\)", "z", the model "\(Intercept\)", "z", "log_phi"/,
    );
    await run(
      ["compare", "--response", "y", "--data", `${dir}/a.csv`, ...f1, ...f2],
      2,
      /fit "d1" needs --family/,
    );
    await run(
      [...base, "--data", `${dir}/a.csv`, "--observations", "1", ...f1, ...f2],
      2,
      /--observations must be all or 2 … 60/,
    );
    await run(
      [...base, "--data", `${dir}/a.csv`, "--target-se", "0", ...f1, ...f2],
      2,
      /--target-se must be a positive number/,
    );
    await run([...base, "--data", `${dir}/a.csv`, "--fit"], 2, /--fit needs a value/);
    await run(
      [...base, "--data", `${dir}/a.csv`, "--seed", "2", ...f1, "--seed", "1", ...f2],
      2,
      /--seed is given twice \("2" and "1"\); it applies to every fit/,
    );
    // One chain of 8 draws: r_eff = 1 is not needed, and the comparison runs.
    const ok = await runCli([...base, "--data", `${dir}/a.csv`, ...f1, ...f2]);
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /^d1 +0\.0 +0\.0/m);
    // The comparison's flags may also follow a --fit.
    const late = await runCli([
      ...base,
      "--data",
      `${dir}/a.csv`,
      ...f1,
      ...f2,
      "--observations",
      "30",
    ]);
    assert.equal(late.code, 0, late.err);
    assert.match(late.out, /30 of 60 rows/);
    const help = await runCli(["compare", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.out, /--fit \[NAME=\]DRAWS\.csv/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tallmc compare: fits over the same rows share one read of the file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/counts.csv`;
    await Deno.writeTextFile(path, nbCsv(50, 9).text);
    const arena = loadCore();
    const cache = new Map<string, Promise<GlmData>>();
    const build = (family: string, extra: Record<string, unknown> = {}) => {
      const values = { family, response: "y", ...extra };
      return modelFromFlags(arena, path, values, {
        choice: familyFromFlags(values),
        storage: "f64",
        dataCache: cache,
      });
    };
    const pois = await build("poisson");
    const nb = await build("negative-binomial");
    // Poisson and NB read counts the same way: one load, the same rows.
    assert.equal(cache.size, 1);
    assert.equal(nb.model.data, pois.model.data);
    // Another formula is other rows: a second load.
    const f = await build("poisson", { formula: "y ~ 1" });
    assert.equal(cache.size, 2);
    assert.notEqual(f.model.data, pois.model.data);
    assert.equal(f.model.dim, 1);
    for (const b of [pois, nb, f]) b.model.dispose();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tallmc compare: --prior-file is read from the directory the command was started in", async () => {
  const dir = await Deno.makeTempDir();
  const before = Deno.env.get("INIT_CWD");
  try {
    await Deno.writeTextFile(`${dir}/counts.csv`, nbCsv(30, 3).text);
    await Deno.writeTextFile(`${dir}/a.csv`, "(Intercept),z\n0.9,0.4\n1.0,0.5\n1.1,0.6\n1.0,0.4\n");
    await Deno.writeTextFile(`${dir}/b.csv`, "(Intercept),z\n0.9,0.4\n1.0,0.5\n1.1,0.6\n1.0,0.4\n");
    // A prior file the parser refuses: the message names the file it read.
    await Deno.writeTextFile(`${dir}/p.json`, '{"nope": 1}');
    Deno.env.set("INIT_CWD", dir); // as `deno task cli` sets it: the user's directory
    const r = await runCli([
      "compare",
      "--data",
      "counts.csv",
      "--response",
      "y",
      "--family",
      "poisson",
      "--prior-file",
      "p.json",
      "--fit",
      "a=a.csv",
      "--fit",
      "b=b.csv",
    ]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, new RegExp(`--prior-file ${dir}/p\\.json: unknown key "nope"`));
  } finally {
    if (before === undefined) Deno.env.delete("INIT_CWD");
    else Deno.env.set("INIT_CWD", before);
    await Deno.remove(dir, { recursive: true });
  }
});
