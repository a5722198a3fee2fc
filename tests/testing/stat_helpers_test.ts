import { throws } from "node:assert/strict";
import { Rng } from "../../random/rng.ts";
import { assertEnoughEss, assertMatchesGaussian, assertMeanWithinMcse } from "../_stat.ts";

/** Two chains of exact N(μ, Σ) draws, Σ = [[1, 1.2], [1.2, 4]] (ρ = 0.6). */
function gaussianDraws(seed: number, n: number): Float64Array[][] {
  const rng = new Rng(seed);
  return [0, 1].map(() => {
    const a = new Float64Array(n), b = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const z1 = rng.normal(), z2 = rng.normal();
      a[i] = 1 + z1;
      b[i] = -1 + 2 * (0.6 * z1 + 0.8 * z2);
    }
    return [a, b];
  });
}

Deno.test("assertMatchesGaussian() passes exact draws and fails a wrong target", async (t) => {
  const draws = gaussianDraws(3, 2000);
  await t.step("the true N(μ, Σ) passes", () => {
    assertMatchesGaussian(draws, [1, -1], [1, 1.2, 1.2, 4]);
  });
  await t.step("the opposite correlation fails", () => {
    throws(() => assertMatchesGaussian(draws, [1, -1], [1, -1.2, -1.2, 4]));
  });
  await t.step("a mean off by 0.2 (≈ 9 MCSE) fails", () => {
    throws(() => assertMeanWithinMcse(draws.map((c) => c[0]), 1.2));
  });
  await t.step("a band on too few effective draws fails", () => {
    const stuck = [new Float64Array(200).map((_, i) => Math.floor(i / 50))];
    throws(() => assertEnoughEss(stuck, 100), /bulk-ESS/);
  });
});
