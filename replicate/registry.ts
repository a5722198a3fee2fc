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
import { r1HiggsTable2 } from "./r1_higgs_table2.ts";
import { r2HiggsRct } from "./r2_higgs_rct.ts";
import { r3CostRatio } from "./r3_cost_ratio.ts";
import { r4BankruptcyRct } from "./r4_bankruptcy_rct.ts";
import { r5Scaling } from "./r5_scaling.ts";
import { r6ControlVariates } from "./r6_control_variates.ts";
import { r7QnhmcGaussian } from "./r7_qnhmc_gaussian.ts";
import { r8QnhmcMnist } from "./r8_qnhmc_mnist.ts";
import { r9NormalGamma } from "./r9_normal_gamma.ts";
import { r10MnistLogistic } from "./r10_mnist_logistic.ts";
import { r11AusterityMnist } from "./r11_austerity_mnist.ts";
import { r12AusterityL1 } from "./r12_austerity_l1.ts";
import { r13NaiveAcceptance } from "./r13_naive_acceptance.ts";
import { r14NaivePhaseSpace } from "./r14_naive_phase_space.ts";
import { r15AusterityIca } from "./r15_austerity_ica.ts";
import { r16AusterityRjmcmc } from "./r16_austerity_rjmcmc.ts";
import { r17QnhmcPmf } from "./r17_qnhmc_pmf.ts";

/** Every registered experiment, in report order. */
export const EXPERIMENTS: readonly Experiment[] = [
  r0FullHmc,
  // HMC-ECS (hmc-ecs_dang-2019.md).
  r1HiggsTable2,
  r2HiggsRct,
  r3CostRatio,
  r4BankruptcyRct,
  r5Scaling,
  r6ControlVariates,
  // Quasi-Newton HMC (qnhmc_fu-2016.md).
  r7QnhmcGaussian,
  r8QnhmcMnist,
  // Stochastic-gradient samplers (CCAdL, HMC-ECS §6.2).
  r9NormalGamma,
  r10MnistLogistic,
  // Approximate MH (austerity-mh_korattikara-2014.md).
  r11AusterityMnist,
  r12AusterityL1,
  // Naive subsampled HMC (naive-subsampling-hmc_betancourt-2015.md).
  r13NaiveAcceptance,
  r14NaivePhaseSpace,
  // Austerity §5.2–5.3 (austerity-mh_korattikara-2014.md).
  r15AusterityIca,
  r16AusterityRjmcmc,
  // QNHMC §5.3 (qnhmc_fu-2016.md).
  r17QnhmcPmf,
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
 * import { strict as assert } from "node:assert";
 * import { EXPERIMENTS, selectExperiments } from "./registry.ts";
 * assert.ok(selectExperiments([]).length === EXPERIMENTS.length);
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
