/**
 * Tests of the data layer's MNIST 7 vs 9 data and its transforms:
 * loadMnist79(), mnist79(), random and PCA projections, and standardize().
 */

import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import type { Arena } from "../../core/arena.ts";
import { applyProjection, pcaProjection, randomProjection, standardize } from "../../data/mod.ts";
import { loadMnist79, mnist79, MNIST_PIXELS } from "../../data/mnist.ts";
import { _bitsEqual, _readAll, _x } from "../_data_fixtures.ts";

Deno.test("loadMnist79() splits the package's 7s and 9s deterministically", async (t) => {
  const a = loadMnist79({ seed: 1 });
  await t.step("sizes, labels and pixel range", () => {
    assert.equal(a.numTrain, 1638);
    assert.equal(a.numTest, 410);
    assert.equal(a.trainX.length, 1638 * MNIST_PIXELS);
    const nines = (y: Float64Array) => y.reduce((s, v) => s + v, 0);
    assert.equal(nines(a.trainY), 782);
    assert.equal(nines(a.testY), 196);
    for (const y of [a.trainY, a.testY]) assert.ok(y.every((v) => v === 0 || v === 1));
    for (const x of [a.trainX, a.testX]) assert.ok(x.every((v) => v >= 0 && v <= 1));
  });
  await t.step("same seed → same split; other seed → another; no image in both sets", () => {
    const b = loadMnist79({ seed: 1 }), c = loadMnist79({ seed: 2 });
    assert.ok(_bitsEqual(a.trainX, b.trainX) && _bitsEqual(a.testY, b.testY));
    assert.ok(!_bitsEqual(a.trainX, c.trainX));
    const key = (x: Float64Array, i: number) =>
      x.subarray(i * MNIST_PIXELS, (i + 1) * MNIST_PIXELS).join();
    const train = new Set(Array.from({ length: a.numTrain }, (_, i) => key(a.trainX, i)));
    for (let i = 0; i < a.numTest; i++) assert.ok(!train.has(key(a.testX, i)));
  });
});

Deno.test("randomProjection() and pcaProjection() reduce dimension reproducibly", async (t) => {
  const pixels = loadMnist79({ seed: 1 });
  await t.step("random projection: seeded, entries N(0, 1/k)", () => {
    const k = 20;
    const p1 = randomProjection(MNIST_PIXELS, { k, seed: 7 });
    const p2 = randomProjection(MNIST_PIXELS, { k, seed: 7 });
    const p3 = randomProjection(MNIST_PIXELS, { k, seed: 8 });
    assert.ok(_bitsEqual(p1.matrix, p2.matrix));
    assert.ok(!_bitsEqual(p1.matrix, p3.matrix));
    const m = p1.matrix, count = m.length;
    const v = m.reduce((s, e) => s + e * e, 0) / count;
    assert.ok(Math.abs(v - 1 / k) < 4 * (1 / k) * Math.sqrt(2 / count), `entry variance ${v}`);
    assert.ok(_bitsEqual(applyProjection(p1, pixels.testX), applyProjection(p2, pixels.testX)));
  });
  await t.step(
    "PCA: variances non-increasing, orthonormal components, variance along each = eigenvalue",
    () => {
      const k = 6;
      const pca = pcaProjection(pixels.trainX, { numCols: MNIST_PIXELS, k, seed: 3 });
      const again = pcaProjection(pixels.trainX, { numCols: MNIST_PIXELS, k, seed: 4 });
      for (let c = 0; c < k; c++) {
        if (c > 0) assert.ok(pca.variances[c - 1] >= pca.variances[c]);
        for (let c2 = 0; c2 < k; c2++) {
          let dot = 0;
          for (let r = 0; r < MNIST_PIXELS; r++) {
            dot += pca.matrix[r * k + c] *
              pca.matrix[r * k + c2];
          }
          assert.ok(Math.abs(dot - (c === c2 ? 1 : 0)) < 1e-10, `q${c}·q${c2} = ${dot}`);
        }
      }
      const z = applyProjection(pca, pixels.trainX);
      const n = pixels.numTrain;
      for (let c = 0; c < k; c++) {
        let m = 0, s = 0;
        for (let i = 0; i < n; i++) m += z[i * k + c];
        for (let i = 0; i < n; i++) s += (z[i * k + c] - m / n) ** 2;
        assert.ok(Math.abs(m / n) < 1e-10);
        assert.ok(Math.abs(s / (n - 1) - pca.variances[c]) < 1e-8 * pca.variances[0]);
        // another starting subspace finds the same (sign-normalised) components
        for (let r = 0; r < MNIST_PIXELS; r++) {
          assert.ok(Math.abs(pca.matrix[r * k + c] - again.matrix[r * k + c]) < 1e-5);
        }
      }
    },
  );
  await t.step("PCA of a known 2-d covariance", () => {
    // ±3·u ± 1·v with u = (1, 2)/√5, v = (2, −1)/√5: covariance 4·(9uuᵀ + vvᵀ)/3.
    const x: number[] = [];
    for (const a of [-3, 3]) {
      for (const b of [-1, 1]) x.push((a + 2 * b) / Math.sqrt(5), (2 * a - b) / Math.sqrt(5));
    }
    const pca = pcaProjection(x, { numCols: 2, k: 2 });
    assert.ok(
      Math.abs(pca.matrix[0] - 1 / Math.sqrt(5)) < 1e-12,
      `u = ${pca.matrix[0]}, ${pca.matrix[2]}`,
    );
    assert.ok(Math.abs(pca.matrix[2] - 2 / Math.sqrt(5)) < 1e-12);
    assert.ok(
      Math.abs(pca.variances[0] - 12) < 1e-12 && Math.abs(pca.variances[1] - 4 / 3) < 1e-12,
    );
  });
});

Deno.test("standardize() gives mean 0 and sd 1, skipping constant columns", () => {
  const x = [1, 2, 10, 1, 4, 10, 1, 9, 10];
  const s = standardize(x, { numCols: 3 });
  assert.deepEqual(Array.from(s.mean), [0, 5, 0]);
  assert.deepEqual(Array.from(s.sd), [1, Math.sqrt(13), 1]);
  assert.deepEqual([s.values[0], s.values[2], s.values[3]], [1, 10, 1]);
  const again = standardize([1, 5, 10], { numCols: 3, mean: s.mean, sd: s.sd });
  assert.deepEqual(Array.from(again.values), [1, 0, 10]);
  assert.throws(() => standardize([1, 2, 3], { numCols: 2 }), /not a multiple of numCols = 2/);
});

Deno.test("mnist79() builds train and test GLM data in the arena", async (t) => {
  const arena: Arena = loadCore({ backend: "reference" });
  for (const projection of ["random", "pca"] as const) {
    await t.step(projection, () => {
      const k = 8;
      const m = mnist79(arena, { projection, k, seed: 1 });
      assert.equal(m.train.numRows, 1638);
      assert.equal(m.test.numRows, 410);
      assert.equal(m.train.numCols, k + 1);
      assert.equal(m.train.columnNames[0], "(Intercept)");
      const [x, y] = _readAll(m.train);
      assert.ok(y.every((v) => v === 0 || v === 1));
      for (let c = 1; c <= k; c++) {
        let mean = 0, sq = 0;
        for (let i = 0; i < 1638; i++) {
          mean += x[i * (k + 1) + c];
          sq += x[i * (k + 1) + c] ** 2;
        }
        assert.ok(Math.abs(mean / 1638) < 1e-12);
        assert.ok(Math.abs(sq / 1637 - 1) < 1e-12);
      }
      const again = mnist79(arena, { projection, k, seed: 1, storage: "f32", intercept: false });
      assert.equal(again.test.numCols, k);
      assert.deepEqual(
        arena.readF32(again.test.x, 410 * k),
        Float32Array.from(_x(m.test).filter((_, i) => i % (k + 1) !== 0)),
      );
    });
  }
});
