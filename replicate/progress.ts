/**
 * Progress lines and event-loop yields for experiments whose samplers run
 * synchronously: without a yield between runs, pending writes to stderr
 * would appear only when the whole experiment ends.
 *
 * @module
 */
import type { ExperimentContext } from "./experiment.ts";

/**
 * Progress callback that logs every quarter of a run.
 *
 * @param context Where lines go.
 * @param label Prefix of every line.
 * @param total Iterations of one chain (warmup + sampling).
 * @returns An `onProgress(chain, iteration)` callback for the driver.
 */
export function progressLogger(
  context: ExperimentContext,
  label: string,
  total: number,
): (chain: number, iteration: number) => void {
  let last = -1;
  return (chain, it) => {
    const pct = Math.floor((4 * it) / total);
    if (pct !== last) {
      last = pct;
      context.log(`${label}: chain ${chain + 1}, ${it}/${total}`);
    }
  };
}

/**
 * Let pending I/O (progress lines) through between synchronous runs.
 *
 * @returns A promise that resolves on the next turn of the event loop.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
