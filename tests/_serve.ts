/**
 * Test helpers: the repository's root, the marked code blocks of the README and docs/, and
 * the static server of `web/static_server.ts`.
 *
 * @module
 */
import { join, normalize } from "node:path";
export { serveDirectory, type StaticServer } from "../web/static_server.ts";

/** The repository's root directory. */
export const REPO_ROOT: string = normalize(new URL("..", import.meta.url).pathname);

/**
 * The fenced code block that follows `<!-- marker -->` in the README or, if
 * not there, in one of the guides in docs/.
 *
 * @param marker The HTML comment's text.
 * @returns The block's code.
 */
export async function readmeBlock(marker: string): Promise<string> {
  const guides = [...Deno.readDirSync(join(REPO_ROOT, "docs"))]
    .filter((e) => e.isFile && e.name.endsWith(".md"))
    .map((e) => join("docs", e.name))
    .sort();
  let text = "", at = -1;
  for (const f of ["README.md", ...guides]) {
    text = await Deno.readTextFile(join(REPO_ROOT, f));
    at = text.indexOf(`<!-- ${marker} -->`);
    if (at >= 0) break;
  }
  if (at < 0) throw new Error(`neither README.md nor docs/*.md has a <!-- ${marker} --> block`);
  const match = /```[a-z ]*\n([\s\S]*?)```/.exec(text.slice(at));
  if (match === null) throw new Error(`no code block after <!-- ${marker} -->`);
  return match[1];
}
