/// <reference lib="dom" />
/**
 * The browser half of `web_honest_test.ts`, run by it as a subprocess with
 * `--allow-all` (as `_web_e2e_driver.ts`, whose Chromium flags it shares).
 *
 * Usage: `deno run -A tests/_web_honest_driver.ts ORIGIN SCREENSHOT_DIR CHROMIUM`
 *
 * One page, four runs, and one JSON object on stdout with what each left on
 * screen and in its download:
 *
 * 1. `verdict`: rwmh with its defaults on HIGGS-shaped data (n = 5000, 2 chains,
 *    100 + 200 iterations), which does not converge;
 * 2. `failed`: the same with rwmh's `scale` set to −1, which the sampler
 *    rejects: what is left of run 1;
 * 3. `stopped`: hmc on a Gaussian regression with far more draws than it has
 *    time for, stopped once 2000 draws are on screen, then Download;
 * 4. `signed`: signed HMC-ECS on the Gaussian regression, then Download.
 *
 * Screenshots: SCREENSHOT_DIR/web_honest_{verdict,failed,stopped,signed}.png.
 *
 * @module
 */
import { chromium, type Page } from "npm:playwright-core@1.65.1";
import { FLAGS } from "./_web_e2e_driver.ts";

const DONE = "['done', 'error', 'stopped'].includes(document.body.dataset.state)";

async function _download(page: Page): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
  return await Deno.readTextFile(await download.path());
}

async function _settings(
  page: Page,
  s: {
    dataset: string;
    sampler: string;
    n: number;
    chains: number;
    warmup: number;
    draws: number;
  },
): Promise<void> {
  await page.selectOption("#dataset", s.dataset);
  await page.selectOption("#sampler", s.sampler);
  await page.fill("#n", String(s.n));
  if (s.dataset === "gaussian") await page.fill("#d", "3");
  await page.fill("#numChains", String(s.chains));
  await page.fill("#numWarmup", String(s.warmup));
  await page.fill("#numSamples", String(s.draws));
}

/** Plot updates are queued (every 400 ms): wait for the draws to reach both plots. */
async function _plotsShown(page: Page): Promise<void> {
  await page.waitForFunction(
    "globalThis.tallmcViews.length === 2 && " +
      "globalThis.tallmcViews.every((v) => v.data('draws').length > 0)",
    null,
    { timeout: 5_000 },
  ).catch(() => {}); // the test checks what it finds
}

/** What is on screen after a run. */
function _screen(page: Page) {
  return page.evaluate(() => {
    const text = (id: string) => document.getElementById(id)!.textContent ?? "";
    const views = (globalThis as unknown as { tallmcViews: { data(n: string): unknown[] }[] })
      .tallmcViews;
    return {
      state: document.body.dataset.state,
      verdict: text("verdict"),
      verdictHidden: document.getElementById("verdict")!.hidden,
      description: text("description"),
      warnings: text("warnings"),
      progress: text("progress-text"),
      summaryRows: document.querySelectorAll("#summary tbody tr").length,
      traceChildren: document.getElementById("trace")!.childElementCount,
      densityChildren: document.getElementById("density")!.childElementCount,
      plotted: views.map((v) => v.data("draws").length),
      chainsText: text("chains"),
      stepSizes: Array.from(
        document.querySelectorAll("#chains tbody tr"),
        (tr) => tr.children[4].textContent ?? "",
      ),
      signNote: text("sign-note"),
      signShare: document.getElementById("sign-note")!.dataset.share ?? "",
      footer: document.querySelector("footer")!.textContent ?? "",
      dashedLegendShown: (document.querySelector(".truth-only") as HTMLElement).offsetParent !==
        null,
      downloadDisabled: (document.getElementById("download") as HTMLButtonElement).disabled,
    };
  });
}

if (import.meta.main) {
  const [origin, dir, executablePath] = Deno.args;
  const browser = await chromium.launch({ executablePath, args: FLAGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${origin}/`);
    await page.waitForFunction("document.body.dataset.state === 'idle'");

    // The sampler list: the diagnostic samplers in their own group.
    const groups = await page.$$eval("#sampler optgroup", (gs) =>
      gs.map((g) => ({
        label: g.getAttribute("label"),
        names: Array.from(g.querySelectorAll("option"), (o) => o.value),
      })));
    const ungrouped = await page.$$eval(
      "#sampler > option",
      (os) => os.map((o) => (o as HTMLOptionElement).value),
    );
    // The file chooser opens from the keyboard: Enter on the focused button
    // clicks the file input (the click is recorded and the dialog cancelled).
    await page.evaluate(() => {
      document.getElementById("file")!.addEventListener("click", (e) => {
        (globalThis as Record<string, unknown>).fileInputClicked = true;
        e.preventDefault();
      });
    });
    await page.focus("#choose-file");
    await page.keyboard.press("Enter");
    const fileChooserOpened = await page.evaluate(() =>
      document.activeElement?.id === "choose-file" &&
      (globalThis as Record<string, unknown>).fileInputClicked === true
    );

    // 1. A run that does not converge.
    await _settings(page, {
      dataset: "higgs",
      sampler: "rwmh",
      n: 5000,
      chains: 2,
      warmup: 100,
      draws: 200,
    });
    await page.click("#run");
    await page.waitForFunction(DONE, null, { timeout: 60_000 });
    await _plotsShown(page);
    const verdict = await _screen(page);
    await page.screenshot({ path: `${dir}/web_honest_verdict.png`, fullPage: true });

    // 2. A run that fails: nothing of run 1 may stay on screen.
    await page.fill("#opt-scale", "-1");
    await page.click("#run");
    await page.waitForFunction(DONE, null, { timeout: 60_000 });
    const failed = await _screen(page);
    await page.screenshot({ path: `${dir}/web_honest_failed.png`, fullPage: true });

    // 3. Stop, then Download.
    await _settings(page, {
      dataset: "gaussian",
      sampler: "hmc",
      n: 5000,
      chains: 2,
      warmup: 100,
      draws: 200_000,
    });
    await page.click("#run");
    await page.waitForFunction(
      "document.body.dataset.state !== 'running' || globalThis.tallmcRun.rows.length >= 2000",
      null,
      { timeout: 60_000 },
    );
    await page.click("#stop");
    await page.waitForFunction(DONE);
    await _plotsShown(page);
    const stopped = await _screen(page);
    const stoppedRows = await page.evaluate("globalThis.tallmcRun.rows") as number[][];
    const stoppedNames = await page.evaluate("globalThis.tallmcRun.names") as string[];
    const stoppedCsv = stopped.downloadDisabled ? "" : await _download(page);
    await page.screenshot({ path: `${dir}/web_honest_stopped.png`, fullPage: true });

    // 4. Signed HMC-ECS.
    await _settings(page, {
      dataset: "gaussian",
      sampler: "hmc-ecs",
      n: 5000,
      chains: 1,
      warmup: 100,
      draws: 200,
    });
    await page.selectOption("#opt-variant", "signed");
    await page.click("#run");
    await page.waitForFunction(DONE, null, { timeout: 60_000 });
    await _plotsShown(page);
    const signed = await _screen(page);
    const signedCsv = signed.state === "done" ? await _download(page) : "";
    await page.screenshot({ path: `${dir}/web_honest_signed.png`, fullPage: true });

    console.log(JSON.stringify({
      errors,
      groups,
      ungrouped,
      fileChooserOpened,
      verdict,
      failed,
      stopped,
      stoppedRows,
      stoppedNames,
      stoppedCsv,
      signed,
      signedCsv,
    }));
  } finally {
    await browser.close();
  }
}
