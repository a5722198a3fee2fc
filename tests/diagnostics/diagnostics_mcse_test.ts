/**
 * Tests of diagnostics/ MCSE, computational time and summaries: mcseMean(),
 * mcseQuantile(), mcseSd(), spectrum0Ar() and the eqs. 2, 17–19 computational
 * time and sign-corrected estimates, and summarize() with its table and CSV
 * writers. Tolerances are derived from the estimators' sampling variability
 * (see the comments).
 */

import assert from "node:assert/strict";
import {
  computationalTime,
  effectiveSizeAr,
  essBulk,
  essMean,
  essTail,
  formatSummaryTable,
  inefficiencyFactor,
  mcseMean,
  mcseQuantile,
  mcseSd,
  quantiles,
  relativeComputationalTime,
  relativeComputationalTimeSummary,
  rhat,
  signCorrectedMean,
  signCorrectedSummary,
  signCorrectedVariance,
  spectrum0Ar,
  summarize,
  summaryToCsv,
} from "../../diagnostics/mod.ts";
import { ar1Chain, iidChains, normalGenerator, relativeError } from "../_diagnostics_fixtures.ts";

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
    // reason (tests/diagnostics/diagnostics_edge_test.ts), not rejected.
    assert.throws(() => formatSummaryTable(rows, { digits: 1.5 }), {
      name: "RangeError",
      message: /digits must be an integer of at least 0, got 1.5/,
    });
  });
});
