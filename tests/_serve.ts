/**
 * Test helpers: the repository's root, the README's marked code blocks, and
 * the static server of `web/static_server.ts`.
 *
 * @module
 */
import { join, normalize } from "node:path";
export { serveDirectory, type StaticServer } from "../web/static_server.ts";

/** The repository's root directory. */
export const REPO_ROOT: string = normalize(new URL("..", import.meta.url).pathname);

/**
 * The fenced code block that follows `<!-- marker -->` in the README.
 *
 * @param marker The HTML comment's text.
 * @returns The block's code.
 */
export async function readmeBlock(marker: string): Promise<string> {
  const text = await Deno.readTextFile(join(REPO_ROOT, "README.md"));
  const at = text.indexOf(`<!-- ${marker} -->`);
  if (at < 0) throw new Error(`README.md has no <!-- ${marker} --> block`);
  const match = /```[a-z ]*\n([\s\S]*?)```/.exec(text.slice(at));
  if (match === null) throw new Error(`no code block after <!-- ${marker} -->`);
  return match[1];
}
