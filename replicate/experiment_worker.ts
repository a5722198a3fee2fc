/**
 * The worker behind `deno task replicate`'s parallel runs: it runs one
 * registered experiment, or one unit of it, per worker and posts back its
 * log lines and its result (or the error's text). It loads only that
 * experiment's modules (`experiment_loaders.ts`).
 *
 * ```
 *  main → worker   { name, quick, seed, outDir[, unit, args] }  (see ExperimentRequest)
 *  worker → main   { kind: "log", message }                  (any number)
 *                  { kind: "units", requests }               (the experiment waits for:)
 *  main → worker   { kind: "units-done", results } or { kind: "units-failed", error }
 *  worker → main   { kind: "result", result, cpuSeconds } or { kind: "error", error, cpuSeconds }
 * ```
 *
 * Only a worker loads this module (it sets the worker's `onmessage`); the
 * messages' types are in ./experiment_protocol.ts.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { EXPERIMENT_LOADERS } from "./experiment_loaders.ts";
import type { ExperimentContext, UnitRequest } from "./experiment.ts";
import type { ExperimentReply, ExperimentRequest, UnitsReply } from "./experiment_protocol.ts";
import { errorText, threadCpuSeconds } from "./experiment_protocol.ts";

let waiting: { resolve: (results: unknown[]) => void; reject: (e: Error) => void } | null = null;

self.onmessage = async (event: MessageEvent<ExperimentRequest | UnitsReply>) => {
  const post = (reply: ExperimentReply) => self.postMessage(reply);
  const data = event.data;
  if ("kind" in data) {
    const w = waiting;
    waiting = null;
    if (w === null) return;
    if (data.kind === "units-done") w.resolve(data.results);
    else w.reject(new Error(data.error));
    return;
  }
  const { name, quick, seed, outDir, unit } = data;
  // Only this experiment's modules are loaded (not the whole registry's).
  const load = Object.hasOwn(EXPERIMENT_LOADERS, name) ? EXPERIMENT_LOADERS[name] : undefined;
  let experiment;
  try {
    experiment = load === undefined ? undefined : await load();
  } catch (e) {
    post({ kind: "error", error: errorText(e), cpuSeconds: null });
    return;
  }
  const fn = unit === undefined ? undefined : experiment?.units?.[unit];
  if (experiment === undefined || (unit !== undefined && fn === undefined)) {
    post({
      kind: "error",
      error: experiment === undefined
        ? `RangeError: unknown experiment ${JSON.stringify(name)}`
        : `RangeError: experiment ${name} has no unit ${JSON.stringify(unit)}`,
      cpuSeconds: null,
    });
    return;
  }
  const cpu0 = threadCpuSeconds();
  const cpu = () => {
    const now = threadCpuSeconds();
    return now === null || cpu0 === null ? null : now - cpu0;
  };
  const log = (message: string) => post({ kind: "log", message });
  try {
    let result: unknown;
    if (fn !== undefined) {
      result = await fn({ quick, seed, outDir, log }, data.args);
    } else {
      const context: ExperimentContext = {
        quick,
        seed,
        outDir,
        log,
        runUnits: (requests: readonly UnitRequest[]) =>
          new Promise<unknown[]>((resolve, reject) => {
            if (waiting !== null) {
              reject(new Error("runUnits: the experiment already waits for units"));
              return;
            }
            waiting = { resolve, reject };
            post({ kind: "units", requests });
          }),
      };
      result = await experiment.run(context);
    }
    post({ kind: "result", result, cpuSeconds: cpu() });
  } catch (e) {
    post({ kind: "error", error: errorText(e), cpuSeconds: cpu() });
  }
};
