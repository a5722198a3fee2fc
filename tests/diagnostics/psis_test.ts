/**
 * Pareto-smoothed importance sampling (diagnostics/psis.ts): the tail length,
 * the k̂ threshold, the generalized Pareto fit and tied ratios.
 */
import nodeAssert from "node:assert/strict";
import { gpdFit, paretoKThreshold, psis, psisTailLength } from "../../diagnostics/psis.ts";

const assert = (v: unknown, msg?: string) => nodeAssert.ok(v, msg);
const assertEquals = (a: unknown, b: unknown) => nodeAssert.deepEqual(a, b);
const assertAlmostEquals = (a: number, b: number, tol: number) =>
  nodeAssert.ok(Math.abs(a - b) <= tol, `${a} vs ${b} (tolerance ${tol})`);

Deno.test("psis: tail length, threshold and the GPD fit on exact Pareto exceedances", () => {
  assertEquals(psisTailLength(1000), 95);
  assertEquals(psisTailLength(100), 20);
  assertEquals(psisTailLength(4000, 0.5), 269);
  assertAlmostEquals(paretoKThreshold(4000), 0.7, 1e-15);
  // Generalized Pareto quantiles with k = 0.5, σ = 1 at (j − 0.5)/N: the fit recovers k.
  const n = 2000, k0 = 0.5;
  const x = Float64Array.from(
    { length: n },
    (_, j) => Math.expm1(-k0 * Math.log1p(-(j + 0.5) / n)) / k0,
  );
  const fit = gpdFit(x);
  assert(Math.abs(fit.k - k0) < 0.03 && Math.abs(fit.sigma - 1) < 0.05, JSON.stringify(fit));
  // Equal ratios: weights uniform, k̂ from a constant tail is not fitted.
  const w = psis(new Float64Array(100).fill(3));
  assertAlmostEquals(w.logWeights[7], -Math.log(100), 1e-12);
});

Deno.test("psis: tied ratios at the tail boundary are taken as a stable sort would order them", () => {
  // Values on a 0.1 grid, many tied; a jitter rising with the index breaks the ties in the
  // order of a stable sort without reordering distinct values, so the results must agree.
  const S = 500;
  const raw = Float64Array.from(
    { length: S },
    (_, i) => Math.round(10 * Math.sin(i * 1.3) ** 3) / 10,
  );
  const jittered = raw.map((v, i) => v + i * 1e-12);
  const a = psis(raw), b = psis(jittered);
  assertAlmostEquals(a.paretoK, b.paretoK, 1e-6);
  let worst = 0;
  for (let i = 0; i < S; i++) worst = Math.max(worst, Math.abs(a.logWeights[i] - b.logWeights[i]));
  assert(worst < 1e-6, `log weights differ by ${worst}`);
});
