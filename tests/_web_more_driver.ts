/// <reference lib="dom" />
/**
 * The browser half of `web_more_test.ts`, run by it as a subprocess with
 * `--allow-all` (as `_web_e2e_driver.ts`, whose Chromium flags it shares).
 *
 * Usage: `deno run -A tests/_web_more_driver.ts ORIGIN SCREENSHOT_DIR CHROMIUM`
 *
 * 1. `byHand`: hmc on a Gaussian regression configured with the controls
 *    (a sampler option set, a non-default seed); the address it leaves.
 * 2. `fromUrl`: a fresh page opened with that address, run as it comes.
 * 3. `badUrl`: a page opened with unknown keys and values.
 * 4. `keyboard`: the controls reached with Tab, and a run started with Enter.
 * 5. `axe`: axe-core's violations on the page with results, at 1400 px and at 390 px.
 * 6. `narrow`: the page's width at a 390 px viewport (screenshot web_more_390.png).
 * 7. `longTask`: the longest main-thread task during HMC-ECS on 10⁵ rows.
 *
 * One JSON object on stdout.
 *
 * @module
 */
import axe from "npm:axe-core@4.11.0";
import { type Browser, chromium, type Page } from "npm:playwright-core@1.65.1";
import { FLAGS } from "./_web_e2e_driver.ts";

const DONE = "['done', 'error', 'stopped'].includes(document.body.dataset.state)";
const CONTROLS = [
  "dataset",
  "n",
  "d",
  "dataSeed",
  "priorScale",
  "sampler",
  "numChains",
  "numWarmup",
  "numSamples",
  "seed",
];

interface _Result {
  state: string;
  warnings: string;
  url: string;
  controls: Record<string, string>;
  options: Record<string, string>;
  rows: number[][];
  summary: string;
}

async function _result(page: Page): Promise<_Result> {
  return await page.evaluate((ids) => {
    const value = (id: string) => (document.getElementById(id) as HTMLInputElement).value;
    return {
      state: document.body.dataset.state ?? "",
      warnings: document.getElementById("warnings")!.textContent ?? "",
      url: location.href,
      controls: Object.fromEntries(ids.map((id) => [id, value(id)])),
      options: Object.fromEntries(
        Array.from(
          document.querySelectorAll<HTMLInputElement>("[data-option]"),
          (el) => [el.dataset.option!, el.value],
        ),
      ),
      rows: (globalThis as unknown as { tallmcRun: { rows: number[][] } }).tallmcRun.rows,
      summary: document.querySelector("#summary tbody")!.textContent ?? "",
    };
  }, CONTROLS);
}

async function _open(browser: Browser, url: string, width: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction("document.body.dataset.state === 'idle'");
  return page;
}

async function _runAndWait(page: Page): Promise<void> {
  await page.click("#run");
  await page.waitForFunction(DONE, null, { timeout: 60_000 });
  await page.waitForFunction(
    "globalThis.tallmcViews.length === 2 && " +
      "globalThis.tallmcViews.every((v) => v.data('draws').length > 0)",
    null,
    { timeout: 5_000 },
  ).catch(() => {}); // the test checks what it finds
}

/** axe-core's serious and critical violations (id, impact, the first targets). */
async function _axe(page: Page): Promise<{ id: string; impact: string; targets: string[] }[]> {
  await page.addScriptTag({ content: (axe as unknown as { source: string }).source });
  return await page.evaluate(async () => {
    const a = (globalThis as unknown as {
      axe: {
        run(): Promise<
          { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }
        >;
      };
    }).axe;
    const result = await a.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
    }));
  });
}

const errors: string[] = [];

if (import.meta.main) {
  const [origin, dir, executablePath] = Deno.args;
  const browser = await chromium.launch({ executablePath, args: FLAGS });
  try {
    // 1. By hand.
    const hand = await _open(browser, `${origin}/`, 1400);
    await hand.selectOption("#dataset", "gaussian");
    await hand.fill("#n", "3000");
    await hand.fill("#d", "3");
    await hand.fill("#dataSeed", "7");
    await hand.fill("#priorScale", "5");
    await hand.selectOption("#sampler", "hmc");
    await hand.fill("#opt-trajectoryLength", "0.8");
    await hand.fill("#numChains", "2");
    await hand.fill("#numWarmup", "100");
    await hand.fill("#numSamples", "150");
    await hand.fill("#seed", "42");
    await _runAndWait(hand);
    const byHand = await _result(hand);
    const axeWide = await _axe(hand);
    await hand.close();

    // 2. The same run from its address.
    const fromPage = await _open(browser, byHand.url, 1400);
    const restored = await _result(fromPage);
    await _runAndWait(fromPage);
    const fromUrl = await _result(fromPage);
    await fromPage.close();

    // 3. Unknown keys and values are named, not silently dropped.
    const bad = await _open(
      browser,
      `${origin}/?sampler=nope&numWarmup=abc&colour=red&opt.nope=1&n=800`,
      1400,
    );
    const badUrl = await _result(bad);
    await bad.close();

    // 4. Keyboard: Tab reaches every control; Enter in a field starts the run.
    const kb = await _open(
      browser,
      `${origin}/?dataset=higgs&n=2000&numWarmup=50&numSamples=50`,
      1400,
    );
    const reached: string[] = [];
    for (let i = 0; i < 40; i++) {
      await kb.keyboard.press("Tab");
      reached.push(await kb.evaluate(() => document.activeElement?.id ?? ""));
    }
    await kb.focus("#numSamples");
    await kb.keyboard.press("Enter");
    await kb.waitForFunction(DONE, null, { timeout: 60_000 });
    const keyboard = { reached, state: await kb.evaluate(() => document.body.dataset.state) };
    await kb.close();

    // 5–6. 390 px wide: no sideways scrolling of the page, axe again, a screenshot.
    const narrowPage = await _open(browser, byHand.url, 390);
    await _runAndWait(narrowPage);
    const narrow = await narrowPage.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      state: document.body.dataset.state,
      traceLabel: document.getElementById("trace")!.getAttribute("aria-label"),
      densityLabel: document.getElementById("density")!.getAttribute("aria-label"),
    }));
    await narrowPage.screenshot({ path: `${dir}/web_more_390.png`, fullPage: true });
    const axeNarrow = await _axe(narrowPage);
    await narrowPage.close();

    // 7. The longest main-thread task during a 10⁵-row HMC-ECS run.
    const lt = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    lt.on("pageerror", (e) => errors.push(e.message));
    await lt.addInitScript(() => {
      const g = globalThis as unknown as { longTasks: number[]; observing: boolean };
      g.longTasks = [];
      g.observing = false;
      new PerformanceObserver((list) => {
        if (!g.observing) return;
        for (const e of list.getEntries()) g.longTasks.push(e.duration);
      }).observe({ type: "longtask", buffered: false });
    });
    await lt.goto(
      `${origin}/?dataset=higgs&n=100000&dataSeed=1&sampler=hmc-ecs&numChains=2&numWarmup=300&numSamples=500&seed=1`,
    );
    await lt.waitForFunction("document.body.dataset.state === 'idle'");
    await lt.evaluate(() => (globalThis as unknown as { observing: boolean }).observing = true);
    const t0 = Date.now();
    await _runAndWait(lt);
    await lt.waitForTimeout(2000); // the last plot updates
    const longTask = await lt.evaluate(() => {
      const g = globalThis as unknown as { longTasks: number[] };
      return {
        state: document.body.dataset.state,
        count: g.longTasks.length,
        maxMs: Math.max(0, ...g.longTasks),
        tasksMs: g.longTasks.map((x) => Math.round(x)),
        // The page's own measures of its plot work and message handling, longest first.
        measures: performance.getEntriesByType("measure")
          .filter((e) => e.name.startsWith("tallmc:") && e.duration >= 20)
          .sort((a, b) => b.duration - a.duration)
          .slice(0, 8)
          .map((e) => `${e.name.slice(7)} ${Math.round(e.duration)} ms`),
      };
    });
    const longTaskRunMs = Date.now() - t0;
    await lt.close();

    console.log(JSON.stringify({
      errors,
      byHand,
      restored,
      fromUrl,
      badUrl,
      keyboard,
      axeWide,
      narrow,
      axeNarrow,
      longTask: { ...longTask, runMs: longTaskRunMs },
    }));
  } finally {
    await browser.close();
  }
}
