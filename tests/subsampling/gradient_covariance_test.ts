/**
 * Tests of subsampling/gradient_covariance.ts: the fused update-and-apply of
 * CCAdL's running covariance estimate against the two functions it fuses.
 */

import assert from "node:assert/strict";
import { Rng } from "../../random/rng.ts";
import {
  applyCovariance,
  type CovarianceKind,
  initCovarianceEstimate,
  updateAndApplyCovariance,
  updateCovarianceEstimate,
} from "../../subsampling/gradient_covariance.ts";

Deno.test("updateAndApplyCovariance gives updateCovarianceEstimate then applyCovariance bit for bit", async (t) => {
  for (const kind of ["diagonal", "full"] as CovarianceKind[]) {
    for (const inPlace of [false, true]) {
      await t.step(`${kind}, ${inPlace ? "in place" : "new arrays"}: 20 updates at d = 7`, () => {
        const d = 7, len = kind === "full" ? d * d : d, rng = new Rng(`cov/${kind}/${inPlace}`);
        let a = initCovarianceEstimate(d, kind), b = initCovarianceEstimate(d, kind);
        for (let step = 0; step < 20; step++) {
          const v = rng.fillNormal(new Float64Array(len));
          const x = rng.fillNormal(new Float64Array(d));
          const weight = step % 3 === 0 ? undefined : 0.1 + 0.04 * step;
          const scale = 0.37 * (step + 1);
          a = updateCovarianceEstimate(a, {
            covariance: v,
            weight,
            out: inPlace ? a.value : undefined,
          });
          const want = applyCovariance(a, { vector: x, scale });
          const r = updateAndApplyCovariance(b, {
            covariance: v,
            weight,
            out: inPlace ? b.value : undefined,
            vector: x,
            scale,
          });
          if (inPlace) assert.equal(r.estimate.value, b.value, "in place: the same array");
          b = r.estimate;
          assert.equal(b.numUpdates, a.numUpdates);
          assert.deepEqual([...b.value], [...a.value], `estimate after update ${step}`);
          assert.deepEqual([...r.product], [...want], `product after update ${step}`);
        }
      });
    }
  }
  await t.step("errors name the bad value", () => {
    const e = initCovarianceEstimate(2, "full");
    const ok = { covariance: new Float64Array(4), vector: new Float64Array(2) };
    assert.throws(
      () => updateAndApplyCovariance(e, { ...ok, vector: new Float64Array(3) }),
      /vector must have length 2, got 3/,
    );
    assert.throws(
      () => updateAndApplyCovariance(e, { ...ok, covariance: new Float64Array(2) }),
      /covariance must have 4 values for this full estimate, got 2/,
    );
    assert.throws(
      () => updateAndApplyCovariance(e, { ...ok, weight: 1.5 }),
      /weight must be in \(0, 1\], got 1.5/,
    );
    assert.throws(
      () => updateAndApplyCovariance(e, { ...ok, product: new Float64Array(1) }),
      /product must have length 2, got 1/,
    );
  });
});
