/**
 * The draws files other tools read: the default CSV with posterior's
 * `.chain`, `.iteration`, `.draw` columns and `--format cmdstan` (one CmdStan
 * CSV per chain), read back by `parseDrawsCsv`, `summary` and, when R and its
 * posterior package are installed, by R's `posterior`.
 */
import assert from "node:assert/strict";
import { parseDrawsCsv } from "../../data/draws_csv.ts";
import { loadCore } from "../../core/load.ts";
import { familyFromFlags } from "../../cli/model_flags.ts";
import { modelFromFlags } from "../../cli/model_options.ts";
import { runCli } from "../_cli_fixtures.ts";

const dir = Deno.makeTempDirSync({ prefix: "tallmc-draws-format-" });
const data = `${dir}/data.csv`;
{
  const lines = ["x1,x2,y"];
  for (let i = 0; i < 200; i++) {
    const x1 = Math.sin(i), x2 = Math.cos(3 * i);
    lines.push(`${x1},${x2},${(i * 7) % 3 === 0 ? 1 : 0}`);
  }
  Deno.writeTextFileSync(data, lines.join("\n") + "\n");
}
const base = ["sample", "--family", "logistic", "--data", data, "--response", "y", "--quiet"]
  .concat(["--samples", "40", "--warmup", "60", "--chains", "2", "--workers", "0"]);
const HMC_COLUMNS = [
  "lp__",
  "accept_stat__",
  "stepsize__",
  "n_leapfrog__",
  "divergent__",
  "energy__",
];

const runs = (async () => {
  const plain = `${dir}/plain.csv`, stan = `${dir}/stan.csv`, sgld = `${dir}/sgld.csv`;
  const a = await runCli([...base, "--out", plain]);
  const b = await runCli([...base, "--out", stan, "--format", "cmdstan"]);
  const c = await runCli([...base, "--sampler", "sgld", "--out", sgld, "--format", "cmdstan"]);
  for (const r of [a, b, c]) assert.equal(r.code, 0, r.err);
  return { plain, stan: [`${dir}/stan_1.csv`, `${dir}/stan_2.csv`], sgld: `${dir}/sgld_1.csv` };
})();

Deno.test("draws files: the default CSV has posterior's .chain, .iteration, .draw (1-based)", async () => {
  const { plain } = await runs;
  const lines = Deno.readTextFileSync(plain).trimEnd().split("\n");
  assert.equal(lines[0], ".chain,.iteration,.draw,(Intercept),x1,x2");
  assert.equal(lines.length, 1 + 80);
  const ids = lines.slice(1).map((l) => l.split(",").slice(0, 3).map(Number));
  ids.forEach(([c, k, d], i) => {
    assert.equal(c, i < 40 ? 1 : 2);
    assert.equal(k, (i % 40) + 1);
    assert.equal(d, i + 1);
  });
  const t = parseDrawsCsv(Deno.readTextFileSync(plain));
  assert.equal(t.format, "tallmc");
  assert.deepEqual(t.parameterNames, ["(Intercept)", "x1", "x2"]);
  assert.deepEqual(t.chainIds, [1, 2]);
  const s = await runCli(["summary", plain]);
  assert.equal(s.code, 0, s.err);
  assert.match(s.out, /^x1 /m);
  assert.doesNotMatch(s.out, /^\.(chain|iteration|draw) /m);
});

Deno.test("draws files: --format cmdstan writes one CmdStan CSV per chain with the same draws", async () => {
  const { plain, stan, sgld } = await runs;
  assert.throws(() => Deno.statSync(`${dir}/stan.csv`), Deno.errors.NotFound);
  const texts = stan.map((p) => Deno.readTextFileSync(p));
  for (const [c, text] of texts.entries()) {
    assert.match(text, /^# tallmc draws in CmdStan's output CSV format\n/);
    for (const line of ["algorithm = hmc", "num_samples = 40", "num_warmup = 60", "thin = 1"]) {
      assert.ok(text.includes(`\n# ${line}\n`), line);
    }
    assert.ok(text.includes(`\n# id = ${c + 1}\n`));
    const header = text.split("\n").find((l) => !l.startsWith("#"))!;
    assert.equal(header, [...HMC_COLUMNS, "(Intercept)", "x1", "x2"].join(","));
    assert.match(text, /\n# Adaptation terminated\n# Step size = [0-9.e-]+\n# Diagonal elements/);
  }
  const t = parseDrawsCsv(texts, { sources: stan });
  assert.equal(t.format, "cmdstan");
  assert.deepEqual(t.parameterNames, ["(Intercept)", "x1", "x2"]);
  assert.deepEqual(Object.keys(t.extra), HMC_COLUMNS);
  for (const d of t.extra.divergent__) for (const v of d) assert.ok(v === 0 || v === 1);
  // lp__ is the log density of the model (the one the CLI builds) at each draw.
  const values = { family: "logistic", data, response: "y" };
  const { model } = await modelFromFlags(loadCore(), data, values, {
    choice: familyFromFlags(values),
    storage: "f64",
  });
  let worst = 0;
  t.draws.forEach((chain, c) => {
    for (let s = 0; s < chain[0].length; s++) {
      const lp = model.logDensity(Float64Array.from(chain, (p) => p[s]));
      worst = Math.max(worst, Math.abs(t.extra.lp__[c][s] - lp) / Math.max(1, Math.abs(lp)));
    }
  });
  model.dispose();
  assert.ok(worst < 1e-12, `lp__ differs from the model's log density by ${worst}`);
  // The same seed gives the same draws in both formats.
  const p = parseDrawsCsv(Deno.readTextFileSync(plain));
  assert.deepEqual(t.draws, p.draws);
  const s = await runCli(["summary", ...stan]);
  assert.equal(s.code, 0, s.err);
  assert.match(s.out, /^x1 /m);
  // SGLD's step info has no acceptance, step size, leapfrog count or energy.
  const sgText = Deno.readTextFileSync(sgld);
  assert.equal(sgText.split("\n").find((l) => !l.startsWith("#")), "divergent__,(Intercept),x1,x2");
});

Deno.test("draws files: --format is checked before any work", async () => {
  const bad = await runCli([...base, "--out", `${dir}/x.csv`, "--format", "stan"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--format must be tallmc or cmdstan, got "stan"/);
  const noOut = await runCli([...base, "--format", "cmdstan"]);
  assert.equal(noOut.code, 2);
  assert.match(noOut.err, /--format cmdstan needs --out/);
});

/** Why R's posterior cannot be run here, or null when it can. */
async function _whyNoR(): Promise<string | null> {
  try {
    const r = await new Deno.Command("Rscript", {
      args: ["-e", 'cat(requireNamespace("posterior", quietly = TRUE))'],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(r.stdout).trim();
    return out === "TRUE"
      ? null
      : "R's posterior package is not installed (apt-get install r-cran-posterior)";
  } catch {
    return "Rscript is not installed (apt-get install r-base-core r-cran-posterior)";
  }
}

const whyNoR = await _whyNoR();
if (whyNoR !== null) console.warn(`draws_format_test: R posterior check skipped: ${whyNoR}`);

Deno.test({
  name: `draws files: R posterior reads both formats${
    whyNoR === null ? "" : ` (skipped: ${whyNoR})`
  }`,
  ignore: whyNoR !== null,
  fn: async () => {
    const { plain, stan } = await runs;
    const script = `
      suppressMessages(library(posterior))
      args <- commandArgs(trailingOnly = TRUE)
      show <- function(tag, d) cat(tag, nchains(d), niterations(d), ndraws(d),
                                   paste(variables(d), collapse = "|"), "\\n")
      show("default", as_draws_df(read.csv(args[1], check.names = FALSE)))
      files <- args[-1]
      parts <- lapply(seq_along(files), function(k) {
        x <- read.csv(files[k], comment.char = "#", check.names = FALSE)
        x$.chain <- k
        x
      })
      show("cmdstan", as_draws_df(do.call(rbind, parts)))
    `;
    const r = await new Deno.Command("Rscript", {
      args: ["-e", script, plain, ...stan],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(r.stdout);
    assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
    const lines = Object.fromEntries(
      out.trim().split("\n").map((l) => {
        const [tag, ...rest] = l.trim().split(" ");
        return [tag, rest];
      }),
    );
    assert.deepEqual(lines.default, ["2", "40", "80", "(Intercept)|x1|x2"]);
    assert.deepEqual(lines.cmdstan, [
      "2",
      "40",
      "80",
      [...HMC_COLUMNS, "(Intercept)", "x1", "x2"].join("|"),
    ]);
  },
});

globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

Deno.test("draws files: NUTS runs write CmdStan's treedepth__ beside n_leapfrog__", async () => {
  const out = `${dir}/nuts.csv`;
  const r = await runCli([...base, "--sampler", "nuts", "--out", out, "--format", "cmdstan"]);
  assert.equal(r.code, 0, r.err);
  const text = Deno.readTextFileSync(`${dir}/nuts_1.csv`);
  const header = text.split("\n").find((l) => !l.startsWith("#"))!;
  assert.equal(
    header,
    [
      "lp__",
      "accept_stat__",
      "stepsize__",
      "treedepth__",
      "n_leapfrog__",
      "divergent__",
      "energy__",
      "(Intercept)",
      "x1",
      "x2",
    ].join(","),
  );
  const t = parseDrawsCsv(Deno.readTextFileSync(`${dir}/nuts_1.csv`), { sources: [out] });
  t.extra.treedepth__[0].forEach((depth, s) => {
    // Stan counts the doublings kept: depth k took 2^k − 1 steps, plus at most
    // 2^k more in a last subtree that was refused.
    assert.ok(Number.isInteger(depth) && depth >= 0 && depth <= 10, `depth ${depth}`);
    const steps = t.extra.n_leapfrog__[0][s];
    assert.ok(
      steps >= 2 ** depth - 1 && steps <= 2 ** (depth + 1) - 1,
      `${steps} steps, depth ${depth}`,
    );
  });
});
