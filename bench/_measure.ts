/**
 * Measuring helpers shared by the benches that compare passes in alternating
 * rounds: CPU time of a call (user + system of this process, so that time
 * slices lost to other processes on a shared machine do not count), the
 * median of a list and the load average to print beside the numbers.
 *
 * @module
 */

import process from "node:process";

/**
 * CPU milliseconds (user + system of this process) of `reps` calls of `fn`.
 *
 * @param fn What to time.
 * @param reps Calls (default 1).
 * @returns The CPU milliseconds of all the calls together.
 */
export function cpuMs(fn: () => unknown, reps = 1): number {
  const u = process.cpuUsage();
  for (let r = 0; r < reps; r++) fn();
  const v = process.cpuUsage(u);
  return (v.user + v.system) / 1000;
}

/**
 * The median of a non-empty list (the upper one of the two middle values of
 * an even-length list).
 *
 * @param a The values.
 * @returns Their median.
 */
export function median(a: readonly number[]): number {
  const s = [...a].sort((u, v) => u - v);
  return s[Math.floor(s.length / 2)];
}

/**
 * The 1-minute load average with one decimal, or "?" without
 * `--allow-sys=loadavg`.
 *
 * @returns The load average as text.
 */
export function loadAverage(): string {
  try {
    return Deno.loadavg()[0].toFixed(1);
  } catch {
    return "?";
  }
}
