/**
 * A worker of the parallel CSV reader (data/_csv_parallel.ts): the segment
 * reader of data/_csv_segments.ts, answering the calling thread's messages
 * one at a time.
 *
 * Only a worker loads this module (it sets the worker's `onmessage`).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { CsvWorkerMessage } from "./_csv_parallel.ts";
import { csvSegmentReader } from "./_csv_segments.ts";

const handle = csvSegmentReader();

self.onmessage = (event: MessageEvent<CsvWorkerMessage>) => {
  const msg = event.data;
  try {
    const answer = handle(msg);
    if (answer !== null) self.postMessage(answer);
    if (msg.type === "close") self.close();
  } catch (e) {
    self.postMessage({
      type: "error",
      message: e instanceof Error ? e.message : String(e),
      placing: msg.type === "place",
    });
  }
};
