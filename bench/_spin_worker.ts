/**
 * A plain CPU loop in a worker: the two-thread reference the parallel
 * benchmarks report beside their own speedups (on a shared machine the two
 * cores may not both be free; this loop shows how free they were). Receives
 * a loop length, answers with a value that depends on every step.
 *
 * @module
 */
/// <reference lib="deno.worker" />
self.onmessage = (e: MessageEvent<number>) => {
  let x = 0.5;
  for (let i = 0; i < e.data; i++) x = 3.9 * x * (1 - x);
  self.postMessage(x);
};
