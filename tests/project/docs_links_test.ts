/**
 * Every reference in the docs and the code resolves to a file in this
 * repository: the relative Markdown links of README.md and docs/*.md (and
 * their `#anchors`, to a heading of the target), the repository paths they
 * name in backticks, and the `docs/architecture.md, "Section"` citations of
 * module comments; no source file cites a design or style document that is
 * not in the repository.
 *
 * References: docs/architecture.md, "Conventions".
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { REPO_ROOT } from "../_serve.ts";

/** Guides the documentation index lists ahead of their text; each may be absent. */
const LISTED_AHEAD = new Set<string>([]);
/** Top-level folders whose paths the docs name in backticks. */
const TREE = [
  "bench",
  "cli",
  "core",
  "data",
  "diagnostics",
  "docs",
  "engines",
  "math",
  "models",
  "random",
  "replicate",
  "samplers",
  "subsampling",
  "tests",
  "web",
];
const SKIP_DIRS = new Set([".git", "node_modules", "out", "dist", "report"]);
/** This file names the patterns it looks for. */
const SELF = "tests/project/docs_links_test.ts";

function _markdownFiles(): string[] {
  const docs = [...Deno.readDirSync(join(REPO_ROOT, "docs"))]
    .filter((e) => e.isFile && e.name.endsWith(".md"))
    .map((e) => `docs/${e.name}`)
    .sort();
  return ["README.md", ...docs];
}

function _sources(dir = REPO_ROOT): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    if (e.name.startsWith(".") || SKIP_DIRS.has(e.name)) continue;
    const path = join(dir, e.name);
    if (e.isDirectory) out.push(..._sources(path));
    else if (e.isFile && e.name.endsWith(".ts")) out.push(relative(REPO_ROOT, path));
  }
  return out.sort();
}

function _exists(rel: string): boolean {
  try {
    Deno.statSync(join(REPO_ROOT, rel));
    return true;
  } catch {
    return false;
  }
}

/** Markdown text without its fenced code blocks (links in code are not links). */
function _prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "");
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
function _slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/`/g, "").replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

function _anchors(rel: string): Set<string> {
  const text = _prose(Deno.readTextFileSync(join(REPO_ROOT, rel)));
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => _slug(m[1])));
}

function _headings(rel: string): Set<string> {
  const text = _prose(Deno.readTextFileSync(join(REPO_ROOT, rel)));
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1].trim()));
}

Deno.test("every relative link in README.md and docs/*.md resolves", () => {
  const bad: string[] = [];
  let count = 0;
  for (const file of _markdownFiles()) {
    const text = _prose(Deno.readTextFileSync(join(REPO_ROOT, file)));
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      count++;
      const [path, anchor] = target.split("#");
      const rel = path === "" ? file : normalize(join(dirname(file), path));
      if (!_exists(rel)) {
        if (!LISTED_AHEAD.has(rel)) bad.push(`${file}: ${target} (no file ${rel})`);
        continue;
      }
      if (anchor !== undefined && rel.endsWith(".md") && !_anchors(rel).has(anchor)) {
        bad.push(`${file}: ${target} (no heading #${anchor} in ${rel})`);
      }
    }
  }
  assert.ok(count > 20, `found only ${count} links`);
  assert.deepEqual(bad, []);
});

Deno.test("the repository paths README.md and docs/*.md name in backticks exist", () => {
  const pattern = new RegExp(`\`((?:${TREE.join("|")})/[A-Za-z0-9_./-]*\\.[a-z]+)\``, "g");
  const bad: string[] = [];
  for (const file of _markdownFiles()) {
    const text = Deno.readTextFileSync(join(REPO_ROOT, file));
    for (const m of text.matchAll(pattern)) {
      if (!_exists(m[1]) && !LISTED_AHEAD.has(m[1])) bad.push(`${file}: ${m[1]}`);
    }
  }
  assert.deepEqual(bad, []);
});

Deno.test("code cites only documents in the repository, and their sections exist", () => {
  // Built from parts so that this file does not match itself.
  const missing = new RegExp(`\\b(${"DESIGN"}|${"STYLE"})\\.md\\b`);
  const sections = _headings("docs/architecture.md");
  const bad: string[] = [];
  for (const file of _sources().filter((f) => f !== SELF)) {
    const text = Deno.readTextFileSync(join(REPO_ROOT, file));
    text.split("\n").forEach((line, i) => {
      if (missing.test(line)) bad.push(`${file}:${i + 1}: ${line.trim()}`);
    });
    // `docs/architecture.md, "A", "B" and "C"` (a citation may wrap onto the next line).
    const flat = text.replace(/\n\s*(\*|\/\/)\s*/g, " ");
    for (const m of flat.matchAll(/docs\/architecture\.md,?((?:\s*(?:,|and)?\s*"[^"\n]+")+)/g)) {
      for (const s of m[1].matchAll(/"([^"\n]+)"/g)) {
        if (!sections.has(s[1])) bad.push(`${file}: cites docs/architecture.md "${s[1]}"`);
      }
    }
    for (const m of text.matchAll(/\bdocs\/([a-z_]+\.md)\b/g)) {
      const rel = `docs/${m[1]}`;
      if (!_exists(rel) && !LISTED_AHEAD.has(rel)) bad.push(`${file}: cites ${rel}`);
    }
  }
  assert.deepEqual(bad, []);
});
