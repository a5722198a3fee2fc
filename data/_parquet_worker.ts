/**
 * The Parquet reader's worker threads (started by data/parquet_decode.ts):
 *
 * - **prefault** ({@link prefaultRows}): touches every memory page of the
 *   byte ranges it is sent, last page first, so that the kernel faults in
 *   (maps and zeroes) only the pages it reaches before this thread does —
 *   the first touch of X's fresh pages, ≈ 0.5 CPU-s at 10⁷ × 30 in f32,
 *   runs on the other core. A page is touched by
 *   `Atomics.compareExchange(cell, 0, 0)`: a write to the page (so the
 *   kernel maps a page of its own) that stores 0 only where the cell holds
 *   0, so it never changes a value the reader wrote, however the two
 *   threads interleave.
 * - **decode** ({@link ParquetDecodeThread}): opens the file itself and
 *   decodes the row groups it is asked for with a {@link ParquetArenaDecoder}
 *   in a region of the shared arena (two decoders, one per slot), answering
 *   with where each column lies; the calling thread checks and transposes
 *   them meanwhile.
 *
 * Only a worker loads this module (it sets the worker's `onmessage`).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { adoptWorkerCore, attachCore } from "../core/load.ts";
import {
  type DecodeAnswer,
  type DecodeRequest,
  ParquetArenaDecoder,
  type PrefaultRequest,
} from "./parquet_decode.ts";
import { type OpenedParquet, parquetFileReader } from "./parquet_source.ts";

let decoders: (ParquetArenaDecoder | null)[] = [];

self.onmessage = async (e: MessageEvent<PrefaultRequest | DecodeRequest>) => {
  const m = e.data;
  if (m.type === "prefault") {
    const cells = new Int32Array(m.memory.buffer);
    for (const [start, end] of m.ranges) {
      const first = Math.ceil(start / 4096) * 4096;
      for (let p = Math.floor((end - 4) / 4096) * 4096; p >= first; p -= 4096) {
        Atomics.compareExchange(cells, p >> 2, 0, 0);
      }
    }
    self.postMessage("done");
    return;
  }
  if (m.type === "open") {
    let answer: DecodeAnswer = { type: "ready" };
    try {
      adoptWorkerCore(m.backend, true, m.module);
      const arena = attachCore(m.memory, { region: m.region, backend: m.backend });
      const file = await parquetFileReader(m.url ? new URL(m.path) : m.path, m.where);
      const o: OpenedParquet = {
        file: file.buffer,
        metadata: m.metadata,
        where: m.where,
        close: file.close,
        names: [],
        types: [],
        readInto: file.readInto,
      };
      decoders = [0, 1].map(() => ParquetArenaDecoder.create(arena, o, m.columns, true));
      if (decoders.includes(null)) answer = { type: "failed" };
      for (const d of decoders) d?.reserve(m.sizes.span, m.sizes.decoded, m.sizes.page);
    } catch {
      answer = { type: "failed" };
    }
    self.postMessage(answer);
    return;
  }
  // type "read": row group g into slot's decoder.
  let cols: Map<string, ArrayLike<unknown>> | null = null;
  try {
    cols = (await decoders[m.slot]?.read(m.g)) ?? null;
  } catch {
    cols = null;
  }
  const answer: DecodeAnswer = {
    type: "group",
    g: m.g,
    columns: cols === null ? null : [...cols].map(([name, v]) => {
      const a = v as Float32Array | Float64Array | Int32Array;
      return {
        name,
        kind: a instanceof Float32Array ? "f32" : a instanceof Float64Array ? "f64" : "i32",
        ptr: a.byteOffset,
        length: a.length,
      };
    }),
  };
  self.postMessage(answer);
};
