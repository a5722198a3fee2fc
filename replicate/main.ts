/**
 * `deno task replicate [--quick] [--out DIR] [--seed N] [names...]`: run the
 * replication experiments and write the report.
 *
 * Experiments run in `--jobs` parallel workers (default: one per logical
 * core), each in a fresh worker (`experiment_worker.ts`) so that its
 * WebAssembly memory is returned when it ends; the longest are started first.
 * Progress goes to stderr. The report is rewritten, in registry order, after
 * every experiment, so an interrupted run leaves the finished sections on
 * disk. An experiment that throws gets a section saying so, the others still
 * run, and the exit code is 1. With `--jobs 1`, and for experiments passed in
 * by an embedding (not the registry's), they run in-process one after another.
 *
 * Exit codes: 0 all ran, 1 an experiment failed (or the report could not be
 * written), 2 bad command line.
 *
 * @module
 */

import process from "node:process";
import { parseArgs } from "node:util";
import type { Experiment, ExperimentContext, ExperimentResult, UnitRequest } from "./experiment.ts";
import { formatDuration } from "./format.ts";
import { EXPERIMENTS, selectExperiments } from "./registry.ts";
import type { ExperimentReply, ExperimentRequest, UnitsReply } from "./experiment_protocol.ts";
import { errorText, threadCpuSeconds } from "./experiment_protocol.ts";
import { type ExperimentOutcome, machineInfo, validateResult, writeReport } from "./report.ts";

/** Default report directory. */
export const DEFAULT_OUT_DIR = "out/replicate";
/** Default base seed. */
export const DEFAULT_SEED = 20190101;

/** Parsed command line of {@link runReplicate}. */
export interface ReplicateArgs {
  /** Run the reduced versions. */
  readonly quick: boolean;
  /** Report directory. */
  readonly outDir: string;
  /** Base seed. */
  readonly seed: number;
  /** Experiment names (empty = all). */
  readonly names: readonly string[];
  /** Print the experiments and exit. */
  readonly list: boolean;
  /** Print usage and exit. */
  readonly help: boolean;
  /** Experiments run at once, each in its own worker (≥ 1). */
  readonly jobs: number;
}

/** Default `--jobs`: one per logical core. */
export function defaultJobs(): number {
  return Math.max(1, navigator.hardwareConcurrency || 1);
}

/**
 * Each experiment's critical path in CPU seconds: its own sequential work
 * plus its longest unit (units run beside it), full and quick. Experiments
 * start in this order (longest first; unknown names last, in registry order),
 * and an experiment's units with its priority, so that the longest chains
 * start first and a started chain is not left waiting. Full: measured idle in
 * docs/replication.md ("The last measured runs"; R0 and R16 as in "Less CPU
 * for the full run"); quick: measured under load in docs/replication.md
 * ("Quick mode: R4 off the critical path"; only their order matters).
 */
const _DURATION_HINT: Record<string, { full: number; quick: number }> = {
  r4: { full: 420, quick: 16 },
  r15: { full: 150, quick: 2.4 },
  r2: { full: 216, quick: 5 },
  r1: { full: 135, quick: 5.9 },
  r5: { full: 112, quick: 2 },
  r0: { full: 65, quick: 1.9 },
  r9: { full: 56, quick: 2.1 },
  r10: { full: 95, quick: 2.6 },
  r16: { full: 74, quick: 1.6 },
  r11: { full: 87, quick: 4.2 },
  r7: { full: 56, quick: 2.3 },
  r8: { full: 64, quick: 7.5 },
  r12: { full: 46, quick: 5 },
  r17: { full: 46, quick: 1.3 },
  r13: { full: 43, quick: 5.5 },
  r6: { full: 23, quick: 3.6 },
  r3: { full: 12, quick: 3.5 },
  r14: { full: 0.1, quick: 0.03 },
};

function _durationHint(name: string, quick: boolean): number {
  const h = _DURATION_HINT[name];
  return h === undefined ? 0 : quick ? h.quick : h.full;
}

/** Options of {@link runReplicate} (for embedding and tests). */
export interface RunReplicateOptions {
  /** The experiments to choose from (default: the registry). */
  experiments?: readonly Experiment[];
  /** How the command is shown in usage and in the report (default "deno task replicate"). */
  commandName?: string;
  /** Where normal output (--help, --list) goes (default: stdout). */
  stdout?: (line: string) => void;
  /** Where progress and errors go (default: stderr). */
  stderr?: (line: string) => void;
}

/** A command-line mistake; {@link runReplicate} prints it and returns 2. */
export class UsageError extends Error {
  /**
   * Create a usage error.
   *
   * @param message What was wrong, naming the bad value.
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * The usage text.
 *
 * @param commandName How the command is invoked.
 * @param experiments The experiments to list.
 * @returns Multi-line help.
 */
export function replicateUsage(
  commandName = "deno task replicate",
  experiments: readonly Experiment[] = EXPERIMENTS,
): string {
  return [
    `Usage: ${commandName} [--quick] [--out DIR] [--seed N] [NAME...]`,
    "",
    "Run the paper-replication experiments and write report.md, report.html,",
    "one CSV per table and one SVG per figure into DIR.",
    "",
    "Options:",
    "  --quick     run reduced sizes (minutes instead of hours)",
    `  --out DIR   report directory (default ${DEFAULT_OUT_DIR})`,
    `  --seed N    base seed, a non-negative integer (default ${DEFAULT_SEED})`,
    "  --jobs N    experiments run at once, each in its own worker",
    `              (default ${defaultJobs()}: one per logical core)`,
    "  --list      list the experiments and exit",
    "  -h, --help  show this help and exit",
    "",
    `Experiments (default: all): ${experiments.map((e) => e.name).join(", ")}`,
  ].join("\n");
}

/**
 * Parse the command line of {@link runReplicate}.
 *
 * @param args Arguments after the command.
 * @returns The parsed arguments (names are not checked against the registry here).
 * @throws UsageError for an unknown option, a missing value or a bad seed.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { parseReplicateArgs } from "./main.ts";
 * const a = parseReplicateArgs(["--quick", "--seed", "7", "r0"]);
 * assert.ok(a.quick);
 * assert.equal(a.seed, 7);
 * assert.deepEqual(Array.from(a.names), ["r0"]);
 * ```
 */
export function parseReplicateArgs(args: readonly string[]): ReplicateArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        quick: { type: "boolean", default: false },
        out: { type: "string" },
        seed: { type: "string" },
        jobs: { type: "string" },
        list: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const v = parsed.values;
  let seed = DEFAULT_SEED;
  if (v.seed !== undefined) {
    seed = /^\d+$/.test(v.seed) ? Number(v.seed) : NaN;
    if (!Number.isSafeInteger(seed)) {
      throw new UsageError(`--seed must be a non-negative integer, got ${JSON.stringify(v.seed)}`);
    }
  }
  let jobs = defaultJobs();
  if (v.jobs !== undefined) {
    jobs = /^\d+$/.test(v.jobs) ? Number(v.jobs) : NaN;
    if (!Number.isSafeInteger(jobs) || jobs < 1) {
      throw new UsageError(`--jobs must be a positive integer, got ${JSON.stringify(v.jobs)}`);
    }
  }
  if (v.out !== undefined && v.out.trim() === "") {
    throw new UsageError(`--out must be a directory path, got ${JSON.stringify(v.out)}`);
  }
  return {
    quick: v.quick ?? false,
    outDir: v.out ?? DEFAULT_OUT_DIR,
    seed,
    names: parsed.positionals,
    list: v.list ?? false,
    help: v.help ?? false,
    jobs,
  };
}

const _errorText = errorText;

/**
 * `jobs` slots for work that uses a core: an experiment's worker while it
 * computes, and each of its units. Waiting work is started highest
 * priority first (ties: first come), so the longest work starts first.
 */
class _Slots {
  #free: number;
  #seq = 0;
  readonly #queue: { priority: number; seq: number; start: () => void }[] = [];

  constructor(jobs: number) {
    this.#free = jobs;
  }

  /** Wait for a slot. */
  acquire(priority: number): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((start) => {
      this.#queue.push({ priority, seq: this.#seq++, start });
      this.#queue.sort((a, b) => b.priority - a.priority || a.seq - b.seq);
    });
  }

  /** Give a slot back (to the next waiting work, if any). */
  release(): void {
    const next = this.#queue.shift();
    if (next !== undefined) next.start();
    else this.#free++;
  }
}

/** What a worker run produced: the result or the error, and the CPU seconds of its threads. */
interface _WorkerOutcome {
  result?: unknown;
  error?: string;
  cpuSeconds: number | null;
}

/**
 * Run one registered experiment (or one of its units) in a fresh worker; its
 * log lines go to `log`. An experiment's `units` messages are answered by
 * `onUnits` (the worker waits meanwhile).
 */
function _runInWorker(
  request: ExperimentRequest,
  log: (message: string) => void,
  onUnits: (requests: readonly UnitRequest[]) => Promise<unknown[]>,
): Promise<_WorkerOutcome> {
  return new Promise((resolve) => {
    const worker = new Worker(new URL("./experiment_worker.ts", import.meta.url), {
      type: "module",
    });
    const done = (out: _WorkerOutcome) => {
      worker.terminate();
      resolve(out);
    };
    worker.onmessage = (event: MessageEvent<ExperimentReply>) => {
      const m = event.data;
      if (m.kind === "log") log(m.message);
      else if (m.kind === "units") {
        onUnits(m.requests).then(
          (results) => worker.postMessage({ kind: "units-done", results } satisfies UnitsReply),
          (err) =>
            worker.postMessage(
              { kind: "units-failed", error: _errorText(err).split("\n")[0] } satisfies UnitsReply,
            ),
        );
      } else if (m.kind === "result") done({ result: m.result, cpuSeconds: m.cpuSeconds });
      else done({ error: m.error, cpuSeconds: m.cpuSeconds });
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      done({
        error: `Error: the experiment's worker failed: ${event.message}`,
        cpuSeconds: null,
      });
    };
    worker.postMessage(request);
  });
}

/** CPU seconds (user, system) of this process and its workers so far (getrusage), or null. */
export function processCpuSeconds(): { user: number; system: number } | null {
  try {
    const u = process.cpuUsage();
    return { user: u.user / 1e6, system: u.system / 1e6 };
  } catch {
    return null;
  }
}

function _quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * Run the replication command: parse `args`, run the chosen experiments,
 * write the report. Never calls `Deno.exit`; returns the exit code.
 *
 * @param args Command-line arguments (after the command name).
 * @param options Registry, output sinks and command name (for embedding/tests).
 * @returns 0 if every experiment ran, 1 if one failed or the report could not
 *   be written, 2 for a bad command line.
 * @example
 * ```ts ignore
 * import { runReplicate } from "./main.ts";
 * Deno.exit(await runReplicate(["--quick", "r0"]));
 * ```
 */
export async function runReplicate(
  args: readonly string[],
  options: RunReplicateOptions = {},
): Promise<number> {
  const experiments = options.experiments ?? EXPERIMENTS;
  const commandName = options.commandName ?? "deno task replicate";
  const stdout = options.stdout ?? ((line: string) => console.log(line));
  const stderr = options.stderr ?? ((line: string) => console.error(line));

  let parsed: ReplicateArgs, chosen: Experiment[];
  try {
    parsed = parseReplicateArgs(args);
    if (parsed.help) {
      stdout(replicateUsage(commandName, experiments));
      return 0;
    }
    if (parsed.list) {
      const width = Math.max(0, ...experiments.map((e) => e.name.length));
      for (const e of experiments) stdout(`${e.name.padEnd(width)}  ${e.title}  [${e.source}]`);
      return 0;
    }
    try {
      chosen = selectExperiments(parsed.names, experiments);
    } catch (e) {
      throw new UsageError(e instanceof Error ? e.message : String(e));
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    stderr(`error: ${e.message} (see --help)`);
    return 2;
  }

  const info = {
    date: new Date(),
    commandLine: [commandName, ...args.map(_quote)].join(" "),
    quick: parsed.quick,
    seed: parsed.seed,
    machine: machineInfo(),
  };
  try {
    await Deno.mkdir(parsed.outDir, { recursive: true });
  } catch (err) {
    stderr(
      `error: cannot create the report directory ${parsed.outDir}: ${
        _errorText(err).split("\n")[0]
      }`,
    );
    return 1;
  }
  const t0 = performance.now();
  const inWorkers = options.experiments === undefined && parsed.jobs > 1;
  // Not capped by the number of experiments: their units use the other slots.
  const jobs = inWorkers ? parsed.jobs : 1;
  const finished: (ExperimentOutcome | undefined)[] = chosen.map(() => undefined);
  let failed = 0;
  stderr(
    `replicate: ${chosen.length} experiment(s), ${
      parsed.quick ? "quick" : "full"
    } mode, seed ${parsed.seed}, ${jobs} at once${
      inWorkers ? " in workers" : ""
    }, report in ${parsed.outDir}`,
  );
  let writing: Promise<unknown> = Promise.resolve();
  let writeFailed: string | null = null;
  const write = (final: boolean) => {
    writing = writing.then(async () => {
      if (writeFailed !== null) return;
      try {
        const written = await writeReport(finished.filter((o) => o !== undefined), {
          outDir: parsed.outDir,
          info: { ...info, wallSeconds: (performance.now() - t0) / 1000 },
        });
        if (final) {
          for (const w of written.warnings) stderr(`replicate: warning: ${w}`);
          for (const p of written.problems) stderr(`replicate: ${p}`);
          if (written.problems.length > 0) failed++;
          stderr(`replicate: report written to ${written.markdownPath} and ${written.htmlPath}`);
        }
      } catch (err) {
        writeFailed = _errorText(err).split("\n")[0];
      }
    });
    return writing;
  };
  const slots = new _Slots(jobs);
  let started = 0;
  const runOne = async (k: number): Promise<void> => {
    const e = chosen[k];
    const hint = _durationHint(e.name, parsed.quick);
    if (inWorkers) await slots.acquire(hint);
    if (writeFailed !== null) {
      if (inWorkers) slots.release();
      return;
    }
    stderr(`replicate: [${++started}/${chosen.length}] ${e.name}: ${e.title}`);
    const start = performance.now();
    const log = (message: string) =>
      stderr(`  ${e.name} +${((performance.now() - start) / 1000).toFixed(1)}s: ${message}`);
    let result: ExperimentResult | undefined, error: string | undefined;
    let cpuSeconds: number | null = null;
    if (inWorkers) {
      const request = {
        name: e.name,
        quick: parsed.quick,
        seed: parsed.seed,
        outDir: parsed.outDir,
      };
      let unitCpu: number | null = 0, numUnits = 0;
      // The experiment's worker waits while its units run: its slot goes to
      // them (and to other work), and it takes the next free slot, before any
      // waiting work, when they are all done.
      const onUnits = async (requests: readonly UnitRequest[]): Promise<unknown[]> => {
        slots.release();
        try {
          // A unit inherits its experiment's priority (the experiment's chain
          // waits for it), its own weight ordering it among its siblings; slots
          // are asked for largest unit first (free ones go in the order asked).
          const byWeight = requests.map((_, i) => i).sort((a, b) =>
            requests[b].weight - requests[a].weight || a - b
          );
          const slot = new Map(
            byWeight.map((i) => [i, slots.acquire(hint + requests[i].weight * 1e-6)]),
          );
          return await Promise.all(requests.map(async (r, i) => {
            await slot.get(i);
            const label = `${e.name}/${r.label}`;
            const unitStart = performance.now();
            stderr(`replicate: ${label} started (unit ${++numUnits} of ${e.name})`);
            try {
              const out = await _runInWorker(
                { ...request, unit: r.unit, args: r.args },
                (message) =>
                  stderr(
                    `  ${label} +${
                      ((performance.now() - unitStart) / 1000).toFixed(1)
                    }s: ${message}`,
                  ),
                () => Promise.reject(new Error("a unit cannot run units")),
              );
              unitCpu = unitCpu === null || out.cpuSeconds === null
                ? null
                : unitCpu + out.cpuSeconds;
              const cpuText = out.cpuSeconds === null
                ? ""
                : ` (CPU ${formatDuration(out.cpuSeconds)})`;
              const took = formatDuration((performance.now() - unitStart) / 1000);
              if (out.error !== undefined) {
                stderr(`replicate: ${label} FAILED after ${took}${cpuText}`);
                throw new Error(`unit ${r.label} of ${e.name}: ${out.error}`);
              }
              stderr(`replicate: ${label} done in ${took}${cpuText}`);
              return out.result;
            } finally {
              slots.release();
            }
          }));
        } finally {
          await slots.acquire(Infinity);
        }
      };
      const out = await _runInWorker(request, log, onUnits);
      slots.release();
      result = out.result as ExperimentResult | undefined;
      error = out.error;
      cpuSeconds = out.cpuSeconds === null || unitCpu === null ? null : out.cpuSeconds + unitCpu;
    } else {
      const context: ExperimentContext = {
        quick: parsed.quick,
        seed: parsed.seed,
        outDir: parsed.outDir,
        log,
      };
      const cpu0 = threadCpuSeconds();
      try {
        result = await e.run(context);
      } catch (err) {
        error = _errorText(err);
      }
      const cpu1 = threadCpuSeconds();
      cpuSeconds = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
    }
    if (result !== undefined) {
      try {
        validateResult(result, e.name);
      } catch (err) {
        result = undefined;
        error = _errorText(err);
      }
    }
    const wallSeconds = (performance.now() - start) / 1000;
    const base = { name: e.name, title: e.title, source: e.source, wallSeconds, cpuSeconds };
    const cpuText = cpuSeconds === null ? "" : ` (CPU ${formatDuration(cpuSeconds)})`;
    if (result !== undefined) {
      finished[k] = { ...base, result };
      stderr(`replicate: ${e.name} done in ${formatDuration(wallSeconds)}${cpuText}`);
    } else {
      failed++;
      finished[k] = { ...base, error: error ?? "Error: no result" };
      stderr(
        `replicate: ${e.name} FAILED after ${formatDuration(wallSeconds)}${cpuText}: ${
          (error ?? "").split("\n")[0]
        }`,
      );
    }
    await write(false);
  };
  const order = chosen.map((_, k) => k);
  if (inWorkers) {
    const hint = (k: number) => _durationHint(chosen[k].name, parsed.quick);
    order.sort((a, b) => hint(b) - hint(a) || a - b);
    await Promise.all(order.map((k) => runOne(k)));
  } else {
    for (const k of order) {
      if (writeFailed !== null) break;
      await runOne(k);
    }
  }
  if (chosen.length > 0 && writeFailed === null) await write(true);
  if (writeFailed !== null) {
    stderr(`error: could not write the report to ${parsed.outDir}: ${writeFailed}`);
    return 1;
  }
  if (chosen.length === 0) {
    stderr("replicate: no experiments are registered");
    await writeReport([], { outDir: parsed.outDir, info });
  }
  const cpu = processCpuSeconds();
  stderr(
    `replicate: finished in ${formatDuration((performance.now() - t0) / 1000)}${
      cpu === null
        ? ""
        : ` (CPU ${formatDuration(cpu.user + cpu.system)}: ${cpu.user.toFixed(1)} s user + ${
          cpu.system.toFixed(1)
        } s sys)`
    }${failed > 0 ? `, ${failed} problem(s)` : ""}`,
  );
  return failed > 0 ? 1 : 0;
}

if (import.meta.main) {
  Deno.exit(await runReplicate(Deno.args));
}
