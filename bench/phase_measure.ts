/**
 * The bookkeeping of a benchmark run phase by phase: wall time and peak
 * resident memory per phase ({@link runPhase}, {@link PeakMemory}), and one
 * printed line per phase ({@link printPhase}). Used by bench/tall_data.ts and
 * bench/time_to_posterior.ts.
 *
 * Peak memory is the kernel's VmHWM (/proc/self/status), reset at the start
 * of each phase through /proc/self/clear_refs, where readable (Linux, with
 * every permission); elsewhere the largest RSS sampled between chunks. V8's
 * `gc()`, when exposed (`--v8-flags=--expose-gc`), runs before each phase.
 *
 * @module
 */

/** What one phase measured. */
export interface PhaseResult {
  /** Phase name. */
  phase: string;
  /** Number of rows. */
  n: number;
  /** Wall-clock seconds. */
  seconds: number;
  /** Peak resident memory during the phase, bytes. */
  peakRssBytes: number;
  /** Size of the file the phase wrote, bytes (if any). */
  fileBytes?: number;
  /** Rows the phase handled, when not n (a gather reads m rows per repeat). */
  rowsHandled?: number;
  /** Anything else worth printing. */
  note?: string;
}

/** Peak-memory bookkeeping: VmHWM where readable, else the largest RSS sampled. */
export class PeakMemory {
  #procOk: boolean;
  #sampled = 0;

  constructor() {
    this.#procOk = false;
    try {
      Deno.readTextFileSync("/proc/self/status");
      Deno.writeTextFileSync("/proc/self/clear_refs", "5");
      this.#procOk = true;
    } catch { /* not Linux, or not every permission: sample RSS */ }
  }

  /** Starts a phase: resets the high-water mark. */
  reset(): void {
    this.#sampled = Deno.memoryUsage().rss;
    if (this.#procOk) Deno.writeTextFileSync("/proc/self/clear_refs", "5");
  }

  /** Records the current RSS (call between chunks). */
  sample(): void {
    this.#sampled = Math.max(this.#sampled, Deno.memoryUsage().rss);
  }

  /** @returns The peak since {@link reset}, bytes. */
  peak(): number {
    this.sample();
    if (!this.#procOk) return this.#sampled;
    const m = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"));
    return m ? Number(m[1]) * 1024 : this.#sampled;
  }

  /** Whether the peak is the kernel's (VmHWM) rather than sampled. */
  get isKernelPeak(): boolean {
    return this.#procOk;
  }
}

/** Runs one phase with timing and peak memory. */
export async function runPhase(
  phase: string,
  n: number,
  mem: PeakMemory,
  fn: () => Promise<{ fileBytes?: number; rowsHandled?: number; note?: string } | void>,
): Promise<PhaseResult> {
  // Memory a previous phase dropped is not this phase's peak.
  (globalThis as { gc?: () => void }).gc?.();
  mem.reset();
  const t = performance.now();
  const r = (await fn()) ?? {};
  return {
    phase,
    n,
    seconds: (performance.now() - t) / 1000,
    peakRssBytes: mem.peak(),
    ...r,
  };
}

/** Bytes as GB (from 10⁹) or MB. */
export function fmtBytes(b: number): string {
  return b >= 1e9 ? `${(b / 1e9).toFixed(2)} GB` : `${(b / 1e6).toFixed(1)} MB`;
}

/** Prints one result line. */
export function printPhase(r: PhaseResult): void {
  console.log(
    [
      `n=${r.n.toExponential(0)}`.padEnd(8),
      r.phase.padEnd(30),
      `${r.seconds.toFixed(2)} s`.padStart(10),
      `${((r.rowsHandled ?? r.n) / r.seconds / 1e6).toFixed(2)}·10⁶ rows/s`.padStart(18),
      `peak RSS ${fmtBytes(r.peakRssBytes)}`.padStart(20),
      r.fileBytes !== undefined ? `file ${fmtBytes(r.fileBytes)}` : "",
      r.note ?? "",
    ].join("  "),
  );
}
