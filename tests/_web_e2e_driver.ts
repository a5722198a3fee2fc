/**
 * The browser half of `web_e2e_test.ts`, run by it as a subprocess with
 * `--allow-all`: playwright-core reads /proc at import (WSL detection), which
 * Deno only allows under --allow-all, so the test itself keeps its narrow
 * permissions and only this driver gets them.
 *
 * Usage: `deno run -A tests/_web_e2e_driver.ts ORIGIN SCREENSHOT_PATH SETTINGS_JSON`
 * (`{chromium, n, dataSeed, numChains, numWarmup, numSamples, exampleOrigin}`);
 * `exampleOrigin` serves the README's bundle page, whose output is reported
 * as `exampleText`.
 * Drives Debian's Chromium through the page (HMC-ECS on HIGGS-shaped data)
 * and prints one JSON object: load time, final state, page errors, the
 * backend line, the cost table's row counts (ℓ, ∇ℓ, Hessian), plotted row counts,
 * the summary table and the CSV download.
 *
 * @module
 */
import { chromium } from "npm:playwright-core@1.65.1";

/** Chromium flags for a headless run in a container. */
export const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

if (import.meta.main) {
  const [origin, screenshot, settings] = Deno.args;
  const E2E_RUN = JSON.parse(settings);
  const browser = await chromium.launch({ executablePath: E2E_RUN.chromium, args: FLAGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));

    const t0 = performance.now();
    await page.goto(`${origin}/`);
    await page.waitForFunction("document.body.dataset.state === 'idle'");
    const loadMs = performance.now() - t0;

    await page.selectOption("#dataset", "higgs");
    await page.selectOption("#sampler", "hmc-ecs");
    await page.fill("#n", String(E2E_RUN.n));
    await page.fill("#dataSeed", String(E2E_RUN.dataSeed));
    await page.fill("#numChains", String(E2E_RUN.numChains));
    await page.fill("#numWarmup", String(E2E_RUN.numWarmup));
    await page.fill("#numSamples", String(E2E_RUN.numSamples));
    const t1 = performance.now();
    await page.click("#run");
    await page.waitForFunction("['done', 'error'].includes(document.body.dataset.state)", null, {
      timeout: 45_000,
    });
    const runMs = performance.now() - t1;
    const state = await page.getAttribute("body", "data-state");
    // Plot updates are coalesced (every 400 ms): wait for the last one.
    const expected = 4 * E2E_RUN.numChains * E2E_RUN.numSamples;
    await page.waitForFunction(
      `(globalThis.tallmcViews ?? []).every((v) => v.data('draws').length >= ${expected})`,
      null,
      { timeout: 5_000 },
    ).catch(() => {}); // the test reports the counts it finds
    const plotted = await page.evaluate(
      "(globalThis.tallmcViews ?? []).map((v) => v.data('draws').length)",
    ) as number[];
    const rows = await page.$$eval("#summary tbody tr", (trs) =>
      trs.map((tr) => {
        const cell = (c: string) =>
          Number(tr.querySelector(`td.${c}`)!.textContent!.replace("−", "-"));
        return { name: tr.getAttribute("data-param")!, mean: cell("mean"), sd: cell("sd") };
      }));
    let csvLines: string[] = [];
    if (state === "done") {
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.click("#download"),
      ]);
      csvLines = (await Deno.readTextFile(await download.path())).trim().split("\n");
    }
    await page.screenshot({ path: screenshot, fullPage: true });

    const example = await browser.newPage();
    example.on("pageerror", (e) => errors.push(`README page: ${e.message}`));
    await example.goto(`${E2E_RUN.exampleOrigin}/`);
    await example.waitForFunction(
      "document.getElementById('means').textContent !== 'sampling…'",
      null,
      {
        timeout: 30_000,
      },
    ).catch(() => {}); // the test reports the text it finds
    const exampleText = await example.textContent("#means");
    console.log(JSON.stringify({
      loadMs,
      runMs,
      state,
      errors,
      backend: await page.textContent("#backend"),
      cost: await Promise.all(
        ["#cost-ll", "#cost-grad", "#cost-hess"].map(async (id) =>
          Number((await page.textContent(id) ?? "").replace(/[^0-9]/g, ""))
        ),
      ),
      plotted,
      rows,
      csvHeader: csvLines[0] ?? "",
      csvLineCount: csvLines.length,
      exampleText,
    }));
  } finally {
    await browser.close();
  }
}
