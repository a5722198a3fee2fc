/**
 * Subsampling PSIS-LOO (diagnostics/loo_subsample.ts): against R
 * loo::loo_subsample on committed fixtures (tests/fixtures/loo_subsample/,
 * made by make_fixtures.R there), against full PSIS-LOO at n = 1e5, and the
 * comparison of subsampled fits.
 */
import nodeAssert from "node:assert/strict";
import { loo, pointwiseLogLik } from "../../diagnostics/loo.ts";
import { looCompare, looCompareSubsample } from "../../diagnostics/loo_compare.ts";
import {
  elpdLooApproximation,
  looSubsample,
  looSubsampleFromPointwise,
  type LooSubsampleResult,
} from "../../diagnostics/loo_subsample.ts";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import { _normal, _rng } from "../_core_fixtures.ts";

const assert = (v: unknown, msg?: string) => nodeAssert.ok(v, msg);
// deno-lint-ignore no-explicit-any
const assertThrows = (f: () => unknown, type: new (...a: any[]) => Error, msg: string) =>
  nodeAssert.throws(f, (e: unknown) => e instanceof type && e.message.includes(msg));

/** |a − b| ≤ tol · max(1, |b|): absolute below 1, relative above. */
function close(a: number, b: number, tol: number, what: string): number {
  const err = Math.abs(a - b) / Math.max(1, Math.abs(b));
  assert(err <= tol, `${what}: ${a} vs R ${b} (relative error ${err}, tolerance ${tol})`);
  return err;
}

interface REst {
  elpd_loo: number[];
  p_loo: number[];
  looic: number[];
  pointwise_elpd_loo: number[];
  pointwise_p_loo: number[];
  pareto_k: number[];
  elpd_loo_approx: number[];
}
interface RModel {
  d: number;
  draws: number[];
  plpd: REst;
  lpd: REst;
  full: { elpd_loo: number[]; p_loo: number[] };
}
const fx = JSON.parse(
  await Deno.readTextFile(
    new URL("../fixtures/loo_subsample/loo_subsample_fixtures.json", import.meta.url),
  ),
) as {
  loo_version: string;
  N: number;
  S: number;
  chain_id: number[];
  y: number[];
  x1: number[];
  x2: number[];
  idx: number[];
  full: RModel;
  reduced: RModel;
  compare: {
    order: string[];
    elpd_diff: number[];
    se_diff: number[];
    subsampling_se_diff: number[];
  };
};

function fixtureModel(name: "full" | "reduced"): { model: GlmModel; draws: Float64Array[] } {
  const r = fx[name], d = r.d, n = fx.N;
  const x = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    x[i * d] = 1;
    x[i * d + 1] = fx.x1[i];
    if (d > 2) x[i * d + 2] = fx.x2[i];
  }
  const model = new GlmModel(glmDataFromArrays(loadCore(), x, fx.y, { numCols: d }), {
    family: "poisson",
  });
  const draws = Array.from(
    { length: fx.S },
    (_, s) => Float64Array.from({ length: d }, (_, j) => r.draws[j * fx.S + s]),
  );
  return { model, draws };
}

// Tolerance 1e-6 (absolute below 1, relative above), as tests/diagnostics/loo_test.ts:
// the PSIS part matches R to ~1e-13; the approximation is the same Poisson
// density at the same θ̄ (R: dpois; here the core's kernel with log Γ), so
// what differs is rounding in ℓ (≲ 1e-12 per row, ≲ 1e-9 summed over 2000 rows).
const TOL = 1e-6;

function checkAgainstR(ss: LooSubsampleResult, r: REst, what: string): number {
  let worst = 0;
  const idx0 = fx.idx.map((i) => i - 1);
  nodeAssert.deepEqual(Array.from(ss.indices), idx0);
  for (let i = 0; i < fx.N; i++) {
    worst = Math.max(worst, close(ss.elpdLooApprox[i], r.elpd_loo_approx[i], TOL, `${what} π̃`));
  }
  for (let j = 0; j < idx0.length; j++) {
    worst = Math.max(
      worst,
      close(ss.pointwise.elpdLoo[j], r.pointwise_elpd_loo[j], TOL, `${what} elpd_loo,i`),
      close(ss.pointwise.pLoo[j], r.pointwise_p_loo[j], TOL, `${what} p_loo,i`),
      close(ss.pointwise.paretoK[j], r.pareto_k[j], TOL, `${what} k̂`),
    );
  }
  for (const key of ["elpdLoo", "pLoo", "looic"] as const) {
    const rk = { elpdLoo: r.elpd_loo, pLoo: r.p_loo, looic: r.looic }[key];
    const e = ss[key];
    worst = Math.max(
      worst,
      close(e.estimate, rk[0], TOL, `${what} ${key}`),
      close(e.se, rk[1], TOL, `${what} ${key} SE`),
      close(e.subsamplingSe, rk[2], TOL, `${what} ${key} subsampling SE`),
    );
  }
  return worst;
}

Deno.test(`looSubsample matches R loo ${fx.loo_version} loo_subsample (diff_srs, plpd and lpd)`, () => {
  const { model, draws } = fixtureModel("full");
  try {
    const observations = fx.idx.map((i) => i - 1);
    const plpd = looSubsample(model, draws, { observations, chainIds: fx.chain_id });
    assert(plpd.approximation === "plpd" && plpd.indices.length === 150);
    const w1 = checkAgainstR(plpd, fx.full.plpd, "plpd");
    const lpd = looSubsample(model, draws, {
      observations,
      chainIds: fx.chain_id,
      approximation: "lpd",
      approximationDraws: 100,
    });
    const w2 = checkAgainstR(lpd, fx.full.lpd, "lpd");
    console.log(`largest relative difference from R: plpd ${w1}, lpd ${w2}`);
  } finally {
    model.dispose();
  }
});

Deno.test("looCompareSubsample matches R loo_compare of two subsampled fits (sign flipped)", () => {
  const fits: Record<string, LooSubsampleResult> = {};
  for (const name of ["full", "reduced"] as const) {
    const { model, draws } = fixtureModel(name);
    try {
      fits[name] = looSubsample(model, draws, {
        observations: fx.idx.map((i) => i - 1),
        chainIds: fx.chain_id,
      });
      checkAgainstR(fits[name], fx[name].plpd, name);
    } finally {
      model.dispose();
    }
  }
  const cmp = looCompareSubsample({ reduced: fits.reduced, full: fits.full });
  nodeAssert.deepEqual(cmp.map((r) => r.name), fx.compare.order);
  nodeAssert.deepEqual(cmp.map((r) => r.method), ["best", "paired"]);
  // R loo 2.5.1 reports best − other for subsampled fits; here other − best.
  close(cmp[1].elpdDiff, -fx.compare.elpd_diff[1], TOL, "elpd_diff");
  close(cmp[1].seDiff, fx.compare.se_diff[1], TOL, "se_diff");
  close(cmp[1].subsamplingSeDiff, fx.compare.subsampling_se_diff[1], TOL, "subsampling_se_diff");
  assert(cmp[0].elpdDiff === 0 && cmp[0].seDiff === 0);
});

Deno.test("looSubsample with m = n is full PSIS-LOO; the sample is simple random, seeded", () => {
  const { model, draws } = fixtureModel("reduced");
  try {
    const n = 300;
    const sub = new GlmModel(
      glmDataFromArrays(
        loadCore(),
        Float64Array.from({ length: n * 2 }, (_, k) => (k % 2 === 0 ? 1 : fx.x1[k >> 1])),
        fx.y.slice(0, n),
        { numCols: 2 },
      ),
      { family: "poisson" },
    );
    try {
      const all = looSubsample(sub, draws, { observations: n, rEff: 1 });
      const full = loo(pointwiseLogLik(sub, draws), { rEff: 1 });
      close(all.elpdLoo.estimate, full.elpdLoo.estimate, 1e-12, "m = n estimate");
      assert(all.elpdLoo.subsamplingSe === 0);
      // σ̂² = Σ y² − (Σ y)²/n: full loo's n/(n−1) · var with divisor n − 1 … without the n/(n−1)
      close(all.elpdLoo.se, full.elpdLoo.se * Math.sqrt((n - 1) / n), 1e-9, "m = n SE");
      const a = looSubsample(sub, draws, { observations: 50, rEff: 1, seed: 7 });
      const b = looSubsample(sub, draws, { observations: 50, rEff: 1, seed: 7 });
      const c = looSubsample(sub, draws, { observations: 50, rEff: 1, seed: 8 });
      nodeAssert.deepEqual(a.indices, b.indices);
      assert(a.indices.some((v, j) => v !== c.indices[j]), "another seed, another sample");
      assert(new Set(a.indices).size === 50 && a.indices.every((v) => v >= 0 && v < n));
      for (let j = 1; j < 50; j++) assert(a.indices[j] > a.indices[j - 1]);
      // Uniform inclusion: over many seeds every row is drawn about m/n of the time.
      const counts = new Float64Array(n);
      const approx = elpdLooApproximation(sub, draws.slice(0, 10), "plpd");
      for (let seed = 0; seed < 400; seed++) {
        const r = looSubsampleFromPointwise(
          approx,
          // indices only: a cheap one-draw loo stands in for the PSIS values
          Int32Array.from(_srsIndices(n, 30, seed)),
          loo([new Float64Array(30), new Float64Array(30)], { rEff: 1 }),
        );
        for (const i of r.indices) counts[i]++;
      }
      // Each count ~ Binomial(400, 0.1): mean 40, sd 6; min and max within 6 sd.
      assert(Math.min(...counts) > 4 && Math.max(...counts) < 76, `${Math.min(...counts)}`);
    } finally {
      sub.dispose();
    }
  } finally {
    model.dispose();
  }
});

/** The rows looSubsample draws for (n, m, seed), read back through its result. */
function _srsIndices(n: number, m: number, seed: number): Int32Array {
  const stub = {
    dim: 1,
    numRows: n,
    logLikelihoodRows(_t: Float64Array, rows: Int32Array, o: { perRow?: Float64Array }) {
      for (let i = 0; i < rows.length; i++) o.perRow![i] = -1 - 0.01 * (rows[i] % 7) - 1e-3 * _t[0];
      return 0;
    },
  };
  const draws = Array.from({ length: 20 }, (_, s) => [Math.sin(s)]);
  return looSubsample(stub, draws, { observations: m, seed, rEff: 1 }).indices;
}

Deno.test("looSubsample and looCompareSubsample: clear errors", () => {
  const { model, draws } = fixtureModel("reduced");
  try {
    assertThrows(() => looSubsample(model, draws, { observations: 1 }), RangeError, "observations");
    assertThrows(
      () => looSubsample(model, draws, { observations: fx.N + 1 }),
      RangeError,
      "2 … 2000",
    );
    assertThrows(() => looSubsample(model, draws, { observations: [3, 3] }), RangeError, "twice");
    assertThrows(() => looSubsample(model, draws, { observations: [0, 2000] }), RangeError, "2000");
    assertThrows(() => looSubsample(model, draws, { targetSe: 0 }), RangeError, "targetSe");
    assertThrows(
      () => looSubsample(model, draws, { approximation: "waic" as "lpd" }),
      RangeError,
      "approximation",
    );
    assertThrows(() => looSubsample(model, [draws[0], [1]]), RangeError, "draw 2");
    const a = loo(pointwiseLogLik(model, draws.slice(0, 20), Int32Array.of(0, 1, 2)), { rEff: 1 });
    const b = looSubsample(model, draws.slice(0, 20), { observations: 5, rEff: 1 });
    assertThrows(() => looCompareSubsample({ a, b }), RangeError, "same 3 observations");
    assertThrows(() => looCompareSubsample({ b }), RangeError, "at least 2");
  } finally {
    model.dispose();
  }
});

Deno.test("looCompareSubsample of full fits is looCompare; a full fit against a subsampled one", () => {
  const { model, draws } = fixtureModel("full");
  const red = fixtureModel("reduced");
  try {
    const fa = loo(pointwiseLogLik(model, draws), { chainIds: fx.chain_id });
    const fb = loo(pointwiseLogLik(red.model, red.draws), { chainIds: fx.chain_id });
    close(fa.elpdLoo.estimate, fx.full.full.elpd_loo[0], TOL, "full-data elpd_loo");
    const plain = looCompare({ b: fb, a: fa });
    const ours = looCompareSubsample({ b: fb, a: fa });
    nodeAssert.deepEqual(
      ours.map((r) => [r.name, r.elpdDiff, r.seDiff]),
      plain.map((r) => [
        r.name,
        r.elpdDiff,
        r.seDiff,
      ]),
    );
    assert(ours.every((r) => r.subsamplingSeDiff === 0));
    // Full "a" against subsampled "b": the difference estimator on b's rows,
    // with a's exact values as its approximation.
    const sb = looSubsample(red.model, red.draws, { observations: 300, chainIds: fx.chain_id });
    const mixed = looCompareSubsample({ a: fa, b: sb });
    assert(mixed[1].method === "paired" && mixed[1].subsamplingSeDiff > 0);
    const z = (mixed[1].elpdDiff - plain[1].elpdDiff) / mixed[1].subsamplingSeDiff;
    assert(Math.abs(z) < 3, `mixed comparison off the full one by ${z} subsampling SEs`);
    // Different subsamples: naive.
    const s1 = looSubsample(model, draws, { observations: 200, seed: 1, chainIds: fx.chain_id });
    const s2 = looSubsample(red.model, red.draws, {
      observations: 200,
      seed: 2,
      chainIds: fx.chain_id,
    });
    const naive = looCompareSubsample({ a: s1, b: s2 });
    assert(naive[1].method === "naive");
    close(naive[1].seDiff, Math.hypot(s1.elpdLoo.se, s2.elpdLoo.se), 1e-12, "naive se");
  } finally {
    model.dispose();
    red.model.dispose();
  }
});

Deno.test("[e2e] looSubsample agrees with full PSIS-LOO within its subsampling SE at n = 1e5", () => {
  // Logistic regression, n = 1e5, d = 3; draws near the truth with sd 2/√n per
  // coefficient (posterior-like; both estimates use the same draws).
  const n = 100_000, d = 3, S = 200;
  const u = _rng(11);
  const beta = [-0.4, 0.8, -0.5];
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i * d] = 1;
    let eta = beta[0];
    for (let j = 1; j < d; j++) {
      x[i * d + j] = _normal(u);
      eta += beta[j] * x[i * d + j];
    }
    y[i] = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  const model = new GlmModel(glmDataFromArrays(loadCore(), x, y, { numCols: d }), {
    family: "logistic",
  });
  try {
    const draws = Array.from(
      { length: S },
      () => Float64Array.from(beta, (b) => b + (2 / Math.sqrt(n)) * _normal(u)),
    );
    // Full PSIS-LOO in blocks of rows (S × n at once would take 320 MB).
    const block = 10_000, elpd = new Float64Array(n);
    for (let start = 0; start < n; start += block) {
      const rows = Int32Array.from({ length: block }, (_, i) => start + i);
      elpd.set(loo(pointwiseLogLik(model, draws, rows), { rEff: 1 }).pointwise.elpdLoo, start);
    }
    let full = 0, sq = 0;
    for (const v of elpd) full += v;
    for (const v of elpd) sq += (v - full / n) ** 2;
    const fullSe = Math.sqrt((n * sq) / (n - 1));
    const zs: string[] = [];
    for (const seed of [1, 2, 3]) {
      const ss = looSubsample(model, draws, { observations: 400, rEff: 1, seed });
      const z = (ss.elpdLoo.estimate - full) / ss.elpdLoo.subsamplingSe;
      zs.push(z.toFixed(2));
      assert(Math.abs(z) < 3, `seed ${seed}: off full PSIS-LOO by ${z} subsampling SEs`);
      // The SE from the data, estimated from 400 rows, is full PSIS-LOO's SE
      // within 5 % (its relative sd here is about 1.5 %).
      close(ss.elpdLoo.se, fullSe, 0.05 * fullSe, "SE from 400 rows");
    }
    const t = looSubsample(model, draws, { targetSe: 0.05, observations: 100, rEff: 1 });
    assert(t.elpdLoo.subsamplingSe <= 0.05, `${t.elpdLoo.subsamplingSe}`);
    assert(t.indices.length < n / 10, `m = ${t.indices.length}`);
    const zt = (t.elpdLoo.estimate - full) / t.elpdLoo.subsamplingSe;
    assert(Math.abs(zt) < 3, `targetSe run off by ${zt} SEs`);
    console.log(
      `n = 1e5: full elpd_loo ${full.toFixed(2)} (SE ${fullSe.toFixed(2)}); z of 3 subsamples ` +
        `(m = 400): ${zs.join(", ")}; targetSe 0.05 → m = ${t.indices.length}, z ${zt.toFixed(2)}`,
    );
  } finally {
    model.dispose();
  }
});
