/**
 * The papaparse plumbing of data/csv.ts: a {@link ChunkFeeder} that streams
 * text chunks through one Papa.Parser record by record, the line-break
 * detection it needs, and the byte count of the rows pre-pass. Internal to
 * data/.
 *
 * @module
 */
import Papa from "npm:papaparse@5.7.1";
import { detectDelimiter } from "./csv_checks.ts";

/** Where parsed records go (csv.ts's sink validates and stores them). */
export interface RecordSink {
  /** Takes one record's fields. */
  record(fields: string[]): void;
}

interface _PapaResult {
  data: string[][];
  meta: { cursor: number };
}
interface _PapaParser {
  parse(input: string, baseIndex: number, ignoreLastRow: boolean): _PapaResult;
}
type _PapaParserClass = new (config: {
  delimiter: string;
  newline: string;
  step: (result: _PapaResult) => void;
}) => _PapaParser;
const _Parser = (Papa as unknown as { Parser: _PapaParserClass }).Parser;

/** The line break used by `text`: "\r\n", "\n" or "\r" (null if none yet). */
export function detectNewline(text: string): string | null {
  const n = text.indexOf("\n"), r = text.indexOf("\r");
  if (n < 0 && r < 0) return null;
  if (r >= 0 && (n < 0 || r < n)) {
    return text[r + 1] === "\n" ? "\r\n" : r === text.length - 1 ? null : "\r";
  }
  return "\n";
}

/** Counts occurrences of a byte in a buffer. */
export function countByte(buf: Uint8Array, byte: number): number {
  let count = 0;
  for (let i = buf.indexOf(byte); i >= 0; i = buf.indexOf(byte, i + 1)) count++;
  return count;
}

/**
 * Streams text chunks through one Papa.Parser, carrying the unparsed tail of
 * each chunk (an incomplete record) into the next, as papaparse's own
 * ChunkStreamer does. Without a delimiter, the delimiter is detected from
 * the first two lines (`detectDelimiter` in csv_checks.ts).
 */
export class ChunkFeeder {
  #parser: _PapaParser | null = null;
  #partial = "";
  #base = 0;
  #delimiter: string | undefined;
  #sink: RecordSink;
  #where: string;

  constructor(delimiter: string | undefined, sink: RecordSink, where = "") {
    this.#delimiter = delimiter;
    this.#sink = sink;
    this.#where = where;
  }

  /** The delimiter in use (undefined until detected). */
  get delimiter(): string | undefined {
    return this.#delimiter;
  }

  feed(text: string, last: boolean): void {
    let aggregate = this.#partial + text;
    if (this.#parser === null) {
      const newline = detectNewline(aggregate);
      if (newline === null && !last) {
        this.#partial = aggregate;
        return;
      }
      if (this.#delimiter === undefined) {
        const start = aggregate.charCodeAt(0) === 0xfeff ? 1 : 0;
        const nl = newline ?? "\n";
        const end1 = aggregate.indexOf(nl, start);
        const end2 = end1 < 0 ? -1 : aggregate.indexOf(nl, end1 + nl.length);
        if (end2 < 0 && !last) {
          this.#partial = aggregate;
          return;
        }
        const header = aggregate.slice(start, end1 < 0 ? aggregate.length : end1);
        const next = end1 < 0
          ? undefined
          : aggregate.slice(end1 + nl.length, end2 < 0 ? aggregate.length : end2);
        const found = detectDelimiter(header, next);
        if (typeof found !== "string") throw new RangeError(`${this.#where}${found.error}`);
        this.#delimiter = found;
      }
      const sink = this.#sink;
      this.#parser = new _Parser({
        delimiter: this.#delimiter,
        newline: newline ?? "\n",
        step: (result) => sink.record(result.data[0]),
      });
      if (aggregate.charCodeAt(0) === 0xfeff) aggregate = aggregate.slice(1);
    }
    const result = this.#parser.parse(aggregate, this.#base, !last);
    if (!last) {
      this.#partial = aggregate.substring(result.meta.cursor - this.#base);
      this.#base = result.meta.cursor;
    } else {
      this.#partial = "";
    }
  }
}
