/**
 * The row store's file format (the layout is in data/row_store.ts's module
 * comment): its types, constants, header encoding and checks, and the
 * fingerprint of the file a store was made from.
 *
 * @module
 */
import { sha256Hex } from "./_sha256.ts";

/** Identifies the file a row store was made from. */
export interface SourceFingerprint {
  /** Absolute path of the file. */
  path: string;
  /** Size in bytes. */
  size: number;
  /** Modification time, ms since the epoch (0 when the platform has none). */
  mtimeMs: number;
  /** Hex SHA-256 of the file's first and last 1 MiB (the whole file when smaller than 2 MiB). */
  digest: string;
}

/** What a writer states about the rows of a store. */
export interface RowStoreMeta {
  /** Number of columns d of X. */
  numCols: number;
  /** Cell type of X in the file (y and aux are always f64). */
  storage: "f32" | "f64";
  /** One name per column of X. */
  columnNames: string[];
  /** Name of the response column. */
  responseName: string;
  /** Name of an optional third per-row column (an offset, a number of trials); present iff the rows carry it. */
  auxName?: string;
  /** The Parquet/CSV file the store was made from. */
  source?: SourceFingerprint;
}

/** The header of a row store file. */
export interface RowStoreHeader extends RowStoreMeta {
  /** Number of rows n. */
  numRows: number;
  /** Bytes per row: d × (4 or 8) + 8 (+ 8 with aux). */
  rowBytes: number;
  /** Byte offset of row 0. */
  dataOffset: number;
  /** Format version. */
  version: number;
}

/** A block of rows handed to {@link writeRowStore}. */
export interface RowChunk {
  /** Number of rows in the block. */
  numRows: number;
  /** numRows × d values of X, row-major. */
  x: Float64Array | Float32Array;
  /** numRows responses. */
  y: Float64Array;
  /** numRows values of the aux column (required iff the meta names one). */
  aux?: Float64Array;
}

export const MAGIC = "TALLMCRS";
export const VERSION = 1;
export const PAGE = 4096;
export const FINGERPRINT_SPAN = 1 << 20;
/** Staging size of range reads; ranges larger than this are read in pieces. */
export const STAGING_BYTES = 1 << 22;
/** Rows apart that a gather still reads in one call (reading the gap is cheaper than a seek). */
export const GATHER_GAP_BYTES = 1 << 14;
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function rowBytesOf(meta: Pick<RowStoreMeta, "numCols" | "storage" | "auxName">): number {
  return meta.numCols * (meta.storage === "f32" ? 4 : 8) + 8 + (meta.auxName !== undefined ? 8 : 0);
}

export function readFully(
  file: Deno.FsFile,
  buf: Uint8Array,
  position: number,
  what: string,
): void {
  file.seekSync(position, Deno.SeekMode.Start);
  let got = 0;
  while (got < buf.length) {
    const k = file.readSync(buf.subarray(got));
    if (k === null || k === 0) {
      throw new Error(
        `${what}: expected ${buf.length} bytes at offset ${position}, the file ended after ${got}`,
      );
    }
    got += k;
  }
}

export function fingerprintSync(path: string): SourceFingerprint {
  const abs = Deno.realPathSync(path);
  const stat = Deno.statSync(abs);
  const size = stat.size;
  const file = Deno.openSync(abs, { read: true });
  let parts: Uint8Array[];
  try {
    if (size <= 2 * FINGERPRINT_SPAN) {
      parts = [new Uint8Array(size)];
      readFully(file, parts[0], 0, abs);
    } else {
      parts = [new Uint8Array(FINGERPRINT_SPAN), new Uint8Array(FINGERPRINT_SPAN)];
      readFully(file, parts[0], 0, abs);
      readFully(file, parts[1], size - FINGERPRINT_SPAN, abs);
    }
  } finally {
    file.close();
  }
  return { path: abs, size, mtimeMs: stat.mtime?.getTime() ?? 0, digest: sha256Hex(parts) };
}

/**
 * Fingerprint a file: its absolute path, size, modification time and a SHA-256
 * of its first and last MiB (the whole file when it is at most 2 MiB).
 *
 * @param path The file.
 * @returns Its fingerprint, for {@link RowStoreMeta.source}.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fingerprintFile } from "./row_store.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "abc");
 * const f = await fingerprintFile(path);
 * assert.equal(f.size, 3);
 * assert.equal(f.digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
 * await Deno.remove(path);
 * ```
 */
export function fingerprintFile(path: string): Promise<SourceFingerprint> {
  return Promise.resolve().then(() => fingerprintSync(path));
}

export function checkMeta(meta: RowStoreMeta): void {
  const d = meta.numCols;
  if (!Number.isInteger(d) || d < 1) {
    throw new RangeError(`numCols must be a positive integer, got ${d}`);
  }
  if (meta.storage !== "f32" && meta.storage !== "f64") {
    throw new RangeError(`storage must be "f32" or "f64", got ${JSON.stringify(meta.storage)}`);
  }
  if (!Array.isArray(meta.columnNames) || meta.columnNames.length !== d) {
    throw new RangeError(
      `columnNames must have numCols = ${d} names, got ${meta.columnNames?.length}`,
    );
  }
}

export async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) done += await file.write(bytes.subarray(done));
}

export function encodeHeader(header: RowStoreHeader): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(header.dataOffset);
  if (16 + json.length > out.length) throw new Error("header does not fit (internal)");
  out.set(new TextEncoder().encode(MAGIC), 0);
  const v = new DataView(out.buffer);
  v.setUint32(8, header.version, true);
  v.setUint32(12, header.dataOffset, true);
  out.set(json, 16);
  return out;
}
