/**
 * The worker behind `deno task replicate`'s parallel runs: it runs one
 * registered experiment per request and posts back its log lines and its
 * result (or the error's text).
 *
 * ```
 *  main → worker   { name, quick, seed, outDir }       (see ExperimentRequest)
 *  worker → main   { kind: "log", message }            (any number)
 *                  { kind: "result", result, cpuSeconds } or { kind: "error", error, cpuSeconds }
 * ```
 *
 * Only a worker loads this module (it sets the worker's `onmessage`); the
 * messages' types are in ./experiment_protocol.ts.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { EXPERIMENTS } from "./registry.ts";
import type { ExperimentReply, ExperimentRequest } from "./experiment_protocol.ts";
import { errorText, threadCpuSeconds } from "./experiment_protocol.ts";

self.onmessage = async (event: MessageEvent<ExperimentRequest>) => {
  const { name, quick, seed, outDir } = event.data;
  const post = (reply: ExperimentReply) => self.postMessage(reply);
  const experiment = EXPERIMENTS.find((e) => e.name === name);
  if (experiment === undefined) {
    post({
      kind: "error",
      error: `RangeError: unknown experiment ${JSON.stringify(name)}`,
      cpuSeconds: null,
    });
    return;
  }
  const cpu0 = threadCpuSeconds();
  const cpu = () => {
    const now = threadCpuSeconds();
    return now === null || cpu0 === null ? null : now - cpu0;
  };
  try {
    const result = await experiment.run({
      quick,
      seed,
      outDir,
      log: (message: string) => post({ kind: "log", message }),
    });
    post({ kind: "result", result, cpuSeconds: cpu() });
  } catch (e) {
    post({ kind: "error", error: errorText(e), cpuSeconds: cpu() });
  }
};
