/**
 * The small Markdown subset the report uses in summaries, captions, comparison
 * lines and verdicts, rendered to HTML: inline `code`, **bold**, *italic*,
 * [links](url); in blocks also paragraphs (blank-line separated) and "- "
 * bullet lists. Everything else is escaped text.
 *
 * @module
 */

/**
 * Escape text for HTML element content and attribute values.
 *
 * @param text Any text.
 * @returns The text with `& < > " '` escaped.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { escapeHtml } from "./markup.ts";
 * assert.equal(escapeHtml("a < b & c"), "a &lt; b &amp; c");
 * ```
 */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/**
 * Inline Markdown (code, bold, italic, links) → HTML.
 *
 * @param text One line of Markdown.
 * @returns HTML.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { inlineMarkdown } from "./markup.ts";
 * assert.equal(inlineMarkdown("**ok** `x<1`"), "<strong>ok</strong> <code>x&lt;1</code>");
 * ```
 */
export function inlineMarkdown(text: string): string {
  const parts = text.split(/(`[^`]*`)/);
  return parts.map((p) => {
    if (p.length >= 2 && p.startsWith("`") && p.endsWith("`")) {
      return `<code>${escapeHtml(p.slice(1, -1))}</code>`;
    }
    let h = escapeHtml(p);
    h = h.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, t, u) => {
      const safe = /^(https?:|#|[\w./-]+$)/i.test(u) ? u : "#";
      return `<a href="${safe}">${t}</a>`;
    });
    h = h.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
    h = h.replace(/(^|[^*\w])\*([^*\s][^*]*)\*(?!\w)/g, "$1<em>$2</em>");
    return h;
  }).join("");
}

/**
 * Block Markdown (paragraphs and "- " lists of inline Markdown) → HTML.
 *
 * @param text Markdown paragraphs.
 * @returns HTML.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { blockMarkdown } from "./markup.ts";
 * assert.equal(blockMarkdown("- a\n- b"), "<ul><li>a</li><li>b</li></ul>");
 * ```
 */
export function blockMarkdown(text: string): string {
  const blocks = text.trim().split(/\n\s*\n/);
  return blocks.map((block) => {
    const lines = block.split("\n");
    if (lines.every((l) => /^\s*[-*] /.test(l) || /^\s{2,}\S/.test(l))) {
      const items: string[] = [];
      for (const l of lines) {
        if (/^\s*[-*] /.test(l)) items.push(l.replace(/^\s*[-*] /, ""));
        else items[items.length - 1] += " " + l.trim();
      }
      return `<ul>${items.map((i) => `<li>${inlineMarkdown(i)}</li>`).join("")}</ul>`;
    }
    return `<p>${inlineMarkdown(lines.join(" "))}</p>`;
  }).join("\n");
}
