import assert from "node:assert/strict";
import { Rng } from "../../random/rng.ts";
import { sortedSubset } from "../../subsampling/tuning.ts";

Deno.test("sortedSubset(): m distinct rows, increasing, every row equally likely (both branches)", () => {
  const rng = new Rng(5), n = 50, reps = 4000;
  for (const m of [7, 40]) { // 40 > n/2 draws the 10 rows left out
    const counts = new Float64Array(n);
    for (let r = 0; r < reps; r++) {
      const s = sortedSubset(rng, n, m);
      assert.equal(s.length, m);
      for (let i = 0; i < m; i++) {
        assert.ok(s[i] >= 0 && s[i] < n && (i === 0 || s[i] > s[i - 1]), `${s}`);
        counts[s[i]]++;
      }
    }
    // Inclusion counts are Binomial(reps, m/n): a χ² over the n rows (n − 1
    // degrees of freedom; slightly conservative, the counts are negatively
    // correlated) below its 0.999 quantile ≈ 85.4 for 49 degrees of freedom.
    const p = m / n, e = reps * p;
    let chi2 = 0;
    for (const c of counts) chi2 += (c - e) ** 2 / (e * (1 - p));
    assert.ok(chi2 < 85.4, `m = ${m}: χ² = ${chi2}`);
  }
});

Deno.test("sortedSubset(): edges and bad sizes", () => {
  const rng = new Rng(1);
  assert.deepEqual(sortedSubset(rng, 5, 0), new Int32Array(0));
  assert.deepEqual(sortedSubset(rng, 5, 5), Int32Array.from([0, 1, 2, 3, 4]));
  assert.deepEqual(sortedSubset(rng, 33, 32).length, 32); // partial last word, complement
  assert.throws(() => sortedSubset(rng, 5, 6), /0 ≤ m ≤ n.*m = 6/);
  assert.throws(() => sortedSubset(rng, 5, 1.5), /m = 1.5/);
});
