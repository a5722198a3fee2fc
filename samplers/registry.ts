/**
 * The sampler registry: name → {@link SamplerDescription}. The top-level
 * `sample()`, the command line, the web page and the conformance tests read
 * it; a new sampler joins them all with one {@link registerSampler} call.
 *
 * Built in: `hmc`, `rwmh`, `sgld`, `sghmc`, `sgnht`, `ccadl`, `hmc-ecs`,
 * `qnhmc`, `austerity-rwmh`, `austerity-sgld` and the naive subsampled HMC
 * diagnostics `naive-between`, `naive-within`, `naive-symmetric` (each also
 * with a full-data correction, `…-mh`).
 *
 * References: Cabezas et al. (2024), BlackJAX (one top-level API over
 * named samplers).
 *
 * @module
 */
import { austerityRwmhDescription, austeritySgldDescription } from "./austerity/chain_sampler.ts";
import { hmcEcsDescription } from "./hmc_ecs/chain_sampler.ts";
import { NAIVE_SAMPLERS } from "./naive/chain_sampler.ts";
import { nutsDescription } from "./nuts/chain_sampler.ts";
import { qnhmcDescription } from "./qnhmc/chain_sampler.ts";
import { hmcDescription } from "./hmc/chain_sampler.ts";
import { rwmhDescription } from "./rwmh/chain_sampler.ts";
import type { SamplerDescription } from "./sampler.ts";
import { ccadlDescription } from "./ccadl/chain_sampler.ts";
import { sghmcDescription } from "./sghmc/chain_sampler.ts";
import { sgldDescription } from "./sgld/chain_sampler.ts";
import { sgnhtDescription } from "./sgnht/chain_sampler.ts";

// deno-lint-ignore no-explicit-any
const _registry = new Map<string, SamplerDescription<any>>();

/**
 * Add a sampler to the registry (or replace one, with `replace: true`).
 *
 * @param description The sampler's description; its `name` is the key.
 * @param options `replace`: overwrite an entry of the same name (default false).
 * @returns Nothing.
 * @throws {RangeError} If the name is taken and `replace` is not set, or empty.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { getSampler, registerSampler } from "./registry.ts";
 * registerSampler({ ...getSampler("hmc"), name: "my-hmc" });
 * assert.equal(getSampler("my-hmc").requires, "log-density");
 * ```
 *
 * References: docs/architecture.md, "Samplers" (a registry maps names to descriptions).
 */
export function registerSampler<O extends object>(
  description: SamplerDescription<O>,
  options: { replace?: boolean } = {},
): void {
  const name = description.name;
  if (typeof name !== "string" || !/^[a-z][a-z0-9-]*$/.test(name)) {
    throw new RangeError(
      `a sampler name must be lower-case letters, digits and dashes, got ${JSON.stringify(name)}`,
    );
  }
  if (_registry.has(name) && !options.replace) {
    throw new RangeError(`a sampler named ${JSON.stringify(name)} is already registered`);
  }
  _registry.set(name, description);
}

/**
 * The description registered under `name`.
 *
 * @param name A sampler name.
 * @returns Its description.
 * @throws {RangeError} Naming the registered samplers if there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { getSampler } from "./registry.ts";
 * assert.equal(getSampler("sgld").isExact, false);
 * assert.throws(() => getSampler("nutz"), /unknown sampler "nutz"; registered: hmc, nuts, rwmh/);
 * ```
 *
 * References: docs/architecture.md, "Samplers".
 */
// deno-lint-ignore no-explicit-any
export function getSampler(name: string): SamplerDescription<any> {
  const d = _registry.get(name);
  if (d === undefined) {
    throw new RangeError(
      `unknown sampler ${JSON.stringify(name)}; registered: ${samplerNames().join(", ")}`,
    );
  }
  return d;
}

/**
 * Names of the registered samplers, in registration order.
 *
 * @returns The names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { samplerNames } from "./registry.ts";
 * assert.deepEqual(samplerNames().slice(0, 3), ["hmc", "nuts", "rwmh"]);
 * ```
 *
 * References: docs/architecture.md, "Samplers".
 */
export function samplerNames(): string[] {
  return [..._registry.keys()];
}

for (
  const d of [
    hmcDescription,
    nutsDescription,
    rwmhDescription,
    sgldDescription,
    sghmcDescription,
    sgnhtDescription,
    ccadlDescription,
    hmcEcsDescription,
    qnhmcDescription,
    austerityRwmhDescription,
    austeritySgldDescription,
    ...NAIVE_SAMPLERS,
  ]
) registerSampler(d as SamplerDescription<object>);
