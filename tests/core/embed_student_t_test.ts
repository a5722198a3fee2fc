/**
 * The Student-t distribution function of math/student_t.ts against the
 * values of the package it replaced (`npm:@stdlib/stats-base-dists-t-cdf`,
 * tabulated in tests/fixtures/student_t_cdf.json on a grid of ν and t that
 * covers the austerity tests' degrees of freedom, ν ≤ 3000, and beyond).
 */
import assert from "node:assert/strict";
import { studentTCdf } from "../../math/student_t.ts";
import { tPValue } from "../../subsampling/austerity.ts";

const fixture = JSON.parse(
  await Deno.readTextFile(new URL("../fixtures/student_t_cdf.json", import.meta.url)),
) as { nus: number[]; ts: number[]; values: number[][] };

Deno.test("studentTCdf matches the replaced implementation to 1e-12 relative, tails included", () => {
  let worst = 0, count = 0;
  for (let i = 0; i < fixture.nus.length; i++) {
    for (let j = 0; j < fixture.ts.length; j++) {
      const want = fixture.values[i][j];
      if (want < 1e-300) continue; // below the normal range of doubles
      const got = studentTCdf(fixture.ts[j], fixture.nus[i]);
      const rel = Math.abs(got - want) / want;
      assert.ok(rel <= 1e-12, `ν = ${fixture.nus[i]}, t = ${fixture.ts[j]}: ${got} vs ${want}`);
      worst = Math.max(worst, rel);
      count++;
    }
  }
  assert.ok(count > 4000, `${count} points compared`);
  console.log(
    `student t cdf: ${count} points, worst relative difference ${worst.toExponential(2)}`,
  );
});

Deno.test("studentTCdf: symmetry, limits and invalid arguments", () => {
  for (const nu of [1, 7, 300]) {
    for (const t of [0.3, 2, 11]) {
      assert.ok(Math.abs(studentTCdf(t, nu) + studentTCdf(-t, nu) - 1) < 1e-15);
    }
    assert.equal(studentTCdf(0, nu), 0.5);
    assert.equal(studentTCdf(Infinity, nu), 1);
    assert.equal(studentTCdf(-Infinity, nu), 0);
  }
  // ν = 1 is the Cauchy distribution: F(t) = ½ + atan(t)/π.
  for (const t of [-50, -3, -0.5, 0.2, 4]) {
    const cauchy = 0.5 + Math.atan(t) / Math.PI;
    assert.ok(Math.abs(studentTCdf(t, 1) - cauchy) < 1e-15 * Math.max(1, 1 / cauchy));
  }
  assert.ok(Number.isNaN(studentTCdf(NaN, 3)));
  assert.ok(Number.isNaN(studentTCdf(1, 0)));
  assert.ok(Number.isNaN(studentTCdf(1, -2)));
  assert.equal(tPValue(-2.5, 12), tPValue(2.5, 12));
  assert.equal(tPValue(Infinity, 12), 0);
});
