/**
 * The replication experiments, in report order.
 *
 * Each module under `replicate/` exports one {@link Experiment}; this list is
 * the only place that knows them all. `deno task replicate` runs them in this
 * order.
 *
 * @module
 */

import type { Experiment } from "./experiment.ts";
import { r0FullHmc } from "./r0_full_hmc.ts";
import { r9NormalGamma } from "./r9_normal_gamma.ts";

/** Every registered experiment, in report order. */
export const EXPERIMENTS: readonly Experiment[] = [
  r0FullHmc,
  // Stochastic-gradient samplers (CCAdL, HMC-ECS §6.2).
  r9NormalGamma,
];

/**
 * Pick experiments by name, in the order given (repeats dropped).
 *
 * @param names Short names as typed on the command line; empty means all.
 * @param experiments The registry to pick from (default {@link EXPERIMENTS}).
 * @returns The experiments.
 * @throws RangeError naming the unknown name and listing the valid ones.
 * @example
 * ```ts
 * import { EXPERIMENTS, selectExperiments } from "./registry.ts";
 * console.log(selectExperiments([]).length === EXPERIMENTS.length); // true
 * ```
 */
export function selectExperiments(
  names: readonly string[],
  experiments: readonly Experiment[] = EXPERIMENTS,
): Experiment[] {
  if (names.length === 0) return [...experiments];
  const byName = new Map(experiments.map((e) => [e.name, e]));
  const out: Experiment[] = [];
  for (const name of names) {
    const e = byName.get(name);
    if (e === undefined) {
      throw new RangeError(
        `unknown experiment ${JSON.stringify(name)}; valid names: ${
          experiments.map((x) => x.name).join(", ") || "(none registered)"
        }`,
      );
    }
    if (!out.includes(e)) out.push(e);
  }
  return out;
}
