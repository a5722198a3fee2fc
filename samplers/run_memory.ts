/**
 * How much memory a run's arrays take (draws and per-iteration diagnostics)
 * and the limit above which a run is refused before anything runs: the same
 * limit for the API (`sampleChains`, `sampleParallel`) and the command line.
 *
 * @module
 */

/** Memory the per-run arrays may take before a run is refused (2 GiB), in the CLI and the API alike. */
export const MAX_RUN_BYTES = 2 ** 31;

/** The sizes that decide a run's memory (see {@link runBytes}). */
export interface RunSizes {
  /** Chains. */
  numChains: number;
  /** Warmup iterations per chain. */
  numWarmup: number;
  /** Sampling iterations per chain. */
  numSamples: number;
  /** Thinning. */
  thin: number;
  /** Parameters d. */
  dim: number;
}

/**
 * Memory a run's arrays need: draws (chains × ⌈samples/thin⌉ × d) and the
 * per-iteration diagnostics (chains × (warmup + samples) × about 10 fields),
 * 8 bytes each.
 *
 * @param sizes Chains, warmup, samples, thin and the dimension d.
 * @returns Bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runBytes } from "./run_memory.ts";
 * assert.equal(runBytes({ numChains: 1, numWarmup: 0, numSamples: 10, thin: 1, dim: 2 }), 8 * (20 + 100));
 * ```
 */
export function runBytes(sizes: RunSizes): number {
  const draws = Math.ceil(sizes.numSamples / sizes.thin) * sizes.dim;
  const info = (sizes.numWarmup + sizes.numSamples) * 10;
  return 8 * sizes.numChains * (draws + info);
}

/**
 * Refuse, before anything runs, sizes whose draws and diagnostics would take
 * more than {@link MAX_RUN_BYTES} (the limit the CLI applies to its flags).
 *
 * @param sizes The run's sizes.
 * @param where Who runs it, for the message (`"sampleChains"`).
 * @throws {RangeError} Naming numSamples, numWarmup, numChains, d and the bytes.
 */
export function checkRunMemory(sizes: RunSizes, where: string): void {
  const bytes = runBytes(sizes);
  if (!(bytes > MAX_RUN_BYTES)) return; // (sizes that are not numbers are refused by their own checks)
  throw new RangeError(
    `${where}: numSamples = ${sizes.numSamples}, numWarmup = ${sizes.numWarmup}, numChains = ${sizes.numChains} ` +
      `with d = ${sizes.dim} would need about ${
        (bytes / 1e9).toPrecision(3)
      } GB for the draws and per-iteration diagnostics; the limit is ${
        (MAX_RUN_BYTES / 1e9).toPrecision(3)
      } GB: lower numSamples, numWarmup or numChains, or thin`,
  );
}
