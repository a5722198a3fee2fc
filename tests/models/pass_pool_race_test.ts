/**
 * The pass pool never leaves a command running when its caller moves on: a
 * pass whose calling-thread block throws between post and wait is still
 * waited for, so the workers do not answer the next command with the old θ
 * (their answer counted for the new one) or write into shared memory after
 * the caller has freed it. Without that, the next pass after a throwing one
 * returned a mix of the two θs whenever a worker's block was still running;
 * the check here is on values (the next pass against one thread's), not on
 * time.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import { ThreadedGlmModel } from "../../models/threaded_glm.ts";
import { _normal, _rng } from "../_core_fixtures.ts";

Deno.test("a threaded pass whose own block throws is waited for before the next pass", async () => {
  const n = 120_001, d = 6, u = _rng(3);
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) eta += (x[i * d + j] = j === 0 ? 1 : _normal(u)) * 0.2;
    y[i] = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  const glm = new GlmModel(glmDataFromArrays(loadCore({ shared: true }), x, y, { numCols: d }), {
    family: "logistic",
  });
  const threaded = await ThreadedGlmModel.create(glm, { threads: 2 });
  try {
    for (let k = 0; k < 6; k++) {
      // The workers get θ through the io buffer; the calling thread's block
      // refuses a Float32Array, after the pass was posted.
      const bad = new Float32Array(d).fill(0.5 + k);
      assert.throws(() => threaded.logLikelihood(bad as never), /Float64Array/);
      const theta = Float64Array.from({ length: d }, (_, j) => 0.1 * Math.sin(j + k));
      const g = new Float64Array(d), g1 = new Float64Array(d);
      const ll = threaded.logLikelihood(theta, g), ll1 = glm.logLikelihood(theta, g1);
      assert.ok(Math.abs(ll - ll1) <= 1e-9 * Math.abs(ll1), `pass ${k}: ${ll} vs ${ll1}`);
      for (let j = 0; j < d; j++) {
        assert.ok(Math.abs(g[j] - g1[j]) <= 1e-9 * (1 + Math.abs(g1[j])), `∂${j}, pass ${k}`);
      }
      assert.throws(() => threaded.logLikelihoodHessian(bad as never, new Float64Array(d * d)));
    }
  } finally {
    threaded.close();
    glm.dispose();
  }
});
