/**
 * Each registered experiment's module, loaded on demand: a worker of
 * `deno task replicate` runs one experiment (or one of its units) and loads
 * only that experiment's module graph, not the registry's eighteen.
 * `tests/replicate/experiment_loaders_test.ts` checks that every loader
 * returns the registry's experiment of that name.
 *
 * @module
 */
import type { Experiment } from "./experiment.ts";

/** Load the experiment of this name (the keys are the registry's names). */
export const EXPERIMENT_LOADERS: Readonly<Record<string, () => Promise<Experiment>>> = {
  r0: async () => (await import("./r0_full_hmc.ts")).r0FullHmc,
  r1: async () => (await import("./r1_higgs_table2.ts")).r1HiggsTable2,
  r2: async () => (await import("./r2_higgs_rct.ts")).r2HiggsRct,
  r3: async () => (await import("./r3_cost_ratio.ts")).r3CostRatio,
  r4: async () => (await import("./r4_bankruptcy_rct.ts")).r4BankruptcyRct,
  r5: async () => (await import("./r5_scaling.ts")).r5Scaling,
  r6: async () => (await import("./r6_control_variates.ts")).r6ControlVariates,
  r7: async () => (await import("./r7_qnhmc_gaussian.ts")).r7QnhmcGaussian,
  r8: async () => (await import("./r8_qnhmc_mnist.ts")).r8QnhmcMnist,
  r9: async () => (await import("./r9_normal_gamma.ts")).r9NormalGamma,
  r10: async () => (await import("./r10_mnist_logistic.ts")).r10MnistLogistic,
  r11: async () => (await import("./r11_austerity_mnist.ts")).r11AusterityMnist,
  r12: async () => (await import("./r12_austerity_l1.ts")).r12AusterityL1,
  r13: async () => (await import("./r13_naive_acceptance.ts")).r13NaiveAcceptance,
  r14: async () => (await import("./r14_naive_phase_space.ts")).r14NaivePhaseSpace,
  r15: async () => (await import("./r15_austerity_ica.ts")).r15AusterityIca,
  r16: async () => (await import("./r16_austerity_rjmcmc.ts")).r16AusterityRjmcmc,
  r17: async () => (await import("./r17_qnhmc_pmf.ts")).r17QnhmcPmf,
};
