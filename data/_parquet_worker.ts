/**
 * The Parquet reader's helper thread (started by data/parquet_decode.ts's
 * {@link prefaultRows}): it touches every memory page of the byte ranges it
 * is sent, last page first, so that the kernel faults in (maps and zeroes)
 * only the pages it reaches before this thread does — the first touch of
 * X's fresh pages, ≈ 0.5 CPU-s at 10⁷ × 30 in f32, runs on the other core.
 *
 * A page is touched by `Atomics.compareExchange(cell, 0, 0)`: a write to
 * the page (so the kernel maps a page of its own) that stores 0 only where
 * the cell holds 0, so it never changes a value the reader wrote, however
 * the two threads interleave.
 *
 * Only a worker loads this module (it sets the worker's `onmessage`).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { PrefaultRequest } from "./parquet_decode.ts";

self.onmessage = (e: MessageEvent<PrefaultRequest>) => {
  const { memory, ranges } = e.data;
  const cells = new Int32Array(memory.buffer);
  for (const [start, end] of ranges) {
    const first = Math.ceil(start / 4096) * 4096;
    for (let p = Math.floor((end - 4) / 4096) * 4096; p >= first; p -= 4096) {
      Atomics.compareExchange(cells, p >> 2, 0, 0);
    }
  }
  self.postMessage("done");
};
