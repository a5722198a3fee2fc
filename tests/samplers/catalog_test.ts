import assert from "node:assert/strict";
import {
  BUILT_IN_SAMPLER_FLAGS,
  builtInSamplerNames,
  loadSampler,
} from "../../samplers/catalog.ts";
import { getSampler, samplerNames } from "../../samplers/registry.ts";

Deno.test("the catalog lists the registry's samplers, in its order, with their flags", () => {
  assert.deepEqual(builtInSamplerNames(), samplerNames());
  for (const name of samplerNames()) {
    assert.deepEqual(
      BUILT_IN_SAMPLER_FLAGS.get(name),
      (getSampler(name).options ?? []).map((o) => o.flag),
      name,
    );
  }
});

Deno.test("loadSampler gives the registry's own description of each sampler", async () => {
  for (const name of samplerNames()) {
    assert.equal(await loadSampler(name), getSampler(name), name);
  }
});

Deno.test("loadSampler rejects an unknown name with the registry's message", async () => {
  let expected = "";
  try {
    getSampler("nutz");
  } catch (e) {
    expected = (e as Error).message;
  }
  assert.notEqual(expected, "");
  await assert.rejects(
    loadSampler("nutz"),
    (e) => e instanceof RangeError && e.message === expected,
  );
  await assert.rejects(loadSampler("toString"), /unknown sampler "toString"/);
});
