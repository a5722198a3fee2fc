/**
 * The built-in samplers without their code: their names, in the registry's
 * order, the command-line flags each adds, and {@link loadSampler}, which
 * imports only the chosen sampler's modules. The command line and the chain
 * worker read this instead of ./registry.ts, which imports every sampler
 * (≈ 40 modules more than one sampler needs, ≈ 45 ms of start-up under load).
 *
 * ./registry.ts stays the source of truth (its descriptions hold each
 * option's type, range, default and help); tests/samplers/catalog_test.ts
 * checks that the names, their order and the flags here are the registry's,
 * and that {@link loadSampler} gives the registry's own description objects.
 *
 * @module
 */
import type { SamplerDescription } from "./sampler.ts";

const _NAIVE_FLAGS = ["batch-size", "step-size", "num-integration-steps", "target-acceptance"];
const _SG_FLAGS = ["step-size", "batch-size", "cv-order", "control-variates"];

/**
 * The built-in samplers' names (registration order) and the flags of their
 * options (`SamplerDescription.options[].flag`, in order).
 */
export const BUILT_IN_SAMPLER_FLAGS: ReadonlyMap<string, readonly string[]> = new Map([
  ["hmc", [
    "metric",
    "metric-shrinkage",
    "warmup-scheme",
    "step-size",
    "trajectory-length",
    "target-acceptance",
    "sampling-jitter-min",
    "sampling-jitter-max",
  ]],
  ["nuts", ["metric", "step-size", "target-acceptance", "max-tree-depth"]],
  ["rwmh", ["scale", "target-acceptance"]],
  ["sgld", _SG_FLAGS],
  ["sghmc", [..._SG_FLAGS, "num-steps", "friction"]],
  ["sgnht", [..._SG_FLAGS, "friction", "thermal-mass"]],
  ["ccadl", [..._SG_FLAGS, "friction", "thermal-mass"]],
  ["hmc-ecs", ["variant", "cv-order"]],
  ["qnhmc", [
    "step-size",
    "num-integration-steps",
    "step-size-jitter",
    "approximation",
    "target-acceptance",
  ]],
  ["austerity-rwmh", ["approx-mh-epsilon", "batch-size", "scale"]],
  ["austerity-sgld", ["approx-mh-epsilon", "batch-size", "step-size"]],
  ["naive-between", _NAIVE_FLAGS],
  ["naive-within", _NAIVE_FLAGS],
  ["naive-symmetric", _NAIVE_FLAGS],
  ["naive-between-mh", _NAIVE_FLAGS],
  ["naive-within-mh", _NAIVE_FLAGS],
  ["naive-symmetric-mh", _NAIVE_FLAGS],
]);

/**
 * Names of the built-in samplers, in the registry's order.
 *
 * @returns The names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { builtInSamplerNames } from "./catalog.ts";
 * assert.deepEqual(builtInSamplerNames().slice(0, 3), ["hmc", "nuts", "rwmh"]);
 * ```
 */
export function builtInSamplerNames(): string[] {
  return [...BUILT_IN_SAMPLER_FLAGS.keys()];
}

// Literal specifiers, so that bundlers and `deno compile` see every module.
const _NAIVE = () => import("./naive/chain_sampler.ts");
// deno-lint-ignore no-explicit-any
const _LOADERS: Record<string, () => Promise<SamplerDescription<any>>> = {
  "hmc": async () => (await import("./hmc/chain_sampler.ts")).hmcDescription,
  "nuts": async () => (await import("./nuts/chain_sampler.ts")).nutsDescription,
  "rwmh": async () => (await import("./rwmh/chain_sampler.ts")).rwmhDescription,
  "sgld": async () => (await import("./sgld/chain_sampler.ts")).sgldDescription,
  "sghmc": async () => (await import("./sghmc/chain_sampler.ts")).sghmcDescription,
  "sgnht": async () => (await import("./sgnht/chain_sampler.ts")).sgnhtDescription,
  "ccadl": async () => (await import("./ccadl/chain_sampler.ts")).ccadlDescription,
  "hmc-ecs": async () => (await import("./hmc_ecs/chain_sampler.ts")).hmcEcsDescription,
  "qnhmc": async () => (await import("./qnhmc/chain_sampler.ts")).qnhmcDescription,
  "austerity-rwmh": async () =>
    (await import("./austerity/chain_sampler.ts")).austerityRwmhDescription,
  "austerity-sgld": async () =>
    (await import("./austerity/chain_sampler.ts")).austeritySgldDescription,
  "naive-between": async () => (await _NAIVE()).naiveBetween,
  "naive-within": async () => (await _NAIVE()).naiveWithin,
  "naive-symmetric": async () => (await _NAIVE()).naiveSymmetric,
  "naive-between-mh": async () => (await _NAIVE()).naiveBetweenMh,
  "naive-within-mh": async () => (await _NAIVE()).naiveWithinMh,
  "naive-symmetric-mh": async () => (await _NAIVE()).naiveSymmetricMh,
};

/**
 * The description of the built-in sampler `name`, importing only its modules
 * (the same object ./registry.ts registers under that name).
 *
 * @param name A built-in sampler name.
 * @returns Its description.
 * @throws {RangeError} Naming the built-in samplers if there is none (the
 *   message of the registry's `getSampler`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSampler } from "./catalog.ts";
 * assert.equal((await loadSampler("rwmh")).isExact, true);
 * await assert.rejects(loadSampler("nutz"), /unknown sampler "nutz"; registered: hmc, nuts, rwmh/);
 * ```
 */
// deno-lint-ignore no-explicit-any
export function loadSampler(name: string): Promise<SamplerDescription<any>> {
  const load = Object.hasOwn(_LOADERS, name) ? _LOADERS[name] : undefined;
  if (load === undefined) {
    return Promise.reject(
      new RangeError(
        `unknown sampler ${JSON.stringify(name)}; registered: ${builtInSamplerNames().join(", ")}`,
      ),
    );
  }
  return load();
}
