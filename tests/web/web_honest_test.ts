/**
 * The demo page says what its results are worth, in a real browser
 * (`_web_honest_driver.ts` drives Debian's Chromium through four runs):
 *
 * - a run that does not converge shows the verdict in words (the checks it
 *   fails, the parameters, the likely cause and the fix);
 * - a failed run leaves nothing of the previous run on screen;
 * - Stop keeps the draws on screen, and Download gives exactly those draws;
 * - a signed HMC-ECS run says its summary is sign-corrected, shows the share
 *   of negative signs, and its CSV has a `sign` column that agrees with it;
 * - the diagnostic-only samplers are grouped apart, the file chooser opens
 *   from the keyboard, step sizes print with significant digits, the footer
 *   cites the sampler in use.
 *
 * Screenshots go to /tmp/web_honest_*.png. Skipped, saying why, when
 * /usr/bin/chromium is missing.
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
  console.log(`web_honest_test.ts: skipped: ${CHROMIUM} not found (apt-get install -y chromium)`);
}

interface _Screen {
  state: string;
  verdict: string;
  verdictHidden: boolean;
  description: string;
  warnings: string;
  progress: string;
  summaryRows: number;
  traceChildren: number;
  densityChildren: number;
  plotted: number[];
  chainsText: string;
  stepSizes: string[];
  signNote: string;
  signShare: string;
  footer: string;
  dashedLegendShown: boolean;
  downloadDisabled: boolean;
}

interface _Report {
  errors: string[];
  groups: { label: string; names: string[] }[];
  ungrouped: string[];
  fileChooserOpened: boolean;
  verdict: _Screen;
  failed: _Screen;
  stopped: _Screen;
  stoppedRows: number[][];
  stoppedNames: string[];
  stoppedCsv: string;
  signed: _Screen;
  signedCsv: string;
}

Deno.test({
  name: "[e2e] web/ in Chromium: verdict, cleared failures, Stop then Download, signed runs",
  ignore: !hasChromium,
  async fn() {
    await webBuiltOnce();
    const server = serveDirectory(`${REPO_ROOT}/web`);
    let report: _Report;
    try {
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          "--quiet",
          `${REPO_ROOT}/tests/_web_honest_driver.ts`,
          server.origin,
          "/tmp",
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
    console.log("screenshots: /tmp/web_honest_{verdict,failed,stopped,signed}.png");
    assert.deepEqual(report.errors, []);

    // Diagnostic-only samplers: grouped, labelled, and only there.
    assert.equal(report.groups.length, 1);
    assert.match(report.groups[0].label, /diagnostics only — not for inference/);
    assert.ok(report.groups[0].names.length > 0);
    for (const name of report.groups[0].names) assert.match(name, /^naive-/);
    assert.ok(!report.ungrouped.some((n) => n.startsWith("naive-")), report.ungrouped.join());
    assert.ok(report.ungrouped.includes("hmc-ecs") && report.ungrouped.includes("rwmh"));
    assert.ok(report.fileChooserOpened);

    // 1. rwmh with its defaults, 200 draws of 30 parameters: not converged, in words.
    const v = report.verdict;
    assert.equal(v.state, "done", v.warnings);
    assert.equal(v.verdictHidden, false);
    assert.match(v.verdict, /NOT converged/);
    assert.match(v.verdict, /ESS < 200/); // 100 per chain, 2 chains
    assert.match(v.verdict, /parameters: "/);
    assert.match(v.verdict, /likely cause: /);
    assert.match(v.verdict, /fix: .*(Draws|hmc)/);
    assert.doesNotMatch(v.verdict, /--samples|--sampler/); // the page's words, not the CLI's flags
    assert.ok(v.summaryRows === 30 && v.traceChildren > 0, JSON.stringify(v));
    assert.match(v.footer, /rwmh: /);

    // 2. A failed run clears run 1's plots, tables, description and verdict.
    const f = report.failed;
    assert.equal(f.state, "error");
    assert.match(f.warnings, /scale/);
    assert.equal(f.summaryRows, 0);
    assert.equal(f.traceChildren, 0);
    assert.equal(f.densityChildren, 0);
    assert.deepEqual(f.plotted, []);
    assert.equal(f.description, "");
    assert.equal(f.chainsText, "");
    assert.equal(f.verdictHidden, true);
    assert.equal(f.dashedLegendShown, false); // no generating values on screen
    assert.equal(f.downloadDisabled, true);

    // 3. Stop: the draws stay on screen and Download gives exactly them.
    const s = report.stopped;
    assert.equal(s.state, "stopped", s.warnings);
    assert.ok(s.plotted.length === 2 && s.plotted.every((k) => k > 0), `${s.plotted}`);
    assert.equal(s.downloadDisabled, false);
    const rows = report.stoppedRows;
    assert.ok(rows.length >= 2000, `${rows.length} draws on screen`);
    const lines = report.stoppedCsv.trim().split("\n");
    assert.equal(lines[0], `.chain,.iteration,.draw,${report.stoppedNames.join(",")}`);
    assert.equal(lines.length - 1, rows.length);
    // The file's .chain, .iteration and .draw are 1-based; the page's rows 0-based.
    const parsed = lines.slice(1).map((l, i) => {
      const [c, k, d, ...theta] = l.split(",").map(Number);
      assert.equal(d, i + 1, ".draw numbers the rows");
      return [c - 1, k - 1, ...theta];
    });
    const sorted = [...rows].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    assert.deepEqual(parsed, sorted);
    // Each chain's draws are its first ones, without a gap.
    const next = new Map<number, number>();
    for (const [c, k] of parsed) {
      assert.equal(k, next.get(c) ?? 0, `chain ${c}`);
      next.set(c, k + 1);
    }
    assert.match(s.progress, /stopped: [\d,]+ draws kept/);

    // 4. Signed HMC-ECS: sign-corrected summary, share of negative signs, a sign column.
    const g = report.signed;
    assert.equal(g.state, "done", g.warnings);
    assert.match(g.signNote, /sign-corrected/);
    assert.match(g.signNote, /\d+\.\d% of the draws have a negative sign/);
    const csv = report.signedCsv.trim().split("\n");
    assert.match(csv[0], /,sign$/);
    assert.equal(csv.length - 1, 200);
    const signs = csv.slice(1).map((l) => Number(l.slice(l.lastIndexOf(",") + 1)));
    assert.ok(signs.every((x) => x === 1 || x === -1), `signs: ${[...new Set(signs)]}`);
    const share = signs.filter((x) => x < 0).length / signs.length;
    assert.equal(Number(g.signShare), share);
    assert.match(g.footer, /hmc-ecs: Dang/);
    // Step sizes print with three significant digits, never as 0.0000.
    assert.equal(g.stepSizes.length, 1);
    assert.match(g.stepSizes[0], /^\d\.\d\d(e[−-]\d+)?$|^0\.\d*[1-9]\d\d$/);
    assert.ok(Number(g.stepSizes[0].replace("−", "-")) > 0, g.stepSizes[0]);
    // Synthetic data: the dashed-line legend shows (hidden when there are no generating values).
    assert.match(g.description, /Gaussian linear regression/);
    assert.equal(g.dashedLegendShown, true);
  },
});
