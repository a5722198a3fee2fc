import assert from "node:assert/strict";
import type { Experiment, ExperimentResult, UnitFunction } from "../../replicate/experiment.ts";
import { runUnits } from "../../replicate/experiment.ts";
import {
  csvField,
  formatCell,
  formatDuration,
  formatNumber,
  toCsv,
} from "../../replicate/format.ts";
import { densitySpec, traceSpec } from "../../replicate/figures.ts";
import { parseReplicateArgs, runReplicate, UsageError } from "../../replicate/main.ts";
import { EXPERIMENTS, selectExperiments } from "../../replicate/registry.ts";
import { renderSvg } from "../../replicate/render.ts";
import {
  type ExperimentOutcome,
  machineInfo,
  validateResult,
  writeReport,
} from "../../replicate/report.ts";

const _SCATTER = {
  data: {
    values: [
      { x: 1, y: 2, g: "a" },
      { x: 2, y: 1, g: "b" },
      { x: 3, y: 4, g: "a" },
    ],
  },
  mark: "point",
  encoding: {
    x: { field: "x", type: "quantitative" },
    y: { field: "y", type: "quantitative" },
    color: { field: "g", type: "nominal" },
  },
};

function _fakeResult(): ExperimentResult {
  return {
    summary: "Ran a **fake** experiment with `n = 3`.\n\n- first point\n- second point",
    tables: [{
      name: "posterior",
      caption: "Posterior <summary>, quoted",
      columns: ["parameter", "paper", "ours"],
      rows: [
        ["beta, 0", 1.5, 1.23456789],
        ['say "hi"', null, NaN],
        ["line\nbreak", -0, -1e-9],
      ],
    }],
    figures: [{ name: "scatter", caption: "A scatter", spec: _SCATTER }],
    comparison: ["Matches: the mean is within 2 MCSE.", "Does not match: *nothing* yet."],
  };
}

function _fakeExperiments(): Experiment[] {
  return [
    {
      name: "fake",
      title: "F1 — a fake experiment",
      source: "none.md Table 1",
      run(context) {
        context.log("running");
        return Promise.resolve(_fakeResult());
      },
    },
    {
      name: "boom",
      title: "F2 — an experiment that throws",
      source: "none.md Table 2",
      run() {
        return Promise.reject(new RangeError("stepSize must be positive, got -0.1"));
      },
    },
  ];
}

Deno.test("formatNumber() rounds to significant digits without -0 and shows NaN as a dash", async (t) => {
  await t.step("significant digits", () => {
    assert.equal(formatNumber(3.14159265), "3.142");
    assert.equal(formatNumber(3.14159265, { digits: 2 }), "3.1");
    assert.equal(formatNumber(0.000123456), "1.235e-4");
    assert.equal(formatNumber(0.0000058), "5.8e-6");
    assert.equal(formatNumber(0.0012), "0.0012");
    assert.equal(formatNumber(1234.5678), "1235");
    assert.equal(formatNumber(0.5), "0.5");
  });
  await t.step("exponent notation for very small and large values", () => {
    assert.equal(formatNumber(-0.00001234), "-1.234e-5");
    assert.equal(formatNumber(12345678.9), "1.235e7");
    assert.equal(formatNumber(999999.9), "1e6");
  });
  await t.step("integers in full", () => {
    assert.equal(formatNumber(100000), "100000");
    assert.equal(formatNumber(-42), "-42");
  });
  await t.step("no -0, NaN as dash, infinities", () => {
    assert.equal(formatNumber(-0), "0");
    assert.equal(formatNumber(NaN), "—");
    assert.equal(formatNumber(-Infinity), "-∞");
  });
  await t.step("bad digits throw naming the value", () => {
    assert.throws(
      () => formatNumber(1, { digits: 0 }),
      /digits must be an integer in \[1, 17\], got 0/,
    );
  });
  await t.step("cells: null empty, strings unchanged", () => {
    assert.equal(formatCell(null), "");
    assert.equal(formatCell("x"), "x");
  });
  await t.step("durations", () => {
    assert.equal(formatDuration(0.25), "250 ms");
    assert.equal(formatDuration(12.34), "12.3 s");
    assert.equal(formatDuration(125), "2 min 05 s");
  });
});

Deno.test("toCsv() quotes fields per RFC 4180 and keeps full precision", async (t) => {
  await t.step("fields with commas, quotes, line breaks are quoted; quotes doubled", () => {
    assert.equal(csvField("plain"), "plain");
    assert.equal(csvField("a,b"), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField("two\nlines"), '"two\nlines"');
  });
  await t.step("numbers at full precision, NaN/null/-0 spelled out", () => {
    const csv = toCsv(["a", "b"], [[0.1 + 0.2, null], [NaN, -0]]);
    assert.equal(csv, "a,b\r\n0.30000000000000004,\r\nNaN,0\r\n");
  });
  await t.step("ragged rows throw", () => {
    assert.throws(() => toCsv(["a", "b"], [[1]]), /row 1 has 1 cells, but there are 2 columns/);
  });
});

Deno.test("renderSvg() renders a Vega-Lite scatter headlessly", async (t) => {
  await t.step("the SVG contains one symbol per point", async () => {
    const svg = await renderSvg(_SCATTER);
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.match(svg, /role-mark/);
    const symbols = svg.match(/<g class="mark-symbol role-mark[^>]*>([\s\S]*?)<\/g>/)?.[1] ?? "";
    assert.equal(symbols.match(/aria-roledescription="point"/g)?.length, 3);
    assert.match(symbols, /aria-label="x: 3; y: 4; g: a"/);
    assert.match(svg, /<text[^>]*>x<\/text>/); // axis title, laid out without a canvas
  });
  await t.step("idPrefix renames clip ids and their references", async () => {
    const svg = await renderSvg(
      { ..._SCATTER, mark: { type: "point", clip: true } },
      { idPrefix: "fig1-" },
    );
    assert.match(svg, /id="fig1-clip\d+"/);
    assert.match(svg, /url\(#fig1-clip\d+\)/);
    assert.doesNotMatch(svg, /id="clip\d+"/);
  });
  await t.step("data URLs are refused", async () => {
    await assert.rejects(
      renderSvg({ data: { url: "https://example.org/d.csv" }, mark: "point" }),
      /must inline their data.*example\.org/,
    );
  });
  await t.step("a non-object spec throws", async () => {
    await assert.rejects(
      renderSvg([] as unknown as Record<string, unknown>),
      /spec must be a Vega-Lite specification object, got an array/,
    );
  });
});

Deno.test("writeReport() writes Markdown, HTML, CSV and SVG files", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_report_" });
  try {
    const outcomes: ExperimentOutcome[] = [
      {
        name: "fake",
        title: "F1 — fake",
        source: "none.md Table 1",
        result: _fakeResult(),
        wallSeconds: 1.5,
      },
      {
        name: "boom",
        title: "F2 — boom",
        source: "none.md Table 2",
        error: "RangeError: stepSize must be positive, got -0.1\nat run (x.ts:1:1)",
        wallSeconds: 0.1,
      },
    ];
    const written = await writeReport(outcomes, {
      outDir: `${dir}/nested/out`,
      info: {
        date: new Date(0),
        commandLine: "deno task replicate --quick",
        quick: true,
        seed: 7,
        machine: machineInfo(),
      },
    });
    const names = written.files.map((f) => f.slice(f.lastIndexOf("/") + 1)).sort();
    await t.step("one CSV per table, one SVG per figure, report.md and report.html", () => {
      assert.deepEqual(names, [
        "fake_posterior.csv",
        "fake_scatter.svg",
        "report.html",
        "report.md",
      ]);
      assert.deepEqual(written.problems, []);
    });
    await t.step("the CSV quotes per RFC 4180", async () => {
      const csv = await Deno.readTextFile(`${dir}/nested/out/fake_posterior.csv`);
      assert.equal(
        csv,
        'parameter,paper,ours\r\n"beta, 0",1.5,1.23456789\r\n"say ""hi""",,NaN\r\n"line\nbreak",0,-1e-9\r\n',
      );
    });
    const md = await Deno.readTextFile(written.markdownPath);
    await t.step(
      "the Markdown has the run header, the table, the figure link and the honest column",
      () => {
        assert.match(md, /^# tallmc replication report/);
        assert.match(md, /Command: `deno task replicate --quick`/);
        assert.match(md, /Date: 1970-01-01T00:00:00.000Z/);
        assert.match(md, /logical cores/);
        assert.match(md, /\| parameter \| paper \| ours \|\n\| --- \| ---: \| ---: \|/);
        assert.match(md, /\| beta, 0 \| 1\.5 \| 1\.235 \|/);
        assert.ok(md.includes('| say "hi" |  | — |'));
        assert.match(md, /\| line break \| 0 \| -1e-9 \|/);
        assert.match(md, /!\[A scatter\]\(fake_scatter\.svg\)/);
        assert.match(md, /- Matches: the mean is within 2 MCSE\./);
        assert.match(md, /Wall time: 1\.50 s/);
      },
    );
    await t.step("a failed experiment is reported with its reason", () => {
      assert.match(md, /\[F2 — boom\]\(#boom\) — FAILED/);
      assert.match(
        md,
        /\*\*This experiment failed:\*\* RangeError: stepSize must be positive, got -0\.1/,
      );
    });
    const html = await Deno.readTextFile(written.htmlPath);
    await t.step("the HTML is self-contained: inline SVG, escaped text, no scripts", () => {
      assert.match(html, /^<!DOCTYPE html>/);
      assert.match(html, /<figure>\n<svg[^>]*>[\s\S]*<\/svg>/);
      assert.doesNotMatch(html, /<script/i);
      assert.doesNotMatch(html, /<link /i);
      assert.match(html, /Posterior &lt;summary&gt;, quoted/);
      assert.match(html, /<strong>fake<\/strong>/);
      assert.match(html, /<code>n = 3<\/code>/);
      assert.match(html, /<ul><li>first point<\/li><li>second point<\/li><\/ul>/);
      assert.match(html, /<em>nothing<\/em>/);
      assert.match(html, /<td class="num">1\.235<\/td>/);
      // Result tables sit in a box that scrolls sideways, so a wide one does
      // not widen the page.
      assert.match(html, /<div class="table-scroll">\n<table>\n<caption>Posterior/);
      assert.match(html, /\.table-scroll \{ overflow-x: auto;/);
      assert.match(html, /This experiment failed: RangeError: stepSize must be positive/);
    });
    await t.step("renderer warnings are collected per figure", async () => {
      const result = {
        ..._fakeResult(),
        tables: [],
        figures: [{
          name: "bad",
          caption: "c",
          spec: {
            ..._SCATTER,
            encoding: { x: { field: "missing", type: "quantitative" } },
          },
        }],
      };
      const r = await writeReport([{ ...outcomes[0], result }], {
        outDir: `${dir}/warn`,
        info: { date: new Date(0), commandLine: "x", quick: true, seed: 1, machine: machineInfo() },
      });
      assert.deepEqual(r.problems, []);
      assert.ok(
        r.warnings.some((w) => /^fake: figure "bad": .*missing/.test(w)),
        r.warnings.join("\n"),
      );
    });
    await t.step("a figure that fails to render is a problem, not a crash", async () => {
      const r = await writeReport([outcomes[0]], {
        outDir: `${dir}/bad`,
        info: { date: new Date(0), commandLine: "x", quick: true, seed: 1, machine: machineInfo() },
        renderFn: () => Promise.reject(new Error("no renderer")),
      });
      assert.equal(r.problems.length, 1);
      assert.match(r.problems[0], /figure "scatter" could not be rendered: no renderer/);
      assert.match(await Deno.readTextFile(r.markdownPath), /could not be rendered: no renderer/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("validateResult() rejects results that break the contract", async (t) => {
  await t.step("a ragged row names the table and row", () => {
    const r = _fakeResult();
    const bad = { ...r, tables: [{ ...r.tables[0], rows: [["x"]] }] };
    assert.throws(
      () => validateResult(bad, "fake"),
      /table "posterior" row 1 has 1 cells, expected 3/,
    );
  });
  await t.step("an unsafe table name is named", () => {
    const r = _fakeResult();
    const bad = { ...r, tables: [{ ...r.tables[0], name: "a/b" }] };
    assert.throws(() => validateResult(bad, "fake"), /table name must be .*got "a\/b"/);
  });
  await t.step("duplicate figure names", () => {
    const r = _fakeResult();
    const bad = { ...r, figures: [r.figures[0], r.figures[0]] };
    assert.throws(() => validateResult(bad, "fake"), /two figures are named "scatter"/);
  });
});

Deno.test("parseReplicateArgs() parses flags and rejects bad ones", async (t) => {
  await t.step("defaults", () => {
    const a = parseReplicateArgs([]);
    assert.equal(a.quick, false);
    assert.equal(a.outDir, "out/replicate");
    assert.deepEqual(a.names, []);
  });
  await t.step("flags and names", () => {
    const a = parseReplicateArgs(["--quick", "--out", "/tmp/x", "--seed", "42", "r1", "r0"]);
    assert.deepEqual([a.quick, a.outDir, a.seed, a.names], [true, "/tmp/x", 42, ["r1", "r0"]]);
  });
  await t.step("a bad seed is named", () => {
    assert.throws(() => parseReplicateArgs(["--seed", "-3"]), UsageError);
    assert.throws(
      () => parseReplicateArgs(["--seed", "1.5"]),
      /--seed must be a non-negative integer, got "1\.5"/,
    );
  });
  await t.step("unknown options and missing values", () => {
    assert.throws(() => parseReplicateArgs(["--fast"]), UsageError);
    assert.throws(() => parseReplicateArgs(["--out"]), UsageError);
  });
  await t.step("--jobs is a positive integer, by default one per logical core", () => {
    assert.equal(parseReplicateArgs([]).jobs, Math.max(1, navigator.hardwareConcurrency || 1));
    assert.equal(parseReplicateArgs(["--jobs", "3"]).jobs, 3);
    assert.throws(
      () => parseReplicateArgs(["--jobs", "0"]),
      /--jobs must be a positive integer, got "0"/,
    );
    assert.throws(() => parseReplicateArgs(["--jobs", "two"]), UsageError);
  });
});

Deno.test("runReplicate() runs a registered experiment in a worker", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_replicate_workers_" });
  try {
    const err: string[] = [];
    const code = await runReplicate(["--quick", "--jobs", "2", "--out", dir, "r14"], {
      stdout: () => {},
      stderr: (l) => err.push(l),
    });
    assert.equal(code, 0, err.join("\n"));
    assert.ok(err.some((l) => /2 at once in workers/.test(l)), err[0]);
    // The worker's thread CPU time is reported beside the wall time, in the log and the report.
    assert.ok(err.some((l) => /^replicate: r14 done in .* \(CPU [^)]+\)$/.test(l)), err.join("\n"));
    assert.match(err[err.length - 1], /finished in .*CPU/);
    const md = await Deno.readTextFile(`${dir}/report.md`);
    assert.match(md, /## R14/);
    assert.match(md, /- Wall time: .* \(CPU [^)]+\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runUnits() runs an experiment's units in its own thread when no scheduler is given", async (t) => {
  const calls: number[] = [];
  const units: Record<string, UnitFunction> = {
    square: (_c, x: number) => {
      calls.push(x);
      return x * x;
    },
  };
  const fake: Experiment = {
    name: "units",
    title: "units",
    source: "test",
    units,
    run: async (context) => {
      const out = await runUnits(
        context,
        units,
        [3, 1, 2].map((x) => ({
          unit: "square",
          args: x,
          weight: x,
          label: `${x}`,
        })),
      );
      assert.deepEqual(out, [9, 1, 4]);
      return _fakeResult();
    },
  };
  await t.step("in order, results in the order of the requests", async () => {
    const dir = await Deno.makeTempDir({ prefix: "tallmc_replicate_units_" });
    try {
      const code = await runReplicate(["--out", dir], {
        experiments: [fake],
        stdout: () => {},
        stderr: () => {},
      });
      assert.equal(code, 0);
      assert.deepEqual(calls, [3, 1, 2]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
  await t.step("an unknown unit is refused before any runs", async () => {
    const context = { quick: true, seed: 1, outDir: "out", log: () => {} };
    await assert.rejects(
      runUnits(context, units, [{ unit: "cube", args: 1, weight: 1, label: "1" }]),
      /unknown unit "cube"/,
    );
  });
});

Deno.test("selectExperiments() picks by name and rejects unknown names", async (t) => {
  await t.step("the registry has unique, file-name-safe names", () => {
    const names = EXPERIMENTS.map((e) => e.name);
    assert.equal(new Set(names).size, names.length);
    for (const n of names) assert.match(n, /^[A-Za-z0-9_-]+$/);
  });
  await t.step("order as given, repeats dropped", () => {
    const fakes = _fakeExperiments();
    assert.deepEqual(selectExperiments(["boom", "fake", "boom"], fakes).map((e) => e.name), [
      "boom",
      "fake",
    ]);
    assert.equal(selectExperiments([], fakes).length, 2);
  });
  await t.step("an unknown name lists the valid ones", () => {
    assert.throws(
      () => selectExperiments(["nope"], _fakeExperiments()),
      /unknown experiment "nope"; valid names: fake, boom/,
    );
  });
});

Deno.test("runReplicate() runs experiments, keeps going after a failure and sets the exit code", async (t) => {
  const lines = () => {
    const out: string[] = [], err: string[] = [];
    return { out, err, stdout: (l: string) => out.push(l), stderr: (l: string) => err.push(l) };
  };
  await t.step("an unknown experiment is one error line and exit 2", async () => {
    const io = lines();
    const code = await runReplicate(["nope"], { experiments: _fakeExperiments(), ...io });
    assert.equal(code, 2);
    assert.equal(io.err.length, 1);
    assert.match(io.err[0], /^error: unknown experiment "nope"; valid names: fake, boom/);
  });
  await t.step("a bad option is exit 2", async () => {
    const io = lines();
    assert.equal(await runReplicate(["--bogus"], { experiments: _fakeExperiments(), ...io }), 2);
    assert.match(io.err[0], /^error: .*bogus/);
  });
  await t.step("--help and --list print to stdout and exit 0", async () => {
    const io = lines();
    assert.equal(await runReplicate(["--help"], { experiments: _fakeExperiments(), ...io }), 0);
    assert.match(io.out.join("\n"), /Usage: deno task replicate \[--quick\]/);
    const io2 = lines();
    assert.equal(await runReplicate(["--list"], { experiments: _fakeExperiments(), ...io2 }), 0);
    assert.deepEqual(io2.out.map((l) => l.split(/\s+/)[0]), ["fake", "boom"]);
  });
  await t.step("a failing experiment is reported, the others kept, exit 1", async () => {
    const dir = await Deno.makeTempDir({ prefix: "tallmc_replicate_" });
    try {
      const io = lines();
      const code = await runReplicate(["--quick", "--out", dir, "boom", "fake"], {
        experiments: _fakeExperiments(),
        ...io,
      });
      assert.equal(code, 1);
      assert.ok(io.err.some((l) => /boom FAILED after .*stepSize must be positive/.test(l)));
      assert.ok(io.err.some((l) => /fake \+\d+\.\ds: running/.test(l)));
      const md = await Deno.readTextFile(`${dir}/report.md`);
      assert.match(md, /Command: `deno task replicate --quick --out \S+ boom fake`/);
      assert.match(md, /This experiment failed:\*\* RangeError: stepSize must be positive/);
      assert.match(md, /## F1 — a fake experiment[\s\S]*\| beta, 0 \|/);
      await Deno.stat(`${dir}/fake_posterior.csv`);
      await Deno.stat(`${dir}/fake_scatter.svg`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("traceSpec() and densitySpec() build figures that render", async (t) => {
  const chains = [[0.1, 0.3, -0.2, 0.5, 0.0, 0.2], [0.2, -0.1, 0.4, 0.1, 0.3, -0.3]];
  await t.step(
    "traceSpec() thins to maxPointsPerChain and draws one line per chain and panel",
    async () => {
      const spec = traceSpec([{ name: "a", chains }, { name: "b", chains }], {
        maxPointsPerChain: 3,
      });
      assert.equal((spec.data as { values: unknown[] }).values.length, 2 * 2 * 3);
      const svg = await renderSvg(spec);
      assert.equal(svg.match(/aria-roledescription="line mark"/g)?.length ?? 0, 4);
    },
  );
  await t.step("densitySpec() adds reference curves and rules", async () => {
    const spec = densitySpec([{ name: "a", chains }], {
      numPoints: 20,
      curves: [{ parameter: "a", label: "analytic", densityFn: () => 1 }],
      references: [{ parameter: "a", label: "true value", value: 0.1 }],
    });
    const values = (spec.data as { values: { series: string }[] }).values;
    assert.equal(values.filter((v) => v.series === "analytic").length, 20);
    assert.equal(values.filter((v) => v.series === "true value").length, 1);
    const svg = await renderSvg(spec);
    assert.match(svg, /true value/);
    assert.match(svg, /class="mark-rule role-mark/);
  });
});

Deno.test("writeReport() opens the report with a verdict table: one row per claim, a row for every experiment", async (t) => {
  const verdict = {
    claim: "Table 1 | the mean",
    paper: "1.5",
    ours: "1.23",
    outcome: "partly" as const,
    reason: "threshold: within 10 % (partly 30 %)",
  };
  const outcomes: ExperimentOutcome[] = [
    {
      name: "fake",
      title: "F1 — a fake experiment",
      source: "none.md",
      result: { ..._fakeResult(), verdicts: [verdict, { ...verdict, outcome: "reproduced" }] },
      wallSeconds: 1,
    },
    {
      name: "quiet",
      title: "F3 — no verdicts",
      source: "none.md",
      result: _fakeResult(),
      wallSeconds: 1,
    },
    {
      name: "boom",
      title: "F2 — fails",
      source: "none.md",
      error: "RangeError: x",
      wallSeconds: 1,
    },
  ];
  const info = {
    date: new Date(0),
    commandLine: "deno task replicate",
    quick: true,
    seed: 1,
    machine: machineInfo(),
  };
  const outDir = await Deno.makeTempDir();
  try {
    const written = await writeReport(outcomes, {
      outDir,
      info,
      renderFn: () => Promise.resolve("<svg></svg>"),
    });
    const md = await Deno.readTextFile(written.markdownPath);
    const html = await Deno.readTextFile(written.htmlPath);
    await t.step("Markdown: the verdict table comes right after the title", () => {
      const first = md.split("\n").filter((l) => l.startsWith("## "))[0];
      assert.equal(first, "## Verdicts");
      assert.ok(md.includes("| [F1](#fake) | Table 1 \\| the mean | 1.5 | 1.23 | **partly** |"));
      assert.ok(md.includes("| [F3](#quiet) | — | | | no verdict recorded | |"));
      assert.ok(md.includes("| [F2](#boom) | — | | | experiment failed | |"));
      assert.ok(md.includes("Totals: 1 reproduced, 1 partly, 0 not reproduced"));
    });
    await t.step("HTML: the verdict section is the first section after the title", () => {
      const body = html.slice(html.indexOf("<body>"));
      assert.ok(body.indexOf('<section id="verdicts">') < body.indexOf("<h2>Run</h2>"));
      assert.ok(body.indexOf('<section id="verdicts">') < body.indexOf('<section id="fake">'));
      assert.ok(html.includes('<td class="partly">partly</td>'));
      assert.ok(html.includes("no verdict recorded"));
    });
  } finally {
    await Deno.remove(outDir, { recursive: true });
  }
  await t.step("validateResult rejects a verdict with an unknown outcome", () => {
    const bad = { ..._fakeResult(), verdicts: [{ ...verdict, outcome: "maybe" }] };
    assert.throws(
      () => validateResult(bad as unknown as ExperimentResult, "fake"),
      /outcome must be one of reproduced, partly, not reproduced, got "maybe"/,
    );
  });
});
