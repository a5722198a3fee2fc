/**
 * The demo page's file runs travel in its address, and a malformed file has
 * every problem listed when it is loaded, in a real browser
 * (`_web_url_driver.ts` drives Debian's Chromium):
 *
 * - a file run set up by hand (delimiter, missing cells, formula, family
 *   with its options, priors, intercept and σ prior, standardize) leaves
 *   them in the address; a fresh page opened with it and given the same file
 *   shows the same fields and gives the same draws;
 * - addresses typed by hand set ν, the missing-cells policy (refused: the
 *   run names the column) and an offset column; a column the file lacks is
 *   named in the warnings line;
 * - a malformed file lists each kind of bad cell with its line and column —
 *   a row with too few or too many fields, an unclosed quote, text in a
 *   numeric column, a number that is not finite, an empty cell, a missing
 *   value, a response outside its family's support — at most 5 per column
 *   and kind, then "… and N more".
 *
 * Screenshots: /tmp/web_url_{restored,malformed}.png. Skipped, saying why,
 * when /usr/bin/chromium is missing.
 */
import assert from "node:assert/strict";
import { webBuiltOnce } from "../_web_build.ts";
import { REPO_ROOT, serveDirectory } from "../_serve.ts";

const CHROMIUM = "/usr/bin/chromium";

function _hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}
const hasChromium = _hasChromium();
if (!hasChromium) {
  console.log(`web_url_test.ts: skipped: ${CHROMIUM} not found (apt-get install -y chromium)`);
}

interface _Run {
  state: string;
  warnings: string;
  description: string;
  priorLines: string;
  rows: number[][];
  names: string[];
  url: string;
}
type _Fields = Record<string, string>;
interface _Report {
  errors: string[];
  handFields: _Fields;
  byHand: _Run;
  beforeLoad: _Fields;
  linkNote: string;
  restoredFields: _Fields;
  restored: _Run;
  studentTFields: _Fields;
  studentT: Omit<_Run, "rows"> & { rows: number };
  poissonFields: _Fields;
  poissonWarnings: string;
  problemsAtLoad: string[];
  problems: string[];
  badRun: Omit<_Run, "rows"> & { rows: number };
}

/** The test's files, written into `dir`. */
async function _files(dir: string): Promise<void> {
  const na = ["y;x1;g;z"];
  for (let i = 0; i < 120; i++) {
    const x1 = Math.cos(0.7 * i), g = i % 2 === 0 ? "a" : "b";
    const y = 1 + 2 * x1 + (g === "b" ? 0.5 : 0) + 0.3 * Math.sin(11 * i);
    const cell = (v: string, k: number) => (i % 40 === k ? "NA" : v);
    na.push(`${cell(y.toFixed(4), 5)};${cell(x1.toFixed(4), 17)};${cell(g, 29)};${cell("1", 33)}`);
  }
  await Deno.writeTextFile(`${dir}/missing.csv`, na.join("\n") + "\n");

  // Line numbers (the header is line 1) are those the assertions name.
  const bad = [
    "y,a,b,c",
    "1,0.5,1,k", // 2
    "-1,abc,2,k", // 3: y outside poisson's support; "abc" in numeric a
    "2,0.7,,m", // 4: empty b
    "1,1e999,4,k", // 5: a not finite
    "3,0.1,5", // 6: too few fields
    "1,Inf,6,m", // 7: a not finite
    "0,x1,NA,k", // 8: "x1" in numeric a; b missing
    "1,0.2,8,m,10", // 9: too many fields
    "2.5,0.3,9,k", // 10: y outside poisson's support
  ];
  for (let i = 0; i < 8; i++) bad.push(`${i},0.${i},${i},`); // 11–18: 8 empty cells in c
  bad.push('1,"0.4,10,k'); // 19: a quote never closed
  await Deno.writeTextFile(`${dir}/bad.csv`, bad.join("\n") + "\n");
}

Deno.test({
  name: "[e2e] web/ in Chromium: file runs in the address, every bad cell of a file",
  ignore: !hasChromium,
  async fn() {
    const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "web_url_" });
    await _files(dir);
    await webBuiltOnce();
    const server = serveDirectory(`${REPO_ROOT}/web`);
    let report: _Report;
    try {
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          "--quiet",
          `${REPO_ROOT}/tests/_web_url_driver.ts`,
          server.origin,
          dir,
          CHROMIUM,
        ],
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(180_000),
      }).output();
      assert.equal(code, 0, `the browser driver failed:\n${new TextDecoder().decode(stderr)}`);
      report = JSON.parse(new TextDecoder().decode(stdout));
    } finally {
      await server.close();
    }
    for (const f of ["restored", "malformed"]) {
      await Deno.copyFile(`${dir}/web_url_${f}.png`, `/tmp/web_url_${f}.png`);
    }
    console.log("screenshots: /tmp/web_url_{restored,malformed}.png");
    console.log(`address of the run by hand: ${report.byHand.url}`);
    console.log(`malformed file:\n  ${report.problems.join("\n  ")}`);
    assert.deepEqual(report.errors, []);

    // 1–2. The address repeats a file run: same fields, same draws.
    const h = report.byHand, r = report.restored;
    assert.equal(h.state, "done", h.warnings);
    const q = new URL(h.url).searchParams;
    assert.equal(q.get("file"), "missing.csv");
    assert.equal(q.get("delimiter"), ";");
    assert.equal(q.get("formula"), "y ~ x1 + g");
    assert.equal(q.get("priors"), "x1=normal(0, 1)\ng=student_t(3, 0, 2)");
    assert.equal(q.get("standardize"), "1");
    assert.equal(q.get("priorAux"), "exponential(2)");
    assert.equal(q.get("nu"), null, "ν is not written for a gaussian run");
    assert.equal(report.beforeLoad.delimiter, ";");
    assert.match(report.linkNote, /"missing\.csv": load it/);
    assert.deepEqual(report.restoredFields, report.handFields);
    assert.equal(report.handFields.standardize, "true");
    assert.equal(r.state, "done", r.warnings);
    assert.equal(r.url, h.url);
    assert.match(h.priorLines, /x1 ~ normal\(0, 1\)/);
    assert.match(h.priorLines, /student_t/);
    assert.equal(r.priorLines, h.priorLines);
    assert.equal(r.description, h.description);
    assert.equal(h.rows.length, 2 * 100);
    const sorted = (rows: number[][]) => [...rows].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    assert.deepEqual(sorted(r.rows), sorted(h.rows), "the address gives the same draws");

    // 3. Addresses typed by hand.
    const st = report.studentTFields;
    assert.equal(st.family, "student-t");
    assert.equal(st.nu, "sample");
    assert.equal(st.missing, "refuse");
    assert.equal(st.formula, "y ~ x1");
    assert.equal(report.studentT.state, "error");
    assert.match(
      report.studentT.warnings,
      /column "y" has 3 missing cells \(the first at line \d+\)/,
    );
    assert.match(report.studentT.warnings, /column "x1" has 3 missing cells/);
    assert.equal(report.poissonFields.family, "poisson");
    assert.equal(report.poissonFields.offset, "z");
    assert.equal(report.poissonFields.formula, "y ~ g");
    assert.match(report.poissonWarnings, /trials="nope" \(no such column\)/);

    // 4. Every kind of bad cell, with its line and column.
    const p = report.problems;
    const has = (re: RegExp) => assert.ok(p.some((x) => re.test(x)), `${re} not in ${p}`);
    has(/data row 5 has 3 fields, expected 4 .*line 6/);
    has(/data row 8 has 5 fields, expected 4 .*line 9/);
    has(/line 19: a quoted field is not closed/);
    has(/^line 3, column "a": "abc" is not a number in a numeric column/);
    has(/^line 8, column "a": "x1" is not a number in a numeric column/);
    has(/^line 5, column "a": "1e999" is not finite/);
    has(/^line 7, column "a": "Inf" is not finite/);
    has(/^line 4, column "b": empty cell/);
    has(/^line 8, column "b": "NA" marks a missing value/);
    has(/^line 3, column "y": -1 is outside the support of family poisson/);
    has(/^line 10, column "y": 2\.5 is outside the support of family poisson/);
    // Eight empty cells in c: five listed, then how many more.
    assert.equal(p.filter((x) => /column "c": empty cell/.test(x)).length, 5);
    has(/^… and 3 more empty cells in column "c"/);
    // At load, the default model (logistic, response y) is checked; the
    // family chosen later replaces those lines.
    assert.ok(
      report.problemsAtLoad.some((x) => /2 is outside the support of family logistic/.test(x)),
    );
    assert.ok(!p.some((x) => /family logistic/.test(x)));
    assert.equal(report.badRun.state, "error");
    assert.match(report.badRun.warnings, /rows with the wrong number of fields/);
  },
});
