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
 * - **decode** ({@link ParquetDecodeThread}): opens the file itself and,
 *   taking one row group after another from the load's shared counter (the
 *   calling thread takes the others), decodes each with a
 *   {@link ParquetArenaDecoder} in a region of the shared arena, checks and
 *   transposes it with the core's kernel straight into X and y
 *   ({@link parquetFastGroup}) and answers with the group's statistics.
 *
 * Only a worker loads this module (it sets the worker's `onmessage`).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { adoptWorkerCore, attachCore } from "../core/load.ts";
import { ParquetTransposer } from "../core/parquet_kernel.ts";
import { parquetFastGroup } from "./parquet_group.ts";
import {
  claimParquetGroup,
  type DecodeAnswer,
  type DecodeRequest,
  ParquetArenaDecoder,
  type PrefaultRequest,
} from "./parquet_decode.ts";
import type { OpenedParquet } from "./parquet_source.ts";
import type { FileMetaData } from "npm:hyparquet@1.31.5";
import { parquetFileReader } from "./parquet_file.ts";

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
  // type "open": start, then take row groups until none is left.
  let decoder: ParquetArenaDecoder | null = null;
  let transposer: ParquetTransposer | null = null;
  let onesPtr = 0;
  try {
    adoptWorkerCore(m.backend, true, m.module);
    const arena = attachCore(m.memory, { region: m.region, backend: m.backend });
    const file = await parquetFileReader(m.url ? new URL(m.path) : m.path, m.where);
    const o: OpenedParquet = {
      file: file.buffer,
      metadata: JSON.parse(m.metadata) as FileMetaData,
      where: m.where,
      close: file.close,
      names: [],
      types: [],
      readInto: file.readInto,
    };
    decoder = ParquetArenaDecoder.create(arena, o, m.columns, true);
    transposer = ParquetTransposer.create(arena, m.spec.numCols);
    if (m.spec.intercept) {
      onesPtr = arena.allocF32(Math.max(1, m.sizes.rows));
      arena.f32(onesPtr, m.sizes.rows).fill(1);
    }
    decoder?.reserve(m.sizes.span, m.sizes.decoded, m.sizes.page);
  } catch {
    decoder = null;
  }
  if (decoder === null || transposer === null) {
    self.postMessage({ type: "failed" } satisfies DecodeAnswer);
    return;
  }
  self.postMessage({ type: "ready" } satisfies DecodeAnswer);
  const w = m.work, d = m.spec.numCols;
  for (let i = claimParquetGroup(m.memory, w); i >= 0; i = claimParquetGroup(m.memory, w)) {
    let part = null;
    try {
      const cols = await decoder.read(w.groups[i]);
      if (cols !== null) {
        const n = w.rows[i], buf = m.memory.buffer;
        part = parquetFastGroup(
          cols,
          n,
          m.spec,
          transposer,
          w.xPtr + w.starts[i] * d * w.width,
          new Float64Array(buf, w.yPtr + w.starts[i] * 8, n),
          onesPtr === 0 ? null : new Float32Array(buf, onesPtr, n),
          w.plans[i],
        );
      }
    } catch {
      part = null; // the calling thread reads the group again
    }
    self.postMessage({ type: "group", i, part } satisfies DecodeAnswer);
  }
  self.postMessage({ type: "end" } satisfies DecodeAnswer);
};
