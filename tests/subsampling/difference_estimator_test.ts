import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { GlmModel } from "../../models/glm.ts";
import { Rng } from "../../random/rng.ts";
import { ControlVariates } from "../../subsampling/control_variates.ts";
import { differenceEstimate, DifferenceEstimator } from "../../subsampling/difference_estimator.ts";
import { BlockSubsample } from "../../subsampling/subsample_state.ts";

/** Bits of a double (−0 and 0 differ). */
const bits = (v: number) => new BigUint64Array(Float64Array.of(v).buffer)[0];

/** S + Aᵀδ + ½δᵀBδ and A + Bδ with plain loops, row by row in order of columns. */
function plainTaylor(cv: ControlVariates, theta: Float64Array) {
  const d = cv.dim, delta = theta.map((t, j) => t - cv.thetaStar[j]);
  let v = cv.llStarSum;
  for (let j = 0; j < d; j++) v += cv.gradSum[j] * delta[j];
  const grad = Float64Array.from(cv.gradSum);
  let quad = 0;
  for (let i = 0; i < d; i++) {
    let bi = 0;
    for (let j = 0; j < d; j++) bi += cv.hessSum[i * d + j] * delta[j];
    quad += delta[i] * bi;
    grad[i] += bi;
  }
  return { value: v + 0.5 * quad, grad };
}

Deno.test("the difference estimator's value and gradient are those of its parts computed one by one, bit for bit", () => {
  const arena = loadCore();
  const rng = new Rng(5), n = 3000, d = 7;
  const x = Array.from({ length: n * d }, (_, i) => (i % d === 0 ? 1 : rng.normal()));
  const y = Array.from({ length: n }, () => (rng.uniform() < 0.4 ? 1 : 0));
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: d }), {
    family: "logistic",
  });
  const thetaStar = Float64Array.from({ length: d }, (_, j) => (j === 0 ? -0.4 : 0.05 * j));
  const cv = new ControlVariates(model, thetaStar, { order: 2 });
  const u = new BlockSubsample(cv, new Rng(1), { subsampleSize: 60, numBlocks: 12 });
  const est = new DifferenceEstimator(u);
  const m = u.subsampleSize, nm = n / m, nm2 = nm * nm;
  let compared = 0;
  for (let k = 0; k < 20; k++) {
    const theta = Float64Array.from(thetaStar, (t) => t + 0.02 * rng.normal());
    for (const biasCorrected of [true, false]) {
      const grad = new Float64Array(d);
      const e = est.evaluate(theta, { grad, biasCorrected });
      const taylor = plainTaylor(cv, theta);
      assert.equal(bits(cv.sum(theta)), bits(taylor.value));
      // The buffer holds dᵢ and rᵢ at θ: the estimate and the weights from them.
      const diffs = u.rows.diffs(0, m).slice(), r = u.rows.derivatives(0, m).slice();
      const want = differenceEstimate(diffs, { numRows: n, sumControlVariates: taylor.value });
      assert.equal(bits(e.logLikelihood), bits(want.logLikelihood));
      assert.equal(bits(e.variance), bits(want.variance));
      assert.equal(bits(e.value), bits(want.value));
      assert.deepEqual(est.lastDiffs, diffs);
      let mean = 0;
      for (let i = 0; i < m; i++) mean += diffs[i];
      mean /= m;
      const w = u.rows.weights(0, m);
      for (let i = 0; i < m; i++) {
        w[i] = r[i] * (biasCorrected ? nm - nm2 * (diffs[i] - mean) : nm);
      }
      const rowGrad = cv.weightedRowSum(u.rows, new Float64Array(d), { start: 0, end: m });
      for (let j = 0; j < d; j++) {
        assert.equal(bits(grad[j]), bits(taylor.grad[j] + rowGrad[j]), `∂${j}`);
        compared++;
      }
    }
    // A block proposal scored at θ: the current differences with the block's replaced.
    const grad = new Float64Array(d);
    est.evaluate(theta, { grad });
    const current = est.lastDiffs.slice();
    const p = u.propose(rng);
    const scored = est.evaluateProposal(theta, { proposal: p, currentDiffs: current });
    const spliced = current.slice();
    spliced.set(u.rows.diffs(p.start, p.end), u.blockRange(p.block).start);
    assert.deepEqual(scored.diffs, spliced);
    assert.notEqual(scored.diffs, current);
    assert.equal(
      bits(scored.estimate.value),
      bits(differenceEstimate(spliced, { numRows: n, sumControlVariates: cv.sum(theta) }).value),
    );
    // The same value without the spliced array.
    assert.equal(
      bits(est.proposalValue(theta, { proposal: p, currentDiffs: current })),
      bits(scored.estimate.value),
    );
    if (k % 2 === 0) u.accept(p);
  }
  assert.equal(compared, 20 * 2 * d);
  u.dispose();
  cv.dispose();
});
