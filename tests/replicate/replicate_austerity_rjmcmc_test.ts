import assert from "node:assert/strict";
import { logGamma } from "../../math/special.ts";
import {
  meanAndSe,
  miniBooNEShaped,
  rjLogRatio,
  rjMoveProbabilities,
  runRjRisk,
} from "../../replicate/r16_austerity_rjmcmc.ts";

/** log of eq. 9 without the likelihood: −k log‖β‖₁ + k log λ + log B(k, D − k + 1). */
function _logPrior(k: number, d: number, l1: number, lambda: number): number {
  const logB = logGamma(k) + logGamma(d - k + 1) - logGamma(d + 1);
  return -k * Math.log(l1) + k * Math.log(lambda) + logB;
}

function _logNormal(v: number, s: number): number {
  return -0.5 * (v / s) ** 2 - Math.log(s * Math.sqrt(2 * Math.PI));
}

Deno.test("R16: the birth, death and update ratios are eq. 9 times Green's proposal ratio, and birth undoes death", () => {
  const d = 51, options = { lambda: 0.7, sigmaBirth: 0.3 };
  for (const k of [1, 2, 12, 49, 50]) {
    const l1 = 3.2, bj = -0.41, l1New = l1 + Math.abs(bj);
    const pk = rjMoveProbabilities(k, d), pk1 = rjMoveProbabilities(k + 1, d);
    assert.ok(Math.abs(pk.birth + pk.death + pk.update - 1) < 1e-15);
    // Birth k → k + 1: pick one of D − k inactive, draw βⱼ; the death back picks one of k + 1 active.
    const expected = _logPrior(k + 1, d, l1New, options.lambda) -
      _logPrior(k, d, l1, options.lambda) +
      Math.log(pk1.death / (k + 1)) - Math.log(pk.birth / (d - k)) -
      _logNormal(bj, options.sigmaBirth);
    const birth = rjLogRatio("birth", k, d, l1, l1New, bj, options);
    assert.ok(Math.abs(birth - expected) < 1e-12, `birth at k = ${k}: ${birth} vs ${expected}`);
    const death = rjLogRatio("death", k + 1, d, l1New, l1, bj, options);
    assert.ok(Math.abs(birth + death) < 1e-12, `death at k = ${k + 1} undoes the birth`);
  }
  assert.equal(rjLogRatio("update", 5, d, 2, 2, 0, options), 0);
  assert.ok(rjLogRatio("update", 5, d, 2, 2.5, 0, options) < 0); // a larger ‖β‖₁ is penalised
});

Deno.test("R16: the stand-in has MiniBooNE's class balance and an 80/20 split", () => {
  const data = miniBooNEShaped(2, 5_000);
  assert.equal(data.d, 51);
  assert.equal(data.yTrain.length, 4_000);
  assert.equal(data.yTest.length, 1_000);
  assert.ok(Math.abs(data.positiveRate - 0.28) < 0.03, `positive rate ${data.positiveRate}`);
  assert.equal(Array.from(data.trueBeta).filter((v, j) => j > 0 && v !== 0).length, 12);
});

Deno.test("R16 (Austerity Fig. 6, small): at equal data budget ε = 0.1 beats exact reversible jump", () => {
  const r = runRjRisk({
    seed: 1,
    n: 4_000,
    epsilons: [0, 0.1],
    numChains: 10,
    truthSteps: 2_000,
    passes: 20,
    numTest: 300,
  });
  const [exact, approx] = r.outcomes;
  assert.equal(exact.fractionOfData, 1);
  assert.ok(approx.stepsPerChain > 2 * exact.stepsPerChain);
  const e = meanAndSe(exact.finalErrors), a = meanAndSe(approx.finalErrors);
  assert.ok(
    e.mean - a.mean > 2 * Math.sqrt(e.se ** 2 + a.se ** 2),
    `risk ε = 0: ${e.mean} ± ${e.se}, ε = 0.1: ${a.mean} ± ${a.se}`,
  );
});
