/**
 * The field delimiter of a delimited text file, detected from its first
 * lines ({@link detectDelimiter}), and how a delimiter is named in messages.
 *
 * @module
 */

/** The delimiters {@link detectDelimiter} chooses among. */
export const DELIMITER_CANDIDATES: readonly string[] = [",", "\t", ";", "|"];

function _countOutsideQuotes(line: string, ch: string): number {
  let n = 0, quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === ch && !quoted) n++;
  }
  return n;
}

/** How a delimiter is written in messages. */
export function delimiterName(d: string): string {
  return d === "\t" ? "tab" : JSON.stringify(d);
}

/**
 * The field delimiter of a delimited text file, from its first lines: the
 * one candidate ({@link DELIMITER_CANDIDATES}) that occurs (outside quotes)
 * in the header; when several do, the one that occurs as often, and at
 * least once, in the next line, if that settles it; then the one whose
 * fields, blanks trimmed, hold none of the others (tabs as padding in a
 * comma-separated file). A line with none is one column (","). Otherwise
 * the choice is ambiguous.
 *
 * @param header The first line.
 * @param next The second line, if any.
 * @returns The delimiter, or an error message naming the candidates.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { detectDelimiter } from "./delimiter.ts";
 * assert.equal(detectDelimiter("y;a;b", "1;2,5;3"), ";");
 * assert.equal(detectDelimiter("y\ta", undefined), "\t");
 * ```
 */
export function detectDelimiter(
  header: string,
  next: string | undefined,
): string | { error: string } {
  const counts = DELIMITER_CANDIDATES.map((d) => _countOutsideQuotes(header, d));
  const present = DELIMITER_CANDIDATES.filter((_, k) => counts[k] > 0);
  if (present.length === 0) return ",";
  if (present.length === 1) return present[0];
  let agree = present;
  if (next !== undefined) {
    agree = present.filter((d) =>
      _countOutsideQuotes(next, d) === counts[DELIMITER_CANDIDATES.indexOf(d)]
    );
    if (agree.length === 1) return agree[0];
  }
  // Still several: the one whose fields (blanks trimmed) hold none of the
  // others, e.g. "," for "y, a,\tb" (tabs as padding).
  const lines = next === undefined ? [header] : [header, next];
  const clean = agree.filter((d) =>
    lines.every((line) =>
      line.split(d).every((f) => {
        const t = f.replace(/^[ \t]+|[ \t]+$/g, "");
        return agree.every((o) => o === d || !t.includes(o));
      })
    )
  );
  if (clean.length === 1) return clean[0];
  return {
    error: `line 1: the delimiter is ambiguous: the header holds ${
      present.map(delimiterName).join(" and ")
    }; give it with --delimiter (the delimiter option in the API), e.g. --delimiter ${
      present[0] === "\t" ? "tab" : JSON.stringify(present[0])
    }`,
  };
}
