/// <reference lib="dom" />
/**
 * The browser half of `web_url_test.ts`, run by it as a subprocess with
 * `--allow-all` (as the other web drivers, whose Chromium flags it shares).
 *
 * Usage: `deno run -A tests/_web_url_driver.ts ORIGIN DIR CHROMIUM`, where
 * DIR holds missing.csv and bad.csv and receives the screenshots.
 *
 * 1. `byHand`: missing.csv with every file-model field set by hand, run.
 * 2. `restored`: a fresh page opened with the address run 1 left, the same
 *    file loaded, its fields read, run.
 * 3. `studentT`, `poisson`: addresses typed by hand (ν = sample, missing
 *    cells refused; an offset column), their fields read after the load.
 * 4. `bad`: bad.csv's problems at load, with family poisson (the response's
 *    cells outside its support), and a run of it.
 *
 * One JSON object on stdout.
 *
 * @module
 */
import { type Browser, chromium, type Page } from "npm:playwright-core@1.65.1";
import { FLAGS } from "./_web_e2e_driver.ts";

const DONE = "['done', 'error', 'stopped'].includes(document.body.dataset.state)";

/** The file-model fields (and the sampler's) the test compares. */
export const MODEL_FIELDS = [
  "delimiter",
  "missing",
  "formula",
  "response",
  "family",
  "sigma",
  "nu",
  "offset",
  "trials",
  "success",
  "standardize",
  "priors",
  "priorIntercept",
  "priorAux",
  "sampler",
  "numChains",
  "workers",
  "numWarmup",
  "numSamples",
  "seed",
];

const errors: string[] = [];

async function _open(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction("document.body.dataset.state === 'idle'");
  return page;
}

/** Load a file and wait for the worker's check and the prior (and support) it gives. */
async function _load(page: Page, path: string): Promise<void> {
  await page.evaluate(() => document.getElementById("prior-preview")!.textContent = "");
  await page.setInputFiles("#file", path);
  await page.waitForFunction(
    "document.body.dataset.state === 'idle' && !document.getElementById('file-summary').textContent.startsWith('reading')",
    null,
    { timeout: 30_000 },
  );
  await page.waitForFunction("document.getElementById('prior-preview').textContent !== ''");
}

async function _fields(page: Page): Promise<Record<string, string>> {
  return await page.evaluate((ids) => {
    const out: Record<string, string> = {};
    for (const id of ids) {
      const el = document.getElementById(id) as HTMLInputElement;
      out[id] = el.type === "checkbox" ? String(el.checked) : el.value;
    }
    return out;
  }, MODEL_FIELDS);
}

async function _set(page: Page, s: Record<string, string>): Promise<void> {
  for (const [id, value] of Object.entries(s)) {
    const el = await page.evaluate((i) => {
      const e = document.getElementById(i) as HTMLInputElement | null;
      return e === null ? "" : e.tagName === "INPUT" ? e.type : e.tagName;
    }, id);
    if (el === "SELECT") await page.selectOption(`#${id}`, value);
    else if (el === "checkbox") await page.setChecked(`#${id}`, value === "true");
    else await page.fill(`#${id}`, value);
  }
}

async function _run(page: Page) {
  await page.click("#run");
  await page.waitForFunction(DONE, null, { timeout: 120_000 });
  return await page.evaluate(() => {
    const text = (id: string) => document.getElementById(id)!.textContent ?? "";
    const run = (globalThis as unknown as { tallmcRun: { rows: number[][]; names: string[] } })
      .tallmcRun;
    return {
      state: document.body.dataset.state ?? "",
      warnings: text("warnings"),
      description: text("description"),
      priorLines: text("prior-lines"),
      rows: run.rows,
      names: run.names,
      url: location.href,
    };
  });
}

async function _problems(page: Page): Promise<string[]> {
  return await page.evaluate(() =>
    Array.from(document.querySelectorAll("#file-problems li"), (li) => li.textContent ?? "")
  );
}

if (import.meta.main) {
  const [origin, dir, executablePath] = Deno.args;
  const browser = await chromium.launch({ executablePath, args: FLAGS });
  try {
    // 1. Every file-model field set by hand.
    const hand = await _open(browser, `${origin}/`);
    await _set(hand, { delimiter: ";", missing: "drop" });
    await _load(hand, `${dir}/missing.csv`);
    await _set(hand, {
      family: "gaussian",
      formula: "y ~ x1 + g",
      priors: "x1=normal(0, 1)\ng=student_t(3, 0, 2)",
      priorIntercept: "normal(1, 5)",
      priorAux: "exponential(2)",
      standardize: "true",
      sampler: "hmc",
      numChains: "2",
      workers: "1",
      numWarmup: "100",
      numSamples: "100",
      seed: "4",
    });
    const handFields = await _fields(hand);
    const byHand = await _run(hand);
    await hand.close();

    // 2. The address it left, in a fresh page, with the same file.
    const again = await _open(browser, byHand.url);
    const beforeLoad = await _fields(again);
    const linkNote = await again.evaluate(() =>
      document.getElementById("file-summary")!.textContent ?? ""
    );
    await _load(again, `${dir}/missing.csv`);
    const restoredFields = await _fields(again);
    const restored = await _run(again);
    await again.screenshot({ path: `${dir}/web_url_restored.png`, fullPage: true });
    await again.close();

    // 3. Addresses typed by hand.
    const q = (o: Record<string, string>) => `${origin}/?${new URLSearchParams(o)}`;
    const st = await _open(
      browser,
      q({
        file: "missing.csv",
        missing: "refuse",
        family: "student-t",
        nu: "sample",
        formula: "y ~ x1",
        sampler: "hmc",
        numChains: "1",
        numWarmup: "50",
        numSamples: "50",
      }),
    );
    await _load(st, `${dir}/missing.csv`);
    const studentTFields = await _fields(st);
    const studentT = await _run(st);
    await st.close();
    const po = await _open(
      browser,
      q({ family: "poisson", offset: "z", trials: "nope", formula: "y ~ g" }),
    );
    await _load(po, `${dir}/missing.csv`);
    const poissonFields = await _fields(po);
    const poissonWarnings = await po.evaluate(() =>
      document.getElementById("warnings")!.textContent ?? ""
    );
    await po.close();

    // 4. Every problem of a malformed file, at load.
    const bad = await _open(browser, `${origin}/`);
    await _load(bad, `${dir}/bad.csv`);
    const problemsAtLoad = await _problems(bad);
    await bad.evaluate(() => document.getElementById("prior-preview")!.textContent = "");
    await _set(bad, { family: "poisson", formula: "y ~ b" });
    await bad.waitForFunction(
      "Array.from(document.querySelectorAll('#file-problems li.support')).some((li) => li.textContent.includes('family poisson'))",
      null,
      { timeout: 20_000 },
    );
    const problems = await _problems(bad);
    await bad.locator("#controls").screenshot({ path: `${dir}/web_url_malformed.png` });
    const badRun = await _run(bad);
    await bad.close();

    const brief = <T extends { rows: number[][] }>(r: T) => ({ ...r, rows: r.rows.length });
    console.log(JSON.stringify({
      errors,
      handFields,
      byHand,
      beforeLoad,
      linkNote,
      restoredFields,
      restored,
      studentTFields,
      studentT: brief(studentT),
      poissonFields,
      poissonWarnings,
      problemsAtLoad,
      problems,
      badRun: brief(badRun),
    }));
  } finally {
    await browser.close();
  }
}
