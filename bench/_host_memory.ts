/**
 * The guest's side of the host's memory reclaim, for bench/time_to_posterior.ts:
 * how much free memory a Linux guest has reported to its host (free page
 * reporting), where its kernel counts it, and an idle that says how much it
 * reported meanwhile.
 *
 * @module
 */

/**
 * Where a Linux guest whose kernel counts it says how much free memory it
 * has reported to the host so far, in KiB.
 */
export const REPORTED_KIB = "/sys/module/page_reporting/parameters/reported_kib";

/**
 * The count at `path`, in KiB.
 *
 * @param path The count's file (default {@link REPORTED_KIB}).
 * @returns The count, or null where there is no such file, it cannot be
 *   read, or it does not hold a non-negative number.
 */
export function reportedKib(path: string = REPORTED_KIB): number | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(path).trim();
  } catch {
    return null;
  }
  const v = text === "" ? NaN : Number(text);
  return Number.isFinite(v) && v >= 0 ? v : null;
}

/**
 * Idle for `seconds` (the host takes back what the last run freed).
 *
 * @param seconds The idle (0: none).
 * @param path The count's file (default {@link REPORTED_KIB}).
 * @returns MB (2²⁰ bytes) the guest reported free to the host meanwhile, or
 *   null where its kernel does not count them.
 */
export async function settle(seconds: number, path: string = REPORTED_KIB): Promise<number | null> {
  const before = reportedKib(path);
  if (seconds > 0) await new Promise((r) => setTimeout(r, seconds * 1000));
  const after = reportedKib(path);
  return before === null || after === null ? null : Math.max(0, after - before) / 1024;
}
