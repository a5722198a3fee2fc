/**
 * The end of a `tallmc sample` run: chains in this thread under a stop
 * watch (signals, a failed write), keeping or discarding the draws file,
 * and what is reported on stdout and stderr with the exit code.
 *
 * @module
 */
import { _prepareSummary, summarize } from "../diagnostics/summary.ts";
import type { Model } from "../models/model.ts";
import { sampleChains, type SamplingResult } from "../samplers/driver.ts";
import type { SamplerDescription } from "../samplers/sampler.ts";
import type { DrawsFileWriter } from "./draws_writer.ts";
import type { CmdStanDrawsWriter } from "./cmdstan_writer.ts";
import { formatSummary, withNaturalScales } from "./summary_table.ts";
import type { SummaryRow } from "../diagnostics/summary.ts";
import { userMessage } from "./sample_flags.ts";
import { phaseMark } from "../samplers/_phase_marks.ts";

/** The default draws file or CmdStan's files. */
export type DrawsOutput = DrawsFileWriter | CmdStanDrawsWriter;

/** Thrown by a callback to end a synchronous chain when the run is stopped. */
export class Stopped extends Error {
  constructor() {
    super("the run was stopped");
  }
}

/**
 * SIGINT / SIGTERM, seen by a watcher worker (a synchronous sampling loop
 * never runs this thread's listeners) and a write failure, as one stop.
 */
export class StopWatch {
  readonly #flag = new Int32Array(new SharedArrayBuffer(4));
  readonly #worker: Worker | null;
  #listeners: [Deno.Signal, () => void][] = [];
  #failed = false;
  #resolve: () => void = () => {};
  /** Resolves on the first stop. */
  readonly promise: Promise<void>;

  private constructor(worker: Worker | null) {
    this.#worker = worker;
    this.promise = new Promise<void>((r) => (this.#resolve = r));
  }

  /**
   * A watcher for a thread that only awaits while the chains run (in
   * workers): its own signal listeners run, so no watcher worker is needed —
   * whose `new Worker` blocks the calling thread until the worker's runtime
   * exists (tens of ms on a busy machine).
   *
   * @returns The watcher, listening.
   */
  static onThisThread(): StopWatch {
    const watch = new StopWatch(null);
    for (const [name, number] of [["SIGINT", 2], ["SIGTERM", 15]] as const) {
      const listener = () => {
        if (Atomics.load(watch.#flag, 0) === 0) Atomics.store(watch.#flag, 0, number);
        watch.#resolve();
      };
      try {
        Deno.addSignalListener(name, listener);
        watch.#listeners.push([name, listener]);
      } catch {
        // a platform without this signal (SIGTERM on Windows)
      }
    }
    return watch;
  }

  /**
   * Start loading the watcher's worker, which listens for signals only once
   * {@link start} is given it: until then signals keep their default action.
   *
   * @returns The worker, or null in a runtime without workers.
   */
  static spawn(): Worker | null {
    try {
      return new Worker(new URL("./signal_watcher.ts", import.meta.url), { type: "module" });
    } catch {
      return null;
    }
  }

  /**
   * Start the watcher and wait until it listens.
   *
   * @param spawned A worker from {@link spawn} (loaded while other work ran), or
   *   undefined to spawn one now.
   */
  static async start(spawned?: Worker | null): Promise<StopWatch> {
    const worker = spawned === undefined ? StopWatch.spawn() : spawned;
    // No workers here: signals keep their default action.
    if (worker === null) return new StopWatch(null);
    const watch = new StopWatch(worker);
    await new Promise<void>((ready) => {
      worker.onmessage = (e: MessageEvent<{ type: string }>) => {
        if (e.data.type === "ready") ready();
        else watch.#resolve();
      };
      worker.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        ready();
      };
      worker.postMessage(watch.#flag.buffer);
    });
    return watch;
  }

  /** The number of the signal received (2 SIGINT, 15 SIGTERM), or 0. */
  get signal(): number {
    return Atomics.load(this.#flag, 0);
  }

  /** Whether a signal came or {@link trigger} was called. */
  get stopped(): boolean {
    return this.#failed || this.signal !== 0;
  }

  /** Stop for a reason other than a signal (a failed write). */
  trigger(): void {
    this.#failed = true;
    this.#resolve();
  }

  /** Stop listening (again: nothing). */
  close(): void {
    this.#worker?.terminate();
    for (const [name, listener] of this.#listeners.splice(0)) {
      Deno.removeSignalListener(name, listener);
    }
  }
}

/** The chains one after another in this thread, none started after a stop. */
export function sampleInThread(
  sampler: Parameters<typeof sampleChains>[0]["sampler"],
  model: Model,
  numChains: number,
  driver: Omit<Parameters<typeof sampleChains>[0], "sampler" | "model">,
  stopped: () => boolean,
): SamplingResult | null {
  let result: SamplingResult | null = null;
  for (let c = 0; c < numChains; c++) {
    if (stopped()) return null;
    // One chain per call: its own start, when the caller gave one per chain.
    const starts = (driver as { initialPositions?: readonly Float64Array[] }).initialPositions;
    const r = sampleChains({
      sampler,
      model,
      ...driver,
      ...(starts === undefined ? {} : { initialPositions: [starts[c]] }),
      chainIds: [c],
    });
    if (result === null) result = r;
    else {
      result.chains.push(...r.chains);
      result.draws.push(...r.draws);
      result.numChains = result.chains.length;
    }
  }
  return stopped() ? null : result;
}

/** After a run that failed: keep the draws it wrote (renamed into place), or remove the file. */
export function keepOrDiscard(writer: DrawsOutput): string {
  writer.flush();
  if (writer.rowsOnDisk === 0) {
    writer.discard();
    return "";
  }
  writer.commit();
  return `the ${writer.rowsOnDisk} draws made before are in ${writer.path}`;
}

/** "chain 0: 120, chain 1: 0, …" for every chain of the run. */
function _perChain(rows: [number, number][], numChains: number): string {
  const counts = new Map(rows);
  return Array.from({ length: numChains }, (_, c) => `chain ${c}: ${counts.get(c) ?? 0}`)
    .join(", ");
}

/** Report a failed write of --out (disk full): the rows on disk; exit code 2. */
export function reportWriteFailure(writer: DrawsOutput, numChains: number): number {
  const e = writer.failure!;
  const why = /no space left|os error 28|ENOSPC/i.test(e.message)
    ? "the disk is full"
    : `writing failed (${e.message})`;
  console.error(
    `tallmc: error: --out ${writer.path}: ${why}; the file holds the ${writer.rowsOnDisk} ` +
      `draws written before (${
        _perChain(writer.rowsOnDiskPerChain, numChains)
      }), ending on a whole row; the run was stopped`,
  );
  return 2;
}

/** A run ended by a signal or a failed write: keep what was made, say so, exit code. */
export function finishStopped(
  writer: DrawsOutput | null,
  signal: number,
  done: Map<number, number>,
  plan: { numChains: number; numWarmup: number; thin: number },
): number {
  if (writer !== null) {
    try {
      writer.commit();
    } catch (e) {
      console.error(
        `tallmc: error: --out ${writer.path}: cannot rename the draws into place: ${
          (e as Error).message
        }`,
      );
      return 2;
    }
  }
  if (writer?.failure != null) {
    const code = reportWriteFailure(writer, plan.numChains);
    if (signal === 0) return code;
  }
  if (signal === 0) return 2;
  const name = signal === 2 ? "SIGINT" : signal === 15 ? "SIGTERM" : `signal ${signal}`;
  const perChain: [number, number][] = writer !== null
    ? writer.rowsOnDiskPerChain
    : [...done.entries()].map(([c, it]) => [
      c,
      it > plan.numWarmup ? Math.ceil((it - plan.numWarmup) / plan.thin) : 0,
    ]);
  const total = perChain.reduce((s, [, n]) => s + n, 0);
  console.error(
    `tallmc: stopped by ${name}: ${total} draws kept (${_perChain(perChain, plan.numChains)})${
      writer !== null ? ` in ${writer.path}, ending on a whole row` : ""
    }`,
  );
  return 128 + signal;
}

/** "; column "x" has extreme values: standardise it" from the loader's warnings, or "". */
export function extremeColumnsHint(dataWarnings: readonly string[]): string {
  const columns = dataWarnings.flatMap((w) => {
    const m = /column ("[^"]*") has values up to/.exec(w) ??
      /the response ("[^"]*") reaches/.exec(w);
    return m === null ? [] : [m[1]];
  });
  if (columns.length === 0) return "";
  return `; ${columns.length === 1 ? "column" : "columns"} ${columns.join(", ")} ${
    columns.length === 1 ? "has" : "have"
  } extreme values (see the --data warnings): standardise or rescale ${
    columns.length === 1 ? "it" : "them"
  }`;
}

/** Divergences (as Stan reports them) and early stops on stderr; the exit code. */
export function report(
  result: SamplingResult,
  description: SamplerDescription,
  dataWarnings: readonly string[],
): number {
  let divergent = 0, warmupDivergent = 0, iterations = 0;
  for (const c of result.chains) {
    divergent += c.numDivergent.sampling;
    warmupDivergent += c.numDivergent.warmup;
    iterations += c.info.sampling.isDivergent?.length ?? 0;
  }
  if (divergent > 0) {
    console.error(
      `tallmc: warning: ${divergent} of ${iterations} (${
        (100 * divergent / Math.max(1, iterations)).toFixed(1)
      }%) sampling transitions ended with a divergence` +
        (warmupDivergent > 0 ? ` (and ${warmupDivergent} in warmup)` : "") +
        (divergent === iterations
          ? `: the chains never moved and the draws are not a posterior${
            extremeColumnsHint(dataWarnings) || "; try a smaller step size or --warmup"
          }`
          : ""),
    );
  } // warmup divergences alone: one note in the verdict block
  let code = 0;
  for (const c of result.chains) {
    if (c.stop === null) continue;
    code = 2;
    console.error(
      `tallmc: error: chain ${c.chainId} stopped at ${c.stop.phase} iteration ${c.stop.iteration}: ${
        userMessage(c.stop.reason, description)
      }; its ${c.numDraws} draws before the stop are kept`,
    );
  }
  return code;
}

/**
 * Prepares the summary while chains run in workers: once fewer chains
 * remain than there are workers (a core is idle), the calling thread, which
 * only waits, runs the summary's code on made-up draws of the run's shape
 * (diagnostics/summary.ts `_prepareSummary`), so the table printed after the
 * chains starts from compiled code. The printed numbers do not change.
 * `chainEnded` is called as each chain ends; `cancel` once the chains are done.
 */
export function summaryPreparer(
  numChains: number,
  numWorkers: number,
  drawsPerChain: number,
): { chainEnded(): void; cancel(): void } {
  let ended = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Chains run at once: one per worker, as many as there are cores.
  const running = Math.min(numWorkers, numChains, navigator.hardwareConcurrency || numWorkers);
  const idleAfter = numChains - running + 1;
  return {
    chainEnded() {
      if (numWorkers > 0 && ++ended === idleAfter && ended < numChains) {
        timer = setTimeout(() => {
          _prepareSummary(numChains, drawsPerChain);
          phaseMark("summary-prepared");
        }, 0);
        Deno.unrefTimer(timer); // never the reason the process stays alive
      }
    },
    cancel() {
      clearTimeout(timer);
    },
  };
}

/** The summary table, over the common length of the chains that made draws. */
export function printSummary(result: SamplingResult): SummaryRow[] | null {
  const chains = result.chains.filter((c) => c.numDraws > 0);
  const len = Math.min(...chains.map((c) => c.numDraws));
  if (chains.length === 0 || len < 4) {
    console.log("(too few draws for a summary)");
    return null;
  }
  try {
    const { draws, names } = withNaturalScales(
      chains.map((c) => c.draws.map((d) => d.subarray(0, len))),
      result.parameterNames,
    );
    const rows = summarize(draws, names);
    console.log(formatSummary(rows, 3));
    return rows;
  } catch (e) {
    console.error(`tallmc: warning: no summary: ${(e as Error).message}`);
    return null;
  }
}
