/**
 * A bad-input corpus through the API: awkward CSV data files,
 * draws files in every format, and the summary of what they hold. Every
 * refusal must be a RangeError or TypeError whose message names the column
 * (as the user typed it) or the option, and the value received, and never an
 * internal name. Files are written to a fresh directory under /tmp.
 *
 * Ends with bounded fuzz tests (fixed seeds) of the CSV loader and the draws
 * reader on random malformed text.
 *
 * Needs `--allow-read --allow-write=/tmp`.
 */
import { strict as assert } from "node:assert";
import { loadCore } from "../../core/load.ts";
import { freeGlmData, type GlmData, loadCsvToArena, parseCsvText } from "../../data/mod.ts";
import { parseDrawsCsv } from "../../data/draws_csv.ts";
import { summarize } from "../../diagnostics/mod.ts";
import { GlmModel } from "../../models/glm.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { hmcEcsChainSampler } from "../../samplers/hmc_ecs/chain_sampler.ts";
import { mulberry32 } from "../../testing/mulberry32.ts";

const arena = loadCore({ backend: "reference" });
const LOGISTIC = { response: "y", family: "logistic" } as const;
/** Names that must never reach a user. */
const INTERNAL = /draws\[\d|\[0\]\[0\]|pilotSize|batchSize|undefined|\[object /;

async function withFile<T>(text: string, fn: (path: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_bad_input_" });
  const path = `${dir}/data.csv`;
  try {
    await Deno.writeTextFile(path, text);
    return await fn(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Loads through the file path and returns the data (caller frees it). */
function load(text: string, options: Parameters<typeof parseCsvText>[1] = LOGISTIC) {
  return withFile(text, async (path) => {
    const data = await loadCsvToArena(arena, path, options);
    const x = Array.from(arena.readF64(data.x, data.numRows * data.numCols));
    const y = Array.from(arena.readF64(data.y, data.numRows));
    freeGlmData(data);
    return { data, x, y };
  });
}

/** Asserts a refusal's class and that its message matches every pattern. */
async function refuses(
  fn: () => unknown,
  type: typeof RangeError | typeof TypeError,
  ...patterns: RegExp[]
): Promise<string> {
  let error: unknown;
  try {
    await fn();
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof type, `expected a ${type.name}, got ${error}`);
  const message = (error as Error).message;
  for (const p of patterns) assert.match(message, p);
  assert.doesNotMatch(message, INTERNAL);
  return message;
}

Deno.test("loadCsvToArena() and parseCsvText() on awkward files", async (t) => {
  await t.step("an empty file and a header-only file are refused, naming the path", async () => {
    await withFile(
      "",
      (path) =>
        refuses(() => loadCsvToArena(arena, path, LOGISTIC), RangeError, /data\.csv: .*empty/),
    );
    await withFile("y,a,b\n", (path) =>
      refuses(
        () => loadCsvToArena(arena, path, LOGISTIC),
        RangeError,
        /data\.csv: .*header \(line 1\) but no data rows/,
      ));
    await refuses(() => parseCsvText("\n\n", LOGISTIC), RangeError, /header is empty/);
  });

  await t.step("a single row loads, with a warning that the prior decides", async () => {
    const { data, x, y } = await load("y,a,b\n1,0.5,2\n");
    assert.equal(data.numRows, 1);
    assert.deepEqual(x, [1, 0.5, 2]);
    assert.deepEqual(y, [1]);
    assert.match(data.warnings!.join("\n"), /only 1 data row for 3 columns/);
  });

  await t.step("an all-zero response loads, with a warning naming it", async () => {
    const { data, y } = await load("y,a\n0,1\n0,2\n0,3\n");
    assert.deepEqual(y, [0, 0, 0]);
    assert.equal(data.warnings?.length, 1);
    assert.match(data.warnings![0], /response "y" is 0 in every one of the 3 rows/);
  });

  await t.step("Windows line endings, a BOM and a quoted header read like plain CSV", async () => {
    const plain = await load("y,a b,c\n1,0.5,2\n0,-1,3\n");
    for (
      const text of [
        "y,a b,c\r\n1,0.5,2\r\n0,-1,3\r\n",
        "\uFEFFy,a b,c\n1,0.5,2\n0,-1,3\n",
        '"y","a b","c"\n1,0.5,2\n0,-1,3',
        '\uFEFF"y"," a b ",c\r\n1,"0.5",2\r\n\r\n0,-1,3\r\n',
      ]
    ) {
      const got = await load(text);
      assert.deepEqual(got.x, plain.x, JSON.stringify(text));
      assert.deepEqual(got.y, plain.y);
      assert.deepEqual(got.data.columnNames, ["(Intercept)", "a b", "c"]);
    }
  });

  await t.step("a non-numeric cell deep in the file names the column, row and value", async () => {
    // 300,000 rows: several 1 MiB chunks, so the error comes from the stream.
    const rows = ["y,a,b"];
    for (let i = 0; i < 300_000; i++) rows.push(`${i % 2},${i % 7},${(i % 5) / 4}`);
    rows[299_000] = "1,3,oops";
    await withFile(rows.join("\n") + "\n", (path) =>
      refuses(
        () => loadCsvToArena(arena, path, LOGISTIC),
        TypeError,
        /data\.csv: line 299001, column "b" \(data row 299000\): expected a number, got "oops"/,
      ));
  });

  await t.step("duplicate column names are refused, naming the column", async () => {
    await refuses(
      () => parseCsvText("y,x1,x2,x1\n1,2,3,4\n", LOGISTIC),
      RangeError,
      /column "x1" appears twice in the header \(fields 2 and 4\)/,
    );
  });

  await t.step("a directory or a missing file names the path", async () => {
    const dir = await Deno.makeTempDir({ prefix: "tallmc_bad_input_dir_" });
    try {
      await refuses(() => loadCsvToArena(arena, dir, LOGISTIC), TypeError, /is a directory/);
      await refuses(
        () => loadCsvToArena(arena, `${dir}/nope.csv`, LOGISTIC),
        RangeError,
        new RegExp(`${dir}/nope\\.csv: no such file`),
      );
    } finally {
      await Deno.remove(dir);
    }
  });

  await t.step("NaN, Inf and overflowing cells are refused, naming column, row and value", () => {
    for (
      const [cell, pattern] of [
        ["NaN", /"NaN"/],
        ["-Inf", /"-Inf"/],
        ["Infinity", /"Infinity"/],
        ["1e400", /"1e400" overflows/],
      ] as const
    ) {
      const text = `y,a,"my col"\n1,2,3\n0,1,${cell}\n`;
      assert.throws(() => parseCsvText(text, LOGISTIC), (e: Error) => {
        assert.ok(e instanceof RangeError);
        assert.match(e.message, /line 3, column "my col" \(data row 2\)/);
        assert.match(e.message, pattern);
        return true;
      });
    }
  });

  await t.step("extreme magnitudes: beyond 1e100 refused, 1e6× the others warned", async () => {
    await refuses(
      () => parseCsvText("y,a,b\n1,2,3\n0,1,-1e300\n", LOGISTIC),
      RangeError,
      /column "b" \(data row 2\): "-1e300" is beyond ±1e\+100.*standardise/,
    );
    const { data } = await load("y,a,b\n1,0.3,2\n0,1e10,-1\n1,-0.2,0.5\n");
    assert.equal(data.warnings?.length, 1);
    assert.match(data.warnings![0], /column "a" has values up to 10000000000.*standardise/);
    // Scales up to 10⁶ apart from the unit scale are left alone.
    const fine = parseCsvText("y,a,b\n1,0.3,2e5\n0,1,-1\n1,-0.2,0.5\n", LOGISTIC);
    assert.deepEqual(fine.warnings, []);
    // A Gaussian response in the billions is worth a word too.
    const big = parseCsvText("y,a\n3e9,1\n4e9,2\n", { response: "y", family: "gaussian" });
    assert.match(big.warnings.join("\n"), /response "y" reaches 4000000000/);
  });

  await t.step("a constant covariate next to the intercept is warned about", () => {
    const t2 = parseCsvText("y,a,b\n1,5,1\n0,5,2\n", LOGISTIC);
    assert.match(t2.warnings.join("\n"), /column "a" is 5 in every row/);
  });

  await t.step("bad options name the option and the value", async () => {
    await refuses(
      () => parseCsvText("y,a\n1,2\n", { response: "y", family: "probit" as "logistic" }),
      TypeError,
      /family must be .* got "probit"/,
    );
    await refuses(
      () => parseCsvText("y,a\n1,2\n", { response: "Y", family: "logistic" }),
      RangeError,
      /response column "Y" not found; the columns are "y", "a"/,
    );
    await refuses(
      () => parseCsvText("y,a\n1,2\n", { ...LOGISTIC, columns: ["a", "b"] }),
      RangeError,
      /column "b" not found/,
    );
    await refuses(
      () => parseCsvText("y,a\n2,1\n", LOGISTIC),
      RangeError,
      /column "y" \(data row 1\): a logistic response must be 0 or 1, got 2/,
    );
    await refuses(
      () => parseCsvText("y,a\n1,2\n0\n", LOGISTIC),
      RangeError,
      /line 3 \(data row 2\): expected 2 fields.*column "a" is missing/,
    );
  });
});

Deno.test("parseDrawsCsv() reads plain, CmdStan and tallmc draws", async (t) => {
  await t.step("a plain CSV without a chain column is one chain", () => {
    const table = parseDrawsCsv("mu,sigma\n0.1,1\n0.2,1.1\n");
    assert.equal(table.format, "plain");
    assert.deepEqual(table.parameterNames, ["mu", "sigma"]);
    assert.equal(table.draws.length, 1);
    assert.deepEqual(Array.from(table.draws[0][1]), [1, 1.1]);
  });

  await t.step("a plain CSV with a chain column (any ids) and a sign column", () => {
    const table = parseDrawsCsv("chain,a,sign\n2,0.5,1\n1,0.1,-1\n2,0.6,1\n1,0.2,1\n");
    assert.deepEqual(table.chainIds, [1, 2]);
    assert.deepEqual(Array.from(table.draws[0][0]), [0.1, 0.2]);
    assert.deepEqual(Array.from(table.extra.sign[0]), [-1, 1]);
    assert.deepEqual(table.parameterNames, ["a"]);
  });

  await t.step("posterior's draws_df columns .chain, .iteration, .draw", () => {
    const table = parseDrawsCsv('".chain",".iteration",".draw","b[1]"\n1,1,1,3\n1,2,2,NA\n');
    assert.deepEqual(table.parameterNames, ["b[1]"]);
    assert.ok(Number.isNaN(table.draws[0][0][1]));
  });

  await t.step("CmdStan: one file per chain, sampler columns kept apart, warmup dropped", () => {
    const cmdstan = (seed: number) =>
      [
        "# stan_version_major = 2",
        "# method = sample (Default)",
        "#   sample",
        "#     save_warmup = 1",
        "lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,theta,y_rep.1",
        "-9,0.5,1,1,1,0,9,99,99", // warmup, dropped
        "# Adaptation terminated",
        "# Step size = 0.93",
        "# Diagonal elements of inverse mass matrix:",
        "# 0.51",
        `-7.1,0.91,0.93,2,3,0,7.5,${0.1 * seed},1`,
        `-7.3,0.85,0.93,1,1,1,7.9,${0.2 * seed},0`,
        "",
        "#  Elapsed Time: 0.01 seconds (Warm-up)",
      ].join("\n");
    const table = parseDrawsCsv([cmdstan(1), cmdstan(2)], { sources: ["m-1.csv", "m-2.csv"] });
    assert.equal(table.format, "cmdstan");
    assert.deepEqual(table.parameterNames, ["theta", "y_rep.1"]);
    assert.deepEqual(table.chainIds, [1, 2]);
    assert.deepEqual(Array.from(table.draws[1][0]), [0.2, 0.4]);
    assert.deepEqual(Array.from(table.extra.divergent__[0]), [0, 1]);
    assert.equal(Object.keys(table.extra).length, 7);
  });

  await t.step("tallmc's own format round-trips, sign included", () => {
    const table = parseDrawsCsv("chain,iteration,a,sign\n0,0,1,1\n0,1,2,-1\n1,0,3,1\n1,1,4,1\n");
    assert.equal(table.format, "tallmc");
    assert.deepEqual(Array.from(table.extra.sign[0]), [1, -1]);
    assert.equal(table.draws[1][0][1], 4);
  });

  await t.step("bad draws files are refused, naming source, line, column and value", async () => {
    await refuses(() => parseDrawsCsv(""), RangeError, /empty/);
    await refuses(() => parseDrawsCsv("# only comments\n"), RangeError, /only comment lines/);
    await refuses(() => parseDrawsCsv("a,b\n"), RangeError, /header \(line 1\) but no draws/);
    await refuses(
      () => parseDrawsCsv("a,b\n1,2\n1,two\n", { sources: ["d.csv"] }),
      TypeError,
      /d\.csv: line 3, column "b": expected a number, got "two"/,
    );
    await refuses(() => parseDrawsCsv("a,b\n1,\n"), TypeError, /column "b".*got ""/);
    await refuses(() => parseDrawsCsv("a,a\n1,2\n"), RangeError, /"a" appears twice/);
    await refuses(() => parseDrawsCsv("a,b\n1,2,3\n"), RangeError, /line 2: expected 2 fields/);
    await refuses(
      () => parseDrawsCsv("chain,a\n0,1\n0,2\n1,3\n"),
      RangeError,
      /equally long, got 2 draws in chain 0 and 1 in chain 1/,
    );
    await refuses(
      () => parseDrawsCsv(["lp__,a\n1,2\n", "lp__,b\n1,2\n"], { sources: ["c1.csv", "c2.csv"] }),
      RangeError,
      /c2\.csv: the parameters differ from c1\.csv's; "a" is missing; "b" is new/,
    );
    await refuses(() => parseDrawsCsv('a,b\n"1,2\n'), RangeError, /quoted field is not closed/);
    await refuses(() => parseDrawsCsv("chain,iteration\n0,0\n"), RangeError, /no parameter/);
    await refuses(
      () => parseDrawsCsv("a,sign\n1,1\n2,0.5\n"),
      RangeError,
      /line 3, column "sign": a sign must be 1 or -1, got "0.5"/,
    );
  });

  await t.step("summarize() of a read file flags constant and NaN parameters by name", () => {
    const lines = ["chain,mu,fixed,bad"];
    for (let c = 0; c < 2; c++) {
      for (let i = 0; i < 20; i++) {
        lines.push(`${c},${Math.sin(i * (c + 1.3))},1,${i === 5 ? "NaN" : i}`);
      }
    }
    const table = parseDrawsCsv(lines.join("\n"));
    const rows = summarize(table.draws, table.parameterNames);
    assert.equal(rows[0].naReasons, undefined);
    assert.equal(rows[1].naReasons?.rhat, "constant");
    assert.match(rows[1].warnings![0], /parameter "fixed"/);
    assert.equal(rows[2].naReasons?.essBulk, "non_finite");
    assert.match(rows[2].warnings![0], /parameter "bad"/);
  });
});

// ---------------------------------------------------------------------------
// Fuzz: random malformed CSV.

const CELLS = [
  "0",
  "1",
  "-2.5",
  "3e2",
  "1e-300",
  "1e300",
  "1e400",
  "-0",
  "",
  " ",
  "NaN",
  "nan",
  "Inf",
  "-Infinity",
  "NA",
  "abc",
  "1,5",
  '"1"',
  '"',
  '""',
  '"a""b"',
  "0x10",
  "1_000",
  "٣",
  "\t2",
  "1e",
  "+",
  "#",
];
const NAMES = ["y", "a", "b", "x y", '"q"', "", "a", "chain", "lp__", "\uFEFFz", "é"];
const BREAKS = ["\n", "\r\n", "\r", "\n\n", ""];

function randomCsv(rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  // Two in five inputs are well formed apart from their line breaks, so that
  // loads succeed often enough for their finiteness to be checked.
  if (rand() < 0.4) {
    const numCols = 2 + Math.floor(rand() * 3);
    const rows = [Array.from({ length: numCols }, (_, j) => (j === 0 ? "y" : `x${j}`)).join(",")];
    for (let i = 1 + Math.floor(rand() * 5); i > 0; i--) {
      rows.push(Array.from({ length: numCols }, () => String(Math.floor(rand() * 2))).join(","));
    }
    return rows.join(pick(BREAKS.slice(0, 3))) + pick(BREAKS);
  }
  const numCols = 1 + Math.floor(rand() * 4);
  const numRows = Math.floor(rand() * 6);
  const newline = rand() < 0.7 ? "\n" : pick(BREAKS);
  const lines: string[] = [];
  if (rand() < 0.9) {
    lines.push(Array.from({ length: numCols }, (_, j) => (j === 0 ? "y" : pick(NAMES))).join(","));
  }
  for (let i = 0; i < numRows; i++) {
    const width = rand() < 0.85 ? numCols : Math.floor(rand() * (numCols + 2));
    lines.push(
      Array.from(
        { length: width },
        () => (rand() < 0.6 ? String(Math.round((rand() - 0.3) * 4)) : pick(CELLS)),
      ).join(rand() < 0.95 ? "," : ";"),
    );
  }
  let text = (rand() < 0.1 ? "\uFEFF" : "") + lines.join(newline) +
    (rand() < 0.5 ? newline : "");
  // A few random byte-level mutations.
  for (let k = Math.floor(rand() * 3); k > 0; k--) {
    const at = Math.floor(rand() * (text.length + 1));
    text = text.slice(0, at) + pick([",", '"', "\r", "\n", "x", "", "\u0000"]) +
      text.slice(at + (rand() < 0.5 ? 1 : 0));
  }
  return text;
}

function checkOutcome(what: string, run: () => { x: ArrayLike<number>; y: ArrayLike<number> }) {
  try {
    const { x, y } = run();
    for (let i = 0; i < x.length; i++) assert.ok(Number.isFinite(x[i]), `${what}: x[${i}]`);
    for (let i = 0; i < y.length; i++) assert.ok(Number.isFinite(y[i]), `${what}: y[${i}]`);
    assert.ok(y.length >= 1, what);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    assert.ok(
      e instanceof RangeError || e instanceof TypeError,
      `${what}: threw ${(e as Error)?.name}: ${(e as Error)?.message}`,
    );
    assert.ok(e.message.length > 10, `${what}: empty message`);
    assert.doesNotMatch(e.message, INTERNAL, what);
  }
}

Deno.test("samplers on data that breaks their assumptions refuse, naming the parameter or the fix", async (t) => {
  const rows = ["x1,x2,y"];
  for (let i = 0; i < 40; i++) {
    rows.push(`${Math.sin(i)},${Math.cos(3 * i)},${i % 3 === 0 ? 1 : 0}`);
  }
  const text = rows.join("\n") + "\n";
  await t.step("a non-finite log density at the start names the parameters", async () => {
    const data = await withFile(
      text,
      (path) => loadCsvToArena(arena, path, { response: "x2", family: "gaussian" }),
    );
    try {
      const model = new GlmModel(data, { family: "gaussian", sigma: 1e-200 });
      await refuses(
        () => runHmc(model, { seed: 1, numWarmup: 5, numSamples: 5, numChains: 1 }),
        RangeError,
        // The start is the search's last point plus uniform(−2, 2) noise: no
        // Laplace approximation exists where log π is not finite.
        /initial position must be finite.*\(Intercept\) = -?[\d.e-]+, x1 = -?[\d.e-]+, y = -?[\d.e-]+/,
      );
    } finally {
      freeGlmData(data);
    }
  });
  await t.step(
    "HMC-ECS on 40 rows (m = 4 < 2(d + 1)) refuses and names --sampler hmc",
    async () => {
      const data = await withFile(text, (path) => loadCsvToArena(arena, path, LOGISTIC));
      try {
        const model = new GlmModel(data, { family: "logistic" });
        await refuses(
          () => hmcEcsChainSampler(model, {}),
          RangeError,
          /n = 40 rows for d = 3 parameters.*--sampler hmc/,
        );
      } finally {
        freeGlmData(data);
      }
    },
  );
});

Deno.test("parseCsvText() on 300 random malformed inputs: finite data or a RangeError/TypeError", () => {
  const rand = mulberry32(20261124);
  const families = ["logistic", "gaussian", "poisson"] as const;
  for (let k = 0; k < 300; k++) {
    const text = randomCsv(rand);
    const header = rand() < 0.9;
    const options = {
      response: rand() < 0.8 ? "y" : Math.floor(rand() * 4),
      family: families[Math.floor(rand() * 3)],
      header,
      intercept: rand() < 0.8,
    };
    checkOutcome(
      `case ${k} ${JSON.stringify(text)} ${JSON.stringify(options)}`,
      () => parseCsvText(text, options),
    );
  }
});

Deno.test("loadCsvToArena() on 40 random malformed files, read in tiny chunks", async () => {
  const rand = mulberry32(7);
  const dir = await Deno.makeTempDir({ prefix: "tallmc_fuzz_" });
  try {
    for (let k = 0; k < 40; k++) {
      const text = randomCsv(rand);
      const path = `${dir}/case${k}.csv`;
      await Deno.writeTextFile(path, text);
      const options = { response: "y", family: "gaussian", chunkBytes: 3 } as const;
      let data: GlmData | undefined;
      let error: unknown;
      try {
        data = await loadCsvToArena(arena, path, options);
      } catch (e) {
        error = e;
      }
      checkOutcome(`file case ${k} ${JSON.stringify(text)}`, () => {
        if (data === undefined) throw error;
        const out = {
          x: arena.readF64(data.x, data.numRows * data.numCols),
          y: arena.readF64(data.y, data.numRows),
        };
        // The stream must agree with the in-memory parser.
        const table = parseCsvText(text, options);
        assert.deepEqual(Array.from(out.x), Array.from(table.x));
        freeGlmData(data);
        return out;
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parseDrawsCsv() on 300 random malformed inputs: draws or a RangeError/TypeError", () => {
  const rand = mulberry32(99);
  for (let k = 0; k < 300; k++) {
    const text = randomCsv(rand);
    try {
      const table = parseDrawsCsv(text);
      assert.ok(table.draws.length >= 1 && table.parameterNames.length >= 1);
      const n = table.draws[0][0].length;
      for (const chain of table.draws) for (const p of chain) assert.equal(p.length, n);
    } catch (e) {
      if (e instanceof assert.AssertionError) throw e;
      assert.ok(
        e instanceof RangeError || e instanceof TypeError,
        `case ${k} ${JSON.stringify(text)}: threw ${(e as Error)?.name}: ${(e as Error)?.message}`,
      );
      assert.doesNotMatch((e as Error).message, INTERNAL);
    }
  }
});
