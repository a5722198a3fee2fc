/**
 * Tests of the RCT/bias/step-size helpers behind replication experiments R2
 * and R4 (replicate/rct_common.ts): exact values from hand-computed inputs.
 */
import { strict as assert } from "node:assert";
import {
  chooseStepSize,
  equalCountBins,
  evaluationsPerEffectiveDraw,
  largestEigenvalue,
  momentErrors,
  monteCarloFloor,
  predictiveMean,
  rctRange,
  thinEvenly,
  weightedMoments,
} from "../replicate/rct_common.ts";

Deno.test("rctRange() claim: RCT_j = (IF_j·E/R) / (IF_ref,j·E_ref/R_ref), eqs. 2, 18, 19", async (t) => {
  await t.step("equal draws: the paper's IF × evaluations ratio", () => {
    // Method: IF (3, 6, 1.5), E = 6000; reference: IF (1.5, 2, 1.5), E = 2000; R = 1000 both.
    // CT ratio per parameter: (3·6000)/(1.5·2000) = 6, (6·6000)/(2·2000) = 9, (1.5·6000)/(1.5·2000) = 3.
    const r = rctRange(
      { inefficiency: [3, 6, 1.5], evaluations: 6000, numDraws: 1000, tau: 1 },
      { inefficiency: [1.5, 2, 1.5], evaluations: 2000, numDraws: 1000, tau: 1 },
    );
    assert.deepEqual(r.values, [6, 9, 3]);
    assert.deepEqual([r.min, r.median, r.max], [3, 6, 9]);
  });
  await t.step("different draw counts are normalised per kept draw", () => {
    // Twice the draws for twice the evaluations at the same IF is the same cost per draw.
    const r = rctRange(
      { inefficiency: [2, 2], evaluations: 4000, numDraws: 2000, tau: 1 },
      { inefficiency: [2, 2], evaluations: 2000, numDraws: 1000, tau: 1 },
    );
    assert.deepEqual(r.values, [1, 1]);
  });
  await t.step("signed: CT divided by (2τ̂ − 1)² (eq. 18)", () => {
    // τ̂ = 0.75: (2τ̂ − 1)² = 0.25, so RCT = 4 × the IF·E ratio (here 1).
    const r = rctRange(
      { inefficiency: [1, 1], evaluations: 100, numDraws: 10, tau: 0.75 },
      { inefficiency: [1, 1], evaluations: 100, numDraws: 10, tau: 1 },
    );
    assert.deepEqual(r.values, [4, 4]);
    assert.equal(
      evaluationsPerEffectiveDraw({ inefficiency: [], evaluations: 100, numDraws: 10, tau: 0.75 }),
      40,
    );
  });
  await t.step("τ̂ ≤ ½ or a non-finite IF gives Infinity", () => {
    const r = rctRange(
      { inefficiency: [1, 1], evaluations: 100, numDraws: 10, tau: 0.5 },
      { inefficiency: [1, 1], evaluations: 100, numDraws: 10, tau: 1 },
    );
    assert.equal(r.median, Infinity);
    const s = rctRange(
      { inefficiency: [1, Infinity], evaluations: 100, numDraws: 10, tau: 1 },
      { inefficiency: [1, 1], evaluations: 100, numDraws: 10, tau: 1 },
    );
    assert.equal(s.max, Infinity);
  });
  await t.step("bad inputs are named", () => {
    assert.throws(
      () => evaluationsPerEffectiveDraw({ inefficiency: [], evaluations: 1, numDraws: 0, tau: 1 }),
      /numDraws must be positive, got 0/,
    );
    assert.throws(
      () =>
        evaluationsPerEffectiveDraw({ inefficiency: [], evaluations: 1, numDraws: 1, tau: 1.5 }),
      /tau must be in \[0, 1\], got 1.5/,
    );
    assert.throws(
      () =>
        rctRange(
          { inefficiency: [1, 2], evaluations: 1, numDraws: 1, tau: 1 },
          { inefficiency: [1], evaluations: 1, numDraws: 1, tau: 1 },
        ),
      /same parameters, got 2 and 1/,
    );
  });
});

Deno.test("momentErrors() claim: errors in reference posterior-sd units", async (t) => {
  await t.step("exact z values and summaries", () => {
    // Reference sds 2 and 1. Means off by 1 and −0.5 → z = 0.5, −0.5.
    // Estimated sds 3 and 1 → z(sd) = 0.5, 0.
    const e = momentErrors(
      { mean: [1, -0.5], variance: [9, 1] },
      { mean: [0, 0], variance: [4, 1] },
    );
    assert.deepEqual(e.zMean, [0.5, -0.5]);
    assert.deepEqual(e.zSd, [0.5, 0]);
    assert.equal(e.rmsMean, 0.5);
    assert.equal(e.maxMean, 0.5);
    assert.equal(e.maxSd, 0.5);
    assert.equal(e.rmsSd, Math.sqrt(0.125));
    // combined = √((0.25 + 0.25 + 0.25 + 0) / 4)
    assert.equal(e.combined, Math.sqrt(0.75 / 4));
  });
  await t.step("a diverged estimate gives Infinity, a bad reference throws", () => {
    const e = momentErrors({ mean: [NaN], variance: [1] }, { mean: [0], variance: [1] });
    assert.equal(e.rmsMean, Infinity);
    assert.throws(
      () => momentErrors({ mean: [0], variance: [1] }, { mean: [0], variance: [0] }),
      /reference.variance\[0\] must be positive, got 0/,
    );
  });
});

Deno.test("monteCarloFloor() claim: rms z(mean) from Monte Carlo error alone", () => {
  // √(mean(2/400 + 1/400)) = √(3/400)
  assert.equal(
    monteCarloFloor({ inefficiency: [2, 2], numDraws: 400 }, {
      inefficiency: [1, 1],
      numDraws: 400,
    }),
    Math.sqrt(3 / 400),
  );
  // Different IFs per parameter: mean of (1/100 + 1/100, 3/100 + 1/100) = 0.03.
  assert.equal(
    monteCarloFloor({ inefficiency: [1, 3], numDraws: 100 }, {
      inefficiency: [1, 1],
      numDraws: 100,
    }),
    Math.sqrt(0.03),
  );
});

Deno.test("chooseStepSize() claim: smallest error, ties to the larger ε, unstable skipped", () => {
  assert.equal(
    chooseStepSize([
      { stepSize: 0.01, error: 0.4 },
      { stepSize: 0.03, error: 0.2 },
      { stepSize: 0.1, error: 0.25 },
      { stepSize: 0.3, error: Infinity },
    ]),
    1,
  );
  assert.equal(
    chooseStepSize([{ stepSize: 0.01, error: 0.2 }, { stepSize: 0.1, error: 0.2 }]),
    1,
  );
  assert.equal(chooseStepSize([{ stepSize: 0.1, error: NaN }, { stepSize: 0.01, error: 3 }]), 1);
  assert.throws(() => chooseStepSize([]), /grid is empty/);
  assert.throws(
    () => chooseStepSize([{ stepSize: 0.5, error: Infinity }]),
    /every step size on the grid was unstable: 0.5/,
  );
});

Deno.test("weightedMoments() claim: Σψs/Σs estimates of E[θ] and Var θ (eq. 17)", () => {
  const draws = [[new Float64Array([1, 2, 3, 4])], [new Float64Array([5, 6, 7, 8])]];
  const plain = weightedMoments(draws);
  assert.equal(plain.mean[0], 4.5);
  assert.equal(plain.variance[0], 5.25); // population variance of 1..8
  // Signs −1 on the draws 3 and 8: Σs = 4, Σsθ = 36 − 2·11 = 14, Σsθ² = 204 − 2·73 = 58.
  const signed = weightedMoments(draws, [
    new Float64Array([1, 1, -1, 1]),
    new Float64Array([1, 1, 1, -1]),
  ]);
  assert.equal(signed.mean[0], 14 / 4);
  assert.equal(signed.variance[0], 58 / 4 - (14 / 4) ** 2);
  assert.throws(
    () => weightedMoments(draws, [new Float64Array(3), new Float64Array(4)]),
    /signs\[0\] must have 4 values, got 3/,
  );
});

Deno.test("largestEigenvalue() claim: power iteration on a symmetric matrix", () => {
  // diag(5, 2, 1) rotated is still 5; [[2,1],[1,2]] has 3.
  assert.ok(Math.abs(largestEigenvalue(new Float64Array([2, 1, 1, 2])) - 3) < 1e-9);
  assert.ok(Math.abs(largestEigenvalue(new Float64Array([5, 0, 0, 0, 2, 0, 0, 0, 1])) - 5) < 1e-9);
  assert.throws(
    () => largestEigenvalue(new Float64Array(3)),
    /matrix must be square, got 3 entries/,
  );
});

Deno.test("equalCountBins() claim: equal-size groups along x with mean x and y", () => {
  const x = [10, 1, 7, 3, 5, 9, 2, 8, 4, 6];
  const y = x.map((v) => (v > 5 ? 1 : 0));
  const b = equalCountBins(x, y, 5);
  assert.deepEqual(b.x, [1.5, 3.5, 5.5, 7.5, 9.5]);
  assert.deepEqual(b.y, [0, 0, 0.5, 1, 1]);
  assert.deepEqual(b.upper, [2, 4, 6, 8, 10]);
  assert.deepEqual(b.count, [2, 2, 2, 2, 2]);
  // 7 rows in 3 groups: sizes 2, 2, 3 (floor boundaries).
  assert.deepEqual(equalCountBins([1, 2, 3, 4, 5, 6, 7], [0, 0, 0, 0, 0, 0, 0], 3).count, [
    2,
    2,
    3,
  ]);
  assert.throws(() => equalCountBins([1, 2], [0], 1), /equal lengths, got 2 and 1/);
  assert.throws(
    () => equalCountBins([1, 2], [0, 1], 3),
    /numBins must be an integer in \[1, 2\], got 3/,
  );
});

Deno.test("thinEvenly() and predictiveMean() claims", () => {
  assert.deepEqual(thinEvenly([0, 1, 2, 3, 4, 5, 6, 7, 8], 3), [0, 4, 8]);
  assert.deepEqual(thinEvenly([1, 2], 5), [1, 2]);
  // Two rows, d = 2, two draws θ = (0, 0) and (0, ln 3): σ(0) = ½; row (1, 1) under the
  // second draw gives σ(ln 3) = ¾, row (1, 0) gives ½.
  const p = predictiveMean([1, 1, 1, 0], [[0, 0], [0, Math.log(3)]], 2);
  assert.ok(Math.abs(p[0] - (0.5 + 0.75) / 2) < 1e-15);
  assert.ok(Math.abs(p[1] - 0.5) < 1e-15);
});
