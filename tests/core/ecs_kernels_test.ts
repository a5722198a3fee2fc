/**
 * core/as/ecs_kernels.ts (bound by core/glm_kernels.ts `differenceEstimate`):
 * the one-call evaluation of the difference estimator equals, bit for bit,
 * the composition it replaces — the Taylor sum of
 * subsampling/subsample_control_variates.ts, the core's differences, the
 * sums and weights of subsampling/difference_estimator.ts and the weighted
 * row sum — on random inputs, in both wasm builds.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import { Rng } from "../../random/rng.ts";
import { ControlVariates, taylorSum } from "../../subsampling/control_variates.ts";

/** Bits of a double (−0 and 0 differ). */
const bits = (v: number) => new BigUint64Array(Float64Array.of(v).buffer)[0];

/** A value of random sign and magnitude over `decades` decades around 1. */
const wide = (rng: Rng, decades: number) =>
  (rng.uniform() < 0.5 ? -1 : 1) * 10 ** (decades * (rng.uniform() - 0.5));

type Taylor = {
  order: 0 | 1 | 2;
  dim: number;
  thetaStar: Float64Array;
  llStarSum: number;
  gradSum: Float64Array;
  hessSum: Float64Array;
};

/** The previous path: the parts one by one, as DifferenceEstimator composed them. */
function composed(
  cv: ControlVariates,
  taylor: Taylor,
  rows: ReturnType<ControlVariates["createRows"]>,
  theta: Float64Array,
  o: { m: number; start: number; end: number; corrected: boolean },
) {
  const d = taylor.dim, n = cv.numRows, m = o.m;
  const qGrad = new Float64Array(d);
  const sumQ = taylorSum(taylor, theta, new Float64Array(d), qGrad);
  cv.differences(rows, theta, { start: o.start, end: o.end, derivative: true });
  const diffs = rows.diffs(0, m);
  let s = 0;
  for (let i = 0; i < m; i++) s += diffs[i];
  const mean = s / m;
  let ss = 0;
  const nm = n / m, nm2 = nm * nm, r = rows.derivatives(0, m), w = rows.weights(0, m);
  for (let i = 0; i < m; i++) {
    const e = diffs[i] - mean;
    ss += e * e;
    w[i] = r[i] * (o.corrected ? nm - nm2 * e : nm);
  }
  const rowGrad = cv.weightedRowSum(rows, new Float64Array(d), { start: 0, end: m });
  const grad = qGrad.map((g, j) => g + rowGrad[j]);
  const logLikelihood = sumQ + n * mean;
  const variance = (n / m) * (n / m) * ss;
  return {
    sumQ,
    logLikelihood,
    variance,
    value: logLikelihood - 0.5 * variance,
    grad,
    diffs: diffs.slice(),
    r: r.slice(),
    w: w.slice(),
  };
}

for (const backend of ["simd", "relaxed-simd"] as const) {
  Deno.test(`ecsEstimate (${backend}) equals the composed estimator bit for bit on random inputs`, () => {
    const arena = loadCore({ backend });
    const rng = new Rng(11);
    let cases = 0;
    for (const family of ["logistic", "poisson", "gaussian"] as const) {
      for (const d of [1, 2, 3, 5, 8, 29]) {
        const n = 400;
        const x = Array.from({ length: n * d }, (_, i) => (i % d === 0 ? 1 : rng.normal()));
        const y = Array.from(
          { length: n },
          () =>
            family === "logistic"
              ? (rng.uniform() < 0.4 ? 1 : 0)
              : family === "poisson"
              ? Math.floor(3 * rng.uniform())
              : rng.normal(),
        );
        const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), {
          family,
          ...(family === "gaussian" ? { sigma: 1.3 } : {}),
        });
        const thetaStar = Float64Array.from({ length: d }, () => 0.1 * rng.normal());
        for (const order of [0, 1, 2] as const) {
          const cv = new ControlVariates(model, thetaStar, { order });
          // m = 600 at d = 29: more than 16384 entries, Σwᵢxᵢ read row after row.
          for (const m of [1, 2, 3, 5, 13, 40, 600]) {
            const rows = cv.createRows(m + 3);
            cv.gatherRows(rows, Int32Array.from({ length: m + 3 }, () => rng.int(n)), 0);
            for (let k = 0; k < 3; k++) {
              // θ*, S, A, B of any sign and size (B not symmetric): the sums see
              // every term in its place.
              const taylor: Taylor = {
                order,
                dim: d,
                thetaStar: cv.thetaStar,
                llStarSum: -n * Math.abs(wide(rng, 4)),
                gradSum: Float64Array.from({ length: d }, () => wide(rng, 6)),
                hessSum: Float64Array.from({ length: d * d }, () => wide(rng, 6)),
              };
              const theta = Float64Array.from(thetaStar, (t) => t + 0.05 * rng.normal());
              const corrected = rng.uniform() < 0.7;
              // A whole pass, then the block refresh's groups of 4 only.
              const g0 = 4 * Math.floor(rng.int(m) / 4);
              const ranges = [{ start: 0, end: m }, { start: g0, end: Math.min(m, g0 + 4) }];
              for (const { start, end } of ranges) {
                const o = { m, start, end, corrected };
                const want = composed(cv, taylor, rows, theta, o);
                // Spoil what the kernel must recompute: the diffs and weights in range.
                rows.diffs(start, end).fill(NaN);
                rows.weights(0, m).fill(NaN);
                const grad = new Float64Array(d).fill(NaN);
                const got = model.kernels.differenceEstimate(rows, theta, taylor, {
                  ...o,
                  numRows: n,
                  grad,
                });
                assert.ok(got !== null, "the wasm builds have the kernel");
                const at = `${family} d=${d} order=${order} m=${m} [${start}, ${end})`;
                assert.equal(bits(got.logLikelihood), bits(want.logLikelihood), `ℓ̂ ${at}`);
                assert.equal(bits(got.sumControlVariates), bits(want.sumQ), `Σq ${at}`);
                assert.equal(bits(got.variance), bits(want.variance), `σ̂² ${at}`);
                assert.equal(bits(got.value), bits(want.value), `value ${at}`);
                for (let j = 0; j < d; j++) {
                  assert.equal(bits(grad[j]), bits(want.grad[j]), `∂${j} ${at}`);
                }
                assert.deepEqual(rows.diffs(0, m), want.diffs, `d ${at}`);
                assert.deepEqual(rows.derivatives(0, m), want.r, `r ${at}`);
                assert.deepEqual(rows.weights(0, m), want.w, `w ${at}`);
                cases++;
              }
            }
            rows.dispose();
          }
          cv.dispose();
        }
      }
    }
    assert.equal(cases, 3 * 6 * 3 * 7 * 3 * 2);
  });
}

Deno.test("ecsEstimate: the comparison sees a change of summation order", () => {
  // The inputs above are wide enough that the order of a sum shows in its
  // bits: the same terms summed backwards differ for some draw.
  const rng = new Rng(3);
  let differs = 0;
  for (let k = 0; k < 50; k++) {
    const t = Float64Array.from({ length: 29 }, () => wide(rng, 6));
    let fwd = 0, bwd = 0;
    for (let i = 0; i < t.length; i++) fwd += t[i];
    for (let i = t.length - 1; i >= 0; i--) bwd += t[i];
    if (bits(fwd) !== bits(bwd)) differs++;
  }
  assert.ok(differs > 10, `${differs} of 50 sums changed with their order`);
});

Deno.test("differenceEstimate is null on the reference backend (the caller composes the parts)", () => {
  const arena = loadCore({ backend: "reference" });
  const model = new GlmModel(glmDataFromArrays(arena, [1, 0.5, 1, -0.5], [1, 0], { numCols: 2 }), {
    family: "logistic",
  });
  const cv = new ControlVariates(model, new Float64Array(2), { order: 2 });
  const rows = cv.createRows(2);
  cv.gatherRows(rows, Int32Array.of(0, 1), 0);
  const r = model.kernels.differenceEstimate(rows, new Float64Array(2), cv, {
    m: 2,
    start: 0,
    end: 2,
    numRows: 2,
    corrected: true,
    grad: new Float64Array(2),
  });
  assert.equal(r, null);
  rows.dispose();
  cv.dispose();
});

Deno.test("differenceEstimate copies θ*, A, B again only for a new taylorKey or object", () => {
  const arena = loadCore();
  const rng = new Rng(2), n = 200, d = 5, m = 16;
  const x = Array.from({ length: n * d }, (_, i) => (i % d === 0 ? 1 : rng.normal()));
  const y = Array.from({ length: n }, () => (rng.uniform() < 0.5 ? 1 : 0));
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), {
    family: "logistic",
  });
  const cv = new ControlVariates(model, new Float64Array(d), { order: 2 });
  const rows = cv.createRows(m);
  cv.gatherRows(rows, Int32Array.from({ length: m }, () => rng.int(n)), 0);
  const theta = Float64Array.from({ length: d }, () => 0.1 * rng.normal());
  const at = (taylorKey: number) => {
    const grad = new Float64Array(d);
    const o = { m, start: 0, end: m, numRows: n, corrected: true, grad, taylorKey };
    const e = model.kernels.differenceEstimate(rows, theta, cv, o)!;
    return [e.value, ...grad];
  };
  const before = at(1);
  const hess = cv.hessSum.slice();
  cv.hessSum.set(hess.map((v) => 2 * v));
  assert.deepEqual(at(1), before, "the same key: the copy made at key 1 is used");
  const changed = at(2);
  assert.notDeepEqual(changed, before, "a new key: the doubled B is read");
  cv.hessSum.set(hess);
  assert.deepEqual(at(3), before);
  rows.dispose();
  cv.dispose();
});
