/**
 * CPU seconds of one HMC-ECS chain (1000 + 1000 iterations) of the default
 * `tallmc sample --sampler hmc-ecs` run, in this thread, chain after chain:
 * the chains phase of docs/time_to_posterior.md without the workers, the
 * read or the centring around it, so that a change to the chain's code is
 * measured apart from the noise of the rest of the command. The first chain
 * runs on cold (not yet optimised) code, as each worker's first chain does;
 * the later ones on warm code. A hash of the draws' bits is printed, so that
 * two checkouts can be compared for the same draws.
 *
 * ```sh
 * deno run -A bench/ttp_chain_cpu.ts --data /tmp/ttp/higgs_1000000.parquet --chains 6
 * ```
 *
 * The model is read as the CLI reads it (`--family logistic --response y
 * --f32`, `--no-intercept` for the Parquet file of bench/time_to_posterior.ts,
 * whose first column is the intercept), the centring is the run's shared one
 * (seed 1, 4 chains) and chain k starts where that run's chain k mod 4 starts.
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { loadCore } from "../core/load.ts";
import { familyFromFlags } from "../cli/model_flags.ts";
import { modelFromFlags } from "../cli/model_options.ts";
import { sharedHmcEcsCentring } from "../samplers/hmc_ecs/shared_centring.ts";
import { getSampler } from "../samplers/registry.ts";
import { sampleChains } from "../samplers/driver.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { data: { type: "string" }, chains: { type: "string", default: "6" } },
});
if (values.data === undefined) throw new Error("--data FILE is required");
const parquet = values.data.endsWith(".parquet");
const flags: Record<string, unknown> = {
  family: "logistic",
  response: "y",
  f32: true,
  ...(parquet ? { "no-intercept": true } : {}),
};
// A shared memory, as the CLI's with workers.
const arena = loadCore({ shared: true });
const { model } = await modelFromFlags(arena, values.data, flags, {
  choice: familyFromFlags(flags),
  storage: "f32",
  resolvePath: (p: string) => p,
});
const options: Record<string, unknown> = {};
const shared = sharedHmcEcsCentring(model, { numWarmup: 1000 }, { seed: 1, numChains: 4 });
if (shared === null) throw new Error("no shared centring for this model");
Object.assign(options, shared.options);
const plan = { seed: 1, numWarmup: 1000, numSamples: 1000 };
const sampler = getSampler("hmc-ecs").build(model, options, plan);
const bits = new Float64Array(model.dim), words = new Uint32Array(bits.buffer);
for (let k = 0; k < Number(values.chains); k++) {
  let hash = 0;
  const c0 = process.cpuUsage(), t0 = performance.now();
  sampleChains({
    sampler,
    model,
    ...plan,
    chainIds: [k % 4],
    initialPositions: [shared.starts[k % 4]],
    onDraw: (_chain, _draw, position) => {
      bits.set(position);
      for (let j = 0; j < words.length; j++) hash = (Math.imul(hash, 31) + words[j]) | 0;
    },
  });
  const c = process.cpuUsage(c0);
  console.log(
    `chain ${k % 4}: CPU ${((c.user + c.system) / 1e6).toFixed(3)} s, wall ${
      ((performance.now() - t0) / 1000).toFixed(3)
    } s, draws hash ${(hash >>> 0).toString(16)}`,
  );
}
