/// <reference lib="dom" />
/**
 * The browser half of `web_model_test.ts`, run by it as a subprocess with
 * `--allow-all` (as the other web drivers, whose Chromium flags it shares).
 *
 * Usage: `deno run -A tests/_web_model_driver.ts ORIGIN DIR CHROMIUM PLAIN_ORIGIN`,
 * where PLAIN_ORIGIN serves the page without COOP/COEP headers and DIR holds the test's files
 * (formula.csv, missing.csv, counts.parquet) and receives the screenshots.
 *
 * 1. `formula`: formula.csv's default prior shown at load (`preview`); then
 *    with a formula and a categorical column, hmc,
 *    2 chains on 2 workers; then the same on 1 worker.
 * 2. (A malformed file: web_url_test.ts.)
 * 3. `missing`: missing.csv (NA cells), gaussian with σ sampled and a prior
 *    typed in the CLI's syntax.
 * 4. `parquet`: counts.parquet, poisson with an offset column.
 * 5. `axe`: axe-core's violations on the page after run 4.
 * 6. `longTask`: the longest main-thread task during HMC-ECS on 10⁵ rows.
 * 7. `plain`: a page that is not cross-origin isolated, asked for 2 workers.
 *
 * One JSON object on stdout.
 *
 * @module
 */
import axe from "npm:axe-core@4.11.0";
import { type Browser, chromium, type Page } from "npm:playwright-core@1.65.1";
import { FLAGS } from "./_web_e2e_driver.ts";

const DONE = "['done', 'error', 'stopped'].includes(document.body.dataset.state)";

interface _Run {
  state: string;
  warnings: string;
  description: string;
  rows: number[][];
  names: string[];
  priorLines: string;
  progress: string;
  ppcLabel: string;
  rankLabel: string;
  pairsLabel: string;
  ppcStats: string;
  isolated: boolean;
  workers: number;
}

async function _run(page: Page): Promise<_Run> {
  await page.click("#run");
  await page.waitForFunction(DONE, null, { timeout: 120_000 });
  // The rank, pairs and predictive plots are drawn in tasks of their own after the run.
  await page.waitForFunction(
    "document.body.dataset.afterRun === 'drawn' || document.body.dataset.state === 'error'",
    null,
    { timeout: 10_000 },
  ).catch(() => {}); // the test checks what it finds
  return await page.evaluate(() => {
    const text = (id: string) => document.getElementById(id)!.textContent ?? "";
    const label = (id: string) => document.getElementById(id)!.getAttribute("aria-label") ?? "";
    const run = (globalThis as unknown as {
      tallmcRun: { rows: number[][]; names: string[]; workers: number };
    }).tallmcRun;
    return {
      state: document.body.dataset.state ?? "",
      warnings: text("warnings"),
      description: text("description"),
      rows: run.rows,
      names: run.names,
      priorLines: text("prior-lines"),
      progress: text("progress-text"),
      ppcLabel: label("ppc"),
      rankLabel: label("rank"),
      pairsLabel: label("pairs"),
      ppcStats: text("ppc-stats"),
      isolated: crossOriginIsolated,
      workers: run.workers,
    };
  });
}

async function _open(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction("document.body.dataset.state === 'idle'");
  return page;
}

/** Load a file through the file input and wait for the worker's check. */
async function _load(page: Page, path: string): Promise<{ summary: string; problems: string[] }> {
  await page.setInputFiles("#file", path);
  await page.waitForFunction(
    "document.body.dataset.state === 'idle' && !document.getElementById('file-summary').textContent.startsWith('reading')",
    null,
    { timeout: 30_000 },
  );
  return await page.evaluate(() => ({
    summary: document.getElementById("file-summary")!.textContent ?? "",
    problems: Array.from(
      document.querySelectorAll("#file-problems li"),
      (li) => li.textContent ?? "",
    ),
  }));
}

async function _settings(page: Page, s: Record<string, string>): Promise<void> {
  for (const [id, value] of Object.entries(s)) {
    const tag = await page.evaluate((i) => document.getElementById(i)?.tagName ?? "", id);
    if (tag === "SELECT") await page.selectOption(`#${id}`, value);
    else await page.fill(`#${id}`, value);
  }
}

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

/** Screenshot of one element. */
async function _shot(page: Page, selector: string, path: string): Promise<void> {
  await page.locator(selector).screenshot({ path });
}

const errors: string[] = [];

if (import.meta.main) {
  const [origin, dir, executablePath, plainOrigin] = Deno.args;
  const browser = await chromium.launch({ executablePath, args: FLAGS });
  try {
    // 1. A formula with a categorical column; 2 chains on 2 workers, then on 1.
    const page = await _open(browser, `${origin}/`);
    const loaded = await _load(page, `${dir}/formula.csv`);
    // The prior of the default model, shown before any run.
    await page.waitForFunction("document.getElementById('prior-preview').textContent !== ''");
    const preview = await page.evaluate(() =>
      document.getElementById("prior-preview")!.textContent ?? ""
    );
    const common = {
      formula: "y ~ x + region",
      family: "logistic",
      sampler: "hmc",
      numChains: "2",
      numWarmup: "150",
      numSamples: "150",
      seed: "3",
    };
    await _settings(page, { ...common, workers: "2" });
    const twoWorkers = await _run(page);
    await page.screenshot({ path: `${dir}/web_model_formula.png`, fullPage: true });
    await _shot(page, "#more-plots", `${dir}/web_model_plots.png`);
    await _settings(page, { workers: "1" });
    const oneWorker = await _run(page);
    await page.close();

    // 2. A malformed file: in web_url_test.ts (every kind of bad cell).

    // 3. Missing cells, σ sampled, a prior in the CLI's syntax.
    const na = await _open(browser, `${origin}/`);
    const naLoaded = await _load(na, `${dir}/missing.csv`);
    await _settings(na, {
      formula: "y ~ x1 + g",
      family: "gaussian",
      priors: "x1=normal(0, 1)",
      sampler: "hmc",
      numChains: "2",
      numWarmup: "100",
      numSamples: "100",
      seed: "1",
    });
    const missing = await _run(na);
    await _shot(na, "#more-plots", `${dir}/web_model_density.png`);
    await na.close();

    // 4–5. Parquet, poisson with an offset; axe-core afterwards.
    const pq = await _open(browser, `${origin}/`);
    const pqLoaded = await _load(pq, `${dir}/counts.parquet`);
    await _settings(pq, {
      response: "y",
      family: "poisson",
      offset: "exposure",
      sampler: "hmc",
      numChains: "2",
      numWarmup: "100",
      numSamples: "100",
      seed: "1",
    });
    const formulaAfterOffset = await pq.evaluate(() =>
      (document.getElementById("formula") as HTMLInputElement).value
    );
    const parquet = await _run(pq);
    await _shot(pq, "#more-plots", `${dir}/web_model_rootogram.png`);
    const axeResult = await _axe(pq);
    await pq.close();

    // 6. The longest main-thread task during a 10⁵-row HMC-ECS run.
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
      `${origin}/?dataset=higgs&n=100000&dataSeed=1&sampler=hmc-ecs&numChains=2&workers=2&numWarmup=300&numSamples=500&seed=1`,
    );
    await lt.waitForFunction("document.body.dataset.state === 'idle'");
    await lt.evaluate(() => (globalThis as unknown as { observing: boolean }).observing = true);
    const t0 = Date.now();
    const ltRun = await _run(lt);
    await lt.waitForTimeout(2000); // the last plot updates
    const longTask = await lt.evaluate(() => {
      const g = globalThis as unknown as { longTasks: number[] };
      return {
        count: g.longTasks.length,
        maxMs: Math.max(0, ...g.longTasks),
        tasksMs: g.longTasks.map((x) => Math.round(x)),
        measures: performance.getEntriesByType("measure")
          .filter((e) => e.name.startsWith("tallmc:") && e.duration >= 20)
          .sort((a, b) => b.duration - a.duration)
          .slice(0, 8)
          .map((e) => `${e.name.slice(7)} ${Math.round(e.duration)} ms`),
      };
    });
    await lt.screenshot({ path: `${dir}/web_model_higgs.png`, fullPage: true });
    const runMs = Date.now() - t0;
    await lt.close();

    // 7. Not cross-origin isolated: one worker, and the page says why.
    const pl = await _open(
      browser,
      `${plainOrigin}/?dataset=gaussian&n=500&d=2&numChains=2&workers=2&numWarmup=50&numSamples=50`,
    );
    const plainWorkersControl = await pl.evaluate(() =>
      (document.getElementById("workers") as HTMLInputElement).value
    );
    const plain = await _run(pl);
    await pl.close();

    const brief = (r: _Run) => ({ ...r, rows: r.rows.length });
    console.log(JSON.stringify({
      errors,
      loaded,
      preview,
      twoWorkers,
      oneWorker,
      naLoaded,
      missing: brief(missing),
      pqLoaded,
      formulaAfterOffset,
      parquet: brief(parquet),
      axe: axeResult,
      longTask: { ...longTask, state: ltRun.state, workers: ltRun.workers, runMs },
      plain: brief(plain),
      plainWorkersControl,
    }));
  } finally {
    await browser.close();
  }
}
