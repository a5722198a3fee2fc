/**
 * The demo page built once per state of the sources, however many test files
 * ask for it at the same time: the page tests run in parallel processes, and a
 * second `bundleWeb()` rewriting web/dist/ while a page loads its worker and
 * chunks from there made that page's workers fail. The first caller builds;
 * the others wait for its sizes (a stamp in the temporary directory, keyed by
 * a hash of every source file).
 *
 * @module
 */
import { join } from "node:path";
import { bundleWeb } from "../web/build.ts";
import { REPO_ROOT } from "./_serve.ts";

const _SKIP = new Set([".git", "node_modules", "out", "dist", "report", "tests", "notebooks"]);

async function _sourceHash(): Promise<string> {
  const parts: string[] = [];
  const walk = (dir: string) => {
    for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
      if (e.isDirectory && !_SKIP.has(e.name) && !e.name.startsWith(".")) walk(join(dir, e.name));
      else if (e.isFile && /\.(ts|html|css|json)$/.test(e.name)) {
        parts.push(e.name, Deno.readTextFileSync(join(dir, e.name)));
      }
    }
  };
  parts.push(REPO_ROOT); // another checkout builds its own web/dist/
  walk(REPO_ROOT);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.join("\0")));
  return Array.from(new Uint8Array(digest).slice(0, 12), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/**
 * `bundleWeb()`'s result, building web/dist/ only if no other process has
 * built it from the same sources.
 *
 * @returns Bytes by file name, as {@link bundleWeb} returns them.
 */
export async function webBuiltOnce(): Promise<Record<string, number>> {
  const dir = join(Deno.env.get("TMPDIR") ?? "/tmp", `tallmc_web_build_${await _sourceHash()}`);
  const stamp = join(dir, "sizes.json");
  const built = async (): Promise<Record<string, number> | null> => {
    try {
      const sizes = JSON.parse(await Deno.readTextFile(stamp));
      // A stamp whose files were removed since (a clean checkout) is stale.
      for (const f of ["app.js", "worker.js"]) await Deno.stat(join(REPO_ROOT, "web/dist", f));
      return sizes;
    } catch {
      return null;
    }
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    const done = await built();
    if (done !== null) return done;
    // A stamp left from a build whose files are gone: start over.
    if (await Deno.stat(stamp).then(() => true, () => false)) {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
    let builder = false;
    try {
      await Deno.mkdir(dir);
      builder = true;
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
    if (builder) {
      try {
        const sizes = await bundleWeb();
        await Deno.writeTextFile(`${stamp}.part`, JSON.stringify(sizes));
        await Deno.rename(`${stamp}.part`, stamp);
        return sizes;
      } catch (e) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        throw e;
      }
    }
    // Another process builds: wait for its stamp (a bundle takes well under 5 min).
    for (let waited = 0; waited < 300_000; waited += 250) {
      const ready = await built();
      if (ready !== null) return ready;
      await new Promise((r) => setTimeout(r, 250));
    }
    // The builder died: start again.
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  throw new Error("web/dist/ could not be built");
}
