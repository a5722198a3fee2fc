/**
 * The messages between `deno task replicate` and its experiment workers
 * (`experiment_worker.ts`), and the error text both sides print.
 *
 * @module
 */
import process from "node:process";
import type { UnitRequest } from "./experiment.ts";

/**
 * Run the registered experiment `name`, or only its unit `unit` with `args`
 * (main → worker; the first message a worker gets).
 */
export interface ExperimentRequest {
  /** The experiment's short name in the registry. */
  readonly name: string;
  /** Reduced sizes. */
  readonly quick: boolean;
  /** Base seed. */
  readonly seed: number;
  /** Report directory. */
  readonly outDir: string;
  /** Run only this unit of the experiment (its key in `units`). */
  readonly unit?: string;
  /** The unit's arguments. */
  readonly args?: unknown;
}

/** The answer to a worker's `units` message (main → worker). */
export type UnitsReply =
  | { readonly kind: "units-done"; readonly results: unknown[] }
  | { readonly kind: "units-failed"; readonly error: string };

/**
 * A worker's message: a log line, units to run (the worker waits for the
 * {@link UnitsReply}), the result (a unit's: any value), or the error's text.
 */
export type ExperimentReply =
  | { readonly kind: "log"; readonly message: string }
  | { readonly kind: "units"; readonly requests: readonly UnitRequest[] }
  | {
    readonly kind: "result";
    readonly result: unknown;
    /** CPU seconds the worker's thread spent on the experiment, or null where unknown. */
    readonly cpuSeconds: number | null;
  }
  | { readonly kind: "error"; readonly error: string; readonly cpuSeconds: number | null };

/**
 * CPU seconds (user + system) the calling thread has used so far
 * (`process.threadCpuUsage`), or null where the runtime lacks it. A worker
 * runs on its own thread, so the difference of two readings inside it is
 * that experiment's CPU time (WebAssembly included; V8's background GC and
 * compiler threads excluded).
 *
 * @returns Seconds, or null.
 */
export function threadCpuSeconds(): number | null {
  const usage = (process as { threadCpuUsage?: () => { user: number; system: number } })
    .threadCpuUsage;
  if (typeof usage !== "function") return null;
  try {
    const u = usage.call(process);
    return (u.user + u.system) / 1e6;
  } catch {
    return null;
  }
}

/**
 * An error as the report shows it: "Name: message" on one line, then its
 * stack frames.
 *
 * @param e What was thrown.
 * @returns The text.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { errorText } from "./experiment_protocol.ts";
 * assert.match(errorText(new RangeError("bad\nvalue")), /^RangeError: bad value/);
 * ```
 */
export function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const head = `${e.name}: ${e.message}`.replace(/\s*\r?\n\s*/g, " ");
  const frames = (e.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l));
  return [head, ...frames.map((l) => l.trim())].join("\n");
}
