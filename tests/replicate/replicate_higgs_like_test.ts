import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { dataViews } from "../../core/row_buffer.ts";
import { freeGlmData } from "../../data/dataset.ts";
import { higgsShaped } from "../../data/synthetic.ts";
import { symmetricEigenvalues } from "../../replicate/conditioning.ts";
import {
  fitHiggsLike,
  higgsLike,
  loadHiggsSample,
  normalCdf,
  normalQuantile,
} from "../../replicate/higgs_like.ts";
import type { MethodOutcome } from "../../replicate/method_outcome.ts";
import { rctOf, rctPaper, thinResult } from "../../replicate/method_outcome.ts";
import type { SamplingResult } from "../../samplers/driver.ts";
import { ratioOutcome, rctVerdict } from "../../replicate/verdicts.ts";

const N = 20_000;

/** Condition number of (1/n) Σ σ'(ηᵢ) xᵢxᵢᵀ at the generating coefficients. */
function _perRowCondition(x: ArrayLike<number>, n: number, d: number, beta: Float64Array): number {
  const info = new Float64Array(d * d);
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) eta += x[i * d + j] * beta[j];
    const mu = 1 / (1 + Math.exp(-eta)), w = (mu * (1 - mu)) / n;
    for (let j = 0; j < d; j++) {
      for (let k = 0; k < d; k++) info[j * d + k] += w * x[i * d + j] * x[i * d + k];
    }
  }
  const e = symmetricEigenvalues(info);
  return e[d - 1] / e[0];
}

Deno.test("the committed HIGGS sample: 5 000 rows, 28 features and a 0/1 label at HIGGS's 53 % signal", () => {
  const s = loadHiggsSample();
  assert.equal(s.names.length, 28);
  assert.equal(s.names[0], "lepton_pT");
  assert.equal(s.names[27], "m_wwbb");
  assert.equal(s.label.length, 5000);
  assert.ok(s.label.every((v) => v === 0 || v === 1));
  const rate = s.label.reduce((a, b) => a + b, 0) / 5000;
  assert.ok(Math.abs(rate - 0.53) < 0.005, `signal rate ${rate}`);
});

Deno.test("normalCdf and normalQuantile invert each other", () => {
  for (const p of [1e-6, 0.01, 0.2, 0.5, 0.8, 0.999]) {
    assert.ok(
      Math.abs(normalCdf(normalQuantile(p)) - p) < 2e-7 * Math.max(1, p / 1e-6),
      `p = ${p}`,
    );
  }
  assert.ok(Math.abs(normalQuantile(0.975) - 1.959963985) < 1e-8);
  assert.throws(() => normalQuantile(1), /0 < p < 1, got 1/);
});

Deno.test("higgsLike rows have the sample's standardisation, correlation, b-tag levels and conditioning", async (t) => {
  const model = fitHiggsLike();
  const arena = loadCore({ backend: "reference" });
  const { data, trueCoefficients } = higgsLike(arena, { n: N, seed: 5, model });
  const { x, y } = dataViews(data);
  const d = data.numCols, p = d - 1;
  const col = (j: number) => Float64Array.from({ length: N }, (_, i) => x[i * d + 1 + j]);

  await t.step("an intercept then the 28 HIGGS features, standardised (mean 0, sd 1)", () => {
    assert.equal(d, 29);
    assert.deepEqual(data.columnNames.slice(0, 2), ["(Intercept)", "lepton_pT"]);
    for (let i = 0; i < N; i++) assert.equal(x[i * d], 1);
    for (let j = 0; j < p; j++) {
      const c = col(j);
      const mean = c.reduce((a, b) => a + b, 0) / N;
      const sd = Math.sqrt(c.reduce((a, b) => a + (b - mean) ** 2, 0) / (N - 1));
      // sd of a standardised mean: 1/√N ≈ 0.007; heavy tails widen the sd's error.
      assert.ok(Math.abs(mean) < 0.04, `${model.names[j]} mean ${mean}`);
      assert.ok(Math.abs(sd - 1) < 0.08, `${model.names[j]} sd ${sd}`);
    }
  });

  await t.step("the b-tag columns keep their few levels, the masses their skew", () => {
    const btag = model.names.indexOf("jet_1_btag");
    assert.ok(model.discrete[btag]);
    const levels = new Set(col(btag));
    assert.ok(levels.size <= 4, `jet_1_btag levels ${[...levels]}`);
    const mbb = col(model.names.indexOf("m_bb"));
    const skew = mbb.reduce((a, v) => a + v ** 3, 0) / N;
    assert.ok(skew > 1, `m_bb skewness ${skew}`);
  });

  await t.step("pairwise correlations follow the sample's (m_wbb with m_wwbb strongly)", () => {
    const a = col(model.names.indexOf("m_wbb")), b = col(model.names.indexOf("m_wwbb"));
    const r = a.reduce((s, v, i) => s + v * b[i], 0) / N;
    const k = model.names.indexOf("m_wbb") * p + model.names.indexOf("m_wwbb");
    assert.ok(
      model.correlation[k] > 0.7,
      `fitted normal-score correlation ${model.correlation[k]}`,
    );
    assert.ok(r > 0.6, `generated Pearson correlation ${r}`);
  });

  await t.step("the label rate is HIGGS's and the per-row information is badly conditioned", () => {
    const rate = y.reduce((a, b) => a + b, 0) / N;
    assert.ok(Math.abs(rate - 0.53) < 0.03, `signal rate ${rate}`);
    const cond = _perRowCondition(x, N, d, trueCoefficients);
    const iso = higgsShaped(arena, { n: N, seed: 5 });
    const isoViews = dataViews(iso.data);
    const condIso = _perRowCondition(isoViews.x, N, 30, iso.trueCoefficients);
    freeGlmData(iso.data);
    assert.ok(cond > 15, `HIGGS-like condition number ${cond}`);
    assert.ok(condIso < 3, `isotropic condition number ${condIso}`);
  });
  freeGlmData(data);
  assert.throws(
    () => higgsLike(arena, { n: 0, seed: 1, model }),
    /n must be an integer ≥ 1, got 0/,
  );
});

Deno.test("symmetricEigenvalues matches a known spectrum", () => {
  // Q diag(1, 4, 9) Qᵀ for a rotation Q.
  const c = Math.cos(0.3), s = Math.sin(0.3);
  const q = [c, -s, 0, s, c, 0, 0, 0, 1], lam = [1, 4, 9];
  const a = new Float64Array(9);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      for (let k = 0; k < 3; k++) a[i * 3 + j] += q[i * 3 + k] * lam[k] * q[j * 3 + k];
    }
  }
  const e = symmetricEigenvalues(a);
  lam.forEach((v, i) => assert.ok(Math.abs(e[i] - v) < 1e-12, `${e[i]} vs ${v}`));
});

Deno.test("ratio verdicts: the paper's min–max range or 1.5× of its median, partly within 3×", () => {
  const table1Sgld = [3.58, 12.46, 326.8] as const;
  assert.equal(ratioOutcome(300, table1Sgld), "reproduced");
  assert.equal(ratioOutcome(3.6, table1Sgld), "reproduced");
  assert.equal(ratioOutcome(5, table1Sgld), "reproduced");
  assert.equal(ratioOutcome(3, table1Sgld), "not reproduced");
  assert.equal(ratioOutcome(0.24, table1Sgld), "not reproduced");
  assert.equal(ratioOutcome(1.36, [2.43, 2.97, 4.08]), "partly");
  assert.equal(ratioOutcome(2.0, [2.43, 2.97, 4.08]), "reproduced");
  assert.equal(ratioOutcome(4.74, [1.2, 1.6, 2.6]), "partly");
  assert.equal(ratioOutcome(NaN, 1), "not reproduced");
  assert.equal(ratioOutcome(Infinity, [1, 2, Infinity]), "not reproduced");
  const v = rctVerdict("c", [NaN, NaN], [3.58, 12.46, 326.8], "x");
  assert.equal(v.outcome, "not reproduced");
  assert.match(v.ours, /no finite RCT \(diverged\)/);
});

function _fakeResult(values: number[]): SamplingResult {
  const draws = [Float64Array.from(values)];
  return {
    parameterNames: ["a"],
    numChains: 1,
    numWarmup: 0,
    numSamples: values.length,
    thin: 1,
    numDraws: values.length,
    draws: [draws],
    chains: [{ draws, numDraws: values.length } as unknown as SamplingResult["chains"][0]],
  };
}

Deno.test("thinResult keeps the last draw of every block; rctPaper charges IF × E per run", () => {
  const r = thinResult(_fakeResult([1, 2, 3, 4, 5, 6, 7]), 3);
  assert.deepEqual(Array.from(r.draws[0][0]), [3, 6]);
  assert.equal(r.numDraws, 2);
  assert.equal(r.thin, 3);
  assert.throws(() => thinResult(_fakeResult([1]), 0), /thin must be an integer ≥ 1, got 0/);
  const o = (key: string, ifs: number[], evaluations: number, numDraws: number, un?: number[]) =>
    ({
      key,
      inefficiency: ifs,
      ...(un ? { inefficiencyUnthinned: un } : {}),
      evaluations,
      numDraws,
      tau: 1,
    }) as unknown as MethodOutcome;
  const ecs = o("ecs_perturbed", [2], 1000, 100);
  // SGLD: 6 × 100 iterations, thinned IF 1.5, unthinned IF 9, same evaluations as ECS.
  const sgld = o("sgld", [1.5], 1000, 100, [9]);
  assert.equal(rctOf(sgld, ecs).median, 0.75);
  assert.equal(rctPaper(sgld, ecs).median, 4.5);
  // A method keeping every draw of an equally long run: both conventions agree.
  const sghmc = o("sghmc", [3], 2000, 100);
  assert.equal(rctPaper(sghmc, ecs).median, rctOf(sghmc, ecs).median);
});
