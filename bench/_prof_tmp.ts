import { Session } from "node:inspector";
import { loadCore } from "../core/load.ts";
import { familyFromFlags } from "../cli/model_flags.ts";
import { modelFromFlags } from "../cli/model_options.ts";
import { sharedHmcEcsCentring } from "../samplers/hmc_ecs/shared_centring.ts";
import { getSampler } from "../samplers/registry.ts";
import { sampleChains } from "../samplers/driver.ts";
const flags: Record<string, unknown> = { family: "logistic", response: "y", f32: true, "no-intercept": true };
const arena = loadCore({ shared: true });
const { model } = await modelFromFlags(arena, "/tmp/ttp/higgs_1000000.parquet", flags, {
  choice: familyFromFlags(flags), storage: "f32", resolvePath: (p: string) => p,
});
const shared = sharedHmcEcsCentring(model, { numWarmup: 1000 }, { seed: 1, numChains: 4 })!;
const options: Record<string, unknown> = { ...shared.options };
const plan = { seed: 1, numWarmup: 1000, numSamples: 1000 };
const sampler = getSampler("hmc-ecs").build(model, options, plan);
const run = (k: number) => sampleChains({ sampler, model, ...plan, chainIds: [k % 4], initialPositions: [shared.starts[k % 4]] });
const warm = Number(Deno.args[0] ?? 3), prof = Number(Deno.args[1] ?? 6);
for (let k = 0; k < warm; k++) run(k);
const s = new Session();
s.connect();
const post = (m: string, p?: object) => new Promise<any>((res, rej) => s.post(m, p ?? {}, (e: any, r: any) => e ? rej(e) : res(r)));
await post("Profiler.enable");
await post("Profiler.setSamplingInterval", { interval: 100 });
await post("Profiler.start");
for (let k = 0; k < prof; k++) run(k);
const { profile } = await post("Profiler.stop");
Deno.writeTextFileSync(Deno.args[2] ?? "/tmp/estfuse/chain.cpuprofile", JSON.stringify(profile));
