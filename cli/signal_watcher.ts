/**
 * A Web Worker that listens for SIGINT and SIGTERM on behalf of a thread
 * that may be busy in a synchronous sampling loop (where its own listeners
 * would never run): it stores the signal's number in a shared flag the loop
 * polls, and posts it for a thread that is awaiting.
 *
 * ```
 *  main ──SharedArrayBuffer(4)──► watcher: Deno.addSignalListener(SIGINT | SIGTERM)
 *  main ◄── { type: "ready" }
 *  signal → Atomics.store(flag, 0, 2 | 15) → main ◄── { type: "signal", name, number }
 * ```
 *
 * @module
 */
/// <reference lib="deno.worker" />

self.onmessage = (event: MessageEvent<SharedArrayBuffer>) => {
  const flag = new Int32Array(event.data);
  for (const [name, number] of [["SIGINT", 2], ["SIGTERM", 15]] as const) {
    try {
      Deno.addSignalListener(name, () => {
        if (Atomics.load(flag, 0) === 0) Atomics.store(flag, 0, number);
        self.postMessage({ type: "signal", name, number });
      });
    } catch {
      // a platform without this signal (SIGTERM on Windows)
    }
  }
  self.postMessage({ type: "ready" });
};
