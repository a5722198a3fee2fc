/**
 * Tests of the RCT/bias/step-size helpers behind replication experiments R2
 * and R4 (replicate/method_outcome.ts, moment_errors.ts, sg_step_size.ts,
 * predictive.ts): exact values from hand-computed inputs.
 */
import { strict as assert } from "node:assert";
import { Rng } from "../../random/rng.ts";
import type { SamplingResult } from "../../samplers/driver.ts";
import { thinEvenly } from "../../replicate/figures.ts";
import {
  medianRct,
  type MethodOutcome,
  rctOf,
  rctSamplingOnly,
} from "../../replicate/method_outcome.ts";
import { momentErrors, monteCarloFloor, posteriorMoments } from "../../replicate/moment_errors.ts";
import { equalCountBins, predictedBand, predictiveMean } from "../../replicate/predictive.ts";
import { chooseStepSize, largestEigenvalue } from "../../replicate/sg_step_size.ts";

/** A method outcome with only what the RCT reads (R = 1000 draws and τ̂ = 1 unless told). */
function _method(
  key: string,
  cost: { inefficiency: number[]; evaluations: number; numDraws?: number; tau?: number },
  evaluationsSampling = cost.evaluations,
): MethodOutcome {
  return { key, numDraws: 1000, tau: 1, ...cost, evaluationsSampling } as unknown as MethodOutcome;
}

Deno.test("rctOf() claim: the library's RCT per kept draw with the sign penalty (eqs. 2, 18, 19)", async (t) => {
  const reference = _method(
    "ecs_perturbed",
    { inefficiency: [1.5, 2, 1.5], evaluations: 2000 },
    1000,
  );
  // CT ratio per parameter: (3·6000)/(1.5·2000) = 6, (6·6000)/(2·2000) = 9, (1.5·6000)/(1.5·2000) = 3.
  const sgld = _method("sgld", { inefficiency: [3, 6, 1.5], evaluations: 6000 });
  await t.step("equal draws: the paper's IF × evaluations ratio", () => {
    const r = rctOf(sgld, reference);
    assert.deepEqual(r.values, [6, 9, 3]);
    assert.deepEqual([r.min, r.median, r.max], [3, 6, 9]);
  });
  await t.step("signed: τ̂ = 0.75 multiplies CT by 1/(2τ̂ − 1)² = 4", () => {
    const signed = _method("ecs_signed", {
      inefficiency: [1.5, 2, 1.5],
      evaluations: 2000,
      tau: 0.75,
    });
    assert.deepEqual(rctOf(signed, reference).values, [4, 4, 4]);
  });
  await t.step("τ̂ ≤ ½ or a non-finite IF gives Infinity for every parameter", () => {
    const lost = _method("ecs_signed", { inefficiency: [1, 1, 1], evaluations: 100, tau: 0.5 });
    assert.deepEqual(rctOf(lost, reference).values, [Infinity, Infinity, Infinity]);
    const stuck = _method("sgld", { inefficiency: [1, Infinity, 1], evaluations: 100 });
    const r = rctOf(stuck, reference);
    assert.deepEqual([r.min, r.median, r.max], [Infinity, Infinity, Infinity]);
  });
  await t.step("rctSamplingOnly() charges HMC-ECS and HMC their post-warmup evaluations", () => {
    // The SG method keeps its 6000, the reference is charged 1000 instead of 2000: twice the RCT.
    assert.deepEqual(rctSamplingOnly(sgld, reference).values, [12, 18, 6]);
    assert.deepEqual(rctSamplingOnly(reference, reference).values, [1, 1, 1]);
  });
  await t.step(
    "medianRct() is the median for the prose, NaN for a missing or diverged method",
    () => {
      assert.equal(medianRct(sgld, reference), 6);
      assert.equal(medianRct(sgld, reference, { samplingOnly: true }), 12);
      assert.ok(Number.isNaN(medianRct(undefined, reference)));
      assert.ok(Number.isNaN(medianRct({ ...sgld, unstable: true }, reference)));
    },
  );
  await t.step("bad inputs are named", () => {
    const short = _method("sgld", { inefficiency: [1, 2], evaluations: 1 });
    assert.throws(() => rctOf(short, reference), /same parameters, got 2 and 3/);
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

/** A two-chain run of one parameter, with optional signs per chain. */
function _run(draws: number[][], signs?: number[][]): SamplingResult {
  return {
    parameterNames: ["a"],
    numChains: draws.length,
    numDraws: draws[0].length,
    thin: 1,
    draws: draws.map((c) => [Float64Array.from(c)]),
    chains: draws.map((c, i) => ({
      draws: [Float64Array.from(c)],
      info: { warmup: {}, sampling: signs ? { sign: Float64Array.from(signs[i]) } : {} },
    })),
  } as unknown as SamplingResult;
}

Deno.test("posteriorMoments() claim: pooled Σψs/Σs estimates of E[θ] and Var θ (eq. 17)", () => {
  const plain = posteriorMoments(_run([[1, 2, 3, 4], [5, 6, 7, 8]]));
  assert.equal(plain.mean[0], 4.5);
  assert.equal(plain.variance[0], 5.25); // population variance of 1..8
  // Signs −1 on the draws 3 and 8: Σs = 4, Σsθ = 36 − 2·11 = 14, Σsθ² = 204 − 2·73 = 58.
  const signed = posteriorMoments(
    _run([[1, 2, 3, 4], [5, 6, 7, 8]], [[1, 1, -1, 1], [1, 1, 1, -1]]),
  );
  assert.equal(signed.mean[0], 14 / 4);
  assert.equal(signed.variance[0], 58 / 4 - (14 / 4) ** 2);
  // As many negative as positive signs: undefined, reported as NaN.
  const lost = posteriorMoments(_run([[1, 2]], [[1, -1]]));
  assert.ok(Number.isNaN(lost.mean[0]) && Number.isNaN(lost.variance[0]));
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
  // Several draws (four at a time and a tail of three): the plain loop's numbers bit for bit,
  // per row Σ over the thinned draws in order of σ(Σⱼ xⱼθⱼ) summed over j in order.
  const rng = new Rng("predictive"), d = 5, rows = 40;
  const x = Float32Array.from({ length: rows * d }, () => rng.normal());
  const draws = Array.from({ length: d }, () => rng.fillNormal(new Float64Array(30)));
  const got = predictiveMean(x, draws, 7), ks = thinEvenly([...draws[0].keys()], 7);
  assert.equal(ks.length, 7);
  for (let i = 0; i < rows; i++) {
    let sum = 0;
    for (const k of ks) {
      let eta = 0;
      for (let j = 0; j < d; j++) eta += x[i * d + j] * draws[j][k];
      sum += 1 / (1 + Math.exp(-eta));
    }
    assert.equal(got[i], sum / ks.length, `row ${i}`);
  }
});

Deno.test("predictedBand() claim: group means of σ(xᵀθ) over draws, with a pointwise band", () => {
  // d = 1, rows x = 0 and x = ln 3 in groups 0 and 1; draws θ = 1 and θ = 2.
  // Group 0: σ(0) = ½ under both draws. Group 1: σ(ln 3) = ¾ and σ(2 ln 3) = 9/10.
  const band = predictedBand([0, Math.log(3)], {
    rows: Int32Array.from([0, 1]),
    group: Int32Array.from([0, 1]),
    numGroups: 2,
  }, { draws: [[1, 2]], numDraws: 2 });
  const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;
  assert.deepEqual([band.mean[0], band.lo[0], band.hi[0]], [0.5, 0.5, 0.5]);
  assert.ok(close(band.mean[1], (0.75 + 0.9) / 2));
  // Type-7 quantiles of two values: 0.75 + p·0.15.
  assert.ok(close(band.lo[1], 0.75 + 0.05 * 0.15) && close(band.hi[1], 0.75 + 0.95 * 0.15));
});
