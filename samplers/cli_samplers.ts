/**
 * The subsampling samplers reachable from `cli.ts sample --sampler NAME`,
 * with command-line defaults.
 *
 * @module
 */
import type { DrawsTable } from "../data/draws_csv.ts";
import type { GlmModel } from "../models/glm.ts";
import type { SamplingResult } from "./driver.ts";

/** Names accepted by {@link runCliSampler}. */
export const CLI_SAMPLERS: readonly string[] = [];

/** Sizes and seed shared by every sampler run from the command line. */
export interface CliRunOptions {
  /** Draws per chain after warmup. */
  numSamples: number;
  /** Warmup iterations per chain. */
  numWarmup: number;
  /** Number of chains. */
  numChains: number;
  /** Seed. */
  seed: number;
  /** Thinning. */
  thin: number;
  /** Progress callback. */
  onProgress?: (chain: number, iteration: number, total: number) => void;
}

/**
 * Run a named subsampling sampler on a GLM with command-line defaults.
 *
 * @param name One of {@link CLI_SAMPLERS}.
 * @param model The GLM.
 * @param options Sizes, seed, progress.
 * @returns The driver's result and any extra per-draw columns (e.g. `sign`).
 */
export function runCliSampler(
  name: string,
  _model: GlmModel,
  _options: CliRunOptions,
): { result: SamplingResult; extra: DrawsTable["extra"] } {
  throw new RangeError(
    `unknown sampler ${JSON.stringify(name)}; expected one of ${CLI_SAMPLERS.join(", ")}`,
  );
}
