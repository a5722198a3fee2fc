/**
 * A user's AssemblyScript family compiled at run time (core/user_family.ts,
 * models/user_glm.ts): the logistic family written by hand reproduces the
 * built-in kernel and its HMC posterior.
 *
 * Run: deno test --allow-read --allow-env tests/models/user_family_test.ts
 */
import assert from "node:assert/strict";
import { GlmKernels } from "../../core/glm_kernels.ts";
import { loadCore } from "../../core/load.ts";
import {
  compileUserFamily,
  EXAMPLE_LOGISTIC_SOURCE as LOGISTIC_SOURCE,
  UserFamilyKernels,
} from "../../core/user_family.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import { UserGlmModel } from "../../models/user_glm.ts";
import { Rng } from "../../random/rng.ts";
import { parameterDraws } from "../../samplers/driver.ts";
import * as hmc from "../../samplers/hmc/kernel.ts";
import { identityMetric } from "../../samplers/metric.ts";
import { runHmc } from "../../samplers/hmc/run.ts";
import { _normal, _rng } from "../_core_fixtures.ts";

function _logistic(n: number, d: number, seed: number) {
  const u = _rng(seed), x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) {
      x[i * d + j] = j === 0 ? 1 : _normal(u);
      eta += x[i * d + j] * (j % 2 === 0 ? 0.7 : -0.5);
    }
    y[i] = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  return { x, y };
}

Deno.test("compileUserFamily() claim: a hand-written logistic family matches the built-in kernel", async () => {
  const arena = loadCore(), n = 101, d = 3, p = _logistic(n, d, 1);
  const data = glmDataFromArrays(arena, p.x, p.y, { numCols: d });
  const user = await compileUserFamily(arena, LOGISTIC_SOURCE);
  const k = new GlmKernels(arena, { family: "logistic", dim: d });
  const th = new Float64Array([0.3, -0.5, 0.8]), rows = new Int32Array([5, 0, 100, 5]);
  const ga = new Float64Array(d), gb = new Float64Array(d);
  const close = (a: number, b: number, what: string) =>
    assert.ok(Math.abs(a - b) <= 1e-12 * (1 + Math.abs(b)), `${what}: ${a} vs ${b}`);
  close(user.logLikelihood(data, th, { grad: ga }), k.logLikelihood(data, th, { grad: gb }), "Σℓ");
  ga.forEach((v, j) => close(v, gb[j], `∇${j}`));
  const ra = new Float64Array(4), rb = new Float64Array(4);
  close(
    user.logLikelihood(data, th, { rows, perRow: ra }),
    k.logLikelihood(data, th, { rows, perRow: rb }),
    "rows",
  );
  ra.forEach((v, j) => close(v, rb[j], `ℓ row ${j}`));
  const ha = user.hessian(data, th, { out: new Float64Array(d * d) });
  const hb = k.hessian(data, th, { out: new Float64Array(d * d) });
  ha.forEach((v, j) => close(v, hb[j], `H${j}`));
  await assert.rejects(
    () => compileUserFamily(arena, "function logLik(eta: f64, y: f64): f64 { return 0; }"),
    /must define function dLogLik/,
  );
  await assert.rejects(
    () => compileUserFamily(arena, LOGISTIC_SOURCE.replace("Math.log1p(e)", "undefinedThing(e)")),
    /does not compile/,
  );
  user.dispose();
  k.dispose();
});

Deno.test("UserGlmModel claim: HMC on the user's logistic family reproduces the built-in posterior", async () => {
  const arena = loadCore(), n = 500, d = 3, p = _logistic(n, d, 2);
  const data = glmDataFromArrays(arena, p.x, p.y, { numCols: d });
  const user = await UserGlmModel.create(data, { source: LOGISTIC_SOURCE, priorScale: 10 });
  const builtIn = new GlmModel(data, { family: "logistic", priorScale: 10 });
  // Draw for draw: the same HMC kernel, step size, metric and random stream on
  // both models. The arithmetic differs by rounding only (scalar Math.exp in the
  // user's source, the core's vexp in the built-in kernel).
  const metric = identityMetric(d),
    params = (m: UserGlmModel | GlmModel) => ({
      logDensityAndGradientFn: (t: Float64Array, g: Float64Array) => m.logDensityAndGradient(t, g),
      stepSize: 0.08,
      numIntegrationSteps: 8,
      metric,
    });
  const ra = new Rng(3), rb = new Rng(3);
  let sa = hmc.init(new Float64Array(d), params(user).logDensityAndGradientFn);
  let sb = hmc.init(new Float64Array(d), params(builtIn).logDensityAndGradientFn);
  let maxDiff = 0;
  for (let it = 0; it < 200; it++) {
    sa = hmc.step(ra, sa, params(user)).state;
    sb = hmc.step(rb, sb, params(builtIn)).state;
    for (let j = 0; j < d; j++) {
      maxDiff = Math.max(maxDiff, Math.abs(sa.position[j] - sb.position[j]));
    }
  }
  assert.ok(maxDiff < 1e-9, `largest difference over 200 draws ${maxDiff}`);
  // The posteriors: full runs with adaptation, means within 0.1 sd and sds within 10 %.
  const opts = { numWarmup: 500, numSamples: 1000, numChains: 4, seed: 9 };
  const a = runHmc(user, opts), b = runHmc(builtIn, opts);
  for (let j = 0; j < d; j++) {
    const pool = (r: typeof a) => parameterDraws(r, j).flatMap((c) => Array.from(c));
    const xa = pool(a), xb = pool(b);
    const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
    const sd = (v: number[]) =>
      Math.sqrt(v.reduce((s, x) => s + (x - mean(v)) ** 2, 0) / (v.length - 1));
    const z = (mean(xa) - mean(xb)) / sd(xb), r = sd(xa) / sd(xb) - 1;
    console.log(
      `θ${j}: user ${mean(xa).toFixed(4)} ± ${sd(xa).toFixed(4)}, built-in ${
        mean(xb).toFixed(4)
      } ± ${sd(xb).toFixed(4)}`,
    );
    assert.ok(Math.abs(z) < 0.1 && Math.abs(r) < 0.1, `θ${j}: ${z} sd, ${r}`);
  }
  user.dispose();
  builtIn.dispose();
});

Deno.test("UserFamilyKernels.atBlock claim: the module compiled over a fresh arena's first block runs in another fresh arena; elsewhere it is refused", async () => {
  const n = 101, d = 3, p = _logistic(n, d, 4);
  const first = loadCore();
  const compiled = await compileUserFamily(first, LOGISTIC_SOURCE);
  // A fresh arena's first block is at the same address in every instance.
  const other = loadCore();
  const placed = UserFamilyKernels.atBlock(other, compiled.bytes, compiled.staticBlock);
  const a = glmDataFromArrays(first, p.x, p.y, { numCols: d });
  const b = glmDataFromArrays(other, p.x, p.y, { numCols: d });
  const th = new Float64Array([0.3, -0.5, 0.8]);
  const ga = new Float64Array(d), gb = new Float64Array(d);
  assert.equal(
    placed.logLikelihood(b, th, { grad: gb }),
    compiled.logLikelihood(a, th, { grad: ga }),
  );
  assert.deepEqual(gb, ga);
  assert.deepEqual(
    placed.hessian(b, th, { out: new Float64Array(d * d) }),
    compiled.hessian(a, th, { out: new Float64Array(d * d) }),
  );
  // Compiled again at the same address: the kept module's bytes.
  const again = await compileUserFamily(loadCore(), LOGISTIC_SOURCE);
  assert.deepEqual(again.bytes, compiled.bytes);
  // An arena whose next block is elsewhere, or a shared one, is refused with the addresses.
  const used = loadCore();
  used.alloc(64);
  assert.throws(
    () => UserFamilyKernels.atBlock(used, compiled.bytes, compiled.staticBlock),
    new RegExp(`compiled for a static block at byte ${compiled.staticBlock}, but this arena's`),
  );
  assert.throws(
    () => UserFamilyKernels.atBlock(loadCore({ shared: true }), compiled.bytes, 65536),
    /unshared memory/,
  );
  for (const k of [placed, compiled, again]) k.dispose();
});
