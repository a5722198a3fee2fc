import { strict as assert } from "node:assert";
import { EXPERIMENT_LOADERS } from "../../replicate/experiment_loaders.ts";
import { EXPERIMENTS } from "../../replicate/registry.ts";

Deno.test("EXPERIMENT_LOADERS loads every registered experiment and nothing else", async () => {
  assert.deepEqual(Object.keys(EXPERIMENT_LOADERS).sort(), EXPERIMENTS.map((e) => e.name).sort());
  for (const e of EXPERIMENTS) {
    assert.equal(await EXPERIMENT_LOADERS[e.name](), e, e.name);
  }
});
