import assert from "node:assert/strict";
import { matVec, matVecInto } from "../../math/linalg.ts";
import { denseMetric, metricFromNegativeHessian } from "../../samplers/metric.ts";
import { Rng } from "../../random/rng.ts";

/** Row i of A x summed as a plain loop sums it: 0 + a[i,0]x[0] + a[i,1]x[1] + … */
function plainRow(a: Float64Array, n: number, x: Float64Array, i: number): number {
  let s = 0;
  for (let k = 0; k < n; k++) s += a[i * n + k] * x[k];
  return s;
}

/** Bits of a double, so that −0 and 0 (and NaN payloads) are told apart. */
const bits = (v: number) => new BigUint64Array(Float64Array.of(v).buffer)[0];

function randomCase(rng: Rng, n: number) {
  // Magnitudes over many decades, so that a different order of additions would show.
  const a = Float64Array.from({ length: n * n }, () => rng.normal() * 10 ** rng.int(9) * 1e-4);
  const x = Float64Array.from({ length: n }, () => rng.normal() * 10 ** rng.int(9) * 1e-4);
  return { a, x };
}

Deno.test("matVecInto sums every row in the order of the plain loop, to the last bit", () => {
  const rng = new Rng(7);
  for (let n = 1; n <= 33; n++) {
    const { a, x } = randomCase(rng, n);
    if (n === 5) x[2] = -0; // a signed zero among the products
    const out = matVecInto(a, n, x, new Float64Array(n));
    const viaMatVec = matVec(a, x);
    for (let i = 0; i < n; i++) {
      assert.equal(bits(out[i]), bits(plainRow(a, n, x, i)), `n = ${n}, row ${i}`);
      assert.equal(bits(viaMatVec[i]), bits(out[i]));
    }
  }
});

Deno.test("matVecInto would show a reordered sum (the check above can fail)", () => {
  const rng = new Rng(7);
  let differs = 0;
  for (let n = 2; n <= 33; n++) {
    const { a, x } = randomCase(rng, n);
    for (let i = 0; i < n; i++) {
      let s = 0; // summed from the last column to the first
      for (let k = n - 1; k >= 0; k--) s += a[i * n + k] * x[k];
      if (bits(s) !== bits(plainRow(a, n, x, i))) differs++;
    }
  }
  assert(differs > 10, `only ${differs} rows differ in the reverse order`);
});

Deno.test("a dense metric's velocity and kinetic energy are the plain loops' numbers", () => {
  const rng = new Rng(11);
  for (const n of [1, 3, 4, 29, 30]) {
    const l = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < i; j++) l[i * n + j] = 0.3 * rng.normal();
      l[i * n + i] = 1 + rng.uniform();
    }
    const spd = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let k = 0; k < n; k++) s += l[i * n + k] * l[j * n + k];
        spd[i * n + j] = s;
      }
    }
    for (const m of [denseMetric(spd), metricFromNegativeHessian(spd.map((v) => -v))]) {
      const inv = m.inverseMassMatrix, p = Float64Array.from({ length: n }, () => rng.normal());
      const v = m.velocity(p, new Float64Array(n));
      let s = 0;
      for (let i = 0; i < n; i++) {
        const row = plainRow(inv, n, p, i);
        assert.equal(bits(v[i]), bits(row));
        s += p[i] * row;
      }
      assert.equal(bits(m.kineticEnergy(p)), bits(0.5 * s));
    }
  }
});
