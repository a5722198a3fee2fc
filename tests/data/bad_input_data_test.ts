/**
 * Bad and unusual data files, through the command line and the API: other
 * delimiters, cells that JavaScript reads as numbers but that are not decimal
 * numbers (0x10, 0b11, 0o7, 1_000, Infinity), covariates named like draws-file
 * columns, f32 overflow and underflow, the formula path's warnings, copies and
 * linearly dependent columns, aggregated warnings, many problems in one file,
 * and standard input and FIFOs as `--data`. Every refusal is exit code 2 with
 * a one-line message naming the line, column or flag, without a stack trace,
 * and every input file is unchanged (hash before and after).
 *
 * Needs `--allow-run` (standard input and FIFOs are tested on the CLI run as
 * a subprocess) besides the usual test permissions.
 */
import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";
import { loadCore } from "../../core/load.ts";
import {
  cellNumber,
  detectDelimiter,
  glmDataFromArrays,
  loadCsvToArena,
  loadCsvWithFormula,
  loadParquet,
  parseCsvText,
  parseCsvWithFormula,
  RESERVED_COLUMN_NAMES,
  writeParquet,
} from "../../data/mod.ts";
import { parseDrawsCsv } from "../../data/draws_csv.ts";
import { Rng } from "../../random/rng.ts";
import { type CliRun, runCli } from "../_cli_fixtures.ts";

const CLI = fromFileUrl(new URL("../../cli.ts", import.meta.url));

async function _sha(path: string): Promise<string> {
  const bytes = await Deno.readFile(path);
  const h = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(h, (b) => b.toString(16).padStart(2, "0")).join("");
}

function _noStackTrace(r: CliRun): void {
  assert.ok(!/^\s+at /m.test(r.err), `stack trace printed:\n${r.err}`);
  assert.ok(!/^\s+at /m.test(r.out), `stack trace printed:\n${r.out}`);
}

const _FAST = ["--samples", "30", "--warmup", "30", "--chains", "1", "--workers", "0", "--quiet"];

/** Runs `sample` on a file written from `text`, checking the file is unchanged. */
async function _sample(dir: string, name: string, text: string, args: string[]): Promise<CliRun> {
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, text);
  const before = await _sha(path);
  const r = await runCli(["sample", "--data", path, ..._FAST, ...args]);
  assert.equal(await _sha(path), before, `${name} changed`);
  _noStackTrace(r);
  return r;
}

/** A logistic data set of n rows with covariates a, b (independent), as CSV text. */
function _table(n: number, sep = ",", seed = 1): string {
  const rng = new Rng(seed);
  const lines = [["y", "a", "b"].join(sep)];
  for (let i = 0; i < n; i++) {
    lines.push([String(rng.int(2)), rng.normal().toFixed(4), rng.normal().toFixed(4)].join(sep));
  }
  return lines.join("\n") + "\n";
}

Deno.test("[e2e] bad data files through the CLI: exit 2, the line, column or flag named", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_bad_data_" });
  try {
    await t.step("tab, semicolon and pipe files are detected; --delimiter is taken", async () => {
      for (const [sep, label] of [["\t", "tab"], [";", "semi"], ["|", "pipe"]]) {
        const r = await _sample(dir, `${label}.csv`, _table(40, sep), [
          "--family",
          "logistic",
          "--response",
          "y",
        ]);
        assert.equal(r.code, 0, r.err);
        assert.match(r.out, /d = 3/);
      }
      const r = await _sample(dir, "semi2.csv", _table(40, ";"), [
        "--family",
        "logistic",
        "--response",
        "y",
        "--delimiter",
        ";",
      ]);
      assert.equal(r.code, 0, r.err);
      // A formula over a tab-separated file.
      const f = await _sample(dir, "tab2.tsv", _table(40, "\t"), [
        "--family",
        "logistic",
        "--formula",
        "y ~ a + b",
        "--delimiter",
        "tab",
      ]);
      assert.equal(f.code, 0, f.err);
    });
    await t.step("an ambiguous header or a bad --delimiter names the flag", async () => {
      const r = await _sample(dir, "amb.csv", "y,a;b\n1,2;3\n0,1\n", [
        "--family",
        "logistic",
        "--response",
        "y",
      ]);
      assert.equal(r.code, 2);
      assert.match(r.err, /line 1: the delimiter is ambiguous.*--delimiter/);
      const b = await _sample(dir, "bd.csv", _table(5), [
        "--family",
        "logistic",
        "--response",
        "y",
        "--delimiter",
        "::",
      ]);
      assert.equal(b.code, 2);
      assert.match(b.err, /--delimiter must be one character .* got "::"/);
      // A wrong delimiter given: the header is one field, and the hint says so.
      const w = await _sample(dir, "w.csv", _table(5, ";"), [
        "--family",
        "logistic",
        "--response",
        "y",
        "--delimiter",
        ",",
      ]);
      assert.equal(w.code, 2);
      assert.match(w.err, /not found.*one field that holds ";".*--delimiter ";"/);
    });
    await t.step(
      "0x10, 0b11, 0o7, 1_000, Infinity and 0,5 are refused by line and column",
      async () => {
        for (
          const [cell, re] of [
            ["0x10", /hexadecimal/],
            ["0b11", /binary/],
            ["0o7", /octal/],
            ["1_000", /digit separators/],
            ["Infinity", /NaN and ±Infinity/],
            ["-inf", /NaN and ±Infinity/],
            ['"0,5"', /decimal comma/],
            ["1e999", /overflows to Infinity/],
          ] as const
        ) {
          for (const formula of [false, true]) {
            const text = `y,a,b\n1,0.5,2\n0,${cell},3\n1,1.5,4\n`;
            const r = await _sample(dir, "cell.csv", text, [
              "--family",
              "logistic",
              ...(formula ? ["--formula", "y ~ a + b"] : ["--response", "y"]),
            ]);
            assert.equal(r.code, 2, `${cell}: ${r.err}`);
            assert.match(
              r.err,
              formula ? /column "a", data row 2 \(line 3\)/ : /line 3, column "a"/,
            );
            assert.match(r.err, re);
            assert.equal(r.err.split("\n").length, 1);
          }
        }
      },
    );
    await t.step("spaces and tabs around a number are accepted", async () => {
      const r = await _sample(dir, "sp.csv", "y,a\n1, 0.5 \n0,\t1.5\n1,  2\n", [
        "--family",
        "logistic",
        "--response",
        "y",
      ]);
      assert.equal(r.code, 0, r.err);
    });
    await t.step("covariates named like draws-file columns are renamed with a note", async () => {
      const rng = new Rng(3);
      const rows = ["y,sign,chain,log_sigma,lp__,a"];
      for (let i = 0; i < 30; i++) {
        rows.push(
          [rng.normal(), rng.normal(), rng.normal(), rng.normal(), rng.normal(), rng.normal()]
            .map((v) => v.toFixed(3)).join(","),
        );
      }
      const out = `${dir}/draws.csv`;
      const r = await _sample(dir, "res.csv", rows.join("\n") + "\n", [
        "--family",
        "gaussian",
        "--response",
        "y",
        "--out",
        out,
      ]);
      assert.equal(r.code, 0, r.err);
      for (const name of ["sign", "chain", "log_sigma", "lp__"]) {
        assert.match(r.err, new RegExp(`column "${name}" \\(field \\d\\) is renamed "${name}_x"`));
      }
      const header = (await Deno.readTextFile(out)).split("\n")[0].split(",");
      assert.deepEqual(header.filter((h) => h === "sign" || h === "chain_x"), ["chain_x"]);
      // summary sees the covariates as parameters, not as σ or a sign column.
      const s = await runCli(["summary", out]);
      assert.equal(s.code, 0, s.err);
      assert.match(s.out, /^sign_x /m);
      assert.match(s.out, /^log_sigma_x /m);
    });
    await t.step("--f32: overflow and underflow are named (line, column, value)", async () => {
      const r = await _sample(dir, "f32.csv", "y,a,b\n1,1e39,1\n0,2,1e-40\n1,3,0\n", [
        "--family",
        "logistic",
        "--response",
        "y",
        "--f32",
      ]);
      assert.equal(r.code, 2);
      assert.match(r.err, /line 2, column "a" \(data row 1\): "1e39" overflows f32/);
      assert.match(
        r.err,
        /line 3, column "b" \(data row 2\): "1e-40" underflows f32 to a denormal/,
      );
      const f = await _sample(dir, "f32f.csv", "y,a\n1,1e39\n0,2\n1,3\n", [
        "--family",
        "logistic",
        "--formula",
        "y ~ a",
        "--f32",
      ]);
      assert.equal(f.code, 2);
      assert.match(f.err, /row 1, column 2 \("a"\), which overflows f32/);
      // Without --f32 the same file loads.
      const ok = await _sample(dir, "f64.csv", "y,a\n1,1e-40\n0,2\n1,3\n0,1\n", [
        "--family",
        "logistic",
        "--response",
        "y",
      ]);
      assert.equal(ok.code, 0, ok.err);
    });
    await t.step("--formula gives the plain path's warnings", async () => {
      const text = "y,a,b,c\n0,1,5,1e12\n0,2,5,3\n0,3,5,2\n0,4,5,1\n";
      const plain = await _sample(dir, "wf.csv", text, [
        "--family",
        "logistic",
        "--response",
        "y",
      ]);
      const formula = await _sample(dir, "wf.csv", text, [
        "--family",
        "logistic",
        "--formula",
        "y ~ a + b + c",
      ]);
      for (const r of [plain, formula]) {
        assert.match(r.err, /warning: --data: .*the response "y" is 0 in every one of the 4 rows/);
        assert.match(r.err, /warning: --data: .*column "b" is 5 in every row/);
        assert.match(r.err, /warning: --data: .*column "c" has values up to 1000000000000/);
      }
      // With a prior flag the warnings are printed too.
      const prior = await _sample(dir, "wf.csv", text, [
        "--family",
        "logistic",
        "--response",
        "y",
        "--prior",
        "normal(0, 2.5)",
      ]);
      assert.match(prior.err, /column "b" is 5 in every row/);
    });
    await t.step("copies and linearly dependent columns are named", async () => {
      const rng = new Rng(5);
      const rows = ["y,a,b,c,d,e"];
      for (let i = 0; i < 50; i++) {
        const a = rng.normal(), b = rng.normal(), e = rng.normal();
        rows.push([rng.int(2), a, b, a, a + 2 * b, e].map((v) => v.toFixed(6)).join(","));
      }
      for (const how of [["--response", "y"], ["--formula", "y ~ a + b + c + d + e"]]) {
        const r = await _sample(dir, "col.csv", rows.join("\n") + "\n", [
          "--family",
          "logistic",
          ...how,
        ]);
        assert.match(r.err, /a column is a copy of another .*"c" = "a"/);
        const dep = /linearly dependent.*/.exec(r.err)?.[0] ?? "";
        for (const c of ['"a"', '"b"', '"d"']) assert.ok(dep.includes(c), dep);
        assert.ok(!dep.includes('"e"') && !dep.includes('"c"'), dep);
      }
    });
    await t.step("warnings about many columns come as one line", async () => {
      const d = 60, rng = new Rng(7);
      const rows = [["y", ...Array.from({ length: d }, (_, j) => `x${j + 1}`)].join(",")];
      for (let i = 0; i < 80; i++) {
        const cells = [String(rng.int(2))];
        for (let j = 0; j < d; j++) cells.push(j < 3 ? String(rng.normal()) : "7");
        rows.push(cells.join(","));
      }
      const r = await _sample(dir, "many.csv", rows.join("\n") + "\n", [
        "--family",
        "logistic",
        "--response",
        "y",
      ]);
      const lines = r.err.split("\n").filter((l) => l.includes("warning: --data"));
      assert.equal(lines.length, 1, r.err);
      assert.match(lines[0], /57 columns are constant .*"x4", "x5", .*… and 47 more/);
    });
    await t.step("a malformed file lists its problems (up to 20, counted)", async () => {
      const rows = ["y,a,b"];
      for (let i = 0; i < 30; i++) rows.push(i % 2 === 0 ? "1,x,2" : "0,1,2,3");
      const r = await _sample(dir, "bad.csv", rows.join("\n") + "\n", [
        "--family",
        "logistic",
        "--response",
        "y",
      ]);
      assert.equal(r.code, 2);
      assert.match(r.err, /line 2, column "a" \(data row 1\): expected a number, got "x"/);
      assert.match(
        r.err,
        /and 19 more problems in the first 21 lines.*\(2\) line 3 \(data row 2\): expected 3 fields/,
      );
      assert.match(r.err, /\(20\) line 21/);
      const few = await _sample(dir, "bad2.csv", "y,a\n1,x\n0,1\n1,y\n", [
        "--family",
        "logistic",
        "--response",
        "y",
      ]);
      assert.match(few.err, /got "x"; and 1 more problem: \(2\) line 4, column "a"/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The CLI as a subprocess, with `input` on its standard input. */
async function _cliProcess(
  args: string[],
  input: string | null,
): Promise<{ code: number; out: string; err: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env=INIT_CWD", CLI, ...args],
    stdin: input === null ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (input !== null) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(input));
    await w.close();
  }
  const r = await child.output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
}

Deno.test("[e2e] --data - reads standard input; a FIFO is read once, as a stream", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_bad_data_" });
  const args = ["sample", "--family", "logistic", ..._FAST];
  try {
    await t.step("standard input, plain and formula paths, and an empty one", async () => {
      const [plain, formula, empty] = await Promise.all([
        _cliProcess([...args, "--data", "-", "--response", "y"], _table(40)),
        _cliProcess([...args, "--data", "-", "--formula", "y ~ a + b"], _table(40)),
        _cliProcess([...args, "--data", "-", "--response", "y"], ""),
      ]);
      for (const r of [plain, formula]) {
        assert.equal(r.code, 0, r.err);
        assert.match(r.out, /n = 40, d = 3/);
      }
      assert.equal(empty.code, 2);
      assert.match(empty.err, /--data: -: the input is empty/);
      assert.ok(!/^\s+at /m.test(empty.err), empty.err);
    });
    await t.step("a FIFO does not hang", async () => {
      const fifo = `${dir}/data.fifo`;
      const mk = await new Deno.Command("mkfifo", { args: [fifo] }).output();
      if (!mk.success) return; // no mkfifo on this system
      for (const how of [["--response", "y"]]) {
        const run = _cliProcess([...args, "--data", fifo, ...how], null);
        // The writer opens the FIFO once and writes the table once.
        const w = await Deno.open(fifo, { write: true });
        await w.write(new TextEncoder().encode(_table(40)));
        w.close();
        const r = await run;
        assert.equal(r.code, 0, r.err);
        assert.match(r.out, /n = 40, d = 3/);
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bad data through the API: the same checks and messages", async (t) => {
  const opts = { response: "y", family: "logistic" } as const;
  await t.step("the delimiter is detected, or given", () => {
    for (const sep of [",", "\t", ";", "|"]) {
      const t = parseCsvText(_table(5, sep), opts);
      assert.deepEqual(t.columnNames, ["(Intercept)", "a", "b"]);
    }
    assert.equal(detectDelimiter("y;a,b;c", "1;2;3"), ";");
    assert.equal(detectDelimiter("y", "1"), ",");
    assert.equal(detectDelimiter("y, a,\tb", "1, 2,\t3"), ","); // tabs as padding
    const amb = detectDelimiter("y,a;b", undefined);
    assert.equal(typeof amb, "object");
    assert.throws(() => parseCsvText("y,a;b\n1,2;3\n", opts), RangeError);
    assert.throws(() => parseCsvText("y,a;b\n1,2;3\n", opts), /--delimiter \(the delimiter option/);
    assert.deepEqual(
      parseCsvText("y,a;b\n1,2\n", { ...opts, delimiter: "," }).columnNames,
      ["(Intercept)", "a;b"],
    );
    const d = parseCsvWithFormula("y;a\n1;2\n0;3\n1;1\n", { formula: "y ~ a" });
    assert.deepEqual(d.columnNames, ["(Intercept)", "a"]);
  });
  await t.step("cellNumber() reads plain decimals only", () => {
    for (const s of ["1", "-1.5", "+.5", "5.", "1e3", "1E-3", " 2 ", "\t3"]) {
      assert.ok(Number.isFinite(cellNumber(s)), s);
    }
    for (
      const s of ["", " ", "0x10", "0b11", "0o7", "1_000", "Infinity", "-Infinity", "NaN", "1,5"]
    ) {
      assert.ok(Number.isNaN(cellNumber(s)), s);
    }
    assert.ok(Number.isNaN(cellNumber("\u00a01")), "no-break space");
    assert.ok(Number.isNaN(cellNumber("1\n")), "line break");
  });
  await t.step("parseCsvText(), the formula path and draws files refuse 0x10", () => {
    assert.throws(() => parseCsvText("y,a\n1,0x10\n", opts), /line 2, column "a".*hexadecimal/);
    assert.throws(
      () => parseCsvWithFormula("y,a\n1,0x10\n0,2\n", { formula: "y ~ a" }),
      /column "a", data row 1 \(line 2\): hexadecimal/,
    );
    assert.throws(
      () => parseDrawsCsv("a,b\n1,0b11\n"),
      /line 2, column "b": expected a number, got "0b11"/,
    );
  });
  await t.step("reserved names are renamed, with a note", () => {
    const text = ["y,chain,.draw,a", "1,2,3,4", "0,1,2,3", "1,5,1,2"].join("\n");
    const t = parseCsvText(text, opts);
    assert.deepEqual(t.columnNames, ["(Intercept)", "chain_x", ".draw_x", "a"]);
    assert.match(t.warnings.join("\n"), /column "chain" \(field 2\) is renamed "chain_x"/);
    const d = parseCsvWithFormula(text, { formula: "y ~ chain + a" });
    assert.deepEqual(d.columnNames, ["(Intercept)", "chain_x", "a"]);
    assert.ok(RESERVED_COLUMN_NAMES.includes("log_nu_minus_1"));
  });
  await t.step(
    "f32: loadCsvToArena and glmDataFromArrays name overflow and underflow",
    async () => {
      const arena = loadCore({ backend: "reference" });
      const path = await Deno.makeTempFile({ suffix: ".csv" });
      try {
        await Deno.writeTextFile(path, "y,a\n1,-3.5e38\n0,1\n");
        await assert.rejects(
          loadCsvToArena(arena, path, { ...opts, storage: "f32" }),
          /line 2, column "a" \(data row 1\): "-3\.5e38" overflows f32/,
        );
        await Deno.writeTextFile(path, "y,a\n1,1e-39\n0,1\n");
        await assert.rejects(
          loadCsvToArena(arena, path, { ...opts, storage: "f32" }),
          /"1e-39" underflows f32 to a denormal/,
        );
        // The largest f32 itself is fine.
        await Deno.writeTextFile(path, "y,a\n1,3.4028234663852886e38\n0,1\n");
        const ok = await loadCsvToArena(arena, path, { ...opts, storage: "f32" });
        assert.equal(ok.numRows, 2);
        await Deno.writeTextFile(path, "y,a\n1,1e-50\n0,1\n1,2\n");
        await assert.rejects(
          loadCsvWithFormula(arena, path, { formula: "y ~ a", storage: "f32" }),
          /row 1, column 2 \("a"\), which underflows f32 to zero/,
        );
      } finally {
        await Deno.remove(path);
      }
      assert.throws(
        () => glmDataFromArrays(arena, [1, 1e39], [1], { numCols: 2, storage: "f32" }),
        /row 1, column 2, which overflows f32/,
      );
    },
  );
  await t.step("Parquet: f32 limits and reserved names as in CSV", async () => {
    const arena = loadCore({ backend: "reference" });
    const path = await Deno.makeTempFile({ suffix: ".parquet" });
    try {
      await writeParquet(path, [{
        numRows: 3,
        x: new Float64Array([1e39, 1, 2, 3, 3, 1]),
        y: new Float64Array([1, 0, 1]),
      }], { columnNames: ["a", "sign"], responseName: "y", storage: "f64" });
      await assert.rejects(
        loadParquet(arena, path, { ...opts, storage: "f32" }),
        /row 1, column "a": 1e\+39 overflows f32/,
      );
      const data = await loadParquet(arena, path, opts);
      assert.deepEqual(data.columnNames, ["(Intercept)", "a", "sign_x"]);
      assert.match(data.warnings!.join("\n"), /column "sign" \(field 3\) is renamed "sign_x"/);
      // Copies and a dependent set: the same warnings as the CSV of the same table.
      const rng = new Rng(13), n = 50, x: number[] = [], y: number[] = [], lines = ["y,a,b,c,d"];
      for (let i = 0; i < n; i++) {
        const a = rng.normal(), b = rng.normal(), r = [a, b, a, a - b];
        x.push(...r);
        y.push(i % 2);
        lines.push([i % 2, ...r].join(","));
      }
      await writeParquet(path, [{ numRows: n, x: new Float64Array(x), y: new Float64Array(y) }], {
        columnNames: ["a", "b", "c", "d"],
        responseName: "y",
        storage: "f64",
      });
      const pq = (await loadParquet(arena, path, opts)).warnings!.map((w) =>
        w.replace(`${path}: `, "")
      );
      const csv = parseCsvText(lines.join("\n"), opts).warnings.map((w) =>
        w.replace("CSV text: ", "")
      );
      assert.deepEqual(pq, csv);
      assert.match(pq.join("\n"), /"c" = "a"/);
      assert.match(pq.join("\n"), /linearly dependent/);
    } finally {
      await Deno.remove(path);
    }
  });
  await t.step("the formula path's warnings equal the plain path's", () => {
    const text = "y,a,b,c\n1,1,5,1e12\n1,2,5,3\n1,3,5,2\n1,4,5,2\n";
    const plain = parseCsvText(text, opts).warnings.map((w) => w.replace(/^CSV text: /, ""));
    const formula = parseCsvWithFormula(text, { formula: "y ~ a + b + c", family: "logistic" });
    assert.deepEqual(formula.warnings, plain);
    assert.equal(plain.length, 3);
  });
  await t.step("copies and a dependent set are named; independent columns are not", () => {
    const rng = new Rng(11);
    const rows = ["y,a,b,c,d,e,f"];
    for (let i = 0; i < 40; i++) {
      const a = rng.normal(), b = rng.normal(), c = rng.normal();
      rows.push([rng.int(2), a, b, c, b, 1 - 0.5 * a + c, rng.normal()].join(","));
    }
    const w = parseCsvText(rows.join("\n"), opts).warnings.join("\n");
    assert.match(w, /"d" = "b"/);
    const dep = /linearly dependent.*/.exec(w)?.[0] ?? "";
    for (const c of ['"(Intercept)"', '"a"', '"c"', '"e"']) assert.ok(dep.includes(c), dep);
    assert.ok(!dep.includes('"f"') && !dep.includes('"b"'), dep);
    const none = parseCsvText(_table(30), opts).warnings;
    assert.deepEqual(none, []);
  });
  await t.step("many problems are listed, up to 20", () => {
    const rows = ["y,a"];
    for (let i = 0; i < 100; i++) rows.push(`${i % 2},z${i}`);
    assert.throws(
      () => parseCsvText(rows.join("\n"), opts),
      (e: Error) =>
        e instanceof TypeError && /and 19 more problems in the first 21 lines/.test(e.message) &&
        (e.message.match(/\(\d+\) line/g) ?? []).length === 19,
    );
  });
});

Deno.test("random weird cells: finite data equal to Number() of a plain decimal, or a clear error", () => {
  const rng = new Rng(2024);
  const pool = [
    "1",
    "-2.5",
    "1e-300",
    "0x1F",
    "0b101",
    "0o17",
    "1_0",
    "Infinity",
    " 3 ",
    "\u00a04",
    "",
    "nan",
    "1.",
    ".5",
    "+7",
    "--1",
    "1e400",
    "2,5",
    "0",
    "-0",
  ];
  for (let trial = 0; trial < 200; trial++) {
    const n = 1 + rng.int(4);
    const cells: string[] = [];
    const lines = ["y,a"];
    for (let i = 0; i < n; i++) {
      const c = pool[rng.int(pool.length)];
      cells.push(c);
      lines.push(`${i % 2},"${c}"`);
    }
    try {
      const t = parseCsvText(lines.join("\n"), { response: "y", family: "logistic" });
      cells.forEach((c, i) => {
        assert.match(c.trim(), /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i, `accepted ${c}`);
        assert.ok(Object.is(t.x[2 * i + 1], Number(c)), `${c} read as ${t.x[2 * i + 1]}`);
      });
    } catch (e) {
      assert.ok(e instanceof RangeError || e instanceof TypeError, String(e));
      assert.match((e as Error).message, /^CSV text: line \d+, column "a" \(data row \d+\)/);
    }
  }
});
