/**
 * Tests of diagnostics/ ESS and R̂: ESS and IF of AR(1) chains with known
 * ESS, cross-checks against ArviZ and hand computations, rhat(), essTail(),
 * essQuantile() and essSd(). Tolerances are derived from the estimators'
 * sampling variability (see the comments).
 */

import assert from "node:assert/strict";
import {
  essBasic,
  essBulk,
  essMean,
  essQuantile,
  essSd,
  essTail,
  inefficiencyFactor,
  mcseMean,
  mcseQuantile,
  mcseSd,
  rhat,
  rhatBasic,
} from "../../diagnostics/mod.ts";
import {
  ar1Chain,
  iidChains,
  normalGenerator,
  relativeError,
  xorshift128,
} from "../_diagnostics_fixtures.ts";

// ---------------------------------------------------------------------------
// AR(1) chains with known ESS. For a stationary AR(1) with coefficient φ,
// ρ_t = φ^t, so τ = 1 + 2Σφ^t = (1 + φ)/(1 − φ) and ESS = S(1 − φ)/(1 + φ).
//
// Tolerance 5%, checked offline against the estimators' sampling variability
// (this generator, 20–40 seeds; relative error of the estimate vs. the closed
// form: mean, sd and largest |error| over seeds):
//   4×10,000,  φ = 0.9: essBasic/essBulk +1.6% ± 5.7% (max 11%), IF-AR −2.3% ± 3.5%
//   4×10,000,  φ = 0.5: essBasic/essBulk +0.7% ± 3.9% (max 9%),  IF-AR −0.9% ± 2.5%
//     → 5% is about one sd at n = 10,000, so these tests use longer chains:
//   4×131,072, φ = 0.5: essBasic/essBulk +0.0% ± 1.1% (max 2.4%), IF-AR −0.0% ± 0.6%
//   4×262,144, φ = 0.9: essBasic/essBulk −0.2% ± 1.4% (max 3.2%): only 3.5 sd, so
//   4×524,288, φ = 0.9: essBasic/essBulk −0.3% ± 1.1% (max 2.6%), IF-AR −0.1% ± 0.5%
// is used: 5% is at least 4.2 sd from the mean error for every estimator here,
// and about 9 sd for the IF. (Lengths are powers of two so the split halves
// fill the radix-2 FFT exactly.)

const AR_CASES = [
  { phi: 0.5, n: 131072, seed: 20210 },
  { phi: 0.9, n: 524288, seed: 20211 },
] as const;

Deno.test("ESS and IF of AR(1) chains", async (t) => {
  for (const { phi, n, seed } of AR_CASES) {
    const normal = normalGenerator(seed);
    const chains = Array.from({ length: 4 }, () => ar1Chain(phi, n, normal));
    const essTrue = (4 * n * (1 - phi)) / (1 + phi);
    const tauTrue = (1 + phi) / (1 - phi);

    await t.step(`essBasic() is within 5% of S(1−φ)/(1+φ) for φ = ${phi}`, () => {
      const ess = essBasic(chains);
      assert.ok(relativeError(ess, essTrue) < 0.05, `ess ${ess} vs ${essTrue}`);
    });

    await t.step(`essBulk() is within 5% of S(1−φ)/(1+φ) for φ = ${phi}`, () => {
      const ess = essBulk(chains);
      assert.ok(relativeError(ess, essTrue) < 0.05, `bulk ess ${ess} vs ${essTrue}`);
    });

    await t.step(`inefficiencyFactor() is within 5% of (1+φ)/(1−φ) for φ = ${phi}`, () => {
      const inefficiency = inefficiencyFactor(chains);
      assert.ok(relativeError(inefficiency, tauTrue) < 0.05, `IF ${inefficiency} vs ${tauTrue}`);
    });
  }
});

Deno.test("ESS cross-checks", async (t) => {
  await t.step("essBasic() matches a step-by-step hand computation", () => {
    // Two chains, unsplit, n = 7 (all values exact fractions):
    //   a = 1 2 3 2 1 2 3: mean 2,    γ_0..3 = 4/7, 0, −3/7, 0
    //   b = 2 3 2 1 2 3 4: mean 17/7, γ_0..3 = 40/49, 68/343, −95/343, −104/343
    //   W = mean γ_0 · n/(n−1) = 17/21; var(means) = 9/98; var⁺ = 6/7·W + 9/98 = 11/14
    //   ρ̂_t = 1 − (W − mean γ_t)/var⁺: ρ̂_1 = 155/1617, ρ̂_2 = −775/1617, ρ̂_3 = −361/1617
    //   Geyer: ρ̂_0 = 1; pair (ρ̂_0 + ρ̂_1) > 0, the loop (t < n − 5 = 2) checks
    //   pair (ρ̂_2, ρ̂_3) < 0 and stops with T = 2 without storing it; ρ̂_2 < 0 so
    //   the antithetic term is 0. τ̂ = −1 + 2(1 + 155/1617) + 0 = 1927/1617
    //   ≥ 1/log₁₀ 14, so ESS = 14 / τ̂ = 22638/1927.
    const a = [1, 2, 3, 2, 1, 2, 3];
    const b = [2, 3, 2, 1, 2, 3, 4];
    const ess = essBasic([a, b], { split: false });
    assert.ok(Math.abs(ess - 22638 / 1927) < 1e-12, `${ess}`);
  });

  // Four AR(1) chains of 100 draws built from xorshift128 uniforms with exact
  // IEEE operations, so Python reproduces them bit for bit. Reference values
  // from ArviZ 0.23.4 (az.ess method="mean" and "quantile", az.rhat
  // method="split", az.mcse method="mean"), whose definitions coincide with
  // posterior's when Geyer's sequence truncates early, as it does here.
  const u = xorshift128(2021);
  const chains = Array.from({ length: 4 }, () => {
    let prev = 0;
    return Array.from({ length: 100 }, () => (prev = 0.5 * prev + (u() - 0.5)));
  });

  await t.step("essMean() matches ArviZ to 1e-12", () => {
    assert.ok(relativeError(essMean(chains), 143.06714821653713) < 1e-12);
  });
  await t.step("essQuantile() matches ArviZ to 1e-12", () => {
    assert.ok(relativeError(essQuantile(chains, 0.05), 341.6129958567503) < 1e-12);
  });
  await t.step("rhatBasic() matches ArviZ to 1e-12", () => {
    assert.ok(relativeError(rhatBasic(chains), 1.0275433829363771) < 1e-12);
  });
  // ArviZ ranks with offset ½, posterior ≥ 1.0 with Blom's 3/8; these two
  // references apply ArviZ's internal _ess/_rhat to split chains rank-
  // normalised with scipy's rankdata and ndtri((r − 3/8)/(S + 1/4)).
  await t.step("essBulk() matches the Blom-rank-normalised ArviZ ESS to 1e-12", () => {
    assert.ok(relativeError(essBulk(chains), 141.55367883189342) < 1e-12);
  });
  await t.step("rhat() matches the Blom-rank-normalised, folded ArviZ R̂ to 1e-12", () => {
    assert.ok(relativeError(rhat(chains), 1.0290356650448313) < 1e-12);
  });
  await t.step("mcseMean() matches ArviZ to 1e-12", () => {
    assert.ok(relativeError(mcseMean(chains), 0.02583691533420418) < 1e-12);
  });

  await t.step("essMean() equals essBasic() with split chains", () => {
    assert.equal(essMean(chains), essBasic(chains));
    assert.equal(essMean(chains), essBasic(chains, { split: true }));
  });

  await t.step("essBulk() is invariant under monotone transformations", () => {
    const transformed = chains.map((c) => c.map((v) => Math.exp(3 * v)));
    assert.equal(essBulk(transformed), essBulk(chains));
  });

  await t.step("essBulk() depends on the draws only through their average ranks", () => {
    // Negative values, −0 and +0, and ties: replacing every draw by its
    // average rank (computed naively here) must not change the result.
    const draws = [
      [-3.5, 0, 2, -0, 2, 7, -1e-300, 5, 2, -3.5],
      [1, -0, 4, 4, -2, 0, 9, -7e10, 3, 1e-300],
      [2, 2, 2, -1, 0.5, 6, -0.5, 8, -3.5, 4],
    ];
    const pooled = draws.flat();
    const ranks = draws.map((c) =>
      c.map((v) => {
        const below = pooled.filter((w) => w < v).length;
        const equal = pooled.filter((w) => w === v).length;
        return below + (equal + 1) / 2;
      })
    );
    assert.equal(essBulk(draws), essBulk(ranks));
  });

  await t.step("essBasic() is capped at S·log₁₀(S) for antithetic chains", () => {
    // ρ̂_1 ≈ −1 makes τ̂ fall below the floor 1/log₁₀(S).
    const alternating = [0, 1, 2, 3].map(() => Array.from({ length: 50 }, (_, i) => i % 2));
    assert.ok(relativeError(essBasic(alternating), 200 * Math.log10(200)) < 1e-12);
  });

  await t.step("ESS functions return NaN for constant draws, as posterior", () => {
    const constant = [[2, 2, 2, 2, 2, 2], [2, 2, 2, 2, 2, 2]];
    assert.ok(Number.isNaN(essBasic(constant)));
    assert.ok(Number.isNaN(essBulk(constant)));
    assert.ok(Number.isNaN(rhat(constant)));
  });
});

// Chains of iid N(0, 1) draws for the R̂ and tail-ESS claims.
Deno.test("rhat() and rhatBasic()", async (t) => {
  await t.step("rhatBasic() matches the hand-computed value", () => {
    // means 2.5, 3.5 → B/N = 0.5; variances 5/3 → W = 5/3;
    // R̂ = √((3/4 · 5/3 + 0.5) / (5/3)) = √1.05
    const r = rhatBasic([[1, 2, 3, 4], [2, 3, 4, 5]], { split: false });
    assert.ok(Math.abs(r - Math.sqrt(1.05)) < 1e-14);
  });

  const iid = iidChains(4, 4000, 7);

  await t.step("rhat() < 1.01 for four well-mixed iid chains", () => {
    // With M = 8 split chains of m = 2000 iid draws, R̂² ≈ 1 + (F − 1)/m with
    // F = B/W ~ χ²₇/7, so R̂ ≥ 1.01 needs F > 41: probability < 1e-50.
    // (Measured over 40 seeds at m = 500: mean 1.0003, sd 0.0005.)
    assert.ok(rhat(iid) < 1.01, `${rhat(iid)}`);
    assert.ok(rhatBasic(iid) < 1.01);
  });

  await t.step("rhat() > 1.1 when two of four chains are shifted by 1 sd", () => {
    // Split means fall in two groups 1 sd apart; after rank normalisation
    // (pooled variance 1.25) B/W ≈ 0.286, so R̂ ≈ √1.286 ≈ 1.134. Over 40
    // seeds at 1,000 draws per chain: mean 1.136, sd 0.009; sd halves at 4,000.
    const shifted = iid.map((c, k) => (k >= 2 ? c.map((v) => v + 1) : c));
    assert.ok(rhat(shifted) > 1.1, `${rhat(shifted)}`);
    assert.ok(rhatBasic(shifted) > 1.1);
  });

  await t.step("rhat() detects a chain with a different scale (folded R̂)", () => {
    const scaled = iid.map((c, k) => (k === 3 ? c.map((v) => 3 * v) : c));
    // Bulk split-R̂ sees equal means; the folded one sees |x − median| differ.
    assert.ok(rhatBasic(scaled) < 1.01);
    assert.ok(rhat(scaled) > 1.1, `${rhat(scaled)}`);
  });

  await t.step("rhat() rejects bad input", () => {
    assert.throws(() => rhat([[1, 2, 3]]), {
      name: "RangeError",
      message: /chains\[0\] must have at least 4 values, got 3/,
    });
    assert.throws(() => rhatBasic([[1, 2, 3, 4]], { split: false }), {
      name: "RangeError",
      message: /at least 2 chains when split is false, got 1/,
    });
    assert.throws(() => rhat([[1, 2, 3, 4], [1, 2, 3, 4, 5]]), {
      name: "RangeError",
      message: /same length, got 4 for chains\[0\] and 5 for chains\[1\]/,
    });
    assert.throws(() => rhat([[1, 2, 3, NaN]]), {
      name: "RangeError",
      message: /chains\[0\]\[3\] must be finite, got NaN/,
    });
  });
});

Deno.test("essTail(), essQuantile() and essSd()", async (t) => {
  const iid = iidChains(4, 1000, 8);
  const S = 4000;

  await t.step("essTail() detects a chain with a different scale that essBulk() misses", () => {
    // Chain 4 has sd 3. The pooled 5% quantile is ≈ −2.65, below which chains
    // 1–3 put 0.4% of their draws and chain 4 18.6%. The split indicator means
    // then vary between chains (var ≈ 0.0071 against W ≈ 0.041), so ρ̂_t ≈
    // 0.148 at every lag and tail-ESS collapses to ≈ 30 (40 seeds: mean 35,
    // max 41), while bulk-ESS stays near S (mean 3928, min 3316) and tail-ESS
    // of equal-scale chains too (mean 3798, min 3457).
    const scaled = iid.map((c, k) => (k === 3 ? c.map((v) => 3 * v) : c));
    assert.ok(essTail(scaled) < 0.1 * S, `${essTail(scaled)}`);
    assert.ok(essBulk(scaled) > 0.5 * S, `${essBulk(scaled)}`);
    assert.ok(essTail(iid) > 0.5 * S, `${essTail(iid)}`);
  });

  await t.step("essTail() is the smaller of the 5% and 95% quantile ESS", () => {
    assert.equal(essTail(iid), Math.min(essQuantile(iid, 0.05), essQuantile(iid, 0.95)));
  });

  await t.step("essQuantile() handles p = 0 and p = 1 like posterior", () => {
    // p = 1 uses (S − ½)/S, so the indicator is not constant; p = 0 marks the
    // minimum only.
    assert.ok(essQuantile(iid, 1) > 0);
    assert.ok(essQuantile(iid, 0) > 0);
  });

  await t.step("essSd() is the split ESS of (x − mean)², as posterior ≥ 1.6.1", () => {
    let mean = 0;
    for (const c of iid) for (const v of c) mean += v / S;
    const squared = iid.map((c) => c.map((v) => (v - mean) ** 2));
    assert.ok(relativeError(essSd(iid), essMean(squared)) < 1e-12);
  });

  await t.step("ESS functions reject bad input with messages naming it", () => {
    const ok = [1, 2, 3, 4, 5, 6];
    for (const f of [essBasic, essBulk, essTail, essMean, essSd, mcseMean, mcseSd]) {
      assert.throws(() => f([]), {
        name: "RangeError",
        message: /chains must contain at least 1 chain, got 0/,
      });
      assert.throws(() => f([[1, 2, 3, 4, 5]]), {
        name: "RangeError",
        message: /chains\[0\] must have at least 6 values, got 5/,
      });
      assert.throws(() => f([ok, [1, 2, 3, 4, 5, 6, 7]]), {
        name: "RangeError",
        message: /same length, got 6 for chains\[0\] and 7 for chains\[1\]/,
      });
      assert.throws(() => f([ok, [1, 2, NaN, 4, 5, 6]]), {
        name: "RangeError",
        message: /chains\[1\]\[2\] must be finite, got NaN/,
      });
      assert.throws(() => f([ok, [1, 2, 3, -Infinity, 5, 6]]), {
        name: "RangeError",
        message: /chains\[1\]\[3\] must be finite, got -Infinity/,
      });
      assert.throws(() => f(ok as unknown as number[][]), {
        name: "TypeError",
        message: /chains\[0\] must be an array of numbers, got number 1/,
      });
      assert.throws(() => f(null as unknown as number[][]), {
        name: "TypeError",
        message: /chains must be an array of chains/,
      });
    }
    assert.throws(() => essBasic([[1, 2]], { split: false }), {
      name: "RangeError",
      message: /at least 3 values, got 2/,
    });
    assert.throws(() => essQuantile([ok], 1.01), {
      name: "RangeError",
      message: /p must be in \[0, 1\], got 1.01/,
    });
    assert.throws(() => mcseQuantile([ok], -0.5), {
      name: "RangeError",
      message: /p must be in \[0, 1\], got -0.5/,
    });
  });
});
