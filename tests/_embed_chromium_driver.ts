/**
 * The browser half of `embed_chromium_test.ts`, run by it as a subprocess
 * with `--allow-all` (playwright-core reads /proc at import).
 *
 * Usage: `deno run -A tests/_embed_chromium_driver.ts CHROMIUM URL…`: loads
 * each page, waits for it to set `document.body.dataset.result`, and prints
 * one JSON array of the parsed results (or `{ error }` per page).
 *
 * @module
 */
import { chromium } from "npm:playwright-core@1.65.1";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

if (import.meta.main) {
  const [executablePath, ...urls] = Deno.args;
  const browser = await chromium.launch({ executablePath, args: FLAGS });
  const results: unknown[] = [];
  try {
    for (const url of urls) {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      try {
        await page.goto(url);
        await page.waitForFunction("document.body.dataset.result !== undefined", null, {
          timeout: 90_000,
        });
        const result = JSON.parse((await page.getAttribute("body", "data-result")) ?? "null");
        results.push({ ...result, errors });
      } catch (e) {
        results.push({ error: e instanceof Error ? e.message : String(e), errors });
      } finally {
        await page.close();
      }
    }
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(results));
}
