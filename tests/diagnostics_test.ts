/**
 * Tests of diagnostics/: every claim is checked against an analytic answer,
 * a hand computation, or an independent implementation, with tolerances
 * derived from the estimators' sampling variability (see the comments).
 */

import assert from "node:assert/strict";
import {
  autocorrelation,
  autocovariance,
  computationalTime,
  covarianceEllipse,
  effectiveSizeAr,
  essBasic,
  essBulk,
  essMean,
  essQuantile,
  essSd,
  essTail,
  formatSummaryTable,
  inefficiencyFactor,
  integratedAutocorrelationTime,
  kde,
  mcseMean,
  mcseQuantile,
  mcseSd,
  quantile,
  quantiles,
  relativeComputationalTime,
  relativeComputationalTimeSummary,
  rhat,
  rhatBasic,
  rocAuc,
  rocCurve,
  signCorrectedMean,
  signCorrectedSummary,
  signCorrectedVariance,
  silvermanBandwidth,
  spectrum0Ar,
  summarize,
  summaryToCsv,
} from "../diagnostics/mod.ts";

// ---------------------------------------------------------------------------
// Seeded generators (test-local): Marsaglia's xorshift128 for uniforms and the
// Box–Muller transform for standard normals.

function xorshift128(seed: number): () => number {
  let a = seed | 0 || 1;
  let b = 362436069;
  let c = 521288629;
  let d = 88675123;
  const next = (): number => {
    const t = a ^ (a << 11);
    a = b;
    b = c;
    c = d;
    d = d ^ (d >>> 19) ^ (t ^ (t >>> 8));
    return ((d >>> 0) + 0.5) / 4294967296; // in (0, 1)
  };
  for (let i = 0; i < 20; i++) next(); // decorrelate from the seed
  return next;
}

function normalGenerator(seed: number): () => number {
  const uniform = xorshift128(seed);
  let spare = NaN;
  return (): number => {
    if (!Number.isNaN(spare)) {
      const z = spare;
      spare = NaN;
      return z;
    }
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const theta = 2 * Math.PI * uniform();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
}

/** Stationary Gaussian AR(1) chain x_i = φ x_{i−1} + ε_i, ε ~ N(0, 1). */
function ar1Chain(phi: number, n: number, normal: () => number): Float64Array {
  const x = new Float64Array(n);
  let prev = normal() / Math.sqrt(1 - phi * phi);
  for (let i = 0; i < n; i++) {
    prev = phi * prev + normal();
    x[i] = prev;
  }
  return x;
}

function iidChains(numChains: number, n: number, seed: number): Float64Array[] {
  const normal = normalGenerator(seed);
  return Array.from({ length: numChains }, () => Float64Array.from({ length: n }, normal));
}

function relativeError(estimate: number, truth: number): number {
  return Math.abs(estimate / truth - 1);
}

/** The defining O(n²) sum of the biased autocovariance. */
function directAutocovariance(x: ArrayLike<number>): number[] {
  const n = x.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i];
  mean /= n;
  const out: number[] = [];
  for (let t = 0; t < n; t++) {
    let s = 0;
    for (let i = 0; i + t < n; i++) s += (x[i] - mean) * (x[i + t] - mean);
    out.push(s / n);
  }
  return out;
}

// ---------------------------------------------------------------------------

Deno.test("autocovariance() and autocorrelation()", async (t) => {
  await t.step("autocovariance() equals the direct O(n²) sum to 1e-10", () => {
    const normal = normalGenerator(11);
    // Lengths around powers of two exercise the zero padding to M ≥ 2n.
    for (const n of [2, 3, 5, 17, 64, 100, 1000, 1025]) {
      const x = ar1Chain(0.7, n, normal);
      const fast = autocovariance(x);
      const direct = directAutocovariance(x);
      assert.equal(fast.length, n);
      for (let lag = 0; lag < n; lag++) {
        assert.ok(
          Math.abs(fast[lag] - direct[lag]) < 1e-10,
          `n=${n} lag=${lag}: ${fast[lag]} vs ${direct[lag]}`,
        );
      }
    }
  });

  await t.step("autocorrelation() equals the direct sum over γ_0 to 1e-10", () => {
    const x = ar1Chain(0.9, 777, normalGenerator(12));
    const rho = autocorrelation(x);
    const direct = directAutocovariance(x);
    assert.equal(rho[0], 1);
    for (let lag = 0; lag < x.length; lag++) {
      assert.ok(Math.abs(rho[lag] - direct[lag] / direct[0]) < 1e-10);
    }
  });

  await t.step("autocovariance() returns lags 0..maxLag only", () => {
    const x = ar1Chain(0.5, 300, normalGenerator(13));
    const direct = directAutocovariance(x);
    for (const maxLag of [0, 3, 40, 299]) {
      const acov = autocovariance(x, { maxLag });
      assert.equal(acov.length, maxLag + 1);
      for (let lag = 0; lag <= maxLag; lag++) assert.ok(Math.abs(acov[lag] - direct[lag]) < 1e-10);
    }
  });

  await t.step("autocovariance() rejects bad input with messages naming it", () => {
    assert.throws(() => autocovariance([1]), {
      name: "RangeError",
      message: /at least 2 values, got 1/,
    });
    assert.throws(() => autocovariance([1, NaN, 2]), {
      name: "RangeError",
      message: /x\[1\] must be finite, got NaN/,
    });
    assert.throws(() => autocovariance([1, 2, Infinity]), {
      name: "RangeError",
      message: /x\[2\] must be finite, got Infinity/,
    });
    assert.throws(() => autocovariance("abc" as unknown as number[]), {
      name: "TypeError",
      message: /x must be an array of numbers, got string abc/,
    });
    assert.throws(() => autocovariance([1, "2"] as unknown as number[]), {
      name: "TypeError",
      message: /x\[1\] must be a number, got string 2/,
    });
    assert.throws(() => autocovariance([1, 2, 3], { maxLag: 3 }), {
      name: "RangeError",
      message: /maxLag must be at most n − 1 = 2, got 3/,
    });
    assert.throws(() => autocovariance([1, 2, 3], { maxLag: -1 }), {
      name: "RangeError",
      message: /maxLag must be an integer of at least 0, got -1/,
    });
    assert.throws(() => autocorrelation([4, 4, 4]), {
      name: "RangeError",
      message: /must not be constant/,
    });
  });
});

Deno.test("quantile() and quantiles()", async (t) => {
  // x = 3 1 4 1 5 9 2 6, sorted 1 1 2 3 4 5 6 9, h = 7p (0-based):
  // p=0.1: h=0.7 → 1 + 0.7·(1−1) = 1;  p=0.25: h=1.75 → 1 + 0.75·(2−1) = 1.75
  // p=0.5: h=3.5 → 3 + 0.5·(4−3) = 3.5; p=0.9: h=6.3 → 6 + 0.3·(9−6) = 6.9
  // (R: quantile(c(3,1,4,1,5,9,2,6), c(.1,.25,.5,.9)) gives 1.00 1.75 3.50 6.90)
  const x = [3, 1, 4, 1, 5, 9, 2, 6];

  await t.step("quantile() matches hand-computed type-7 values", () => {
    assert.equal(quantile(x, 0), 1);
    assert.equal(quantile(x, 0.1), 1);
    assert.equal(quantile(x, 0.25), 1.75);
    assert.equal(quantile(x, 0.5), 3.5);
    assert.ok(Math.abs(quantile(x, 0.9) - 6.9) < 1e-12);
    assert.equal(quantile(x, 1), 9);
    assert.equal(quantile([42], 0.3), 42);
  });

  await t.step("quantiles() equals quantile() at each probability", () => {
    const probs = [0.05, 0.5, 0.95, 0.333];
    assert.deepEqual(quantiles(x, probs), probs.map((p) => quantile(x, p)));
  });

  await t.step("quantile() rejects bad probabilities and draws", () => {
    assert.throws(() => quantile(x, 1.5), {
      name: "RangeError",
      message: /p must be in \[0, 1\], got 1.5/,
    });
    assert.throws(() => quantile(x, NaN), {
      name: "RangeError",
      message: /p must be in \[0, 1\], got NaN/,
    });
    assert.throws(() => quantile([], 0.5), {
      name: "RangeError",
      message: /x must have at least 1 value, got 0/,
    });
    assert.throws(() => quantiles(x, [0.5, -0.1]), {
      name: "RangeError",
      message: /probs\[1\] must be in \[0, 1\], got -0.1/,
    });
  });
});

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

Deno.test("mcseMean(), mcseQuantile() and mcseSd()", async (t) => {
  // Independent N(0, 1) draws, S = 160,000: the true MCSEs are 1/√S for the
  // mean, √(p(1−p)/S)/φ(q_p) for the p-quantile and 1/√(2S) for the sd.
  // Relative errors measured over 40 seeds at S = 40,000: mean +0.6% (sd
  // 0.7%), median 0% (sd 7.8%), sd +0.5% (sd 1.0%). The quantile MCSE is a
  // difference of order statistics about 2√(p(1−p)S) apart, whose relative sd
  // falls as S^(−1/4): ≈ 5.5% here. Tolerances are ≥ 4 sd.
  const S = 160000;
  const iid = iidChains(4, S / 4, 9);
  const density = (z: number): number => Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);

  await t.step("mcseMean() is within 4% of 1/√S for iid draws", () => {
    assert.ok(relativeError(mcseMean(iid), 1 / Math.sqrt(S)) < 0.04, `${mcseMean(iid)}`);
  });

  await t.step("mcseMean() equals sd/√essMean()", () => {
    let mean = 0;
    for (const c of iid) for (const v of c) mean += v / S;
    let ss = 0;
    for (const c of iid) for (const v of c) ss += (v - mean) ** 2;
    const sd = Math.sqrt(ss / (S - 1));
    assert.ok(relativeError(mcseMean(iid), sd / Math.sqrt(essMean(iid))) < 1e-10);
  });

  await t.step("mcseQuantile() is within 25% of √(p(1−p)/S)/φ(q) at the median", () => {
    const truth = Math.sqrt(0.25 / S) / density(0);
    assert.ok(
      relativeError(mcseQuantile(iid, 0.5), truth) < 0.25,
      `${mcseQuantile(iid, 0.5)} vs ${truth}`,
    );
  });

  await t.step("mcseSd() is within 5% of 1/√(2S) for iid draws", () => {
    assert.ok(relativeError(mcseSd(iid), 1 / Math.sqrt(2 * S)) < 0.05, `${mcseSd(iid)}`);
  });

  await t.step("mcseMean() of AR(1) chains matches σ_x·√(τ/S)", () => {
    // φ = 0.5: σ_x² = 1/(1 − φ²), τ = 3. The relative error is half that of
    // the ESS (≤ 5% at ≥ 4 sd for these lengths, see the AR(1) tests).
    const normal = normalGenerator(31);
    const chains = Array.from({ length: 4 }, () => ar1Chain(0.5, 131072, normal));
    const truth = Math.sqrt(1 / 0.75) * Math.sqrt(3 / (4 * 131072));
    assert.ok(relativeError(mcseMean(chains), truth) < 0.025, `${mcseMean(chains)} vs ${truth}`);
  });
});

Deno.test("spectrum0Ar(), effectiveSizeAr() and computational time", async (t) => {
  await t.step("spectrum0Ar() fits order 1 to a long AR(1) chain and recovers φ and σ²", () => {
    // φ̂ has sd √((1 − φ²)/n) ≈ 0.0012 for n = 131,072, σ̂² has sd √(2/n) ≈ 0.004.
    const x = ar1Chain(0.7, 131072, normalGenerator(41));
    const fit = spectrum0Ar(x);
    assert.ok(Math.abs(fit.coefficients[0] - 0.7) < 0.006, `${fit.coefficients}`);
    assert.ok(Math.abs(fit.varPred - 1) < 0.02, `${fit.varPred}`);
    // AIC may add near-zero higher-order terms; the spectrum at 0 is 1/(1−φ)²
    // to first order either way.
    assert.ok(relativeError(fit.spectrum, 1 / 0.09) < 0.05, `${fit.spectrum}`);
  });

  await t.step(
    "effectiveSizeAr() of several chains is the sum over chains (coda's mcmc.list)",
    () => {
      const chains = iidChains(3, 500, 42);
      const sum = chains.reduce((s, c) => s + effectiveSizeAr(c), 0);
      assert.ok(relativeError(effectiveSizeAr(chains), sum) < 1e-12);
      assert.ok(relativeError(inefficiencyFactor(chains), 1500 / sum) < 1e-12);
    },
  );

  await t.step(
    "effectiveSizeAr() is 0 and inefficiencyFactor() Infinity for a constant or linear chain",
    () => {
      assert.equal(effectiveSizeAr([3, 3, 3, 3, 3]), 0);
      assert.equal(effectiveSizeAr([1, 2, 3, 4, 5, 6]), 0);
      assert.equal(inefficiencyFactor([3, 3, 3, 3, 3]), Infinity);
    },
  );

  await t.step("computationalTime() and relativeComputationalTime() follow eqs. 2 and 19", () => {
    assert.equal(computationalTime(19, 1000), 19000);
    assert.equal(
      relativeComputationalTime(computationalTime(19, 1000), computationalTime(2, 500)),
      19,
    );
  });

  await t.step("relativeComputationalTimeSummary() gives min/median/max over parameters", () => {
    // RCT_j = IF_j·200 / (IF_ref,j·100) = 2·IF_j/IF_ref,j = 8, 2, 3, 1
    const summary = relativeComputationalTimeSummary(
      { inefficiencyFactors: [4, 3, 6, 1.5], numEvaluations: 200 },
      { inefficiencyFactors: [1, 3, 4, 3], numEvaluations: 100 },
    );
    assert.deepEqual(summary.values, [8, 2, 3, 1]);
    assert.equal(summary.min, 1);
    assert.equal(summary.median, 2.5);
    assert.equal(summary.max, 8);
  });

  await t.step("inefficiency functions reject bad input", () => {
    assert.throws(() => inefficiencyFactor([1, 2, 3]), {
      name: "RangeError",
      message: /x must have at least 4 values, got 3/,
    });
    assert.throws(() => effectiveSizeAr([[1, 2, 3, 4], [1, 2, 3, 4, 5]]), {
      name: "RangeError",
      message: /same length, got 4 for chains\[0\] and 5 for chains\[1\]/,
    });
    assert.throws(() => spectrum0Ar([1, 2, NaN, 4]), {
      name: "RangeError",
      message: /x\[2\] must be finite, got NaN/,
    });
    assert.throws(() => computationalTime(-1, 10), {
      name: "RangeError",
      message: /inefficiency must be non-negative and finite, got -1/,
    });
    assert.throws(() => computationalTime(1, Infinity), {
      name: "RangeError",
      message: /numEvaluations must be non-negative and finite, got Infinity/,
    });
    assert.throws(() => relativeComputationalTime(1, 0), {
      name: "RangeError",
      message: /ctReference must be positive, got 0/,
    });
    assert.throws(
      () =>
        relativeComputationalTimeSummary({ inefficiencyFactors: [1, 2], numEvaluations: 1 }, {
          inefficiencyFactors: [1],
          numEvaluations: 1,
        }),
      { name: "RangeError", message: /same parameters, got 2 and 1/ },
    );
    assert.throws(
      () =>
        relativeComputationalTimeSummary({ inefficiencyFactors: [NaN], numEvaluations: 1 }, {
          inefficiencyFactors: [1],
          numEvaluations: 1,
        }),
      {
        name: "RangeError",
        message: /sampler.inefficiencyFactors\[0\] must be non-negative and finite, got NaN/,
      },
    );
  });
});

Deno.test("computationalTime() per kept draw and with signs (eqs. 2, 18, 19)", async (t) => {
  await t.step("R and τ̂ default to 1: CT is IF × E", () => {
    assert.equal(computationalTime(3, 700), computationalTime(3, 700, { numDraws: 1, tau: 1 }));
  });
  await t.step("CT per kept draw: IF × E / R", () => {
    assert.equal(computationalTime(2, 6000, { numDraws: 1000 }), 12);
  });
  await t.step("the sign penalty divides by (2τ̂ − 1)²", () => {
    // τ̂ = 0.75: (2τ̂ − 1)² = ¼, so CT is 4 × IF × E / R = 4 × 1 × 100 / 10.
    assert.equal(computationalTime(1, 100, { numDraws: 10, tau: 0.75 }), 40);
    assert.equal(computationalTime(1, 100, { numDraws: 10, tau: 0.5 }), Infinity);
    assert.equal(computationalTime(1, 100, { numDraws: 10, tau: 0.2 }), Infinity);
  });
  await t.step("relativeComputationalTimeSummary() on hand-made records", () => {
    // Method IF (3, 6, 1.5), E = 6000; reference IF (1.5, 2, 1.5), E = 2000; R = 1000 both:
    // RCT_j = (3·6)/(1.5·2) = 6, (6·6)/(2·2) = 9, (1.5·6)/(1.5·2) = 3.
    const s = relativeComputationalTimeSummary(
      { inefficiencyFactors: [3, 6, 1.5], numEvaluations: 6000, numDraws: 1000 },
      { inefficiencyFactors: [1.5, 2, 1.5], numEvaluations: 2000, numDraws: 1000 },
    );
    assert.deepEqual(s.values, [6, 9, 3]);
    assert.deepEqual([s.min, s.median, s.max], [3, 6, 9]);
    // Twice the draws for twice the evaluations at equal IF costs the same per draw.
    const draws = relativeComputationalTimeSummary(
      { inefficiencyFactors: [2, 2], numEvaluations: 4000, numDraws: 2000 },
      { inefficiencyFactors: [2, 2], numEvaluations: 2000, numDraws: 1000 },
    );
    assert.deepEqual(draws.values, [1, 1]);
    // Signed at τ̂ = 0.75 against the same unsigned run: 1/(2τ̂ − 1)² = 4 on every parameter.
    const signed = relativeComputationalTimeSummary(
      { inefficiencyFactors: [1, 1], numEvaluations: 100, numDraws: 10, tau: 0.75 },
      { inefficiencyFactors: [1, 1], numEvaluations: 100, numDraws: 10 },
    );
    assert.deepEqual(signed.values, [4, 4]);
    const lost = relativeComputationalTimeSummary(
      { inefficiencyFactors: [1, 1], numEvaluations: 100, numDraws: 10, tau: 0.5 },
      { inefficiencyFactors: [1, 1], numEvaluations: 100, numDraws: 10 },
    );
    assert.deepEqual([lost.min, lost.median, lost.max], [Infinity, Infinity, Infinity]);
  });
  await t.step("bad draws, τ̂ or reference are named", () => {
    assert.throws(() => computationalTime(1, 1, { numDraws: 0 }), {
      name: "RangeError",
      message: /numDraws must be positive, got 0/,
    });
    assert.throws(() => computationalTime(1, 1, { tau: 1.5 }), {
      name: "RangeError",
      message: /tau must be in \[0, 1\], got 1.5/,
    });
    assert.throws(
      () =>
        relativeComputationalTimeSummary({ inefficiencyFactors: [1], numEvaluations: 1 }, {
          inefficiencyFactors: [1],
          numEvaluations: 1,
          tau: 0.4,
        }),
      { name: "RangeError", message: /ctReference must be non-negative and finite, got Infinity/ },
    );
  });
});

Deno.test("signCorrectedMean(), signCorrectedVariance() and signCorrectedSummary() (eq. 17)", async (t) => {
  await t.step("every sign +1 gives the plain mean and the population variance", () => {
    const x = [1, 2, 3, 4, 5, 6, 7, 8];
    const ones = x.map(() => 1);
    assert.equal(signCorrectedMean(x, ones), 4.5);
    assert.equal(signCorrectedMean(x), 4.5);
    assert.equal(signCorrectedVariance(x, ones), 5.25); // Σ(x − 4.5)²/8
    assert.deepEqual(signCorrectedSummary(x), { mean: 4.5, variance: 5.25, sd: Math.sqrt(5.25) });
  });
  await t.step("a hand-computed signed example", () => {
    // Signs −1 on 3 and 8: Σs = 4, Σsθ = 36 − 2·11 = 14, Σsθ² = 204 − 2·73 = 58.
    const x = [1, 2, 3, 4, 5, 6, 7, 8];
    const s = [1, 1, -1, 1, 1, 1, 1, -1];
    assert.equal(signCorrectedMean(x, s), 14 / 4);
    const summary = signCorrectedSummary(x, s);
    assert.equal(summary.mean, 3.5);
    assert.equal(summary.variance, 58 / 4 - 3.5 ** 2);
    assert.equal(summary.sd, Math.sqrt(58 / 4 - 3.5 ** 2));
    assert.equal(signCorrectedVariance(x, s), summary.variance);
  });
  await t.step("a negative difference of the two estimates is floored at 0", () => {
    // θ = (2, 4, 0), s = (1, −1, 1): Σs = 1, mean −2, E[θ²] = 4 − 16 = −12, so −12 − 4 → 0.
    assert.equal(signCorrectedVariance([2, 4, 0], [1, -1, 1]), 0);
  });
  await t.step("bad input is named", () => {
    assert.throws(() => signCorrectedMean([1, 2], [1]), {
      name: "RangeError",
      message: /same length, got 2 and 1/,
    });
    assert.throws(() => signCorrectedMean([1, 2], [1, -1]), {
      name: "RangeError",
      message: /signs sum to zero/,
    });
    assert.throws(() => signCorrectedMean([1, NaN]), {
      name: "RangeError",
      message: /values\[1\] must be finite, got NaN/,
    });
    assert.throws(() => signCorrectedSummary([1, 2], [1, 0.5]), {
      name: "RangeError",
      message: /signs\[1\] must be −1 or \+1, got 0.5/,
    });
    assert.throws(() => signCorrectedSummary([]), {
      name: "RangeError",
      message: /values must not be empty/,
    });
  });
});

Deno.test("integratedAutocorrelationTime()", async (t) => {
  // AR(1), φ = 0.5: τ = 3. Sokal's variance formula var(τ̂) ≈ 2(2M + 1)τ²/n
  // with window M ≈ cτ = 15 gives a relative sd of √(62/131072) = 2.2%
  // (measured over 40 seeds: 2.2%), so the tolerance is 4 sd = 9%.
  const x = ar1Chain(0.5, 131072, normalGenerator(51));

  await t.step(
    "integratedAutocorrelationTime() with Sokal's window is within 9% of (1+φ)/(1−φ)",
    () => {
      const tau = integratedAutocorrelationTime(x);
      assert.ok(relativeError(tau, 3) < 0.09, `${tau}`);
    },
  );

  await t.step("integratedAutocorrelationTime() with Geyer's sequence is n / unsplit ESS", () => {
    const tau = integratedAutocorrelationTime(x, { method: "geyer" });
    assert.ok(relativeError(tau, x.length / essBasic([x], { split: false })) < 1e-12);
    assert.ok(relativeError(tau, 3) < 0.09, `${tau}`);
  });

  await t.step("integratedAutocorrelationTime() with a fixed window sums ρ̂_1..ρ̂_m", () => {
    // x = 1..5: ρ̂_1 = 4/10, ρ̂_2 = −1/10 → τ̂ = 1 + 2(0.4 − 0.1) = 1.6
    const tau = integratedAutocorrelationTime([1, 2, 3, 4, 5], { method: "fixed", maxLag: 2 });
    assert.ok(Math.abs(tau - 1.6) < 1e-12);
  });

  await t.step("integratedAutocorrelationTime() rejects bad input", () => {
    assert.throws(() => integratedAutocorrelationTime([1, 1, 1, 1]), {
      name: "RangeError",
      message: /must not be constant/,
    });
    assert.throws(() => integratedAutocorrelationTime([1, 2, 3]), {
      name: "RangeError",
      message: /at least 4 values, got 3/,
    });
    assert.throws(() => integratedAutocorrelationTime([1, 2, 3, 4], { method: "fixed" }), {
      name: "RangeError",
      message: /maxLag is required/,
    });
    assert.throws(
      () => integratedAutocorrelationTime([1, 2, 3, 4], { method: "fixed", maxLag: 4 }),
      { name: "RangeError", message: /at most n − 1 = 3, got 4/ },
    );
    assert.throws(() => integratedAutocorrelationTime([1, 2, 3, 4], { c: 0 }), {
      name: "RangeError",
      message: /options.c must be positive and finite, got 0/,
    });
    assert.throws(
      () => integratedAutocorrelationTime([1, 2, 3, 4], { method: "batch" as "sokal" }),
      { name: "TypeError", message: /method must be "sokal", "geyer" or "fixed", got batch/ },
    );
  });
});

Deno.test("kde() and silvermanBandwidth()", async (t) => {
  const x = Float64Array.from({ length: 1000 }, normalGenerator(61));
  const trapezoid = (g: ArrayLike<number>, f: ArrayLike<number>): number => {
    let area = 0;
    for (let i = 1; i < g.length; i++) area += ((g[i] - g[i - 1]) * (f[i] + f[i - 1])) / 2;
    return area;
  };

  await t.step("kde() integrates to ≈ 1 on its default grid", () => {
    // The grid spans min − 3h .. max + 3h, so the missing mass is below
    // 2Φ(−3) = 0.0027; the trapezoid error with 512 points is ~1e−5.
    const { x: grid, density } = kde(x);
    assert.equal(grid.length, 512);
    const area = trapezoid(grid, density);
    assert.ok(area <= 1 + 1e-4 && area > 1 - 0.0027 - 1e-4, `${area}`);
  });

  await t.step("kde() integrates to 1 within 1e-6 on a grid ±10h wide", () => {
    const h = silvermanBandwidth(x);
    const lo = Math.min(...x) - 10 * h;
    const hi = Math.max(...x) + 10 * h;
    const grid = Array.from({ length: 4001 }, (_, i) => lo + ((hi - lo) * i) / 4000);
    assert.ok(Math.abs(trapezoid(grid, kde(x, { grid }).density) - 1) < 1e-6);
  });

  await t.step("kde() evaluates the kernel sum at given points", () => {
    // x = 0, 1 with h = 1: f(0) = (φ(0) + φ(1))/2
    const phi = (z: number): number => Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
    const { density, bandwidth } = kde([0, 1], { grid: [0, 0.5], bandwidth: 1 });
    assert.equal(bandwidth, 1);
    assert.ok(Math.abs(density[0] - (phi(0) + phi(1)) / 2) < 1e-15);
    assert.ok(Math.abs(density[1] - phi(0.5)) < 1e-15);
  });

  await t.step("silvermanBandwidth() is 0.9·min(sd, IQR/1.34)·n^(−1/5)", () => {
    // 1..10: sd = √(55/6) = 3.03, IQR = 7.75 − 3.25 = 4.5 → 4.5/1.34 = 3.358
    const h = silvermanBandwidth([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.ok(Math.abs(h - 0.9 * Math.sqrt(55 / 6) * Math.pow(10, -0.2)) < 1e-12);
    assert.ok(silvermanBandwidth([5, 5, 5]) > 0); // R's fallback |x₁| for zero spread
  });

  await t.step("kde() rejects bad input", () => {
    assert.throws(() => kde([]), {
      name: "RangeError",
      message: /x must have at least 1 value, got 0/,
    });
    assert.throws(() => kde([1, NaN]), {
      name: "RangeError",
      message: /x\[1\] must be finite, got NaN/,
    });
    assert.throws(() => kde([1, 2], { bandwidth: 0 }), {
      name: "RangeError",
      message: /bandwidth must be positive and finite, got 0/,
    });
    assert.throws(() => kde([1, 2], { numPoints: 1 }), {
      name: "RangeError",
      message: /numPoints must be an integer of at least 2, got 1/,
    });
    assert.throws(() => kde([1, 2], { grid: [0, Infinity] }), {
      name: "RangeError",
      message: /grid\[1\] must be finite, got Infinity/,
    });
  });
});

Deno.test("rocCurve() and rocAuc()", async (t) => {
  await t.step("rocAuc() is 1 for perfectly separated scores and 0 for reversed ones", () => {
    const labels = [0, 0, 0, 1, 1, 1];
    const scores = [0.1, 0.2, 0.3, 0.7, 0.8, 0.9];
    assert.equal(rocAuc(scores, labels), 1);
    assert.equal(rocAuc(scores.map((s) => -s), labels), 0);
  });

  await t.step("rocAuc() is ≈ 0.5 for random scores", () => {
    // Under no association the AUC (Mann–Whitney U/(n₁n₂)) has sd
    // √((n₁+n₂+1)/(12n₁n₂)) = 0.0091 for n₁ = n₂ = 2000; tolerance 4 sd.
    const u = xorshift128(71);
    const scores = Array.from({ length: 4000 }, () => u());
    const labels = Array.from({ length: 4000 }, (_, i) => i % 2);
    assert.ok(Math.abs(rocAuc(scores, labels) - 0.5) < 0.037);
  });

  await t.step("rocAuc() counts ties as ½ (hand-computed case)", () => {
    // positives {0.4, 0.8}, negatives {0.1, 0.4}: pairs 1 + 1 + 1 + ½ = 3.5 of 4
    assert.equal(rocAuc([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]), 0.875);
    assert.equal(rocAuc([1, 1, 1, 1], [0, 1, 0, 1]), 0.5);
  });

  await t.step("rocCurve() steps through distinct scores with ties together", () => {
    const roc = rocCurve([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]);
    assert.deepEqual(roc.thresholds, [Infinity, 0.8, 0.4, 0.1]);
    assert.deepEqual(roc.fpr, [0, 0, 0.5, 1]);
    assert.deepEqual(roc.tpr, [0, 0.5, 1, 1]);
  });

  await t.step("rocAuc() rejects bad input", () => {
    assert.throws(() => rocAuc([0.1, 0.2], [0, 2]), {
      name: "RangeError",
      message: /labels\[1\] must be 0 or 1, got 2/,
    });
    assert.throws(() => rocAuc([0.1, 0.2], [1, 1]), {
      name: "RangeError",
      message: /both 0 and 1, got 2 ones out of 2/,
    });
    assert.throws(() => rocAuc([0.1, 0.2, 0.3], [0, 1]), {
      name: "RangeError",
      message: /same length, got 3 and 2/,
    });
    assert.throws(() => rocAuc([0.1, NaN], [0, 1]), {
      name: "RangeError",
      message: /scores\[1\] must be finite, got NaN/,
    });
  });
});

Deno.test("covarianceEllipse()", async (t) => {
  // Bivariate normal with sd 1 and 2 and correlation 0.6.
  const normal = normalGenerator(81);
  const n = 4000;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < n; i++) {
    const z1 = normal();
    const z2 = normal();
    xs.push(1 + z1);
    ys.push(-2 + 2 * (0.6 * z1 + 0.8 * z2));
  }
  const e = covarianceEllipse(xs, ys);

  await t.step("covarianceEllipse() points lie on the χ²₂(0.95) Mahalanobis contour", () => {
    const [[a, b], [, d]] = e.covariance;
    const det = a * d - b * b;
    assert.ok(Math.abs(e.radiusSquared + 2 * Math.log(0.05)) < 1e-12);
    for (let k = 0; k < e.x.length; k++) {
      const dx = e.x[k] - e.mean[0];
      const dy = e.y[k] - e.mean[1];
      const m2 = (d * dx * dx - 2 * b * dx * dy + a * dy * dy) / det;
      assert.ok(Math.abs(m2 - e.radiusSquared) < 1e-10);
    }
    assert.equal(e.x.length, 101);
    assert.ok(Math.abs(e.x[0] - e.x[100]) < 1e-12 && Math.abs(e.y[0] - e.y[100]) < 1e-12);
  });

  await t.step("covarianceEllipse() contains ≈ 95% of Gaussian draws", () => {
    // Binomial sd √(0.95·0.05/4000) = 0.0034; tolerance 4 sd ≈ 0.014.
    const [[a, b], [, d]] = e.covariance;
    const det = a * d - b * b;
    let inside = 0;
    for (let i = 0; i < n; i++) {
      const dx = xs[i] - e.mean[0];
      const dy = ys[i] - e.mean[1];
      if ((d * dx * dx - 2 * b * dx * dy + a * dy * dy) / det <= e.radiusSquared) inside++;
    }
    assert.ok(Math.abs(inside / n - 0.95) < 0.014, `${inside / n}`);
  });

  await t.step("covarianceEllipse() honours level and numPoints", () => {
    const e50 = covarianceEllipse(xs, ys, { level: 0.5, numPoints: 8 });
    assert.equal(e50.x.length, 8);
    assert.ok(Math.abs(e50.radiusSquared - 2 * Math.log(2)) < 1e-12);
  });

  await t.step("covarianceEllipse() rejects bad input", () => {
    assert.throws(() => covarianceEllipse([1, 2, 3, 4], [1, 2, 3]), {
      name: "RangeError",
      message: /same length, got 4 and 3/,
    });
    assert.throws(() => covarianceEllipse([1, 2, 3], [2, 4, 6]), {
      name: "RangeError",
      message: /positive definite/,
    });
    assert.throws(() => covarianceEllipse(xs, ys, { level: 1 }), {
      name: "RangeError",
      message: /level must be in \(0, 1\), got 1/,
    });
    assert.throws(() => covarianceEllipse([1, 2], [3, 4]), {
      name: "RangeError",
      message: /x must have at least 3 values, got 2/,
    });
  });
});

Deno.test("summarize(), formatSummaryTable() and summaryToCsv()", async (t) => {
  // draws[chain][parameter]: two parameters, four chains of 500 draws.
  const normal = normalGenerator(91);
  const draws = Array.from({ length: 4 }, () => [
    ar1Chain(0.3, 500, normal),
    Float64Array.from({ length: 500 }, () => 5 + 2 * normal()),
  ]);
  const rows = summarize(draws, ["alpha", "beta[1,2]"]);

  await t.step("summarize() rows agree with the individual diagnostics", () => {
    assert.equal(rows.length, 2);
    const beta = draws.map((chain) => chain[1]);
    const pooled = beta.flatMap((c) => Array.from(c));
    const row = rows[1];
    assert.deepEqual(Object.keys(row), [
      "name",
      "mean",
      "sd",
      "q5",
      "q50",
      "q95",
      "essBulk",
      "essTail",
      "rhat",
      "mcseMean",
    ]);
    assert.equal(row.name, "beta[1,2]");
    assert.ok(Math.abs(row.mean - pooled.reduce((s, v) => s + v, 0) / pooled.length) < 1e-12);
    assert.deepEqual([row.q5, row.q50, row.q95], quantiles(pooled, [0.05, 0.5, 0.95]));
    assert.equal(row.essBulk, essBulk(beta));
    assert.equal(row.essTail, essTail(beta));
    assert.equal(row.rhat, rhat(beta));
    assert.equal(row.mcseMean, mcseMean(beta));
    assert.ok(Math.abs(row.sd - 2) < 0.1); // sd of the sd estimate ≈ 2/√(2·2000) = 0.03
    assert.equal(summarize(draws)[0].name, "theta[0]");
  });

  await t.step("formatSummaryTable() prints the expected columns, aligned", () => {
    const table = formatSummaryTable(rows, { digits: 2 });
    const lines = table.split("\n");
    assert.equal(lines.length, 3);
    assert.deepEqual(lines[0].trim().split(/\s+/), [
      "name",
      "mean",
      "sd",
      "q5",
      "q50",
      "q95",
      "ess_bulk",
      "ess_tail",
      "rhat",
      "mcse_mean",
    ]);
    assert.ok(lines[2].startsWith("beta[1,2]"));
    // names left-aligned, numbers right-aligned: every line has the same width
    assert.ok(lines.every((line) => line.length === lines[0].length));
    assert.equal(lines[2].trim().split(/\s+/)[1], rows[1].mean.toFixed(2));
    assert.equal(lines[2].trim().split(/\s+/)[6], Math.round(rows[1].essBulk).toString());
  });

  await t.step("summaryToCsv() writes a header and one full-precision line per row", () => {
    const lines = summaryToCsv(rows).trimEnd().split("\n");
    assert.equal(lines[0], "name,mean,sd,q5,q50,q95,ess_bulk,ess_tail,rhat,mcse_mean");
    assert.equal(lines.length, 3);
    assert.ok(lines[2].startsWith('"beta[1,2]",'));
    assert.equal(Number(lines[1].split(",")[1]), rows[0].mean);
  });

  await t.step("summarize() rejects bad input with messages naming it", () => {
    const c = [1, 2, 3, 4, 5, 6];
    assert.throws(() => summarize([]), { name: "RangeError", message: /at least 1 chain, got 0/ });
    assert.throws(() => summarize([[c, c], [c]]), {
      name: "RangeError",
      message: /same number of parameters, got 2 in chain 0 and 1 in chain 1/,
    });
    assert.throws(() => summarize([[c], [[...c, 7]]]), {
      name: "RangeError",
      message: /same length, got 6 draws of parameter "theta\[0\]" in chain 0 and 7 in chain 1/,
    });
    assert.throws(() => summarize([[c]], ["a", "b"]), {
      name: "RangeError",
      message: /one name per parameter \(1\), got 2/,
    });
    assert.throws(() => summarize([[[]]], ["mu"]), {
      name: "RangeError",
      message: /parameter "mu" has no draws in chain 0/,
    });
    // NaN draws and short chains are summarised with NaN diagnostics and a
    // reason (tests/diagnostics_edge_test.ts), not rejected.
    assert.throws(() => formatSummaryTable(rows, { digits: 1.5 }), {
      name: "RangeError",
      message: /digits must be an integer of at least 0, got 1.5/,
    });
  });
});
