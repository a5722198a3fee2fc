/**
 * A Parquet file behind a byte-range buffer ({@link parquetFileReader}),
 * without the Parquet library: what the reader's decoding thread
 * (data/_parquet_worker.ts) needs to read a file.
 *
 * @module
 */
import type { AsyncBuffer } from "npm:hyparquet@1.31.5";

/**
 * An AsyncBuffer over a file: each slice is one seek and read, serialised so
 * that concurrent requests do not interleave their seeks. (Apart from
 * data/parquet_source.ts so that the reader's decoding thread,
 * data/_parquet_worker.ts, does not load the Parquet library: its modules
 * cost a starting thread ≈ 50 ms.)
 *
 * @param path The file.
 * @param where The prefix of error messages.
 * @returns The buffer, `readInto` and `close`.
 */
export async function parquetFileReader(
  path: string | URL,
  where: string,
): Promise<
  {
    buffer: AsyncBuffer;
    close(): void;
    readInto(start: number, out: Uint8Array): Promise<void>;
    /** The file's size, modification time and identity when opened. */
    info: Deno.FileInfo;
  }
> {
  const handle = await Deno.open(path, { read: true });
  const info = await handle.stat();
  const size = info.size;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  /** Whether reads go through a scratch buffer (a shared memory the read cannot target). */
  let viaScratch = false;
  let scratch = new Uint8Array(0);
  const fill = async (start: number, out: Uint8Array): Promise<void> => {
    if (closed) throw new Error(`${where}the file was closed while it was being read`);
    await handle.seek(start, Deno.SeekMode.Start);
    for (let off = 0; off < out.length;) {
      let got: number | null;
      if (viaScratch) {
        const want = Math.min(out.length - off, 1 << 22);
        if (scratch.length < want) scratch = new Uint8Array(want);
        got = await handle.read(scratch.subarray(0, want));
        if (got !== null) out.set(scratch.subarray(0, got), off);
      } else {
        try {
          got = await handle.read(out.subarray(off));
        } catch (e) {
          if (!(e instanceof TypeError) || !(out.buffer instanceof SharedArrayBuffer)) throw e;
          viaScratch = true;
          continue;
        }
      }
      if (got === null) {
        throw new Error(
          `${where}the file ended at byte ${start + off}, before byte ${
            start + out.length
          } that its footer points to (it was truncated or changed while being read)`,
        );
      }
      off += got;
    }
  };
  const read = async (start: number, end: number): Promise<ArrayBuffer> => {
    const out = new Uint8Array(end - start);
    await fill(start, out);
    return out.buffer;
  };
  return {
    info,
    readInto(start: number, out: Uint8Array): Promise<void> {
      const p = queue.then(() => fill(start, out));
      queue = p.catch(() => {});
      return p;
    },
    buffer: {
      byteLength: size,
      slice(start: number, end?: number): Promise<ArrayBuffer> {
        const stop = Math.min(end ?? size, size);
        const p = queue.then(() => read(start, Math.max(start, stop)));
        queue = p.catch(() => {});
        return p;
      },
    },
    close() {
      if (!closed) {
        closed = true;
        handle.close();
      }
    },
  };
}
