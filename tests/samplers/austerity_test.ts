import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { mcseMean, mcseSd } from "../../diagnostics/mcse.ts";
import { GlmModel } from "../../models/glm.ts";
import { Rng } from "../../random/rng.ts";
import {
  austerityRwmhDescription,
  austeritySgldDescription,
} from "../../samplers/austerity/chain_sampler.ts";
import { init, langevinProposal, step } from "../../samplers/austerity/kernel.ts";
import { runApproxMh } from "../../samplers/austerity/run.ts";
import { runRwmh } from "../../samplers/rwmh/run.ts";
import {
  approxMhTest,
  cltCheck,
  dataModelDifferences,
  newRowOrder,
  type RowDifferencesFn,
} from "../../subsampling/austerity.ts";
import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
import { L1RegressionModel } from "../../examples/models/l1_regression.ts";
import { assertMeanWithinMcse, assertSdWithinMcse } from "../_stat.ts";

const arena = loadCore({ backend: "auto" });

/** A logistic GLM on synthetic data: intercept + (d − 1) N(0, 1) features. */
function _logistic(n: number, d: number, seed: number): GlmModel {
  const rng = new Rng(seed);
  const x = new Float64Array(n * d), y = new Float64Array(n);
  const beta = Float64Array.from({ length: d }, (_, j) => (j === 0 ? -0.3 : 0.8 / j));
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) {
      x[i * d + j] = j === 0 ? 1 : rng.normal();
      eta += x[i * d + j] * beta[j];
    }
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  return new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), {
    family: "logistic",
    priorScale: 5,
  });
}

function _arrayDifferences(l: Float64Array): RowDifferencesFn {
  return (rows, out) => {
    for (let k = 0; k < rows.length; k++) out[k] = l[rows[k]];
  };
}

/** Eq. 3 computed directly from the listed values. */
function _standardError(values: ArrayLike<number>, numRows: number): number {
  const n = values.length;
  let mean = 0;
  for (let k = 0; k < n; k++) mean += values[k] / n;
  let ss = 0;
  for (let k = 0; k < n; k++) ss += (values[k] - mean) ** 2;
  return Math.sqrt(ss / (n - 1)) / Math.sqrt(n) * Math.sqrt(1 - n / numRows);
}

Deno.test("approxMhTest() with ε = 0 makes the exact MH decision on all rows", () => {
  const model = _logistic(1000, 3, 1);
  const rng = new Rng(11);
  let numAccepted = 0;
  for (let r = 0; r < 300; r++) {
    const theta = rng.fillNormal(new Float64Array(3), { sd: 0.3 });
    const proposed = theta.map((v) => v + 0.03 * rng.normal());
    const logProposalRatio = r % 3 === 0 ? 0.5 * rng.normal() : 0;
    const logPriorRatio = model.logPrior(proposed) - model.logPrior(theta);
    const seed = `pair ${r}`;
    const res = approxMhTest(new Rng(seed), {
      numRows: model.numRows,
      differencesFn: dataModelDifferences(model, { current: theta, proposed }),
      logPriorRatio,
      logProposalRatio,
      epsilon: 0,
      batchSize: 64,
    });
    // Exact MH with the same u (the test's first draw).
    const logU = Math.log(new Rng(seed).uniform());
    const logRatio = model.logDensity(proposed) - model.logDensity(theta) + logProposalRatio;
    assert.equal(
      res.isAccepted,
      logU < logRatio,
      `pair ${r}: log u ${logU}, log ratio ${logRatio}`,
    );
    assert.equal(res.numRowsUsed, 1000);
    assert.equal(res.fractionOfData, 1);
    assert.equal(res.numBatches, Math.ceil(1000 / 64));
    if (res.isAccepted) numAccepted++;
  }
  // Both outcomes occur, so the equality above is not vacuous.
  assert.ok(numAccepted > 30 && numAccepted < 270, `accepted ${numAccepted} of 300`);
});

Deno.test("approxMhTest() standard error is eq. 3 and eq. 3 is the finite-population sd", async (t) => {
  await t.step("the reported t statistic uses eq. 3 over exactly the rows drawn", () => {
    const model = _logistic(1500, 3, 2);
    const rng = new Rng(5);
    const seenBatches = new Set<number>();
    for (let r = 0; r < 200; r++) {
      const theta = rng.fillNormal(new Float64Array(3), { sd: 0.2 });
      const proposed = theta.map((v) => v + 0.02 * rng.normal());
      const diff = dataModelDifferences(model, { current: theta, proposed });
      const order = newRowOrder(model.numRows);
      const res = approxMhTest(rng, {
        numRows: model.numRows,
        differencesFn: diff,
        logPriorRatio: 0,
        epsilon: 0.1,
        batchSize: 100,
        rowOrder: order,
      });
      if (res.numRowsUsed === model.numRows) continue;
      seenBatches.add(res.numBatches);
      const used = order.slice(0, res.numRowsUsed), l = new Float64Array(used.length);
      diff(used, l);
      const mean = l.reduce((a, b) => a + b, 0) / l.length;
      const tBrute = (mean - res.mu0) / _standardError(l, model.numRows);
      assert.ok(Math.abs(mean - res.meanDifference) <= 1e-12 * (1 + Math.abs(mean)));
      assert.ok(
        Math.abs(tBrute - res.tStatistic) <= 1e-8 * (1 + Math.abs(tBrute)),
        `t ${res.tStatistic} vs brute force ${tBrute}`,
      );
      // Rows are distinct (drawn without replacement).
      assert.equal(new Set(used).size, used.length);
    }
    // Decisions after one and after several batches were both checked.
    assert.ok(seenBatches.has(1) && [...seenBatches].some((b) => b > 1), [...seenBatches].join());
  });
  await t.step("E[s²] over all C(N, n) subsets equals the exact variance of l̄", () => {
    const l = new Float64Array([0.3, -1.2, 2.5, 0.1, 0.7, -0.4, 1.9, -2.2, 0.05]);
    const bigN = l.length, n = 4;
    const mu = l.reduce((a, b) => a + b, 0) / bigN;
    let count = 0, varMean = 0, meanS2 = 0;
    const pick: number[] = [];
    const visit = (start: number): void => {
      if (pick.length === n) {
        const v = pick.map((i) => l[i]);
        const m = v.reduce((a, b) => a + b, 0) / n;
        varMean += (m - mu) ** 2;
        meanS2 += _standardError(v, bigN) ** 2;
        count++;
        return;
      }
      for (let i = start; i < bigN; i++) {
        pick.push(i);
        visit(i + 1);
        pick.pop();
      }
    };
    visit(0);
    assert.equal(count, 126);
    assert.ok(Math.abs(varMean / count - meanS2 / count) < 1e-12, `${varMean} vs ${meanS2}`);
  });
});

Deno.test("approxMhTest() terminates and is exact when it exhausts the data", () => {
  // N = 1003 is not a multiple of m = 100: eleven batches, the last of three rows.
  const rng = new Rng(8);
  const l = Float64Array.from({ length: 1003 }, () => rng.normal());
  const mu = l.reduce((a, b) => a + b, 0) / l.length;
  for (const [gap, label] of [[1e-9, "just accept"], [-1e-9, "just reject"]] as const) {
    // μ₀ a hair from μ (through a logPriorRatio that offsets the test's own u):
    // at ε = 1e-10 no subsample is confident (|t| > 6.4 would be needed), so the
    // test must use all rows and decide exactly.
    const logU = Math.log(new Rng(`exhaust ${label}`).uniform());
    const logPriorRatio = logU - l.length * (mu - gap);
    const res = approxMhTest(new Rng(`exhaust ${label}`), {
      numRows: l.length,
      differencesFn: _arrayDifferences(l),
      logPriorRatio,
      epsilon: 1e-10,
      batchSize: 100,
      checkExact: true,
    });
    assert.equal(res.numRowsUsed, 1003, label);
    assert.equal(res.numBatches, 11, label);
    assert.equal(res.isAccepted, gap > 0, label);
    assert.equal(res.agreesWithExact, true, label);
  }
});

Deno.test("approxMhTest() wrong decisions stay below the union bound Kε and data use falls with ε", () => {
  // Bound: at each look before the data run out, the test stops on the wrong
  // side only if the t statistic of the true mean is beyond the one-sided ε
  // quantile, probability ≤ ε under the CLT (the true μ is further from l̄ than
  // μ₀ is). With K = ⌈N/m⌉ − 1 looks, P(wrong) ≤ Kε by the union bound; the
  // last look is exact. Allow 3 binomial sd for R pairs.
  const model = _logistic(2000, 3, 3);
  const bigN = model.numRows, m = 200, numLooks = Math.ceil(bigN / m) - 1;
  const epsilons = [0.01, 0.02, 0.05, 0.1];
  const pairRng = new Rng(21);
  const numPairs = 300;
  const pairs = Array.from({ length: numPairs }, () => {
    const theta = pairRng.fillNormal(new Float64Array(3), { sd: 0.1 });
    theta[0] -= 0.3;
    theta[1] += 0.8;
    theta[2] += 0.4;
    return { theta, proposed: theta.map((v) => v + 0.03 * pairRng.normal()) };
  });
  const fractions = epsilons.map(() => new Float64Array(numPairs));
  for (const [e, epsilon] of epsilons.entries()) {
    let wrong = 0;
    for (const [r, { theta, proposed }] of pairs.entries()) {
      const res = approxMhTest(new Rng(`pair ${r}`), {
        numRows: bigN,
        differencesFn: dataModelDifferences(model, { current: theta, proposed }),
        logPriorRatio: model.logPrior(proposed) - model.logPrior(theta),
        epsilon,
        batchSize: m,
        checkExact: true,
      });
      if (res.agreesWithExact === false) wrong++;
      fractions[e][r] = res.fractionOfData;
    }
    const bound = numLooks * epsilon;
    const allowed = bound + 3 * Math.sqrt(bound * (1 - Math.min(bound, 0.99)) / numPairs);
    assert.ok(
      wrong / numPairs <= allowed,
      `ε = ${epsilon}: wrong-decision rate ${wrong / numPairs} > ${allowed.toFixed(3)}`,
    );
  }
  // Same u and same row order for every ε: a larger ε stops at the same look or earlier.
  for (let e = 1; e < epsilons.length; e++) {
    for (let r = 0; r < numPairs; r++) assert.ok(fractions[e][r] <= fractions[e - 1][r]);
  }
  const means = fractions.map((f) => f.reduce((a, b) => a + b, 0) / numPairs);
  for (let e = 1; e < epsilons.length; e++) assert.ok(means[e] < means[e - 1], means.join());
});

Deno.test("approxMhTest() and step() report non-finite values instead of throwing", async (t) => {
  await t.step("a NaN difference rejects and is flagged", () => {
    const res = approxMhTest(new Rng(1), {
      numRows: 100,
      differencesFn: (rows, out) => out.fill(NaN, 0, rows.length),
      logPriorRatio: 0,
      epsilon: 0.05,
      batchSize: 10,
    });
    assert.equal(res.isAccepted, false);
    assert.equal(res.isNonFinite, true);
  });
  await t.step("θ' outside the prior's support rejects without a flag and without data", () => {
    const res = approxMhTest(new Rng(1), {
      numRows: 100,
      differencesFn: () => {
        throw new Error("must not be called");
      },
      logPriorRatio: -Infinity,
      epsilon: 0.05,
      batchSize: 10,
    });
    assert.equal(res.isAccepted, false);
    assert.equal(res.isNonFinite, false);
    assert.equal(res.numRowsUsed, 0);
  });
  await t.step("a non-finite proposal is a divergent, rejected step", () => {
    const model = _logistic(200, 2, 4);
    const s0 = init(new Float64Array([0, 0]), model);
    const r = step(new Rng(2), s0, {
      model,
      proposalFn: () => ({ position: new Float64Array([Infinity, 0]), logProposalRatio: 0 }),
      epsilon: 0.05,
      batchSize: 20,
    });
    assert.equal(r.info.isDivergent, true);
    assert.equal(r.info.isAccepted, false);
    assert.equal(r.state, s0);
  });
});

Deno.test("langevinProposal() returns the eq. 14 proposal ratio", () => {
  // With the minibatch equal to all rows, q is the full-data Langevin kernel:
  // compare log q(θ|θ') − log q(θ'|θ) with a direct evaluation.
  const model = _logistic(300, 2, 5);
  const alpha = 1e-3;
  const prop = langevinProposal(model, { stepSize: alpha, batchSize: model.numRows });
  const theta = new Float64Array([-0.2, 0.7]);
  const draw = prop(new Rng(6), theta);
  const g = new Float64Array(2), gNew = new Float64Array(2);
  model.logDensityAndGradient(theta, g);
  model.logDensityAndGradient(draw.position, gNew);
  let fwd = 0, bwd = 0;
  for (let j = 0; j < 2; j++) {
    fwd += (draw.position[j] - theta[j] - 0.5 * alpha * g[j]) ** 2;
    bwd += (theta[j] - draw.position[j] - 0.5 * alpha * gNew[j]) ** 2;
  }
  const expected = (fwd - bwd) / (2 * alpha);
  assert.ok(Math.abs(draw.logProposalRatio - expected) < 1e-8 * (1 + Math.abs(expected)));
});

Deno.test("cltCheck() passes for light tails and warns for sparse heavy-tailed differences", () => {
  const rng = new Rng(9);
  const normal = Float64Array.from({ length: 4000 }, () => rng.normal());
  const ok = cltCheck(rng, {
    numRows: normal.length,
    differencesFn: _arrayDifferences(normal),
    sampleSize: 100,
    numResamples: 1000,
  });
  assert.ok(ok.isPassed, `KS ${ok.ksDistance} > ${ok.criticalValue}`);
  // 0.2 % of the rows carry all the signal: a subsample of 100 rarely sees one.
  const sparse = Float64Array.from({ length: 4000 }, (_, i) => (i % 500 === 0 ? 100 : 0));
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (msg: string) => warnings.push(msg);
  try {
    const bad = cltCheck(rng, {
      numRows: sparse.length,
      differencesFn: _arrayDifferences(sparse),
      sampleSize: 100,
      numResamples: 1000,
    });
    assert.equal(bad.isPassed, false);
  } finally {
    console.warn = warn;
  }
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /CLT check failed/);
});

Deno.test("austerityRwmhDescription.build() validates its model and options", () => {
  const plain = gaussianTarget(new Float64Array(2), new Float64Array([1, 1]));
  assert.throws(() => austerityRwmhDescription.build(plain, {}), TypeError);
  const model = _logistic(100, 2, 6);
  assert.throws(
    () => austerityRwmhDescription.build(model, { epsilon: -0.1 }),
    /epsilon must be in \[0, 1\), got -0.1/,
  );
  assert.throws(() => austerityRwmhDescription.build(model, { batchSize: 1 }), RangeError);
});

Deno.test("runApproxMh() on a 2-d logistic posterior against the exact random-walk chain", async (t) => {
  const model = _logistic(3000, 2, 7);
  const common = {
    seed: 17,
    numWarmup: 1000,
    numSamples: 4000,
    numChains: 2,
    initialPosition: new Float64Array([-0.3, 0.8]),
    scale: 0.05,
  };
  const exact = runRwmh(model, common);
  const param = (r: typeof exact, j: number) => r.draws.map((c) => c[j]);
  const pooled = (chains: Float64Array[]) => {
    const all = chains.flatMap((c) => [...c]);
    const mean = all.reduce((a, b) => a + b, 0) / all.length;
    return { mean, sd: Math.sqrt(all.reduce((a, b) => a + (b - mean) ** 2, 0) / (all.length - 1)) };
  };
  await t.step("ε = 0 is exact MH: 4-MCSE bands of both chains' combined error", () => {
    const r = runApproxMh(model, { ...common, epsilon: 0, batchSize: 500 });
    for (let j = 0; j < 2; j++) {
      const ex = param(exact, j), { mean, sd } = pooled(ex);
      assertMeanWithinMcse(param(r, j), mean, { referenceSe: mcseMean(ex), what: `θ[${j}] mean` });
      assertSdWithinMcse(param(r, j), sd, { referenceSe: mcseSd(ex), what: `θ[${j}] sd` });
    }
    assert.ok(r.chains[0].info.sampling.fractionOfData.every((f) => f === 1));
  });
  await t.step("ε = 0.05: same means, spread inflated by a bounded bias, less data", () => {
    // Means: a wrong decision is a near-tie (μ ≈ μ₀) and happens about as often
    // on either side of the mode, so it widens the stationary law rather than
    // shifting it — a 4-MCSE band on the mean. Spread: Theorem 1 bounds the TV
    // error by Δmax/(1 − η), which cannot be evaluated here; what we measured is
    // that for a random walk at the optimal scale the full-data t statistic of a
    // decision is O(1) (σ_l ∝ step ∝ 1/√N), so many decisions are near-ties and
    // the sequential test gets a few percent of them wrong (its K = ⌈N/m⌉ − 1
    // looks each risk up to ε). With m = 500, N = 3000 this inflates the sd by
    // 10–20 %; we allow up to 30 % and require no shrinkage beyond 4 MCSE. A sign
    // or variance error in the test moves the chain far outside both bands.
    const r = runApproxMh(model, { ...common, epsilon: 0.05, batchSize: 500, checkExact: true });
    for (let j = 0; j < 2; j++) {
      const ex = param(exact, j), ap = param(r, j), { mean, sd } = pooled(ex);
      assertMeanWithinMcse(ap, mean, { referenceSe: mcseMean(ex), what: `θ[${j}] mean` });
      const se = Math.hypot(mcseSd(ap), mcseSd(ex)), sdAp = pooled(ap).sd;
      assert.ok(sdAp >= sd - 4 * se && sdAp <= 1.3 * sd + 4 * se, `θ[${j}] sd ${sdAp} vs ${sd}`);
    }
    const info = r.chains.map((c) => c.info.sampling);
    const frac = info.flatMap((i) => [...i.fractionOfData]);
    const agree = info.flatMap((i) => [...i.agreesWithExact]);
    const meanFrac = frac.reduce((a, b) => a + b, 0) / frac.length;
    const wrongRate = agree.filter((a) => a === 0).length / agree.length;
    assert.ok(meanFrac < 0.8, `mean fraction of data ${meanFrac}`);
    assert.ok(wrongRate <= 5 * 0.05, `wrong-decision rate ${wrongRate} above the union bound Kε`);
    // Cost: the approximate chain touched fewer rows than exact MH would (2 per row per test).
    assert.ok(r.chains[0].cost.sampling.numLogLikRows < 2 * 3000 * common.numSamples);
  });
});

Deno.test("L1RegressionModel matches finite differences and counts its rows", () => {
  const rng = new Rng(31);
  const x = Float64Array.from({ length: 60 }, () => rng.normal());
  const y = Float64Array.from({ length: 30 }, (_, i) => 0.4 * x[2 * i] - 0.2 * x[2 * i + 1]);
  const model = new L1RegressionModel(x, y, { noisePrecision: 3, priorRate: 2, numCols: 2 });
  const theta = new Float64Array([0.3, -0.1]), g = new Float64Array(2);
  const lp = model.logDensityAndGradient(theta, g);
  for (let j = 0; j < 2; j++) {
    const tp = theta.slice(), tm = theta.slice();
    tp[j] += 1e-6;
    tm[j] -= 1e-6;
    const fd = (model.logDensity(tp) - model.logDensity(tm)) / 2e-6;
    assert.ok(Math.abs(fd - g[j]) < 1e-5 * (1 + Math.abs(fd)), `grad[${j}] ${g[j]} vs ${fd}`);
  }
  const rows = Int32Array.from({ length: 30 }, (_, i) => i), perRow = new Float64Array(30);
  const before = model.cost.numLogLikRows;
  const ll = model.logLikelihoodRows(theta, rows, { perRow });
  assert.equal(model.cost.numLogLikRows - before, 30);
  assert.ok(Math.abs(ll + model.logPrior(theta) - lp) < 1e-9);
  assert.ok(Math.abs(perRow.reduce((a, b) => a + b, 0) - ll) < 1e-9);
  // The 1-d fast path agrees with the general one.
  const m1 = new L1RegressionModel(x.subarray(0, 30), y, { noisePrecision: 3, priorRate: 2 });
  const a = new Float64Array(30), b = new Float64Array(1);
  const fast = m1.logLikelihoodRows(new Float64Array([0.2]), rows, { perRow: a });
  const slow = m1.logLikelihoodRows(new Float64Array([0.2]), rows, { grad: b, perRow: a });
  assert.ok(Math.abs(fast - slow) < 1e-12);
});

Deno.test("runApproxMh() with the Langevin proposal and ε = 0 samples the exact posterior", () => {
  // SGLD proposals corrected by eq. 14's ratio form an exact MH chain: compare
  // with the 1-d posterior's mean and sd by quadrature, 4-MCSE bands.
  const rng = new Rng(41);
  const n = 2000;
  const x = Float64Array.from({ length: n }, () => 2 * rng.uniform() - 1);
  const y = x.map((v) => 0.5 * v + Math.sqrt(1 / 3) * rng.normal());
  const model = new L1RegressionModel(x, y, { noisePrecision: 3, priorRate: 900 });
  // Quadrature on a grid wide enough for the whole posterior mass.
  const grid = Float64Array.from({ length: 6001 }, (_, k) => -0.3 + k * 1e-4);
  const logp = grid.map((v) => model.logDensity(new Float64Array([v])));
  const max = logp.reduce((a, b) => Math.max(a, b), -Infinity);
  let z = 0, m1 = 0, m2 = 0;
  for (let k = 0; k < grid.length; k++) {
    const p = Math.exp(logp[k] - max);
    z += p;
    m1 += p * grid[k];
    m2 += p * grid[k] ** 2;
  }
  const mean = m1 / z, sd = Math.sqrt(m2 / z - mean * mean);
  const r = runApproxMh(model, {
    proposal: "langevin",
    stepSize: (0.7 * sd) ** 2,
    gradientBatchSize: 100,
    batchSize: 200,
    epsilon: 0,
    seed: 5,
    numWarmup: 500,
    numSamples: 5000,
    numChains: 2,
    initialPosition: new Float64Array([mean]),
  });
  const chains = r.draws.map((c) => c[0]);
  assertMeanWithinMcse(chains, mean, { what: "θ mean" });
  assertSdWithinMcse(chains, sd, { what: "θ sd" });
  assert.ok(r.chains.every((c) => c.info.sampling.isDivergent.every((v) => v === 0)));
});

Deno.test("austeritySgldDescription defaults: α found and adapted in warmup; a given α stays fixed", async (t) => {
  const model = _logistic(400, 2, 7);
  const run = (options: Record<string, unknown>) =>
    runApproxMh(model, {
      proposal: "langevin",
      seed: 9,
      numWarmup: 300,
      numSamples: 300,
      numChains: 1,
      ...options,
    }).chains[0];
  await t.step("no stepSize: acceptance near the MALA target 0.574", () => {
    const c = run({});
    const alpha = Number(c.tuning.stepSize);
    assert.ok(alpha > 0 && Number.isFinite(alpha), `α = ${alpha}`);
    const acc = c.info.sampling.isAccepted.reduce((a, v) => a + v, 0) / 300;
    // 300 indicators: sd of the mean ≤ 0.03 (more with autocorrelation); ±0.25 is wide.
    assert.ok(Math.abs(acc - 0.574) < 0.25, `acceptance ${acc}`);
  });
  await t.step("given stepSize: reported unchanged", () => {
    assert.equal(run({ stepSize: 1e-3 }).tuning.stepSize, 1e-3);
  });
  await t.step("errors name the option and the value", () => {
    assert.throws(() => austeritySgldDescription.build(model, { stepSize: -1 }), /stepSize.*-1/);
  });
});

Deno.test("dataModelDifferences(): the fused GLM kernel leaves every decision and cost unchanged", () => {
  const model = _logistic(2000, 5, 21);
  const twoCall = (current: Float64Array, proposed: Float64Array): RowDifferencesFn => {
    const a = new Float64Array(model.numRows);
    return (rows, out) => {
      model.logLikelihoodRows(proposed, rows, { perRow: out });
      model.logLikelihoodRows(current, rows, { perRow: a });
      for (let k = 0; k < rows.length; k++) out[k] -= a[k];
    };
  };
  const rng = new Rng(8);
  const orderA = newRowOrder(model.numRows), orderB = newRowOrder(model.numRows);
  let theta = new Float64Array([-0.3, 0.8, 0.4, 0.27, 0.2]), numAccepted = 0;
  for (let r = 0; r < 150; r++) {
    const proposed = theta.map((v) => v + 0.03 * rng.normal());
    const common = { numRows: model.numRows, logPriorRatio: 0, epsilon: 0.05, batchSize: 100 };
    const before = model.cost.numLogLikRows;
    const fused = approxMhTest(new Rng(`step ${r}`), {
      ...common,
      differencesFn: dataModelDifferences(model, { current: theta, proposed }),
      rowOrder: orderA,
    });
    const fusedCost = model.cost.numLogLikRows - before;
    const two = approxMhTest(new Rng(`step ${r}`), {
      ...common,
      differencesFn: twoCall(theta, proposed),
      rowOrder: orderB,
    });
    assert.deepEqual(fused, two, `step ${r}`);
    assert.equal(fusedCost, model.cost.numLogLikRows - before - fusedCost, "same cost");
    assert.equal(fusedCost, 2 * fused.numRowsUsed);
    if (fused.isAccepted) {
      theta = proposed;
      numAccepted++;
    }
  }
  assert.ok(numAccepted > 10 && numAccepted < 140, `accepted ${numAccepted}`);
});
