/**
 * Recognise binary files given where CSV text is expected, by their first
 * bytes: Parquet (`PAR1`), the row store (`TALLMCRS`, see
 * `data/row_store.ts`), a DuckDB database (`DUCK` at byte 8), and any other
 * file holding NUL bytes.
 *
 * @module
 */

/** The first 8 bytes of a row store (`MAGIC` in data/row_store.ts). */
const ROW_STORE_MAGIC = "TALLMCRS";

/**
 * What binary format `bytes` (a file's first bytes) start with, or null for
 * text.
 *
 * @param bytes The first bytes of a file (8 or more, or the whole file).
 * @returns A description such as `"a Parquet file (it starts with PAR1)"`, or null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { binaryKind } from "./file_kind.ts";
 * assert.match(binaryKind(new TextEncoder().encode("PAR1\0\0"))!, /Parquet/);
 * assert.equal(binaryKind(new TextEncoder().encode("y,x\n1,2\n")), null);
 * ```
 */
export function binaryKind(bytes: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 8));
  if (head.startsWith("PAR1")) {
    return "a Parquet file (it starts with the magic bytes PAR1)";
  }
  if (head === ROW_STORE_MAGIC) {
    return `a tallmc row store (it starts with the magic bytes ${ROW_STORE_MAGIC}, written by "tallmc convert … OUT.rows")`;
  }
  if (new TextDecoder("latin1").decode(bytes.subarray(8, 12)) === "DUCK") {
    return "a DuckDB database (it holds the magic bytes DUCK at byte 8)";
  }
  const probe = bytes.subarray(0, 4096);
  if (probe.includes(0)) return "a binary file (it holds NUL bytes)";
  return null;
}

/**
 * Whether the file at `path` is a row store: it starts with the row store's
 * magic bytes (false for standard input, "-", and for what is not a regular
 * file or cannot be read).
 *
 * @param path The file.
 * @returns True for a row store, whatever the file's name.
 */
export function isRowStoreFile(path: string): boolean {
  const head = path === "-" ? null : headBytes(path, 8);
  return head !== null && new TextDecoder("latin1").decode(head) === ROW_STORE_MAGIC;
}

/**
 * The first bytes of a regular file (nothing is read from a FIFO or a
 * device, which could block); null when it is not a regular file or cannot
 * be read.
 *
 * @param path The file.
 * @param n Bytes to read (default 4096).
 * @returns The bytes read, or null.
 */
export function headBytes(path: string, n = 4096): Uint8Array | null {
  try {
    if (!Deno.statSync(path).isFile) return null;
    using file = Deno.openSync(path, { read: true });
    const buf = new Uint8Array(n);
    let off = 0;
    while (off < n) {
      const k = file.readSync(buf.subarray(off));
      if (k === null || k === 0) break;
      off += k;
    }
    return buf.subarray(0, off);
  } catch {
    return null;
  }
}
