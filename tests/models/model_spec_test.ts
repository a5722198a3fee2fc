import assert from "node:assert/strict";
import { loadCore, workerCore } from "../../core/load.ts";
import { higgsShaped } from "../../data/synthetic.ts";
import { GlmModel } from "../../models/glm.ts";
import { modelSpecOf } from "../../models/model_spec.ts";

Deno.test("modelSpecOf(): a worker is sent the calling thread's compiled core, not left to compile its own", () => {
  const arena = loadCore({ shared: true });
  const { data } = higgsShaped(arena, { n: 200, seed: 1 });
  const described = modelSpecOf(new GlmModel(data, { family: "logistic" }));
  assert.ok("spec" in described);
  assert.ok(described.spec.core instanceof WebAssembly.Module);
  assert.equal(described.spec.core, workerCore(arena.backend, true));
});

Deno.test("workerCore(): nothing for the TypeScript kernels", () => {
  assert.equal(workerCore("reference", true), undefined);
});
